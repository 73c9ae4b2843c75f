"""The one list of where ndgrad's signatures knowingly differ from torch's, each with its reason. The signature
check (test_signatures.py) fails on any difference not listed here, and on a listed one that is gone."""

_CLASSIFIER = ("torch's parser writes this function's overload without a parameter named input or self, so the "
               "check cannot tell it from a method's: the same overload is counted on the wrong side")
_NDGRAD_EXTRA = "an ndgrad addition, keyword-only after torch's parameters: every torch call means the same"

KNOWN = {
    "torch.where": _CLASSIFIER,  # where(Tensor condition)
    "torch.Tensor.where": _CLASSIFIER,
    "torch.repeat_interleave": _CLASSIFIER,  # repeat_interleave(Tensor repeats, *, output_size=None)
    "torch.Tensor.repeat_interleave": _CLASSIFIER,
    "torch.Tensor.copy_": "torch's binding library also holds copy_(Tensor src, bool? non_blocking=None) for another "
                          "binding; Tensor.copy_ itself parses copy_(Tensor other, bool non_blocking=False), as ndgrad",
    "torch.Tensor.new": "the legacy constructor's sparse forms (new(indices, values[, size]) of a sparse tensor) are "
                        "left out: ndgrad.sparse_coo_tensor makes sparse tensors",
    "torch.no_grad": "decorates without parentheses (@no_grad), as torch's does through its own __new__; inspect "
                     "reads ndgrad's __new__ where it reads torch's __init__",
    "torch.autograd.no_grad": "the same class as torch.no_grad",
    "torch.autograd.detect_anomaly": _NDGRAD_EXTRA + " (check_forward: stop at the first forward op making a NaN)",
    "torch.autograd.set_detect_anomaly": _NDGRAD_EXTRA + " (check_forward)",
    "torch.autograd.functional.jacobian": _NDGRAD_EXTRA + " (show: print the Jacobian's graph)",
    "torch.distributed.all_reduce": "op's default is ReduceOp.SUM in torch; ReduceOp comes with the distributed "
                                    "engine (its own issue): until then every call refuses, uninitialized",
    "torch.onnx.export": "refuses whatever it is given (export is a later issue), so it takes any keywords",
    "torch.utils.data.random_split": "generator=None means the default generator, which torch writes as its default",
}
