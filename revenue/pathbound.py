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
only), which prices them by every rule: when their run reaches the bound, it is proved. A round cut
short also leaves the program's linear relaxation, solved in the time left, as a bound.

Where plain track branches, the chains between two nodes are many; past TRACK_FROM_NONZEROS the same
program is written over the track's tile paths instead of the chains (TrackProgram; new_program chooses).

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

from .core.track import END_EDGE, END_NODE, TERM_INNER
from .problem import Problem
from .relax import _worth_and_stops, passable

# HiGHS's presolve, which no time limit interrupts, took 16 s on the 100-hex D D 8 stress board's program
# (440,000 nonzeros: 2,560 chains, each key row holding hundreds); without it the root bound came in 3 s
PRESOLVE_MOST_NONZEROS = 100_000

# Beyond this many nonzeros the program over the chains gives way to the one over the track (TrackProgram):
# on the 100-hex D D 8 stress board (seed 1) the chains' (440,000) did not finish one round in 10 s, the
# track's (6,700) found its optimum, 2140, in 4-7 s (busy machine). Where chains are few, the program over
# them is the faster (the 49-hex D D 8 board: 2.3 s against 53 s), its bound without cuts the tighter.
TRACK_FROM_NONZEROS = 100_000

# The solver's memory per nonzero of the program, for the memory cap (memory_mb): 105 MB for the 440,000 of
# the 100-hex D D 8 stress board's program solved for 8 s (the 144-hex one's 37,000 took 53 MB: a long
# search grows its tree, so this is a guide, measured by the stress benchmark's peak memory)
BYTES_PER_NONZERO = 250

# A walk of a solution's chains takes at most this (they are few: it ends by itself within milliseconds)
SOLUTION_WALK_SECONDS = 0.3

# The route-local moves (revenue.heuristic.detour_moves) from a run take at most this long (they settle in
# 1-70 ms on the 81- to 144-hex stress boards)
DETOUR_SECONDS = 0.2

# Of the program's time left when its rounds end unproved, this share goes to the iterated moves
# (revenue.heuristic.perturbed_moves) before the neighbourhoods: on the 144-hex D D 8 stress boards they
# reach in 3 s what the neighbourhoods reach in 10 (the rounds' solutions hold loops there)
PERTURBED_SHARE = 0.25

# A neighbourhood of the best run (neighbourhoods) is re-optimised for at most this long
NEIGHBOURHOOD_SECONDS = 1.0
SEEDS = 4       # the program's last solutions whose runs the neighbourhoods start from

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


class _Program:
    """What both formulations share: the solver, per train its running, visit and end columns with the
    node rows, trains of a type in order, and solve() (each formulation adds its track columns, its
    track rows, _cut and _read)."""

    def __init__(self, problem: Problem, allowed: np.ndarray):
        import highspy

        self.problem = problem
        self.inf = highspy.kHighsInf
        self.integer = highspy.HighsVarType.kInteger
        self.trains = [t.name for t in problem.company.trains]
        self.nodes = [int(v) for v in np.nonzero(allowed)[0]]
        self.position = {v: i for i, v in enumerate(self.nodes)}
        self.through = passable(problem, allowed)
        self.allowed = allowed
        self.h = _highs()
        self.z, self.e, self.u = [], [], []
        self.cols = 0
        self.bound: int | None = None

    def _columns(self, costs, upper=None) -> np.ndarray:
        """New integer columns from 0 to `upper` (default 1) with these costs; their indexes."""
        k = len(costs)
        self.h.addVars(k, np.zeros(k), np.ones(k) if upper is None else np.asarray(upper, dtype=np.float64))
        index = np.arange(self.cols, self.cols + k, dtype=np.int32)
        self.h.changeColsCost(k, index, np.asarray(costs, dtype=np.float64))
        self.h.changeColsIntegrality(k, index, np.array([self.integer] * k))
        self.cols += k
        return index

    def _node_rows(self, name: str, incident: list[list[int]]) -> None:
        """The next train's columns u, z, e and rows: at each node its track columns (`incident`, per
        node) number 2 z - e; two ends when it runs; a token city; only ends where no route passes; the
        stop limit."""
        problem, nodes = self.problem, self.nodes
        worth, stops, bonus = _worth_and_stops(problem, problem.specs[name], self.allowed, (1, 0))
        # (maximised as the minimum of minus the score)
        u = int(self._columns([-bonus])[0])
        z = self._columns([-float(worth[v]) for v in nodes])
        e = self._columns([0.0] * len(nodes))
        self.u.append(u)
        self.z.append(z)
        self.e.append(e)
        for i, v in enumerate(nodes):
            self._row(incident[i] + [z[i], e[i]], [1.0] * len(incident[i]) + [-2.0, 1.0], 0.0, 0.0)
            self._row([e[i], z[i]], [1.0, -1.0], -self.inf, 0.0)
            self._row([z[i], u], [1.0, -1.0], -self.inf, 0.0)
            if not self.through[v]:
                self._row([z[i], e[i]], [1.0, -1.0], -self.inf, 0.0)
        self._row(list(e) + [u], [1.0] * len(nodes) + [-2.0], 0.0, 0.0)
        tokens = [int(z[i]) for i, v in enumerate(nodes) if problem.token[v]]
        self._row(tokens + [u], [1.0] * len(tokens) + [-1.0], 0.0, self.inf)
        if stops[0] < len(nodes):
            self._row(list(z), [1.0] * len(nodes), -self.inf, float(stops[0]))

    def _symmetry_rows(self) -> None:
        """Trains of one type are interchangeable: the earlier copy earns at least as much."""
        costs = self.h.getLp().col_cost_
        self.symmetry = []
        for t in range(1, len(self.trains)):
            if self.trains[t] == self.trains[t - 1]:
                self.symmetry.append((self.h.getNumRow(), t))
                index = list(self.z[t - 1]) + [self.u[t - 1]] + list(self.z[t]) + [self.u[t]]
                coef = [-costs[i] for i in index[:len(index) // 2]] + [costs[i] for i in index[len(index) // 2:]]
                self._row([int(i) for i in index], coef, 0.0, self.inf)

    def _row(self, index, coef, lo: float, hi: float) -> None:
        self.h.addRow(lo, hi, len(index), np.asarray(index, dtype=np.int32), np.asarray(coef, dtype=np.float64))

    def _cut(self, cycle) -> None:
        raise NotImplementedError

    def _read(self, values: np.ndarray) -> tuple[list, list[tuple[list[int], list[int]]]]:
        raise NotImplementedError

    def solve(self, stop: np.ndarray, until: float, better: Callable[[list | None], int],
              first_until: float | None = None, cut_short: Callable[[], None] | None = None) -> None:
        """Solve for runs that beat the best known, cut the cycles of the best solution and solve again,
        until its trains' chains form paths, no run beats the best known, `until` (perf_counter) passes
        or `stop` is set. `better(paths)` hands a solution's paths (per train: nodes, chains) to the
        caller, who prices them and answers the best run's score known (better(None): without new
        paths). Sets bound: no run scores more (each round's program is a relaxation of the runs that
        beat the best known, so its dual bound, or the best known when it has no solution, bounds
        every run). The rounds end by `first_until` (default `until`): a program too large to solve in
        that time leaves the rest to other means. Rounds that end without a run of paths proved call
        `cut_short()` (the program is the caller's until it returns; before the linear relaxation of a
        round cut short gets what is left of `until`)."""
        import highspy

        h = self.h
        status_of = highspy.HighsModelStatus
        limit = [until if first_until is None else min(first_until, until)]
        state = self._listen(stop, limit, better)
        # the objective as a row: only runs beating the best known (the cutoff, raised as runs are found)
        lp = h.getLp()
        costs = np.asarray(lp.col_cost_, dtype=np.float64)
        used = np.nonzero(costs)[0].astype(np.int32)
        self._row(used, costs[used], -self.inf, self.inf)
        cutoff_row = self.cutoff_row = h.getNumRow() - 1
        known = better(None)
        while not stop[0] and time.perf_counter() < limit[0]:
            h.changeRowBounds(cutoff_row, -self.inf, -(known + 1) + 0.5)
            h.setOptionValue("time_limit", max(limit[0] - time.perf_counter(), 0.001))
            state["known"], state["proved"] = known, False
            h.run()
            if state["error"] is not None:
                raise state["error"]
            known = max(known, state["known"])
            status = h.getModelStatus()
            info = h.getInfo()
            if status == status_of.kInfeasible:      # no run beats the best known
                self._tighten(known)
                return
            if state["proved"]:     # stopped: the run priced on the way reaches the round's dual bound
                self._tighten(max(known, math.floor(-info.mip_dual_bound + 1e-3)))
                return
            if math.isfinite(info.mip_dual_bound):
                # (the minimum of minus the score: its negation bounds the runs that beat the best known;
                # a thousandth of slack for rounding, as every score is an integer)
                self._tighten(max(known, math.floor(-info.mip_dual_bound + 1e-3)))
            if info.primal_solution_status != 2:     # no solution kept (cut short)
                cycles = None
            else:
                cycles, paths = self._read(np.asarray(h.getSolution().col_value))
                known = max(known, better(paths))
            if status != status_of.kOptimal or cycles is None:
                break
            if not cycles:      # the optimum is a run of paths: nothing scores more
                self._tighten(max(known, math.floor(-info.objective_function_value + 1e-3)))
                return
            for nodes in cycles:
                self._cut(nodes)
        else:
            # out of time after a round solved to the end: its optimum bounds the runs (tightened above)
            if cut_short is not None and not stop[0] and limit[0] < until:
                cut_short()
            return
        if cut_short is not None and not stop[0]:
            cut_short()
            known = max(known, better(None))
        # cut short, maybe before its root relaxation was solved (the 144-hex stress boards on a busy
        # machine: no bound, or the weak one of a relaxation half solved): that relaxation alone, in the
        # time left, bounds the runs too
        limit[0] = until
        self._relaxation_bound(known, limit)

    def _listen(self, stop: np.ndarray, limit: list[float], better: Callable[[list | None], int],
                stop_when_proved: bool = True) -> dict:
        """Hand HiGHS the callback of a round: each improving solution's paths to `better`; the run
        interrupted when `stop` is set, limit[0] (perf_counter) passes, a run priced reaches the round's
        dual bound (state["proved"], with `stop_when_proved`) or pricing raised (state["error"])."""
        import highspy

        improving = highspy.cb.HighsCallbackType.kCallbackMipImprovingSolution
        mip_interrupt = highspy.cb.HighsCallbackType.kCallbackMipInterrupt
        state = {"known": 0, "proved": False, "error": None}

        def interrupt(kind, message, data_out, data_in, user):
            if kind == improving and state["error"] is None:
                # Each better solution's paths are priced at once (not only the round's last): a round cut
                # short by the deadline has found runs on the way, and a later solution may hold cycles
                # an earlier one did not. (An error stops the round and is raised after it, in this
                # thread, not inside HiGHS.)
                try:
                    _, paths = self._read(np.asarray(data_out.mip_solution))
                    state["known"] = max(state["known"], better(paths))
                except BaseException as exc:
                    state["error"] = exc
            elif kind == mip_interrupt and stop_when_proved and math.isfinite(data_out.mip_dual_bound):
                # a run priced on the way reaches the round's bound: nothing beats it, the round may stop
                state["proved"] |= state["known"] >= math.floor(-data_out.mip_dual_bound + 1e-3)
            # (set either way: the flag outlives the run it stopped, and would stop the next one at once)
            data_in.user_interrupt = bool(stop[0]) or time.perf_counter() >= limit[0] or state["proved"] or \
                state["error"] is not None

        self.h.setCallback(interrupt, None)
        for kind in ("kCallbackMipInterrupt", "kCallbackSimplexInterrupt", "kCallbackIpmInterrupt",
                     "kCallbackMipImprovingSolution"):
            self.h.startCallback(getattr(highspy.cb.HighsCallbackType, kind))
        return state

    def reoptimise(self, free: list[int], taken: np.ndarray, floor: int, stop: np.ndarray, until: float,
                   better: Callable[[list | None], int]) -> tuple[bool, int | None]:
        """A neighbourhood of a run (after solve(), which adds the objective row): the best routes of the
        trains `free` (indexes) while the other trains keep their routes, whose track keys are `taken`,
        scoring more than `floor` between them; rounds of cycle cuts as in solve(), until `until` or
        `stop`. The others do not run in the program and the free ones take no track sharing a key with
        `taken`; `better(paths)` prices each solution (per train its paths, none for the others). Nothing
        here bounds the whole program. Whether the free trains' best was found (or none beats `floor`),
        and what that best earns in the program (None: none found). The program is left as it was, its
        cuts added."""
        import highspy

        h = self.h
        status_of = highspy.HighsModelStatus
        lp = h.getLp()
        upper0 = np.asarray(lp.col_upper_, dtype=np.float64).copy()
        upper = upper0.copy()
        for t in range(len(self.trains)):
            if t not in free:
                upper[np.concatenate([self.track[t], self.z[t], self.e[t], [self.u[t]]])] = 0.0
        clash = self._clashing(taken)
        for t in free:
            upper[self.track[t][clash]] = 0.0
        changed = np.nonzero(upper != upper0)[0].astype(np.int32)
        lower = np.asarray(lp.col_lower_, dtype=np.float64)[changed]
        # (the order of two trains of a type does not hold while one of them keeps its route)
        rows = [r for r, t in self.symmetry if t not in free or t - 1 not in free]
        for r in rows:
            h.changeRowBounds(r, -self.inf, self.inf)
        cutoff = (lp.row_lower_[self.cutoff_row], lp.row_upper_[self.cutoff_row])
        h.changeRowBounds(self.cutoff_row, -self.inf, -(floor + 1) + 0.5)
        h.changeColsBounds(len(changed), changed, lower, upper[changed])
        limit = [until]
        try:
            while not stop[0] and time.perf_counter() < until:
                h.setOptionValue("time_limit", h.getRunTime() + max(until - time.perf_counter(), 0.001))
                # (`better` answers the whole run's score, which the free trains' dual bound does not
                # bound: the round is not stopped by it)
                state = self._listen(stop, limit, better, stop_when_proved=False)
                h.run()
                if state["error"] is not None:
                    raise state["error"]
                status = h.getModelStatus()
                if status == status_of.kInfeasible:
                    return True, None
                if h.getInfo().primal_solution_status != 2:
                    return False, None
                cycles, paths = self._read(np.asarray(h.getSolution().col_value))
                better(paths)
                if status != status_of.kOptimal:
                    return False, None
                if not cycles:
                    return True, int(round(-h.getInfo().objective_function_value))
                for nodes in cycles:
                    self._cut(nodes)
            return False, None
        finally:
            h.changeColsBounds(len(changed), changed, lower, upper0[changed])
            for r in rows:
                h.changeRowBounds(r, 0.0, self.inf)
            h.changeRowBounds(self.cutoff_row, *cutoff)

    def _clashing(self, taken: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _relaxation_bound(self, known: int, interrupt_at: list[float]) -> None:
        """Solve the program's linear relaxation (integrality dropped) until interrupt_at[0] (the interrupt
        callback's time): its optimum bounds the runs that beat `known`; no solution, none does."""
        import highspy

        h = self.h
        h.setOptionValue("solve_relaxation", True)
        # (HiGHS holds a linear program's run to its time limit from the solver's first run on: the
        # relaxation after a round of 3 s with 3 s left stopped at once)
        h.setOptionValue("time_limit", h.getRunTime() + max(interrupt_at[0] - time.perf_counter(), 0.001))
        try:
            h.run()
        finally:
            h.setOptionValue("solve_relaxation", False)
        status = h.getModelStatus()
        if status == highspy.HighsModelStatus.kInfeasible:
            self._tighten(known)
        elif status == highspy.HighsModelStatus.kOptimal:
            self._tighten(max(known, math.floor(-h.getInfo().objective_function_value + 1e-3)))

    def _tighten(self, bound: int) -> None:
        self.bound = bound if self.bound is None else min(self.bound, bound)


class PathProgram(_Program):
    """The program over the chains (see the module's docstring); solve() refines it."""

    def __init__(self, problem: Problem, allowed: np.ndarray, adj):
        super().__init__(problem, allowed)
        self.adj = adj
        self.ends = ends = usable_chains(problem, allowed, adj)
        self.chains = undominated(problem.chain_keys, ends)
        self.x = self.track = []
        for name in self.trains:
            x = self._columns([0.0] * len(self.chains))
            self.x.append(x)
            incident: list[list[int]] = [[] for _ in self.nodes]
            for i, c in enumerate(self.chains):
                a, b = ends[c]
                incident[self.position[a]].append(int(x[i]))
                incident[self.position[b]].append(int(x[i]))
            self._node_rows(name, incident)
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
        for c in self.chains:
            a, b = ends[c]
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
        self._symmetry_rows()
        if self.h.getNumNz() > PRESOLVE_MOST_NONZEROS:
            self.h.setOptionValue("presolve", "off")

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

    def _clashing(self, taken: np.ndarray) -> np.ndarray:
        """Per chain column: whether the chain shares a track key with `taken`."""
        keys = self.problem.chain_keys[self.chains] if self.chains else np.zeros((0, self.problem.words), np.uint64)
        return (keys & taken).any(axis=1)

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


class TrackProgram(_Program):
    """The program over the track itself: per train a column for each tile path (y) of the chains, and
    for each junction its passes (w), instead of a column per chain. Where plain track branches, the
    chains between two nodes are many (the 100-hex stress boards: 2,560 undominated chains over 184
    track keys, 440,000 nonzeros), the paths few. A route takes the paths of its chains: at a hex side
    as many of one hex's paths as of the other's, at a junction an even number, at a node 2 z - e; a
    side (or a path without one) is taken once among all trains. Every legal run is a solution, so the
    bound stands; a solution may join paths that no chain joins (gauges, terminal paths), so its routes
    are the chains made of a train's paths, walked by the route kernel.

    A solution's train may also take closed loops apart from its route; a loop through a node is cut
    (_cut), and the program solved again."""

    def __init__(self, problem: Problem, allowed: np.ndarray, adj):
        super().__init__(problem, allowed)
        graph = problem.graph
        self.adj = adj
        usable = usable_chains(problem, allowed, adj)
        kept = undominated(problem.chain_keys, usable)
        chain_start, chain_paths = graph.chain_start, graph.chain_paths
        self.paths = paths = np.unique(np.concatenate(
            [chain_paths[chain_start[c]:chain_start[c + 1]] for c in kept] or [np.zeros(0, np.int64)]))
        column = {int(p): i for i, p in enumerate(paths)}
        # the track's points: the nodes first (their positions), then hex sides and junctions
        point: dict[tuple, int] = {("node", v): i for i, v in enumerate(self.nodes)}
        kind0, val0, kind1, val1 = graph.ends
        side, path_hex = graph.sides.side, graph.path_hex
        sides: dict[int, dict[int, list[int]]] = {}       # side point -> hex -> its paths there
        junctions: dict[int, list[int]] = {}
        edgeless = []
        self.path_ends = []
        for i, p in enumerate(paths.tolist()):
            h = int(path_hex[p])
            pair = []
            for kind, val in ((int(kind0[p]), int(val0[p])), (int(kind1[p]), int(val1[p]))):
                if kind == END_NODE:
                    pair.append(point[("node", val)])
                elif kind == END_EDGE:
                    q = point.setdefault(("side", int(side[6 * h + val])), len(point))
                    sides.setdefault(q, {}).setdefault(h, []).append(i)
                    pair.append(q)
                else:
                    q = point.setdefault(("junction", h, val), len(point))
                    junctions.setdefault(q, []).append(i)
                    pair.append(q)
            if kind0[p] != END_EDGE and kind1[p] != END_EDGE:
                edgeless.append(i)
            self.path_ends.append(tuple(pair))
        self.y = self.track = []
        for name in self.trains:
            y = self._columns([0.0] * len(paths))
            self.y.append(y)
            incident: list[list[int]] = [[] for _ in self.nodes]
            for i, (a, b) in enumerate(self.path_ends):
                for q in (a, b):
                    if q < len(self.nodes):
                        incident[q].append(int(y[i]))
            self._node_rows(name, incident)
            for by_hex in sides.values():
                if len(by_hex) != 2:       # (a side with one hex's paths: no chain crosses it)
                    for members in by_hex.values():
                        for i in members:
                            self.h.changeColBounds(int(y[i]), 0.0, 0.0)
                    continue
                first, second = by_hex.values()
                self._row([int(y[i]) for i in first + second], [1.0] * len(first) + [-1.0] * len(second), 0.0, 0.0)
            for members in junctions.values():
                w = int(self._columns([0.0], [len(members) // 2])[0])
                self._row([int(y[i]) for i in members] + [w], [1.0] * len(members) + [-2.0], 0.0, 0.0)
        trains = range(len(self.trains))
        for by_hex in sides.values():
            members = next(iter(by_hex.values()))
            index = [int(self.y[t][i]) for t in trains for i in members]
            if len(index) > 1:
                self._row(index, [1.0] * len(index), -self.inf, 1.0)
        if len(self.trains) > 1:
            for i in edgeless:
                self._row([int(self.y[t][i]) for t in trains], [1.0] * len(self.trains), -self.inf, 1.0)
        self._symmetry_rows()
        # which chains (usable ones) are made of which program paths, to read a solution's routes
        chains = np.array(sorted(usable), dtype=np.int64)
        lengths = chain_start[chains + 1] - chain_start[chains]
        entries = np.concatenate([chain_paths[chain_start[c]:chain_start[c + 1]] for c in chains.tolist()]
                                 or [np.zeros(0, np.int64)])
        lookup = np.full(len(path_hex), -1, dtype=np.int64)
        lookup[paths] = np.arange(len(paths))
        self.chain_list, self.entry_chain, self.entry_column = chains, np.repeat(np.arange(len(chains)), lengths), \
            lookup[entries]

    def _cut(self, cycle: set[int]) -> None:
        """For every train and node v among the points `cycle`: the train's paths leaving the points and
        its ends among them number at least 2 z_v (a route through v with no end there enters and leaves
        the set, with one end there it leaves it)."""
        leaving = [i for i, (a, b) in enumerate(self.path_ends) if (a in cycle) != (b in cycle)]
        places = [q for q in cycle if q < len(self.nodes)]
        for t in range(len(self.trains)):
            base = [int(self.y[t][i]) for i in leaving] + [int(self.e[t][q]) for q in places]
            coef = [1.0] * (len(leaving) + len(places))
            for q in places:
                self._row(base + [int(self.z[t][q])], coef + [-2.0], 0.0, self.inf)

    def _clashing(self, taken: np.ndarray) -> np.ndarray:
        """Per path column: whether every chain made with the path shares a track key with `taken` (a
        path some other chain takes stays free)."""
        clash = (self.problem.chain_keys[self.chain_list] & taken).any(axis=1)
        free = (self.entry_column >= 0) & ~clash[self.entry_chain]
        return np.bincount(self.entry_column[free], minlength=len(self.paths)) == 0

    def _read(self, values: np.ndarray) -> tuple[list[set[int]], list[tuple[list[int], list[int]]]]:
        """The point sets of the solution's loops through a node apart from its routes, and per train
        the chains made of its paths (no node order: better() walks them)."""
        cycles, paths = [], []
        for t in range(len(self.trains)):
            used = values[self.y[t]] > 0.5
            at: dict[int, list[int]] = {}
            for i in np.nonzero(used)[0].tolist():
                a, b = self.path_ends[i]
                at.setdefault(a, []).append(b)
                at.setdefault(b, []).append(a)
            ends = {q for q in range(len(self.nodes)) if values[self.e[t][q]] > 0.5}
            seen: set[int] = set()
            for q in at:
                if q in seen:
                    continue
                part, todo = {q}, [q]
                while todo:
                    for r in at[todo.pop()]:
                        if r not in part:
                            part.add(r)
                            todo.append(r)
                seen |= part
                if not part & ends and any(r < len(self.nodes) for r in part):
                    cycles.append(part)
            missing = np.bincount(self.entry_chain, weights=(self.entry_column < 0) | ~used[self.entry_column],
                                  minlength=len(self.chain_list))
            chains = self.chain_list[missing == 0].tolist()
            paths.append(([], chains))
        return cycles, paths


def usable_chains(problem: Problem, allowed: np.ndarray, adj) -> dict[int, tuple[int, int]]:
    """chain -> its two nodes (the lower first), of the chains a route may take between reachable nodes
    (not those terminal inside)."""
    start, chain, other, flags = adj
    ends: dict[int, tuple[int, int]] = {}
    for v in np.nonzero(allowed)[0]:
        for e in range(start[v], start[v + 1]):
            o = int(other[e])
            if allowed[o] and o != v and not flags[e] & TERM_INNER:   # (no route takes the others)
                ends[int(chain[e])] = (min(int(v), o), max(int(v), o))
    return ends


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


def chain_nonzeros(problem: Problem, allowed: np.ndarray, adj) -> int:
    """About the nonzeros of the program over the chains: its key rows hold each undominated chain once
    per track key and train (most of them on a board of many parallel chains)."""
    kept = undominated(problem.chain_keys, usable_chains(problem, allowed, adj))
    keys = problem.chain_keys[kept]
    bits = int(np.unpackbits(keys.view(np.uint8)).sum()) if len(kept) else 0
    return bits * len(problem.company.trains)


def new_program(problem: Problem, allowed: np.ndarray, adj) -> "_Program":
    """The program over the chains, or over the track when the chains' would pass
    TRACK_FROM_NONZEROS (see TrackProgram)."""
    if chain_nonzeros(problem, allowed, adj) > TRACK_FROM_NONZEROS:
        return TrackProgram(problem, allowed, adj)
    return PathProgram(problem, allowed, adj)


def path_program(search, adj, allowed, until: float, first_until: float | None = None) -> bool:
    """Solve the program of `search`'s problem (a revenue.solve.Search on the large-board path, with the
    heuristic's pools) by `until`: its bound becomes search.path_bound; each solution's paths join the
    pools (each walked by the route kernel on its own chains, so a run obeys every rule) and their best
    run is reported when better. True when the search's run reaches the bound."""
    from .heuristic import detour_moves, perturbed_moves, polish

    problem = search.problem
    if search.pools is None or not applies(problem, allowed, search.weights):
        return False
    # The heuristic's run moved to its local optimum first (reported at once). The first round's cutoff
    # stays the run's score before the moves: the round then follows the same path as without them (a
    # higher cutoff sent HiGHS elsewhere: 100-hex D D 8 #2, which main proves at 1.3 s in 5 of 6 solves,
    # was proved in 1 of 7 solves with it, in 4 of 4 without)
    first_cutoff = [search.incumbent[0] if search.incumbent is not None else 0]
    polish(search, min(until, time.perf_counter() + DETOUR_SECONDS))
    program = new_program(problem, allowed, adj)
    if program.h.getNumNz() * BYTES_PER_NONZERO > search.memory_mb * 2**20:
        program.h.clear()
        return False
    stop, ticket = search.stop_at(until)
    seeds: list = []        # the runs walked from the program's solutions, and their routes (neighbourhoods)

    def better(paths) -> int:
        if paths:
            # the paths' routes (each path and its parts) combined by themselves: a run the program
            # finds is met at once, however many routes the pools hold
            found: dict[str, list] = {}
            for name, (_, chains) in zip(program.trains, paths):
                if chains:
                    routes = search.pools.walk(name, np.zeros(problem.words, dtype=np.uint64),
                                               min(until, time.perf_counter() + SOLUTION_WALK_SECONDS),
                                               only_chains(adj, chains))
                    found.setdefault(name, []).append(routes)
            run = search.pools.best(max(until, time.perf_counter() + 0.05), found)
            if run is not None and (search.incumbent is None or run[0] > search.incumbent[0]):
                search._better(run)
            if run is not None:
                # (a solution's loops walk into a poor run, whose routes the moves may lengthen)
                seeds.append(detour_moves(search, search.pools, run[0], list(search.pools.chosen),
                                          min(until, time.perf_counter() + DETOUR_SECONDS), search._better))
        elif first_cutoff:
            return first_cutoff.pop()
        return search.incumbent[0] if search.incumbent is not None else 0

    def repair() -> None:
        # the iterated moves first, from the best run (its seeds' runs moved to their local optima), then
        # the solutions' runs, before the relaxation takes the time left
        now = time.perf_counter()
        perturbed_moves(search, now + PERTURBED_SHARE * max(until - now, 0.0), search._better)
        neighbourhoods(program, search, adj, stop, until, seeds[-SEEDS:], start_from_best=False)

    try:
        program.solve(stop, until, better, first_until, repair)
        if not stop[0] and time.perf_counter() < until and (
                program.bound is None or search.incumbent is None or search.incumbent[0] < program.bound):
            neighbourhoods(program, search, adj, stop, until, [])
        if not stop[0] and time.perf_counter() < until and (
                program.bound is None or search.incumbent is None or search.incumbent[0] < program.bound):
            # the neighbourhoods settled: the rest of the share to the iterated moves
            perturbed_moves(search, until, search._better)
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


def neighbourhoods(program: _Program, search, adj, stop: np.ndarray, until: float, seeds: list,
                   start_from_best: bool = True) -> None:
    """Better runs by the program, one neighbourhood at a time (a large-neighbourhood search): each train
    re-optimised (_Program.reoptimise) while the others keep their routes, for at most
    NEIGHBOURHOOD_SECONDS each, until none improves the run. First from `seeds` (the runs walked from the
    program's solutions, latest first: a solution whose trains also took loops apart from their routes
    walks into a poor run, yet its other trains' routes are good), then (`start_from_best`) from the best
    run. Ends at `until`, or sooner when every train was re-optimised to the end without a better run:
    the time left goes to the heuristic's moves and the walks. (Pairs of trains re-optimised together
    were tried: on the 81-hex D D 8 boards the pair of D trains was not solved in 1 s.)"""
    singles = [[t] for t in range(len(program.trains))]
    for score, chosen in reversed(seeds):
        if stop[0] or time.perf_counter() >= until:
            return
        _descend(program, search, adj, stop, until, score, chosen, singles)
    if not start_from_best:
        return
    run = search.pools.best(until)      # (the pools' best run is the incumbent: it sets pools.chosen)
    if run is not None and not stop[0]:
        _descend(program, search, adj, stop, until, run[0], list(search.pools.chosen), singles)


def _descend(program: _Program, search, adj, stop: np.ndarray, until: float, score: int, chosen: list,
             places: list[list[int]]) -> int:
    """From the run `chosen` (per train its route as a RouteSet of one, or None) scoring `score`:
    re-optimise the trains `places` (each a list of train indexes) in turn, taking every better run,
    until each in a row was solved to the end without one, or `until`; the score of the run reached."""
    from .heuristic import detour_moves

    pools, problem = search.pools, search.problem
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
                    if search.incumbent is None or run[0] > search.incumbent[0]:
                        search._better(run)
            return score

        solved, _ = program.reoptimise(free, taken, floor, stop,
                                       min(until, time.perf_counter() + NEIGHBOURHOOD_SECONDS), better)
        if score > before:
            # the other trains' routes may take the track the free ones left
            score, chosen = detour_moves(search, pools, score, chosen, min(until, time.perf_counter() + DETOUR_SECONDS),
                                         search._better)
            settled = 0
        elif solved:
            settled += 1
    return score
