"""What a company's track reaches, as the 18xx.games engine's Graph#compute finds it: from each city holding
the company's token, walk the paths (never turning back at a hex edge, never through a city whose slots
are all taken by others, never on past a terminal path) and note each path walked, each node met, and the
hex edges the company may lay track at (both sides of every exit walked, and every side of a tokened hex).

The board is read as hex name -> (Tile, rotation), so a lay can be tried by changing one entry.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..board import printed_hexes
from .shapes import WalkIndex, shape, walk_index

IMPASSABLE_COLOURS = ("blue", "gray", "red")


@dataclass
class Reach:
    edges: dict[str, set[int]] = field(default_factory=dict)     # hex -> edges where track may be laid
    paths: set[tuple[str, int]] = field(default_factory=set)      # (hex, path index) walked
    nodes: set[tuple[str, int]] = field(default_factory=set)      # (hex, node ordinal) met


MAPS_REMEMBERED = 64
# per map variant (its TitleData, kept alive here so that its id stays its own): the lay neighbours
_NEIGHBOURS: dict[int, tuple[object, dict[str, dict[int, str]]]] = {}


def hex_neighbours(board) -> dict[str, dict[int, str]]:
    """Hex#neighbors as the engine sets them up from the printed map: a side leads on unless this hex has an
    impassable border there, or the neighbour is a blue, gray or red hex without track towards it."""
    data = board.data
    cached = _NEIGHBOURS.get(id(data))
    if cached is not None and cached[0] is data:
        return cached[1]
    printed = printed_hexes(board.title, data)
    out: dict[str, dict[int, str]] = {}
    for name, sides in board.neighbours.items():
        mine = printed[name]
        keep = {}
        for edge, other in sides.items():
            if edge in mine.impassable:
                continue
            theirs = printed[other]
            if theirs.color in IMPASSABLE_COLOURS and \
                    (edge + 3) % 6 not in shape(theirs.tile, theirs.rotation).exits:
                continue
            keep[edge] = other
        out[name] = keep
    if len(_NEIGHBOURS) >= MAPS_REMEMBERED:     # custom maps come with each request
        _NEIGHBOURS.clear()
    _NEIGHBOURS[id(data)] = (data, out)
    return out


def city_blocks(tiles: dict, tokens: dict, hex_name: str, city: int, company: str) -> bool:
    """City#blocks?: every slot is taken and none by the company."""
    placed = tokens.get((hex_name, city), ())
    if company in placed:
        return False
    tile = tiles[hex_name][0]
    return len(placed) >= tile.cities[city].slots


class _Found(Exception):
    """A target path is reached: the walk ends there."""


def _indexes(tiles: dict) -> Callable[[str], WalkIndex]:
    """hex -> the WalkIndex of its tile, each made when first asked for."""
    index: dict[str, WalkIndex] = {}

    def paths_of(name: str) -> WalkIndex:
        got = index.get(name)
        if got is None:
            got = index[name] = walk_index(*tiles[name])
        return got
    return paths_of


def company_reach(tiles: dict, tokens: dict, neighbours: dict, company: str, blocking: bool = True,
                  targets: set | None = None) -> Reach:
    """The company's reach on a board of `tiles` (hex -> (Tile, rotation)) and `tokens` ((hex, city index)
    -> companies). With `targets` (paths as (hex, path index)) the walk ends at the first of them it
    reaches, and the reach is only what it walked until then."""
    reach = Reach()
    starts = []
    for (name, city), placed in tokens.items():
        if company in placed and name in tiles:
            tile = tiles[name][0]
            if city < len(tile.cities):
                starts.append((name, tile.cities[city].ordinal))
                reach.edges.setdefault(name, set()).update(neighbours.get(name, {}))
    paths_of = _indexes(tiles)    # each hex's tile as the walk takes it, looked up when first needed

    walked_nodes: set[tuple[str, int]] = set()   # the trail's nodes (Node#walk's visited)
    trail: set[tuple[str, int]] = set()          # the trail's paths (Path#walk's visited)
    crossing: dict[tuple[str, int], int] = {}    # hex sides the trail left by (Path#walk's counter)

    def walk_node(name: str, ordinal: int):
        if (name, ordinal) in walked_nodes:
            return
        walked_nodes.add((name, ordinal))

        def on_path(hname: str, i: int):
            found = paths_of(hname)
            path = found.shape.paths[i]
            reach.paths.add((hname, i))
            if targets is not None and (hname, i) in targets:
                raise _Found
            hex_edges = reach.edges.setdefault(hname, set())
            tile = tiles[hname][0]
            for end in path:
                if end[0] == "edge":
                    hex_edges.add(end[1])
                    other = neighbours[hname].get(end[1])
                    if other is not None:
                        reach.edges.setdefault(other, set()).add((end[1] + 3) % 6)
            for end in path:
                if end[0] != "edge":
                    reach.nodes.add((hname, end[1]))
            if tile.paths[i].terminal:
                return
            for end in path:
                if end[0] == "edge" or (hname, end[1]) == (name, ordinal):
                    continue
                node = tile.node_parts[end[1]]
                if node.kind == "offboard":     # Offboard#blocks?: track never leads on through one
                    continue
                if blocking and node.kind in ("city", "pass"):
                    c = found.city_of.get(end[1], -1)
                    if c >= 0 and city_blocks(tiles, tokens, hname, c, company):
                        continue
                yield walk_node(hname, end[1])

        for i in paths_of(name).by_node.get(ordinal, ()):
            yield path_walk(tiles, neighbours, paths_of, crossing, trail, name, i, None, on_path)
        walked_nodes.discard((name, ordinal))

    try:
        for start in starts:
            # the other tokened cities count as visited (Graph#compute)
            walked_nodes.clear()
            walked_nodes.update(s for s in starts if s != start)
            reach.nodes.add(start)
            run(walk_node(*start))
    except _Found:
        pass
    return reach


def reaches_any(tiles: dict, tokens: dict, neighbours: dict, company: str, targets: set) -> bool:
    """Whether company_reach reaches one of the `targets` paths. A search that moves as the walk does but
    remembers no trail (it leaves a path by another end than the one it came in by, and a node by another
    path) meets every path the walk meets, each once: when it meets no target, the walk, which follows every
    trail, is not needed."""
    paths_of = _indexes(tiles)

    # (hex, path, the edge it was entered at or -1, the node ordinal it was entered from or -1)
    todo: list[tuple[str, int, int, int]] = []
    for (name, city), placed in tokens.items():
        if company in placed and name in tiles and city < len(tiles[name][0].cities):
            ordinal = tiles[name][0].cities[city].ordinal
            todo.extend((name, i, -1, ordinal) for i in paths_of(name).by_node.get(ordinal, ()))
    seen: set[tuple[str, int, int, int]] = set()
    while todo:
        here = todo.pop()
        if here in seen:
            continue
        seen.add(here)
        hname, i, skip, came = here
        if (hname, i) in targets:
            return not targets.isdisjoint(company_reach(tiles, tokens, neighbours, company, targets=targets).paths)
        found = paths_of(hname)
        for e in found.exits[i]:
            other = neighbours[hname].get(e)
            if e != skip and other is not None and other in tiles:
                back = (e + 3) % 6
                todo.extend((other, j, back, -1) for j in paths_of(other).by_edge.get(back, ()))
        tile = tiles[hname][0]
        if tile.paths[i].terminal:
            continue
        for end in found.shape.paths[i]:
            if end[0] == "edge" or end[1] == came:
                continue
            kind = tile.node_parts[end[1]].kind
            if kind == "offboard":
                continue
            if kind in ("city", "pass"):
                c = found.city_of.get(end[1], -1)
                if c >= 0 and city_blocks(tiles, tokens, hname, c, company):
                    continue
            todo.extend((hname, j, -1, end[1]) for j in found.by_node.get(end[1], ()) if j != i)
    return False


# The walks go as deep as their trails are long: they are generators that yield each walk they go into, and
# run() steps them on a stack of its own, not Python's.

def path_walk(tiles: dict, neighbours: dict, paths_of, crossing: dict, trail: set, hname: str, i: int,
              skip: int | None, on_path):
    """Path#walk from path i of hex `hname` (entered at edge `skip`): on_path(hex, path) (a walk too) for
    each path of the trail, never a path twice in the trail nor out by a hex side the trail left by."""
    here = (hname, i)
    if here in trail:
        return
    exits = paths_of(hname).exits[i]
    for e in exits:     # (a loop, not any() over a generator: this is the walks' innermost step)
        if crossing.get((hname, e)):
            return
    trail.add(here)
    yield from on_path(hname, i)
    for e in exits:
        if e == skip:
            continue
        other = neighbours[hname].get(e)
        if other is None or other not in tiles:
            continue
        side = (hname, e)
        crossing[side] = crossing.get(side, 0) + 1
        back = (e + 3) % 6
        for j in paths_of(other).by_edge.get(back, ()):
            yield path_walk(tiles, neighbours, paths_of, crossing, trail, other, j, back, on_path)
        crossing[side] -= 1
    trail.discard(here)


def run(walk) -> None:
    """Step a walk and every walk it yields, depth first, as calls would."""
    stack = [walk]
    while stack:
        inner = next(stack[-1], None)
        if inner is None:
            stack.pop()
        else:
            stack.append(inner)
