"""The kernels' generic route-level rules (revenue.titles.base.RouteRules and the per-node hooks) against
the reference's plain reading of the same rules, on random boards with random rules."""
from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings, strategies as st

from revenue.board_request import build_board
from revenue.evaluation import evaluate
from revenue.graph import build_graph
from revenue.optimizer import solve
from revenue.titles import TITLES
from revenue.titles.base import RouteBonus, RouteRules, RunRules

from . import hits
from .boards import linked_board, random_board
from .profiles import examples
from .ref_board import ref_board
from .reference import DataRules, answer_of, best_run
from .rule_seeking import MECHANISMS, optimum, reference_trains, seek, without


def random_rules(seed: int, names: list[str]) -> dict:
    """Random rules over the board's node names (each kind of rule present about half the time)."""
    rng = random.Random(seed)
    pick = lambda k: sorted(rng.sample(names, min(k, len(names))))   # sorted: no hash order
    data: dict = {}
    if rng.random() < 0.3:
        data["forbid"] = set(pick(1))
    if rng.random() < 0.4:
        data["no_end"] = set(pick(rng.randint(1, 3)))
    if rng.random() < 0.3:
        data["groups"] = {n: ["X"] for n in pick(2)}
    if rng.random() < 0.4:
        data["need"] = (set(pick(rng.randint(1, 4))), rng.choice([1, 1, 2]))
    if rng.random() < 0.4:
        ends = set(pick(rng.randint(2, 5)))
        data["alt"] = (ends, {n: rng.choice([2, 3]) for n in pick(3)})
    if rng.random() < 0.5:
        grouped = list(pick(rng.randint(2, 6)))
        data["merge"] = ({n: i % 2 for i, n in enumerate(grouped)}, rng.choice([0, 10]))
    if rng.random() < 0.3:
        data["metro"] = {n: 0 for n in pick(3)}
    if rng.random() < 0.4:
        data["bypass"] = 1
    if rng.random() < 0.4:
        data["flags"] = {n: rng.choice([2, 4]) for n in pick(rng.randint(1, 4))}
    if rng.random() < 0.4:
        data["flag_max"] = {rng.choice([0, 1, 2]): rng.choice([0, 1])}
    if rng.random() < 0.3:
        data["flag_min"] = {rng.choice([1, 2]): 1}
    if rng.random() < 0.4:
        data["connected"] = True
    if rng.random() < 0.3:
        data["no_reentry"] = True
    if rng.random() < 0.6:
        bonuses = []
        for _ in range(rng.randint(1, 3)):
            clauses = [({n: rng.randint(0, 2) for n in pick(rng.randint(1, 4))}, rng.randint(1, 2))
                       for _ in range(rng.randint(1, 2))]
            bonuses.append((rng.choice([10, 20, 40]), clauses))
        data["bonuses"] = bonuses
    return data


def install(monkeypatch, data: dict) -> None:
    """Give the custom title hooks that apply `data` (by node name) through the generic mechanisms."""
    custom = TITLES["custom"]

    def route_rules(train, company, board, graph):
        ids = graph.by_name
        need, count = data.get("need", (set(), 0))
        ends, mult = data.get("alt", (set(), {}))
        merge, penalty = data.get("merge", ({}, 0))
        return RouteRules(
            bonuses=[RouteBonus(f"bonus {i}", amount, [({ids[n]: c for n, c in classes.items()}, minimum)
                                                      for classes, minimum in clauses])
                     for i, (amount, clauses) in enumerate(data.get("bonuses", ()))],
            end_nodes={ids[n] for n in need}, need_ends=count,
            alt_multiplier={ids[n]: m for n, m in mult.items()}, alt_ends={ids[n] for n in ends},
            merge={ids[n]: g for n, g in merge.items()}, merge_penalty=penalty,
            metro={ids[n]: m for n, m in data.get("metro", {}).items()},
            bypass=data.get("bypass", 0), flags={ids[n]: f for n, f in data.get("flags", {}).items()},
            no_reentry=data.get("no_reentry", False))

    def run_rules(company, board, graph):
        return RunRules(flag_max=data.get("flag_max", {}), flag_min=data.get("flag_min", {}),
                        connected=data.get("connected", False))

    monkeypatch.setattr(custom, "route_rules", route_rules, raising=False)
    monkeypatch.setattr(custom, "run_rules", run_rules, raising=False)
    monkeypatch.setattr(custom, "visit_allowed", lambda train, node: node.name not in data.get("forbid", ()),
                        raising=False)
    monkeypatch.setattr(custom, "end_allowed", lambda train, node: node.name not in data.get("no_end", ()),
                        raising=False)
    monkeypatch.setattr(custom, "node_groups",
                        lambda train, node: tuple(node.groups) + tuple(data.get("groups", {}).get(node.name, ())),
                        raising=False)


def check(monkeypatch, board_req, company_req, trains, data) -> int:
    """The optimizer under the rules `data` against the reference; the answer re-checked by the evaluator.
    Returns the optimum."""
    with monkeypatch.context() as m:
        install(m, data)
        result = solve({"board": board_req, "company": company_req})
        expected, _, reading = best_run(ref_board(board_req), "A", reference_trains(trains), DataRules(data),
                                        answer=answer_of(result))
        assert result["optimal"] and result["revenue"] == expected, data
        # The reference reads the answer too: a legal run, each route worth what the optimizer says.
        assert reading == (expected, [r["revenue"] for r in result["routes"]]), reading
        check = evaluate({"board": board_req, "company": company_req,
                          "routes": [{k: r[k] for k in ("train", "nodes", "connections")} for r in result["routes"]]})
        assert check["legal"] and check["revenue"] == expected
        assert [r["revenue"] for r in check["routes"]] == [r["revenue"] for r in result["routes"]]
    return expected


@settings(max_examples=examples(200, "RULES_EXAMPLES"))
@given(st.integers(0, 2**31 - 1))
@example(71860311)   # legal one way round only: the merged pair's kept stop must be the one that fits
@example(110358)     # merging drops the company's city from the stops: no legal stop choice, so no route
def test_generic_rules_match_reference(monkeypatch, seed):
    # odd seeds: the small boards of random_board (odd tiles); even ones: linked boards (longer runs)
    board_req, company_req, trains = random_board(seed, max_trains=3) if seed % 2 else linked_board(seed)
    names = list(build_graph(build_board(board_req)).by_name)
    if not names:
        return
    data = random_rules(seed, names)
    check(monkeypatch, board_req, company_req, trains, data)


@pytest.mark.parametrize("mechanism", MECHANISMS)
@settings(max_examples=examples(8, "RULES_EXAMPLES"))
@given(seed=st.integers(0, 2**31 - 1))
def test_each_rule_where_it_decides_the_optimum(monkeypatch, mechanism, seed):
    # One rule aimed at the unconstrained best run of a linked board (tests/rule_seeking.py).
    board_req, company_req, trains, data = seek(mechanism, seed)
    check(monkeypatch, board_req, company_req, trains, data)


HIT_BOARDS = examples(50)


@pytest.mark.slow
@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_each_rule_decides_the_optimum_often(monkeypatch, mechanism):
    # On fixed seeds (a deterministic rate): the optimizer against the reference with the rule, and the
    # reference's optimum without it; the rule must change the optimum on at least FLOOR of the boards.
    decided = 0
    for seed in range(HIT_BOARDS):
        board_req, company_req, trains, data = seek(mechanism, seed)
        with_rule = check(monkeypatch, board_req, company_req, trains, data)
        decided += with_rule != optimum(board_req, trains, without(mechanism, data))
    rate = hits.record(f"generic: {mechanism}", decided, HIT_BOARDS)
    assert rate >= hits.FLOOR, f"{mechanism} decides the optimum on {decided} of {HIT_BOARDS} boards"
