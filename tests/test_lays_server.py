"""Lays and Tokens through the service, over gRPC and HTTP, on real boards of 18xx.games game 29133 (1830):
the answers are the library's (revenue.value_lays, revenue.value_tokens); bad input is INVALID_ARGUMENT
naming the field; a deadline answers the moves valued by then, `complete` false."""
from __future__ import annotations

import json
import pathlib

import grpc
import pytest
from google.protobuf import json_format

import revenue
from revenue.v1 import moves_pb2

from .server_helpers import CALL_LOG, violations, wait_until
from .server_helpers import http, http_server, rpc  # noqa: F401  (gRPC and HTTP on one server: fixtures)
from .test_lays import _export, player_privates

GAMES = pathlib.Path(__file__).resolve().parent / "data" / "games" / "exports"
ROWS = [json.loads(line) for line in (GAMES / "1830_29133.lays.jsonl").read_text().splitlines()]
LAY = next(r for r in ROWS if r["action_id"] == 119)       # PRR, 2+2+3 trains, 23 legal lays
TOKEN = next(r for r in ROWS if r["action_id"] == 396)     # B&O, a 4 train, 6 legal tokens
PRIVATES = sorted(player_privates(_export("1830_29133"), LAY["action_id"]))


def body(row: dict, **extra) -> dict:
    """A LaysRequest or TokensRequest as JSON: the row's board and company, its cash on its own."""
    request = row["request"]
    company = {k: v for k, v in request["company"].items() if k != "cash"}
    return {"board": request["board"], "company": company, "cash": request["company"]["cash"], **extra}


def lays_request(**extra) -> moves_pb2.LaysRequest:
    return json_format.ParseDict(body(LAY, player_privates=PRIVATES, **extra), moves_pb2.LaysRequest())


def answer(message) -> dict:
    return json_format.MessageToDict(message, preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=True)


def library_moves(result: dict) -> list[dict]:
    return [{k: m[k] for k in m} for m in result["moves"]]


def check_agrees(got: dict, expected: dict, key: str) -> None:
    assert got["revenue"] == expected["base_revenue"] and got["complete"] and expected["complete"]
    assert got["legal"] == expected["legal"] == got["valued"]
    assert got[key] == library_moves(expected)


def test_lays_over_grpc_and_http_agree_with_the_library(rpc, http):
    expected = revenue.value_lays(LAY["request"], top=5, player_privates=PRIVATES)
    assert expected["legal"] == len(LAY["engine_legal"]) and len(expected["moves"]) == 5
    check_agrees(answer(rpc.Lays(lays_request(top=5), timeout=120)), expected, "lays")
    response = http.post("/v1/lays", json=body(LAY, player_privates=PRIVATES, top=5))
    assert response.status_code == 200, response.text
    check_agrees(response.json(), expected, "lays")
    every = answer(rpc.Lays(lays_request(), timeout=120))
    assert len(every["lays"]) == every["legal"] and all(m["gain"] >= 0 for m in every["lays"])
    played = LAY["played"]
    assert any((m["hex"], m["tile"], m["rotation"]) == (played["hex"], played["tile"], played["rotation"])
               for m in every["lays"])
    assert wait_until(lambda: CALL_LOG.calls("Lays")[-1]["code"] == "OK")
    assert CALL_LOG.calls("Lays")[-1]["complete"] is True


def test_no_player_privates_says_no_player_holds_one(rpc, http):
    """player_privates empty leaves every open private blocking; no_player_privates unblocks them all."""
    nobody = revenue.legal_lays(LAY["request"], player_privates=[])
    assert len(nobody) > len(revenue.legal_lays(LAY["request"]))
    request = json_format.ParseDict(body(LAY, no_player_privates=True), moves_pb2.LaysRequest())
    assert answer(rpc.Lays(request, timeout=120))["legal"] == len(nobody)
    response = http.post("/v1/lays", json=body(LAY, no_player_privates=True, top=1))
    assert response.status_code == 200 and response.json()["legal"] == len(nobody)
    both = http.post("/v1/lays", json=body(LAY, no_player_privates=True, player_privates=PRIVATES))
    assert both.status_code == 400 and "no_player_privates" in both.text


def test_tokens_over_grpc_and_http_agree_with_the_library(rpc, http):
    expected = revenue.value_tokens(TOKEN["request"])
    assert expected["legal"] == len(TOKEN["engine_legal"])
    message = json_format.ParseDict(body(TOKEN), moves_pb2.TokensRequest())
    check_agrees(answer(rpc.Tokens(message, timeout=120)), expected, "tokens")
    response = http.post("/v1/tokens", json=body(TOKEN))
    assert response.status_code == 200, response.text
    check_agrees(response.json(), expected, "tokens")


def test_cash_leaves_out_the_dearer_moves(rpc):
    poor = answer(rpc.Tokens(json_format.ParseDict(body(TOKEN, cash=0), moves_pb2.TokensRequest()), timeout=120))
    assert poor["legal"] == 0 and poor["tokens"] == [] and poor["complete"]


@pytest.mark.parametrize("change, field", [
    ({"top": -1}, "top"), ({"deadline_ms": -5}, "deadline_ms"), ({"cash": -1}, "cash"),
    ({"company": {"id": ""}}, "company.id"), ({"board": {"title": "no such title"}}, "board.title"),
])
def test_bad_input_is_invalid_argument_naming_the_field(rpc, http, change, field):
    message = json_format.ParseDict({**body(LAY), **change}, moves_pb2.LaysRequest())
    with pytest.raises(grpc.RpcError) as caught:
        rpc.Lays(message, timeout=60)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert any(name == field for name, _ in violations(caught.value)), violations(caught.value)
    response = http.post("/v1/tokens", json={**body(TOKEN), **change})
    assert response.status_code == 400, response.text
    fields = [v["field"] for d in response.json().get("details", []) for v in d.get("field_violations", [])]
    assert field in fields, response.text


def test_a_deadline_answers_what_was_valued_so_far(rpc, http):
    got = answer(rpc.Lays(lays_request(deadline_ms=1), timeout=60))
    assert not got["complete"] and got["valued"] < got["legal"] == len(LAY["engine_legal"])
    assert len(got["lays"]) == got["valued"]
    response = http.post("/v1/lays", json=body(LAY, player_privates=PRIVATES, deadline_ms=1))
    assert response.status_code == 200 and response.json()["complete"] is False


def test_suggest_carries_the_builders_best_lays_and_tokens(rpc, http):
    from revenue.v1 import replay_pb2

    from .test_next_moves import ROW, _before

    export = _before(ROW["action_id"])       # 1889: KO, the last of its operating round, about to lay
    expected = revenue.suggest(export)
    got = answer(rpc.Suggest(replay_pb2.SuggestRequest(export_json=json.dumps(export)), timeout=120))
    assert got["waiting_for"] == expected["waiting_for"] and got["builder"] == "KO"
    assert got["lays"]["lays"] == expected["lays"]["moves"] and got["lays"]["legal"] == len(ROW["engine_legal"])
    assert got["tokens"]["tokens"] == expected["tokens"]["moves"]
    response = http.post("/v1/suggest", json={"export": export})
    assert response.status_code == 200 and response.json()["lays"]["lays"] == got["lays"]["lays"]


def test_the_python_client_values_lays_and_tokens(server):
    from revenue.client import RouteClient, ServiceError

    with RouteClient(f"127.0.0.1:{server.port}") as client:
        got = client.lays(body(LAY, player_privates=PRIVATES, top=3), timeout=120)
        assert got["complete"] and len(got["lays"]) == 3 and got["legal"] == len(LAY["engine_legal"])
        assert client.tokens(body(TOKEN), timeout=120)["legal"] == len(TOKEN["engine_legal"])
        with pytest.raises(ServiceError) as caught:
            client.lays(body(LAY, top=-1), timeout=60)
        assert [field for field, _ in caught.value.violations] == ["top"]


def test_the_second_lay_of_an_1860_turn(rpc, http):
    from .test_next_moves import second_lay_request

    request, _ = second_lay_request()
    expected = revenue.value_lays(request, second=True)
    message = json_format.ParseDict({**request, "second_lay": True}, moves_pb2.LaysRequest())
    got = answer(rpc.Lays(message, timeout=120))
    assert got["lays"] == library_moves(expected) and got["legal"] == expected["legal"]
    response = http.post("/v1/lays", json={**request, "second_lay": True})
    assert response.status_code == 200 and response.json()["lays"] == got["lays"]
