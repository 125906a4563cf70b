"""Where a game server's call goes, through the library's public functions: the boards of the game-server
benchmark (benchmarks.gameserver: games grown one tile lay or token at a time, every board new to the
process, the kernels warm).

    python -m benchmarks.profile stages [--games 2] [--title T] [--boards N] [--wall] [--save OUT.json]
    python -m benchmarks.profile combine RUN1.json RUN2.json ... [--wall]
    python -m benchmarks.profile tail [--games 2] [--title T] [--boards N] [--repeat 5] [--top 20]

`stages` takes each board through solve()'s stages, one public call each:

    board    revenue.board.build_board: the request read and checked
    graph    revenue.graph.build_graph: the track graph
    problem  revenue.company.build_company and revenue.problem.compile_problem: the company and its arrays
    search   revenue.optimizer.search.Search(...).run(): the route walks, the bounds, the combination search, the
             answer's routes priced
    action   revenue.interop.run_routes_action: the answer's run_routes action

and prints per title the median, p90 and p99 of each stage and of their sum, in microseconds of the calling
thread's CPU time (`--wall`: of the wall clock, which on a busy machine also holds the waits for a core).
`--save` writes each board's times; `combine` reads several such runs (separate processes, other moments)
and keeps each board's smallest time per stage, the closest to the board's own cost on a shared machine.

`tail` is the slow tail of the search: each board's problem compiled once, then its search run `--repeat`
times (CPU time, median); prints the `--top` slowest boards with what their search did, and per title the
median, p99 and max.
"""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import click

from revenue.board_request import build_board
from revenue.company import build_company
from revenue.graph import build_graph
from revenue.interop import run_routes_action
from revenue.problem import compile_problem
from revenue.optimizer.search import Search

from .gameserver import percentile, warm_up
from .scenarios import GameBoard, game_sequences

STAGES = ("board", "graph", "problem", "search", "action")


def boards(games: int, title: str | None, limit: int | None) -> list[tuple[str, GameBoard]]:
    """(label, board) of the game-server benchmark's games, the first `limit` boards of each title's games."""
    out = []
    for g in range(games):
        for name, sequence in game_sequences(seed=g).items():
            if title is None or name == title:
                out += [(f"{name} {g} #{i} {b.step}", b) for i, b in enumerate(sequence[:limit])]
    return out


def _problem(graph, company_request: dict):
    """The compiled problem, or None where solve() answers without a search (no trains, no token)."""
    company = build_company(company_request, graph.board)
    if not company.trains:
        return None
    problem = compile_problem(graph, company)
    return problem if problem.token.any() else None


def staged(request: dict) -> dict[str, tuple[float, float]]:
    """Stage -> (CPU us, wall us) of one request taken through solve()'s stages; a board that needs no
    search has no `search` and `action`."""
    times = {}

    def timed(stage: str, call, *args):
        wall, cpu = time.perf_counter(), time.thread_time()
        out = call(*args)
        times[stage] = ((time.thread_time() - cpu) * 1e6, (time.perf_counter() - wall) * 1e6)
        return out

    board = timed("board", build_board, request["board"])
    graph = timed("graph", build_graph, board)
    problem = timed("problem", _problem, graph, request["company"])
    if problem is not None:
        result = timed("search", lambda: Search(problem, time.perf_counter(), None, None, None).run())
        timed("action", run_routes_action, request["company"], result["routes"])
    return times


def summary(rows: list[dict], wall: bool) -> dict[str, dict[str, tuple[float, float, float]]]:
    """Title (and "all") -> stage (and "sum") -> (median, p90, p99) in us over the boards that ran it."""
    which = 1 if wall else 0
    values: dict[str, dict[str, list[float]]] = {row["title"]: {} for row in rows}
    values["all"] = {}
    for row in rows:
        for title in (row["title"], "all"):
            per = values[title]
            for stage, pair in row["us"].items():
                per.setdefault(stage, []).append(pair[which])
            per.setdefault("sum", []).append(sum(pair[which] for pair in row["us"].values()))
    return {title: {stage: (statistics.median(v), percentile(v, 90), percentile(v, 99)) for stage, v in per.items()}
            for title, per in values.items()}


def print_summary(rows: list[dict], wall: bool, runs: int = 1) -> None:
    table = summary(rows, wall)
    boards_per_title = {t: len(rows) if t == "all" else sum(r["title"] == t for r in rows) for t in table}
    click.echo(f"{len(rows)} boards, {runs} run(s); us of {'wall clock' if wall else 'CPU'}: median / p90 / p99")
    click.echo(f"{'stage':8s}" + "".join(f"{f'{t[:14]} ({boards_per_title[t]})':>32s}" for t in table))
    for stage in STAGES + ("sum",):
        cells = [table[t].get(stage) for t in table]
        click.echo(f"{stage:8s}" + "".join(f"{c[0]:12.1f} /{c[1]:9.1f} /{c[2]:9.1f}" if c else f"{'-':>32s}"
                                           for c in cells))


@click.group()
def main() -> None:
    """Where a game server's call goes: stages, runs combined, the search's slow tail."""


def _board_options(command):
    for option in reversed((
            click.option("--games", default=2, show_default=True, type=click.IntRange(1, 100),
                         help="Games per title (each a different seed)."),
            click.option("--title", default=None, help="Only this title's boards (e.g. 1830, 18rhl)."),
            click.option("--boards", "limit", type=click.IntRange(1), default=None,
                         help="Only the first N boards of each game."),
            click.option("--warm-up/--no-warm-up", "warm_up_first", default=True, show_default=True,
                         help="Solve every title scenario and a game first, as a server has."))):
        command = option(command)
    return command


@main.command()
@_board_options
@click.option("--wall", is_flag=True, help="Print wall-clock times instead of the thread's CPU time.")
@click.option("--save", type=click.Path(dir_okay=False), help="Write each board's stage times here (JSON).")
def stages(games: int, title: str | None, limit: int | None, warm_up_first: bool, wall: bool,
           save: str | None) -> None:
    """Each stage of a solve per fresh board: median / p90 / p99 per title."""
    chosen = boards(games, title, limit)
    if warm_up_first:
        warm_up()
    rows = [{"title": board.title, "board": label, "us": staged(board.request)} for label, board in chosen]
    if save:
        Path(save).write_text(json.dumps(rows))
    print_summary(rows, wall)


@main.command()
@click.argument("runs", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--wall", is_flag=True, help="Print wall-clock times instead of the thread's CPU time.")
def combine(runs: tuple[str, ...], wall: bool) -> None:
    """Runs saved by `stages --save`, each board's smallest time per stage."""
    least: dict[str, dict] = {}
    for path in runs:
        for row in json.loads(Path(path).read_text()):
            kept = least.setdefault(row["board"], {"title": row["title"], "board": row["board"], "us": {}})
            for stage, (cpu, wall_us) in row["us"].items():
                before = kept["us"].get(stage, (float("inf"), float("inf")))
                kept["us"][stage] = (min(before[0], cpu), min(before[1], wall_us))
    print_summary(list(least.values()), wall, len(runs))


@main.command()
@_board_options
@click.option("--repeat", default=5, show_default=True, type=click.IntRange(1), help="Searches per board.")
@click.option("--top", default=20, show_default=True, type=click.IntRange(0), help="Slowest boards listed.")
def tail(games: int, title: str | None, limit: int | None, warm_up_first: bool, repeat: int, top: int) -> None:
    """The search's slow tail: each board's search repeated on its compiled problem (CPU ms, median)."""
    chosen = boards(games, title, limit)
    if warm_up_first:
        warm_up()
    rows = []
    for label, board in chosen:
        board_ = build_board(board.request["board"])
        problem = _problem(build_graph(board_), board.request["company"])
        if problem is None:
            continue
        spent = []
        for _ in range(repeat):
            cpu = time.thread_time()
            result = Search(problem, time.perf_counter(), None, None, None).run()
            spent.append((time.thread_time() - cpu) * 1000)
        rows.append({"title": board.title, "board": label, "ms": statistics.median(spent),
                     "routes": result["stats"]["candidate_routes"], "explored": result["stats"]["nodes_explored"],
                     "trains": " ".join(t["name"] for t in board.request["company"]["trains"]),
                     "optimal": result["optimal"]})
    rows.sort(key=lambda r: -r["ms"])
    click.echo(f"{'ms':>7s}  {'board':<40s} {'trains':<10s} {'routes':>7s} {'explored':>9s} proved")
    for r in rows[:top]:
        click.echo(f"{r['ms']:7.2f}  {r['board'][:40]:<40s} {r['trains'][:10]:<10s} {r['routes']:7d} "
                   f"{r['explored']:9d} {'yes' if r['optimal'] else 'no'}")
    by_title: dict[str, list[float]] = {}
    for r in rows:
        by_title.setdefault(r["title"], []).append(r["ms"])
    if rows:
        by_title["all"] = [r["ms"] for r in rows]
    for name, ms in by_title.items():
        click.echo(f"{name:<20s} boards {len(ms):5d}  search median {statistics.median(ms):.3f}  "
                   f"p99 {percentile(ms, 99):.3f}  max {max(ms):.3f} ms")


if __name__ == "__main__":
    main(prog_name="python -m benchmarks.profile")
