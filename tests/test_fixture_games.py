"""The 18xx.games engine's own fixture games (github.com/tobymao/18xx, spec/fixtures/), replayed by revenue.game
from their exports as stored there (tests/data/games/fixtures/<title>_<game>.json): every operating turn's
board and running company equal those tests/data/games/<title>_<game>.jsonl holds for it (read from the
same logs independently, and checked by test_real_games against the revenue the engine stored for every
route), and every tile lay and station token a corporation made at its track and token steps is among those
revenue.moves lists on the board replayed just before it, within the company's cash where the replay
follows it. These games reach what the four games of tests/data/games/exports do not: 1830 through phase D
(trains bought between companies, a discard, the ERIE's home city chosen at its tile lay), 1889's early
exports of 2020, and 18Rhl's whole games (home tokens in the Rhine metropolises, the seeded coal mine and
steel mill, a president's bankruptcy). Cut just before each run, each game is suggested that run's company
and board."""
from __future__ import annotations

import copy
import json
import pathlib

import pytest

from revenue.game import steps, turns
from revenue.game.actions import standing_actions
from revenue.game.analysis import suggest
from revenue.game.next_moves import _second_lay, player_privates
from revenue.moves import legal_lays, legal_tokens

GAMES = pathlib.Path(__file__).parent / "data" / "games"
FIXTURES = sorted(p.stem for p in (GAMES / "fixtures").glob("*.json"))


def _export(game: str) -> dict:
    return json.loads((GAMES / "fixtures" / f"{game}.json").read_text())


def _board(request: dict) -> dict:
    """What a turn's board is compared by: lists sorted, train ids and privates aside (the jsonl's requests
    name neither)."""
    board, company = request["board"], request["company"]
    return {"title": board["title"].lower(), "phase": board["phase"], "options": board.get("options") or {},
            "tiles": sorted((t["hex"], t["tile"], t["rotation"]) for t in board["tiles"]),
            "tokens": sorted((t["hex"], t["city"], t["company"]) for t in board["tokens"]),
            "company": company["id"],
            "trains": sorted((t["name"], bool(t.get("leased"))) for t in company["trains"])}


def test_the_fixtures_are_there():
    assert "1830_26855" in FIXTURES


@pytest.mark.parametrize("game", FIXTURES)
def test_every_turn_is_the_board_the_game_ran_on(game):
    wanted = {row["action_id"]: row for row in map(json.loads, (GAMES / f"{game}.jsonl").read_text().splitlines())}
    mine = {turn.action_id: turn for turn in turns(_export(game))}
    assert sorted(mine) == sorted(wanted)
    differ = [action_id for action_id, turn in mine.items()
              if _board(turn.request) != _board(wanted[action_id]["request"])]
    assert not differ, [(i, _board(mine[i].request), _board(wanted[i]["request"])) for i in differ[:1]]


@pytest.mark.parametrize("game", FIXTURES)
def test_every_lay_and_token_made_is_listed_before_it(game):
    lays = tokens = 0
    unlisted = []
    placing = None           # (corporation, its tokens before, the cities listed, action id)
    for _, action, state in steps(_export(game)):
        if placing is not None:
            corporation, before, listed, action_id = placing
            placing = None
            placed = {(t["hex"], t["city"]) for t in state.board_request()["tokens"]
                      if t["company"] == corporation} - before
            if len(placed) != 1 or not placed <= listed:
                unlisted.append((action_id, corporation, sorted(placed)))
        corporation = action.get("entity")
        if (action.get("entity_type") != "corporation" or state.operator != corporation
                or action.get("type") not in ("lay_tile", "place_token")):
            continue
        request = state.request(corporation, running=True)
        if state.cash(corporation) is not None:
            request["company"]["cash"] = state.cash(corporation)
        if action["type"] == "lay_tile":
            lays += 1
            listed = {(x["hex"], x["tile"], x["rotation"])
                      for x in legal_lays(request, player_privates(state), second=_second_lay(state))}
            made = (action["hex"], action["tile"].rsplit("-", 1)[0], action["rotation"])
            if made not in listed:
                unlisted.append((action["id"], corporation, made))
        else:
            before = {(t["hex"], t["city"]) for t in state.board_request()["tokens"] if t["company"] == corporation}
            if not before:          # its home token, in the city it chose once its tile was laid (1830's ERIE)
                continue
            tokens += 1
            placing = corporation, before, {(x["hex"], x["city"]) for x in legal_tokens(request)}, action["id"]
    assert lays and tokens and not unlisted, unlisted


@pytest.mark.parametrize("game", FIXTURES)
def test_suggest_before_each_run_names_the_company_on_its_board(game):
    """The game cut just before each of its runs: suggest names the company that ran, on the board it ran on."""
    export = _export(game)
    runs = [i for i, a in standing_actions(export["actions"]) if a["type"] == "run_routes"]
    differ = []
    for end, turn in zip(runs, turns(copy.deepcopy(export))):
        answer = suggest({**export, "status": "active", "actions": copy.deepcopy(export["actions"][:end])})
        if answer.get("company") != turn.company or answer.get("request") != turn.request:
            differ.append((turn.action_id, turn.company, answer.get("company") or answer.get("waiting_for")))
    assert runs and not differ, differ
