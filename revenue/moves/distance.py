"""How far a company's trains must run to reach each node and path of its track, as the 18xx.games engine's
DistanceGraph counts it with node types apart (1860): [cities passed, towns passed] from the nearest of the
company's tokens, halts and offboards passing free. 1860 lets a company upgrade only track its biggest train
reaches (the engine's G1860::Step::Track reachable_* checks), which these distances decide.
"""
from __future__ import annotations

from .network import city_blocks, path_walk, run
from .shapes import walk_index


# (a distance is a pair [cities, towns]: compared and merged element by element)
def _within(a, b) -> bool:
    return a is not None and a[0] <= b[0] and a[1] <= b[1]


def _merged(a, b):
    if a is None:
        return list(b)
    return [a[0] if a[0] < b[0] else b[0], a[1] if a[1] < b[1] else b[1]]


def distances(tiles: dict, tokens: dict, neighbours: dict, company: str) -> tuple[dict, dict]:
    """(node distances keyed (hex, node ordinal), path distances keyed (hex, path index))."""
    node_d: dict = {}
    path_d: dict = {}
    index: dict = {}
    crossing: dict = {}

    def info(name):
        got = index.get(name)
        if got is None:
            got = index[name] = walk_index(*tiles[name])
        return got

    def node_walk(name, ordinal, distance):
        key = (name, ordinal)
        if _within(node_d.get(key), distance):
            return
        node_d[key] = _merged(node_d.get(key), distance)
        tile = tiles[name][0]
        kind = tile.node_parts[ordinal].kind
        step = list(distance)
        if kind in ("city", "pass"):
            step[0] += 1
        elif kind == "town":
            step[1] += 1
        found = info(name)
        if kind == "offboard":
            return
        if kind in ("city", "pass") and city_blocks(tiles, tokens, name, found.city_of[ordinal], company):
            return

        def on_path(hname, i):
            path_d[(hname, i)] = _merged(path_d.get((hname, i)), step)
            htile = tiles[hname][0]
            if htile.paths[i].terminal:
                return
            for end in info(hname).shape.paths[i]:
                if end[0] != "edge" and (hname, end[1]) != key:
                    yield node_walk(hname, end[1], step)

        for i in found.by_node.get(ordinal, ()):
            if _within(path_d.get((name, i)), step):
                continue
            yield path_walk(tiles, neighbours, info, crossing, set(), name, i, None, on_path)

    for (name, city), placed in tokens.items():
        if company in placed and name in tiles and city < len(tiles[name][0].cities):
            run(node_walk(name, tiles[name][0].cities[city].ordinal, [0, 0]))
    return node_d, path_d


def reaches_city(nd, td) -> bool:
    unused = td[0] - nd[0] - 1
    return nd[0] < td[0] and nd[1] <= td[1] + unused


def reaches_town(nd, td) -> bool:
    unused = td[0] - nd[0]
    return nd[0] <= td[0] and nd[1] < td[1] + unused


def reaches_halt(nd, td) -> bool:
    unused = td[0] - nd[0]
    return nd[0] <= td[0] and nd[1] <= td[1] + unused


def reaches_node(kind: str, nd, td) -> bool:
    if kind in ("city", "pass", "offboard"):
        return reaches_city(nd, td)
    if kind == "town":
        return reaches_town(nd, td)
    return reaches_halt(nd, td)
