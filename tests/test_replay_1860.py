"""A whole real 1860 game (18xx.games hs_zmqggvxn_19354, the engine's own test fixture), every operating turn
(tests/data/1860_19354.jsonl): the state before the company ran (tiles, tokens, phase, leased trains and the
Southern's end of halts, replayed from the game's actions) and its `run_routes` action exactly as stored.

The game does not record the engine's revenues, so the player's run is priced twice, here and by the
reference's plain reading of rules/1860.md (tests/reference.py, its own board reading): the two must agree,
and the optimum, proved and at least the player's, must be the reference's optimum too (every other turn;
all with REVENUE_PROFILE=thorough). Early, middle and late
turns alike: in-hex connections (`"F2 1.2"`), one-hex connections (`["H4"]`), halts as the player counted
them, trains passing a tokened-out city, leased trains of insolvent companies (40 + 20 per stop)."""
from __future__ import annotations

import json
import pathlib

import pytest

from revenue.evaluate import evaluate
from revenue.interop import run_routes_action
from revenue.solve import solve

from .profiles import PROFILE
from .test_1860 import reference, reference_run

TURNS = [json.loads(line) for line in
         (pathlib.Path(__file__).parent / "data" / "1860_19354.jsonl").read_text().splitlines() if line.strip()]


# The reference's own search takes seconds on a late board: every other turn in the ci profile, all in thorough.
REFERENCE_EVERY = 1 if PROFILE == "thorough" else 2


def _id(turn):
    return f"{turn['action_id']}-{turn['request']['company']['id']}"


def test_the_game_is_all_there():
    assert len(TURNS) == 64
    phases = {t["request"]["board"]["phase"] for t in TURNS}
    assert phases == {str(p) for p in range(2, 10)}
    assert sum(any(tr.get("leased") for tr in t["request"]["company"]["trains"]) for t in TURNS) == 9


@pytest.mark.parametrize("turn", TURNS, ids=_id)
def test_the_players_run_is_legal_and_priced_as_the_reference_prices_it(turn):
    request = {**turn["request"], "run_routes": turn["run_routes"]}
    result = evaluate(request)
    assert result["legal"], result
    board, company = turn["request"]["board"], turn["request"]["company"]
    leased = any(t.get("leased") for t in company["trains"])
    halts = [r.get("halts") for r in turn["run_routes"]["routes"]]
    routes = [(r["train"], r["nodes"], h) for r, h in zip(result["routes"], halts)]
    assert reference_run(board, company["id"], routes, leased) == (result["revenue"], result["subsidy"])


@pytest.mark.parametrize("turn", TURNS, ids=_id)
def test_the_optimum_is_proved_and_beats_the_player(turn):
    request = turn["request"]
    player = evaluate({**request, "run_routes": turn["run_routes"]})["revenue"]
    result = solve(request)
    assert result["optimal"] and result["upper_bound"] == result["revenue"]
    assert result["revenue"] >= player
    company = request["company"]
    if TURNS.index(turn) % REFERENCE_EVERY == 0:
        leased = any(t.get("leased") for t in company["trains"])
        assert result["revenue"] == reference(request["board"], company["id"],
                                              [t["name"] for t in company["trains"]], leased)
    # The answer as a run_routes action, read back as the engine reads it, is worth what the answer says.
    action = run_routes_action(company, result["routes"])
    again = evaluate({**request, "run_routes": action})
    assert again["legal"] and again["revenue"] == result["revenue"]
