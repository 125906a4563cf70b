"""What the commands share: bad input and interruptions reported the documented way (exit status 2 and
3), the console, the common options, and routes printed."""
from __future__ import annotations

import functools
import sys

import click
from rich.console import Console

from ..errors import InputError, Interrupted

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


def request_sources(files: tuple[str, ...]):
    """(label, request text or path) for each FILE, or each JSON line of stdin when FILES is empty or -."""
    if not files or files == ("-",):
        for n, line in enumerate(sys.stdin, 1):
            if line.strip():
                yield f"stdin line {n}", line
        return
    for f in files:
        yield f, f


def deadline_option(what: str):
    return click.option("--deadline-ms", type=click.IntRange(min=1), default=None,
                        help=f"Give up {what} after this many milliseconds (exit status 3). Default: none.")


def memory_option(what: str):
    return click.option("--memory-mb", type=click.FloatRange(min=1), default=None,
                        help=f"Cap on the memory of {what} (default 256): a board past it is bad input.")


def locations(request: dict) -> dict[str, str]:
    """Hex name -> location name of the request's board, for display ({} if the board does not build)."""
    from ..board_request import build_board

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


def subsidy(result: dict) -> str:
    return f", subsidy {result['subsidy']}" if result.get("subsidy") else ""
