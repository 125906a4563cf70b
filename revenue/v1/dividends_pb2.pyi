from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Holder(_message.Message):
    __slots__ = ("id", "shares")
    ID_FIELD_NUMBER: _ClassVar[int]
    SHARES_FIELD_NUMBER: _ClassVar[int]
    id: str
    shares: float
    def __init__(self, id: _Optional[str] = ..., shares: _Optional[float] = ...) -> None: ...

class Holding(_message.Message):
    __slots__ = ("share_price", "holders", "total_shares", "capitalization")
    SHARE_PRICE_FIELD_NUMBER: _ClassVar[int]
    HOLDERS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SHARES_FIELD_NUMBER: _ClassVar[int]
    CAPITALIZATION_FIELD_NUMBER: _ClassVar[int]
    share_price: _containers.RepeatedScalarFieldContainer[int]
    holders: _containers.RepeatedCompositeFieldContainer[Holder]
    total_shares: int
    capitalization: str
    def __init__(self, share_price: _Optional[_Iterable[int]] = ..., holders: _Optional[_Iterable[_Union[Holder, _Mapping]]] = ..., total_shares: _Optional[int] = ..., capitalization: _Optional[str] = ...) -> None: ...

class HolderAmount(_message.Message):
    __slots__ = ("id", "shares", "amount", "paid_to")
    ID_FIELD_NUMBER: _ClassVar[int]
    SHARES_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    PAID_TO_FIELD_NUMBER: _ClassVar[int]
    id: str
    shares: float
    amount: int
    paid_to: str
    def __init__(self, id: _Optional[str] = ..., shares: _Optional[float] = ..., amount: _Optional[int] = ..., paid_to: _Optional[str] = ...) -> None: ...

class CashChange(_message.Message):
    __slots__ = ("id", "amount")
    ID_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    id: str
    amount: int
    def __init__(self, id: _Optional[str] = ..., amount: _Optional[int] = ...) -> None: ...

class DividendOption(_message.Message):
    __slots__ = ("kind", "kept", "per_share", "divs_to_company", "company_amount", "holders", "cash", "direction", "steps", "moved", "share_price_after", "price_after", "cell_types_after", "game_end")
    KIND_FIELD_NUMBER: _ClassVar[int]
    KEPT_FIELD_NUMBER: _ClassVar[int]
    PER_SHARE_FIELD_NUMBER: _ClassVar[int]
    DIVS_TO_COMPANY_FIELD_NUMBER: _ClassVar[int]
    COMPANY_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    HOLDERS_FIELD_NUMBER: _ClassVar[int]
    CASH_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    MOVED_FIELD_NUMBER: _ClassVar[int]
    SHARE_PRICE_AFTER_FIELD_NUMBER: _ClassVar[int]
    PRICE_AFTER_FIELD_NUMBER: _ClassVar[int]
    CELL_TYPES_AFTER_FIELD_NUMBER: _ClassVar[int]
    GAME_END_FIELD_NUMBER: _ClassVar[int]
    kind: str
    kept: int
    per_share: int
    divs_to_company: int
    company_amount: int
    holders: _containers.RepeatedCompositeFieldContainer[HolderAmount]
    cash: _containers.RepeatedCompositeFieldContainer[CashChange]
    direction: str
    steps: int
    moved: int
    share_price_after: _containers.RepeatedScalarFieldContainer[int]
    price_after: int
    cell_types_after: _containers.RepeatedScalarFieldContainer[str]
    game_end: bool
    def __init__(self, kind: _Optional[str] = ..., kept: _Optional[int] = ..., per_share: _Optional[int] = ..., divs_to_company: _Optional[int] = ..., company_amount: _Optional[int] = ..., holders: _Optional[_Iterable[_Union[HolderAmount, _Mapping]]] = ..., cash: _Optional[_Iterable[_Union[CashChange, _Mapping]]] = ..., direction: _Optional[str] = ..., steps: _Optional[int] = ..., moved: _Optional[int] = ..., share_price_after: _Optional[_Iterable[int]] = ..., price_after: _Optional[int] = ..., cell_types_after: _Optional[_Iterable[str]] = ..., game_end: _Optional[bool] = ...) -> None: ...
