"""The `revenue` command group and its commands on requests: titles, evaluate, solve, dividends,
deliveries; it adds the game commands (cli/games.py), warmup (cli/warmup.py), and bench and serve (defined
beside the benchmarks and the server).

Every command reads the proto3 JSON of a revenue.v1 request. Bad input prints `error: <field>:
<description>` on stderr and exits with status 2; no command shows a traceback for it. A deadline that
passes before a command has any answer (its board's track graph unbuilt) prints `error: <why>` and exits
with status 3.
"""
from __future__ import annotations

import sys

import click
from rich.console import Console
from rich.table import Table

from ..api import list_titles, load_request, to_json
from ..errors import InputError, Interrupted
from .common import (EXIT_BAD_INPUT, EXIT_INTERRUPTED, console, deadline_option, locations, memory_option,
                     print_routes, reports_input_errors, request_sources, subsidy)
from .games import lays, replay, suggest, tokens
from .warmup import compiled_first, warmup


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
    from ..v1 import revenue_pb2

    result = list_titles()
    if as_json:
        click.echo(to_json(result, revenue_pb2.ListTitlesResponse))
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
    from ..evaluation import evaluate as run
    from ..v1 import revenue_pb2

    request = load_request(file, revenue_pb2.EvaluateRequest)
    compiled_first("evaluate")
    result = run(request, deadline=deadline_ms / 1000 if deadline_ms else None, memory_mb=memory_mb)
    if as_json:
        click.echo(to_json(result, revenue_pb2.EvaluateResponse))
        return
    out = console()
    board = request.get("board") or {}
    company_id = (request.get("company") or {}).get("id") or (request.get("run_routes") or {}).get("entity", "")
    out.print(f"{board.get('title', '')}, phase {board.get('phase') or '(first)'}, company {company_id}")
    print_routes(result["routes"], locations(request), out)
    if result["legal"]:
        out.print(f"[bold]total {result['revenue']}[/bold]" + subsidy(result))
    else:
        out.print("[bold red]illegal run[/bold red]: total 0")


for command in (warmup, replay, suggest, lays, tokens):
    main.add_command(command)


# ---- solve --------------------------------------------------------------------------------------------

def _svg_name(base: str, index: int, count: int) -> str:
    if count == 1:
        return base
    stem, dot, ext = base.rpartition(".")
    return f"{stem}-{index}.{ext}" if dot else f"{base}-{index}"


def print_solution(request: dict, result: dict, out: Console) -> None:
    board, company = request.get("board") or {}, request.get("company") or {}
    trains = " ".join(t.get("name", "") + (" (leased)" if t.get("leased") else "")
                      for t in company.get("trains") or []) or "none"
    out.print(f"{board.get('title', '')}, phase {board.get('phase') or '(first)'}, company "
              f"{company.get('id', '')}, trains {trains}")
    if result.get("note"):
        out.print(result["note"])
    print_routes(result["routes"], locations(request), out)
    out.print(f"[bold]total {result['revenue']}[/bold]" + subsidy(result))
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
    from ..board_request import build_board
    from ..graph import build_graph
    from ..render import render_svg
    from ..optimizer import solve as run
    from ..v1 import revenue_pb2

    items = list(request_sources(files)) if files and files != ("-",) else None
    stream = items is None
    compiled_first("solve")
    failed = interrupted = False
    out = console()
    for index, (label, source) in enumerate(items if items is not None else request_sources(files), 1):
        try:
            request = load_request(source, revenue_pb2.SolveRequest)
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
            click.echo(to_json(result, revenue_pb2.SolveResponse, indent=None if one_line else 2))
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
    from ..payout import dividends as run
    from ..v1 import revenue_pb2

    request = load_request(sys.stdin.read() if file == "-" else file, revenue_pb2.DividendsRequest)
    compiled_first("evaluate")
    result = run(request, deadline=deadline_ms / 1000 if deadline_ms else None, memory_mb=memory_mb)
    if as_json:
        click.echo(to_json(result, revenue_pb2.DividendsResponse))
        return
    out = console()
    out.print(f"{result['title']}, company {result['company']}, revenue {result['revenue']}"
              + (f", subsidy {result['subsidy']}" if result["subsidy"] else "")
              + f", share price {result['price']} at {result['share_price']} ({result['capitalization']} "
              f"capitalization, {result['total_shares']} shares)")
    print_dividends(result["options"], out)


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
    from ..steam import deliveries as run, format_text
    from ..v1 import steam_pb2

    request = load_request(sys.stdin.read() if file == "-" else file, steam_pb2.DeliveriesRequest)
    compiled_first("deliveries")
    result = run(request)
    if as_json:
        click.echo(to_json(result, steam_pb2.DeliveriesResponse))
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


