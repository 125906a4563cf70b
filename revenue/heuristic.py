"""A good legal run at once, for boards whose routes are too many to enumerate quickly.

Each train in turn (the ones that could earn most first) walks the board with the exact route kernel
(revenue.core.walk.enumerate_routes) for a slice of the time budget, on a copy of the adjacency where
each node's chains are ordered by the value of the node they lead to (so the depth-first walk follows
the richest track first) and the chains that share a track key with the routes already chosen are left
out; the walk keeps the best routes it meets (compaction). The best route joins the run, its keys are
taken. Finally the routes kept by all walks are combined by the exact combination kernel, which applies
the run-level rules, so the run returned is legal by the same rules as the exact search's: it seeds that
search as its incumbent.

Then (improve_run) the greedy walks are taken again in the other orders of the trains, and each train
in turn walks again with only the track of the others' routes in the best run left out, while that
improves the run: every walk's routes join the pools the combination picks from, so a run only grows.
When those moves stop improving it, restarts take the greedy walks again in a random order of the trains,
each walk following the track in an order of the nodes' worth shuffled by random factors (a walk cut by
time keeps routes that share its first choices: a restart starts elsewhere), then the moves again.
"""
from __future__ import annotations

import itertools
import time

import numpy as np

from .core.detours import best_detours
from .core.walk import enumerate_routes
from .problem import Problem

KEPT_ROUTES = 512       # routes a heuristic walk keeps (the best it meets)
MOST_ORDERS = 6         # orders of the trains the greedy walks take again (improve_run)
NODES_PER_ROUTE = 24
NOISE = 0.5             # a restart's walks order the nodes by worth x uniform(1 - NOISE, 1 + NOISE)
RESTART_WALK_SECONDS = 0.03   # at most this per walk of a restart
RESTART_SEED = 16       # restarts are the same from call to call (answers repeat)
# Restarts end after this many in a row without a better run (on the 49- to 81-hex D D 8 stress boards the
# gains came within 2 restarts of the last, 0.1-0.3 s each, and the phase's time ended them; on a small
# board the walks end by themselves and restarts find nothing new: this ends them within milliseconds)
RESTARTS_WITHOUT_GAIN = 16
# Route-local moves (detour_moves): a detour has at most this many chains, the walk from each of a route's
# nodes at most this many steps, and of a route's positive detours the best this many are priced
DETOUR_CHAINS = 6
DETOUR_STEPS = 20_000
DETOURS_PRICED = 4
DETOUR_WALK_SECONDS = 0.05     # a walk of a detour's chains ends by itself within milliseconds
# Perturbed moves (perturbed_moves): this many trains walk again, for at most this long each
PERTURBED_TRAINS = 2
PERTURBED_WALK_SECONDS = 0.01
# and it ends after this many perturbations in a row without a better run (without a deadline), or this
# many when the walks end by themselves (a small board: each sees every route around the others', and the
# 200 took 35 ms a solve on the random boards of the tests)
PERTURBED_WITHOUT_GAIN = 200
PERTURBED_COMPLETE_WITHOUT_GAIN = 20


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


def shuffled_adjacency(problem: Problem, train: str, adj, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """The adjacency with each node's chains ordered by the worth of the node they lead to times a random
    factor (a restart's walk: other rich track first than sorted_adjacency's)."""
    start, chain, other, flags = adj
    spec = problem.specs[train]
    worth = np.where(spec.row >= 0, spec.base + spec.bonus, -1) * rng.uniform(1 - NOISE, 1 + NOISE, len(start) - 1)
    source = np.repeat(np.arange(len(start) - 1), np.diff(start))
    order = np.lexsort((-worth[other], source))
    return start, chain[order], other[order], flags[order]


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
        *problem.graph.hex_walks, arrays, is_fast, walk_from_ends, stop, rev, keys, flags, start, path_nodes,
        path_chains, limits, True)
    out = RouteSet(problem, train, rev[:stored], keys[:stored], flags[:stored], start[:stored], start[1:stored + 1],
                   path_nodes, path_chains, complete, weights)
    out.floor, out.best_seen = int(limits[0]), int(limits[1])
    return out


def first_run(search, adj, allowed, until: float) -> tuple[int, list[dict]] | None:
    """The heuristic run for `search` (a revenue.solve.Search), found by `until` (perf_counter): its
    score (its revenue unless some node pays a subsidy) and its routes in the order of the company's
    trains, or None when no train has a route."""
    found = search.pools = Pools(search, adj, allowed)
    trains = list(search.problem.company.trains)
    bounds = search.type_bound
    order = sorted(range(len(trains)), key=lambda i: -bounds[trains[i].name])
    used = np.zeros(search.problem.words, dtype=np.uint64)
    for k, i in enumerate(order):
        now = time.perf_counter()
        # an equal share of what is left for each train still to walk, and one for the combination
        routes = found.walk(trains[i].name, used, now + max(until - now, 0.0) / (len(order) - k + 1))
        if len(routes):
            used |= routes.keys[0]
    return found.best(max(until, time.perf_counter() + 0.002))


def improve_run(search, adj, allowed, until: float, on_better) -> None:
    """Better runs than the search's incumbent, by `until`: each train in turn walks again with the
    track of the others' routes in the best run left out (so it may give up a rich route for one that
    leaves the others more), and the routes of all walks are combined; rounds go on while a round
    improves the run. `on_better(run)` gets each better run."""
    found = search.pools      # the first run's walks (first_run)
    trains = list(search.problem.company.trains)
    if found is None or search.incumbent is None or len(trains) < 2:
        return
    best = search.incumbent
    # The greedy walks of the first run in the other orders of the trains (an early train takes the
    # richest track; the run may be better when another one does)
    names = [t.name for t in trains]
    orders = list(dict.fromkeys(tuple(names[i] for i in p) for p in itertools.permutations(range(len(names)))))
    orders = [order for order in orders[:MOST_ORDERS]
              if order != tuple(sorted(names, key=lambda n: -search.type_bound[n]))]
    for k, order in enumerate(orders):
        used = np.zeros(search.problem.words, dtype=np.uint64)
        share = max(until - time.perf_counter(), 0.0) / (2 * (len(orders) - k) * len(order))
        for name in order:
            routes = found.walk(name, used, time.perf_counter() + share)
            if len(routes):
                used |= routes.keys[0]
    run = found.best(until) if orders else None
    if run is not None and run[0] > best[0]:
        best = run
        on_better(run)
    best = _local_moves(search, found, trains, best, until, on_better)
    # Restarts: the greedy walks in a random order of the trains, each on shuffled track, then the moves
    rng = np.random.default_rng(RESTART_SEED)
    idle = 0
    while best is not None and time.perf_counter() < until and idle < RESTARTS_WITHOUT_GAIN:
        idle += 1
        used = np.zeros(search.problem.words, dtype=np.uint64)
        for i in rng.permutation(len(trains)):
            now = time.perf_counter()
            walk = shuffled_adjacency(search.problem, trains[i].name, search.pools.adj, rng)
            routes = found.walk(trains[i].name, used, min(until, now + RESTART_WALK_SECONDS), walk)
            if len(routes):
                used |= routes.keys[0]
        run = found.best(until)
        if run is not None and run[0] > best[0]:
            best, idle = run, 0
            if run[0] > search.incumbent[0]:
                on_better(run)
            best = _local_moves(search, found, trains, best, until, on_better)
    if time.perf_counter() < until and not search.stop[0]:
        perturbed_moves(search, until, on_better)


def _local_moves(search, found, trains: list, best, until: float, on_better):
    """Each train in turn walks again with the track of the others' routes in the best run left out, and
    the routes of all walks are combined, while a round improves the run; the best run."""
    improved = True
    while improved and time.perf_counter() < until and best is not None:
        improved = False
        for i, t in enumerate(trains):
            now = time.perf_counter()
            if now >= until:
                break
            used = np.zeros(search.problem.words, dtype=np.uint64)
            for j, keys in enumerate(found.chosen_keys):
                if j != i and keys is not None:
                    used |= keys
            found.walk(t.name, used, now + (until - now) / (2 * len(trains)))
            run = found.best(until)
            if run is not None and run[0] > best[0]:
                best, improved = run, True
                if run[0] > search.incumbent[0]:
                    on_better(run)
    return best


def detour_moves(search, found: "Pools", score: int, chosen: list, until: float, on_better=None) -> tuple[int, list]:
    """Route-local moves from the run `chosen` (per train its route as a RouteSet of one, or None) scoring
    `score`: for each train in turn, the richest detours of its route that avoid the others' track
    (revenue.core.detours: a stretch replaced, a detour inserted between two stops, an end moved or
    extended), each walked by the route kernel on the route's chains and the detour's and combined with
    the others' routes by the combination kernel (so every route and run rule holds), the first better run
    taken; until no train's route improves, or `until`. `on_better(run)` gets each run better than the
    search's incumbent (its routes join the pools). The score and routes of the run reached (as `chosen`)."""
    from .pathbound import only_chains

    problem = search.problem
    trains = [t.name for t in problem.company.trains]
    adj = found.adj
    chosen = [_own(r) for r in chosen]
    settled = k = 0
    while settled < len(trains) and time.perf_counter() < until and not search.stop[0]:
        i, k, settled = k % len(trains), k + 1, settled + 1
        name, routes = trains[i], chosen[i]
        if routes is None:
            continue
        others = [(trains[j], r) for j, r in enumerate(chosen) if j != i and r is not None]
        taken = np.zeros(problem.words, dtype=np.uint64)
        for _, other in others:
            taken |= other.keys[0]
        a, b = int(routes.begin[0]), int(routes.end[0])
        nodes, chains = routes.nodes[a:b].copy(), routes.chains[a + 1:b].copy()
        for added, _ in _proposals(problem, name, adj, found.allowed, taken, nodes, chains)[:DETOURS_PRICED]:
            if time.perf_counter() >= until:
                break
            walked = found.walk(name, taken, min(until, time.perf_counter() + DETOUR_WALK_SECONDS),
                                only_chains(adj, np.concatenate([chains, added])), keep=False)
            pools: dict[str, list] = {}
            for other_name, other in others + [(name, walked)]:
                pools.setdefault(other_name, []).append(other)
            run = found.best(max(until, time.perf_counter() + 0.05), pools)
            if run is not None and run[0] > score:
                score, chosen, settled = run[0], [_own(r) for r in found.chosen], 0
                if on_better is not None and (search.incumbent is None or run[0] > search.incumbent[0]):
                    _keep(found, trains, chosen)
                    on_better(run)
                break
    return score, chosen


def _keep(found: "Pools", trains: list[str], chosen: list) -> None:
    """The routes `chosen` (per train a RouteSet of one, or None) join the pools: the pools' best run is
    the search's incumbent (pathbound.neighbourhoods starts from it), and the final combination takes
    them. (The moves' other walks do not: a run of many moves would fill the pools with routes no run
    took.)"""
    for name, r in zip(trains, chosen):
        if r is not None:
            found.pools[name].append(_own(r))


def _own(routes):
    """A RouteSet of one route (or None) with arrays of its own: a route of a merged set (Pools.chosen)
    keeps the whole set's arrays alive, and a merge of it copies them up to the route (on the 144-hex
    6 6 6 stress board, 9 MB each: the iterated moves held 250 MB of them)."""
    from .solve import RouteSet

    if routes is None:
        return None
    a, b = int(routes.begin[0]), int(routes.end[0])
    return RouteSet(routes.problem, routes.train, routes.rev[:1].copy(), routes.keys[:1].copy(),
                    routes.flags[:1].copy(), np.zeros(1, dtype=np.int64), np.array([b - a], dtype=np.int64),
                    routes.nodes[a:b].copy(), routes.chains[a:b].copy(), False, routes.weights)


def _run_of(found: "Pools", trains: list[str], chosen: list, until: float):
    """The run of the routes `chosen` (per train a RouteSet of one, or None), priced by the combination."""
    pools: dict[str, list] = {}
    for name, r in zip(trains, chosen):
        if r is not None:
            pools.setdefault(name, []).append(r)
    return found.best(max(until, time.perf_counter() + 0.05), pools)


def perturbed_moves(search, until: float, on_better, seed: int = RESTART_SEED) -> None:
    """An iterated local search from the best run of the pools, by `until`: PERTURBED_TRAINS trains (at
    random) give up their routes and walk again in a random order on shuffled track (shuffled_adjacency)
    around the others' routes, then detour_moves from that run; a run no worse than the current one
    becomes current, each better than the incumbent is reported (`on_better`) and its routes join the
    pools; until `until`, or PERTURBED_WITHOUT_GAIN perturbations in a row without a better run (fewer when
    the walks end by themselves)."""
    found = search.pools
    problem = search.problem
    trains = [t.name for t in problem.company.trains]
    run = None if found is None else found.best(until)
    if run is None:
        return
    best = current = detour_moves(search, found, run[0], list(found.chosen), until, on_better)
    rng = np.random.default_rng(seed)
    idle, most = 0, PERTURBED_WITHOUT_GAIN
    while time.perf_counter() < until and not search.stop[0] and idle < most:
        idle += 1
        most = PERTURBED_COMPLETE_WITHOUT_GAIN
        score, chosen = current
        drop = set(int(q) for q in rng.choice(len(trains), size=min(PERTURBED_TRAINS, len(trains)), replace=False))
        pools: dict[str, list] = {}
        used = np.zeros(problem.words, dtype=np.uint64)
        for q, r in enumerate(chosen):
            if q not in drop and r is not None:
                pools.setdefault(trains[q], []).append(r)
                used |= r.keys[0]
        for q in rng.permutation(sorted(drop)):
            walk = shuffled_adjacency(problem, trains[q], found.adj, rng)
            routes = found.walk(trains[q], used, min(until, time.perf_counter() + PERTURBED_WALK_SECONDS), walk,
                                keep=False)
            if len(routes):
                used |= routes.keys[0]
            if not routes.complete:
                most = PERTURBED_WITHOUT_GAIN
            pools.setdefault(trains[q], []).append(routes)
        run = found.best(max(until, time.perf_counter() + 0.05), pools)
        if run is None:
            continue
        moved = detour_moves(search, found, run[0], list(found.chosen), until)
        if moved[0] >= score:
            current = moved
        if moved[0] > best[0]:
            best, idle = moved, 0
            if search.incumbent is None or moved[0] > search.incumbent[0]:
                _keep(found, trains, moved[1])
                on_better(_run_of(found, trains, moved[1], until))


def polish(search, until: float) -> None:
    """detour_moves from the best run of the heuristic's pools (the search's incumbent), by `until`; each
    better run becomes the incumbent (Search._better)."""
    found = search.pools
    if found is None:
        return
    run = found.best(until)
    if run is not None:
        detour_moves(search, found, run[0], list(found.chosen), until, search._better)


def _proposals(problem: Problem, name: str, adj, allowed, taken, nodes, chains) -> list[tuple[np.ndarray, np.ndarray]]:
    """A route's best detours (revenue.core.detours, walked from both of its ends), the largest estimated
    gain first: per detour, the chains it adds and the chains of the route it makes."""
    from .relax import _worth_and_stops, passable

    key = ("detour arrays", name)
    if key not in problem.derived:
        spec = problem.specs[name]
        worth, stops, _ = _worth_and_stops(problem, spec, allowed, (1, 0))
        usable = allowed & (spec.row >= 0)
        counts = (problem.cost > 0).astype(np.int64)
        # (one distance row: its stops bound the visits; several rows: no estimate, the kernel decides)
        limit = int(stops[0]) if len(stops) == 1 else len(allowed)
        problem.derived[key] = (worth.astype(np.int64), counts, usable, passable(problem, allowed), limit)
    worth, counts, usable, through, limit = problem.derived[key]
    limit = max(limit, int(counts[nodes].sum()))
    start, chain, other, flags = sorted_adjacency(problem, name, adj)
    found = []
    k = len(nodes) - 1
    for forward in (True, False):
        route_nodes, route_chains = (nodes, chains) if forward else (nodes[::-1].copy(), chains[::-1].copy())
        gain = np.zeros((k + 1) * (k + 2), dtype=np.int64)
        length = np.zeros_like(gain)
        detour = np.zeros((len(gain), DETOUR_CHAINS), dtype=np.int64)
        best_detours(start, chain, other, flags, problem.chain_keys, worth, counts, usable, through,
                     problem.token, taken, route_nodes, route_chains, limit, DETOUR_CHAINS, DETOUR_STEPS,
                     gain, length, detour)
        for entry in np.nonzero(gain > 0)[0]:
            i, m = divmod(int(entry), k + 2)
            added = detour[entry, :length[entry]].copy()
            # c_1 .. c_i, the detour, c_{m+1} .. c_k (m = k + 1: the route ends with the detour)
            made = np.concatenate([route_chains[:i], added, route_chains[m:] if m <= k else added[:0]])
            found.append((int(gain[entry]), added, made))
    found.sort(key=lambda g: -g[0])
    seen, out = set(), []
    for _, added, made in found:
        if tuple(sorted(made.tolist())) not in seen:
            seen.add(tuple(sorted(made.tolist())))
            out.append((added, made))
    return out


class Pools:
    """The routes the heuristic's walks kept, per train type, and the best run among them (the exact
    combination kernel, so the run obeys every route and run rule)."""

    def __init__(self, search, adj, allowed):
        self.search, self.adj, self.allowed = search, adj, allowed
        self.pools: dict[str, list] = {t.name: [] for t in search.problem.company.trains}
        self.chosen_keys: list = [None] * len(search.problem.company.trains)
        # per train (company order), the last best run's route as a RouteSet of one route, or None
        self.chosen: list = [None] * len(search.problem.company.trains)

    def walk(self, name: str, used: np.ndarray, until: float, adj=None, keep: bool = True):
        """The best routes of train type `name` that share no key with `used`, met by `until` (past the
        search's deadline a walk still takes its first few thousand steps), walking the track in the
        order of `adj` (default: sorted_adjacency); they join the pools when `keep`."""
        from .solve import WATCHDOG

        search, problem = self.search, self.search.problem
        stop, ticket = search.stop_at(until)
        try:
            ordered = sorted_adjacency(problem, name, self.adj) if adj is None else adj
            walk = without_keys(ordered, problem.chain_keys, used)
            routes = kept_routes(problem, name, walk, self.allowed, stop, KEPT_ROUTES, weights=search.weights)
        finally:
            WATCHDOG.release(ticket, search.cancel)
        if keep:
            self.pools[name].append(routes)
        return routes

    def best(self, until: float, pools: dict[str, list] | None = None) -> tuple[int, list[dict]] | None:
        """The best run of the routes kept so far (or of `pools`: per train type, RouteSets), searched until
        `until`, or None when no train has a route; remembers each train's route keys (chosen_keys)."""
        from .solve import WATCHDOG, RouteSet, Combination

        search, problem = self.search, self.search.problem
        trains = list(problem.company.trains)
        pools = self.pools if pools is None else pools
        sets = {name: RouteSet.merge(problem, name, pools.get(name, []), search.weights) for name in self.pools}
        if not any(len(s) for s in sets.values()):
            return None
        stop, ticket = search.stop_at(until)
        try:
            combination = Combination(problem, trains, sets)
            progress = combination.progress()
            combination.search(progress, stop)
        finally:
            WATCHDOG.release(ticket, search.cancel)
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
