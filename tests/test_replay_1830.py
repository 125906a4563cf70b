"""A whole real 1830 game (18xx.games game 29133, the engine's own test fixture), every operating turn
(tests/data/1830_29133.jsonl): the state before the company ran (tiles, tokens, phase, the company's trains
through purchases, rusting, discards and exchanges, replayed from the game's actions, undos applied) and its
`run_routes` action exactly as stored, whose routes carry the engine's revenue.

Each stored route evaluates to the engine's revenue, and the optimum is proved, at least the game's run and the
reference's optimum (tests/reference.py, its own board reading), and worth what it says when its `run_routes`
action is read back."""
from __future__ import annotations

import json
import pathlib

import pytest

from revenue.evaluate import evaluate
from revenue.interop import run_routes_action
from revenue.solve import solve

from .ref_board import ref_board, train_defs
from .reference import answer_of, best_run

TURNS = [json.loads(line) for line in
         (pathlib.Path(__file__).parent / "data" / "1830_29133.jsonl").read_text().splitlines() if line.strip()]
TRAIN_DEFS = train_defs("1830")


def _id(turn):
    return f"{turn['action_id']}-{turn['request']['company']['id']}"


def test_the_game_is_all_there():
    assert len(TURNS) == 24
    assert {t["request"]["board"]["phase"] for t in TURNS} == {"3", "4", "5", "6", "D"}


@pytest.mark.parametrize("turn", TURNS, ids=_id)
def test_the_stored_run_routes_evaluate_to_the_engine_revenue(turn):
    result = evaluate({**turn["request"], "run_routes": turn["run_routes"]})
    assert result["legal"], result
    assert [r["revenue"] for r in result["routes"]] == [r["revenue"] for r in turn["run_routes"]["routes"]]
    assert result["revenue"] == turn["engine_revenue"]


@pytest.mark.parametrize("turn", TURNS, ids=_id)
def test_the_optimum_is_proved_and_is_the_references(turn):
    request = turn["request"]
    result = solve(request)
    assert result["optimal"] and result["upper_bound"] == result["revenue"] >= turn["engine_revenue"]
    company = request["company"]
    trains = [{"name": t["name"], "distance": TRAIN_DEFS[t["name"]]["distance"]} for t in company["trains"]]
    expected, _, reading = best_run(ref_board(request["board"]), company["id"], trains, answer=answer_of(result))
    assert result["revenue"] == expected
    assert reading == (expected, [r["revenue"] for r in result["routes"]]), reading
    again = evaluate({**request, "run_routes": run_routes_action(company, result["routes"])})
    assert again["legal"] and again["revenue"] == result["revenue"]
