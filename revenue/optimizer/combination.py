"""The combination search over route sets, one per train type (Combination: the kernel's arrays, core.combine),
with the key bitmaps it scans (key_indexes) and the run rules' flag limits as the kernels take them."""
from __future__ import annotations

import numpy as np

from ..core.combine import FLAG_BITS, best_combination, fill_key_index
from ..problem import Problem
from .routeset import RouteSet

INDEX_LIMIT = 1 << 30   # routes x key slots beyond which the last train is searched without bitmaps
INDEX_MIN = 512         # fewer routes are scanned one by one as fast
LATER_MIN = 1 << 15     # routes from which, with three or more trains, the later trains are bounded


_NO_INDEX: dict[int, tuple[np.ndarray, np.ndarray, bool]] = {}


def key_indexes(keys: np.ndarray, group_start: np.ndarray, group_of: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """The key bitmaps of the route groups the combination search scans (core.combine.key_index, side
    by side: index[k, start[g] + w], start[g] = -1 for none): the last train's group, and with three or
    more trains and LATER_MIN routes every group, to bound the later trains (core.combine._later_best:
    it pays on large searches only; the third value says whether to). A group of few routes is scanned
    one by one as fast; bitmaps beyond INDEX_LIMIT bits are not built."""
    routes, words = keys.shape
    groups = len(group_start) - 1
    if routes < INDEX_MIN:        # (most real game states: no bitmaps, the same empty arrays, only read)
        none = _NO_INDEX.get(groups)
        if none is None:
            none = _NO_INDEX[groups] = (np.zeros((1, 1), dtype=np.uint64), np.full(groups, -1, dtype=np.int64), False)
        return none
    last = int(group_of[-1])
    later = len(group_of) >= 3 and routes >= LATER_MIN
    wanted = [last] + ([g for g in range(groups) if g != last] if later else [])
    start = np.full(groups, -1, dtype=np.int64)
    columns = 0
    for g in wanted:
        count = int(group_start[g + 1] - group_start[g])
        width = (count + 63) // 64
        if count < INDEX_MIN or (columns + width) * 64 * words * 64 > INDEX_LIMIT:
            continue
        start[g] = columns
        columns += width
    index = np.zeros((words * 64 if columns else 1, max(columns, 1)), dtype=np.uint64)
    for g in range(groups):
        if start[g] >= 0:
            fill_key_index(keys[group_start[g]:group_start[g + 1]], index, start[g])
    return index, start, later


_FLAG_LIMITS: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
_NO_FLAG_LIMITS = (np.full(FLAG_BITS, -1, dtype=np.int64), np.zeros(FLAG_BITS, dtype=np.int64))


def _flag_limits(run) -> tuple[np.ndarray, np.ndarray]:
    """The run rules' flag_max and flag_min as the kernel's arrays (core.combine.FLAG_BITS each), made
    once per rules (the kernel only reads them)."""
    if not run.flag_max and not run.flag_min:
        return _NO_FLAG_LIMITS
    key = (tuple(run.flag_max.items()), tuple(run.flag_min.items()))
    out = _FLAG_LIMITS.get(key)
    if out is None:
        flag_max, flag_min = [-1] * FLAG_BITS, [0] * FLAG_BITS
        for bit, cap in run.flag_max.items():
            flag_max[bit] = cap
        for bit, least in run.flag_min.items():
            flag_min[bit] = least
        if len(_FLAG_LIMITS) > 256:
            _FLAG_LIMITS.clear()
        out = _FLAG_LIMITS[key] = (np.array(flag_max, dtype=np.int64), np.array(flag_min, dtype=np.int64))
    return out


_FLAG_LISTS: dict[tuple, tuple[int, ...]] = {}
_NO_FLAG_LISTS = (-1,) * FLAG_BITS + (0,) * FLAG_BITS


def flag_lists(run) -> tuple[int, ...]:
    """The run rules' flag_max then flag_min (core.combine.FLAG_BITS each) as core.probe's io holds them."""
    if not run.flag_max and not run.flag_min:
        return _NO_FLAG_LISTS
    key = (tuple(run.flag_max.items()), tuple(run.flag_min.items()))
    out = _FLAG_LISTS.get(key)
    if out is None:
        flag_max, flag_min = _flag_limits(run)
        if len(_FLAG_LISTS) > 256:
            _FLAG_LISTS.clear()
        out = _FLAG_LISTS[key] = tuple(flag_max.tolist() + flag_min.tolist())
    return out


# The node sets the kernel takes, and does not read, without a connected rule (core.combine._run_ok and
# _meets read them only when `connected`): one array for every such search.
_NO_NODE_SETS = np.zeros((1, 1), dtype=np.uint64)
_SAME: dict[tuple, np.ndarray] = {}


def _same_as_previous(group_of: list[int]) -> np.ndarray:
    """bool [trains]: train t's group is train t-1's (the kernel only reads it), made once per grouping."""
    key = tuple(group_of)
    out = _SAME.get(key)
    if out is None:
        if len(_SAME) > 256:
            _SAME.clear()
        out = _SAME[key] = np.array([i > 0 and group_of[i] == group_of[i - 1] for i in range(len(group_of))],
                                    dtype=np.bool_)
    return out


class Combination:
    """The combination search over route sets (one per train type): the trains reordered with the types
    of the best routes first (tighter bounds early), and the kernel's arrays (core.combine)."""

    def __init__(self, problem: Problem, trains: list, sets: dict[str, RouteSet]):
        self.problem, self.sets = problem, sets
        n = len(trains)
        # (built from Python lists, the int64 ones as one array cut in three: a call's few trains and
        # types, each numpy call on them ~0.5-1 us)
        if len(sets) == 1:      # (one type: the trains in their order, one group)
            ordered = list(sets.values())
            self.trains, self.position, group_of = list(trains), list(range(n)), [0] * n
            suffix = [ordered[0].top * (n - i) for i in range(n + 1)]
            starts = [0, len(ordered[0].rev)]
        else:
            names = sorted(sets, key=lambda t: -sets[t].top)      # (stable: ties keep their order)
            ordered = [sets[t] for t in names]
            group = {name: g for g, name in enumerate(names)}
            order = sorted(range(n), key=lambda i: group[trains[i].name])
            self.trains = [trains[i] for i in order]
            self.position = order       # each searched train's place in the company's list
            group_of = [group[t.name] for t in self.trains]
            starts = [0]
            for r in ordered:
                starts.append(starts[-1] + len(r.rev))
            suffix = [0]
            for g in reversed(group_of):
                suffix.append(suffix[-1] + ordered[g].top)
            suffix.reverse()
        packed = np.array(group_of + starts + suffix, dtype=np.int64)
        self.group_of, self.group_start, self.suffix = packed[:n], packed[n:n + len(starts)], packed[n + len(starts):]
        if len(ordered) == 1:       # (the kernel only reads them: one type's own arrays)
            self.rev, self.keys, self.flags = ordered[0].rev, ordered[0].keys, ordered[0].flags
        else:
            self.rev = np.concatenate([r.rev for r in ordered]) if ordered else np.zeros(0, np.int64)
            self.keys = np.concatenate([r.keys for r in ordered]).reshape(len(self.rev), problem.words)
            self.flags = np.concatenate([r.flags for r in ordered])
        self.same = _same_as_previous(group_of)
        run = problem.run
        self.flag_max, self.flag_min = _flag_limits(run)
        self.connected = run.connected
        self.node_sets = np.concatenate([r.node_sets() for r in ordered]) if run.connected else _NO_NODE_SETS
        self.index, self.index_start, self.bound_later = key_indexes(self.keys, self.group_start, self.group_of)

    @classmethod
    def searched(cls, problem: Problem, trains: tuple | list, sets: dict[str, RouteSet], rev: np.ndarray,
                 flags: np.ndarray, keys: np.ndarray, node_sets: np.ndarray, meta: np.ndarray, types: int,
                 meta_list: list[int] | None = None) -> Combination:
        """The combination core.probe.walk_and_combine set up (and searched, when its routes were few):
        its arrays (the routes of every group, `meta`'s groups, trains and suffix bounds, the node sets) as
        the constructor makes them. `meta_list`: meta.tolist(), when the caller has it."""
        out = cls.__new__(cls)
        out.problem, out.sets = problem, sets
        n = len(trains)
        trains_at = 4 + 3 * types
        if meta_list is None:
            meta_list = meta.tolist()
        out.position = meta_list[trains_at:trains_at + n]
        out.trains = [trains[i] for i in out.position]
        out.rev, out.flags, out.keys = rev, flags, keys
        out.node_sets = node_sets if problem.run.connected else _NO_NODE_SETS
        # (meta's views and the search's own arrays are made when first read (__getattr__): a combination
        # the kernel searched mostly reads none of them, only run() its trains)
        out._meta = (meta, types, n)
        return out

    _META_VIEWS = frozenset(("group_start", "group_of", "suffix"))
    _SEARCH_ARRAYS = frozenset(("same", "flag_max", "flag_min", "connected", "index", "index_start", "bound_later"))

    def __getattr__(self, name: str):
        """searched()'s combination: an attribute the constructor sets, made when first read."""
        if "_meta" not in self.__dict__:
            raise AttributeError(name)
        if name in Combination._META_VIEWS:
            meta, types, n = self._meta
            starts_at = 3 + 2 * types
            trains_at = starts_at + types + 1
            self.group_start = meta[starts_at:trains_at]
            self.group_of = meta[trains_at + n:trains_at + 2 * n]
            self.suffix = meta[trains_at + 2 * n:trains_at + 3 * n + 1]
        elif name in Combination._SEARCH_ARRAYS:
            self.same = _same_as_previous(self.group_of.tolist())
            run = self.problem.run
            self.flag_max, self.flag_min = _flag_limits(run)
            self.connected = run.connected
            self.index, self.index_start, self.bound_later = key_indexes(self.keys, self.group_start, self.group_of)
        else:
            raise AttributeError(name)
        return self.__dict__[name]

    def progress(self, best: int = 0) -> np.ndarray:
        """A fresh progress array (core.combine), searching for runs that earn more than `best`."""
        return np.array([best, 0, 0, 0] + [-1] * len(self.trains), dtype=np.int64)

    def search(self, progress: np.ndarray, stop: np.ndarray) -> bool:
        """Run the kernel; True when it finished (nothing better than progress[0] is left)."""
        return best_combination(self.group_of, self.group_start, self.rev, self.keys, self.same, self.suffix,
                                self.flags, self.flag_max, self.flag_min, self.connected, self.node_sets,
                                self.index, self.index_start, self.bound_later, progress, stop)

    def run(self, progress: np.ndarray) -> tuple[int, list[dict]]:
        """The best run the kernel wrote into `progress`: its score and its routes in the order of the
        company's trains."""
        routes, score = [], 0
        position = self.position
        for t in sorted(range(len(position)), key=position.__getitem__):
            i = progress.item(4 + t)
            if i >= 0:
                routes_of = self.sets[self.trains[t].name]
                route = routes_of.route(i)
                scored = routes_of.rev.item(i)
                # The kernel priced this route too: the two readings of the rules must agree.
                wr, ws = routes_of.weights
                assert wr * route["revenue"] + ws * route["subsidy"] == scored, (route, "kernel/evaluator")
                routes.append(route)
                score += scored
        return score, routes

    def bound(self, progress: np.ndarray, complete: bool) -> int:
        """A bound on the runs made of these routes: the best found when the search finished, else the
        larger of the best found and what the runs not yet searched can earn: those whose first train
        runs the route being explored or a later (no better) one, and so do the k trains of its type
        (symmetry), plus the other trains' best; or whose first train runs none, and so its type."""
        if complete:
            return int(progress[0])
        g = self.group_of[0]
        count = int(self.group_start[g + 1] - self.group_start[g])
        k = int(np.sum(self.group_of == g))
        i = int(progress[3])
        if i <= 0:
            return int(self.suffix[0])
        rest = int(self.suffix[k])
        return max(int(progress[0]), rest + (k * int(self.rev[self.group_start[g] + i]) if i < count else 0))


_NO_PROGRESS: dict[int, np.ndarray] = {}
