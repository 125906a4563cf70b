"""What the strategies of a large board (revenue.optimizer.heuristic, .moves, .pathbound) share with the
search: the routes their walks kept, per train type, and the best run among them (Pools), and the best
run found so far, to which each better one is reported (Incumbent)."""
from __future__ import annotations

import time
import numpy as np

from ..core.walk import NO_CHILDREN, enumerate_routes
from ..problem import Problem
from .adjacency import sorted_adjacency, without_keys
from .combination import Combination
from .routeset import RouteSet
from .trains import kernel_arguments
from ..watchdog import Stops

KEPT_ROUTES = 512           # routes a heuristic walk keeps (the best it meets)
KEPT_NODES_PER_ROUTE = 24   # room for route nodes per kept route, in a heuristic walk's arrays

Run = tuple[int, list[dict]]    # a run's score and its routes' answer entries, in the order of the company's trains


class Incumbent:
    """The best run the strategies found so far (`run`, None before the first), which report() replaces by
    a better one, and how many were reported (`reports`: the search's caller reports each in turn). Once a
    bound on every run is known (`bound`, the integer program's), a run that reaches it is proved: its
    report halts the search's `stops`."""

    __slots__ = ("run", "reports", "bound", "stops")

    def __init__(self, stops: Stops) -> None:
        self.run: Run | None = None
        self.reports = 0
        self.bound: int | None = None
        self.stops = stops

    def report(self, run: Run) -> None:
        self.run = run
        self.reports += 1
        if self.bound is not None and run[0] >= self.bound:
            self.stops.halt()     # proved: nothing left to search


def kept_routes(problem: Problem, train: str, adj, allowed, stop, routes: int, floor: int = -1,
                weights: tuple[int, int] = (1, 0)) -> RouteSet:
    """Walk the routes of `train` until the walk ends or `stop` is set, keeping the best `routes` of those
    earning more than `floor`: a RouteSet (complete when the walk ended by itself) with its floor (every
    route left out earns at most that) and the best revenue met."""
    arrays, sums_values, from_ends = kernel_arguments(problem, train, weights)
    n = len(problem.graph.nodes)
    rev = np.empty(routes, dtype=np.int64)
    keys = np.empty((routes, problem.words), dtype=np.uint64)
    flags = np.empty(routes, dtype=np.int64)
    start = np.zeros(routes + 1, dtype=np.int64)
    nodes = max(routes * KEPT_NODES_PER_ROUTE, n + 2)
    path_nodes = np.empty(nodes, dtype=np.int64)
    path_chains = np.empty(nodes, dtype=np.int64)
    limits = np.array([floor, -1, 0, 0, 0], dtype=np.int64)
    _, _, stored, complete = enumerate_routes(
        *adj, problem.chain_keys, problem.cost, problem.token, problem.blocks, problem.bypassable, allowed,
        *problem.graph.hex_walks, arrays, sums_values, from_ends, stop, rev, keys, flags, start, path_nodes,
        path_chains, limits, True, NO_CHILDREN, NO_CHILDREN, NO_CHILDREN)
    out = RouteSet(problem, train, rev[:stored], keys[:stored], flags[:stored], start[:stored], start[1:stored + 1],
                   path_nodes, path_chains, complete, weights)
    out.floor, out.best_seen = int(limits[0]), int(limits[1])
    return out


def own_route(routes: RouteSet | None) -> RouteSet | None:
    """A RouteSet of one route (or None) with arrays of its own: a route of a merged set (Pools.chosen)
    would keep the whole set's arrays alive, and a merge of it would copy them up to the route."""
    if routes is None:
        return None
    a, b = int(routes.begin[0]), int(routes.end[0])
    return RouteSet(routes.problem, routes.train, routes.rev[:1].copy(), routes.keys[:1].copy(),
                    routes.flags[:1].copy(), np.zeros(1, dtype=np.int64), np.array([b - a], dtype=np.int64),
                    routes.nodes[a:b].copy(), routes.chains[a:b].copy(), False, routes.weights)


class Pools:
    """The routes the strategies' walks kept, per train type, and the best run among them (the exact
    combination kernel, so the run obeys every route and run rule). The walks take the track of `adj`
    among the nodes `allowed`, each with a stop flag of its own from `stops` (the search's)."""

    def __init__(self, problem: Problem, weights: tuple[int, int], stops: Stops, adj, allowed):
        self.problem, self.weights, self.stops, self.adj, self.allowed = problem, weights, stops, adj, allowed
        trains = problem.company.trains
        self.pools: dict[str, list] = {t.name: [] for t in trains}
        self.chosen_keys: list = [None] * len(trains)
        # per train (company order), the last best run's route as a RouteSet of one route, or None
        self.chosen: list = [None] * len(trains)

    def walk(self, name: str, used: np.ndarray, until: float, adj=None, keep: bool = True) -> RouteSet:
        """The best routes of train type `name` that share no key with `used`, met by `until` (past the
        search's deadline a walk still takes its first few thousand steps), walking the track in the
        order of `adj` (default: sorted_adjacency); they join the pools when `keep`."""
        problem = self.problem
        stop, ticket = self.stops.at(until)
        try:
            ordered = sorted_adjacency(problem, name, self.adj) if adj is None else adj
            walk = without_keys(ordered, problem.chain_keys, used)
            routes = kept_routes(problem, name, walk, self.allowed, stop, KEPT_ROUTES, weights=self.weights)
        finally:
            self.stops.release(ticket)
        if keep:
            self.pools[name].append(routes)
        return routes

    def best(self, until: float, pools: dict[str, list] | None = None) -> Run | None:
        """The best run of the routes kept so far (or of `pools`: per train type, RouteSets), searched until
        `until`, or None when no train has a route; remembers each train's route keys (chosen_keys)."""
        problem = self.problem
        trains = list(problem.company.trains)
        pools = self.pools if pools is None else pools
        sets = {name: RouteSet.merge(problem, name, pools.get(name, []), self.weights) for name in self.pools}
        if not any(len(s) for s in sets.values()):
            return None
        stop, ticket = self.stops.at(until)
        try:
            combination = Combination(problem, trains, sets)
            progress = combination.progress()
            combination.search(progress, stop)
        finally:
            self.stops.release(ticket)
        if progress[1] == 0:
            return None
        self.chosen_keys = [None] * len(trains)
        self.chosen = [None] * len(trains)
        for t, place in enumerate(combination.position):
            i = int(progress[4 + t])
            if i >= 0:
                routes = sets[combination.trains[t].name]
                self.chosen_keys[place] = routes.keys[i]
                self.chosen[place] = routes.subset(np.arange(len(routes)) == i)
        return combination.run(progress)

    def run_of(self, trains: list[str], chosen: list, until: float) -> Run | None:
        """The run of the routes `chosen` (per train of `trains`, a RouteSet of one, or None), priced by the
        combination."""
        pools: dict[str, list] = {}
        for name, r in zip(trains, chosen):
            if r is not None:
                pools.setdefault(name, []).append(r)
        return self.best(max(until, time.perf_counter() + 0.05), pools)
