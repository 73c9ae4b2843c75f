"""ndgrad.onnx: importable, as scripts import it on their first lines; exporting a model to ONNX is not implemented
(see torch.onnx)."""

__all__ = ["export", "is_in_onnx_export"]


def export(model, args=(), f=None, **kwargs):
    """Refuses: ndgrad cannot write ONNX files yet (see torch.onnx.export)."""
    raise NotImplementedError(
        "ndgrad.onnx.export is not supported yet: ndgrad records no graph that can be written as ONNX. Save the "
        "weights with ndgrad.save(model.state_dict(), path) instead."
    )


def is_in_onnx_export():
    """Whether an ONNX export is running: never, as ndgrad has none (see torch.onnx.is_in_onnx_export)."""
    return False
