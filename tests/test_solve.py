"""solve(): deadlines, cancellation, improvements, anytime bounds, capacity regrowth and the answers for
a company that cannot run."""
from __future__ import annotations

import threading
import time

import pytest

from benchmarks.solver import custom_scenarios
from revenue import solve as solve_module
from revenue.board import build_board
from revenue.errors import InputError
from revenue.solve import solve

from .boards import random_board
from .reference import best_run

HEAVY = custom_scenarios()[3].request       # two D trains on a dense 49-hex map: ~27k routes


@pytest.fixture(scope="module")
def heavy_optimum():
    result = solve(HEAVY)
    assert result["optimal"]
    return result["revenue"]


def test_deadline_is_honoured_with_a_valid_bound(heavy_optimum):
    started = time.perf_counter()
    result = solve(HEAVY, deadline=0.002)
    elapsed = time.perf_counter() - started
    assert elapsed < 0.002 * 1.1 + 0.05
    assert result["stats"]["timed_out"] is True and result["optimal"] is False
    assert result["revenue"] <= heavy_optimum
    if "upper_bound" in result:
        assert result["upper_bound"] >= heavy_optimum


def test_cancel_stops_the_search_with_a_valid_bound(heavy_optimum):
    # Cancelled at the first improvement: the routes are all known, so the answer has a proven bound.
    cancel = threading.Event()
    result = solve(HEAVY, cancel=cancel, on_improve=lambda r: cancel.set())
    if result["optimal"]:       # the search ended before it looked at the cancel
        assert result["revenue"] == heavy_optimum
    else:
        assert result["stats"]["timed_out"] is True
        assert result["revenue"] <= heavy_optimum <= result["upper_bound"]


def test_a_cancel_stops_a_search_in_its_callers_thread_at_once(heavy_optimum):
    # A Cancel sets the search's stop flag itself (no polling); the heavy search takes ~50 ms here.
    # Measured from the moment the cancel is set (a timer thread on a busy machine fires late), with
    # room for a busy machine's scheduling: still a fraction of what the search takes there.
    cancel = solve_module.Cancel()
    fired: list[float] = []
    threading.Timer(0.005, lambda: (fired.append(time.perf_counter()), cancel.set())).start()
    result = solve(HEAVY, cancel=cancel)
    finished = time.perf_counter()
    assert result["optimal"] is False and result["stats"]["timed_out"] is True
    assert result["revenue"] <= heavy_optimum and fired and finished - fired[0] < 0.1
    assert cancel._stops == [] and solve_module.WATCHDOG._watched == {}
    # Set before the search starts: it stops before the first route.
    assert solve(HEAVY, cancel=cancel)["optimal"] is False


def test_improvements_rise_to_the_optimum(heavy_optimum):
    seen = []
    result = solve(HEAVY, on_improve=lambda r: seen.append(r["revenue"]))
    assert seen and seen == sorted(seen)
    assert seen[-1] == result["revenue"] == heavy_optimum == result["upper_bound"]


def test_route_storage_grows_when_the_first_guess_is_short(monkeypatch):
    for seed in range(40):
        board, company, trains = random_board(seed)
        expected = solve({"board": board, "company": company})["revenue"]
        monkeypatch.setattr(solve_module, "ROUTE_CAPACITY", 1)
        assert solve({"board": board, "company": company})["revenue"] == expected
        monkeypatch.setattr(solve_module, "ROUTE_CAPACITY", 1 << 14)
        ref, _ = best_run(build_board(board), "A",
                          [{"name": t["name"], "distance": t.get("distance") or t["rows"]} for t in trains])
        assert ref == expected


def test_a_train_type_refit_from_a_looser_one_has_the_routes_its_own_walk_finds():
    # Routes of a type walked for its own limits equal those of a looser type that fit it (route_parents).
    import numpy as np

    from revenue.company import build_company
    from revenue.graph import graph_for
    from revenue.problem import compile_problem

    def listed(routes):
        return sorted((int(routes.rev[i]), tuple(routes.nodes[routes.begin[i]:routes.end[i]].tolist()),
                       tuple(routes.keys[i].tolist()), int(routes.flags[i])) for i in range(len(routes)))

    refits = 0
    for seed in range(400):
        if refits >= 20:
            break
        board, company, trains = random_board(seed)
        company = {**company, "trains": [{"name": t["name"]} for t in trains]}
        graph = graph_for(board)
        problem = compile_problem(graph, build_company(company, graph.board))
        stop = np.zeros(1, dtype=np.int64)
        adj, allowed = solve_module.adjacency(problem), solve_module.reachable(problem)
        for child, parent in solve_module.route_parents(problem).items():
            looser = solve_module.all_routes(problem, parent, adj, allowed, stop)
            own = solve_module.all_routes(problem, child, adj, allowed, stop)
            assert listed(looser.refit(child)) == listed(own)
            refits += 1
    assert refits >= 20


def test_company_without_trains_or_token():
    board = {"title": "1830", "tokens": [{"hex": "F6", "city": 0, "company": "B&O"}]}
    none = solve({"board": board, "company": {"id": "B&O"}})
    assert none["revenue"] == 0 and none["routes"] == [] and none["optimal"] and "no trains" in none["note"]
    absent = solve({"board": board, "company": {"id": "PRR", "trains": [{"name": "2"}]}})
    assert absent["revenue"] == 0 and "no token" in absent["note"]


def test_unknown_train_and_bad_deadline():
    board = {"title": "1830", "tokens": [{"hex": "F6", "city": 0, "company": "B&O"}]}
    with pytest.raises(InputError) as err:
        solve({"board": board, "company": {"id": "B&O", "trains": [{"name": "3E"}]}})
    assert err.value.field == "company.trains[0].name"
    with pytest.raises(InputError) as err:
        solve({"board": board, "company": {"id": "B&O", "trains": [{"name": "2"}]}, "deadline_ms": -5})
    assert err.value.field == "deadline_ms"


def test_board_graphs_are_remembered_by_value_or_by_read_only_identity():
    from types import MappingProxyType

    from revenue.graph import graph_for

    board = {"title": "1830", "tiles": [{"hex": "F4", "tile": "57", "rotation": 1}]}
    first = graph_for(board)
    assert graph_for(dict(board)) is first                    # an equal board: the same graph
    board["tiles"] = [{"hex": "F4", "tile": "57", "rotation": 0}]
    assert graph_for(board) is not first                      # changed: built anew
    frozen = MappingProxyType({"title": "1830"})
    assert graph_for(frozen) is graph_for(frozen)
    assert graph_for(MappingProxyType({"title": "1830"})) is not graph_for(frozen)   # keyed by identity
