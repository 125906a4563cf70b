from google.protobuf import struct_pb2 as _struct_pb2
from revenue.v1 import dividends_pb2 as _dividends_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Board(_message.Message):
    __slots__ = ("title", "phase", "tiles", "tokens", "options", "custom")
    class TileLay(_message.Message):
        __slots__ = ("hex", "tile", "rotation", "code", "color")
        HEX_FIELD_NUMBER: _ClassVar[int]
        TILE_FIELD_NUMBER: _ClassVar[int]
        ROTATION_FIELD_NUMBER: _ClassVar[int]
        CODE_FIELD_NUMBER: _ClassVar[int]
        COLOR_FIELD_NUMBER: _ClassVar[int]
        hex: str
        tile: str
        rotation: int
        code: str
        color: str
        def __init__(self, hex: _Optional[str] = ..., tile: _Optional[str] = ..., rotation: _Optional[int] = ..., code: _Optional[str] = ..., color: _Optional[str] = ...) -> None: ...
    class Token(_message.Message):
        __slots__ = ("hex", "city", "company", "flipped")
        HEX_FIELD_NUMBER: _ClassVar[int]
        CITY_FIELD_NUMBER: _ClassVar[int]
        COMPANY_FIELD_NUMBER: _ClassVar[int]
        FLIPPED_FIELD_NUMBER: _ClassVar[int]
        hex: str
        city: int
        company: str
        flipped: bool
        def __init__(self, hex: _Optional[str] = ..., city: _Optional[int] = ..., company: _Optional[str] = ..., flipped: _Optional[bool] = ...) -> None: ...
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TITLE_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TILES_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_FIELD_NUMBER: _ClassVar[int]
    title: str
    phase: str
    tiles: _containers.RepeatedCompositeFieldContainer[Board.TileLay]
    tokens: _containers.RepeatedCompositeFieldContainer[Board.Token]
    options: _containers.ScalarMap[str, str]
    custom: CustomTitle
    def __init__(self, title: _Optional[str] = ..., phase: _Optional[str] = ..., tiles: _Optional[_Iterable[_Union[Board.TileLay, _Mapping]]] = ..., tokens: _Optional[_Iterable[_Union[Board.Token, _Mapping]]] = ..., options: _Optional[_Mapping[str, str]] = ..., custom: _Optional[_Union[CustomTitle, _Mapping]] = ...) -> None: ...

class CustomTitle(_message.Message):
    __slots__ = ("layout", "hexes", "trains", "phases")
    class Hex(_message.Message):
        __slots__ = ("hex", "code", "color", "location")
        HEX_FIELD_NUMBER: _ClassVar[int]
        CODE_FIELD_NUMBER: _ClassVar[int]
        COLOR_FIELD_NUMBER: _ClassVar[int]
        LOCATION_FIELD_NUMBER: _ClassVar[int]
        hex: str
        code: str
        color: str
        location: str
        def __init__(self, hex: _Optional[str] = ..., code: _Optional[str] = ..., color: _Optional[str] = ..., location: _Optional[str] = ...) -> None: ...
    class DistanceRow(_message.Message):
        __slots__ = ("nodes", "pay", "visit", "multiplier")
        NODES_FIELD_NUMBER: _ClassVar[int]
        PAY_FIELD_NUMBER: _ClassVar[int]
        VISIT_FIELD_NUMBER: _ClassVar[int]
        MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
        nodes: _containers.RepeatedScalarFieldContainer[str]
        pay: int
        visit: int
        multiplier: int
        def __init__(self, nodes: _Optional[_Iterable[str]] = ..., pay: _Optional[int] = ..., visit: _Optional[int] = ..., multiplier: _Optional[int] = ...) -> None: ...
    class Train(_message.Message):
        __slots__ = ("name", "distance", "rows", "multiplier")
        NAME_FIELD_NUMBER: _ClassVar[int]
        DISTANCE_FIELD_NUMBER: _ClassVar[int]
        ROWS_FIELD_NUMBER: _ClassVar[int]
        MULTIPLIER_FIELD_NUMBER: _ClassVar[int]
        name: str
        distance: int
        rows: _containers.RepeatedCompositeFieldContainer[CustomTitle.DistanceRow]
        multiplier: int
        def __init__(self, name: _Optional[str] = ..., distance: _Optional[int] = ..., rows: _Optional[_Iterable[_Union[CustomTitle.DistanceRow, _Mapping]]] = ..., multiplier: _Optional[int] = ...) -> None: ...
    class Phase(_message.Message):
        __slots__ = ("name", "tiles")
        NAME_FIELD_NUMBER: _ClassVar[int]
        TILES_FIELD_NUMBER: _ClassVar[int]
        name: str
        tiles: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, name: _Optional[str] = ..., tiles: _Optional[_Iterable[str]] = ...) -> None: ...
    LAYOUT_FIELD_NUMBER: _ClassVar[int]
    HEXES_FIELD_NUMBER: _ClassVar[int]
    TRAINS_FIELD_NUMBER: _ClassVar[int]
    PHASES_FIELD_NUMBER: _ClassVar[int]
    layout: str
    hexes: _containers.RepeatedCompositeFieldContainer[CustomTitle.Hex]
    trains: _containers.RepeatedCompositeFieldContainer[CustomTitle.Train]
    phases: _containers.RepeatedCompositeFieldContainer[CustomTitle.Phase]
    def __init__(self, layout: _Optional[str] = ..., hexes: _Optional[_Iterable[_Union[CustomTitle.Hex, _Mapping]]] = ..., trains: _Optional[_Iterable[_Union[CustomTitle.Train, _Mapping]]] = ..., phases: _Optional[_Iterable[_Union[CustomTitle.Phase, _Mapping]]] = ...) -> None: ...

class Company(_message.Message):
    __slots__ = ("id", "trains", "privates")
    class Train(_message.Message):
        __slots__ = ("name", "id", "leased")
        NAME_FIELD_NUMBER: _ClassVar[int]
        ID_FIELD_NUMBER: _ClassVar[int]
        LEASED_FIELD_NUMBER: _ClassVar[int]
        name: str
        id: str
        leased: bool
        def __init__(self, name: _Optional[str] = ..., id: _Optional[str] = ..., leased: _Optional[bool] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    TRAINS_FIELD_NUMBER: _ClassVar[int]
    PRIVATES_FIELD_NUMBER: _ClassVar[int]
    id: str
    trains: _containers.RepeatedCompositeFieldContainer[Company.Train]
    privates: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., trains: _Optional[_Iterable[_Union[Company.Train, _Mapping]]] = ..., privates: _Optional[_Iterable[str]] = ...) -> None: ...

class Connection(_message.Message):
    __slots__ = ("hexes",)
    HEXES_FIELD_NUMBER: _ClassVar[int]
    hexes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, hexes: _Optional[_Iterable[str]] = ...) -> None: ...

class Route(_message.Message):
    __slots__ = ("train", "nodes", "connections", "halts", "hexes", "revenue", "revenue_str", "subsidy")
    TRAIN_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    CONNECTIONS_FIELD_NUMBER: _ClassVar[int]
    HALTS_FIELD_NUMBER: _ClassVar[int]
    HEXES_FIELD_NUMBER: _ClassVar[int]
    REVENUE_FIELD_NUMBER: _ClassVar[int]
    REVENUE_STR_FIELD_NUMBER: _ClassVar[int]
    SUBSIDY_FIELD_NUMBER: _ClassVar[int]
    train: str
    nodes: _containers.RepeatedScalarFieldContainer[str]
    connections: _containers.RepeatedCompositeFieldContainer[Connection]
    halts: int
    hexes: _containers.RepeatedScalarFieldContainer[str]
    revenue: int
    revenue_str: str
    subsidy: int
    def __init__(self, train: _Optional[str] = ..., nodes: _Optional[_Iterable[str]] = ..., connections: _Optional[_Iterable[_Union[Connection, _Mapping]]] = ..., halts: _Optional[int] = ..., hexes: _Optional[_Iterable[str]] = ..., revenue: _Optional[int] = ..., revenue_str: _Optional[str] = ..., subsidy: _Optional[int] = ...) -> None: ...

class RunRoutesAction(_message.Message):
    __slots__ = ("type", "entity", "entity_type", "routes")
    class Route(_message.Message):
        __slots__ = ("train", "connections", "nodes", "halts")
        TRAIN_FIELD_NUMBER: _ClassVar[int]
        CONNECTIONS_FIELD_NUMBER: _ClassVar[int]
        NODES_FIELD_NUMBER: _ClassVar[int]
        HALTS_FIELD_NUMBER: _ClassVar[int]
        train: str
        connections: _containers.RepeatedCompositeFieldContainer[_struct_pb2.ListValue]
        nodes: _containers.RepeatedScalarFieldContainer[str]
        halts: int
        def __init__(self, train: _Optional[str] = ..., connections: _Optional[_Iterable[_Union[_struct_pb2.ListValue, _Mapping]]] = ..., nodes: _Optional[_Iterable[str]] = ..., halts: _Optional[int] = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    ENTITY_FIELD_NUMBER: _ClassVar[int]
    ENTITY_TYPE_FIELD_NUMBER: _ClassVar[int]
    ROUTES_FIELD_NUMBER: _ClassVar[int]
    type: str
    entity: str
    entity_type: str
    routes: _containers.RepeatedCompositeFieldContainer[RunRoutesAction.Route]
    def __init__(self, type: _Optional[str] = ..., entity: _Optional[str] = ..., entity_type: _Optional[str] = ..., routes: _Optional[_Iterable[_Union[RunRoutesAction.Route, _Mapping]]] = ...) -> None: ...

class Stop(_message.Message):
    __slots__ = ("node", "value", "paid")
    NODE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    PAID_FIELD_NUMBER: _ClassVar[int]
    node: str
    value: int
    paid: bool
    def __init__(self, node: _Optional[str] = ..., value: _Optional[int] = ..., paid: _Optional[bool] = ...) -> None: ...

class Bonus(_message.Message):
    __slots__ = ("name", "amount")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    name: str
    amount: int
    def __init__(self, name: _Optional[str] = ..., amount: _Optional[int] = ...) -> None: ...

class RouteError(_message.Message):
    __slots__ = ("rule", "message", "where")
    RULE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    WHERE_FIELD_NUMBER: _ClassVar[int]
    rule: str
    message: str
    where: str
    def __init__(self, rule: _Optional[str] = ..., message: _Optional[str] = ..., where: _Optional[str] = ...) -> None: ...

class RouteResult(_message.Message):
    __slots__ = ("train", "revenue", "nodes", "connections", "stops", "bonuses", "error", "halts", "subsidy")
    TRAIN_FIELD_NUMBER: _ClassVar[int]
    REVENUE_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    CONNECTIONS_FIELD_NUMBER: _ClassVar[int]
    STOPS_FIELD_NUMBER: _ClassVar[int]
    BONUSES_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    HALTS_FIELD_NUMBER: _ClassVar[int]
    SUBSIDY_FIELD_NUMBER: _ClassVar[int]
    train: str
    revenue: int
    nodes: _containers.RepeatedScalarFieldContainer[str]
    connections: _containers.RepeatedCompositeFieldContainer[Connection]
    stops: _containers.RepeatedCompositeFieldContainer[Stop]
    bonuses: _containers.RepeatedCompositeFieldContainer[Bonus]
    error: RouteError
    halts: int
    subsidy: int
    def __init__(self, train: _Optional[str] = ..., revenue: _Optional[int] = ..., nodes: _Optional[_Iterable[str]] = ..., connections: _Optional[_Iterable[_Union[Connection, _Mapping]]] = ..., stops: _Optional[_Iterable[_Union[Stop, _Mapping]]] = ..., bonuses: _Optional[_Iterable[_Union[Bonus, _Mapping]]] = ..., error: _Optional[_Union[RouteError, _Mapping]] = ..., halts: _Optional[int] = ..., subsidy: _Optional[int] = ...) -> None: ...

class EvaluateRequest(_message.Message):
    __slots__ = ("board", "company", "routes", "run_routes")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    COMPANY_FIELD_NUMBER: _ClassVar[int]
    ROUTES_FIELD_NUMBER: _ClassVar[int]
    RUN_ROUTES_FIELD_NUMBER: _ClassVar[int]
    board: Board
    company: Company
    routes: _containers.RepeatedCompositeFieldContainer[Route]
    run_routes: RunRoutesAction
    def __init__(self, board: _Optional[_Union[Board, _Mapping]] = ..., company: _Optional[_Union[Company, _Mapping]] = ..., routes: _Optional[_Iterable[_Union[Route, _Mapping]]] = ..., run_routes: _Optional[_Union[RunRoutesAction, _Mapping]] = ...) -> None: ...

class EvaluateResponse(_message.Message):
    __slots__ = ("legal", "revenue", "routes", "run_error", "subsidy")
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    REVENUE_FIELD_NUMBER: _ClassVar[int]
    ROUTES_FIELD_NUMBER: _ClassVar[int]
    RUN_ERROR_FIELD_NUMBER: _ClassVar[int]
    SUBSIDY_FIELD_NUMBER: _ClassVar[int]
    legal: bool
    revenue: int
    routes: _containers.RepeatedCompositeFieldContainer[RouteResult]
    run_error: RouteError
    subsidy: int
    def __init__(self, legal: _Optional[bool] = ..., revenue: _Optional[int] = ..., routes: _Optional[_Iterable[_Union[RouteResult, _Mapping]]] = ..., run_error: _Optional[_Union[RouteError, _Mapping]] = ..., subsidy: _Optional[int] = ...) -> None: ...

class SolveRequest(_message.Message):
    __slots__ = ("board", "company", "deadline_ms", "objective", "holding")
    BOARD_FIELD_NUMBER: _ClassVar[int]
    COMPANY_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    OBJECTIVE_FIELD_NUMBER: _ClassVar[int]
    HOLDING_FIELD_NUMBER: _ClassVar[int]
    board: Board
    company: Company
    deadline_ms: int
    objective: str
    holding: _dividends_pb2.Holding
    def __init__(self, board: _Optional[_Union[Board, _Mapping]] = ..., company: _Optional[_Union[Company, _Mapping]] = ..., deadline_ms: _Optional[int] = ..., objective: _Optional[str] = ..., holding: _Optional[_Union[_dividends_pb2.Holding, _Mapping]] = ...) -> None: ...

class SolveStats(_message.Message):
    __slots__ = ("candidate_routes", "nodes_explored", "elapsed_ms", "timed_out", "compile_ms")
    CANDIDATE_ROUTES_FIELD_NUMBER: _ClassVar[int]
    NODES_EXPLORED_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_MS_FIELD_NUMBER: _ClassVar[int]
    TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    COMPILE_MS_FIELD_NUMBER: _ClassVar[int]
    candidate_routes: int
    nodes_explored: int
    elapsed_ms: float
    timed_out: bool
    compile_ms: float
    def __init__(self, candidate_routes: _Optional[int] = ..., nodes_explored: _Optional[int] = ..., elapsed_ms: _Optional[float] = ..., timed_out: _Optional[bool] = ..., compile_ms: _Optional[float] = ...) -> None: ...

class SolveResponse(_message.Message):
    __slots__ = ("revenue", "routes", "optimal", "upper_bound", "stats", "note", "run_routes", "subsidy", "dividends")
    REVENUE_FIELD_NUMBER: _ClassVar[int]
    ROUTES_FIELD_NUMBER: _ClassVar[int]
    OPTIMAL_FIELD_NUMBER: _ClassVar[int]
    UPPER_BOUND_FIELD_NUMBER: _ClassVar[int]
    STATS_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    RUN_ROUTES_FIELD_NUMBER: _ClassVar[int]
    SUBSIDY_FIELD_NUMBER: _ClassVar[int]
    DIVIDENDS_FIELD_NUMBER: _ClassVar[int]
    revenue: int
    routes: _containers.RepeatedCompositeFieldContainer[RouteResult]
    optimal: bool
    upper_bound: int
    stats: SolveStats
    note: str
    run_routes: RunRoutesAction
    subsidy: int
    dividends: _containers.RepeatedCompositeFieldContainer[_dividends_pb2.DividendOption]
    def __init__(self, revenue: _Optional[int] = ..., routes: _Optional[_Iterable[_Union[RouteResult, _Mapping]]] = ..., optimal: _Optional[bool] = ..., upper_bound: _Optional[int] = ..., stats: _Optional[_Union[SolveStats, _Mapping]] = ..., note: _Optional[str] = ..., run_routes: _Optional[_Union[RunRoutesAction, _Mapping]] = ..., subsidy: _Optional[int] = ..., dividends: _Optional[_Iterable[_Union[_dividends_pb2.DividendOption, _Mapping]]] = ...) -> None: ...

class DividendsRequest(_message.Message):
    __slots__ = ("title", "options", "company", "holding", "revenue", "subsidy", "evaluate")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TITLE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    COMPANY_FIELD_NUMBER: _ClassVar[int]
    HOLDING_FIELD_NUMBER: _ClassVar[int]
    REVENUE_FIELD_NUMBER: _ClassVar[int]
    SUBSIDY_FIELD_NUMBER: _ClassVar[int]
    EVALUATE_FIELD_NUMBER: _ClassVar[int]
    title: str
    options: _containers.ScalarMap[str, str]
    company: str
    holding: _dividends_pb2.Holding
    revenue: int
    subsidy: int
    evaluate: EvaluateRequest
    def __init__(self, title: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., company: _Optional[str] = ..., holding: _Optional[_Union[_dividends_pb2.Holding, _Mapping]] = ..., revenue: _Optional[int] = ..., subsidy: _Optional[int] = ..., evaluate: _Optional[_Union[EvaluateRequest, _Mapping]] = ...) -> None: ...

class DividendsResponse(_message.Message):
    __slots__ = ("title", "company", "revenue", "subsidy", "share_price", "price", "total_shares", "capitalization", "options")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    COMPANY_FIELD_NUMBER: _ClassVar[int]
    REVENUE_FIELD_NUMBER: _ClassVar[int]
    SUBSIDY_FIELD_NUMBER: _ClassVar[int]
    SHARE_PRICE_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SHARES_FIELD_NUMBER: _ClassVar[int]
    CAPITALIZATION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    title: str
    company: str
    revenue: int
    subsidy: int
    share_price: _containers.RepeatedScalarFieldContainer[int]
    price: int
    total_shares: int
    capitalization: str
    options: _containers.RepeatedCompositeFieldContainer[_dividends_pb2.DividendOption]
    def __init__(self, title: _Optional[str] = ..., company: _Optional[str] = ..., revenue: _Optional[int] = ..., subsidy: _Optional[int] = ..., share_price: _Optional[_Iterable[int]] = ..., price: _Optional[int] = ..., total_shares: _Optional[int] = ..., capitalization: _Optional[str] = ..., options: _Optional[_Iterable[_Union[_dividends_pb2.DividendOption, _Mapping]]] = ...) -> None: ...

class ListTitlesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class TitleInfo(_message.Message):
    __slots__ = ("name", "description", "layout", "trains", "phases", "options")
    class Train(_message.Message):
        __slots__ = ("name", "description")
        NAME_FIELD_NUMBER: _ClassVar[int]
        DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
        name: str
        description: str
        def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...
    class Phase(_message.Message):
        __slots__ = ("name", "tiles", "train_limit")
        NAME_FIELD_NUMBER: _ClassVar[int]
        TILES_FIELD_NUMBER: _ClassVar[int]
        TRAIN_LIMIT_FIELD_NUMBER: _ClassVar[int]
        name: str
        tiles: _containers.RepeatedScalarFieldContainer[str]
        train_limit: int
        def __init__(self, name: _Optional[str] = ..., tiles: _Optional[_Iterable[str]] = ..., train_limit: _Optional[int] = ...) -> None: ...
    class Option(_message.Message):
        __slots__ = ("name", "description", "changes_routes")
        NAME_FIELD_NUMBER: _ClassVar[int]
        DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
        CHANGES_ROUTES_FIELD_NUMBER: _ClassVar[int]
        name: str
        description: str
        changes_routes: bool
        def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., changes_routes: _Optional[bool] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    LAYOUT_FIELD_NUMBER: _ClassVar[int]
    TRAINS_FIELD_NUMBER: _ClassVar[int]
    PHASES_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    layout: str
    trains: _containers.RepeatedCompositeFieldContainer[TitleInfo.Train]
    phases: _containers.RepeatedCompositeFieldContainer[TitleInfo.Phase]
    options: _containers.RepeatedCompositeFieldContainer[TitleInfo.Option]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., layout: _Optional[str] = ..., trains: _Optional[_Iterable[_Union[TitleInfo.Train, _Mapping]]] = ..., phases: _Optional[_Iterable[_Union[TitleInfo.Phase, _Mapping]]] = ..., options: _Optional[_Iterable[_Union[TitleInfo.Option, _Mapping]]] = ...) -> None: ...

class ListTitlesResponse(_message.Message):
    __slots__ = ("titles",)
    TITLES_FIELD_NUMBER: _ClassVar[int]
    titles: _containers.RepeatedCompositeFieldContainer[TitleInfo]
    def __init__(self, titles: _Optional[_Iterable[_Union[TitleInfo, _Mapping]]] = ...) -> None: ...
