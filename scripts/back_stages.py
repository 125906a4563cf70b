"""Time the stages of the half of a solve after the track graph (the problem's arrays, the search's steps,
the answer) on the game-server benchmark's boards of seed 0: each board's graph is built first, then
per board the best of R runs of each stage (a fresh problem each run), the median over boards per title.
Stages are timed by wrapping the functions named below; the wrappers cost a little each.

    python scripts/back_stages.py [R]      (R: runs per board, default 5)
"""
from __future__ import annotations

import collections
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))     # the benchmarks package beside revenue

from benchmarks.gameserver import warm_up
from benchmarks.scenarios import game_sequences
from revenue import problem as P
from revenue.optimizer import bounded, combination as C, routeset as R, search as S
from revenue.company import build_company
from revenue.graph import graph_for

spent: collections.Counter = collections.Counter()


def wrap(owner, name: str, label: str) -> None:
    inner = getattr(owner, name)

    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[label] += time.perf_counter() - started
    setattr(owner, name, timed)


STAGES = [(S, "objective_weights", "weights"), (S.Search, "__init__", "Search()"), (S, "reachable", "reachable"),
          (S, "route_parents", "route_parents"), (bounded, "capacity", "capacity"),
          (R, "kernel_arguments", "kernel_arguments"), (R, "enumerate_routes", "route kernel"),
          (R.RouteSet, "__init__", "RouteSet()"), (S, "all_routes", "all_routes"), (S.Search, "_probe", "probe"),
          (R.RouteSet, "refit", "refit"), (C.Combination, "__init__", "Combination()"),
          (C.Combination, "search", "combination kernel"), (S.Search, "_current", "answer"),
          (S.Search, "bound", "bound")]


def main(runs: int = 5) -> None:
    for owner, name, label in STAGES:
        wrap(owner, name, label)
    warm_up()
    found = collections.defaultdict(lambda: collections.defaultdict(list))
    for title, boards in game_sequences(seed=0).items():
        for board in boards:
            graph = graph_for(board.request["board"])
            company = build_company(board.request["company"], graph.board)
            if not company.trains:
                continue
            best: dict[str, float] = collections.defaultdict(lambda: float("inf"))
            for _ in range(runs):
                started = time.perf_counter()
                problem = P._compile(graph, company)
                best["problem"] = min(best["problem"], time.perf_counter() - started)
                if not problem.token.any():
                    break
                spent.clear()
                started = time.perf_counter()
                S.Search(problem, time.perf_counter(), None, None, None).run()
                best["search and answer"] = min(best["search and answer"], time.perf_counter() - started)
                for label, seconds in spent.items():
                    best[label] = min(best[label], seconds)
            for label, seconds in best.items():
                found[title][label].append(seconds * 1e6)
                found["all"][label].append(seconds * 1e6)
    print("us per board: the median over boards of each board's best run (0 where a stage did not run)")
    print(f"{'':20s}" + "".join(f"{t[:12]:>13s}" for t in found))
    for label in found["all"]:
        row = f"{label:20s}"
        for per_title in found.values():
            values = per_title[label] + [0.0] * (len(per_title["problem"]) - len(per_title[label]))
            row += f"{statistics.median(values):13.1f}"
        print(row)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
