"""The 18xx.games tile DSL (rules/base.md section 2): `city=revenue:20;path=a:0,b:_0;path=a:_0,b:3`.

A code is a `;`-separated list of parts `type=key:value,key:value`. Every part keeps its position in the
list (its *part index*), which names nodes as `<hex>-<part index>`. In `path` parts, `a`/`b` are a
tile-local edge `0`-`5` or `_N`, the N-th node-like part (city, pass, town, halt, offboard, junction)
declared so far. A node-like part is a node only if some path references it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from .cache import TILE_CACHE_BYTES, ByteLRU, tile_bytes
from .errors import InputError

NODE_KINDS = ("city", "pass", "town", "halt", "offboard", "junction")
STOP_KINDS = ("city", "pass", "town", "halt", "offboard")
KNOWN_PARTS = NODE_KINDS + ("path", "label", "upgrade", "border", "icon", "stub", "partition", "frame",
                            "stripes", "future_label", "blank")
GAUGES = ("broad", "narrow", "dual")
ALL_COLOURS = "*"


@dataclass(frozen=True)
class Revenue:
    """A node's revenue: one value for every phase, or values per tile colour (`yellow_40|brown_60`)."""
    by_colour: tuple[tuple[str, int], ...]

    def value(self, phase_colours: tuple[str, ...]) -> int:
        """The engine's rule: the newest phase colour that has a value, else 0."""
        table = dict(self.by_colour)
        if ALL_COLOURS in table:
            return table[ALL_COLOURS]
        for colour in reversed(phase_colours):
            if colour in table:
                return table[colour]
        return 0

    @property
    def maximum(self) -> int:
        return max((v for _, v in self.by_colour), default=0)


def parse_revenue(text: str) -> Revenue:
    text = text.strip()
    if "_" not in text:
        return Revenue(((ALL_COLOURS, int(text)),))
    pairs = []
    for item in text.split("|"):
        colour, _, value = item.rpartition("_")
        if not colour:
            raise ValueError(f"revenue {item!r} is not colour_value")
        pairs.append((colour, int(value)))
    return Revenue(tuple(pairs))


@dataclass(frozen=True)
class Node:
    """A revenue location (or junction) of a tile."""
    part: int               # part index in the code
    ordinal: int            # position among the node-like parts (the N of `_N`)
    kind: str               # city, pass, town, halt, offboard, junction
    revenue: Revenue
    slots: int = 0
    groups: tuple[str, ...] = ()
    visit_cost: int = 1
    hidden: bool = False


@dataclass(frozen=True)
class End:
    """One end of a path: a tile-local edge, or a node (by ordinal)."""
    edge: int | None = None
    node: int | None = None


@dataclass(frozen=True)
class Path:
    part: int
    a: End
    b: End
    terminal: bool = False
    gauge: str = "broad"
    lanes: int = 1
    a_lane: int = 0
    b_lane: int = 0

    @property
    def ends(self) -> tuple[End, End]:
        return (self.a, self.b)


@dataclass(frozen=True)
class Tile:
    """A parsed tile code. `nodes` are only the node-like parts some path references."""
    code: str
    parts: tuple[tuple[str, dict], ...]
    node_parts: tuple[Node, ...]
    paths: tuple[Path, ...]
    labels: tuple[str, ...] = ()
    icons: tuple[str, ...] = ()
    borders: tuple[tuple[int, str], ...] = ()   # (edge, type)
    nodes: tuple[Node, ...] = field(default=())

    @cached_property
    def cities(self) -> tuple[Node, ...]:
        """All city-like parts (city, pass) in DSL order, referenced or not: token `city` indices count these."""
        return tuple(n for n in self.node_parts if n.kind in ("city", "pass"))

    @cached_property
    def stop_maximum(self) -> int:
        """The most its stops pay together, in any phase (revenue.board.Board.stop_total)."""
        return sum(n.revenue.maximum for n in self.nodes)

    @cached_property
    def town_revenues(self) -> tuple[Revenue, ...]:
        """The revenues of its towns with track (1860 compares them with a halt's subsidy)."""
        return tuple(n.revenue for n in self.nodes if n.kind == "town")

    def exits(self) -> set[int]:
        return {e.edge for p in self.paths for e in p.ends if e.edge is not None}


def _params(text: str) -> dict[str, str]:
    params = {}
    for item in text.split(","):
        if not item:
            continue
        key, sep, value = item.partition(":")
        if not sep:
            raise ValueError(f"parameter {item!r} is not key:value")
        params[key.strip()] = value.strip()
    return params


def _end(text: str, node_parts: list[Node]) -> End:
    if text.startswith("_"):
        i = int(text[1:])
        if not 0 <= i < len(node_parts):
            raise ValueError(f"path end {text} names node {i}, but only {len(node_parts)} are declared before it")
        return End(node=i)
    edge = int(text)
    if not 0 <= edge <= 5:
        raise ValueError(f"path end {text} is not an edge 0..5 or a node _N")
    return End(edge=edge)


def _parse(code: str) -> Tile:
    parts: list[tuple[str, dict]] = []
    node_parts: list[Node] = []
    paths: list[Path] = []
    labels, icons, borders = [], [], []
    raws = code.split(";") if code else []
    while raws and not raws[-1].strip():   # a trailing ";" adds no part (as Ruby's split)
        raws.pop()
    for index, raw in enumerate(raws):
        kind, _, rest = raw.strip().partition("=")
        kind = kind.strip()
        if kind not in KNOWN_PARTS:
            raise ValueError(f"part {index} ({raw!r}): unknown part type {kind!r}")
        try:
            params = _params(rest) if kind not in ("label", "future_label") else {"text": rest}
            if kind in NODE_KINDS:
                revenue = parse_revenue(params.get("revenue", "0"))
                groups = tuple(g for g in params.get("groups", "").split("|") if g)
                slots = int(params.get("slots", "1")) if kind in ("city", "pass") else 0
                node_parts.append(Node(index, len(node_parts), kind, revenue, slots, groups,
                                       int(params.get("visit_cost", "1")), params.get("hide") in ("1", "true")))
            elif kind == "path":
                if "a" not in params or "b" not in params:
                    raise ValueError("a path needs both a: and b:")
                gauge = params.get("track", "broad")
                if gauge not in GAUGES:
                    raise ValueError(f"track {gauge!r} is not one of {', '.join(GAUGES)}")
                lanes = int(params.get("lanes", "1"))
                paths.append(Path(index, _end(params["a"], node_parts), _end(params["b"], node_parts),
                                  "terminal" in params, gauge, lanes,
                                  int(params.get("a_lane", "0").split(".")[-1]),
                                  int(params.get("b_lane", "0").split(".")[-1])))
            elif kind == "label":
                labels.append(params["text"])
            elif kind == "icon":
                icons.append(params.get("image", ""))
            elif kind == "border":
                borders.append((int(params["edge"]), params.get("type", "")))
        except (ValueError, KeyError) as exc:
            raise ValueError(f"part {index} ({raw!r}): {exc}") from None
        parts.append((kind, params))
    referenced = {e.node for p in paths for e in p.ends if e.node is not None}
    nodes = tuple(n for n in node_parts if n.ordinal in referenced)
    return Tile(code, tuple(parts), tuple(node_parts), tuple(paths), tuple(labels), tuple(icons),
                tuple(borders), nodes)


_CACHE: ByteLRU[Tile] = ByteLRU(TILE_CACHE_BYTES)   # a request may bring codes without end


def parse_tile(code: str, field_name: str = "code") -> Tile:
    """Parse a tile code; malformed code raises InputError naming `field_name`."""
    tile = _CACHE.get(code)
    if tile is None:
        try:
            tile = _parse(code)
        except ValueError as exc:
            raise InputError(field_name, f"malformed tile code: {exc}") from None
        _CACHE.put(code, tile, tile_bytes(code))
    return tile


def icon_name(image: str) -> str:
    """`18_rhl/RGE` or `../logos/18_rhl/K` -> `RGE` / `K`."""
    return image.rsplit("/", 1)[-1]
