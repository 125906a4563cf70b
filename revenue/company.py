"""The company that runs: its id, the trains it owns (by name, duplicates allowed) and its privates."""
from __future__ import annotations

from dataclasses import dataclass

from .errors import InputError
from .titles.base import TrainType


@dataclass(frozen=True)
class Company:
    id: str
    trains: tuple[TrainType, ...]
    privates: frozenset[str] = frozenset()


def build_company(request: dict, board, where: str = "company") -> Company:
    request = request or {}
    company_id = request.get("id") or ""
    if not company_id:
        raise InputError(f"{where}.id", "the running company needs an id (the owner of its tokens)")
    trains = []
    known = board.data.trains
    for i, t in enumerate(request.get("trains") or ()):
        name = (t.get("name") if isinstance(t, dict) else t) or ""
        if name not in known:
            raise InputError(f"{where}.trains[{i}].name",
                             f"unknown train {name!r} for {board.title.name} (known: {', '.join(known)})")
        leased = bool(isinstance(t, dict) and t.get("leased"))
        train = board.title.company_train(known[name], board, leased)
        if train is None:
            raise InputError(f"{where}.trains[{i}].leased", f"{board.title.name} has no leased trains")
        trains.append(train)
    for i, train in enumerate(trains):
        if any(o.name == train.name and o.leased != train.leased for o in trains[:i]):
            raise InputError(f"{where}.trains[{i}]", f"a {train.name} train both leased and owned (the "
                             "request's train names could not tell them apart)")
    privates = request.get("privates") or ()
    for i, p in enumerate(privates):
        if not isinstance(p, str) or not p:
            raise InputError(f"{where}.privates[{i}]", "a private is named by its id, e.g. VES")
    return Company(company_id, tuple(trains), frozenset(privates))
