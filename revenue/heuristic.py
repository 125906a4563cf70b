"""A good legal run at once, for boards whose routes are too many to enumerate quickly.

Each train in turn (the ones that could earn most first) walks the board with the exact route kernel
(revenue.core.routes.enumerate_routes) for a slice of the time budget, on a copy of the adjacency where
each node's chains are ordered by the value of the node they lead to (so the depth-first walk follows
the richest track first) and the chains that share a track key with the routes already chosen are left
out; the walk keeps the best routes it meets (compaction). The best route joins the run, its keys are
taken. Finally the routes kept by all walks are combined by the exact combination kernel, which applies
the run-level rules, so the run returned is legal by the same rules as the exact search's: it seeds that
search as its incumbent.
"""
from __future__ import annotations

import time

import numpy as np

from .core.routes import enumerate_routes
from .problem import Problem, hex_walks

KEPT_ROUTES = 512       # routes a heuristic walk keeps (the best it meets)
NODES_PER_ROUTE = 24


def sorted_adjacency(problem: Problem, train: str, adj) -> tuple[np.ndarray, ...]:
    """The adjacency with each node's chains ordered by the value, for this train, of the node they lead
    to (richest first); computed once per problem and train type."""
    key = ("sorted adjacency", train)
    if key not in problem.derived:
        start, chain, other, flags = adj
        spec = problem.specs[train]
        worth = np.where(spec.row >= 0, spec.base + spec.bonus, -1)
        source = np.repeat(np.arange(len(start) - 1), np.diff(start))
        order = np.lexsort((-worth[other], source))
        problem.derived[key] = (start, chain[order], other[order], flags[order])
    return problem.derived[key]


def without_keys(adj, chain_keys: np.ndarray, used: np.ndarray) -> tuple[np.ndarray, ...]:
    """The adjacency without the chains that share a track key with `used`."""
    start, chain, other, flags = adj
    if not used.any():
        return adj
    keep = ~(chain_keys[chain] & used).any(axis=1)
    source = np.repeat(np.arange(len(start) - 1), np.diff(start))
    new_start = np.zeros(len(start), dtype=np.int64)
    np.cumsum(np.bincount(source[keep], minlength=len(start) - 1), out=new_start[1:])
    return new_start, chain[keep], other[keep], flags[keep]


def kept_routes(problem: Problem, train: str, adj, allowed, stop, routes: int, floor: int = -1,
                weights: tuple[int, int] = (1, 0)):
    """Walk the routes of `train` until the walk ends or `stop` is set, keeping the best `routes` of those
    earning more than `floor`: a RouteSet (complete when the walk ended by itself) with its floor (every
    route left out earns at most that) and the best revenue met."""
    from .solve import RouteSet, kernel_arguments

    arrays, is_fast, walk_from_ends = kernel_arguments(problem, train, weights)
    n = len(problem.graph.nodes)
    rev = np.empty(routes, dtype=np.int64)
    keys = np.empty((routes, problem.words), dtype=np.uint64)
    flags = np.empty(routes, dtype=np.int64)
    start = np.zeros(routes + 1, dtype=np.int64)
    nodes = max(routes * NODES_PER_ROUTE, n + 2)
    path_nodes = np.empty(nodes, dtype=np.int64)
    path_chains = np.empty(nodes, dtype=np.int64)
    limits = np.array([floor, -1, 0, 0, 0], dtype=np.int64)
    _, _, stored, complete = enumerate_routes(
        *adj, problem.chain_keys, problem.cost, problem.token, problem.blocks, problem.bypassable, allowed,
        *hex_walks(problem.graph), arrays, is_fast, walk_from_ends, stop, rev, keys, flags, start, path_nodes,
        path_chains, limits, True)
    out = RouteSet(problem, train, rev[:stored], keys[:stored], flags[:stored], start[:stored], start[1:stored + 1],
                   path_nodes, path_chains, complete, weights)
    out.floor, out.best_seen = int(limits[0]), int(limits[1])
    return out


def first_run(search, adj, allowed, until: float) -> tuple[int, list[dict]] | None:
    """The heuristic run for `search` (a revenue.solve.Search), found by `until` (perf_counter): its
    score (its revenue unless some node pays a subsidy) and its routes in the order of the company's
    trains, or None when no train has a route."""
    from .solve import WATCHDOG, RouteSet, Combination

    problem = search.problem
    trains = list(problem.company.trains)
    bounds = search.type_bound
    order = sorted(range(len(trains)), key=lambda i: -bounds[trains[i].name])
    used = np.zeros(problem.words, dtype=np.uint64)
    pools: dict[str, list[RouteSet]] = {t.name: [] for t in trains}
    for k, i in enumerate(order):
        name = trains[i].name
        now = time.perf_counter()
        # an equal share of what is left for each train still to walk, and one for the combination
        slice_end = now + max(until - now, 0.0) / (len(order) - k + 1)
        # (past the search's deadline each walk still takes its first few thousand steps: a run)
        stop, ticket = search.stop_at(slice_end)
        try:
            walk = without_keys(sorted_adjacency(problem, name, adj), problem.chain_keys, used)
            found = kept_routes(problem, name, walk, allowed, stop, KEPT_ROUTES, weights=search.weights)
        finally:
            WATCHDOG.release(ticket, search.cancel)
        pools[name].append(found)
        if len(found):
            used |= found.keys[0]
    sets = {name: RouteSet.merge(problem, name, pool, search.weights) for name, pool in pools.items()}
    if not any(len(s) for s in sets.values()):
        return None
    stop, ticket = search.stop_at(max(until, time.perf_counter() + 0.002))
    try:
        combination = Combination(problem, trains, sets)
        progress = combination.progress()
        combination.search(progress, stop)
    finally:
        WATCHDOG.release(ticket, search.cancel)
    if progress[1] == 0:
        return None
    return combination.run(progress)
