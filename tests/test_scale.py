"""Boards far beyond real games (issue 16): the heuristic first run, the bound at every moment, the
storage cap, against the reference solver on small random boards where the optimum is known.

The search takes the large-board path (heuristic run, then the exact search with a route floor and,
here, a storage cap of a few routes) when its routes cannot be enumerated quickly; these tests force
that path on small boards (PROBE_STEPS = 0), so the reference can say what the optimum is.
"""
from __future__ import annotations

import time
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from benchmarks.stress import stress_board
from revenue.company import build_company
from revenue.evaluation import evaluate
from revenue.graph_cache import graph_for
from revenue.optimizer import adjacency as adjacency_module, bounded, combination, search as search_module, solve
from revenue.optimizer.adjacency import adjacency, reachable
from revenue.optimizer.moves import detour_moves, perturbed_moves
from revenue.optimizer.pools import Incumbent, Pools, kept_routes
from revenue.optimizer.relax import joint_bound, route_bound, shared_track_bound
from revenue.optimizer.routeset import RouteSet, all_routes, with_pools
from revenue.watchdog import Stops
from revenue.problem import compile_problem

from .boards import random_board
from .profiles import examples
from .ref_board import ref_board
from .reference import DataRules, best_run
from .rule_seeking import node_names
from .test_1860 import company as company_1860, random_late_case, reference as reference_1860
from .test_route_rules import install, random_rules

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _reference(board_req, trains, rules=None):
    """The reference's optimum, on its own reading of the board (tests/ref_board.py)."""
    return best_run(ref_board(board_req), "A",
                    [{"name": t["name"], "distance": t.get("distance") or t["rows"]} for t in trains], rules)[0]


def _legal(board_req, company_req, run) -> int:
    """The evaluator's revenue of a run given as result routes (asserting it is legal and priced alike)."""
    check = evaluate({"board": board_req, "company": company_req,
                      "routes": [{k: r[k] for k in ("train", "nodes", "connections")} for r in run["routes"]]})
    assert check["legal"], check
    assert [r["revenue"] for r in check["routes"]] == [r["revenue"] for r in run["routes"]]
    assert check["revenue"] == run["revenue"]
    return check["revenue"]


def _large_board_path(monkeypatch, routes: int | None = None, program: bool = True) -> None:
    """Solve as on a large board: no plain exact search first; with `routes`, a storage cap that small;
    without `program`, no integer program (revenue.optimizer.pathbound: the walks prove the optimum)."""
    monkeypatch.setattr(search_module, "PROBE_STEPS", 0)
    if not program:
        monkeypatch.setattr(search_module, "PATH_SHARE", 0)
    if routes is not None:
        monkeypatch.setattr(bounded, "MIN_ROUTES", routes)
        monkeypatch.setattr(bounded, "CAPPED_NODES_PER_ROUTE", 4)


def _check_anytime(board_req, company_req, expected, capped: bool) -> None:
    seen = []
    result = solve({"board": board_req, "company": company_req}, on_improve=seen.append,
                   memory_mb=1e-9 if capped else None)
    for run in seen + [result]:
        assert _legal(board_req, company_req, run) <= expected
        assert run["upper_bound"] >= expected, (run["revenue"], run["upper_bound"], expected)
    assert [r["revenue"] for r in seen] == sorted({r["revenue"] for r in seen})
    if not capped:
        assert result["optimal"] and result["revenue"] == expected == result["upper_bound"]
    elif result["optimal"]:
        assert result["revenue"] == expected == result["upper_bound"]


@pytest.mark.slow
@settings(max_examples=examples(120), **SETTINGS)
@given(st.integers(0, 2**31 - 1), st.booleans(), st.booleans())
def test_large_board_path_matches_reference(monkeypatch, seed, capped, program):
    """Every run reported is legal and no better than the optimum, every bound at least the optimum;
    without a cap the search still proves the optimum, with one it proves it only when it holds; with
    and without the integer program."""
    board_req, company_req, trains = random_board(seed)
    expected = _reference(board_req, trains)
    with monkeypatch.context() as m:
        _large_board_path(m, 4 if capped else None, program)
        _check_anytime(board_req, company_req, expected, capped)


@pytest.mark.slow
@settings(max_examples=examples(80), **SETTINGS)
@given(st.integers(0, 2**31 - 1), st.booleans(), st.booleans())
def test_large_board_path_with_route_rules(monkeypatch, seed, capped, program):
    """The same with random route and run rules (bonuses, merged stops, flags, connected runs...)."""
    board_req, company_req, trains = random_board(seed, max_trains=3)
    names = node_names(board_req)
    if not names:
        return
    data = random_rules(seed, names)
    with monkeypatch.context() as m:
        install(m, data)
        expected = _reference(board_req, trains, DataRules(data))
        _large_board_path(m, 4 if capped else None, program)
        _check_anytime(board_req, company_req, expected, capped)


@settings(max_examples=examples(60), **SETTINGS)
@given(st.integers(0, 2**31 - 1))
def test_route_bound_holds_for_each_train(seed):
    """relax.route_bound, with and without its limit of two end-only nodes, is at least the best single
    route of the train type (the reference with one train)."""
    board_req, company_req, trains = random_board(seed)
    graph = graph_for(board_req)
    problem = compile_problem(graph, build_company(company_req, graph.board))
    if not problem.token.any():
        return
    allowed = reachable(problem)
    for t in {t["name"]: t for t in trains}.values():
        best = _reference(board_req, [t])
        assert route_bound(problem, problem.specs[t["name"]], allowed) >= best
        assert route_bound(problem, problem.specs[t["name"]], allowed, ends_apart=True) >= best


def _walk_case(seed: int):
    """A random board's problem, reachable nodes, adjacency and a stop flag for walking its routes, or
    None without a token."""
    board_req, company_req, _ = random_board(seed)
    graph = graph_for(board_req)
    problem = compile_problem(graph, build_company(company_req, graph.board))
    if not problem.token.any():
        return None
    return problem, reachable(problem), adjacency(problem), np.zeros(1, dtype=np.int64)


@settings(max_examples=examples(60), **SETTINGS)
@given(st.integers(0, 2**31 - 1), st.integers(1, 6))
def test_compacted_walk_keeps_exactly_the_routes_above_its_floor(seed, cap):
    """A walk whose storage is `cap` routes keeps the best ones: exactly the routes of the full walk
    that earn more than its final floor (and, when every route it held earned one revenue, some of
    those earning the floor: core.walk._compact), and it meets the same best route."""
    case = _walk_case(seed)
    if case is None:
        return
    problem, allowed, adj, stop = case
    for name in problem.specs:
        full = all_routes(problem, name, adj, allowed, stop)
        kept = all_routes(problem, name, adj, allowed, stop, capacity=(cap, 4 * cap))
        assert full.complete and kept.complete and full.floor == -1
        assert kept.best_seen == (int(full.rev[0]) if len(full) else 0)
        assert len(kept) <= max(cap, len(full))
        want = sorted((int(r), tuple(full.nodes[full.begin[i]:full.end[i]]))
                      for i, r in enumerate(full.rev) if r > kept.floor)
        got = sorted((int(r), tuple(kept.nodes[kept.begin[i]:kept.end[i]])) for i, r in enumerate(kept.rev))
        at_floor = [route for route in got if route[0] == kept.floor]
        assert [route for route in got if route[0] > kept.floor] == want
        assert all(got.count(route) == 1 for route in at_floor)
        assert set(at_floor) <= {(int(r), tuple(full.nodes[full.begin[i]:full.end[i]]))
                                 for i, r in enumerate(full.rev) if r == kept.floor}
        assert min((r for r, _ in got), default=kept.floor) >= kept.floor
        # the heuristic's walk keeps the best routes it met the same way
        some = kept_routes(problem, name, adj, allowed, stop, cap)
        assert sorted(int(r) for r in some.rev if r > some.floor) == sorted(int(r) for r in full.rev if r > some.floor)
        assert all(r >= some.floor for r in some.rev)
        if len(full) and cap >= 2:      # it keeps a best-earning route (all of them, or half when all tie)
            assert len(some) and int(some.rev.max()) == int(full.rev[0])


def test_compaction_keeps_some_routes_when_all_earn_the_same():
    """_compact of routes that all earn one revenue keeps the first half of them (not none) at that
    floor; with one better route, it keeps that one and the floor is the revenue below it."""
    from revenue.core.walk import _compact

    def compact(revenues):
        n = len(revenues)
        rev = np.array(revenues, dtype=np.int64)
        keys = np.arange(n, dtype=np.uint64).reshape(n, 1)
        start = np.arange(0, 2 * n + 1, 2, dtype=np.int64)
        nodes = np.arange(2 * n, dtype=np.int64)
        limits = np.array([-1, -1, 0, 0, 0], dtype=np.int64)
        m = _compact(rev, keys, np.zeros(n, dtype=np.int64), start, nodes, nodes.copy(), n, limits)
        return list(rev[:m]), [int(k) for k in keys[:m, 0]], list(nodes[:start[m]]), int(limits[0])

    assert compact([50, 50, 50, 50]) == ([50, 50], [0, 1], [0, 1, 2, 3], 50)
    assert compact([50, 60, 60, 60]) == ([60, 60, 60], [1, 2, 3], [2, 3, 4, 5, 6, 7], 50)
    assert compact([10, 40, 20, 30]) == ([40], [1], [2, 3], 30)


@settings(max_examples=examples(40), **SETTINGS)
@given(st.integers(0, 2**31 - 1), st.integers(1, 6))
def test_walk_with_pools_adds_only_what_the_walk_left_out(seed, cap):
    """routeset.with_pools: a capped walk's routes, plus the heuristic's routes at or below its floor (every
    one of them, as the walk's node arrays have room), with the walk's completeness, floor and best
    unchanged; without room, or with arrays another set shares, the walk's routes alone."""
    case = _walk_case(seed)
    if case is None:
        return
    problem, allowed, adj, stop = case

    def routes(s, picked=lambda r: True):
        return sorted((int(r), tuple(s.nodes[s.begin[i]:s.end[i]]), tuple(s.chains[s.begin[i] + 1:s.end[i]]))
                      for i, r in enumerate(s.rev) if picked(r))
    for name in problem.specs:
        kept = all_routes(problem, name, adj, allowed, stop, capacity=(cap, 4 * cap))
        pool = kept_routes(problem, name, adj, allowed, stop, 64)
        pools = SimpleNamespace(pools={name: [pool]})
        left_out = routes(pool, lambda r: r <= kept.floor)
        for room in (0, len(pool.nodes)):
            padded = RouteSet(problem, name, kept.rev, kept.keys, kept.flags, kept.begin, kept.end,
                              np.concatenate([kept.nodes, np.full(room, -1)]),
                              np.concatenate([kept.chains, np.full(room, -1)]), kept.complete)
            padded.floor, padded.best_seen, padded.own_arrays = kept.floor, kept.best_seen, True
            merged = with_pools(problem, padded, pools, (1, 0))
            assert (merged.complete, merged.floor, merged.best_seen) == (kept.complete, kept.floor, kept.best_seen)
            assert routes(merged) == sorted(routes(kept) + (left_out if room else []))
            assert list(merged.rev) == sorted(merged.rev, reverse=True)
        shared = kept.refit(name)
        assert with_pools(problem, shared, pools, (1, 0)) is shared
        assert with_pools(problem, kept, None, (1, 0)) is kept


def test_restart_walks_take_every_chain_in_a_repeatable_random_order():
    """adjacency.shuffled_adjacency: each node keeps exactly its chains (with their ends and flags), in
    an order that differs from the sorted walk's and between random draws, and repeats with the seed
    (answers repeat from call to call). (That restarts raise the runs is measured by benchmarks.stress:
    a timed walk's routes depend on the machine's speed.)"""
    sc = stress_board(7, 1, "D D 8")
    graph = graph_for(sc.request["board"])
    problem = compile_problem(graph, build_company(sc.request["company"], graph.board))
    adj = adjacency(problem)

    def per_node(a):
        start, chain, other, flags = a
        return [list(zip(chain[start[v]:start[v + 1]], other[start[v]:start[v + 1]], flags[start[v]:start[v + 1]]))
                for v in range(len(start) - 1)]
    plain = per_node(adj)
    ordered = per_node(adjacency_module.sorted_adjacency(problem, "D", adj))
    draws = [per_node(adjacency_module.shuffled_adjacency(problem, "D", adj, np.random.default_rng(seed)))
             for seed in (1, 1, 2)]
    for draw in draws:
        assert [sorted(x) for x in draw] == [sorted(x) for x in plain]
    assert draws[0] == draws[1] != draws[2]
    assert draws[0] != ordered


@pytest.mark.parametrize("mix", ["D D 8", "6 6 6", "8 D"])
def test_a_dense_board_gets_a_legal_run_and_a_bound_at_a_short_deadline(mix):
    """A 64-hex stress board, 50 ms: a legal run (never nothing) and a bound no lower than it."""
    sc = stress_board(8, 1, mix)
    result = solve(sc.request, deadline=0.05)
    assert result["routes"] and result["revenue"] > 0
    assert _legal(sc.request["board"], sc.request["company"], result) == result["revenue"]
    assert result["upper_bound"] >= result["revenue"]


def test_memory_cap_is_an_input_error_when_not_positive():
    from revenue.errors import InputError

    with pytest.raises(InputError) as bad:
        solve(stress_board(6, 1, "8 D").request, memory_mb=0)
    assert bad.value.field == "memory_mb"


def test_stress_board_shape():
    sc = stress_board(7, 2, "D D 8")
    hexes = sc.request["board"]["custom"]["hexes"]
    assert len(hexes) == 49
    cities = [h for h in hexes if h["code"].startswith("city")]
    assert all("slots:2" in h["code"] for h in cities)
    assert [t["name"] for t in sc.request["company"]["trains"]] == ["D", "D", "8"]
    owned = {t["hex"] for t in sc.request["board"]["tokens"] if t["company"] == "A"}
    assert len(owned) == 3


@pytest.mark.slow
@settings(max_examples=examples(40), **SETTINGS)
@given(st.integers(0, 2**31 - 1), st.booleans())
def test_large_board_path_with_1860_subsidies_and_objectives(monkeypatch, seed, capped):
    """1860 on random boards (halt subsidies, both objectives, leased trains, connected runs) on the
    large-board path: every run legal and no better than the reference's optimum, every bound at least
    it, in the objective's figure; proved only at the optimum (always without a cap)."""
    b, corp, trains, leased, objective = random_late_case(seed)
    expected = reference_1860(b, corp, trains, leased, objective, both=True)
    figure = (lambda revenue, subsidy: revenue + (subsidy if objective == "revenue_and_subsidy" else 0))
    request = {"board": b, "company": company_1860(corp, trains, leased), "objective": objective}
    with monkeypatch.context() as m:
        _large_board_path(m, 4 if capped else None)
        seen = []
        result = solve(request, on_improve=seen.append, memory_mb=1e-9 if capped else None)
    best = figure(*expected)
    for run in seen + [result]:
        check = evaluate({"board": b, "company": company_1860(corp, trains, leased),
                          "routes": [{k: r[k] for k in ("train", "nodes", "connections", "halts")}
                                     for r in run["routes"]]})
        assert check["legal"] or not run["routes"], (seed, check)
        assert (check["revenue"], check["subsidy"]) == (run["revenue"], run["subsidy"])
        assert figure(run["revenue"], run["subsidy"]) <= best <= run["upper_bound"], (seed, run, expected)
    if not capped:
        assert result["optimal"] and (result["revenue"], result["subsidy"]) == expected
    elif result["optimal"]:
        assert (result["revenue"], result["subsidy"]) == expected


@settings(max_examples=examples(150), **SETTINGS)
@given(st.integers(0, 2**31 - 1), st.booleans(), st.integers(2, 4))
def test_later_trains_bound_matches_reference(monkeypatch, seed, large_path, n_trains):
    """The combination's bounds on the later trains (core.combine._later_best, with key bitmaps of every
    route group, and the last train's best route that fits the trains before the one searched), used
    here on every search of two to four trains however few its routes: the optimum of the reference,
    on both paths of the search. (Four trains: only there does a middle train both skip to its next
    fitting route and bound the trains after it; a key count shared by the two once read keys never
    written, which crashed the process or proved a run short of the optimum.)"""
    board_req, company_req, trains = random_board(seed, max_trains=3)
    company_req = {**company_req, "trains": (company_req["trains"] * 4)[:n_trains]}
    trains = (trains * 4)[:n_trains]
    expected = _reference(board_req, trains)
    with monkeypatch.context() as m:
        m.setattr(combination, "INDEX_MIN", 0)
        m.setattr(combination, "LATER_MIN", 0)
        if large_path:
            _large_board_path(m)
        result = solve({"board": board_req, "company": company_req})
    assert result["optimal"] and result["revenue"] == expected == result["upper_bound"], seed
    assert _legal(board_req, company_req, result) == expected


@settings(max_examples=examples(60), **SETTINGS)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["stream", "near deadline", "far deadline"]))
def test_heuristic_run_first_then_the_plain_exact_search(monkeypatch, seed, caller):
    """A caller with a near deadline or a stream gets the heuristic's run before a probe that falls short
    (forced here: no quick probe) and the plain exact search after it: every run reported legal and no
    better than the reference's optimum, which the answer proves. A deadline further off than
    QUICK_PROBE_WITHIN_SECONDS searches as no deadline does: the whole probe, no heuristic run first."""
    board_req, company_req, trains = random_board(seed)
    expected = _reference(board_req, trains)
    calls = []
    with monkeypatch.context() as m:
        m.setattr(search_module, "QUICK_PROBE_STEPS", 0)
        if caller == "near deadline":           # (near: a long deadline counted as near, for a busy machine)
            m.setattr(search_module, "QUICK_PROBE_WITHIN_SECONDS", 1200)
        first_run = search_module.Search._first_run
        m.setattr(search_module.Search, "_first_run", lambda self, *a: (calls.append(1), first_run(self, *a)))
        seen = []
        result = solve({"board": board_req, "company": company_req}, deadline=600,
                       on_improve=seen.append if caller == "stream" else None)
    for run in seen + [result]:
        assert _legal(board_req, company_req, run) <= expected <= run["upper_bound"]
    assert result["optimal"] and result["revenue"] == expected == result["upper_bound"]
    heuristic_first = caller != "far deadline" and "note" not in result    # (a note: no search, no token)
    assert calls == ([1] if heuristic_first else [])


def _shared_case(seed: int, copies: int):
    """A random board whose company runs `copies` trains of one type: (board, company, trains, problem,
    reachable nodes), or None without a token."""
    board_req, company_req, trains = random_board(seed, max_trains=1)
    trains = trains[:1] * copies
    company_req = {**company_req, "trains": [{"name": trains[0]["name"]}] * copies}
    graph = graph_for(board_req)
    problem = compile_problem(graph, build_company(company_req, graph.board))
    if not problem.token.any():
        return None
    return board_req, company_req, trains, problem, reachable(problem)


@settings(max_examples=examples(80), **SETTINGS)
@given(st.integers(0, 2**31 - 1), st.integers(2, 3))
def test_shared_track_bound_holds(seed, copies):
    """relax.shared_track_bound (several trains of a type that share no track, by their exits at each
    node) is at least the reference's optimum of those trains, where it applies."""
    case = _shared_case(seed, copies)
    if case is None:
        return
    board_req, _, trains, problem, allowed = case
    shared = shared_track_bound(problem, problem.specs[trains[0]["name"]], copies, allowed)
    if shared is not None:
        assert shared >= _reference(board_req, trains), seed


def test_shared_track_bound_is_tighter_than_the_trains_apart():
    """On some random boards the bound of two trains together is below twice one train's: the test
    above checks a bound that bites (and on a 49-hex stress board two D trains earn 1200 at most, where
    one earns 760 at most)."""
    tighter = 0
    for seed in range(200):
        case = _shared_case(seed, 2)
        if case is None:
            continue
        _, _, trains, problem, allowed = case
        spec = problem.specs[trains[0]["name"]]
        shared = shared_track_bound(problem, spec, 2, allowed)
        if shared is not None and shared < 2 * route_bound(problem, spec, allowed, ends_apart=True):
            tighter += 1
    assert tighter >= 10, tighter
    sc = stress_board(7, 2, "D D 8")
    graph = graph_for(sc.request["board"])
    problem = compile_problem(graph, build_company(sc.request["company"], graph.board))
    allowed = reachable(problem)
    assert route_bound(problem, problem.specs["D"], allowed, ends_apart=True) == 760
    assert shared_track_bound(problem, problem.specs["D"], 2, allowed) == 1200


@settings(max_examples=examples(100), **SETTINGS)
@given(st.integers(0, 2**31 - 1))
def test_joint_bound_holds(seed):
    """relax.joint_bound (all the company's trains sharing no track, by the exits of each node) is at
    least the reference's optimum, where it applies."""
    board_req, company_req, trains = random_board(seed, min_trains=2)
    graph = graph_for(board_req)
    problem = compile_problem(graph, build_company(company_req, graph.board))
    if not problem.token.any():
        return
    joint = joint_bound(problem, reachable(problem))
    if joint is not None:
        by_name = {t["name"]: t for t in trains}
        assert joint >= _reference(board_req, [by_name[t["name"]] for t in company_req["trains"]]), seed


def test_joint_bound_applies_and_bites():
    """On random boards of n-stop trains the joint bound applies, and on some it is below the sum of
    the trains' own bounds (so the test above checks a bound that bites)."""
    applies = tighter = 0
    for seed in range(200):
        board_req, company_req, _ = random_board(seed, min_trains=2)
        graph = graph_for(board_req)
        problem = compile_problem(graph, build_company(company_req, graph.board))
        if not problem.token.any():
            continue
        allowed = reachable(problem)
        joint = joint_bound(problem, allowed)
        if joint is not None:
            applies += 1
            apart = sum(route_bound(problem, problem.specs[t.name], allowed, ends_apart=True)
                        for t in problem.company.trains)
            tighter += joint < apart
    assert applies >= 100 and tighter >= 50, (applies, tighter)     # 155 and 146 of 200 when written


@pytest.mark.slow
@settings(max_examples=examples(100), **SETTINGS)
@given(st.integers(0, 2**31 - 1))
def test_neighbourhoods_of_a_run_give_legal_runs(monkeypatch, seed):
    """The integer program's rounds cut short at once (as on a large board's deadline), and its
    neighbourhood search (revenue.optimizer.pathbound.neighbourhoods) started from no run at all instead of the
    best run: each train re-optimised beside the others' routes builds a run (some train earns when the
    optimum is above 0). Every run reported is legal and no better than the reference's optimum, every
    bound at least the optimum, and the search still proves it."""
    from revenue.optimizer import pathbound, program

    board_req, company_req, trains = random_board(seed, min_trains=2)
    expected = _reference(board_req, trains)
    reached = []
    with monkeypatch.context() as m:
        _large_board_path(m)
        solve_program = program.Program.solve
        m.setattr(program.Program, "solve",
                  lambda self, stop, until, better, first_until=None, cut_short=None:
                  solve_program(self, stop, until, better, time.perf_counter(), cut_short))
        descend = pathbound._descend
        m.setattr(pathbound, "_descend", lambda formulation, pools, incumbent, stop, until, score, chosen, places:
                  reached.append(descend(formulation, pools, incumbent, stop, until, 0, [None] * len(chosen), places)))
        _check_anytime(board_req, company_req, expected, False)
    assert all(0 < score <= expected for score in reached) if expected > 0 else True, (seed, reached)


class _Recording(Incumbent):
    """An incumbent that also lists every run reported to it."""

    def __init__(self, stops, reported: list):
        super().__init__(stops)
        self.reported = reported

    def report(self, run):
        self.reported.append(run)
        super().report(run)


def _empty_pools(problem, allowed, adj):
    """Empty pools of `problem`'s routes, for walks without a deadline."""
    return Pools(problem, (1, 0), Stops(None, None), adj, allowed)


def _detours_case(seed: int) -> int:
    """Each detour proposed for a route (revenue.core.detours through moves._proposals) makes a path:
    its chains join one after the other, no node twice, no two chains sharing a track key, none sharing
    one with the other trains' track; it keeps a token city and the train's stop limit, and its nodes are
    worth more than the route's (the estimate orders the proposals). The number of proposals checked."""
    from revenue.optimizer import moves
    from revenue.optimizer.formulations import usable_chains
    from revenue.optimizer.relax import worth_and_stops

    case = _walk_case(seed)
    if case is None:
        return 0
    problem, allowed, adj, stop = case
    ends = usable_chains(problem, allowed, adj)
    rng = np.random.default_rng(seed)
    proposed = 0
    for name, spec in problem.specs.items():
        routes = kept_routes(problem, name, adjacency_module.sorted_adjacency(problem, name, adj), allowed, stop, 64)
        worth, stops, _ = worth_and_stops(problem, spec, allowed, (1, 0))
        for i in rng.permutation(len(routes))[:6]:
            a, b = int(routes.begin[i]), int(routes.end[i])
            nodes, chains = routes.nodes[a:b].copy(), routes.chains[a + 1:b].copy()
            # the other trains' track: another route's keys that this one does not share, or none
            other = routes.keys[int(rng.integers(len(routes)))]
            taken = other if not (other & routes.keys[i]).any() else np.zeros(problem.words, dtype=np.uint64)
            for added, made in moves._proposals(problem, name, adj, allowed, taken, nodes, chains):
                proposed += 1
                assert set(added.tolist()) <= set(made.tolist())
                keys = problem.chain_keys[made]
                assert not (keys & taken).any()
                assert all(not (keys[p] & keys[q]).any() for p in range(len(made)) for q in range(p))
                degree: dict[int, int] = {}
                for c in made.tolist():
                    for v in ends[c]:
                        degree[v] = degree.get(v, 0) + 1
                # a path: n nodes joined by n - 1 chains, two of them ends (so no cycle, one piece)
                assert len(degree) == len(made) + 1 and sorted(degree.values())[-1] <= 2, (seed, made)
                assert sum(1 for d in degree.values() if d == 1) == 2
                visited = np.array(sorted(degree))
                assert problem.token[visited].any()
                if len(stops) == 1:
                    assert (problem.cost[visited] > 0).sum() <= max(stops[0], (problem.cost[nodes] > 0).sum())
                assert worth[visited].sum() > worth[nodes].sum(), (seed, nodes, visited)
    return proposed


@settings(max_examples=examples(80), **SETTINGS)
@given(st.integers(0, 2**31 - 1))
def test_detours_are_richer_paths_that_avoid_the_taken_track(seed):
    _detours_case(seed)


def _moves_case(seed: int) -> bool:
    """From a poor run (each train the poorest route that fits beside the others'), the detour moves and the
    perturbed moves (revenue.optimizer.moves) give runs that the evaluator finds legal and priced alike, no better
    than the reference's optimum, never below the run they start from. Whether the detour moves raised it."""
    board_req, company_req, trains = random_board(seed, min_trains=2)
    graph = graph_for(board_req)
    problem = compile_problem(graph, build_company(company_req, graph.board))
    if not problem.token.any():
        return False
    expected = _reference(board_req, trains)
    allowed, adj = reachable(problem), adjacency(problem)
    found = _empty_pools(problem, allowed, adj)
    names = [t.name for t in problem.company.trains]
    used = np.zeros(problem.words, dtype=np.uint64)
    chosen = []
    for name in names:
        routes = found.walk(name, used, time.perf_counter() + 5)
        fits = [i for i in range(len(routes)) if not (routes.keys[i] & used).any()]
        if not fits:
            chosen.append(None)
            continue
        poorest = fits[-1]
        used |= routes.keys[poorest]
        chosen.append(routes.subset(np.arange(len(routes)) == poorest))
    start = found.run_of(names, chosen, time.perf_counter() + 5)
    if start is None:
        return False
    reported = []

    def check(score, picked):
        run = found.run_of(names, picked, time.perf_counter() + 5)
        assert run[0] == score
        assert _legal(board_req, company_req, {"routes": run[1], "revenue": sum(r["revenue"] for r in run[1])}) \
            == score <= expected

    incumbent = _Recording(found.stops, reported)
    score, moved = detour_moves(found, incumbent, start[0], list(found.chosen), time.perf_counter() + 5)
    assert start[0] <= score
    check(score, moved)
    # each route with arrays of its own, not a merged set's (which a long search of moves kept alive)
    assert all(r is None or len(r.nodes) == int(r.end[0] - r.begin[0]) for r in moved)
    incumbent.run = start
    perturbed_moves(found, incumbent, time.perf_counter() + 0.2)
    for run in reported:
        assert _legal(board_req, company_req, {"routes": run[1], "revenue": sum(r["revenue"] for r in run[1])}) \
            == run[0] <= expected
    return score > start[0]


@settings(max_examples=examples(60), **SETTINGS)
@given(st.integers(0, 2**31 - 1))
def test_moves_raise_a_poor_run_to_legal_runs(seed):
    _moves_case(seed)


def test_detours_and_moves_bite():
    """The detours are proposed, and the moves raise the poor run, on many random boards."""
    proposed = sum(_detours_case(seed) > 0 for seed in range(60))
    raised = sum(_moves_case(seed) for seed in range(60))
    assert proposed >= 10 and raised >= 6, (proposed, raised)     # 16 and 12 of 60 when written
