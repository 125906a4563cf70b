"""The profiling tool (benchmarks/profile.py) on a few boards: each subcommand runs and prints its table."""
from __future__ import annotations

import json

from click.testing import CliRunner

from benchmarks.profile import STAGES, main


def _run(*args: str) -> list[str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_stages_times_each_stage_per_title_and_saves_each_board(tmp_path):
    saved = tmp_path / "run.json"
    lines = _run("stages", "--games", "1", "--title", "1860", "--boards", "4", "--no-warm-up", "--save", str(saved))
    assert lines[0].startswith("4 boards, 1 run(s); us of CPU")
    assert lines[1].split() == ["stage", "1860", "(4)", "all", "(4)"]
    assert [line.split()[0] for line in lines[2:]] == [*STAGES, "sum"]
    rows = json.loads(saved.read_text())
    assert len(rows) == 4 and {r["title"] for r in rows} == {"1860"}
    assert all(set(r["us"]) <= set(STAGES) and {"board", "graph", "problem"} <= set(r["us"]) for r in rows)
    assert all(cpu >= 0 and wall >= 0 for r in rows for cpu, wall in r["us"].values())

    two = tmp_path / "two.json"
    two.write_text(json.dumps([{**r, "us": {s: [cpu + 5, wall + 5] for s, (cpu, wall) in r["us"].items()}}
                               for r in rows]))
    assert _run("combine", str(saved), str(two))[2:] == lines[2:]     # each board's smallest time: run one's
    assert _run("combine", str(saved), "--wall")[0] == "4 boards, 1 run(s); us of wall clock: median / p90 / p99"


def test_tail_lists_the_slowest_searches():
    lines = _run("tail", "--games", "1", "--title", "18rhl", "--boards", "5", "--repeat", "1", "--top", "2",
                 "--no-warm-up")
    assert lines[0].split() == ["ms", "board", "trains", "routes", "explored", "proved"]
    listed = [float(line.split()[0]) for line in lines[1:3]]
    assert listed == sorted(listed, reverse=True) and all("18rhl 0 #" in line for line in lines[1:3])
    assert [line.split()[:2] for line in lines[3:]] == [["18rhl", "boards"], ["all", "boards"]]
