"""The game-server scenario: every call carries a board never seen before, as a game server asks (the
board changes with every tile lay and token). Per title, games grown from the printed map through the
title scenarios (benchmarks.scenarios.game_sequences), each board solved once, in a warm process.

    python -m benchmarks.gameserver [--games 2] [--json] [--profile OUT.prof] [--graph-built]

Reports per title the boards solved and the per-call time (median, p90, p99, max) of the whole library
call from the request dict, and the calling thread's CPU time per call (median, p99): on a machine
shared with other work the wall time also holds the waits for a core, which the CPU time leaves out.
With `--graph-built` each board's track graph is built (and remembered by the graph cache) before its
call is timed: the time is then what follows the graph (the company, the problem arrays, the search and
the answer), the half of the call that revenue.problem and revenue.optimizer own.
`run()` is what `revenue bench` calls.
"""
from __future__ import annotations

import cProfile
import gc
import json
import statistics
import time

import click

from revenue.graph_cache import graph_for
from revenue.optimizer import solve

from .scenarios import game_sequences, title_scenarios


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    i = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[i]


def warm_up() -> None:
    """Kernels loaded, every title's data and tiles read: a server that has run for a while."""
    for sc in title_scenarios():
        solve(sc.request)
    for boards in game_sequences(seed=10_000).values():
        for board in boards:
            solve(board.request)
    gc.freeze()     # as the server does after its warm-up (server.app): no collector scans of all that


def run(games: int = 2, profile: str | None = None, graph_built: bool = False) -> list[dict]:
    """Per title: boards solved once each (games x the title's sequences), per-call times in ms (with
    `graph_built`, of the call after the board's track graph was built)."""
    warm_up()
    times: dict[str, list[float]] = {}
    cpu_times: dict[str, list[float]] = {}      # the calling thread's CPU time: what a loaded machine
    slowest: dict[str, tuple[float, str]] = {}  # adds to the wall time by running other work is not in it
    stages: dict[str, set] = {}
    sequences = [game_sequences(seed=g) for g in range(games)]
    profiler = cProfile.Profile() if profile else None
    for per_title in sequences:
        for title, boards in per_title.items():
            for board in boards:
                if graph_built:
                    graph_for(board.request["board"])
                if profiler:
                    profiler.enable()
                started, cpu = time.perf_counter(), time.thread_time()
                solve(board.request)
                elapsed, cpu = time.perf_counter() - started, time.thread_time() - cpu
                if profiler:
                    profiler.disable()
                times.setdefault(title, []).append(elapsed * 1000)
                cpu_times.setdefault(title, []).append(cpu * 1000)
                if elapsed * 1000 > slowest.get(title, (0.0, ""))[0]:
                    slowest[title] = (elapsed * 1000, f"{board.stage}: {board.step} ({cpu * 1000:.1f} ms CPU)")
                stages.setdefault(title, set()).add(board.stage)
    if profiler:
        profiler.dump_stats(profile)
    rows = []
    for title, ms in times.items():
        cpu = cpu_times[title]
        rows.append({"title": title, "boards": len(ms), "median_ms": statistics.median(ms),
                     "p90_ms": percentile(ms, 90), "p99_ms": percentile(ms, 99), "max_ms": max(ms),
                     "cpu_median_ms": statistics.median(cpu), "cpu_p99_ms": percentile(cpu, 99),
                     "slowest": slowest[title][1], "stages": ", ".join(sorted(stages[title]))})
    every = [m for ms in times.values() for m in ms]
    cpu = [m for ms in cpu_times.values() for m in ms]
    rows.append({"title": "all", "boards": len(every), "median_ms": statistics.median(every),
                 "p90_ms": percentile(every, 90), "p99_ms": percentile(every, 99), "max_ms": max(every),
                 "cpu_median_ms": statistics.median(cpu), "cpu_p99_ms": percentile(cpu, 99),
                 "slowest": "", "stages": ""})
    return rows


def print_table(rows: list[dict], console=None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console(highlight=False)
    table = Table(title="Game server: every call a board not seen before (warm process, whole library call)")
    for col in ("title", "boards", "median ms", "p90 ms", "p99 ms", "max ms", "CPU median ms", "CPU p99 ms"):
        table.add_column(col, justify="left" if col == "title" else "right")
    for r in rows:
        table.add_row(r["title"], str(r["boards"]), f"{r['median_ms']:.3f}", f"{r['p90_ms']:.3f}",
                      f"{r['p99_ms']:.3f}", f"{r['max_ms']:.2f}", f"{r['cpu_median_ms']:.3f}",
                      f"{r['cpu_p99_ms']:.3f}")
    console.print(table)


@click.command()
@click.option("--games", default=2, show_default=True, type=click.IntRange(1, 100),
              help="Games per title (each a different seed).")
@click.option("--profile", type=click.Path(dir_okay=False), help="Write a cProfile of the timed calls here.")
@click.option("--json", "as_json", is_flag=True, help="Print the measurements as JSON.")
@click.option("--graph-built", is_flag=True, help="Build each board's track graph before timing its call.")
def main(games: int, profile: str | None, as_json: bool, graph_built: bool) -> None:
    """Per-call time of fresh boards, one tile lay or token apart, per title."""
    rows = run(games, profile, graph_built)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        print_table(rows)


if __name__ == "__main__":
    main(prog_name="python -m benchmarks.gameserver")
