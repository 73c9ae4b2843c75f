"""Wrong and edge uses of the Tensor object against torch: attribute assignment, the metadata methods, conversions
(type, to, apply_, sum_to_size), Python's operators with numbers that do not fit a dtype, and the order of
PyTorch's refusals of in-place writes. Each snippet runs with both libraries; printed text, errors and warnings
must agree."""

import pytest

SETUP = """
import copy, pickle
x = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
w = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], requires_grad=True)
nonleaf = w * 2
i = torch.tensor([[0, 1, 2], [2, 1, 0]])
u = torch.tensor([[0, 44, 255], [1, 2, 3]], dtype=torch.uint8)
c = torch.tensor([[1 + 1j, 2, 3], [4, 5, 6j]])
b = torch.tensor([[True, False, True], [False, True, False]])
"""


def snippet(code):
    return SETUP + code


# ---- attributes ---------------------------------------------------------------------------------------------------
READ_ONLY = ["shape", "dtype", "device", "T", "mT", "H", "mH", "is_leaf", "output_nr", "_version", "is_cuda",
             "is_cpu", "ndim", "retains_grad", "layout", "itemsize", "nbytes", "is_sparse", "is_quantized", "is_meta"]


@pytest.mark.parametrize("name", READ_ONLY)
@pytest.mark.parametrize("statement", ["x.{} = x.{}", "del x.{}"])
def test_read_only_attributes_refuse_assignment_and_deletion(same, name, statement):
    same(snippet(statement.format(name, name)))


@pytest.mark.parametrize("value", ["1", "0", "None", "'yes'", "1.0", "np.bool_(True)", "torch.tensor(False)", "[True]"])
@pytest.mark.parametrize("tensor", ["x", "i", "nonleaf"])
def test_requires_grad_takes_only_a_bool(same, tensor, value):
    same(snippet(f"{tensor}.requires_grad = {value}\nprint({tensor}.requires_grad)"))


@pytest.mark.parametrize("code", [
    "del x.requires_grad", "i.requires_grad = True", "nonleaf.requires_grad = False", "x.requires_grad = True; "
    "print(x.requires_grad, x.is_leaf)", "nonleaf.requires_grad = True; print(nonleaf.requires_grad)",
])
def test_requires_grad_setter_edges(same, code):
    same(snippet(code))


@pytest.mark.parametrize("code", [
    "nonleaf.grad = nonleaf", "x.grad = x", "w.grad = w.detach(); print(w.grad)", "w.grad = w.view(2, 3)",
    "w.grad = [1.0]", "w.grad = 2", "w.grad = torch.ones(6)", "w.grad = torch.ones(2, 3, dtype=torch.float64)",
    "w.grad = torch.ones(2, 3, dtype=torch.int32)", "i.grad = torch.ones(2, 3)", "w.grad = torch.ones(2, 3); "
    "del w.grad; print(w.grad)", "w.grad = None; print(w.grad)",
])
def test_grad_assignment(same, code):
    same(snippet(code))


@pytest.mark.parametrize("code", [
    "w.data = 1", "w.data = (1.0,)", "w.data = np.ones(2)", "w.data = b", "x.data = b; print(x)",
    "w.data = torch.ones(4, dtype=torch.float64); print(w.dtype, w.shape, w.requires_grad)", "del x.data",
    "w.data = c; print(w.requires_grad, w.dtype)",
])
def test_data_assignment(same, code):
    same(snippet(code))


@pytest.mark.parametrize("code", [
    "x.tag = [1, 2]; print(x.tag)", "x.tag = 1; del x.tag; print(hasattr(x, 'tag'))", "del x.tag",
    "x.tag = {'a': [1]}; y = copy.deepcopy(x); print(y.tag, y.tag is x.tag)",
    "x.tag = 'kept'; print(pickle.loads(pickle.dumps(x)).tag)", "print(x.__dict__, hasattr(x, 'bogus'))",
    "x.exp = 5; print(x.exp)",
])
def test_user_attributes(same, code):
    same(snippet(code))


@pytest.mark.parametrize("code", ["x.imag = 1.0", "c.real = 'a'", "c.imag = None", "c.imag = 2; print(c)",
                                  "x.real = torch.zeros(3); print(x)", "c.real = [1]"])
def test_real_and_imag_assignment(same, code):
    same(snippet(code))


# ---- methods named as PyTorch names them in Python's own errors ---------------------------------------------------
@pytest.mark.parametrize("call", [
    "w.backward(1, 2, 3, 4, 5)", "w.register_hook()", "w.register_post_accumulate_grad_hook()", "x.__len__(1)",
    "x.is_shared(1)", "x.split()", "x.unflatten(0)",
])
def test_python_level_methods_are_named_as_torch_names_them(same, call):
    same(snippet(call))


# ---- metadata ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("expression", [
    "x.itemsize, x.nbytes, i.nbytes, u.itemsize, c.nbytes, torch.ones(0).nbytes",
    "x[1].data_ptr() - x.data_ptr(), x.t().data_ptr() == x.data_ptr(), x[:, 2].data_ptr() - x.data_ptr()",
    "x.storage_offset(), x[1].storage_offset(), x[1, 1:].storage_offset(), x.t()[2].storage_offset()",
    "x.get_device(), x.is_pinned(), x.is_shared(), x.layout, x.is_sparse, x.is_quantized, x.is_meta, x.is_cpu",
    "x.ndimension(), torch.tensor(1.).ndimension()",
    "[t.is_signed() for t in (x, i, u, b, c)]",
    "torch.zeros(2, layout=torch.strided), torch.ones(1, 2).new_ones(2, layout=torch.strided)",
    "x.is_pinned('cpu')",
])
def test_metadata(same, expression):
    same(snippet(f"print({expression})"))


@pytest.mark.parametrize("call", ["x.is_pinned(1.5)", "torch.zeros(2, layout='strided')", "torch.zeros(2, layout=1)"])
def test_metadata_argument_errors(same, call):
    same(snippet(call))


# ---- conversions ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argument", [
    "'torch.DoubleTensor'", "'torch.ByteTensor'", "'torch.Tensor'", "torch.Tensor", "torch.LongTensor",
    "torch.int16", "'torch.float64'", "'DoubleTensor'", "float", "int", "np.float32", "1", "None", "[1]",
    "'torch.BoolTensor', True",
])
def test_type(same, argument):
    same(snippet(f"y = x.type({argument})\nprint(y if isinstance(y, str) else (y.dtype, y is x))"))


@pytest.mark.parametrize("arguments", [
    "2.5", "False", "1j", "0.5, True", "1.5, torch.int8", "-2", "'cpu1'", "'CPU'", "''", "'gpu:0'", "'cpu:0'",
    "'int64'", "'cuda:-2'",
])
def test_to(same, arguments):
    same(snippet(f"print(x.to({arguments}).dtype)"))


@pytest.mark.parametrize("arguments", ["2, 3", "(1, 3)", "[3]", "1, 1", "2, 1", "()", "0", "3, 1", "1, 2, 3", "-3",
                                       "3.0", "'a'", "1, 'b'"])
def test_sum_to_size(same, arguments):
    same(snippet(f"y = nonleaf.sum_to_size({arguments})\nprint(y, y is nonleaf)\ny.sum().backward()\nprint(w.grad)"))


@pytest.mark.parametrize("code", [
    "print(x.apply_(lambda v: v + 1))", "print(i.apply_(lambda v: v * 2.7))", "print(u.apply_(lambda v: v - 256))",
    "u.apply_(lambda v: v + 256)", "i.apply_(lambda v: 2 ** 63)", "print(b.apply_(lambda v: not v))",
    "x.apply_(lambda v: [v])", "x.apply_(lambda v: 1 + 1j)", "print(c.apply_(lambda v: v * 1j))", "w.apply_(abs)",
    "x.apply_(None)", "print(x.t().apply_(lambda v: 2 * v), x)",
])
def test_apply_(same, code):
    same(snippet(code))


@pytest.mark.parametrize("code", ["x.view(6).detach_()", "x.t().detach_()", "w[:, 1].detach_()",
                                  "print(x.detach().detach_())", "nonleaf.detach_(); print(nonleaf.requires_grad)"])
def test_detach_refuses_views(same, code):
    same(snippet(code))


# ---- Python's operators with numbers, as torch's ------------------------------------------------------------------
BIG = ["2**64", "-2**63 - 1", "10**30", "-10**30"]
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "<", ">=", "==", "!=", "&", "|", "^", "<<"]


@pytest.mark.parametrize("number", BIG)
@pytest.mark.parametrize("operator", OPERATORS)
@pytest.mark.parametrize("tensor", ["x", "i"])
def test_ints_beyond_64_bits_raise_overflow_error(same, tensor, operator, number):
    same(snippet(f"print({tensor} {operator} ({number}))\nprint(({number}) {operator} {tensor})"))


@pytest.mark.parametrize("code", [
    "u + 300", "300 - u", "u * -1", "u == 300", "u > -1", "u != 256 + 255", "u % 260", "u // 300", "u & 300",
    "u | -2", "u ^ 257", "torch.add(u, 256 + 7)", "u.sub(-1)", "torch.ones(3, dtype=torch.int8) + 200",
    "torch.ones(3, dtype=torch.int16) * 40000", "i * 2**63", "i - (2**64 - 1)", "i < 2**63", "torch.fmod(u, 300)",
    "torch.remainder(u, -1)", "300 ** torch.tensor([0, 1, 2], dtype=torch.uint8)", "u ** 2",
])
def test_integer_operands_wrap_into_the_tensor_dtype(same, code):
    same(snippet(f"print({code})"))


@pytest.mark.parametrize("code", [
    "u ** 300", "u ** -1", "i ** -2", "torch.ones(3, dtype=torch.int8) ** 128", "u.pow_(256)", "i.pow_(-1)",
])
def test_integer_exponents_are_checked(same, code):
    same(snippet(code))


@pytest.mark.parametrize("code", [
    "u.fill_(256)", "u.fill_(-255); print(u)", "u.fill_(-256)", "torch.ones(2, dtype=torch.int8).fill_(-129)",
    "torch.ones(2, dtype=torch.float16).fill_(1e5)", "x.fill_(1e39)", "x.fill_(float('inf')); print(x)",
    "print(i.fill_(2.9))", "print(b.fill_(300))", "x.fill_(2j)", "x.fill_(2**64)",
    "u.masked_fill_(b, 256)", "print(u.masked_fill(b, -1))", "x.masked_fill(b, 1e39)", "x.masked_fill(b, 2**70)",
    "print(u.copy_(300 + 256))", "x.copy_(2**70)",
])
def test_written_numbers_are_checked_against_the_dtype(same, code):
    same(snippet(code))


@pytest.mark.parametrize("operator", ["+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>="])
@pytest.mark.parametrize("operand", ["2", "'a'", "None", "[1]", "c"])
def test_augmented_assignment_is_in_place(same, operator, operand):
    same(snippet(f"t = i.clone()\nbefore = t\nt {operator} {operand}\nprint(t is before, t)"))


@pytest.mark.parametrize("code", ["x @ 2", "2 @ x", "x @ 1.5", "x @ 'a'", "x.t() @ None", "x @= 2"])
def test_matmul_refuses_numbers(same, code):
    same(snippet(code))


@pytest.mark.parametrize("element", ["0.2", "0.25", "x[1]", "x[0, 1]", "torch.ones(3)", "True", "2j", "'a'",
                                     "None", "[0.1]", "(0.1,)", "torch.ones(2)", "np.float32(0.5)"])
def test_contains(same, element):
    same(snippet(f"print({element} in x)"))


@pytest.mark.parametrize("code", ["np.sqrt(x)", "np.multiply(x, 2)", "np.less(x, 0.3)", "np.add(i, 1)",
                                  "np.exp(x[0, 0])"])
def test_numpy_functions_of_tensors_give_tensors(same, code):
    same(snippet(f"y = {code}\nprint(type(y).__name__, y.dtype, y)"))


# ---- in-place writes: PyTorch's refusals come before the op's own errors ----------------------------------------
@pytest.mark.parametrize("call", [
    "w.bitwise_or_(i)", "w.bitwise_xor_(b)", "w.remainder_(1j)", "w.fmod_(c)", "w.pow_(c)", "w.eq_(c)",
    "w.div_(2, rounding_mode='x')", "w.floor_divide_(c)", "w[0].lt_(c[0])", "w.t().clamp_(1j)",
    "w.cumsum_(0, dtype=torch.int64)", "w.index_fill_(5, torch.tensor([0]), 1.0)",
    "x.expand(2, 2, 3).bitwise_xor_(i)", "x.expand(2, 2, 3).remainder_(c)", "x.expand(2, 2, 3).lt_(c)",
    "x.expand(2, 2, 3).fill_(1e39)", "x.expand(2, 2, 3).masked_fill_(b, 2j)", "i.bitwise_and_(torch.ones(2, 2, 3))",
])
def test_in_place_refusals_come_first(same, call):
    same(snippet(call))


@pytest.mark.parametrize("call", ["w.logical_or_(x)", "w.logical_xor_(b)", "w.logical_not_()",
                                  "w[0].logical_and_(x[1])", "nonleaf.logical_and_(x)"])
def test_logical_in_place_ops_run_outside_autograd(same, call):
    same(snippet(f"t = {call}\nprint(t.detach(), t.requires_grad, t.grad_fn is None, t._version)"))


@pytest.mark.parametrize("call", [
    "b.cumsum_(1)", "b.cumprod_(0)", "u.cumsum_(0)", "(u + 100).cumprod_(1)", "x.cumsum_(1, dtype=torch.float64)",
    "i.cumprod_(0, dtype=torch.int32)", "i.cumsum_(0, dtype=torch.int64)",
])
def test_cumulative_ops_in_place_keep_the_dtype(same, call):
    same(snippet(f"print({call})"))


@pytest.mark.parametrize("call", [
    "torch.ones(3, 3).baddbmm_(torch.ones(2, 3, 4), torch.ones(2, 4, 3))",
    "torch.ones(1, 3).addmm_(torch.ones(3, 2), torch.ones(2, 3))",
    "torch.ones(3, 3, dtype=torch.bool).addmm_(torch.ones(3, 2), torch.ones(2, 3))",
    "torch.ones(2, 3).addbmm(torch.ones(2, 3, 4, dtype=torch.int64), torch.ones(2, 4, 3))",
    "torch.ones(4, dtype=torch.int64).baddbmm_(torch.ones(2, 3, 4), torch.ones(2, 4, 3))",
])
def test_in_place_products_check_the_written_shape(same, call):
    same(snippet(call))
