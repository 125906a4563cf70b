"""The integer program as a strategy of the large-board search: its bound on every run, and the runs of
its solutions (path_program), repaired where they fall short by the program itself, one train at a time
beside the others' routes (neighbourhoods), and by the moves (revenue.optimizer.moves).

Each solution's paths are handed to the route kernel (Pools.walk on their chains only), which prices them
by every rule: when their run reaches the program's bound, it is proved.
"""
from __future__ import annotations

import time

import numpy as np

from .adjacency import only_chains
from .formulations import applies, new_program
from .moves import detour_moves, perturbed_moves, polish
from .pools import Incumbent, Pools
from .program import Program

# The solver's memory per nonzero of the program, for the memory cap (a guide: a long search grows its tree)
BYTES_PER_NONZERO = 250
# A walk of a solution's chains takes at most this (they are few: it ends by itself within milliseconds)
SOLUTION_WALK_SECONDS = 0.3
DETOUR_SECONDS = 0.2    # the route-local moves from a run take at most this long (they settle far sooner)
# Of the program's time left when its rounds end unproved, this share goes to the iterated moves before the
# neighbourhoods (where the rounds' solutions hold loops, they gain the more)
PERTURBED_SHARE = 0.25
NEIGHBOURHOOD_SECONDS = 1.0     # a neighbourhood of the best run is re-optimised for at most this long
SEEDS = 4       # the program's last solutions whose runs the neighbourhoods start from


def path_program(pools: Pools, incumbent: Incumbent, memory_mb: float, until: float,
                 first_until: float | None = None) -> int | None:
    """Solve the integer program of the problem of `pools` (the heuristic's, on the large-board path) by
    `until`, its rounds by `first_until` (revenue.optimizer.program.Program.solve): each solution's paths
    join the pools (each walked by the route kernel on its own chains, so a run obeys every rule) and
    their best run is reported to the `incumbent` when better. The program's bound on every run (None:
    the program does not apply, would pass `memory_mb`, or found none)."""
    problem, adj, allowed = pools.problem, pools.adj, pools.allowed
    if not applies(problem, allowed, pools.weights):
        return None
    # The heuristic's run moved to its local optimum first (reported at once). The first round's cutoff
    # stays the run's score before the moves: a higher one sends HiGHS down another, mostly slower, path
    first_cutoff = [incumbent.run[0] if incumbent.run is not None else 0]
    polish(pools, incumbent, min(until, time.perf_counter() + DETOUR_SECONDS))
    program = new_program(problem, allowed, adj)
    if program.h.getNumNz() * BYTES_PER_NONZERO > memory_mb * 2**20:
        program.close()
        return None
    stop, ticket = pools.stops.at(until)
    seeds: list = []        # the runs walked from the program's solutions, and their routes (neighbourhoods)

    def better(paths) -> int:
        if paths:
            # the paths' routes (each path and its parts) combined by themselves: a run the program
            # finds is met at once, however many routes the pools hold
            found: dict[str, list] = {}
            for name, (_, chains) in zip(program.trains, paths):
                if chains:
                    routes = pools.walk(name, np.zeros(problem.words, dtype=np.uint64),
                                        min(until, time.perf_counter() + SOLUTION_WALK_SECONDS),
                                        only_chains(adj, chains))
                    found.setdefault(name, []).append(routes)
            run = pools.best(max(until, time.perf_counter() + 0.05), found)
            if run is not None and (incumbent.run is None or run[0] > incumbent.run[0]):
                incumbent.report(run)
            if run is not None:
                # (a solution's loops walk into a poor run, whose routes the moves may lengthen)
                seeds.append(detour_moves(pools, incumbent, run[0], list(pools.chosen),
                                          min(until, time.perf_counter() + DETOUR_SECONDS)))
        elif first_cutoff:
            return first_cutoff.pop()
        return incumbent.run[0] if incumbent.run is not None else 0

    def repair() -> None:
        # the iterated moves first, from the best run (its seeds' runs moved to their local optima), then
        # the solutions' runs, before the relaxation takes the time left
        now = time.perf_counter()
        perturbed_moves(pools, incumbent, now + PERTURBED_SHARE * max(until - now, 0.0))
        neighbourhoods(program, pools, incumbent, stop, until, seeds[-SEEDS:], start_from_best=False)

    try:
        program.solve(stop, until, better, first_until, repair)
        if not stop[0] and time.perf_counter() < until and (
                program.bound is None or incumbent.run is None or incumbent.run[0] < program.bound):
            neighbourhoods(program, pools, incumbent, stop, until, [])
        if not stop[0] and time.perf_counter() < until and (
                program.bound is None or incumbent.run is None or incumbent.run[0] < program.bound):
            # the neighbourhoods settled: the rest of the share to the iterated moves
            perturbed_moves(pools, incumbent, until)
    finally:
        pools.stops.release(ticket)
        # (the solver's memory now: the walks after it have the memory cap to themselves)
        program.close()
    return program.bound


def neighbourhoods(program: Program, pools: Pools, incumbent: Incumbent, stop: np.ndarray, until: float,
                   seeds: list, start_from_best: bool = True) -> None:
    """Better runs by the program, one neighbourhood at a time (a large-neighbourhood search): each train
    re-optimised (Program.reoptimise) while the others keep their routes, for at most
    NEIGHBOURHOOD_SECONDS each, until none improves the run. First from `seeds` (the runs walked from the
    program's solutions, latest first: a solution whose trains also took loops apart from their routes
    walks into a poor run, yet its other trains' routes are good), then (`start_from_best`) from the best
    run. Ends at `until`, or sooner when every train was re-optimised to the end without a better run:
    the time left goes to the heuristic's moves and the walks. (Trains are re-optimised one at a time: a
    pair of long trains together is mostly not solved in the time.)"""
    singles = [[t] for t in range(len(program.trains))]
    for score, chosen in reversed(seeds):
        if stop[0] or time.perf_counter() >= until:
            return
        _descend(program, pools, incumbent, stop, until, score, chosen, singles)
    if not start_from_best:
        return
    run = pools.best(until)      # (the pools' best run is the incumbent: it sets pools.chosen)
    if run is not None and not stop[0]:
        _descend(program, pools, incumbent, stop, until, run[0], list(pools.chosen), singles)


def _descend(program: Program, pools: Pools, incumbent: Incumbent, stop: np.ndarray, until: float, score: int,
             chosen: list, places: list[list[int]]) -> int:
    """From the run `chosen` (per train its route as a RouteSet of one, or None) scoring `score`:
    re-optimise the trains `places` (each a list of train indexes) in turn, taking every better run,
    until each in a row was solved to the end without one, or `until`; the score of the run reached."""
    problem, adj = pools.problem, pools.adj
    k = settled = 0
    while not stop[0] and time.perf_counter() < until and settled < len(places):
        free = places[k % len(places)]
        k += 1
        taken = np.zeros(problem.words, dtype=np.uint64)
        for t, routes in enumerate(chosen):
            if t not in free and routes is not None:
                taken |= routes.keys[0]
        floor = sum(int(chosen[t].rev[0]) for t in free if chosen[t] is not None)
        before = score

        def better(paths) -> int:
            nonlocal score, chosen
            if paths:
                # the free trains' routes on the solution's chains beside the others' (and their own)
                found: dict[str, list] = {}
                for t, routes in enumerate(chosen):
                    if routes is not None:
                        found.setdefault(program.trains[t], []).append(routes)
                for t in free:
                    chains = paths[t][1]
                    if chains:
                        found.setdefault(program.trains[t], []).append(pools.walk(
                            program.trains[t], taken, min(until, time.perf_counter() + SOLUTION_WALK_SECONDS),
                            only_chains(adj, chains)))
                run = pools.best(max(until, time.perf_counter() + 0.05), found)
                if run is not None and run[0] > score:
                    score, chosen = run[0], list(pools.chosen)
                    if incumbent.run is None or run[0] > incumbent.run[0]:
                        incumbent.report(run)
            return score

        solved, _ = program.reoptimise(free, taken, floor, stop,
                                       min(until, time.perf_counter() + NEIGHBOURHOOD_SECONDS), better)
        if score > before:
            # the other trains' routes may take the track the free ones left
            score, chosen = detour_moves(pools, incumbent, score, chosen,
                                         min(until, time.perf_counter() + DETOUR_SECONDS))
            settled = 0
        elif solved:
            settled += 1
    return score
