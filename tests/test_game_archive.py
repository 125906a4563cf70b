"""Archives of games: `revenue.game.archive.replay_many` and `revenue replay` on many exports, in this
process and on a Dask local cluster (the same lines, order aside), --resume, a failing game's error line."""
from __future__ import annotations

import json
import pathlib
import shutil

import pytest
from click.testing import CliRunner

from revenue.cli import main
from revenue.game import archive
from revenue.game.analysis import TURN_FIELDS

EXPORTS = pathlib.Path(__file__).parent / "data" / "games" / "exports"
GAME = EXPORTS / "1889_962.json"


def invoke(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def comparable(line: dict) -> tuple:
    """A line without what varies from run to run (the searches' stats: time, nodes explored), as a
    sortable key."""
    line = json.loads(json.dumps(line))
    for key in ("best", "played"):
        if isinstance(line.get(key), dict):
            line[key].pop("stats", None)
    return json.dumps(line, sort_keys=True)


@pytest.fixture(scope="module")
def one_game():
    """The lines of GAME replayed in this process."""
    return list(archive.replay_many([GAME]))


@pytest.fixture
def folder(tmp_path):
    """A folder of GAME and an export the replay cannot read."""
    shutil.copy(GAME, tmp_path / GAME.name)
    (tmp_path / "broken.json").write_text('{"id": "broken", "title": "1889", "actions": [')
    return tmp_path


def test_a_game_s_lines_are_its_turns_with_its_id_first(one_game):
    assert one_game and all(tuple(line) == ("game", *TURN_FIELDS) for line in one_game)
    assert {line["game"] for line in one_game} == {"1889_962"}


def test_sources_are_files_folders_patterns_and_exports_each_file_once(folder):
    export = json.loads(GAME.read_text())
    games = list(archive.games([folder, str(folder / "*.json"), folder / "broken.json", export]))
    assert [g.id for g in games] == ["1889_962", "broken", "962"]      # an export read: its own id
    with pytest.raises(archive.InputError, match="no such file"):
        list(archive.games([folder / "missing*.json"]))


def test_a_failing_game_gives_its_error_line_and_the_others_go_on(folder, one_game):
    r = invoke("replay", folder, "--json")
    assert r.exit_code == 0, r.output
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    errors = [line for line in lines if "error" in line]
    assert len(errors) == 1 and errors[0]["game"] == "broken" and errors[0]["error"].startswith("JSONDecodeError")
    assert sorted(map(comparable, (line for line in lines if "error" not in line))) == \
        sorted(map(comparable, one_game))
    assert "games replayed" in r.stderr and "1889" in r.stderr       # the summary per title


def test_resume_skips_the_games_in_the_output_and_replays_a_torn_one(folder, tmp_path):
    out = tmp_path / "out.jsonl"
    # 1889_962 already there; "broken" written when the writer stopped mid-line: replayed again
    out.write_text('{"game":"1889_962","error":"kept as it is"}\n{"game":"broken","action_id":1}\n{"game":"bro')
    r = invoke("replay", folder, "--out", out, "--resume")
    assert r.exit_code == 0, r.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0] == {"game": "1889_962", "error": "kept as it is"}
    assert [line["game"] for line in lines[1:]] == ["broken"] and "error" in lines[1]
    assert "1 games already in" in r.stderr
    assert invoke("replay", folder, "--resume").exit_code == 2            # --resume needs --out


def test_exports_as_json_lines_on_standard_input(one_game):
    export = GAME.read_text()
    r = invoke("replay", "-", "--json", input=json.dumps(json.loads(export)) + "\n" + '{"id": 5, "actions": 7}\n')
    assert r.exit_code == 0, r.output
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert {line["game"] for line in lines[:-1]} == {"962"}                  # the export's id
    assert sorted(comparable({**line, "game": ""}) for line in lines[:-1]) == \
        sorted(comparable({**line, "game": ""}) for line in one_game)
    assert lines[-1]["game"] == "5" and "error" in lines[-1]


def test_summary_per_title():
    summary = archive.Summary()
    summary.add(archive.Replayed("a", "1889", ("{}",) * 3, (0, 10, None)))
    summary.add(archive.Replayed("b", "1889", ("{}",) * 2, (30, 0)))
    summary.add(archive.Replayed("c", "1889", ("{}",), error=True))
    assert summary.rows() == [{"title": "1889", "games": 3, "errors": 1, "turns": 5, "optimal_share": 0.5,
                               "left_median": 20, "left_p90": 28.0, "left_total": 40}]


@pytest.mark.slow
def test_a_local_cluster_gives_the_sequential_lines_order_aside():
    """Every export of tests/data/games/exports, each a task of a LocalCluster of 2 worker processes."""
    sequential = list(archive.replay_many([EXPORTS]))
    with archive.local_client(2) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        clustered = list(archive.replay_many([EXPORTS], client=client))
    assert len({line["game"] for line in sequential}) == 4
    assert sorted(map(comparable, clustered)) == sorted(map(comparable, sequential))


@pytest.mark.slow
def test_the_command_replays_a_folder_on_a_local_cluster(folder, one_game, tmp_path):
    out = tmp_path / "out.jsonl"
    r = invoke("replay", "--dask", folder, "--workers", 2, "--out", out)     # FOLDER a source, not an address
    assert r.exit_code == 0, r.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["game"] for line in lines if "error" in line] == ["broken"]
    assert sorted(map(comparable, (line for line in lines if "error" not in line))) == \
        sorted(map(comparable, one_game))


@pytest.mark.slow
def test_the_cluster_benchmark_times_one_process_and_a_cluster(tmp_path):
    from benchmarks import replay_cluster

    shutil.copy(GAME, tmp_path / GAME.name)
    report = replay_cluster.run(tmp_path, copies=2, workers=(1,))
    assert report["games"] == 2 and report["turns"] > 0
    assert [(r["workers"], r["same"]) for r in report["rows"]] == [(0, True), (1, True)]
    assert all(r["games_per_s"] > 0 for r in report["rows"])
