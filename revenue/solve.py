"""The optimizer: the best legal assignment of routes to a company's trains, with proof.

solve() compiles the board into arrays (revenue.problem), enumerates every legal route of each train
type (revenue.core.walk) and searches the best combination by branch and bound
(revenue.core.combine). The kernels release the GIL. A search runs in its caller's thread while one
watchdog thread for the process stops it at its deadline or cancel; when improvements are to be
reported, or the kernels may still need compiling, it runs in a worker thread instead and the caller's
thread watches the deadline and reports each improvement from the shared progress array.
"""
from __future__ import annotations

import math
import operator
import threading
import time
from typing import Callable

import numpy as np

from .company import build_company
from .core.combine import FLAG_BITS, best_combination, fill_key_index
from .core.probe import (COMBINED, HEAD, NODES_PER_ROUTE, STOPPED, TYPE_FIELDS, UNFINISHED, WALK_FIELDS, meta_size,
                         walk_and_combine)
from .core.node_sets import node_bitsets
from .core.pricing import SPEC_FIELDS
from .core.refit import refit_routes
from .core.sort import sort_picked_routes, sort_routes
from .core.track import reachable_nodes
from .core.walk import enumerate_routes
from .errors import InputError
from .evaluate import answer_entry
from .graph_cache import graph_for
from . import bounded
from .interop import run_routes_action
from .problem import (OBJECTIVES, Problem, TrainSpec, compile_problem, kernel_values, objective_weights,
                      split_score)
from .relax import joint_bound, shared_bounds, type_bounds

POLL_SECONDS = 0.002
# Time kept to build the answer once the kernels stop: 6-22 ms measured on the 81-hex heavy test board at
# a 1.5 s deadline on a quiet machine (tests/server_helpers.heavy_request).
ANSWER_RESERVE = 0.03
STOP_GRACE_SECONDS = 0.02
PROBE_STEPS = 1 << 19       # walk steps per train type within which the plain exact search runs
QUICK_PROBE_STEPS = 1 << 15  # beyond these, a caller with a deadline or a stream gets the heuristic run first
FIRST_RUN_SECONDS = 0.025   # else the heuristic's first run is ready by then (revenue.heuristic; better runs follow)
MEMORY_MB = 256             # default storage cap of one search (revenue.bounded)
# Of the time left, for the route walks of a large board (Search._bounded_walks): combining what they
# stored took 0.02-0.13 s on the 81- to 144-hex stress boards (load 10), so the walks get most of it.
WALK_SHARE = 0.9
IMPROVE_SHARE = 0.15        # of the time left, for better heuristic runs first (Search._improve)
IMPROVE_SECONDS = 1.5       # and at most this
JOINT_BOUND_MIN_SECONDS = 0.5   # time left from which a large board's search computes relax.joint_bound
# The integer program over the chains (revenue.pathbound), after the first run of a large board: this share
# of the time left (at most PATH_SECONDS without a deadline), when at least PATH_MIN_SECONDS are left
PATH_SHARE = 0.75
# and its rounds in this share; the rest of PATH_SHARE goes to the neighbourhoods of its solutions' runs
# (on the 81- to 144-hex stress boards the rounds' solutions, repaired there, gave the best runs; the
# heuristic's moves and the walks after the program add to them, with the routes it met in their pools,
# and prove the boards of short trains: 144 6 6 6 #1)
PATH_FIRST_SHARE = 0.55
PATH_SECONDS = 30.0
PATH_MIN_SECONDS = 0.5
REPORT_WAIT_SECONDS = 0.05


class RouteSet:
    """Every legal route of one train type, best first: score (the revenue, or with subsidies the
    objective's score, revenue.problem.objective_weights), track keys, flags, and where its nodes and
    chains lie (nodes[begin:end], chains[begin + 1:end])."""

    # (what __init__ sets first, as the class's: presorted leaves them to these)
    floor = -1
    own_arrays = False

    def __init__(self, problem: Problem, train: str, rev, keys, flags, begin, end, nodes, chains, complete: bool,
                 weights: tuple[int, int] = (1, 0), picked: np.ndarray | None = None):
        # (with `picked`, the routes are those at these rows of keys, flags, begin and end, earning rev)
        self.train, self.problem, self.weights = train, problem, weights
        self.rev, self.keys, self.flags, self.begin, self.end = (
            sort_routes(rev, keys, flags, begin, end) if picked is None else
            sort_picked_routes(rev, picked, keys, flags, begin, end))
        self.nodes, self.chains = nodes, chains
        self.complete = complete
        # Routes earning at most `floor` may be left out (-1: none is); `best_seen` is the best revenue of
        # any route the walk met, stored or not.
        self.floor = -1
        self.top = int(self.rev[0]) if len(self.rev) else 0     # the best route's score (0: none)
        self.best_seen = self.top
        # nodes/chains are this set's alone (a walk's own arrays, which with_pools may fill beyond the
        # routes), not shared with another set (refit, merge, subset)
        self.own_arrays = False

    @classmethod
    def presorted(cls, problem: Problem, train: str, rev, keys, flags, begin, end, nodes, chains,
                  weights: tuple[int, int], part: tuple[int, int] | None = None) -> "RouteSet":
        """The complete set of routes already sorted best first (core.probe.walk_and_combine), whose
        nodes and chains other sets share. With `part` (lo, hi), keys and flags are the call's, this set's
        being their rows lo:hi (sliced when first read: the combination has its own)."""
        out = cls.__new__(cls)
        out.train, out.problem, out.weights = train, problem, weights
        out.rev, out.begin, out.end = rev, begin, end
        if part is None:
            out.keys, out.flags = keys, flags
        else:
            out._part = (keys, flags, part)
        out.nodes, out.chains = nodes, chains
        out.complete = True
        out.top = out.best_seen = rev.item(0) if len(rev) else 0
        return out      # (floor -1 and own_arrays False: the class's)

    @classmethod
    def merge(cls, problem: Problem, train: str, sets: list["RouteSet"],
              weights: tuple[int, int] = (1, 0)) -> "RouteSet":
        """One set of the routes of several sets of one train type, scored with `weights` (not complete)."""
        offset, begin, end, nodes, chains = 0, [], [], [], []
        for s in sets:
            used = int(s.end.max()) if len(s) else 0     # (a walk's arrays may be longer than its routes)
            begin.append(s.begin + offset)
            end.append(s.end + offset)
            nodes.append(s.nodes[:used])
            chains.append(s.chains[:used])
            offset += used
        words = problem.words
        cat = (lambda xs, dtype=np.int64: np.concatenate(xs) if xs else np.zeros(0, dtype=dtype))
        return cls(problem, train, cat([s.rev for s in sets]),
                   np.concatenate([s.keys for s in sets]) if sets else np.zeros((0, words), np.uint64),
                   cat([s.flags for s in sets]), cat(begin), cat(end), cat(nodes), cat(chains), False, weights)

    def __getattr__(self, name: str):
        """keys and flags of a presorted part, sliced when first read (only missing attributes get here)."""
        part = self.__dict__.get("_part")
        if part is None or name not in ("keys", "flags"):
            raise AttributeError(name)
        keys, flags, (lo, hi) = part
        self.keys, self.flags = keys[lo:hi], flags[lo:hi]
        del self._part
        return self.__dict__[name]

    def __len__(self) -> int:
        return len(self.rev)

    def subset(self, picked: np.ndarray) -> "RouteSet":
        """The routes where `picked` (bool [routes]) holds (not complete)."""
        return RouteSet(self.problem, self.train, self.rev[picked], self.keys[picked], self.flags[picked],
                        self.begin[picked], self.end[picked], self.nodes, self.chains, False, self.weights)

    def node_sets(self) -> np.ndarray:
        """uint64 [routes, words]: the nodes each route visits, in sorted order (for run rules)."""
        return node_bitsets(self.begin, self.end, self.nodes, self.problem.graph.n_nodes)

    def route(self, i: int) -> dict:
        """The result entry of the i-th best route."""
        a, b = self.begin.item(i), self.end.item(i)
        problem = self.problem
        return answer_entry(problem, problem.specs[self.train], self.nodes[a:b], self.chains[a + 1:b].tolist(),
                            self.weights)

    def refit(self, train: str) -> "RouteSet":
        """The routes of `train`, a train type whose routes are among these (see route_parents)."""
        picked, rev = refit_routes(kernel_arguments(self.problem, train, self.weights)[0], self.problem.cost,
                                   self.problem.token, self.begin, self.end, self.nodes)
        out = RouteSet(self.problem, train, rev, self.keys, self.flags, self.begin, self.end, self.nodes, self.chains,
                       self.complete, self.weights, picked)
        # a route of this type earns no more than as a route of the looser type
        out.floor = self.floor
        out.best_seen = max(out.best_seen, self.floor)
        return out


_SPEC_FIELDS_OF = operator.attrgetter(*SPEC_FIELDS)     # (one call for the 25 fields)
# the kernel arrays a train sets itself (revenue.problem._spec), not its rules or limits
_TRAIN_FIELDS = ("row", "base", "bonus", "end_ok", "groups")
_TRAIN_FIELDS_OF = operator.attrgetter(*_TRAIN_FIELDS)
_SCALAR_FIELDS = [i for i, f in enumerate(SPEC_FIELDS) if f in (
    "need_ends", "merge_penalty", "bypass", "spill_from", "spill_to", "no_reentry", "spill_next", "token_paid")]
_SCALARS_OF = operator.itemgetter(*_SCALAR_FIELDS)


def spec_arrays(spec: TrainSpec, weights: tuple[int, int] = (1, 0)) -> tuple:
    """The train's arrays as the kernels take them (core.pricing.SPEC_FIELDS), its values scored with
    `weights` (revenue.problem.kernel_values)."""
    scored = kernel_values(spec, weights) if weights != (1, 0) else None     # (kernel_values: {} for (1, 0))
    values = [scored.get(f, getattr(spec, f)) for f in SPEC_FIELDS] if scored else list(_SPEC_FIELDS_OF(spec))
    for i, x in zip(_SCALAR_FIELDS, _int64s(_SCALARS_OF(values))):
        values[i] = x
    return tuple(values)


_INT64: dict[tuple, tuple[np.int64, ...]] = {}


def _int64s(xs: tuple) -> tuple[np.int64, ...]:
    """np.int64 of each of the spec's scalars (so the kernels' signature is one whatever their Python
    types), made once per tuple of values."""
    out = _INT64.get(xs)
    if out is None:
        if len(_INT64) >= 1024:
            _INT64.clear()
        out = _INT64[xs] = tuple(np.int64(x) for x in xs)
    return out


def fast(spec: TrainSpec) -> bool:
    """A route's revenue is the plain sum of its node values (no route-level rule applies)."""
    return spec.simple and spec.need_ends == 0 and len(spec.rule_amount) == 0 \
        and not (spec.rules.metro and (spec.metro >= 0).any())


def from_ends(problem: Problem, spec: TrainSpec) -> bool:
    """Walk routes from their required ends rather than from the token cities: when a route must begin
    or end at one of a few nodes, few walks start there, and each needs one arm instead of two."""
    # (count_nonzero: the sum of these bool arrays, without ndarray.sum's Python wrapper)
    return spec.need_ends > 0 and np.count_nonzero(spec.need) <= max(8, 2 * np.count_nonzero(problem.token))


ROUTE_CAPACITY = 1 << 14   # first guess of the number of routes (grown to the exact need when short)
AT_ONCE_TYPES = 3          # train types up to which the probe runs in one call (Search._at_once: compiled per count)
# and the walk steps per type it tries: the walk it does not finish the step-by-step path walks again (the types
# walked before it are kept). Every game-server board needs fewer (at 2^13, 18 of 1,401 did not, the slowest,
# and the call's p99 rose 0.3 ms).
AT_ONCE_STEPS = 1 << 15
# Nor is the call tried on boards of more chains per node than this (real boards 1.6 at most, the custom medium
# and large ones 5-7), whose walks mostly need more steps: each paid up to 2^15 of them twice (0.8-1 ms a call)
AT_ONCE_CHAINS_PER_NODE = 3


_VISIT_AT = SPEC_FIELDS.index("row_visit")     # (row_pay follows it)
assert SPEC_FIELDS[_VISIT_AT + 1] == "row_pay"


def kernel_arguments(problem: Problem, train: str, weights: tuple[int, int] = (1, 0)) -> tuple:
    """(spec arrays, fast, from_ends) of a train type, built once per problem and weights. Types that share
    a TrainSpec.walk (copied from one spec for other rows' limits) share every array but those limits: a
    second such type takes the first one's arrays with its own limits."""
    key = ("kernel arguments", train, weights)
    out = problem.derived.get(key)
    if out is None:
        spec = problem.specs[train]
        alike = ("kernel arguments alike", spec.walk, weights)
        first = problem.derived.get(alike)
        if first is None:
            out = problem.derived[alike] = (spec_arrays(spec, weights), fast(spec), from_ends(problem, spec))
        else:
            arrays = first[0]
            out = (arrays[:_VISIT_AT] + (spec.row_visit, spec.row_pay) + arrays[_VISIT_AT + 2:], fast(spec), first[2])
        problem.derived[key] = out
    return out


LIMITS = ("row_visit", "row_pay")
_WALK_OF = operator.attrgetter(*WALK_FIELDS)
_TYPE_SCALARS_OF = operator.attrgetter("need_ends", "merge_penalty", "bypass", "spill_from", "spill_to", "no_reentry",
                                       "spill_next", "token_paid")
assert [f for f in SPEC_FIELDS if f not in WALK_FIELDS and f not in LIMITS] == list(_TYPE_SCALARS_OF.__reduce__()[1])


def _walk_arrays(spec: TrainSpec, weights: tuple[int, int]) -> tuple:
    """The train's walk arrays as core.probe takes them (WALK_FIELDS), its values scored with `weights`
    (revenue.problem.kernel_values), as spec_arrays gives them."""
    arrays = _WALK_OF(spec)
    if weights == (1, 0):
        return arrays
    scored = kernel_values(spec, weights)
    return tuple([scored.get(f, x) for f, x in zip(WALK_FIELDS, arrays)])


def with_pools(problem: Problem, routes: RouteSet, pools, weights: tuple[int, int]) -> RouteSet:
    """A bounded walk's routes with the heuristic's routes of that train type that the walk left out
    (revenue.heuristic.Pools): the final combination may pair a rich stored route with a poorer one
    that fits beside it. The walk's completeness, floor and best stand: every route it left out still
    earns at most the floor. The pools' nodes go into the spare end of the walk's node arrays (as many
    pools as fit there; none when the arrays are shared), so the walk's largest arrays are not copied."""
    kept = [] if pools is None or not routes.own_arrays else pools.pools.get(routes.train, [])
    extra = [pool.subset(pool.rev <= routes.floor) if routes.complete else pool for pool in kept]
    used = int(routes.end.max()) if len(routes) else 0
    nodes, chains = routes.nodes, routes.chains
    rev, keys, flags, begin, end = [routes.rev], [routes.keys], [routes.flags], [routes.begin], [routes.end]
    for pool in extra:
        if not len(pool):
            continue
        lengths = pool.end - pool.begin
        size = int(lengths.sum())
        if used + size > len(nodes):
            break
        at = used + np.concatenate([[0], np.cumsum(lengths)[:-1]])
        # each pool route's positions, route after route (vectorized: no loop holds the GIL while the
        # caller's thread builds an answer)
        source = np.repeat(pool.begin - at, lengths) + np.arange(used, used + size)
        nodes[used:used + size] = pool.nodes[source]
        chains[used:used + size] = pool.chains[source]
        rev.append(pool.rev)
        keys.append(pool.keys)
        flags.append(pool.flags)
        begin.append(at)
        end.append(at + lengths)
        used += size
    if len(rev) == 1:
        return routes
    out = RouteSet(problem, routes.train, np.concatenate(rev), np.concatenate(keys), np.concatenate(flags),
                   np.concatenate(begin), np.concatenate(end), nodes, chains, routes.complete, weights)
    out.floor, out.best_seen = routes.floor, routes.best_seen
    return out


def route_parents(problem: Problem) -> dict[str, str]:
    """Train types whose routes are found among another type's: the two differ only in their rows'
    visit and pay limits, the other's being no lower (1860's 6+3 and 7+4, 1830's 5 and D). Such a type
    is not walked; its routes are the other's that fit it, priced for it (RouteSet.refit). Types with
    merged stops are left out: there the better direction of a route can differ between types."""
    parents = problem.derived.get("route parents")
    if parents is None:
        specs = problem.specs
        parents = problem.derived["route parents"] = _route_parents(specs) if len(specs) > 1 else {}
    return parents


def _route_parents(specs: dict[str, TrainSpec]) -> dict[str, str]:
    parents: dict[str, str] = {}
    roots: list[str] = []
    for name in sorted(specs, key=lambda name: _looseness(specs[name], name)):
        spec = specs[name]
        if not (spec.rules.merge and (spec.merge >= 0).any()):
            for root in roots:
                if _covers(specs[root], spec) and _same_walk(spec, specs[root]):
                    parents[name] = root
                    break
            else:
                roots.append(name)
        else:
            roots.append(name)
    return parents


def _looseness(spec: TrainSpec, name: str) -> tuple[int, int, str]:
    """The loosest trains first: the most visits, then the most paid stops, over the rows (the spec's
    row_visit and row_pay)."""
    visit = pay = 0
    for row in spec.train.rows:
        visit += row.visit
        pay += row.pay
    return -visit, -pay, name


def _covers(parent: TrainSpec, spec: TrainSpec) -> bool:
    """The parent's limits are no lower, row by row."""
    parent_rows, rows = parent.train.rows, spec.train.rows
    if len(parent_rows) == len(rows):
        for p, r in zip(parent_rows, rows):
            if p.visit < r.visit or p.pay < r.pay:
                return False
        return True
    return all((getattr(parent, f) >= getattr(spec, f)).all() for f in LIMITS)


def _same_walk(spec_a: TrainSpec, spec_b: TrainSpec) -> bool:
    """The two trains' kernel arrays but their limits are equal (compared as bytes, to the first that
    differs; the same array object, as trains the title treats alike share, is equal). Read from the
    specs: the kernels' own arguments are scored with the search's weights, made later."""
    if spec_a.walk is spec_b.walk:      # (copied from one spec for other limits: alike)
        return True
    if spec_a.rules is spec_b.rules:
        # (the fields but a train's own are its rules' over the problem's nodes, revenue.problem._rule_fields:
        # equal for one rules object)
        for x, y in zip(_TRAIN_FIELDS_OF(spec_a), _TRAIN_FIELDS_OF(spec_b)):
            if x is not y and (x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes()):
                return False
        return True
    for f, x, y in zip(SPEC_FIELDS, _SPEC_FIELDS_OF(spec_a), _SPEC_FIELDS_OF(spec_b)):
        if x is y or f in LIMITS:
            continue
        if not isinstance(x, np.ndarray):     # (the scalar fields)
            if x != y:
                return False
            continue
        if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
            return False
    return True


def all_routes(problem: Problem, train: str, adj, allowed, stop, weights: tuple[int, int] = (1, 0), floor: int = -1,
               capacity: tuple[int, int] | None = None, steps: int = 0) -> RouteSet:
    """Every legal route of one train type scoring more than `floor` (revenue.core.walk.enumerate_routes).
    `capacity` (routes, route nodes) caps the storage (revenue.bounded.capacity): beyond it the walk
    keeps the best routes and the set's floor says what the routes left out score at most. With `steps`,
    a walk that needs more steps than that ends unfinished (the set is not complete)."""
    arrays, is_fast, walk_from_ends = kernel_arguments(problem, train, weights)
    most_routes, most_nodes = capacity or (1 << 62, 1 << 62)
    routes, nodes = min(ROUTE_CAPACITY, most_routes), min(ROUTE_CAPACITY * 8, most_nodes)
    nodes = max(nodes, problem.graph.n_nodes + 2)
    compact = False
    graph_arrays = (*adj, problem.chain_keys, problem.cost, problem.token, problem.blocks, problem.bypassable, allowed,
                    *problem.graph.hex_walks, arrays, is_fast, walk_from_ends, stop)
    while True:
        if routes == ROUTE_CAPACITY and nodes == ROUTE_CAPACITY * 8:
            # the first guess fits nearly every real board: this thread's arrays, used again, whole
            buffers = _scratch(problem.words)
        elif routes <= ROUTE_CAPACITY and nodes <= ROUTE_CAPACITY * 8:
            rev, keys, flags, start, path_nodes, path_chains = _scratch(problem.words)
            buffers = (rev[:routes], keys[:routes], flags[:routes], start[:routes + 1], path_nodes[:nodes],
                       path_chains[:nodes])
        else:
            buffers = (np.empty(routes, dtype=np.int64), np.empty((routes, problem.words), dtype=np.uint64),
                       np.empty(routes, dtype=np.int64), np.empty(routes + 1, dtype=np.int64),
                       np.empty(nodes, dtype=np.int64), np.empty(nodes, dtype=np.int64))
        rev, keys, flags, start, path_nodes, path_chains = buffers
        limits = np.array([floor, -1, 0, steps, 0], dtype=np.int64)
        count, total, stored, complete = enumerate_routes(*graph_arrays, *buffers, limits, compact)
        if stored == count or not complete or compact:
            if routes <= ROUTE_CAPACITY and nodes <= ROUTE_CAPACITY * 8:    # (this thread's: copied)
                used = int(start[stored])     # (RouteSet copies the rest as it sorts the routes)
                path_nodes, path_chains = path_nodes[:used].copy(), path_chains[:used].copy()
            out = RouteSet(problem, train, rev[:stored], keys[:stored], flags[:stored], start[:stored],
                           start[1: stored + 1], path_nodes, path_chains, complete, weights)
            out.floor, out.best_seen = int(limits[0]), max(int(limits[1]), 0)
            out.own_arrays = True
            return out
        routes, nodes = max(count, 1), max(total, problem.graph.n_nodes + 2)
        if routes > most_routes or nodes > most_nodes:
            routes, nodes, compact = most_routes, max(most_nodes, problem.graph.n_nodes + 2), True


_SCRATCH = threading.local()


def _scratch(words: int) -> tuple[np.ndarray, ...]:
    """This thread's route arrays of the first guess's size (ROUTE_CAPACITY routes, 8 nodes each), made
    once per thread (the keys' again for wider keys): fresh arrays of that size cost a walk of few routes
    more than the walk itself. The same tuple for the same key width: rev, keys [routes, words], flags,
    start, path nodes and chains (all but the keys parts of one array, _scratch_at_once)."""
    arrays = getattr(_SCRATCH, "arrays", None)
    if arrays is None or arrays[1].shape[1] != words:
        flat = getattr(_SCRATCH, "flat", None)
        if flat is None:
            flat = _SCRATCH.flat = np.empty(ROUTE_CAPACITY * (3 + 2 * NODES_PER_ROUTE) + 1, dtype=np.int64)
        routes = (len(flat) - 1) // (3 + 2 * NODES_PER_ROUTE)
        keys = getattr(_SCRATCH, "keys", None)
        if keys is None or len(keys) < routes * words:
            keys = _SCRATCH.keys = np.empty(routes * words, dtype=np.uint64)
        keys = keys[:routes * words].reshape(routes, words)
        nodes_at, room = 3 * routes + 1, routes * NODES_PER_ROUTE
        arrays = _SCRATCH.arrays = (flat[:routes], keys, flat[routes:2 * routes], flat[2 * routes:nodes_at],
                                    flat[nodes_at:nodes_at + room], flat[nodes_at + room:])
        _SCRATCH.at_once = (flat, keys)
    return arrays


def _scratch_at_once(words: int) -> tuple[np.ndarray, np.ndarray]:
    """_scratch's arrays as core.probe.walk_and_combine takes them: the one array of rev, flags, start,
    nodes and chains, and the keys."""
    at_once = getattr(_SCRATCH, "at_once", None)
    if at_once is None or at_once[1].shape[1] != words:
        _scratch(words)
        at_once = _SCRATCH.at_once
    return at_once


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


def adjacency(problem: Problem):
    """CSR arrays of the chains leaving each node, with the terminal flags seen from that node (built
    with the graph, revenue.core.track.chain_arrays)."""
    return problem.graph.adjacency_arrays


def reachable(problem: Problem) -> np.ndarray:
    """Nodes that some route through a token city can reach: beyond the token, a walk continues only
    through nodes the company may pass (a blocked node can end a route, never be passed)."""
    adj_start, _, adj_other, _ = adjacency(problem)
    specs = problem.specs
    bypass = max([spec.bypass for spec in specs.values()], default=0) if len(specs) != 1 else \
        next(iter(specs.values())).bypass
    return reachable_nodes(adj_start, adj_other, problem.token, problem.blocks, problem.bypassable, bypass)


def _empty_result(started: float, note: str = "") -> dict:
    result = {"revenue": 0, "subsidy": 0, "routes": [], "optimal": True, "upper_bound": 0,
              "stats": {"candidate_routes": 0, "nodes_explored": 0,
                        "elapsed_ms": round((time.perf_counter() - started) * 1000, 3), "timed_out": False}}
    if note:
        result["note"] = note
    return result


def solve(request: dict, deadline: float | None = None, on_improve: Callable[[dict], None] | None = None,
          cancel: threading.Event | None = None, memory_mb: float | None = None) -> dict:
    """Best routes for `request` (the proto3 JSON shape of revenue.v1.SolveRequest: board, company,
    deadline_ms, objective). `deadline` (seconds from now) overrides deadline_ms. With a deadline or a cancel
    the answer may be the best found so far, with optimal False and a valid upper bound. `memory_mb` caps
    the routes the search stores (default MEMORY_MB): beyond it the search keeps the routes that can
    matter most, and the answer says whether that still proved it (revenue.bounded). Each improvement
    given to `on_improve` carries the bound that holds at that moment. With a `holding` the answer also
    lists the dividend options of the run found (revenue.dividends).

    The objective: "revenue" (the default) maximises the revenue, then the subsidy (1860's halts);
    "revenue_and_subsidy" their sum, then the revenue; `optimal` and `upper_bound` speak of that figure."""
    if memory_mb is not None and memory_mb <= 0:
        raise InputError("memory_mb", f"{memory_mb:g} is not > 0")
    if not request.get("holding"):
        return _solve(request, deadline, on_improve, cancel, memory_mb)
    from .dividends import check_solve_holding, solve_dividends

    check_solve_holding(request)    # bad holding input is reported before the search
    result = _solve(request, deadline, on_improve, cancel, memory_mb)
    result["dividends"] = solve_dividends(request, result)
    return result


def _solve(request: dict, deadline: float | None, on_improve: Callable[[dict], None] | None,
           cancel: threading.Event | None, memory_mb: float | None = None) -> dict:
    started = time.perf_counter()
    objective = request.get("objective") or "revenue"
    if objective not in OBJECTIVES:
        raise InputError("objective", f"{objective!r} is not one of {', '.join(OBJECTIVES)}")
    if deadline is None and request.get("deadline_ms"):
        deadline = float(request["deadline_ms"]) / 1000.0
    if deadline is not None and deadline <= 0:
        raise InputError("deadline_ms", f"{deadline * 1000:g} is not > 0")
    graph = graph_for(request.get("board") or {})
    board = graph.board
    company = build_company(request.get("company") or {}, board)
    if not company.trains:
        result = _empty_result(started, "the company has no trains")
    else:
        problem = compile_problem(graph, company)
        if np.count_nonzero(problem.token):     # (ndarray.any goes through a Python wrapper)
            result = Search(problem, started, deadline, on_improve, cancel, objective, memory_mb).run()
        else:
            result = _empty_result(started, f"{company.id} has no token on the map, so it can run no route")
    result["run_routes"] = run_routes_action(request.get("company") or {}, result["routes"])
    return result


class Cancel(threading.Event):
    """A cancel event that stops the searches given it the moment it is set. A plain threading.Event
    works too, but the watchdog has to poll it every POLL_SECONDS."""

    def __init__(self) -> None:
        super().__init__()
        self._stops: list[np.ndarray] = []

    def set(self) -> None:
        super().set()
        for stop in tuple(self._stops):
            stop[0] = 1

    def attach(self, stop: np.ndarray) -> None:
        self._stops.append(stop)
        if self.is_set():
            stop[0] = 1

    def detach(self, stop: np.ndarray) -> None:
        self._stops = [s for s in self._stops if s is not stop]


class Watchdog:
    """One thread for the whole process that sets a search's stop flag when its deadline passes or its
    cancel event is set, so a search with no improvements to report can run in its caller's thread. It
    sleeps until the next deadline, waking every POLL_SECONDS only while some search has a plain
    threading.Event to cancel it (a Cancel stops its searches itself)."""

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._watched: dict[int, tuple[np.ndarray, float | None, threading.Event | None]] = {}
        self._thread: threading.Thread | None = None
        self._due = float("inf")     # when the thread wakes next: a later deadline need not wake it

    def watch(self, stop: np.ndarray, until: float | None, cancel: threading.Event | None) -> int:
        if isinstance(cancel, Cancel):
            cancel.attach(stop)
            cancel = None
        with self._wake:
            ticket = id(stop)
            self._watched[ticket] = (stop, until, cancel)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="revenue-watchdog", daemon=True)
                self._thread.start()
            # Woken only if it would look too late: a wake-up per search costs a busy service's calls.
            look_by = until if cancel is None else time.perf_counter() + POLL_SECONDS
            if look_by is not None and look_by < self._due:
                self._wake.notify()
            return ticket

    def release(self, ticket: int, cancel: threading.Event | None) -> None:
        with self._wake:
            stop = self._watched.pop(ticket)[0]
        if isinstance(cancel, Cancel):
            cancel.detach(stop)

    def _run(self) -> None:
        with self._wake:
            while True:
                now = time.perf_counter()
                nap = None
                for stop, until, cancel in self._watched.values():
                    if (until is not None and now >= until) or (cancel is not None and cancel.is_set()):
                        stop[0] = 1
                    elif cancel is not None:
                        nap = POLL_SECONDS
                    elif until is not None:
                        nap = min(nap or until - now, until - now)
                self._due = float("inf") if nap is None else now + nap
                self._wake.wait(nap)


WATCHDOG = Watchdog()
_compiled = threading.Event()    # set once a search has run the kernels in this process


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


def _flag_lists(run) -> tuple[int, ...]:
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
    def searched(cls, problem: Problem, trains: tuple | list, sets: dict[str, RouteSet], rev: np.ndarray, flags: np.ndarray,
                 keys: np.ndarray, node_sets: np.ndarray, meta: np.ndarray, types: int, meta_list: list[int] | None = None
                 ) -> "Combination":
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


def _no_progress(trains: int) -> np.ndarray:
    """A progress array of zeros (core.combine) for a search whose combination has not started: read, never
    written (read-only), one per train count."""
    out = _NO_PROGRESS.get(trains)
    if out is None:
        out = np.zeros(4 + trains, dtype=np.int64)
        out.flags.writeable = False
        _NO_PROGRESS[trains] = out
    return out


_IO: dict[tuple, np.ndarray] = {}     # core.probe's io arrays by their header, types and limits (Search._at_once)
IO_TEMPLATES = 1024
_meta_size = meta_size.py_func      # (plain Python: no dispatch for two small ints)


class Search:
    """One solve: the exact search, and on boards whose routes take long to enumerate, a heuristic first
    run and a storage cap (revenue.bounded). Runs and bounds are kept as the kernels' scores
    (revenue.problem.objective_weights: the revenue itself unless some node pays a subsidy)."""

    def __init__(self, problem, started, deadline, on_improve, cancel, objective="revenue", memory_mb=None):
        self.problem, self.started, self.objective = problem, started, objective
        self.weights = objective_weights(problem, objective)
        # The answer is built after the kernels stop: stop early by that much (up to a tenth of the time).
        self.until = None if deadline is None else started + deadline - min(ANSWER_RESERVE, 0.1 * deadline)
        self.on_improve, self.cancel = on_improve, cancel
        self.memory_mb = MEMORY_MB if memory_mb is None else memory_mb
        self.stop = np.zeros(1, dtype=np.int64)
        self.stops = [self.stop]         # every stop flag of this search: halt() sets them all
        self.sets: dict[str, RouteSet] = {}
        self.error: BaseException | None = None
        self.n = len(problem.company.trains)
        self.progress = _no_progress(self.n)    # (the combination's own, once it starts)
        self.complete = False
        self.combination: Combination | None = None   # set when the combination search starts
        self.incumbent: tuple[int, list[dict]] | None = None   # the heuristic's run
        self.incumbent_seq = 0
        self.pools = None       # the heuristic's routes (revenue.heuristic.Pools)
        self.type_bound: dict[str, int] = {}
        self.shared: dict[str, int] = {}   # trains of one type together (revenue.relax.shared_bounds)
        self.joint: int | None = None       # all trains together (revenue.relax.joint_bound)
        self.path_bound: int | None = None  # every run (revenue.pathbound)
        # a run was reported (to on_improve, when there is one)
        self.reported = None if on_improve is None else threading.Event()
        self.cut = False        # the deadline's share for the walks ended some (Search._bounded_walks)

    def halt(self) -> None:
        for stop in self.stops:
            stop[0] = 1

    def stop_at(self, until: float) -> tuple[np.ndarray, int]:
        """A stop flag of its own, set at `until` (or this search's deadline or cancel, if sooner)."""
        stop = np.zeros(1, dtype=np.int64)
        if self.stop[0]:
            stop[0] = 1
        self.stops.append(stop)
        end = until if self.until is None else min(until, self.until)
        return stop, WATCHDOG.watch(stop, None if math.isinf(end) else end, self.cancel)

    def _work(self) -> None:
        try:
            p = self.problem
            adj = p.graph.adjacency_arrays      # (adjacency)
            # (the trains' bounds, relax.type_bounds, are computed when a walk is cut short: a search whose
            # walks all finish bounds each type by its best route, upper_bounds)
            parents = route_parents(p)
            cap = bounded.capacity(p, self.memory_mb, len(p.specs) - len(parents))     # (the types walked)
            # The plain exact search, when each type's routes are enumerated within PROBE_STEPS. A caller
            # who waits for runs (a deadline, or improvements to report) gets the heuristic's run first
            # when a short probe shows the routes are many (the title boards of the benchmark need at
            # most 22,000 steps per type, so they never take it; custom medium and large 2^17-2^18).
            waits = self.until is not None or self.on_improve is not None
            quick = (min(QUICK_PROBE_STEPS, PROBE_STEPS) if waits else PROBE_STEPS) if PROBE_STEPS > 0 else 0
            # Most boards: the probe and the combination in one compiled call (core.probe); what it does
            # not finish is done again step by step below.
            if quick > 0 and len(p.specs) <= AT_ONCE_TYPES and self._at_once(parents, cap, min(quick, AT_ONCE_STEPS)):
                if not _compiled.is_set():
                    _compiled.set()
                return
            allowed = p.derived.get("reachable")
            if allowed is None:
                allowed = p.derived["reachable"] = reachable(p)
            if PROBE_STEPS > 0:
                if not (quick > 0 and self._probe(adj, allowed, cap, quick)):
                    if waits:
                        self._first_run(adj, allowed)
                        if self.stop[0]:
                            return
                    if quick < PROBE_STEPS:
                        self._probe(adj, allowed, cap, PROBE_STEPS)
            incomplete = [name for name in p.specs if name not in self.sets or not self.sets[name].complete]
            if incomplete:
                if not self.type_bound:
                    self.type_bound = type_bounds(p, allowed, self.weights)
                # A deadline met before the routes are known still gets a run (a cancel does not).
                if self.incumbent is None and not (self.cancel is not None and self.cancel.is_set()):
                    self._first_run(adj, allowed)
                if self.stop[0]:
                    return
                # (not when every route is known: then the combination proved the stress boards sooner)
                proved = self._path_program(adj, allowed)
                if self.stop[0]:
                    return
                if proved:      # the pools hold a run that reaches the program's bound: no walk needed
                    self.sets = {name: RouteSet.merge(p, name, self.pools.pools.get(name, []), self.weights)
                                 for name in p.specs}
                else:
                    self._improve(adj, allowed)
                    if self.stop[0]:
                        return
                    self._bounded_walks(adj, allowed, incomplete)
                if self.stop[0]:
                    return
            elif self.stop[0]:
                return
            self.combination = Combination(p, list(p.company.trains), self.sets)
            progress = self.combination.progress(self.incumbent[0] if self.incumbent else 0)
            self.progress = progress
            self.complete = self.combination.search(progress, self.stop)
            if not _compiled.is_set():      # (set takes the event's lock: once is enough)
                _compiled.set()
        except BaseException as exc:   # surfaced by run()
            self.error = exc

    def _at_once(self, parents: dict[str, str], cap: tuple[int, int], steps: int) -> bool:
        """_probe and the combination search in one call (core.probe.walk_and_combine), on this thread's
        scratch arrays. True when it did both (or the stop flag ended the search after the walks; with
        many routes the combination is searched here, on the key bitmaps made in Python), False when a walk
        was cut short or its routes did not fit the scratch arrays: the types walked before it are kept in
        `sets`, complete, and _probe does not walk them again."""
        p = self.problem
        n_nodes = p.graph.n_nodes
        if cap[0] < ROUTE_CAPACITY or cap[1] < ROUTE_CAPACITY * 8 or n_nodes + 2 > ROUTE_CAPACITY * 8 or \
                len(p.chain_keys) > AT_ONCE_CHAINS_PER_NODE * n_nodes:
            return False
        scratch, scratch_keys = _scratch_at_once(p.words)
        if len(scratch_keys) != ROUTE_CAPACITY:       # (a test's smaller first guess: the step-by-step path)
            return False
        specs = p.specs
        names = sorted(specs, key=parents.__contains__) if parents else list(specs)     # (as _probe)
        trains = p.company.trains
        n, k = len(trains), len(names)
        weights = self.weights
        # core.probe's io: each type's fields, each train's type, the types' limits, the progress, meta
        index = {name: i for i, name in enumerate(names)} if k > 1 else None
        run = p.run
        head = [steps, 0, n, INDEX_MIN, run.connected, k, 0, 0, *_flag_lists(run)]
        types = head            # (the header, then each type's fields: one list)
        limits: list = []
        walks: list = []
        walk_of: dict = {}
        limits_at = HEAD + TYPE_FIELDS * k + n
        bypass = 0
        plain = weights == (1, 0)
        for name in names:
            spec = specs[name]
            # (types copied from one spec for other limits walk alike: the first one's arrays, scalars and
            # from_ends, as kernel_arguments gives them)
            first = walk_of.get(spec.walk)
            if first is None:
                scalars = _TYPE_SCALARS_OF(spec)
                if not plain:       # (merge_penalty as revenue.problem.kernel_values scores it)
                    scalars = (scalars[0], scalars[1] * weights[0]) + scalars[2:]
                # (from_ends and _walk_arrays called only where they have something to decide)
                first = walk_of[spec.walk] = (len(walks), scalars, spec.need_ends > 0 and from_ends(p, spec))
                walks.append(_WALK_OF(spec) if plain else _walk_arrays(spec, weights))
            rows = len(spec.row_visit)
            types += (first[0], index[parents[name]] if name in parents else -1, fast(spec), first[2], *first[1],
                      rows, limits_at)
            limits += spec.limits       # (row_visit, then row_pay)
            limits_at += 2 * rows
            if spec.bypass > bypass:
                bypass = spec.bypass
        progress_at = limits_at
        meta_at = progress_at + 4 + n
        head[1], head[6], head[7] = bypass, progress_at, meta_at
        if k == 1:
            types += [0] * n
        else:
            types += [index[train.name] for train in trains]
        types += limits
        # (one board's io is mostly another's: the array is made once per content and copied; the kernel
        # writes the progress and meta parts, the copy's own)
        key = tuple(types)
        template = _IO.get(key)
        if template is None:
            if len(_IO) >= IO_TEMPLATES:
                _IO.clear()
            template = _IO[key] = np.array(types + [0, 0, 0, 0] + [-1] * n + [0] * _meta_size(k, n), dtype=np.int64)
        io = template.copy()
        graph = p.graph
        out, keys, node_sets = walk_and_combine(
            *graph.adjacency_arrays, p.chain_keys, p.cost, p.token, p.blocks, p.bypassable,
            *graph.hex_walks, tuple(walks), io, self.stop, scratch, scratch_keys)
        meta = io[meta_at:]
        listed = meta.tolist()
        status = listed[0]
        used = listed[2]
        group_start = listed[3 + 2 * k:4 + 3 * k]
        routes = group_start[k]
        # out: the routes' nodes and chains, then their scores, flags, begins and ends
        nodes, chains = out[:used], out[used:2 * used]
        rev_at = 2 * used
        flags_at, begin_at, end_at = rev_at + routes, rev_at + 2 * routes, rev_at + 3 * routes
        rev, flags = out[rev_at:flags_at], out[flags_at:begin_at]
        sets = self.sets
        if k == 1 and status < UNFINISHED:      # (one type, one group: its routes are all of them)
            sets[names[0]] = RouteSet.presorted(p, names[0], rev, keys, flags, out[begin_at:end_at],
                                                out[end_at:end_at + routes], nodes, chains, weights)
        else:
            for i, (name, g) in enumerate(zip(names, listed[3 + k:3 + 2 * k])):
                if status >= UNFINISHED and (i >= listed[1] or name in parents):
                    continue    # (unfinished: only the types walked before the one cut short are kept, for _probe)
                lo, hi = group_start[g], group_start[g + 1]
                sets[name] = RouteSet.presorted(p, name, rev[lo:hi], keys, flags, out[begin_at + lo:begin_at + hi],
                                                out[end_at + lo:end_at + hi], nodes, chains, weights, (lo, hi))
        if status >= UNFINISHED:
            return False
        if status == STOPPED:
            return True
        self.combination = Combination.searched(p, trains, sets, rev, flags, keys, node_sets, meta, k, listed)
        self.progress = progress = io[progress_at:meta_at]
        if status == COMBINED:
            self.complete = bool(listed[1])
        else:       # (WALKED: many routes, searched with the key bitmaps made here)
            self.complete = self.combination.search(progress, self.stop)
        return True

    def _probe(self, adj, allowed, cap, steps: int) -> bool:
        """Enumerate each train type's routes within `steps` walk steps (types found among another's
        routes are refitted from them, revenue.solve.route_parents); True when every type's are all
        known."""
        p = self.problem
        parents = route_parents(p)
        for name in sorted(p.specs, key=parents.__contains__) if parents else p.specs:   # walked types first
            if name in parents:
                if self.sets[parents[name]].complete:
                    self.sets[name] = self.sets[parents[name]].refit(name)
            elif not (name in self.sets and self.sets[name].complete):   # (else walked by _at_once or a probe)
                self.sets[name] = all_routes(p, name, adj, allowed, self.stop, self.weights, capacity=cap,
                                             steps=steps)
                if not self.sets[name].complete:
                    return False
        return True

    def _first_run(self, adj, allowed) -> None:
        """The heuristic run (revenue.heuristic), ready FIRST_RUN_SECONDS after the call started."""
        from .heuristic import first_run

        # (the large-board path only: bounds that real game states never need, at a few times the cost)
        self.type_bound = type_bounds(self.problem, allowed, self.weights, ends_apart=True)
        self.shared = shared_bounds(self.problem, allowed, self.weights)
        found = first_run(self, adj, allowed, max(self.started + FIRST_RUN_SECONDS, time.perf_counter() + 0.01))
        if found is not None:
            self._better(found)

    def _better(self, run: tuple[int, list[dict]]) -> None:
        """A better run from the heuristic: the incumbent, reported."""
        self.incumbent = run
        self.incumbent_seq += 1
        if self.path_bound is not None and run[0] >= self.path_bound:
            self.halt()     # proved: nothing left to search

    def _path_program(self, adj, allowed) -> bool:
        """The integer program's bound and run (revenue.pathbound) in PATH_SHARE of the time left; True
        when the run found reaches the bound."""
        from .pathbound import path_program

        if self.reported is not None:
            # (the program's model is built in Python: the caller's thread reports the first run before)
            self.reported.wait(REPORT_WAIT_SECONDS)
        now = time.perf_counter()
        if PATH_SHARE <= 0 or self.until is not None and self.until - now < PATH_MIN_SECONDS:
            return False
        if self.until is None:
            return path_program(self, adj, allowed, now + PATH_SECONDS)
        left = self.until - now
        return path_program(self, adj, allowed, now + PATH_SHARE * left, now + PATH_FIRST_SHARE * left)

    def _improve(self, adj, allowed) -> None:
        """Better heuristic runs (revenue.heuristic.improve_run) for IMPROVE_SHARE of the time left, at
        most IMPROVE_SECONDS, before the exact search of a large board."""
        from .heuristic import improve_run

        # (after the first run, and not under a short deadline: this bound's knapsack, which no stop
        # flag interrupts, took 1-25 ms on the stress boards, up to 150 ms on a load of 10)
        if self.until is None or self.until - time.perf_counter() > JOINT_BOUND_MIN_SECONDS:
            self.joint = joint_bound(self.problem, allowed, self.weights)
        now = time.perf_counter()
        left = IMPROVE_SECONDS if self.until is None else IMPROVE_SHARE * max(self.until - now, 0.0)
        improve_run(self, adj, allowed, now + min(left, IMPROVE_SECONDS), self._better)

    def _bounded_walks(self, adj, allowed, incomplete: list[str]) -> None:
        """Too many routes to enumerate at once: after the heuristic run (_first_run), the routes of
        each train type that could be part of a better run, within the memory cap (each type
        walked by itself, the ones with the lowest bound first: their exact best raises the floors of
        the others). With a deadline, the walks get WALK_SHARE of it; what they stored by then is
        combined in the time left, which improves the run without proving it."""
        p = self.problem
        best = self.incumbent[0] if self.incumbent else 0
        order = bounded.walk_order(incomplete, self.type_bound)
        until = (math.inf if self.until is None else
                 time.perf_counter() + WALK_SHARE * max(self.until - time.perf_counter(), 0.0))
        stop, ticket = self.stop_at(until)
        try:
            for k, name in enumerate(order):
                if stop[0]:
                    break
                floor = bounded.floor(p, name, best, self.upper_bounds())
                kept = sum(len(self.sets[t]) for t in self.sets if t not in order[k:])
                cap = bounded.capacity(p, self.memory_mb, len(order) - k, kept)
                self.sets[name] = all_routes(p, name, adj, allowed, stop, self.weights, floor, cap)
        finally:
            WATCHDOG.release(ticket, self.cancel)
        self.cut = any(name not in self.sets or not self.sets[name].complete for name in order)
        for name in order:     # a walk not started: no route stored, nothing proved
            if name not in self.sets:
                empty = np.zeros(0, dtype=np.int64)
                self.sets[name] = RouteSet(p, name, empty, np.zeros((0, p.words), np.uint64), empty, empty, empty,
                                           empty, empty, False, self.weights)
            self.sets[name] = with_pools(p, self.sets[name], self.pools, self.weights)

    def upper_bounds(self) -> dict[str, int]:
        """Per train type, a bound on any of its routes: the best met when its walk ended, else the
        relaxation (revenue.relax)."""
        sets = list(self.sets.items())      # (the search may be adding sets meanwhile)
        if not self.type_bound:
            if len(sets) == len(self.problem.specs) and all(r.complete and r.floor < 0 for _, r in sets):
                # Every route of every type was met: the best is the type's bound (no relaxation is
                # lower, it bounds that route too), so the relaxation is not computed.
                return {name: routes.best_seen for name, routes in sets}
            p = self.problem
            allowed = p.derived["reachable"] if "reachable" in p.derived else reachable(p)
            self.type_bound = type_bounds(p, allowed, self.weights)
        out = dict(self.type_bound)
        for name, routes in sets:
            if routes.complete:
                out[name] = min(out[name], routes.best_seen)
        return out

    def bound(self, score: int) -> int:
        """A bound on the score of every run, no lower than `score`, the best found (revenue.bounded.run_bound)."""
        if self.complete and self.combination is not None and len(self.sets) == len(self.problem.specs):
            for r in self.sets.values():
                if not r.complete or r.floor >= 0:
                    break
            else:   # (every route stored and the combination finished: its best is the bound, as run_bound finds)
                return max(score, self.progress.item(0))
        combined = None
        if self.combination is not None:
            combined = self.combination.bound(self.progress, self.complete)
        joint = min((b for b in (self.joint, self.path_bound) if b is not None), default=None)
        return max(score, bounded.run_bound(self.problem, self.sets, self.upper_bounds(), combined, self.shared,
                                            joint))

    def _current(self) -> tuple[int, list[dict]]:
        """The best run so far, its routes in the order of the company's trains."""
        if self.combination is not None and self.progress[1] > 0:
            return self.combination.run(self.progress)
        return self.incumbent or (0, [])

    def _snapshot(self) -> tuple[int, list[dict]] | None:
        """The best run so far if the kernel is not writing it at this moment (progress[1] even)."""
        progress = self.progress
        sequence = int(progress[1])
        if sequence % 2:
            return None
        current = self._current()
        return current if int(progress[1]) == sequence else None

    def _sequence(self) -> tuple[int, int]:
        return self.incumbent_seq, int(self.progress[1])

    def _report(self, best: tuple[int, list[dict]]) -> None:
        score, routes = best
        self.on_improve({"revenue": sum(r["revenue"] for r in routes), "subsidy": sum(r["subsidy"] for r in routes),
                         "routes": routes,
                         "upper_bound": max(self.figure(None, self.bound(score)), self.figure(routes))})

    def run(self) -> dict:
        seen = (0, 0)
        timed_out = False
        best: tuple[int, list[dict]] = (0, [])
        if self.on_improve is None and (_compiled.is_set() or (self.until is None and self.cancel is None)):
            # Nothing to report on the way: search in this thread; the watchdog minds the deadline.
            ticket = WATCHDOG.watch(self.stop, self.until, self.cancel) if self.until or self.cancel else None
            try:
                self._work()
            finally:
                if ticket is not None:
                    WATCHDOG.release(ticket, self.cancel)
            timed_out = bool(self.stop[0]) or self.cut
            worker = None
        else:
            # A first call may still load or compile the kernels, which no flag interrupts: a worker
            # thread searches while this one keeps the deadline and reports improvements.
            worker = threading.Thread(target=self._work, name="revenue-solve", daemon=True)
            worker.start()
        while worker is not None and worker.is_alive():
            worker.join(POLL_SECONDS)
            if self.cancel is not None and self.cancel.is_set() or \
                    self.until is not None and time.perf_counter() >= self.until:
                timed_out = True
                self.halt()
                # The kernels stop within microseconds; a first call may still be loading or compiling
                # them, which cannot be interrupted: answer now and let the worker end on its own.
                worker.join(STOP_GRACE_SECONDS)
                if worker.is_alive() and (snapshot := self._snapshot()) is not None:
                    best = snapshot
                break
            sequence = self._sequence()
            if self.on_improve and sequence > seen and (snapshot := self._snapshot()) is not None:
                seen, best = sequence, snapshot
                self._report(best)
                self.reported.set()
        if self.error is not None:
            raise self.error
        finished = worker is None or not worker.is_alive()
        timed_out = timed_out or self.cut
        if finished:
            best = self._current()
        score, routes = best
        if self.on_improve and self._sequence() > seen and finished:
            self._report(best)
        bound = self.bound(score)
        # (a run that reaches the integer program's bound is proved whatever the walks left undone)
        optimal = finished and (self.complete or self.path_bound is not None) and bound <= score
        revenue = subsidy = 0
        for r in routes:
            revenue += r["revenue"]
            subsidy += r["subsidy"]
        figure = revenue + subsidy if self.objective == "revenue_and_subsidy" else revenue     # (self.figure)
        stats = {"candidate_routes": sum([len(s.rev) for s in self.sets.values()]),
                 "nodes_explored": self.progress.item(2),
                 "elapsed_ms": round((time.perf_counter() - self.started) * 1000, 3),
                 "timed_out": timed_out and not optimal}
        return {"revenue": revenue, "subsidy": subsidy, "routes": routes, "optimal": optimal, "stats": stats,
                "upper_bound": figure if optimal else max(self.figure(None, bound), figure)}

    def figure(self, routes: list[dict] | None, score: int = 0) -> int:
        """The objective's figure (the revenue, or revenue plus subsidy) of a run, or the bound it has when
        no run scores more than `score` (revenue.problem.split_score)."""
        if routes is None:
            return split_score(score, self.weights, self.objective)[0]
        revenue = sum(r["revenue"] for r in routes)
        return revenue + (sum(r["subsidy"] for r in routes) if self.objective == "revenue_and_subsidy" else 0)
