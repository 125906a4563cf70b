"""Where the slow tail of the game-server benchmark goes inside the search: for every benchmark board,
the search's stages (route walks, refits, combination set-up, combination search) timed on the board's
compiled problem, each `--repeat` times (CPU time of this thread, median), so a busy machine's waits
are left out. Most boards' walks and combination run in one call (core.probe), timed as a whole; with
`--stages` they take the call-by-call path, which runs the same kernels, so each stage shows. Prints the
slowest boards by the stages' sum and per title the p99 of that sum.

    python scripts/kernel_tail.py [--games 2] [--top 30] [--repeat 5] [--title 1860] [--save OUT.json] [--stages]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.gameserver import percentile, warm_up
from benchmarks.scenarios import game_sequences
import revenue.optimizer.search as S
from revenue.company import build_company
from revenue.graph import graph_for
from revenue.problem import compile_problem

STAGES: dict[str, float] = defaultdict(float)
INFO: dict[str, object] = {}
clock = time.thread_time


def install() -> None:
    orig_all = S.all_routes

    def all_routes(problem, train, *a, **k):
        t = clock()
        out = orig_all(problem, train, *a, **k)
        STAGES["walk"] += clock() - t
        INFO.setdefault("walked", []).append(f"{train}:{len(out)}")
        return out
    S.all_routes = all_routes
    orig_refit = S.RouteSet.refit

    def refit(self, train):
        t = clock()
        out = orig_refit(self, train)
        STAGES["refit"] += clock() - t
        INFO.setdefault("refitted", []).append(f"{train}:{len(out)}")
        return out
    S.RouteSet.refit = refit
    orig_init = S.Combination.__init__

    def init(self, *a, **k):
        t = clock()
        orig_init(self, *a, **k)
        STAGES["setup"] += clock() - t
        INFO["trains"] = "/".join(tr.name for tr in self.trains)
        INFO["combined"] = len(self.rev)
    S.Combination.__init__ = init
    orig_search = S.Combination.search

    def search(self, progress, stop):
        t = clock()
        out = orig_search(self, progress, stop)
        STAGES["search"] += clock() - t
        INFO["explored"] = int(progress[2])
        INFO["best"] = int(progress[0])
        return out
    S.Combination.search = search


NAMES = ("walk", "refit", "setup", "search")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--title", default=None)
    ap.add_argument("--save", default=None)
    ap.add_argument("--stages", action="store_true",
                    help="the call-by-call path (not core.probe's one call), so each stage is timed")
    args = ap.parse_args()
    warm_up()
    install()
    if args.stages:
        S.AT_ONCE_TYPES = 0
    rows = []
    for g in range(args.games):
        for title, boards in game_sequences(seed=g).items():
            if args.title and title != args.title:
                continue
            for board in boards:
                request = board.request
                graph = graph_for(request["board"])
                problem = compile_problem(graph, build_company(request["company"], graph.board))
                if not problem.token.any() or not problem.company.trains:
                    continue
                samples = defaultdict(list)
                for _ in range(args.repeat):
                    STAGES.clear()
                    INFO.clear()
                    search = S.Search(problem, time.perf_counter(), None, None, None)
                    t = clock()
                    search._work()
                    samples["total"].append(clock() - t)
                    for n in NAMES:
                        samples[n].append(STAGES.get(n, 0.0))
                med = {n: statistics.median(v) * 1000 for n, v in samples.items()}
                rows.append({"title": title, "game": g, "step": str(board.step), **med, **INFO})
    rows.sort(key=lambda r: -r["total"])
    print(f"{'total':>6} " + " ".join(f"{n:>6}" for n in NAMES) + f"  {'title':<8} g {'step':<22} routes")
    for r in rows[:args.top]:
        print(f"{r['total']:6.2f} " + " ".join(f"{r[n]:6.2f}" for n in NAMES) +
              f"  {r['title'][:8]:<8} {r['game']} {r['step'][:22]:<22} walked {','.join(r.get('walked', []))} "
              f"refit {','.join(r.get('refitted', []))} trains {r.get('trains')} explored {r.get('explored')}")
    by_title = defaultdict(list)
    for r in rows:
        by_title[r["title"]].append(r["total"])
        by_title["all"].append(r["total"])
    for t, v in by_title.items():
        print(f"{t:<20} boards {len(v):5d}  search median {statistics.median(v):.3f}  p99 {percentile(v, 99):.3f}"
              f"  max {max(v):.3f} ms")
    top = rows[:args.top]
    print("top sums (ms):", {n: round(sum(r[n] for r in top), 1) for n in NAMES + ("total",)})
    if args.save:
        Path(args.save).write_text(json.dumps(rows))


if __name__ == "__main__":
    main()
