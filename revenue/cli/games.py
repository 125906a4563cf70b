"""The commands on games as 18xx.games stores them: `replay` (every operating turn, one game or many),
`suggest` (the next run of a game in progress), and `lays`/`tokens` (every legal move, valued)."""
from __future__ import annotations

import sys

import click
from rich.console import Console
from rich.table import Table

from ..api import read_json
from ..errors import InputError
from .common import EXIT_BAD_INPUT, console, print_routes, reports_input_errors, request_sources, subsidy
from .warmup import compiled_first


def _export(file: str) -> dict:
    return read_json(sys.stdin.read() if file == "-" else file)


def _replayed(export: dict, deadline_ms: int | None) -> list[dict]:
    """Every turn of the game replayed and solved, with a progress bar when stderr is a terminal."""
    from rich.progress import Progress

    from ..game import turns
    from ..game.analysis import replay_game

    if not sys.stderr.isatty():
        return list(replay_game(export, deadline_ms))
    count = sum(1 for _ in turns(export))
    out = []
    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("replaying", total=count)
        for turn in replay_game(export, deadline_ms):
            out.append(turn)
            progress.advance(task)
    return out


def print_replay(replayed: list[dict], out: Console) -> None:
    """A table per operating round, then the totals per company."""
    from ..game.report import company_totals

    by_round: dict[str, list[dict]] = {}
    for turn in replayed:
        by_round.setdefault(turn["round"], []).append(turn)
    for name, round_turns in by_round.items():
        table = Table(title=name, title_justify="left", box=None, padding=(0, 2, 0, 2))
        for column in ("company", "played", "best", "left", "dividend"):
            table.add_column(column, justify="left" if column in ("company", "dividend") else "right")
        for t in round_turns:
            played = "unread" if t["played"] is None else str(t["played"]["revenue"])
            best = str(t["best"]["revenue"]) + ("" if t["best"]["optimal"] else " (not proved)")
            left = "" if t["left"] is None else (f"[red]{t['left']}[/red]" if t["left"] else "0")
            table.add_row(t["company"], played, best, left, t["dividend"] or "")
        out.print(table)
        out.print()
    table = Table(title="totals", title_justify="left", box=None, padding=(0, 2, 0, 2))
    for column in ("company", "turns", "played", "best", "left"):
        table.add_column(column, justify="left" if column == "company" else "right")
    for company, row in sorted(company_totals(replayed).items()):
        unread = f" ({row['unread']} unread)" if row["unread"] else ""
        table.add_row(company, str(row["turns"]), f"{row['played']}{unread}", str(row["best"]), str(row["left"]))
    out.print(table)


@click.command()
@click.argument("files", nargs=-1)
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object a line per operating turn: action_id, round, company, request, played, "
                   "best, left, dividend (with many games: game first).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False),
              help="Write a self-contained HTML report: the revenue left per round and company, and per turn "
                   "the map with the run played and the best run.")
@click.option("--deadline-ms", type=click.IntRange(min=1), default=None,
              help="Search time per turn (default 10000; real boards prove in milliseconds).")
@click.option("--dask", is_flag=False, flag_value="local", default=None, metavar="[ADDRESS]",
              help="Replay each game as a task on a Dask cluster: a new local one (one worker process per "
                   "core) without ADDRESS, else the scheduler at ADDRESS (tcp://HOST:8786).")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="With --dask and no address: worker processes (default: one per core).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False),
              help="Write the JSON lines of many games to this file instead of standard output.")
@click.option("--resume", is_flag=True, help="With --out: skip the games already in the file, append the rest.")
@reports_input_errors
def replay(files: tuple[str, ...], as_json: bool, html_path: str | None, deadline_ms: int | None,
           dask: str | None, workers: int | None, out_path: str | None, resume: bool) -> None:
    """Replay every operating turn of a game as 18xx.games stores it: the run played and the best run.

    FILE holds the game's JSON export (18xx.games: the game's page, Tools, Download). Each turn's board
    is rebuilt from the action log; the run the player made is priced on it (`played`; unread when the
    export stores only the hexes of its routes, as 2020's do) and the best run is solved with proof
    (`best`); `left` is what the run left on the table. An action the replay cannot rebuild exits with 2.

    Many games (several FILES, directories of *.json exports, glob patterns, or JSON lines of exports on
    standard input as -) give JSON lines, each with the game's id (`game`), written as each game
    finishes, a game that fails as {game, error}, and a summary per title on stderr; with --dask each game
    is a task of a Dask cluster (write --dask after the files, or give its address).
    """
    import json
    import pathlib

    from ..game.report import html_report
    from .archive import is_address, run as run_archive, sources_of

    if dask and dask != "local" and not is_address(dask):
        files, dask = (*files, dask), "local"        # `--dask games/`: the folder is a source
    if not files:
        raise click.UsageError("Missing argument 'FILES...'.")
    sources = sources_of(files)
    compiled_first("solve")
    single = len(sources) == 1 and (isinstance(sources[0], dict) or pathlib.Path(sources[0]).is_file())
    if dask or out_path or resume or not single:
        if html_path:
            raise InputError("--html", "takes one game")
        run_archive(sources, dask, workers, out_path, resume, deadline_ms)
        return
    export = sources[0] if isinstance(sources[0], dict) else _export(sources[0])
    replayed = _replayed(export, deadline_ms)
    if as_json:
        for turn in replayed:
            click.echo(json.dumps(turn, separators=(",", ":")))
    else:
        print_replay(replayed, console())
    if html_path:
        title = f"{export.get('title', '')} game {export.get('id', '')}".strip()
        with open(html_path, "w") as fh:
            fh.write(html_report(title, replayed))


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True,
              help="Print {company, round, best, run_routes, request} or {waiting_for} as JSON.")
@click.option("--deadline-ms", type=click.IntRange(min=1), default=None,
              help="Search time (default 10000).")
@reports_input_errors
def suggest(file: str, as_json: bool, deadline_ms: int | None) -> None:
    """The best next run of a game in progress, ready to submit, or what the game waits for.

    FILE holds the game's JSON export as 18xx.games stores it. When a company is at its route step, the
    answer is its best run with proof and the run_routes action (its trains named by the game's ids).
    """
    import json

    from ..game.analysis import suggest as run

    compiled_first("solve")
    result = run(_export(file), deadline_ms)
    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    out = console()
    _print_next_moves(result, out)
    if "waiting_for" in result:
        out.print(f"waiting for {result['waiting_for']}")
        return
    out.print(f"{result['round']}: {result['company']} runs")
    best = result["best"]
    print_routes(best["routes"], {}, out)
    out.print(f"[bold]total {best['revenue']}[/bold]" + subsidy(best)
              + ("" if best["optimal"] else " [yellow](not proved: stopped at the deadline)[/yellow]"))
    out.print("run_routes action:")
    click.echo(json.dumps(result["run_routes"], separators=(",", ":")))


def _print_next_moves(result: dict, out) -> None:
    """The best lays and tokens a suggestion lists (revenue.game.next_moves), when it lists them."""
    for kind, columns in (("lays", ("hex", "tile", "rotation")), ("tokens", ("hex", "city"))):
        listed = result.get(kind)
        if not listed:
            continue
        cash = "" if listed.get("cash") is None else f"; cash {listed['cash']}"
        out.print(f"{listed['company']}'s best {kind} (of {listed['legal']} legal{cash}; best run now "
                  f"{listed['base_revenue']}):")
        table = Table(*columns, "cost", "revenue after", "gain")
        for move in listed["moves"]:
            table.add_row(*(str(move[c]) for c in columns), str(move["cost"]), str(move["revenue_after"]),
                          f"{move['gain']:+d}")
        out.print(table)


# ---- next moves: tile lays and station tokens -------------------------------------------------------------

def _moves_request(source: str, cash: int | None) -> dict:
    """A SolveRequest as plain JSON from a path or the text itself (its company may carry `cash`, which
    revenue.v1 has no field for)."""
    request = read_json(source)
    if not isinstance(request, dict):
        raise InputError("", "the request is not a JSON object")
    if cash is not None:
        request["company"] = dict(request.get("company") or {}, cash=cash)
    return request


def _answer_moves(files: tuple[str, ...], cash: int | None, as_json: bool, value, columns: tuple[str, ...]):
    """`value` (a request -> its valued moves) answered for each FILE, or each JSON line of standard input
    when FILES is empty or -. One request prints as before; several print one JSON line each with --json,
    else a table each under its label, and bad input is reported by label and exits 2 after the rest."""
    items = list(request_sources(files)) if files and files != ("-",) else None
    many = items is None or len(items) > 1
    compiled_first("solve")
    failed = False
    for label, source in items if items is not None else request_sources(files):
        try:
            result = value(_moves_request(source, cash))
        except InputError as exc:
            if not many:
                raise
            failed = True
            for field, description in exc.violations:
                click.echo(f"error: {label}: {field + ': ' if field else ''}{description}", err=True)
            continue
        _print_moves(result, columns, as_json, label if many else None)
    if failed:
        sys.exit(EXIT_BAD_INPUT)


def _print_moves(result: dict, columns: tuple[str, ...], as_json: bool, label: str | None) -> None:
    """The valued moves as JSON (one line when `label` says the answer is one of several) or a table."""
    import json

    if as_json:
        click.echo(json.dumps(result, indent=None if label else 2, separators=(",", ":") if label else None))
        return
    out = console()
    if label:
        out.print(f"[bold]== {label}[/bold]")
    out.print(f"best run now {result['base_revenue']}{'' if result['base_optimal'] else ' (not proved)'}; "
              f"{result['valued']} of {result['legal']} legal moves valued")
    table = Table(*columns, "cost", "revenue after", "gain", "proved")
    for move in result["moves"]:
        table.add_row(*(str(move[c]) for c in columns), str(move["cost"]), str(move["revenue_after"]),
                      f"{move['gain']:+d}", "yes" if move["optimal"] else "no")
    out.print(table)


def _moves_options(kind: str):
    """The arguments and options `lays` and `tokens` share."""
    def decorate(command):
        command = reports_input_errors(command)
        for option in reversed((
                click.argument("files", nargs=-1, type=click.Path(dir_okay=False, allow_dash=True)),
                click.option("--top", type=click.IntRange(min=0), default=0, show_default=True,
                             help=f"Show the best K {kind} only (0: every legal one)."),
                click.option("--deadline-ms", type=float, default=None,
                             help=f"Value the {kind} of each request within this time."),
                click.option("--cash", type=int, default=None,
                             help="The company's cash (else company.cash, else no limit)."),
                click.option("--json", "as_json", is_flag=True,
                             help="Print the result as JSON (one line per answer when several)."))):
            command = option(command)
        return command
    return decorate


@click.command()
@_moves_options("lays")
@click.option("--second-lay", is_flag=True,
              help="The turn's second lay (1860: a yellow tile without a city, after one); none in other titles.")
def lays(files: tuple[str, ...], top: int, deadline_ms: float | None, cash: int | None, as_json: bool,
         second_lay: bool) -> None:
    """Every legal tile lay of the company in each FILE (a SolveRequest), valued by the best run it makes.

    The lays are those the 18xx.games engine allows the company's first lay of its turn (or, with
    --second-lay, its second); privates other companies own are taken to block their hexes while open. With
    no FILES (or -), each line of standard input is one request (JSON lines), answered in turn.
    """
    from ..moves import value_lays

    _answer_moves(files, cash, as_json,
                  lambda request: value_lays(request, deadline_ms, top or None, second=second_lay),
                  ("hex", "tile", "rotation"))


@click.command()
@_moves_options("tokens")
def tokens(files: tuple[str, ...], top: int, deadline_ms: float | None, cash: int | None, as_json: bool) -> None:
    """Every legal station token of the company in each FILE (a SolveRequest), valued by the best run it makes.

    With no FILES (or -), each line of standard input is one request (JSON lines), answered in turn.
    """
    from ..moves import value_tokens

    _answer_moves(files, cash, as_json, lambda request: value_tokens(request, deadline_ms, top or None),
                  ("hex", "city"))
