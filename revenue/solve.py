"""The optimizer: the best legal assignment of routes to a company's trains, with proof.

solve() compiles the board into arrays (revenue.problem), enumerates every legal route of each train
type (revenue.core.routes) and searches the best combination by branch and bound
(revenue.core.combine). The kernels release the GIL. A search runs in its caller's thread while one
watchdog thread for the process stops it at its deadline or cancel; when improvements are to be
reported, or the kernels may still need compiling, it runs in a worker thread instead and the caller's
thread watches the deadline and reports each improvement from the shared progress array.
"""
from __future__ import annotations

import threading
import time
from collections import deque
from typing import Callable

import numpy as np

from .company import build_company
from .core.combine import FLAG_BITS, best_combination, key_index
from .core.routes import (SPEC_FIELDS, TERM_HERE, TERM_INNER, TERM_THERE, enumerate_routes, node_bitsets,
                          refit_routes)
from .errors import InputError
from .evaluate import route_result
from .graph import graph_for
from .interop import run_routes_action
from .problem import (OBJECTIVES, Problem, TrainSpec, compile_problem, hex_walks, kernel_values, objective_weights,
                      split_score)

POLL_SECONDS = 0.002
STOP_GRACE_SECONDS = 0.02


class RouteSet:
    """Every legal route of one train type, best first: score (the revenue, or with subsidies the
    objective's score, revenue.problem.objective_weights), track keys, flags, and where its nodes and
    chains lie (nodes[begin:end], chains[begin + 1:end])."""

    def __init__(self, problem: Problem, train: str, rev, keys, flags, begin, end, nodes, chains, complete: bool,
                 weights: tuple[int, int] = (1, 0)):
        order = np.argsort(-rev, kind="stable")
        self.train, self.problem, self.weights = train, problem, weights
        self.rev, self.keys, self.flags = rev[order], keys[order], flags[order]
        self.begin, self.end, self.nodes, self.chains = begin[order], end[order], nodes, chains
        self.complete = complete

    def __len__(self) -> int:
        return len(self.rev)

    def node_sets(self) -> np.ndarray:
        """uint64 [routes, words]: the nodes each route visits, in sorted order (for run rules)."""
        return node_bitsets(self.begin, self.end, self.nodes, len(self.problem.graph.nodes))

    def route(self, i: int) -> dict:
        """The result entry of the i-th best route."""
        a, b = self.begin[i], self.end[i]
        nodes = [int(v) for v in self.nodes[a:b]]
        graph = self.problem.graph
        chains = [graph.chains[int(c)] for c in self.chains[a + 1:b]]
        return route_result(self.problem, self.problem.specs[self.train], nodes, chains, weights=self.weights)

    def refit(self, train: str) -> "RouteSet":
        """The routes of `train`, a train type whose routes are among these (see route_parents)."""
        picked, rev = refit_routes(kernel_arguments(self.problem, train, self.weights)[0], self.problem.cost,
                                   self.problem.token, self.begin, self.end, self.nodes)
        return RouteSet(self.problem, train, rev, self.keys[picked], self.flags[picked], self.begin[picked],
                        self.end[picked], self.nodes, self.chains, self.complete, self.weights)


def spec_arrays(spec: TrainSpec, weights: tuple[int, int] = (1, 0)) -> tuple:
    """The train's arrays as the kernels take them (core.routes.SPEC_FIELDS), its values scored with
    `weights` (revenue.problem.kernel_values)."""
    scalars = ("need_ends", "merge_penalty", "bypass", "spill_from", "spill_to", "no_reentry", "spill_next")
    scored = kernel_values(spec, weights)
    return tuple(np.int64(scored.get(f, getattr(spec, f))) if f in scalars else scored.get(f, getattr(spec, f))
                 for f in SPEC_FIELDS)


def fast(spec: TrainSpec) -> bool:
    """A route's revenue is the plain sum of its node values (no route-level rule applies)."""
    return spec.simple and spec.need_ends == 0 and not (spec.metro >= 0).any() and len(spec.rule_amount) == 0


def from_ends(problem: Problem, spec: TrainSpec) -> bool:
    """Walk routes from their required ends rather than from the token cities: when a route must begin
    or end at one of a few nodes, few walks start there, and each needs one arm instead of two."""
    return spec.need_ends > 0 and int(spec.need.sum()) <= max(8, 2 * int(problem.token.sum()))


ROUTE_CAPACITY = 1 << 14   # first guess of the number of routes (grown to the exact need when short)


def kernel_arguments(problem: Problem, train: str, weights: tuple[int, int] = (1, 0)) -> tuple:
    """(spec arrays, fast, from_ends) of a train type, built once per problem and weights."""
    key = ("kernel arguments", train, weights)
    if key not in problem.derived:
        spec = problem.specs[train]
        problem.derived[key] = (spec_arrays(spec, weights), fast(spec), from_ends(problem, spec))
    return problem.derived[key]


LIMITS = ("row_visit", "row_pay")


def route_parents(problem: Problem) -> dict[str, str]:
    """Train types whose routes are found among another type's: the two differ only in their rows'
    visit and pay limits, the other's being no lower (1860's 6+3 and 7+4, 1830's 5 and D). Such a type
    is not walked; its routes are the other's that fit it, priced for it (RouteSet.refit). Types with
    merged stops are left out: there the better direction of a route can differ between types."""
    if "route parents" not in problem.derived:
        def loose(name):
            spec = problem.specs[name]
            return -int(spec.row_visit.sum()), -int(spec.row_pay.sum()), name

        def same_walk(a: TrainSpec, b: TrainSpec) -> bool:
            return all(np.array_equal(x, y) for f, x, y in zip(SPEC_FIELDS, spec_arrays(a), spec_arrays(b))
                       if f not in LIMITS)

        parents: dict[str, str] = {}
        roots: list[str] = []
        for name in sorted(problem.specs, key=loose):
            spec = problem.specs[name]
            parent = next((r for r in roots if not (spec.merge >= 0).any() and same_walk(spec, problem.specs[r])
                           and all((getattr(problem.specs[r], f) >= getattr(spec, f)).all() for f in LIMITS)),
                          None)
            if parent is None:
                roots.append(name)
            else:
                parents[name] = parent
        problem.derived["route parents"] = parents
    return problem.derived["route parents"]


def all_routes(problem: Problem, train: str, adj, allowed, stop, weights: tuple[int, int] = (1, 0)) -> RouteSet:
    """Every legal route of one train type (revenue.core.routes.enumerate_routes)."""
    arrays, is_fast, walk_from_ends = kernel_arguments(problem, train, weights)
    routes, nodes = ROUTE_CAPACITY, ROUTE_CAPACITY * 8
    while True:
        rev = np.empty(routes, dtype=np.int64)
        keys = np.empty((routes, problem.words), dtype=np.uint64)
        flags = np.empty(routes, dtype=np.int64)
        start = np.empty(routes + 1, dtype=np.int64)
        path_nodes = np.empty(nodes, dtype=np.int64)
        path_chains = np.empty(nodes, dtype=np.int64)
        count, total, stored, complete = enumerate_routes(
            *adj, problem.chain_keys, problem.cost, problem.token, problem.blocks, problem.bypassable, allowed,
            *hex_walks(problem.graph), arrays, is_fast, walk_from_ends, stop, rev, keys, flags, start, path_nodes, path_chains)
        if stored == count or not complete:
            return RouteSet(problem, train, rev[:stored], keys[:stored], flags[:stored], start[:stored],
                            start[1: stored + 1], path_nodes, path_chains, complete, weights)
        routes, nodes = max(count, 1), max(total, 1)


INDEX_LIMIT = 1 << 30   # routes x key slots beyond which the last train is searched without bitmaps
INDEX_MIN = 512         # fewer routes are scanned one by one as fast


def last_train_index(keys: np.ndarray) -> np.ndarray:
    """The key bitmaps of the last train's routes (core.combine.key_index), or a (1, 1) placeholder when
    the routes are few (a plain scan is as fast) or the bitmaps would be too big."""
    routes, words = keys.shape
    if routes < INDEX_MIN or routes * words * 64 > INDEX_LIMIT:
        return np.zeros((1, 1), dtype=np.uint64)
    return key_index(keys, words * 64)


def adjacency(problem: Problem):
    """CSR arrays of the chains leaving each node, with the terminal flags seen from that node
    (computed once per graph)."""
    graph = problem.graph
    if "adjacency" not in graph.derived:
        graph.derived["adjacency"] = _adjacency(graph)
    return graph.derived["adjacency"]


def _adjacency(graph) -> tuple[np.ndarray, ...]:
    start = np.zeros(len(graph.nodes) + 1, dtype=np.int64)
    chain, other, flags = [], [], []
    for v, cids in enumerate(graph.adjacency):
        for cid in cids:
            c = graph.chains[cid]
            chain.append(cid)
            other.append(c.other(v))
            flags.append((TERM_HERE if c.terminal_at(v) else 0) | (TERM_THERE if c.terminal_at(c.other(v)) else 0)
                         | (TERM_INNER if c.terminal_inner else 0))
        start[v + 1] = len(chain)
    return start, np.array(chain, dtype=np.int64), np.array(other, dtype=np.int64), np.array(flags, dtype=np.int64)


def reachable(problem: Problem) -> np.ndarray:
    """Nodes that some route through a token city can reach: beyond the token, a walk continues only
    through nodes the company may pass (a blocked node can end a route, never be passed)."""
    graph = problem.graph
    seen = np.zeros(len(graph.nodes), dtype=np.bool_)
    queue = deque(int(v) for v in np.flatnonzero(problem.token))
    for v in queue:
        seen[v] = True
    bypass = max((spec.bypass for spec in problem.specs.values()), default=0)
    while queue:
        v = queue.popleft()
        if problem.blocks[v] and not problem.token[v] and not (bypass and problem.bypassable[v]):
            continue
        for cid in graph.adjacency[v]:
            w = graph.chains[cid].other(v)
            if not seen[w]:
                seen[w] = True
                queue.append(w)
    return seen


def _empty_result(started: float, note: str = "") -> dict:
    result = {"revenue": 0, "subsidy": 0, "routes": [], "optimal": True, "upper_bound": 0,
              "stats": {"candidate_routes": 0, "nodes_explored": 0,
                        "elapsed_ms": round((time.perf_counter() - started) * 1000, 3), "timed_out": False}}
    if note:
        result["note"] = note
    return result


def solve(request: dict, deadline: float | None = None, on_improve: Callable[[dict], None] | None = None,
          cancel: threading.Event | None = None) -> dict:
    """Best routes for `request` (the proto3 JSON shape of revenue.v1.SolveRequest: board, company,
    deadline_ms, objective). `deadline` (seconds from now) overrides deadline_ms. With a deadline or a cancel
    the answer may be the best found so far, with optimal False and a valid upper bound. With a `holding`
    the answer also lists the dividend options of the run found (revenue.dividends).

    The objective: "revenue" (the default) maximises the revenue, then the subsidy (1860's halts);
    "revenue_and_subsidy" their sum, then the revenue; `optimal` and `upper_bound` speak of that figure."""
    if not request.get("holding"):
        return _solve(request, deadline, on_improve, cancel)
    from .dividends import check_solve_holding, solve_dividends

    check_solve_holding(request)    # bad holding input is reported before the search
    result = _solve(request, deadline, on_improve, cancel)
    result["dividends"] = solve_dividends(request, result)
    return result


def _solve(request: dict, deadline: float | None, on_improve: Callable[[dict], None] | None,
           cancel: threading.Event | None) -> dict:
    started = time.perf_counter()
    objective = request.get("objective") or "revenue"
    if objective not in OBJECTIVES:
        raise InputError("objective", f"{objective!r} is not one of {', '.join(OBJECTIVES)}")
    if deadline is None and request.get("deadline_ms"):
        deadline = float(request["deadline_ms"]) / 1000.0
    if deadline is not None and deadline <= 0:
        raise InputError("deadline_ms", f"{deadline * 1000:g} is not > 0")
    graph = graph_for(request.get("board") or {})
    board = graph.board
    company = build_company(request.get("company") or {}, board)
    if not company.trains:
        result = _empty_result(started, "the company has no trains")
    else:
        problem = compile_problem(graph, company)
        if problem.token.any():
            result = Search(problem, started, deadline, on_improve, cancel, objective).run()
        else:
            result = _empty_result(started, f"{company.id} has no token on the map, so it can run no route")
    result["run_routes"] = run_routes_action(request.get("company") or {}, result["routes"])
    return result


class Cancel(threading.Event):
    """A cancel event that stops the searches given it the moment it is set. A plain threading.Event
    works too, but the watchdog has to poll it every POLL_SECONDS."""

    def __init__(self) -> None:
        super().__init__()
        self._stops: list[np.ndarray] = []

    def set(self) -> None:
        super().set()
        for stop in tuple(self._stops):
            stop[0] = 1

    def attach(self, stop: np.ndarray) -> None:
        self._stops.append(stop)
        if self.is_set():
            stop[0] = 1

    def detach(self, stop: np.ndarray) -> None:
        self._stops = [s for s in self._stops if s is not stop]


class Watchdog:
    """One thread for the whole process that sets a search's stop flag when its deadline passes or its
    cancel event is set, so a search with no improvements to report can run in its caller's thread. It
    sleeps until the next deadline, waking every POLL_SECONDS only while some search has a plain
    threading.Event to cancel it (a Cancel stops its searches itself)."""

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._watched: dict[int, tuple[np.ndarray, float | None, threading.Event | None]] = {}
        self._thread: threading.Thread | None = None

    def watch(self, stop: np.ndarray, until: float | None, cancel: threading.Event | None) -> int:
        if isinstance(cancel, Cancel):
            cancel.attach(stop)
            cancel = None
        with self._wake:
            ticket = id(stop)
            self._watched[ticket] = (stop, until, cancel)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="revenue-watchdog", daemon=True)
                self._thread.start()
            self._wake.notify()
            return ticket

    def release(self, ticket: int, cancel: threading.Event | None) -> None:
        with self._wake:
            stop = self._watched.pop(ticket)[0]
        if isinstance(cancel, Cancel):
            cancel.detach(stop)

    def _run(self) -> None:
        with self._wake:
            while True:
                now = time.perf_counter()
                nap = None
                for stop, until, cancel in self._watched.values():
                    if (until is not None and now >= until) or (cancel is not None and cancel.is_set()):
                        stop[0] = 1
                    elif cancel is not None:
                        nap = POLL_SECONDS
                    elif until is not None:
                        nap = min(nap or until - now, until - now)
                self._wake.wait(nap)


WATCHDOG = Watchdog()
_compiled = threading.Event()    # set once a search has run the kernels in this process


class Search:
    def __init__(self, problem, started, deadline, on_improve, cancel, objective="revenue"):
        self.problem, self.started, self.objective = problem, started, objective
        self.weights = objective_weights(problem, objective)
        self.until = None if deadline is None else started + deadline
        self.on_improve, self.cancel = on_improve, cancel
        self.stop = np.zeros(1, dtype=np.int64)
        self.sets: dict[str, RouteSet] = {}
        self.error: BaseException | None = None
        self.trains = list(problem.company.trains)      # reordered for the search
        self.position = list(range(len(self.trains)))  # each searched train's place in the company's list
        self.n = len(self.trains)
        self.progress = np.zeros(4 + self.n, dtype=np.int64)
        self.complete = False
        self.suffix: np.ndarray | None = None   # set when the combination search starts

    def _work(self) -> None:
        try:
            p = self.problem
            adj = adjacency(p)
            if "reachable" not in p.derived:
                p.derived["reachable"] = reachable(p)
            allowed = p.derived["reachable"]
            parents = route_parents(p)
            for name in sorted(p.specs, key=lambda t: t in parents):   # walked types first
                if name in parents:
                    self.sets[name] = self.sets[parents[name]].refit(name)
                else:
                    self.sets[name] = all_routes(p, name, adj, allowed, self.stop, self.weights)
                if not self.sets[name].complete:
                    return
            # Train types with the best routes first: tighter bounds early.
            names = sorted(self.sets, key=lambda t: -(self.sets[t].rev[0] if len(self.sets[t]) else 0))
            order = sorted(range(self.n), key=lambda i: names.index(self.trains[i].name))
            self.trains = [self.trains[i] for i in order]
            self.position = order
            group_of = np.array([names.index(t.name) for t in self.trains], dtype=np.int64)
            group_start = np.zeros(len(names) + 1, dtype=np.int64)
            for g, name in enumerate(names):
                group_start[g + 1] = group_start[g] + len(self.sets[name])
            rev = np.concatenate([self.sets[t].rev for t in names]) if names else np.zeros(0, np.int64)
            keys = np.concatenate([self.sets[t].keys for t in names]).reshape(len(rev), p.words)
            same = np.array([i > 0 and group_of[i] == group_of[i - 1] for i in range(self.n)], dtype=np.bool_)
            best_each = np.array([self.sets[t.name].rev[0] if len(self.sets[t.name]) else 0 for t in self.trains],
                                 dtype=np.int64)
            self.suffix = np.concatenate([np.cumsum(best_each[::-1])[::-1], [0]]).astype(np.int64)
            self.progress[4:] = -1
            run = p.run
            flags = np.concatenate([self.sets[t].flags for t in names])
            flag_max = np.full(FLAG_BITS, -1, dtype=np.int64)
            flag_min = np.zeros(FLAG_BITS, dtype=np.int64)
            for bit, cap in run.flag_max.items():
                flag_max[bit] = cap
            for bit, least in run.flag_min.items():
                flag_min[bit] = least
            node_sets = (np.concatenate([self.sets[t].node_sets() for t in names]) if run.connected
                         else np.zeros((len(rev), 1), dtype=np.uint64))
            g = group_of[-1]
            index = last_train_index(keys[group_start[g]:group_start[g + 1]])
            self.complete = best_combination(group_of, group_start, rev, keys, same, self.suffix, flags,
                                             flag_max, flag_min, run.connected, node_sets, index, self.progress,
                                             self.stop)
            _compiled.set()
        except BaseException as exc:   # surfaced by run()
            self.error = exc

    def _current(self) -> tuple[int, list[dict]]:
        """The best run so far, its routes in the order of the company's trains."""
        routes = []
        wr, ws = self.weights
        for t in sorted(range(self.n), key=lambda t: self.position[t]):
            i = int(self.progress[4 + t])
            if i >= 0:
                route = self.sets[self.trains[t].name].route(i)
                # The kernel priced this route too: the two readings of the rules must agree.
                assert wr * route["revenue"] + ws * route["subsidy"] == self.sets[self.trains[t].name].rev[i], \
                    (route, "kernel/evaluator")
                routes.append(route)
        return sum(r["revenue"] for r in routes), routes

    def _snapshot(self) -> tuple[int, list[dict]] | None:
        """The best run so far if the kernel is not writing it at this moment (progress[1] even)."""
        sequence = int(self.progress[1])
        if self.suffix is None or sequence % 2:
            return None
        current = self._current()
        return current if int(self.progress[1]) == sequence else None

    def run(self) -> dict:
        seen = 0
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
            timed_out = bool(self.stop[0])
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
                self.stop[0] = 1
                # The kernels stop within microseconds; a first call may still be loading or compiling
                # them, which cannot be interrupted: answer now and let the worker end on its own.
                worker.join(STOP_GRACE_SECONDS)
                if worker.is_alive() and (snapshot := self._snapshot()) is not None:
                    best = snapshot
                break
            sequence = int(self.progress[1])
            if self.on_improve and sequence > seen and (snapshot := self._snapshot()) is not None:
                seen, best = sequence, snapshot
                self.on_improve({"revenue": best[0], "subsidy": sum(r["subsidy"] for r in best[1]),
                                 "routes": best[1]})
        if self.error is not None:
            raise self.error
        finished = worker is None or not worker.is_alive()
        enumerated = len(self.sets) == len(self.problem.specs) and all(s.complete for s in self.sets.values())
        if finished and enumerated and self.suffix is not None:
            best = self._current()
        revenue, routes = best
        subsidy = sum(r["subsidy"] for r in routes)
        if self.on_improve and int(self.progress[1]) > seen and finished:
            self.on_improve({"revenue": revenue, "subsidy": subsidy, "routes": routes})
        optimal = finished and self.complete
        # the figure the objective maximises: the revenue, or revenue plus subsidy
        achieved = revenue + (subsidy if self.objective == "revenue_and_subsidy" else 0)
        if optimal:
            bound = achieved
        elif not enumerated or self.suffix is None:
            bound = None       # routes not all enumerated: no bound from this search
        else:
            first = self.sets[self.trains[0].name]
            i = int(self.progress[3])
            bound = int(self.suffix[0] if i <= 0 else
                        (first.rev[i] + self.suffix[1] if i < len(first) else self.suffix[1]))
            bound = max(split_score(bound, self.weights, self.objective)[0], achieved)
        stats = {"candidate_routes": int(sum(len(s) for s in self.sets.values())),
                 "nodes_explored": int(self.progress[2]),
                 "elapsed_ms": round((time.perf_counter() - self.started) * 1000, 3),
                 "timed_out": timed_out and not optimal}
        result = {"revenue": revenue, "subsidy": subsidy, "routes": routes, "optimal": optimal, "stats": stats}
        if bound is not None:
            result["upper_bound"] = bound
        return result
