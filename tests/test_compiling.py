"""The compiled kernels: one signature each, cached per user, version and kernel source where every
environment finds them, compiled ahead in several processes (revenue warmup), a compile said once on
standard error, and its time left out of a solve's.

The slow tests run `revenue` in new processes with an empty cache directory (NUMBA_CACHE_DIR); most use
Steam's deliveries, the command with the fewest kernels, to show how the cache behaves at the least cost.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from revenue import compiling
from revenue.core import kernel_cache

ROOT = Path(__file__).resolve().parent.parent
STEAM = ROOT / "examples" / "steam.json"

# A script counting the compiles of a command (Numba's compile events, outermost ones), run in a new
# process: `python -c COUNTED revenue-args...`; prints the count last, and the package's folder.
COUNTED = """
import sys
from numba.core import event
compiles = []
class Count(event.Listener):
    depth = 0
    def on_start(self, ev):
        if Count.depth == 0:
            compiles.append(ev.data["dispatcher"].py_func.__qualname__)
        Count.depth += 1
    def on_end(self, ev):
        Count.depth -= 1
event.register("numba:compile", Count())
import revenue
from revenue.cli import main
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    print("PACKAGE", revenue.__path__[0])
    print("COMPILES", len(compiles), compiles)
"""


def run(args: list[str], cache: Path, path: Path | None = None) -> subprocess.CompletedProcess:
    """`revenue ARGS` in a new process with its kernels' cache in `cache` (and the package imported from
    `path`, when given, instead of this checkout's)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    if path is not None:
        env["PYTHONPATH"] = str(path)
    done = subprocess.run([sys.executable, "-c", COUNTED, *args], env=env, capture_output=True, text=True,
                          timeout=900, cwd=path or ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def compiles(done: subprocess.CompletedProcess) -> int:
    return int(done.stdout.rsplit("COMPILES ", 1)[1].split()[0])


def copy_of_package(to: Path) -> Path:
    """A copy of the package at another path, laid out as installed (another environment's install of this
    version): revenue/, with server/, benchmarks/ and examples/ inside it (pyproject.toml's package-dir)."""
    skip = shutil.ignore_patterns("__pycache__", "*.nb[ic]")
    shutil.copytree(ROOT / "revenue", to / "revenue", ignore=skip)
    for folder in ("server", "benchmarks", "examples"):
        shutil.copytree(ROOT / folder, to / "revenue" / folder, ignore=skip)
    return to


# ---- quick ------------------------------------------------------------------------------------------------

def test_every_kernel_module_is_listed_and_each_signature_fits_its_kernel():
    with_kernels = sorted(p for p in (ROOT / "revenue").rglob("*.py") if re.search(r"^@njit", p.read_text(), re.M))
    listed = {m.replace(".", "/") + ".py" for m in compiling.KERNEL_MODULES}
    assert {p.relative_to(ROOT).as_posix() for p in with_kernels} == listed
    for kernel in compiling.kernels().values():
        assert len(kernel.argtypes) == kernel.dispatcher.py_func.__code__.co_argcount, kernel.name
    named = {name.rsplit(":", 1)[1] for name in compiling.kernels()}
    for command, names in compiling.FIRST_CALLS.items():
        assert set(names) <= named, command


def test_the_kernels_are_cached_per_version_and_kernel_source():
    from revenue.core.walk import enumerate_routes

    where = Path(enumerate_routes._cache.cache_path)
    assert where.parent == kernel_cache.kernels_dir() and where.parent.name == kernel_cache.version()
    assert where.name == f"core-{kernel_cache.source_hash(str(ROOT / 'revenue/core/walk.py'))}"
    # every module of revenue/core shares one hash: a kernel's cached code holds its callees' from others
    assert len({kernel_cache.source_hash(str(p)) for p in (ROOT / "revenue/core").glob("*.py")}) == 1


def test_a_solve_leaves_its_compiling_out_of_its_time(monkeypatch):
    from revenue.optimizer import solve, solver

    request = json.loads((ROOT / "examples" / "solve_1889.json").read_text())
    for _ in range(2):      # (compiled, if it must be: a board seen again takes revenue.known's kernel)
        solve(request)
    assert "compile_ms" not in solve(request)["stats"]
    clock = iter([10.0, 12.5])      # (2.5 s of compiling during the call)
    monkeypatch.setattr(solver, "compile_seconds", lambda: next(clock))
    stats = solve(request)["stats"]
    assert stats["compile_ms"] == 2500.0 and stats["elapsed_ms"] == 0.0


def test_the_notice_rounds_its_estimate():
    assert compiling.message(17.2, 2) == ("compiling the optimizer's kernels for this install, about 15 s, once "
                                          "(2 processes)")
    assert compiling.message(0.3) == "compiling the optimizer's kernels for this install, about 5 s, once"


# ---- slow: new processes, an empty cache ---------------------------------------------------------------------

@pytest.mark.slow
def test_a_fresh_cache_compiles_once_and_every_environment_of_the_version_loads(tmp_path):
    cache = tmp_path / "cache"
    first = run(["deliveries", str(STEAM)], cache)
    assert compiles(first) > 0
    assert first.stderr.count("compiling the optimizer's kernels for this install") == 1, first.stderr
    again = run(["deliveries", str(STEAM)], cache)
    assert compiles(again) == 0 and again.stderr == ""
    # Another environment of the same version (the package at another path), whose folder is read-only
    # (as root the test cannot forbid writing it: it checks that nothing is written there).
    other = copy_of_package(tmp_path / "other")
    for path in (other / "revenue").rglob("*"):
        path.chmod(path.stat().st_mode & ~0o222)
    try:
        elsewhere = run(["deliveries", str(STEAM)], cache, other)
        assert f"PACKAGE {other / 'revenue'}" in elsewhere.stdout
        assert compiles(elsewhere) == 0 and elsewhere.stderr == ""
        fresh = run(["deliveries", str(STEAM)], tmp_path / "cache2", other)    # read-only, an empty cache
        assert compiles(fresh) > 0 and compiles(run(["deliveries", str(STEAM)], tmp_path / "cache2", other)) == 0
        assert not [p for p in (other / "revenue").rglob("*.nb[ic]")]
    finally:
        for path in (other / "revenue").rglob("*"):
            path.chmod(path.stat().st_mode | 0o200)


@pytest.mark.slow
def test_a_changed_kernel_module_compiles_its_callers_again(tmp_path):
    # The Steam kernels call none of revenue/core, but are keyed by its source too: a change there (here a
    # comment) compiles them again, as it must a kernel whose cached code holds a changed callee's.
    cache, other = tmp_path / "cache", copy_of_package(tmp_path / "other")
    assert compiles(run(["deliveries", str(STEAM)], cache, other)) > 0
    assert compiles(run(["deliveries", str(STEAM)], cache, other)) == 0
    with open(other / "revenue" / "core" / "pricing.py", "a") as fh:
        fh.write("# changed\n")
    assert compiles(run(["deliveries", str(STEAM)], cache, other)) > 0


# Every kernel compiled ahead, then a solve of each example, evaluations, deliveries, a game's boards and two
# large boards: nothing more compiles, and each kernel has its one signature.
WORKLOAD = """
import glob, json, sys
from numba.core import event
from revenue.compiling import kernels
compiles = []
class Count(event.Listener):
    def on_start(self, ev):
        compiles.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Count())
from benchmarks.scenarios import dense_custom, game_sequences
from revenue.board_request import build_board
from revenue.evaluation import evaluate
from revenue.optimizer import solve
from revenue.steam import deliveries
for path in sorted(glob.glob("examples/solve_*.json")):
    solve(json.load(open(path)))
for path in sorted(glob.glob("examples/evaluate_*.json")):
    evaluate(json.load(open(path)))
deliveries(json.load(open("examples/steam.json")))
for boards in game_sequences(seed=0).values():
    for board in boards[::6]:
        solve(board.request)
        build_board(board.request["board"])
seven = {"name": "7", "distance": 7}
solve(dense_custom(3, 9, 9, [seven], ["7", "7", "7"]).request, deadline=2.0)
print("COMPILES", compiles)
print("SIGNATURES", [k.name for k in kernels().values() if k.dispatcher.signatures not in ([], [k.argtypes])])
"""


@pytest.mark.slow
def test_revenue_warmup_compiles_every_kernel_with_the_signature_its_callers_use(tmp_path):
    cache = tmp_path / "cache"
    done = run(["warmup", "--jobs", "2"], cache)
    assert done.stdout.startswith(f"compiled {len(compiling.kernels())} kernels"), done.stdout
    assert done.stderr.count("compiling the optimizer's kernels for this install") == 1, done.stderr
    again = run(["warmup"], cache)
    assert again.stdout.startswith("every kernel is compiled") and compiles(again) == 0
    out = subprocess.run([sys.executable, "-c", WORKLOAD], cwd=ROOT, capture_output=True, text=True, timeout=900,
                         env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    assert out.returncode == 0, out.stderr[-3000:]
    assert "COMPILES []" in out.stdout and "SIGNATURES []" in out.stdout, out.stdout


@pytest.mark.slow
def test_a_first_solve_on_a_fresh_install_compiles_ahead_and_defers_the_one_call_kernel(tmp_path):
    done = run(["solve", str(ROOT / "examples" / "solve_1889.json")], tmp_path / "cache")
    assert done.stderr.count("compiling the optimizer's kernels for this install") == 1, done.stderr
    assert "total 390" in done.stdout
    # the kernels of FIRST_CALLS were compiled ahead (by this process or a worker), the rest not at all
    listed = done.stdout.rsplit("COMPILES ", 1)[1]
    assert "walk_and_combine" not in listed and "best_detours" not in listed
    assert compiles(run(["solve", str(ROOT / "examples" / "solve_1889.json")], tmp_path / "cache")) == 0
