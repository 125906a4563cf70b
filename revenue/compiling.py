"""Compiling the kernels: ahead of their first call, several at a time, and saying so.

A fresh install has no compiled kernels: the first call of each compiles it (seconds each, a minute for
all), and Numba keeps the result in the cache of revenue.core.kernel_cache. compile_ahead() compiles the
kernels of revenue.core.signatures.KERNELS that the cache lacks from their declared signatures, without a
board, in up to `jobs` processes at once (this one and workers started as `python -m revenue.compiling`):
each process takes the largest kernel whose callees among them are cached and that no other process has
locked (a file lock in the cache, which any process compiling into it honours: another command, the
service's other processes), so that no two compile the same code. `revenue warmup`, the service's warm-up
and a command's first call on a fresh install use it; a kernel it leaves out compiles at its first call,
as before.

announce() makes the first compile of the process say so once (a command on standard error, the service
in its log); compile_seconds() is the time this process has spent compiling, which a solve's reported time
leaves out.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import os
import subprocess
import sys
import tempfile
import threading
import time
import types as pytypes
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from numba.core import event
from numba.core.dispatcher import Dispatcher

from .core.kernel_cache import core_dir
from .core.signatures import KERNELS

try:
    import fcntl
except ImportError:     # (no file locks: one process compiles)
    fcntl = None

# every module with kernels (imported to fill KERNELS)
KERNEL_MODULES = ("revenue.core.blocks", "revenue.core.combine", "revenue.core.detours", "revenue.core.exits",
                  "revenue.core.node_sets", "revenue.core.pricing", "revenue.core.probe", "revenue.core.refit",
                  "revenue.core.sort", "revenue.core.track", "revenue.core.walk", "revenue.steam.kernel")
# What a command's first call compiles, by command (the rest compiles when first called). A solve: the
# track, the company's masks, the walks, the pricing, the sorts and the combination; not the one-call
# kernel (core.probe.walk_and_combine): compiling it takes as long as the rest and can start only after
# the walk's, so a command on a fresh install defers it (defer) and searches step by step, with the same
# answer.
FIRST_CALLS = {
    "evaluate": ("_walk_packed", "base_blocks", "least_town", "place_tokens"),
    "solve": ("_walk_packed", "base_blocks", "least_town", "place_tokens", "reachable_nodes", "price",
              "enumerate_routes", "refit_routes", "sort_picked_routes", "sort_routes", "best_combination",
              "fill_key_index", "node_bitsets"),
    "deliveries": ("colour_distances", "search"),
}
SECONDS_PER_BYTE = 0.0006   # compile time per byte of a kernel's bytecode (its callees' included), 2-core machine
MAX_JOBS = 4
POLL_SECONDS = 0.1     # how often a process waiting for another's kernels looks at the cache


@dataclass
class Kernel:
    """A kernel of KERNELS with what compile_ahead schedules by."""
    name: str                   # module:qualname
    dispatcher: Dispatcher
    argtypes: tuple
    weight: int = 0             # bytecode bytes of the kernel and the callees compiled with it
    needs: set = field(default_factory=set)     # names of the kernels it calls among KERNELS


@functools.lru_cache(maxsize=None)
def kernels() -> dict[str, Kernel]:
    """Every kernel of KERNELS by name, their modules imported."""
    for module in KERNEL_MODULES:
        importlib.import_module(module)
    listed = {d: Kernel(_name(d), d, argtypes) for d, argtypes in KERNELS}
    for kernel in listed.values():
        seen, needs = _compiled_with(kernel.dispatcher, listed)
        kernel.weight = sum(len(d.py_func.__code__.co_code) for d in seen)
        kernel.needs = {listed[d].name for d in needs}
    return {k.name: k for k in listed.values()}


def _compiled_with(dispatcher: Dispatcher, apart) -> tuple[set, set]:
    """The kernels compiled with `dispatcher` (itself, and the callees it reaches not through one of `apart`),
    and the kernels of `apart` it calls."""
    seen, needs, stack = {dispatcher}, set(), [dispatcher]
    while stack:
        for callee in _callees(stack.pop()):
            if callee in apart and callee is not dispatcher:
                needs.add(callee)
            elif callee not in seen:
                seen.add(callee)
                stack.append(callee)
    return seen, needs


def _name(dispatcher: Dispatcher) -> str:
    return f"{dispatcher.py_func.__module__}:{dispatcher.py_func.__qualname__}"


def _callees(dispatcher: Dispatcher) -> set:
    """The kernels `dispatcher`'s code names (globals that are Numba dispatchers)."""
    found = set()
    functions = dispatcher.py_func.__globals__
    codes = [dispatcher.py_func.__code__]
    while codes:
        code = codes.pop()
        found.update(x for x in map(functions.get, code.co_names) if isinstance(x, Dispatcher))
        codes += [c for c in code.co_consts if isinstance(c, pytypes.CodeType)]
    return found


def ready(dispatcher: Dispatcher, argtypes: tuple) -> bool:
    """Whether the kernel is compiled in this process or in the cache for `argtypes`."""
    if tuple(argtypes) in dispatcher.overloads:
        return True
    try:
        cache = dispatcher._cache
        key = cache._index_key(tuple(argtypes), dispatcher.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:       # (another Numba's cache internals: say ready, and let the first call compile)
        return True


def missing(names=None) -> list[Kernel]:
    """The kernels (all, or those whose name ends with one of `names`) neither compiled here nor cached."""
    chosen = [k for k in kernels().values() if names is None or k.name.rsplit(":", 1)[1] in names]
    return [k for k in chosen if not ready(k.dispatcher, k.argtypes)]


def estimate_seconds(todo: list[Kernel], jobs: int = 1) -> float:
    """Roughly how long compiling `todo` takes in `jobs` processes."""
    total = sum(k.weight for k in todo) * SECONDS_PER_BYTE
    return total / max(1, min(jobs, len(todo)))


def default_jobs() -> int:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(MAX_JOBS, cores))


# ---- compiling ahead --------------------------------------------------------------------------------------

@dataclass
class Report:
    """What compile_ahead did: the kernels compiled (here or by a worker), those that failed with their
    error, and the seconds it took."""
    compiled: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


def compile_ahead(names=None, jobs: int | None = None, on_start: Callable[[float, int, int], None] | None = None,
                  on_progress: Callable[[int, int], None] | None = None) -> Report:
    """Compile the kernels the cache lacks (all, or those named: see missing) in up to `jobs` processes
    (default: the cores, at most MAX_JOBS), and return when each is cached or failed. on_start(seconds
    estimated, kernels, processes) is called first when there is something to compile; on_progress(weight
    done, weight in all) while it runs. Processes of other calls (another command, the service's other
    processes) share the work: a kernel is compiled by whichever process locks it first."""
    started = time.perf_counter()
    todo = missing(names)
    report = Report()
    if not todo:
        return report
    locks = core_dir()
    jobs = max(1, min(jobs or default_jobs(), len(todo))) if locks is not None and fcntl is not None else 1
    if on_start is not None:
        on_start(estimate_seconds(todo, jobs), len(todo), jobs)
    _announce(estimate_seconds(todo, jobs), jobs)     # (said once: no notice at a first call follows)
    with tempfile.TemporaryDirectory(prefix="revenue-compile-") as board:
        board = Path(board)
        workers = [_start_worker(board, todo, i) for i in range(1, jobs)]
        done = threading.Event()
        monitor = None
        if on_progress is not None:
            monitor = threading.Thread(target=_monitor, args=(todo, on_progress, done), daemon=True)
            monitor.start()
        try:
            _take_jobs(board, todo)
        except BaseException:
            for worker in workers:
                if worker is not None:
                    worker.kill()
            raise
        finally:
            done.set()
            for worker in workers:
                if worker is not None:
                    worker.wait()
            if monitor is not None:
                monitor.join()
        for kernel in todo:
            failed = board / f"{kernel.name}.failed"
            if failed.exists():
                report.failed[kernel.name] = failed.read_text()
            else:
                report.compiled.append(kernel.name)
    report.seconds = time.perf_counter() - started
    return report


def _take_jobs(board: Path, todo: list[Kernel]) -> None:
    """Compile the kernels of `todo` this process can lock, among those whose callees are ready the one
    that starts the longest chain of compiles (its callers'), until each is cached (by any process) or
    failed (its error in `board`)."""
    names = {k.name for k in todo}
    locks = core_dir()
    chain: dict[str, int] = {}

    def longest(kernel: Kernel) -> int:
        if kernel.name not in chain:
            chain[kernel.name] = kernel.weight + max([longest(k) for k in todo if kernel.name in k.needs], default=0)
        return chain[kernel.name]

    while True:
        failed = {k.name for k in todo if (board / f"{k.name}.failed").exists()}
        done = {k.name for k in todo if k.name in failed or ready(k.dispatcher, k.argtypes)}
        if len(done) == len(todo):
            return
        runnable = sorted((k for k in todo if k.name not in done and (k.needs & names) <= done),
                          key=lambda k: -longest(k))
        for kernel in runnable:
            with _locked(locks, kernel.name) as mine:
                if not mine:
                    continue        # another process compiles it
                if not ready(kernel.dispatcher, kernel.argtypes):
                    try:
                        kernel.dispatcher.compile(kernel.argtypes)
                    except Exception as exc:
                        (board / f"{kernel.name}.failed").write_text(f"{type(exc).__name__}: {exc}")
                break
        else:
            time.sleep(POLL_SECONDS)


@contextlib.contextmanager
def _locked(folder: Path | None, name: str):
    """An exclusive lock on `name` among the processes compiling into `folder` (the core kernels' cache),
    taken without waiting: yields whether this process holds it. Released by the system if the process
    dies. Without a folder or file locks, every kernel is this process's."""
    if folder is None or fcntl is None:
        yield True
        return
    with open(folder / f".{name}.lock", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _start_worker(board: Path, todo: list[Kernel], number: int):
    """A worker process taking jobs of `todo` (None when it cannot start: the others do its share)."""
    try:
        with open(board / f"worker-{number}.log", "wb") as log:
            return subprocess.Popen([sys.executable, "-m", "revenue.compiling", str(board), *[k.name for k in todo]],
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    except OSError:
        return None


def _monitor(todo: list[Kernel], on_progress, done: threading.Event) -> None:
    total = sum(k.weight for k in todo)
    while True:
        finished = done.is_set()
        on_progress(sum(k.weight for k in todo if ready(k.dispatcher, k.argtypes)), total)
        if finished:
            return
        done.wait(0.25)


def _work(board: str, names: list[str]) -> None:
    """A worker's part of compile_ahead (python -m revenue.compiling BOARD NAME...)."""
    listed = kernels()
    _take_jobs(Path(board), [listed[name] for name in names])


def load_kernels() -> None:
    """Load every kernel of KERNELS into this process (from the cache; compiling those it lacks)."""
    for kernel in kernels().values():
        kernel.dispatcher.compile(kernel.argtypes)


# ---- saying so, and the time it took ----------------------------------------------------------------------

_LOCK = threading.Lock()
_compiling = threading.local()
_seconds = 0.0
_say: Callable[[str], None] | None = None
_said = False


def compile_seconds() -> float:
    """The seconds this process has spent compiling kernels (Numba's compile events, outermost ones)."""
    return _seconds


def announce(say: Callable[[str], None]) -> None:
    """Make the first compile of this process (compile_ahead's, or a kernel's at its first call) say so
    once through `say` (a line of text)."""
    global _say
    _say = say


def message(seconds: float, jobs: int = 1) -> str:
    """The notice of a compile of about `seconds`."""
    rounded = max(5, int(round(seconds / 5.0)) * 5)
    return (f"compiling the optimizer's kernels for this install, about {rounded} s, once"
            + (f" ({jobs} processes)" if jobs > 1 else ""))


def _announce(seconds: float, jobs: int = 1) -> None:
    global _said
    with _LOCK:
        if _said or _say is None:
            return
        _said = True
    try:
        _say(message(seconds, jobs))
    except Exception:       # (a notice never stops a compile: a closed stream, say)
        pass


class _Clock(event.Listener):
    """Adds up the outermost compiles' durations; the first one of a kernel of this package announces."""

    def on_start(self, ev) -> None:
        depth = getattr(_compiling, "depth", 0)
        _compiling.depth = depth + 1
        if depth == 0:
            _compiling.started = time.perf_counter()
            if not _said and _say is not None:
                dispatcher = ev.data.get("dispatcher")
                module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
                if module.startswith("revenue."):
                    seen, _ = _compiled_with(dispatcher, ())
                    _announce(sum(len(d.py_func.__code__.co_code) for d in seen) * SECONDS_PER_BYTE)

    def on_end(self, ev) -> None:
        global _seconds
        _compiling.depth -= 1
        if _compiling.depth == 0:
            spent = time.perf_counter() - _compiling.started
            with _LOCK:
                _seconds += spent


event.register("numba:compile", _Clock())


# ---- deferring the one-call kernel ----------------------------------------------------------------------------

_deferred: set = set()


def defer(name: str) -> None:
    """Leave the kernel `name` (a qualname, e.g. "walk_and_combine") uncompiled in this process unless it
    is cached: its caller then takes its other path (see FIRST_CALLS)."""
    for kernel in kernels().values():
        if kernel.name.rsplit(":", 1)[1] == name and not ready(kernel.dispatcher, kernel.argtypes):
            _deferred.add(kernel.dispatcher)


def deferred(dispatcher: Dispatcher) -> bool:
    """Whether defer() left this kernel out."""
    return dispatcher in _deferred


if __name__ == "__main__":
    _work(sys.argv[1], sys.argv[2:])
