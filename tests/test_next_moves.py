"""`revenue suggest` at a company's track step: the best few legal lays and tokens of that moment, on a real
game (18xx.games game 314, 1889) cut just before a lay the engine recorded with its legal set: the last
corporation of an operating round, whose turn is known to come next."""
from __future__ import annotations

import copy
import json
import pathlib

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
