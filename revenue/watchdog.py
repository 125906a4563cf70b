"""Stopping searches on time: a search's kernels read a stop flag, which one watchdog thread for the
process sets when the search's deadline passes or its cancel event is set (a Cancel sets it itself);
Stops holds one search's flags."""
from __future__ import annotations

import math
import threading
import time

import numpy as np

POLL_SECONDS = 0.002    # how often the watchdog looks at a plain threading.Event that may cancel a search


class Cancel(threading.Event):
    """A cancel event that stops the searches given it the moment it is set. A plain threading.Event
    works too, but the watchdog has to poll it every POLL_SECONDS."""

    def __init__(self) -> None:
        super().__init__()
        self._stops: list[np.ndarray] = []

    def set(self) -> None:
        super().set()
        for stop in tuple(self._stops):
            stop[0] = 1

    def attach(self, stop: np.ndarray) -> None:
        self._stops.append(stop)
        if self.is_set():
            stop[0] = 1

    def detach(self, stop: np.ndarray) -> None:
        self._stops = [s for s in self._stops if s is not stop]


class Watchdog:
    """One thread for the whole process that sets a search's stop flag when its deadline passes or its
    cancel event is set, so a search with no improvements to report can run in its caller's thread. It
    sleeps until the next deadline, waking every POLL_SECONDS only while some search has a plain
    threading.Event to cancel it (a Cancel stops its searches itself)."""

    def __init__(self) -> None:
        self._wake = threading.Condition()
        self._watched: dict[int, tuple[np.ndarray, float | None, threading.Event | None]] = {}
        self._thread: threading.Thread | None = None
        self._due = float("inf")     # when the thread wakes next: a later deadline need not wake it

    def watch(self, stop: np.ndarray, until: float | None, cancel: threading.Event | None) -> int:
        if isinstance(cancel, Cancel):
            cancel.attach(stop)
            cancel = None
        with self._wake:
            ticket = id(stop)
            self._watched[ticket] = (stop, until, cancel)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="revenue-watchdog", daemon=True)
                self._thread.start()
            # Woken only if it would look too late: a wake-up per search costs a busy service's calls.
            look_by = until if cancel is None else time.perf_counter() + POLL_SECONDS
            if look_by is not None and look_by < self._due:
                self._wake.notify()
            return ticket

    def release(self, ticket: int, cancel: threading.Event | None) -> None:
        with self._wake:
            stop = self._watched.pop(ticket)[0]
        if isinstance(cancel, Cancel):
            cancel.detach(stop)

    def _run(self) -> None:
        with self._wake:
            while True:
                now = time.perf_counter()
                nap = None
                for stop, until, cancel in self._watched.values():
                    if (until is not None and now >= until) or (cancel is not None and cancel.is_set()):
                        stop[0] = 1
                    elif cancel is not None:
                        nap = POLL_SECONDS
                    elif until is not None:
                        nap = min(nap or until - now, until - now)
                self._due = float("inf") if nap is None else now + nap
                self._wake.wait(nap)


WATCHDOG = Watchdog()


class Stops:
    """One search's stop flags: `flag`, set at its deadline (`until`, perf_counter) or cancel, and a flag of
    its own for each part of it that ends sooner (at); halt() sets them all."""

    __slots__ = ("until", "cancel", "flag", "flags")

    def __init__(self, until: float | None, cancel: threading.Event | None) -> None:
        self.until, self.cancel = until, cancel
        self.flag = np.zeros(1, dtype=np.int64)
        self.flags = [self.flag]

    def halt(self) -> None:
        for stop in self.flags:
            stop[0] = 1

    def at(self, until: float) -> tuple[np.ndarray, int]:
        """A stop flag of its own, set at `until` (or the search's deadline or cancel, if sooner), and its
        watchdog ticket (release it when done)."""
        stop = np.zeros(1, dtype=np.int64)
        if self.flag[0]:
            stop[0] = 1
        self.flags.append(stop)
        end = until if self.until is None else min(until, self.until)
        return stop, WATCHDOG.watch(stop, None if math.isinf(end) else end, self.cancel)

    def release(self, ticket: int) -> None:
        """The flag of `ticket` (at) is no longer watched."""
        WATCHDOG.release(ticket, self.cancel)
