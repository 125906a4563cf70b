"""The track graph as revenue.graph built it before its walk became a Numba kernel: nodes and chains found
by following every tile path in plain Python, one recursive call per path. The tests check the graph that
revenue.graph builds against this one (same nodes, chains in the same order, same track keys by name,
same chain ids)."""
from __future__ import annotations

from revenue import hexgrid
from revenue.graph import Chain, GraphNode
from revenue.tiles import Path

GAUGE_FITS = {("broad", "broad"), ("broad", "dual"), ("dual", "broad"), ("narrow", "narrow"),
              ("narrow", "dual"), ("dual", "narrow"), ("dual", "dual")}


def walk_graph(board) -> tuple[list[GraphNode], list[Chain], list[str]]:
    """(nodes, chains, key names) of `board`, found by following every path in plain Python."""
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
    key_names = ["/".join(map(str, k[1:])) for k in keys]
    return nodes, chains, key_names
