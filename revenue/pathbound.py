"""A bound that sees the track's path structure, and the run that meets it: an integer program over
the chains (issue 16's large boards).

The node-by-node relaxations of revenue.relax let every long train pass nearly every node; on the dense
stress boards (25-100 nodes, 90-5,000 chains) the trains' routes are millions, yet the chains are few
enough for an integer program. Per train t: x[t, c] (the route takes chain c), z[t, v] (it visits node v),
e[t, v] (it ends there), u[t] (the train runs). A route is a path: at each node its chains number
2 z - e; two ends when it runs; it visits a token city; where no route may pass (revenue.relax.passable)
it may only end; a train with a stop limit visits that many nodes at most. Routes share no track key:
per key, the chains holding it are taken once among all trains (and within a route). The objective is
each visited node's worth (revenue.relax._worth_and_stops) plus the route bonuses a running train may
earn. Every legal run is a solution, so the program's optimum, or the dual bound of a search cut short,
bounds every run.

Paths with cycles apart from them also satisfy the degree rows; each cycle found in a solution adds a
cut (a route's chains among the nodes S number at most its visits in S less one, for every train; the
cuts of node pairs joined by several chains and of triangles are there from the start) and the program
is solved again, for runs beating the best known only, until the best solution is a set of paths, no
run beats the best known, or the time is up. Trains of one type are taken in order of their worth.
Each solution's paths are handed to the route kernel (revenue.heuristic.Pools.walk on their chains
only), which prices them by every rule: when their run reaches the bound, it is proved.

Applies when the routes' worth is a plain sum: every type simple (revenue.problem.TrainSpec.simple), one
distance row holding every reachable node, visit cost one, revenue alone (objective weights (1, 0)), no
run rule that needs routes connected (applies).
"""
from __future__ import annotations

import math
import os
import threading
import time
from typing import Callable

import numpy as np

from .core.track import TERM_INNER
from .problem import Problem
from .relax import _worth_and_stops, passable

# HiGHS's presolve, which no time limit interrupts, took 16 s on the 100-hex D D 8 stress board's program
# (440,000 nonzeros: 2,560 chains, each key row holding hundreds); without it the root bound came in 3 s
PRESOLVE_MOST_NONZEROS = 100_000

# The solver's memory per nonzero of the program, for the memory cap (memory_mb): 105 MB for the 440,000 of
# the 100-hex D D 8 stress board's program solved for 8 s (the 144-hex one's 37,000 took 53 MB: a long
# search grows its tree, so this is a guide, measured by the stress benchmark's peak memory)
BYTES_PER_NONZERO = 250

_HIGHS_LOCK = threading.Lock()
_highs_ready = False


def _highs():
    """A new HiGHS solver, silent. HiGHS prints its banner to the process's stdout when the first solver
    of the process is made, before any option can silence it, which would corrupt a command's JSON: the
    first one is made with stdout pointed at /dev/null (for that instant, what another thread writes to
    stdout is lost too; the service logs to stderr)."""
    global _highs_ready
    import highspy

    with _HIGHS_LOCK:
        if not _highs_ready:
            saved, devnull = os.dup(1), os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(devnull, 1)
                highspy.Highs()
            finally:
                os.dup2(saved, 1)
                os.close(saved)
                os.close(devnull)
            _highs_ready = True
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.5)      # scores are integers
    return h


def applies(problem: Problem, allowed: np.ndarray, weights: tuple[int, int]) -> bool:
    """Whether the program models every legal run (see the module's docstring)."""
    if weights != (1, 0) or problem.run.connected:
        return False
    for t in problem.company.trains:
        spec = problem.specs[t.name]
        if len(spec.row_visit) != 1 or not spec.simple or (spec.row[allowed] != 0).any():
            return False
    return bool((problem.cost[allowed] == 1).all())


class PathProgram:
    """The integer program of one problem (see the module's docstring); solve() refines it."""

    def __init__(self, problem: Problem, allowed: np.ndarray, adj):
        import highspy

        self.problem, self.adj = problem, adj
        self.inf = highspy.kHighsInf
        start, chain, other, flags = adj
        self.trains = [t.name for t in problem.company.trains]
        ends: dict[int, tuple[int, int]] = {}
        for v in np.nonzero(allowed)[0]:
            for e in range(start[v], start[v + 1]):
                o = int(other[e])
                if allowed[o] and o != v and not flags[e] & TERM_INNER:   # (no route takes the others)
                    ends[int(chain[e])] = (min(int(v), o), max(int(v), o))
        self.chains = undominated(problem.chain_keys, ends)
        self.ends = ends
        nodes = [int(v) for v in np.nonzero(allowed)[0]]
        self.nodes = nodes
        through = passable(problem, allowed)
        h = self.h = _highs()
        integer = highspy.HighsVarType.kInteger
        self.x, self.z, self.e, self.u = [], [], [], []
        cols = 0

        def columns(costs) -> np.ndarray:
            nonlocal cols
            k = len(costs)
            h.addVars(k, np.zeros(k), np.ones(k))
            index = np.arange(cols, cols + k, dtype=np.int32)
            h.changeColsCost(k, index, np.asarray(costs, dtype=np.float64))
            h.changeColsIntegrality(k, index, np.array([integer] * k))
            cols += k
            return index

        for name in self.trains:
            worth, stops, bonus = _worth_and_stops(problem, problem.specs[name], allowed, (1, 0))
            # (maximised as the minimum of minus the score)
            self.u.append(int(columns([-bonus])[0]))
            self.x.append(columns([0.0] * len(self.chains)))
            self.z.append(columns([-float(worth[v]) for v in nodes]))
            self.e.append(columns([0.0] * len(nodes)))
            t = len(self.u) - 1
            position = self.position = {v: i for i, v in enumerate(nodes)}
            incident: list[list[int]] = [[] for _ in nodes]
            for i, c in enumerate(self.chains):
                a, b = ends[c]
                incident[position[a]].append(int(self.x[t][i]))
                incident[position[b]].append(int(self.x[t][i]))
            z, e, u = self.z[t], self.e[t], self.u[t]
            for i, v in enumerate(nodes):
                self._row(incident[i] + [z[i], e[i]], [1.0] * len(incident[i]) + [-2.0, 1.0], 0.0, 0.0)
                self._row([e[i], z[i]], [1.0, -1.0], -self.inf, 0.0)
                self._row([z[i], u], [1.0, -1.0], -self.inf, 0.0)
                if not through[v]:
                    self._row([z[i], e[i]], [1.0, -1.0], -self.inf, 0.0)
            self._row(list(e) + [u], [1.0] * len(nodes) + [-2.0], 0.0, 0.0)
            tokens = [int(z[i]) for i, v in enumerate(nodes) if problem.token[v]]
            self._row(tokens + [u], [1.0] * len(tokens) + [-1.0], 0.0, self.inf)
            if stops[0] < len(nodes):
                self._row(list(z), [1.0] * len(nodes), -self.inf, float(stops[0]))
        keys = problem.chain_keys[self.chains] if self.chains else np.zeros((0, problem.words), np.uint64)
        bits = np.unpackbits(keys.view(np.uint8), axis=1, bitorder="little").astype(bool)
        for k in np.nonzero(bits.any(axis=0))[0]:
            holders = np.nonzero(bits[:, k])[0]
            index = [int(self.x[t][i]) for t in range(len(self.trains)) for i in holders]
            if len(index) > 1:
                self._row(index, [1.0] * len(index), -self.inf, 1.0)
        # the cuts of the shortest cycles from the start: two nodes joined by several chains, triangles
        neighbours: dict[int, set[int]] = {}
        pairs: dict[tuple[int, int], int] = {}
        for a, b in ends.values():
            neighbours.setdefault(a, set()).add(b)
            neighbours.setdefault(b, set()).add(a)
            pairs[(a, b)] = pairs.get((a, b), 0) + 1
        for (a, b), count in pairs.items():
            if count > 1:
                self._cut({a, b})
        for a, b in pairs:
            for c in neighbours[a] & neighbours[b]:
                if c > b:
                    self._cut({a, b, c})
        # trains of one type are interchangeable: the earlier copy earns at least as much
        for t in range(1, len(self.trains)):
            if self.trains[t] == self.trains[t - 1]:
                index = list(self.z[t - 1]) + [self.u[t - 1]] + list(self.z[t]) + [self.u[t]]
                costs = h.getLp().col_cost_
                coef = [-costs[i] for i in index[:len(index) // 2]] + [costs[i] for i in index[len(index) // 2:]]
                self._row([int(i) for i in index], coef, 0.0, self.inf)
        if h.getNumNz() > PRESOLVE_MOST_NONZEROS:
            h.setOptionValue("presolve", "off")
        self.bound: int | None = None

    def _cut(self, nodes: set[int]) -> None:
        """For every train: its chains among `nodes` number at most its visits there less one, whichever
        node w of them is left out (x(S) <= z(S) - z(w): a route is a path, so its chains in S form a
        forest on the nodes it visits there)."""
        inside = [i for i, c in enumerate(self.chains) if self.ends[c][0] in nodes and self.ends[c][1] in nodes]
        places = [self.position[v] for v in nodes]
        for t in range(len(self.trains)):
            for w in places:
                index = [int(self.x[t][i]) for i in inside] + [int(self.z[t][i]) for i in places if i != w]
                self._row(index, [1.0] * len(inside) + [-1.0] * (len(places) - 1), -self.inf, 0.0)

    def _row(self, index, coef, lo: float, hi: float) -> None:
        self.h.addRow(lo, hi, len(index), np.asarray(index, dtype=np.int32), np.asarray(coef, dtype=np.float64))

    def solve(self, stop: np.ndarray, until: float, better: Callable[[list | None], int],
              first_until: float | None = None) -> None:
        """Solve for runs that beat the best known, cut the cycles of the best solution and solve again,
        until its trains' chains form paths, no run beats the best known, `until` (perf_counter) passes
        or `stop` is set. `better(paths)` hands a solution's paths (per train: nodes, chains) to the
        caller, who prices them and answers the best run's score known (better(None): without new
        paths). Sets bound: no run scores more (each round's program is a relaxation of the runs that
        beat the best known, so its dual bound, or the best known when it has no solution, bounds
        every run). The first round ends by `first_until` (default `until`): a program too large to
        solve once in that time leaves the rest to other means."""
        import highspy

        h = self.h
        status_of = highspy.HighsModelStatus
        limit = [until if first_until is None else min(first_until, until)]

        def interrupt(kind, message, data_out, data_in, user):
            if stop[0] or time.perf_counter() >= limit[0]:
                data_in.user_interrupt = True

        h.setCallback(interrupt, None)
        for kind in ("kCallbackMipInterrupt", "kCallbackSimplexInterrupt", "kCallbackIpmInterrupt"):
            h.startCallback(getattr(highspy.cb.HighsCallbackType, kind))
        # the objective as a row: only runs beating the best known (the cutoff, raised as runs are found)
        lp = h.getLp()
        costs = np.asarray(lp.col_cost_, dtype=np.float64)
        used = np.nonzero(costs)[0].astype(np.int32)
        self._row(used, costs[used], -self.inf, self.inf)
        cutoff_row = h.getNumRow() - 1
        known = better(None)
        while not stop[0] and time.perf_counter() < limit[0]:
            h.changeRowBounds(cutoff_row, -self.inf, -(known + 1) + 0.5)
            h.setOptionValue("time_limit", max(limit[0] - time.perf_counter(), 0.001))
            h.run()
            limit[0] = until
            status = h.getModelStatus()
            info = h.getInfo()
            if status == status_of.kInfeasible:      # no run beats the best known
                self._tighten(known)
                return
            if math.isfinite(info.mip_dual_bound):
                # (the minimum of minus the score: its negation bounds the runs that beat the best known;
                # a thousandth of slack for rounding, as every score is an integer)
                self._tighten(max(known, math.floor(-info.mip_dual_bound + 1e-3)))
            if info.primal_solution_status != 2:     # no solution kept (cut short)
                return
            cycles, paths = self._read(np.asarray(h.getSolution().col_value))
            known = max(known, better(paths))
            if status != status_of.kOptimal:
                return
            if not cycles:      # the optimum is a run of paths: nothing scores more
                self._tighten(max(known, math.floor(-info.objective_function_value + 1e-3)))
                return
            for nodes in cycles:
                self._cut(nodes)

    def _tighten(self, bound: int) -> None:
        self.bound = bound if self.bound is None else min(self.bound, bound)

    def _read(self, values: np.ndarray) -> tuple[list[set[int]], list[tuple[list[int], list[int]]]]:
        """The node sets of the solution's cycles, and per train its path from one end (nodes, chains)."""
        cycles, paths = [], []
        for t in range(len(self.trains)):
            taken = [c for i, c in enumerate(self.chains) if values[self.x[t][i]] > 0.5]
            ends = [v for i, v in enumerate(self.nodes) if values[self.e[t][i]] > 0.5]
            at: dict[int, list[int]] = {}
            for c in taken:
                for v in self.ends[c]:
                    at.setdefault(v, []).append(c)
            left = set(taken)
            nodes, chains = [], []
            if ends:
                v = ends[0]
                nodes.append(v)
                while True:
                    nxt = [c for c in at.get(v, []) if c in left]
                    if not nxt:
                        break
                    left.discard(nxt[0])
                    a, b = self.ends[nxt[0]]
                    v = b if v == a else a
                    chains.append(nxt[0])
                    nodes.append(v)
            paths.append((nodes, chains))
            while left:         # what is left are cycles
                c = left.pop()
                seen, todo = set(self.ends[c]), list(self.ends[c])
                while todo:
                    v = todo.pop()
                    for d in at.get(v, []):
                        if d in left:
                            left.discard(d)
                            for w in self.ends[d]:
                                if w not in seen:
                                    seen.add(w)
                                    todo.append(w)
                cycles.append(seen)
        return cycles, paths


def undominated(chain_keys: np.ndarray, ends: dict[int, tuple[int, int]]) -> list[int]:
    """The chains (of `ends`: chain -> its two nodes) that no other chain between the same two nodes
    dominates (its keys a subset of theirs; of equal ones, the first): a run taking a dominated chain
    may take the other instead, with the same stops and no key more, so the program's optimum stands."""
    by_pair: dict[tuple[int, int], list[int]] = {}
    for c in sorted(ends):
        by_pair.setdefault(ends[c], []).append(c)
    kept = []
    for group in by_pair.values():
        if len(group) == 1:
            kept += group
            continue
        keys = chain_keys[group]
        # within[i, j]: chain j's keys are all chain i's
        within = ((keys[None, :, :] & ~keys[:, None, :]) == 0).all(axis=2)
        same = within & within.T
        for i, c in enumerate(group):
            others = within[i].copy()
            others[i] = False
            # dominated by a chain of fewer keys, or by an earlier chain of the same keys
            if not (others & ~same[i]).any() and not same[i, :i].any():
                kept.append(c)
    return sorted(kept)


def only_chains(adj, chains: list[int]) -> tuple[np.ndarray, ...]:
    """The adjacency with only `chains` left: a walk on it meets the routes made of them."""
    start, chain, other, flags = adj
    keep = np.isin(chain, np.asarray(chains, dtype=np.int64))
    source = np.repeat(np.arange(len(start) - 1), np.diff(start))
    new_start = np.zeros(len(start), dtype=np.int64)
    np.cumsum(np.bincount(source[keep], minlength=len(start) - 1), out=new_start[1:])
    return new_start, chain[keep], other[keep], flags[keep]


def path_program(search, adj, allowed, until: float, first_until: float | None = None) -> bool:
    """Solve the program of `search`'s problem (a revenue.solve.Search on the large-board path, with the
    heuristic's pools) by `until`: its bound becomes search.path_bound; each solution's paths join the
    pools (each walked by the route kernel on its own chains, so a run obeys every rule) and their best
    run is reported when better. True when the search's run reaches the bound."""
    problem = search.problem
    if search.pools is None or not applies(problem, allowed, search.weights):
        return False
    program = PathProgram(problem, allowed, adj)
    if program.h.getNumNz() * BYTES_PER_NONZERO > search.memory_mb * 2**20:
        program.h.clear()
        return False
    stop, ticket = search.stop_at(until)

    def better(paths) -> int:
        if paths:
            # the paths' routes (each path and its parts) combined by themselves: a run the program
            # finds is met at once, however many routes the pools hold
            found: dict[str, list] = {}
            for name, (_, chains) in zip(program.trains, paths):
                if chains:
                    routes = search.pools.walk(name, np.zeros(problem.words, dtype=np.uint64), until,
                                               only_chains(adj, chains))
                    found.setdefault(name, []).append(routes)
            run = search.pools.best(max(until, time.perf_counter() + 0.05), found)
            if run is not None and (search.incumbent is None or run[0] > search.incumbent[0]):
                search._better(run)
        return search.incumbent[0] if search.incumbent is not None else 0

    try:
        program.solve(stop, until, better, first_until)
    finally:
        from .solve import WATCHDOG

        WATCHDOG.release(ticket, search.cancel)
        # (the solver's memory now, not when the garbage collector meets its reference cycle: the walks
        # after it have the memory cap to themselves)
        program.h.clear()
    if program.bound is not None:
        search.path_bound = program.bound
    return search.incumbent is not None and search.path_bound is not None and \
        search.incumbent[0] >= search.path_bound
