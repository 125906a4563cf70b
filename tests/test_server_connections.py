"""The service's edges (issue 40): a flood of idle connections neither exhausts the descriptors nor
shuts out health checks nor floods the log; headers have a time and size bound; the HTTP API refuses a
body that is not JSON and a page of an origin not allowed before computing; /page/geometry has the
checks of Solve; bad input of every shape seen is INVALID_ARGUMENT / 400, never INTERNAL; the JSON board
cache stays within its byte budget."""
from __future__ import annotations

import json
import logging
import socket
import time

import grpc
import httpx
import pytest
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from revenue.cache import JSON_BOARD_CACHE_BYTES
from revenue.v1 import dividends_pb2, revenue_pb2
from server.app import Config, grpc_options
from server.connections import Throttle

from .hostile_boards import all_pairs_board
from .server_helpers import CALL_LOG, EXAMPLES, heavy_request, running, stub, wait_until

FLOOD = 2000
JSON = {"content-type": "application/json"}
EVALUATE_1830 = json.loads((EXAMPLES / "evaluate_1830.json").read_text())
RUN_ROUTES_1830 = json.loads((EXAMPLES / "run_routes_1830.json").read_text())
DIVIDENDS_1860 = json.loads((EXAMPLES / "dividends_1860.json").read_text())
DIVIDENDS_1830 = json.loads((EXAMPLES / "dividends_1830.json").read_text())


@pytest.fixture(scope="module")
def server():
    with running(workers=1, max_queue=4, max_compute_ms=5000, http_port=0, max_connections=200,
                 header_timeout_s=1.0, keep_alive_s=1.0, cors_origins=("https://allowed.example",)) as s:
        yield s


@pytest.fixture(scope="module")
def http(server):
    with httpx.Client(base_url=f"http://127.0.0.1:{server.http_port}", timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def rpc(server):
    service, channel = stub(server)
    yield service
    channel.close()


class Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


def test_a_flood_of_idle_connections(server):
    """FLOOD connections that each send a request line and nothing more: the server keeps at most
    max_connections open, closes the idle ones after the header timeout, answers /healthz and gRPC health
    within a second meanwhile, and logs a line or two about it."""
    seen = Records()
    for name in ("asyncio", "uvicorn.error"):
        logging.getLogger(name).addHandler(seen)
    before = len(CALL_LOG.records)
    sockets = []
    channel = grpc.insecure_channel(f"127.0.0.1:{server.port}")
    health = health_pb2_grpc.HealthStub(channel)
    try:
        started = time.perf_counter()
        for _ in range(FLOOD):
            s = socket.create_connection(("127.0.0.1", server.http_port), timeout=5)
            s.sendall(b"GET /healthz HTTP/1.1\r\n")
            sockets.append(s)
        opened = time.perf_counter() - started
        assert server.connections.open <= 200
        with httpx.Client(base_url=f"http://127.0.0.1:{server.http_port}", timeout=1) as client:
            t = time.perf_counter()
            assert client.get("/healthz").json() == {"status": "SERVING"}
            http_health = time.perf_counter() - t
        t = time.perf_counter()
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=1).status == \
            health_pb2.HealthCheckResponse.SERVING
        grpc_health = time.perf_counter() - t
        # Past the header timeout, every flood connection is closed by the server.
        assert wait_until(lambda: server.connections.open == 0, timeout=5)
        closed = 0
        for s in sockets:
            s.settimeout(2)
            try:
                closed += s.recv(64) == b""
            except OSError:      # reset
                closed += 1
        assert closed == FLOOD
        lines = [r for r in CALL_LOG.records[before:] if r.get("event") == "http_connections"]
        print(f"{FLOOD} connections in {opened:.2f} s; /healthz {http_health * 1000:.0f} ms, gRPC health "
              f"{grpc_health * 1000:.0f} ms; {len(lines)} log lines: {lines}")
        assert 1 <= len(lines) <= 2 and lines[0]["most"] == 200
        assert len(seen.records) <= 2, [r.getMessage()[:200] for r in seen.records]
    finally:
        for s in sockets:
            s.close()
        channel.close()
        for name in ("asyncio", "uvicorn.error"):
            logging.getLogger(name).removeHandler(seen)


def test_headers_have_a_size_bound(server):
    with socket.create_connection(("127.0.0.1", server.http_port), timeout=5) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\n")
        try:
            for _ in range(100):
                s.sendall(b"x-filler: " + b"a" * 1000 + b"\r\n")
        except OSError:
            pass
        assert s.recv(100).startswith(b"HTTP/1.1 431")


def test_keep_alive_connections_are_reused_then_closed(server):
    with socket.create_connection(("127.0.0.1", server.http_port), timeout=5) as s:
        for _ in range(2):
            s.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
            assert s.recv(4096).startswith(b"HTTP/1.1 200")
        s.settimeout(5)
        assert s.recv(10) == b""          # keep-alive (1 s) over, then closed (else recv times out at 5 s)


def test_grpc_connection_options():
    options = dict(grpc_options(Config(max_connections=50, header_timeout_s=2, idle_connection_s=60), 20000))
    assert options["grpc.max_allowed_incoming_connections"] == 10000       # half the descriptors
    assert dict(grpc_options(Config(max_grpc_connections=30)))["grpc.max_allowed_incoming_connections"] == 30
    assert options["grpc.server_handshake_timeout_ms"] == 2000
    assert options["grpc.max_connection_idle_ms"] == 60_000
    assert options["grpc.keepalive_permit_without_calls"] == 0
    assert options["grpc.max_concurrent_streams"] == 100


def test_throttle_lets_one_record_a_minute_through():
    throttle = Throttle(("socket.accept() out of system resource",))

    def record(msg):
        return logging.LogRecord("asyncio", logging.ERROR, __file__, 1, msg, None, None)
    passed = [throttle.filter(record("socket.accept() out of system resource")) for _ in range(1000)]
    assert sum(passed) == 1
    assert throttle.filter(record("something else"))


# ---- the HTTP API's screening ------------------------------------------------------------------------

def last(method: str) -> dict:
    return CALL_LOG.calls(method)[-1]


def test_a_body_that_is_not_json_by_its_content_type_is_415(http):
    body = json.dumps(EVALUATE_1830).encode()
    for kind in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = {"content-type": kind} if kind else {}
        got = http.post("/v1/evaluate", content=body, headers=headers)
        assert got.status_code == 415 and got.json()["code"] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert last("Evaluate")["code"] == "INVALID_ARGUMENT"
    ok = http.post("/v1/evaluate", content=body, headers={"content-type": "application/json; charset=utf-8"})
    assert ok.status_code == 200
    assert http.post("/page/geometry", content=body, headers={"content-type": "text/plain"}).status_code == 415


def test_a_post_from_an_origin_not_allowed_is_refused_before_it_computes(server, http):
    admitted = server.service.admission.admitted
    got = http.post("/v1/evaluate", json=EVALUATE_1830, headers={"origin": "https://evil.example"})
    assert got.status_code == 403 and last("Evaluate")["code"] == "PERMISSION_DENIED"
    assert server.service.admission.admitted == admitted
    allowed = http.post("/v1/evaluate", json=EVALUATE_1830, headers={"origin": "https://allowed.example"})
    assert allowed.status_code == 200
    own = f"http://127.0.0.1:{server.http_port}"          # the page at / posts with its own origin
    assert http.post("/v1/evaluate", json=EVALUATE_1830, headers={"origin": own}).status_code == 200
    assert http.post("/page/geometry", json={"board": EVALUATE_1830["board"]},
                     headers={"origin": "https://evil.example"}).status_code == 403


def test_geometry_has_the_checks_of_solve(http):
    hexes = [{"hex": f"{chr(65 + i // 40)}{2 * (i % 40) + 1}", "code": "city=revenue:10"} for i in range(1000)]
    got = http.post("/page/geometry", json={"board": {"title": "custom", "custom": {"hexes": hexes}}})
    assert got.status_code == 400 and "board.custom.hexes" in got.text
    assert last("Geometry")["code"] == "INVALID_ARGUMENT"
    deep = b'{"board": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    got = http.post("/page/geometry", content=deep, headers=JSON)
    assert got.status_code == 400
    got = http.post("/page/geometry", json={"board": EVALUATE_1830["board"]})
    assert got.status_code == 200 and last("Geometry")["code"] == "OK"


def test_geometry_ends_at_the_compute_cap():
    with running(workers=1, max_compute_ms=300, http_port=0) as capped, \
            httpx.Client(base_url=f"http://127.0.0.1:{capped.http_port}", timeout=30) as http:
        started = time.perf_counter()
        got = http.post("/page/geometry", json=all_pairs_board(20))     # its track graph: minutes unbounded
        assert got.status_code == 504 and "deadline" in got.json()["message"], got.text
        assert time.perf_counter() - started < 0.3 + 5.0       # (unbounded: minutes; 504 says the cap ended it)
        assert last("Geometry")["code"] == "DEADLINE_EXCEEDED"


@pytest.mark.parametrize("body", [b"[]", b"5", b'"x"', b"null", b'{"\\ud800": 1}',
                                  b'{"board": {"\\ud800": 1}}', b'{"board": {"title": "1830", "x": {"\\udfff": 2}}}'])
def test_bodies_that_are_no_request_are_400(http, body):
    got = http.post("/v1/evaluate", content=body, headers=JSON)
    assert got.status_code == 400 and got.json()["code"] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert last("Evaluate")["code"] == "INVALID_ARGUMENT"


def test_the_json_board_cache_is_bounded_by_bytes_and_keyed_by_the_board(server, http):
    boards = server.http_api.boards
    board = json.dumps(EVALUATE_1830["board"])
    for pad in (1, 2, 3):
        body = ('{"board": ' + board.replace(", ", "," + " " * pad) + ', "routes": ' +
                json.dumps(EVALUATE_1830["routes"]) + ', "company": ' + json.dumps(EVALUATE_1830["company"]) + "}")
        assert http.post("/v1/evaluate", content=body, headers=JSON).status_code == 200
    size = len(boards)
    assert size >= 1
    body = ('{"board": ' + board[:-1] + ', "options": {}' + " " * (3 << 20) + "}" + ', "routes": ' +
            json.dumps(EVALUATE_1830["routes"]) + ', "company": ' + json.dumps(EVALUATE_1830["company"]) + "}")
    assert http.post("/v1/evaluate", content=body, headers=JSON).status_code == 200
    assert len(boards) <= size + 1 and boards.bytes <= JSON_BOARD_CACHE_BYTES


# ---- bad input over gRPC ---------------------------------------------------------------------------------

@pytest.mark.parametrize("entry", [["F4", 1.5], [{"a": "F4"}], ["F4", ["F2"]], [None], [True]])
@pytest.mark.parametrize("method", ["Evaluate", "Dividends"])
def test_typed_garbage_in_run_routes_connections(rpc, method, entry):
    action = json.loads(json.dumps(RUN_ROUTES_1830["run_routes"]))
    action["routes"][0]["connections"][0] = entry
    request = {k: v for k, v in RUN_ROUTES_1830.items() if k != "run_routes"}
    message = revenue_pb2.EvaluateRequest()
    json_format.ParseDict(request, message, ignore_unknown_fields=True)
    message.run_routes.CopyFrom(json_format.ParseDict(action, revenue_pb2.RunRoutesAction(),
                                                      ignore_unknown_fields=True))
    with pytest.raises(grpc.RpcError) as err:
        if method == "Evaluate":
            rpc.Evaluate(message, timeout=30)
        else:
            holding = json_format.ParseDict(DIVIDENDS_1830["holding"], dividends_pb2.Holding())
            rpc.Dividends(revenue_pb2.DividendsRequest(title="1830", company="B&O", holding=holding,
                                                       evaluate=message), timeout=30)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "connections" in err.value.details()


def test_dividends_that_overflow_int32_are_invalid_argument(rpc):
    request = json_format.ParseDict(DIVIDENDS_1860, revenue_pb2.DividendsRequest(), ignore_unknown_fields=True)
    request.ClearField("evaluate")
    request.revenue, request.subsidy = 2**31 - 1, 1
    with pytest.raises(grpc.RpcError) as err:
        rpc.Dividends(request, timeout=30)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_an_evaluate_that_waited_past_its_deadline_is_logged_deadline_exceeded(rpc):
    heavy = json_format.ParseDict(heavy_request(), revenue_pb2.SolveRequest())
    heavy.deadline_ms = 3000
    busy = rpc.Solve.future(heavy, timeout=30)      # the one worker
    time.sleep(0.3)
    before = len(CALL_LOG.calls("Evaluate"))
    request = json_format.ParseDict(EVALUATE_1830, revenue_pb2.EvaluateRequest())
    waiting = [rpc.Evaluate.future(request, timeout=0.5) for _ in range(3)]     # the queue holds 4
    for call in waiting:
        with pytest.raises(grpc.RpcError) as err:
            call.result()
        assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert wait_until(lambda: len(CALL_LOG.calls("Evaluate")) == before + 3, timeout=5)
    assert [c["code"] for c in CALL_LOG.calls("Evaluate")[before:]] == ["DEADLINE_EXCEEDED"] * 3
    busy.result()


class _Context:
    """A gRPC servicer context whose call ends `left` seconds before its deadline (by the server's clock)."""

    def __init__(self, left: float):
        self.left = left

    def time_remaining(self):
        return self.left

    def add_callback(self, fn):
        self.done = fn
        return True

    def abort(self, code, details):
        raise RuntimeError(code)


@pytest.mark.parametrize("how", ["withdrawn", "rpc_done"])
def test_a_call_ended_near_its_deadline_is_logged_deadline_exceeded(how):
    """The client's deadline comes before the server's (which counts from the request's arrival): its
    cancel reaches the server while the server's clock still has some milliseconds left."""
    from server.calls import Call, ServiceError

    before = len(CALL_LOG.calls("Evaluate"))
    call = Call("Evaluate", _Context(0.04))
    if how == "withdrawn":
        with pytest.raises(RuntimeError):
            call.fail(ServiceError(grpc.StatusCode.CANCELLED, "cancelled while queued"))
        call.finish()
    else:
        call.context.done()
    assert [c["code"] for c in CALL_LOG.calls("Evaluate")[before:]] == ["DEADLINE_EXCEEDED"]
    far = Call("Evaluate", _Context(5.0))     # a client's cancel well before the deadline stays CANCELLED
    far.context.done()
    assert CALL_LOG.calls("Evaluate")[-1]["code"] == "CANCELLED"


def test_the_page_behind_a_proxy_is_its_own_origin(http):
    got = http.post("/v1/evaluate", json=EVALUATE_1830,
                    headers={"origin": "https://routes.example", "x-forwarded-host": "routes.example"})
    assert got.status_code == 200


def test_when_every_connection_is_busy_a_new_one_is_answered_503():
    with running(workers=1, max_queue=0, http_port=0, max_connections=2) as small:
        busy = []
        for _ in range(2):     # each waits for the rest of its body: working on a request
            s = socket.create_connection(("127.0.0.1", small.http_port), timeout=5)
            s.sendall(b"POST /v1/evaluate HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                      b"content-length: 100\r\n\r\n{")
            busy.append(s)
        time.sleep(0.2)
        with socket.create_connection(("127.0.0.1", small.http_port), timeout=5) as third:
            assert third.recv(100).startswith(b"HTTP/1.1 503")
        busy.pop().close()
        assert wait_until(lambda: CALL_LOG.calls("Evaluate")[-1]["code"] == "CANCELLED", timeout=5)
        time.sleep(0.2)
        with httpx.Client(base_url=f"http://127.0.0.1:{small.http_port}", timeout=5) as client:
            assert client.get("/healthz").status_code == 200
        for s in busy:
            s.close()


def test_a_stalled_body_is_closed_after_the_header_timeout(server):
    before = len(CALL_LOG.calls("Evaluate"))
    with socket.create_connection(("127.0.0.1", server.http_port), timeout=5) as s:
        s.sendall(b"POST /v1/evaluate HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                  b"content-length: 100\r\n\r\n{")
        t = time.perf_counter()
        assert s.recv(100) == b""                   # closed, nothing answered
        assert time.perf_counter() - t < 4          # the header timeout is 1 s
    assert wait_until(lambda: len(CALL_LOG.calls("Evaluate")) > before, timeout=5)
    assert CALL_LOG.calls("Evaluate")[-1]["code"] == "CANCELLED"
