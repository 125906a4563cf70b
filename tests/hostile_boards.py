"""Boards within every documented limit that a careless or hostile client may send (issue 40): their track
graphs are huge, so they test the budgets of the track graph's build, not the search."""
from __future__ import annotations

import random

from revenue import hexgrid

ALL_SIDES = range(6)
PAIRS = [(a, b) for a in ALL_SIDES for b in ALL_SIDES if a < b]


def _names(n_hexes: int, layout: str = "pointy") -> list[str]:
    """n_hexes names of a near-square pointy map."""
    width = max(1, round(n_hexes ** 0.5))
    height = -(-n_hexes // width)
    names = [hexgrid.name_at(x, y, layout) for y in range(height) for x in range(width * 2) if (x + y) % 2 == 0]
    return names[:n_hexes]


def _request(names_codes: list[tuple[str, str]], tokens: list[dict], trains: list[str]) -> dict:
    return {"board": {"title": "custom", "phase": "brown", "tiles": [],
                      "custom": {"layout": "pointy",
                                 "hexes": [{"hex": n, "code": c, "color": "brown"} for n, c in names_codes],
                                 "trains": [{"name": "D", "distance": 999}],
                                 "phases": [{"name": "brown", "tiles": ["yellow", "green", "brown"]}]},
                      "tokens": tokens},
            "company": {"id": "A", "trains": [{"name": t} for t in trains]}}


def mixed_board(n_hexes: int = 400, seed: int = 40) -> dict:
    """A solve request: n_hexes pointy hexes, 30% cities and 20% towns with track to all six sides, the rest
    junction hexes of 9 paths (six sides to a junction and three straight across), four D trains."""
    rng = random.Random(seed)
    city = "city=revenue:40,slots:2;" + ";".join(f"path=a:{e},b:_0" for e in ALL_SIDES)
    town = "town=revenue:20;" + ";".join(f"path=a:{e},b:_0" for e in ALL_SIDES)
    junction = "junction;" + ";".join(f"path=a:{e},b:_0" for e in ALL_SIDES) + \
        ";path=a:0,b:3;path=a:1,b:4;path=a:2,b:5"
    names = _names(n_hexes)
    codes = [city] * round(0.3 * n_hexes) + [town] * round(0.2 * n_hexes)
    codes += [junction] * (n_hexes - len(codes))
    rng.shuffle(codes)
    first_city = codes.index(city)
    return _request(list(zip(names, codes)), [{"hex": names[first_city], "city": 0, "company": "A"}],
                    ["D"] * 4)


def all_pairs_board(n_hexes: int = 20) -> dict:
    """A solve request: n_hexes hexes, each with a path joining every pair of its six sides (15 paths), the
    middle one a tokened city with track to all six sides as well, one D train."""
    names = _names(n_hexes)
    track = ";".join(f"path=a:{a},b:{b}" for a, b in PAIRS)
    codes = [track] * n_hexes
    middle = n_hexes // 2
    codes[middle] = "city=revenue:30;" + ";".join(f"path=a:{e},b:_0" for e in ALL_SIDES) + ";" + track
    return _request(list(zip(names, codes)), [{"hex": names[middle], "city": 0, "company": "A"}], ["D"])


def evaluate_request(solve_request: dict) -> dict:
    """An Evaluate request of the board of `solve_request` with one route of its first city."""
    board = solve_request["board"]
    token = board["tokens"][0]
    return {"board": board, "company": solve_request["company"],
            "routes": [{"train": solve_request["company"]["trains"][0]["name"],
                        "nodes": [f"{token['hex']}-0"]}]}
