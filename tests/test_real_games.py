"""Whole real 18xx.games games, every operating turn (tests/data/games/*.jsonl): the state before the company
ran, replayed from the game's actions (tiles, tokens and their moves on upgrades, home tokens, phases, the
company's trains, undos applied; 1860's leased trains and the Southern's end of halts; 18Rhl's options and the
variable coal mine and steel mill the engine drew), and its `run_routes` action exactly as stored. The action
logs are the engine's own test fixtures (github.com/tobymao/18xx, spec/fixtures/1830/29133.json,
spec/fixtures/1830/26855.json, spec/fixtures/1860/19354.json, spec/fixtures/18Rhl/96576.json,
spec/fixtures/1889/956.json, spec/fixtures/1889/5033.json, spec/fixtures/18Rhl/reference_game.json); the
variable coal mine and steel mill of 18Rhl are the only placement under which the stored revenues come out
(J3 and D13 in 96576, D11 and D9 in the reference game, as their seeds give).

- 1830, games 29133 (24 turns) and 26855 (43 turns, four players, through phase D: trains bought from
  other companies, a discard, rusting, a company's twice-visited double-town hex, the ERIE's home city
  chosen when its tile is laid) and 18Rhl, game 96576 (94 turns) store the engine's revenue of every route:
  each stored route evaluates to it.
- 1860, game hs_zmqggvxn_19354 (64 turns; an older export without revenues): the stored run is legal and the
  reference (tests/reference.py, its own board reading) prices it as the evaluator does.
- 1889, game 956 (57 turns, three players, phases 2 to 5; spec/fixtures/1889/956.json, an export of 2020
  without revenues, each connection's hexes sorted by name; the Ehime Railway's and the Mitsubishi Ferry's
  tile lays): likewise, the stored run is legal and the reference prices it as the evaluator does.
- 1889, game 5033 (68 turns, four players, through phase D: D trains on routes of up to 16 chains at the
  off-boards' diesel values, trains exchanged for D trains; spec/fixtures/1889/5033.json, also without
  revenues): likewise, except 8 late turns (actions 630-713, `stored_run_illegal`) whose D-train run
  crosses the side between D9 and E8 twice, by the two branches of tiles 23 and 25 that share it. The engine
  of 2020 checked only that no path was used twice and accepted these runs; today's engine refuses any
  reuse of a hex side's track ("Route cannot reuse track on <hex>"), and so do the evaluator (`track_reused`)
  and the reference (no legal reading of the run).
- 18Rhl, the engine's reference games hs_znvlgfsh_1626962701 (spec/fixtures/18Rhl/reference_game.json, 87 turns,
  phases 2 to 8) and hs_tmekvprd_1627631653 (reference_game_bankruptcy.json, 75 turns, phases 3 to 8: a
  president's bankruptcy, his companies in receivership running on), three players, no options, KKK being
  today's KEG; Osterath's tile 935, laid by its private, has its town-city path stored as the connection
  ["E8"]: played in July 2021, when a green Rhine metropolis was one 3-slot city whose ferry crossing
  cost 10. Today's tiles X921-X926 have a city on each bank joined by the Trajekt, which the engine writes as
  a connection of its own ([hex]); the 5 and 18 turns whose routes crossed there have that entry inserted
  (`trajekts_added`) and are then worth what the engine of 2021 paid. The engine's revenues are stored and
  144 turns evaluate to them; 18 (`rules_changed`) do not, for rules changed since: 6 routes reach green
  Koeln from the bank without the company's token (`no_token`: one city then), and 12 routes through Moers
  (D7) earn more Montan bonus today: today's engine gives the brown Moers tile 947 a coal icon at setup, the
  engine of 2021 lost D7's with the upgrade (the difference is exactly what that coal adds: the doubling, or
  the whole bonus).

In all of them the optimum is proved, at least the game's run, the reference's optimum too (every other turn in
the ci profile, all with REVENUE_PROFILE=thorough: the reference takes seconds on a late board, up to 2 minutes
on the 2021 games' phases 6 and 8, which only the thorough profile checks), and worth what it says when its
`run_routes` action is read back as the engine reads it."""
from __future__ import annotations

import json
import pathlib

import pytest

from revenue.evaluation import evaluate
from revenue.interop import run_routes_action
from revenue.optimizer import solve

from .profiles import PROFILE
from .ref_board import ref_board, train_defs
from .reference import G18RhlRules, Rules, answer_of, best_run, g18rhl_board, read_run
from .test_1860 import reference as reference_1860, reference_run as reference_run_1860

GAMES = pathlib.Path(__file__).parent / "data" / "games"
TURNS = [json.loads(line) for path in sorted(GAMES.glob("*.jsonl"))
         for line in path.read_text().splitlines() if line.strip()]
REFERENCE_EVERY = 1 if PROFILE == "thorough" else 2
GAMES_OF_2021 = {"hs_znvlgfsh_1626962701", "hs_tmekvprd_1627631653"}
# The phases whose turns are in the slow tier: late boards, where the reference (and 1860's pricing of the
# run as played) takes a second or more a turn. The quick tier keeps every other turn.
SLOW_PHASES = {"1860": {"5", "6", "7", "8", "9"}, "1889": {"D"}, "18rhl": {"4", "5", "6", "8"}}


def _reference_due(turn) -> bool:
    """Every turn in the thorough profile; in ci every other one, but not the late turns (phases 6 and 8) of the
    18Rhl games of 2021: on their boards the reference takes 5 s to 2 min a turn (two 6-trains, an 8-train)."""
    if PROFILE == "thorough":
        return True
    late = turn["game"] in GAMES_OF_2021 and turn["request"]["board"]["phase"] in ("6", "8")
    return TURNS.index(turn) % REFERENCE_EVERY == 0 and not late


def _id(turn):
    return f"{turn['request']['board']['title']}-{turn['game']}-{turn['action_id']}-{turn['request']['company']['id']}"


def _title(turn):
    return turn["request"]["board"]["title"]


def _turns():
    return [pytest.param(turn, id=_id(turn), marks=pytest.mark.slow
                         if turn["request"]["board"]["phase"] in SLOW_PHASES.get(_title(turn), ()) else ())
            for turn in TURNS]


def test_the_games_are_all_there():
    count = {}
    for turn in TURNS:
        count[_title(turn)] = count.get(_title(turn), 0) + 1
    assert count == {"1830": 24 + 43, "1860": 64, "18rhl": 94 + 87 + 75, "1889": 57 + 68}
    g5033 = [t for t in TURNS if t["game"] == "5033"]
    assert {t["request"]["board"]["phase"] for t in g5033} == {"2", "3", "4", "5", "6", "D"}
    assert sum("stored_run_illegal" in t for t in g5033) == 8
    g26855 = [t for t in TURNS if t["game"] == "26855"]
    assert {t["request"]["board"]["phase"] for t in g26855} == {"2", "3", "4", "5", "6", "D"}
    for game, first_phase, trajekts, changed in (("96576", "2", 0, 0), ("hs_znvlgfsh_1626962701", "2", 5, 8),
                                                 ("hs_tmekvprd_1627631653", "3", 18, 10)):
        rhl = [t for t in TURNS if t["game"] == game]
        assert {t["request"]["board"]["phase"] for t in rhl} == {first_phase, "3", "4", "5", "6", "8"}
        assert any(tr["name"] == "8" for t in rhl for tr in t["request"]["company"]["trains"])  # Rheingold-Express
        assert sum("trajekts_added" in t for t in rhl) == trajekts
        assert sum("rules_changed" in t for t in rhl) == changed


def _reference_reading(turn, result):
    """The reference's (total, per-route revenues) of the run read (1889), or None when it finds it illegal."""
    company = turn["request"]["company"]
    defs = train_defs(_title(turn))
    trains = [defs[t["name"]] for t in company["trains"]]
    return read_run(ref_board(turn["request"]["board"]), company["id"], trains, Rules(), answer_of(result))


@pytest.mark.parametrize("turn", _turns())
def test_the_stored_run_evaluates_as_the_engine_ran_it(turn):
    request = turn["request"]
    result = evaluate({**request, "run_routes": turn["run_routes"]})
    if "stored_run_illegal" in turn:    # accepted by the engine of 2020 only; the reference finds no legal reading
        assert not result["legal"]
        assert {r["error"]["rule"] for r in result["routes"] if r.get("error")} == {turn["stored_run_illegal"]}
        assert _reference_reading(turn, result) is None
        return
    stored = turn["run_routes"]["routes"]
    if "rules_changed" in turn:     # played in 2021 under rules changed since (the module's docstring)
        today = [r["error"]["rule"] if r.get("error") else r["revenue"] for r in result["routes"]]
        assert today == turn["rules_changed"]["today"]
        for route, engine_route in zip(result["routes"], stored):
            if not route.get("error") and route["revenue"] != engine_route["revenue"]:   # Moers' coal (D7)
                assert any(node.startswith("D7-") for node in route["nodes"])
                bonus = {b["name"]: b["amount"] for b in route["bonuses"]}
                assert route["revenue"] - engine_route["revenue"] == bonus.get("Montan doubled", bonus.get("Montan"))
        return
    assert result["legal"], result
    if "engine_revenue" in turn:
        assert [r["revenue"] for r in result["routes"]] == [r["revenue"] for r in stored]
        assert result["revenue"] == turn["engine_revenue"]
    elif _title(turn) == "1860":    # no revenues stored; the reference prices the run as the player chose it (halts)
        company = request["company"]
        leased = any(t.get("leased") for t in company["trains"])
        routes = [(r["train"], r["nodes"], s.get("halts")) for r, s in zip(result["routes"], stored)]
        assert reference_run_1860(request["board"], company["id"], routes, leased) == \
            (result["revenue"], result["subsidy"])
    else:       # 1889, no revenues stored: the reference prices the run read
        assert _reference_reading(turn, result) == (result["revenue"], [r["revenue"] for r in result["routes"]])


def _reference_optimum(turn, result) -> int:
    """The reference's optimum for the turn's company, having read the answer's run where it can."""
    board, company = turn["request"]["board"], turn["request"]["company"]
    names = [t["name"] for t in company["trains"]]
    if _title(turn) == "1860":
        return reference_1860(board, company["id"], names, any(t.get("leased") for t in company["trains"]))
    defs = train_defs(_title(turn))
    trains = [defs[n] for n in names]
    built = ref_board(board)
    if _title(turn) == "18rhl":
        expected, _, reading = best_run(g18rhl_board(built, company["id"]), company["id"], trains,
                                        G18RhlRules(built, company["id"]), answer=answer_of(result))
    else:
        expected, _, reading = best_run(built, company["id"], trains, answer=answer_of(result))
    assert reading == (expected, [r["revenue"] for r in result["routes"]]), reading
    return expected


@pytest.mark.parametrize("turn", _turns())
def test_the_optimum_is_proved_and_at_least_the_games_run(turn):
    request = turn["request"]
    played = evaluate({**request, "run_routes": turn["run_routes"]})["revenue"]
    result = solve(request)
    assert result["optimal"] and result["upper_bound"] == result["revenue"] >= played
    if _reference_due(turn):
        assert result["revenue"] == _reference_optimum(turn, result)
    # The answer as a run_routes action, read back as the engine reads it, is worth what the answer says.
    again = evaluate({**request, "run_routes": run_routes_action(request["company"], result["routes"])})
    assert again["legal"] and again["revenue"] == result["revenue"]
