"""save_model and load_model (see safetensors.torch.save_model): a module's state dict with each group of tensors
that share memory (tied weights) stored once, under the name kept, and the others restored from it on loading."""

from ndgrad.utils.safetensors._open import load_file
from ndgrad.utils.safetensors._save import save_file
from ndgrad.utils.safetensors._sharing import dropped_names

__all__ = ["save_model", "load_model"]


def save_model(model, filename, metadata=None, force_contiguous=True):
    """Save ``model.state_dict()``, keeping one name of each group that shares memory and recording each name
    dropped in the metadata as {dropped: kept}, unless the metadata has that key (see
    safetensors.torch.save_model). Unlike the package, the caller's metadata dict is left as it was."""
    state_dict = model.state_dict()
    dropped = dropped_names(state_dict)
    if dropped:
        metadata = {} if metadata is None else {**metadata}
        for kept, names in dropped.items():
            for name in names:
                metadata.setdefault(name, kept)
                del state_dict[name]
    if force_contiguous:
        state_dict = {name: tensor.contiguous() for name, tensor in state_dict.items()}
    try:
        save_file(state_dict, filename, metadata=metadata)
    except ValueError as error:
        raise ValueError(
            f"{error} Or use save_model(..., force_contiguous=True), read the docs for potential caveats."
        ) from error


def load_model(model, filename, strict=True, device="cpu", *, backend="mmap"):
    """Load a file into ``model``: a name the file lacks because save_model dropped it (a tied weight) is not
    missing, and one the file has that the model ties to another is unexpected (see safetensors.torch.load_model).
    Returns (missing names as a set, unexpected names as a list); RuntimeError if ``strict`` and either is not
    empty."""
    state_dict = load_file(filename, device=device, backend=backend)
    dropped = dropped_names(model.state_dict(), preferred_names=state_dict)
    missing, unexpected = model.load_state_dict(state_dict, strict=False)
    missing = set(missing)
    for names in dropped.values():
        for name in names:
            if name in missing:
                missing.remove(name)
            else:
                unexpected.append(name)
    if strict and (missing or unexpected):
        error = f"Error(s) in loading state_dict for {type(model).__name__}:"
        if missing:
            error += "\n    Missing key(s) in state_dict: " + ", ".join(f'"{name}"' for name in sorted(missing))
        if unexpected:
            error += "\n    Unexpected key(s) in state_dict: " + ", ".join(f'"{name}"' for name in sorted(unexpected))
        raise RuntimeError(error)
    return missing, unexpected
