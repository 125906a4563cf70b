"""Replay and Suggest through the service, over gRPC and HTTP, on a real game (1830, 18xx.games game
29133): a turn per standing run_routes, each best run at least what the engine paid and proved; the
company about to run named by Suggest; a bad action named under `export`."""
from __future__ import annotations

import copy
import json
import pathlib
import time

import grpc
import httpx
import pytest
from google.protobuf import json_format, struct_pb2

from revenue.v1 import replay_pb2

from .server_helpers import CALL_LOG, violations, wait_until
from .server_helpers import http, http_server, rpc  # noqa: F401  (gRPC and HTTP on one server: fixtures)
from .test_game_analysis import long_turn

GAMES = pathlib.Path(__file__).resolve().parent / "data" / "games" / "exports"
EXPORT = json.loads((GAMES / "1830_29133.json").read_text())
TURNS = [json.loads(line) for line in (GAMES / "1830_29133.turns.jsonl").read_text().splitlines()]


def struct(export: dict) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(export)
    return message


def before(action_id: int) -> dict:
    """The export cut just before the action of id `action_id`: the game as it was then, in progress."""
    export = copy.deepcopy(EXPORT)
    export["status"] = "active"
    del export["result"], export["game_end_reason"]
    index = next(i for i, a in enumerate(export["actions"]) if a.get("id") == action_id)
    export["actions"] = export["actions"][:index]
    return export


def broken() -> tuple[dict, int]:
    """The export with one action that is no object, and its index."""
    export = copy.deepcopy(EXPORT)
    index = 40
    export["actions"][index] = 7
    return export, index


def sse(response: httpx.Response) -> list[tuple[str, dict]]:
    events, kind = [], "message"
    for line in response.iter_lines():
        if line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("data:"):
            events.append((kind, json.loads(line[5:])))
            kind = "message"
    return events


def check_turns(turns: list[dict]) -> None:
    assert [t["action_id"] for t in turns] == [t["action_id"] for t in TURNS]
    for turn, known in zip(turns, TURNS):
        assert turn["company"] == known["company"]
        assert turn["best"]["optimal"], turn["action_id"]
        assert turn["best"]["revenue"] >= known["engine_revenue"], turn["action_id"]
        assert turn["left"] == turn["best"]["revenue"] - turn["played"]["revenue"]
        assert turn["request"]["board"]["title"] == "1830"
        assert turn["round"].startswith("OR ")


def test_grpc_replay_streams_a_turn_per_run(rpc):
    stream = rpc.Replay(replay_pb2.ReplayRequest(export=struct(EXPORT)), timeout=300)
    turns = [json_format.MessageToDict(t, preserving_proto_field_name=True,
                                       always_print_fields_with_no_presence=True) for t in stream]
    check_turns(turns)
    assert CALL_LOG.calls("Replay")[-1]["turns"] == len(TURNS)


def test_grpc_suggest_names_the_company_about_to_run(rpc):
    known = TURNS[3]
    answer = rpc.Suggest(replay_pb2.SuggestRequest(export=struct(before(known["action_id"]))), timeout=120)
    assert answer.company == known["company"] and not answer.waiting_for
    assert answer.best.optimal and answer.best.revenue >= known["engine_revenue"]
    assert answer.run_routes.entity == known["company"] and answer.run_routes.type == "run_routes"
    # the board of that moment, for the page to draw
    assert answer.request.board.title == "1830" and answer.request.board.tiles
    assert answer.request.company.id == known["company"]


def test_grpc_bad_action_is_named(rpc):
    export, index = broken()
    with pytest.raises(grpc.RpcError) as caught:
        list(rpc.Replay(replay_pb2.ReplayRequest(export=struct(export)), timeout=120))
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert violations(caught.value)[0][0] == f"export.actions[{index}]"
    with pytest.raises(grpc.RpcError) as caught:
        rpc.Suggest(replay_pb2.SuggestRequest(export=struct(export)), timeout=120)
    assert violations(caught.value)[0][0] == f"export.actions[{index}]"


def test_a_bad_action_after_some_turns_ends_the_stream(rpc, http):
    export, index = copy.deepcopy(EXPORT), 100    # after the first run (action 95), before the second (102)
    export["actions"][index]["type"] = "launch_rocket"
    stream = rpc.Replay(replay_pb2.ReplayRequest(export=struct(export)), timeout=120)
    first = next(stream)
    assert first.action_id == TURNS[0]["action_id"]
    with pytest.raises(grpc.RpcError) as caught:
        list(stream)
    assert violations(caught.value)[0][0] == f"export.actions[{index}]"
    with http.stream("POST", "/v1/replay", json={"export": export}) as response:
        assert response.status_code == 200
        events = sse(response)
    assert [kind for kind, _ in events] == ["message", "error"]
    assert events[1][1]["code"] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert events[1][1]["message"].startswith(f"export.actions[{index}]")


def test_cancel_ends_a_replay(rpc):
    stream = rpc.Replay(replay_pb2.ReplayRequest(export=struct(EXPORT)), timeout=120)
    next(stream)
    stream.cancel()
    assert wait_until(lambda: CALL_LOG.calls("Replay")[-1]["code"] == "CANCELLED")
    assert CALL_LOG.calls("Replay")[-1]["title"] == "1830"


def test_cancel_stops_a_turns_search(rpc, monkeypatch):
    seen = long_turn(monkeypatch)      # the third turn searches for many seconds (the compute cap: 10 s)
    stream = rpc.Replay(replay_pb2.ReplayRequest(export=struct(EXPORT), deadline_ms=30_000), timeout=120)
    next(stream), next(stream)
    assert seen["started"].wait(30)
    time.sleep(0.3)
    stream.cancel()
    assert wait_until(lambda: seen["seconds"] is not None)
    assert seen["seconds"] < 2.0, seen
    assert wait_until(lambda: CALL_LOG.calls("Replay")[-1]["code"] == "CANCELLED")


def test_cancel_stops_a_suggestions_search(rpc, monkeypatch):
    seen = long_turn(monkeypatch, at=0)
    future = rpc.Suggest.future(replay_pb2.SuggestRequest(export=struct(before(TURNS[3]["action_id"])),
                                                          deadline_ms=30_000), timeout=120)
    assert seen["started"].wait(30)
    time.sleep(0.3)
    future.cancel()
    assert wait_until(lambda: seen["seconds"] is not None)
    assert seen["seconds"] < 2.0, seen
    assert wait_until(lambda: CALL_LOG.calls("Suggest")[-1]["code"] == "CANCELLED")


def test_the_call_deadline_ends_a_replay(rpc, monkeypatch):
    # (a whole game replays within the deadline once its boards' graphs are built: a turn searches long)
    seen = long_turn(monkeypatch)
    with pytest.raises(grpc.RpcError) as caught:
        list(rpc.Replay(replay_pb2.ReplayRequest(export_json=json.dumps(EXPORT), deadline_ms=30_000), timeout=1.0))
    assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert wait_until(lambda: seen["seconds"] is not None) and seen["seconds"] < 2.0, seen
    assert wait_until(lambda: CALL_LOG.calls("Replay")[-1]["code"] == "DEADLINE_EXCEEDED")


def test_too_many_actions_is_invalid_argument(rpc, server):
    export = {"title": "1830", "actions": [{}] * (server.config.limits.actions + 1)}
    with pytest.raises(grpc.RpcError) as caught:
        rpc.Suggest(replay_pb2.SuggestRequest(export=struct(export)), timeout=60)
    assert violations(caught.value)[0][0] == "export.actions"


def test_http_replay_answers_server_sent_events(http):
    with http.stream("POST", "/v1/replay", json={"export": EXPORT}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse(response)
    assert {kind for kind, _ in events} == {"message"}
    check_turns([data for _, data in events])


def test_http_suggest_and_a_bad_export(http):
    known = TURNS[5]
    response = http.post("/v1/suggest", json={"export": before(known["action_id"])})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["company"] == known["company"] and answer["run_routes"]["entity"] == known["company"]
    assert answer["best"]["revenue"] >= known["engine_revenue"]
    export, index = broken()
    for path in ("/v1/suggest", "/v1/replay"):
        response = http.post(path, json={"export": export})
        assert response.status_code == 400, path
        body = response.json()
        assert f"export.actions[{index}]" in body["message"]


def test_suggest_is_quick_on_a_warm_server(rpc, http):
    export = before(TURNS[-1]["action_id"])
    text = json.dumps(export)
    requests = {"struct": replay_pb2.SuggestRequest(export=struct(export)),
                "export_json": replay_pb2.SuggestRequest(export_json=text)}
    for kind, request in requests.items():
        rpc.Suggest(request, timeout=120)
        times = []
        for _ in range(5):
            started = time.perf_counter()
            answer = rpc.Suggest(request, timeout=60)
            times.append(time.perf_counter() - started)
        assert answer.company == TURNS[-1]["company"]
        print(f"gRPC Suggest ({kind}, {len(export['actions'])} actions), warm: best of 5 {min(times) * 1000:.1f} ms")
    times = []
    for _ in range(5):
        started = time.perf_counter()
        response = http.post("/v1/suggest", content=b'{"export": ' + text.encode() + b"}",
                             headers={"content-type": "application/json"})
        times.append(time.perf_counter() - started)
    assert response.json()["company"] == TURNS[-1]["company"]
    print(f"HTTP /v1/suggest, warm: best of 5 {min(times) * 1000:.1f} ms")


def test_export_json_is_read_as_the_export(rpc):
    known = TURNS[3]
    answer = rpc.Suggest(replay_pb2.SuggestRequest(export_json=json.dumps(before(known["action_id"]))), timeout=120)
    assert answer.company == known["company"]
    export, index = broken()
    with pytest.raises(grpc.RpcError) as caught:
        list(rpc.Replay(replay_pb2.ReplayRequest(export_json=json.dumps(export)), timeout=120))
    assert violations(caught.value)[0][0] == f"export.actions[{index}]"
    for request, field in ((replay_pb2.SuggestRequest(export_json="{"), "export_json"),
                           (replay_pb2.SuggestRequest(export_json="[]"), "export_json"),
                           (replay_pb2.SuggestRequest(export_json="{}", export=struct({"a": 1})), "export_json"),
                           (replay_pb2.SuggestRequest(export_json="{}", deadline_ms=-1), "deadline_ms"),
                           (replay_pb2.SuggestRequest(export_json=json.dumps({"actions": [{}] * 20_001})),
                            "export.actions")):
        with pytest.raises(grpc.RpcError) as caught:
            rpc.Suggest(request, timeout=60)
        assert violations(caught.value)[0][0] == field
