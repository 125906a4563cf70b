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
time keeps routes that share its first choices: a restart starts elsewhere), then the moves again, and
last the iterated moves (revenue.optimizer.moves.perturbed_moves).
"""
from __future__ import annotations

import itertools
import time

import numpy as np

from .adjacency import shuffled_adjacency
from .moves import perturbed_moves
from .pools import Incumbent, Pools, Run

MOST_ORDERS = 6         # orders of the trains the greedy walks take again (improve_run)
RESTART_WALK_SECONDS = 0.03   # at most this per walk of a restart
RESTART_SEED = 16       # restarts are the same from call to call (answers repeat)
# Restarts end after this many in a row without a better run: on a small board the walks end by themselves
# and restarts find nothing new
RESTARTS_WITHOUT_GAIN = 16


def first_run(found: Pools, bounds: dict[str, int], until: float) -> Run | None:
    """The heuristic run, its walks' routes kept in `found` (empty pools), by `until` (perf_counter): its
    score (its revenue unless some node pays a subsidy) and its routes in the order of the company's
    trains, or None when no train has a route. The trains walk in the order of their `bounds` (per train
    type, on any route), richest first."""
    trains = list(found.problem.company.trains)
    order = sorted(range(len(trains)), key=lambda i: -bounds[trains[i].name])
    used = np.zeros(found.problem.words, dtype=np.uint64)
    for k, i in enumerate(order):
        now = time.perf_counter()
        # an equal share of what is left for each train still to walk, and one for the combination
        routes = found.walk(trains[i].name, used, now + max(until - now, 0.0) / (len(order) - k + 1))
        if len(routes):
            used |= routes.keys[0]
    return found.best(max(until, time.perf_counter() + 0.002))


def improve_run(found: Pools, incumbent: Incumbent, bounds: dict[str, int], until: float) -> None:
    """Better runs than the incumbent (the first run's, whose walks `found` kept), by `until`: each train
    in turn walks again with the track of the others' routes in the best run left out (so it may give up
    a rich route for one that leaves the others more), and the routes of all walks are combined; rounds
    go on while a round improves the run. Each better run is reported to the incumbent."""
    problem = found.problem
    trains = list(problem.company.trains)
    if incumbent.run is None or len(trains) < 2:
        return
    best = incumbent.run
    # The greedy walks of the first run in the other orders of the trains (an early train takes the
    # richest track; the run may be better when another one does)
    names = [t.name for t in trains]
    orders = list(dict.fromkeys(tuple(names[i] for i in p) for p in itertools.permutations(range(len(names)))))
    orders = [order for order in orders[:MOST_ORDERS]
              if order != tuple(sorted(names, key=lambda n: -bounds[n]))]
    for k, order in enumerate(orders):
        used = np.zeros(problem.words, dtype=np.uint64)
        share = max(until - time.perf_counter(), 0.0) / (2 * (len(orders) - k) * len(order))
        for name in order:
            routes = found.walk(name, used, time.perf_counter() + share)
            if len(routes):
                used |= routes.keys[0]
    run = found.best(until) if orders else None
    if run is not None and run[0] > best[0]:
        best = run
        incumbent.report(run)
    best = _local_moves(found, incumbent, trains, best, until)
    # Restarts: the greedy walks in a random order of the trains, each on shuffled track, then the moves
    rng = np.random.default_rng(RESTART_SEED)
    idle = 0
    while best is not None and time.perf_counter() < until and idle < RESTARTS_WITHOUT_GAIN:
        idle += 1
        used = np.zeros(problem.words, dtype=np.uint64)
        for i in rng.permutation(len(trains)):
            now = time.perf_counter()
            walk = shuffled_adjacency(problem, trains[i].name, found.adj, rng)
            routes = found.walk(trains[i].name, used, min(until, now + RESTART_WALK_SECONDS), walk)
            if len(routes):
                used |= routes.keys[0]
        run = found.best(until)
        if run is not None and run[0] > best[0]:
            best, idle = run, 0
            if run[0] > incumbent.run[0]:
                incumbent.report(run)
            best = _local_moves(found, incumbent, trains, best, until)
    if time.perf_counter() < until and not found.stops.flag[0]:
        perturbed_moves(found, incumbent, until)


def _local_moves(found: Pools, incumbent: Incumbent, trains: list, best: Run, until: float) -> Run:
    """Each train in turn walks again with the track of the others' routes in the best run left out, and
    the routes of all walks are combined, while a round improves the run; the best run."""
    improved = True
    while improved and time.perf_counter() < until and best is not None:
        improved = False
        for i, t in enumerate(trains):
            now = time.perf_counter()
            if now >= until:
                break
            used = np.zeros(found.problem.words, dtype=np.uint64)
            for j, keys in enumerate(found.chosen_keys):
                if j != i and keys is not None:
                    used |= keys
            found.walk(t.name, used, now + (until - now) / (2 * len(trains)))
            run = found.best(until)
            if run is not None and run[0] > best[0]:
                best, improved = run, True
                if run[0] > incumbent.run[0]:
                    incumbent.report(run)
    return best
