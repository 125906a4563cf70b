"""1860's track step (G1860::Step::Track and its Tracker): a company may upgrade only where its biggest train
reaches, and an upgrade must add track that train reaches or change the value of what it reaches."""
from __future__ import annotations

from .distance import distances, reaches_city, reaches_halt, reaches_node, reaches_town
from .network import reaches_any
from .shapes import path_within, shape

NO_TRAIN = (0, 0)


def biggest_train(board, trains) -> tuple[int, int]:
    """[city allowance, town allowance] of the company's own train with the most cities (9999 towns unless
    every town must be counted); leased trains are the bank's."""
    best = None
    for spec in trains or ():
        if spec.get("leased"):
            continue
        train = board.data.trains.get(spec.get("name") or "")
        if train is None:
            continue
        rows = train.rows
        if best is None or rows[0].pay > best[0].pay:
            best = rows
    if best is None:
        return NO_TRAIN
    skip = not any(str(board.options.get(o, "")).lower() not in ("", "0", "false", "no")
                   for o in ("no_skip_towns", "original_game"))
    return best[0].pay, 9999 if skip else best[-1].pay


class TrainReach:
    """The distances on the board as it is, made once for all the lays tried on it."""

    def __init__(self, tiles, tokens, neighbours, company, reach, td):
        self.tiles, self.tokens, self.neighbours, self.company, self.reach, self.td = \
            tiles, tokens, neighbours, company, reach, td
        self.node_d, self.path_d = distances(tiles, tokens, neighbours, company) if td[0] else ({}, {})

    def hex_available(self, name: str) -> bool:
        """Track#available_hex for a hex with a tile: the company's biggest train reaches the tile, or the
        end of its track next to it."""
        if not self.td[0]:
            return False
        if _hex_reached(self.tiles, name, self.node_d, self.path_d, self.td):
            return True
        tile = self.tiles[name][0]
        kinds = {n.kind for n in tile.node_parts if n.kind != "junction"}
        for edge in self.reach.edges.get(name, ()):
            other = self.neighbours[name].get(edge)
            if other is None:
                continue
            back = (edge + 3) % 6
            s = shape(*self.tiles[other])
            npath = next((i for i, p in enumerate(s.paths) if (other, i) in self.path_d and ("edge", back) in p), None)
            if npath is None:
                continue
            pd = self.path_d[(other, npath)]
            if ({"city", "pass"} & kinds and reaches_city(pd, self.td)) or \
                    ("town" in kinds and reaches_town(pd, self.td)) or \
                    ("halt" in kinds and reaches_halt(pd, self.td)) or \
                    (not kinds and reaches_halt(pd, self.td)):
                return True
        return False

    def restriction_met(self, name, old_shape, tile, rotation) -> bool:
        """The track restriction as 1860 checks it after the lay: the tile within the train's reach, and new
        track the train reaches or a changed value of the nodes it reaches."""
        after = dict(self.tiles)
        after[name] = (tile, rotation)
        node_d, path_d = distances(after, self.tokens, self.neighbours, self.company)
        if not _hex_reached(after, name, node_d, path_d, self.td):
            return False
        old_tile = self.tiles[name][0]
        if _revenues(old_tile, name, self.node_d, self.td) != _revenues(tile, name, node_d, self.td):
            return True
        new = shape(tile, rotation)
        wanted = set()
        for i, np in enumerate(new.paths):
            pd = path_d.get((name, i))
            if pd is None or pd[0] > self.td[0] or pd[-1] > self.td[-1]:
                continue
            if not any(path_within(np, op) for op in old_shape.paths):
                wanted.add((name, i))
        if not wanted:
            return False
        return reaches_any(after, self.tokens, self.neighbours, self.company, wanted)


def _hex_reached(tiles, name, node_d, path_d, td) -> bool:
    tile, rotation = tiles[name]
    s = shape(tile, rotation)
    if not any((name, i) in path_d for i in range(len(s.paths))):
        return False
    nodes = [n for n in tile.node_parts if n.kind != "junction"]
    if nodes:
        return any((nd := node_d.get((name, n.ordinal))) is not None and reaches_node(n.kind, nd, td) for n in nodes)
    return any((pd := path_d.get((name, i))) is not None and reaches_halt(pd, td) for i in range(len(s.paths)))


def _revenues(tile, name, node_d, td) -> list[int]:
    """The highest values of the tile's nodes the train reaches (a city as a city, a town as a town, others
    as halts), sorted."""
    out = []
    for n in tile.node_parts:
        if n.kind == "junction":
            continue
        nd = node_d.get((name, n.ordinal))
        if nd is None:
            continue
        kind = n.kind if n.kind in ("city", "pass", "town") else "halt"
        if reaches_node(kind, nd, td):
            out.append(n.revenue.maximum)
    return sorted(out)
