"""Benchmark: whole games of 18xx.games replayed, per export in a folder (default: the repository's
tests/data/games/exports).

    python -m benchmarks.replay [FOLDER] [--repeats N] [--service]

Times the state rebuild alone (every operating turn's SolveRequest from the action log: revenue.game.turns,
median of N runs) and the whole replay solved (revenue.replay_game: every turn's played run evaluated and
best run proved), the first time in the process (kernels warm, every board's graph to build) and again
(graphs cached, median of N runs), and `suggest` on the game cut just before its last run: the first time
the process sees the game (no run of it priced yet: 1860's order of operation prices every payout) and again
(median of N runs each). With --service, Suggest on the same cuts through `revenue serve` (one process, on
free ports): the first call on a game (the service warmed by the first game cut before its first run) and
the median of N more, over gRPC (`export_json`) and over HTTP (`POST /v1/suggest`). Targets (issue 36):
rebuild < 50 ms, whole game replayed and solved < 1 s, suggest < 20 ms on a warm process or server.
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
    from revenue.game import runs
    from revenue.game.analysis import suggest

    cut = _run_cut(export)
    suggest(cut)                                               # each board's graph built once
    first, again = [], []
    for _ in range(repeats):
        runs._REVENUES = ByteLRU(RUN_CACHE_BYTES)              # as a process that never saw the game
        first.append(_ms(lambda: suggest(cut)))
        again.append(_ms(lambda: suggest(cut)))
    return statistics.median(first), statistics.median(again)


def _run_cut(export: dict, pick=max) -> dict:
    """The game cut just before its last run (`pick` min: its first), as a game in progress."""
    from revenue.game import standing_actions

    runs = [i for i, a in standing_actions(export["actions"]) if a.get("type") == "run_routes"]
    return {**export, "status": "active", "actions": export["actions"][:pick(runs, default=len(export["actions"]))]}


def service(folder: pathlib.Path = GAMES, repeats: int = 5) -> list[dict]:
    """Per game: Suggest through a server started here, in ms: the first call on the game, then the median
    of `repeats` over gRPC and over HTTP."""
    import http.client

    import grpc

    from revenue.v1 import replay_pb2, service_pb2_grpc

    from .load import Server

    games = [(path.stem, _run_cut(json.loads(path.read_text()))) for path in exports(pathlib.Path(folder))]
    server = Server(workers=None, max_queue=32, processes=1)
    rows = []
    try:
        server.wait_serving(600)
        host, port = server.http_target.split(":")
        http = http.client.HTTPConnection(host, int(port), timeout=120)     # (one connection, kept alive)
        with grpc.insecure_channel(server.target) as channel:
            stub = service_pb2_grpc.RouteServiceStub(channel)

            def call(message) -> None:
                stub.Suggest(message, timeout=120)

            def post(body: bytes) -> None:
                http.request("POST", "/v1/suggest", body, {"Content-Type": "application/json"})
                response = http.getresponse()
                if response.status != 200:
                    raise RuntimeError(f"/v1/suggest answered {response.status}: {response.read()[:200]!r}")
                response.read()
            requests = [replay_pb2.SuggestRequest(export_json=json.dumps(cut)) for _, cut in games]
            call(replay_pb2.SuggestRequest(export_json=json.dumps(_run_cut(games[0][1], min))))   # warm
            for (name, cut), message in zip(games, requests):
                first = _ms(lambda: call(message))
                grpc_ms = statistics.median(_ms(lambda: call(message)) for _ in range(repeats))
                body = json.dumps({"export": cut}).encode()
                http_ms = statistics.median(_ms(lambda: post(body)) for _ in range(repeats))
                rows.append({"game": name, "actions": len(cut["actions"]), "first_ms": first,
                             "grpc_ms": grpc_ms, "http_ms": http_ms})
    finally:
        server.stop()
    return rows


def print_service(rows: list[dict], out: Console) -> None:
    table = Table(title=f"Suggest through the service, each game cut before its last run (target < "
                        f"{SUGGEST_TARGET_MS} ms)")
    for col in ("game", "actions", "first call ms", "gRPC ms", "HTTP ms"):
        table.add_column(col, justify="left" if col == "game" else "right")
    for r in rows:
        table.add_row(r["game"], str(r["actions"]), f"{r['first_ms']:.1f}",
                      _against(r["grpc_ms"], SUGGEST_TARGET_MS, ".1f"),
                      _against(r["http_ms"], SUGGEST_TARGET_MS, ".1f"))
    out.print(table)


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
@click.option("--service", "through_service", is_flag=True,
              help="Also time Suggest through a server started here, over gRPC and HTTP.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
def main(folder: str, repeats: int, through_service: bool, as_json: bool) -> None:
    """Time the replay of every game export in FOLDER."""
    rows = run(pathlib.Path(folder), repeats)
    served = service(pathlib.Path(folder), repeats) if through_service else None
    if as_json:
        click.echo(json.dumps(rows if served is None else {"replay": rows, "service": served}, indent=2))
        return
    out = Console(highlight=False, width=max(Console().width, 120))
    print_table(rows, out)
    if served is not None:
        print_service(served, out)


if __name__ == "__main__":
    main()
