"""The `revenue` command line: titles and revenue of given routes (and, added by their own modules,
the optimizer, benchmarks, the service and Steam deliveries).

Every command reads the proto3 JSON of a revenue.v1 request. Bad input prints `error: <field>:
<description>` on stderr and exits with status 2; no command shows a traceback for it. A deadline that
passes before a command has any answer (its board's track graph unbuilt) prints `error: <why>` and exits
with status 3.
"""
from __future__ import annotations

import functools
import sys

import click
from rich.console import Console
from rich.table import Table

from . import api
from .compile_command import compiled_first, warmup
from .errors import InputError, Interrupted

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 3


def console() -> Console:
    # Created per call so that output follows sys.stdout as it is at that moment (tests swap it).
    return Console(highlight=False, soft_wrap=True)


def fail(exc: InputError) -> None:
    """Report bad input the documented way and exit 2."""
    for field, description in exc.violations:
        click.echo(f"error: {field}: {description}" if field else f"error: {description}", err=True)
    sys.exit(EXIT_BAD_INPUT)


def reports_input_errors(command):
    """Decorator for commands: InputError becomes `error: field: description` and exit status 2,
    Interrupted `error: why` and exit status 3."""
    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except InputError as exc:
            fail(exc)
        except Interrupted as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(EXIT_INTERRUPTED)
    return wrapper


def deadline_option(what: str):
    return click.option("--deadline-ms", type=click.IntRange(min=1), default=None,
                        help=f"Give up {what} after this many milliseconds (exit status 3). Default: none.")


def memory_option(what: str):
    return click.option("--memory-mb", type=click.FloatRange(min=1), default=None,
                        help=f"Cap on the memory of {what} (default 256): a board past it is bad input.")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="revenue")
def main() -> None:
    """Exact route optimizer and revenue calculator for 18xx railway games.

    Requests are JSON files in the proto3 JSON form of the revenue.v1 messages (see the README and
    examples/). Bad input is reported as `error: <field>: <description>` with exit status 2.
    """


# ---- titles -------------------------------------------------------------------------------------------

@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print revenue.v1.ListTitlesResponse as proto3 JSON.")
def titles(as_json: bool) -> None:
    """List the titles with their trains, phases and options."""
    from .v1 import revenue_pb2

    result = api.list_titles()
    if as_json:
        click.echo(api.to_json(result, revenue_pb2.ListTitlesResponse))
        return
    out = console()
    for t in result["titles"]:
        out.print(f"[bold]{t['name']}[/bold]  {t['description']}")
        if t["name"] == "custom":
            out.print("  layout, hexes, trains and phases come in board.custom of each request")
        else:
            out.print(f"  layout: {t['layout']}")
            table = Table(box=None, show_header=True, padding=(0, 2, 0, 2))
            table.add_column("train")
            table.add_column("distance")
            for train in t["trains"]:
                table.add_row(train["name"], train["description"])
            out.print(table)
            phases = ", ".join(f"{p['name']} ({'/'.join(p['tiles'])}"
                               + (f", limit {p['train_limit']})" if p.get("train_limit") else ")")
                               for p in t["phases"])
            out.print(f"  phases: {phases}")
        for option in t.get("options", []):
            effect = "" if option.get("changes_routes") else " (accepted, no effect on routes or revenue)"
            out.print(f"  option {option['name']}: {option['description']}{effect}")
        out.print()


# ---- evaluate -----------------------------------------------------------------------------------------

def _locations(request: dict) -> dict[str, str]:
    """Hex name -> location name of the request's board, for display ({} if the board does not build)."""
    from .board_request import build_board

    try:
        board = build_board(request.get("board") or {})
    except InputError:
        return {}
    return {name: h.location for name, h in board.hexes.items() if h.location}


def _stop_label(node: str, locations: dict[str, str]) -> str:
    place = locations.get(node.rsplit("-", 1)[0])
    return f"{node} ({place})" if place else node


def print_routes(routes: list[dict], locations: dict[str, str], out: Console) -> None:
    """Per route: the train, its stops with their values, bonuses and revenue, or the rule it breaks."""
    for r in routes:
        head = f"[bold]{r.get('train', '')}[/bold] train"
        error = r.get("error")
        if error:
            where = f" at {error['where']}" if error.get("where") else ""
            out.print(f"{head}: [red]illegal[/red] ({error.get('rule', '')}{where}): {error.get('message', '')}")
            out.print(f"  nodes: {' -> '.join(r.get('nodes', []))}")
            continue
        stops = []
        for s in r.get("stops", []):
            value = s.get("value", 0) if s.get("paid") else "passed, not paid"
            stops.append(f"{_stop_label(s['node'], locations)} {value}")
        out.print(f"{head}: {' -> '.join(stops)}")
        for b in r.get("bonuses", []):
            out.print(f"  bonus {b['name']}: +{b.get('amount', 0)}")
        out.print(f"  revenue {r.get('revenue', 0)}")
        if r.get("subsidy"):
            out.print(f"  halts {r.get('halts', 0)}: subsidy {r['subsidy']} (not revenue)")


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True,
              help="Print revenue.v1.EvaluateResponse as proto3 JSON instead of text.")
@deadline_option("building the board's track graph")
@memory_option("the board's track graph")
@reports_input_errors
def evaluate(file: str, as_json: bool, deadline_ms: int | None = None, memory_mb: float | None = None) -> None:
    """Check the routes in FILE and compute their revenue.

    FILE holds a revenue.v1.EvaluateRequest in proto3 JSON: the board, the company and its routes
    (train and nodes like "F9-0", or connections in the 18xx.games run_routes shape), or a whole
    18xx.games run_routes action as the game stores it.
    The answer gives each route's stops, bonuses and revenue, or the rule an illegal route breaks
    (not_connected, no_token, track_reused, ...). An illegal run is an answer, not an error: the
    exit status is 0; bad input exits with 2.
    """
    from .evaluation import evaluate as run
    from .v1 import revenue_pb2

    request = api.load_request(file, revenue_pb2.EvaluateRequest)
    compiled_first("evaluate")
    result = run(request, deadline=deadline_ms / 1000 if deadline_ms else None, memory_mb=memory_mb)
    if as_json:
        click.echo(api.to_json(result, revenue_pb2.EvaluateResponse))
        return
    out = console()
    board = request.get("board") or {}
    company_id = (request.get("company") or {}).get("id") or (request.get("run_routes") or {}).get("entity", "")
    out.print(f"{board.get('title', '')}, phase {board.get('phase') or '(first)'}, company {company_id}")
    print_routes(result["routes"], _locations(request), out)
    if result["legal"]:
        out.print(f"[bold]total {result['revenue']}[/bold]" + _subsidy(result))
    else:
        out.print("[bold red]illegal run[/bold red]: total 0")


main.add_command(warmup)


# ---- further commands -----------------------------------------------------------------------------------
# `solve`, `bench`, `serve` and `deliveries` are defined next to the code they drive and registered here
# with main.add_command(...), each using `reports_input_errors`, `api.load_request` and `print_routes`.


# ---- solve --------------------------------------------------------------------------------------------

def _requests(files: tuple[str, ...]):
    """(label, request text or path) for each FILE, or each JSON line of stdin when FILES is empty or -."""
    if not files or files == ("-",):
        for n, line in enumerate(sys.stdin, 1):
            if line.strip():
                yield f"stdin line {n}", line
        return
    for f in files:
        yield f, f


def _svg_name(base: str, index: int, count: int) -> str:
    if count == 1:
        return base
    stem, dot, ext = base.rpartition(".")
    return f"{stem}-{index}.{ext}" if dot else f"{base}-{index}"


def _subsidy(result: dict) -> str:
    return f", subsidy {result['subsidy']}" if result.get("subsidy") else ""


def print_solution(request: dict, result: dict, out: Console) -> None:
    board, company = request.get("board") or {}, request.get("company") or {}
    trains = " ".join(t.get("name", "") + (" (leased)" if t.get("leased") else "")
                      for t in company.get("trains") or []) or "none"
    out.print(f"{board.get('title', '')}, phase {board.get('phase') or '(first)'}, company "
              f"{company.get('id', '')}, trains {trains}")
    if result.get("note"):
        out.print(result["note"])
    print_routes(result["routes"], _locations(request), out)
    out.print(f"[bold]total {result['revenue']}[/bold]" + _subsidy(result))
    stats = result["stats"]
    if result["optimal"]:
        out.print("optimal: proved, no assignment of routes earns more")
    else:
        bound = result.get("upper_bound")
        why = "stopped at the deadline" if stats.get("timed_out") else "the routes left out under the memory cap"
        out.print(f"[yellow]not proved[/yellow]: {why}"
                  + (f"; no run earns more than {bound}" if bound is not None else ""))
    compiled = f" (and {stats['compile_ms'] / 1000:.1f} s compiling the kernels)" if stats.get("compile_ms") else ""
    out.print(f"[dim]{stats['candidate_routes']} candidate routes, {stats['nodes_explored']} search nodes, "
              f"{stats['elapsed_ms']:.1f} ms{compiled}[/dim]")
    if result.get("dividends"):
        print_dividends(result["dividends"], out)


@main.command()
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--deadline-ms", type=click.IntRange(min=1), default=None,
              help="Stop searching after this many milliseconds and answer with the best run found so far "
                   "(optimal false, with an upper bound). Default: the request's deadline_ms, else none.")
@click.option("--memory-mb", type=click.FloatRange(min=1), default=None,
              help="Cap on the routes one search stores (default 256): beyond it the search keeps the routes "
                   "that can matter most and says whether that still proved the answer. A board whose track "
                   "graph passes it is bad input.")
@click.option("--json", "as_json", is_flag=True,
              help="Print revenue.v1.SolveResponse as proto3 JSON (one line per answer when several).")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False),
              help="Draw the map with each route in its own colour (OUT-2.svg, ... for further requests).")
def solve(files: tuple[str, ...], deadline_ms: int | None, memory_mb: float | None, as_json: bool,
          svg_path: str | None) -> None:
    """Find the best routes for the company's trains, with proof.

    FILES hold revenue.v1.SolveRequest messages in proto3 JSON (board, company, optional deadline_ms).
    With no FILES (or -), each line of standard input is one request (JSON lines), answered in turn by
    one process that compiles the kernels once. The routes are in the 18xx.games run_routes shape
    (nodes and connections), ready to submit. Bad input exits with 2 after answering the rest.
    """
    from .board_request import build_board
    from .graph import build_graph
    from .render import render_svg
    from .optimizer import solve as run
    from .v1 import revenue_pb2

    items = list(_requests(files)) if files and files != ("-",) else None
    stream = items is None
    compiled_first("solve")
    failed = interrupted = False
    out = console()
    for index, (label, source) in enumerate(items if items is not None else _requests(files), 1):
        try:
            request = api.load_request(source, revenue_pb2.SolveRequest)
            deadline = deadline_ms / 1000 if deadline_ms else None
            result = run(request, deadline=deadline, memory_mb=memory_mb)
        except InputError as exc:
            failed = True
            for field, description in exc.violations:
                where = f"{field}: " if field else ""
                click.echo(f"error: {label}: {where}{description}" if (stream or len(items) > 1)
                           else f"error: {where}{description}", err=True)
            continue
        except Interrupted as exc:      # the deadline passed before the search began
            interrupted = True
            click.echo(f"error: {label}: {exc}" if (stream or len(items) > 1) else f"error: {exc}", err=True)
            continue
        if as_json:
            one_line = stream or len(items) > 1
            click.echo(api.to_json(result, revenue_pb2.SolveResponse, indent=None if one_line else 2))
        else:
            if stream or len(items) > 1:
                out.print(f"[bold]== {label}[/bold]")
            print_solution(request, result, out)
        if svg_path:
            name = _svg_name(svg_path, index, 1 if (items is not None and len(items) == 1) else 2)
            graph = build_graph(build_board(request.get("board") or {}))
            company = (request.get("company") or {}).get("id", "")
            with open(name, "w") as fh:
                fh.write(render_svg(graph, result["routes"], f"{company}: {result['revenue']}"))
    if failed:
        sys.exit(EXIT_BAD_INPUT)
    if interrupted:
        sys.exit(EXIT_INTERRUPTED)


# ---- dividends -----------------------------------------------------------------------------------------

def print_dividends(options: list[dict], out: Console) -> None:
    """The dividend kinds side by side: what the company keeps, per share, each holder, the share price."""
    table = Table(box=None, show_header=True, padding=(0, 2, 0, 2))
    table.add_column("")
    for o in options:
        table.add_column(o["kind"], justify="right")

    def row(label, cell):
        table.add_row(label, *(cell(o) for o in options))

    row("company keeps", lambda o: str(o["kept"]))
    row("per share", lambda o: str(o["per_share"]))
    for i, h in enumerate(options[0]["holders"] if options else ()):
        row(f"{h['id']} ({h['shares']:g} share{'s' if h['shares'] != 1 else ''})",
            lambda o, i=i: _holder_cell(o["holders"][i], o["per_share"]))
    row("company receives", lambda o: str(o["company_amount"]))
    row("share price", lambda o: (f"{o['direction']} {o['steps']}" if o["steps"] else "no move")
        + (f" (moved {o['moved']})" if o["moved"] != o["steps"] else ""))
    row("price after", lambda o: f"{o['price_after']} at {o['share_price_after']}"
        + (" [game end]" if o["game_end"] else ""))
    out.print(table)


def _holder_cell(h: dict, per_share: int) -> str:
    if not per_share:
        return "0"
    if not h["paid_to"]:
        return "0 (bank keeps)"
    return str(h["amount"]) + (f" to {h['paid_to']}" if h["paid_to"] != h["id"] else "")


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print revenue.v1.DividendsResponse as proto3 JSON.")
@deadline_option("evaluating the routes")
@memory_option("the routes' track graph")
@reports_input_errors
def dividends(file: str, as_json: bool, deadline_ms: int | None = None, memory_mb: float | None = None) -> None:
    """What a run pays under each dividend kind, and where the share price goes.

    FILE holds a revenue.v1.DividendsRequest in proto3 JSON: the title, the company, its holding (share
    price cell [row, column] and holders with their shares) and the run's revenue (or routes to evaluate
    first, under `evaluate`). The answer shows the kinds side by side.
    """
    from .payout import dividends as run
    from .v1 import revenue_pb2

    request = api.load_request(sys.stdin.read() if file == "-" else file, revenue_pb2.DividendsRequest)
    compiled_first("evaluate")
    result = run(request, deadline=deadline_ms / 1000 if deadline_ms else None, memory_mb=memory_mb)
    if as_json:
        click.echo(api.to_json(result, revenue_pb2.DividendsResponse))
        return
    out = console()
    out.print(f"{result['title']}, company {result['company']}, revenue {result['revenue']}"
              + (f", subsidy {result['subsidy']}" if result["subsidy"] else "")
              + f", share price {result['price']} at {result['share_price']} ({result['capitalization']} "
              f"capitalization, {result['total_shares']} shares)")
    print_dividends(result["options"], out)


# ---- games from 18xx.games ------------------------------------------------------------------------------

def _export(file: str) -> dict:
    return api.read_json(sys.stdin.read() if file == "-" else file)


def _replayed(export: dict, deadline_ms: int | None) -> list[dict]:
    """Every turn of the game replayed and solved, with a progress bar when stderr is a terminal."""
    from rich.progress import Progress

    from .game import turns
    from .game.analysis import replay_game

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
    from .game.report import company_totals

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


@main.command()
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

    from . import replay_archive as archive
    from .game.report import html_report

    if dask and dask != "local" and not archive.is_address(dask):
        files, dask = (*files, dask), "local"        # `--dask games/`: the folder is a source
    if not files:
        raise click.UsageError("Missing argument 'FILES...'.")
    sources = archive.sources_of(files)
    compiled_first("solve")
    single = len(sources) == 1 and (isinstance(sources[0], dict) or pathlib.Path(sources[0]).is_file())
    if dask or out_path or resume or not single:
        if html_path:
            raise InputError("--html", "takes one game")
        archive.run(sources, dask, workers, out_path, resume, deadline_ms)
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


@main.command()
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

    from .game.analysis import suggest as run

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
    out.print(f"[bold]total {best['revenue']}[/bold]" + _subsidy(best)
              + ("" if best["optimal"] else " [yellow](not proved: stopped at the deadline)[/yellow]"))
    out.print("run_routes action:")
    click.echo(json.dumps(result["run_routes"], separators=(",", ":")))


def _print_next_moves(result: dict, out) -> None:
    """The best lays and tokens a suggestion lists (revenue.game.next_moves), when it lists them."""
    for kind, columns in (("lays", ("hex", "tile", "rotation")), ("tokens", ("hex", "city"))):
        listed = result.get(kind)
        if not listed:
            continue
        out.print(f"{listed['company']}'s best {kind} (of {listed['legal']} legal; best run now "
                  f"{listed['base_revenue']}):")
        table = Table(*columns, "cost", "revenue after", "gain")
        for move in listed["moves"]:
            table.add_row(*(str(move[c]) for c in columns), str(move["cost"]), str(move["revenue_after"]),
                          f"{move['gain']:+d}")
        out.print(table)


# ---- Steam deliveries ---------------------------------------------------------------------------------

@main.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print revenue.v1.DeliveriesResponse as proto3 JSON.")
@reports_input_errors
def deliveries(file: str, as_json: bool) -> None:
    """Best goods deliveries in Steam (or Age of Steam) for the acting player.

    FILE holds a revenue.v1.DeliveriesRequest in proto3 JSON: stops, links, cubes, players, the acting
    player and the rule set (see docs/steam.md and examples/steam.json). The answer: the best delivery,
    the top deliveries, why other cubes cannot move, and the best plan for the phase's two rounds.
    """
    from .steam import deliveries as run, format_text
    from .v1 import steam_pb2

    request = api.load_request(sys.stdin.read() if file == "-" else file, steam_pb2.DeliveriesRequest)
    compiled_first("deliveries")
    result = run(request)
    if as_json:
        click.echo(api.to_json(result, steam_pb2.DeliveriesResponse))
    else:
        click.echo(format_text(result))


# ---- benchmarks and the service -------------------------------------------------------------------------

def _register_bench_and_serve() -> None:
    """`bench` and `serve` live beside what they drive (the repository's benchmarks/ and server/, installed
    as revenue.benchmarks and revenue.server)."""
    from revenue.benchmarks.report import bench
    from revenue.server.command import serve
    main.add_command(bench, "bench")
    main.add_command(serve, "serve")


_register_bench_and_serve()


# ---- next moves: tile lays and station tokens -------------------------------------------------------------

def _moves_request(file: str, cash: int | None) -> dict:
    """A SolveRequest as plain JSON (its company may carry `cash`, which revenue.v1 has no field for)."""
    import json
    import pathlib

    try:
        text = sys.stdin.read() if file == "-" else pathlib.Path(file).read_text()
    except OSError as exc:
        raise InputError("", f"cannot read {file}: {exc.strerror}") from None
    try:
        request = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError("", f"{file} is not JSON: {exc}") from None
    if not isinstance(request, dict):
        raise InputError("", f"{file} does not hold a JSON object")
    if cash is not None:
        request["company"] = dict(request.get("company") or {}, cash=cash)
    return request


def _print_moves(result: dict, columns: tuple[str, ...], as_json: bool) -> None:
    import json

    if as_json:
        click.echo(json.dumps(result, indent=2))
        return
    out = console()
    out.print(f"best run now {result['base_revenue']}{'' if result['base_optimal'] else ' (not proved)'}; "
              f"{result['valued']} of {result['legal']} legal moves valued")
    table = Table(*columns, "cost", "revenue after", "gain", "proved")
    for move in result["moves"]:
        table.add_row(*(str(move[c]) for c in columns), str(move["cost"]), str(move["revenue_after"]),
                      f"{move['gain']:+d}", "yes" if move["optimal"] else "no")
    out.print(table)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--top", type=int, default=None, help="Show the best K lays only.")
@click.option("--deadline-ms", type=float, default=None, help="Value the lays within this time.")
@click.option("--cash", type=int, default=None, help="The company's cash (else company.cash, else no limit).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@reports_input_errors
def lays(file: str, top: int | None, deadline_ms: float | None, cash: int | None, as_json: bool) -> None:
    """Every legal tile lay of the company in FILE (a SolveRequest), valued by the best run it makes.

    The lays are those the 18xx.games engine allows the company's first lay of its turn; privates other
    companies own are taken to block their hexes while open.
    """
    from .moves import value_lays

    compiled_first("solve")
    _print_moves(value_lays(_moves_request(file, cash), deadline_ms, top), ("hex", "tile", "rotation"), as_json)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--top", type=int, default=None, help="Show the best K tokens only.")
@click.option("--deadline-ms", type=float, default=None, help="Value the tokens within this time.")
@click.option("--cash", type=int, default=None, help="The company's cash (else company.cash, else no limit).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@reports_input_errors
def tokens(file: str, top: int | None, deadline_ms: float | None, cash: int | None, as_json: bool) -> None:
    """Every legal station token of the company in FILE (a SolveRequest), valued by the best run it makes."""
    from .moves import value_tokens

    compiled_first("solve")
    _print_moves(value_tokens(_moves_request(file, cash), deadline_ms, top), ("hex", "city"), as_json)
