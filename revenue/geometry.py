"""Tile geometry and the track it makes on a map (rules/base.md section 3), what a board's track graph is
built from and depends on the map and the tiles alone, not on tokens or phase.

Each tile at each rotation is a TileGeometry made once and registered in flat arrays (the registry), so
one kernel (revenue.core.track.build_track or place_board) gathers a board's paths from its hexes' geometry
ids and walks every chain. A map's hexes, neighbours and sides are arrays (MapSides, one per map variant).
A Track holds the kernel's arrays and what is derived from them when first read; boards that differ only
in tokens or phase share it.
"""
from __future__ import annotations

import threading

import numpy as np

from .core.track import (END_EDGE, END_JUNCTION, END_NODE, GAUGE_BROAD, GAUGE_DUAL, GAUGE_NARROW, TRACK_BOOLS,
                         TRACK_INTS, TRACK_TAIL)

NODE_KINDS = ("city", "pass", "town", "halt", "offboard")   # a node's kind column: an index into this
GAUGES = {"broad": GAUGE_BROAD, "narrow": GAUGE_NARROW, "dual": GAUGE_DUAL}
# tracks remembered per map variant (boards of a game differing in tokens or phase): by lay ids
# (revenue.known.Known.tracks), and by geometry ids for boards with tile codes in the request
# (revenue.graph.build_graph)
TRACKS_PER_MAP = 16


class TileGeometry:
    """A tile at one rotation, as the track walk reads it: its nodes (the node-like parts a path references,
    junctions apart) and its paths' ends on map edges, local nodes or junctions. Built once per tile code
    and rotation (tile_geometry()), shared by every board that shows it."""

    __slots__ = ("nodes", "table", "parts", "city_node", "city_slots", "city_index",
                 "attributes", "grouped", "n_nodes", "n_paths", "_values", "gid", "registry")

    def __init__(self, tile, rotation: int):
        self.nodes = tuple(n for n in tile.nodes if n.kind != "junction")
        local = {n.ordinal: i for i, n in enumerate(self.nodes)}
        cities = tile.cities
        self.city_node = tuple(local.get(c.ordinal, -1) if c in tile.nodes else -1 for c in cities)
        self.city_slots = tuple(c.slots for c in cities)     # (revenue.known places tokens with them)
        rows = []
        for p in tile.paths:
            row = []
            for e in p.ends:
                if e.edge is not None:
                    row += [END_EDGE, (e.edge + rotation) % 6]
                elif e.node in local:
                    row += [END_NODE, local[e.node]]
                else:
                    row += [END_JUNCTION, e.node]
            row += [GAUGES[p.gauge], int(p.terminal)]
            rows.append(row)
        self.table = np.array(rows, dtype=np.int64).reshape(len(rows), 6)
        self.parts = tuple(p.part for p in tile.paths)
        self.city_index = tuple(cities.index(n) if n in cities else -1 for n in self.nodes)
        diesel = [dict(n.revenue.by_colour).get("diesel") for n in self.nodes]
        # per node: kind (NODE_KINDS), slots, visit cost, diesel value, has a diesel value, has groups, part index
        self.attributes = np.array([(NODE_KINDS.index(n.kind), n.slots, n.visit_cost, d or 0, d is not None,
                                     bool(n.groups), n.part) for n, d in zip(self.nodes, diesel)],
                                   dtype=np.int64).reshape(len(self.nodes), 7)
        self.grouped = tuple((i, n.groups) for i, n in enumerate(self.nodes) if n.groups)
        self.n_nodes, self.n_paths = len(self.nodes), len(rows)
        self._values: dict[tuple, np.ndarray] = {}

    def values(self, colours: tuple[str, ...]) -> np.ndarray:
        """The nodes' revenue in a phase with these tile colours."""
        out = self._values.get(colours)
        if out is None:
            out = self._values[colours] = np.array([n.revenue.value(colours) for n in self.nodes], dtype=np.int64)
        return out


_GEOMETRIES: dict[tuple[str, int], TileGeometry] = {}


class _Registry:
    """Every geometry made so far in one set of flat arrays (its paths and its nodes), so that one kernel
    gathers a board's track arrays from the geometry ids of its hexes. Entries are only ever appended:
    a reader holding the arrays of an earlier moment reads the same values."""

    def __init__(self) -> None:
        self.count = 0
        self.path_start = np.zeros(257, dtype=np.int64)
        self.node_start = np.zeros(257, dtype=np.int64)
        self.city_start = np.zeros(257, dtype=np.int64)
        self.table = np.zeros((1024, 6), dtype=np.int64)
        self.city_table = np.zeros((256, 2), dtype=np.int64)     # per city of a geometry: slots, local node
        self.node_table = np.zeros((1024, 7), dtype=np.int64)
        self.geometries: list[TileGeometry] = []
        self.values: dict[tuple[str, ...], np.ndarray] = {}
        self.node_groups: dict[int, tuple[str, ...]] = {}   # registered node -> its groups, if it has some

    @property
    def paths(self) -> int:
        return int(self.path_start[self.count])

    def add(self, geo: TileGeometry) -> int:
        """Append `geo` (under _REGISTRY_LOCK); its id."""
        gid = self.count
        p0, n0, c0 = int(self.path_start[gid]), int(self.node_start[gid]), int(self.city_start[gid])
        p1, n1, c1 = p0 + geo.n_paths, n0 + geo.n_nodes, c0 + len(geo.city_slots)
        if gid + 2 > len(self.path_start):
            self.path_start = _grown(self.path_start, gid + 2)
            self.node_start = _grown(self.node_start, gid + 2)
            self.city_start = _grown(self.city_start, gid + 2)
        if c1 > len(self.city_table):
            self.city_table = _grown(self.city_table, c1)
        if p1 > len(self.table):
            self.table = _grown(self.table, p1)
        if n1 > len(self.node_table):
            self.node_table = _grown(self.node_table, n1)
        for i, groups in geo.grouped:
            self.node_groups[n0 + i] = groups
        self.table[p0:p1] = geo.table
        self.node_table[n0:n1] = geo.attributes
        if c1 > c0:
            self.city_table[c0:c1] = list(zip(geo.city_slots, geo.city_node))
        self.path_start[gid + 1], self.node_start[gid + 1], self.city_start[gid + 1] = p1, n1, c1
        self.geometries.append(geo)
        self.count = gid + 1
        return gid

    def node_values(self, colours: tuple[str, ...]) -> np.ndarray:
        """Every registered node's revenue in a phase with these tile colours."""
        values = self.values.get(colours)
        if values is None or len(values) < self.node_start[self.count]:
            with _REGISTRY_LOCK:
                done = 0 if values is None else len(values)
                count = self.count
                start = int(np.searchsorted(self.node_start[:count + 1], done))
                more = [geo.values(colours) for geo in self.geometries[start:count]]
                values = np.concatenate(([] if values is None else [values]) + more).astype(np.int64)
                self.values[colours] = values
        return values


def _grown(a: np.ndarray, need: int) -> np.ndarray:
    b = np.zeros((max(need, 2 * len(a)),) + a.shape[1:], dtype=a.dtype)
    b[:len(a)] = a
    return b


_REGISTRY = _Registry()
_REGISTRY_LOCK = threading.RLock()
REGISTRY_PATHS = 1 << 20     # beyond this many paths (a flood of request-made tiles), start afresh


def tile_geometry(tile, rotation: int) -> TileGeometry:
    """The geometry of `tile` at `rotation`, made once per tile code and rotation and registered (tile codes
    of the titles' manifests recur on every board; a request's own codes are remembered up to
    REGISTRY_PATHS paths in all)."""
    global _REGISTRY
    key = (tile.code, rotation)
    geo = _GEOMETRIES.get(key)
    if geo is None or geo.registry is not _REGISTRY:
        with _REGISTRY_LOCK:
            geo = _GEOMETRIES.get(key)
            if geo is None or geo.registry is not _REGISTRY:
                geo = TileGeometry(tile, rotation)
                if _REGISTRY.paths + geo.n_paths > REGISTRY_PATHS:
                    _REGISTRY = _Registry()
                    _GEOMETRIES.clear()
                geo.gid, geo.registry = _REGISTRY.add(geo), _REGISTRY
                _GEOMETRIES[key] = geo
    return geo


def current_registry() -> _Registry:
    """The registry new geometries go to (revenue.known's checked lays hold their geometry ids in it)."""
    return _REGISTRY


class MapSides:
    """A map's hex index, neighbours and hex sides as arrays (one per title data: printed_sides(),
    revenue.graph.map_sides())."""

    def __init__(self, names: list[str], neighbours: dict[str, dict[int, str]]):
        index = {name: i for i, name in enumerate(names)}
        self.names, self.index = names, index
        self.neighbour = np.full(6 * len(names), -1, dtype=np.int64)
        self.side = np.empty(6 * len(names), dtype=np.int64)
        ids: dict[tuple, int] = {}
        for i, name in enumerate(names):
            for edge in range(6):
                other = neighbours[name].get(edge)
                if other is None:
                    key: tuple = (name, edge)
                else:
                    self.neighbour[6 * i + edge] = index[other]
                    mine, theirs = (name, edge), (other, (edge + 3) % 6)
                    key = mine + theirs if mine < theirs else theirs + mine
                self.side[6 * i + edge] = ids.setdefault(key, len(ids))
        self.n_sides = len(ids)
        self.side_names = ["/".join(map(str, k)) for k in ids]
        self.hex_masks: dict[tuple[str, ...], np.ndarray] = {}   # revenue.graph.Graph.in_hexes, per set of hexes


def printed_sides(data, neighbours: dict[str, dict[int, str]]) -> MapSides:
    """The MapSides of a title's map variant (its boards' hexes are its printed hexes, in that order)."""
    sides = data.sides
    if sides is None or sides.names != list(data.printed):
        sides = data.sides = MapSides(list(data.printed), neighbours)
    return sides


class _Sliced:
    """A Track array cut from the kernel's packed arrays when first read, then kept on the track (a
    non-data descriptor: the instance's own attribute wins from then on). For the arrays a solve does not
    read (those of chain objects, key names and the tests): slicing them all costs every fresh board."""

    def __set_name__(self, owner, name: str) -> None:
        # which packed arrays (0 the int64 ones, 2 the bool ones) and where in them, by the kernel's names
        self.name = name
        self.packed, self.index = (0, TRACK_INTS.index(name)) if name in TRACK_INTS else (2, TRACK_BOOLS.index(name))

    def __get__(self, track, owner=None):
        if track is None:
            return self
        arrays, start = track._packed[self.packed], track._packed[self.packed + 1]
        value = track.__dict__[self.name] = arrays[start[self.index]:start[self.index + 1]]
        return value


# The int64 arrays a Track slices when it is made (the rest are _Sliced), by their index in TRACK_INTS.
_EAGER_INTS = tuple(TRACK_INTS.index(name) for name in (
    "gids", "path_start", "node_base", "node_hex", "node_reg", "chain_a", "adj_start", "adj_chain", "adj_other",
    "adj_flags", "chain_mode", "node_kind", "node_slots", "node_cost", "node_diesel", "node_grouped", "ident_start",
    "ident_hex", "ident_parts", "token_node"))
_HAS_DIESEL = TRACK_BOOLS.index("node_has_diesel")
_BOOL_STARTS = len(TRACK_INTS) + 1     # where the bool arrays' starts begin in the packed tail


class Track:
    """What a board's graph has that depends on the map and the tiles laid alone, not on tokens or phase:
    the walk's arrays (revenue.core.track.build_track) and what is derived from them when first read
    (chain objects, names, the nodes' fixed attributes). Boards of one game that differ only in tokens
    or phase share it (revenue.graph.build_graph and revenue.known remember a few per map variant)."""

    path_hex, kind0, val0, kind1, val1 = _Sliced(), _Sliced(), _Sliced(), _Sliced(), _Sliced()
    chain_b, chain_start, chain_paths, key_start, key_list = _Sliced(), _Sliced(), _Sliced(), _Sliced(), _Sliced()
    term_a, term_b, term_inner = _Sliced(), _Sliced(), _Sliced()

    @property
    def ends(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(kind0, val0, kind1, val1): each path's two ends (revenue.core.track)."""
        return self.kind0, self.val0, self.kind1, self.val1

    def __init__(self, registry: _Registry, sides: MapSides, packed: tuple):
        """`packed`: what revenue.core.track.build_track (or place_board) returns. The arrays a solve
        reads are sliced here; the others (_Sliced: those of chain objects and key names) when first read.
        `status`, `more_stops` and `more_chars` are place_board's (0s from build_track): whether the board's
        lays and tokens were placed (0), and what the lays change of the printed map's totals."""
        ints, bools, self.chain_keys, self.inner_hexes = packed
        tail = ints[len(ints) - TRACK_TAIL:].tolist()
        i, b = tail[:_BOOL_STARTS], tail[_BOOL_STARTS:TRACK_TAIL - 4]
        n_keys, self.status, self.more_stops, self.more_chars = tail[TRACK_TAIL - 4:]
        self._packed = (ints, i, bools, b)
        (self.gids, self.path_start, self.node_base, self.node_hex, self.node_reg, self.chain_a, adj_start, adj_chain,
         adj_other, adj_flags, self.chain_mode, kind, slots, cost, diesel, grouped, self.ident_start, self.ident_hex,
         self.ident_parts, self.token_node) = [ints[i[k]:i[k + 1]] for k in _EAGER_INTS]
        has_diesel = bools[b[_HAS_DIESEL]:b[_HAS_DIESEL + 1]]
        self.n_keys = n_keys
        self.node_columns = (kind, slots, cost, diesel, has_diesel, grouped)
        self.adjacency = (adj_start, adj_chain, adj_other, adj_flags)
        self.registry, self.sides = registry, sides
        self.n_nodes = int(self.node_base[-1])
        self.chains: list = [None] * len(self.chain_a)      # revenue.graph.Chain objects, made when first read
        self.idents: list[tuple[str, ...] | None] = [None] * len(self.chain_a)
        self.shared: dict[str, object] = {}     # derived when first read (see revenue.graph.Graph)
        self._geometries: list[TileGeometry] | None = None

    @property
    def gid_list(self) -> list[int]:
        out = self.shared.get("gid list")
        if out is None:
            out = self.shared["gid list"] = self.gids.tolist()
        return out

    @property
    def node_base_list(self) -> list[int]:
        out = self.shared.get("node base list")
        if out is None:
            out = self.shared["node base list"] = self.node_base.tolist()
        return out

    def geometry(self, h: int) -> TileGeometry:
        """The geometry of hex h (without the list of all of them, which a fresh track seldom needs)."""
        return self.registry.geometries[self.gid_list[h]]

    def walk_lists(self) -> tuple[list[int], list[int], list[int], list[int]]:
        """chain_start, chain_paths, path_hex and path_start as lists, for reading a few chains in Python."""
        lists = self.shared.get("walk lists")
        if lists is None:
            lists = self.shared["walk lists"] = (self.chain_start.tolist(), self.chain_paths.tolist(),
                                                 self.path_hex.tolist(), self.path_start.tolist())
        return lists

    @property
    def geometries(self) -> list[TileGeometry]:
        """The geometry of each hex, in map order."""
        if self._geometries is None:
            every = self.registry.geometries
            self._geometries = [every[g] for g in self.gids.tolist()]
        return self._geometries

    def fixed_node_arrays(self) -> tuple:
        """(kind, slots, visit cost, diesel value, has a diesel value, groups): the nodes' attributes that
        the phase and the tokens leave alone (the kernel gathers the columns; groups are the few nodes'
        own, from the registry)."""
        fixed = self.shared.get("fixed node arrays")
        if fixed is None:
            kind, slots, cost, diesel, has_diesel, grouped = self.node_columns
            node_groups, node_reg = self.registry.node_groups, self.node_reg
            groups = [(v, node_groups[int(node_reg[v])]) for v in grouped.tolist()]
            fixed = self.shared["fixed node arrays"] = (kind, slots, cost, diesel, has_diesel, groups)
        return fixed

    def ident(self, c: int) -> tuple[str, ...]:
        """Chain c's 18xx.games chain id (walked from its first node), from the walk's arrays
        (revenue.core.track.chain_idents): the chain's own slices only (an answer reads a few chains of
        a fresh track; lists of the whole arrays cost more to make and let go than those few reads)."""
        names = self.sides.names
        a, b = self.ident_parts[2 * c:2 * c + 2].tolist()
        start, end = self.ident_start[c:c + 2].tolist()
        if a >= 0:
            return (f"{names[self.ident_hex[start]]} {a}.{b}",)
        return tuple(map(names.__getitem__, self.ident_hex[start:end].tolist()))

    def node_values(self, colours: tuple[str, ...]) -> np.ndarray:
        """The nodes' revenue in a phase with these tile colours."""
        key = ("values", colours)
        values = self.shared.get(key)
        if values is None:
            values = self.shared[key] = self.registry.node_values(colours)[self.node_reg]
        return values

