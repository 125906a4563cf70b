"""The proto3-JSON boundary of the library: requests in, results out, in the shapes of revenue.v1.

Requests are checked against the message schema before the library sees them, so an unknown field or a
value of the wrong type is an InputError naming the field (`board.tiles[0].rotation: "x" is not an
integer`) rather than a protobuf parse message. The library then works on plain dicts with proto field
names; note that proto3 drops default values (0, "", false, empty lists), so the library treats a
missing key as its default.
"""
from __future__ import annotations

import json
import math
import pathlib
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from .bounds import size_violations
from .errors import InputError, short_repr

_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-2**31, 2**31 - 1), FieldDescriptor.TYPE_SINT32: (-2**31, 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-2**31, 2**31 - 1), FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1), FieldDescriptor.TYPE_INT64: (-2**63, 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-2**63, 2**63 - 1), FieldDescriptor.TYPE_SFIXED64: (-2**63, 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1), FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}
_FLOATS = (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT)


def _is_repeated(f: FieldDescriptor) -> bool:
    # `is_repeated` is the newer spelling; `label` is deprecated in recent protobuf releases.
    rep = getattr(f, "is_repeated", None)
    return rep if isinstance(rep, bool) else f.label == FieldDescriptor.LABEL_REPEATED


def _is_map(f: FieldDescriptor) -> bool:
    return (f.type == FieldDescriptor.TYPE_MESSAGE and f.message_type.GetOptions().map_entry
            and _is_repeated(f))


def _check_scalar(f: FieldDescriptor, value: Any, where: str) -> None:
    t = f.type
    if t == FieldDescriptor.TYPE_STRING:
        if not isinstance(value, str):
            raise InputError(where, f"{json.dumps(value)} is not a string")
    elif t == FieldDescriptor.TYPE_BOOL:
        if not isinstance(value, bool):
            raise InputError(where, f"{json.dumps(value)} is not true or false")
    elif t in _INT_RANGES:
        number = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, float) and math.isfinite(value) and value == int(value):
            number = int(value)
        elif isinstance(value, str):   # proto3 JSON allows integers as strings ("7"), int64 is written so
            try:
                number = int(value)
            except ValueError:
                pass
        if number is None:
            raise InputError(where, f"{json.dumps(value)} is not an integer")
        lo, hi = _INT_RANGES[t]
        if not lo <= number <= hi:
            raise InputError(where, f"{number} is out of range ({lo}..{hi})")
    elif t in _FLOATS:
        ok = (isinstance(value, (int, float)) and not isinstance(value, bool)) or \
            value in ("NaN", "Infinity", "-Infinity")
        if not ok and isinstance(value, str):
            try:
                float(value)
                ok = True
            except ValueError:
                pass
        if not ok:
            raise InputError(where, f"{json.dumps(value)} is not a number")


def _check_value(f: FieldDescriptor, value: Any, where: str) -> None:
    if f.type == FieldDescriptor.TYPE_MESSAGE:
        _check_message(f.message_type, value, where)
    else:
        _check_scalar(f, value, where)


def _check_message(desc: Descriptor, obj: Any, where: str) -> None:
    """Walk a JSON object against a message descriptor; raise InputError at the first bad field."""
    if desc.full_name == "google.protobuf.ListValue":   # a JSON array; ours hold hex names
        if not isinstance(obj, list) or not all(isinstance(x, str) for x in obj):
            raise InputError(where, f"must be a list of strings, not {json.dumps(obj)[:40]}")
        return
    if not isinstance(obj, dict):
        raise InputError(where, f"must be an object (a {desc.name}), not {json.dumps(obj)[:40]}")
    by_name = {f.name: f for f in desc.fields}
    by_name.update({f.json_name: f for f in desc.fields})
    seen: dict[str, str] = {}
    for key, value in obj.items():
        path = f"{where}.{key}" if where else key
        f = by_name.get(key)
        if f is None:
            known = ", ".join(f.name for f in desc.fields) or "none"
            raise InputError(path, f"unknown field of {desc.name} (fields: {known})")
        if f.name in seen:
            raise InputError(path, f"given twice (also as {seen[f.name]})")
        seen[f.name] = key
        if value is None:    # proto3 JSON: null means the default
            continue
        if _is_map(f):
            if not isinstance(value, dict):
                raise InputError(path, "must be an object of key: value")
            value_field = f.message_type.fields_by_name["value"]
            for k, v in value.items():
                _check_value(value_field, v, f"{path}[{k}]")
        elif _is_repeated(f):
            if not isinstance(value, list):
                raise InputError(path, "must be a list")
            for i, item in enumerate(value):
                _check_value(f, item, f"{path}[{i}]")
        else:
            _check_value(f, value, path)


def _read(path_or_text: str | pathlib.Path) -> tuple[Any, str]:
    """JSON from a file path or from the text itself; returns (object, where it came from)."""
    if isinstance(path_or_text, pathlib.Path) or not str(path_or_text).lstrip().startswith(("{", "[")):
        path = pathlib.Path(path_or_text)
        try:
            text = path.read_text()
        except FileNotFoundError:
            raise InputError("", f"{path}: no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError("", f"{path}: cannot read ({exc})") from None
        origin = str(path)
    else:
        text, origin = str(path_or_text), "request"
    try:
        return json.loads(text), origin
    except json.JSONDecodeError as exc:
        raise InputError("", f"{origin}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") \
            from None


def _known_fields(desc: Descriptor, obj: Any) -> Any:
    """`obj` without the keys that are no field of `desc`, here and in its message fields (a stored
    18xx.games action carries fields of the site's own that a reader ignores)."""
    if not isinstance(obj, dict):
        return obj
    by_name = {f.name: f for f in desc.fields}
    by_name.update({f.json_name: f for f in desc.fields})
    out = {}
    for key, value in obj.items():
        f = by_name.get(key)
        if f is None:
            continue
        if f.type == FieldDescriptor.TYPE_MESSAGE and not _is_map(f) and \
                f.message_type.full_name != "google.protobuf.ListValue":
            value = [_known_fields(f.message_type, v) for v in value] \
                if _is_repeated(f) and isinstance(value, list) else _known_fields(f.message_type, value)
        out[key] = value
    return out


def _holds_list_values(desc: Descriptor, seen: frozenset = frozenset()) -> bool:
    """Whether a message of this type can hold a google.protobuf.ListValue (which ParseDict fills with any
    JSON array, where ours must hold strings)."""
    if desc.full_name == "google.protobuf.ListValue":
        return True
    if desc.full_name == "google.protobuf.Struct":    # any JSON object, by design (a game's export)
        return False
    return any(f.type == FieldDescriptor.TYPE_MESSAGE and f.message_type.full_name not in seen
               and _holds_list_values(f.message_type, seen | {desc.full_name}) for f in desc.fields)


_LIST_VALUES: dict[str, bool] = {}


def parse_message(obj: Any, message_type: type[Message]) -> Message:
    """Check a decoded JSON object against `message_type` and return it as that message.

    protobuf's own parser goes first (the service parses every request, and the walk that names the
    wrong field costs as much again); the walk runs when it fails, to name the field, and for messages
    that can hold a ListValue, whose items the parser does not check."""
    desc = message_type.DESCRIPTOR
    if not isinstance(obj, dict):     # ParseDict reads [] as an empty message
        raise InputError("", f"must be an object (a {desc.name}), not {short_repr(obj)}")
    action = desc.fields_by_name.get("run_routes")
    if isinstance(obj, dict) and action is not None and isinstance(obj.get("run_routes"), dict):
        # A stored 18xx.games action (`run_routes`) may carry fields of its own: they are dropped unread.
        obj = {**obj, "run_routes": _known_fields(action.message_type, obj["run_routes"])}
    try:
        message = json_format.ParseDict(obj, message_type())
    except Exception as exc:   # ParseError mostly; the walk names the field
        _check_sizes(obj)
        _check_message(desc, obj, "")
        raise InputError("", f"not a valid {desc.name}: {exc}") from None
    if desc.full_name not in _LIST_VALUES:
        _LIST_VALUES[desc.full_name] = _holds_list_values(desc)
    if _LIST_VALUES[desc.full_name]:
        _check_sizes(obj)
        _check_message(desc, obj, "")
    return message


def _check_sizes(obj: Any) -> None:
    """Strings first: no later message may quote a value of unbounded length. (A valid message's strings
    are bounded where they are used: revenue.board_request, revenue.company, the service's check_limits. Lists
    are counted there too: a Steam board may have tens of thousands of links.)"""
    too_long = size_violations(obj, "", [], entries=2**62)
    if too_long:
        raise InputError(too_long[0][0], too_long[0][1], too_long[1:])


def parse_request(obj: Any, message_type: type[Message]) -> dict:
    """Check a decoded JSON object against `message_type` and return it as a dict with proto field names."""
    return json_format.MessageToDict(parse_message(obj, message_type), preserving_proto_field_name=True)


def read_json(path_or_text: str | pathlib.Path) -> Any:
    """JSON from a file path or from the text itself (bad JSON or a missing file raise InputError)."""
    return _read(path_or_text)[0]


def load_request(path_or_text: str | pathlib.Path, message_type: type[Message]) -> dict:
    """Read a request (a JSON file path, or the JSON text itself) as a dict in the shape of `message_type`.

    Unknown fields and wrong types raise InputError naming the field, e.g. `board.tiles[0].rotation`.
    """
    obj, _ = _read(path_or_text)
    return parse_request(obj, message_type)


def to_message(result: dict, message_type: type[Message]) -> Message:
    """A library result dict as its proto message (raises ParseError if the library broke the contract)."""
    from .v1 import revenue_pb2

    if message_type is revenue_pb2.SolveResponse:
        message = _solve_response(result)
        _add_dividends(message, result)
        return message
    return json_format.ParseDict(result, message_type())


def _add_dividends(message, result: dict) -> None:
    """SolveResponse.dividends, when the request carried a holding."""
    from .v1 import dividends_pb2

    for option in result.get("dividends", ()):
        message.dividends.append(json_format.ParseDict(option, dividends_pb2.DividendOption()))


def _solve_response(result: dict):
    """SolveResponse built field by field, each route, stop and bonus added in place (add()) rather than
    made as a message of its own and copied in: several times faster than ParseDict, and some 40% less
    than building the parts first, which matters per call in the service."""
    from .v1 import revenue_pb2 as pb

    stats = result.get("stats")
    message = pb.SolveResponse(
        revenue=result["revenue"], optimal=result.get("optimal", False), upper_bound=result.get("upper_bound", 0),
        stats=pb.SolveStats(**stats) if stats else None, note=result.get("note", ""),
        subsidy=result.get("subsidy", 0))
    add_route = message.routes.add
    for route in result.get("routes", ()):
        error = route.get("error")
        entry = add_route(train=route["train"], revenue=route["revenue"], nodes=route["nodes"],
                          halts=route.get("halts", 0), subsidy=route.get("subsidy", 0))
        if error:
            entry.error.SetInParent()
            entry.error.CopyFrom(pb.RouteError(**error))
        add = entry.connections.add
        for connection in route.get("connections", ()):
            add(hexes=connection["hexes"])
        add = entry.stops.add
        for stop in route.get("stops", ()):
            add(node=stop["node"], value=stop["value"], paid=stop["paid"])
        add = entry.bonuses.add
        for bonus in route.get("bonuses", ()):
            add(name=bonus["name"], amount=bonus["amount"])
    action = result.get("run_routes")
    if action:
        _add_run_routes(message.run_routes, action)
    return message


def _add_run_routes(message, action: dict) -> None:
    """The run_routes action into `message` (SolveResponse.run_routes, marked present even if empty)."""
    message.SetInParent()
    message.type, message.entity = action["type"], action["entity"]
    message.entity_type = action.get("entity_type", "")
    for route in action["routes"]:
        entry = message.routes.add(train=route["train"], nodes=route["nodes"])
        if "halts" in route:
            entry.halts = route["halts"]
        for hexes in route["connections"]:
            entry.connections.add().extend(hexes)


def to_json(result: dict, message_type: type[Message], indent: int | None = 2) -> str:
    """A library result dict as proto3 JSON, with proto field names and default values written out."""
    return json_format.MessageToJson(to_message(result, message_type), preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=True, indent=indent)


def list_titles() -> dict:
    """Every title with its trains, phases and options, in the shape of revenue.v1.ListTitlesResponse."""
    from .titles import TITLES

    titles = []
    for title in TITLES.values():
        entry: dict[str, Any] = {"name": title.name, "description": title.description}
        if title.name != "custom":   # the custom title's map, trains and phases come in each request
            data = title.data()
            entry["layout"] = data.layout
            entry["trains"] = [{"name": t.name, "description": t.describe()} for t in data.trains.values()]
            entry["phases"] = [{"name": p.name, "tiles": list(p.colours),
                                **({"train_limit": p.train_limit} if isinstance(p.train_limit, int) else {})}
                               for p in data.phases]
        entry["options"] = ([{"name": k, "description": v, "changes_routes": True} for k, v in title.options.items()]
                            + [{"name": k, "description": v} for k, v in title.passive_options.items()])
        titles.append(entry)
    return {"titles": titles}
