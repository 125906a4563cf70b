"""The track graph of a board (rules/base.md sections 3 and 6).

Nodes are the revenue locations that some path references (cities, towns, halts, off-boards). A *chain*
is a stretch of track from one node to another that touches no other node: every route is a sequence of
chains whose consecutive chains share an end node. Each chain carries its *track keys*: one per hex side
it crosses or ends at, one per node-to-node path. Trains of one company never share a key.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from types import MappingProxyType
from dataclasses import dataclass, field

from . import hexgrid
from .board import Board, build_board
from .cache import GRAPH_CACHE_BYTES, graph_bytes
from .tiles import Path

GAUGE_FITS = {("broad", "broad"), ("broad", "dual"), ("dual", "broad"), ("narrow", "narrow"),
              ("narrow", "dual"), ("dual", "narrow"), ("dual", "dual")}


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


@dataclass
class Graph:
    board: Board
    nodes: list[GraphNode]
    chains: list[Chain]
    key_names: list[str]
    adjacency: list[list[int]] = field(default_factory=list)   # node id -> chain ids
    by_name: dict[str, int] = field(default_factory=dict)
    # arrays derived from the graph alone (chain key bitsets, adjacency in CSR form), built once by
    # their users (revenue.problem, revenue.solve): the graph itself never changes
    derived: dict[str, object] = field(default_factory=dict)
    request: object = None     # the board request it was built from (see graph_for)

    def connection(self, chain: Chain, start: int) -> list[str]:
        """The chain as an 18xx.games `connections` entry (its chain id), walked from node `start`."""
        return list(chain.ident if start == chain.a else chain.ident[::-1])

    def chains_for(self, entry: list[str] | tuple[str, ...]) -> list[Chain]:
        """The chains whose id, walked either way, is `entry`: how the engine reads a connection."""
        index = self.derived.get("chain_ids")
        if index is None:
            index = {}
            for c in self.chains:
                for ident in {c.ident, c.ident[::-1]}:
                    index.setdefault(ident, []).append(c)
            self.derived["chain_ids"] = index
        return index.get(tuple(entry), [])


def build_graph(board: Board) -> Graph:
    nodes: list[GraphNode] = []
    node_at: dict[tuple[str, int], int] = {}      # (hex, ordinal) -> node id
    for hex_name, bh in board.hexes.items():
        cities = bh.tile.cities
        for n in bh.tile.nodes:
            if n.kind == "junction":
                continue
            city_index = cities.index(n) if n in cities else -1
            tokens = tuple(board.tokens.get((hex_name, city_index), ())) if city_index >= 0 else ()
            node_at[(hex_name, n.ordinal)] = len(nodes)
            nodes.append(GraphNode(len(nodes), hex_name, n.part, n.ordinal, n.kind,
                                   n.revenue.value(board.phase.colours), n.slots, tokens, n.groups,
                                   n.visit_cost, city_index, bh.icons))

    keys: dict[tuple, int] = {}

    def key(k: tuple) -> int:
        return keys.setdefault(k, len(keys))

    def side_key(hex_name: str, edge: int) -> int:
        other = board.neighbours[hex_name].get(edge)
        if other is None:
            return key(("side", hex_name, edge))
        mine, theirs = (hex_name, edge), (other, hexgrid.opposite(edge))
        return key(("side",) + (mine + theirs if mine < theirs else theirs + mine))

    # Per hex: each path with its ends on map edges, nodes as ("node", id), junctions as ("junction", ord).
    def ends_of(hex_name: str, p: Path):
        bh = board.hexes[hex_name]
        out = []
        for e in p.ends:
            if e.edge is not None:
                out.append(("edge", bh.map_edge(e.edge)))
            elif (hex_name, e.node) in node_at:
                out.append(("node", node_at[(hex_name, e.node)]))
            else:
                out.append(("junction", e.node))
        return tuple(out)

    paths_of = {h: [(p, ends_of(h, p)) for p in bh.tile.paths] for h, bh in board.hexes.items()}
    ends_by_path = {(h, p.part): e for h, ps in paths_of.items() for p, e in ps}

    def path_keys(hex_name: str, p: Path) -> list[int]:
        ks = [side_key(hex_name, v) for t, v in ends_by_path[(hex_name, p.part)] if t == "edge"]
        if not ks:
            ks.append(key(("path", hex_name, p.part)))
        return ks

    def junctions(hex_name: str, p: Path) -> set[tuple[str, int]]:
        return {(hex_name, v) for t, v in ends_by_path[(hex_name, p.part)] if t == "junction"}

    # A tile with more than one path joining two nodes writes such a path as "<hex> i.j"
    # (the engine's Tile#ambiguous_connection?).
    ambiguous = {h for h, ps in paths_of.items()
                 if sum(all(t == "node" for t, _ in e) for _, e in ps) > 1}

    def chain_id(walked: list[tuple[str, Path]]) -> tuple[str, ...]:
        """rules/base.md section 8: hex names in walking order, a path skipped when one of its ends is a
        junction already met on the chain; a lone in-hex node-to-node path of an ambiguous tile as
        "<hex> i.j" (the two nodes' indexes, ascending)."""
        if len(walked) == 1 and walked[0][0] in ambiguous:
            hex_name, p = walked[0]
            ends = ends_by_path[(hex_name, p.part)]
            if all(t == "node" for t, _ in ends):
                i, j = sorted(nodes[v].part for _, v in ends)
                return (f"{hex_name} {i}.{j}",)
        met: set[tuple[str, int]] = set()
        ident = []
        for hex_name, p in walked:
            js = junctions(hex_name, p)
            if js & met:
                continue
            met |= js
            ident.append(hex_name)
        return tuple(ident)

    found: dict[tuple, Chain] = {}

    def record(start: int, end: int, walked: list[tuple[str, Path]]) -> None:
        if start == end:
            return
        seq = [(h, p.part) for h, p in walked]
        terms = [p.terminal for _, p in walked]
        if start > end:
            start, end, seq, terms = end, start, seq[::-1], terms[::-1]
            walked = walked[::-1]
        ident = (start, end, tuple(seq))
        if ident in found:
            return
        ks = sorted({k for h, p in walked for k in path_keys(h, p)})
        found[ident] = Chain(len(found), start, end, tuple(seq), tuple(ks), terms[0], terms[-1],
                             any(terms[1:-1]), chain_id(walked))

    def walk(start: int, hex_name: str, p: Path, entered: tuple | None, walked: list, sides: set) -> None:
        """Follow path p of hex_name, entered from `entered` (one of its ends), until it reaches a node."""
        walked = walked + [(hex_name, p)]
        for end in ends_by_path[(hex_name, p.part)]:
            if end == entered:
                continue
            kind, value = end
            if kind == "node":
                record(start, value, walked)
            elif kind == "junction":
                for q, q_ends in paths_of[hex_name]:
                    if q is not p and end in q_ends and all((hex_name, q.part) != (h, w.part) for h, w in walked):
                        walk(start, hex_name, q, end, walked, sides)
            else:
                bh = board.hexes[hex_name]
                other = board.neighbours[hex_name].get(value)
                side = side_key(hex_name, value)
                if other is None or side in sides or value in bh.impassable:
                    continue
                back = hexgrid.opposite(value)
                if back in board.hexes[other].impassable:
                    continue
                for q, q_ends in paths_of[other]:
                    if ("edge", back) in q_ends and (p.gauge, q.gauge) in GAUGE_FITS \
                            and all((other, q.part) != (h, w.part) for h, w in walked):
                        walk(start, other, q, ("edge", back), walked, sides | {side})

    for node in nodes:
        for p, p_ends in paths_of[node.hex]:
            if ("node", node.id) in p_ends:
                walk(node.id, node.hex, p, ("node", node.id), [], set())

    chains = list(found.values())
    adjacency: list[list[int]] = [[] for _ in nodes]
    for c in chains:
        adjacency[c.a].append(c.id)
        adjacency[c.b].append(c.id)
    key_names = ["/".join(map(str, k[1:])) for k in keys]
    return Graph(board, nodes, chains, key_names, adjacency, {n.name: n.id for n in nodes})


_GRAPHS: OrderedDict[object, Graph] = OrderedDict()
_GRAPHS_LOCK = threading.Lock()
GRAPH_CACHE_SIZE = 64
_GRAPH_BYTES: dict[object, int] = {}    # the estimated size of each remembered graph (revenue.cache)


def graph_for(board_request: Mapping) -> Graph:
    """build_graph(build_board(board_request)), remembered for the last GRAPH_CACHE_SIZE boards (fewer when
    they would pass GRAPH_CACHE_BYTES by revenue.cache's estimate): a game server asks about one board for
    each company of an operating round, and the track graph does not depend on the company. Boards and graphs are never changed after they are built.

    A board given as a read-only mapping (types.MappingProxyType) is remembered by identity: its owner
    promises never to change what it holds (the service does this with the boards it has decoded). Any
    other mapping is remembered by its repr, an exact key for JSON data."""
    if isinstance(board_request, MappingProxyType):
        key: object = ("same object", id(board_request))
    else:
        try:
            key = repr(board_request)
        except Exception:   # an object without a usable repr: build it, checks and all, uncached
            return build_graph(build_board(board_request))
    with _GRAPHS_LOCK:
        graph = _GRAPHS.get(key)
        if graph is not None and (not isinstance(key, tuple) or graph.request is board_request):
            _GRAPHS.move_to_end(key)
            return graph
    graph = build_graph(build_board(board_request))
    graph.request = board_request      # keeps an identity-keyed board alive while it is remembered
    with _GRAPHS_LOCK:
        _GRAPHS[key] = graph
        _GRAPH_BYTES[key] = graph_bytes(graph)
        while len(_GRAPHS) > 1 and (len(_GRAPHS) > GRAPH_CACHE_SIZE or
                                    sum(_GRAPH_BYTES.values()) > GRAPH_CACHE_BYTES):
            _GRAPH_BYTES.pop(_GRAPHS.popitem(last=False)[0], None)
    return graph
