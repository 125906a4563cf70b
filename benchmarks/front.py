"""The front half of a game-server call, timed inside the whole call: every board of benchmarks.gameserver
solved once in a warm process, with the board's check (revenue.board.build_board), its track graph
(revenue.graph.build_graph) and the graph lookup around them (revenue.graph.graph_for: cache key, the
graph remembered and the oldest one let go) timed where solve() calls them.

    python -m benchmarks.front [--games 2] [--decoded]

Prints per title the median and p90 of each stage's time in a call (over the calls that reach it:
place_board runs only for lays whose track is not remembered, place_tokens only when it is) and of the
whole call, in microseconds; `graph_for own` is graph_for less build_board and build_graph. The requests
are made before the run, so their dicts are cold in the CPU's caches when a call reads them; with
`--decoded` each is decoded from its JSON text just before its call (untimed), as a server's request is.
"""
from __future__ import annotations

import json
import statistics
import time

import click

from revenue import board as board_module
from revenue import graph as graph_module
from revenue.optimizer import solver as solver_module

from .gameserver import percentile, warm_up
from .scenarios import game_sequences

# (each a call's total: the lays' and the tokens' keys are two calls of _keys)
# (`_ids`: the lays' and the tokens' ids, keys made and looked up in one pass; `_keys` then runs only for
# lists of unusual dicts; a code without `_ids` shows nan there)
STAGES = ("graph_for", "graph_for own", "build_board", "_keys", "_ids", "_opened", "place_board", "place_tokens",
          "Track", "build_graph", "build_company", "solve")


def run(games: int = 2, decoded: bool = False) -> list[dict]:
    warm_up()
    times: dict[tuple[str, str], list[float]] = {}
    title = ""
    this_call: dict[str, float] = {}    # the stages' times in the call now

    def timed(module, name: str):
        inner = getattr(module, name)

        def call(*args, **kwargs):
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                this_call[name] = this_call.get(name, 0.0) + (time.perf_counter() - started) * 1e6
        return inner, call

    patched = [(solver_module, "graph_for"), (graph_module, "build_board"), (graph_module, "build_graph"),
               (board_module, "_keys"), (board_module, "_ids"), (board_module, "_opened"), (board_module, "place_board"),
               (board_module, "place_tokens"), (graph_module, "Track"), (solver_module, "build_company")]
    originals = []
    for module, name in patched:
        if not hasattr(module, name):
            continue
        inner, call = timed(module, name)
        originals.append((module, name, inner))
        setattr(module, name, call)
    try:
        for seed in range(games):
            for title, boards in game_sequences(seed=seed).items():
                for board in boards:
                    request = json.loads(json.dumps(board.request)) if decoded else board.request
                    this_call.clear()
                    started = time.perf_counter()
                    solver_module.solve(request)
                    this_call["solve"] = (time.perf_counter() - started) * 1e6
                    if "graph_for" in this_call:    # its cache lookup and eviction, around the two below
                        this_call["graph_for own"] = this_call["graph_for"] - this_call.get("build_board", 0.0) \
                            - this_call.get("build_graph", 0.0)
                    for stage, us in this_call.items():
                        times.setdefault((title, stage), []).append(us)
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
    rows.append({"title": "all", **{s: (statistics.median(v), percentile(v, 90)) if v else (float("nan"),) * 2
                                    for s, v in every.items()}})
    return rows


@click.command()
@click.option("--games", default=2, show_default=True, type=click.IntRange(1, 100),
              help="Games per title (each a different seed).")
@click.option("--decoded", is_flag=True, help="Decode each request from JSON just before its call.")
def main(games: int, decoded: bool) -> None:
    """Front-half stages of fresh game-server boards, timed inside the whole call (median / p90 us)."""
    rows = run(games, decoded)
    print(f"{'stage us (median / p90)':24s}" + "".join(f"{row['title'][:18]:>20s}" for row in rows))
    for s in STAGES:
        print(f"{s:24s}" + "".join(f"{row[s][0]:10.1f} /{row[s][1]:8.1f}" for row in rows))


if __name__ == "__main__":
    main(prog_name="python -m benchmarks.front")
