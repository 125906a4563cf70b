"""`revenue replay` on many games: the games' JSON lines written as the games finish (to a file, which
--resume continues), a progress bar on a terminal, and the summary per title at the end."""
from __future__ import annotations

import contextlib
import logging
import re
import sys

from rich.console import Console
from rich.table import Table

from ..errors import InputError
from ..game import archive

# A scheduler's address: scheme://host:port, or host:port.
ADDRESS = re.compile(r"^([a-z0-9+]+://\S+|[\w.\-]+:\d+|\[[0-9a-fA-F:]+\]:\d+)$")


def is_address(value: str) -> bool:
    return bool(ADDRESS.match(value))


def run(sources: list, dask: str | None, workers: int | None, out_path: str | None, resume: bool,
        deadline_ms: int | None) -> None:
    """Replay the games of `sources` (paths, patterns, exports read from stdin) and write their lines to
    `out_path` or stdout; on a cluster when `dask` is "local" (a new LocalCluster) or an address."""
    if resume and not out_path:
        raise InputError("--resume", "needs --out FILE (the output to continue)")
    done = archive.games_done(out_path) if resume else set()
    games = [g for g in archive.games(sources) if g.id not in done]
    summary = archive.Summary()
    err = Console(stderr=True, highlight=False)
    with contextlib.ExitStack() as stack:
        client = None
        if dask:
            logging.getLogger("distributed").setLevel(logging.ERROR)    # its INFO lines, at start and stop
        if dask == "local":
            client = stack.enter_context(archive.local_client(workers))
        elif dask:
            from distributed import Client
            client = stack.enter_context(Client(dask, set_as_default=False))
        sink = stack.enter_context(open(out_path, "a" if resume else "w")) if out_path else sys.stdout
        advance = stack.enter_context(_progress(len(games), err))
        for replayed in archive.replayed_games(games, client, deadline_ms):
            if replayed.lines:
                sink.write("".join(line + "\n" for line in replayed.lines))
                sink.flush()
            summary.add(replayed)
            advance()
    if done:
        err.print(f"{len(done)} games already in {out_path}, skipped")
    print_summary(summary.rows(), err)


@contextlib.contextmanager
def _progress(total: int, err: Console):
    """A function that advances a bar of `total` games on stderr when it is a terminal (else nothing)."""
    if not sys.stderr.isatty():
        yield lambda: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("replaying games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True) as bar:
        task = bar.add_task("games", total=total)
        yield lambda: bar.advance(task)


def print_summary(rows: list[dict], out: Console) -> None:
    """Per title: games (with errors), turns, the share played at the optimum, the revenue left per game."""
    table = Table(title="games replayed", title_justify="left", box=None, padding=(0, 2, 0, 2))
    for column in ("title", "games", "errors", "turns", "at optimum", "left median", "left p90", "left total"):
        table.add_column(column, justify="left" if column == "title" else "right")
    for r in rows:
        share = "" if r["optimal_share"] is None else f"{r['optimal_share']:.1%}"
        median = "" if r["left_median"] is None else f"{r['left_median']:g}"
        p90 = "" if r["left_p90"] is None else f"{r['left_p90']:g}"
        errors = f"[red]{r['errors']}[/red]" if r["errors"] else "0"
        table.add_row(r["title"], str(r["games"]), errors, str(r["turns"]), share, median, p90, str(r["left_total"]))
    out.print(table)


def sources_of(files: tuple[str, ...]) -> list:
    """FILES as sources: "-" stands for the exports on standard input (one, a list, or JSON lines)."""
    sources: list = []
    for f in files:
        if f == "-":
            sources += archive.read_lines(sys.stdin)
        else:
            sources.append(f)
    return sources
