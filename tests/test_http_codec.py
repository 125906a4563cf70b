"""The JSON of HTTP calls, written and read faster than json_format and json do it, with the same result.

server/protojson.py writes a message as json_format.MessageToDict(preserving_proto_field_name=True,
always_print_fields_with_no_presence=True) does, the keys in the same order: on the service's answers
and on random messages of every kind of field (the service's messages, a proto3 and a proto2 message
made here, and the well-known types), and it fails where json_format fails, with its error.

server/http.py reads a request body as json.loads does, keeping the text of its board as the key of the
boards it has parsed before: the same object or the same error for any body, and the same message; and
it writes an answer's headers and body in one write."""
from __future__ import annotations

import asyncio
import json
import math
import random

import pytest
from google.protobuf import (any_pb2, descriptor_pb2, descriptor_pool, duration_pb2, json_format, message_factory,
                             struct_pb2, timestamp_pb2, type_pb2, wrappers_pb2)
from google.protobuf.descriptor import FieldDescriptor as FD
from google.rpc import error_details_pb2, status_pb2

from benchmarks.scenarios import title_scenarios
from revenue import api
from revenue.cache import JSON_BOARD_CACHE_BYTES
from revenue.errors import InputError
from revenue.server.http import JsonBoards, decode
from revenue.server.protojson import message_dict
from revenue.server.calls import BadRequest
from revenue.server.service import RouteService
from revenue.optimizer import solve
from revenue.v1 import dividends_pb2, revenue_pb2, steam_pb2


def reference(message):
    return json_format.MessageToDict(message, preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=True)


def same(message) -> None:
    """message_dict equals json_format's dict, key order included (compared as JSON text)."""
    try:
        want = json.dumps(reference(message))
    except Exception as exc:
        with pytest.raises(type(exc)):
            message_dict(message)
        return
    assert json.dumps(message_dict(message)) == want


def _made_here():
    """A proto3 and a proto2 message type with every kind of field: maps with int, bool and message
    values, oneofs, optional, int64, float, double, bytes, open and closed enums, nested messages."""
    pool = descriptor_pool.DescriptorPool()
    for dep in (struct_pb2, timestamp_pb2, wrappers_pb2):
        file = descriptor_pb2.FileDescriptorProto()
        dep.DESCRIPTOR.CopyToProto(file)
        pool.Add(file)
    types = {}
    for syntax in ("proto3", "proto2"):
        file = descriptor_pb2.FileDescriptorProto(name=f"made_{syntax}.proto", package=f"made.{syntax}",
                                                  syntax=syntax, dependency=["google/protobuf/struct.proto",
                                                                             "google/protobuf/timestamp.proto",
                                                                             "google/protobuf/wrappers.proto"])
        enum = file.enum_type.add(name="Colour")
        for i, name in enumerate(("COLOUR_UNSET", "RED", "GREEN")):
            enum.value.add(name=name, number=i * 3)
        m = file.message_type.add(name="All")
        label = {"one": FD.LABEL_OPTIONAL, "many": FD.LABEL_REPEATED}
        number = iter(range(1, 100))

        def add(name, kind, many=False, type_name="", oneof=None, proto3_optional=False):
            f = m.field.add(name=name, number=next(number), type=kind, label=label["many" if many else "one"])
            if type_name:
                f.type_name = type_name
            if oneof is not None:
                f.oneof_index = oneof
            if proto3_optional:
                f.proto3_optional = True
            return f

        scalars = {"i32": FD.TYPE_INT32, "i64": FD.TYPE_INT64, "u32": FD.TYPE_UINT32, "u64": FD.TYPE_UINT64,
                   "s32": FD.TYPE_SINT32, "f64": FD.TYPE_DOUBLE, "f32": FD.TYPE_FLOAT, "flag": FD.TYPE_BOOL,
                   "text": FD.TYPE_STRING, "blob": FD.TYPE_BYTES}
        for name, kind in scalars.items():
            add(name, kind)
            add(name + "_list", kind, many=True)
        add("colour", FD.TYPE_ENUM, type_name=f".made.{syntax}.Colour")
        add("colours", FD.TYPE_ENUM, many=True, type_name=f".made.{syntax}.Colour")
        add("child", FD.TYPE_MESSAGE, type_name=f".made.{syntax}.All")
        add("children", FD.TYPE_MESSAGE, many=True, type_name=f".made.{syntax}.All")
        for wkt in ("Struct", "Value", "ListValue", "Timestamp", "Int64Value", "StringValue"):
            add(wkt.lower(), FD.TYPE_MESSAGE, type_name=f".google.protobuf.{wkt}")
        add("values", FD.TYPE_MESSAGE, many=True, type_name=".google.protobuf.Value")
        m.oneof_decl.add(name="choice")
        add("choice_text", FD.TYPE_STRING, oneof=0)
        add("choice_child", FD.TYPE_MESSAGE, type_name=f".made.{syntax}.All", oneof=0)
        if syntax == "proto3":
            m.oneof_decl.add(name="_maybe")
            add("maybe", FD.TYPE_INT32, oneof=1, proto3_optional=True)
        for key_name, key_kind in (("string", FD.TYPE_STRING), ("int", FD.TYPE_INT64), ("bool", FD.TYPE_BOOL)):
            for value_name, value_kind, value_type in (("int", FD.TYPE_INT32, ""), ("colour", FD.TYPE_ENUM, f".made.{syntax}.Colour"),
                                                       ("child", FD.TYPE_MESSAGE, f".made.{syntax}.All")):
                entry = m.nested_type.add(name=f"By{key_name.title()}{value_name.title()}Entry")
                entry.options.map_entry = True
                entry.field.add(name="key", number=1, type=key_kind, label=FD.LABEL_OPTIONAL)
                v = entry.field.add(name="value", number=2, type=value_kind, label=FD.LABEL_OPTIONAL)
                if value_type:
                    v.type_name = value_type
                add(f"by_{key_name}_{value_name}", FD.TYPE_MESSAGE, many=True,
                    type_name=f".made.{syntax}.All.By{key_name.title()}{value_name.title()}Entry")
        pool.Add(file)
        types[syntax] = message_factory.GetMessageClass(pool.FindMessageTypeByName(f"made.{syntax}.All"))
    return types


MADE = _made_here()
SERVICE_TYPES = [m for module in (revenue_pb2, steam_pb2, dividends_pb2)
                 for m in (getattr(module, n) for n in module.DESCRIPTOR.message_types_by_name)]
OTHER_TYPES = [MADE["proto3"], MADE["proto2"], type_pb2.Type, type_pb2.Field, descriptor_pb2.FileDescriptorProto,
               status_pb2.Status, struct_pb2.Struct, struct_pb2.Value, struct_pb2.ListValue, timestamp_pb2.Timestamp,
               duration_pb2.Duration, wrappers_pb2.DoubleValue, any_pb2.Any]


def _scalar(rng: random.Random, field):
    kind = field.type
    if kind in (FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32):
        return rng.choice([0, 1, -1, 7, 2**31 - 1, -2**31])
    if kind in (FD.TYPE_INT64, FD.TYPE_SINT64, FD.TYPE_SFIXED64):
        return rng.choice([0, 1, -5, 2**53 + 1, 2**63 - 1, -2**63])
    if kind in (FD.TYPE_UINT32, FD.TYPE_FIXED32):
        return rng.choice([0, 1, 2**32 - 1])
    if kind in (FD.TYPE_UINT64, FD.TYPE_FIXED64):
        return rng.choice([0, 3, 2**64 - 1])
    if kind in (FD.TYPE_DOUBLE, FD.TYPE_FLOAT):
        return rng.choice([0.0, -0.0, 1.5, 0.1, 1e300 if kind == FD.TYPE_DOUBLE else 3.4e38, -2.5e-8,
                           math.inf, -math.inf, math.nan])
    if kind == FD.TYPE_BOOL:
        return rng.random() < 0.5
    if kind == FD.TYPE_STRING:
        return rng.choice(["", "D10-0", "Köln ✓", "a\"b\\c\n", "\u2028"])
    if kind == FD.TYPE_BYTES:
        return rng.choice([b"", b"\x00\xff", b"route"])
    if kind == FD.TYPE_ENUM:
        numbers = [v.number for v in field.enum_type.values]
        if not field.enum_type.is_closed and rng.random() < 0.2:
            return 99        # an open enum's unknown value, written as the number
        return rng.choice(numbers)
    raise AssertionError(kind)


def _value(rng: random.Random, message: struct_pb2.Value, depth: int) -> None:
    which = rng.choice(["null", "number", "string", "bool", "list", "struct", "none"] if depth < 3 else
                       ["number", "string", "bool", "none"])
    if which == "null":
        message.null_value = struct_pb2.NULL_VALUE
    elif which == "number":
        message.number_value = rng.choice([0.0, 2.5, -1e20, 7.0] + ([math.inf, math.nan] if rng.random() < 0.05 else []))
    elif which == "string":
        message.string_value = rng.choice(["", "F2", "H4 0.1", "ü"])
    elif which == "bool":
        message.bool_value = rng.random() < 0.5
    elif which == "list":
        message.list_value.SetInParent()
        for _ in range(rng.randrange(4)):
            _value(rng, message.list_value.values.add(), depth + 1)
    elif which == "struct":
        message.struct_value.SetInParent()
        for key in rng.sample(["a", "b", "c", "d"], rng.randrange(4)):
            _value(rng, message.struct_value.fields[key], depth + 1)


def fill(rng: random.Random, message, depth: int = 0) -> None:
    """Set a random selection of the fields of `message` (nested messages while depth allows)."""
    name = message.DESCRIPTOR.full_name
    if name == "google.protobuf.Value":
        _value(rng, message, depth)
        return
    if name == "google.protobuf.ListValue":
        for _ in range(rng.randrange(4)):
            _value(rng, message.values.add(), depth + 1)
        return
    if name == "google.protobuf.Struct":
        for key in rng.sample(["x", "y", "z"], rng.randrange(4)):
            _value(rng, message.fields[key], depth + 1)
        return
    if name == "google.protobuf.Any":
        if rng.random() < 0.7:
            message.Pack(error_details_pb2.BadRequest(field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field="board.tiles[0]", description="x")]))
        return
    if name == "google.protobuf.Timestamp":
        message.seconds, message.nanos = rng.choice([(0, 0), (1_700_000_000, 5000)])
        return
    if name == "google.protobuf.Duration":
        message.seconds, message.nanos = rng.choice([(0, 0), (3, 500_000_000), (-2, 0)])
        return
    for field in message.DESCRIPTOR.fields:
        if rng.random() < 0.4:
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            key_field, value_field = field.message_type.fields
            target = getattr(message, field.name)
            for _ in range(rng.randrange(3)):
                key = _scalar(rng, key_field)
                if value_field.message_type is not None:
                    if depth < 2:
                        fill(rng, target[key], depth + 1)
                else:
                    target[key] = _scalar(rng, value_field)
        elif field.is_repeated:
            target = getattr(message, field.name)
            for _ in range(rng.randrange(4)):
                if field.message_type is not None:
                    if depth < 2:
                        fill(rng, target.add(), depth + 1)
                else:
                    target.append(_scalar(rng, field))
        elif field.message_type is not None:
            if depth < 3:
                getattr(message, field.name).SetInParent()
                fill(rng, getattr(message, field.name), depth + 1)
        else:
            setattr(message, field.name, _scalar(rng, field))


@pytest.mark.parametrize("message_type", SERVICE_TYPES + OTHER_TYPES, ids=lambda t: t.DESCRIPTOR.full_name)
def test_random_messages_as_json_format_writes_them(message_type):
    rng = random.Random(message_type.DESCRIPTOR.full_name)
    same(message_type())
    for _ in range(60):
        message = message_type()
        fill(rng, message)
        same(message)


def test_the_service_answers_as_json_format_writes_them():
    service = RouteService(workers=1)
    for scenario in title_scenarios():
        request = service.boards.request(json_format.ParseDict(scenario.request, revenue_pb2.SolveRequest()))
        same(api.to_message(solve(request, deadline=30), revenue_pb2.SolveResponse))
    same(service.titles())
    service.admission.shutdown()


def test_an_error_is_json_formats_own():
    bad = struct_pb2.Value(number_value=math.inf)     # json_format refuses it: it would read back as a string
    with pytest.raises(ValueError):
        reference(bad)
    with pytest.raises(ValueError):
        message_dict(bad)
    enum = MADE["proto2"]()
    enum.colours.append(3)
    assert message_dict(enum)["colours"] == ["RED"]


# ---- reading a request body --------------------------------------------------------------------------------

BOARD = title_scenarios()[1].request["board"]
BODIES = [
    b"", b"  ", b"{}", b" { } ", b"[]", b"null", b"7", b'"x"', b"{", b"}", b'{"a"}', b'{"a":}', b'{"a":1,}', b'{,}',
    b'{"a":1 "b":2}', b'{"a":1}x', b'{"a":1}{}', b'{a:1}', b"{'a':1}", b'{"board":{}}', b'{"board":[]}',
    b'{"board":null,"company":{"id":"PRR"}}', b'{"board":{"title":"1830"},"board":{"title":"1889"}}',
    b'\t\n\r {\n "board" :\t{"title" : "1830"} ,\r\n "deadline_ms": 5 }\n', b'{"board":{"title":"1830"}}  \x00',
    b'{"board":{"title":"K\xc3\xb6ln \\u00e9 \\ud83d"}}', b'{"board":{"title":"\xff"}}', b'\xef\xbb\xbf{"a":1}',
    '{"board":{"title":"1830"}}'.encode("utf-16"), '{"a":[1,2]}'.encode("utf-32-le"), b'{"a":NaN,"b":-Infinity}',
    b'{"a":1e400,"b":-0,"c":1.5E+3}', b"[" * 100_000 + b"]" * 100_000, b'{"a":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    json.dumps({"company": {"id": "PRR"}, "board": BOARD}).encode(),
    json.dumps({"board": BOARD, "company": {"id": "PRR"}}, indent=3).encode(),
]


def _outcome(read, body):
    try:
        return ("ok", read(body))
    except Exception as exc:
        return ("error", type(exc))


@pytest.mark.parametrize("body", BODIES, ids=range(len(BODIES)))
def test_a_body_reads_as_json_loads_reads_it(body):
    """The message of a JSON object, INVALID_ARGUMENT (a BadRequest) for anything else: no JSON, or JSON
    that is no object ([] is no empty request)."""
    got = decode(body, revenue_pb2.SolveRequest, JsonBoards())
    want = _outcome(json.loads, body) if body.strip() else ("ok", {})
    if want[0] == "error" or not isinstance(want[1], dict):
        assert isinstance(got, BadRequest) and isinstance(got.error, InputError)
        return
    expected = _outcome(lambda obj: api.parse_message(obj, revenue_pb2.SolveRequest), want[1])
    if expected[0] == "error":
        assert isinstance(got, BadRequest)
    else:
        assert got == expected[1]


def test_a_known_board_is_taken_by_its_parsed_form():
    boards = JsonBoards()
    for scenario in title_scenarios():
        for company in ({"id": "X"}, scenario.request["company"], {"id": "X"}):
            for text in (json.dumps({**scenario.request, "company": company}),
                         json.dumps({"company": company, **scenario.request}, indent=1)):
                got = decode(text.encode(), revenue_pb2.SolveRequest, boards)
                assert got == api.parse_message(json.loads(text), revenue_pb2.SolveRequest)
    assert len(boards) == len(title_scenarios())     # one per board, however it was written
    assert boards.bytes <= JSON_BOARD_CACHE_BYTES
    # A bad board is named from the request, seen before or not.
    bad = json.dumps({"board": {"title": "1830", "tiles": [{"hex": 5}]}}).encode()
    for _ in range(2):
        got = decode(bad, revenue_pb2.SolveRequest, boards)
        assert isinstance(got, BadRequest) and got.error.field == "board.tiles[0].hex"


# ---- writing an answer ---------------------------------------------------------------------------------

class _Transport:
    def __init__(self):
        self.writes, self.closed = [], False

    def write(self, data):
        self.writes.append(bytes(data))

    def close(self):
        self.closed = True

    def get_extra_info(self, name, default=None):
        return {"peername": ("127.0.0.1", 1)}.get(name, default)


def test_an_answer_leaves_in_one_write():
    from revenue.server.connections import _OneWrite

    async def run():
        inner = _Transport()
        transport = _OneWrite(inner)
        head = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n"
        transport.write(head)
        transport.write(b"{}")
        assert inner.writes == [head + b"{}"]
        transport.write(head)                   # a stream's headers: out on the loop's next turn
        assert inner.writes == [head + b"{}"]
        await asyncio.sleep(0)
        assert inner.writes == [head + b"{}", head]
        transport.write(b"data: 1\n\n")
        transport.write(head)
        transport.close()                       # nothing held back past the close
        assert inner.writes[-2:] == [b"data: 1\n\n", head] and inner.closed
        assert transport.get_extra_info("peername") == ("127.0.0.1", 1)
        await asyncio.sleep(0)
        assert len(inner.writes) == 4
    asyncio.run(run())
