"""Random small boards for property tests: custom maps of a few hexes with random tiles, rotations,
tokens and train mixes (all described in the request, as a client of the custom title would)."""
from __future__ import annotations

import random

from revenue import hexgrid

TRAIN_POOL = [
    {"name": "2", "distance": 2},
    {"name": "3", "distance": 3},
    {"name": "4", "distance": 4},
    {"name": "D", "distance": 999},
    {"name": "2+1", "rows": [{"nodes": ["city", "offboard"], "pay": 2, "visit": 2},
                             {"nodes": ["town", "halt"], "pay": 1, "visit": 99}]},
    {"name": "3+2", "rows": [{"nodes": ["city", "offboard"], "pay": 3, "visit": 3},
                             {"nodes": ["town", "halt"], "pay": 2, "visit": 99}]},
    {"name": "3T", "rows": [{"nodes": ["city", "offboard"], "pay": 3, "visit": 3},
                            {"nodes": ["town"], "pay": 99, "visit": 99}]},
    {"name": "2E", "rows": [{"nodes": ["city", "offboard"], "pay": 2, "visit": 2, "multiplier": 2},
                            {"nodes": ["town"], "pay": 0, "visit": 99}]},
    {"name": "5of8", "rows": [{"nodes": ["city", "offboard", "town"], "pay": 3, "visit": 5}]},
]


LIBRARY = [   # like the standard 18xx tiles: straight, curves, crossings, cities and towns
    "path=a:0,b:3", "path=a:0,b:2", "path=a:0,b:1", "path=a:0,b:3;path=a:1,b:4", "path=a:0,b:3;path=a:0,b:2",
    "path=a:0,b:2;path=a:2,b:4;path=a:0,b:4", "city=revenue:20;path=a:0,b:_0;path=a:3,b:_0",
    "city=revenue:30,slots:2;path=a:0,b:_0;path=a:1,b:_0;path=a:3,b:_0;path=a:4,b:_0",
    "town=revenue:10;path=a:0,b:_0;path=a:_0,b:3", "town=revenue:10;path=a:0,b:_0;path=a:_0,b:2",
    "city=revenue:40;city=revenue:40;path=a:0,b:_0;path=a:_0,b:2;path=a:3,b:_1;path=a:_1,b:5",
]


def random_tile(rng: random.Random, inward: list[int]) -> str:
    """A random tile code whose exits prefer the edges that face other hexes of the map."""
    def _edges(rng, k):
        edges = list(inward) + [e for e in range(6) if e not in inward]
        picked = []
        while len(picked) < k:
            e = edges[min(int(rng.expovariate(0.6)), len(edges) - 1)] if rng.random() < 0.3 else rng.choice(
                inward or list(range(6)))
            if e not in picked:
                picked.append(e)
            elif len(set(edges)) < k:
                break
            elif rng.random() < 0.2:
                picked.append(next(x for x in range(6) if x not in picked))
        return picked

    r = lambda: rng.choice([0, 10, 20, 30, 40, 50, 60])
    kind = rng.choices(["blank", "track", "track2", "city", "city2", "town", "offboard", "twocity", "citytown",
                        "bigcity"], weights=[1, 3, 3, 4, 3, 3, 2, 1, 1, 2])[0]
    if kind == "blank":
        return ""
    if kind == "track":
        a, b = _edges(rng, 2)
        return f"path=a:{a},b:{b}"
    if kind == "track2":
        a, b, c, d = _edges(rng, 4)
        return f"path=a:{a},b:{b};path=a:{c},b:{d}"
    if kind in ("city", "city2", "bigcity"):
        exits = _edges(rng, {"city": 2, "city2": 3, "bigcity": rng.randint(3, 6)}[kind])
        slots = rng.choice([1, 1, 2])
        return f"city=revenue:{r()},slots:{slots};" + ";".join(f"path=a:{e},b:_0" for e in exits)
    if kind == "town":
        a, b = _edges(rng, 2)
        return f"town=revenue:{rng.choice([10, 20])};path=a:{a},b:_0;path=a:_0,b:{b}"
    if kind == "offboard":
        exits = _edges(rng, rng.choice([1, 1, 2]))
        term = ",terminal:1" if rng.random() < 0.5 else ""
        group = ",groups:G" if rng.random() < 0.3 else ""
        return f"offboard=revenue:yellow_{r()}|brown_{r()}{group};" + ";".join(
            f"path=a:{e},b:_0{term}" for e in exits)
    if kind == "twocity":
        a, b, c, d = _edges(rng, 4)
        return f"city=revenue:{r()};city=revenue:{r()};path=a:{a},b:_0;path=a:{b},b:_0;path=a:{c},b:_1;path=a:{d},b:_1"
    a, b = _edges(rng, 2)
    return f"city=revenue:{r()};town=revenue:10;path=a:{a},b:_0;path=a:_0,b:_1;path=a:_1,b:{b}"


def random_board(seed: int, max_trains: int = 3) -> tuple[dict, dict, list[dict]]:
    """(board request, company request, train definitions) of a random custom board."""
    rng = random.Random(seed)
    layout = rng.choice(["pointy", "flat"])
    width, height = rng.randint(2, 4), rng.randint(2, 3)
    names = [hexgrid.name_at(x, y, layout)
             for y in range(height * 2 if layout == "flat" else height)
             for x in range(width * 2 if layout == "pointy" else width) if (x + y) % 2 == 0]
    hexes = []
    for name in names:
        inward = [e for e in range(6) if hexgrid.neighbour_name(name, e, layout) in names]
        hexes.append({"hex": name, "code": random_tile(rng, inward), "color": "white"})
    # Lay library tiles over some hexes, so identical tile codes recur at different rotations.
    lays = []
    for h in hexes:
        if rng.random() < 0.4:
            code = rng.choice(LIBRARY)
            lays.append({"hex": h["hex"], "code": code, "rotation": rng.randint(0, 5), "color": "green"})
            h["code"] = ""     # the printed hex is blank under a laid tile
    trains = rng.sample(TRAIN_POOL, rng.randint(1, 2))
    owned = [rng.choice(trains)["name"] for _ in range(rng.randint(1, max_trains))]
    board = {"title": "custom", "phase": rng.choice(["yellow", "brown"]), "tiles": lays,
             "custom": {"layout": layout, "hexes": hexes, "trains": trains,
                        "phases": [{"name": "yellow", "tiles": ["yellow"]},
                                   {"name": "brown", "tiles": ["yellow", "green", "brown"]}]},
             "tokens": []}
    cities = []
    laid = {lay["hex"]: lay["code"] for lay in lays}
    for h in hexes:
        code = laid.get(h["hex"], h["code"])
        n_cities = code.count("city=")
        for c in range(n_cities):
            cities.append((h["hex"], c, 2 if "slots:2" in code and c == 0 else 1))
    rng.shuffle(cities)
    for i, (name, c, slots) in enumerate(cities):
        if i < rng.randint(1, 2):
            board["tokens"].append({"hex": name, "city": c, "company": "A"})
        elif rng.random() < 0.4:
            for j in range(slots if rng.random() < 0.7 else 1):
                board["tokens"].append({"hex": name, "city": c, "company": f"B{j}"})
    company = {"id": "A", "trains": [{"name": t} for t in owned]}
    return board, company, [next(t for t in trains if t["name"] == name) for name in owned]
