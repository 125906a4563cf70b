"""The cold start: what a fresh install costs before its first answers, and a new process once the kernels
are cached. Each figure is the wall time of a new `revenue` process, as a user runs it, with the kernels'
cache in a new empty directory (NUMBA_CACHE_DIR) for the cold ones:

- first solves: `revenue solve` of each title's example in turn (examples/solve_<title>.json, 1830 first),
  the first compiling what a solve needs (revenue.compiling.FIRST_CALLS), the others what their titles add;
- warm-up: `revenue warmup` in another empty cache, every kernel;
- warm start: `revenue solve examples/solve_1830.json` with every kernel cached, imports included (the best
  of three);
- with --serve, the service: `revenue serve` with its defaults on free ports, from its start until it logs
  `serving`, with an empty cache;
- with --kernels, where the first solve's compile time goes: each kernel of revenue.compiling.FIRST_CALLS
  compiled in turn in one new process with an empty cache (its callees not yet compiled first), its CPU
  seconds.

The machine's load average is reported beside them: on a shared machine it moves them more than anything.

    python -m benchmarks.cold [--json] [--serve] [--kernels]      (revenue bench prints them too)
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


def serving_seconds() -> float:
    """Seconds from starting `revenue serve` (its defaults, free ports) with an empty cache until it logs
    that it is serving."""
    import socket

    def free_port() -> int:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            return sock.getsockname()[1]
    with tempfile.TemporaryDirectory() as cache:
        started = time.perf_counter()
        server = subprocess.Popen(command() + ["serve", "--port", str(free_port()), "--http-port", str(free_port())],
                                  env={**os.environ, "NUMBA_CACHE_DIR": cache}, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        try:
            for line in server.stderr:
                if '"event": "serving"' in line:
                    return time.perf_counter() - started
            raise RuntimeError(f"`revenue serve` ended (status {server.wait()}) before serving")
        finally:
            server.terminate()
            server.wait(60)


def kernel_seconds() -> dict[str, float]:
    """CPU seconds of compiling each kernel a first solve needs, callees first, in this process (its
    kernels' cache empty: run it through `per_kernel`)."""
    from revenue import compiling

    kernels = compiling.kernels()
    seconds: dict[str, float] = {}

    def compile_one(kernel) -> None:
        for name in sorted(kernel.needs):
            if name in kernels and name not in seconds:
                compile_one(kernels[name])
        if kernel.name not in seconds:
            started = time.process_time()
            kernel.dispatcher.compile(kernel.argtypes)
            seconds[kernel.name] = time.process_time() - started
    first = compiling.FIRST_CALLS["solve"]
    for kernel in sorted((k for k in kernels.values() if k.name.rsplit(":", 1)[1] in first), key=lambda k: k.weight):
        compile_one(kernel)
    return seconds


def per_kernel() -> dict[str, float]:
    """kernel_seconds() in a new process with an empty cache."""
    with tempfile.TemporaryDirectory() as cache:
        code = f"import json; from {__spec__.name} import kernel_seconds; print(json.dumps(kernel_seconds()))"
        out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "NUMBA_CACHE_DIR": cache},
                             cwd=Path(__file__).resolve().parent.parent, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--serve", is_flag=True, help="Also the service's cold start (`revenue serve` until SERVING).")
@click.option("--kernels", is_flag=True, help="Also each first-solve kernel's compile CPU, in one process.")
def main(as_json: bool, serve: bool, kernels: bool) -> None:
    figures = run()
    if serve:
        figures["serving_s"] = serving_seconds()
    if kernels:
        figures["kernel_cpu_s"] = per_kernel()
    if as_json:
        click.echo(json.dumps(figures, indent=2))
        return
    click.echo(describe(figures))
    if serve:
        click.echo(f"`revenue serve` with its defaults SERVING after {figures['serving_s']:.1f} s with an empty cache")
    if kernels:
        ranked = sorted(figures["kernel_cpu_s"].items(), key=lambda kv: -kv[1])
        click.echo(f"compiling a first solve's kernels in one process: {sum(figures['kernel_cpu_s'].values()):.1f} s "
                   "of CPU; " + ", ".join(f"{name.rsplit(':', 1)[1]} {s:.1f} s" for name, s in ranked[:6]))


if __name__ == "__main__":
    main()
