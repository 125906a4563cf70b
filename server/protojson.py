"""A message as proto3 JSON, as json_format.MessageToDict(message, preserving_proto_field_name=True,
always_print_fields_with_no_presence=True) gives it (the same dict, keys in the same order), in a
fraction of its time: json_format works out each field's kind anew for every value, which made writing an
answer the largest part of an HTTP call's own CPU. Here each message type's fields are looked at once and
kept as a table of converters. `request_dict` is the same without the unset fields
(json_format.MessageToDict(message, preserving_proto_field_name=True)): the dict the library gets from
every request the service reads, a fresh board's above all.

Messages of google.protobuf other than Struct, Value and ListValue (which answers carry: a run_routes
action's connections) go to json_format, as does any message whose conversion fails here, so that an
error is json_format's own."""
from __future__ import annotations

import base64
from typing import Any, Callable

from google.protobuf import descriptor, json_format

FD = descriptor.FieldDescriptor
_printer = json_format._Printer(preserving_proto_field_name=True, always_print_fields_with_no_presence=True)


def message_dict(message) -> dict:
    """json_format.MessageToDict(message, preserving_proto_field_name=True,
    always_print_fields_with_no_presence=True)."""
    try:
        return _writer(message.DESCRIPTOR, True)(message)
    except Exception:   # whatever json_format says of it (SerializeToJsonError...)
        return json_format.MessageToDict(message, preserving_proto_field_name=True,
                                         always_print_fields_with_no_presence=True)


def request_dict(message, without: str | None = None) -> dict:
    """json_format.MessageToDict(message, preserving_proto_field_name=True): the set fields only, as the
    library reads a request (the service converts every request it serves), less the field `without`."""
    try:
        write = _writer(message.DESCRIPTOR, False)
        return write(message) if without is None else write(message, without)
    except Exception:
        js = json_format.MessageToDict(message, preserving_proto_field_name=True)
        if without is not None:
            js.pop(without, None)
        return js


_WRITERS: dict[tuple[descriptor.Descriptor, bool], Callable[[Any], Any]] = {}
_LIST, _DICT = object(), object()      # defaults made anew for each message
_plain_printer = json_format._Printer(preserving_proto_field_name=True)


def _writer(desc: descriptor.Descriptor, defaults: bool) -> Callable[[Any], Any]:
    """The converter of a message of type `desc`: for each field that is set, its converter (None: the
    value as it is); then, with `defaults`, the fields without presence that are not set, with their
    default value, in declaration order (json_format's order)."""
    write = _WRITERS.get((desc, defaults))
    if write is not None:
        return write
    if desc.full_name in _SPECIAL:
        write = _WRITERS[desc, defaults] = _SPECIAL[desc.full_name]
        return write
    if desc.file.package == "google.protobuf":
        write = _WRITERS[desc, defaults] = (_printer if defaults else _plain_printer)._MessageToJsonObject
        return write

    def write(message) -> dict:
        js = {}
        for field, value in message.ListFields():
            name, fn = convert[field]
            js[name] = value if fn is None else fn(value)
        if len(js) < len(convert):
            for name, default in absent:
                if name not in js:
                    js[name] = [] if default is _LIST else {} if default is _DICT else default
        return js

    def write_set(message, without: str | None = None) -> dict:
        js = {}
        for field, value in message.ListFields():
            name, fn = convert[field]
            if name != without:
                js[name] = value if fn is None else fn(value)
        return js

    convert: dict[FD, tuple[str, Callable[[Any], Any] | None]] = {}
    absent: list[tuple[str, Any]] = []
    # before its fields: a message type may hold itself
    _WRITERS[desc, defaults] = write if defaults else write_set
    for field in desc.fields:
        if json_format._IsMapEntry(field):
            convert[field] = (field.name, _map(_scalar(field.message_type.fields_by_name["value"], defaults)))
            default = _DICT
        elif field.is_repeated:
            if not defaults and field.cpp_type == FD.CPPTYPE_MESSAGE and _flat(field.message_type):
                convert[field] = (field.name, _flat_list(field.message_type))
            else:
                convert[field] = (field.name, _repeated(_scalar(field, defaults)))
            default = _LIST
        else:
            one = _scalar(field, defaults)
            convert[field] = (field.name, None if one is _identity else one)
            default = _printer._FieldToJsonObject(field, field.default_value) \
                if field.cpp_type != FD.CPPTYPE_MESSAGE else None
        if not field.has_presence:
            absent.append((field.name, default))
    return _WRITERS[desc, defaults]


def _identity(value):
    return value


def _flat(desc: descriptor.Descriptor) -> bool:
    """Whether a message type has only single strings, 32-bit integers and booleans (a tile lay, a token):
    its set fields are its dict as they are."""
    return desc.file.package != "google.protobuf" and all(
        not field.is_repeated and field.cpp_type in (FD.CPPTYPE_STRING, FD.CPPTYPE_INT32, FD.CPPTYPE_UINT32,
                                                     FD.CPPTYPE_BOOL) and field.type != FD.TYPE_BYTES
        for field in desc.fields)


def _flat_list(desc: descriptor.Descriptor) -> Callable[[Any], list]:
    """The set fields of each message of a list of a _flat type: a board's lays and tokens come in tens
    and hundreds, and a loop inline here takes half the time of a writer called for each."""
    names = {field: field.name for field in desc.fields}

    def convert(messages) -> list:
        out = []
        for message in messages:
            js = {}
            for field, value in message.ListFields():
                js[names[field]] = value
            out.append(js)
        return out
    return convert


def _scalar(field: FD, defaults: bool) -> Callable[[Any], Any]:
    """The converter of one value of `field`."""
    kind = field.cpp_type
    if kind == FD.CPPTYPE_MESSAGE:
        return _writer(field.message_type, defaults)
    if kind in (FD.CPPTYPE_INT32, FD.CPPTYPE_UINT32, FD.CPPTYPE_BOOL):
        return _identity       # int and bool already
    if kind in (FD.CPPTYPE_INT64, FD.CPPTYPE_UINT64):
        return str
    if kind == FD.CPPTYPE_STRING:
        if field.type == FD.TYPE_BYTES:
            return lambda value: base64.b64encode(value).decode("utf-8")
        return _identity       # str already
    if kind == FD.CPPTYPE_ENUM:
        names = {number: _printer._FieldToJsonObject(field, number) for number in field.enum_type.values_by_number}

        def enum(value):
            name = names.get(value, names)
            return name if name is not names else _printer._FieldToJsonObject(field, value)
        return enum
    return lambda value: _printer._FieldToJsonObject(field, value)     # float, double: inf, nan


def _repeated(one: Callable[[Any], Any]) -> Callable[[Any], list]:
    if one is _identity:
        return list
    return lambda values: [one(v) for v in values]


def _map(one: Callable[[Any], Any]) -> Callable[[Any], dict]:
    def convert(mapping) -> dict:
        return {("true" if key else "false") if isinstance(key, bool) else str(key): one(mapping[key])
                for key in mapping}
    return convert


def _value(message) -> Any:
    which = message.WhichOneof("kind")
    if which is None or which == "null_value":
        return None
    if which == "string_value":
        return message.string_value
    if which == "bool_value":
        return message.bool_value
    if which == "list_value":
        return [_value(v) for v in message.list_value.values]
    if which == "struct_value":
        return _struct(message.struct_value)
    return _printer._ValueMessageToJsonObject(message)    # number_value: json_format refuses inf and nan


def _struct(message) -> dict:
    fields = message.fields
    return {key: _value(fields[key]) for key in fields}


_SPECIAL: dict[str, Callable[[Any], Any]] = {
    "google.protobuf.Value": _value,
    "google.protobuf.ListValue": lambda message: [_value(v) for v in message.values],
    "google.protobuf.Struct": _struct,
}


def struct_dict(message, whole: bool = False) -> dict:
    """A google.protobuf.Struct as the JSON object it holds; `whole`: numbers that are whole as ints (a
    Struct holds every JSON number as a double; a game's ids and amounts are ints)."""
    if not whole:
        return _struct(message)
    return _whole(_struct(message))


def _whole(value: Any) -> Any:
    if type(value) is float:
        return int(value) if value.is_integer() and abs(value) < 2**53 else value
    if type(value) is dict:
        return {key: _whole(v) for key, v in value.items()}
    if type(value) is list:
        return [_whole(v) for v in value]
    return value
