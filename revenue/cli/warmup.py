"""The command line's side of compiling the kernels (revenue.compiling): the `warmup` command, and the
first call of a command on a fresh install (compiled_first), said on standard error with a progress bar on
a terminal."""
from __future__ import annotations

import sys

import click
from rich.console import Console


def compiled_first(command: str) -> None:
    """On an install that has not compiled them yet: compile the kernels `command`'s first call needs
    (revenue.compiling.FIRST_CALLS: "solve", "evaluate" or "deliveries"), several at a time, saying so once
    on standard error; any other kernel compiles at its first call, said once too."""
    from ..compiling import FIRST_CALLS, announce, defer

    err = _stderr()
    announce(lambda text: err.print(text, markup=False))
    if command == "solve":
        defer("walk_and_combine")
    _compile_ahead(FIRST_CALLS[command], None, err)


def _stderr() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def _compile_ahead(names, jobs: int | None, err: Console):
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from ..compiling import compile_ahead

    if not err.is_terminal:
        return compile_ahead(names, jobs)
    with Progress(TextColumn("compiling"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn(),
                  console=err, transient=True) as bar:
        task = bar.add_task("compiling", total=None)
        return compile_ahead(names, jobs, on_progress=lambda done, total: bar.update(
            task, completed=done, total=total))


@click.command()
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Processes compiling at once (default: the cores, at most 4).")
def warmup(jobs: int | None) -> None:
    """Compile every kernel this install lacks, ahead of the first calls (for images and CI).

    The kernels are cached per user and version (~/.cache/revenue, or $NUMBA_CACHE_DIR): every
    environment of this version finds them. Exit status 1 if one failed to compile."""
    from ..compiling import announce
    from ..core.kernel_cache import kernels_dir

    err = _stderr()
    announce(lambda text: err.print(text, markup=False))
    report = _compile_ahead(None, jobs, err)
    where = kernels_dir()
    for name, error in report.failed.items():
        click.echo(f"error: {name}: {error}", err=True)
    if report.compiled:
        click.echo(f"compiled {len(report.compiled)} kernels in {report.seconds:.1f} s (cache: {where})")
    else:
        click.echo(f"every kernel is compiled (cache: {where})")
    if report.failed:
        sys.exit(1)
