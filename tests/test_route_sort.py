"""core.sort sorts routes best first with a stable radix sort (_order_desc): the order must be the
stable merge sort's of -rev, which the combination search and its tie-breaks were built on."""
from __future__ import annotations

import numpy as np
import pytest

from revenue.core.sort import RADIX_MIN, _order_desc, sort_picked_routes, sort_routes


@pytest.mark.parametrize("kind", ["few values", "scores", "wide", "negative", "extremes"])
def test_order_is_the_stable_sort_of_minus_rev(kind):
    rng = np.random.default_rng(len(kind))
    for m in [0, 1, 2, RADIX_MIN - 1, RADIX_MIN, RADIX_MIN + 1, 300, 5000]:
        if kind == "few values":
            rev = rng.integers(0, 4, m)
        elif kind == "scores":
            rev = rng.integers(0, 5000, m) * 1410 + rng.integers(0, 3, m) * 10
        elif kind == "wide":
            rev = rng.integers(-(1 << 62), 1 << 62, m)
        elif kind == "negative":
            rev = rng.integers(-1, 3, m)
        else:
            rev = rng.choice(np.array([np.iinfo(np.int64).max, 0, -1, 1 << 40, -(1 << 62)]), m)
        rev = rev.astype(np.int64)
        assert _order_desc(rev).tolist() == np.argsort(-rev, kind="stable").tolist()


def test_sort_routes_gathers_in_that_order():
    rng = np.random.default_rng(7)
    m = 500
    rev = (rng.integers(0, 40, m) * 10).astype(np.int64)
    keys = rng.integers(0, 1 << 62, (m, 2)).astype(np.uint64)
    flags, begin = rng.integers(0, 4, m), np.arange(m) * 3
    order = np.argsort(-rev, kind="stable")
    out = sort_routes(rev, keys, flags, begin, begin + 3)
    for got, want in zip(out, (rev, keys, flags, begin, begin + 3)):
        assert np.array_equal(got, want[order])
    picked = rng.permutation(m)[:200]
    out = sort_picked_routes(rev[picked], picked, keys, flags, begin, begin + 3)
    order = np.argsort(-rev[picked], kind="stable")
    assert np.array_equal(out[0], rev[picked][order])
    assert np.array_equal(out[1], keys[picked[order]])
    assert np.array_equal(out[3], begin[picked[order]])
