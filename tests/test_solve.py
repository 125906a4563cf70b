"""solve(): deadlines, cancellation, improvements, anytime bounds, capacity regrowth and the answers for
a company that cannot run."""
from __future__ import annotations

import threading
import time

import pytest

from benchmarks.solver import custom_scenarios
from revenue.errors import InputError
from revenue import watchdog
from revenue.optimizer import Cancel, combination, routeset, search as search_module, solve
from revenue.optimizer.adjacency import adjacency, reachable
from revenue.optimizer.routeset import all_routes
from revenue.optimizer.trains import kernel_arguments, route_parents

from .boards import random_board
from .ref_board import ref_board
from .reference import best_run

HEAVY = custom_scenarios()[3].request       # two D trains on a dense 49-hex map: ~27k routes


@pytest.fixture(scope="module")
def heavy_optimum():
    result = solve(HEAVY)
    assert result["optimal"]
    return result["revenue"]


def check_bound(result, optimum):
    """What an answer says about the optimum holds: a proved answer is the optimum; a stopped one is no
    better than the optimum, and its bound, when it has one, is no less."""
    assert sum(r["revenue"] for r in result["routes"]) == result["revenue"]
    if result["optimal"]:
        assert result["revenue"] == result["upper_bound"] == optimum
        assert result["stats"]["timed_out"] is False
    else:
        assert result["stats"]["timed_out"] is True
        assert result["revenue"] <= optimum
    if "upper_bound" in result:
        assert result["revenue"] <= optimum <= result["upper_bound"]


def test_deadline_is_honoured_with_a_valid_bound(heavy_optimum):
    # Deadlines from far too short to long enough: each answer is checked, bound or not.
    answers = [solve(HEAVY, deadline=0.001 * 1.5 ** k) for k in range(0, 16)]
    for result in answers:
        check_bound(result, heavy_optimum)
    first = answers[0]                     # 1 ms: stopped before the search could finish
    assert first["optimal"] is False and first["stats"]["timed_out"] is True


class JumpingClock:
    """time for revenue.optimizer.search whose clock jumps an hour ahead once `jump` is set: a deadline that passes
    at a chosen moment of the search, whatever the speed of the machine."""

    def __init__(self, real):
        self.real, self.jump = real, threading.Event()

    def perf_counter(self):
        return self.real.perf_counter() + (3600.0 if self.jump.is_set() else 0.0)

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_deadline_after_the_routes_are_known_gives_a_proven_bound(heavy_optimum, monkeypatch):
    # The deadline passes at the first improvement: every route is known by then, so the answer must
    # carry a bound, and the bound must hold.
    clock = JumpingClock(time)
    monkeypatch.setattr(search_module, "time", clock)
    seen = []
    result = solve(HEAVY, deadline=600.0, on_improve=lambda r: (seen.append(r["revenue"]), clock.jump.set()))
    assert seen and result["optimal"] is False and result["stats"]["timed_out"] is True
    assert "upper_bound" in result
    check_bound(result, heavy_optimum)
    assert result["revenue"] >= seen[0]


def test_cancel_stops_the_search_with_a_valid_bound(heavy_optimum):
    # Cancelled at the first improvement: the routes are all known, so the answer has a proven bound.
    cancel = threading.Event()
    result = solve(HEAVY, cancel=cancel, on_improve=lambda r: cancel.set())
    check_bound(result, heavy_optimum)
    assert result["optimal"] or "upper_bound" in result


def test_a_cancel_stops_a_search_in_its_callers_thread_at_once(heavy_optimum):
    # A Cancel sets the search's stop flag itself, inside set() (no polling): the flag is up when set()
    # returns, and the search ends unproved.
    cancel = Cancel()
    flags = []

    def fire():
        while not cancel._stops and not done.is_set():     # the search has attached its stop flag
            time.sleep(0.0002)
        stops = list(cancel._stops)
        cancel.set()
        flags.extend(int(s[0]) for s in stops)

    done = threading.Event()
    timer = threading.Thread(target=fire)
    timer.start()
    try:
        result = solve(HEAVY, cancel=cancel)
    finally:
        done.set()
        timer.join()
    assert flags == [1]
    assert result["optimal"] is False and result["stats"]["timed_out"] is True
    check_bound(result, heavy_optimum)
    assert cancel._stops == [] and watchdog.WATCHDOG._watched == {}
    # Set before the search starts: it stops before the first route.
    again = solve(HEAVY, cancel=cancel)
    assert again["optimal"] is False and again["revenue"] == 0 and again["routes"] == []


def test_improvements_rise_to_the_optimum(heavy_optimum):
    seen = []
    result = solve(HEAVY, on_improve=lambda r: seen.append(r["revenue"]))
    assert seen and seen == sorted(seen)
    assert seen[-1] == result["revenue"] == heavy_optimum == result["upper_bound"]


def test_route_storage_grows_when_the_first_guess_is_short(monkeypatch):
    for seed in range(40):
        board, company, trains = random_board(seed)
        expected = solve({"board": board, "company": company})["revenue"]
        monkeypatch.setattr(routeset, "ROUTE_CAPACITY", 1)
        assert solve({"board": board, "company": company})["revenue"] == expected
        monkeypatch.setattr(routeset, "ROUTE_CAPACITY", 1 << 14)
        ref, _ = best_run(ref_board(board), "A",
                          [{"name": t["name"], "distance": t.get("distance") or t["rows"]} for t in trains])
        assert ref == expected


def test_a_train_type_refit_from_a_looser_one_has_the_routes_its_own_walk_finds():
    # Routes of a type walked for its own limits equal those of a looser type that fit it (route_parents).
    import numpy as np

    from revenue.company import build_company
    from revenue.graph_cache import graph_for
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
        adj, allowed = adjacency(problem), reachable(problem)
        for child, parent in route_parents(problem).items():
            looser = all_routes(problem, parent, adj, allowed, stop)
            own = all_routes(problem, child, adj, allowed, stop)
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

    from revenue.graph_cache import graph_for

    board = {"title": "1830", "tiles": [{"hex": "F4", "tile": "57", "rotation": 1}]}
    first = graph_for(board)
    assert graph_for(dict(board)) is first                    # an equal board: the same graph
    board["tiles"] = [{"hex": "F4", "tile": "57", "rotation": 0}]
    assert graph_for(board) is not first                      # changed: built anew
    frozen = MappingProxyType({"title": "1830"})
    assert graph_for(frozen) is graph_for(frozen)
    assert graph_for(MappingProxyType({"title": "1830"})) is not graph_for(frozen)   # keyed by identity


def test_the_one_call_probe_answers_as_the_step_by_step_search(monkeypatch):
    """Search._at_once (the probe and the combination in one compiled call) and the step-by-step path it
    stands in for give the same answers, routes, bound and statistics, on random boards of one to
    three train types, on 1860 (a connected run) and 18Rhl scenarios, and with the key bitmaps forced
    (INDEX_MIN 0: the combination set up by the kernel, searched from Python)."""
    from benchmarks.scenarios import title_scenarios

    def answer(request):
        result = solve(request)
        result["stats"].pop("elapsed_ms")
        result["stats"].pop("compile_ms", None)      # (a fresh cache's first calls compile)
        return result

    taken = []
    at_once = search_module.Search._at_once
    monkeypatch.setattr(search_module.Search, "_at_once",
                        lambda self, *a: taken.append(at_once(self, *a)) or taken[-1])
    requests = [{"board": b, "company": c} for b, c, _ in (random_board(seed, max_trains=4) for seed in range(60))]
    requests += [sc.request for sc in title_scenarios() if sc.title in ("1860", "18rhl")]
    for index_min in (combination.INDEX_MIN, 0):
        monkeypatch.setattr(combination, "INDEX_MIN", index_min)
        for request in requests:
            monkeypatch.setattr(search_module, "AT_ONCE_TYPES", 3)
            fused = answer(request)
            monkeypatch.setattr(search_module, "AT_ONCE_TYPES", 0)
            assert answer(request) == fused, request
    assert taken.count(True) > len(requests)      # (the one-call path answered most of them, both ways)


def test_routes_priced_in_the_walk_for_a_refitted_type_are_the_refitted_ones(monkeypatch):
    """core.probe prices a refitted type's routes in its parent's walk where that walk is priced by rows
    (core.walk.walk_prices_children): route by route, in order, they are RouteSet.refit's (the
    step-by-step path), on 1860's game-server boards (6+3 refitted from 7+4, 4+2 from 5+3, ...); and
    the routes' node sets (copied from the parent's for a refitted type) are node_bitsets'."""
    from benchmarks.scenarios import game_sequences
    from revenue.optimizer import bounded
    from revenue.company import build_company
    from revenue.core.node_sets import node_bitsets
    from revenue.core.walk import walk_prices_children
    from revenue.graph_cache import graph_for
    from revenue.problem import compile_problem

    node_sets_checked = []
    walk_and_combine = search_module.walk_and_combine

    def checked(*args):
        out, keys, node_sets = walk_and_combine(*args)
        io = args[-4]
        meta = io[io[7]:]
        used, routes = meta[2], len(keys)
        begin, end = out[2 * used + 2 * routes:2 * used + 3 * routes], out[2 * used + 3 * routes:2 * used + 4 * routes]
        if routes > 1 and node_sets.shape[0] == routes:      # (connected runs: node sets made)
            assert (node_sets == node_bitsets(begin, end, out[:used], len(args[5]))).all()
            node_sets_checked.append(routes)
        return out, keys, node_sets

    monkeypatch.setattr(search_module, "walk_and_combine", checked)

    def routes(route_set):
        return [(rev, route_set.nodes[a:b].tolist()) for rev, a, b in
                zip(route_set.rev.tolist(), route_set.begin.tolist(), route_set.end.tolist())]

    checked = 0
    for board in game_sequences(seed=5)["1860"][::3]:
        graph = graph_for(board.request["board"])
        company = build_company(board.request["company"], graph.board)
        problem = compile_problem(graph, company)
        parents = route_parents(problem)
        if not company.trains or not problem.token.any() or not parents:
            continue
        fused = search_module.Search(problem, time.perf_counter(), None, None, None)
        cap = bounded.capacity(problem, fused.memory_mb, len(problem.specs) - len(parents))
        assert fused._at_once(parents, cap, search_module.AT_ONCE_STEPS)
        stepwise = search_module.Search(problem, time.perf_counter(), None, None, None)
        assert stepwise._probe(adjacency(problem), reachable(problem), cap, search_module.PROBE_STEPS)
        for child, parent in parents.items():
            arrays, sums_values, _ = kernel_arguments(problem, parent)
            if walk_prices_children(arrays, sums_values) and len(stepwise.sets[child]):
                assert routes(fused.sets[child]) == routes(stepwise.sets[child]), (board.step, child)
                checked += 1
    assert checked >= 10 and len(node_sets_checked) >= 5


def test_a_walk_with_a_step_limit_ends_unfinished_exactly_when_it_needs_that_many_steps():
    """enumerate_routes looks at its step limit each STOP_CHECK steps, the edges it passes over in its
    inner loop counted one by one: a walk that takes S steps unlimited ends unfinished under a limit L
    exactly when S reaches the first multiple of STOP_CHECK from L, and otherwise finds the same routes
    in the same steps (1860's and 18Rhl's game-server boards, every train type)."""
    import numpy as np

    from benchmarks.scenarios import game_sequences
    from revenue.company import build_company
    from revenue.core.walk import NO_CHILDREN, STOP_CHECK, enumerate_routes
    from revenue.graph_cache import graph_for
    from revenue.problem import compile_problem

    def walk(problem, arguments, limit):
        buffers = routeset._scratch(problem.words)
        limits = np.array([-1, -1, 0, limit, 0], dtype=np.int64)
        count, total, stored, complete = enumerate_routes(*arguments, *buffers, limits, False, *[NO_CHILDREN] * 3)
        return complete, int(limits[4]), buffers[0][:stored].tolist(), buffers[4][:total].tolist()

    long_walks = 0
    for title in ("1860", "18rhl"):
        for board in game_sequences(seed=3)[title][::4]:
            graph = graph_for(board.request["board"])
            problem = compile_problem(graph, build_company(board.request["company"], graph.board))
            if not problem.company.trains or not problem.token.any():
                continue
            stop = np.zeros(1, dtype=np.int64)
            for name in problem.specs:
                arrays, sums_values, from_ends = kernel_arguments(problem, name)
                arguments = (*adjacency(problem), problem.chain_keys, problem.cost, problem.token,
                             problem.blocks, problem.bypassable, reachable(problem),
                             *problem.graph.hex_walks, arrays, sums_values, from_ends, stop)
                complete, steps, rev, nodes = walk(problem, arguments, 0)
                assert complete
                below = steps // STOP_CHECK * STOP_CHECK        # (the last multiple the walk reached)
                for limit in {below, below + 1, below + STOP_CHECK, steps, steps + 1} - {0}:
                    first_check = -(-limit // STOP_CHECK) * STOP_CHECK
                    limited = walk(problem, arguments, limit)
                    assert limited[0] == (steps < first_check), (board.step, name, steps, limit)
                    if limited[0]:
                        assert limited[1:] == (steps, rev, nodes)
                    else:
                        assert first_check <= limited[1] <= steps
                long_walks += steps >= STOP_CHECK
    assert long_walks >= 10
