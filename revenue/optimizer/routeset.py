"""Route sets: every legal route of one train type as the kernels found it, best first (RouteSet), the
walk that finds them within a storage cap (all_routes, on this thread's scratch arrays when they fit),
and a capped walk's routes joined by the heuristic's (with_pools)."""
from __future__ import annotations

import threading

import numpy as np

from ..core.probe import SCRATCH_NODES_PER_ROUTE
from ..core.node_sets import node_bitsets
from ..core.refit import refit_routes
from ..core.sort import sort_picked_routes, sort_routes
from ..core.walk import NO_CHILDREN, enumerate_routes
from ..evaluation import answer_entry
from ..problem import Problem
from .trains import kernel_arguments


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


ROUTE_CAPACITY = 1 << 14   # first guess of the number of routes (grown to the exact need when short)


def all_routes(problem: Problem, train: str, adj, allowed, stop, weights: tuple[int, int] = (1, 0), floor: int = -1,
               capacity: tuple[int, int] | None = None, steps: int = 0) -> RouteSet:
    """Every legal route of one train type scoring more than `floor` (revenue.core.walk.enumerate_routes).
    `capacity` (routes, route nodes) caps the storage (bounded.capacity): beyond it the walk
    keeps the best routes and the set's floor says what the routes left out score at most. With `steps`,
    a walk that needs more steps than that ends unfinished (the set is not complete)."""
    arrays, sums_values, from_ends = kernel_arguments(problem, train, weights)
    most_routes, most_nodes = capacity or (1 << 62, 1 << 62)
    first_nodes = ROUTE_CAPACITY * SCRATCH_NODES_PER_ROUTE     # (the first guess: this thread's scratch arrays)
    routes, nodes = min(ROUTE_CAPACITY, most_routes), min(first_nodes, most_nodes)
    nodes = max(nodes, problem.graph.n_nodes + 2)
    compact = False
    graph_arrays = (*adj, problem.chain_keys, problem.cost, problem.token, problem.blocks, problem.bypassable, allowed,
                    *problem.graph.hex_walks, arrays, sums_values, from_ends, stop)
    while True:
        if routes == ROUTE_CAPACITY and nodes == first_nodes:
            # the first guess fits nearly every real board: this thread's arrays, used again, whole
            buffers = _scratch(problem.words)
        elif routes <= ROUTE_CAPACITY and nodes <= first_nodes:
            rev, keys, flags, start, path_nodes, path_chains = _scratch(problem.words)
            buffers = (rev[:routes], keys[:routes], flags[:routes], start[:routes + 1], path_nodes[:nodes],
                       path_chains[:nodes])
        else:
            buffers = (np.empty(routes, dtype=np.int64), np.empty((routes, problem.words), dtype=np.uint64),
                       np.empty(routes, dtype=np.int64), np.empty(routes + 1, dtype=np.int64),
                       np.empty(nodes, dtype=np.int64), np.empty(nodes, dtype=np.int64))
        rev, keys, flags, start, path_nodes, path_chains = buffers
        limits = np.array([floor, -1, 0, steps, 0], dtype=np.int64)
        count, total, stored, complete = enumerate_routes(*graph_arrays, *buffers, limits, compact, NO_CHILDREN,
                                                           NO_CHILDREN, NO_CHILDREN)
        if stored == count or not complete or compact:
            if routes <= ROUTE_CAPACITY and nodes <= first_nodes:    # (this thread's: copied)
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
    """This thread's route arrays of the first guess's size (ROUTE_CAPACITY routes, SCRATCH_NODES_PER_ROUTE
    nodes each), made once per thread (the keys' again for wider keys): fresh arrays of that size cost a
    walk of few routes more than the walk itself. The same tuple for the same key width: rev, keys [routes,
    words], flags, start, path nodes and chains (all but the keys parts of one array, scratch_at_once)."""
    arrays = getattr(_SCRATCH, "arrays", None)
    if arrays is None or arrays[1].shape[1] != words:
        flat = getattr(_SCRATCH, "flat", None)
        if flat is None:
            flat = _SCRATCH.flat = np.empty(ROUTE_CAPACITY * (3 + 2 * SCRATCH_NODES_PER_ROUTE) + 1, dtype=np.int64)
        routes = (len(flat) - 1) // (3 + 2 * SCRATCH_NODES_PER_ROUTE)
        keys = getattr(_SCRATCH, "keys", None)
        if keys is None or len(keys) < routes * words:
            keys = _SCRATCH.keys = np.empty(routes * words, dtype=np.uint64)
        keys = keys[:routes * words].reshape(routes, words)
        nodes_at, room = 3 * routes + 1, routes * SCRATCH_NODES_PER_ROUTE
        arrays = _SCRATCH.arrays = (flat[:routes], keys, flat[routes:2 * routes], flat[2 * routes:nodes_at],
                                    flat[nodes_at:nodes_at + room], flat[nodes_at + room:])
        _SCRATCH.at_once = (flat, keys)
    return arrays


def scratch_at_once(words: int) -> tuple[np.ndarray, np.ndarray]:
    """_scratch's arrays as core.probe.walk_and_combine takes them: the one array of rev, flags, start,
    nodes and chains, and the keys."""
    at_once = getattr(_SCRATCH, "at_once", None)
    if at_once is None or at_once[1].shape[1] != words:
        _scratch(words)
        at_once = _SCRATCH.at_once
    return at_once


def with_pools(problem: Problem, routes: RouteSet, pools, weights: tuple[int, int]) -> RouteSet:
    """A bounded walk's routes with the heuristic's routes of that train type that the walk left out
    (pools.Pools): the final combination may pair a rich stored route with a poorer one
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
