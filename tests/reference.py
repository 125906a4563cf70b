"""A slow, obviously correct reference solver that imports nothing of the library: it reads the board
through tests/ref_board.py (its own tile DSL reader and copy of the 18xx.games map data) and re-derives
everything else.

Track model: a networkx MultiGraph whose vertices are revenue nodes, junctions and path *ends*
("end", hex, map edge); its edges are tile paths, plus one "crossing" edge between the ends that face
each other across a hex side. A route is a trail that alternates path and crossing at every end vertex,
starts and stops at revenue nodes and passes only nodes the company may pass. Rules are applied as
rules/base.md words them; revenue is the engine's subset search; the best run is brute force over all
route combinations.
"""
from __future__ import annotations

from functools import total_ordering
from itertools import combinations, product

import networkx as nx

STOP_KINDS = {"city", "pass", "town", "halt", "offboard"}


def track_graph(board) -> nx.MultiGraph:
    g = nx.MultiGraph()
    for name, bh in board.hexes.items():
        parts = {n.ordinal: n for n in bh.tile.node_parts}
        for p in bh.tile.paths:
            ends = []
            for e in p.ends:
                if e.edge is not None:
                    ends.append(("end", name, (e.edge + bh.rotation) % 6))
                elif parts[e.node].kind == "junction":
                    ends.append(("junction", name, e.node))
                else:
                    ends.append(("node", name, e.node))
            for v in ends:
                if v[0] == "node":
                    g.add_node(v, part=parts[v[2]], hex=name)
                else:
                    g.add_node(v)
            g.add_edge(ends[0], ends[1], key=("path", name, p.part), kind="path", terminal=p.terminal)
    for name, bh in board.hexes.items():
        for edge in range(6):
            other = board.neighbours[name].get(edge)
            a, b = ("end", name, edge), ("end", other, (edge + 3) % 6)
            if other and a in g and b in g and name < other and edge not in bh.impassable \
                    and (edge + 3) % 6 not in board.hexes[other].impassable:
                g.add_edge(a, b, key=("cross", name, edge), kind="cross", terminal=False)
    return g


def node_name(g, v) -> str:
    return f"{v[1]}-{g.nodes[v]['part'].part}"


def blocks(board, g, v, company) -> bool:
    part = g.nodes[v]["part"]
    if part.kind == "offboard":
        return True
    if part.kind not in ("city", "pass"):
        return False
    city_index = [n.ordinal for n in board.hexes[v[1]].tile.node_parts if n.kind in ("city", "pass")].index(v[2])
    tokens = board.tokens.get((v[1], city_index), [])
    # (1860: the tokens of a company in bankruptcy are flipped; a city holding one never blocks)
    if any((v[1], t) in board.flipped for t in tokens):
        return False
    return company not in tokens and len(tokens) >= part.slots and len(tokens) > 0


def has_token(board, g, v, company) -> bool:
    part = g.nodes[v]["part"]
    if part.kind not in ("city", "pass"):
        return False
    city_index = [n.ordinal for n in board.hexes[v[1]].tile.node_parts if n.kind in ("city", "pass")].index(v[2])
    return company in board.tokens.get((v[1], city_index), [])


def all_trails(board, g, company, too_long=lambda parts: False, bypass=0):
    """Every route shape: (node vertices in order, set of used ends and node-node paths, path keys in
    order, first/last path terminal flags). Each undirected route is listed once. `too_long(parts)`
    says when no train could visit these nodes, so the walk need not go on; up to `bypass` blocked
    cities (not off-boards) may be passed."""
    out = []
    starts = [v for v in g if v[0] == "node"]

    def extend(nodes, used_paths, used_ends, path_seq, at, arrived_by_path):
        # at: current vertex; arrived_by_path: whether we came to `at` over a path (True) or crossing
        for _, nxt, key, data in g.edges(at, keys=True, data=True):
            kind = data["kind"]
            if at[0] == "end" and ((kind == "path") == arrived_by_path):
                continue          # at an end: path must be followed by a crossing and vice versa
            if at[0] in ("node", "junction") and kind != "path":
                continue
            if kind == "path" and key in used_paths:
                continue
            new_ends = set()
            for v in (at, nxt):
                if v[0] == "end" and kind == "path":
                    new_ends.add(v)
            if new_ends & used_ends:
                continue
            seq = path_seq + ([(key, data["terminal"])] if kind == "path" else [])
            if nxt[0] == "node":
                if nxt in nodes:
                    continue
                route_nodes = nodes + [nxt]
                out.append((route_nodes, used_ends | new_ends, used_paths | {key}, seq))
                part = g.nodes[nxt]["part"]
                passed = sum(blocks(board, g, v, company) for v in route_nodes[1:])
                passable = not blocks(board, g, nxt, company) or (part.kind in ("city", "pass") and passed <= bypass)
                if part.kind in STOP_KINDS and passable \
                        and not too_long([g.nodes[v]["part"] for v in route_nodes]):
                    extend(route_nodes, used_paths | {key}, used_ends | new_ends, seq, nxt, True)
            else:
                extend(nodes, used_paths | ({key} if kind == "path" else set()), used_ends | new_ends, seq, nxt,
                       kind == "path")

    for s in starts:
        extend([s], frozenset(), frozenset(), [], s, True)
    unique = {}
    for nodes, ends, paths, seq in out:
        ident = frozenset(paths)
        if nodes[0] > nodes[-1]:
            continue
        unique[(tuple(nodes), ident)] = (nodes, ends, paths, seq)
    return list(unique.values())


def engine_revenue(values, kinds, tokened, rows):
    """rules/base.md section 5: k from min(sum pay, visited) down; the best k-subset holding a token
    whose nodes fit rows (first fitting row, rows with fewest types first); first k with revenue > 0.
    None when no choice of stops holds a token at all (the route is illegal: merged stops dropped the
    company's city, in a title whose stop choice keeps the token rule)."""
    order = sorted(range(len(rows)), key=lambda r: len(rows[r][0]))
    n = len(values)
    total_pay = sum(r[1] for r in rows)
    found = False
    for k in range(min(total_pay, n), 0, -1):
        best = None
        for subset in combinations(range(n), k):
            if not any(tokened[i] for i in subset):
                continue
            room = [rows[r][1] for r in range(len(rows))]
            fits = True
            for i in subset:
                for r in order:
                    if kinds[i] in rows[r][0] and room[r] > 0:
                        room[r] -= 1
                        break
                else:
                    fits = False
                    break
            if fits:
                s = sum(values[i] for i in subset)
                best = s if best is None else max(best, s)
        found = found or best is not None
        if best is not None and best > 0:
            return best
    return 0 if found else None


class Rules:
    """Base rules; titles under test subclass this with their own plain reading of the rule notes.
    Hooks get node names (`F9-0`) and tile parts."""

    def train_rows(self, train):
        """[(kinds, pay, visit, multiplier)] of an 18xx.games train definition (dict)."""
        d = train["distance"]
        if isinstance(d, int):
            return [({"city", "pass", "town", "halt", "offboard"}, 10**6, d, 1)]
        return [(set(r["nodes"]), r["pay"], r["visit"], r.get("multiplier") or 1) for r in d]

    prune = True    # stop walking once no train can visit that many nodes (see best_run)

    def node_value(self, board, part):
        return part.revenue.value(board.phase.colours)

    def may_visit(self, train, part, name) -> bool:
        return True

    def may_end(self, train, part, name="") -> bool:
        return True

    def groups(self, train, part, name):
        return list(part.groups)

    def node_bonus(self, board, privates, hex_name) -> int:
        """Added to a node's value when it is a paid stop (not multiplied)."""
        return 0

    def route_ok(self, train, names) -> bool:
        """Further route-level conditions."""
        return True

    def trail_ok(self, train, names, parts, seq) -> bool:
        """Conditions on the route's walk: `seq` is its tile paths in order, (("path", hex, part),
        terminal flag), as all_trails gives it (reversed for the route the other way round)."""
        return True

    def stops(self, train, names, values):
        """The stop list: (names, values) after any merging of stops; None if the route is illegal."""
        return names, values

    def route_bonus(self, train, names) -> int:
        return 0

    def route_revenue(self, values, kinds, tokened, rows) -> int:
        """Revenue of the kept stops (values with node bonuses added; rows (kinds, pay, visit)):
        the engine's subset search of rules/base.md section 5."""
        return engine_revenue(values, kinds, tokened, rows)

    def train_revenue(self, train, values, kinds, tokened, rows):
        """route_revenue for this train (a title whose trains differ in more than their rows overrides it)."""
        return self.route_revenue(values, kinds, tokened, rows)

    def bypass(self, train) -> int:
        """How many blocked cities a route may pass."""
        return 0

    def route_flags(self, names, bypassed) -> int:
        """Flag bits of a route (bit 0: it passes a blocked city)."""
        return 1 if bypassed else 0

    def run_ok(self, routes) -> bool:
        """Rules over a whole run: `routes` is a list of (names, flags) of the non-empty routes."""
        return True


def _diesel(revenue):
    """A node's diesel value, or None: from the reference's Revenue (`values`) or, on a board some tests build
    with the library, the library's (`by_colour`)."""
    table = getattr(revenue, "values", None)
    if table is None:
        table = dict(getattr(revenue, "by_colour", ()))
    return table.get("diesel")


def route_value(board, g, company, train, nodes, seq, rules: Rules, privates=()):
    """Revenue of one route shape for `train`, or None when illegal for it."""
    rows = rules.train_rows(train)
    parts = [g.nodes[v]["part"] for v in nodes]
    names = [node_name(g, v) for v in nodes]
    if not any(has_token(board, g, v, company) for v in nodes):
        return None
    groups = [grp for p, name in zip(parts, names) for grp in rules.groups(train, p, name)]
    if len(groups) != len(set(groups)):
        return None
    if any(t for _, t in seq[1:-1]):
        return None
    if not rules.trail_ok(train, names, parts, seq):
        return None
    if sum(blocks(board, g, v, company) for v in nodes[1:-1]) > rules.bypass(train):
        return None
    for p, name in zip(parts, names):
        if not any(p.kind in r[0] for r in rows) or not rules.may_visit(train, p, name):
            return None
    if not rules.may_end(train, parts[0], names[0]) or not rules.may_end(train, parts[-1], names[-1]):
        return None
    if not rules.route_ok(train, names):
        return None
    values = []
    for p in parts:
        mult = next(m for kinds, _, _, m in rows if p.kind in kinds)
        # rules/base.md section 5: a train named D takes a node's diesel value where it has one (1889)
        diesel = _diesel(p.revenue) if str(train.get("name", "")).upper() == "D" else None
        values.append((rules.node_value(board, p) if diesel is None else diesel) * mult)
    listed = rules.stops(train, names, values)
    if listed is None:
        return None
    kept, kept_values = listed
    by_name = dict(zip(names, nodes))
    kept_parts = [g.nodes[by_name[n]]["part"] for n in kept]
    for kinds, _, visit, _ in rows:
        if sum(p.visit_cost for p in kept_parts if p.kind in kinds) > visit:
            return None
    tokened = [has_token(board, g, by_name[n], company) for n in kept]
    bonus_per_node = [rules.node_bonus(board, privates, n.rsplit("-", 1)[0]) for n in kept]
    revenue = rules.train_revenue(train, [v + b for v, b in zip(kept_values, bonus_per_node)],
                                  [p.kind for p in kept_parts], tokened, [(k, pay, visit) for k, pay, visit, _ in rows])
    if revenue is None:
        return None
    return revenue + rules.route_bonus(train, names)


class DataRules(Rules):
    """Route-level rules given as plain data keyed by node names, read the obvious way (for property
    tests of the kernels' generic rules): forbid, no_end, groups, need (names, count), alt (end names,
    multipliers), merge (groups, penalty), metro, bonuses [(amount, [(classes, minimum)])], no_reentry."""

    def __init__(self, data: dict):
        self.d = data
        self.prune = not data.get("merge", ({}, 0))[0]    # merged stops count once: no early stop

    def may_visit(self, train, part, name):
        return name not in self.d.get("forbid", ())

    def may_end(self, train, part, name=""):
        return name not in self.d.get("no_end", ())

    def groups(self, train, part, name):
        return list(part.groups) + list(self.d.get("groups", {}).get(name, ()))

    def route_ok(self, train, names):
        need, count = self.d.get("need", (set(), 0))
        if (names[0] in need) + (names[-1] in need) < count:
            return False
        metro = self.d.get("metro", {})
        if names[0] in metro and all(metro.get(n) == metro[names[0]] for n in names):
            return False
        return True

    def trail_ok(self, train, names, parts, seq):
        if self.d.get("no_reentry"):
            left, here = set(), None
            for (_, hex_name, _), _ in seq:
                if hex_name != here:
                    if hex_name in left:
                        return False           # came back to a hex it had left
                    if here is not None:
                        left.add(here)
                    here = hex_name
        return True

    def stops(self, train, names, values):
        ends, mult = self.d.get("alt", (set(), {}))
        doubled = names[0] in ends and names[-1] in ends
        if doubled:
            values = [v * mult.get(n, 1) for n, v in zip(names, values)]
        merge, penalty = self.d.get("merge", ({}, 0))
        kept, kept_values, met = [], [], set()
        for i, (n, v) in enumerate(zip(names, values)):
            grp = merge.get(n)
            if grp is not None and i > 0 and merge.get(names[i - 1]) == grp:
                # the stop kept last pays the penalty, times its multiplier, never going below 0
                kept_values[-1] = max(0, kept_values[-1] - penalty * (mult.get(kept[-1], 1) if doubled else 1))
                continue
            if grp is not None:
                if grp in met:
                    return None
                met.add(grp)
            kept.append(n)
            kept_values.append(v)
        return kept, kept_values

    def bypass(self, train):
        return self.d.get("bypass", 0)

    def route_flags(self, names, bypassed):
        flags = 1 if bypassed else 0
        for n in names:
            flags |= self.d.get("flags", {}).get(n, 0)
        return flags

    def run_ok(self, routes):
        if not routes:
            return True
        for bit, cap in self.d.get("flag_max", {}).items():
            if sum((f >> bit) & 1 for _, f in routes) > cap:
                return False
        for bit, least in self.d.get("flag_min", {}).items():
            if sum((f >> bit) & 1 for _, f in routes) < least:
                return False
        if self.d.get("connected"):
            graph = nx.Graph()
            graph.add_nodes_from(range(len(routes)))
            for i in range(len(routes)):
                for j in range(i):
                    if set(routes[i][0]) & set(routes[j][0]):
                        graph.add_edge(i, j)
            return nx.is_connected(graph)
        return True

    def route_bonus(self, train, names):
        total = 0
        for amount, clauses in self.d.get("bonuses", ()):
            if all(len({classes[n] for n in names if n in classes}) >= minimum for classes, minimum in clauses):
                total += amount
        return total


def best_run(board, company, trains, rules: Rules | None = None, privates=(), answer=None):
    """(best total, per-train routes as node-name lists) by brute force over every combination. With
    `answer`, a run found elsewhere as [(train name, node names in visit order)], a third item: what the
    reference makes of that run, (total, per-route revenues) of its best legal reading (each route a trail
    through exactly those nodes in that order, no track shared, the run rules), or None if it has none."""
    rules = rules or Rules()
    g, shapes = route_shapes(board, company, trains, rules)
    options = []
    for train in trains:
        opts = [(0, None, frozenset(), frozenset())]
        for nodes, ends, paths, seq in shapes:
            # A route may be submitted either way round; some rules (merged stops) care which.
            values = [route_value(board, g, company, train, n, q, rules, privates)
                      for n, q in ((nodes, seq), (nodes[::-1], seq[::-1]))]
            values = [v for v in values if v is not None]
            if values:
                names = [node_name(g, v) for v in nodes]
                flags = rules.route_flags(names, any(blocks(board, g, v, company) for v in nodes[1:-1]))
                opts.append((max(values), (names, flags), ends, paths))
        options.append(opts)
    best = [0, []]

    def go(i, total, ends, paths, chosen):
        if i == len(options):
            if total > best[0] and rules.run_ok([c for c in chosen if c is not None]):
                best[0], best[1] = total, [c and c[0] for c in chosen]
            return
        for value, route, e, p in options[i]:
            if e & ends or p & paths:
                continue
            go(i + 1, total + value, ends | e, paths | p, chosen + [route])

    go(0, 0, frozenset(), frozenset(), [])
    if answer is None:
        return best[0], best[1]
    return best[0], best[1], run_value(board, g, company, trains, shapes, rules, privates, answer)


def route_shapes(board, company, trains, rules: Rules):
    """(track graph, every trail some train of `trains` might run: all_trails)."""
    g = track_graph(board)
    limits = [rules.train_rows(t) for t in trains]

    def too_long(parts):   # every train already over some row's visit limit
        return rules.prune and all(any(sum(p.visit_cost for p in parts if p.kind in kinds) > visit for kinds, _, visit, _ in rows)
                   for rows in limits)

    return g, all_trails(board, g, company, too_long, max(rules.bypass(t) for t in trains) if trains else 0)


def read_run(board, company, trains, rules: Rules, answer, privates=()):
    """What the reference makes of the run `answer` alone (run_value), without searching for the optimum:
    for runs priced as someone chose (1860's halts, given in the train dicts)."""
    g, shapes = route_shapes(board, company, trains, rules)
    return run_value(board, g, company, trains, shapes, rules, privates, answer)


def run_value(board, g, company, trains, shapes, rules, privates, answer):
    """(total, per-route revenues) of the best legal reading of the run `answer` [(train name, nodes)],
    or None (see best_run)."""
    by_name = {t["name"]: t for t in trains}
    readings = []
    for train_name, nodes in answer:
        if train_name not in by_name:
            return None
        found = []
        for shape, ends, paths, seq in shapes:
            for walk, steps in ((shape, seq), (shape[::-1], seq[::-1])):
                names = [node_name(g, v) for v in walk]
                if names != list(nodes):
                    continue
                value = route_value(board, g, company, by_name[train_name], walk, steps, rules, privates)
                if value is not None:
                    flags = rules.route_flags(names, any(blocks(board, g, v, company) for v in walk[1:-1]))
                    found.append((value, (names, flags), ends, paths))
        readings.append(found)
    best = None
    for combo in product(*readings):
        ends = [e for _, _, es, _ in combo for e in es]
        paths = [q for _, _, _, ps in combo for q in ps]
        if len(ends) == len(set(ends)) and len(paths) == len(set(paths)) and rules.run_ok([c[1] for c in combo]):
            total = sum(c[0] for c in combo)
            if best is None or total > best[0]:
                best = (total, [c[0] for c in combo])
    return best


class SteamOverHollandRules(Rules):
    """rules/steam_over_holland.md as written: no route begins or ends at a town; fl. 20 for a stop at
    D9 (VES) or J1 (VVL) while the company owns that private, in phases 2-4 only, not multiplied."""

    def may_end(self, train, part, name="") -> bool:
        return part.kind != "town"

    def node_bonus(self, board, privates, hex_name) -> int:
        if board.phase.name not in ("2", "3", "4"):
            return 0
        return 20 * ((hex_name == "D9" and "VES" in privates) + (hex_name == "J1" and "VVL" in privates))


class G18RhlRules(Rules):
    """rules/18rhl.md sections 5-8 read plainly, by hex and node name (`C14-1` is the city reached from C12):
    normal trains may not end at a town or at A14/B15/C2 holding another company's first-city token, and
    visit at most one of C14/D15, L11/L13 (A4/A6 by their group); the Trajekt drops the second of two
    consecutive visits to one Rhine metropolis (the first worth 10 less) and forbids meeting a green one
    again; no route inside one metropolis; Montan, Eastern Ruhr, Iron Rhine and Ratingen bonuses from the
    stops; the 8-train: an RGE end, no other red hex, towns dropped, best 8, metropolises doubled when both
    ends are RGE hexes, no bonuses. Green-metropolis tokens that are neutral are left out of the board this
    reads (g18rhl_board), since blocking is the only thing other companies' tokens decide there."""

    RGE = {"A4", "A6", "L11", "L13"}
    METRO = {"D9", "F9", "I10"}
    RUHR = {"C14", "D15"}

    RULES = ("trajekt", "trajekt_revisit", "rge_ends", "rge_red", "rge_doubling", "montan", "eastern_ruhr",
             "iron_rhine", "ratingen", "town_end", "out_tokened_end", "ruhr_pair", "south_pair", "single_metro")

    def __init__(self, board, company, off=()):
        self.board, self.company = board, company
        self.off = frozenset(off)     # rules (of RULES) taken out, to measure how often each decides the optimum
        assert self.off <= set(self.RULES), self.off
        self.red = {h for h, bh in board.hexes.items() if bh.color == "red"}
        # Merged Trajekt stops count once: pruning by raw city count could cut a legal route.
        self.prune = all(board.hexes[h].color == "yellow" for h in self.METRO)

    @staticmethod
    def hex_of(name):
        return name.rsplit("-", 1)[0]

    def rge(self, train):
        return train["name"] == "8"

    def may_visit(self, train, part, name):
        h = self.hex_of(name)
        return not self.rge(train) or h not in self.red or h in self.RGE or "rge_red" in self.off

    def may_end(self, train, part, name=""):
        if self.rge(train):
            return True
        if part.kind == "town":
            return "town_end" in self.off
        h = self.hex_of(name)
        if h in ("A14", "B15", "C2") and "out_tokened_end" not in self.off:
            return all(c == self.company for c in self.board.tokens.get((h, 0), []))
        return True

    def groups(self, train, part, name):
        out = list(part.groups)
        if not self.rge(train):
            h = self.hex_of(name)
            if h in self.RUHR and "ruhr_pair" not in self.off:
                out.append("C14/D15")
            if h in ("L11", "L13") and "south_pair" not in self.off:
                out.append("L11/L13")
        return out

    def route_ok(self, train, names):
        hexes = [self.hex_of(n) for n in names]
        if hexes[0] in self.METRO and len(set(hexes)) == 1 and "single_metro" not in self.off:
            return False
        if self.rge(train) and hexes[0] not in self.RGE and hexes[-1] not in self.RGE \
                and "rge_ends" not in self.off:
            return False
        return True

    def stops(self, train, names, values):
        rge = self.rge(train)
        parts = {n: p for n, p in zip(names, self._parts(names))}
        kept, kept_values, visits = [], [], []
        for i, (n, v) in enumerate(zip(names, values)):
            h = self.hex_of(n)
            town = parts[n].kind == "town"
            if rge and town:
                continue            # the RGE ignores towns
            prev = names[i - 1] if i > 0 else None
            if prev is not None and h in self.METRO and self.hex_of(prev) == h \
                    and not (rge and parts[prev].kind == "town"):
                if "trajekt" in self.off:     # taken out: both stops paid in full
                    kept.append(n)
                    kept_values.append(v)
                    continue
                kept_values[-1] -= 10   # the Trajekt: one stop, 10 less
                continue
            kept.append(n)
            kept_values.append(v)
            visits.append(h)
        for h in self.METRO:
            if self.board.hexes[h].color == "green" and visits.count(h) > 1 and "trajekt_revisit" not in self.off:
                return None         # "Must use Trajekt for a revisiting route"
        if rge and self.hex_of(names[0]) in self.RGE and self.hex_of(names[-1]) in self.RGE \
                and "rge_doubling" not in self.off:
            kept_values = [v * 2 if self.hex_of(n) in self.METRO else v for n, v in zip(kept, kept_values)]
        return kept, kept_values

    def route_revenue(self, values, kinds, tokened, rows):
        # The engine pays 18Rhl's own stop list (game.rb revenue_for: the Trajekt-merged stops, the 8-train's
        # best 8), so the token rule is the route's only (route_value), even when the Trajekt drops the
        # company's city (18xx.games game 96576, action 332: GVE's 4-train D9-1, D9-0 with its token on D9-0).
        return engine_revenue(values, kinds, [True] * len(values), rows)

    def _parts(self, names):
        out = []
        for n in names:
            h, part = self.hex_of(n), int(n.rsplit("-", 1)[1])
            out.append(next(p for p in self.board.hexes[h].tile.node_parts if p.part == part))
        return out

    def links(self):
        count = 0
        for h, edge in (("C12", 4), ("D13", 3), ("D13", 4), ("E14", 3)):
            bh = self.board.hexes[h]
            if any(e.edge is not None and (e.edge + bh.rotation) % 6 == edge for p in bh.tile.paths for e in p.ends):
                count += 1
        return count

    def route_bonus(self, train, names):
        if self.rge(train):
            return 0
        b = self.board
        hexes = {self.hex_of(n) for n in names}
        coal = len({h for h in hexes if "K" in b.hexes[h].icons or b.options.get("coal") == h})
        steel = len({h for h in hexes if "S" in b.hexes[h].icons or b.options.get("steel") == h})
        coal += any(n in ("C14-1", "D15-0") for n in names)
        steel += any(n in ("C14-0", "D15-1") for n in names)
        total = 0
        if coal >= 1 and steel >= 1 and "montan" not in self.off:
            montan = 40 if int(b.phase.name) >= 5 else 20
            total += 2 * montan if coal >= 2 and steel >= 2 else montan
        if hexes & self.RUHR:
            total += 10 * self.links() if "eastern_ruhr" not in self.off else 0
            if "G2" in hexes and "iron_rhine" not in self.off:
                total += 80
        if str(b.options.get("ratingen_variant", "")).lower() not in ("", "0", "false", "no") \
                and "E12" in hexes and steel >= 1 and "ratingen" not in self.off:
            total += 30
        return total


def g18rhl_board(board, company):
    """The board as `company` sees it: other companies' tokens in a green Rhine metropolis are neutral
    (never block) unless the hex holds 3 tokens and none of the company's; neutral ones are left out."""
    import dataclasses

    tokens = dict(board.tokens)
    for h in G18RhlRules.METRO:
        if board.hexes[h].color != "green":
            continue
        held = [c for (hx, _), cs in board.tokens.items() if hx == h for c in cs]
        if len(held) < 3 or company in held:
            for key in [k for k in tokens if k[0] == h]:
                tokens[key] = [c for c in tokens[key] if c == company]
    return dataclasses.replace(board, tokens=tokens)


def truthy(value) -> bool:
    """An option's string value read as a switch (board.options holds strings)."""
    return str(value).lower() not in ("", "0", "false", "no")


@total_ordering
class Score:
    """What a route or a run earns: revenue and subsidy, ordered as `objective` asks ("revenue": revenue,
    then subsidy; "revenue_and_subsidy": their sum, then revenue). Adds to numbers (plain revenue)."""

    def __init__(self, revenue, subsidy=0, objective="revenue"):
        self.revenue, self.subsidy, self.objective = revenue, subsidy, objective

    def _other(self, other):
        return other if isinstance(other, Score) else Score(other, 0, self.objective)

    def key(self):
        if self.objective == "revenue":
            return self.revenue, self.subsidy
        return self.revenue + self.subsidy, self.revenue

    def __add__(self, other):
        other = self._other(other)
        return Score(self.revenue + other.revenue, self.subsidy + other.subsidy, self.objective)

    __radd__ = __add__

    def __eq__(self, other):
        return self.key() == self._other(other).key()

    def __lt__(self, other):
        return self.key() < self._other(other).key()

    def __repr__(self):
        return f"Score({self.revenue}, {self.subsidy})"


def pair(score) -> tuple[int, int]:
    """(revenue, subsidy) of a Score or a plain revenue."""
    return (score.revenue, score.subsidy) if isinstance(score, Score) else (score, 0)


class G1860Rules(Rules):
    """rules/1860.md sections 5-9 read plainly, for a train "A+B" (pay A on the city/off-board row, B on the
    town/halt row of its 18xx.games definition). Every visited city and off-board is a paid stop and there
    may be at most A of them (the row's visit limit); towns and halts share an allowance X = B + (A - c), c
    being the number of visited cities and off-boards, or X = A - c when there is no second allowance (during
    nationalization, and for a leased train unless original_insolvency). Stops, as the engine's compute_stops
    takes them: the halts the player asks for (at most min(halts visited, X), and during nationalization or
    with no_skip_towns at most what every town leaves of X; a larger request is dropped), then the best towns
    within what is left of X (every town with no_skip_towns), then, when the player asked for nothing, as
    many halts as X still holds. After the Southern formed (southern_formed) no halt is ever a stop. Revenue:
    the stops' values (a halt is worth nothing); a leased train earns 40 + 20 per stop, or with
    original_insolvency half the normal revenue rounded down. Subsidy: 10 per halt stop, none for a leased
    train unless original_insolvency. A train dict with "halts" is priced as the player asked (None: asked
    for nothing); without it, the best request for the objective. With no_skip_towns (or original_game) a
    route visiting more than X towns is illegal. Halts may not begin or end a route. A route may pass one
    tokened-out city (still visited and paid) and at most one route of the run may; off-boards are never
    passed. Without re_enter_hexes a route never comes back to a hex it has left. A run needs a route
    through the company's home token city (its token in the hex of its corporation's coordinates; without
    one no run is legal), and its routes must be linked through shared nodes."""

    C = ("city", "offboard")

    def __init__(self, board, company, objective="revenue"):
        self.board, self.company, self.objective = board, company, objective
        options = board.options
        original_game = truthy(options.get("original_game", ""))
        self.no_skip = truthy(options.get("no_skip_towns", "")) or original_game
        self.original = truthy(options.get("original_insolvency", "")) or original_game
        self.nationalization = truthy(options.get("nationalization", ""))
        self.southern = truthy(options.get("southern_formed", ""))
        self.re_enter = truthy(options.get("re_enter_hexes", ""))
        self.home = set()                # node names of the home token city (empty: no legal run)
        corp = next((c for c in board.data.corporations if c["id"] == company), None)
        if corp is not None and corp.get("coordinates") in board.hexes:
            h = corp["coordinates"]
            for i, city in enumerate(board.hexes[h].tile.cities):
                if company in board.tokens.get((h, i), []):
                    self.home.add(f"{h}-{city.part}")

    @staticmethod
    def allowances(rows):
        """(A, B) of a train's rows, read from the rows listing city and town."""
        a = next(r[1] for r in rows if "city" in r[0])
        b = next(r[1] for r in rows if "town" in r[0])
        return a, b

    def new_lease(self, train) -> bool:
        """A leased train under the default insolvency rules."""
        return bool(train.get("leased")) and not self.original

    def allowance(self, train, a, b, c) -> int:
        """X: what towns and halts may use."""
        second = not (self.nationalization or self.new_lease(train))
        return (b if second else 0) + a - c

    def may_end(self, train, part, name="") -> bool:
        return part.kind != "halt"

    def bypass(self, train) -> int:
        return 1

    def trail_ok(self, train, names, parts, seq) -> bool:
        if any(p.kind == "offboard" for p in parts[1:-1]):
            return False                       # off-boards only begin or end a route
        if self.no_skip:
            a, b = self.allowances(self.train_rows(train))
            c = sum(p.kind in self.C for p in parts)
            if sum(p.kind == "town" for p in parts) > self.allowance(train, a, b, c):
                return False
        if not self.re_enter:
            left, here = set(), None
            for (_, hex_name, _), _ in seq:
                if hex_name != here:
                    if hex_name in left:
                        return False           # came back to a hex it had left
                    if here is not None:
                        left.add(here)
                    here = hex_name
        return True

    def train_revenue(self, train, values, kinds, tokened, rows):
        a, b = self.allowances(rows)
        cities = [v for v, k in zip(values, kinds) if k in self.C]
        towns = sorted((v for v, k in zip(values, kinds) if k == "town"), reverse=True)
        halts = sum(k == "halt" for k in kinds)
        x = self.allowance(train, a, b, len(cities))
        most = 0 if self.southern else min(halts, max(x - len(towns), 0) if self.nationalization or self.no_skip else x)
        if "halts" in train:
            asked = [train["halts"]]
        else:
            asked = [None] + list(range(most + 1))
        best = None
        for want in asked:
            if want is not None and (want > most or not halts or self.southern or self.new_lease(train)):
                want = None                    # the engine drops such a request
            left = x
            counted_halts = min(halts, want or 0)
            left -= counted_halts
            paid_towns = towns if self.no_skip else towns[:max(left, 0)]
            left -= len(paid_towns)
            if want is None and halts and left > 0 and not self.southern:
                counted_halts = min(halts, left)
            stops = len(cities) + len(paid_towns) + counted_halts
            if self.new_lease(train):
                score = Score(40 + 20 * stops, 0, self.objective)
            else:
                revenue = sum(cities) + sum(paid_towns)
                score = Score(revenue // 2 if train.get("leased") else revenue, 10 * counted_halts, self.objective)
            best = score if best is None else max(best, score)
        return best

    def run_ok(self, routes) -> bool:
        if not routes:
            return True
        if sum(flags & 1 for _, flags in routes) > 1:
            return False                       # only one train may pass a tokened-out city
        return self.visits_home(routes) and self.linked(routes)

    def visits_home(self, routes) -> bool:
        """Some route visits the company's home token city."""
        return any(self.home & set(names) for names, _ in routes)

    def linked(self, routes) -> bool:
        """The routes are linked through shared nodes."""
        reached, grown = {0}, True
        while grown:
            grown = False
            for j in range(len(routes)):
                if j not in reached and any(set(routes[j][0]) & set(routes[i][0]) for i in reached):
                    reached.add(j)
                    grown = True
        return len(reached) == len(routes)


def answer_of(result: dict) -> list:
    """The run of a solve() or evaluate() result as best_run's `answer`: [(train name, nodes)]."""
    return [(r["train"], list(r["nodes"])) for r in result["routes"]]
