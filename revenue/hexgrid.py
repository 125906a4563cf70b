"""Hex names, doubled coordinates and neighbours, as 18xx.games defines them (rules/base.md section 1).

A hex name is letters then a number (`F9`, `AA12`). Pointy layouts take x from the number and y from the
letter; flat layouts the other way round. Coordinates are "doubled": pointy rows step 2 in x, flat columns
step 2 in y. Edges 0-5 run clockwise; a tile rotated by r shows its local edge e on map edge (e + r) % 6.
"""
from __future__ import annotations

import re

_NAME = re.compile(r"^([A-Z]+)(-?\d+)$")

# (dx, dy) per edge, in doubled coordinates.
OFFSETS = {
    "pointy": ((-1, 1), (-2, 0), (-1, -1), (1, -1), (2, 0), (1, 1)),
    "flat": ((0, 2), (-1, 1), (-1, -1), (0, -2), (1, -1), (1, 1)),
}
LAYOUTS = tuple(OFFSETS)


def letters_to_index(letters: str) -> int:
    """A=0 ... Z=25, AA=26 ... AZ=51 (the engine's two-letter scheme)."""
    if len(letters) == 1:
        return ord(letters) - 65
    return 26 * (len(letters) - 1) + ord(letters[-1]) - 65


def index_to_letters(i: int) -> str:
    return chr(65 + i) if i < 26 else "A" * (i // 26) + chr(65 + i % 26)


def parse_name(name: str) -> tuple[int, int]:
    """`F9` -> (letter index 5, number 9). Raises ValueError for a malformed name."""
    m = _NAME.match(name) if isinstance(name, str) else None
    if not m:
        raise ValueError(f"{name!r} is not a hex name like F9")
    return letters_to_index(m.group(1)), int(m.group(2))


def coordinates(name: str, layout: str) -> tuple[int, int]:
    """Doubled (x, y) of a hex with the default axes of its layout."""
    letter, number = parse_name(name)
    return (number - 1, letter) if layout == "pointy" else (letter, number - 1)


def name_at(x: int, y: int, layout: str) -> str | None:
    """The name of the hex at doubled (x, y), or None off the lettered grid."""
    letter, number = (y, x + 1) if layout == "pointy" else (x, y + 1)
    return f"{index_to_letters(letter)}{number}" if letter >= 0 else None


def neighbour_name(name: str, edge: int, layout: str) -> str | None:
    """The name of the hex across `edge` (whether or not it is on the map)."""
    x, y = coordinates(name, layout)
    dx, dy = OFFSETS[layout][edge]
    return name_at(x + dx, y + dy, layout)


def opposite(edge: int) -> int:
    return (edge + 3) % 6
