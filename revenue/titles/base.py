"""A title: its printed map, tile manifest, trains and phases (data), plus the rule hooks that differ from
the base rules of rules/base.md. Subclasses override hooks; data comes from revenue/titles/data/<title>.json.

Hooks see the board and the track graph and answer in plain Python; revenue.problem compiles their answers
into the arrays the kernels read, so a title never touches Numba.
"""
from __future__ import annotations

import json
import pathlib
from collections import OrderedDict
from dataclasses import dataclass, field

from ..errors import InputError
from ..tiles import STOP_KINDS

DATA = pathlib.Path(__file__).parent / "data"
UNLIMITED = 999


@dataclass(frozen=True)
class DistanceRow:
    """One row of an 18xx.games array distance: visited nodes of `kinds` cost their visit cost against
    `visit`; at most `pay` of them (the best) are paid, each times `multiplier`."""
    kinds: tuple[str, ...]
    pay: int
    visit: int
    multiplier: int | None = None


@dataclass(frozen=True)
class TrainType:
    name: str
    rows: tuple[DistanceRow, ...]
    multiplier: int = 1
    distance: int | None = None     # the plain number of a numeric distance, for display
    leased: bool = False            # run by the company, owned by the bank (1860's insolvent companies)

    def row_of(self, kind: str) -> int:
        """The first row listing `kind`, or -1 when this train may not visit that kind at all."""
        for i, row in enumerate(self.rows):
            if kind in row.kinds:
                return i
        return -1

    def multiplier_of(self, kind: str) -> int:
        i = self.row_of(kind)
        m = self.rows[i].multiplier if i >= 0 else None
        return m if m is not None else self.multiplier

    def describe(self) -> str:
        if self.distance is not None:
            return "unlimited stops" if self.distance >= UNLIMITED else f"{self.distance} stops"
        parts = []
        for row in self.rows:
            what = "/".join(row.kinds)
            visit = "any number of" if row.visit >= 99 else f"up to {row.visit}"   # 18xx.games writes 99
            pay = ("all paid" if row.pay >= row.visit or row.pay >= 99 else
                   "none paid" if row.pay == 0 else f"best {row.pay} paid")
            mult = f", x{row.multiplier}" if row.multiplier and row.multiplier != 1 else ""
            parts.append(f"{visit} {what} ({pay}{mult})")
        return "; ".join(parts)


def train_from_dict(spec: dict, field_name: str = "train") -> TrainType:
    """An 18xx.games train definition: `distance` is a number or a list of rows."""
    name = spec.get("name")
    if not name or not isinstance(name, str):
        raise InputError(f"{field_name}.name", "a train needs a name")
    distance = spec.get("distance")
    multiplier = int(spec.get("multiplier") or 1)
    if isinstance(distance, (int, float)) and not isinstance(distance, bool):
        if distance < 1:
            raise InputError(f"{field_name}.distance", f"{distance} is not >= 1")
        return TrainType(name, (DistanceRow(STOP_KINDS, UNLIMITED, int(distance)),), multiplier, int(distance))
    if not isinstance(distance, list) or not distance:
        raise InputError(f"{field_name}.distance", "must be a number or a non-empty list of rows")
    rows, seen = [], set()
    for i, row in enumerate(distance):
        where = f"{field_name}.distance[{i}]"
        kinds = tuple(row.get("nodes") or ())
        if not kinds:
            raise InputError(f"{where}.nodes", "a row must list node types")
        for kind in kinds:
            if kind not in STOP_KINDS:
                raise InputError(f"{where}.nodes", f"{kind!r} is not one of {', '.join(STOP_KINDS)}")
            if kind in seen:
                raise InputError(f"{where}.nodes", f"{kind!r} is already listed in an earlier row")
            seen.add(kind)
        pay, visit = int(row.get("pay", 0)), int(row.get("visit", 0))
        if pay < 0 or visit < 0:
            raise InputError(where, "pay and visit must be >= 0")
        rows.append(DistanceRow(kinds, pay, visit, int(row["multiplier"]) if row.get("multiplier") else None))
    return TrainType(name, tuple(rows), multiplier)


@dataclass
class RouteBonus:
    """`amount` for a route when every clause holds. A clause (classes, minimum) counts the distinct
    classes of the route's visited nodes that appear in `classes` (node id -> class, e.g. its hex), and
    needs at least `minimum` of them. Example: Montan = coal hexes >= 1 and steel hexes >= 1."""
    name: str
    amount: int
    clauses: list[tuple[dict[int, int], int]]


@dataclass
class RouteRules:
    """Route-level rules of one train type, beyond per-node ones, as data the kernels interpret."""
    bonuses: list[RouteBonus] = field(default_factory=list)
    end_nodes: set[int] = field(default_factory=set)   # with need_ends: where a route must begin/end
    need_ends: int = 0                                  # 0, 1 (one end) or 2 (both ends) in end_nodes
    alt_multiplier: dict[int, int] = field(default_factory=dict)  # node values multiplied when both ends
    alt_ends: set[int] = field(default_factory=set)                # ... lie in alt_ends (18Rhl RGE bonus)
    merge: dict[int, int] = field(default_factory=dict)  # node -> group: consecutive visits count once
    merge_penalty: int = 0                               # ... worth the first one's value minus this
    metro: dict[int, int] = field(default_factory=dict)  # node -> hex id: a route may not lie in one
    bypass: int = 0                                      # blocked cities a route may pass (1860: one)
    flags: dict[int, int] = field(default_factory=dict)  # node -> flag bits of routes visiting it (see RunRules)
    # (from_row, to_row): the unused allowance of from_row (its pay minus its stops, its visit minus its
    # visit cost) adds to to_row's pay and visit (1860: unused city allowance counts for towns)
    spill: tuple[int, int] | None = None
    # a row paid what spill's to_row leaves unpaid (its pay only; its visit limit is its own): 1860's halts
    # fill the town allowance that the towns leave when every town counts first
    spill_next: int | None = None
    # node -> what the company is paid (not revenue) when the route counts the node as a stop (1860's
    # halt subsidy); the optimizer maximises revenue, then this (or, if asked, their sum)
    subsidy: dict[int, int] = field(default_factory=dict)
    # how a route someone chose is read (not the optimizer): the subsidy stops it asks for (18xx.games 1860
    # `halts`) come first in rows spill_to and spill_next taken as one, so they may take the places of
    # spill_to's stops (1860 outside nationalization and no_skip_towns: a halt counted instead of a town)
    request_pool: bool = False
    no_reentry: bool = False                             # a route may not come back to a hex it left
    # the engine's stop choice keeps a city with the company's token among the paid stops (rules/base.md
    # section 5); False: a token anywhere on the route is enough (18Rhl pays its own stop list)
    token_paid: bool = True
    # what the evaluator says when a route breaks one of these
    need_message: str = "Route must begin or end at a required location"
    merge_message: str = "Cannot revisit a merged location except by consecutive stops"
    metro_message: str = "Route cannot lie within one location"
    reentry_message: str = "Route cannot re-enter a hex"


BYPASS_FLAG = 1   # flag bit 0: the route passes a blocked city (RouteRules.bypass)


@dataclass
class RunRules:
    """Rules over all routes of a run. Routes carry flag bits (bit 0 = BYPASS_FLAG, others from
    RouteRules.flags): at most flag_max[bit] routes may have a bit, at least flag_min[bit] must (in a
    non-empty run); with `connected` the routes must form one group through shared nodes."""
    flag_max: dict[int, int] = field(default_factory=dict)
    flag_min: dict[int, int] = field(default_factory=dict)
    connected: bool = False
    messages: dict[str, str] = field(default_factory=lambda: {
        "flag_max": "Too many routes of one kind", "flag_min": "A required route is missing",
        "connected": "Routes must intersect with each other"})


@dataclass(frozen=True)
class Phase:
    name: str
    colours: tuple[str, ...]
    train_limit: int | None = None
    on: str | None = None


@dataclass(frozen=True)
class MapHex:
    """A hex of the printed map."""
    name: str
    code: str
    color: str
    location: str = ""
    rotation: int = 0
    reservations: tuple = ()


@dataclass
class TitleData:
    layout: str
    hexes: dict[str, MapHex]
    manifest: dict[str, dict]            # tile name -> {name, color, code, count}
    trains: dict[str, TrainType]
    phases: list[Phase]
    corporations: list[dict] = field(default_factory=list)
    companies: list[dict] = field(default_factory=list)
    # derived on first use by revenue.board: neighbour map and printed board hexes
    neighbours: dict | None = field(default=None, repr=False)
    printed: dict | None = field(default=None, repr=False)
    # derived on first use by the board and graph modules: the printed map's stop total and code length
    # (revenue.board.printed_totals), the lays and tokens checked on it (revenue.known.Known), the map's
    # sides as arrays (revenue.geometry.MapSides), recent tracks by geometry ids (revenue.graph.build_graph)
    # and node objects shared by its graphs (revenue.graph.Graph.nodes)
    printed_totals: tuple | None = field(default=None, repr=False, compare=False)
    known: object = field(default=None, repr=False, compare=False)
    sides: object = field(default=None, repr=False, compare=False)
    tracks: OrderedDict = field(default_factory=OrderedDict, repr=False, compare=False)
    graph_nodes: dict = field(default_factory=dict, repr=False, compare=False)


def data_from_dict(d: dict) -> TitleData:
    hexes = {h["name"]: MapHex(h["name"], h.get("code") or "", h.get("color", "white"), h.get("location") or "",
                               int(h.get("rotation") or 0), tuple(h.get("reservations") or ()))
             for h in d["hexes"]}
    trains: dict[str, TrainType] = {}
    for t in d["trains"]:
        trains[t["name"]] = train_from_dict(t)
        for v in t.get("variants") or ():
            trains[v["name"]] = train_from_dict(v)
    phases = [Phase(str(p["name"]), tuple(p["tiles"]), p.get("train_limit"), p.get("on")) for p in d["phases"]]
    return TitleData(d["layout"], hexes, {t["name"]: t for t in d["tiles"]}, trains, phases,
                     d.get("corporations", []), d.get("companies", []))


class Title:
    """Base rules (rules/base.md): subclasses set `name`/`description` and override hooks."""

    name = "base"
    description = ""
    #: option name -> description, for the 18xx.games optional rules that change routes or revenue
    options: dict[str, str] = {}
    #: option name -> description, for the 18xx.games optional rules accepted without effect on routes
    #: or revenue (they change the stock round, the privates or the train supply)
    passive_options: dict[str, str] = {}

    def __init__(self) -> None:
        self._raw: dict | None = None
        self._data: dict[tuple, TitleData] = {}

    # ---- data ---------------------------------------------------------------------------------------
    def raw(self) -> dict:
        if self._raw is None:
            self._raw = json.loads((DATA / f"{self.name}.json").read_text())
        return self._raw

    def data(self, options: dict[str, str] | None = None, board_request: dict | None = None) -> TitleData:
        """The title's data with the map variants its options select."""
        active = tuple(sorted(k for k, v in (options or {}).items() if str(v).lower() not in ("", "0", "false", "no")))
        if active not in self._data:
            raw = dict(self.raw())
            for variant in raw.get("variants", ()):
                if set(variant["options"]) <= set(active):
                    hexes = {h["name"]: h for h in raw["hexes"]}
                    tiles = {t["name"]: t for t in raw["tiles"]}
                    for name, h in variant["hexes"].items():
                        hexes.pop(name) if h is None else hexes.__setitem__(name, h)
                    for name, t in variant["tiles"].items():
                        tiles.pop(name) if t is None else tiles.__setitem__(name, t)
                    raw = {**raw, "hexes": list(hexes.values()), "tiles": list(tiles.values()),
                           **{k: variant[k] for k in ("trains", "companies") if k in variant}}
            self._data[active] = data_from_dict(raw)
        return self._data[active]

    def check_options(self, options: dict[str, str]) -> None:
        for key in options:
            if key not in self.options and key not in self.passive_options and key not in self.free_options():
                known = ", ".join(sorted({*self.options, *self.passive_options, *self.free_options()})) or "none"
                raise InputError(f"board.options[{key}]", f"unknown option for {self.name} (known: {known})")

    def free_options(self) -> tuple[str, ...]:
        """Options whose values are data rather than switches (18Rhl's coal/steel hexes)."""
        return ()

    # ---- rule hooks (base behaviour) -----------------------------------------------------------------
    def node_blocks(self, node, company: str, board) -> bool:
        """Whether `company` may not pass through `node` (rules/base.md section 3)."""
        if node.kind == "offboard":
            return True
        if node.kind not in ("city", "pass"):
            return False
        tokens = node.tokens
        if company in tokens or len(tokens) < node.slots:
            return False
        return len(tokens) > 0

    def node_value(self, train: TrainType, node, board) -> int:
        """What `node` is worth to `train` before the train's multiplier: its value in the phase, except
        that a train named D takes a `diesel_N` value where the node has one (rules/base.md section 5)."""
        if train.name.upper() == "D":
            diesel = dict(board.hexes[node.hex].tile.node_parts[node.ordinal].revenue.by_colour).get("diesel")
            if diesel is not None:
                return diesel
        return node.value

    def company_train(self, train: TrainType, board, leased: bool = False) -> TrainType | None:
        """The type of a `train` the company runs on this board: the data's; leased from the bank, the
        title's leased type, or None when the title has no leased trains."""
        return None if leased else train

    def end_allowed(self, train: TrainType, node) -> bool:
        """Whether a route of `train` may begin or end at `node`."""
        return True

    def visit_allowed(self, train: TrainType, node) -> bool:
        """Whether a route of `train` may visit `node` at all (beyond its distance rows)."""
        return True

    def node_groups(self, train: TrainType, node) -> tuple[str, ...]:
        """Labels of which a route of `train` may visit at most one node (rules/base.md section 4)."""
        return node.groups

    # The same hooks answered for every node of a graph at once, as arrays over the node ids (the graph's
    # kind_is, in_hexes and node_arrays read them without node objects): None, the default, when a title
    # answers node by node only. A title that overrides a per-node hook may add its array form; both
    # must agree (tests/test_title_arrays.py).
    def end_allowed_all(self, train: TrainType, graph):
        """bool [nodes]: end_allowed of every node, or None."""
        return None

    def visit_allowed_all(self, train: TrainType, graph):
        """bool [nodes]: visit_allowed of every node, or None."""
        return None

    def node_value_all(self, train: TrainType, graph, board):
        """int64 [nodes]: node_value of every node, or None."""
        return None

    def node_groups_all(self, train: TrainType, graph) -> list[tuple[int, tuple[str, ...]]] | None:
        """(node id, node_groups) of every node that has groups, in node order, or None."""
        return None

    def node_blocks_all(self, company: str, board, graph, blocks):
        """bool [nodes]: node_blocks of every node, given `blocks`, the base rule's answer; or None."""
        return None

    def route_rules(self, train: TrainType, company, board, graph) -> RouteRules:
        """Route bonuses, required ends, merged stops and other route-level rules of `train`."""
        return RouteRules()

    def run_rules(self, company, board, graph) -> RunRules:
        """Rules over the whole run of the company (see RunRules)."""
        return RunRules()

    def stop_bonuses(self, train: TrainType, company, board, graph) -> list[tuple[str, set[int], int]]:
        """Per-stop bonuses: (name, node ids, amount added per paid stop among them)."""
        return []

    def train_rules_key(self, train: TrainType):
        """Trains of equal keys (and equal distance rows but for their limits) get equal answers from
        every hook above that takes a train, so one problem compiles their arrays once. The base hooks
        tell a D train apart (node_value). A title that overrides a hook taking a train overrides this
        too, else each train type is compiled by itself."""
        return train.name.upper() == "D"

    def check_board(self, board) -> None:
        """Title-specific checks of an assembled board (options naming hexes, ...)."""
