# The stub's triton.language: I32, a Python int with Triton's int32 semantics, and the few tl
# functions a swizzle region uses (constexpr, cdiv, minimum, maximum, where).
#
# I32 arithmetic wraps to 32 bits (two's complement): + - * and unary -; `//` truncates toward
# zero and `%` takes the dividend's sign (C semantics, as Triton's integer division on the GPU;
# b == -1 gives wrap-around negation and 0; b == 0 raises ZeroDivisionError); `<<` with a count
# outside 0..31 gives 0, `>>` (arithmetic) with such a count gives the sign fill (0 or -1);
# & | ^ ~ as int32; comparisons return Python bools. A Python int operand is taken as an int32
# (wrapped). `/` (true division) raises TypeError: a region is int32 arithmetic only.


def _wrap(v):
    v &= 0xFFFFFFFF
    return v - 0x100000000 if v >= 0x80000000 else v


def _val(x):
    if isinstance(x, I32):
        return x.v
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int):
        return _wrap(x)
    raise TypeError("int32 arithmetic only: cannot mix I32 with %s" % type(x).__name__)


def _div(a, b):
    if b == 0:
        raise ZeroDivisionError("int32 division by zero")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


class I32:
    __slots__ = ("v",)

    def __init__(self, v=0):
        self.v = _val(v)

    def __repr__(self):
        return "I32(%d)" % self.v

    def __int__(self):
        return self.v

    __index__ = __int__

    def __bool__(self):
        return self.v != 0

    def __hash__(self):
        return hash(self.v)

    # arithmetic
    def __add__(self, o): return I32(self.v + _val(o))
    def __radd__(self, o): return I32(_val(o) + self.v)
    def __sub__(self, o): return I32(self.v - _val(o))
    def __rsub__(self, o): return I32(_val(o) - self.v)
    def __mul__(self, o): return I32(self.v * _val(o))
    def __rmul__(self, o): return I32(_val(o) * self.v)
    def __floordiv__(self, o): return I32(_div(self.v, _val(o)))
    def __rfloordiv__(self, o): return I32(_div(_val(o), self.v))

    def __mod__(self, o):
        b = _val(o)
        return I32(self.v - _div(self.v, b) * b)

    def __rmod__(self, o):
        a = _val(o)
        return I32(a - _div(a, self.v) * self.v)

    def __truediv__(self, o):
        raise TypeError("int32 arithmetic only: use // (truncating division), not /")

    __rtruediv__ = __truediv__

    def __neg__(self): return I32(-self.v)
    def __pos__(self): return self
    def __invert__(self): return I32(~self.v)

    # shifts
    @staticmethod
    def _shl(a, n):
        return I32(a << n) if 0 <= n <= 31 else I32(0)

    @staticmethod
    def _shr(a, n):
        return I32(a >> n) if 0 <= n <= 31 else I32(-1 if a < 0 else 0)

    def __lshift__(self, o): return I32._shl(self.v, _val(o))
    def __rlshift__(self, o): return I32._shl(_val(o), self.v)
    def __rshift__(self, o): return I32._shr(self.v, _val(o))
    def __rrshift__(self, o): return I32._shr(_val(o), self.v)

    # bitwise
    def __and__(self, o): return I32(self.v & _val(o))
    __rand__ = __and__
    def __or__(self, o): return I32(self.v | _val(o))
    __ror__ = __or__
    def __xor__(self, o): return I32(self.v ^ _val(o))
    __rxor__ = __xor__

    # comparisons: Python bools
    def __eq__(self, o):
        try:
            return self.v == _val(o)
        except TypeError:
            return NotImplemented

    def __ne__(self, o):
        r = self.__eq__(o)
        return r if r is NotImplemented else not r

    def __lt__(self, o): return self.v < _val(o)
    def __le__(self, o): return self.v <= _val(o)
    def __gt__(self, o): return self.v > _val(o)
    def __ge__(self, o): return self.v >= _val(o)


int32 = I32


def constexpr(x):
    return x


def cdiv(a, b):
    return (I32(a) + b - 1) // b


def minimum(a, b):
    return I32(a) if _val(a) <= _val(b) else I32(b)


def maximum(a, b):
    return I32(a) if _val(a) >= _val(b) else I32(b)


def where(cond, a, b):
    return a if cond else b
