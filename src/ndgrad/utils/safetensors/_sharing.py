"""Which tensors of a dict share memory, which save refuses, and which of them save_model keeps: the package's
rules, so that both libraries refuse, keep and drop the same names."""

__all__ = ["shared_groups", "dropped_names"]

_NO_COMPLETE_NAME = (
    "Error while trying to find names to remove to save state dict, but found no suitable name to keep for saving "
    "amongst: {}. None is covering the entire storage.Refusing to save/load the model since you could be storing "
    "much more memory than needed. Please refer to https://huggingface.co/docs/safetensors/torch_shared_tensors for "
    "more information. Or open an issue."
)


def shared_groups(tensors):
    """The names of ``tensors`` as sets, one per run of tensors that overlap in memory (a tensor that overlaps no
    other is a set of its own), in the order the dict first names each storage. Tensors with no memory (an empty
    storage) and sparse ones are in none."""
    by_storage = {}
    for name, tensor in tensors.items():
        if tensor.is_sparse:
            continue
        storage = tensor.untyped_storage()
        if storage.nbytes():
            by_storage.setdefault((tensor.device, storage.data_ptr(), storage.nbytes()), []).append(name)
    return [group for names in by_storage.values() for group in _overlapping(names, tensors)]


def _overlapping(names, tensors):
    """Names of one storage, split where a tensor begins at or after the end of the one before it in address
    order. NOTE: as in the package, each is compared with the one before it only, not with all before it."""
    groups, last_end = [], None
    for begin, end, name in sorted(_span(tensors[name]) + (name,) for name in names):
        if last_end is None or begin >= last_end:
            groups.append({name})
        else:
            groups[-1].add(name)
        last_end = end
    return groups


def _span(tensor):
    """(address of the first element, address after the last element in index order)."""
    begin = tensor.data_ptr()
    if not tensor.numel():
        return begin, begin
    last = sum((size - 1) * stride for size, stride in zip(tensor.shape, tensor.stride()))
    return begin, begin + (last + 1) * tensor.element_size()


def dropped_names(state_dict, preferred_names=()):
    """{name kept: [names dropped]} for each group of tensors sharing memory (see shared_groups): the name kept
    covers its whole storage, and is the first in sorted order among ``preferred_names`` (the names a file holds),
    else among all such names; RuntimeError in the package's words where no name of a group covers its storage."""
    preferred = set(preferred_names)
    dropped = {}
    for group in shared_groups(state_dict):
        complete = {name for name in group if _is_complete(state_dict[name])}
        if not complete:
            raise RuntimeError(_NO_COMPLETE_NAME.format(group))
        kept = min(complete & preferred or complete)
        others = [name for name in sorted(group) if name != kept]
        if others:
            dropped[kept] = others
    return dropped


def _is_complete(tensor):
    storage = tensor.untyped_storage()
    return tensor.data_ptr() == storage.data_ptr() and tensor.nbytes == storage.nbytes()
