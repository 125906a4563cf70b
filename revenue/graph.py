"""The track graph of a board (rules/base.md sections 3 and 6).

Nodes are the revenue locations that some path references (cities, towns, halts, off-boards). A *chain*
is a stretch of track from one node to another that touches no other node: every route is a sequence of
chains whose consecutive chains share an end node. Each chain carries its *track keys*: one per hex side
it crosses or ends at, one per node-to-node path. Trains of one company never share a key.

A board changes with every tile lay, so the per-board work is kept small: one kernel
(revenue.core.track.build_track) gathers a board's paths from its hexes' registered geometry ids
(revenue.geometry) and walks every chain; the graph keeps the kernel's arrays (its Track) and builds node
and chain objects only when they are read. What depends on the tiles alone (the Track) is shared by the
boards that differ only in tokens or phase.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress

import numpy as np

from .budget import current as current_budget
from .board import Board
from .core.track import END_EDGE, build_track
from .geometry import NODE_KINDS, TRACKS_PER_MAP, MapSides, TileGeometry, Track, current_registry

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

    def other(self, node: int) -> int:
        return self.b if node == self.a else self.a

    def terminal_at(self, node: int) -> bool:
        return self.terminal_a if node == self.a else self.terminal_b


class NodeArrays:
    """The nodes' attributes as arrays, for compiling problems without a call per node. The tokens are kept
    as the board lists them (each one's node and company); the per-node forms are made when first read."""

    __slots__ = ("kind", "value", "slots", "cost", "diesel", "has_diesel", "token_node", "token_company", "groups",
                 "_tokens")

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


NODE_CACHE_SIZE = 8192    # node objects remembered per map (see Graph.nodes)


def map_sides(board: Board) -> MapSides:
    """The MapSides of the board's hexes (one per title data: revenue.geometry.printed_sides)."""
    data = board.data
    sides = data.sides
    if sides is None or sides.names != list(board.hexes):
        sides = data.sides = MapSides(list(board.hexes), board.neighbours)
    return sides


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
                 "chain_keys", "adjacency_arrays", "hex_walks", "problems", "request", "_nodes", "_node_arrays",
                 "_chains", "__dict__")

    def __init__(self, board: Board, track: Track):
        self.board, self.track = board, track
        self.node_base, self.chain_a, self.n_keys = track.node_base, track.chain_a, track.n_keys
        self.sides, self.n_nodes = track.sides, track.n_nodes
        self.inner_hexes, self.chain_mode = track.inner_hexes, track.chain_mode
        # the kernels' arrays (the graph never changes): uint64 [chains, words] track-key bitsets; the
        # adjacency in CSR form (start, chain, other node, flags); for the no-re-entry rule, each node's hex,
        # the hexes each chain passes strictly between its end nodes' hexes (uint64 bitsets [chains, words]),
        # and whether it stays inside one hex, moves on or re-enters a hex by itself
        # (revenue.core.track CHAIN_STAYS, CHAIN_MOVES, CHAIN_REENTERS)
        self.chain_keys = track.chain_keys
        self.adjacency_arrays = track.adjacency
        self.hex_walks = (track.node_hex, track.inner_hexes, track.chain_mode)
        self.problems: list = []        # revenue.problem.compile_problem's (key, problem) pairs for this graph
        self.request: object = None     # the board request it was built from (see revenue.graph_cache.graph_for)
        self._nodes: list[GraphNode] | None = None
        self._node_arrays: NodeArrays | None = None
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
            known = board.data.graph_nodes
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
        arrays = self._node_arrays
        if arrays is None:
            board, track = self.board, self.track
            kind, slots, cost, diesel, has_diesel, groups = track.fixed_node_arrays()
            if board.track is track:
                # the kernel placed the tokens on this track (revenue.known.build_known): each one's node
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
            arrays = self._node_arrays = NodeArrays(
                kind, track.node_values(board.phase.colours), slots, cost, diesel, has_diesel, token_node,
                token_company, groups)
        return arrays

    @property
    def by_name(self) -> dict[str, int]:
        names = self.track.shared.get("node names")
        if names is None:
            names = self.track.shared["node names"] = {self.node_name(v): v for v in range(self.n_nodes)}
        return names

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


_TRACKS_LOCK = threading.Lock()     # (a title data's tracks by geometry ids, build_graph)


def _walk(registry, sides: MapSides, gids: np.ndarray, impassable: np.ndarray) -> Track:
    """The Track of these hexes, walked within the call's budget (revenue.budget: raises past it)."""
    budget = current_budget()
    track = Track(registry, sides, build_track(
        gids, impassable, registry.path_start, registry.node_start, registry.table, registry.node_table,
        sides.neighbour, sides.side, sides.n_sides, *budget.walk_args()))
    budget.check_walk(track.status)
    return track


def build_graph(board: Board) -> Graph:
    """The track graph of `board`: the registered geometries of its tiles placed on the map's hexes, and
    every chain, found by one kernel (revenue.core.track.build_track); the track part is shared with a
    recent board of the same map and tiles."""
    if board.track is not None:     # built with the board (revenue.known.build_known)
        return Graph(board, board.track)
    sides = map_sides(board)
    if board.remember is not None:
        # a board of lays that all have ids (revenue.known.Known): its track is remembered by them
        known, lay_bytes, more_stops, more_chars = board.remember
        remembered = known.tracks.get(lay_bytes)
        if remembered is not None and remembered[0].sides is sides:
            return Graph(board, remembered[0])
    hexes = board.hexes.values()
    for attempt in range(3):
        hex_tracks = [bh.track() for bh in hexes]
        registry = current_registry()
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
        track = _walk(registry, sides, gids, impassable)
        known.remember_track(lay_bytes, (track, more_stops, more_chars))
        return Graph(board, track)
    # Else the track depends on the geometry ids and impassable edges alone (on one map variant and registry).
    key = gids.tobytes() + impassable.tobytes()
    tracks = board.data.tracks
    with _TRACKS_LOCK:
        track = tracks.get(key)
        if track is not None:
            tracks.move_to_end(key)
    if track is not None and (track.registry is not registry or track.sides is not sides):
        track = None
    if track is None:
        track = _walk(registry, sides, gids, impassable)
        with _TRACKS_LOCK:
            tracks[key] = track
            while len(tracks) > TRACKS_PER_MAP:
                tracks.popitem(last=False)
    return Graph(board, track)

