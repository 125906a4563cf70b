"""Games analysed (revenue.game.analysis) on the four real games of tests/data/games/exports/: every turn's
played run evaluates to the engine's revenue and the best run is proved at least as good as it and as the
engine's auto-router; `suggest` on the game cut just before each run names the company that ran and its
best run on the engine's board, and says what the game waits for elsewhere. 1889 game 962 is the quick
tier's; the other games are slow."""
from __future__ import annotations

import copy
import json
import pathlib
import threading
import time

import pytest

import revenue
from revenue.errors import InputError, Interrupted
from revenue.game import ReplayError, analysis, turns
from revenue.game.analysis import TURN_FIELDS, replay_game, suggest
from revenue.game.actions import standing_actions

from .server_helpers import unproved_request

EXPORTS = pathlib.Path(__file__).parent / "data" / "games" / "exports"
QUICK, SLOW = "1889_962", ("1830_29133", "1889_314", "1860_19354")
GAMES = [QUICK, *(pytest.param(g, marks=pytest.mark.slow) for g in SLOW)]


def _export(game: str) -> dict:
    return json.loads((EXPORTS / f"{game}.json").read_text())


def _engine(game: str) -> list[dict]:
    return [json.loads(line) for line in (EXPORTS / f"{game}.turns.jsonl").read_text().splitlines() if line]


def _cut(export: dict, end: int) -> dict:
    """The game in progress: its log up to (not including) position `end`."""
    return {**export, "status": "active", "actions": copy.deepcopy(export["actions"][:end])}


@pytest.mark.parametrize("game", GAMES)
def test_every_turn_is_played_and_solved(game):
    engine = _engine(game)
    replayed = list(replay_game(_export(game)))
    assert [t["action_id"] for t in replayed] == [e["action_id"] for e in engine]
    for turn, wanted in zip(replayed, engine):
        assert tuple(turn) == TURN_FIELDS
        assert turn["company"] == wanted["company"] and turn["round"].startswith("OR ")
        best, played = turn["best"], turn["played"]
        assert best["optimal"], turn["action_id"]
        assert best["revenue"] >= (wanted["engine_revenue"] or 0), turn["action_id"]
        assert best["revenue"] >= (wanted["auto_router_revenue"] or 0), turn["action_id"]
        if wanted["engine_revenue"] is None:          # 2020's exports store a route's hexes only
            assert played is None and turn["left"] is None
        else:
            assert played["legal"] and played["revenue"] == wanted["engine_revenue"], turn["action_id"]
            assert turn["left"] == best["revenue"] - played["revenue"] >= 0
        json.dumps(turn)                               # JSON-ready


def test_the_run_left_on_the_table_is_the_difference():
    left = {t["action_id"]: t["left"] for t in replay_game(_export(QUICK))}
    assert sum(left.values()) > 0 and min(left.values()) == 0


@pytest.mark.parametrize("game", GAMES)
def test_suggest_before_each_run_names_the_company_and_its_best_run(game):
    """Cut just before each run: the suggestion is that company's best run on the board it ran on. In 1860
    after the Southern has formed (and for a corporation in receivership), a turn starts with the run, the
    next company being the first in share price order once the company before has bought its trains or
    cannot pay for one (its cash decides)."""
    export = _export(game)
    runs = [i for i, a in standing_actions(export["actions"]) if a["type"] == "run_routes"]
    for end, turn in zip(runs, turns(export)):
        answer = suggest(_cut(export, end))
        assert answer.get("company") == turn.company and answer["round"] == turn.round, (turn.action_id, answer)
        assert answer["request"] == turn.request, turn.action_id       # the board of that moment
        assert answer["best"]["revenue"] == revenue.solve(turn.request)["revenue"], turn.action_id
        action = answer["run_routes"]
        assert action["type"] == "run_routes" and action["entity"] == turn.company
        ids = {t["id"] for t in turn.request["company"]["trains"]}
        assert {r["train"] for r in action["routes"]} <= ids
        assert revenue.evaluate({**turn.request, "run_routes": action})["revenue"] == answer["best"]["revenue"]


def test_suggest_says_what_the_game_waits_for():
    export = _export("1830_29133")
    # actions[29]: Player 3 buys a share in the first stock round; Player 4 is next
    assert suggest(_cut(export, 30)) == {"waiting_for": "a stock round action by Player 4 (SR 1)"}
    at = {a["id"]: i for i, a in enumerate(export["actions"])}
    # B&O has run (action 96): it chooses its dividend, then buys trains
    assert suggest(_cut(export, at[96] + 1)) == {"waiting_for": "B&O to choose its dividend"}
    assert suggest(_cut(export, at[97] + 1))["waiting_for"] == "B&O to buy trains or end its turn"
    assert suggest(_cut(export, len(export["actions"]))) == {
        "waiting_for": "nothing: the game is over (the bankruptcy of NYNH)"}
    assert suggest(_export(QUICK)) == {"waiting_for": "nothing: the game is over (bank)"}   # as it says
    assert suggest(_cut(export, 0)) == {"waiting_for": "the first action of the game"}


def test_bad_input_is_refused_by_name():
    with pytest.raises(InputError, match="actions: the export has no list of actions"):
        list(replay_game({"title": "1889"}))
    export = _export(QUICK)
    export["actions"][40] = {**export["actions"][40], "type": "assign"}
    with pytest.raises(ReplayError, match=r"^actions\[40\]: "):
        suggest(export)
    with pytest.raises(InputError, match="deadline_ms"):
        next(replay_game(_export(QUICK), deadline_ms=0))


def test_a_warm_game_replay_is_not_pathologically_slow():
    export = _export(QUICK)
    list(replay_game(export))                          # warm
    start = time.perf_counter()
    assert len(list(replay_game(export))) == 48
    # a loose bound against a regression of many seconds; the 1 s target is measured by benchmarks.replay
    assert time.perf_counter() - start < 15.0


def long_turn(monkeypatch, at: int = 2) -> dict:
    """Make turn `at` of a replay (and any suggestion) a long search: a board proved only after many
    seconds, searched by the real solver with the replay's deadline and cancel. Returns what it saw:
    `started` (an Event) and `seconds`, how long that search ran."""
    seen = {"started": threading.Event(), "seconds": None, "calls": 0}
    real = analysis.solve

    def solve(request, deadline=None, cancel=None):
        seen["calls"] += 1
        if seen["calls"] <= at:
            return real(request, deadline=deadline, cancel=cancel)
        seen["started"].set()
        start = time.perf_counter()
        try:
            return real(unproved_request(), deadline=deadline, cancel=cancel)
        finally:
            seen["seconds"] = time.perf_counter() - start
    monkeypatch.setattr(analysis, "solve", solve)
    return seen


def test_a_cancel_set_during_a_turns_search_ends_the_replay_at_once(monkeypatch):
    seen = long_turn(monkeypatch)
    cancel = threading.Event()
    got = []

    def cancel_soon():
        seen["started"].wait(60)
        time.sleep(0.3)
        cancel.set()
    threading.Thread(target=cancel_soon, daemon=True).start()
    with pytest.raises(Interrupted):
        for turn in replay_game(_export(QUICK), deadline_ms=30_000, cancel=cancel):
            got.append(turn)
    assert len(got) == 2                                 # the turns before: given; the cancelled one: not
    assert seen["seconds"] < 2.0, seen                   # (it runs for many seconds uncancelled)


def test_a_cancel_set_before_stops_replay_and_suggest():
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Interrupted):
        next(replay_game(_export(QUICK), cancel=cancel))
    export = _export("1830_29133")
    runs = [i for i, a in standing_actions(export["actions"]) if a["type"] == "run_routes"]
    with pytest.raises(Interrupted):
        suggest(_cut(export, runs[0]), cancel=cancel)
    assert "waiting_for" in suggest(_cut(export, 30), cancel=cancel)     # no search to stop
