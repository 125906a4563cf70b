"""The track graph of a board (rules/base.md sections 3 and 6).

Nodes are the revenue locations that some path references (cities, towns, halts, off-boards). A *chain*
is a stretch of track from one node to another that touches no other node: every route is a sequence of
chains whose consecutive chains share an end node. Each chain carries its *track keys*: one per hex side
it crosses or ends at, one per node-to-node path. Trains of one company never share a key.

A board changes with every tile lay, so the per-board work is kept small: each tile at each rotation is a
TileGeometry made once and registered in flat arrays; one kernel (revenue.core.track.build_track) gathers
a board's paths from its hexes' geometry ids and walks every chain; the graph keeps the kernel's arrays
and builds node and chain objects only when they are read. What depends on the tiles alone (the Track) is
shared by the boards that differ only in tokens or phase.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from types import MappingProxyType

import numpy as np

from .board import TRACKS_PER_MAP, Board, build_board
from .core.track import (END_EDGE, END_JUNCTION, END_NODE, GAUGE_BROAD, GAUGE_DUAL, GAUGE_NARROW, TRACK_BOOLS,
                         TRACK_INTS, TRACK_TAIL, build_track)
from .cache import GRAPH_CACHE_BYTES, graph_bytes


@dataclass
class GraphNode:
    id: int
    hex: str
    part: int            # part index in the tile code: the node is named `<hex>-<part>`
    ordinal: int         # position among the tile's node-like parts
    kind: str            # city, pass, town, halt, offboard
    value: int           # revenue in the board's phase
    slots: int
    tokens: tuple[str, ...]
    groups: tuple[str, ...]
    visit_cost: int
    city_index: int      # index among the tile's cities (token `city`), -1 for other kinds
    icons: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.hex}-{self.part}"


@dataclass
class Chain:
    id: int
    a: int                            # node ids at the two ends
    b: int
    paths: tuple[tuple[str, int], ...]  # (hex, path part index) from a to b
    keys: tuple[int, ...]             # track keys, sorted
    terminal_a: bool                  # the path touching a is terminal
    terminal_b: bool
    terminal_inner: bool              # some other path is terminal
    ident: tuple[str, ...]            # the 18xx.games chain id walked from a (see Graph.connection)

    def hexes_from(self, start: int) -> list[str]:
        """Hex names of the paths in walking order from node `start`, one per path."""
        names = [h for h, _ in self.paths]
        return names if start == self.a else names[::-1]

    def other(self, node: int) -> int:
        return self.b if node == self.a else self.a

    def terminal_at(self, node: int) -> bool:
        return self.terminal_a if node == self.a else self.terminal_b


class TileGeometry:
    """A tile at one rotation, as the track walk reads it: its nodes (the node-like parts a path references,
    junctions apart) and its paths' ends on map edges, local nodes or junctions. Built once per tile code
    and rotation (geometry()), shared by every board that shows it."""

    __slots__ = ("nodes", "table", "parts", "city_node", "city_slots", "city_index",
                 "attributes", "grouped", "n_nodes", "n_paths", "_values", "gid", "registry")

    def __init__(self, tile, rotation: int):
        self.nodes = tuple(n for n in tile.nodes if n.kind != "junction")
        local = {n.ordinal: i for i, n in enumerate(self.nodes)}
        cities = tile.cities
        self.city_node = tuple(local.get(c.ordinal, -1) if c in tile.nodes else -1 for c in cities)
        self.city_slots = tuple(c.slots for c in cities)     # (revenue.board checks tokens with them)
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


NODE_KINDS = ("city", "pass", "town", "halt", "offboard")   # NodeArrays.kind: an index into this


class NodeArrays:
    """The nodes' attributes as arrays, for compiling problems without a call per node. The tokens are kept
    as the board lists them (each one's node and company); the per-node forms are made when first read."""

    __slots__ = ("kind", "value", "slots", "cost", "diesel", "has_diesel", "token_node", "token_company", "groups",
                 "_tokens", "_n_tokens")

    def __init__(self, kind, value, slots, cost, diesel, has_diesel, token_node, token_company, groups):
        self.kind = kind                    # int64: index into NODE_KINDS
        self.value = value                  # int64: revenue in the board's phase
        self.slots = slots
        self.cost = cost                    # visit cost
        self.diesel = diesel                # int64: a D train's value where has_diesel
        self.has_diesel = has_diesel        # bool
        self.token_node = token_node        # int64 [tokens]: each token's node (-1: none)
        self.token_company = token_company  # list[str] [tokens]: each token's company
        self.groups: list[tuple[int, tuple[str, ...]]] = groups    # nodes with groups (tile `groups:`)
        self._tokens: dict[int, list[str]] | None = None
        self._n_tokens: np.ndarray | None = None

    @property
    def tokens(self) -> dict[int, list[str]]:
        """node -> companies with a token there, in the board's order."""
        if self._tokens is None:
            tokens: dict[int, list[str]] = {}
            for v, company in zip(self.token_node.tolist(), self.token_company):
                if v >= 0:
                    tokens.setdefault(v, []).append(company)
            self._tokens = tokens
        return self._tokens

    def holds(self, v: int, company: str) -> bool:
        """Whether node v holds a token of `company` (a look at the few tokens, without the dict)."""
        if self._tokens is not None:
            return company in self._tokens.get(v, ())
        return company in compress(self.token_company, map(v.__eq__, self.token_node.tolist()))    # (in C)

    @property
    def n_tokens(self) -> np.ndarray:
        """int64 [nodes]: tokens in the node's city."""
        if self._n_tokens is None:
            placed = self.token_node[self.token_node >= 0]
            self._n_tokens = np.bincount(placed, minlength=len(self.kind)).astype(np.int64)
        return self._n_tokens


NODE_CACHE_SIZE = 8192    # node objects remembered per map (see Graph.nodes)
GAUGES = {"broad": GAUGE_BROAD, "narrow": GAUGE_NARROW, "dual": GAUGE_DUAL}
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


def geometry(tile, rotation: int) -> TileGeometry:
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


class MapSides:
    """A map's hex index, neighbours and hex sides as arrays (one per title data, see map_sides())."""

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
        self.hex_masks: dict[tuple[str, ...], np.ndarray] = {}   # Graph.in_hexes, per set of hexes


def map_sides(board: Board) -> MapSides:
    data = board.data
    sides = data.derived.get("map sides")
    if sides is None or sides.names != list(board.hexes):
        sides = data.derived["map sides"] = MapSides(list(board.hexes), board.neighbours)
    return sides


def printed_sides(data, neighbours: dict[str, dict[int, str]]) -> MapSides:
    """The MapSides of a title's map variant (its boards' hexes are its printed hexes, in that order)."""
    sides = data.derived.get("map sides")
    if sides is None or sides.names != list(data.printed):
        sides = data.derived["map sides"] = MapSides(list(data.printed), neighbours)
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
    or phase share it (build_graph remembers a few per map variant)."""

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
        self.chains: list[Chain | None] = [None] * len(self.chain_a)
        self.idents: list[tuple[str, ...] | None] = [None] * len(self.chain_a)
        self.shared: dict[str, object] = {}     # derived when first read (see Graph)
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


class Graph:
    """The track graph of a board: its Track (shared with boards that differ only in tokens or phase) and
    the board. The walk (revenue.core.track) leaves flat arrays; the node and chain objects are built from
    them when first asked for (a solve needs the objects of its answer only)."""

    # the track's arrays a solve does not read, from the track when read (see _Sliced)
    path_hex = property(lambda self: self.track.path_hex)
    ends = property(lambda self: self.track.ends)
    chain_b = property(lambda self: self.track.chain_b)
    chain_start = property(lambda self: self.track.chain_start)
    chain_paths = property(lambda self: self.track.chain_paths)
    key_start = property(lambda self: self.track.key_start)
    key_list = property(lambda self: self.track.key_list)
    term_a = property(lambda self: self.track.term_a)
    term_b = property(lambda self: self.track.term_b)
    term_inner = property(lambda self: self.track.term_inner)

    # (slots: a game server makes and lets go of a graph per call; anything else set goes to __dict__)
    __slots__ = ("board", "track", "node_base", "chain_a", "n_keys", "sides", "n_nodes", "inner_hexes", "chain_mode",
                 "derived", "request", "_nodes", "_chains", "__dict__")

    def __init__(self, board: Board, track: Track):
        self.board, self.track = board, track
        self.node_base, self.chain_a, self.n_keys = track.node_base, track.chain_a, track.n_keys
        self.sides, self.n_nodes = track.sides, track.n_nodes
        self.inner_hexes, self.chain_mode = track.inner_hexes, track.chain_mode
        # arrays derived from the graph alone (chain key bitsets, adjacency in CSR form, ...), read by
        # revenue.problem and revenue.optimizer: the graph itself never changes
        self.derived: dict[str, object] = {
            "chain_keys": track.chain_keys, "adjacency": track.adjacency, "path start": track.path_start,
            "node hex": track.node_hex, "node registry": (track.registry, track.node_reg),
            "hex_walks": (track.node_hex, track.inner_hexes, track.chain_mode)}
        self.request: object = None     # the board request it was built from (see graph_for)
        self._nodes: list[GraphNode] | None = None
        self._chains = track.chains

    @property
    def geometries(self) -> list[TileGeometry]:
        return self.track.geometries

    # ---- nodes ------------------------------------------------------------------------------------------
    @property
    def nodes(self) -> list[GraphNode]:
        if self._nodes is None:
            board = self.board
            colours = board.phase.colours
            # Node objects are shared with earlier boards of the map where nothing about them changed.
            known = board.data.derived.setdefault("graph nodes", {})
            if len(known) > NODE_CACHE_SIZE:
                known.clear()
            nodes = []
            geometries = self.geometries
            for h, (name, bh) in enumerate(board.hexes.items()):
                geo = geometries[h]
                if not geo.n_nodes:
                    continue
                values = geo.values(colours)
                for i, n in enumerate(geo.nodes):
                    city_index = geo.city_index[i]
                    tokens = tuple(board.tokens.get((name, city_index), ())) if city_index >= 0 else ()
                    key = (len(nodes), name, geo, i, colours, tokens, bh.icons)
                    node = known.get(key)
                    if node is None:
                        node = known[key] = GraphNode(len(nodes), name, n.part, n.ordinal, n.kind, int(values[i]),
                                                      n.slots, tokens, n.groups, n.visit_cost, city_index, bh.icons)
                    nodes.append(node)
            self._nodes = nodes
        return self._nodes

    def node_name(self, v: int) -> str:
        """`<hex>-<part>` of node v, without building the node objects."""
        h = int(self.track.node_hex[v])
        return f"{self.sides.names[h]}-{self.track.geometry(h).nodes[v - self.track.node_base_list[h]].part}"

    def in_hexes(self, names: tuple[str, ...]) -> np.ndarray:
        """bool [nodes]: the node lies on one of the hexes `names` (for title hooks that answer for every
        node at once, revenue.titles.base.Title.end_allowed_all)."""
        mask = self.sides.hex_masks.get(names)
        if mask is None:
            wanted = set(names)
            if len(self.sides.hex_masks) > 256:
                self.sides.hex_masks.clear()
            mask = self.sides.hex_masks[names] = np.array([h in wanted for h in self.sides.names], dtype=np.bool_)
        return mask[self.track.node_hex]

    def node_place(self, v: int) -> tuple[str, int, int]:
        """(hex, part index, city index or -1) of node v, without building the node objects."""
        h = int(self.track.node_hex[v])
        geo = self.track.geometry(h)
        local = v - self.track.node_base_list[h]
        return self.sides.names[h], geo.nodes[local].part, geo.city_index[local]

    def nodes_in(self, names) -> list[int]:
        """The ids of the nodes on the hexes `names`, ascending."""
        return self.in_hexes(tuple(names)).nonzero()[0].tolist()

    def kind_is(self, kind: str) -> np.ndarray:
        """bool [nodes]: the node is of this kind (city, pass, town, halt, offboard)."""
        return self.node_arrays().kind == NODE_KINDS.index(kind)

    def node_arrays(self) -> NodeArrays:
        arrays = self.derived.get("node arrays")
        if arrays is None:
            board, track = self.board, self.track
            kind, slots, cost, diesel, has_diesel, groups = track.fixed_node_arrays()
            if board.track is track:
                # the kernel placed the tokens on this track (revenue.board._build_known): each one's node
                token_node, token_company = board.token_node, board.token_companies()
            else:
                # (the geometries of the tokens' hexes only, from the registry: a fresh track has no list)
                nodes: list[int] = []
                token_company = []
                if board.tokens:
                    geos, gids, index, node_base = track.registry.geometries, track.gid_list, self.sides.index, \
                        track.node_base_list
                    for (name, city), companies in board.tokens.items():
                        h = index[name]
                        city_node = geos[gids[h]].city_node
                        local = city_node[city] if city < len(city_node) else -1
                        nodes += [node_base[h] + local if local >= 0 else -1] * len(companies)
                        token_company += companies
                token_node = np.array(nodes, dtype=np.int64)
            arrays = self.derived["node arrays"] = NodeArrays(
                kind, track.node_values(board.phase.colours), slots, cost, diesel, has_diesel, token_node,
                token_company, groups)
        return arrays

    @property
    def by_name(self) -> dict[str, int]:
        names = self.track.shared.get("node names")
        if names is None:
            names = self.track.shared["node names"] = {self.node_name(v): v for v in range(self.n_nodes)}
        return names

    def node_id(self, hex_index: int, local: int) -> int:
        return int(self.node_base[hex_index]) + local

    # ---- chains -----------------------------------------------------------------------------------------
    @property
    def chains(self) -> "_Chains":
        return _Chains(self)

    def chain(self, c: int) -> Chain:
        chain = self._chains[c]
        if chain is None:
            chain = self._chains[c] = self._make_chain(c)
        return chain

    def _walked(self, c: int) -> list[tuple[int, TileGeometry, int]]:
        """(hex index, geometry, local path index) of each path of chain c, from node a: read from the
        arrays by the chain's own slices (a solve reads a few chains of a fresh graph)."""
        track = self.track
        chain_start, chain_paths, path_hex, path_start = track.walk_lists()
        geometry = track.geometry
        return [(h, geometry(h), p - path_start[h])
                for p in chain_paths[chain_start[c]:chain_start[c + 1]] for h in (path_hex[p],)]

    def connection_of(self, c: int, start: int) -> list[str]:
        """connection(chain(c), start) without building the Chain: an answer's routes need only their ids."""
        ident = self._ident(c)
        return list(ident if start == self.chain_a[c] else ident[::-1])

    def _ident(self, c: int) -> tuple[str, ...]:
        idents = self.track.idents
        ident = idents[c]
        if ident is None:
            ident = idents[c] = self.track.ident(c)
        return ident

    def _make_chain(self, c: int) -> Chain:
        names = self.sides.names
        walked = self._walked(c)
        paths = tuple((names[h], geo.parts[i]) for h, geo, i in walked)
        keys = tuple(self.key_list[self.key_start[c]:self.key_start[c + 1]].tolist())
        return Chain(c, int(self.chain_a[c]), int(self.chain_b[c]), paths, keys, bool(self.term_a[c]),
                     bool(self.term_b[c]), bool(self.term_inner[c]), self._ident(c))

    @property
    def path_start(self) -> np.ndarray:
        return self.track.path_start

    @property
    def adjacency(self) -> list[list[int]]:
        """node id -> ids of the chains at it, in chain order."""
        adj = self.track.shared.get("adjacency lists")
        if adj is None:
            start, chain = self.track.adjacency[:2]
            adj = self.track.shared["adjacency lists"] = [[int(c) for c in chain[start[v]:start[v + 1]]]
                                                          for v in range(self.n_nodes)]
        return adj

    @property
    def key_names(self) -> list[str]:
        """A name per track key: a hex side (both hexes and edges) or an in-hex path (hex and part)."""
        names = self.track.shared.get("key names")
        if names is None:
            names = self.track.shared["key names"] = self._key_names()
        return names

    def _key_names(self) -> list[str]:
        names = [""] * self.n_keys
        seen: dict[tuple[str, int], int] = {}   # the kernel's numbering: first use, chains in order
        for c in range(len(self.chain_a)):
            for p in self.chain_paths[self.chain_start[c]:self.chain_start[c + 1]]:
                h = int(self.path_hex[p])
                kind0, val0, kind1, val1 = (int(x[p]) for x in self.ends)
                raws = [("side", int(self.sides.side[6 * h + v])) for k, v in ((kind0, val0), (kind1, val1))
                        if k == END_EDGE] or [("path", int(p))]
                for raw in raws:
                    if raw not in seen:
                        seen[raw] = len(seen)
                        if raw[0] == "side":
                            names[seen[raw]] = self.sides.side_names[raw[1]]
                        else:
                            geo = self.geometries[h]
                            names[seen[raw]] = f"{self.sides.names[h]}/{geo.parts[int(p) - int(self.path_start[h])]}"
        return names

    def connection(self, chain: Chain, start: int) -> list[str]:
        """The chain as an 18xx.games `connections` entry (its chain id), walked from node `start`."""
        return list(chain.ident if start == chain.a else chain.ident[::-1])

    def chains_for(self, entry: list[str] | tuple[str, ...]) -> list[Chain]:
        """The chains whose id, walked either way, is `entry`: how the engine reads a connection."""
        index = self.track.shared.get("chain_ids")
        if index is None:
            index = {}
            for c in self.chains:
                for ident in {c.ident, c.ident[::-1]}:
                    index.setdefault(ident, []).append(c)
            self.track.shared["chain_ids"] = index
        return index.get(tuple(entry), [])


class _Chains(Sequence):
    """A graph's chains as a read-only list; each Chain object is built when first read."""

    def __init__(self, graph: Graph):
        self.graph = graph

    def __len__(self) -> int:
        return len(self.graph.chain_a)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self.graph.chain(c) for c in range(len(self))[i]]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.graph.chain(i)

    def __iter__(self):
        for c in range(len(self)):
            yield self.graph.chain(c)


def current_registry() -> _Registry:
    """The registry new geometries go to (revenue.board's checked lays hold their geometry ids in it)."""
    return _REGISTRY




def build_graph(board: Board) -> Graph:
    """The track graph of `board`: the registered geometries of its tiles placed on the map's hexes, and
    every chain, found by one kernel (revenue.core.track.build_track); the track part is shared with a
    recent board of the same map and tiles."""
    if board.track is not None:     # built with the board (revenue.board._build_known)
        return Graph(board, board.track)
    sides = map_sides(board)
    if board.remember is not None:
        # a board of lays that all have ids (revenue.board._Known): its track is remembered by them
        known, lay_bytes, more_stops, more_chars = board.remember
        remembered = known.tracks.get(lay_bytes)
        if remembered is not None and remembered[0].sides is sides:
            return Graph(board, remembered[0])
    hexes = board.hexes.values()
    for attempt in range(3):
        hex_tracks = [bh.track() for bh in hexes]
        registry = _REGISTRY
        if all(geo.registry is registry for geo, _ in hex_tracks):
            break
        for bh in hexes:      # the registry started afresh: register the geometries again
            bh.forget_track()
    else:
        raise RuntimeError("the tile geometry registry keeps starting afresh (REGISTRY_PATHS below one board's "
                           "paths)")
    gids = np.array([geo.gid for geo, _ in hex_tracks], dtype=np.int64)
    impassable = np.array([mask for _, mask in hex_tracks], dtype=np.int64)
    if board.remember is not None and registry is known.registry:
        track = Track(registry, sides, build_track(
            gids, impassable, registry.path_start, registry.node_start, registry.table, registry.node_table,
            sides.neighbour, sides.side, sides.n_sides))
        known.remember_track(lay_bytes, (track, more_stops, more_chars))
        return Graph(board, track)
    # Else the track depends on the geometry ids and impassable edges alone (on one map variant and registry).
    key = gids.tobytes() + impassable.tobytes()
    tracks = board.data.derived.setdefault("tracks", OrderedDict())
    with _GRAPHS_LOCK:
        track = tracks.get(key)
        if track is not None:
            tracks.move_to_end(key)
    if track is not None and (track.registry is not registry or track.sides is not sides):
        track = None
    if track is None:
        track = Track(registry, sides, build_track(
            gids, impassable, registry.path_start, registry.node_start, registry.table, registry.node_table,
            sides.neighbour, sides.side, sides.n_sides))
        with _GRAPHS_LOCK:
            tracks[key] = track
            while len(tracks) > TRACKS_PER_MAP:
                tracks.popitem(last=False)
    return Graph(board, track)


_GRAPHS: OrderedDict[object, Graph] = OrderedDict()
_GRAPHS_LOCK = threading.Lock()
GRAPH_CACHE_SIZE = 64
# Graphs not asked for since they were built, oldest first: past FRESH_GRAPHS of them the oldest is let go.
# (Freeing a fresh board's graph and problems 64 boards later took about 13 us more a call than 8-16
# boards later, when their memory is still in the caches: benchmarks.front's graph_for own.)
_FRESH: OrderedDict[object, None] = OrderedDict()
FRESH_GRAPHS = 16
_GRAPH_BYTES: dict[object, int] = {}    # the estimated size of each remembered graph (revenue.cache)
# their sum as graph_for keeps it (never below the true sum: a cleared _GRAPH_BYTES, or a key stored twice,
# leaves it above, and _over_budget then sums afresh)
_graphs_bytes = 0


def _over_budget() -> bool:
    """The remembered graphs' estimated size is over GRAPH_CACHE_BYTES (under _GRAPHS_LOCK)."""
    global _graphs_bytes
    if _graphs_bytes <= GRAPH_CACHE_BYTES:
        return False
    _graphs_bytes = sum(_GRAPH_BYTES.values())
    return _graphs_bytes > GRAPH_CACHE_BYTES


def graph_for(board_request: Mapping) -> Graph:
    """build_graph(build_board(board_request)), remembered for the last GRAPH_CACHE_SIZE boards (fewer when
    they would pass GRAPH_CACHE_BYTES by revenue.cache's estimate): a game server asks about one board for
    each company of an operating round, and the track graph does not depend on the company. Boards and graphs are never changed after they are built.
    A graph not asked for again is let go after FRESH_GRAPHS newer ones (_FRESH): most boards are asked
    about once, and a graph freed while its memory is still in the CPU's caches costs far less to free.

    A board given as a read-only mapping (types.MappingProxyType) is remembered by identity: its owner
    promises never to change what it holds (the service does this with the boards it has decoded). Any
    other board is remembered by what it holds: the key revenue.board makes while reading lays and tokens
    it has checked before (Board.key), else (a custom map, tile codes in the request) its repr, an exact
    key for JSON data."""
    key: object = None
    by_identity = isinstance(board_request, MappingProxyType)
    if by_identity:
        key = ("same object", id(board_request))
    elif board_request.get("title") == "custom":     # the map is in the request: known before it is read
        try:
            key = repr(board_request)
        except Exception:   # an object without a usable repr: build it, checks and all, uncached
            return build_graph(build_board(board_request))
    if key is not None:
        with _GRAPHS_LOCK:
            graph = _GRAPHS.get(key)
            if graph is not None and (not by_identity or graph.request is board_request):
                _GRAPHS.move_to_end(key)
                _FRESH.pop(key, None)
                return graph
    board = build_board(board_request)
    if key is None:
        key = ("board", board.key)
        if board.key is None:
            try:
                key = repr(board_request)
            except Exception:
                return build_graph(board)
        with _GRAPHS_LOCK:
            graph = _GRAPHS.get(key)
            if graph is not None:
                _GRAPHS.move_to_end(key)
                _FRESH.pop(key, None)
                return graph
    graph = build_graph(board)
    graph.request = board_request      # keeps an identity-keyed board alive while it is remembered
    global _graphs_bytes
    nbytes = graph_bytes(graph)
    with _GRAPHS_LOCK:
        _GRAPHS[key] = graph
        _GRAPH_BYTES[key] = nbytes
        _graphs_bytes += nbytes
        _FRESH.pop(key, None)
        _FRESH[key] = None
        while len(_FRESH) > FRESH_GRAPHS:
            _let_go(_FRESH.popitem(last=False)[0])
        while len(_GRAPHS) > 1 and (len(_GRAPHS) > GRAPH_CACHE_SIZE or _over_budget()):
            old_key = next(iter(_GRAPHS))
            _FRESH.pop(old_key, None)
            _let_go(old_key)
    return graph


def _let_go(key) -> None:
    """A remembered graph forgotten (under _GRAPHS_LOCK)."""
    global _graphs_bytes
    old = _GRAPHS.pop(key, None)
    _graphs_bytes -= _GRAPH_BYTES.pop(key, 0)
    if old is not None:
        # Its problems point back at it: without them the graph is freed as its last user lets go,
        # not by a full collection of the cyclic garbage (40-60 ms each, every few hundred boards).
        old.derived.pop("problems", None)
