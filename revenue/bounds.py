"""Bounds on the values a request may carry, checked where they enter (revenue.api for JSON,
revenue.board_request, revenue.company and revenue.steam for the library, the service's check_limits for gRPC).

Every string has a length, every number a range and every list a count that real games stay far below;
beyond them a request is bad input naming the field, never an answer the response type cannot hold
(int32 revenues) nor a cost without bound (memory, log lines, error details).
"""
from __future__ import annotations

from typing import Any

INT32_MAX = 2**31 - 1

MAX_NAME_CHARS = 200         # a name or id: hex, phase, title, train, node, company, colour, location, key
MAX_TEXT_CHARS = 4096        # a tile code (DSL) or an option value
MAX_LIST = 1000              # any list that has no tighter bound of its own
MAX_STOP_REVENUE = 100_000   # one stop's revenue in a tile code (real games: at most a few hundred)
MAX_MULTIPLIER = 100         # a train's or a distance row's revenue multiplier (real games: 1 to 3)
MAX_DISTANCE = 999           # stops of a train (18xx.games writes 99 or 999 for unlimited)
MAX_PHASE_COLOURS = 16       # tile colours of one phase
# The most the stops of a board could pay the company's trains together (each train visiting every stop
# at its multiplier): half of int32, so that title bonuses on top still fit a response's revenue.
MAX_RUN_TOTAL = INT32_MAX // 2

# Fields whose strings are code or free text rather than names.
TEXT_FIELDS = frozenset({"code"})


def size_violations(value: Any, where: str, out: list[tuple[str, str]], text: int = MAX_TEXT_CHARS,
                    name: int = MAX_NAME_CHARS, entries: int = MAX_LIST, most: int = 50) -> list[tuple[str, str]]:
    """Add to `out` every string in a JSON-shaped value longer than its bound (`text` for tile codes and
    map values, `name` for the rest, map keys included) and every list or map of more than `entries`
    (not looked into), as (field, description), until `out` holds `most`."""
    # Called on every request: a field's path is spelled out only for a violation (_spelled), and a string
    # within its bound, a number or a null is passed over where its container is read, never stacked.
    stack = [(value, where, False)]
    while stack and len(out) < most:
        item, path, is_text = stack.pop()
        if isinstance(item, str):
            limit = text if is_text else name
            if len(item) > limit:
                out.append((_spelled(path), f"{len(item)} characters; at most {limit} are allowed"))
        elif hasattr(item, "items"):
            if len(item) > entries:
                out.append((_spelled(path), f"{len(item)} entries; at most {entries} are allowed"))
                continue
            is_map = _ends_with_options(path)
            limit = text if is_map else name
            pushed = []
            for key, sub in reversed(list(item.items())):   # stacked last first: read in order
                if type(key) is not str:
                    key = str(key)
                if len(key) > name:
                    out.append((f"{_spelled(path)}[{key[:40]}...]", f"a key of {len(key)} characters; at most "
                                                                    f"{name} are allowed"))
                    continue
                kind = type(sub)
                if kind is str:
                    if len(sub) <= (text if key in TEXT_FIELDS else limit):
                        continue
                elif sub is None or kind is int or kind is bool or kind is float:
                    continue
                pushed.append((sub, (path, key, MAP_KEY if is_map else FIELD), is_map or key in TEXT_FIELDS))
            stack.extend(pushed)
        elif isinstance(item, (list, tuple)):
            if len(item) > entries:
                out.append((_spelled(path), f"{len(item)} entries; at most {entries} are allowed"))
                continue
            limit = text if is_text else name
            if _flat_dicts_within(item, name, text, entries):
                continue
            for i in range(len(item) - 1, -1, -1):
                sub = item[i]
                kind = type(sub)
                if kind is str and len(sub) <= limit or sub is None or kind is int or kind is float or kind is bool:
                    continue
                if kind is dict and len(sub) <= entries and _flat_within(sub, name, text):
                    continue
                stack.append((sub, (path, i, INDEX), is_text))
    return out


def small_within(value: Any, name: int = MAX_NAME_CHARS, entries: int = MAX_LIST, depth: int = 4) -> bool:
    """A quick check for a small request part (a company): True when every string in it, map keys
    included, is at most `name` characters (the tighter bound), every list or map has at most `entries`
    and it nests at most `depth` deep, so that size_violations would find nothing; False says nothing
    (size_violations then walks it and names what is over)."""
    kind = type(value)
    if kind is dict:
        for key in value:
            if type(key) is not str or len(key) > name:
                return False
        parts = value.values()
    elif kind is list or kind is tuple:
        parts = value
    else:
        parts = None
    if parts is not None:
        if len(value) > entries or not depth:
            return False
        for sub in parts:
            kind = type(sub)
            if kind is str:
                if len(sub) > name:
                    return False
            elif not (sub is None or kind is int or kind is bool or kind is float or
                      small_within(sub, name, entries, depth - 1)):
                return False
        return True
    if kind is str:
        return len(value) <= name
    return value is None or kind is int or kind is bool or kind is float


def _flat_within(fields: dict, name: int, text: int) -> bool:
    """A dict of a list (a tile lay, a token) whose keys are names and whose values are strings within
    their bounds, numbers or nulls: nothing in it to report."""
    for key, sub in fields.items():
        if type(key) is not str or len(key) > name:
            return False
        kind = type(sub)
        if kind is str:
            if len(sub) > (text if key in TEXT_FIELDS else name):
                return False
        elif not (sub is None or kind is int or kind is float or kind is bool):
            return False
    return True


_PLAIN = frozenset({str, int, float, bool, type(None)})


def _flat_dicts_within(items, name: int, text: int, entries: int) -> bool:
    """A list of flat dicts (a board's tile lays and tokens) with nothing to report, checked a field at a
    time over all the dicts (a board's hundred lays, each read by _flat_within, cost ~1 us each)."""
    if not items or set(map(type, items)) != {dict}:
        return False
    keys = set().union(*items)
    if len(keys) > entries or set(map(type, keys)) != {str} or max(map(len, keys)) > name:
        return False
    for key in keys:
        values = [d.get(key) for d in items]
        kinds = set(map(type, values))
        if not kinds <= _PLAIN:
            return False
        if str in kinds:
            limit = text if key in TEXT_FIELDS else name
            strings = values if len(kinds) == 1 else [v for v in values if type(v) is str]
            if max(map(len, strings)) > limit:
                return False
    return True


FIELD, MAP_KEY, INDEX = 0, 1, 2     # how a path step is spelled: .field, [map key], [index]


def _spelled(path) -> str:
    """A path as size_violations keeps it (the root's name, or (parent, step, how)) written out."""
    steps = []
    while isinstance(path, tuple):
        path, step, how = path
        steps.append((step, how))
    out = path
    for step, how in reversed(steps):
        out = f"{out}.{step}" if how == FIELD and out else (step if how == FIELD else f"{out}[{step}]")
    return out


def _ends_with_options(path) -> bool:
    """Whether the spelled path ends with "options" (its values are map values, checked as text)."""
    if isinstance(path, tuple):
        _, step, how = path
        return str(step).endswith("options") if how == FIELD else False
    return path.endswith("options")
