"""Comparisons and logical ops: their results are bool and never require grad."""

from ndgrad.ops._op import Op

__all__ = [
    "logical_and", "eq", "ne", "lt", "le", "gt", "ge"
]


class _Comparison(Op):
    differentiable = False


class Eq(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.equal(x, y))


class Ne(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.not_equal(x, y))


class Lt(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.less(x, y))


class Le(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.less_equal(x, y))


class Gt(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.greater(x, y))


class Ge(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.greater_equal(x, y))


class LogicalAnd(_Comparison):
    forward = staticmethod(lambda xp, x, y: xp.logical_and(x, y))


# ---- the functions users call --------------------------------------------------------------------------------------
def logical_and(input, other):
    return LogicalAnd.apply(input, other)


def eq(input, other):
    return Eq.apply(input, other)


def ne(input, other):
    return Ne.apply(input, other)


def lt(input, other):
    return Lt.apply(input, other)


def le(input, other):
    return Le.apply(input, other)


def gt(input, other):
    return Gt.apply(input, other)


def ge(input, other):
    return Ge.apply(input, other)


class ComparisonMethods:
    """The Tensor methods of this module's ops (Tensor inherits them): one line each."""

    __slots__ = ()  # Tensor keeps its fields in slots; a mixin must not add a __dict__

    def eq(self, other):
        return eq(self, other)
    def ne(self, other):
        return ne(self, other)
    def lt(self, other):
        return lt(self, other)
    def le(self, other):
        return le(self, other)
    def gt(self, other):
        return gt(self, other)
    def ge(self, other):
        return ge(self, other)
