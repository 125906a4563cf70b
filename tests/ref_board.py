"""The reference's own reading of a board request, sharing no code with the library (revenue.board,
revenue.tiles, revenue.hexgrid, revenue.titles): a minimal tile DSL reader, the map, tile supply, phases,
trains and corporations read from the 18xx.games dumps copied into tests/data/maps (trimmed by `trim`,
checked against ../shared/maps when present), neighbours derived from the dumps' doubled coordinates, and
tile lays and tokens applied as rules/base.md sections 1-2 say.

The result has the attribute names the reference reads (`hexes[h].tile.node_parts`, `.paths`, `.cities`,
`neighbours`, `tokens`, `phase`, `options`, `data.corporations`), so the reference's rules work on it.

Refresh the copies after the dumps change: python -m tests.ref_board [SHARED_MAPS_DIR]
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
import sys
from dataclasses import dataclass, field
from functools import lru_cache

MAPS = pathlib.Path(__file__).resolve().parent / "data" / "maps"
NODE_TYPES = ("city", "pass", "town", "halt", "offboard", "junction")

# (dx, dy) in the engine's doubled coordinates for edges 0-5 (rules/base.md section 1)
OFFSETS = {"pointy": [(-1, 1), (-2, 0), (-1, -1), (1, -1), (2, 0), (1, 1)],
           "flat": [(0, 2), (-1, 1), (-1, -1), (0, -2), (1, -1), (1, 1)]}

# The dumps the reference reads: title -> [(options that select the file, file stem)], most specific first.
DUMPS = {"1830": [((), "1830")], "1889": [((), "1889")],
         "steam_over_holland": [((), "steam_over_holland")],
         "18rhl": [(("ratingen_variant", "promotion_tiles"), "18rhl-ratingen_variant-promotion_tiles"),
                   ((), "18rhl")],
         "1860": [(("two_player_map",), "1860-two_player_map"), (("original_game",), "1860-two_player_map"),
                  ((), "1860")]}


# ---- the tile DSL, minimally ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Revenue:
    values: dict          # colour -> value; "" for a plain number

    def value(self, colours) -> int:
        if "" in self.values:
            return self.values[""]
        return next((self.values[c] for c in reversed(colours) if c in self.values), 0)

    def __hash__(self):
        return hash(tuple(sorted(self.values.items())))


@dataclass(frozen=True)
class NodePart:
    part: int             # index of the part in the code
    ordinal: int          # index among the node-like parts: `_N` in a path
    kind: str
    revenue: Revenue
    slots: int
    groups: tuple
    visit_cost: int


@dataclass(frozen=True)
class End:
    edge: int | None = None
    node: int | None = None


@dataclass(frozen=True)
class PathPart:
    part: int
    ends: tuple
    terminal: bool


@dataclass(frozen=True)
class TileCode:
    node_parts: tuple
    paths: tuple
    icons: tuple          # the last component of each icon's image
    borders: tuple        # tile-local edges with an impassable border

    @property
    def cities(self):
        return tuple(n for n in self.node_parts if n.kind in ("city", "pass"))


def read_revenue(text: str) -> Revenue:
    if "_" not in text:
        return Revenue({"": int(text)})
    return Revenue({c: int(v) for c, v in (item.rsplit("_", 1) for item in text.split("|"))})


@lru_cache(maxsize=None)
def read_tile(code: str) -> TileCode:
    """`city=revenue:20;path=a:0,b:_0` -> its nodes, paths, icons and impassable borders."""
    nodes, paths, icons, borders = [], [], [], []
    parts = code.split(";") if code else []
    while parts and not parts[-1].strip():
        parts.pop()
    for index, raw in enumerate(parts):
        kind, _, rest = raw.strip().partition("=")
        params = dict(item.split(":", 1) for item in rest.split(",") if ":" in item) if kind != "label" else {}
        if kind in NODE_TYPES:
            nodes.append(NodePart(index, len(nodes), kind, read_revenue(params.get("revenue", "0")),
                                  int(params.get("slots", 1)) if kind in ("city", "pass") else 0,
                                  tuple(g for g in params.get("groups", "").split("|") if g),
                                  int(params.get("visit_cost", 1))))
        elif kind == "path":
            ends = tuple(End(node=int(params[k][1:])) if params[k].startswith("_") else End(edge=int(params[k]))
                         for k in ("a", "b"))
            paths.append(PathPart(index, ends, "terminal" in params))
        elif kind == "icon":
            icons.append(params.get("image", "").rsplit("/", 1)[-1])
        elif kind == "border" and params.get("type") == "impassable":
            borders.append(int(params["edge"]))
    return TileCode(tuple(nodes), tuple(paths), tuple(icons), tuple(borders))


# ---- the map data -----------------------------------------------------------------------------------------

def trim(dump: dict) -> dict:
    """The part of an 18xx.games dump the reference reads."""
    return {"title": dump["title"], "optional_rules": dump.get("optional_rules") or [], "layout": dump["layout"],
            "hexes": [{k: h.get(k) for k in ("coord", "x", "y", "location", "color", "code", "rotation", "neighbors")}
                      for h in dump["hexes"]],
            "tiles": [{k: t[k] for k in ("name", "color", "code")} for t in dump["tiles"]],
            "trains": dump["trains"],
            "phases": [{"name": p["name"], "tiles": p["tiles"]} for p in dump["phases"]],
            "corporations": [{k: c.get(k) for k in ("id", "coordinates", "city")} for c in dump["corporations"]]}


@lru_cache(maxsize=None)
def dump(stem: str) -> dict:
    return json.loads((MAPS / f"{stem}.json").read_text())


def on(value) -> bool:
    return str(value).lower() not in ("", "0", "false", "no")


def dump_for(title: str, options: dict) -> dict:
    active = {k for k, v in options.items() if on(v)}
    return dump(next(stem for needs, stem in DUMPS[title] if set(needs) <= active))


def train_defs(title: str, options: dict | None = None) -> dict:
    """Train name -> the dump's definition (variants such as 3E included)."""
    out = {}
    for t in dump_for(title, options or {})["trains"]:
        out.setdefault(t["name"], t)
        for v in t.get("variants") or ():
            out.setdefault(v["name"], v)
    return out


def coordinates(name: str, layout: str) -> tuple[int, int]:
    """The engine's doubled (x, y) of a hex name (default axes)."""
    letters = name.rstrip("0123456789")
    row = 0
    for ch in letters:
        row = row * 26 + ord(ch) - ord("A") + 1
    row, number = row - 1, int(name[len(letters):]) - 1
    return (number, row) if layout == "pointy" else (row, number)


def neighbours_of(cells: dict, layout: str) -> dict:
    """hex -> {edge: hex} from doubled coordinates (`cells`: hex -> (x, y))."""
    at = {xy: h for h, xy in cells.items()}
    return {h: {e: at[(x + dx, y + dy)] for e, (dx, dy) in enumerate(OFFSETS[layout]) if (x + dx, y + dy) in at}
            for h, (x, y) in cells.items()}


# ---- the board --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Hex:
    name: str
    color: str
    tile: TileCode
    rotation: int
    impassable: frozenset     # map edges
    icons: tuple


@dataclass(frozen=True)
class Phase:
    name: str
    colours: tuple


@dataclass(frozen=True)
class Data:
    corporations: list


@dataclass
class RefBoard:
    layout: str
    hexes: dict
    neighbours: dict
    phase: Phase
    tokens: dict = field(default_factory=dict)     # (hex, city index) -> companies
    options: dict = field(default_factory=dict)
    data: Data = Data([])
    flipped: frozenset = frozenset()                # (hex, company) of 1860's flipped tokens


def _hex(name, color, code, rotation, old=None) -> Hex:
    tile = read_tile(code)
    impassable = frozenset((e + rotation) % 6 for e in tile.borders)
    if old is None:
        return Hex(name, color, tile, rotation, impassable, tile.icons)
    return Hex(name, color, tile, rotation, impassable | old.impassable, tuple(dict.fromkeys(old.icons + tile.icons)))


def ref_board(request: dict) -> RefBoard:
    """The board of a request (`revenue.v1.Board` as a dict), read independently of the library."""
    title, options = request.get("title"), {str(k): str(v) for k, v in (request.get("options") or {}).items()}
    if title == "custom":
        custom = request["custom"]
        layout = custom.get("layout") or "pointy"
        hexes = {h["hex"]: _hex(h["hex"], h.get("color") or "white", h.get("code") or "", 0) for h in custom["hexes"]}
        cells = {h: coordinates(h, layout) for h in hexes}
        phases = [Phase(str(p["name"]), tuple(p.get("tiles") or ("yellow",))) for p in custom.get("phases") or ()] \
            or [Phase("1", ("yellow", "green", "brown", "gray"))]
        tiles, corporations = {}, []
    else:
        src = dump_for(title, options)
        layout = src["layout"]
        hexes = {h["coord"]: _hex(h["coord"], h["color"], h["code"] or "", h.get("rotation") or 0)
                 for h in src["hexes"]}
        cells = {h["coord"]: (h["x"], h["y"]) for h in src["hexes"]}
        phases = [Phase(str(p["name"]), tuple(p["tiles"])) for p in src["phases"]]
        tiles = {t["name"]: t for t in src["tiles"]}
        if title == "18rhl" and on(options.get("promotion_tiles", "")):
            # the promotion tiles without the Ratingen variant: their definitions are in the variant's dump
            tiles = {**{t["name"]: t for t in dump("18rhl-ratingen_variant-promotion_tiles")["tiles"]}, **tiles}
        corporations = src["corporations"]
    phase = next((p for p in phases if p.name == str(request.get("phase") or "")), phases[0])
    for lay in request.get("tiles") or ():
        name, rotation = lay["hex"], int(lay.get("rotation") or 0)
        if lay.get("tile"):
            t = tiles[lay["tile"]]
            hexes[name] = _hex(name, t["color"], t["code"], rotation, hexes[name])
        else:
            hexes[name] = _hex(name, lay.get("color") or "yellow", lay["code"], rotation, hexes[name])
    tokens: dict = {}
    for tok in request.get("tokens") or ():
        tokens.setdefault((tok["hex"], int(tok.get("city") or 0)), []).append(tok["company"])
    flipped = frozenset((tok["hex"], tok["company"]) for tok in request.get("tokens") or () if tok.get("flipped"))
    return RefBoard(layout, hexes, neighbours_of(cells, layout), phase, tokens, options, Data(corporations), flipped)


def with_tokens(board: RefBoard, tokens: dict) -> RefBoard:
    return dataclasses.replace(board, tokens=tokens)


if __name__ == "__main__":
    shared = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else MAPS.parents[3] / "shared" / "maps"
    MAPS.mkdir(parents=True, exist_ok=True)
    for stems in DUMPS.values():
        for _, stem in stems:
            (MAPS / f"{stem}.json").write_text(json.dumps(trim(json.loads((shared / f"{stem}.json").read_text())),
                                                          separators=(",", ":"), ensure_ascii=False) + "\n")
            print(stem)
