"""einsum: a contraction described by subscripts, run as one node per pairwise contraction (PyTorch records the
permutes, views and bmm it runs; ndgrad's node is differentiable to any order, its vjp an einsum again)."""

from ndgrad.ops._op import MATMUL, Op

__all__ = ["einsum"]


def _check(condition, message, error=RuntimeError):
    if not condition:
        raise error(message)


class Einsum(Op):
    """One contraction of two operands, given as explicit subscripts ``equation`` ('ij,jk->ik', no '...')."""

    family = MATMUL
    node_name = "EinsumBackward0"
    saves = ("x", "y")

    @staticmethod
    def forward(xp, x, y, equation):
        return xp.einsum(equation, x, y, optimize=True)  # optimize: BLAS (tensordot) where it can

    formula = "grad_x = einsum(grad, y -> x's subscripts); grad_y = einsum(grad, x -> y's subscripts)"
    @staticmethod
    def vjp(ctx, grad):
        x, y = ctx.saved_tensors
        inputs, out = ctx.equation.split("->")
        sx, sy = inputs.split(",")
        need_x, need_y = ctx.needs_input_grad
        return (
            _einsum_grad(grad, out, [(y.conj(), sy)], sx, x.shape) if need_x else None,
            _einsum_grad(grad, out, [(x.conj(), sx)], sy, y.shape) if need_y else None,
        )

    @staticmethod
    def jvp(ctx, x_t, y_t):
        x, y = ctx.saved_tensors
        return Einsum.apply(x_t, y, equation=ctx.equation) + Einsum.apply(x, y_t, equation=ctx.equation)


class EinsumUnary(Op):
    """einsum of one operand: a permutation, diagonal and sum in one ('iij->j')."""

    family = MATMUL
    node_name = "EinsumBackward0"

    @staticmethod
    def forward(xp, x, equation):
        return xp.einsum(equation, x)

    formula = "grad_x = grad expanded (einsum) back to x's subscripts"
    @staticmethod
    def vjp(ctx, grad):
        sx, out = ctx.equation.split("->")
        return (_einsum_grad(grad, out, [], sx, ctx.input_shapes[0]),)

    @staticmethod
    def jvp(ctx, x_t):
        return EinsumUnary.apply(x_t, equation=ctx.equation)


def _contract(operands, subscripts, out):
    """einsum of explicit subscripts, contracted pairwise left to right, keeping the letters needed later."""
    if len(operands) == 1:
        (x,), (sx,) = operands, subscripts
        if sx == out:
            return x
        return EinsumUnary.apply(x, equation=f"{sx}->{out}")
    x, sx = operands[0], subscripts[0]
    for i in range(1, len(operands)):
        y, sy = operands[i], subscripts[i]
        if i == len(operands) - 1:
            keep = out
        else:
            later = set(out).union(*subscripts[i + 1:])
            keep = "".join(dict.fromkeys(c for c in sx + sy if c in later))
        x, sx = Einsum.apply(x, y, equation=f"{sx},{sy}->{keep}"), keep
    return x


def _einsum_grad(grad, out, others, sx, shape):
    """The gradient of an einsum with respect to the operand with subscripts ``sx`` (letters may repeat)."""
    from ndgrad._creation import eye

    sizes = dict(zip(sx, shape))
    unique = "".join(dict.fromkeys(sx))
    present = "".join(c for c in unique if c in out or any(c in s for _, s in others))
    g = _contract([grad] + [t for t, _ in others], [out] + [s for _, s in others], present)
    if present != unique:  # letters summed out of this operand alone: their gradient is a broadcast
        g = g.reshape(tuple(sizes[c] if c in present else 1 for c in unique)).expand(tuple(sizes[c] for c in unique))
    if unique == sx:
        return g
    # A repeated letter reads a diagonal: put the gradient back on it, a product with the identity per repeat.
    free = iter(c for c in _LETTERS if c not in sx)
    renamed, identities, seen = [], [], set()
    for c in sx:
        if c in seen:
            new = next(free)
            identities.append((eye(sizes[c], dtype=grad.dtype, device=grad.device), c + new))
            renamed.append(new)
        else:
            seen.add(c)
            renamed.append(c)
    return _contract([g] + [t for t, _ in identities], [unique] + [s for _, s in identities], "".join(renamed))


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse_einsum(equation, operands):
    """Explicit subscripts for each operand and the output, with '...' replaced by letters of their own."""
    equation = equation.replace(" ", "")
    inputs, arrow, out = equation.partition("->")
    terms = inputs.split(",")
    _check(len(terms) <= len(operands), "einsum(): fewer operands were provided than specified in the equation")
    _check(len(terms) >= len(operands), "einsum(): more operands were provided than specified in the equation")
    for i, c in enumerate(equation):
        if not (c in _LETTERS or c in ",->."):
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, subscripts "
                               "must be in [a-zA-Z]")
    spare = [c for c in _LETTERS if c not in equation]
    ellipsis_dims = 0
    for term, x in zip(terms, operands):
        letters = len(term.replace("...", ""))
        if "..." in term:
            _check(x.ndim >= letters, f"einsum(): the number of subscripts in the equation ({letters}) is more than "
                   f"the number of dimensions ({x.ndim}) for operand {terms.index(term)}")
            ellipsis_dims = max(ellipsis_dims, x.ndim - letters)
        else:
            _check(x.ndim == letters, f"einsum(): the number of subscripts in the equation ({letters}) does not match "
                   f"the number of dimensions ({x.ndim}) for operand {terms.index(term)} and no ellipsis was given")
    ellipsis = "".join(spare[:ellipsis_dims])
    subscripts = []
    for term, x in zip(terms, operands):
        n = x.ndim - len(term.replace("...", ""))
        subscripts.append(term.replace("...", ellipsis[ellipsis_dims - n:]) if "..." in term else term)
    if not arrow:
        counts = {}
        for c in inputs:
            counts[c] = counts.get(c, 0) + 1
        out = ellipsis + "".join(sorted(c for c, n in counts.items() if n == 1 and c in _LETTERS))
    else:
        for c in out.replace("...", ""):
            _check(c in inputs, f"einsum(): output subscript {c} does not appear in the equation for any input "
                   "operand")
            _check(out.replace("...", "").count(c) == 1, f"einsum(): output subscript {c} appears more than once "
                   "in the output")
        out = out.replace("...", ellipsis)
    return subscripts, out


def _sublist_equation(arguments):
    """einsum(x, [0, 1], y, [1, 2], [0, 2]): the sublist form as an equation and its operands."""
    def subscripts(sublist):
        letters = []
        for item in sublist:
            if item is Ellipsis:
                letters.append("...")
                continue
            if not 0 <= item < 52:
                raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
            letters.append(_SUBLIST_LETTERS[item])
        return "".join(letters)

    operands, terms = arguments[0::2], arguments[1::2]
    output = None
    if len(terms) < len(operands):  # the last item is a sublist too: the output
        operands, output = operands[:-1], operands[-1]
    equation = ",".join(subscripts(t) for t in terms[:len(operands)])
    if output is not None:
        equation += "->" + subscripts(output)
    return equation, operands


_SUBLIST_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # PyTorch's order: 0 is 'A', 26 is 'a'


def einsum(equation, *operands):
    """Sum of products over the subscripts of ``equation`` (see torch.einsum); also the sublist form
    einsum(x, [0, 1], y, [1, 2], [0, 2])."""
    if not isinstance(equation, str):
        equation, operands = _sublist_equation((equation, *operands))
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    subscripts, out = _parse_einsum(equation, operands)
    for x in operands[1:]:
        _check(x.dtype is operands[0].dtype, f"expected scalar type {operands[0].dtype.title} but found "
               f"{x.dtype.title}")
    sizes = {}
    for i, (x, s) in enumerate(zip(operands, subscripts)):
        for c, n in zip(s, x.shape):
            seen = sizes.get(c, 1)
            _check(n == 1 or seen == 1 or n == seen, f"einsum(): subscript {c} has size {n} for operand {i} which "
                   f"does not broadcast with previously seen size {seen}")
            sizes[c] = max(seen, n)
    # Size-1 dims broadcast: expand them first, so each contraction sees equal sizes.
    operands = [x if all(sizes[c] == n for c, n in zip(s, x.shape)) else x.expand(tuple(sizes[c] for c in s))
                for x, s in zip(operands, subscripts)]
    if len(operands) == 1:  # even 'ij->ij' makes a new tensor
        return EinsumUnary.apply(operands[0], equation=f"{subscripts[0]}->{out}")
    return _contract(operands, subscripts, out)
