from google.protobuf import struct_pb2 as _struct_pb2
from revenue.v1 import moves_pb2 as _moves_pb2
from revenue.v1 import revenue_pb2 as _revenue_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReplayRequest(_message.Message):
    __slots__ = ("export", "deadline_ms", "export_json")
    EXPORT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    EXPORT_JSON_FIELD_NUMBER: _ClassVar[int]
    export: _struct_pb2.Struct
    deadline_ms: int
    export_json: str
    def __init__(self, export: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., deadline_ms: _Optional[int] = ..., export_json: _Optional[str] = ...) -> None: ...

class ReplayTurn(_message.Message):
    __slots__ = ("action_id", "round", "company", "request", "played", "best", "left", "dividend")
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    COMPANY_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    BEST_FIELD_NUMBER: _ClassVar[int]
    LEFT_FIELD_NUMBER: _ClassVar[int]
    DIVIDEND_FIELD_NUMBER: _ClassVar[int]
    action_id: int
    round: str
    company: str
    request: _revenue_pb2.SolveRequest
    played: _revenue_pb2.EvaluateResponse
    best: _revenue_pb2.SolveResponse
    left: int
    dividend: str
    def __init__(self, action_id: _Optional[int] = ..., round: _Optional[str] = ..., company: _Optional[str] = ..., request: _Optional[_Union[_revenue_pb2.SolveRequest, _Mapping]] = ..., played: _Optional[_Union[_revenue_pb2.EvaluateResponse, _Mapping]] = ..., best: _Optional[_Union[_revenue_pb2.SolveResponse, _Mapping]] = ..., left: _Optional[int] = ..., dividend: _Optional[str] = ...) -> None: ...

class SuggestRequest(_message.Message):
    __slots__ = ("export", "deadline_ms", "export_json")
    EXPORT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    EXPORT_JSON_FIELD_NUMBER: _ClassVar[int]
    export: _struct_pb2.Struct
    deadline_ms: int
    export_json: str
    def __init__(self, export: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., deadline_ms: _Optional[int] = ..., export_json: _Optional[str] = ...) -> None: ...

class SuggestResponse(_message.Message):
    __slots__ = ("company", "round", "best", "run_routes", "waiting_for", "request", "builder", "lays", "tokens", "builder_cash")
    COMPANY_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    BEST_FIELD_NUMBER: _ClassVar[int]
    RUN_ROUTES_FIELD_NUMBER: _ClassVar[int]
    WAITING_FOR_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    BUILDER_FIELD_NUMBER: _ClassVar[int]
    LAYS_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    BUILDER_CASH_FIELD_NUMBER: _ClassVar[int]
    company: str
    round: str
    best: _revenue_pb2.SolveResponse
    run_routes: _revenue_pb2.RunRoutesAction
    waiting_for: str
    request: _revenue_pb2.SolveRequest
    builder: str
    lays: _moves_pb2.LaysResponse
    tokens: _moves_pb2.TokensResponse
    builder_cash: int
    def __init__(self, company: _Optional[str] = ..., round: _Optional[str] = ..., best: _Optional[_Union[_revenue_pb2.SolveResponse, _Mapping]] = ..., run_routes: _Optional[_Union[_revenue_pb2.RunRoutesAction, _Mapping]] = ..., waiting_for: _Optional[str] = ..., request: _Optional[_Union[_revenue_pb2.SolveRequest, _Mapping]] = ..., builder: _Optional[str] = ..., lays: _Optional[_Union[_moves_pb2.LaysResponse, _Mapping]] = ..., tokens: _Optional[_Union[_moves_pb2.TokensResponse, _Mapping]] = ..., builder_cash: _Optional[int] = ...) -> None: ...
