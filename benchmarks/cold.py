"""The cold start: what a fresh install costs before its first answers, and a new process once the kernels
are cached. Each figure is the wall time of a new `revenue` process, as a user runs it, with the kernels'
cache in a new empty directory (NUMBA_CACHE_DIR) for the cold ones:

- first solves: `revenue solve` of each title's example in turn (examples/solve_<title>.json, 1830 first),
  the first compiling what a solve needs (revenue.compiling.FIRST_CALLS), the others what their titles add;
- warm-up: `revenue warmup` in another empty cache, every kernel;
- warm start: `revenue solve examples/solve_1830.json` with every kernel cached, imports included (the best
  of three).

The machine's load average is reported beside them: on a shared machine it moves them more than anything.

    python -m benchmarks.cold [--json]      (revenue bench prints them too)
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

TITLES = ("1830", "1860", "1889", "18rhl", "steam_over_holland", "custom")


def examples() -> dict[str, Path]:
    """Each title's example solve request: examples/ beside benchmarks/ (in the repository, and installed as
    revenue.examples beside revenue.benchmarks)."""
    folder = Path(__file__).resolve().parent.parent / "examples"
    return {title: folder / f"solve_{title}.json" for title in TITLES if (folder / f"solve_{title}.json").exists()}


def command() -> list[str]:
    """How to run `revenue`: the console script beside this Python, else the module's main."""
    script = shutil.which("revenue", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-c", "import sys; from revenue.cli import main; sys.exit(main())"]


def timed(args: list[str], cache: str) -> float:
    """Seconds of one `revenue ARGS` process with the kernels' cache in `cache`."""
    started = time.perf_counter()
    subprocess.run(command() + args, env={**os.environ, "NUMBA_CACHE_DIR": cache}, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def run() -> dict:
    """The figures in seconds, with the load average (1 minute) before and after."""
    load_before = os.getloadavg()[0]
    files = examples()
    with tempfile.TemporaryDirectory() as cache:
        first = {title: timed(["solve", str(path)], cache) for title, path in files.items()}
    with tempfile.TemporaryDirectory() as cache:
        warmup = timed(["warmup"], cache)
        warm = min(timed(["solve", str(files["1830"])], cache) for _ in range(3))
    return {"first_solves_s": first, "first_solves_total_s": sum(first.values()), "warmup_s": warmup,
            "warm_start_s": warm, "load": [load_before, os.getloadavg()[0]]}


def describe(figures: dict) -> str:
    """The figures in a sentence."""
    first = ", ".join(f"{title} {s:.1f} s" for title, s in figures["first_solves_s"].items())
    return (f"Cold start, a new `revenue` process each (load {figures['load'][0]:.1f}-{figures['load'][1]:.1f}): "
            f"first solves with an empty cache {first}, {figures['first_solves_total_s']:.1f} s in all; "
            f"`revenue warmup` {figures['warmup_s']:.1f} s; with the cache, a first solve "
            f"{figures['warm_start_s']:.2f} s")


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def main(as_json: bool) -> None:
    figures = run()
    click.echo(json.dumps(figures, indent=2) if as_json else describe(figures))


if __name__ == "__main__":
    main()
