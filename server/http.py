"""The service over HTTP/JSON (docs/service.md): the RouteService methods at the google.api.http paths of
service.proto, the auto-route page at `/`, and /healthz, as a Starlette app that `RouteServer` serves with
uvicorn on an event loop of its own (a thread beside the gRPC server's).

An HTTP call runs the same steps as a gRPC call (RouteService.async_handler(), the methods gRPC serves
as coroutines, looked up by method name), with an `HttpContext` in place of the gRPC servicer context:
the same decoding and checks, size limits, admission queue, deadlines (`deadline_ms` and the compute cap; HTTP has no call deadline of its own), log line and
status codes. The body is the request message in proto3 JSON (checked field by field, as the command line
checks it); the answer is the response message in proto3 JSON with proto field names and every field
written out (as `revenue ... --json`); an error is a google.rpc.Status in JSON with the HTTP status of its
code. SolveStream answers as Server-Sent Events. A client that disconnects cancels its call, which stops
its search, as a cancelled gRPC call does.
"""
from __future__ import annotations

import asyncio
import json
import logging
import pathlib
import threading
import time
from typing import Any, Awaitable, Callable

import grpc
from google.api import annotations_pb2
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2   # error_details_pb2: BadRequest, also in JSON
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from revenue import api
from revenue.cache import JSON_BOARD_CACHE_BYTES, ByteLRU
from revenue.errors import InputError, Interrupted, clip
from revenue.v1 import revenue_pb2, service_pb2

from .auth import bearer_accepts
from .calls import BadRequest, ServiceError, bad_request_status, internal_message, log_failure
from .protojson import message_dict
from .service import SERVICE_NAME, RouteService

log = logging.getLogger("revenue.server")

PAGE = pathlib.Path(__file__).resolve().parent / "page"
# The examples the page offers, by the start of their file names: requests to solve, routes to check,
# and stored 18xx.games run_routes actions to check.
EXAMPLE_KINDS = ("solve", "evaluate", "run_routes")

# The HTTP status of each gRPC code (google.rpc.Code's documented mapping; 499 is "client closed").
HTTP_STATUS = {
    grpc.StatusCode.OK: 200, grpc.StatusCode.CANCELLED: 499, grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400, grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404, grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403, grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429, grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409, grpc.StatusCode.OUT_OF_RANGE: 400, grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500, grpc.StatusCode.UNAVAILABLE: 503, grpc.StatusCode.DATA_LOSS: 500,
}
_CODE_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}
# A body over --max-message-bytes: RESOURCE_EXHAUSTED as gRPC says, with HTTP's own status for it (429
# would invite the client to retry the same body).
TOO_LARGE = 413
# A body sent as anything but application/json: INVALID_ARGUMENT, with HTTP's own status for it.
UNSUPPORTED_MEDIA_TYPE = 415


class Aborted(Exception):
    """How a call ends with an error status: `status` is the google.rpc.Status to answer with."""

    def __init__(self, status: status_pb2.Status, http_status: int | None = None):
        super().__init__(status.message)
        self.status = status
        code = _CODE_BY_NUMBER.get(status.code, grpc.StatusCode.UNKNOWN)
        self.http_status = http_status or HTTP_STATUS.get(code, 500)


SHUTTING_DOWN = Aborted(status_pb2.Status(code=grpc.StatusCode.UNAVAILABLE.value[0],
                                          message="the server is shutting down; retry elsewhere or later"))


class HttpContext:
    """The part of grpc.ServicerContext that RouteService uses, for a call that came over HTTP: no
    call deadline (time_remaining None: the search is bounded by `deadline_ms` and the compute cap), and
    abort raises Aborted with the status the gRPC call would have carried."""

    transport = "http"

    def time_remaining(self) -> float | None:
        return None

    def abort(self, code: grpc.StatusCode, details: str = "", trailing_metadata=()):
        raise Aborted(status_pb2.Status(code=code.value[0], message=details))

    def abort_with_status(self, status: grpc.Status):
        # rpc_status.to_status carries the whole google.rpc.Status (details and all) in the trailers.
        for key, value in status.trailing_metadata or ():
            if key == "grpc-status-details-bin":
                raise Aborted(status_pb2.Status.FromString(value))
        raise Aborted(status_pb2.Status(code=status.code.value[0], message=status.details))


def status_json(status: status_pb2.Status) -> bytes:
    return json_format.MessageToJson(status, preserving_proto_field_name=True, indent=None).encode()


def error_response(exc: Aborted, headers: dict | None = None) -> Response:
    return Response(status_json(exc.status), exc.http_status, headers=headers, media_type="application/json")


def aborted(code: grpc.StatusCode, message: str, http_status: int | None = None) -> Aborted:
    return Aborted(status_pb2.Status(code=code.value[0], message=message), http_status)


def message_json(message) -> bytes:
    """A response message as proto3 JSON: proto field names, every field written out (one line), as
    json_format.MessageToDict gives it (server/protojson.py, in a third of its time)."""
    return json.dumps(message_dict(message), separators=(",", ":")).encode()


class JsonBoards:
    """Boards already parsed from JSON, by the board's canonical JSON (keys sorted, no spaces: a board
    padded or reordered is the same entry): parsing a board's JSON into its message is most of an HTTP
    call's own cost (protobuf's JSON parser is Python), and a game server asks about one board for each
    company of a round (the gRPC side keeps decoded boards likewise, board_cache.Boards). At most `size`
    boards and JSON_BOARD_CACHE_BYTES by estimate (key and message: about 30 KB plus three times the
    key's length)."""

    def __init__(self, size: int = 64):
        self.size = size
        self._boards: ByteLRU[revenue_pb2.Board] = ByteLRU(JSON_BOARD_CACHE_BYTES, most=size)

    def parse(self, obj: Any, message_type):
        """api.parse_message(obj, message_type), the board taken from here when it was seen before."""
        board = obj.get("board") if isinstance(obj, dict) else None
        field = message_type.DESCRIPTOR.fields_by_name.get("board")
        if not isinstance(board, dict) or field is None or field.message_type is not revenue_pb2.Board.DESCRIPTOR:
            return api.parse_message(obj, message_type)
        key = json.dumps(board, sort_keys=True, separators=(",", ":"))
        known = self._boards.get(key)
        if known is None:
            message = api.parse_message(obj, message_type)     # a bad board is named from the request
            known = revenue_pb2.Board()
            known.CopyFrom(message.board)
            self._boards.put(key, known, 30_000 + 3 * len(key))
            return message
        message = api.parse_message({k: v for k, v in obj.items() if k != "board"}, message_type)
        message.board.CopyFrom(known)
        return message

    @property
    def bytes(self) -> int:
        return self._boards.bytes

    def __len__(self) -> int:
        return len(self._boards)


def decode(body: bytes, message_type, boards: JsonBoards | None = None, only: str | None = None):
    """The request message of a JSON body, or a BadRequest carrying the InputError that names the
    field (the service raises it inside the call, so it is logged and answered like any bad input).
    `only`: the one member read of the body's object (the others are ignored)."""
    try:
        if not body.strip():
            return api.parse_message({}, message_type)
        obj = _export_text(json.loads(body), message_type)
        if only is not None and isinstance(obj, dict):
            obj = {only: obj[only]} if only in obj else {}
        return api.parse_message(obj, message_type) if boards is None else boards.parse(obj, message_type)
    except InputError as exc:
        return BadRequest(message_type, exc)
    except (ValueError, UnicodeDecodeError) as exc:
        return BadRequest(message_type, InputError("", f"the body is not JSON ({exc})"))
    except RecursionError:
        return BadRequest(message_type, InputError("", "the body is nested too deeply"))


def _export_text(obj: Any, message_type) -> Any:
    """A game's `export` object (ReplayRequest, SuggestRequest) moved to `export_json` as JSON text:
    protobuf's parser would build a Struct of it value by value in Python (tens of ms for a game of
    some hundred actions), for the service to read it back just as slowly."""
    if isinstance(obj, dict) and isinstance(obj.get("export"), dict) and "export_json" not in obj and \
            "export_json" in message_type.DESCRIPTOR.fields_by_name:
        text = json.dumps(obj["export"], separators=(",", ":"))
        obj = {key: value for key, value in obj.items() if key != "export"}
        obj["export_json"] = text
    return obj


async def _stop(task: asyncio.Future) -> None:
    """Cancel a call's task (the handler then stops its search) and wait for it to end."""
    task.cancel()
    await asyncio.wait({task})


async def _disconnected(receive) -> None:
    """Returns when the client has gone (the request body was read already)."""
    while (await receive())["type"] != "http.disconnect":
        pass


class _UnaryCall:
    """The ASGI response of a unary call: runs the handler while watching for the client to disconnect,
    which cancels the handler (and so its search)."""

    def __init__(self, run: Callable[[], Awaitable[Any]]):
        self.run = run

    async def __call__(self, scope, receive, send) -> None:
        task = asyncio.ensure_future(self.run())
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:      # the server's shutdown cut the call after its grace period
            await _stop(task)
            await error_response(SHUTTING_DOWN)(scope, receive, send)
            return
        finally:
            gone.cancel()
        if not task.done():                 # the client went away: stop the call
            await _stop(task)
            return
        try:
            response = Response(message_json(task.result()), 200, media_type="application/json")
        except Aborted as exc:
            response = error_response(exc)
        except asyncio.CancelledError:
            return
        await response(scope, receive, send)


class _StreamCall:
    """The ASGI response of SolveStream: Server-Sent Events, one `data:` line per SolveResponse. An error
    before the first response is an ordinary error answer; after it, an `event: error` with the status.
    The client's disconnect cancels the stream, which stops the search."""

    def __init__(self, stream):
        self.stream = stream

    async def __call__(self, scope, receive, send) -> None:
        gone = asyncio.ensure_future(_disconnected(receive))
        started, step = False, None
        try:
            while True:
                step = asyncio.ensure_future(self.stream.__anext__())
                await asyncio.wait({step, gone}, return_when=asyncio.FIRST_COMPLETED)
                if not step.done():         # the client went away: the finally below stops the search
                    return
                try:
                    event = b"data: " + message_json(step.result()) + b"\n\n"
                except StopAsyncIteration:
                    break
                except Aborted as exc:
                    if not started:
                        await error_response(exc)(scope, receive, send)
                        return
                    event = b"event: error\ndata: " + status_json(exc.status) + b"\n\n"
                    await send({"type": "http.response.body", "body": event, "more_body": True})
                    break
                if not started:
                    started = True
                    await send({"type": "http.response.start", "status": 200, "headers": [
                        (b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache"),
                        (b"x-accel-buffering", b"no")]})
                await send({"type": "http.response.body", "body": event, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:    # the connection broke while writing: the client is gone
            pass
        except asyncio.CancelledError:     # the server's shutdown cut the stream after its grace period
            if step is not None and not step.done():
                await _stop(step)
            try:
                if started:
                    event = b"event: error\ndata: " + status_json(SHUTTING_DOWN.status) + b"\n\n"
                    await send({"type": "http.response.body", "body": event, "more_body": False})
                else:
                    await error_response(SHUTTING_DOWN)(scope, receive, send)
            except OSError:
                pass
        finally:
            gone.cancel()
            if step is not None and not step.done():
                await _stop(step)           # CancelledError in the handler, which sets the stop flag
            await self.stream.aclose()


class HttpApi:
    """The Starlette app of a RouteServer."""

    def __init__(self, service: RouteService, state: Callable[[], str], *, auth_token: str | None = None,
                 cors_origins: tuple[str, ...] = (), max_message_bytes: int = 4 * 1024 * 1024):
        self.service, self.state = service, state
        self._expected = auth_token.encode() if auth_token else None
        self.max_message_bytes = max_message_bytes
        self.cors_origins = frozenset(o.rstrip("/").lower() for o in cors_origins)
        self._grpc = service.async_handler()
        self.boards = JsonBoards()
        routes = [Route("/healthz", self.healthz, methods=["GET"]),
                  Route("/", self.index, methods=["GET"]),
                  Route("/page/examples", self.examples, methods=["GET"]),
                  Route("/page/examples/{name}", self.example, methods=["GET"]),
                  Route("/page/geometry", self.geometry, methods=["POST"]),
                  Mount("/page", StaticFiles(directory=PAGE), name="page")]
        for method in service_pb2.DESCRIPTOR.services_by_name["RouteService"].methods:
            rule = method.GetOptions().Extensions[annotations_pb2.http]
            verb = rule.WhichOneof("pattern")
            if verb in ("get", "post"):
                routes.append(Route(getattr(rule, verb), self._endpoint(method), methods=[verb.upper()],
                                    name=method.name))
        middleware = [Middleware(CORSMiddleware, allow_origins=list(cors_origins), allow_methods=["GET", "POST"],
                                 allow_headers=["authorization", "content-type"], max_age=600)]
        self.app = Starlette(routes=routes, middleware=middleware,
                             exception_handlers={HTTPException: self._http_error})

    # ---- the RouteService methods ----------------------------------------------------------------------

    def _endpoint(self, method):
        handler = self._grpc.service(_Details(f"/{SERVICE_NAME}/{method.name}"))
        if handler is None:
            raise RuntimeError(f"{method.full_name} has an HTTP rule but no handler")
        message_type = _message_class(method.input_type)

        async def endpoint(request: Request) -> Response | _UnaryCall | _StreamCall:
            started = time.perf_counter()
            try:
                self._screen(request, method.name, started)
                message = decode(await self._body(request, method.name, started), message_type, self.boards)
            except Aborted as exc:
                return error_response(exc, {"www-authenticate": "Bearer"} if exc.http_status == 401 else None)
            if handler.response_streaming:
                return _StreamCall(handler.unary_stream(message, HttpContext()))
            return _UnaryCall(lambda: handler.unary_unary(message, HttpContext()))
        return endpoint

    def _screen(self, request: Request, method: str, started: float) -> None:
        """What is refused before the body is read: a page of an origin not allowed (403: a browser would
        hide the answer from it, but not stop the search), a body that is not JSON by its Content-Type
        (415), a missing or wrong bearer token (401)."""
        if request.method == "POST":
            origin = request.headers.get("origin")
            if origin is not None and not self._origin_allowed(origin, request):
                message = f"the origin {clip(origin, 100)} may not call this server (see --cors-origin)"
                _log(method, grpc.StatusCode.PERMISSION_DENIED, message, started)
                raise aborted(grpc.StatusCode.PERMISSION_DENIED, message, 403)
            kind = request.headers.get("content-type")
            if kind is None and request.headers.get("content-length", "0") == "0" and \
                    "transfer-encoding" not in request.headers:
                pass        # no body: an empty request
            elif kind is None or kind.split(";", 1)[0].strip().lower() != "application/json":
                message = f"the body must be JSON (Content-Type: application/json), not {clip(kind or 'none', 100)}"
                _log(method, grpc.StatusCode.INVALID_ARGUMENT, message, started)
                raise aborted(grpc.StatusCode.INVALID_ARGUMENT, message, UNSUPPORTED_MEDIA_TYPE)
        self._authorize(request, method, started)

    def _origin_allowed(self, origin: str, request: Request) -> bool:
        """An origin of --cors-origin (or any, with "*"), or the server's own (the page at /): the host of
        the request, or the one a proxy forwarded it for."""
        origin = origin.rstrip("/").lower()
        if origin in self.cors_origins or "*" in self.cors_origins:
            return True
        served = origin.split("://", 1)[-1]
        return any(served == host.strip().lower() for name in ("host", "x-forwarded-host")
                   for host in request.headers.get(name, "").split(",") if host.strip())

    def _authorize(self, request: Request, method: str, started: float) -> None:
        if self._expected is None:
            return
        if bearer_accepts(request.headers.get("authorization", ""), self._expected):
            return
        _log(method, grpc.StatusCode.UNAUTHENTICATED, "missing or wrong bearer token", started)
        raise aborted(grpc.StatusCode.UNAUTHENTICATED,
                      "missing or wrong bearer token (header Authorization: Bearer <token>)")

    async def _body(self, request: Request, method: str, started: float) -> bytes:
        """The request body, at most --max-message-bytes."""
        declared = request.headers.get("content-length", "")
        chunks, size = [], int(declared) if declared.isdigit() else 0
        if size <= self.max_message_bytes:
            size = 0
            try:
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > self.max_message_bytes:
                        break
                    chunks.append(chunk)
            except ClientDisconnect:       # gone before its body was in: nobody to answer
                message = "the client went away while sending the body"
                _log(method, grpc.StatusCode.CANCELLED, message, started)
                raise aborted(grpc.StatusCode.CANCELLED, message) from None
        if size > self.max_message_bytes:
            message = f"the request is larger than the server's limit of {self.max_message_bytes} bytes"
            _log(method, grpc.StatusCode.RESOURCE_EXHAUSTED, message, started)
            raise aborted(grpc.StatusCode.RESOURCE_EXHAUSTED, message, TOO_LARGE)
        return b"".join(chunks)

    # ---- health, the page and its helpers --------------------------------------------------------------

    async def healthz(self, request: Request) -> Response:
        state = self.state()
        return JSONResponse({"status": state}, 200 if state == "SERVING" else 503)

    async def index(self, request: Request) -> Response:
        return FileResponse(PAGE / "index.html", headers={"cache-control": "no-cache"})

    async def examples(self, request: Request) -> Response:
        """The bundled example requests: name, title and kind (solve or evaluate)."""
        out = []
        for path in _example_files():
            try:
                title = json.loads(path.read_text())["board"]["title"]
            except (ValueError, KeyError, TypeError):
                continue
            kind = next(k for k in EXAMPLE_KINDS if path.stem.startswith(k + "_"))
            out.append({"name": path.stem, "title": title, "kind": kind})
        return JSONResponse({"examples": out})

    async def example(self, request: Request) -> Response:
        name = request.path_params["name"].removesuffix(".json")
        for path in _example_files():
            if path.stem == name:
                return FileResponse(path, media_type="application/json")
        raise HTTPException(404, f"no example {name!r}")

    async def geometry(self, request: Request) -> Response:
        """The drawable board of a request's `board` (revenue.render.board_geometry), for the page: read
        and checked as a Solve's board is (size limits, nesting), with a log line as every call."""
        from revenue.budget import call_budget
        from revenue.graph_cache import graph_for
        from revenue.render import board_geometry

        started = time.perf_counter()
        try:
            self._screen(request, "Geometry", started)
            body = await self._body(request, "Geometry", started)
        except Aborted as exc:
            return error_response(exc)
        try:
            message = decode(body, revenue_pb2.SolveRequest, self.boards, only="board")
            if isinstance(message, BadRequest):
                raise message.error
            if not message.HasField("board"):
                raise InputError("board", "the request has no board")
            board = self.service.boards.board(message.board)
        except InputError as exc:
            _log("Geometry", grpc.StatusCode.INVALID_ARGUMENT, str(exc), started)
            return error_response(Aborted(bad_request_status(exc)))

        cancel = threading.Event()

        def work():     # the board's track graph within the compute and memory caps, stopped by a disconnect
            with call_budget(self.service.max_compute, cancel, self.service.max_memory_mb):
                return board_geometry(graph_for(board))
        try:
            geometry = await self.service.admission.run(work, cancel=cancel, where="Geometry")
        except Interrupted as exc:      # past the compute cap
            _log("Geometry", grpc.StatusCode.DEADLINE_EXCEEDED, str(exc), started)
            return error_response(aborted(grpc.StatusCode.DEADLINE_EXCEEDED, str(exc)))
        except InputError as exc:
            _log("Geometry", grpc.StatusCode.INVALID_ARGUMENT, str(exc), started)
            return error_response(Aborted(bad_request_status(exc)))
        except ServiceError as exc:    # the queue is full, or the server is stopping
            _log("Geometry", exc.code, exc.message, started)
            return error_response(aborted(exc.code, exc.message))
        except Exception as exc:
            incident = log_failure("Geometry", exc)
            _log("Geometry", grpc.StatusCode.INTERNAL, f"incident {incident}: {type(exc).__name__}", started)
            return error_response(aborted(grpc.StatusCode.INTERNAL, internal_message(incident)))
        _log("Geometry", grpc.StatusCode.OK, "", started)
        return JSONResponse(geometry)

    async def _http_error(self, request: Request, exc: HTTPException) -> Response:
        code = {404: grpc.StatusCode.NOT_FOUND, 405: grpc.StatusCode.UNIMPLEMENTED}.get(
            exc.status_code, grpc.StatusCode.INVALID_ARGUMENT)
        return error_response(aborted(code, str(exc.detail), exc.status_code), exc.headers)


class _Details(grpc.HandlerCallDetails):
    def __init__(self, method: str):
        self.method, self.invocation_metadata = method, ()


def _message_class(descriptor):
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(descriptor)


def _example_files() -> list[pathlib.Path]:
    """The example requests: the repository's examples/ (a checkout), or the installed revenue.examples."""
    here = pathlib.Path(api.__file__).resolve().parent
    for folder in (here.parent / "examples", here / "examples"):
        files = sorted(p for p in folder.glob("*.json") if p.stem.startswith(tuple(k + "_" for k in EXAMPLE_KINDS)))
        if files:
            return files
    return []


def _log(method: str, code: grpc.StatusCode, error: str, started: float) -> None:
    """The call's log line when it ends before reaching the service (origin, Content-Type, auth, body
    size), and Geometry's."""
    record = {"method": method, "transport": "http", "code": code.name,
              "elapsed_ms": round((time.perf_counter() - started) * 1000, 3)}
    if error:
        record["error"] = clip(error, 300)
    log.info(json.dumps(record))
