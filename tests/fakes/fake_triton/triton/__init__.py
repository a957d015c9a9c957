# A stub of the `triton` package for CI machines without it (tests/fakes/fake_triton): enough for
# a Triton program's swizzle region to run on the host. `triton.jit` is the identity decorator
# (also as `triton.jit(...)`), `triton.cdiv` is host integer ceil division, and
# `triton.language` (tl) holds I32, Triton's int32 semantics (see language.py).
from . import language  # noqa: F401


def jit(fn=None, **kwargs):
    if fn is None:
        return lambda f: f
    return fn


def cdiv(a, b):
    return -(-a // b)
