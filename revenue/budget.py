"""A call's budget for what it builds before its search: the board's track graph (revenue.graph), whose walk
follows every trail of track and so grows exponentially on hexes that join many sides to one another or
through junctions, and the checks of given routes (revenue.evaluation, Budget.step). A call of the public API (solve, evaluate, dividends, the page's geometry) opens a
budget with its deadline, cancel and memory cap (call_budget); the graph's build, deep below it, reads the
budget of its thread (current) and hands its stop flag and caps to the walk (revenue.core.track), which
ends at the deadline or cancel (Interrupted) or past a cap (InputError naming the board).
"""
from __future__ import annotations

import threading
import time
from contextvars import ContextVar

import numpy as np

from .core.track import WALK_STOPPED, WALK_TOO_LARGE, WALK_TOO_LONG
from .errors import InputError, Interrupted
from .watchdog import WATCHDOG

MEMORY_MB = 256     # the track graph's memory cap without one given (as a search's, revenue.optimizer.search)
# A walk's steps (a path followed or given up) past which a board is refused whatever the deadline: about
# 3 s of one core; every title board and real game state walks in under a million.
MAX_WALK_STEPS = 200_000_000
# Steps of the searches that check given routes (revenue.evaluation: the chains a route given by its stops
# may take, one choice per route that shares no track) past which the routes are refused; real runs take
# tens. The deadline and cancel are read every CHECK_EVERY steps.
MAX_CHECK_STEPS = 20_000_000
CHECK_EVERY = 4096
# The track graph's chains may take this much whatever smaller cap a call gives: a small `memory_mb` caps the
# search's stored routes, and a board of the size limits that was answered before is not refused for it.
GRAPH_FLOOR_MB = 64


class Budget:
    """One call's deadline (`until`, perf_counter), cancel and caps for the walk of its track graph
    (revenue.core.track.walk_chains: steps, bytes). Its stop flag is made, and watched by the process's
    watchdog, once a walk asks for it (walk_args): a call whose graph is remembered costs nothing more."""

    __slots__ = ("memory_mb", "max_steps", "until", "cancel", "stop", "ticket", "steps")

    def __init__(self, memory_mb: float = MEMORY_MB, max_steps: int = MAX_WALK_STEPS, until: float | None = None,
                 cancel: threading.Event | None = None):
        self.memory_mb, self.max_steps, self.until, self.cancel = memory_mb, max_steps, until, cancel
        self.stop: np.ndarray | None = None
        self.ticket: int | None = None
        self.steps = 0

    def step(self, what: str, field: str) -> None:
        """One step of a search in Python (`what` it does, for the errors): Interrupted at the deadline or
        a cancel, InputError naming `field` past MAX_CHECK_STEPS."""
        self.steps += 1
        if self.steps % CHECK_EVERY:
            return
        if (self.until is not None and time.perf_counter() > self.until) or \
                (self.cancel is not None and self.cancel.is_set()):
            raise Interrupted(f"the deadline passed or the call was cancelled while {what}")
        if self.steps > MAX_CHECK_STEPS:
            raise InputError(field, f"{what} takes more than {MAX_CHECK_STEPS:,} steps (routes given by their "
                                    "stops alone, on track with many ways between them)")

    def walk_args(self) -> tuple[np.ndarray, np.ndarray]:
        """The walk's stop flag (set at the deadline or cancel from now on) and caps."""
        if self.stop is None:
            self.stop = np.zeros(1, dtype=np.int64)
            if self.until is not None or self.cancel is not None:
                self.ticket = WATCHDOG.watch(self.stop, self.until, self.cancel)
        return self.stop, np.array([self.max_steps, int(self.graph_mb() * (1 << 20))], dtype=np.int64)

    def graph_mb(self) -> float:
        return max(self.memory_mb, GRAPH_FLOOR_MB)

    def check_walk(self, status: int) -> None:
        """Raise for a walk (a track's status) cut short: Interrupted when stopped, InputError past a cap."""
        if status == WALK_STOPPED:
            raise Interrupted("the deadline passed or the call was cancelled while the track graph was built")
        if status == WALK_TOO_LARGE:
            raise InputError("board", f"the track graph of this board passes the memory cap of {self.graph_mb():g} "
                                      "MB in its chains (hexes that join many sides, to one another or through "
                                      "junctions, multiply the chains between stops)")
        if status == WALK_TOO_LONG:
            raise InputError("board", f"the track graph of this board takes more than {self.max_steps:,} steps "
                                      "to walk (hexes that join many sides, to one another or through junctions, "
                                      "multiply the trails of track)")


_UNBOUNDED = Budget()       # the budget of a call that opened none: the caps, no deadline (its steps shared)
_CURRENT: ContextVar[Budget] = ContextVar("revenue_budget", default=_UNBOUNDED)


def current() -> Budget:
    """The budget of the call running in this thread (the default caps without a deadline if none)."""
    return _CURRENT.get()


class call_budget:
    """`with call_budget(deadline, cancel, memory_mb):` a budget for the call within: `deadline` (seconds
    from now), `cancel`, `memory_mb` (default MEMORY_MB). Within another call's budget (dividends
    evaluating its routes) the outer one holds."""

    __slots__ = ("budget", "token")

    def __init__(self, deadline: float | None = None, cancel: threading.Event | None = None,
                 memory_mb: float | None = None):
        until = None if deadline is None else time.perf_counter() + deadline
        self.budget = Budget(MEMORY_MB if memory_mb is None else memory_mb, MAX_WALK_STEPS, until, cancel)
        self.token = None

    def __enter__(self) -> Budget:
        outer = _CURRENT.get()
        if outer is not _UNBOUNDED:
            return outer
        self.token = _CURRENT.set(self.budget)
        return self.budget

    def __exit__(self, *exc) -> None:
        if self.token is not None:
            _CURRENT.reset(self.token)
            budget = self.budget
            if budget.ticket is not None:
                WATCHDOG.release(budget.ticket, budget.cancel)
