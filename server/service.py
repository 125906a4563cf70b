"""The RouteService servicer: proto messages in, the library's dict API, proto messages out.

Every call goes through a `Call` (server/calls.py): it decodes the request (a request that does not even
parse is bad input, not an internal error), checks the size limits (server/limits.py, server/board_cache.py),
waits for a compute slot in the bounded queue (server/admission.py), runs the library, and maps the outcome
to a gRPC status. Each call ends with one JSON log line.
"""
from __future__ import annotations

import asyncio
import threading
import time
from typing import Callable

import grpc

from revenue import api
from revenue.bounds import size_violations
from revenue.cache import ByteLRU
from revenue.errors import InputError, Interrupted
from revenue.optimizer import solve
from revenue.v1 import moves_pb2, replay_pb2, revenue_pb2, service_pb2, steam_pb2  # noqa: F401  (service_pb2 registers the service)

from .admission import Admission
from .board_cache import Boards
from .calls import BadRequest, Call, Margin, ServiceError, Work, remaining, safe_deserializer
from .limits import Limits, check_limits
from .protojson import request_dict
from .moves import MoveMethods
from .replay import GameMethods
from .streams import StreamWork, stream_handler, stream_handler_async

SERVICE_NAME = "revenue.v1.RouteService"

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


def _stopped(cancel: threading.Event, reason: str) -> ServiceError:
    """The status of a call stopped before it had an answer (revenue.errors.Interrupted): its client's
    cancel, else its deadline (`reason`: what set it)."""
    if cancel.is_set():
        return ServiceError(grpc.StatusCode.CANCELLED, "the client cancelled the call")
    return ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, f"{reason} passed before the board's track graph was built")


class RouteService:
    """The servicer. `handler()` gives the generic handler to add to a grpc.server (sync: each call is
    handled, and its search run, on the server pool's thread that took it, once Admission gives it a
    turn); `async_handler()` the same methods as coroutines for an event loop (HTTP: server/http.py),
    whose searches run on the compute threads of `admission`. Both share each method's steps (reading
    and checking the request on the calling thread, then a `Work`)."""

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
        self.games = GameMethods(self)      # Replay and Suggest (server/replay.py)
        self.moves = MoveMethods(self)      # Lays and Tokens (server/moves.py)

    # ---- plumbing ------------------------------------------------------------------------------------

    _METHODS = (("Solve", "_solve", revenue_pb2.SolveRequest, revenue_pb2.SolveResponse),
                ("Evaluate", "_evaluate", revenue_pb2.EvaluateRequest, revenue_pb2.EvaluateResponse),
                ("ListTitles", "_list_titles", revenue_pb2.ListTitlesRequest, revenue_pb2.ListTitlesResponse),
                ("Deliveries", "_deliveries", steam_pb2.DeliveriesRequest, steam_pb2.DeliveriesResponse),
                ("Dividends", "_dividends", revenue_pb2.DividendsRequest, revenue_pb2.DividendsResponse),
                ("Suggest", "_suggest", replay_pb2.SuggestRequest, replay_pb2.SuggestResponse),
                ("Lays", "_lays", moves_pb2.LaysRequest, moves_pb2.LaysResponse),
                ("Tokens", "_tokens", moves_pb2.TokensRequest, moves_pb2.TokensResponse))

    def handler(self) -> grpc.GenericRpcHandler:
        """The methods for a (sync) grpc.server."""
        return self._generic(self._unary, stream_handler)

    def async_handler(self) -> grpc.GenericRpcHandler:
        """The methods as coroutines (and SolveStream as an asynchronous generator), for an event loop."""
        return self._generic(self._unary_async, stream_handler_async)

    def _generic(self, unary, stream) -> grpc.GenericRpcHandler:
        handlers = {name: grpc.unary_unary_rpc_method_handler(
            unary(name, getattr(self, attr)), request_deserializer=safe_deserializer(req),
            response_serializer=resp.SerializeToString) for name, attr, req, resp in self._METHODS}
        handlers["SolveStream"] = grpc.unary_stream_rpc_method_handler(
            stream("SolveStream", self.stopping, self.admission, self._solve_stream),
            request_deserializer=safe_deserializer(revenue_pb2.SolveRequest),
            response_serializer=revenue_pb2.SolveResponse.SerializeToString)
        handlers["Replay"] = grpc.unary_stream_rpc_method_handler(
            stream("Replay", self.stopping, self.admission, self.games.replay_stream),
            request_deserializer=safe_deserializer(replay_pb2.ReplayRequest),
            response_serializer=replay_pb2.ReplayTurn.SerializeToString)
        return grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)

    def _unary(self, name: str, fn):
        def handle(request, context):
            call = Call(name, context, self.stopping)
            try:
                work = fn(self._decode(request), context, call)
                if type(work) is not Work:
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
            call = Call(name, context, self.stopping)
            try:
                work = fn(self._decode(request), context, call)
                if type(work) is not Work:
                    return work
                answer = await self.admission.run(work.run, work.large, call.cancel, name)
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
        if isinstance(request, BadRequest):
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

    def _measure(self, call: Call) -> None:
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

    # ---- methods: each reads and checks its request, then answers or leaves a Work --------------------

    def solve_work(self, request: revenue_pb2.SolveRequest, req: dict, ends: float, call: Call,
                    cancel: threading.Event, on_improve: Callable[[dict], None] | None = None,
                    key: tuple | None = None) -> dict:
        """The search of a Solve or SolveStream, once the call has its turn: the result dict. A search that
        raises is a fault (INTERNAL) even when its deadline passed or its call was cancelled meanwhile."""
        if cancel.is_set():
            raise ServiceError(grpc.StatusCode.CANCELLED, "cancelled while queued")
        budget, reason = self._budget(ends, request.deadline_ms)
        if budget <= 0:
            raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, f"{reason} left no time to search")
        searching = time.perf_counter()
        try:
            result = solve(req, deadline=budget, on_improve=on_improve, cancel=cancel, memory_mb=self.max_memory_mb)
        except Interrupted:     # stopped while the board's track graph was built
            raise _stopped(cancel, reason) from None
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

    def prepare_solve(self, request: revenue_pb2.SolveRequest, context, call: Call) -> tuple[dict, float, tuple]:
        """The request as a dict, checked, the call's deadline on the perf_counter clock, and its
        cost_key (made once a call)."""
        call.describe(request)
        req, board_bytes = self.boards.request_sized(request)
        if request.deadline_ms < 0:
            raise InputError("deadline_ms", f"{request.deadline_ms} is not >= 0 (0 means no deadline)")
        return req, time.perf_counter() + remaining(context), cost_key(request, board_bytes)

    def _solve(self, request, context, call) -> Work:
        req, ends, key = self.prepare_solve(request, context, call)

        def work():
            return _to_message(self.solve_work(request, req, ends, call, call.cancel, key=key),
                               revenue_pb2.SolveResponse)
        return Work(work, self.expect_large(request, key))

    @staticmethod
    def _improvement(value: dict) -> revenue_pb2.SolveResponse:
        return _to_message({"revenue": value["revenue"], "subsidy": value.get("subsidy", 0),
                            "routes": value["routes"], "upper_bound": value.get("upper_bound", 0)},
                           revenue_pb2.SolveResponse)

    def _solve_stream(self, request, context, call: Call, put: Callable[[dict], None]) -> StreamWork:
        # The search reports each improvement on its compute thread, to `put`; the call sends those that
        # beat the best sent so far, then the answer.
        req, ends, key = self.prepare_solve(self._decode(request), context, call)

        def work():
            return _to_message(self.solve_work(request, req, ends, call, call.cancel, on_improve=put, key=key),
                               revenue_pb2.SolveResponse)

        best = -1

        def improvement(value: dict) -> revenue_pb2.SolveResponse | None:
            nonlocal best
            if value["revenue"] <= best:
                return None
            best = value["revenue"]
            return self._improvement(value)

        def answer(message: revenue_pb2.SolveResponse) -> revenue_pb2.SolveResponse:
            self._measure(call)
            return message
        return StreamWork(work, self.expect_large(request, key), improvement, answer)

    def _evaluate(self, request, context, call) -> Work:
        from revenue.evaluation import evaluate

        call.describe(request)
        req = self.boards.request(request)
        ends = time.perf_counter() + remaining(context)

        def work():
            # The call's deadline, the compute cap, cancel and the memory cap bound the board's track graph.
            budget, reason = self._budget(ends, 0)
            if budget <= 0:
                raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, f"{reason} left no time to evaluate")
            try:
                result = evaluate(req, deadline=budget, cancel=call.cancel, memory_mb=self.max_memory_mb)
            except Interrupted:
                raise _stopped(call.cancel, reason) from None
            call.fields.update(revenue=result.get("revenue", 0), legal=bool(result.get("legal")))
            return _to_message(result, revenue_pb2.EvaluateResponse)
        return Work(work)

    def titles(self) -> revenue_pb2.ListTitlesResponse:
        with self._titles_lock:
            if self._titles is None:
                self._titles = _to_message(api.list_titles(), revenue_pb2.ListTitlesResponse)
            return self._titles

    def _list_titles(self, request, context, call):
        return self.titles()

    def _deliveries(self, request, context, call) -> Work:
        from revenue.steam import check_memory, deliveries

        call.describe(request)
        ends = time.perf_counter() + remaining(context)
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
                result = deliveries(request_dict(request), deadline=budget, cancel=cancel, memory_mb=self.max_memory_mb)
            except Interrupted:
                if cancel.is_set():
                    raise ServiceError(grpc.StatusCode.CANCELLED, "the client cancelled the call") from None
                raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED,
                                   f"{reason} passed before the search ended") from None
            if "best" in result:
                call.fields["own_points"] = result["best"].get("own_points", 0)
            return _to_message(result, steam_pb2.DeliveriesResponse)
        large = len(request.links) > LARGE_STEAM_LINKS or any(p.level > LARGE_STEAM_LEVEL for p in request.players)
        return Work(work, large)

    def _dividends(self, request, context, call) -> Work:
        from revenue.payout import dividends

        req = request_dict(request)
        try:
            check_limits(req.get("evaluate") or {}, self.limits)
        except InputError as exc:
            raise exc.within("evaluate") from None
        rest = size_violations({k: v for k, v in req.items() if k != "evaluate"}, "", [], text=self.limits.text,
                               name=self.limits.name, entries=self.limits.entries)
        if rest:
            raise InputError(rest[0][0], rest[0][1], rest[1:])
        ends = time.perf_counter() + remaining(context)

        def work():
            budget, reason = self._budget(ends, 0)
            if budget <= 0:
                raise ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, f"{reason} left no time to evaluate")
            try:
                answer = dividends(req, deadline=budget, cancel=call.cancel, memory_mb=self.max_memory_mb)
            except Interrupted:
                raise _stopped(call.cancel, reason) from None
            return _to_message(answer, revenue_pb2.DividendsResponse)
        return Work(work)

    def _suggest(self, request, context, call) -> Work:
        return self.games.suggest(request, context, call)

    def _lays(self, request, context, call) -> Work:
        return self.moves.lays(request, context, call)

    def _tokens(self, request, context, call) -> Work:
        return self.moves.tokens(request, context, call)
