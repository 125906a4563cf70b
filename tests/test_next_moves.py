"""`revenue suggest` at a company's track step: the best few legal lays and tokens of that moment, on real
games cut just before a lay the engine recorded (game 314, 1889: the last corporation of an operating round,
with the legal set; every first lay of the four games), 1860's second lay of a turn and its home track."""
from __future__ import annotations

import copy
import json
import pathlib

import pytest

from revenue.game import next_moves
from revenue.game.analysis import suggest

EXPORTS = pathlib.Path(__file__).parent / "data" / "games" / "exports"
EXPORT = json.loads((EXPORTS / "1889_314.json").read_text())
ROW = next(json.loads(line) for line in (EXPORTS / "1889_314.lays.jsonl").read_text().splitlines()
           if json.loads(line)["action_id"] == 253)     # KO, the last of OR 5.1 (a 3 train; 22 legal lays)


def _before(action_id: int) -> dict:
    end = next(i for i, a in enumerate(EXPORT["actions"]) if a.get("id") == action_id)
    return {**EXPORT, "status": "active", "actions": copy.deepcopy(EXPORT["actions"][:end])}


def _key(move: dict) -> tuple:
    return move["hex"], str(move["tile"]), move["rotation"]


def test_suggest_at_the_track_step_lists_the_best_legal_lays_and_tokens(monkeypatch):
    answer = suggest(_before(ROW["action_id"]))
    assert answer["waiting_for"] == "KO to begin its operating turn"
    lays, engine = answer["lays"], {_key(m) for m in ROW["engine_legal"]}
    assert lays["company"] == answer["tokens"]["company"] == ROW["company"]
    assert lays["legal"] == len(engine) and lays["complete"]
    assert 0 < len(lays["moves"]) <= next_moves.TOP and {_key(m) for m in lays["moves"]} <= engine
    assert lays["moves"][0]["gain"] >= 0
    gains = [m["revenue_after"] for m in lays["moves"]]
    assert gains == sorted(gains, reverse=True)
    monkeypatch.setattr(next_moves, "TOP", None)
    every = suggest(_before(ROW["action_id"]))["lays"]["moves"]
    assert _key(ROW["played"]) in {_key(m) for m in every} and len(every) == len(engine)


def test_no_moves_once_the_company_has_run():
    at = next(i for i, a in enumerate(EXPORT["actions"]) if a.get("id") == ROW["action_id"])
    ran = next(i for i, a in enumerate(EXPORT["actions"][at:], at) if a.get("type") == "run_routes")
    answer = suggest({**EXPORT, "status": "active", "actions": copy.deepcopy(EXPORT["actions"][:ran + 1])})
    assert "lays" not in answer and "tokens" not in answer


def test_the_command_prints_the_best_lays_and_tokens(tmp_path):
    from click.testing import CliRunner

    from revenue.cli import main

    game = tmp_path / "game.json"
    game.write_text(json.dumps(_before(ROW["action_id"])))
    out = CliRunner().invoke(main, ["suggest", str(game)])
    assert out.exit_code == 0, out.output
    assert "KO's best lays (of 22 legal" in out.output and "KO's best tokens" in out.output
    assert "waiting for KO to begin its operating turn" in out.output


GAME_1860 = json.loads((EXPORTS / "1860_19354.json").read_text())


def _second_lays_1860():
    """(the state before each second lay of a turn in the 1860 game, that lay)."""
    from revenue.game import steps

    previous = None
    for _, action, state in steps(copy.deepcopy(GAME_1860)):
        if (action["type"] == "lay_tile" and action["entity_type"] == "corporation" and previous is not None
                and previous["type"] == "lay_tile" and previous["entity"] == action["entity"]
                and state.round_kind == "operating"):
            yield state, action
        if action["type"] != "message":
            previous = action


def test_1860s_second_lays_hold_every_one_the_game_made():
    """1860's turn may lay a second yellow tile without a city after a first one: each of the 7 second lays of
    the game is among the second lays listed on the board before it, and every one listed is a new yellow
    tile without a city. Other titles have no second lay."""
    from revenue.moves import legal_lays
    from revenue.tiles import parse_tile

    seen = 0
    for state, action in _second_lays_1860():
        request = state.request(action["entity"])
        listed = legal_lays(request, next_moves.player_privates(state), second=True)
        assert (action["hex"], action["tile"].rpartition("-")[0], action["rotation"]) in \
            {(m["hex"], m["tile"], m["rotation"]) for m in listed}, action["id"]
        manifest = state.data.manifest
        assert all(manifest[m["tile"]]["color"] == "yellow" and not
                   parse_tile(manifest[m["tile"]]["code"], m["tile"]).cities for m in listed)
        assert all(m["hex"] not in {t["hex"] for t in request["board"]["tiles"]} for m in listed)
        seen += 1
    assert seen == 7
    assert legal_lays(ROW["request"], second=True) == []          # 1889


def test_suggest_lists_1860s_second_lay_after_a_yellow_tile_without_a_city():
    at = {a["id"]: i for i, a in enumerate(GAME_1860["actions"])}

    def suggested(after_id: int) -> dict:
        return suggest({**GAME_1860, "status": "active",
                        "actions": copy.deepcopy(GAME_1860["actions"][:at[after_id] + 1])})
    after_first = suggested(52)                     # C&N laid 742 (yellow, a halt), then 741 on G3 (53)
    assert after_first["lays"]["company"] == "C&N" and after_first["lays"]["legal"] > 0
    assert "tokens" in after_first
    assert "lays" not in suggested(53)              # two lays made
    assert "lays" not in suggested(107)             # C&N laid 746, a city: no second lay


def second_lay_request() -> tuple[dict, dict]:
    """(the 1860 game's request just before its last second lay of a turn (phase 5: upgrades to brown are
    first lays), that lay)."""
    requests = [(state.request(action["entity"]), action) for state, action in _second_lays_1860()]
    return requests[-1]         # (the state is one object, moved on by the walk: each request made at its lay)


def test_1860s_home_track_is_laid_as_the_company_floats(monkeypatch):
    """1860: a corporation floating on a hex without track lays its home track before the stock round goes
    on (the engine's HomeTrack step). Before each of the 5 such lays of the game, suggest waits for it and
    lists the lays on that hex only, the one made among them; an operating turn's lay on a home hex later is
    the company's turn (C&N's 788 on F2, action 164)."""
    from revenue.game import steps

    monkeypatch.setattr(next_moves, "TOP", None)
    at = {a["id"]: i for i, a in enumerate(GAME_1860["actions"])}
    home_lays = [a for _, a, state in steps(copy.deepcopy(GAME_1860))
                 if a["type"] == "lay_tile" and state.round_kind == "stock"]
    assert [a["id"] for a in home_lays] == [42, 97, 160, 223, 227]
    for action in home_lays:
        answer = suggest({**GAME_1860, "status": "active",
                          "actions": copy.deepcopy(GAME_1860["actions"][:at[action["id"]]])})
        assert answer["waiting_for"] == f"{action['entity']} to lay its home track on {action['hex']}"
        lays = answer["lays"]["moves"]
        assert {m["hex"] for m in lays} == {action["hex"]} and "tokens" not in answer
        assert (action["hex"], action["tile"].rpartition("-")[0], action["rotation"]) in \
            {_key(m) for m in lays}, action["id"]
    operating = {a["id"]: (state.round_name, state.operator) for _, a, state in steps(copy.deepcopy(GAME_1860))}
    assert operating[164] == ("OR 5.1", "C&N")


# per game: the first lays of a turn (of ../shared/games' lays) before which suggest lists that company's
# lays; before the others it waits for the turn before to end, where the replay cannot tell it has (1830's
# and 1889's turns that end once nothing is left to buy, 1860's trainless turns passed step by step)
SUGGESTED_BEFORE = {"1830_29133": 20, "1889_962": 31, "1889_314": 23, "1860_19354": 54}


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(SUGGESTED_BEFORE))
def test_suggest_before_each_first_lay_lists_the_lay_made(monkeypatch, game):
    """Cut just before a company's first lay of its turn: where suggest lists lays, they are that company's,
    within its cash, and the lay made is among them; it lists them before the pinned number of such lays."""
    monkeypatch.setattr(next_moves, "TOP", None)
    export = json.loads((EXPORTS / f"{game}.json").read_text())
    at = {a["id"]: i for i, a in enumerate(export["actions"])}
    listed = 0
    for line in (EXPORTS / f"{game}.lays.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["kind"] != "lay_tile":
            continue
        cut = copy.deepcopy(export["actions"][:at[row["action_id"]]])
        answer = suggest({**export, "status": "active", "actions": cut})
        if "lays" not in answer:
            assert "to begin its operating turn" not in answer.get("waiting_for", ""), row["action_id"]
            continue
        lays = answer["lays"]
        assert lays["company"] == row["company"] and lays["cash"] == row["request"]["company"]["cash"]
        played = row["played"]
        assert (played["hex"], str(played["tile"]), played["rotation"]) in {_key(m) for m in lays["moves"]}
        listed += 1
    assert listed == SUGGESTED_BEFORE[game]


@pytest.mark.parametrize("game", sorted(SUGGESTED_BEFORE))
def test_the_privates_that_block_are_the_players_open_ones(game):
    """At every lay and token of the games, the privates suggest takes to block their hexes are those no
    corporation has bought, nor closed (1830's BO with the B&O's first train), as test_lays reads them from
    the log."""
    from revenue.game import steps

    from .test_lays import player_privates as from_the_log

    export = json.loads((EXPORTS / f"{game}.json").read_text())
    moments = {json.loads(line)["action_id"] for line in (EXPORTS / f"{game}.lays.jsonl").read_text().splitlines()}
    seen = 0
    for _, action, state in steps(copy.deepcopy(export)):
        if action["id"] in moments:
            assert next_moves.player_privates(state) == from_the_log(export, action["id"]), action["id"]
            seen += 1
    assert seen == len(moments)
