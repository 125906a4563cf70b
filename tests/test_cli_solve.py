"""`revenue solve`, `revenue deliveries` and `revenue bench` on the command line."""
from __future__ import annotations

import json
import pathlib

import pytest
from click.testing import CliRunner

from revenue.cli import main
from revenue.evaluation import evaluate
from revenue.optimizer import solve

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
SOLVE_FILES = sorted(EXAMPLES.glob("solve_*.json"))


def invoke(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def test_solve_text_matches_the_library():
    path = EXAMPLES / "solve_1830.json"
    expected = solve(json.loads(path.read_text()))
    r = invoke("solve", str(path))
    assert r.exit_code == 0, r.output
    assert f"total {expected['revenue']}" in r.stdout
    assert "optimal: proved" in r.stdout


def test_solve_json_routes_are_legal_run_routes():
    for path in SOLVE_FILES:
        r = invoke("solve", str(path), "--json")
        assert r.exit_code == 0, r.output
        out = json.loads(r.stdout)
        assert out["optimal"] is True and out["upper_bound"] == out["revenue"] > 0
        request = json.loads(path.read_text())
        check = evaluate({**request, "routes": [{k: route[k] for k in ("train", "nodes", "connections")}
                                                for route in out["routes"]]})
        assert check["legal"] and check["revenue"] == out["revenue"], path.name


def test_solve_several_files_and_a_json_lines_stream():
    r = invoke("solve", *map(str, SOLVE_FILES), "--json")
    assert r.exit_code == 0, r.output
    answers = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(answers) == len(SOLVE_FILES)
    lines = "\n".join(json.dumps(json.loads(p.read_text())) for p in SOLVE_FILES) + "\n"
    streamed = invoke("solve", "--json", input=lines)
    assert [json.loads(x)["revenue"] for x in streamed.stdout.splitlines()] == [a["revenue"] for a in answers]


def test_solve_stream_reports_bad_lines_and_goes_on():
    good = json.dumps(json.loads((EXAMPLES / "solve_1830.json").read_text()))
    r = invoke("solve", "--json", input=f'{good}\n{{"board": {{"title": "nope"}}}}\n{good}\n')
    assert r.exit_code == 2
    assert len(r.stdout.splitlines()) == 2
    assert "stdin line 2: board.title: unknown title 'nope'" in r.stderr


def test_solve_deadline_and_svg(tmp_path):
    out = tmp_path / "routes.svg"
    r = invoke("solve", str(EXAMPLES / "solve_1830.json"), "--deadline-ms", "5000", "--svg", str(out))
    assert r.exit_code == 0, r.output
    svg = out.read_text()
    assert svg.startswith("<svg") and "polygon" in svg and "D: " in svg


def test_solve_bad_file():
    r = invoke("solve", "/no/such/file.json")
    assert r.exit_code == 2 and "no such file" in r.stderr


def test_deliveries_command():
    r = invoke("deliveries", str(EXAMPLES / "steam.json"), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["best"]["own_points"] == 2
    text = invoke("deliveries", str(EXAMPLES / "steam.json"))
    assert "Cincinnati -> Indianapolis -> Evansville" in text.stdout


@pytest.mark.slow
def test_bench_runs_one_scenario():
    r = invoke("bench", "--only", "1830 early", "--repeats", "2", "--no-steam", "--no-cold", "--json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["solver"]
    assert [row["scenario"] for row in rows] == ["1830 early"] and rows[0]["optimal"] is True
