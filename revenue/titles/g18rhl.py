"""18Rhl (Rhineland), rules/18rhl.md sections 5-8, through the generic hooks:

* towns pay but use no range (the distance rows) and no normal route begins or ends at one (end_allowed);
* A14/B15/C2 holding another company's token may not end a route: both ends must lie elsewhere
  (RouteRules.end_nodes with need_ends 2, only when such a token exists);
* at most one of C14/D15, of L11/L13 and of A4/A6 (per-train groups; the 8-train keeps only NorthWest);
* no route inside one Rhine metropolis (RouteRules.metro), the Trajekt in green metropolises (merged
  consecutive stops at -10, a second non-consecutive visit illegal) and their neutral tokens (node_blocks);
* Montan, Eastern Ruhr, Iron Rhine and Ratingen bonuses as route bonuses over classes of visited nodes;
* the 8-train (Rheingold-Express): one end on an RGE hex, no other red hex, towns unpaid (its distance
  row), best 8 paid, D9/F9/I10 doubled when both ends are RGE hexes, no bonuses.
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from .base import RouteBonus, RouteRules, Title

METROPOLISES = ("D9", "F9", "I10")


def neutral_tokens(board, hex_name: str, company: str) -> bool:
    """Whether the tokens of a green metropolis are neutral for `company` (never block): the hex holds fewer
    than 3, or one of its own (the engine's update_token_blocking_in_rhine_metropolies)."""
    tokens = [c for (h, _), cs in board.tokens.items() if h == hex_name for c in cs]
    return len(tokens) < 3 or company in tokens


RGE_HEXES = ("A4", "A6", "L11", "L13")
EASTERN_RUHR = ("C14", "D15")
OUT_TOKENED = ("A14", "B15", "C2")
ROERMOND = "G2"
RATINGEN = "E12"
# The city (part index) of each Eastern Ruhr hex reached from the coal / steel side.
COAL_SIDE = {"C14": 1, "D15": 0}
STEEL_SIDE = {"C14": 0, "D15": 1}
# Tile exits (map edges) that record an Eastern Ruhr link when built.
LINK_SIDES = (("C12", 4), ("D13", 3), ("D13", 4), ("E14", 3))
# The engine's variable coal mine / steel mill placements (game.rb setup).
COAL_HEXES = ("J3", "K4", "D9", "C12", "D11")
STEEL_HEXES = ("E6", "D9", "D13")


def _is_rge(train) -> bool:
    return train.name == "8"


class G18Rhl(Title):
    name = "18rhl"
    description = "18Rhl: Rhineland"
    options = {"ratingen_variant": "Ratingen variant: E10/E12 changed, tiles 1910/1911, the Ratingen bonus (+30)",
               "promotion_tiles": "promotion tiles: gray Essen, 949, 950 and 932V instead of 932"}
    passive_options = {"optional_2_train": "a 7th 2-train in the supply",
                       "lower_starting_capital": "lower starting capital"}

    def free_options(self):
        return ("coal", "steel")

    # ---- the printed map ----------------------------------------------------------------------------
    def _red(self) -> frozenset[str]:
        if not hasattr(self, "_red_hexes"):
            self._red_hexes = frozenset(h["name"] for h in self.raw()["hexes"] if h.get("color") == "red")
        return self._red_hexes

    def check_board(self, board) -> None:
        for key, allowed in (("coal", COAL_HEXES), ("steel", STEEL_HEXES)):
            value = board.options.get(key)
            if value is not None and value not in allowed:
                raise InputError(f"board.options[{key}]", f"{value!r} is not a hex the variable "
                                 f"{'coal mine' if key == 'coal' else 'steel mill'} can be on "
                                 f"({', '.join(allowed)})")

    # ---- per-node rules ------------------------------------------------------------------------------
    def node_blocks(self, node, company, board) -> bool:
        """Green metropolis tokens are neutral unless the hex holds 3 tokens, none of the operator's."""
        if node.hex in METROPOLISES and board.hexes[node.hex].color == "green" and \
                neutral_tokens(board, node.hex, company):
            return False
        return super().node_blocks(node, company, board)

    def node_blocks_all(self, company, board, graph, blocks):
        green = _map_facts(graph, board).green
        if not green:
            return blocks
        blocks = blocks.copy()
        for h in green:
            if neutral_tokens(board, h, company):
                blocks[graph.in_hexes((h,))] = False
        return blocks

    def train_rules_key(self, train):
        return _is_rge(train), train.name.upper() == "D"

    def end_allowed(self, train, node) -> bool:
        return _is_rge(train) or node.kind != "town"

    def visit_allowed(self, train, node) -> bool:
        return not _is_rge(train) or node.hex not in self._red() or node.hex in RGE_HEXES

    # (the array hooks answer once per reading of the node numbering and tiles, _Reading: the same objects
    # for the boards that read alike, which nothing changes)
    def end_allowed_all(self, train, graph):
        rge = _is_rge(train)
        answers = _reading(graph).end
        out = answers.get(rge)
        if out is None:
            out = answers[rge] = np.ones(graph.n_nodes, dtype=np.bool_) if rge else ~graph.kind_is("town")
        return out

    def visit_allowed_all(self, train, graph):
        rge = _is_rge(train)
        answers = _reading(graph).visit
        out = answers.get(rge)
        if out is None:
            out = answers[rge] = np.ones(graph.n_nodes, dtype=np.bool_) if not rge else \
                ~graph.in_hexes(tuple(sorted(self._red()))) | graph.in_hexes(RGE_HEXES)
        return out

    def node_groups_all(self, train, graph):
        rge = _is_rge(train)
        answers = _reading(graph).groups
        out = answers.get(rge)
        if out is None:
            groups = dict(graph.node_arrays().groups)
            if not rge:
                for hexes, label in ((EASTERN_RUHR, "EasternRuhr"), (("L11", "L13"), "South")):
                    for v in graph.in_hexes(hexes).nonzero()[0].tolist():
                        groups[v] = tuple(groups.get(v, ())) + (label,)
            out = answers[rge] = sorted(groups.items())
        return out

    def node_groups(self, train, node):
        groups = tuple(node.groups)
        if not _is_rge(train):
            if node.hex in EASTERN_RUHR:
                groups += ("EasternRuhr",)
            elif node.hex in ("L11", "L13"):
                groups += ("South",)
        return groups

    # ---- route-level rules ---------------------------------------------------------------------------
    def route_rules(self, train, company, board, graph) -> RouteRules:
        """The rules of this train on this board: one RouteRules object per distinct reading (the same
        object for boards whose node numbering, tiles on the hexes that matter, tokens there, icons,
        options and phase read alike, as most boards of one game do; nothing changes a RouteRules)."""
        rge = _is_rge(train)
        facts = _map_facts(graph, board)
        if rge:
            key = True
        else:
            tokens = board.tokens
            options = board.options
            key = (tuple(any(c != company.id for c in tokens.get((h, 0), ())) for h in OUT_TOKENED),
                   options.get("coal") or None, options.get("steel") or None, _on(options.get("ratingen_variant")),
                   int(board.phase.name) >= 5)
        answers = facts.reading.rules
        rules = answers.get(key)
        if rules is None:
            rules = answers[key] = self._route_rules(rge, company, board, graph, facts)
        return rules

    def _route_rules(self, rge, company, board, graph, facts) -> RouteRules:
        # (the nodes on the hexes that matter found by one lookup through the nodes' hex ids, _on_hexes)
        nodes, where = _on_hexes(graph, _RULE_HEXES)
        metro_of = {v: i for v, i in zip(nodes, where) if i < _RGE_AT}
        rules = RouteRules(metro=dict(metro_of),
                           metro_message="Route cannot consist of only one Rhine metropolis",
                           merge_message="Must use Trajekt for a revisiting route",
                           # the engine pays its own stop list (Trajekt-merged, the 8-train's best 8): a
                           # token anywhere on the route will do, even on a stop the Trajekt drops
                           token_paid=False)
        # The Trajekt: two consecutive stops in a green metropolis count once, worth 10 less; the 8-train
        # ignores towns, so only cities merge for it.
        if metro_of:
            town = graph.node_arrays().kind == _TOWN_KIND if rge else None
            merged = facts.merged
            for v, m in metro_of.items():
                if m in merged and not (rge and town[v]):
                    rules.merge[v] = m
        rules.merge_penalty = 10 if rules.merge else 0
        if rge:
            rules.end_nodes = {v for v, i in zip(nodes, where) if _RGE_AT <= i < _RUHR_AT}
            rules.need_ends = 1
            rules.need_message = "Route for 8 trains must begin/end in an RGE hex"
            rules.alt_ends = set(rules.end_nodes)
            rules.alt_multiplier = dict.fromkeys(metro_of, 2)
            return rules

        out = set()
        for v, i in zip(nodes, where):
            # (the token test first: node_place reads the node's tile, and these hexes seldom hold one)
            if _TOKENED_AT <= i < _ROERMOND_AT:
                hex_name = _RULE_HEXES[i]
                if any(c != company.id for c in board.tokens.get((hex_name, 0), ())) and graph.node_place(v)[2] == 0:
                    out.add(v)
        if out:
            rules.end_nodes = set(range(graph.n_nodes)) - out
            rules.need_ends = 2
            rules.need_message = "Route to out-tokened off-board hex not allowed"

        coal_hexes, steel_hexes = set(facts.coal), set(facts.steel)
        if board.options.get("coal"):
            coal_hexes.add(board.options["coal"])
        if board.options.get("steel"):
            steel_hexes.add(board.options["steel"])
        # Classes are small bit numbers in the kernel: number the icon hexes only.
        icon_hexes = tuple(sorted(coal_hexes | steel_hexes))
        east = len(icon_hexes)       # one more class: the Eastern Ruhr coal or steel side
        coal, steel = {}, {}
        for v, c in zip(*_on_hexes(graph, icon_hexes)):
            if icon_hexes[c] in coal_hexes:
                coal[v] = c
            if icon_hexes[c] in steel_hexes:
                steel[v] = c
        ruhr_nodes = [v for v, i in zip(nodes, where) if _RUHR_AT <= i < _TOKENED_AT]
        for v in ruhr_nodes:
            hex_name, part, _ = graph.node_place(v)
            if part == COAL_SIDE[hex_name]:
                coal[v] = east
            if part == STEEL_SIDE[hex_name]:
                steel[v] = east
        montan = 40 if int(board.phase.name) >= 5 else 20
        ruhr = dict.fromkeys(ruhr_nodes, 0)
        rules.bonuses.append(RouteBonus("Montan", montan, [(coal, 1), (steel, 1)]))
        rules.bonuses.append(RouteBonus("Montan doubled", montan, [(coal, 2), (steel, 2)]))
        links = facts.links
        if links and ruhr:
            rules.bonuses.append(RouteBonus(f"Eastern Ruhr ({links} link{'s' if links > 1 else ''})", 10 * links,
                                            [(ruhr, 1)]))
        roermond = {v: 0 for v, i in zip(nodes, where) if i == _ROERMOND_AT}
        if roermond and ruhr:
            rules.bonuses.append(RouteBonus("Iron Rhine", 80, [(roermond, 1), (ruhr, 1)]))
        ratingen = {v: 0 for v, i in zip(nodes, where) if i == _RATINGEN_AT}
        if _on(board.options.get("ratingen_variant")) and ratingen:
            rules.bonuses.append(RouteBonus("Ratingen", 30, [(ratingen, 1), (steel, 1)]))
        return rules


# The hexes route_rules reads, in one tuple (positions in it tell them apart): the metropolises first (a
# node's position there is its metropolis id), then the RGE hexes, the Eastern Ruhr, the out-tokened
# off-boards, Roermond and Ratingen.
_RULE_HEXES = METROPOLISES + RGE_HEXES + EASTERN_RUHR + OUT_TOKENED + (ROERMOND, RATINGEN)
_RGE_AT = len(METROPOLISES)
_RUHR_AT = _RGE_AT + len(RGE_HEXES)
_TOKENED_AT = _RUHR_AT + len(EASTERN_RUHR)
_ROERMOND_AT = _TOKENED_AT + len(OUT_TOKENED)
_RATINGEN_AT = _ROERMOND_AT + 1
_TOWN_KIND = 2      # revenue.geometry.NODE_KINDS.index("town")
_HEX_TABLES: dict[tuple[int, tuple[str, ...]], tuple] = {}
_EXITS: dict[int, tuple] = {}
# The readings remembered (MEMO_SIZE, then all let go), by what they read (_MapFacts.key).
MEMO_SIZE = 1024
_READINGS: dict[tuple, tuple] = {}


class _Reading:
    """The hooks' answers for one reading of a board's node numbering and tiles (_MapFacts.key), made when
    first asked and shared by every board that reads alike: per train kind (the 8-train or not) the
    visit and end masks and the groups, and the route rules per reading of the tokens, options and phase."""

    def __init__(self) -> None:
        self.visit: dict[bool, np.ndarray] = {}
        self.end: dict[bool, np.ndarray] = {}
        self.groups: dict[bool, list] = {}
        self.rules: dict[object, RouteRules] = {}


class _MapFacts:
    """What the rules read of a board's tiles, once per track (the tiles laid; tokens and phase aside):
    the metropolises that merge stops (not yellow) and those whose tokens are neutral (green), the coal
    and steel icon hexes, the Eastern Ruhr links built; and `reading`, the _Reading of the key that holds
    all the hooks' answers depend on through the track: the node numbering, kinds and tile groups, the
    tiles (geometry ids) on the hexes the rules read (_RULE_HEXES and LINK_SIDES), and the facts above."""

    def __init__(self, graph, board):
        track = graph.track
        sides, registry = graph.sides, track.registry
        laid = getattr(board, "_laid", None)
        self.merged, self.green, self.coal, self.steel, self.links = \
            _lay_facts(laid, board.data.printed) if laid is not None else _tile_facts(board.hexes)
        key = (id(sides), id(registry), track.node_hex.tobytes(), graph.node_arrays().kind.tobytes(),
               tuple(graph.node_arrays().groups), track.gids[_read_hexes(sides)].tobytes(), self.merged, self.coal,
               self.steel, self.links)
        entry = _READINGS.get(key)
        if entry is None or entry[0] is not sides or entry[1] is not registry:
            if len(_READINGS) >= MEMO_SIZE:
                _READINGS.clear()
            entry = _READINGS[key] = (sides, registry, _Reading())
        self.reading = entry[2]


def _tile_facts(hexes: dict) -> tuple:
    """(merged, green, coal, steel, links) of _MapFacts from the hexes with their tiles: it reads only
    the metropolises, the LINK_SIDES hexes and the hexes with icons."""
    merged = tuple(METROPOLISES.index(h) for h in METROPOLISES if h in hexes and hexes[h].color != "yellow")
    green = tuple(h for h in METROPOLISES if h in hexes and hexes[h].color == "green")
    with_icons = [(h, bh.icons) for h, bh in hexes.items() if bh.icons]     # (most hexes have none)
    coal = frozenset(h for h, icons in with_icons if "K" in icons)
    steel = frozenset(h for h, icons in with_icons if "S" in icons)
    links = sum(1 for h, edge in LINK_SIDES if hexes[h].local_edge(edge) in _exits(hexes[h].tile))
    return merged, green, coal, steel, links


_WATCHED = frozenset(METROPOLISES + tuple(h for h, _ in LINK_SIDES))


class _Lays:
    """For one revenue.known.Known (the checked lays of a map variant): which lays _tile_facts reads
    (on a watched hex, or with icons, or on a printed hex with icons; grown as lays are added, never
    changed: a lay's id names one BoardHex), the printed hexes it reads, and its answers by the ids of
    the read lays of a board (most boards of a game have the same few)."""

    def __init__(self, known, printed: dict):
        self.known, self.source = known, printed
        self.printed = {h: bh for h, bh in printed.items() if h in _WATCHED or bh.icons}
        self.read = np.zeros(0, dtype=np.bool_)
        self.facts: dict[tuple, tuple] = {}

    def reads(self) -> np.ndarray:
        names, hexes = self.known.lay_names, self.known.lay_hexes
        n = min(len(names), len(hexes))
        read = self.read
        if len(read) < n:
            printed = self.printed
            more = [names[i] in printed or bool(hexes[i].icons) for i in range(len(read), n)]
            read = self.read = np.concatenate([read, np.array(more, dtype=np.bool_)])
        return read


_LAYS: dict[int, _Lays] = {}


def _lay_facts(laid: tuple, printed: dict) -> tuple:
    """_tile_facts of a board made of checked lays (revenue.board.Board._laid: the Known and the lay ids)
    without its hexes dict: the printed hexes _tile_facts reads, with the board's lays among them or with
    icons put in their place (any other hex it would skip)."""
    known, ids = laid
    lays = _LAYS.get(known.serial)
    if lays is None or lays.known is not known or lays.source is not printed:
        if len(_LAYS) >= 64:
            _LAYS.clear()
        lays = _LAYS[known.serial] = _Lays(known, printed)
    read = ids[lays.reads()[ids]].tolist()
    key = tuple(read)
    facts = lays.facts.get(key)
    if facts is None:
        hexes = dict(lays.printed)
        names, board_hexes = known.lay_names, known.lay_hexes
        for i in read:
            hexes[names[i]] = board_hexes[i]
        facts = _tile_facts(hexes)
        if len(lays.facts) >= MEMO_SIZE:
            lays.facts.clear()
        lays.facts[key] = facts
    return facts


def _map_facts(graph, board) -> _MapFacts:
    shared = graph.track.shared
    facts = shared.get("18rhl facts")
    if facts is None:
        facts = shared["18rhl facts"] = _MapFacts(graph, board)
    return facts


def _reading(graph) -> _Reading:
    return _map_facts(graph, graph.board).reading


_READ_HEXES: dict[int, tuple] = {}


def _read_hexes(sides) -> np.ndarray:
    """The map indices of the hexes whose tiles the rules read (_RULE_HEXES and LINK_SIDES), once per map."""
    entry = _READ_HEXES.get(id(sides))
    if entry is None or entry[0] is not sides:
        index = sides.index
        entry = _READ_HEXES[id(sides)] = (sides, np.array(
            [index[h] for h in _RULE_HEXES + tuple(h for h, _ in LINK_SIDES) if h in index], dtype=np.int64))
    return entry[1]


def _on_hexes(graph, hexes: tuple[str, ...]) -> tuple[list[int], list[int]]:
    """The nodes on `hexes`, ascending, and the position in `hexes` of each one's hex: one lookup through
    the nodes' hex ids in a table made once per map and tuple of hexes (a few calls per problem, each
    cheaper than a mask and a list of names per set of hexes)."""
    sides = graph.sides
    entry = _HEX_TABLES.get((id(sides), hexes))
    if entry is None or entry[0] is not sides:
        if len(_HEX_TABLES) >= 256:
            _HEX_TABLES.clear()
        table = np.full(len(sides.names), len(hexes), dtype=np.int64)     # (len(hexes): none of them)
        for i, h in reversed(list(enumerate(hexes))):
            if h in sides.index:
                table[sides.index[h]] = i
        entry = _HEX_TABLES[(id(sides), hexes)] = (sides, table)
    at = entry[1][graph.track.node_hex]
    nodes = (at < len(hexes)).nonzero()[0]
    return nodes.tolist(), at[nodes].tolist()


def _exits(tile) -> set[int]:
    """tile.exits(), once per tile object (the manifest's tiles are parsed once and shared by every board)."""
    entry = _EXITS.get(id(tile))
    if entry is None or entry[0] is not tile:
        if len(_EXITS) >= 4096:
            _EXITS.clear()
        entry = _EXITS[id(tile)] = (tile, tile.exits())
    return entry[1]


def _on(value) -> bool:
    return value is not None and str(value).lower() not in ("", "0", "false", "no")
