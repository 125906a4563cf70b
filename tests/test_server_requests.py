"""How the service reads a request message (server/board_cache.py Boards, server/protojson.py request_dict):
the dict the library gets is json_format.MessageToDict's, key order included, on random messages of
every kind of field and on the games' boards; and the size check on the message (sizes_fit) never
passes what the walk over the dict (revenue.bounds.size_violations) would report, so a request over
a limit gets the error it always got, field for field."""
from __future__ import annotations

import json
import random

import pytest
from google.protobuf import json_format

from benchmarks.load import fresh_boards
from revenue.bounds import size_violations
from revenue.errors import InputError
from revenue.server.protojson import request_dict
from revenue.server.board_cache import Boards
from revenue.server.limits import Limits, check_limits, key_sizes, sizes_fit
from revenue.v1 import dividends_pb2, revenue_pb2, steam_pb2
from tests.test_http_codec import OTHER_TYPES, SERVICE_TYPES, fill

REQUEST_TYPES = [revenue_pb2.SolveRequest, revenue_pb2.EvaluateRequest, revenue_pb2.DividendsRequest,
                 revenue_pb2.Board, steam_pb2.DeliveriesRequest, dividends_pb2.Holding]


def reference(message) -> dict:
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


@pytest.mark.parametrize("message_type", SERVICE_TYPES + OTHER_TYPES, ids=lambda t: t.DESCRIPTOR.full_name)
def test_random_messages_read_as_json_format_reads_them(message_type):
    rng = random.Random("request " + message_type.DESCRIPTOR.full_name)
    for n in range(61):
        message = message_type()
        if n:
            fill(rng, message)
        try:
            want = json.dumps(reference(message))
        except Exception as exc:
            with pytest.raises(type(exc)):
                request_dict(message)
            continue
        assert json.dumps(request_dict(message)) == want
        if "board" in message.DESCRIPTOR.fields_by_name:
            rest = reference(message)
            rest.pop("board", None)
            assert json.dumps(request_dict(message, without="board")) == json.dumps(rest)


GAME_BOARDS = [request for _, request in fresh_boards(120)]


def test_the_games_boards_read_as_json_format_reads_them_and_fit():
    for request in GAME_BOARDS:
        message = json_format.ParseDict(request, revenue_pb2.SolveRequest())
        assert json.dumps(request_dict(message)) == json.dumps(reference(message))
        assert sizes_fit(message, Limits())      # the cheap check passes real boards: no walk


def _stretch(rng: random.Random, message, limits: Limits) -> None:
    """Make some strings and lists of `message` (and its messages) about as long as the limits: just
    within, or just beyond."""
    for field, value in message.ListFields():
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            if field.message_type.fields_by_name["value"].message_type is None and rng.random() < 0.5:
                key = "k" * rng.choice([1, limits.name, limits.name + 1])
                value[key] = "v" * rng.choice([0, limits.name + 1, limits.text, limits.text + 1])
        elif field.type == field.TYPE_MESSAGE:
            for item in (value if field.is_repeated else [value]):
                _stretch(rng, item, limits)
            if field.is_repeated and rng.random() < 0.3:
                for _ in range(rng.choice([limits.entries - len(value), limits.entries + 1 - len(value)])):
                    value.add()
        elif field.is_repeated and field.type != field.TYPE_STRING:
            if rng.random() < 0.5:      # packed numbers: a byte each, a long list in few bytes
                value.extend([value[0]] * (limits.entries - len(value) + rng.choice([0, 1])))
        elif field.type == field.TYPE_STRING and rng.random() < 0.5:
            size = rng.choice([limits.name, limits.name + 1, limits.text, limits.text + 1])
            if field.is_repeated:
                value.append("s" * size)
                if rng.random() < 0.3:
                    value.extend(["t"] * (limits.entries - len(value) + rng.choice([0, 1])))
            else:
                setattr(message, field.name, "s" * size)


@pytest.mark.parametrize("message_type", REQUEST_TYPES, ids=lambda t: t.DESCRIPTOR.full_name)
def test_sizes_fit_never_passes_what_the_walk_reports(message_type):
    limits = Limits(name=20, text=40, entries=12)
    rng = random.Random("sizes " + message_type.DESCRIPTOR.full_name)
    passed = walked = 0
    for _ in range(300):
        message = message_type()
        fill(rng, message)
        _stretch(rng, message, limits)
        found = size_violations(reference(message), "", [], text=limits.text, name=limits.name,
                                entries=limits.entries)
        if sizes_fit(message, limits):
            assert found == [], message
            passed += 1
        else:
            walked += 1
    assert walked
    # both outcomes were tried, where the cheap check can pass (it leaves the types that can hold a
    # google.protobuf.ListValue, an Evaluate's run_routes, to the walk)
    assert passed or key_sizes(message_type.DESCRIPTOR) is None


def test_a_long_list_in_few_bytes_is_walked():
    """Packed numbers take a byte each: a message of few bytes may still hold a list over the limit."""
    limits = Limits(name=20, text=40, entries=12)
    message = revenue_pb2.SolveRequest(holding=dividends_pb2.Holding(share_price=[1] * 13))
    assert message.holding.ByteSize() <= limits.name
    assert size_violations(reference(message), "", [], text=limits.text, name=limits.name, entries=limits.entries)
    assert not sizes_fit(message, limits)


@pytest.mark.parametrize("message_type", [revenue_pb2.SolveRequest, revenue_pb2.EvaluateRequest],
                         ids=lambda t: t.DESCRIPTOR.full_name)
def test_a_request_over_a_limit_gets_the_error_of_the_whole_walk(message_type):
    """Boards.request against the check of old (the whole dict, the walk included): the same dict, or
    the same error with the same fields in the same order."""
    limits = Limits(name=20, text=40, entries=12, tiles=4, tokens=4, trains=3, options=3, privates=3)
    rng = random.Random("errors " + message_type.DESCRIPTOR.full_name)
    outcomes = set()
    for _ in range(300):
        message = message_type()
        fill(rng, message)
        _stretch(rng, message, limits)
        want = reference(message)
        try:
            if "board" in want:
                check_limits({"board": want["board"]}, limits)
            board = want.pop("board", None)
            check_limits(want, limits)
            if board is not None:
                want["board"] = board
            expected = ("ok", json.dumps(want))
        except InputError as exc:
            expected = ("error", exc.violations)
        try:
            got = ("ok", json.dumps(Boards(limits).request(message), default=dict))
        except InputError as exc:
            got = ("error", exc.violations)
        assert got == expected
        outcomes.add(got[0])
    assert outcomes == {"ok", "error"}
