"""1860 (Isle of Wight), rules/1860.md sections 5-9, as the 18xx.games engine applies them.

An A+B train pays every city and off-board it visits (at most A of them) and the best X = B + (A - cities)
towns; a halt pays no revenue but, counted as a stop, a subsidy of 10 to the company, and uses the town
allowance like a town; no route ends at a halt. A route may pass one tokened-out city, and one route of a
run at most; one route must visit the home token city, the routes must intersect, and no route may come
back to a hex it left (unless re_enter_hexes).

The states of the late game and of insolvency are board options and a flag of the train:
- a leased train (company.trains[].leased: an insolvent company runs the bank's cheapest train): by
  default 40 + 20 per stop, X = A - cities (no second allowance), halts count as towns after the towns,
  no subsidy. original_insolvency: the normal stops and subsidies at half revenue. simplified_insolvency
  is priced as the default: the engine checks the default rules first, so its 40 + 20 x A never applies.
- nationalization (from when it begins): no second allowance for any train (X = A - cities), and the
  towns count before any halt: a halt only fills what the towns leave of X.
- southern_formed (from the stock round after the Southern formed): halts are ignored, never stops, no
  subsidy.
- no_skip_towns (and original_game): every visited town counts, so a route may visit at most X towns.

Halts a route counts: the player chooses (`halts` of a route, 18xx.games' button): those halts come first,
the best towns fill the rest of X; with none chosen (or more than the route may count) the towns come
first and halts fill what they leave. During nationalization or with no_skip_towns a route counts halts
only in what every town leaves (the engine's max_halts). The optimizer chooses the count itself: the most
revenue, then the most subsidy (or, when asked, their sum), and writes it in the answer.

Where the engine and the rule notes or the issue that asked for this differ, the engine is right (it is
what 18xx.games accepts): original_insolvency halves with integer division (the engine's `.ceil` comes after
it), so a half is rounded down; simplified_insolvency is the default rules; during nationalization a town
beyond X is passed unpaid as at any time (only no_skip_towns makes such a route illegal), "every town
counts" meaning that towns come before halts.

As data for the kernels: cities and off-boards in row 0 (pay A, visit A) whose unused allowance spills
to row 1 (the towns). Halts are row 2, paid what the towns leave of X (RouteRules.spill_next; nothing
once halts are ignored): exact when the towns must come first (nationalization, no_skip_towns, a leased
train under the default rules), and also when every town pays at least a halt's subsidy, since then
counting a halt in a town's place never earns more, under either objective (every town on the 1860 tiles
pays 10 or more). Only when some town pays less (a leased train's halved 10 under original_insolvency, a
custom tile) are halts and towns one row, the optimizer ranking a halt's subsidy against a town's value
(RouteRules.subsidy, revenue.problem.objective_weights). A player's route may count halts in the towns'
place in either layout (RouteRules.request_pool).

A company in bankruptcy (its price reached the market's 0 cell, until it is floated again) has its tokens
flipped (`board.tokens[].flipped`): a city holding one never blocks (the engine's custom_blocks?)."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import InputError
from .base import BYPASS_FLAG, DistanceRow, RouteBonus, RouteRules, RunRules, Title, TitleData, TrainType

HOME_FLAG = 2          # flag bit 1: the route visits the company's home token city
CITIES, TOWNS, HALTS = 0, 1, 2   # rows of an A+B train (HALTS only when halts have a row of their own)
HALT_SUBSIDY = 10
LEASE_BASE, LEASE_PER_STOP = 40, 20
# route_rules' answers and the home hexes' cities, by what they read (MEMO_SIZE of each, then all let go)
MEMO_SIZE = 1024
_RULES: dict[tuple, RouteRules] = {}
_HOME_CITIES: dict[tuple, tuple] = {}


def _on(options: dict | None, name: str) -> bool:
    return str((options or {}).get(name, "")).lower() not in ("", "0", "false", "no")


def _options(options: dict | None) -> dict:
    """The original game is the two-player map, the original insolvency rules and every town counted."""
    options = dict(options or {})
    if _on(options, "original_game"):
        options.update(two_player_map="true", no_skip_towns="true", original_insolvency="true")
    return options


_READ_OPTIONS: dict[tuple, tuple] = {}
_HALT_KIND = 3      # revenue.geometry.NODE_KINDS.index("halt")


def _rule_options(options: dict | None) -> tuple[bool, bool, bool, bool]:
    """(halts count: not southern_formed, original_insolvency, every town counts: nationalization or
    no_skip_towns, re_enter_hexes) of a board's options, remembered by their items (a game's boards
    carry a few option sets)."""
    try:
        key = tuple(options.items()) if options else ()
        out = _READ_OPTIONS.get(key)
    except TypeError:       # (an unhashable option value: read afresh)
        key, out = None, None
    if out is None:
        read = _options(options)
        out = (not _on(read, "southern_formed"), _on(read, "original_insolvency"),
               _on(read, "nationalization") or _on(read, "no_skip_towns"), _on(read, "re_enter_hexes"))
        if key is not None:
            if len(_READ_OPTIONS) >= MEMO_SIZE:
                _READ_OPTIONS.clear()
            _READ_OPTIONS[key] = out
    return out


def _leased_new(train: TrainType, options: dict) -> bool:
    """A leased train under the default (second edition) insolvency rules."""
    return train.leased and not _on(options, "original_insolvency")


def _layout(a: int, b: int, options: dict, leased: bool, halts_may_displace: bool = True) -> tuple[DistanceRow, ...]:
    """The rows of an A+B train under these options: halts with the towns in row TOWNS only when some
    halt may be worth counting in a town's place."""
    leased_new = leased and not _on(options, "original_insolvency")
    no_skip = _on(options, "no_skip_towns")
    second = b if not (_on(options, "nationalization") or leased_new) else 0
    cities = DistanceRow(("city", "offboard"), a, a)
    apart = _on(options, "nationalization") or no_skip or leased_new or _on(options, "southern_formed") \
        or not halts_may_displace
    if not apart:
        return cities, DistanceRow(("town", "halt"), second, 99)
    towns = DistanceRow(("town",), second, second if no_skip else 99)
    return cities, towns, DistanceRow(("halt",), 0, 99)


class G1860(Title):
    name = "1860"
    description = ("1860: Railways on the Isle of Wight (an A+B train's unused city allowance pays towns too; "
                   "halts earn a subsidy of 10 instead of revenue; leased trains, nationalization and the "
                   "Southern's end of halts by option)")
    options = {"two_player_map": "the smaller first-edition map",
               "re_enter_hexes": "routes may re-enter a hex they left",
               "no_skip_towns": "every visited town is counted",
               "original_game": "two_player_map, original_insolvency and no_skip_towns",
               "original_insolvency": "a leased train earns half its normal revenue (rounded down), "
                                      "halts and subsidies as normal",
               "nationalization": "set from when nationalization begins: no second allowance, towns count "
                                  "before halts",
               "southern_formed": "set from the stock round after the Southern formed: halts are ignored"}
    passive_options = {"simplified_insolvency": "fixed leased-train revenue in the help text; the engine runs "
                                                "leased trains as under the default rules (40 + 20 per stop)",
                       "non_operated_full_value": "the value of companies that have not operated"}

    def __init__(self) -> None:
        super().__init__()
        self._trains: dict[int, TitleData] = {}
        self._typed: dict[tuple, tuple] = {}    # company_train's answers, with the train they were made from
        self._last_board: tuple | None = None   # (board, leased, _board_facts' answer)

    def data(self, options: dict | None = None, board_request: dict | None = None) -> TitleData:
        options = _options(options)
        data = super().data(options, board_request)
        if id(data) not in self._trains:   # once per variant: the rows under these options
            data.trains = {name: replace(t, rows=self._rows(name, options, False)) for name, t in data.trains.items()}
            self._trains[id(data)] = data
        return data

    def _rows(self, name: str, options: dict, leased: bool, halts_may_displace: bool = True) -> tuple[DistanceRow, ...]:
        spec = next(t for t in self.raw()["trains"] if t["name"] == name)
        a, b = spec["distance"][0]["pay"], spec["distance"][-1]["pay"]
        return _layout(a, b, options, leased, halts_may_displace)

    def node_blocks(self, node, company, board) -> bool:
        """A city holding a flipped token (of a company in bankruptcy) never blocks."""
        if node.kind == "city" and any((node.hex, c) in board.flipped for c in node.tokens):
            return False
        return super().node_blocks(node, company, board)

    def node_blocks_all(self, company, board, graph, blocks):
        if not board.flipped:
            return blocks
        arrays, nodes = graph.node_arrays(), graph.nodes
        free = [v for v, c in zip(arrays.token_node.tolist(), arrays.token_company)
                if v >= 0 and (nodes[v].hex, c) in board.flipped]
        if not free:
            return blocks
        blocks = blocks.copy()
        blocks[free] = False
        return blocks

    def company_train(self, train: TrainType, board, leased: bool = False) -> TrainType:
        """The rows for this board: halts in the towns' row only when a town with track pays the train less
        than a halt's subsidy (below that a halt may be worth counting instead, which the optimizer then
        weighs; on the 1860 tiles only a leased train's halved 10 is), else in a row of their own paid
        what the towns leave: the same optimum, and routes priced from their row sums (faster)."""
        options, options_key, cheap = self._board_facts(board, leased)
        # (the title data's train types live as long as the process: known by identity)
        key = (id(train), options_key, leased, cheap)
        typed = self._typed.get(key)
        if typed is None or typed[0] is not train:   # (once per train, options and layout)
            if len(self._typed) > 4096:
                self._typed.clear()
            typed = self._typed[key] = (train, replace(train, rows=self._rows(train.name, options, leased, cheap),
                                                       leased=leased))
        return typed[1]

    def _board_facts(self, board, leased: bool) -> tuple[dict, tuple, bool]:
        """(the options as the rules read them, the same as a key, _cheap_towns) for this board and a leased
        or owned train: once per board and kind for the company's trains (the last board is remembered)."""
        last = self._last_board
        if last is not None and last[0] is board and last[1] == leased:
            return last[2]
        options = _options(board.options)
        half = leased and _on(options, "original_insolvency")
        facts = (options, tuple(sorted(options.items())), self._cheap_towns(board, half))
        self._last_board = (board, leased, facts)
        return facts

    @staticmethod
    def _cheap_towns(board, half: bool) -> bool:
        """Whether some town with track pays less than a halt's subsidy (halved or not)."""
        least = board.least_town_revenue()
        return least is not None and least // (2 if half else 1) < HALT_SUBSIDY

    def node_value(self, train, node, board) -> int:
        options = _options(board.options)
        if _leased_new(train, options):
            ignored = node.kind == "halt" and _on(options, "southern_formed")
            return 0 if ignored else LEASE_PER_STOP
        if train.leased and node.value % 2:
            raise InputError("board", f"original_insolvency halves a leased train's revenue; {node.name} is "
                             f"worth {node.value}, which does not halve exactly (every 1860 tile's value does)")
        return node.value // 2 if train.leased else node.value

    def node_value_all(self, train, graph, board):
        arrays = graph.node_arrays()
        if not train.leased:
            return arrays.value
        halts_count, original_insolvency, _, _ = _rule_options(board.options)
        if not original_insolvency:     # (_leased_new)
            ignored = graph.kind_is("halt") & (not halts_count)
            return np.where(ignored, 0, LEASE_PER_STOP)
        odd = (arrays.value % 2).nonzero()[0]
        if len(odd):      # the message of node_value, for the first such node
            self.node_value(train, graph.nodes[int(odd[0])], board)
        return arrays.value // 2

    def train_rules_key(self, train):
        return train.leased, len(train.rows)

    def end_allowed(self, train, node) -> bool:
        return node.kind != "halt"

    def end_allowed_all(self, train, graph):
        return graph.node_arrays().kind != _HALT_KIND

    def route_rules(self, train, company, board, graph) -> RouteRules:
        """One RouteRules object per distinct reading (the options' rules, the train's rows, the halts'
        nodes, the home flag's nodes): boards that read alike share it (nothing changes a RouteRules)."""
        halts_count, original_insolvency, use_all_towns, re_enter = _rule_options(board.options)
        apart = len(train.rows) > HALTS
        leased_new = train.leased and not original_insolvency       # (_leased_new)
        kinds = graph.node_arrays().kind.tobytes()     # (where the halts are, and how many nodes)
        flags = self._home_flags(self._home(company.id), company.id, graph, kinds)
        key = (kinds, apart, halts_count, leased_new, use_all_towns, re_enter, tuple(flags.items()))
        rules = _RULES.get(key)
        if rules is None:
            rules = RouteRules(
                bypass=1, spill=(CITIES, TOWNS), spill_next=HALTS if apart and halts_count else None,
                request_pool=apart and halts_count and not use_all_towns and not leased_new,
                subsidy=dict.fromkeys(graph.kind_is("halt").nonzero()[0].tolist(), HALT_SUBSIDY)
                if halts_count and not leased_new else {},
                bonuses=[RouteBonus("leased train", LEASE_BASE, [])] if leased_new else [],
                no_reentry=not re_enter, flags=flags)
            if len(_RULES) >= MEMO_SIZE:
                _RULES.clear()
            _RULES[key] = rules
        return rules

    @staticmethod
    def _home_flags(home: str | None, company_id: str, graph, kinds: bytes | None = None) -> dict[int, int]:
        """The home flag on the company's tokened city of its home hex (`kinds`: the nodes' kinds as bytes,
        if the caller has them)."""
        if home is None:
            return {}
        # (the home hex's cities by node numbering and kinds, remembered: most boards of a game share them)
        key = (id(graph.sides), home, graph.track.node_hex.tobytes(),
               graph.node_arrays().kind.tobytes() if kinds is None else kinds)
        entry = _HOME_CITIES.get(key)
        if entry is None or entry[0] is not graph.sides:
            if len(_HOME_CITIES) >= MEMO_SIZE:
                _HOME_CITIES.clear()
            cities = (graph.in_hexes((home,)) & graph.kind_is("city")).nonzero()[0].tolist()
            entry = _HOME_CITIES[key] = (graph.sides, cities)
        arrays = graph.node_arrays()
        return {v: HOME_FLAG for v in entry[1] if arrays.holds(v, company_id)}

    def run_rules(self, company, board, graph) -> RunRules:
        return _RUN

    @staticmethod
    def _run_rules() -> RunRules:
        return RunRules(flag_max={BYPASS_FLAG.bit_length() - 1: 1}, flag_min={HOME_FLAG.bit_length() - 1: 1},
                        connected=True, messages={
                            "flag_max": "Only one train can bypass a tokened-out city",
                            "flag_min": "At least one route must include home token",
                            "connected": "Routes must intersect with each other"})

    def _home(self, company_id: str) -> str | None:
        homes = self.__dict__.get("_homes")
        if homes is None:
            homes = self._homes = {}
            for c in reversed(self.raw().get("corporations", ())):     # (the first of an id wins)
                homes[c["id"]] = c.get("coordinates")
        return homes.get(company_id)


_RUN = G1860._run_rules()     # (one object for every problem: nothing changes a problem's run rules)
