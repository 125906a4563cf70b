"""Benchmark: an archive of games replayed in one process and on Dask local clusters of 1 and 2 worker
processes (revenue.game.archive), in games per second, and whether every answer is the same.

    python -m benchmarks.replay_cluster [FOLDER] [--copies N] [--workers 1,2]

The archive is the exports of FOLDER (default: the repository's tests/data/games/exports), each COPIES
times over as games of their own ids (ordered game after game, so that a process's cache of recent
boards' graphs does not hold the next copy's). Each process loads the kernels before the clock starts;
each cluster's start is timed apart. With the wall time, the CPU time of this process (a local
cluster's scheduler runs in it) and of the workers, and so the cores the run kept busy; and the
machine's load average. On a busy machine the cores used, not the workers, bound the speed: Linux's
autogroup scheduling shares the CPU among sessions, not processes, so a session's workers divide its
share. Target (issue 38): 2 workers >= 1.6x 1 worker on an otherwise idle 2-core machine.
"""
from __future__ import annotations

import json
import os
import pathlib
import time

import click
from rich.console import Console
from rich.table import Table

from .replay import GAMES, exports

SPEEDUP_TARGET = 1.6


def archive_of(folder: pathlib.Path, copies: int) -> list:
    """The games: every export of `folder`, `copies` times over, ids `<name>#<copy>`."""
    from revenue.game.archive import Game

    paths = exports(folder)
    return [Game(f"{p.stem}#{k}", path=str(p)) for k in range(copies) for p in paths]


def comparable(lines) -> list[str]:
    """The games' lines without the searches' stats (their time, and the nodes explored, which varies
    with what a process has cached before), sorted (the order games finish in varies)."""
    out = []
    for text in lines:
        line = json.loads(text)
        for key in ("best", "played"):
            if isinstance(line.get(key), dict):
                line[key].pop("stats", None)
        out.append(json.dumps(line, sort_keys=True))
    return sorted(out)


def _cpu_seconds(client=None) -> float:
    """CPU time of this process (which holds a local cluster's scheduler) and of the cluster's workers."""
    return time.process_time() + (sum(client.run(time.process_time).values()) if client else 0.0)


def _timed(games: list, client=None) -> tuple[float, float, list[str]]:
    """(wall seconds, CPU seconds, the lines) of the games replayed."""
    from revenue.game.archive import replayed_games

    cpu, start = _cpu_seconds(client), time.perf_counter()
    lines = [line for replayed in replayed_games(games, client) for line in replayed.lines]
    return time.perf_counter() - start, _cpu_seconds(client) - cpu, lines


def run(folder: pathlib.Path = GAMES, copies: int = 3, workers: tuple[int, ...] = (1, 2)) -> dict:
    """{games, turns, load_before, load_after, rows: [{setup, workers, start_s, seconds, games_per_s,
    same}]}: the archive in this process, then on a local cluster of each number of `workers`."""
    import logging

    from revenue.game.archive import local_client, warm_up

    logging.getLogger("distributed").setLevel(logging.ERROR)      # the clusters' start and stop
    games = archive_of(pathlib.Path(folder), copies)
    first = json.loads(pathlib.Path(games[0].path).read_text())
    load_before = os.getloadavg()
    warm_up(first)
    seconds, cpu, reference = _timed(games)
    expected = comparable(reference)
    rows = [{"setup": "one process", "workers": 0, "start_s": 0.0, "seconds": seconds, "cpu_s": cpu,
             "games_per_s": len(games) / seconds, "same": True}]
    for n in workers:
        started = time.perf_counter()
        with local_client(n) as client:
            client.run(warm_up, first)                       # each worker loads the kernels
            start_s = time.perf_counter() - started
            seconds, cpu, lines = _timed(games, client)
        got = comparable(lines)
        rows.append({"setup": f"local cluster, {n} worker{'s' if n > 1 else ''}", "workers": n,
                     "start_s": start_s, "seconds": seconds, "cpu_s": cpu, "games_per_s": len(games) / seconds,
                     "same": got == expected})
    return {"games": len(games), "turns": len(reference), "cores": os.cpu_count(),
            "load_before": load_before, "load_after": os.getloadavg(), "rows": rows}


def print_table(report: dict, out: Console) -> None:
    rows = report["rows"]
    one = next((r for r in rows if r["workers"] == 1), None)
    table = Table(title=f"An archive of {report['games']} games ({report['turns']} turns) replayed "
                        f"(target: 2 workers >= {SPEEDUP_TARGET}x 1 worker)")
    for col in ("setup", "cluster start s", "replay s", "CPU s", "cores used", "games/s", "x 1 worker",
                "same answers"):
        table.add_column(col, justify="left" if col == "setup" else "right")
    for r in rows:
        ratio = r["games_per_s"] / one["games_per_s"] if one else None
        shown = "" if ratio is None else f"{ratio:.2f}"
        if ratio is not None and r["workers"] == 2 and ratio < SPEEDUP_TARGET:
            shown = f"[red]{shown}[/red]"
        table.add_row(r["setup"], f"{r['start_s']:.1f}" if r["workers"] else "", f"{r['seconds']:.2f}",
                      f"{r['cpu_s']:.2f}", f"{r['cpu_s'] / r['seconds']:.2f}", f"{r['games_per_s']:.2f}", shown,
                      "yes" if r["same"] else "[red]no[/red]")
    out.print(table)
    before, after = report["load_before"], report["load_after"]
    out.print(f"{report['cores']} cores; load average before {before[0]:.1f}, after {after[0]:.1f} "
              f"(1 min), {after[1]:.1f} (5 min)")


@click.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False), default=str(GAMES))
@click.option("--copies", default=3, show_default=True, help="Times each export is in the archive.")
@click.option("--workers", default="1,2", show_default=True, help="Local clusters' sizes, comma-separated.")
@click.option("--json", "as_json", is_flag=True, help="Print the measurements as JSON.")
def main(folder: str, copies: int, workers: str, as_json: bool) -> None:
    """Time an archive replayed in one process and on Dask local clusters."""
    report = run(pathlib.Path(folder), copies, tuple(int(w) for w in workers.split(",") if w.strip()))
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        print_table(report, Console(highlight=False, width=max(Console().width, 110)))


if __name__ == "__main__":
    main()
