"""Scenario boards: the real printed maps of each title with tiles laid by a seeded, rule-shaped
generator, from early game (some yellow tiles, few tokens) to synthetic late game (every hex upgraded
as far as the manifest allows, many tokens), plus random custom boards.

Tile choice follows the spirit of the upgrade rules: a hex takes a tile with the same number of cities
and towns as its printed hex and the same label; plain hexes take plain track. The rotation is the one
whose exits best face other hexes with track (and keep a printed tile's exits), so the network is dense
like a real game's.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from revenue import hexgrid
from revenue.tiles import parse_tile
from revenue.titles import get_title

COLOURS = ("yellow", "green", "brown", "gray")


def _shape(code: str) -> tuple[int, int, tuple[str, ...]]:
    tile = parse_tile(code)
    cities = sum(1 for n in tile.node_parts if n.kind in ("city", "pass"))
    towns = sum(1 for n in tile.node_parts if n.kind in ("town", "halt"))
    return cities, towns, tuple(sorted(tile.labels))


def lay_tiles(title_name: str, colours: tuple[str, ...], fraction: float, seed: int,
              options: dict | None = None) -> list[dict]:
    """Tile lays for a board: each eligible hex, with probability `fraction`, gets the newest-colour
    manifest tile of its shape (within `colours`, respecting tile counts)."""
    rng = random.Random(seed)
    data = get_title(title_name).data(options or {})
    left = {name: (10**6 if t["count"] == "unlimited" else int(t["count"])) for name, t in data.manifest.items()}
    by_shape: dict[tuple, list[dict]] = {}
    for t in data.manifest.values():
        by_shape.setdefault(_shape(t["code"]), []).append(t)
    names = list(data.hexes)
    rng.shuffle(names)
    exits: dict[str, set[int]] = {}
    for name, mh in data.hexes.items():
        tile = parse_tile(mh.code)
        exits[name] = {(e + mh.rotation) % 6 for e in tile.exits()}
    chosen: dict[str, list[dict]] = {}
    for name in names:
        mh = data.hexes[name]
        if mh.color not in ("white", "yellow", "green", "brown") or rng.random() > fraction:
            continue
        start = COLOURS.index(mh.color) + 1 if mh.color in COLOURS else 0
        candidates = [t for t in by_shape.get(_shape(mh.code), ()) if t["color"] in colours[start:]
                      and left[t["name"]] > 0]
        if candidates:
            chosen[name] = candidates
    printed = dict(exits)
    placed: dict[str, tuple[dict, int]] = {}
    for _ in range(4):     # re-choose tiles and rotations until the exits face each other
        for name in names:
            if name not in chosen:
                continue
            if name in placed:
                left[placed[name][0]["name"]] += 1
            best = None
            for t in chosen[name]:
                if left[t["name"]] <= 0:
                    continue
                tile = parse_tile(t["code"])
                for rot in range(6):
                    ex = {(e + rot) % 6 for e in tile.exits()}
                    if not printed[name] <= ex:
                        continue
                    score = rng.random() * 0.3 + 4.0 * COLOURS.index(t["color"])   # newest colour first
                    for e in ex:
                        other = hexgrid.neighbour_name(name, e, data.layout)
                        if other not in data.hexes:
                            score -= 3.0
                        elif hexgrid.opposite(e) in exits[other]:
                            score += 2.0
                        elif data.hexes[other].color in ("gray", "red", "blue") or other not in chosen:
                            score -= 2.0
                        else:
                            score += 0.3
                    if best is None or score > best[0]:
                        best = (score, t, rot, ex)
            if best is None:
                placed.pop(name, None)
                continue
            _, t, rot, ex = best
            left[t["name"]] -= 1
            placed[name] = (t, rot)
            exits[name] = ex
    return [{"hex": name, "tile": t["name"], "rotation": rot} for name, (t, rot) in placed.items()]


def place_tokens(title_name: str, lays: list[dict], company: str, extra: int, others: int, seed: int,
                 options: dict | None = None) -> list[dict]:
    """The company's home token plus `extra` more in random cities; `others` tokens of other companies."""
    from revenue.board_request import build_board

    rng = random.Random(seed)
    board = build_board({"title": title_name, "tiles": lays, "options": options or {}})
    data = board.data
    corp = next(c for c in data.corporations if c["id"] == company)
    slots = []
    for name, bh in board.hexes.items():
        for i, city in enumerate(bh.tile.cities):
            if any(p.ends for p in bh.tile.paths if any(e.node == city.ordinal for e in p.ends)):
                slots.extend([(name, i)] * city.slots)
    tokens = []
    used: dict[tuple, list[str]] = {}

    def put(hex_name, city, who):
        key = (hex_name, city)
        cap = board.hexes[hex_name].tile.cities[city].slots
        if len(used.get(key, [])) < cap and who not in used.get(key, []):
            used.setdefault(key, []).append(who)
            tokens.append({"hex": hex_name, "city": city, "company": who})
            return True
        return False

    home_city = corp.get("city") or 0
    if home_city < len(board.hexes[corp["coordinates"]].tile.cities):
        put(corp["coordinates"], home_city, company)
    rng.shuffle(slots)
    for hex_name, city in slots:
        if extra <= 0:
            break
        extra -= put(hex_name, city, company)
    names = [c["id"] for c in data.corporations if c["id"] != company]
    rng.shuffle(slots)
    for hex_name, city in slots:
        if others <= 0:
            break
        others -= put(hex_name, city, rng.choice(names))
    return tokens


# 18Rhl hexes whose upgrades the shape rule of lay_tiles cannot find: the Rhine metropolises (three
# yellow cities become two green ones joined by the Trajekt, then one brown city) and Moers (brown 947).
RHL_SPECIAL = {"D9": ("X925", "X926", "929"), "F9": ("X921", "X922", "927"), "I10": ("X923", "X924", "928"),
               "D7": ("947",)}


def rhl_lays(colours: tuple[str, ...], fraction: float, seed: int, options: dict | None = None) -> list[dict]:
    """18Rhl tile lays: lay_tiles, then each of RHL_SPECIAL with probability `fraction` takes its newest
    tile within `colours`, keeping the printed exits and facing as much laid track as it can."""
    lays = lay_tiles("18rhl", colours, fraction, seed, options)
    rng = random.Random(seed * 7 + 1)
    data = get_title("18rhl").data(options or {})
    exits = {}
    for name, mh in data.hexes.items():
        exits[name] = {(e + mh.rotation) % 6 for e in parse_tile(mh.code).exits()}
    for lay in lays:
        exits[lay["hex"]] = {(e + lay["rotation"]) % 6 for e in parse_tile(data.manifest[lay["tile"]]["code"]).exits()}
    for name, tiles in RHL_SPECIAL.items():
        if rng.random() > fraction:
            continue
        options_ = [data.manifest[t] for t in tiles if t in data.manifest and data.manifest[t]["color"] in colours
                    and COLOURS.index(data.manifest[t]["color"]) > COLOURS.index(data.hexes[name].color)]
        if not options_:
            continue
        newest = max(COLOURS.index(t["color"]) for t in options_)
        best = None
        for t in options_:
            if COLOURS.index(t["color"]) != newest:
                continue
            for rot in range(6):
                ex = {(e + rot) % 6 for e in parse_tile(t["code"]).exits()}
                if not exits[name] <= ex:
                    continue
                score = rng.random() * 0.3 + sum(
                    2.0 for e in ex if hexgrid.opposite(e) in exits.get(hexgrid.neighbour_name(name, e, data.layout), ()))
                if best is None or score > best[0]:
                    best = (score, t["name"], rot, ex)
        if best:
            lays.append({"hex": name, "tile": best[1], "rotation": best[2]})
            exits[name] = best[3]
    return lays


@dataclass
class Scenario:
    name: str
    title: str
    request: dict

    @property
    def trains(self) -> str:
        return " ".join(t["name"] for t in self.request["company"]["trains"])


def _scenario(name, title, phase, colours, fraction, company, trains, extra, others, seed, privates=(),
              options=None):
    lays = lay_tiles(title, colours, fraction, seed, options)
    tokens = place_tokens(title, lays, company, extra, others, seed, options)
    board = {"title": title, "phase": phase, "tiles": lays, "tokens": tokens, "options": options or {}}
    return Scenario(name, title, {"board": board, "company": {"id": company, "trains": [{"name": t} for t in trains],
                                                               "privates": list(privates)}})


def _rhl_scenario(name, phase, colours, fraction, company, trains, extra, others, seed, options):
    """An 18Rhl board: rhl_lays (metropolises and Moers upgraded too) with coal/steel placement options."""
    lays = rhl_lays(colours, fraction, seed, options)
    tokens = place_tokens("18rhl", lays, company, extra, others, seed, options)
    board = {"title": "18rhl", "phase": phase, "tiles": lays, "tokens": tokens, "options": options}
    return Scenario(name, "18rhl", {"board": board, "company": {"id": company, "trains": [{"name": t} for t in trains],
                                                                 "privates": []}})


def title_scenarios() -> list[Scenario]:
    """Early, mid and late game per title (the late ones synthetic: everything upgraded)."""
    y, g, b = ("yellow",), ("yellow", "green"), ("yellow", "green", "brown")
    return [
        _scenario("1830 early", "1830", "2", y, 0.35, "PRR", ["2", "2"], 1, 3, 1),
        _scenario("1830 mid", "1830", "4", g, 0.7, "PRR", ["3", "4", "4"], 2, 10, 2),
        _scenario("1830 late", "1830", "D", b, 1.0, "PRR", ["5", "6", "D"], 3, 20, 3),
        _scenario("1830 late 2xD", "1830", "D", b, 1.0, "NYC", ["D", "D"], 3, 25, 4),
        _scenario("SoH early", "steam_over_holland", "2", y, 0.4, "HYSM", ["2", "2"], 1, 2, 5, ["VES"]),
        _scenario("SoH mid", "steam_over_holland", "4", g, 0.75, "NCS", ["3", "4"], 2, 6, 6, ["VES", "VVL"]),
        _scenario("SoH late 3E+6", "steam_over_holland", "6", b, 1.0, "NRS", ["6", "3E"], 3, 10, 7),
        _rhl_scenario("18Rhl early", "2", y, 0.4, "BME", ["2", "2"], 1, 3, 25, {"coal": "C12", "steel": "E6"}),
        _rhl_scenario("18Rhl mid", "4", g, 0.7, "BME", ["3", "4"], 2, 8, 8, {"coal": "D11", "steel": "D9"}),
        _rhl_scenario("18Rhl late 6+8", "6", b, 1.0, "CME", ["6", "8"], 3, 14, 9, {"coal": "D9", "steel": "D13"}),
        _rhl_scenario("18Rhl late 8+8", "8", b, 1.0, "ADR", ["8", "8"], 3, 18, 37,
                      {"coal": "J3", "steel": "E6", "ratingen_variant": "true"}),
        _scenario("1860 mid", "1860", "4", g, 0.7, "IOW", ["3+2", "4+2"], 2, 6, 10),
        _scenario("1860 late", "1860", "7", b, 1.0, "IOW", ["6+3", "7+4"], 3, 10, 11),
    ]


def dense_custom(seed: int, width: int, height: int, trains: list[dict], owned: list[str],
                 city_share: float = 0.3, link: float = 0.75) -> Scenario:
    """A synthetic late-game custom map: hex sides carry track with probability `link`, and every hex's
    tile joins its track sides: cities (2 slots) and towns take all of them, plain hexes pair them up
    with two to three paths each side, like brown and gray track. Three tokens of the company, a third
    of the other cities full of other companies' tokens."""
    rng = random.Random(seed)
    layout = "pointy"
    names = [hexgrid.name_at(x, y, layout) for y in range(height) for x in range(width * 2) if (x + y) % 2 == 0]
    sides: dict[str, list[int]] = {n: [] for n in names}
    for name in names:
        for e in range(3, 6):
            other = hexgrid.neighbour_name(name, e, layout)
            if other in sides and rng.random() < link:
                sides[name].append(e)
                sides[other].append(hexgrid.opposite(e))
    hexes, tokens = [], []
    for name in names:
        ex = sides[name]
        r = rng.random()
        if len(ex) >= 2 and r < city_share:
            code = f"city=revenue:{rng.choice([30, 40, 50, 60])},slots:2;" + ";".join(f"path=a:{e},b:_0" for e in ex)
        elif len(ex) >= 2 and r < city_share + 0.1:
            code = f"town=revenue:{rng.choice([10, 20])};" + ";".join(f"path=a:{e},b:_0" for e in ex)
        elif len(ex) >= 2:
            pairs = [(a, b) for i, a in enumerate(ex) for b in ex[i + 1:]]
            rng.shuffle(pairs)
            picked, use = [], {e: 0 for e in ex}
            for a, b in pairs:
                if use[a] < 2 and use[b] < 2 and len(picked) < 4:
                    picked.append((a, b))
                    use[a] += 1
                    use[b] += 1
            code = ";".join(f"path=a:{a},b:{b}" for a, b in picked)
        else:
            code = ""
        hexes.append({"hex": name, "code": code, "color": "brown"})
    cities = [h["hex"] for h in hexes if h["code"].startswith("city")]
    rng.shuffle(cities)
    for i, name in enumerate(cities):
        if i < 3:
            tokens.append({"hex": name, "city": 0, "company": "A"})
        elif i < 3 + len(cities) // 3:
            tokens += [{"hex": name, "city": 0, "company": "B"}, {"hex": name, "city": 0, "company": "C"}]
    board = {"title": "custom", "custom": {"layout": layout, "hexes": hexes, "trains": trains}, "tokens": tokens}
    return Scenario(f"custom {len(names)} hexes", "custom",
                    {"board": board, "company": {"id": "A", "trains": [{"name": t} for t in owned]}})


@dataclass
class GameBoard:
    """One board of a game sequence: the request to solve and what changed since the board before."""
    title: str
    stage: str          # the title scenario the sequence is growing towards
    step: str           # "lay F4 57/2", "token F4.0 PRR", ...
    request: dict
    game: int = 0       # boards of one game are one step apart; a new game starts from the printed map


def _tile_cities(data, lays: dict, hex_name: str) -> tuple:
    lay = lays.get(hex_name)
    code = data.manifest[lay[0]]["code"] if lay else data.hexes[hex_name].code
    return parse_tile(code).cities


def game_sequence(scenarios: list[Scenario], seed: int) -> list[GameBoard]:
    """Boards of one game, each one tile lay or one token away from the one before: from the printed map
    towards each scenario's board in turn (tiles laid, upgraded or replaced one hex at a time, tokens
    placed when their city exists, tokens a new tile no longer has room for taken off). Each board is
    solved for the company, trains and phase of the scenario it grows towards; the scenarios must share
    one map (title and map options)."""
    rng = random.Random(seed)
    lays: dict[str, tuple[str, int]] = {}
    tokens: list[tuple[str, int, str]] = []
    out: list[GameBoard] = []
    for sc in scenarios:
        board = sc.request["board"]
        title = board["title"]
        data = get_title(title).data(board.get("options") or {})
        company = sc.request["company"]
        target_lays = [(lay["hex"], (lay["tile"], lay.get("rotation", 0))) for lay in board["tiles"]]
        pending_lays = [(h, t) for h, t in target_lays if lays.get(h) != t]
        rng.shuffle(pending_lays)
        pending_tokens = [(t["hex"], t.get("city", 0), t["company"]) for t in board["tokens"]
                          if (t["hex"], t.get("city", 0), t["company"]) not in tokens]
        rng.shuffle(pending_tokens)
        # the running company's own tokens first: a board without them has no route to solve
        pending_tokens.sort(key=lambda t: t[2] != company["id"])

        def fits(token) -> bool:
            hex_name, city, who = token
            cities = _tile_cities(data, lays, hex_name)
            if city >= len(cities):
                return False
            there = [c for h, i, c in tokens if (h, i) == (hex_name, city)]
            return who not in there and len(there) < cities[city].slots

        def emit(step: str) -> None:
            request = {"board": {"title": title, "phase": board.get("phase", ""),
                                 "tiles": [{"hex": h, "tile": t, "rotation": r} for h, (t, r) in lays.items()],
                                 "tokens": [{"hex": h, "city": c, "company": who} for h, c, who in tokens],
                                 "options": dict(board.get("options") or {})},
                       "company": {"id": company["id"], "trains": [dict(t) for t in company["trains"]],
                                   "privates": list(company.get("privates") or ())}}
            out.append(GameBoard(title, sc.name, step, request))

        while pending_lays or pending_tokens:
            placeable = [t for t in pending_tokens if fits(t)]
            if placeable and (not pending_lays or placeable[0][2] == company["id"] or rng.random() < 0.3):
                token = placeable[0]
                pending_tokens.remove(token)
                tokens.append(token)
                emit(f"token {token[0]}.{token[1]} {token[2]}")
                continue
            if not pending_lays:
                break       # tokens whose city never appears on this board
            hex_name, tile = pending_lays.pop()
            lays[hex_name] = tile
            cities = _tile_cities(data, lays, hex_name)
            kept, seen = [], {}
            for h, c, who in tokens:     # a new tile may hold fewer cities or slots: those tokens go
                if h == hex_name:
                    seen[c] = seen.get(c, 0) + 1
                    if c >= len(cities) or seen[c] > cities[c].slots:
                        continue
                kept.append((h, c, who))
            tokens = kept
            emit(f"lay {hex_name} {tile[0]}/{tile[1]}")
    return out


def game_sequences(seed: int = 0, scenarios: list[Scenario] | None = None) -> dict[str, list[GameBoard]]:
    """Per title, games grown through its scenarios from early to late (`scenarios`, by default
    title_scenarios()), one game per map (a map option such as 18Rhl's Ratingen variant starts a game of
    its own). Games of different seeds lay the same tiles in different orders."""
    games: dict[tuple, list[Scenario]] = {}
    for sc in scenarios if scenarios is not None else title_scenarios():
        board = sc.request["board"]
        title = get_title(board["title"])
        games.setdefault((board["title"], id(title.data(board.get("options") or {}))), []).append(sc)
    out: dict[str, list[GameBoard]] = {}
    for k, ((title, _), scs) in enumerate(games.items()):
        boards = game_sequence(scs, seed * 101 + k)
        for board in boards:
            board.game = k
        out.setdefault(title, []).extend(boards)
    return out
