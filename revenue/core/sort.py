"""Walked routes put best first, the route arrays gathered in that order (the order the combination
searches them in)."""
from __future__ import annotations

import numpy as np
from numba import njit

from .signatures import I1, U2, takes

RADIX_MIN = 64      # routes from which sort_routes orders them by radix sort


@takes(I1, U2, I1, I1, I1)
@njit(cache=True, nogil=True)
def sort_routes(rev, keys, flags, begin, end):
    """The routes best first (a stable sort of -rev: equal revenues keep their order): rev, keys, flags,
    begin and end gathered in that order, in one call (numpy's argsort and five gathers cost more than
    the work on a game state's few hundred routes)."""
    return sort_picked_routes(rev, np.arange(rev.shape[0]), keys, flags, begin, end)


@njit(cache=True, nogil=True)
def _order_desc(rev):
    """The positions of rev by value, largest first, equal values in their order: what np.argsort(-rev,
    kind="mergesort") gives, by a stable radix sort of hi - rev a byte at a time (faster than Numba's merge
    sort), or for fewer than RADIX_MIN routes an insertion sort (stable too, and far less to compile than
    Numba's merge sort)."""
    m = rev.shape[0]
    order = np.arange(m)
    if m < RADIX_MIN:
        for i in range(1, m):
            k = order[i]
            x = rev[k]
            j = i - 1
            while j >= 0 and rev[order[j]] < x:
                order[j + 1] = order[j]
                j -= 1
            order[j + 1] = k
        return order
    lo, hi = rev[0], rev[0]
    for i in range(1, m):
        x = rev[i]
        if x < lo:
            lo = x
        elif x > hi:
            hi = x
    span = np.uint64(hi) - np.uint64(lo)     # (wraps right for any int64 range)
    spare = np.empty(m, dtype=np.int64)
    at = np.empty(257, dtype=np.int64)
    shift = np.uint64(0)
    while shift < np.uint64(64) and (span >> shift) != np.uint64(0):
        at[:] = 0
        for i in range(m):
            at[((np.uint64(hi) - np.uint64(rev[i])) >> shift & np.uint64(255)) + np.uint64(1)] += 1
        for b in range(1, 257):
            at[b] += at[b - 1]
        for i in range(m):
            k = order[i]
            b = (np.uint64(hi) - np.uint64(rev[k])) >> shift & np.uint64(255)
            spare[at[b]] = k
            at[b] += 1
        order, spare = spare, order
        shift += np.uint64(8)
    return order


@takes(I1, I1, U2, I1, I1, I1)
@njit(cache=True, nogil=True)
def sort_picked_routes(rev, picked, keys, flags, begin, end):
    """sort_routes of the routes at rows `picked` of keys, flags, begin and end, earning rev (one per
    picked row): the gather and the sort in one call."""
    return gather_routes(_order_desc(rev), rev, picked, keys, flags, begin, end)


@njit(cache=True, nogil=True)
def gather_routes(order, rev, picked, keys, flags, begin, end):
    """sort_picked_routes in the given order (positions into rev and picked)."""
    m = order.shape[0]
    words = keys.shape[1]
    out_rev = np.empty(m, dtype=rev.dtype)
    out_keys = np.empty((m, words), dtype=keys.dtype)
    out_flags = np.empty(m, dtype=flags.dtype)
    out_begin = np.empty(m, dtype=begin.dtype)
    out_end = np.empty(m, dtype=end.dtype)
    for i in range(m):
        k = order[i]
        j = picked[k]
        out_rev[i] = rev[k]
        for w in range(words):
            out_keys[i, w] = keys[j, w]
        out_flags[i] = flags[j]
        out_begin[i] = begin[j]
        out_end[i] = end[j]
    return out_rev, out_keys, out_flags, out_begin, out_end
