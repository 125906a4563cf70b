"""Random small boards for property tests: custom maps of a few hexes with random tiles, rotations,
tokens and train mixes (all described in the request, as a client of the custom title would)."""
from __future__ import annotations

import random
import re

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


def random_board(seed: int, max_trains: int = 3, width=(2, 4), height=(2, 3), tokens=(1, 2),
                 min_trains: int = 1) -> tuple[dict, dict, list[dict]]:
    """(board request, company request, train definitions) of a random custom board: `width` and `height`
    (ranges) in hexes, the company's `tokens` (a range), `min_trains` to `max_trains` trains."""
    rng = random.Random(seed)
    layout = rng.choice(["pointy", "flat"])
    width, height = rng.randint(*width), rng.randint(*height)
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
    owned = [rng.choice(trains)["name"] for _ in range(rng.randint(min_trains, max_trains))]
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
        if i < rng.randint(*tokens):
            board["tokens"].append({"hex": name, "city": c, "company": "A"})
        elif rng.random() < 0.4:
            for j in range(slots if rng.random() < 0.7 else 1):
                board["tokens"].append({"hex": name, "city": c, "company": f"B{j}"})
    company = {"id": "A", "trains": [{"name": t} for t in owned]}
    return board, company, [next(t for t in trains if t["name"] == name) for name in owned]


def linked_board(seed: int, width=(3, 4), height=(3, 3), link: float = 0.6, tokens=(1, 3), trains=(2, 3),
                 pool=None) -> tuple[dict, dict, list[dict]]:
    """A random custom board whose track joins up: each pair of neighbouring hexes is linked with
    probability `link`, and each hex's tile uses its links (a city, town or off-board on them, or plain
    track pairing them up); some hexes take a library tile turned to fit its links best. The company has
    `tokens` tokens (a range) and `trains` trains (a range) drawn from `pool` (default: TRAIN_POOL
    without D). Denser than random_board: more routes, more trains running, fewer empty answers."""
    rng = random.Random(seed)
    layout = rng.choice(["pointy", "flat"])
    w, h = rng.randint(*width), rng.randint(*height)
    names = [hexgrid.name_at(x, y, layout)
             for y in range(h * 2 if layout == "flat" else h)
             for x in range(w * 2 if layout == "pointy" else w) if (x + y) % 2 == 0]
    sides: dict[str, list[int]] = {n: [] for n in names}
    for name in names:
        for e in range(3, 6):
            other = hexgrid.neighbour_name(name, e, layout)
            if other in sides and rng.random() < link:
                sides[name].append(e)
                sides[other].append(hexgrid.opposite(e))
    r = lambda: rng.choice([10, 20, 30, 40, 50, 60])
    hexes, lays = [], []
    for name in names:
        ex = sorted(sides[name])
        roll = rng.random()
        if not ex:
            code = ""
        elif len(ex) == 1:
            term = ",terminal:1" if rng.random() < 0.5 else ""
            code = f"offboard=revenue:yellow_{r()}|brown_{r()};path=a:{ex[0]},b:_0{term}" if roll < 0.5 else \
                f"city=revenue:{r()};path=a:{ex[0]},b:_0" if roll < 0.8 else ""
        elif roll < 0.35:
            code = f"city=revenue:{r()},slots:{rng.choice([1, 1, 2])};" + ";".join(f"path=a:{e},b:_0" for e in ex)
        elif roll < 0.5:
            a, b = rng.sample(ex, 2)
            code = f"town=revenue:{rng.choice([10, 20])};path=a:{a},b:_0;path=a:_0,b:{b}"
        elif roll < 0.55 and len(ex) >= 4:
            a, b, c, d = rng.sample(ex, 4)
            code = (f"city=revenue:{r()};city=revenue:{r()};"
                    f"path=a:{a},b:_0;path=a:{b},b:_0;path=a:{c},b:_1;path=a:{d},b:_1")
        elif roll < 0.6:
            a, b = rng.sample(ex, 2)
            code = f"city=revenue:{r()};town=revenue:10;path=a:{a},b:_0;path=a:_0,b:_1;path=a:_1,b:{b}"
        else:
            pairs = [(a, b) for i, a in enumerate(ex) for b in ex[i + 1:]]
            rng.shuffle(pairs)
            code = ";".join(f"path=a:{a},b:{b}" for a, b in pairs[:rng.randint(1, 3)])
        hexes.append({"hex": name, "code": code, "color": "white"})
        if len(ex) >= 2 and rng.random() < 0.25:      # a library tile, turned to fit the links best
            tile = rng.choice(LIBRARY)
            exits = {int(e) for part in tile.split(";") if part.startswith("path=")
                     for e in re.findall(r"[ab]:(\d)", part)}
            rot = max(range(6), key=lambda k: (len({(e + k) % 6 for e in exits} & set(ex)), rng.random()))
            lays.append({"hex": name, "code": tile, "rotation": rot, "color": "green"})
            hexes[-1]["code"] = ""
    pool = pool or [t for t in TRAIN_POOL if t["name"] != "D"]
    kinds = rng.sample(pool, rng.randint(1, 2))
    owned = [rng.choice(kinds)["name"] for _ in range(rng.randint(*trains))]
    board = {"title": "custom", "phase": rng.choice(["yellow", "brown"]), "tiles": lays,
             "custom": {"layout": layout, "hexes": hexes, "trains": kinds,
                        "phases": [{"name": "yellow", "tiles": ["yellow"]},
                                   {"name": "brown", "tiles": ["yellow", "green", "brown"]}]},
             "tokens": []}
    laid = {lay["hex"]: lay["code"] for lay in lays}
    cities = []
    for hx in hexes:
        code = laid.get(hx["hex"], hx["code"])
        for c in range(code.count("city=")):
            cities.append((hx["hex"], c, 2 if "slots:2" in code and c == 0 else 1))
    rng.shuffle(cities)
    own = rng.randint(*tokens)
    for i, (name, c, slots) in enumerate(cities):
        if i < own:
            board["tokens"].append({"hex": name, "city": c, "company": "A"})
        elif rng.random() < 0.3:
            for j in range(slots if rng.random() < 0.7 else 1):
                board["tokens"].append({"hex": name, "city": c, "company": f"B{j}"})
    company = {"id": "A", "trains": [{"name": t} for t in owned]}
    return board, company, [next(t for t in kinds if t["name"] == name) for name in owned]
