"""An integer program over the track's path structure: a bound on every run of a large board, and runs
that meet it. What the two formulations (revenue.optimizer.formulations) share: the solver, the node rows,
and the rounds that solve it (Program.solve) or a neighbourhood of a run (Program.reoptimise).

The node-by-node relaxations of revenue.optimizer.relax let every long train pass nearly every node; on
dense boards the trains' routes are millions, yet the chains are few enough for an integer program. Per
train t: its track columns (the chains, or the track's tile paths), z[t, v] (it visits node v), e[t, v]
(it ends there), u[t] (the train runs). A route is a path: at each node its track columns number 2 z - e;
two ends when it runs; it visits a token city; where no route may pass (relax.passable) it may only end;
a train with a stop limit visits that many nodes at most. Routes share no track key. The objective is
each visited node's worth (relax.worth_and_stops) plus the route bonuses a running train may earn.
Every legal run is a solution, so the program's optimum, or the dual bound of a search cut short, bounds
every run.

Paths with cycles apart from them also satisfy the degree rows; each cycle found in a solution adds a
cut and the program is solved again, for runs beating the best known only, until the best solution is a
set of paths, no run beats the best known, or the time is up. Trains of one type are taken in order of
their worth. A round cut short also leaves the program's linear relaxation, solved in the time left, as
a bound.
"""
from __future__ import annotations

import math
import os
import threading
import time
from typing import Callable

import numpy as np

from ..problem import Problem
from .relax import passable, worth_and_stops

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
    h.disableCallbacks()    # (highspy's own callback, with the solver as its data: Program sets its own)
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.5)      # scores are integers
    return h


class Program:
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
        self._held: list[list] = []     # what each callback of _listen holds (let go by close)

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
        worth, stops, bonus = worth_and_stops(problem, problem.specs[name], self.allowed, (1, 0))
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
        # cut short, maybe before its root relaxation was solved (no bound, or the weak one of a
        # relaxation half solved): that relaxation alone, in the time left, bounds the runs too
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
        # HiGHS keeps the callback from C++ (past its run, even once replaced), where no collection sees
        # the cycle it would close through the program, `better` and the search's routes: close() lets go.
        held = [self, better]
        self._held.append(held)

        def interrupt(kind, message, data_out, data_in, user):
            if not held:
                return
            program, better_ = held
            if kind == improving and state["error"] is None:
                # Each better solution's paths are priced at once (not only the round's last): a round cut
                # short by the deadline has found runs on the way, and a later solution may hold cycles
                # an earlier one did not. (An error stops the round and is raised after it, in this
                # thread, not inside HiGHS.)
                try:
                    _, paths = program._read(np.asarray(data_out.mip_solution))
                    state["known"] = max(state["known"], better_(paths))
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

    def close(self) -> None:
        """The program is done: the callbacks of _listen let go of what they hold, the solver's memory
        freed."""
        self.h.setCallback(None, None)
        for held in self._held:
            held.clear()
        self._held = []
        self.h.clear()

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
        # (HiGHS times a linear program's run from the solver's first run on: the limit is the time used
        # so far plus the time left)
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

