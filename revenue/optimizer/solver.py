"""The public entry of the optimizer: solve() reads a request, compiles its board into arrays
(revenue.problem) and runs one search (revenue.optimizer.search.Search), whose answer it completes with
the 18xx.games run_routes action and, with a holding, the dividend options (revenue.payout)."""
from __future__ import annotations

import threading
import time
from typing import Callable

import numpy as np

from ..budget import call_budget
from ..company import build_company
from ..compiling import compile_seconds
from ..errors import InputError
from ..graph_cache import graph_for
from ..interop import run_routes_action
from ..problem import OBJECTIVES, compile_problem
from .search import Search


def _empty_result(started: float, note: str = "") -> dict:
    result = {"revenue": 0, "subsidy": 0, "routes": [], "optimal": True, "upper_bound": 0,
              "stats": {"candidate_routes": 0, "nodes_explored": 0,
                        "elapsed_ms": round((time.perf_counter() - started) * 1000, 3), "timed_out": False}}
    if note:
        result["note"] = note
    return result


def solve(request: dict, deadline: float | None = None, on_improve: Callable[[dict], None] | None = None,
          cancel: threading.Event | None = None, memory_mb: float | None = None, alike: dict | None = None) -> dict:
    """Best routes for `request` (the proto3 JSON shape of revenue.v1.SolveRequest: board, company,
    deadline_ms, objective). `deadline` (seconds from now) overrides deadline_ms. With a deadline or a cancel
    the answer may be the best found so far, with optimal False and a valid upper bound. `memory_mb` caps
    the routes the search stores (default search.MEMORY_MB): beyond it the search keeps the routes that can
    matter most, and the answer says whether that still proved it (revenue.optimizer.bounded). The deadline,
    cancel and memory cap bound the board's track graph as well (revenue.budget): stopped before the search
    it raises Interrupted, past the memory cap InputError. Each improvement given to `on_improve` carries
    the bound that holds at that moment. With a `holding` the answer also lists the dividend options of the
    run found (revenue.payout). `alike`: a dict shared by the solves of boards that differ by a lay or a
    token (revenue.moves.value), where their searches note how their walks went (search.Search) so that the
    later ones skip what did not pay; the answers are the same.

    The objective: "revenue" (the default) maximises the revenue, then the subsidy (1860's halts);
    "revenue_and_subsidy" their sum, then the revenue; `optimal` and `upper_bound` speak of that figure."""
    if memory_mb is not None and memory_mb <= 0:
        raise InputError("memory_mb", f"{memory_mb:g} is not > 0")
    if not request.get("holding"):
        return _solve(request, deadline, on_improve, cancel, memory_mb, alike)
    from ..payout import check_solve_holding, solve_dividends

    check_solve_holding(request)    # bad holding input is reported before the search
    result = _solve(request, deadline, on_improve, cancel, memory_mb, alike)
    result["dividends"] = solve_dividends(request, result)
    return result


def _solve(request: dict, deadline: float | None, on_improve: Callable[[dict], None] | None,
           cancel: threading.Event | None, memory_mb: float | None = None, alike: dict | None = None) -> dict:
    started = time.perf_counter()
    compiled = compile_seconds()
    objective = request.get("objective") or "revenue"
    if objective not in OBJECTIVES:
        raise InputError("objective", f"{objective!r} is not one of {', '.join(OBJECTIVES)}")
    if deadline is None and request.get("deadline_ms"):
        deadline = float(request["deadline_ms"]) / 1000.0
    if deadline is not None and deadline <= 0:
        raise InputError("deadline_ms", f"{deadline * 1000:g} is not > 0")
    with call_budget(deadline, cancel, memory_mb):    # the board and its track graph (revenue.budget)
        graph = graph_for(request.get("board") or {})
        board = graph.board
        company = build_company(request.get("company") or {}, board)
        problem = compile_problem(graph, company) if company.trains else None
    if problem is None:
        result = _empty_result(started, "the company has no trains")
    else:
        if np.count_nonzero(problem.token):     # (ndarray.any goes through a Python wrapper)
            result = Search(problem, started, deadline, on_improve, cancel, objective, memory_mb,
                            alike).run()
        else:
            result = _empty_result(started, f"{company.id} has no token on the map, so it can run no route")
    result["run_routes"] = run_routes_action(request.get("company") or {}, result["routes"])
    _leave_out_compiling(result["stats"], compile_seconds() - compiled)
    return result


def _leave_out_compiling(stats: dict, seconds: float) -> None:
    """A first call's compiling of the kernels (revenue.compiling) is not the solve's time: elapsed_ms
    leaves it out and compile_ms says it."""
    if seconds > 0:
        stats["compile_ms"] = round(seconds * 1000, 3)
        stats["elapsed_ms"] = round(max(0.0, stats["elapsed_ms"] - seconds * 1000), 3)
