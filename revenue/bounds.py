"""Bounds on the values a request may carry, checked where they enter (revenue.api for JSON, revenue.board,
revenue.company and revenue.steam for the library, the service's check_limits for gRPC).

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
    stack = [(value, where, False)]
    while stack and len(out) < most:
        item, path, is_text = stack.pop()
        if isinstance(item, str):
            limit = text if is_text else name
            if len(item) > limit:
                out.append((path, f"{len(item)} characters; at most {limit} are allowed"))
        elif hasattr(item, "items"):
            if len(item) > entries:
                out.append((path, f"{len(item)} entries; at most {entries} are allowed"))
                continue
            is_map = path.endswith("options")
            for key, sub in reversed(list(item.items())):
                key = str(key)
                if len(key) > name:
                    out.append((f"{path}[{key[:40]}...]", f"a key of {len(key)} characters; at most {name} "
                                                         f"are allowed"))
                    continue
                sub_path = f"{path}[{key}]" if is_map else (f"{path}.{key}" if path else key)
                stack.append((sub, sub_path, is_map or key in TEXT_FIELDS))
        elif isinstance(item, (list, tuple)):
            if len(item) > entries:
                out.append((path, f"{len(item)} entries; at most {entries} are allowed"))
                continue
            for i in range(len(item) - 1, -1, -1):
                stack.append((item[i], f"{path}[{i}]", is_text))
    return out
