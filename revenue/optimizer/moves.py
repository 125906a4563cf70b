"""Moves that raise a run by changing some of its routes, for the heuristic and the integer program's
repair of its solutions: route-local detours (detour_moves: as for longest-path problems, a stretch of a
route replaced, a detour inserted, an end moved or extended, found by revenue.core.detours), and an
iterated local search that makes some trains walk again around the others' routes, then the detours
(perturbed_moves). Each run is priced by the route and combination kernels, so it obeys every rule."""
from __future__ import annotations

import time

import numpy as np

from ..core.detours import best_detours
from ..problem import Problem
from .adjacency import only_chains, shuffled_adjacency, sorted_adjacency
from .memo import memo
from .pools import Incumbent, Pools, own_route
from .relax import passable, worth_and_stops

# A detour has at most this many chains, the walk from each of a route's nodes at most this many steps,
# and of a route's positive detours the best this many are priced
DETOUR_CHAINS = 6
DETOUR_STEPS = 20_000
DETOURS_PRICED = 4
DETOUR_WALK_SECONDS = 0.05     # a walk of a detour's chains ends by itself within milliseconds
# This many trains walk again per perturbation, for at most this long each
PERTURBED_TRAINS = 2
PERTURBED_WALK_SECONDS = 0.01
# The iterated search ends after this many perturbations in a row without a better run, or this many when
# the walks end by themselves (a small board, where each walk sees every route around the others')
PERTURBED_WITHOUT_GAIN = 200
PERTURBED_COMPLETE_WITHOUT_GAIN = 20
PERTURBED_SEED = 16     # the perturbations are the same from call to call (answers repeat)


def detour_moves(pools: Pools, incumbent: Incumbent | None, score: int, chosen: list, until: float
                 ) -> tuple[int, list]:
    """Route-local moves from the run `chosen` (per train its route as a RouteSet of one, or None) scoring
    `score`: for each train in turn, the richest detours of its route that avoid the others' track
    (revenue.core.detours: a stretch replaced, a detour inserted between two stops, an end moved or
    extended), each walked by the route kernel on the route's chains and the detour's and combined with
    the others' routes by the combination kernel (so every route and run rule holds), the first better run
    taken; until no train's route improves, or `until`. Each run better than the `incumbent`'s is reported
    to it (its routes join the pools; no `incumbent`: none is). The score and routes of the run reached (as
    `chosen`)."""
    problem, stop = pools.problem, pools.stops.flag
    trains = [t.name for t in problem.company.trains]
    adj = pools.adj
    chosen = [own_route(r) for r in chosen]
    settled = k = 0
    while settled < len(trains) and time.perf_counter() < until and not stop[0]:
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
        for added, _ in _proposals(problem, name, adj, pools.allowed, taken, nodes, chains)[:DETOURS_PRICED]:
            if time.perf_counter() >= until:
                break
            walked = pools.walk(name, taken, min(until, time.perf_counter() + DETOUR_WALK_SECONDS),
                                only_chains(adj, np.concatenate([chains, added])), keep=False)
            tried: dict[str, list] = {}
            for other_name, other in others + [(name, walked)]:
                tried.setdefault(other_name, []).append(other)
            run = pools.best(max(until, time.perf_counter() + 0.05), tried)
            if run is not None and run[0] > score:
                score, chosen, settled = run[0], [own_route(r) for r in pools.chosen], 0
                if incumbent is not None and (incumbent.run is None or run[0] > incumbent.run[0]):
                    _keep(pools, trains, chosen)
                    incumbent.report(run)
                break
    return score, chosen


def _keep(pools: Pools, trains: list[str], chosen: list) -> None:
    """The routes `chosen` (per train a RouteSet of one, or None) join the pools: the pools' best run is
    the incumbent (pathbound.neighbourhoods starts from it), and the final combination takes them. (The
    moves' other walks do not: a run of many moves would fill the pools with routes no run took.)"""
    for name, r in zip(trains, chosen):
        if r is not None:
            pools.pools[name].append(own_route(r))


def perturbed_moves(pools: Pools, incumbent: Incumbent, until: float, seed: int = PERTURBED_SEED) -> None:
    """An iterated local search from the best run of the pools, by `until`: PERTURBED_TRAINS trains (at
    random) give up their routes and walk again in a random order on shuffled track (shuffled_adjacency)
    around the others' routes, then detour_moves from that run; a run no worse than the current one
    becomes current, each better than the incumbent is reported to it and its routes join the pools;
    until `until`, or PERTURBED_WITHOUT_GAIN perturbations in a row without a better run (fewer when the
    walks end by themselves)."""
    problem, stop = pools.problem, pools.stops.flag
    trains = [t.name for t in problem.company.trains]
    run = pools.best(until)
    if run is None:
        return
    best = current = detour_moves(pools, incumbent, run[0], list(pools.chosen), until)
    rng = np.random.default_rng(seed)
    idle, most = 0, PERTURBED_WITHOUT_GAIN
    while time.perf_counter() < until and not stop[0] and idle < most:
        idle += 1
        most = PERTURBED_COMPLETE_WITHOUT_GAIN
        score, chosen = current
        drop = set(int(q) for q in rng.choice(len(trains), size=min(PERTURBED_TRAINS, len(trains)), replace=False))
        tried: dict[str, list] = {}
        used = np.zeros(problem.words, dtype=np.uint64)
        for q, r in enumerate(chosen):
            if q not in drop and r is not None:
                tried.setdefault(trains[q], []).append(r)
                used |= r.keys[0]
        for q in rng.permutation(sorted(drop)):
            walk = shuffled_adjacency(problem, trains[q], pools.adj, rng)
            routes = pools.walk(trains[q], used, min(until, time.perf_counter() + PERTURBED_WALK_SECONDS), walk,
                                keep=False)
            if len(routes):
                used |= routes.keys[0]
            if not routes.complete:
                most = PERTURBED_WITHOUT_GAIN
            tried.setdefault(trains[q], []).append(routes)
        run = pools.best(max(until, time.perf_counter() + 0.05), tried)
        if run is None:
            continue
        moved = detour_moves(pools, None, run[0], list(pools.chosen), until)
        if moved[0] >= score:
            current = moved
        if moved[0] > best[0]:
            best, idle = moved, 0
            if incumbent.run is None or moved[0] > incumbent.run[0]:
                _keep(pools, trains, moved[1])
                incumbent.report(pools.run_of(trains, moved[1], until))


def polish(pools: Pools, incumbent: Incumbent, until: float) -> None:
    """detour_moves from the best run of the pools (the incumbent), by `until`, each better run reported."""
    run = pools.best(until)
    if run is not None:
        detour_moves(pools, incumbent, run[0], list(pools.chosen), until)


def detour_arrays(problem: Problem, name: str, allowed) -> tuple:
    """What best_detours takes of train type `name` besides the route (computed once per problem and
    train type): each node's worth and visit count, the nodes it may visit and pass, and its stop limit
    (one distance row: its stops; several rows: none, the kernel decides)."""
    derived = memo(problem).detour_arrays
    if name not in derived:
        spec = problem.specs[name]
        worth, stops, _ = worth_and_stops(problem, spec, allowed, (1, 0))
        usable = allowed & (spec.row >= 0)
        counts = (problem.cost > 0).astype(np.int64)
        limit = int(stops[0]) if len(stops) == 1 else len(allowed)
        derived[name] = (worth.astype(np.int64), counts, usable, passable(problem, allowed), limit)
    return derived[name]


def _proposals(problem: Problem, name: str, adj, allowed, taken, nodes, chains) -> list[tuple[np.ndarray, np.ndarray]]:
    """A route's best detours (revenue.core.detours, walked from both of its ends), the largest estimated
    gain first: per detour, the chains it adds and the chains of the route it makes."""
    worth, counts, usable, through, limit = detour_arrays(problem, name, allowed)
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
