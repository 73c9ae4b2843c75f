"""einsum: a contraction described by subscripts, run as one node per pairwise contraction (PyTorch records the
permutes, views and bmm it runs; ndgrad's node is differentiable to any order, its vjp an einsum again)."""

from ndgrad._argument_parser import parses
from ndgrad.ops._arrays import via_float32
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
        if x.dtype.kind == "V":  # bfloat16, which NumPy's einsum refuses
            return via_float32(Einsum.forward, xp, x, y, equation=equation)
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


# ---- the functions users call: torch.einsum's Python, then its op's checks in PyTorch's order ----------------------
def einsum(*args):
    """Sum of products over the subscripts of an equation (see torch.einsum, whose Python this mirrors): also the
    sublist form einsum(x, [0, 1], y, [1, 2], [0, 2]), and the operands as one list."""
    from ndgrad._tensor import Tensor

    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, or at least one "
                         "operand and its subscripts list")
    if isinstance(args[0], Tensor):
        equation = ",".join("".join(_sublist_subscript(n) for n in sublist) for sublist in args[1::2])
        if len(args) % 2 == 1:  # the last sublist is the output's
            equation += "->" + "".join(_sublist_subscript(n) for n in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])
    return _einsum(equation, operands)


def _sublist_subscript(n):
    """A subscript of the sublist form: 0-25 are 'A'-'Z', 26-51 'a'-'z', Ellipsis '...'."""
    if n == Ellipsis:
        return "..."
    if n >= 0 and n < 26:
        return chr(ord("A") + n)
    if n >= 26 and n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


@parses("einsum(str equation, Tensor[] tensors, *, int[]? path=None)")
def _einsum(equation, tensors, *, path=None):
    operands = tuple(tensors)
    labels, out = _parse_equation(equation, operands)
    subscripts, sizes = _subscripts(labels, operands, out)
    out = out.replace(_ELLIPSIS, "".join(c for c in _ellipsis_letters(labels, operands)))
    dtype = _contraction_dtype(operands, subscripts, sizes, out)
    operands = [x if x.dtype is dtype else x.to(dtype) for x in operands]
    # Size-1 dims broadcast: expand them first, so each contraction sees equal sizes.
    operands = [x if all(sizes[c] == n for c, n in zip(s, x.shape)) else x.expand(tuple(sizes[c] for c in s))
                for x, s in zip(operands, subscripts)]
    if len(operands) == 1:  # even 'ij->ij' makes a new tensor
        return EinsumUnary.apply(operands[0], equation=f"{subscripts[0]}->{out}")
    return _contract(operands, subscripts, out)


_ELLIPSIS = "."  # how a parsed term marks where its ellipsis stands


def _parse_equation(equation, operands):
    """Each operand's subscripts (letters, and _ELLIPSIS for '...') and the output's, read as PyTorch reads them:
    spaces ignored, errors naming the index in the equation of the character at fault."""
    lhs, arrow, rhs = equation.partition("->")
    terms, found, count, position = [""], False, len(operands), 0
    while position < len(lhs):
        c = lhs[position]
        if c == ".":
            _check(not found, f"einsum(): found '.' for operand {len(terms) - 1} for which an ellipsis was already "
                   "found")
            _check(lhs[position + 1:position + 3] == ".." and position + 2 < len(lhs),
                   f"einsum(): found '.' for operand {len(terms) - 1} that is not part of any ellipsis")
            terms[-1] += _ELLIPSIS
            found, position = True, position + 2
        elif c == ",":
            terms.append("")
            _check(len(terms) <= count, "einsum(): fewer operands were provided than specified in the equation")
            found = False
        elif c != " ":
            _check(c in _LETTERS, f"einsum(): invalid subscript given at index {position} in the equation string, "
                   "subscripts must be in [a-zA-Z]")
            terms[-1] += c
        position += 1
    _check(len(terms) == count, "einsum(): more operands were provided than specified in the equation")
    for index, (term, x) in enumerate(zip(terms, operands)):
        letters = len(term.replace(_ELLIPSIS, ""))
        if _ELLIPSIS in term:
            _check(letters <= x.ndim, f"einsum(): the number of subscripts in the equation ({letters}) is more than "
                   f"the number of dimensions ({x.ndim}) for operand {index}")
        else:
            _check(letters == x.ndim, f"einsum(): the number of subscripts in the equation ({letters}) does not match "
                   f"the number of dimensions ({x.ndim}) for operand {index} and no ellipsis was given")
    if not arrow:  # the implicit output: the ellipsis, then the letters seen once, uppercase first
        seen = "".join(terms).replace(_ELLIPSIS, "")
        return terms, _ELLIPSIS + "".join(sorted(c for c in set(seen) if seen.count(c) == 1))
    out, found, position = "", False, 0
    while position < len(rhs):
        c = rhs[position]
        if c == ".":
            _check(not found, "einsum(): found '.' for output but an ellipsis (...) was already found")
            _check(rhs[position + 1:position + 3] == ".." and position + 2 < len(rhs),
                   "einsum(): found '.' for output that is not part of any ellipsis (...)")
            out += _ELLIPSIS
            found, position = True, position + 2
        elif c != " ":
            _check(c in _LETTERS, f"einsum(): invalid subscript given at index {len(lhs) + 2 + position} in the "
                   "equation string, subscripts must be in [a-zA-Z]")
            _check(c not in out, f"einsum(): output subscript {c} appears more than once in the output")
            _check(c in lhs, f"einsum(): output subscript {c} does not appear in the equation for any input operand")
            out += c
        position += 1
    return terms, out


def _ellipsis_letters(labels, operands):
    """Letters of their own for the dims the ellipses cover (as many as the widest ellipsis)."""
    width = max((x.ndim - len(term) + 1 for term, x in zip(labels, operands) if _ELLIPSIS in term), default=0)
    spare = [c for c in _LETTERS if c not in "".join(labels)]
    return spare[:width]


def _subscripts(labels, operands, out):
    """Each operand's subscripts as letters only (an ellipsis as letters of its own), and every letter's size, with
    PyTorch's checks that sizes broadcast (per letter and per ellipsis dim) and that a repeated letter's sizes
    match."""
    ellipsis = _ellipsis_letters(labels, operands)
    subscripts, sizes = [], {}
    for index, (term, x) in enumerate(zip(labels, operands)):
        covered = x.ndim - len(term) + 1
        letters = term.replace(_ELLIPSIS, "".join(ellipsis[len(ellipsis) - covered:]))
        dims_of_ellipsis = range(term.index(_ELLIPSIS), term.index(_ELLIPSIS) + covered) if _ELLIPSIS in term else ()
        first = {}
        for dim, (c, n) in enumerate(zip(letters, x.shape)):
            if c in first:
                _check(n == x.shape[first[c]], f"einsum(): subscript {c} is repeated for operand {index} but the "
                       f"sizes don't match, {n} != {x.shape[first[c]]}")
                continue
            first[c] = dim
            seen = sizes.get(c, 1)
            if n != 1 and seen not in (1, n):
                if dim in dims_of_ellipsis:
                    raise RuntimeError(f"einsum(): dimension {dim} covered by ellipsis in operand {index}has size {n} "
                                       f"which does not broadcast with previously seen ellipsis with size {seen} for "
                                       "the respective dimension")
                raise RuntimeError(f"einsum(): subscript {c} has size {n} for operand {index} which does not "
                                   f"broadcast with previously seen size {seen}")
            sizes[c] = max(seen, n)
        subscripts.append(letters)
    return subscripts, sizes


def _contraction_dtype(operands, subscripts, sizes, out):
    """The dtype PyTorch's einsum ends in, with its errors: it sums a letter out of one operand (integers sum to
    int64; between operands a letter of size 1 is squeezed instead), multiplies operands that share no letter to
    sum (promoting), and contracts the others with bmm (which needs one dtype, and none of bool)."""
    from ndgrad._dtype import bool_, int64, promote_types

    def summed(dtype):
        return int64 if dtype._category < 2 else dtype

    def size(s, x, c):
        return x.shape[s.index(c)] if c in s else 1

    last = {c: max(i for i, s in enumerate(subscripts) if c in s) for c in sizes if c not in out}
    result = operands[0].dtype
    if len(operands) == 1:
        return summed(result) if last else result
    if any(i == 0 and size(subscripts[0], operands[0], c) != 1 for c, i in last.items()):
        result = summed(result)
    for i in range(1, len(operands)):
        dtype, contracted = operands[i].dtype, False
        for c in (c for c, j in last.items() if j == i):
            before, here = max(size(s, x, c) for s, x in zip(subscripts[:i], operands[:i])), size(subscripts[i],
                                                                                                 operands[i], c)
            if before == here == 1:
                continue
            if before == 1:
                dtype = summed(dtype)
            elif here == 1:
                result = summed(result)
            else:
                contracted = True
        if contracted:
            _check(result is dtype, f"expected scalar type {result.title} but found {dtype.title}")
            _check(result is not bool_, "\"bmm\" not implemented for 'Bool'", NotImplementedError)
        else:
            result = promote_types(result, dtype)
    return result
