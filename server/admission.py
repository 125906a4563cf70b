"""Admission: the bounded queue of the service's calls, fair to small calls, and its compute threads."""
from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from concurrent import futures
from typing import Any, Callable

import grpc

from .calls import CallCancel, ServiceError, report_unheard


class Admission:
    """The bounded queue, fair to small calls: at most `workers` calls compute at once, at most
    `max_queue` more wait for a turn, and the next is RESOURCE_EXHAUSTED at once rather than waiting
    without bound. A call counts as admitted until its work is over or it was withdrawn while waiting.

    A call's work runs either on the thread that asks (`call`: a gRPC handler's own thread, which waits
    its turn) or on one of the `workers` compute threads (`submit`, and `run` for an event loop, which
    must not wait; `submit` for a stream too, whose thread hands on the improvements meanwhile); both
    kinds share the same turns.

    Calls expected to be long ("large": see RouteService.expect_large) may hold at most `workers - 1`
    turns (all of them when there is one) and `max_queue` less a quarter (rounded up) of the queue
    slots, so a flood of long searches never keeps a small call from a turn or a slot. Waiting calls
    start in arrival order, a large one skipped while the large calls already hold their share."""

    def __init__(self, workers: int, max_queue: int):
        self.workers, self.max_queue, self.capacity = workers, max_queue, workers + max_queue
        self.large_workers = workers - 1 if workers >= 2 else workers
        self.large_capacity = self.large_workers + max_queue - (max_queue + 3) // 4
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)   # compute threads wait here for started jobs
        self._queue: deque[_Job] = deque()      # waiting for a turn
        self._ready: deque[_Job] = deque()      # given a turn, for a compute thread
        self._closed = False
        self.admitted = 0          # calls waiting or computing
        self.admitted_large = 0    # ... of them large
        self.running = 0           # calls computing
        self.running_large = 0     # large calls computing
        self._computing: set[_Job] = set()     # (for stuck(): when each began)
        self._threads = [threading.Thread(target=self._serve, name=f"revenue-solve-{i}", daemon=True)
                         for i in range(workers)]
        for thread in self._threads:
            thread.start()

    def _admit(self, large: bool) -> None:
        """Count a new call in, or refuse it (with the lock held)."""
        if self._closed:
            raise ServiceError(grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
        if self.admitted >= self.capacity:
            raise ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                               f"server busy: {self.workers} calls computing and "
                               f"{self.capacity - self.workers} waiting; retry later")
        if large and self.admitted_large >= self.large_capacity:
            raise ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED,
                               f"server busy with long searches ({self.admitted_large}); the rest of "
                               f"the queue is kept for small calls; retry later")
        self.admitted += 1
        self.admitted_large += large

    def call(self, work: Callable[[], Any], large: bool = False, cancel: CallCancel | None = None):
        """work() on this thread once the call has its turn (waiting for it in the queue), and its result.
        Setting `cancel` withdraws a call still waiting: CANCELLED."""
        with self._lock:
            self._admit(large)
            job = _Job(None, large, None)
            self._queue.append(job)
            self._start_waiting()
            if job.state is _WAITING:
                job.wake = threading.Condition(self._lock)
                if cancel is not None:
                    cancel.then(lambda: self._withdraw(job))
                    if cancel.is_set():
                        self._withdraw_locked(job)
                while job.state is _WAITING:
                    job.wake.wait()
                if cancel is not None:
                    cancel.then(None)
                if job.state is _WITHDRAWN:
                    raise ServiceError(grpc.StatusCode.CANCELLED,
                                       "the server shut down" if self._closed else "cancelled while queued")
        try:
            return work()
        finally:
            with self._lock:
                self._end(job)

    def submit(self, work: Callable[[], Any], large: bool = False) -> futures.Future:
        """work() on a compute thread once the call has its turn: its future (cancel it to withdraw the call
        while it waits)."""
        future: futures.Future = futures.Future()
        with self._lock:
            self._admit(large)
            self._queue.append(_Job(work, large, future))
            self._start_waiting()
        future.add_done_callback(self._forget)
        return future

    async def run(self, work: Callable[[], Any], large: bool = False, cancel: threading.Event | None = None,
                  where: str = ""):
        """work() on a compute thread once the call has its turn, for an event loop (HTTP): its result.
        Cancelling the coroutine (the client, the server stopping) withdraws the call while it waits, or
        sets `cancel`, which stops a running search within a few polls; a fault of the work after that is
        still logged (`where`: the call's method)."""
        future = self.submit(work, large)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            if cancel is not None:
                cancel.set()
            if not future.cancel():
                report_unheard(future, where)
            raise

    def _forget(self, future: futures.Future) -> None:
        """A submitted call withdrawn while waiting: its place in the queue's count is free."""
        if future.cancelled():
            with self._lock:
                for job in self._queue:
                    if job.future is future:
                        self._queue.remove(job)
                        self.admitted -= 1
                        self.admitted_large -= job.large
                        break

    def _start_waiting(self) -> None:
        """Give turns to the oldest waiting calls that may start now (with the lock held)."""
        while self.running < self.workers and self._queue:
            for job in self._queue:
                if not job.large or self.running_large < self.large_workers:
                    break
            else:
                return
            self._queue.remove(job)
            self.running += 1
            self.running_large += job.large
            job.state = _STARTED
            job.began = time.perf_counter()
            self._computing.add(job)
            if job.future is not None:
                self._ready.append(job)
                # One job, one thread to wake: each one woken for nothing would take the interpreter's
                # lock from the threads at work.
                self._cond.notify()
            elif job.wake is not None:
                job.wake.notify()

    def _end(self, job: "_Job") -> None:
        """A call's work is over (with the lock held): its turn goes to the next."""
        self._computing.discard(job)
        self.running -= 1
        self.running_large -= job.large
        self.admitted -= 1
        self.admitted_large -= job.large
        self._start_waiting()

    def _withdraw(self, job: "_Job") -> None:
        with self._lock:
            self._withdraw_locked(job)

    def _withdraw_locked(self, job: "_Job") -> None:
        if job.state is _WAITING:
            self._queue.remove(job)
            job.state = _WITHDRAWN
            self.admitted -= 1
            self.admitted_large -= job.large
            if job.wake is not None:
                job.wake.notify()

    def _serve(self) -> None:
        while True:
            with self._lock:
                while not self._ready:
                    if self._closed:
                        return
                    self._cond.wait()
                job = self._ready.popleft()
            future = job.future
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(job.work())
                    except BaseException as exc:
                        future.set_exception(exc)
            finally:
                with self._lock:
                    self._end(job)

    def stuck(self, seconds: float) -> bool:
        """Whether every compute turn is held by a call that has computed for longer than `seconds` (past
        any deadline it can have): the process can take no work until one ends."""
        since = time.perf_counter() - seconds
        with self._lock:
            return sum(job.began < since for job in self._computing) >= self.workers

    def shutdown(self) -> None:
        """Start nothing more; the calls still waiting are withdrawn (running ones end with their calls)."""
        with self._lock:
            self._closed = True
            waiting = list(self._queue)
            for job in waiting:
                if job.future is None:
                    self._withdraw_locked(job)
            self._cond.notify_all()
        for job in waiting:
            if job.future is not None:
                job.future.cancel()


_WAITING, _STARTED, _WITHDRAWN = "waiting", "started", "withdrawn"


class _Job:
    """A call admitted: its work for a compute thread (with its future), or None when its own thread runs
    it (and waits on `wake` for its turn)."""

    __slots__ = ("work", "large", "future", "wake", "state", "began")

    def __init__(self, work: Callable[[], Any] | None, large: bool, future: futures.Future | None):
        self.work, self.large, self.future = work, large, future
        self.wake: threading.Condition | None = None
        self.state = _WAITING
        self.began = 0.0        # perf_counter when it got its turn

