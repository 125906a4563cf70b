"""What every call of the service goes through: its bookkeeping (`Call`: log fields, cancel event, the
mapping of its outcome to a status, its one JSON log line), its cancel event (`CallCancel`), the margin
kept from its deadline (`Margin`), and how a request that does not parse reaches its handler
(`BadRequest`, `safe_deserializer`).

A call's outcome maps to a gRPC status: InputError becomes INVALID_ARGUMENT with a google.rpc.BadRequest
naming each field (`bad_request_status`); ServiceError its own code and message; any other exception is
a fault, whenever it happens (even once the deadline passed or the call was cancelled): INTERNAL with a
generic message and an incident id, logged at ERROR with its type, message and traceback
(`log_failure`; `report_unheard` when the call has ended before its work), none of which the client sees.
"""
from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections import deque
from typing import Any, Callable

import grpc
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from revenue.errors import InputError, clip
from revenue.optimizer import Cancel

log = logging.getLogger("revenue.server")

# gRPC reports "no deadline" as a time remaining of about the age of the universe.
NO_DEADLINE = 1e6
# A call ended this close to its deadline (by the server's clock) ended by it: the client's deadline
# comes first (the server's counts from the request's arrival), and the client's RST_STREAM reaches the
# server as a cancel a transit later, tens of ms on a loaded machine; logged as what the client saw.
DEADLINE_SLACK = 0.1
# The longest request value (title, company, player) a log line quotes.
LOGGED_CHARS = 64


class ServiceError(Exception):
    """A call outcome other than OK or bad input: a status code and a message for the client."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code, self.message = code, message


def exception_line(exc: BaseException) -> str:
    """An exception's type and message on one line, for a log line."""
    return clip(f"{type(exc).__name__}: {' '.join(str(exc).split())}", 500)


def log_failure(where: str, exc: BaseException) -> str:
    """Log a fault at ERROR: one line with a new incident id, where it happened and the exception's type
    and message, its traceback in the same record. The incident id, for the client's message."""
    incident = uuid.uuid4().hex[:12]
    log.error("incident %s in %s: %s", incident, where, exception_line(exc), exc_info=exc)
    return incident


def internal_message(incident: str) -> str:
    """What the client of a call that failed is told: nothing of the fault itself."""
    return f"internal error (incident {incident}); it is logged"


def report_unheard(future, where: str) -> None:
    """Log the fault of a call's work that its call no longer waits for (the client went away, or the
    call's deadline or the server's stop ended it), when the work ends: it is a fault all the same.
    `future`: the work's concurrent or asyncio future."""
    def done(f) -> None:
        if f.cancelled():
            return
        exc = f.exception()
        if exc is not None and not isinstance(exc, (InputError, ServiceError)):
            log_failure(where, exc)
    future.add_done_callback(done)


class CallCancel(Cancel):
    """A call's cancel event (revenue.optimizer.Cancel: its searches stop the moment it is set), set when the
    call ends under its handler: the client, its deadline or the server's stop. `then(fn)`: fn() once
    it is set (Admission withdraws a call still waiting for its turn)."""

    def __init__(self) -> None:
        super().__init__()
        self._then: Callable[[], None] | None = None

    def then(self, fn: Callable[[], None] | None) -> None:
        self._then = fn

    def set(self) -> None:
        super().set()
        fn = self._then
        if fn is not None:
            fn()


# What the margin's samples cannot see: the server's deadline starts when the request arrives, some 10 ms
# after the client set it (measured on loopback on the busy 2-core machine), and the client takes the answer.
SEND_SECONDS = 0.020


class Margin:
    """The time kept from a call's deadline to finish and send its answer, from measurement: how long
    after its search was to stop, each recent answer that ran into its limit was sent (calls that finish
    sooner need no margin, and their answers are quicker to build: their times would make it too small).
    That covers stopping the kernels, building the best run found, converting it, the lag in handing it
    on between threads (a stream's compute thread and its generator, gRPC's own), serializing and writing
    it, all of which grow when the CPU is contended. An answer that came too late for its client counts as well (the call's deadline ends it
    first, and the sample is taken then or when the answer is ready, whichever is later): the late ones
    are what the margin is for. The margin is three times the 99th percentile of the last SAMPLES such
    times plus SEND_SECONDS (what no sample sees), within low..high; until TRUSTED samples are in, it only grows from
    `start` (one quick answer says little about the next on a busy machine). The work after the stop is
    small (about 2 ms of CPU to build the answer and 0.4 ms to convert it, measured on the test boards);
    what grows on a contended CPU is the waiting for a core and for the interpreter's lock between the
    threads that hand the answer on: 100-200 ms at a load of 9-11 on 2 cores, hence start and high."""

    SAMPLES = 256
    TRUSTED = 8

    def __init__(self, low: float = 0.010, high: float = 0.500, start: float = 0.250):
        self.low, self.high, self.start = low, high, start
        self._samples: deque[float] = deque(maxlen=self.SAMPLES)
        self._lock = threading.Lock()
        self._value = start      # until the first answer is measured

    def add(self, seconds: float) -> None:
        with self._lock:
            self._samples.append(seconds)
            ordered = sorted(self._samples)     # at most SAMPLES: microseconds
            p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
            value = 3 * p99 + SEND_SECONDS
            if len(ordered) < self.TRUSTED:
                value = max(value, self.start)
            self._value = min(self.high, max(self.low, value))

    def seconds(self) -> float:
        return self._value


def remaining(context: grpc.ServicerContext) -> float:
    """Seconds left before the call's deadline (inf without one)."""
    left = context.time_remaining()
    return float("inf") if left is None or left > NO_DEADLINE else left


class BadRequest:
    """A request that does not parse, in place of its message (from safe_deserializer, or server/http.py's
    decode): its handler raises the error as INVALID_ARGUMENT."""

    def __init__(self, message_type, error: Exception):
        self.name = message_type.DESCRIPTOR.full_name
        self.error = error


def safe_deserializer(message_type) -> Callable[[bytes], Any]:
    """The request deserializer of a method: its message, or a BadRequest for bytes that are not one
    (gRPC answers INTERNAL when a deserializer raises; undecodable bytes are the client's error)."""
    def deserialize(data: bytes):
        try:
            return message_type.FromString(data)
        except Exception as exc:   # DecodeError, invalid UTF-8, recursion limit...
            return BadRequest(message_type, exc)
    return deserialize


def utf8(text: str) -> str:
    """`text` with any lone surrogate (a JSON key "\\ud800" decodes to one) written as its escape: a proto
    string must be valid UTF-8."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def bad_request_status(exc: InputError) -> status_pb2.Status:
    """INVALID_ARGUMENT with a google.rpc.BadRequest naming each field of `exc`."""
    detail = error_details_pb2.BadRequest(field_violations=[
        error_details_pb2.BadRequest.FieldViolation(field=utf8(f), description=utf8(d)) for f, d in exc.violations])
    status = status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message=utf8(str(exc)[:1000]))
    status.details.add().Pack(detail)
    return status


class Call:
    """One call's bookkeeping: its log fields, its cancel event, and the mapping of its outcome to a status.

    Its one log line is written by whichever comes first: the handler's end, or the end of the RPC
    itself (gRPC's callback, on gRPC's own thread): a call the client cancels, its deadline or the
    server's stop ends under its handler, which may then still be searching or waiting for its turn (the
    callback sets `cancel`, which stops the one and withdraws the other), and a stream's generator that
    gRPC stops reading may never run again."""

    __slots__ = ("method", "context", "started", "fields", "code", "error", "logged", "stopping", "stopped_at",
                 "margin", "has_done_callback", "rpc_finished", "cancel")

    def __init__(self, method: str, context: grpc.ServicerContext, stopping: threading.Event | None = None):
        self.method, self.context = method, context
        self.started = time.perf_counter()
        self.fields: dict[str, Any] = {}
        if getattr(context, "transport", None):    # "http" for a call over HTTP/JSON (server/http.py)
            self.fields["transport"] = context.transport
        self.code = grpc.StatusCode.OK
        self.error = ""
        self.logged = False
        self.stopping = stopping      # set once the server shuts down
        self.stopped_at = 0.0         # when a search that ran into its limit was to stop, for Margin
        self.margin: Margin | None = None    # set once the answer of such a search is ready
        self.rpc_finished = False
        self.cancel = CallCancel()
        add_callback = getattr(context, "add_callback", None)
        self.has_done_callback = add_callback is not None
        if add_callback is not None and not add_callback(self._rpc_done):
            self._rpc_done()          # the RPC ended already

    def _rpc_done(self) -> None:
        self.rpc_finished = True
        self.sample_margin()      # the answer is sent (or the call's deadline cut it)
        if self.logged:
            return
        self.cancel.set()         # stops its search, or withdraws it from the queue
        if self.code == grpc.StatusCode.OK:
            self.interrupted()
        self.finish()

    def sample_margin(self) -> None:
        """Give `margin` the time since the search was to stop, once (from either thread: a rare double
        sample is harmless)."""
        margin, self.margin = self.margin, None
        if margin is not None:
            margin.add(time.perf_counter() - self.stopped_at)

    def describe(self, message) -> None:
        """The request's title, company and player for the log line."""
        title = getattr(getattr(message, "board", None), "title", "")
        company = getattr(getattr(message, "company", None), "id", "")
        player = getattr(message, "player", "")
        for name, value in (("title", title), ("company", company), ("player", player)):
            if value:
                self.fields[name] = clip(value, LOGGED_CHARS)   # a log line stays short whatever came in

    def interrupted(self) -> None:
        """The call was cancelled under the handler: by its deadline, the client or the server stopping."""
        if self.stopping is not None and self.stopping.is_set():
            self.code, self.error = grpc.StatusCode.CANCELLED, "the server shut down"
        elif remaining(self.context) <= DEADLINE_SLACK:
            self.code, self.error = grpc.StatusCode.DEADLINE_EXCEEDED, "the call's deadline passed"
        else:
            self.code, self.error = grpc.StatusCode.CANCELLED, "the call was cancelled"

    def fail(self, exc: BaseException):
        """Abort the call with the status `exc` stands for (raises, as context.abort does)."""
        if isinstance(exc, InputError):
            self.code, self.error = grpc.StatusCode.INVALID_ARGUMENT, str(exc)[:300]
            self.context.abort_with_status(rpc_status.to_status(bad_request_status(exc)))
        if isinstance(exc, ServiceError):
            self.code, self.error = exc.code, exc.message
            if exc.code == grpc.StatusCode.CANCELLED and remaining(self.context) <= DEADLINE_SLACK and \
                    not (self.stopping is not None and self.stopping.is_set()):
                # withdrawn from the queue by its deadline: what the client got
                self.code, self.error = grpc.StatusCode.DEADLINE_EXCEEDED, "the call's deadline passed while queued"
            self.context.abort(exc.code, exc.message)
        incident = log_failure(self.method, exc)
        self.code, self.error = grpc.StatusCode.INTERNAL, f"incident {incident}: {type(exc).__name__}"
        self.context.abort(grpc.StatusCode.INTERNAL, internal_message(incident))

    def finish(self) -> None:
        with _LOGGING:           # the handler's thread and gRPC's callback may both get here
            if self.logged:
                return
            self.logged = True
        if self.code == grpc.StatusCode.OK and remaining(self.context) <= 0:
            # The handler made its answer, but after the call's deadline: the client got DEADLINE_EXCEEDED.
            self.code, self.error = grpc.StatusCode.DEADLINE_EXCEEDED, "answered after the call's deadline"
        record = {"method": self.method, **self.fields, "code": self.code.name,
                  "elapsed_ms": round((time.perf_counter() - self.started) * 1000, 3)}
        if self.error:
            record["error"] = clip(self.error, 300)
        if log.isEnabledFor(logging.INFO):
            log.info(json.dumps(record))


_LOGGING = threading.Lock()


class Work:
    """What a method leaves to do once the call has its turn (Admission): `run()`, on the call's own
    thread over gRPC or on a compute thread over HTTP; `large` as RouteService.expect_large says."""

    __slots__ = ("run", "large")

    def __init__(self, run: Callable[[], Any], large: bool = False):
        self.run, self.large = run, large

