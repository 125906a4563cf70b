"""The company that runs: its id, the trains it owns (by name, duplicates allowed) and its privates."""
from __future__ import annotations

from dataclasses import dataclass

from .bounds import MAX_NAME_CHARS, MAX_RUN_TOTAL, size_violations, small_within
from .errors import InputError, short_repr
from .titles.base import TrainType


@dataclass(frozen=True)
class Company:
    id: str
    trains: tuple[TrainType, ...]
    privates: frozenset[str] = frozenset()


def build_company(request: dict, board, where: str = "company") -> Company:
    request = request or {}
    # (a company is a few short names: the quick check passes it; else the walk names what is too long)
    too_long = not small_within(request) and size_violations(request, where, [], name=MAX_NAME_CHARS)
    if too_long:
        raise InputError(too_long[0][0], too_long[0][1], too_long[1:])
    company_id = request.get("id") or ""
    if not company_id:
        raise InputError(f"{where}.id", "the running company needs an id (the owner of its tokens)")
    trains = []
    known = board.data.trains
    some_leased = False
    for i, t in enumerate(request.get("trains") or ()):
        name = (t.get("name") if isinstance(t, dict) else t) or ""
        if name not in known:
            raise InputError(f"{where}.trains[{i}].name",
                             f"unknown train {short_repr(name)} for {board.title.name} (known: {', '.join(known)})")
        leased = bool(isinstance(t, dict) and t.get("leased"))
        some_leased = some_leased or leased
        train = board.title.company_train(known[name], board, leased)
        if train is None:
            raise InputError(f"{where}.trains[{i}].leased", f"{board.title.name} has no leased trains")
        trains.append(train)
    for i, train in enumerate(trains if some_leased else ()):
        if any(o.name == train.name and o.leased != train.leased for o in trains[:i]):
            raise InputError(f"{where}.trains[{i}]", f"a {train.name} train both leased and owned (the "
                             "request's train names could not tell them apart)")
    privates = request.get("privates") or ()
    for i, p in enumerate(privates):
        if not isinstance(p, str) or not p:
            raise InputError(f"{where}.privates[{i}]", "a private is named by its id, e.g. VES")
    _check_total(trains, board, where)
    return Company(company_id, tuple(trains), frozenset(privates))


def _check_total(trains: list[TrainType], board, where: str) -> None:
    """Bad input when the trains could earn more than a response holds: every train visiting every stop of
    the board at its largest multiplier bounds any run (bonuses aside, for which MAX_RUN_TOTAL leaves
    room), so a run that passes can never overflow the int32 revenue of an answer."""
    most = board.stop_total * sum(max([t.multiplier] + [r.multiplier or 0 for r in t.rows]) for t in trains)
    if most > MAX_RUN_TOTAL:
        raise InputError(f"{where}.trains", f"these trains on this board could earn up to {most}, more than "
                                            f"the {MAX_RUN_TOTAL} a run may total; lower the revenues or "
                                            f"multipliers")
