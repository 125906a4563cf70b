"""One solve's search (Search): the exact search of a board's routes, and on boards whose routes take long to
enumerate, the strategies of a large board before it (the heuristic's runs, the integer program, walks
within a memory cap) and the bound that holds at every moment.

The kernels release the GIL. A search runs in its caller's thread while the process's watchdog
(revenue.watchdog) stops it at its deadline or cancel; when improvements are to be reported, or
the kernels may still need compiling, it runs in a worker thread instead and the caller's thread watches
the deadline and reports each improvement from the shared progress array.
"""
from __future__ import annotations

import math
import threading
import time

import numpy as np

# By their full names: `from . import` would read as this module importing its package, whose __init__
# imports it. Modules, not names: tests set combination.INDEX_MIN and routeset.ROUTE_CAPACITY.
import revenue.optimizer.bounded as bounded
import revenue.optimizer.combination as combination
import revenue.optimizer.routeset as routeset

from ..compiling import deferred
from ..core.probe import (COMBINED, HEAD, SCRATCH_NODES_PER_ROUTE, STOPPED, TYPE_FIELDS, UNFINISHED, WALK_SLOTS,
                          meta_size, walk_and_combine)
from ..problem import objective_weights, split_score
from .adjacency import adjacency, reachable
from .combination import Combination, flag_lists
from .heuristic import first_run, improve_run
from .pathbound import path_program
from .pools import Incumbent, Pools
from .relax import joint_bound, shared_bounds, type_bounds
from .routeset import RouteSet, all_routes, scratch_at_once, with_pools
from .trains import (route_parents, sums_node_values, type_scalars_of, walk_arrays, walk_fields_of,
                     walks_from_ends)
from ..watchdog import POLL_SECONDS, WATCHDOG, Stops

ANSWER_RESERVE = 0.03       # time kept to build the answer once the kernels stop
STOP_GRACE_SECONDS = 0.02   # a worker past the deadline gets this long to stop before the answer is built
PROBE_STEPS = 1 << 19       # walk steps per train type within which the plain exact search runs
QUICK_PROBE_STEPS = 1 << 15  # beyond these, a caller with a deadline or a stream gets the heuristic run first
QUICK_PROBE_WITHIN_SECONDS = 1.0    # (a deadline further off leaves the whole probe time to finish first)
FIRST_RUN_SECONDS = 0.025   # else the heuristic's first run is ready by then (better runs follow)
MEMORY_MB = 256             # default storage cap of one search (bounded)
# Of the time left, for the route walks of a large board (Search._bounded_walks): combining what they stored
# takes far less
WALK_SHARE = 0.9
IMPROVE_SHARE = 0.15        # of the time left, for better heuristic runs first (Search._improve)
IMPROVE_SECONDS = 1.5       # and at most this
JOINT_BOUND_MIN_SECONDS = 0.5   # time left from which a large board's search computes relax.joint_bound
# The integer program (pathbound), after the first run of a large board: this share of the time left (at
# most PATH_SECONDS without a deadline), when at least PATH_MIN_SECONDS are left
PATH_SHARE = 0.75
# and its rounds in this share; the rest of PATH_SHARE goes to repairing its solutions' runs, which gives the
# best runs on large boards
PATH_FIRST_SHARE = 0.55
PATH_SECONDS = 30.0
PATH_MIN_SECONDS = 0.5
REPORT_WAIT_SECONDS = 0.05  # the program waits at most this for the first run to be reported
# The one-call probe (Search._at_once) is tried up to this many train types,
AT_ONCE_TYPES = WALK_SLOTS
# within this many walk steps per type (what it does not finish, the step-by-step path walks again; nearly
# every game-server board needs fewer),
AT_ONCE_STEPS = 1 << 15
# and on boards of at most this many chains per node (denser boards' walks mostly need more steps)
AT_ONCE_CHAINS_PER_NODE = 3
IO_TEMPLATES = 1024     # core.probe's io arrays kept by their header, types and limits (Search._at_once)

_compiled = threading.Event()    # set once a search has run the kernels in this process
_IO: dict[tuple, np.ndarray] = {}
_meta_size = meta_size.py_func      # (plain Python: no dispatch for two small ints)
_NO_PROGRESS: dict[int, np.ndarray] = {}


def _no_progress(trains: int) -> np.ndarray:
    """A progress array of zeros (core.combine) for a search whose combination has not started: read, never
    written (read-only), one per train count."""
    out = _NO_PROGRESS.get(trains)
    if out is None:
        out = np.zeros(4 + trains, dtype=np.int64)
        out.flags.writeable = False
        _NO_PROGRESS[trains] = out
    return out


def _padded(walks: list) -> tuple:
    """The distinct walks' arrays as core.probe.walk_and_combine takes them: always WALK_SLOTS of them (the first
    repeated), so that its one compiled signature serves every company (about 2 us a call more for the arrays
    taken in, against 10 s of compiling per count)."""
    return tuple(walks) + (walks[0],) * (WALK_SLOTS - len(walks))


class Search:
    """One solve: the exact search, and on boards whose routes take long to enumerate, a heuristic first
    run and a storage cap (bounded). Runs and bounds are kept as the kernels' scores
    (revenue.problem.objective_weights: the revenue itself unless some node pays a subsidy)."""

    def __init__(self, problem, started, deadline, on_improve, cancel, objective="revenue", memory_mb=None,
                 alike=None):
        self.problem, self.started, self.objective = problem, started, objective
        # shared with the searches of boards like this one (solver.solve): "at_once" False once the one-call
        # probe was cut short on one of them, which it then would be on the others too
        self.alike = {} if alike is None else alike
        self.weights = objective_weights(problem, objective)
        # The answer is built after the kernels stop: stop early by that much (up to a tenth of the time).
        self.until = None if deadline is None else started + deadline - min(ANSWER_RESERVE, 0.1 * deadline)
        self.on_improve, self.cancel = on_improve, cancel
        self.memory_mb = MEMORY_MB if memory_mb is None else memory_mb
        self.stops = Stops(self.until, cancel)      # every stop flag of this search: halt() sets them all
        self.stop = self.stops.flag
        self.sets: dict[str, RouteSet] = {}
        self.error: BaseException | None = None
        self.n = len(problem.company.trains)
        self.progress = _no_progress(self.n)    # (the combination's own, once it starts)
        self.complete = False
        self.combination: Combination | None = None   # set when the combination search starts
        self.incumbent = Incumbent(self.stops)      # the strategies' best run
        self.pools: Pools | None = None     # the strategies' routes (the heuristic's first run makes them)
        self.type_bound: dict[str, int] = {}
        self.shared: dict[str, int] = {}   # trains of one type together (relax.shared_bounds)
        self.joint: int | None = None       # all trains together (relax.joint_bound)
        # a run was reported (to on_improve, when there is one)
        self.reported = None if on_improve is None else threading.Event()
        self.cut = False        # the deadline's share for the walks ended some (Search._bounded_walks)

    def halt(self) -> None:
        self.stops.halt()

    def _work(self) -> None:
        try:
            p = self.problem
            adj = adjacency(p)
            # (the trains' bounds, relax.type_bounds, are computed when a walk is cut short: a search whose
            # walks all finish bounds each type by its best route, upper_bounds)
            parents = route_parents(p)
            cap = bounded.capacity(p, self.memory_mb, len(p.specs) - len(parents))     # (the types walked)
            # The plain exact search, when each type's routes are enumerated within PROBE_STEPS. A caller
            # who waits for runs (a deadline less than QUICK_PROBE_WITHIN_SECONDS off, or improvements to
            # report) gets the heuristic's run first when a short probe shows the routes are many (real game
            # states never do).
            waits = self.on_improve is not None or (
                self.until is not None and self.until - time.perf_counter() < QUICK_PROBE_WITHIN_SECONDS)
            quick = (min(QUICK_PROBE_STEPS, PROBE_STEPS) if waits else PROBE_STEPS) if PROBE_STEPS > 0 else 0
            # Most boards: the probe and the combination in one compiled call (core.probe); what it does
            # not finish is done again step by step below.
            if quick > 0 and len(p.specs) <= AT_ONCE_TYPES and not deferred(walk_and_combine) and \
                    self.alike.get("at_once", True):
                if self._at_once(parents, cap, min(quick, AT_ONCE_STEPS)):
                    if not _compiled.is_set():
                        _compiled.set()
                    return
                self.alike["at_once"] = False
            allowed = reachable(p)
            if PROBE_STEPS > 0:
                if not (quick > 0 and self._probe(adj, allowed, cap, quick)):
                    if waits:
                        self._first_run(adj, allowed)
                        if self.stop[0]:
                            return
                    if quick < PROBE_STEPS:
                        self._probe(adj, allowed, cap, PROBE_STEPS)
            incomplete = [name for name in p.specs if name not in self.sets or not self.sets[name].complete]
            if incomplete:
                if not self.type_bound:
                    self.type_bound = type_bounds(p, allowed, self.weights)
                # A deadline met before the routes are known still gets a run (a cancel does not).
                if self.incumbent.run is None and not (self.cancel is not None and self.cancel.is_set()):
                    self._first_run(adj, allowed)
                if self.stop[0]:
                    return
                # (not when every route is known: then the combination proves the board sooner)
                proved = self._path_program()
                if self.stop[0]:
                    return
                if proved:      # the pools hold a run that reaches the program's bound: no walk needed
                    self.sets = {name: RouteSet.merge(p, name, self.pools.pools.get(name, []), self.weights)
                                 for name in p.specs}
                else:
                    self._improve(allowed)
                    if self.stop[0]:
                        return
                    self._bounded_walks(adj, allowed, incomplete)
                if self.stop[0]:
                    return
            elif self.stop[0]:
                return
            self.combination = Combination(p, list(p.company.trains), self.sets)
            progress = self.combination.progress(self.incumbent.run[0] if self.incumbent.run else 0)
            self.progress = progress
            self.complete = self.combination.search(progress, self.stop)
            if not _compiled.is_set():      # (set takes the event's lock: once is enough)
                _compiled.set()
        except BaseException as exc:   # surfaced by run()
            self.error = exc

    def _at_once(self, parents: dict[str, str], cap: tuple[int, int], steps: int) -> bool:
        """_probe and the combination search in one call (core.probe.walk_and_combine), on this thread's
        scratch arrays. True when it did both (or the stop flag ended the search after the walks; with
        many routes the combination is searched here, on the key bitmaps made in Python), False when a walk
        was cut short or its routes did not fit the scratch arrays: the types walked before it are kept in
        `sets`, complete, and _probe does not walk them again."""
        p = self.problem
        n_nodes = p.graph.n_nodes
        capacity = routeset.ROUTE_CAPACITY
        first_nodes = capacity * SCRATCH_NODES_PER_ROUTE
        if cap[0] < capacity or cap[1] < first_nodes or n_nodes + 2 > first_nodes or \
                len(p.chain_keys) > AT_ONCE_CHAINS_PER_NODE * n_nodes:
            return False
        scratch, scratch_keys = scratch_at_once(p.words)
        if len(scratch_keys) != capacity:       # (a test's smaller first guess: the step-by-step path)
            return False
        specs = p.specs
        names = sorted(specs, key=parents.__contains__) if parents else list(specs)     # (as _probe)
        trains = p.company.trains
        n, k = len(trains), len(names)
        weights = self.weights
        # core.probe's io: each type's fields, each train's type, the types' limits, the progress, meta
        index = {name: i for i, name in enumerate(names)} if k > 1 else None
        run = p.run
        head = [steps, 0, n, combination.INDEX_MIN, run.connected, k, 0, 0, *flag_lists(run)]
        types = head            # (the header, then each type's fields: one list)
        limits: list = []
        walks: list = []
        walk_of: dict = {}
        limits_at = HEAD + TYPE_FIELDS * k + n
        bypass = 0
        plain = weights == (1, 0)
        for name in names:
            spec = specs[name]
            # (types copied from one spec for other limits walk alike: the first one's arrays, scalars and
            # walks_from_ends, as kernel_arguments gives them)
            first = walk_of.get(spec.walk)
            if first is None:
                scalars = type_scalars_of(spec)
                if not plain:       # (merge_penalty as revenue.problem.kernel_values scores it)
                    scalars = (scalars[0], scalars[1] * weights[0]) + scalars[2:]
                # (walks_from_ends and walk_arrays called only where they have something to decide)
                first = walk_of[spec.walk] = (len(walks), scalars, spec.need_ends > 0 and walks_from_ends(p, spec))
                walks.append(walk_fields_of(spec) if plain else walk_arrays(spec, weights))
            rows = len(spec.row_visit)
            types += (first[0], index[parents[name]] if name in parents else -1, sums_node_values(spec), first[2],
                      *first[1], rows, limits_at)
            limits += spec.limits       # (row_visit, then row_pay)
            limits_at += 2 * rows
            if spec.bypass > bypass:
                bypass = spec.bypass
        progress_at = limits_at
        meta_at = progress_at + 4 + n
        head[1], head[6], head[7] = bypass, progress_at, meta_at
        if k == 1:
            types += [0] * n
        else:
            types += [index[train.name] for train in trains]
        types += limits
        # (one board's io is mostly another's: the array is made once per content and copied; the kernel
        # writes the progress and meta parts, the copy's own)
        key = tuple(types)
        template = _IO.get(key)
        if template is None:
            if len(_IO) >= IO_TEMPLATES:
                _IO.clear()
            template = _IO[key] = np.array(types + [0, 0, 0, 0] + [-1] * n + [0] * _meta_size(k, n), dtype=np.int64)
        io = template.copy()
        out, keys, node_sets = walk_and_combine(
            *adjacency(p), p.chain_keys, p.cost, p.token, p.blocks, p.bypassable, *p.graph.hex_walks, _padded(walks),
            io, self.stop, scratch, scratch_keys)
        meta = io[meta_at:]
        listed = meta.tolist()
        status = listed[0]
        used = listed[2]
        group_start = listed[3 + 2 * k:4 + 3 * k]
        routes = group_start[k]
        # out: the routes' nodes and chains, then their scores, flags, begins and ends
        nodes, chains = out[:used], out[used:2 * used]
        rev_at = 2 * used
        flags_at, begin_at, end_at = rev_at + routes, rev_at + 2 * routes, rev_at + 3 * routes
        rev, flags = out[rev_at:flags_at], out[flags_at:begin_at]
        sets = self.sets
        if k == 1 and status < UNFINISHED:      # (one type, one group: its routes are all of them)
            sets[names[0]] = RouteSet.presorted(p, names[0], rev, keys, flags, out[begin_at:end_at],
                                                out[end_at:end_at + routes], nodes, chains, weights)
        else:
            for i, (name, g) in enumerate(zip(names, listed[3 + k:3 + 2 * k])):
                if status >= UNFINISHED and (i >= listed[1] or name in parents):
                    continue    # (unfinished: only the types walked before the one cut short are kept, for _probe)
                lo, hi = group_start[g], group_start[g + 1]
                sets[name] = RouteSet.presorted(p, name, rev[lo:hi], keys, flags, out[begin_at + lo:begin_at + hi],
                                                out[end_at + lo:end_at + hi], nodes, chains, weights, (lo, hi))
        if status >= UNFINISHED:
            return False
        if status == STOPPED:
            return True
        self.combination = Combination.searched(p, trains, sets, rev, flags, keys, node_sets, meta, k, listed)
        self.progress = progress = io[progress_at:meta_at]
        if status == COMBINED:
            self.complete = bool(listed[1])
        else:       # (WALKED: many routes, searched with the key bitmaps made here)
            self.complete = self.combination.search(progress, self.stop)
        return True

    def _probe(self, adj, allowed, cap, steps: int) -> bool:
        """Enumerate each train type's routes within `steps` walk steps (types found among another's
        routes are refitted from them, trains.route_parents); True when every type's are all
        known."""
        p = self.problem
        parents = route_parents(p)
        for name in sorted(p.specs, key=parents.__contains__) if parents else p.specs:   # walked types first
            if name in parents:
                if self.sets[parents[name]].complete:
                    self.sets[name] = self.sets[parents[name]].refit(name)
            elif not (name in self.sets and self.sets[name].complete):   # (else walked by _at_once or a probe)
                self.sets[name] = all_routes(p, name, adj, allowed, self.stop, self.weights, capacity=cap,
                                             steps=steps)
                if not self.sets[name].complete:
                    return False
        return True

    def _first_run(self, adj, allowed) -> None:
        """The heuristic run (heuristic.first_run) in new pools, ready FIRST_RUN_SECONDS after the call
        started."""
        # (the large-board path only: bounds that real game states never need, at a few times the cost)
        self.type_bound = type_bounds(self.problem, allowed, self.weights, ends_apart=True)
        self.shared = shared_bounds(self.problem, allowed, self.weights)
        self.pools = Pools(self.problem, self.weights, self.stops, adj, allowed)
        found = first_run(self.pools, self.type_bound,
                          max(self.started + FIRST_RUN_SECONDS, time.perf_counter() + 0.01))
        if found is not None:
            self.incumbent.report(found)

    def _path_program(self) -> bool:
        """The integer program's bound (the incumbent's from then on) and run (pathbound.path_program) in
        PATH_SHARE of the time left; True when the run found reaches the bound."""
        if self.reported is not None:
            # (the program's model is built in Python: the caller's thread reports the first run before)
            self.reported.wait(REPORT_WAIT_SECONDS)
        now = time.perf_counter()
        if PATH_SHARE <= 0 or self.until is not None and self.until - now < PATH_MIN_SECONDS or self.pools is None:
            return False
        if self.until is None:
            bound = path_program(self.pools, self.incumbent, self.memory_mb, now + PATH_SECONDS)
        else:
            left = self.until - now
            bound = path_program(self.pools, self.incumbent, self.memory_mb, now + PATH_SHARE * left,
                                 now + PATH_FIRST_SHARE * left)
        if bound is not None:
            self.incumbent.bound = bound
        run, bound = self.incumbent.run, self.incumbent.bound
        return run is not None and bound is not None and run[0] >= bound

    def _improve(self, allowed) -> None:
        """Better heuristic runs (heuristic.improve_run) for IMPROVE_SHARE of the time left, at most
        IMPROVE_SECONDS, before the exact search of a large board."""
        # (after the first run, and not under a short deadline: this bound's knapsack is not stopped by
        # any flag)
        if self.until is None or self.until - time.perf_counter() > JOINT_BOUND_MIN_SECONDS:
            self.joint = joint_bound(self.problem, allowed, self.weights)
        now = time.perf_counter()
        left = IMPROVE_SECONDS if self.until is None else IMPROVE_SHARE * max(self.until - now, 0.0)
        if self.pools is not None:
            improve_run(self.pools, self.incumbent, self.type_bound, now + min(left, IMPROVE_SECONDS))

    def _bounded_walks(self, adj, allowed, incomplete: list[str]) -> None:
        """Too many routes to enumerate at once: after the heuristic run (_first_run), the routes of
        each train type that could be part of a better run, within the memory cap (each type
        walked by itself, the ones with the lowest bound first: their exact best raises the floors of
        the others). With a deadline, the walks get WALK_SHARE of it; what they stored by then is
        combined in the time left, which improves the run without proving it."""
        p = self.problem
        best = self.incumbent.run[0] if self.incumbent.run else 0
        order = bounded.walk_order(incomplete, self.type_bound)
        until = (math.inf if self.until is None else
                 time.perf_counter() + WALK_SHARE * max(self.until - time.perf_counter(), 0.0))
        stop, ticket = self.stops.at(until)
        try:
            for k, name in enumerate(order):
                if stop[0]:
                    break
                floor = bounded.floor(p, name, best, self.upper_bounds())
                kept = sum(len(self.sets[t]) for t in self.sets if t not in order[k:])
                cap = bounded.capacity(p, self.memory_mb, len(order) - k, kept)
                self.sets[name] = all_routes(p, name, adj, allowed, stop, self.weights, floor, cap)
        finally:
            self.stops.release(ticket)
        self.cut = any(name not in self.sets or not self.sets[name].complete for name in order)
        for name in order:     # a walk not started: no route stored, nothing proved
            if name not in self.sets:
                empty = np.zeros(0, dtype=np.int64)
                self.sets[name] = RouteSet(p, name, empty, np.zeros((0, p.words), np.uint64), empty, empty, empty,
                                           empty, empty, False, self.weights)
            self.sets[name] = with_pools(p, self.sets[name], self.pools, self.weights)

    def upper_bounds(self) -> dict[str, int]:
        """Per train type, a bound on any of its routes: the best met when its walk ended, else the
        relaxation (relax.type_bounds)."""
        sets = list(self.sets.items())      # (the search may be adding sets meanwhile)
        if not self.type_bound:
            if len(sets) == len(self.problem.specs) and all(r.complete and r.floor < 0 for _, r in sets):
                # Every route of every type was met: the best is the type's bound (no relaxation is
                # lower, it bounds that route too), so the relaxation is not computed.
                return {name: routes.best_seen for name, routes in sets}
            p = self.problem
            self.type_bound = type_bounds(p, reachable(p), self.weights)
        out = dict(self.type_bound)
        for name, routes in sets:
            if routes.complete:
                out[name] = min(out[name], routes.best_seen)
        return out

    def bound(self, score: int) -> int:
        """A bound on the score of every run, no lower than `score`, the best found (bounded.run_bound)."""
        if self.complete and self.combination is not None and len(self.sets) == len(self.problem.specs):
            for r in self.sets.values():
                if not r.complete or r.floor >= 0:
                    break
            else:   # (every route stored and the combination finished: its best is the bound, as run_bound finds)
                return max(score, self.progress.item(0))
        combined = None
        if self.combination is not None:
            combined = self.combination.bound(self.progress, self.complete)
        joint = min((b for b in (self.joint, self.incumbent.bound) if b is not None), default=None)
        return max(score, bounded.run_bound(self.problem, self.sets, self.upper_bounds(), combined, self.shared,
                                            joint))

    def _current(self) -> tuple[int, list[dict]]:
        """The best run so far, its routes in the order of the company's trains."""
        if self.combination is not None and self.progress[1] > 0:
            return self.combination.run(self.progress)
        return self.incumbent.run or (0, [])

    def _snapshot(self) -> tuple[int, list[dict]] | None:
        """The best run so far if the kernel is not writing it at this moment (progress[1] even)."""
        progress = self.progress
        sequence = int(progress[1])
        if sequence % 2:
            return None
        current = self._current()
        return current if int(progress[1]) == sequence else None

    def _sequence(self) -> tuple[int, int]:
        return self.incumbent.reports, int(self.progress[1])

    def _report(self, best: tuple[int, list[dict]]) -> None:
        score, routes = best
        self.on_improve({"revenue": sum(r["revenue"] for r in routes), "subsidy": sum(r["subsidy"] for r in routes),
                         "routes": routes,
                         "upper_bound": max(self.figure(None, self.bound(score)), self.figure(routes))})

    def run(self) -> dict:
        seen = (0, 0)
        timed_out = False
        best: tuple[int, list[dict]] = (0, [])
        if self.on_improve is None and (_compiled.is_set() or (self.until is None and self.cancel is None)):
            # Nothing to report on the way: search in this thread; the watchdog minds the deadline.
            ticket = WATCHDOG.watch(self.stop, self.until, self.cancel) if self.until or self.cancel else None
            try:
                self._work()
            finally:
                if ticket is not None:
                    WATCHDOG.release(ticket, self.cancel)
            timed_out = bool(self.stop[0]) or self.cut
            worker = None
        else:
            # A first call may still load or compile the kernels, which no flag interrupts: a worker
            # thread searches while this one keeps the deadline and reports improvements.
            worker = threading.Thread(target=self._work, name="revenue-solve", daemon=True)
            worker.start()
        while worker is not None and worker.is_alive():
            worker.join(POLL_SECONDS)
            if self.cancel is not None and self.cancel.is_set() or \
                    self.until is not None and time.perf_counter() >= self.until:
                timed_out = True
                self.halt()
                # The kernels stop within microseconds; a first call may still be loading or compiling
                # them, which cannot be interrupted: answer now and let the worker end on its own.
                worker.join(STOP_GRACE_SECONDS)
                if worker.is_alive() and (snapshot := self._snapshot()) is not None:
                    best = snapshot
                break
            sequence = self._sequence()
            if self.on_improve and sequence > seen and (snapshot := self._snapshot()) is not None:
                seen, best = sequence, snapshot
                self._report(best)
                self.reported.set()
        if self.error is not None:
            raise self.error
        finished = worker is None or not worker.is_alive()
        timed_out = timed_out or self.cut
        if finished:
            best = self._current()
        score, routes = best
        if self.on_improve and self._sequence() > seen and finished:
            self._report(best)
        bound = self.bound(score)
        # (a run that reaches the integer program's bound is proved whatever the walks left undone)
        optimal = finished and (self.complete or self.incumbent.bound is not None) and bound <= score
        revenue = subsidy = 0
        for r in routes:
            revenue += r["revenue"]
            subsidy += r["subsidy"]
        figure = revenue + subsidy if self.objective == "revenue_and_subsidy" else revenue     # (self.figure)
        stats = {"candidate_routes": sum([len(s.rev) for s in self.sets.values()]),
                 "nodes_explored": self.progress.item(2),
                 "elapsed_ms": round((time.perf_counter() - self.started) * 1000, 3),
                 "timed_out": timed_out and not optimal}
        return {"revenue": revenue, "subsidy": subsidy, "routes": routes, "optimal": optimal, "stats": stats,
                "upper_bound": figure if optimal else max(self.figure(None, bound), figure)}

    def figure(self, routes: list[dict] | None, score: int = 0) -> int:
        """The objective's figure (the revenue, or revenue plus subsidy) of a run, or the bound it has when
        no run scores more than `score` (revenue.problem.split_score)."""
        if routes is None:
            return split_score(score, self.weights, self.objective)[0]
        revenue = sum(r["revenue"] for r in routes)
        return revenue + (sum(r["subsidy"] for r in routes) if self.objective == "revenue_and_subsidy" else 0)
