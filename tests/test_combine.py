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
from revenue.optimizer import combination as combination_module
from revenue.optimizer.combination import key_indexes

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


def _kernel_groups(groups, group_of, sizes):
    """best_combination's group arrays: each group's first route, whether a train searches its
    predecessor's group, and the suffix sums of the trains' best routes (each group's first is its best)."""
    group_start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    same = np.array([t > 0 and group_of[t] == group_of[t - 1] for t in range(len(group_of))], dtype=np.bool_)
    best_each = np.array([groups[g][0][0] for g in group_of], dtype=np.int64)
    suffix = np.concatenate([np.cumsum(best_each[::-1])[::-1], [0]]).astype(np.int64)
    return group_start, same, suffix


def _kernel_indexes(monkeypatch, keys, group_start, group_of, n_groups):
    """Both paths of the kernel: without key bitmaps, and with them for every group (thresholds at 0)."""
    monkeypatch.setattr(combination_module, "INDEX_MIN", 0)
    monkeypatch.setattr(combination_module, "LATER_MIN", 0)
    plain = (np.zeros((1, 1), dtype=np.uint64), np.full(n_groups, -1, dtype=np.int64), False)
    return plain, key_indexes(keys, group_start, group_of)


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
    group_start, same, suffix = _kernel_groups(groups, group_of, sizes)
    no_cap = np.full(FLAG_BITS, -1, dtype=np.int64)
    no_min = np.zeros(FLAG_BITS, dtype=np.int64)
    for index, index_start, bound_later in _kernel_indexes(monkeypatch, keys, group_start, group_of, n_groups):
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


def _brute_force_run_rules(groups, group_of, nodes, flags, flag_max, flag_min, connected) -> int:
    """_brute_force with the run rules: per flag bit at most flag_max (-1: any) and, on a non-empty run,
    at least flag_min routes carrying it; with `connected`, the routes linked through shared nodes."""
    best = 0

    def legal(chosen) -> bool:
        if not chosen:
            return True
        for b in range(FLAG_BITS):
            count = sum((int(flags[g][r]) >> b) & 1 for g, r in chosen)
            if flag_max[b] >= 0 and count > flag_max[b] or count < flag_min[b]:
                return False
        if connected:
            reached, grown = {0}, True
            while grown:
                grown = False
                for i in range(len(chosen)):
                    if i not in reached and any(nodes[chosen[i][0]][chosen[i][1]] & nodes[chosen[j][0]][chosen[j][1]]
                                                for j in reached):
                        reached.add(i)
                        grown = True
            return len(reached) == len(chosen)
        return True

    def walk(t: int, used: np.ndarray, total: int, chosen: list) -> None:
        nonlocal best
        if t == len(group_of):
            if total > best and legal(chosen):
                best = total
            return
        walk(t + 1, used, total, chosen)
        g = group_of[t]
        rev, keys = groups[g]
        for r in range(len(rev)):
            if not (used & keys[r]).any():
                walk(t + 1, used | keys[r], total + int(rev[r]), chosen + [(g, r)])

    walk(0, np.zeros(groups[0][1].shape[1], dtype=np.uint64), 0, [])
    return best


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 4), st.booleans())
def test_run_rules_on_every_path_of_the_kernel(monkeypatch, seed, n_trains, one_type):
    """Connected runs (the last train's scan skips routes that touch no chosen route), flag caps and
    minimums, against the brute force, with and without key bitmaps."""
    rng = random.Random(seed)
    n_keys = rng.choice([12, 24, 70])
    n_nodes = rng.choice([6, 10, 70])
    n_groups = 1 if one_type else 2
    sizes = [rng.randint(1, 14 if n_trains <= 3 else 9) for _ in range(n_groups)]
    groups = [_routes(rng, size, n_keys) for size in sizes]
    # each route's nodes (a few, often shared) and flag bits 0 and 1 (bit 1 rarely)
    nodes = [[sum(1 << v for v in rng.sample(range(n_nodes), rng.randint(1, 3))) for _ in range(size)]
             for size in sizes]
    flags = [[(rng.random() < 0.3) | ((rng.random() < 0.2) << 1) for _ in range(size)] for size in sizes]
    group_of = np.array(sorted(rng.randrange(n_groups) for _ in range(n_trains)), dtype=np.int64)
    group_of[0] = 0
    if n_groups == 2:
        group_of[-1] = 1
    connected = rng.random() < 0.8
    flag_max = np.full(FLAG_BITS, -1, dtype=np.int64)
    flag_min = np.zeros(FLAG_BITS, dtype=np.int64)
    if rng.random() < 0.5:
        flag_max[0] = 1
    if rng.random() < 0.3:
        flag_min[1] = 1
    expected = _brute_force_run_rules(groups, group_of.tolist(), nodes, flags, flag_max, flag_min, connected)

    rev = np.concatenate([g[0] for g in groups])
    keys = np.concatenate([g[1] for g in groups])
    words = (n_nodes + 63) // 64
    rnodes = np.zeros((len(rev), words), dtype=np.uint64)
    for r, bits in enumerate(b for per_group in nodes for b in per_group):
        for w in range(words):
            rnodes[r, w] = np.uint64((bits >> (64 * w)) & (2**64 - 1))
    rflags = np.array([f for per_group in flags for f in per_group], dtype=np.int64)
    group_start, same, suffix = _kernel_groups(groups, group_of, sizes)
    for index, index_start, bound_later in _kernel_indexes(monkeypatch, keys, group_start, group_of, n_groups):
        progress = np.zeros(4 + n_trains, dtype=np.int64)
        progress[4:] = -1
        done = best_combination(group_of, group_start, rev, keys, same, suffix, rflags, flag_max, flag_min,
                                connected, rnodes, index, index_start, bound_later, progress,
                                np.zeros(1, dtype=np.int64))
        assert done and progress[0] == expected, (seed, bound_later, connected, progress[0], expected)
        chosen = [(group_start[group_of[t]] + i) for t, i in enumerate(progress[4:]) if i >= 0]
        assert sum(int(rev[r]) for r in chosen) == expected
