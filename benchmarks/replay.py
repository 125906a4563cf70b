"""Benchmark: whole games of 18xx.games replayed, per export in a folder (default: the repository's
tests/data/games/exports).

    python -m benchmarks.replay [FOLDER] [--repeats N]

Times the state rebuild alone (every operating turn's SolveRequest from the action log: revenue.game.turns,
median of N runs) and the whole replay solved (revenue.replay_game: every turn's played run evaluated and
best run proved), the first time in the process (kernels warm, every board's graph to build) and again
(graphs cached, median of N runs), and `suggest` on the game cut just before its last run: the first time
the process sees the game (no run of it priced yet: 1860's order of operation prices every payout) and again
(median of N runs each). Targets (issue 36): rebuild < 50 ms, whole game replayed and solved < 1 s, suggest
< 20 ms on a warm process.
"""
from __future__ import annotations

import json
import pathlib
import statistics
import time

import click
from rich.console import Console
from rich.table import Table

GAMES = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "games" / "exports"
REBUILD_TARGET_MS, REPLAY_TARGET_MS, SUGGEST_TARGET_MS = 50, 1000, 20


def _ms(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def exports(folder: pathlib.Path) -> list[pathlib.Path]:
    """The game exports of `folder` (JSON objects with an action log)."""
    def is_export(path: pathlib.Path) -> bool:
        data = json.loads(path.read_text())
        return isinstance(data, dict) and isinstance(data.get("actions"), list)
    return [p for p in sorted(folder.glob("*.json")) if is_export(p)]


def run(folder: pathlib.Path = GAMES, repeats: int = 5) -> list[dict]:
    """Per game: title, turns, turns proved, revenue left, and in ms: the rebuild (median), the first
    replay solved (kernels compiled, each board's graph built) and the replay solved again (graphs cached,
    median)."""
    from revenue.game import turns
    from revenue.game.analysis import replay_game
    from revenue.optimizer import solve

    games = [(path.stem, json.loads(path.read_text())) for path in exports(pathlib.Path(folder))]
    for _, export in games:                                     # compile or load the kernels
        for turn in turns(export):
            solve(turn.request)
            break
    rows = []
    for name, export in games:
        replayed: list[dict] = []
        first = _ms(lambda: replayed.extend(replay_game(export)))
        rebuild = statistics.median(_ms(lambda: list(turns(export))) for _ in range(repeats))
        again = statistics.median(_ms(lambda: list(replay_game(export))) for _ in range(repeats))
        suggest_first, suggest_again = _suggest_ms(export, repeats)
        rows.append({"game": name, "title": export.get("title", ""), "turns": len(replayed),
                     "proved": sum(t["best"]["optimal"] for t in replayed),
                     "left": sum(t["left"] or 0 for t in replayed),
                     "rebuild_ms": rebuild, "first_replay_ms": first, "replay_ms": again,
                     "suggest_first_ms": suggest_first, "suggest_ms": suggest_again})
    return rows


def _suggest_ms(export: dict, repeats: int) -> tuple[float, float]:
    """(first, again): median ms of `suggest` on the game cut before its last run, with no run of the game
    priced yet in the process, and right after."""
    from revenue.cache import RUN_CACHE_BYTES, ByteLRU
    from revenue.game import runs, standing_actions
    from revenue.game.analysis import suggest

    last_run = max((i for i, a in standing_actions(export["actions"]) if a.get("type") == "run_routes"),
                   default=len(export["actions"]))
    cut = {**export, "status": "active", "actions": export["actions"][:last_run]}
    suggest(cut)                                               # each board's graph built once
    first, again = [], []
    for _ in range(repeats):
        runs._REVENUES = ByteLRU(RUN_CACHE_BYTES)              # as a process that never saw the game
        first.append(_ms(lambda: suggest(cut)))
        again.append(_ms(lambda: suggest(cut)))
    return statistics.median(first), statistics.median(again)


def print_table(rows: list[dict], out: Console) -> None:
    table = Table(title=f"Games replayed (targets: rebuild < {REBUILD_TARGET_MS} ms, replayed and solved "
                        f"< {REPLAY_TARGET_MS} ms, suggest < {SUGGEST_TARGET_MS} ms)")
    for col in ("game", "title", "turns", "proved", "left", "rebuild ms", "first replay ms",
                "replay ms, graphs cached", "suggest ms, game first seen", "suggest ms, again"):
        table.add_column(col, justify="left" if col in ("game", "title") else "right")
    for r in rows:
        table.add_row(r["game"], r["title"], str(r["turns"]), str(r["proved"]), str(r["left"]),
                      _against(r["rebuild_ms"], REBUILD_TARGET_MS, ".1f"),
                      _against(r["first_replay_ms"], REPLAY_TARGET_MS, ".0f"),
                      _against(r["replay_ms"], REPLAY_TARGET_MS, ".0f"),
                      _against(r["suggest_first_ms"], SUGGEST_TARGET_MS, ".1f"),
                      _against(r["suggest_ms"], SUGGEST_TARGET_MS, ".1f"))
    out.print(table)


def _against(ms: float, target: float, spec: str) -> str:
    return format(ms, spec) if ms < target else f"[red]{ms:{spec}}[/red]"


@click.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False), default=str(GAMES))
@click.option("--repeats", default=5, show_default=True, help="Warm runs per game.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
def main(folder: str, repeats: int, as_json: bool) -> None:
    """Time the replay of every game export in FOLDER."""
    rows = run(pathlib.Path(folder), repeats)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        print_table(rows, Console(highlight=False, width=max(Console().width, 120)))


if __name__ == "__main__":
    main()
