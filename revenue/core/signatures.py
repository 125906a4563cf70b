"""The argument types of the kernels compiled on their own: each is compiled for one signature, fixed at the
boundary (int64 and bool arrays in C order, int64 scalars, plain bools), so that every caller, from Python
or from another kernel, finds it compiled (or cached) once.

@takes(...) above a kernel's @njit records its signature in KERNELS; revenue.compiling compiles them from
this list, without a board (revenue warmup, a command's first call on a fresh install), several at a time in
as many processes. A kernel called with other types compiles once more, as Numba does: the tests check that
the calls of a solve, an evaluation and a delivery search add no signature.
"""
from __future__ import annotations

from numba import types

I = types.int64
B = types.boolean
I1 = types.int64[::1]
I2 = types.int64[:, ::1]
B1 = types.boolean[::1]
B2 = types.boolean[:, ::1]
U1 = types.uint64[::1]
U2 = types.uint64[:, ::1]

KERNELS: list = []      # (dispatcher, argument types), in the order their modules define them


def takes(*argtypes):
    """Record the decorated kernel (an @njit dispatcher) with its argument types in KERNELS."""
    def record(dispatcher):
        KERNELS.append((dispatcher, tuple(argtypes)))
        return dispatcher
    return record
