"""`revenue replay` and `revenue suggest` on a real game (1889 game 962): the tables, the JSON lines, the HTML
report, the suggestion, and bad input (exit 2 naming the action)."""
from __future__ import annotations

import json
import pathlib
import shutil

import pytest
from click.testing import CliRunner

from revenue.cli import main
from revenue.game.analysis import TURN_FIELDS, replay_game

EXPORTS = pathlib.Path(__file__).parent / "data" / "games" / "exports"
GAME = EXPORTS / "1889_962.json"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def replayed():
    return list(replay_game(json.loads(GAME.read_text())))


def _write(tmp_path, export) -> pathlib.Path:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(export))
    return path


def test_replay_prints_a_table_per_round_and_the_totals(replayed):
    r = invoke("replay", GAME)
    assert r.exit_code == 0, r.output
    rounds = list(dict.fromkeys(t["round"] for t in replayed))
    assert all(f"\n{name}\n" in f"\n{r.stdout}" for name in rounds)
    assert "company    played    best    left    dividend" in r.stdout
    totals = r.stdout.split("totals")[-1]
    left = sum(t["left"] for t in replayed if t["company"] == "AR")
    assert any(line.split()[0] == "AR" and line.split()[-1] == str(left) for line in totals.splitlines()[2:])
    assert r.stderr == ""                              # no progress bar off a terminal


def test_replay_json_is_one_turn_a_line(replayed):
    r = invoke("replay", GAME, "--json", "--deadline-ms", 5000)
    assert r.exit_code == 0, r.output
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert [tuple(t) for t in lines] == [TURN_FIELDS] * len(replayed)
    assert [(t["action_id"], t["left"], t["best"]["revenue"]) for t in lines] == \
        [(t["action_id"], t["left"], t["best"]["revenue"]) for t in replayed]


def test_replay_html_is_a_self_contained_report(tmp_path, replayed):
    out = tmp_path / "report.html"
    r = invoke("replay", GAME, "--html", out)
    assert r.exit_code == 0, r.output
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<details") == len(replayed)
    assert "Revenue left on the table" in page and page.count("<svg") > len(replayed)
    for fetch in ("<script src", "<link", "url(", "@import", "<img"):
        assert fetch not in page


def test_suggest_gives_the_run_to_submit(tmp_path, replayed):
    export = json.loads(GAME.read_text())
    end = next(i for i, a in enumerate(export["actions"]) if a["id"] == replayed[-1]["action_id"])
    path = _write(tmp_path, {**export, "status": "active", "actions": export["actions"][:end]})
    r = invoke("suggest", path, "--json")
    assert r.exit_code == 0, r.output
    answer = json.loads(r.stdout)
    assert answer["company"] == replayed[-1]["company"] == answer["run_routes"]["entity"]
    assert answer["best"]["revenue"] == replayed[-1]["best"]["revenue"]
    r = invoke("suggest", path)
    assert f"{answer['round']}: {answer['company']} runs" in r.stdout
    assert f"total {answer['best']['revenue']}" in r.stdout and '"type":"run_routes"' in r.stdout


def test_suggest_says_what_the_game_waits_for():
    r = invoke("suggest", GAME)
    assert r.exit_code == 0 and r.stdout.strip() == "waiting for nothing: the game is over (bank)"
    assert json.loads(invoke("suggest", GAME, "--json").stdout) == {
        "waiting_for": "nothing: the game is over (bank)"}


@pytest.mark.parametrize("command", ["replay", "suggest"])
def test_bad_input_names_the_action_and_exits_2(tmp_path, command):
    export = json.loads(GAME.read_text())
    export["actions"][40] = {**export["actions"][40], "type": "assign"}
    r = invoke(command, _write(tmp_path, export))
    assert r.exit_code == 2
    assert r.stderr.startswith(f"error: actions[40]: id {export['actions'][40]['id']}, type assign: "
                               "the replay does not know this action type")
    r = invoke(command, _write(tmp_path, {"title": "1889"}))
    assert r.exit_code == 2 and r.stderr == "error: actions: the export has no list of actions\n"
    r = invoke(command, _write(tmp_path, [1, 2]))
    assert r.exit_code == 2 and r.stderr.startswith("error: an 18xx.games export is a JSON object")
    (tmp_path / "bad.json").write_text("{not json")
    r = invoke(command, tmp_path / "bad.json")
    assert r.exit_code == 2 and "not valid JSON" in r.stderr


def test_the_replay_benchmark_times_each_export_of_a_folder(tmp_path):
    from benchmarks import replay as replay_bench

    shutil.copy(GAME, tmp_path / GAME.name)
    (tmp_path / "turns.json").write_text("{}")                 # not an export: left out
    [row] = replay_bench.run(tmp_path, repeats=1)
    assert row["game"] == "1889_962" and row["turns"] == row["proved"] == 48 and row["left"] == 20
    assert row["rebuild_ms"] < 50 and row["first_replay_ms"] > 0 and row["replay_ms"] > 0


@pytest.mark.slow
def test_revenue_bench_prints_the_replay_table():
    r = invoke("bench", "--only", "1830 early", "--repeats", "1", "--no-steam", "--no-cold", "--no-game", "--json")
    assert r.exit_code == 0, r.output
    rows = {row["game"]: row for row in json.loads(r.stdout)["replay"]}
    assert set(rows) == {"1830_29133", "1860_19354", "1889_314", "1889_962"}
    assert all(row["proved"] == row["turns"] for row in rows.values())
