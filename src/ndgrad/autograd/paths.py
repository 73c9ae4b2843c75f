"""``graph.path(a, b)``: the chain of backward nodes that leads from one tensor to another, one printed line per
node with the user's line that made it. Also the small graph queries explain() shares: a tensor's node, its name."""

from collections import deque

from ndgrad.autograd.hints import say
from ndgrad.autograd.provenance import origin_of, site_of

__all__ = ["path", "node_of", "name_of", "reaches", "leaves_reached"]

MAX_PATHS = 100  # all_paths stops here: the number of paths can grow exponentially with the graph's depth


def node_of(tensor):
    """The node backward reaches ``tensor`` through: its grad_fn, or a leaf's AccumulateGrad; None if it does not
    require grad. A Node passes through."""
    from ndgrad._tensor import Tensor

    if not isinstance(tensor, Tensor):
        return tensor
    if not tensor.requires_grad:
        return None
    return tensor._edge()[0]


def name_of(tensor):
    """The variable the user assigned ``tensor`` to where it was made (``w = ...`` -> "w"), or None."""
    site = site_of(tensor.grad_fn) if tensor.grad_fn is not None else None
    if site is None:
        origin = origin_of(tensor)
        site = origin[1] if origin is not None else None
    return site.variable if site is not None else None


def _label(tensor):
    from ndgrad._tensor import Tensor

    if not isinstance(tensor, Tensor):
        return tensor.name()
    return name_of(tensor) or ("tensor" if tensor.grad_fn is None else tensor.grad_fn.name())


def _is_target(node, target):
    """``node`` is ``target``, or another AccumulateGrad of the same leaf (a leaf gets a new one per graph)."""
    if node is target:
        return True
    leaf = getattr(target, "variable", None)
    return leaf is not None and getattr(node, "variable", None) is leaf


def _parents(root, target):
    """Breadth-first from ``root``: each reached node's predecessor on a shortest path, stopping at ``target``."""
    parents = {root: None}
    queue = deque([root])
    while queue:
        node = queue.popleft()
        if _is_target(node, target):
            return parents, node
        for next_node, _ in node._edges:
            if next_node is not None and next_node not in parents:
                parents[next_node] = node
                queue.append(next_node)
    return parents, None


def reaches(root, target):
    """The shortest list of nodes from ``root`` down to ``target`` (both included), or None."""
    parents, found = _parents(root, target)
    if found is None:
        return None
    chain = []
    while found is not None:
        chain.append(found)
        found = parents[found]
    return chain[::-1]


def leaves_reached(root):
    """The leaves (tensors) whose AccumulateGrad ``root`` reaches, in breadth-first order."""
    parents, _ = _parents(root, None)
    return [node.variable for node in parents if hasattr(node, "variable")]


def _all_paths(root, target):
    """Every path from ``root`` to ``target`` (up to MAX_PATHS), without recursion: first the nodes that can reach
    the target at all, then a depth-first walk through those only."""
    parents, _ = _parents(root, None)
    consumers = {}
    for node in parents:
        for next_node, _ in node._edges:
            if next_node is not None:
                consumers.setdefault(next_node, []).append(node)
    useful = {node for node in parents if _is_target(node, target)}
    stack = list(useful)
    while stack:
        for consumer in consumers.get(stack.pop(), ()):
            if consumer not in useful:
                useful.add(consumer)
                stack.append(consumer)
    if root not in useful:
        return []
    paths, stack = [], [[root]]
    while stack and len(paths) < MAX_PATHS:
        chain = stack.pop()
        if _is_target(chain[-1], target):
            paths.append(chain)
            continue
        following = [next_node for next_node, _ in chain[-1]._edges if next_node in useful]
        stack.extend(chain + [next_node] for next_node in reversed(following))
    return paths


def _line(node):
    """One printed line: the node's name, then the user's line that made it (a leaf's: where it was created)."""
    name = type(node).__name__ if hasattr(node, "variable") else node.name()
    site = site_of(node)
    if site is None:
        return f"  {name:<20} {say('not_recorded')}"
    return f"  {name:<20} {site.short():<18} {site.source}".rstrip()


def path(a, b, all_paths=False):
    """Print the chain of backward nodes from ``a`` (a tensor or its grad_fn) down to ``b``'s node, one line per
    node with where it was made, and return it as a list; ``all_paths=True`` prints and returns every chain.

    Backward runs along these chains: if there is none, ``b`` gets no gradient from ``a``.
    """
    names = {"a": _label(a), "b": _label(b)}
    root, target = node_of(a), node_of(b)
    for tensor, node in ((a, root), (b, target)):
        if node is None:
            print(say("path.no_graph", tensor=_label(tensor)))
            return []
    if all_paths:
        chains = _all_paths(root, target)
    else:
        chain = reaches(root, target)
        chains = [chain] if chain is not None else []
    if not chains:
        print(say("path.none", **names))
        return []
    for index, chain in enumerate(chains, 1):
        if all_paths:
            print(say("path.each", index=index, total=len(chains), count=len(chain)))
        else:
            print(say("path.head", count=len(chain), **names))
        print("\n".join(_line(node) for node in chain))
    if len(chains) == MAX_PATHS:
        print(say("path.more", shown=MAX_PATHS))
    return chains if all_paths else chains[0]
