"""The game-server benchmark's boards (benchmarks.gameserver: every call a board never seen, warm process),
each board's call time written out, so that several runs in separate processes can be combined board by
board: on a machine shared with other work a call's time also holds the waits for a core, and the
smallest of a board's runs is the closest to its own cost.

    python scripts/gameserver_boards.py run OUT.json [--games 2]
    python scripts/gameserver_boards.py report RUN1.json RUN2.json ...   (per title: median, p99, max of
                                                                          each board's smallest time)
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))     # the benchmarks package beside revenue

from benchmarks.gameserver import percentile, warm_up
from benchmarks.scenarios import game_sequences
from revenue.optimizer import solve


def run(out: str, games: int = 2) -> None:
    warm_up()
    rows = []
    for g in range(games):
        for title, boards in game_sequences(seed=g).items():
            for i, board in enumerate(boards):
                started, cpu = time.perf_counter(), time.thread_time()
                solve(board.request)
                rows.append({"title": title, "board": f"{g} #{i} {board.step}",
                             "ms": (time.perf_counter() - started) * 1000, "cpu_ms": (time.thread_time() - cpu) * 1000})
    Path(out).write_text(json.dumps(rows))


def report(files: list[str]) -> None:
    runs = [json.loads(Path(f).read_text()) for f in files]
    least: dict[tuple[str, str], tuple[float, float]] = {}
    for rows in runs:
        for r in rows:
            key = (r["title"], r["board"])
            ms, cpu = least.get(key, (float("inf"), float("inf")))
            least[key] = (min(ms, r["ms"]), min(cpu, r["cpu_ms"]))
    by_title: dict[str, list[tuple[float, float]]] = {}
    for (title, _), v in least.items():
        by_title.setdefault(title, []).append(v)
        by_title.setdefault("all", []).append(v)
    print(f"{len(files)} runs; per board the smallest time (wall / CPU ms)")
    for title, v in by_title.items():
        wall, cpu = [x[0] for x in v], [x[1] for x in v]
        print(f"{title:<20} boards {len(v):5d}  median {statistics.median(wall):.3f} / {statistics.median(cpu):.3f}"
              f"  p99 {percentile(wall, 99):.3f} / {percentile(cpu, 99):.3f}  max {max(wall):.3f} / {max(cpu):.3f}")
    worst = sorted(least.items(), key=lambda kv: -kv[1][0])[:5]
    print("slowest:", "; ".join(f"{t} {b} {ms:.2f} ms" for (t, b), (ms, _) in worst))


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--games" else 2)
    else:
        report(sys.argv[2:])
