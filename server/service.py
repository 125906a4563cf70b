"""The RouteService servicer: proto messages in, the library's dict API, proto messages out.

Every call goes through `_Call`: it decodes the request (a request that does not even parse is bad input,
not an internal error), checks the size limits, waits for a compute slot in the bounded queue, runs the
library, and maps the outcome to a gRPC status. InputError becomes INVALID_ARGUMENT with a
google.rpc.BadRequest naming each field; any other exception becomes INTERNAL with a short message and
an incident id, its traceback only in the server's log. Each call ends with one JSON log line.
"""
from __future__ import annotations

import asyncio
import hmac
import json
import logging
import queue
import threading
import time
import uuid
from collections import deque
from concurrent import futures
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, AsyncIterator, Callable, Iterator

import grpc
import numpy as np
from google.protobuf.descriptor import FieldDescriptor
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from revenue import api
from revenue.bounds import TEXT_FIELDS, size_violations
from revenue.cache import BOARD_CACHE_BYTES, ByteLRU
from revenue.errors import InputError, Interrupted, clip
from revenue.optimizer import Cancel
from revenue.v1 import revenue_pb2, service_pb2, steam_pb2  # noqa: F401  (service_pb2 registers the service)

from .protojson import request_dict

log = logging.getLogger("revenue.server")

SERVICE_NAME = "revenue.v1.RouteService"
# gRPC reports "no deadline" as a time remaining of about the age of the universe.
NO_DEADLINE = 1e6
# The longest request value (title, company, player) a log line quotes.
LOGGED_CHARS = 64


@dataclass(frozen=True)
class Limits:
    """Largest request served; a bigger one is INVALID_ARGUMENT naming the field. Real games stay far
    below: an 1830 map has 93 hexes, a late game about 80 tiles and 40 tokens."""
    hexes: int = 400            # board.custom.hexes
    tiles: int = 200            # board.tiles
    tokens: int = 200           # board.tokens
    trains: int = 20            # company.trains, and routes of an Evaluate
    custom_trains: int = 50     # board.custom.trains
    rows: int = 10              # board.custom.trains[i].rows
    phases: int = 50            # board.custom.phases
    options: int = 50           # board.options
    privates: int = 50          # company.privates
    route_nodes: int = 200      # routes[i].nodes and routes[i].connections
    text: int = 4096            # a tile code or an option value
    name: int = 200             # any other string: names, ids, colours, locations, option keys
    entries: int = 1000         # any other list (phase colours, holders, connections...)


def bearer_accepts(given: str | bytes, token: bytes) -> bool:
    """Whether an `authorization` value is `Bearer <token>`: the scheme in any case and any spaces after
    it (RFC 6750, RFC 7235), the token compared in constant time. For both transports."""
    given = given.encode() if isinstance(given, str) else given
    scheme, _, rest = given.strip().partition(b" ")
    return scheme.lower() == b"bearer" and hmac.compare_digest(rest.lstrip(b" "), token)


class ServiceError(Exception):
    """A call outcome other than OK or bad input: a status code and a message for the client."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code, self.message = code, message


class Admission:
    """The bounded queue, fair to small calls: at most `workers` calls compute at once, at most
    `max_queue` more wait for a turn, and the next is RESOURCE_EXHAUSTED at once rather than waiting
    without bound. A call counts as admitted until its work is over or it was withdrawn while waiting.

    A call's work runs either on the thread that asks (`call`: a gRPC handler's own thread, which waits
    its turn) or on one of the `workers` compute threads (`submit`: for an event loop, which must not
    wait, and for a stream, whose thread hands on the improvements meanwhile); both kinds share the
    same turns.

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

    def call(self, work: Callable[[], Any], large: bool = False, cancel: "CallCancel | None" = None):
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
            if job.future is not None:
                self._ready.append(job)
                # One job, one thread to wake: each one woken for nothing would take the interpreter's
                # lock from the threads at work.
                self._cond.notify()
            elif job.wake is not None:
                job.wake.notify()

    def _end(self, job: "_Job") -> None:
        """A call's work is over (with the lock held): its turn goes to the next."""
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

    __slots__ = ("work", "large", "future", "wake", "state")

    def __init__(self, work: Callable[[], Any] | None, large: bool, future: futures.Future | None):
        self.work, self.large, self.future = work, large, future
        self.wake: threading.Condition | None = None
        self.state = _WAITING


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


async def _run(admission: Admission, cancel: threading.Event, work: Callable[[], Any], large: bool = False):
    """`work` on a compute thread, for an event loop (HTTP); cancelling the call (the client, the server
    stopping) withdraws it while it waits, or sets `cancel`, which stops a running search within a few polls."""
    future = admission.submit(work, large)
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        cancel.set()
        future.cancel()
        raise


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


def _remaining(context: grpc.ServicerContext) -> float:
    remaining = context.time_remaining()
    return float("inf") if remaining is None or remaining > NO_DEADLINE else remaining


def _to_dict(message) -> dict:
    return request_dict(message)


class Boards:
    """Requests as dicts, each distinct board converted and checked against the limits once: a game
    server asks about one board for each company of a round. The boards are read-only, so the library
    remembers each one's track graph by identity (revenue.graph_cache.graph_for). At most `size` boards and
    BOARD_CACHE_BYTES by estimate (a decoded board takes about 30 KB plus three times its message's
    bytes, key included).

    A message becomes the dict json_format.MessageToDict would give (server/protojson.py, in a third of
    its time), and its strings and lists are checked on the message's encoded sizes (sizes_fit) rather
    than by walking the dict; only a message that may be over a limit is walked, so its error is the
    one check_limits has always given."""

    def __init__(self, limits: Limits, size: int = 64):
        self.limits, self.size = limits, size
        self._boards: ByteLRU[MappingProxyType] = ByteLRU(BOARD_CACHE_BYTES, most=size)

    def request(self, message) -> dict:
        """`message` as a dict, checked (InputError for a request over the limits)."""
        return self.request_sized(message)[0]

    def request_sized(self, message) -> tuple[dict, int]:
        """request(message), and its board's encoded size (0 without a board), which the board's key
        gives for free (cost_key's, without another pass over the board)."""
        if not message.HasField("board"):
            request = request_dict(message)
            check_limits(request, self.limits, walk=not sizes_fit(message, self.limits))
            return request, 0
        board, size = self.board_sized(message.board)
        request = request_dict(message, without="board")
        check_limits(request, self.limits, walk=not sizes_fit(message, self.limits, without="board"))
        request["board"] = board
        return request, size

    def board(self, message) -> MappingProxyType:
        return self.board_sized(message)[0]

    def board_sized(self, message) -> tuple[MappingProxyType, int]:
        key = message.SerializeToString(deterministic=True)
        board = self._boards.get(key)
        if board is not None:
            return board, len(key)
        board = MappingProxyType(request_dict(message))
        fits = len(key) <= min(self.limits.name, self.limits.text, self.limits.entries) or \
            sizes_fit(message, self.limits)
        check_limits({"board": board}, self.limits, walk=not fits)    # an oversized board is not kept
        self._boards.put(key, board, 30_000 + 3 * len(key))
        return board, len(key)


# Message types whose dicts hold only what sizes_fit reasons about: strings, numbers, booleans, lists,
# maps and messages of the same kind (no bytes, whose base64 text is longer than they are; no enums,
# whose names are not in the message; no google.protobuf types); with the longest field name and the
# most fields of one message among them (the dicts' keys, which the walk checks too), or None.
_PLAIN: dict = {}


def _key_sizes(desc) -> tuple[int, int] | None:
    if desc in _PLAIN:
        return _PLAIN[desc]
    _PLAIN[desc] = (0, 0)      # a type that holds itself: decided by its other fields
    sizes: tuple[int, int] | None = None
    if desc.file.package != "google.protobuf":
        sizes = (max((len(field.name) for field in desc.fields), default=0), len(desc.fields))
    for field in desc.fields:
        if sizes is None or field.type in (FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_ENUM):
            sizes = None
            break
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            inner = _key_sizes(field.message_type)
            sizes = None if inner is None else (max(sizes[0], inner[0]), max(sizes[1], inner[1]))
    _PLAIN[desc] = sizes
    return sizes


def sizes_fit(message, limits: Limits, without: str | None = None) -> bool:
    """Whether the walk of check_limits (revenue.bounds.size_violations: each string within its length,
    each list and map within limits.entries) can find nothing in `message`'s dict. Conservative: False
    means "walk it". A message of at most `small` bytes holds no longer string nor a list or map of
    more entries, so a board's tile lays and tokens are passed on their encoded size alone; the rest
    is looked at field by field (`without`: a field left out)."""
    name, text, entries = limits.name, limits.text, limits.entries
    small = min(name, text, entries)
    keys = _key_sizes(message.DESCRIPTOR)
    if keys is None or keys[0] > name or keys[1] > entries:
        return False
    for field, value in message.ListFields():
        if field.name == without:
            continue
        if field.type == FieldDescriptor.TYPE_STRING:
            limit = text if field.name in TEXT_FIELDS else name
            if not field.is_repeated:
                if len(value) > limit:
                    return False
            elif len(value) > entries or any(len(v) > limit for v in value):
                return False
        elif field.type != FieldDescriptor.TYPE_MESSAGE:
            if field.is_repeated and len(value) > entries:
                return False
        elif field.message_type.GetOptions().map_entry:
            # map<string, string> (a board's options: its values are text)
            limit = text if field.name.endswith("options") else name
            if len(value) > entries or any(type(k) is not str or len(k) > name for k in value) or \
                    any(type(v) is not str or len(v) > limit for v in value.values()):
                return False
        elif field.is_repeated:
            if len(value) > entries:
                return False
            if value:
                size = type(value[0]).ByteSize
                if max(map(size, value)) > small and not all(size(v) <= small or sizes_fit(v, limits)
                                                             for v in value):
                    return False
        elif value.ByteSize() > small and not sizes_fit(value, limits):
            return False
    return True


# What makes a call "large" for Admission (RouteService.expect_large).
LARGE_SECONDS = 0.1
LARGE_TRAINS = 4
SMALL_CUSTOM_HEXES = 30
LARGE_STEAM_LINKS = 1000
LARGE_STEAM_LEVEL = 8


def cost_key(request, board_bytes: int | None = None) -> tuple:
    """What the cost of a Solve is remembered by: the board's title, phase and encoded size, and the
    trains (cheap to compute; two boards that share it are alike enough for a guess). `board_bytes`: the
    board's encoded size when it is known (Boards.request_sized): measuring it again took 15 us a board."""
    board = request.board
    return (board.title, board.phase, board.ByteSize() if board_bytes is None else board_bytes,
            tuple(t.name for t in request.company.trains))


def _to_message(result: dict, message_type):
    return api.to_message(result, message_type)


class _BadRequest:
    """What a deserializer returns for bytes that are not the request message."""

    def __init__(self, message_type, error: Exception):
        self.name = message_type.DESCRIPTOR.full_name
        self.error = error


def safe_deserializer(message_type) -> Callable[[bytes], Any]:
    # gRPC answers INTERNAL when a deserializer raises; undecodable bytes are the client's error.
    def deserialize(data: bytes):
        try:
            return message_type.FromString(data)
        except Exception as exc:   # DecodeError, invalid UTF-8, recursion limit...
            return _BadRequest(message_type, exc)
    return deserialize


def check_limits(request: dict, limits: Limits, walk: bool = True) -> None:
    """INVALID_ARGUMENT (an InputError listing every field over its limit) for an oversized request.
    `walk=False` leaves out the walk over every string and list, for a request that sizes_fit passed
    (the walk would find nothing)."""
    violations: list[tuple[str, str]] = []

    def cap(path: str, items, most: int) -> None:
        if items is not None and len(items) > most:
            violations.append((path, f"{len(items)} entries; the service takes at most {most}"))

    def text(path: str, value) -> None:
        if isinstance(value, str) and len(value) > limits.text:
            violations.append((path, f"{len(value)} characters; the service takes at most {limits.text}"))

    board = request.get("board") or {}
    cap("board.tiles", board.get("tiles"), limits.tiles)
    cap("board.tokens", board.get("tokens"), limits.tokens)
    cap("board.options", board.get("options"), limits.options)
    for i, lay in enumerate(board.get("tiles") or []):
        if "code" in lay:        # the field's path is spelled out only when it is needed
            text(f"board.tiles[{i}].code", lay["code"])
    for key, value in (board.get("options") or {}).items():
        text(f"board.options[{key}]", value)
    custom = board.get("custom") or {}
    cap("board.custom.hexes", custom.get("hexes"), limits.hexes)
    cap("board.custom.trains", custom.get("trains"), limits.custom_trains)
    cap("board.custom.phases", custom.get("phases"), limits.phases)
    for i, h in enumerate(custom.get("hexes") or []):
        text(f"board.custom.hexes[{i}].code", h.get("code"))
    for i, t in enumerate(custom.get("trains") or []):
        cap(f"board.custom.trains[{i}].rows", t.get("rows"), limits.rows)
    company = request.get("company") or {}
    cap("company.trains", company.get("trains"), limits.trains)
    cap("company.privates", company.get("privates"), limits.privates)
    action = request.get("run_routes") or {}
    for where, routes in (("routes", request.get("routes")), ("run_routes.routes", action.get("routes"))):
        cap(where, routes, limits.trains)
        for i, r in enumerate(routes or []):
            halts = r.get("halts")
            if isinstance(halts, int) and not 0 <= halts <= limits.route_nodes:
                violations.append((f"{where}[{i}].halts", f"{halts} is not in 0..{limits.route_nodes}"))
            cap(f"{where}[{i}].nodes", r.get("nodes"), limits.route_nodes)
            cap(f"{where}[{i}].connections", r.get("connections"), limits.route_nodes)
            for j, entry in enumerate(r.get("connections") or []):
                cap(f"{where}[{i}].connections[{j}]",
                    entry.get("hexes") if isinstance(entry, dict) else entry, limits.route_nodes)
    # Every string and every other list, wherever it is: nothing of unbounded size goes further.
    if walk:
        size_violations(request, "", violations, text=limits.text, name=limits.name, entries=limits.entries)
    if violations:
        seen: set[str] = set()
        unique = [(f, d) for f, d in violations if not (f in seen or seen.add(f))]   # one per field
        raise InputError(unique[0][0], unique[0][1], unique[1:])


def bad_request_status(exc: InputError) -> status_pb2.Status:
    detail = error_details_pb2.BadRequest(field_violations=[
        error_details_pb2.BadRequest.FieldViolation(field=f, description=d) for f, d in exc.violations])
    status = status_pb2.Status(code=code_pb2.INVALID_ARGUMENT, message=str(exc)[:1000])
    status.details.add().Pack(detail)
    return status


class _Call:
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
        elif _remaining(self.context) <= 0.01:
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
            self.context.abort(exc.code, exc.message)
        incident = uuid.uuid4().hex[:12]
        self.code, self.error = grpc.StatusCode.INTERNAL, f"incident {incident}: {type(exc).__name__}"
        log.error("incident %s in %s", incident, self.method, exc_info=exc)
        self.context.abort(grpc.StatusCode.INTERNAL, f"internal error (incident {incident}); it is logged")

    def finish(self) -> None:
        with _LOGGING:           # the handler's thread and gRPC's callback may both get here
            if self.logged:
                return
            self.logged = True
        if self.code == grpc.StatusCode.OK and _remaining(self.context) <= 0:
            # The handler made its answer, but after the call's deadline: the client got DEADLINE_EXCEEDED.
            self.code, self.error = grpc.StatusCode.DEADLINE_EXCEEDED, "answered after the call's deadline"
        record = {"method": self.method, **self.fields, "code": self.code.name,
                  "elapsed_ms": round((time.perf_counter() - self.started) * 1000, 3)}
        if self.error:
            record["error"] = clip(self.error, 300)
        if log.isEnabledFor(logging.INFO):
            log.info(json.dumps(record))


_LOGGING = threading.Lock()


class _Work:
    """What a method leaves to do once the call has its turn (Admission): `run()`, on the call's own
    thread over gRPC or on a compute thread over HTTP; `large` as RouteService.expect_large says."""

    __slots__ = ("run", "large")

    def __init__(self, run: Callable[[], Any], large: bool = False):
        self.run, self.large = run, large


class RouteService:
    """The servicer. `handler()` gives the generic handler to add to a grpc.server (sync: each call is
    handled, and its search run, on the server pool's thread that took it, once Admission gives it a
    turn); `async_handler()` the same methods as coroutines for an event loop (HTTP: server/http.py),
    whose searches run on the compute threads of `admission`. Both share each method's steps (reading
    and checking the request on the calling thread, then a `_Work`)."""

    def __init__(self, workers: int = 2, max_queue: int = 32, max_compute_ms: int = 10_000,
                 limits: Limits = Limits(), max_memory_mb: float = 256):
        if workers < 1 or max_queue < 0 or max_compute_ms < 1 or max_memory_mb <= 0:
            raise ValueError("workers >= 1, max_queue >= 0, max_compute_ms >= 1 and max_memory_mb > 0 are required")
        self.admission = Admission(workers, max_queue)
        self.max_compute = max_compute_ms / 1000.0
        self.max_memory_mb = max_memory_mb
        self.limits = limits
        self.boards = Boards(limits)
        self.costs: ByteLRU[float] = ByteLRU(1 << 20, most=4096)   # cost_key -> seconds of its last search
        self.margin = Margin()
        self.stopping = threading.Event()     # set by the server when it shuts down
        self._titles: revenue_pb2.ListTitlesResponse | None = None
        self._titles_lock = threading.Lock()

    # ---- plumbing ------------------------------------------------------------------------------------

    _METHODS = (("Solve", "_solve", revenue_pb2.SolveRequest, revenue_pb2.SolveResponse),
                ("Evaluate", "_evaluate", revenue_pb2.EvaluateRequest, revenue_pb2.EvaluateResponse),
                ("ListTitles", "_list_titles", revenue_pb2.ListTitlesRequest, revenue_pb2.ListTitlesResponse),
                ("Deliveries", "_deliveries", steam_pb2.DeliveriesRequest, steam_pb2.DeliveriesResponse),
                ("Dividends", "_dividends", revenue_pb2.DividendsRequest, revenue_pb2.DividendsResponse))

    def handler(self) -> grpc.GenericRpcHandler:
        """The methods for a (sync) grpc.server."""
        return self._generic(self._unary, self._solve_stream)

    def async_handler(self) -> grpc.GenericRpcHandler:
        """The methods as coroutines (and SolveStream as an asynchronous generator), for an event loop."""
        return self._generic(self._unary_async, self._solve_stream_async)

    def _generic(self, unary, stream) -> grpc.GenericRpcHandler:
        handlers = {name: grpc.unary_unary_rpc_method_handler(
            unary(name, getattr(self, attr)), request_deserializer=safe_deserializer(req),
            response_serializer=resp.SerializeToString) for name, attr, req, resp in self._METHODS}
        handlers["SolveStream"] = grpc.unary_stream_rpc_method_handler(
            stream, request_deserializer=safe_deserializer(revenue_pb2.SolveRequest),
            response_serializer=revenue_pb2.SolveResponse.SerializeToString)
        return grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)

    def _unary(self, name: str, fn):
        def handle(request, context):
            call = _Call(name, context, self.stopping)
            try:
                work = fn(self._decode(request), context, call)
                if type(work) is not _Work:
                    return work
                answer = self.admission.call(work.run, work.large, call.cancel)
                self._measure(call)
                return answer
            except Exception as exc:
                call.fail(exc)
            finally:
                call.finish()
        return handle

    def _unary_async(self, name: str, fn):
        async def handle(request, context):
            call = _Call(name, context, self.stopping)
            try:
                work = fn(self._decode(request), context, call)
                if type(work) is not _Work:
                    return work
                answer = await _run(self.admission, call.cancel, work.run, work.large)
                self._measure(call)
                return answer
            except asyncio.CancelledError:
                call.interrupted()
                raise
            except Exception as exc:
                call.fail(exc)
            finally:
                call.finish()
        return handle

    @staticmethod
    def _decode(request):
        if isinstance(request, _BadRequest):
            if isinstance(request.error, InputError):   # JSON over HTTP: the field is known
                raise request.error
            raise InputError("", f"the request is not a valid {request.name} message "
                                 f"({type(request.error).__name__})")
        return request

    def _budget(self, ends: float, deadline_ms: int) -> tuple[float, str]:
        """Seconds the search may take, and what sets that limit (`ends`: the call's deadline on the
        perf_counter clock, or inf)."""
        limits = [(self.max_compute, f"the server's compute cap of {self.max_compute * 1000:g} ms")]
        if deadline_ms:
            limits.append((deadline_ms / 1000.0, f"deadline_ms {deadline_ms}"))
        if ends != float("inf"):
            remaining = ends - time.perf_counter()
            # Leave time to build and send the answer before the client gives up on it (Margin), but
            # never more than half of what is left.
            limits.append((remaining - min(self.margin.seconds(), remaining * 0.5), "the call's deadline"))
        return min(limits)

    def expect_large(self, request, key: tuple | None = None) -> bool:
        """Whether a Solve is expected to be long (Admission keeps a thread and queue slots from those):
        as its last search of the same board and trains was (longer than LARGE_SECONDS, or stopped
        unproved), else from its shape: a title's board with at most LARGE_TRAINS trains is small (every
        title scenario solves in milliseconds), a custom map beyond SMALL_CUSTOM_HEXES hexes is large."""
        seconds = self.costs.get(key or cost_key(request))
        if seconds is not None:
            return seconds > LARGE_SECONDS
        trains = len(request.company.trains)
        if request.board.title != "custom":
            return trains > LARGE_TRAINS
        return len(request.board.custom.hexes) > SMALL_CUSTOM_HEXES or trains > LARGE_TRAINS

    def _measure(self, call: _Call) -> None:
        """A sample for Margin once the answer of a search that ran into its limit is ready: the time from
        when its search was to stop until gRPC has sent the answer (the call's done callback: serializing
        and writing included), or until the call's deadline cut it, whichever comes first. Without that
        callback (HTTP), until the event loop has the answer (now)."""
        if not call.stopped_at:
            return
        if call.has_done_callback:
            call.margin = self.margin
            if call.rpc_finished:     # the call's deadline cut it already: the answer is late by now
                call.sample_margin()
            return
        self.margin.add(time.perf_counter() - call.stopped_at)

    # ---- methods: each reads and checks its request, then answers or leaves a _Work --------------------

    def _solve_work(self, request: revenue_pb2.SolveRequest, req: dict, ends: float, call: _Call,
                    cancel: threading.Event, on_improve: Callable[[dict], None] | None = None,
                    key: tuple | None = None) -> dict:
        """The search of a Solve or SolveStream, once the call has its turn: the result dict."""
        from revenue.optimizer import solve

        if cancel.is_set():
            raise ServiceError(grpc.StatusCode.CANCELLED, "cancelled while queued")
        budget, reason = self._budget(ends, request.deadline_ms)
        if budget <= 0:
            raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, f"{reason} left no time to search")
        searching = time.perf_counter()
        try:
            result = solve(req, deadline=budget, on_improve=on_improve, cancel=cancel, memory_mb=self.max_memory_mb)
            now = time.perf_counter()
            # Ran into its limit: a sample for Margin. A cancel before the call's deadline is the client's
            # (no sample); one after it is the deadline cancelling an answer that came too late, which
            # the margin must learn from most.
            if not result.get("optimal") and (not cancel.is_set() or now >= ends):
                call.stopped_at = searching + budget
            if result.get("optimal"):
                self.costs.put(key or cost_key(request), now - searching, 200)
            elif not cancel.is_set() and budget >= LARGE_SECONDS:    # stopped unproved by a long enough limit
                self.costs.put(key or cost_key(request), float("inf"), 200)
        except InputError:
            raise
        except Exception:
            # A search stopped midway must not turn the deadline or the client's cancel into INTERNAL
            # (an early solve() failed this way when stopped during route enumeration); it is logged.
            interrupted = cancel.is_set() or time.perf_counter() - searching >= budget
            if not interrupted:
                raise
            log.warning("search failed after being interrupted", exc_info=True)
            result = {"revenue": 0, "routes": [], "optimal": False}
        if cancel.is_set() and not result.get("optimal") and time.perf_counter() < ends - 0.01:
            raise ServiceError(grpc.StatusCode.CANCELLED, "the client cancelled the call")
        if not result.get("optimal") and not result.get("routes"):
            raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED,
                               f"{reason} passed before any route was found")
        if result.get("note"):
            call.fields["note"] = result["note"]
        call.fields.update(revenue=result["revenue"], optimal=bool(result["optimal"]),
                           upper_bound=result.get("upper_bound"))
        return result

    def _prepare(self, request: revenue_pb2.SolveRequest, context, call: _Call) -> tuple[dict, float, tuple]:
        """The request as a dict, checked, the call's deadline on the perf_counter clock, and its
        cost_key (made once a call)."""
        call.describe(request)
        req, board_bytes = self.boards.request_sized(request)
        if request.deadline_ms < 0:
            raise InputError("deadline_ms", f"{request.deadline_ms} is not >= 0 (0 means no deadline)")
        return req, time.perf_counter() + _remaining(context), cost_key(request, board_bytes)

    def _solve(self, request, context, call) -> _Work:
        req, ends, key = self._prepare(request, context, call)

        def work():
            return _to_message(self._solve_work(request, req, ends, call, call.cancel, key=key),
                               revenue_pb2.SolveResponse)
        return _Work(work, self.expect_large(request, key))

    @staticmethod
    def _improvement(value: dict) -> revenue_pb2.SolveResponse:
        return _to_message({"revenue": value["revenue"], "subsidy": value.get("subsidy", 0),
                            "routes": value["routes"], "upper_bound": value.get("upper_bound", 0)},
                           revenue_pb2.SolveResponse)

    def _solve_stream(self, request, context) -> Iterator[revenue_pb2.SolveResponse]:
        # The search runs on a compute thread and reports each improvement there; this generator, on the
        # call's own thread, takes them from a queue and yields them as messages.
        call = _Call("SolveStream", context, self.stopping)
        final = None
        try:
            req, ends, key = self._prepare(self._decode(request), context, call)
            events: queue.SimpleQueue = queue.SimpleQueue()

            def work():
                return _to_message(self._solve_work(request, req, ends, call, call.cancel, on_improve=events.put,
                                                    key=key), revenue_pb2.SolveResponse)

            final = self.admission.submit(work, self.expect_large(request, key))
            final.add_done_callback(lambda _: events.put(None))     # also when withdrawn while waiting
            call.cancel.then(final.cancel)
            if call.cancel.is_set():
                final.cancel()
            best = -1
            while (value := events.get()) is not None:
                if value["revenue"] > best:
                    best = value["revenue"]
                    yield self._improvement(value)
            answer = final.result()
            self._measure(call)
            yield answer
        except GeneratorExit:      # gRPC stopped reading: the call ended (the client, its deadline, the stop)
            call.cancel.set()
            if call.code == grpc.StatusCode.OK:
                call.interrupted()
            raise
        except futures.CancelledError:     # withdrawn while waiting for its turn
            if call.code == grpc.StatusCode.OK:
                call.interrupted()
            if not call.rpc_finished:
                call.fail(ServiceError(call.code, call.error))
        except Exception as exc:
            call.fail(exc)
        finally:
            if final is not None and not final.done():
                call.cancel.set()
                final.cancel()
            call.finish()

    async def _solve_stream_async(self, request, context) -> AsyncIterator[revenue_pb2.SolveResponse]:
        # The search reports improvements on the compute thread that runs it; the event loop hands them
        # to this generator, which alone may yield responses.
        call = _Call("SolveStream", context, self.stopping)
        cancel = call.cancel
        try:
            req, ends, key = self._prepare(self._decode(request), context, call)
            loop = asyncio.get_running_loop()
            events: asyncio.Queue = asyncio.Queue()

            def work():
                try:
                    return _to_message(self._solve_work(
                        request, req, ends, call, cancel,
                        on_improve=lambda d: loop.call_soon_threadsafe(events.put_nowait, d), key=key),
                        revenue_pb2.SolveResponse)
                finally:
                    loop.call_soon_threadsafe(events.put_nowait, None)

            final = asyncio.ensure_future(_run(self.admission, cancel, work, self.expect_large(request, key)))
            try:
                best = -1
                while (value := await events.get()) is not None:
                    if value["revenue"] > best:
                        best = value["revenue"]
                        yield self._improvement(value)
                answer = await final
                self._measure(call)
            finally:
                if not final.done():
                    cancel.set()
                    final.cancel()
            yield answer
        except (asyncio.CancelledError, GeneratorExit):    # the client went away mid-stream
            cancel.set()
            call.interrupted()
            raise
        except Exception as exc:
            call.fail(exc)
        finally:
            call.finish()

    def _evaluate(self, request, context, call) -> _Work:
        from revenue.evaluate import evaluate

        call.describe(request)
        req = self.boards.request(request)

        def work():
            result = evaluate(req)
            call.fields.update(revenue=result.get("revenue", 0), legal=bool(result.get("legal")))
            return _to_message(result, revenue_pb2.EvaluateResponse)
        return _Work(work)

    def titles(self) -> revenue_pb2.ListTitlesResponse:
        with self._titles_lock:
            if self._titles is None:
                self._titles = _to_message(api.list_titles(), revenue_pb2.ListTitlesResponse)
            return self._titles

    def _list_titles(self, request, context, call):
        return self.titles()

    def _deliveries(self, request, context, call) -> _Work:
        from revenue.steam import check_memory, deliveries

        call.describe(request)
        ends = time.perf_counter() + _remaining(context)
        cancel = call.cancel
        # The memory cap, checked on the message before it takes a worker (and again by the library).
        check_memory(len(request.stops), len(request.links), len(request.cubes), request.top_k, self.max_memory_mb)

        def work():
            # The same deadline, compute cap, cancellation and memory cap as a search of Solve. The request
            # is converted here, once the call has its turn: a large board would hold up the event loop.
            if cancel.is_set():
                raise ServiceError(grpc.StatusCode.CANCELLED, "cancelled while queued")
            budget, reason = self._budget(ends, 0)
            if budget <= 0:
                raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, f"{reason} left no time to search")
            try:
                result = deliveries(_to_dict(request), deadline=budget, cancel=cancel, memory_mb=self.max_memory_mb)
            except Interrupted:
                if cancel.is_set():
                    raise ServiceError(grpc.StatusCode.CANCELLED, "the client cancelled the call") from None
                raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED,
                                   f"{reason} passed before the search ended") from None
            if "best" in result:
                call.fields["own_points"] = result["best"].get("own_points", 0)
            return _to_message(result, steam_pb2.DeliveriesResponse)
        large = len(request.links) > LARGE_STEAM_LINKS or any(p.level > LARGE_STEAM_LEVEL for p in request.players)
        return _Work(work, large)

    def _dividends(self, request, context, call) -> _Work:
        from revenue.dividends import dividends

        req = _to_dict(request)
        try:
            check_limits(req.get("evaluate") or {}, self.limits)
        except InputError as exc:
            raise exc.within("evaluate") from None
        rest = size_violations({k: v for k, v in req.items() if k != "evaluate"}, "", [], text=self.limits.text,
                               name=self.limits.name, entries=self.limits.entries)
        if rest:
            raise InputError(rest[0][0], rest[0][1], rest[1:])

        def work():
            return _to_message(dividends(req), revenue_pb2.DividendsResponse)
        return _Work(work)

    # ---- warm-up -------------------------------------------------------------------------------------

    def warm_up(self) -> None:
        """Compile the kernels and load the titles: one small solve, one evaluate, one deliveries."""
        from revenue.evaluate import evaluate
        from revenue.optimizer import solve
        from revenue.optimizer.combination import INDEX_MIN, key_indexes
        from revenue.steam import deliveries

        # No deadline: on a machine busy enough, loading (or compiling) the kernels can take a minute.
        result = solve(WARM_SOLVE, cancel=threading.Event())
        assert result["revenue"] == 60 and result["optimal"], result
        # The small search's one-call kernel (revenue.core.probe) is compiled once per number of distinct
        # walks (train types whose arrays differ beyond their limits): a first company of two or three types
        # would otherwise compile or load it inside its deadline.
        for trains in WARM_TYPES:
            result = solve({"board": _WARM_BOARD, "company": {"id": "W", "trains": trains}},
                           cancel=threading.Event())
            assert result["optimal"], result
        # The key bitmaps of large searches, a kernel the small board does not reach: loading it in a
        # first large call would hold the interpreter's lock (and so every other call) meanwhile.
        key_indexes(np.zeros((INDEX_MIN, 1), dtype=np.uint64), np.array([0, INDEX_MIN]), np.zeros(1, dtype=np.int64))
        assert evaluate({**WARM_SOLVE, "routes": WARM_ROUTES})["revenue"] == 60
        deliveries(WARM_DELIVERIES)
        self.titles()
        # A real board of each title (the package's examples): their kernels, loaded from Numba's cache
        # at a first call of their kind, took 20-300 ms each in the first calls of a fresh server.
        # Each once more as a game's next boards come (lays and tokens all checked before on that map:
        # one compiled call places them, revenue.known.build_known): its lays in another order, then
        # its tokens too (the same lays' track, the tokens placed on it). Without these, a fresh
        # server's first such board compiled those kernels in its call (7 s with Numba's cache empty).
        for path in _example_solves():
            request = json.loads(path.read_text())
            solve(request, cancel=threading.Event())
            board = request["board"]
            tiles, tokens = board.get("tiles"), board.get("tokens") or []
            if tiles:
                for placed in (tokens, tokens[::-1]):
                    again = {**request, "board": {**board, "tiles": tiles[::-1], "tokens": placed}}
                    solve(again, cancel=threading.Event())


def _example_solves() -> list:
    """The package's examples/solve_*.json (none when they were not installed)."""
    import pathlib

    try:
        import revenue.examples as examples
    except ImportError:
        return []
    return sorted(path for folder in examples.__path__ if pathlib.Path(folder).is_dir()
                  for path in pathlib.Path(folder).glob("solve_*.json"))


_WARM_BOARD = {
    "title": "custom",
    "custom": {"hexes": [
        {"hex": "A1", "code": "city=revenue:20;path=a:4,b:_0", "color": "gray"},
        {"hex": "A3", "code": "path=a:1,b:4"},
        {"hex": "A5", "code": "city=revenue:30;path=a:1,b:_0;path=a:4,b:_0", "color": "gray"},
        {"hex": "A7", "code": "town=revenue:10;path=a:1,b:_0", "color": "gray"}],
        "trains": [{"name": "2", "distance": 2}, {"name": "3", "distance": 3}, {"name": "4", "distance": 4},
                   # (other rows, other multipliers: trains that walk apart, see WARM_TYPES)
                   {"name": "2+1", "rows": [{"nodes": ["city", "offboard"], "pay": 2, "visit": 2},
                                            {"nodes": ["town"], "pay": 1, "visit": 1}]},
                   {"name": "2x2", "rows": [{"nodes": ["city", "offboard", "town"], "pay": 2, "visit": 2,
                                             "multiplier": 2}]}]},
    "tokens": [{"hex": "A1", "city": 0, "company": "W"}],
}
WARM_SOLVE = {"board": _WARM_BOARD, "company": {"id": "W", "trains": [{"name": "3"}]}}
WARM_TYPES = ([{"name": "2"}, {"name": "3"}], [{"name": "2"}, {"name": "3"}, {"name": "4"}],
              [{"name": "2"}, {"name": "2+1"}], [{"name": "2"}, {"name": "2+1"}, {"name": "2x2"}])
WARM_ROUTES = [{"train": "3", "nodes": ["A1-0", "A5-0", "A7-0"]}]
WARM_DELIVERIES = {
    "ruleset": "steam", "player": "p",
    "stops": [{"id": "a", "kind": "city", "colour": "red"}, {"id": "b", "kind": "city", "colour": "blue"}],
    "links": [{"id": "ab", "a": "a", "b": "b", "owner": "p"}],
    "cubes": [{"stop": "a", "colour": "blue"}],
    "players": [{"id": "p", "level": 1}],
}
