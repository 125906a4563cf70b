"""The service over HTTP/JSON, through real sockets to an in-process server (httpx as the client): every
method equals gRPC and the library, bad input names the field, auth, CORS, the order of the SSE stream,
deadlines, cancellation when the client disconnects, the queue, limits, health, the log line."""
from __future__ import annotations

import asyncio
import json
import ssl
import threading
import time

import grpc
import httpx
import pytest
from google.protobuf import json_format

from benchmarks.scenarios import title_scenarios
from revenue import api
from revenue.evaluation import evaluate
from revenue.optimizer import solve
from revenue.steam import deliveries
from revenue.v1 import revenue_pb2, steam_pb2

from .test_server import certificate  # noqa: F401  (the fixture: a self-signed localhost certificate)
from .server_helpers import CALL_LOG, EXAMPLES, heavy_request, running, stream_request, stub
from .server_helpers import http_server  # noqa: F401  (the module's server, gRPC and HTTP: a fixture)

SCENARIOS = title_scenarios()
SOLVE_1830 = json.loads((EXAMPLES / "solve_1830.json").read_text())
TOKEN = "s3cret"
ALLOWED = "https://allowed.example"
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def http(server):
    with httpx.Client(base_url=f"http://127.0.0.1:{server.http_port}", timeout=60) as client:
        yield client


@pytest.fixture(scope="module")
def guarded():
    """One worker and no queue, a bearer token, one allowed origin, a small compute cap and message limit."""
    with running(workers=1, max_queue=0, max_compute_ms=2000, max_message_bytes=64 * 1024, http_port=0,
                 auth_token=TOKEN, cors_origins=(ALLOWED,)) as s:
        yield s


def client_of(server, **kwargs) -> httpx.Client:
    return httpx.Client(base_url=f"http://127.0.0.1:{server.http_port}", timeout=60, **kwargs)


def as_json(message) -> dict:
    return json.loads(json.dumps(json_format.MessageToDict(message, preserving_proto_field_name=True,
                                                           always_print_fields_with_no_presence=True)))


def violations(response: httpx.Response) -> list[tuple[str, str]]:
    body = response.json()
    out = []
    for detail in body.get("details", []):
        assert detail["@type"] == "type.googleapis.com/google.rpc.BadRequest"
        out += [(v.get("field", ""), v["description"]) for v in detail["field_violations"]]
    return out


def sse(response: httpx.Response) -> list[tuple[str, dict]]:
    """(event, data) of each Server-Sent Event of a finished response."""
    events, kind = [], "message"
    for line in response.iter_lines():
        if line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            events.append((kind, json.loads(line[5:])))
            kind = "message"
    return events


def wait_until(predicate, timeout=10.0):
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def last_log(method: str) -> dict:
    return [r for r in CALL_LOG.calls(method) if r.get("transport") == "http"][-1]


# ---- every method equals gRPC and the library --------------------------------------------------------------

@pytest.mark.parametrize("scenario", SCENARIOS[::3], ids=lambda s: s.name)
def test_solve_equals_grpc(server, http, scenario):
    got = http.post("/v1/solve", json=scenario.request)
    assert got.status_code == 200 and got.headers["content-type"] == "application/json"
    service, channel = stub(server)
    want = as_json(service.Solve(json_format.ParseDict(scenario.request, revenue_pb2.SolveRequest()), timeout=60))
    channel.close()
    body = got.json()
    body.pop("stats"), want.pop("stats")
    assert body == want and body["optimal"] and body["revenue"] == solve(scenario.request)["revenue"]


def test_the_1830_example_is_980(http):
    body = http.post("/v1/solve", content=(EXAMPLES / "solve_1830.json").read_bytes(), headers=JSON).json()
    assert (body["revenue"], body["optimal"], body["upper_bound"]) == (980, True, 980)
    assert [r["train"] for r in body["routes"]] == ["6", "D"]
    assert body["note"] == "" and body["subsidy"] == 0      # every field written out, as `--json` does


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("evaluate_*.json")), ids=lambda p: p.stem)
def test_evaluate_equals_library(http, path):
    got = http.post("/v1/evaluate", content=path.read_bytes(), headers=JSON)
    want = api.to_message(evaluate(api.load_request(path, revenue_pb2.EvaluateRequest)), revenue_pb2.EvaluateResponse)
    assert got.status_code == 200 and got.json() == as_json(want) and got.json()["legal"]


def test_illegal_route_is_an_answer(http):
    request = json.loads((EXAMPLES / "evaluate_1830.json").read_text())
    request["routes"][1]["nodes"].append("F2-0")
    body = http.post("/v1/evaluate", json=request).json()
    assert body["legal"] is False and body["revenue"] == 0
    assert body["routes"][1]["error"]["rule"] == "not_connected" and body["routes"][1]["error"]["where"] == "F2-0"


def test_titles_and_deliveries_equal_library(http):
    titles = http.get("/v1/titles")
    assert titles.status_code == 200
    assert titles.json() == as_json(api.to_message(api.list_titles(), revenue_pb2.ListTitlesResponse))
    raw = json.loads((EXAMPLES / "steam.json").read_text())
    got = http.post("/v1/deliveries", json=raw)
    assert got.status_code == 200
    assert got.json() == as_json(json_format.ParseDict(deliveries(raw), steam_pb2.DeliveriesResponse()))
    assert got.json()["best"]["own_points"] > 0


def test_a_stored_run_routes_action_is_checked(http):
    body = http.post("/v1/evaluate", content=(EXAMPLES / "run_routes_1830.json").read_bytes(), headers=JSON).json()
    assert body["legal"] and body["revenue"] == 210
    assert [r["train"] for r in body["routes"]] == ["2", "D"]


def test_dividends_equal_library(http):
    from revenue.payout import dividends

    raw = json.loads((EXAMPLES / "dividends_1830.json").read_text())
    got = http.post("/v1/dividends", json=raw)
    want = api.to_message(dividends(api.parse_request(raw, revenue_pb2.DividendsRequest)),
                          revenue_pb2.DividendsResponse)
    assert got.status_code == 200 and got.json() == as_json(want)


def test_lower_camel_json_names_are_accepted(http):
    request = {**heavy_request(), "deadlineMs": 500}    # long before its memory cap stops it (3.3 s)
    body = http.post("/v1/solve", json=request).json()
    assert body["optimal"] is False and body["stats"]["timed_out"] is True


# ---- bad input -----------------------------------------------------------------------------------------------

def _with(path: list, value):
    request = json.loads(json.dumps(SOLVE_1830))
    target = request
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return request


@pytest.mark.parametrize("body, field, words", [
    (_with(["board", "tiles", 0, "rotation"], 7), "board.tiles[0].rotation", "7 is not in 0..5"),
    (_with(["board", "tiles", 0, "rotation"], "x"), "board.tiles[0].rotation", "is not an integer"),
    (_with(["board", "tiles", 0, "hex"], "Z99"), "board.tiles[0].hex", "not a hex of the 1830 map"),
    (_with(["board", "tilez"], []), "board.tilez", "unknown field of Board"),
    (_with(["board", "tokens", 0, "company"], 5), "board.tokens[0].company", "is not a string"),
    (_with(["company", "trains"], [{"name": "9"}]), "company.trains[0].name", ""),
    (_with(["board", "tiles"], [{"hex": "F4", "tile": "7"}] * 201), "board.tiles", "201 entries"),
    (_with(["deadline_ms"], -1), "deadline_ms", "is not >= 0"),
    ([1, 2], "", "must be an object"),
], ids=["range", "type", "hex", "unknown", "string", "train", "limit", "deadline", "array"])
def test_bad_input_names_the_field(http, body, field, words):
    response = http.post("/v1/solve", json=body)
    assert response.status_code == 400
    assert response.json()["code"] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    got = violations(response)
    assert got[0][0] == field and words in got[0][1], got
    log = last_log("Solve")
    assert log["code"] == "INVALID_ARGUMENT" and field in log["error"]


def test_body_that_is_not_json(http):
    response = http.post("/v1/evaluate", content=b"{not json", headers=JSON)
    assert response.status_code == 400
    assert violations(response)[0][0] == "" and "not JSON" in violations(response)[0][1]


def test_stream_bad_input_is_an_error_answer_not_a_stream(http):
    response = http.post("/v1/solve:stream", json=_with(["board", "tiles", 0, "rotation"], 7))
    assert response.status_code == 400 and response.headers["content-type"] == "application/json"
    assert violations(response)[0][0] == "board.tiles[0].rotation"


def test_unknown_path_and_method(http):
    missing = http.get("/v1/nothing")
    assert missing.status_code == 404 and missing.json()["code"] == grpc.StatusCode.NOT_FOUND.value[0]
    assert http.get("/v1/solve").status_code == 405


# ---- the stream ---------------------------------------------------------------------------------------------

def test_stream_improves_then_proves(http):
    request = stream_request()
    with http.stream("POST", "/v1/solve:stream", json=request) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse(response)
    assert all(kind == "message" for kind, _ in events)
    answers = [data for _, data in events]
    revenues = [a["revenue"] for a in answers]
    assert len(answers) >= 3, revenues                       # improvements came before the proof
    assert revenues[:-1] == sorted(set(revenues[:-1])) and revenues[-1] >= revenues[-2]
    final = answers[-1]
    # each improvement carries the bound that held when it was found
    assert all(not a["optimal"] and a["upper_bound"] >= final["revenue"] and a["routes"] for a in answers[:-1])
    assert final["optimal"] and final["revenue"] == final["upper_bound"] == solve(request)["revenue"]
    assert "stats" in final and all("stats" not in a for a in answers[:-1])


# ---- deadlines and cancellation ------------------------------------------------------------------------

def test_deadline_ms_before_the_routes_are_known_gives_the_heuristic_run(http):
    # The heavy board's routes take seconds to enumerate: at deadline_ms 50 the answer is the heuristic
    # run (issue 16: a board with a legal run never gets nothing), unproved, with its bound.
    request = {**heavy_request(), "deadline_ms": 50}
    response = http.post("/v1/solve", json=request)
    assert response.status_code == 200
    body = response.json()
    assert not body["optimal"] and body["stats"]["timed_out"] and body["routes"]
    assert body["revenue"] == sum(r["revenue"] for r in body["routes"]) <= body["upper_bound"]
    check = evaluate({**request, "routes": [{"train": r["train"], "nodes": r["nodes"]} for r in body["routes"]]})
    assert check["legal"] and check["revenue"] == body["revenue"]


def test_deadline_ms_after_first_routes_gives_best_so_far(http):
    # The heavy board: a first run within about 0.1 s, never proved (its memory cap stops it after about
    # 3 s on a quiet machine, so the deadline comes well before).
    request = {**heavy_request(), "deadline_ms": 1000}
    body = http.post("/v1/solve", json=request).json()
    assert not body["optimal"] and body["stats"]["timed_out"] and body["routes"]
    assert body["revenue"] == sum(r["revenue"] for r in body["routes"]) < body["upper_bound"]
    check = evaluate({**heavy_request(), "routes": [{"train": r["train"], "nodes": r["nodes"]} for r in body["routes"]]})
    assert check["legal"] and check["revenue"] == body["revenue"]


@pytest.mark.slow
def test_compute_cap_bounds_a_call_without_deadline(guarded):
    with client_of(guarded, headers={"authorization": f"Bearer {TOKEN}"}) as client:
        response = client.post("/v1/solve", json=heavy_request())   # no proof within 8 s
    # The cap stopped the search: before any route (504), or after some (the best so far, unproved).
    if response.status_code == 504:
        assert "compute cap of 2000 ms" in response.json()["message"]
    else:
        body = response.json()
        assert response.status_code == 200 and not body["optimal"] and body["stats"]["timed_out"]
        assert body["revenue"] < body["upper_bound"]


def test_disconnect_cancels_a_unary_call(server, http):
    assert wait_until(lambda: server.service.admission.admitted == 0)
    calls = len(CALL_LOG.calls("Solve"))
    with client_of(server) as client:
        with pytest.raises(httpx.ReadTimeout):
            client.post("/v1/solve", json=heavy_request(), timeout=httpx.Timeout(60, read=0.5))
    # The client closed its connection: the search stops and its worker is free long before the heavy
    # search (no proof within 8 s) would have ended.
    assert wait_until(lambda: server.service.admission.admitted == 0)
    assert wait_until(lambda: len(CALL_LOG.calls("Solve")) > calls)
    assert CALL_LOG.calls("Solve")[-1]["code"] == "CANCELLED"
    assert CALL_LOG.calls("Solve")[-1]["transport"] == "http"


def test_disconnect_cancels_the_stream(server):
    # The heavy board: a heuristic run at once, no proof for seconds. On a starved machine the first line
    # can reach the client only after the search has ended; such a try cancels nothing, so try again.
    for _ in range(3):
        assert wait_until(lambda: server.service.admission.admitted == 0)
        calls = len(CALL_LOG.calls("SolveStream"))
        with client_of(server) as client:
            with client.stream("POST", "/v1/solve:stream", json=heavy_request()) as response:
                first = next(line for line in response.iter_lines() if line.startswith("data:"))
                assert json.loads(first[5:])["optimal"] is False
                searching = server.service.admission.admitted == 1
        if searching:
            break
    assert searching
    # Leaving the block closed the connection mid-stream.
    assert wait_until(lambda: server.service.admission.admitted == 0)
    assert wait_until(lambda: len(CALL_LOG.calls("SolveStream")) > calls)
    assert CALL_LOG.calls("SolveStream")[-1]["code"] == "CANCELLED"


@pytest.mark.slow
def test_full_queue_is_429(guarded):
    headers = {"authorization": f"Bearer {TOKEN}"}
    assert wait_until(lambda: guarded.service.admission.admitted == 0)
    with client_of(guarded, headers=headers) as busy, client_of(guarded, headers=headers) as other:
        # The one worker searches (until the compute cap), and no call may wait.
        working = threading.Thread(target=lambda: busy.post("/v1/solve", json=heavy_request()))
        working.start()
        assert wait_until(lambda: guarded.service.admission.admitted == 1)
        refused = other.post("/v1/solve", json=SOLVE_1830)
        working.join(60)
    assert refused.status_code == 429
    assert refused.json()["code"] == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
    assert "server busy" in refused.json()["message"]
    assert wait_until(lambda: guarded.service.admission.admitted == 0)


def test_message_size_limit(guarded):
    with client_of(guarded, headers={"authorization": f"Bearer {TOKEN}"}) as client:
        response = client.post("/v1/solve", content=b" " * (65 * 1024) + b"{}", headers=JSON)
    assert response.status_code == 413
    assert response.json()["code"] == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]


# ---- auth and CORS ----------------------------------------------------------------------------------------

def test_bearer_token(guarded):
    with client_of(guarded) as client:
        missing = client.get("/v1/titles")
        wrong = client.get("/v1/titles", headers={"authorization": "Bearer nope"})
        right = client.get("/v1/titles", headers={"authorization": f"Bearer {TOKEN}"})
        assert missing.status_code == wrong.status_code == 401
        assert missing.headers["www-authenticate"] == "Bearer"
        assert missing.json()["code"] == grpc.StatusCode.UNAUTHENTICATED.value[0]
        assert right.status_code == 200 and right.json()["titles"]
        assert last_log("ListTitles")["code"] == "OK"
        # The scheme is case-insensitive (RFC 7235), the token is not.
        assert client.get("/v1/titles", headers={"authorization": f"bearer {TOKEN}"}).status_code == 200
        assert client.get("/v1/titles", headers={"authorization": f"bearer {TOKEN.upper()}x"}).status_code == 401
        # Health and the page stay open, like gRPC health checking and reflection.
        assert client.get("/healthz").status_code == 200
        assert client.get("/").status_code == 200
        bad = client.post("/v1/solve", json=SOLVE_1830)
        assert bad.status_code == 401
    assert [r["code"] for r in CALL_LOG.calls("Solve") if r.get("transport") == "http"][-1] == "UNAUTHENTICATED"


def preflight(client: httpx.Client, origin: str) -> httpx.Response:
    return client.options("/v1/solve", headers={"origin": origin, "access-control-request-method": "POST",
                                                 "access-control-request-headers": "authorization, content-type"})


def test_cors_allows_the_configured_origin(guarded):
    with client_of(guarded) as client:
        allowed = preflight(client, ALLOWED)
        assert allowed.status_code == 200
        assert allowed.headers["access-control-allow-origin"] == ALLOWED
        assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
        assert "POST" in allowed.headers["access-control-allow-methods"]
        other = preflight(client, "https://other.example")
        assert other.status_code == 400 and "access-control-allow-origin" not in other.headers
        call = client.get("/v1/titles", headers={"origin": ALLOWED, "authorization": f"Bearer {TOKEN}"})
        assert call.status_code == 200 and call.headers["access-control-allow-origin"] == ALLOWED
        call = client.get("/v1/titles", headers={"origin": "https://other.example", "authorization": f"Bearer {TOKEN}"})
        assert "access-control-allow-origin" not in call.headers


def test_no_origin_is_allowed_by_default(http):
    response = preflight(http, ALLOWED)
    assert response.status_code == 400 and "access-control-allow-origin" not in response.headers
    call = http.get("/v1/titles", headers={"origin": ALLOWED})
    assert call.status_code == 200 and "access-control-allow-origin" not in call.headers


# ---- health, logs, the page's helpers -----------------------------------------------------------------------

def test_healthz_serving(http):
    response = http.get("/healthz")
    assert response.status_code == 200 and response.json() == {"status": "SERVING"}


def test_healthz_while_warming_up_and_stopping(monkeypatch):
    from server import Config, RouteServer

    release = threading.Event()
    monkeypatch.setattr("server.app.warm_up", lambda service: release.wait(30))
    s = RouteServer(Config(port=0, http_port=0)).start()
    try:
        with client_of(s) as client:
            warming = client.get("/healthz")
            assert warming.status_code == 503 and warming.json() == {"status": "NOT_SERVING"}
            release.set()
            assert s.wait_ready(30)
            assert client.get("/healthz").status_code == 200
    finally:
        release.set()
        stopped = s.stop(0)
    # Once stopping, the app says so to whoever still reaches it (the listening socket closes at once).

    async def ask():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=s.http_api.app), base_url="http://x") as c:
            return await c.get("/healthz")
    stopping = asyncio.run(ask())
    assert stopping.status_code == 503 and stopping.json() == {"status": "NOT_SERVING"}
    assert stopped.wait(15)


def test_log_line_of_an_http_call(http):
    http.post("/v1/solve", json=SOLVE_1830)
    log = last_log("Solve")
    assert (log["title"], log["company"], log["revenue"], log["optimal"], log["code"]) == ("1830", "NYC", 980, True, "OK")


def test_listening_event_names_the_http_port(server):
    assert server.http_port and server.http_port != server.port


def test_geometry_of_a_board(http):
    body = http.post("/page/geometry", json={"board": SOLVE_1830["board"]}).json()
    assert len(body["hexes"]) == 93 and body["layout"] == "pointy"
    names = {n["name"] for n in body["nodes"]}
    assert {"F2-0", "E19-0"} <= names
    # Every chain's track is drawn: the page draws a route on the track of its chains.
    assert all(c["track"] and c["a"] in names and c["b"] in names for c in body["chains"])
    bad = http.post("/page/geometry", json={"board": {"title": "1830", "tiles": [{"hex": "Z9", "tile": "7"}]}})
    assert bad.status_code == 400 and violations(bad)[0][0] == "board.tiles[0].hex"


def test_examples_for_the_page(http):
    listed = http.get("/page/examples").json()["examples"]
    assert {"name": "solve_1830", "title": "1830", "kind": "solve"} in listed
    assert {"name": "run_routes_1830", "title": "1830", "kind": "run_routes"} in listed
    assert not any(e["name"].startswith("dividends") for e in listed)    # no board to draw
    assert http.get("/page/examples/solve_1830").json() == SOLVE_1830
    assert http.get("/page/examples/nothing").status_code == 404


def test_https_with_the_grpc_certificate(certificate):
    cert, key = certificate
    with running(auth_token=TOKEN, tls_cert=str(cert), tls_key=str(key), http_port=0) as s:
        with httpx.Client(base_url=f"https://localhost:{s.http_port}", verify=ssl.create_default_context(cafile=str(cert)), timeout=60) as client:
            answer = client.post("/v1/solve", json=SOLVE_1830, headers={"authorization": f"Bearer {TOKEN}"})
            assert answer.status_code == 200 and answer.json()["revenue"] == 980
        with httpx.Client(base_url=f"http://127.0.0.1:{s.http_port}", timeout=10) as plain:
            with pytest.raises(httpx.HTTPError):       # the port speaks TLS only
                plain.get("/healthz")


# uvicorn logs the cut (at ERROR) when the grace period ends with the stream still open, as meant here.
@pytest.mark.allow_error_log("timeout graceful shutdown exceeded")
def test_shutdown_ends_an_open_stream():
    from server import Config, RouteServer

    s = RouteServer(Config(port=0, http_port=0, workers=1)).start()
    assert s.wait_ready(60)
    lines: list[str] = []

    def listen():
        try:
            with client_of(s) as client:
                with client.stream("POST", "/v1/solve:stream", json=heavy_request()) as response:
                    lines.extend(response.iter_lines())
        except httpx.HTTPError:
            lines.append("(connection closed)")

    reader = threading.Thread(target=listen)
    reader.start()
    assert wait_until(lambda: s.service.admission.admitted == 1)
    stopped = s.stop(0.5)
    # The stream is cut after the grace period and its search stopped: the server ends, the reader too.
    assert stopped.wait(30)
    reader.join(30)
    assert not reader.is_alive()
    # Its search ends once it sees the cancel, maybe after the event loop closed: no fault either way.
    assert wait_until(lambda: s.service.admission.admitted == 0, timeout=30)
    assert s.http_api.state() == "NOT_SERVING"
    assert last_log("SolveStream")["code"] == "CANCELLED"
    # The stream ends with the reason, whether or not an improvement came first (then a blank line
    # ends the improvement's event, and may end the error's).
    shown = [line for line in lines if line]
    assert shown[-2:] == ["event: error", 'data: {"code": 14, "message": "the server is shutting down; '
                                          'retry elsewhere or later"}'] or \
        json.loads(shown[-1])["code"] == 14, lines
