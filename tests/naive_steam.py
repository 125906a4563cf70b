"""A slow, obviously correct reference for Steam goods deliveries (plain Python + networkx).

Independent of revenue.steam: it reads a *valid* request dict itself, lists every simple path with
networkx and filters it by the rules of docs/steam.md, written out one by one.
"""
from __future__ import annotations

import itertools

import networkx as nx

DEFAULTS = {"steam": (True, True), "age_of_steam": (False, False)}  # (own_majority, require_own_link)
PLAN_RANK = {"move+move": 0, "move+upgrade": 1, "upgrade+move": 2, "move+pass": 3, "upgrade+pass": 4,
             "pass+pass": 5, "move": 0, "upgrade": 1, "pass": 2}


class Board:
    def __init__(self, req: dict):
        self.req = req
        ruleset = req.get("ruleset") or "steam"
        majority, own_link = DEFAULTS[ruleset]
        self.own_majority = req.get("own_majority", majority)
        self.require_own_link = req.get("require_own_link", own_link)
        self.max_level = req.get("max_level", 6)
        self.player = req["player"]
        me = next(p for p in req["players"] if p["id"] == self.player)
        self.level = me["level"]
        self.upgraded = me.get("upgraded", False)
        self.round = req.get("round") or 1
        self.colour = {s["id"]: (s.get("colour") if s["kind"] == "city" else None) for s in req["stops"]}
        self.graph = nx.MultiGraph()
        self.graph.add_nodes_from(self.colour)
        self.owner = {}
        for link in req.get("links", []):
            if link.get("complete", True):
                self.graph.add_edge(link["a"], link["b"], key=link["id"])
                self.owner[link["id"]] = link.get("owner") or None
        self.cubes = {}
        for c in req.get("cubes", []):
            key = (c["stop"], c["colour"])
            self.cubes[key] = self.cubes.get(key, 0) + c.get("count", 1)
        self.cubes = {k: n for k, n in self.cubes.items() if n > 0}

    def points(self, links):
        pts = {}
        for lid in links:
            o = self.owner[lid]
            if o is not None:
                pts[o] = pts.get(o, 0) + 1
        return pts

    def structural(self, origin, colour, level):
        """Every walk obeying the movement rules (ownership ignored): (stops, links)."""
        out = []
        for target, c in self.colour.items():
            if c != colour or target == origin:
                continue
            for edges in nx.all_simple_edge_paths(self.graph, origin, target, cutoff=level):
                stops = [origin] + [None] * len(edges)
                for i, (u, v, _) in enumerate(edges):  # networkx orients each edge along the path
                    assert u == stops[i]
                    stops[i + 1] = v
                assert len(set(stops)) == len(stops)
                if any(self.colour[s] == colour for s in stops[1:-1]):
                    continue  # passed a city of the cube's colour: it would have stopped there
                out.append((stops, [k for _, _, k in edges]))
        return out

    def ownership_ok(self, links, majority, own_link):
        pts = self.points(links)
        own = pts.get(self.player, 0)
        if majority and any(n > own for o, n in pts.items() if o != self.player):
            return False
        if own_link and own == 0:
            return False
        return True

    def legal(self, level, majority=None, own_link=None):
        """Every legal delivery at `level` as dicts with a score key (own, -others, -links)."""
        majority = self.own_majority if majority is None else majority
        own_link = self.require_own_link if own_link is None else own_link
        out = []
        for (origin, colour) in self.cubes:
            for stops, links in self.structural(origin, colour, level):
                if not self.ownership_ok(links, majority, own_link):
                    continue
                pts = self.points(links)
                own = pts.get(self.player, 0)
                others = sum(pts.values()) - own
                out.append({"origin": origin, "colour": colour, "stops": stops, "links": links,
                            "own": own, "others": others, "points": pts,
                            "key": (own, -others, -len(links))})
        return out

    def reasons(self):
        """{(stop, colour): reason} for cube groups without a legal delivery."""
        legal = {(d["origin"], d["colour"]) for d in self.legal(self.level)}
        out = {}
        for (origin, colour) in self.cubes:
            if (origin, colour) in legal:
                continue
            targets = [s for s, c in self.colour.items() if c == colour and s != origin]
            if self.graph.degree(origin) == 0:
                out[(origin, colour)] = ("no_link", None)
            elif not targets:
                out[(origin, colour)] = ("no_destination", None)
            elif not any(nx.has_path(self.graph, origin, t) for t in targets):
                out[(origin, colour)] = ("unreachable", None)
            elif not self.structural(origin, colour, self.level):
                nearest = min(nx.shortest_path_length(self.graph, origin, t) for t in targets
                              if nx.has_path(self.graph, origin, t))
                out[(origin, colour)] = ("too_far", nearest)
            elif self.require_own_link and any(
                    self.ownership_ok(links, self.own_majority, False)
                    for _, links in self.structural(origin, colour, self.level)):
                out[(origin, colour)] = ("own_link", None)
            else:
                out[(origin, colour)] = ("own_majority", None)
        return out

    def plan(self):
        """(name, own, others, level_after) of the best plan by brute force over every pair of moves."""
        now = self.legal(self.level)
        can_up = not self.upgraded and self.level < self.max_level
        up = self.legal(self.level + 1) if can_up else []
        options = []  # (key, name, own, others, level_after)

        def add(name, moves, level_after):
            own = sum(d["own"] for d in moves)
            others = sum(d["others"] for d in moves)
            links = sum(len(d["links"]) for d in moves)
            options.append(((own, -others, -links, -PLAN_RANK[name]), name, own, others, level_after))

        if self.round == 1:
            for d1, d2 in itertools.product(now, now):
                group = (d1["origin"], d1["colour"])
                if group == (d2["origin"], d2["colour"]) and self.cubes[group] < 2:
                    continue  # the one cube is gone after the first move
                add("move+move", [d1, d2], self.level)
            for d in now:
                add("move+pass", [d], self.level)
                if can_up:
                    add("move+upgrade", [d], self.level + 1)
            for d in up:
                add("upgrade+move", [d], self.level + 1)
            if can_up:
                add("upgrade+pass", [], self.level + 1)
            add("pass+pass", [], self.level)
        else:
            for d in now:
                add("move", [d], self.level)
            if can_up:
                add("upgrade", [], self.level + 1)
            add("pass", [], self.level)
        best = max(options, key=lambda t: t[0])
        return best[1:]
