"""Fuzz: thousands of malformed or random requests to every method of a real server. Every answer must be
OK or INVALID_ARGUMENT (never INTERNAL, never a hang), and the server must stay up and correct."""
from __future__ import annotations

import copy
import functools
import json
import random
import re
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from google.protobuf import json_format
from grpc_health.v1 import health_pb2, health_pb2_grpc

from benchmarks.scenarios import title_scenarios
from revenue.optimizer import solve
from revenue.v1 import revenue_pb2, steam_pb2

from .server_helpers import CALL_LOG, EXAMPLES, running

N_REQUESTS = 2400
ALLOWED = {grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT}

METHODS = {
    "Solve": (revenue_pb2.SolveRequest, False),
    "SolveStream": (revenue_pb2.SolveRequest, True),
    "Evaluate": (revenue_pb2.EvaluateRequest, False),
    "Deliveries": (steam_pb2.DeliveriesRequest, False),
    "ListTitles": (revenue_pb2.ListTitlesRequest, False),
    "Dividends": (revenue_pb2.DividendsRequest, False),
}


@functools.lru_cache(maxsize=1)
def bases() -> dict[str, list[dict]]:
    """Valid requests to mutate (never changed in place), kept small so that every mutant solves fast."""
    early = [s.request for s in title_scenarios() if "early" in s.name or "mid" in s.name]
    evaluates = [json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("evaluate_*.json"))]
    small_solves = [{"board": e["board"], "company": e["company"]} for e in evaluates]
    run_routes = [json_format.MessageToDict(      # a stored action's own fields left out
        json_format.ParseDict(json.loads(p.read_text()), revenue_pb2.EvaluateRequest(), ignore_unknown_fields=True),
        preserving_proto_field_name=True) for p in sorted(EXAMPLES.glob("run_routes_*.json"))]
    dividends = [json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("dividends_*.json"))]
    return {"Solve": early + small_solves, "SolveStream": small_solves, "Evaluate": evaluates + run_routes,
            "Deliveries": [json.loads((EXAMPLES / "steam.json").read_text())], "ListTitles": [{}],
            "Dividends": dividends}


def typed_garbage(rng: random.Random):
    """A JSON value of any type, nested a little: what a google.protobuf.ListValue may carry over gRPC."""
    choice = rng.randrange(6)
    if choice == 0:
        return [typed_garbage(rng) for _ in range(rng.randint(0, 3))]
    if choice == 1:
        return {rng.choice(["a", "hexes", "F4", "\ud800"]): typed_garbage(rng)}
    return random_scalar(rng) if choice < 4 else rng.choice(["F4", "F2", "E5", 1.5, -1, 2**53, True, None])


def run_routes_garbage(request: dict, rng: random.Random) -> dict:
    """A run_routes action (Evaluate, or Dividends by way of its evaluate) with typed garbage inside its
    routes' connections (issue 40: non-string items raised TypeError in the library)."""
    out = copy.deepcopy(request)
    action = out.setdefault("run_routes", {"type": "run_routes", "routes": [{"train": "2-0"}]})
    routes = action.setdefault("routes", [{"train": "2-0"}]) or [{"train": "2-0"}]
    action["routes"] = routes
    route = rng.choice(routes)
    connections = route.setdefault("connections", [["F4", "F2"]]) or [["F4", "F2"]]
    route["connections"] = connections
    j = rng.randrange(len(connections))
    entry = list(connections[j]) if isinstance(connections[j], list) else []
    entry.insert(rng.randint(0, len(entry)), typed_garbage(rng))
    connections[j] = entry if rng.random() < 0.8 else typed_garbage(rng)
    return out


def random_scalar(rng: random.Random):
    return rng.choice([
        lambda: rng.randint(-2**31, 2**31 - 1), lambda: rng.randint(-3, 12), lambda: "",
        lambda: "".join(rng.choice("ABCDEFGHIJK0123456789-_ ;:=,.|é") for _ in range(rng.randint(1, 12))),
        lambda: rng.choice(["F9", "E11", "G7-0", "A1", "city=revenue:20", "path=a:0,b:9", "city=revenue:x;path=a:_0,b:_0",
                            "town=revenue:10;path=a:0,b:_0;path=a:_0,b:_0", "offboard=revenue:yellow_20|brown_x",
                            "D", "2+1", "999", "custom", "1830", "flat", "pointy", "yellow", "age_of_steam"]),
        lambda: rng.random() < 0.5, lambda: [], lambda: {}, lambda: None,
        lambda: "\x00\ud7ff" * rng.randint(1, 3),
    ])()


def paths(obj, prefix=()):
    """Every (container, key) inside a JSON value."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield obj, k
            yield from paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield obj, i
            yield from paths(v, prefix + (i,))


def mutate(request: dict, rng: random.Random) -> dict:
    out = copy.deepcopy(request)
    for _ in range(rng.randint(1, 4)):
        spots = list(paths(out))
        if not spots:
            out[rng.choice(["board", "company", "routes", "stops", "x"])] = random_scalar(rng)
            continue
        container, key = rng.choice(spots)
        action = rng.random()
        if action < 0.5:
            container[key] = random_scalar(rng)
        elif action < 0.65 and isinstance(container, dict):
            del container[key]
        elif action < 0.8 and isinstance(container, list):
            container.extend(copy.deepcopy(container) * rng.randint(1, 3))   # duplicates
        elif action < 0.9 and isinstance(container[key], dict):
            container[key][rng.choice(["hex", "tile", "rotation", "city", "company", "name", "nodes", "a", "b",
                                       "colour", "level", "count", "bogus"])] = random_scalar(rng)
        else:
            container[key] = copy.deepcopy(rng.choice([v for _, v in [(c, c[k]) for c, k in spots]]))
    return out


def huge(request: dict, rng: random.Random) -> dict:
    out = copy.deepcopy(request)
    board = out.setdefault("board", {})
    choice = rng.randrange(4)
    if choice == 0:
        board["tiles"] = [{"hex": "F9", "tile": "7", "rotation": rng.randint(0, 5)}] * rng.randint(201, 2000)
    elif choice == 1:
        board["tokens"] = [{"hex": "F9", "city": 0, "company": "X"}] * rng.randint(201, 2000)
    elif choice == 2:
        board["title"] = "custom"
        board["custom"] = {"hexes": [{"hex": f"A{2 * i + 1}", "code": "city=revenue:10"} for i in range(401)]}
    else:
        out.setdefault("company", {})["trains"] = [{"name": "2"}] * rng.randint(21, 500)
    return out


HUGE_NUMBERS = [2**31 - 1, -2**31, -1, -180, 10**9, 100_000_000, 1_500_000_000]


def hostile(request: dict, rng: random.Random) -> tuple[dict, bool]:
    """A valid request with one value out of every bound (issue 15): a huge string, a huge or negative
    number, a huge list, a tile code paying a huge or negative revenue. Returns the request and whether
    it must be INVALID_ARGUMENT (a string over every bound); the others may also be OK."""
    out = copy.deepcopy(request)
    spots = list(paths(out))
    strings = [(c, k) for c, k in spots if isinstance(c[k], str)]
    numbers = [(c, k) for c, k in spots if isinstance(c[k], int) and not isinstance(c[k], bool)]
    lists = [(c, k) for c, k in spots if isinstance(c[k], list) and c[k]]
    choice = rng.randrange(5)
    if choice == 0 and strings:
        container, key = rng.choice(strings)
        container[key] = "x" * rng.choice([5000, 20000, 100000])
        return out, True
    if choice == 1 and numbers:
        container, key = rng.choice(numbers)
        container[key] = rng.choice(HUGE_NUMBERS)
        return out, False
    if choice == 2 and lists:
        container, key = rng.choice(lists)
        container[key] = container[key] * (rng.randint(1500, 4000) // len(container[key]) + 1)
        return out, False
    codes = [(c, k) for c, k in strings if k == "code" and "revenue:" in c[k]]
    if choice == 3 and codes:
        container, key = rng.choice(codes)
        container[key] = re.sub(r"revenue:\d+", f"revenue:{rng.choice(HUGE_NUMBERS)}", container[key], count=1)
        return out, False
    if "board" in out:
        out["board"].setdefault("options", {})["k" * rng.choice([5000, 20000])] = "1"
    elif "holding" in out:     # Dividends
        out["company"] = "c" * 20000
    else:
        out["player"] = "p" * 20000
    return out, True


def encode(request: dict, message_type, rng: random.Random) -> bytes:
    """The mutant as wire bytes: through the message when it fits the schema; otherwise the fields that
    fit, with a field of the wrong wire type added (what a client with another schema would send)."""
    try:
        return json_format.ParseDict(request, message_type(), ignore_unknown_fields=True).SerializeToString()
    except (json_format.ParseError, ValueError, TypeError, OverflowError, RecursionError):
        field = rng.randint(1, 12)
        wire = rng.choice([0, 1, 2, 5])
        tag = bytes([(field << 3) | wire])
        payload = {0: b"\x96\x01", 1: bytes(8), 2: b"\x03abc", 5: bytes(4)}[wire]
        return tag + payload


def corrupt(data: bytes, rng: random.Random) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if not data:
            break
        i = rng.randrange(len(data))
        r = rng.random()
        if r < 0.5:
            data[i] = rng.randrange(256)
        elif r < 0.75:
            del data[i:]
        else:
            data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 5)))
    return bytes(data)


def make_requests(n: int, seed: int = 1830) -> list[tuple[str, bytes, str]]:
    rng = random.Random(seed)
    by_method = bases()
    out = []
    kinds = ["mutant", "mutant", "mutant", "corrupt", "random_bytes", "huge", "random_dict", "hostile",
             "run_routes_garbage"]
    run_routes = [e for e in by_method["Evaluate"] if "run_routes" in e]
    for i in range(n):
        method = rng.choice(list(METHODS))
        message_type = METHODS[method][0]
        base = rng.choice(by_method[method])
        kind = kinds[i % len(kinds)]
        if kind == "mutant":
            data = encode(mutate(base, rng), message_type, rng)
        elif kind == "corrupt":
            data = corrupt(json_format.ParseDict(base, message_type()).SerializeToString(), rng)
        elif kind == "random_bytes":
            data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 300)))
        elif kind == "hostile":
            mutant, must_fail = hostile(base, rng)
            data = encode(mutant, message_type, rng)
            kind = "hostile_string" if must_fail else "hostile"
        elif kind == "run_routes_garbage":
            mutant = run_routes_garbage(rng.choice(run_routes), rng)
            if rng.random() < 0.5:
                method, message_type = "Evaluate", revenue_pb2.EvaluateRequest
            else:
                method, message_type = "Dividends", revenue_pb2.DividendsRequest
                mutant = {"title": mutant["board"]["title"], "company": mutant["run_routes"].get("entity", ""),
                          "holding": {"share_price": [0, 6], "holders": [{"id": "Player 1", "shares": 10}]},
                          "evaluate": mutant}
            data = encode(mutant, message_type, rng)
        elif kind == "huge":
            method = rng.choice(["Solve", "Evaluate"])
            data = encode(huge(rng.choice(by_method[method]), rng), METHODS[method][0], rng)
        else:
            keys = ["board", "company", "routes", "deadline_ms", "stops", "links", "cubes", "players", "player",
                    "title", "tiles", "tokens", "custom", "trains", "ruleset", "top_k", "round", "max_level"]
            obj = {rng.choice(keys): random_scalar(rng) for _ in range(rng.randint(0, 5))}
            if rng.random() < 0.5:
                obj["board"] = {rng.choice(keys): random_scalar(rng) for _ in range(rng.randint(1, 4))}
            data = encode(obj, message_type, rng)
        out.append((method, data, kind))
    return out


def call(channel: grpc.Channel, method: str, data: bytes) -> grpc.StatusCode:
    path = f"/revenue.v1.RouteService/{method}"
    try:
        if METHODS[method][1]:
            for _ in channel.unary_stream(path)(data, timeout=30):
                pass
        else:
            channel.unary_unary(path)(data, timeout=30)
        return grpc.StatusCode.OK
    except grpc.RpcError as exc:
        return exc.code()


@pytest.mark.slow
def test_fuzz_every_answer_is_ok_or_invalid_argument():
    requests = make_requests(N_REQUESTS)
    assert len(requests) >= 2000
    errors_before = len(CALL_LOG.errors())
    with running(workers=2, max_queue=64, max_compute_ms=5000) as server:
        channel = grpc.insecure_channel(f"127.0.0.1:{server.port}",
                                        options=[("grpc.max_send_message_length", 64 * 1024 * 1024)])
        with ThreadPoolExecutor(max_workers=6) as pool:
            codes = list(pool.map(lambda r: call(channel, r[0], r[1]), requests))
        bad = [(r[0], r[2], c.name) for r, c in zip(requests, codes) if c not in ALLOWED]
        assert not bad, f"{len(bad)} answers were neither OK nor INVALID_ARGUMENT, e.g. {bad[:5]}"
        tally = Counter((r[2], c.name) for r, c in zip(requests, codes))
        # The fuzz reached the library, not only the decoder: both outcomes occur for mutants.
        assert tally[("mutant", "OK")] > 50 and tally[("mutant", "INVALID_ARGUMENT")] > 50, tally
        assert tally[("huge", "INVALID_ARGUMENT")] == sum(1 for r in requests if r[2] == "huge")
        # Every string over its bound is INVALID_ARGUMENT (never RESOURCE_EXHAUSTED from an error detail
        # that echoed it), and out-of-bound numbers and lists reached the checks.
        hostile_strings = [r for r in requests if r[2] == "hostile_string" and r[0] != "ListTitles"]
        assert len(hostile_strings) > 50
        assert tally[("hostile_string", "INVALID_ARGUMENT")] >= len(hostile_strings), tally
        assert tally[("hostile", "INVALID_ARGUMENT")] > 50, tally
        assert tally[("run_routes_garbage", "INVALID_ARGUMENT")] > 100, tally
        # Still up, and still right.
        health = health_pb2_grpc.HealthStub(channel)
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=5).status == \
            health_pb2.HealthCheckResponse.SERVING
        request = title_scenarios()[2].request
        answer = revenue_pb2.SolveResponse.FromString(channel.unary_unary("/revenue.v1.RouteService/Solve")(
            json_format.ParseDict(request, revenue_pb2.SolveRequest()).SerializeToString(), timeout=30))
        assert answer.optimal and answer.revenue == solve(request)["revenue"]
        assert server.service.admission.admitted == 0
        channel.close()
    assert len(CALL_LOG.errors()) == errors_before, CALL_LOG.errors()[errors_before:][:3]


@pytest.mark.parametrize("seed", [1, 2])
def test_fuzz_corpus_is_deterministic(seed):
    assert make_requests(50, seed) == make_requests(50, seed)


HTTP_PATHS = {"Solve": "/v1/solve", "Evaluate": "/v1/evaluate", "Deliveries": "/v1/deliveries",
              "Dividends": "/v1/dividends", "SolveStream": "/v1/solve:stream"}


def http_bodies(n: int, seed: int = 40) -> list[tuple[str, bytes, str]]:
    """JSON bodies of the shapes issue 40 found answered 500 or read wrong: mutants, typed garbage inside
    run_routes, lone surrogates in keys (at the top and nested), bodies that are no object, deep nesting."""
    rng = random.Random(seed)
    by_method = bases()
    run_routes = [e for e in by_method["Evaluate"] if "run_routes" in e]
    out = []
    for i in range(n):
        method = rng.choice(list(HTTP_PATHS))
        kind = ["mutant", "run_routes_garbage", "surrogate", "not_object", "deep"][i % 5]
        if kind == "mutant":
            body = json.dumps(mutate(rng.choice(by_method[method]), rng)).encode()
        elif kind == "run_routes_garbage":
            method = "Evaluate"
            body = json.dumps(run_routes_garbage(rng.choice(run_routes), rng)).encode()
        elif kind == "surrogate":
            request = copy.deepcopy(rng.choice(by_method[method]))
            container, _ = rng.choice(list(paths(request)) or [(request, None)])
            target = container if isinstance(container, dict) else request
            target[rng.choice(["\ud800", "\udfff", "a\udc00b"])] = typed_garbage(rng)
            body = json.dumps(request).encode()
        elif kind == "not_object":
            body = rng.choice([b"[]", b"[{}]", b"0", b"-1", b'"x"', b"true", b"null", b"[[]]"])
        else:
            depth = rng.choice([1000, 100_000])
            body = b'{"board": ' + b"[" * depth + b"]" * depth + b"}"
        out.append((method, body, kind))
    return out


def test_http_fuzz_every_answer_is_200_or_400():
    import httpx

    bodies = http_bodies(300)
    with running(workers=2, max_queue=64, max_compute_ms=5000, http_port=0) as server:
        with httpx.Client(base_url=f"http://127.0.0.1:{server.http_port}", timeout=30,
                          headers={"content-type": "application/json"}) as client:
            got = [(method, kind, client.post(HTTP_PATHS[method], content=body).status_code)
                   for method, body, kind in bodies]
            assert client.get("/healthz").status_code == 200
    bad = [g for g in got if g[2] not in (200, 400)]
    assert not bad, f"{len(bad)} answers were neither 200 nor 400, e.g. {bad[:5]}"
    tally = Counter((kind, status) for _, kind, status in got)
    assert tally[("not_object", 400)] == 60 and tally[("deep", 400)] == 60, tally
    assert tally[("run_routes_garbage", 400)] > 20, tally
