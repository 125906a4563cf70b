"""A tile at one rotation as the 18xx.games engine compares tiles when one is laid over another: its paths
(ends are map edges or node kinds), exits, the edges of each city and town, labels and counts. Made once per
tile code and rotation.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..tiles import Tile

COLOUR_ORDER = ("white", "yellow", "green", "brown", "gray")
# an end of a path: ("edge", map edge) or (node kind, node ordinal); the engine's Part#<= compares nodes by
# their kind alone (a halt is not a town there) and edges by number
End = tuple[str, int]


@dataclass(frozen=True)
class Shape:
    paths: tuple[tuple[End, End], ...]
    exits: frozenset[int]
    # per city or town with track to an edge, those edges in the engine's order (Tile#city_town_edges)
    ct_edges: tuple[tuple[int, ...], ...]
    # per city and town (cities first, then towns, as Tile#city_towns): the exits of its paths
    node_exits: tuple[frozenset[int], ...]
    # per path: the revenues of its nodes, highest over all phases, sorted (the track restriction)
    path_revenues: tuple[tuple[int, ...], ...]
    label: str | None
    cities: int
    towns: int


_SHAPES: dict[tuple[str, int], Shape] = {}


def shape(tile: Tile, rotation: int) -> Shape:
    key = (tile.code, rotation)
    found = _SHAPES.get(key)
    if found is None:
        found = _SHAPES[key] = _make(tile, rotation)
    return found


def _make(tile: Tile, rotation: int) -> Shape:
    nodes = tile.node_parts
    paths, revenues = [], []
    ct_edges: dict[int, list[int]] = {}
    node_exits: dict[int, set[int]] = {}
    exits: set[int] = set()
    for p in tile.paths:
        ends = []
        edges, touched = [], []
        for e in p.ends:
            if e.edge is not None:
                edge = (e.edge + rotation) % 6
                ends.append(("edge", edge))
                edges.append(edge)
            else:
                node = nodes[e.node]
                ends.append((node.kind, e.node))
                touched.append(e.node)
        paths.append((ends[0], ends[1]))
        exits.update(edges)
        revenues.append(tuple(sorted(nodes[n].revenue.maximum for n in touched)))
        for n in touched:
            node_exits.setdefault(n, set()).update(edges)
        # the path's city, else its town (Path#city || Path#town)
        ct = next((n for n in touched if nodes[n].kind in ("city", "pass")), None)
        if ct is None:
            ct = next((n for n in touched if nodes[n].kind in ("town", "halt")), None)
        if ct is not None and edges:
            ct_edges.setdefault(ct, []).extend(edges)
    city_towns = [n.ordinal for n in nodes if n.kind in ("city", "pass")] + \
                 [n.ordinal for n in nodes if n.kind in ("town", "halt")]
    return Shape(tuple(paths), frozenset(exits), tuple(tuple(v) for v in ct_edges.values()),
                 tuple(frozenset(node_exits.get(n, ())) for n in city_towns), tuple(revenues),
                 tile.labels[-1] if tile.labels else None,
                 sum(n.kind in ("city", "pass") for n in nodes), sum(n.kind in ("town", "halt") for n in nodes))


@dataclass(frozen=True)
class WalkIndex:
    """A shape as the reach walks take it (network, distance): each path's map edges, the paths of each node
    and of each edge, and each city's token index by node ordinal."""
    shape: Shape
    exits: tuple[tuple[int, ...], ...]
    by_node: dict[int, tuple[int, ...]]
    by_edge: dict[int, tuple[int, ...]]
    city_of: dict[int, int]


_WALK_INDEXES: dict[tuple[str, int], WalkIndex] = {}


def walk_index(tile: Tile, rotation: int) -> WalkIndex:
    key = (tile.code, rotation)
    found = _WALK_INDEXES.get(key)
    if found is None:
        s = shape(tile, rotation)
        by_node: dict[int, list[int]] = {}
        by_edge: dict[int, list[int]] = {}
        for i, ends in enumerate(s.paths):
            for end in ends:
                (by_edge if end[0] == "edge" else by_node).setdefault(end[1], []).append(i)
        found = _WALK_INDEXES[key] = WalkIndex(
            s, tuple(tuple(end[1] for end in ends if end[0] == "edge") for ends in s.paths),
            {k: tuple(v) for k, v in by_node.items()}, {k: tuple(v) for k, v in by_edge.items()},
            {c.ordinal: k for k, c in enumerate(tile.cities)})
    return found


def end_within(a: End, b: End) -> bool:
    """Part#<=: an edge within the same edge, a node within a node of its kind, a halt within any town."""
    if a[0] == "halt" and b[0] in ("town", "halt"):
        return True
    return a[0] == b[0] and (a[0] != "edge" or a[1] == b[1])


def path_within(p: tuple[End, End], q: tuple[End, End]) -> bool:
    """Path#<=: both ends of p within the ends of q, either way round."""
    return (end_within(p[0], q[0]) and end_within(p[1], q[1])) or (end_within(p[0], q[1]) and end_within(p[1], q[0]))


def paths_kept(old: Shape, new: Shape) -> bool:
    """Every old path lies within a new one (the old track stays)."""
    return all(any(path_within(p, q) for q in new.paths) for p in old.paths)


def ct_edges_within(old: Shape, new: Shape) -> bool:
    """Tile#city_town_edges_are_subset_of?: at some rotation every old city's edges lie within a new city's."""
    return any(all(any(all((e + r) % 6 in other for e in city) for other in new.ct_edges) for city in old.ct_edges)
               for r in range(6))
