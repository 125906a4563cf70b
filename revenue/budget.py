"""A call's budget for what it builds before its search: the board's track graph (revenue.graph), whose walk
follows every trail of track and so grows exponentially on hexes that join many sides to one another or
through junctions. A call of the public API (solve, evaluate, dividends, the page's geometry) opens a
budget with its deadline, cancel and memory cap (call_budget); the graph's build, deep below it, reads the
budget of its thread (current) and hands its stop flag and caps to the walk (revenue.core.track), which
ends at the deadline or cancel (Interrupted) or past a cap (InputError naming the board).
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

import numpy as np

from .core.track import WALK_STOPPED, WALK_TOO_LARGE, WALK_TOO_LONG
from .errors import InputError, Interrupted
from .watchdog import WATCHDOG

MEMORY_MB = 256     # the track graph's memory cap without one given (as a search's, revenue.optimizer.search)
# A walk's steps (a path followed or given up) past which a board is refused whatever the deadline: about
# 20 s of one core; the largest title boards take below a million.
MAX_WALK_STEPS = 2_000_000_000


class Budget:
    """One call's stop flag (set at its deadline or cancel by the process's watchdog) and the walk's caps
    (revenue.core.track.walk_chains: steps, bytes)."""

    __slots__ = ("stop", "caps", "memory_mb")

    def __init__(self, memory_mb: float = MEMORY_MB, max_steps: int = MAX_WALK_STEPS):
        self.stop = np.zeros(1, dtype=np.int64)
        self.memory_mb = memory_mb
        self.caps = np.array([max_steps, int(memory_mb * (1 << 20))], dtype=np.int64)

    def check_walk(self, status: int) -> None:
        """Raise for a walk (a track's status) cut short: Interrupted when stopped, InputError past a cap."""
        if status == WALK_STOPPED:
            raise Interrupted("the deadline passed or the call was cancelled while the track graph was built")
        if status == WALK_TOO_LARGE:
            raise InputError("board", f"the track graph of this board passes the memory cap of {self.memory_mb:g} "
                                      "MB in its chains (hexes that join many sides, to one another or through "
                                      "junctions, multiply the chains between stops)")
        if status == WALK_TOO_LONG:
            raise InputError("board", f"the track graph of this board takes more than {int(self.caps[0]):,} steps "
                                      "to walk (hexes that join many sides, to one another or through junctions, "
                                      "multiply the trails of track)")


_UNBOUNDED = Budget()       # the budget of a call that opened none: the caps, no deadline
_CURRENT: ContextVar[Budget] = ContextVar("revenue_budget", default=_UNBOUNDED)


def current() -> Budget:
    """The budget of the call running in this thread (the default caps without a deadline if none)."""
    return _CURRENT.get()


@contextmanager
def call_budget(deadline: float | None = None, cancel: threading.Event | None = None,
                memory_mb: float | None = None) -> Iterator[Budget]:
    """A budget for the call within: `deadline` (seconds from now), `cancel`, `memory_mb` (default
    MEMORY_MB). Within another call's budget (dividends evaluating its routes) the outer one holds."""
    outer = _CURRENT.get()
    if outer is not _UNBOUNDED:
        yield outer
        return
    budget = Budget(MEMORY_MB if memory_mb is None else memory_mb, MAX_WALK_STEPS)
    until = None if deadline is None else time.perf_counter() + deadline
    ticket = WATCHDOG.watch(budget.stop, until, cancel) if until is not None or cancel is not None else None
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)
        if ticket is not None:
            WATCHDOG.release(ticket, cancel)
