"""Real 18xx.games operating turns of 1889 (tests/data/1889.jsonl, a copy of the project's conformance
data: the state before a company ran, the engine's run, and what the auto-router found): the optimizer
proves an answer at least as good as both, and each route the game ran, given as its visited nodes in
order (`visited_in_order`), evaluates to the engine's revenue."""
from __future__ import annotations

import json
import pathlib

import pytest

from revenue.api import parse_request
from revenue.evaluation import evaluate
from revenue.graph_cache import graph_for
from revenue.optimizer import solve
from revenue.v1 import revenue_pb2

STATES = [json.loads(line) for line in
          (pathlib.Path(__file__).parent / "data" / "1889.jsonl").read_text().splitlines() if line.strip()]


def test_the_data_is_all_there():
    assert len(STATES) == 48
    assert {s["request"]["board"]["title"] for s in STATES} == {"1889"}


@pytest.mark.parametrize("state", STATES, ids=lambda s: f"{s['game']}-{s['action_id']}")
def test_solve_matches_or_beats_the_engine(state):
    result = solve(state["request"])
    assert result["optimal"]
    assert result["revenue"] >= state["engine_revenue"]
    assert result["revenue"] >= state["auto_router_revenue"]
    # proved: the bound is the revenue itself (in action 356 the player ran 120 where 140 was possible)
    assert result["upper_bound"] == result["revenue"]


@pytest.mark.parametrize("state", STATES, ids=lambda s: f"{s['game']}-{s['action_id']}")
def test_the_engine_routes_evaluate_to_the_engine_revenue(state):
    routes = [{"train": r["train_name"], "nodes": r["visited_in_order"]} for r in state["run_routes"]]
    result = evaluate({**state["request"], "routes": routes})
    assert result["legal"]
    assert [r["revenue"] for r in result["routes"]] == [r["engine_revenue"] for r in state["run_routes"]]
    assert result["revenue"] == state["engine_revenue"]


def _stored_request(state):
    """The state with the game's run_routes exactly as stored (without the fields added to the data)."""
    added = ("train_name", "engine_revenue", "visited_in_order")
    routes = [{k: v for k, v in r.items() if k not in added} for r in state["run_routes"]]
    return {"board": state["request"]["board"], "company": state["request"]["company"],
            "run_routes": {"type": "run_routes", "entity": state["request"]["company"]["id"], "routes": routes}}


@pytest.mark.parametrize("state", STATES, ids=lambda s: f"{s['game']}-{s['action_id']}")
def test_the_stored_run_routes_evaluate_to_the_engine_revenue(state):
    request = parse_request(_stored_request(state), revenue_pb2.EvaluateRequest)
    result = evaluate(request)
    assert result["legal"]
    assert [r["revenue"] for r in result["routes"]] == [r["engine_revenue"] for r in state["run_routes"]]
    assert result["revenue"] == state["engine_revenue"]
    # Read as the engine reads it, each route visits the nodes the engine walked, in its order or reversed.
    for read, stored in zip(result["routes"], state["run_routes"]):
        assert read["nodes"] in (stored["visited_in_order"], stored["visited_in_order"][::-1])


def _either_way(connections):
    return sorted(min(tuple(c), tuple(c[::-1])) for c in connections)


def _one_track_each(graph, names):
    """Whether one chain only joins each two consecutive nodes (else either route may take either)."""
    ids = [graph.by_name[n] for n in names]
    return all(sum(graph.chains[c].other(u) == v for c in graph.adjacency[u]) == 1 for u, v in zip(ids, ids[1:]))


def test_the_best_run_writes_the_engines_connections():
    # Where a route of the best run visits the nodes of a route the player ran (in order, either way),
    # along the only track there is between each two, its connections are
    # the action's entries up to the direction of each; and every answer's run_routes action evaluates to
    # the claimed revenue.
    compared = 0
    for state in STATES:
        result = solve(state["request"])
        played = {min(tuple(r["visited_in_order"]), tuple(r["visited_in_order"][::-1])): r
                  for r in state["run_routes"]}
        graph = graph_for(state["request"]["board"])
        for route in result["run_routes"]["routes"]:
            stored = played.get(min(tuple(route["nodes"]), tuple(route["nodes"][::-1])))
            if stored is not None and _one_track_each(graph, route["nodes"]):
                compared += 1
                assert _either_way(route["connections"]) == _either_way(stored["connections"]), state["action_id"]
        back = evaluate({"board": state["request"]["board"], "company": state["request"]["company"],
                         "run_routes": result["run_routes"]})
        assert back["legal"] and back["revenue"] == result["revenue"]
    assert compared >= 45, compared      # 49 of the 84 routes the players ran (measured)
