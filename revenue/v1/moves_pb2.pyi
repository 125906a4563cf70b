from revenue.v1 import revenue_pb2 as _revenue_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LaysRequest(_message.Message):
    __slots__ = ("board", "company", "cash", "top", "deadline_ms", "player_privates", "no_player_privates", "second_lay")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    COMPANY_FIELD_NUMBER: _ClassVar[int]
    CASH_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_PRIVATES_FIELD_NUMBER: _ClassVar[int]
    NO_PLAYER_PRIVATES_FIELD_NUMBER: _ClassVar[int]
    SECOND_LAY_FIELD_NUMBER: _ClassVar[int]
    board: _revenue_pb2.Board
    company: _revenue_pb2.Company
    cash: int
    top: int
    deadline_ms: int
    player_privates: _containers.RepeatedScalarFieldContainer[str]
    no_player_privates: bool
    second_lay: bool
    def __init__(self, board: _Optional[_Union[_revenue_pb2.Board, _Mapping]] = ..., company: _Optional[_Union[_revenue_pb2.Company, _Mapping]] = ..., cash: _Optional[int] = ..., top: _Optional[int] = ..., deadline_ms: _Optional[int] = ..., player_privates: _Optional[_Iterable[str]] = ..., no_player_privates: _Optional[bool] = ..., second_lay: _Optional[bool] = ...) -> None: ...

class Lay(_message.Message):
    __slots__ = ("hex", "tile", "rotation", "cost", "revenue_after", "gain", "optimal")
    HEX_FIELD_NUMBER: _ClassVar[int]
    TILE_FIELD_NUMBER: _ClassVar[int]
    ROTATION_FIELD_NUMBER: _ClassVar[int]
    COST_FIELD_NUMBER: _ClassVar[int]
    REVENUE_AFTER_FIELD_NUMBER: _ClassVar[int]
    GAIN_FIELD_NUMBER: _ClassVar[int]
    OPTIMAL_FIELD_NUMBER: _ClassVar[int]
    hex: str
    tile: str
    rotation: int
    cost: int
    revenue_after: int
    gain: int
    optimal: bool
    def __init__(self, hex: _Optional[str] = ..., tile: _Optional[str] = ..., rotation: _Optional[int] = ..., cost: _Optional[int] = ..., revenue_after: _Optional[int] = ..., gain: _Optional[int] = ..., optimal: _Optional[bool] = ...) -> None: ...

class LaysResponse(_message.Message):
    __slots__ = ("revenue", "revenue_optimal", "lays", "legal", "valued", "complete", "elapsed_ms")
    REVENUE_FIELD_NUMBER: _ClassVar[int]
    REVENUE_OPTIMAL_FIELD_NUMBER: _ClassVar[int]
    LAYS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    VALUED_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    revenue: int
    revenue_optimal: bool
    lays: _containers.RepeatedCompositeFieldContainer[Lay]
    legal: int
    valued: int
    complete: bool
    elapsed_ms: float
    def __init__(self, revenue: _Optional[int] = ..., revenue_optimal: _Optional[bool] = ..., lays: _Optional[_Iterable[_Union[Lay, _Mapping]]] = ..., legal: _Optional[int] = ..., valued: _Optional[int] = ..., complete: _Optional[bool] = ..., elapsed_ms: _Optional[float] = ...) -> None: ...

class TokensRequest(_message.Message):
    __slots__ = ("board", "company", "cash", "top", "deadline_ms")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    COMPANY_FIELD_NUMBER: _ClassVar[int]
    CASH_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    board: _revenue_pb2.Board
    company: _revenue_pb2.Company
    cash: int
    top: int
    deadline_ms: int
    def __init__(self, board: _Optional[_Union[_revenue_pb2.Board, _Mapping]] = ..., company: _Optional[_Union[_revenue_pb2.Company, _Mapping]] = ..., cash: _Optional[int] = ..., top: _Optional[int] = ..., deadline_ms: _Optional[int] = ...) -> None: ...

class Token(_message.Message):
    __slots__ = ("hex", "city", "cost", "revenue_after", "gain", "optimal")
    HEX_FIELD_NUMBER: _ClassVar[int]
    CITY_FIELD_NUMBER: _ClassVar[int]
    COST_FIELD_NUMBER: _ClassVar[int]
    REVENUE_AFTER_FIELD_NUMBER: _ClassVar[int]
    GAIN_FIELD_NUMBER: _ClassVar[int]
    OPTIMAL_FIELD_NUMBER: _ClassVar[int]
    hex: str
    city: int
    cost: int
    revenue_after: int
    gain: int
    optimal: bool
    def __init__(self, hex: _Optional[str] = ..., city: _Optional[int] = ..., cost: _Optional[int] = ..., revenue_after: _Optional[int] = ..., gain: _Optional[int] = ..., optimal: _Optional[bool] = ...) -> None: ...

class TokensResponse(_message.Message):
    __slots__ = ("revenue", "revenue_optimal", "tokens", "legal", "valued", "complete", "elapsed_ms")
    REVENUE_FIELD_NUMBER: _ClassVar[int]
    REVENUE_OPTIMAL_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    VALUED_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    revenue: int
    revenue_optimal: bool
    tokens: _containers.RepeatedCompositeFieldContainer[Token]
    legal: int
    valued: int
    complete: bool
    elapsed_ms: float
    def __init__(self, revenue: _Optional[int] = ..., revenue_optimal: _Optional[bool] = ..., tokens: _Optional[_Iterable[_Union[Token, _Mapping]]] = ..., legal: _Optional[int] = ..., valued: _Optional[int] = ..., complete: _Optional[bool] = ..., elapsed_ms: _Optional[float] = ...) -> None: ...
