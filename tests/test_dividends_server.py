"""The Dividends call of the gRPC service equals the library, and names the field of bad input."""
from __future__ import annotations

import json

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from revenue import api
from revenue.payout import dividends
from revenue.v1 import revenue_pb2

from .server_helpers import EXAMPLES, running, stub


@pytest.fixture(scope="module")
def rpc():
    with running(workers=1, max_queue=4, max_compute_ms=10_000) as server:
        service, channel = stub(server)
        yield service
        channel.close()


def test_dividends_equals_library(rpc):
    raw = json.loads((EXAMPLES / "dividends_1860.json").read_text())
    got = rpc.Dividends(json_format.ParseDict(raw, revenue_pb2.DividendsRequest()), timeout=30)
    assert got == api.to_message(dividends(raw), revenue_pb2.DividendsResponse)
    assert [o.kind for o in got.options] == ["payout", "withhold"]
    assert got.options[0].company_amount == 20 and got.options[0].price_after == 62


def test_solve_with_a_holding_answers_the_dividends(rpc):
    request = json.loads((EXAMPLES / "solve_1889.json").read_text())
    request["holding"] = {"share_price": [5, 2], "holders": [{"id": "Player 3", "shares": 5}]}
    got = rpc.Solve(json_format.ParseDict(request, revenue_pb2.SolveRequest()), timeout=30)
    # 390: 39 a share, the player's 5 shares 195
    assert got.revenue == 390 and got.dividends[0].kind == "payout" and got.dividends[0].holders[0].amount == 195


def test_bad_dividends_name_the_field(rpc):
    raw = json.loads((EXAMPLES / "dividends_1889.json").read_text())
    raw["holding"]["share_price"] = [20, 0]
    with pytest.raises(grpc.RpcError) as err:
        rpc.Dividends(json_format.ParseDict(raw, revenue_pb2.DividendsRequest()), timeout=10)
    status = rpc_status.from_call(err.value)
    assert status.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    bad = error_details_pb2.BadRequest()
    assert status.details[0].Unpack(bad)
    assert bad.field_violations[0].field == "holding.share_price"
