"""The front half of a game-server call, timed inside the whole call: every board of benchmarks.gameserver
solved once in a warm process, with the board's check (revenue.board.build_board), its track graph
(revenue.graph.build_graph) and the graph lookup around them (revenue.graph.graph_for: cache key, the
graph remembered and the oldest one let go) timed where solve() calls them.

    python -m benchmarks.front [--games 2] [--decoded]

Prints per title the median and p90 of each stage and of the whole call, in microseconds. The requests
are made before the run, so their dicts are cold in the CPU's caches when a call reads them; with
`--decoded` each is decoded from its JSON text just before its call (untimed), as a server's request is.
"""
from __future__ import annotations

import json
import statistics
import time

import click

from revenue import graph as graph_module
from revenue import solve as solve_module

from .gameserver import percentile, warm_up
from .scenarios import game_sequences

STAGES = ("graph_for", "build_board", "build_graph", "solve")


def run(games: int = 2, decoded: bool = False) -> list[dict]:
    warm_up()
    times: dict[tuple[str, str], list[float]] = {}
    title = ""

    def timed(module, name: str):
        inner = getattr(module, name)

        def call(*args, **kwargs):
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                times.setdefault((title, name), []).append((time.perf_counter() - started) * 1e6)
        return inner, call

    patched = [(solve_module, "graph_for"), (graph_module, "build_board"), (graph_module, "build_graph")]
    originals = []
    for module, name in patched:
        inner, call = timed(module, name)
        originals.append((module, name, inner))
        setattr(module, name, call)
    try:
        for seed in range(games):
            for title, boards in game_sequences(seed=seed).items():
                for board in boards:
                    request = json.loads(json.dumps(board.request)) if decoded else board.request
                    started = time.perf_counter()
                    solve_module.solve(request)
                    times.setdefault((title, "solve"), []).append((time.perf_counter() - started) * 1e6)
    finally:
        for module, name, inner in originals:
            setattr(module, name, inner)
    rows = []
    for name in dict.fromkeys(t for t, _ in times):
        row = {"title": name}
        for stage in STAGES:
            values = times.get((name, stage), [])
            row[stage] = (statistics.median(values), percentile(values, 90)) if values else (float("nan"),) * 2
        rows.append(row)
    every = {stage: [v for (_, s), vs in times.items() if s == stage for v in vs] for stage in STAGES}
    rows.append({"title": "all", **{s: (statistics.median(v), percentile(v, 90)) for s, v in every.items()}})
    return rows


@click.command()
@click.option("--games", default=2, show_default=True, type=click.IntRange(1, 100),
              help="Games per title (each a different seed).")
@click.option("--decoded", is_flag=True, help="Decode each request from JSON just before its call.")
def main(games: int, decoded: bool) -> None:
    """Front-half stages of fresh game-server boards, timed inside the whole call (median / p90 us)."""
    rows = run(games, decoded)
    print(f"{'title':20s}" + "".join(f"{s + ' us':>22s}" for s in STAGES))
    for row in rows:
        print(f"{row['title']:20s}" + "".join(f"{row[s][0]:12.1f} /{row[s][1]:8.1f}" for s in STAGES))


if __name__ == "__main__":
    main(prog_name="python -m benchmarks.front")
