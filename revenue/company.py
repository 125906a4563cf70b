"""The company that runs: its id, the trains it owns (by name, duplicates allowed) and its privates."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter

from .bounds import MAX_NAME_CHARS, MAX_RUN_TOTAL, size_violations, small_within
from .errors import InputError, short_repr
from .titles.base import Title, TrainType


@dataclass(frozen=True)
class Company:
    id: str
    trains: tuple[TrainType, ...]
    privates: frozenset[str] = frozenset()


def build_company(request: dict, board, where: str = "company") -> Company:
    request = request or {}
    # A request of the usual shape read before for the same title data: its fields were checked then,
    # what depends on the board (the title's train types, the run total's bound) is read again.
    known = board.data.trains
    reading = _reading(request, known)
    if reading is not None:
        remembered = _READINGS.get(reading)
        if remembered is not None and remembered[0] is known:
            _, types, company, most = remembered
            title = board.title
            # (the base rules run the data's types as they are: those the company was made of)
            if type(title).company_train is not _DATA_TYPES or company.trains is not types:
                trains = tuple(map(title.company_train, types, repeat(board), repeat(False)))
                if any(map(_differ, trains, company.trains)):    # (1860's types follow the board's towns)
                    company = Company(company.id, trains, company.privates)
                    most = _most(trains)
            if board.stop_total * most > MAX_RUN_TOTAL:
                _check_most(most, board, where)
            return company
    # (a company is a few short names: the quick check passes it; else the walk names what is too long)
    too_long = not small_within(request) and size_violations(request, where, [], name=MAX_NAME_CHARS)
    if too_long:
        raise InputError(too_long[0][0], too_long[0][1], too_long[1:])
    company_id = request.get("id") or ""
    if not company_id:
        raise InputError(f"{where}.id", "the running company needs an id (the owner of its tokens)")
    trains = []
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
    most = _most(trains)
    _check_most(most, board, where)
    company = Company(company_id, tuple(trains), frozenset(privates))
    if reading is not None and not some_leased:
        if len(_READINGS) >= READINGS:
            _READINGS.clear()
        types = tuple(known[name] for name in reading[2])
        # (the company's own tuple when its trains are the data's types: build_company then tells by identity)
        _READINGS[reading] = (known, company.trains if all(map(_same, company.trains, types)) else types, company,
                              most)
    return company


READINGS = 4096     # company readings remembered (title data x ids x train lists x privates)
_READINGS: dict[tuple, tuple] = {}    # (id of the data's trains, _reading) -> (those trains, the data's
#                                       types of the request's trains, the Company, its _most)
_COMPANY_FIELDS = frozenset({"id", "trains", "privates"})
_STRINGS = frozenset({str})
_DICTS = frozenset({dict})
_NAME = itemgetter("name")
_DATA_TYPES = Title.company_train    # the base rules' hook: a train runs as the data's type


def _reading(request, known: dict) -> tuple | None:
    """What a company request of the usual shape is remembered by: (id of the title data's trains `known`,
    id, train names, privates) when the id
    and every name and private are strings and every train is a dict of its name alone (owned, not
    leased); None for any other shape (always read in full)."""
    if type(request) is not dict or not _COMPANY_FIELDS.issuperset(request):
        return None
    company_id, trains, privates = request.get("id"), request.get("trains") or (), request.get("privates") or ()
    if type(company_id) is not str or type(trains) not in (list, tuple) or type(privates) not in (list, tuple):
        return None
    if not _DICTS.issuperset(map(type, trains)) or sum(map(len, trains)) != len(trains):
        return None
    try:
        names = tuple(map(_NAME, trains))
    except KeyError:
        return None
    if not _STRINGS.issuperset(map(type, names)) or not _STRINGS.issuperset(map(type, privates)):
        return None
    return id(known), company_id, names, tuple(privates)


def _differ(a, b) -> bool:
    return a is not b


def _same(a, b) -> bool:
    return a is b


def _most(trains) -> int:
    """The trains' largest multipliers summed (what one stop can pay them together at most)."""
    return sum(max([t.multiplier] + [r.multiplier or 0 for r in t.rows]) for t in trains)


def _check_most(most: int, board, where: str) -> None:
    """Bad input when the trains could earn more than a response holds: every train visiting every stop of
    the board at its largest multiplier bounds any run (bonuses aside, for which MAX_RUN_TOTAL leaves
    room), so a run that passes can never overflow the int32 revenue of an answer."""
    most = board.stop_total * most
    if most > MAX_RUN_TOTAL:
        raise InputError(f"{where}.trains", f"these trains on this board could earn up to {most}, more than "
                                            f"the {MAX_RUN_TOTAL} a run may total; lower the revenues or "
                                            f"multipliers")
