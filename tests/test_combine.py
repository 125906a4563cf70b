"""The combination kernel (core.combine.best_combination) on synthetic route sets, against a brute force:
every path of the kernel (key bitmaps of the last train, of every train with the later trains bounded, the
last train's fit to the trains before) forced on sets far smaller than those that switch them on in a solve,
where the real boards' property tests reach them rarely."""
from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from revenue.core.combine import FLAG_BITS, best_combination
from revenue.solve import key_indexes
import revenue.solve as solve_module

from .profiles import examples


def _routes(rng: random.Random, count: int, n_keys: int) -> tuple[np.ndarray, np.ndarray]:
    """`count` routes, best first: revenues and track keys (a few of n_keys, often shared)."""
    rev = np.array(sorted((rng.randint(1, 40) * 10 for _ in range(count)), reverse=True), dtype=np.int64)
    words = (n_keys + 63) // 64
    keys = np.zeros((count, words), dtype=np.uint64)
    for r in range(count):
        for k in rng.sample(range(n_keys), rng.randint(1, 4)):
            keys[r, k >> 6] |= np.uint64(1) << np.uint64(k & 63)
    return rev, keys


def _brute_force(groups: list[tuple[np.ndarray, np.ndarray]], group_of: list[int]) -> int:
    """The best total of one route (or none) per train, no key used twice: every choice tried."""
    best = 0

    def walk(t: int, used: np.ndarray, total: int) -> None:
        nonlocal best
        if t == len(group_of):
            best = max(best, total)
            return
        walk(t + 1, used, total)                 # this train runs no route
        rev, keys = groups[group_of[t]]
        for r in range(len(rev)):
            if not (used & keys[r]).any():
                walk(t + 1, used | keys[r], total + int(rev[r]))

    walk(0, np.zeros(groups[0][1].shape[1], dtype=np.uint64), 0)
    return best


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 5), st.booleans())
def test_every_path_of_the_kernel_finds_the_brute_force_optimum(monkeypatch, seed, n_trains, one_type):
    rng = random.Random(seed)
    n_keys = rng.choice([12, 24, 70])
    n_groups = 1 if one_type else 2
    sizes = [rng.randint(1, 18 if n_trains <= 3 else 11) for _ in range(n_groups)]
    groups = [_routes(rng, size, n_keys) for size in sizes]
    group_of = np.array(sorted(rng.randrange(n_groups) for _ in range(n_trains)), dtype=np.int64)
    group_of[0] = 0                               # (every group's routes are searched by some train)
    if n_groups == 2:
        group_of[-1] = 1
    expected = _brute_force(groups, group_of.tolist())

    rev = np.concatenate([g[0] for g in groups])
    keys = np.concatenate([g[1] for g in groups])
    group_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    same = np.array([t > 0 and group_of[t] == group_of[t - 1] for t in range(n_trains)], dtype=np.bool_)
    best_each = np.array([groups[g][0][0] for g in group_of], dtype=np.int64)
    suffix = np.concatenate([np.cumsum(best_each[::-1])[::-1], [0]]).astype(np.int64)
    no_cap = np.full(FLAG_BITS, -1, dtype=np.int64)
    no_min = np.zeros(FLAG_BITS, dtype=np.int64)
    plain = (np.zeros((1, 1), dtype=np.uint64), np.full(n_groups, -1, dtype=np.int64), False)
    monkeypatch.setattr(solve_module, "INDEX_MIN", 0)
    monkeypatch.setattr(solve_module, "LATER_MIN", 0)
    for index, index_start, bound_later in (plain, key_indexes(keys, group_start, group_of)):
        progress = np.zeros(4 + n_trains, dtype=np.int64)
        progress[4:] = -1
        done = best_combination(group_of, group_start, rev, keys, same, suffix, np.zeros(len(rev), np.int64),
                                no_cap, no_min, False, np.zeros((len(rev), 1), np.uint64), index, index_start,
                                bound_later, progress, np.zeros(1, dtype=np.int64))
        assert done and progress[0] == expected, (seed, bound_later, progress[0], expected)
        chosen = [(group_start[group_of[t]] + i) for t, i in enumerate(progress[4:]) if i >= 0]
        assert sum(int(rev[r]) for r in chosen) == expected
        taken = np.zeros(keys.shape[1], dtype=np.uint64)
        for r in chosen:
            assert not (taken & keys[r]).any()
            taken |= keys[r]
