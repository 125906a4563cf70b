from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DeliveriesRequest(_message.Message):
    __slots__ = ("stops", "links", "cubes", "players", "player", "ruleset", "own_majority", "require_own_link", "max_level", "top_k", "round")
    class Stop(_message.Message):
        __slots__ = ("id", "kind", "colour", "hex")
        ID_FIELD_NUMBER: _ClassVar[int]
        KIND_FIELD_NUMBER: _ClassVar[int]
        COLOUR_FIELD_NUMBER: _ClassVar[int]
        HEX_FIELD_NUMBER: _ClassVar[int]
        id: str
        kind: str
        colour: str
        hex: str
        def __init__(self, id: _Optional[str] = ..., kind: _Optional[str] = ..., colour: _Optional[str] = ..., hex: _Optional[str] = ...) -> None: ...
    class Link(_message.Message):
        __slots__ = ("id", "a", "b", "owner", "complete")
        ID_FIELD_NUMBER: _ClassVar[int]
        A_FIELD_NUMBER: _ClassVar[int]
        B_FIELD_NUMBER: _ClassVar[int]
        OWNER_FIELD_NUMBER: _ClassVar[int]
        COMPLETE_FIELD_NUMBER: _ClassVar[int]
        id: str
        a: str
        b: str
        owner: str
        complete: bool
        def __init__(self, id: _Optional[str] = ..., a: _Optional[str] = ..., b: _Optional[str] = ..., owner: _Optional[str] = ..., complete: _Optional[bool] = ...) -> None: ...
    class Cubes(_message.Message):
        __slots__ = ("stop", "colour", "count")
        STOP_FIELD_NUMBER: _ClassVar[int]
        COLOUR_FIELD_NUMBER: _ClassVar[int]
        COUNT_FIELD_NUMBER: _ClassVar[int]
        stop: str
        colour: str
        count: int
        def __init__(self, stop: _Optional[str] = ..., colour: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...
    class Player(_message.Message):
        __slots__ = ("id", "level", "upgraded")
        ID_FIELD_NUMBER: _ClassVar[int]
        LEVEL_FIELD_NUMBER: _ClassVar[int]
        UPGRADED_FIELD_NUMBER: _ClassVar[int]
        id: str
        level: int
        upgraded: bool
        def __init__(self, id: _Optional[str] = ..., level: _Optional[int] = ..., upgraded: _Optional[bool] = ...) -> None: ...
    STOPS_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    CUBES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    RULESET_FIELD_NUMBER: _ClassVar[int]
    OWN_MAJORITY_FIELD_NUMBER: _ClassVar[int]
    REQUIRE_OWN_LINK_FIELD_NUMBER: _ClassVar[int]
    MAX_LEVEL_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    stops: _containers.RepeatedCompositeFieldContainer[DeliveriesRequest.Stop]
    links: _containers.RepeatedCompositeFieldContainer[DeliveriesRequest.Link]
    cubes: _containers.RepeatedCompositeFieldContainer[DeliveriesRequest.Cubes]
    players: _containers.RepeatedCompositeFieldContainer[DeliveriesRequest.Player]
    player: str
    ruleset: str
    own_majority: bool
    require_own_link: bool
    max_level: int
    top_k: int
    round: int
    def __init__(self, stops: _Optional[_Iterable[_Union[DeliveriesRequest.Stop, _Mapping]]] = ..., links: _Optional[_Iterable[_Union[DeliveriesRequest.Link, _Mapping]]] = ..., cubes: _Optional[_Iterable[_Union[DeliveriesRequest.Cubes, _Mapping]]] = ..., players: _Optional[_Iterable[_Union[DeliveriesRequest.Player, _Mapping]]] = ..., player: _Optional[str] = ..., ruleset: _Optional[str] = ..., own_majority: _Optional[bool] = ..., require_own_link: _Optional[bool] = ..., max_level: _Optional[int] = ..., top_k: _Optional[int] = ..., round: _Optional[int] = ...) -> None: ...

class DeliveriesResponse(_message.Message):
    __slots__ = ("best", "deliveries", "undeliverable", "plan", "plan_alternatives", "player", "level", "rules", "explored")
    class Delivery(_message.Message):
        __slots__ = ("colour", "stops", "links", "destination", "own_points", "other_points", "points_by_owner")
        class PointsByOwnerEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: int
            def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
        COLOUR_FIELD_NUMBER: _ClassVar[int]
        STOPS_FIELD_NUMBER: _ClassVar[int]
        LINKS_FIELD_NUMBER: _ClassVar[int]
        DESTINATION_FIELD_NUMBER: _ClassVar[int]
        OWN_POINTS_FIELD_NUMBER: _ClassVar[int]
        OTHER_POINTS_FIELD_NUMBER: _ClassVar[int]
        POINTS_BY_OWNER_FIELD_NUMBER: _ClassVar[int]
        colour: str
        stops: _containers.RepeatedScalarFieldContainer[str]
        links: _containers.RepeatedScalarFieldContainer[str]
        destination: str
        own_points: int
        other_points: int
        points_by_owner: _containers.ScalarMap[str, int]
        def __init__(self, colour: _Optional[str] = ..., stops: _Optional[_Iterable[str]] = ..., links: _Optional[_Iterable[str]] = ..., destination: _Optional[str] = ..., own_points: _Optional[int] = ..., other_points: _Optional[int] = ..., points_by_owner: _Optional[_Mapping[str, int]] = ...) -> None: ...
    class Undeliverable(_message.Message):
        __slots__ = ("stop", "colour", "count", "reason", "detail", "links_needed")
        STOP_FIELD_NUMBER: _ClassVar[int]
        COLOUR_FIELD_NUMBER: _ClassVar[int]
        COUNT_FIELD_NUMBER: _ClassVar[int]
        REASON_FIELD_NUMBER: _ClassVar[int]
        DETAIL_FIELD_NUMBER: _ClassVar[int]
        LINKS_NEEDED_FIELD_NUMBER: _ClassVar[int]
        stop: str
        colour: str
        count: int
        reason: str
        detail: str
        links_needed: int
        def __init__(self, stop: _Optional[str] = ..., colour: _Optional[str] = ..., count: _Optional[int] = ..., reason: _Optional[str] = ..., detail: _Optional[str] = ..., links_needed: _Optional[int] = ...) -> None: ...
    class PlanStep(_message.Message):
        __slots__ = ("round", "action", "delivery", "level")
        ROUND_FIELD_NUMBER: _ClassVar[int]
        ACTION_FIELD_NUMBER: _ClassVar[int]
        DELIVERY_FIELD_NUMBER: _ClassVar[int]
        LEVEL_FIELD_NUMBER: _ClassVar[int]
        round: int
        action: str
        delivery: DeliveriesResponse.Delivery
        level: int
        def __init__(self, round: _Optional[int] = ..., action: _Optional[str] = ..., delivery: _Optional[_Union[DeliveriesResponse.Delivery, _Mapping]] = ..., level: _Optional[int] = ...) -> None: ...
    class Plan(_message.Message):
        __slots__ = ("name", "steps", "own_points", "other_points", "level_after")
        NAME_FIELD_NUMBER: _ClassVar[int]
        STEPS_FIELD_NUMBER: _ClassVar[int]
        OWN_POINTS_FIELD_NUMBER: _ClassVar[int]
        OTHER_POINTS_FIELD_NUMBER: _ClassVar[int]
        LEVEL_AFTER_FIELD_NUMBER: _ClassVar[int]
        name: str
        steps: _containers.RepeatedCompositeFieldContainer[DeliveriesResponse.PlanStep]
        own_points: int
        other_points: int
        level_after: int
        def __init__(self, name: _Optional[str] = ..., steps: _Optional[_Iterable[_Union[DeliveriesResponse.PlanStep, _Mapping]]] = ..., own_points: _Optional[int] = ..., other_points: _Optional[int] = ..., level_after: _Optional[int] = ...) -> None: ...
    class Rules(_message.Message):
        __slots__ = ("ruleset", "own_majority", "require_own_link", "max_level")
        RULESET_FIELD_NUMBER: _ClassVar[int]
        OWN_MAJORITY_FIELD_NUMBER: _ClassVar[int]
        REQUIRE_OWN_LINK_FIELD_NUMBER: _ClassVar[int]
        MAX_LEVEL_FIELD_NUMBER: _ClassVar[int]
        ruleset: str
        own_majority: bool
        require_own_link: bool
        max_level: int
        def __init__(self, ruleset: _Optional[str] = ..., own_majority: _Optional[bool] = ..., require_own_link: _Optional[bool] = ..., max_level: _Optional[int] = ...) -> None: ...
    BEST_FIELD_NUMBER: _ClassVar[int]
    DELIVERIES_FIELD_NUMBER: _ClassVar[int]
    UNDELIVERABLE_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    PLAN_ALTERNATIVES_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    EXPLORED_FIELD_NUMBER: _ClassVar[int]
    best: DeliveriesResponse.Delivery
    deliveries: _containers.RepeatedCompositeFieldContainer[DeliveriesResponse.Delivery]
    undeliverable: _containers.RepeatedCompositeFieldContainer[DeliveriesResponse.Undeliverable]
    plan: DeliveriesResponse.Plan
    plan_alternatives: _containers.RepeatedCompositeFieldContainer[DeliveriesResponse.Plan]
    player: str
    level: int
    rules: DeliveriesResponse.Rules
    explored: int
    def __init__(self, best: _Optional[_Union[DeliveriesResponse.Delivery, _Mapping]] = ..., deliveries: _Optional[_Iterable[_Union[DeliveriesResponse.Delivery, _Mapping]]] = ..., undeliverable: _Optional[_Iterable[_Union[DeliveriesResponse.Undeliverable, _Mapping]]] = ..., plan: _Optional[_Union[DeliveriesResponse.Plan, _Mapping]] = ..., plan_alternatives: _Optional[_Iterable[_Union[DeliveriesResponse.Plan, _Mapping]]] = ..., player: _Optional[str] = ..., level: _Optional[int] = ..., rules: _Optional[_Union[DeliveriesResponse.Rules, _Mapping]] = ..., explored: _Optional[int] = ...) -> None: ...
