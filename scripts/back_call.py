"""The half of a game-server call after the track graph, timed inside the whole call: every board of
benchmarks.gameserver solved once in a warm process (each a board never seen before, so the caches are
as cold as a game server's), with the stages below timed where solve() calls them. Unlike
scripts/back_stages.py (each board's best of R runs on a problem built beforehand) this is what a fresh
board's call pays; the wrappers cost about 0.3 us each. Run it on two checkouts in turn to compare them
(`--root`).

    python scripts/back_call.py [--games 2] [--root DIR]

Prints per title the median of each stage's total per call in us (0 where a stage did not run in most
calls): `run own` is Search.run less the search (_work), the answer (_current) and the bound; `solve
own` is the call less every stage listed before it. `at once` is Search._at_once, the probe and the
combination of most boards in one compiled call (`at-once kernel`), which then replaces the stages from
`reachable` to `combination`.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("--games", type=int, default=2)
parser.add_argument("--slowest", type=int, default=0,
                    help="also print the stages of this many slowest calls, one column each")
parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent),
                    help="the checkout whose revenue package is timed (default: this one)")
args = parser.parse_args()
sys.path.insert(0, args.root)

from benchmarks.gameserver import warm_up  # noqa: E402
from benchmarks.scenarios import game_sequences  # noqa: E402
from revenue.optimizer import routeset as R, search as S, solver  # noqa: E402

# (owner, function, label): the call's stages, then the search's steps inside _work
STAGES = [(solver, "graph_for", "graph_for"), (solver, "build_company", "company"),
          (solver, "compile_problem", "problem"),
          (S.Search, "__init__", "Search()"), (S.Search, "_work", "_work"), (S.Search, "_current", "answer"),
          (S.Search, "bound", "bound"), (S.Search, "run", "run"), (solver, "run_routes_action", "run_routes"),
          (S, "reachable", "reachable"), (S, "route_parents", "route_parents"),
          (R, "kernel_arguments", "kernel_arguments"),
          (R, "enumerate_routes", "route kernel"), (S.RouteSet, "__init__", "RouteSet()"),
          (S.RouteSet, "refit", "refit"), (S.Combination, "__init__", "Combination()"),
          (S.Combination, "search", "combination"), (S.RouteSet, "route", "route entries"),
          (S.Search, "_at_once", "at once"), (S, "walk_and_combine", "at-once kernel")]
OUTER = ("graph_for", "company", "problem", "Search()", "run", "run_routes")
SHOWN = ["graph_for", "company", "problem", "Search()", "reachable", "route_parents", "kernel_arguments",
         "route kernel", "RouteSet()", "refit", "Combination()", "combination", "at once", "at-once kernel", "_work",
         "route entries", "answer",
         "bound", "run own", "run", "run_routes", "solve own", "solve"]


def main() -> None:
    this_call: dict[str, float] = {}

    def wrap(owner, name: str, label: str) -> None:
        inner = getattr(owner, name, None)
        if inner is None:       # (a checkout without this stage)
            return

        def timed(*a, **k):
            started = time.perf_counter()
            try:
                return inner(*a, **k)
            finally:
                this_call[label] = this_call.get(label, 0.0) + (time.perf_counter() - started) * 1e6
        setattr(owner, name, timed)

    for owner, name, label in STAGES:
        wrap(owner, name, label)
    warm_up()
    times: dict[str, dict[str, list[float]]] = {}
    calls: list[tuple[str, dict[str, float]]] = []
    for seed in range(args.games):
        for title, boards in game_sequences(seed=seed).items():
            for board in boards:
                this_call.clear()
                started = time.perf_counter()
                solver.solve(board.request)
                this_call["solve"] = (time.perf_counter() - started) * 1e6
                if "run" in this_call:
                    this_call["run own"] = this_call["run"] - this_call["_work"] - this_call.get("answer", 0.0) \
                        - this_call.get("bound", 0.0)
                this_call["solve own"] = this_call["solve"] - sum(this_call.get(s, 0.0) for s in OUTER)
                calls.append((f"{title[:6]} {board.step}"[:24], dict(this_call)))
                for label, us in this_call.items():
                    for key in (title, "all"):
                        times.setdefault(label, {}).setdefault(key, []).append(us)
    titles = list(times["solve"])
    print(f"{args.root}: us per call, median over the calls")
    print(f"{'':18s}" + "".join(f"{t[:12]:>13s}" for t in titles))
    for label in SHOWN:
        row = f"{label:18s}"
        for t in titles:
            values = times.get(label, {}).get(t, [])
            values = values + [0.0] * (len(times["solve"][t]) - len(values))
            row += f"{statistics.median(values):13.1f}"
        print(row)
    if args.slowest:
        slowest = sorted(calls, key=lambda c: -c[1]["solve"])[:args.slowest]
        print("\nthe slowest calls, us:")
        for name, stages in slowest:
            print(f"{name:24s} " + " ".join(f"{label} {stages[label]:.0f}" for label in SHOWN
                                             if stages.get(label, 0.0) >= 20))


if __name__ == "__main__":
    main()
