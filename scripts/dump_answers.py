"""Dump the solve answers (routes, revenue, proof, run_routes) of every title scenario and of the game-server
benchmark's boards, one JSON line each without timings: run it before and after a change and compare the
files (`cmp`), to show a change leaves the answers byte-identical.

    python scripts/dump_answers.py OUT.jsonl [GAMES]     (GAMES: game-server games per title, default 1)
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))     # the benchmarks package beside revenue

from benchmarks.scenarios import game_sequences, title_scenarios
from revenue.optimizer import solve


def answer(request: dict) -> str:
    result = solve(request)
    result["stats"].pop("elapsed_ms", None)
    result["stats"].pop("compile_ms", None)
    return json.dumps(result, sort_keys=True)


def main(out: str, games: int = 1) -> None:
    with open(out, "w") as f:
        for sc in title_scenarios():
            f.write(f"{sc.name}\t{answer(sc.request)}\n")
        for seed in range(games):
            for title, boards in game_sequences(seed=seed).items():
                for board in boards:
                    f.write(f"{title} game {seed} {board.step}\t{answer(board.request)}\n")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1)
