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
        if node.hex in METROPOLISES and board.hexes[node.hex].color == "green":
            tokens = [c for (h, _), cs in board.tokens.items() if h == node.hex for c in cs]
            if len(tokens) < 3 or company in tokens:
                return False
        return super().node_blocks(node, company, board)

    def node_blocks_all(self, company, board, graph, blocks):
        green = [h for h in METROPOLISES if h in board.hexes and board.hexes[h].color == "green"]
        if not green:
            return blocks
        blocks = blocks.copy()
        for h in green:
            tokens = [c for (hex_name, _), cs in board.tokens.items() if hex_name == h for c in cs]
            if len(tokens) < 3 or company in tokens:
                blocks[graph.in_hexes((h,))] = False
        return blocks

    def train_rules_key(self, train):
        return _is_rge(train), train.name.upper() == "D"

    def end_allowed(self, train, node) -> bool:
        return _is_rge(train) or node.kind != "town"

    def visit_allowed(self, train, node) -> bool:
        return not _is_rge(train) or node.hex not in self._red() or node.hex in RGE_HEXES

    def end_allowed_all(self, train, graph):
        return np.ones(graph.n_nodes, dtype=np.bool_) if _is_rge(train) else ~graph.kind_is("town")

    def visit_allowed_all(self, train, graph):
        if not _is_rge(train):
            return np.ones(graph.n_nodes, dtype=np.bool_)
        return ~graph.in_hexes(tuple(sorted(self._red()))) | graph.in_hexes(RGE_HEXES)

    def node_groups_all(self, train, graph):
        groups = dict(graph.node_arrays().groups)
        if not _is_rge(train):
            for hexes, label in ((EASTERN_RUHR, "EasternRuhr"), (("L11", "L13"), "South")):
                for v in graph.in_hexes(hexes).nonzero()[0].tolist():
                    groups[v] = tuple(groups.get(v, ())) + (label,)
        return sorted(groups.items())

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
        # (the nodes read by their ids on the hexes that matter: graph.nodes_in, node_place)
        rge = _is_rge(train)
        metros = graph.nodes_in(METROPOLISES)
        metro_of = {v: METROPOLISES.index(h) for v, h in zip(metros, _hex_names(graph, metros))}
        rules = RouteRules(metro=dict(metro_of),
                           metro_message="Route cannot consist of only one Rhine metropolis",
                           merge_message="Must use Trajekt for a revisiting route",
                           # the engine pays its own stop list (Trajekt-merged, the 8-train's best 8): a
                           # token anywhere on the route will do, even on a stop the Trajekt drops
                           token_paid=False)
        # The Trajekt: two consecutive stops in a green metropolis count once, worth 10 less; the 8-train
        # ignores towns, so only cities merge for it.
        town = graph.kind_is("town")
        for v in metros:
            if board.hexes[METROPOLISES[metro_of[v]]].color != "yellow" and not (rge and town[v]):
                rules.merge[v] = metro_of[v]
        rules.merge_penalty = 10 if rules.merge else 0
        if rge:
            rules.end_nodes = set(graph.nodes_in(RGE_HEXES))
            rules.need_ends = 1
            rules.need_message = "Route for 8 trains must begin/end in an RGE hex"
            rules.alt_ends = set(rules.end_nodes)
            rules.alt_multiplier = {v: 2 for v in metros}
            return rules

        out = set()
        tokened = graph.nodes_in(OUT_TOKENED)
        for v, hex_name in zip(tokened, _hex_names(graph, tokened)):
            # (the token test first: node_place reads the node's tile, and these hexes seldom hold one)
            if any(c != company.id for c in board.tokens.get((hex_name, 0), ())) and graph.node_place(v)[2] == 0:
                out.add(v)
        if out:
            rules.end_nodes = set(range(graph.n_nodes)) - out
            rules.need_ends = 2
            rules.need_message = "Route to out-tokened off-board hex not allowed"

        coal_hexes, steel_hexes = set(), set()
        for h, bh in board.hexes.items():      # (one pass; most hexes have no icon)
            if bh.icons:
                if "K" in bh.icons:
                    coal_hexes.add(h)
                if "S" in bh.icons:
                    steel_hexes.add(h)
        if board.options.get("coal"):
            coal_hexes.add(board.options["coal"])
        if board.options.get("steel"):
            steel_hexes.add(board.options["steel"])
        # Classes are small bit numbers in the kernel: number the icon hexes only.
        hex_class = {h: i for i, h in enumerate(sorted(coal_hexes | steel_hexes))}
        east = len(hex_class)       # one more class: the Eastern Ruhr coal or steel side
        coal_nodes = graph.nodes_in(sorted(coal_hexes))
        coal = {v: hex_class[h] for v, h in zip(coal_nodes, _hex_names(graph, coal_nodes))}
        steel_nodes = graph.nodes_in(sorted(steel_hexes))
        steel = {v: hex_class[h] for v, h in zip(steel_nodes, _hex_names(graph, steel_nodes))}
        ruhr_nodes = graph.nodes_in(EASTERN_RUHR)
        for v in ruhr_nodes:
            hex_name, part, _ = graph.node_place(v)
            if part == COAL_SIDE[hex_name]:
                coal[v] = east
            if part == STEEL_SIDE[hex_name]:
                steel[v] = east
        montan = 40 if int(board.phase.name) >= 5 else 20
        ruhr = {v: 0 for v in ruhr_nodes}
        rules.bonuses.append(RouteBonus("Montan", montan, [(coal, 1), (steel, 1)]))
        rules.bonuses.append(RouteBonus("Montan doubled", montan, [(coal, 2), (steel, 2)]))
        links = sum(1 for h, edge in LINK_SIDES if board.hexes[h].local_edge(edge) in board.hexes[h].tile.exits())
        if links and ruhr:
            rules.bonuses.append(RouteBonus(f"Eastern Ruhr ({links} link{'s' if links > 1 else ''})", 10 * links,
                                            [(ruhr, 1)]))
        roermond = {v: 0 for v in graph.nodes_in((ROERMOND,))}
        if roermond and ruhr:
            rules.bonuses.append(RouteBonus("Iron Rhine", 80, [(roermond, 1), (ruhr, 1)]))
        ratingen = {v: 0 for v in graph.nodes_in((RATINGEN,))}
        if _on(board.options.get("ratingen_variant")) and ratingen:
            rules.bonuses.append(RouteBonus("Ratingen", 30, [(ratingen, 1), (steel, 1)]))
        return rules


def _hex_names(graph, nodes: list[int]) -> list[str]:
    """The hex of each node (graph.node_place's first field, without reading the nodes' tiles)."""
    names = graph.sides.names
    return [names[h] for h in graph.track.node_hex[nodes].tolist()]


def _on(value) -> bool:
    return value is not None and str(value).lower() not in ("", "0", "false", "no")
