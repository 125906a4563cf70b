"""Time the steps of the half of a solve after the track graph one by one, each called by itself on the
game-server benchmark's boards of seed 0 (graph and problem built first): per board the best of 5 x 3
calls of each step, the median over the title's boards, in us. Unlike scripts/back_stages.py no step is
wrapped, so steps of a few microseconds are timed without the wrappers' cost; run it on two checkouts
in turn to compare them (`--root`).

    python scripts/back_steps.py [--title 1830] [--root DIR]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
import timeit
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("--title", default="1830")
parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent),
                    help="the checkout whose revenue package is timed (default: this one)")
args = parser.parse_args()
sys.path.insert(0, args.root)

from benchmarks.gameserver import warm_up  # noqa: E402
from benchmarks.scenarios import game_sequences  # noqa: E402
from revenue import problem as P  # noqa: E402
from revenue.optimizer import search as S, trains  # noqa: E402
from revenue.optimizer.memo import memo  # noqa: E402
from revenue.company import build_company  # noqa: E402
from revenue.graph import graph_for  # noqa: E402


def steps(graph, company, problem, search) -> dict:
    name = company.trains[0].name

    def reachable():
        memo(problem).reachable = None
        S.reachable(problem)

    def route_parents():
        memo(problem).route_parents = None
        S.route_parents(problem)

    def kernel_arguments():
        memo(problem).kernel_arguments.pop((name, (1, 0)), None)
        memo(problem).walk_arguments.pop((problem.specs[name].walk, (1, 0)), None)
        trains.kernel_arguments(problem, name)

    return {"problem": lambda: P._compile(graph, company),
            "Search()": lambda: S.Search(problem, time.perf_counter(), None, None, None),
            "reachable": reachable,
            "route_parents": route_parents,
            "kernel_arguments": kernel_arguments,
            "Combination()": lambda: S.Combination(problem, list(company.trains), search.sets),
            "answer": lambda: search.combination.run(search.progress),
            "bound": lambda: search.bound(int(search.progress[0]))}


def main() -> None:
    warm_up()
    found: dict[str, list[float]] = {}
    for board in game_sequences(seed=0)[args.title]:
        graph = graph_for(board.request["board"])
        company = build_company(board.request["company"], graph.board)
        if not company.trains:
            continue
        problem = P._compile(graph, company)
        if not problem.token.any():
            continue
        search = S.Search(problem, time.perf_counter(), None, None, None)
        search.run()
        if search.combination is None:
            continue
        for label, step in steps(graph, company, problem, search).items():
            found.setdefault(label, []).append(min(timeit.repeat(step, number=3, repeat=5)) / 3 * 1e6)
    print(f"{args.title} ({args.root}), us per step: " +
          ", ".join(f"{label} {statistics.median(us):.1f}" for label, us in found.items()))


if __name__ == "__main__":
    main()
