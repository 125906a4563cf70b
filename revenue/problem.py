"""Compile a board, a company and the title's rules into flat arrays: what the kernels read, and what
the Python pricing reads too (revenue.route_price), so both apply one reading of the rules. Nothing here knows
a title by name; titles answer through their hooks (revenue.titles.base.Title).
"""
from __future__ import annotations

import operator
import threading
from dataclasses import dataclass, field

import numpy as np

from .company import Company
from .core.blocks import base_blocks
from .geometry import NODE_KINDS
from .graph import Graph
from .titles.base import RouteRules, RunRules, Title, TrainType


@dataclass
class TrainSpec:
    """How one train type treats each node, and its route-level rules."""
    train: TrainType
    row: np.ndarray          # int64 [nodes]: distance row of the node's kind, -1 = may not visit
    base: np.ndarray         # int64 [nodes]: paid value (revenue x multiplier)
    bonus: np.ndarray        # int64 [nodes]: per-stop bonus, added when paid, not multiplied
    end_ok: np.ndarray       # bool [nodes]: a route may begin/end here
    groups: np.ndarray       # int64 [nodes]: bitmask of the node's groups (at most one node per group)
    row_visit: np.ndarray    # int64 [rows]
    row_pay: np.ndarray      # int64 [rows]
    need: np.ndarray         # bool [nodes]: with need_ends > 0, where routes must begin/end
    need_ends: int
    alt_mult: np.ndarray     # int64 [nodes]: value multiplier when both ends are alt_end nodes
    alt_end: np.ndarray      # bool [nodes]
    merge: np.ndarray        # int64 [nodes]: merge group (-1 none): consecutive visits count once
    merge_penalty: int
    metro: np.ndarray        # int64 [nodes]: metropolis id (-1 none): no route inside one metropolis
    rule_class: np.ndarray   # int64 [sets, nodes]: class of a node in a bonus set (-1 = not in it)
    rule_amount: np.ndarray  # int64 [rules]
    rule_set: np.ndarray     # int64 [rules, clauses]: bonus set of each clause (-1 = no clause)
    rule_min: np.ndarray     # int64 [rules, clauses]: distinct classes the clause needs
    bypass: int              # blocked cities a route may pass
    flag_on: np.ndarray      # int64 [nodes]: flag bits a route visiting the node carries
    spill_from: int          # RouteRules.spill as two row numbers (-1: none)
    spill_to: int
    no_reentry: bool         # a route may not come back to a hex it left
    spill_next: int          # RouteRules.spill_next (-1: none)
    token_paid: bool         # RouteRules.token_paid
    sub: np.ndarray          # int64 [nodes]: subsidy (not revenue) when paid as a stop (RouteRules.subsidy)
    rules: RouteRules
    bonus_names: dict[int, list[tuple[str, int]]] = field(default_factory=dict)
    # every visited node is paid its value: a route's revenue is a plain sum (no row pays fewer stops
    # than it may visit, no merged stops, alternative multiplier or spill)
    simple: bool = False
    # one object shared by the specs copied from one another for other rows' limits (_with_limits): their
    # arrays but the limits are the same objects, so they walk alike (revenue.optimizer.trains.route_parents)
    walk: object = field(default_factory=object)
    # row_visit then row_pay as ints (core.probe's io holds them: made once per train type, _train_arrays)
    limits: tuple = ()

    @property
    def value(self) -> np.ndarray:
        return self.base + self.bonus

    def pay_and_visit(self, stops_by_row: dict[int, int], cost_by_row: dict[int, int]) -> tuple[list[int], list[int]]:
        """Each row's pay and visit limits for a route with these stops and visit costs per row: the
        printed ones, plus what RouteRules.spill lends."""
        pay, visit = self.row_pay.tolist(), self.row_visit.tolist()
        if self.spill_from >= 0:
            pay[self.spill_to] += max(0, pay[self.spill_from] - stops_by_row.get(self.spill_from, 0))
            visit[self.spill_to] += max(0, visit[self.spill_from] - cost_by_row.get(self.spill_from, 0))
            if self.spill_next >= 0:
                pay[self.spill_next] += max(0, pay[self.spill_to] - stops_by_row.get(self.spill_to, 0))
        return pay, visit


@dataclass
class Problem:
    graph: Graph
    company: Company
    token: np.ndarray        # bool [nodes]: a city holding the company's token
    blocks: np.ndarray       # bool [nodes]: the company may not pass through
    bypassable: np.ndarray   # bool [nodes]: blocked cities (not off-boards): passable within RouteRules.bypass
    cost: np.ndarray         # int64 [nodes]: visit cost
    specs: dict[str, TrainSpec]
    chain_keys: np.ndarray   # uint64 [chains, words]: track-key bitsets
    run: RunRules
    # what the optimizer derives from the problem alone (revenue.optimizer.memo.Memo), made when first
    # asked for: a problem is remembered per graph and company and never changes
    memo: object = None

    @property
    def words(self) -> int:
        return self.chain_keys.shape[1]


# Up to this many nodes an array is filled item by item, cheaper than building index arrays; beyond, one
# fancy assignment.
ITEMWISE = 16


def _mask(n: int, members) -> np.ndarray:
    out = np.zeros(n, dtype=np.bool_)
    if len(members) <= ITEMWISE:
        for v in members:
            out[v] = True
    else:
        out[np.fromiter(members, dtype=np.int64, count=len(members))] = True
    return out


_CLASS_HOOKS: dict[type, frozenset[str]] = {}


def _overridden(title) -> frozenset[str]:
    """The hooks the title answers itself (HOOKS, node_value, train_rules_key): its class's, found once
    per class, and any set on the instance (as tests do)."""
    by_class = _CLASS_HOOKS.get(type(title))
    if by_class is None:
        by_class = _CLASS_HOOKS[type(title)] = frozenset(
            h for h in _HOOK_NAMES if getattr(type(title), h) is not getattr(Title, h))
    own = _HOOK_NAMES.intersection(title.__dict__)      # (the instance's few attributes)
    return by_class | own if own else by_class


# the hooks that take a train (Title.train_rules_key)
TRAIN_HOOKS = frozenset(("visit_allowed", "node_value", "node_groups", "end_allowed", "stop_bonuses", "route_rules"))


_TRAIN_ARRAYS: dict[int, tuple] = {}
TRAIN_ARRAYS_SIZE = 4096    # train types remembered (a request may define its own)
_INTERNED: dict[tuple, np.ndarray] = {}


def _interned(a: np.ndarray) -> np.ndarray:
    """One array object per content (small per-kind arrays): trains whose arrays are equal share the
    arrays derived from them, which route_parents then compares by identity."""
    key = (a.dtype.str, a.tobytes())
    out = _INTERNED.get(key)
    if out is None:
        if len(_INTERNED) >= TRAIN_ARRAYS_SIZE:
            _INTERNED.clear()
        out = _INTERNED[key] = a
    return out


def _train_arrays(train: TrainType) -> tuple:
    """(row, multiplier) per node kind (NODE_KINDS), the rows' visit and pay limits, whether every row pays
    all it may visit, whether every multiplier is 1 and the limits as ints (TrainSpec.limits), once per train type (remembered by identity: the
    title data's types live as long as the process, a request's own are few)."""
    entry = _TRAIN_ARRAYS.get(id(train))
    if entry is None or entry[0] is not train:
        if len(_TRAIN_ARRAYS) >= TRAIN_ARRAYS_SIZE:
            _TRAIN_ARRAYS.clear()
        row_visit = np.array([r.visit for r in train.rows], dtype=np.int64)
        row_pay = np.array([r.pay for r in train.rows], dtype=np.int64)
        multipliers = [train.multiplier_of(k) for k in NODE_KINDS]
        entry = _TRAIN_ARRAYS[id(train)] = (
            train, _interned(np.array([train.row_of(k) for k in NODE_KINDS], dtype=np.int64)),
            _interned(np.array(multipliers, dtype=np.int64)),
            row_visit, row_pay, all(p >= v for p, v in zip(row_pay.tolist(), row_visit.tolist())),
            all(m == 1 for m in multipliers), tuple(row_visit.tolist() + row_pay.tolist()))
    return entry[1:]


class _Constants:
    """Arrays over n nodes that many trains share unchanged (a rule left at its default): made once per
    node count and never written (nothing writes a problem's arrays)."""

    def __init__(self, n: int):
        self.zeros = np.zeros(n, dtype=np.int64)
        self.ones = np.ones(n, dtype=np.int64)
        self.minus_ones = np.full(n, -1, dtype=np.int64)
        self.false = np.zeros(n, dtype=np.bool_)
        self.true = np.ones(n, dtype=np.bool_)
        self.no_classes = np.full((1, n), -1, dtype=np.int64)
        self.rule_fields: dict | None = None     # the default rules' (_rule_fields), made when first read


_CONSTANTS: dict[int, _Constants] = {}
_NO_BONUSES = (np.zeros(0, dtype=np.int64), np.full((0, 1), -1, dtype=np.int64), np.zeros((0, 1), dtype=np.int64))
_DEFAULT_RULES = RouteRules()    # (never changed: a problem only reads its rules)
_DEFAULT_RUN = RunRules()


def _constants(n: int) -> _Constants:
    out = _CONSTANTS.get(n)
    if out is None:
        if len(_CONSTANTS) >= 512:
            _CONSTANTS.clear()
        out = _CONSTANTS[n] = _Constants(n)
    return out


def _spec(train: TrainType, company: Company, graph: Graph, shared: dict | None = None,
          hooks: frozenset[str] | None = None, arrays=None, train_arrays: tuple | None = None) -> TrainSpec:
    """The train's arrays. `shared` holds the arrays one problem's trains have in common (the ones a rule
    left at their defaults, equal rows and values): made once and shared, never changed. `hooks`: the
    title's own hooks (_overridden); `arrays` and `train_arrays`: graph.node_arrays() and
    _train_arrays(train), when the caller has them."""
    board = graph.board
    title = board.title
    if arrays is None:
        arrays = graph.node_arrays()
    n = graph.n_nodes
    kinds = arrays.kind
    shared = {} if shared is None else shared
    hooks = _overridden(title) if hooks is None else hooks
    fixed = _constants(n)

    row_by_kind, mult_by_kind, row_visit, row_pay, pays_all, unit, limits = train_arrays or _train_arrays(train)
    if "visit_allowed" in hooks:
        allowed = title.visit_allowed_all(train, graph)
        if allowed is not None:
            # (remembered by the answer's object: a title answering alike boards with one array has it once)
            key = (id(allowed), id(row_by_kind), kinds.tobytes())
            entry = _ROWS.get(key)
            if entry is not None and entry[0] is allowed and entry[1] is row_by_kind:
                row = entry[2]
            else:
                row = np.where(allowed, row_by_kind[kinds], -1)
                if len(_ROWS) >= RULE_ARRAYS_SIZE:
                    _ROWS.clear()
                _ROWS[key] = (allowed, row_by_kind, row)
        else:
            row = np.array([train.row_of(nd.kind) if title.visit_allowed(train, nd) else -1 for nd in graph.nodes],
                           dtype=np.int64)
    else:
        row = shared.get(id(row_by_kind))
        if row is None:
            row = shared[id(row_by_kind)] = row_by_kind[kinds]
    # (values times multipliers of 1 are the values themselves: the same array, never written)
    if "node_value" in hooks:
        values = title.node_value_all(train, graph, board)
        if values is None:
            values = np.array([title.node_value(train, nd, board) for nd in graph.nodes], dtype=np.int64)
        base = values if unit and values.dtype == np.int64 else values * mult_by_kind[kinds]
    else:
        key = ("base", train.name.upper() == "D", id(mult_by_kind))
        base = shared.get(key)
        if base is None:
            values = np.where(arrays.has_diesel, arrays.diesel, arrays.value) if key[1] else arrays.value
            base = shared[key] = values if unit else values * mult_by_kind[kinds]
    names: dict[int, list[tuple[str, int]]] = {}
    stop_bonuses = title.stop_bonuses(train, company, board, graph) if "stop_bonuses" in hooks else None
    if stop_bonuses:
        bonus = np.zeros(n, dtype=np.int64)
        for name, node_ids, amount in stop_bonuses:
            for i in node_ids:
                bonus[i] += amount
                names.setdefault(i, []).append((name, amount))
    else:
        bonus = fixed.zeros
    if "node_groups" in hooks:
        node_groups = title.node_groups_all(train, graph)
        if node_groups is None:
            node_groups = [(nd.id, title.node_groups(train, nd)) for nd in graph.nodes]
        groups = _remembered_group_bits(node_groups, n)
    else:
        groups = shared.get("groups")
        if groups is None:
            groups = shared["groups"] = _tile_group_bits(arrays.groups, n) if arrays.groups else fixed.zeros
    if "end_allowed" in hooks:
        end_ok = title.end_allowed_all(train, graph)
        if end_ok is None:
            end_ok = np.array([title.end_allowed(train, nd) for nd in graph.nodes], dtype=np.bool_)
    else:
        end_ok = fixed.true
    if "route_rules" in hooks:
        rule_fields = _rule_fields(title.route_rules(train, company, board, graph), n, title.name)
    else:
        rule_fields = fixed.rule_fields
        if rule_fields is None:
            rule_fields = fixed.rule_fields = _fields_of(_DEFAULT_RULES,
                                                         _make_rule_arrays(_DEFAULT_RULES, n, title.name))
    # (the rules' fields as one dict made once per rules object, then the train's: cheaper than the
    # dataclass's __init__ of 31 arguments)
    spec = object.__new__(TrainSpec)
    fields = spec.__dict__
    fields.update(rule_fields)
    fields.update(train=train, row=row, base=base, bonus=bonus, end_ok=end_ok, groups=groups, row_visit=row_visit,
                  row_pay=row_pay, bonus_names=names, simple=pays_all and rule_fields["simple"], walk=object(),
                  limits=limits)
    return spec


_RULE_ARRAYS: dict[int, tuple] = {}
_ROWS: dict[tuple, tuple] = {}      # _spec's rows of a visit_allowed_all answer
RULE_ARRAYS_SIZE = 1024     # RouteRules objects whose arrays are remembered (then all let go)


def _rule_fields(rules: RouteRules, n: int, title_name: str) -> dict:
    """TrainSpec's fields that a train's route rules decide over n nodes (_fields_of), remembered by the
    rules object: a title that answers alike boards with the same RouteRules object (nothing changes one)
    has them compiled once."""
    entry = _RULE_ARRAYS.get(id(rules))
    if entry is not None and entry[0] is rules and entry[1] == n:
        return entry[2]
    fields = _fields_of(rules, _make_rule_arrays(rules, n, title_name))
    if len(_RULE_ARRAYS) >= RULE_ARRAYS_SIZE:
        _RULE_ARRAYS.clear()
    _RULE_ARRAYS[id(rules)] = (rules, n, fields)
    return fields


def _fields_of(rules: RouteRules, arrays: tuple) -> dict:
    """_make_rule_arrays' answer and the rules' scalars as TrainSpec's fields, with `simple` as far as the
    rules decide it (_rules_simple)."""
    (need, alt_mult, alt_end, merge, metro, rule_class, rule_amount, rule_set, rule_min, flag_on, sub, spill_from,
     spill_to, spill_next, rules_simple) = arrays
    return dict(need=need, need_ends=rules.need_ends, alt_mult=alt_mult, alt_end=alt_end, merge=merge,
                merge_penalty=rules.merge_penalty, metro=metro, rule_class=rule_class, rule_amount=rule_amount,
                rule_set=rule_set, rule_min=rule_min, bypass=rules.bypass, flag_on=flag_on, spill_from=spill_from,
                spill_to=spill_to, no_reentry=rules.no_reentry, spill_next=spill_next, token_paid=rules.token_paid,
                sub=sub, rules=rules, simple=rules_simple)


def _make_rule_arrays(rules: RouteRules, n: int, title_name: str) -> tuple:
    """The arrays of a train's route rules over n nodes (need, alt_mult, alt_end, merge, metro, rule_class,
    rule_amount, rule_set, rule_min, flag_on, sub), the spill's rows (spill_from, spill_to, spill_next) and
    whether the rules leave a route's revenue a plain sum (_rules_simple)."""
    fixed = _constants(n)
    # The kernels keep merge groups and bonus classes as bits of one int64.
    numbers = [d.values() for d in [rules.merge] + [classes for b in rules.bonuses for classes, _ in b.clauses] if d]
    if numbers and not (0 <= min(min(x) for x in numbers) and max(max(x) for x in numbers) < 62):
        raise ValueError(f"{title_name}: merge groups and bonus classes must be numbered 0..61")
    alt_mult = _filled(n, rules.alt_multiplier, 1) if rules.alt_multiplier else fixed.ones
    merge = _filled(n, rules.merge, -1) if rules.merge else fixed.minus_ones
    metro = _filled(n, rules.metro, -1) if rules.metro else fixed.minus_ones
    if rules.bonuses:
        sets: list[dict[int, int]] = []
        clauses = max(len(b.clauses) for b in rules.bonuses)
        rule_set = np.full((len(rules.bonuses), max(clauses, 1)), -1, dtype=np.int64)
        rule_min = np.zeros_like(rule_set)
        for r, b in enumerate(rules.bonuses):
            for c, (classes, minimum) in enumerate(b.clauses):
                if classes not in sets:
                    sets.append(classes)
                rule_set[r, c] = sets.index(classes)
                rule_min[r, c] = minimum
        rule_amount = np.array([b.amount for b in rules.bonuses], dtype=np.int64)
    else:
        sets = []
        rule_amount, rule_set, rule_min = _NO_BONUSES
    if rules.flags:
        flag_on = np.zeros(n, dtype=np.int64)
        for v, bits in rules.flags.items():
            flag_on[v] |= bits
    else:
        flag_on = fixed.zeros
    sub = _filled(n, rules.subsidy, 0) if rules.subsidy else fixed.zeros
    if rules.subsidy and (rules.merge or rules.alt_multiplier and (alt_mult != 1).any()) and sub.any():
        raise ValueError(f"{title_name}: subsidies do not combine with merged stops or alternative multipliers")
    if rules.spill_next is not None and rules.spill is None:
        raise ValueError(f"{title_name}: spill_next needs a spill")
    if sets:
        rule_class = np.full((len(sets), n), -1, dtype=np.int64)
        at_set, at_node, of_class = [], [], []     # (every set's classes in one assignment)
        for s, classes in enumerate(sets):
            at_set += [s] * len(classes)
            at_node += classes.keys()
            of_class += classes.values()
        rule_class[at_set, at_node] = of_class
    else:
        rule_class = fixed.no_classes
    alt_end = _mask(n, rules.alt_ends) if rules.alt_ends else fixed.false
    spill_from, spill_to = rules.spill or (-1, -1)
    out = (_mask(n, rules.end_nodes) if rules.end_nodes else fixed.false, alt_mult, alt_end, merge, metro, rule_class,
           rule_amount, rule_set, rule_min, flag_on, sub, spill_from, spill_to,
           -1 if rules.spill_next is None else rules.spill_next,
           # _rules_simple's answer
           rules.merge_penalty == 0 and not (rules.merge and (merge >= 0).any())
           and not (rules.alt_ends and alt_end.any()) and spill_from < 0)
    return out


def _with_limits(spec: TrainSpec, train: TrainType, row_visit: np.ndarray, row_pay: np.ndarray,
                 pays_all: bool, limits: tuple) -> TrainSpec:
    """`spec` for another train whose arrays differ only in the rows' limits (Title.train_rules_key)."""
    out = object.__new__(TrainSpec)     # (a shallow copy: copy.copy's reduce protocol costs more)
    out.__dict__.update(spec.__dict__)
    out.train, out.row_visit, out.row_pay, out.limits = train, row_visit, row_pay, limits
    out.simple = pays_all and _rules_simple(spec)
    return out


def _rules_simple(spec: TrainSpec) -> bool:
    """TrainSpec.simple but for the rows' limits."""
    rules = spec.rules
    return spec.merge_penalty == 0 and not (rules.merge and (spec.merge >= 0).any()) \
        and not (rules.alt_ends and spec.alt_end.any()) and spec.spill_from < 0


def _group_bits(grouped, n: int) -> np.ndarray:
    """int64 [n]: the bits of each node's groups ((node, labels) pairs; numbered in order of first use)."""
    group_ids: dict[str, int] = {}
    out = np.zeros(n, dtype=np.int64)
    for v, labels in grouped:
        for g in labels:
            out[v] |= 1 << group_ids.setdefault(g, len(group_ids))
    if len(group_ids) > 62:
        raise ValueError("more than 62 node groups")
    return out


_GROUP_BITS: dict[int, tuple] = {}


def _remembered_group_bits(grouped: list, n: int) -> np.ndarray:
    """_group_bits of a title's node_groups_all answer, remembered by the answer's object (a title that
    answers alike boards with the same list has it made once; nothing changes the list)."""
    entry = _GROUP_BITS.get(id(grouped))
    if entry is not None and entry[0] is grouped and entry[1] == n:
        return entry[2]
    out = _group_bits(grouped, n)
    if len(_GROUP_BITS) >= RULE_ARRAYS_SIZE:
        _GROUP_BITS.clear()
    _GROUP_BITS[id(grouped)] = (grouped, n, out)
    return out


_TILE_GROUP_BITS: dict[tuple, np.ndarray] = {}


def _tile_group_bits(grouped: list, n: int) -> np.ndarray:
    """_group_bits of the tiles' own groups (NodeArrays.groups), remembered by their content: a game's
    boards mostly hold the same few grouped nodes, on tracks of their own."""
    key = (n, tuple(grouped))
    out = _TILE_GROUP_BITS.get(key)
    if out is None:
        out = _group_bits(grouped, n)
        if len(_TILE_GROUP_BITS) >= RULE_ARRAYS_SIZE:
            _TILE_GROUP_BITS.clear()
        _TILE_GROUP_BITS[key] = out
    return out


def _filled(n: int, values: dict[int, int], default: int) -> np.ndarray:
    """int64 [n]: `default`, with values[v] at each node v listed."""
    out = np.full(n, default, dtype=np.int64)
    if len(values) <= ITEMWISE:
        for v, value in values.items():
            out[v] = value
    else:
        out[np.fromiter(values.keys(), dtype=np.int64, count=len(values))] = np.fromiter(
            values.values(), dtype=np.int64, count=len(values))
    return out


_LOCK = threading.Lock()
_LAST_CITY_KIND, _OFFBOARD_KIND = NODE_KINDS.index("pass"), NODE_KINDS.index("offboard")     # (base_blocks)
HOOKS = ("node_blocks", "end_allowed", "visit_allowed", "node_groups", "stop_bonuses", "route_rules", "run_rules")
_HOOK_NAMES = frozenset(HOOKS + ("node_value", "train_rules_key"))     # (_overridden)
_HOOKS_OF = operator.attrgetter(*HOOKS)
PROBLEMS_PER_GRAPH = 16


def compile_problem(graph: Graph, company: Company) -> Problem:
    """The arrays for `company` on `graph`, remembered per graph: a front end often asks again about the
    same state. The key holds the title's hooks too, so a title that changes them is never served stale.
    The few keys of a graph are compared, not hashed (a company's hash is a few microseconds, and most
    graphs are asked about once)."""
    key = (company, _HOOKS_OF(graph.board.title))
    with _LOCK:
        cache = graph.problems
        for known, problem in cache:
            if known == key:
                return problem
    problem = _compile(graph, company)
    with _LOCK:
        if len(cache) >= PROBLEMS_PER_GRAPH:
            del cache[0]
        cache.append((key, problem))
    return problem


def _compile(graph: Graph, company: Company) -> Problem:
    board, title, arrays = graph.board, graph.board.title, graph.node_arrays()
    company_id = company.id
    mine = np.array([c == company_id for c in arrays.token_company], dtype=np.bool_)
    # the company's tokens, and Title.node_blocks for every node at once (off-boards, and cities full of
    # other companies' tokens), in one compiled pass; the rows are never written (nothing writes a problem)
    rows = np.zeros((4, len(arrays.kind)), dtype=np.bool_)
    base_blocks(arrays.kind, arrays.slots, arrays.token_node, mine, _LAST_CITY_KIND, _OFFBOARD_KIND, rows)
    # (rows by index: unpacking the 2-D array iterates it, some 1 us more; the cities' row only for node_blocks)
    token, blocks, bypassable = rows[0], rows[1], rows[2]
    hooks = _overridden(title)
    if "node_blocks" in hooks:
        by_title = title.node_blocks_all(company_id, board, graph, blocks)
        blocks = by_title if by_title is not None else np.array(
            [title.node_blocks(nd, company_id, board) for nd in graph.nodes], dtype=np.bool_)
        bypassable = blocks & rows[3]
    cost = arrays.cost
    specs: dict[str, TrainSpec] = {}
    shared: dict = {}    # arrays the trains have in common (_spec)
    made: list[TrainSpec] = []
    for train, entry, like in _plan(company.trains, title, hooks):
        if like < 0:
            spec = _spec(train, company, graph, shared, hooks, arrays, entry)
        else:
            _, _, row_visit, row_pay, pays_all, _, limits = entry
            spec = _with_limits(made[like], train, row_visit, row_pay, pays_all, limits)
        made.append(spec)
        specs[train.name] = spec
    run = title.run_rules(company, board, graph) if "run_rules" in hooks else _DEFAULT_RUN
    return Problem(graph, company, token, blocks, bypassable, cost, specs, graph.chain_keys, run)


_PLANS: dict[tuple, tuple] = {}


def _plan(trains: tuple, title, hooks: frozenset[str]) -> list[tuple]:
    """How _compile makes the specs of a company's trains: per train name, in order, (train, _train_arrays(train),
    the place in this list of an earlier train whose spec it copies for its own limits, or -1: a spec of its
    own). Trains the title's hooks treat alike (Title.train_rules_key, an answer of the train alone) of equal
    rows but for their limits share one spec's arrays. Remembered per trains tuple (a company read before
    keeps its tuple, revenue.company), title and hooks."""
    key = (id(trains), id(title), hooks)
    known = _PLANS.get(key)
    if known is not None and known[0] is trains and known[1] is title:
        return known[2]
    by_key = "train_rules_key" in hooks or not hooks & TRAIN_HOOKS
    plan: list[tuple] = []
    seen: set[str] = set()
    alike: dict[tuple, int] = {}
    for train in trains:
        if train.name in seen:
            continue
        seen.add(train.name)
        entry = _train_arrays(train)
        like = (id(entry[0]), id(entry[1]), len(train.rows), title.train_rules_key(train) if by_key else id(train))
        first = alike.get(like)
        if first is None:
            alike[like] = len(plan)
            plan.append((train, entry, -1))
        else:
            plan.append((train, entry, first))
    if len(_PLANS) >= TRAIN_ARRAYS_SIZE:
        _PLANS.clear()
    _PLANS[key] = (trains, title, plan)
    return plan


OBJECTIVES = ("revenue", "revenue_and_subsidy")


def objective_weights(problem: Problem, objective: str = "revenue") -> tuple[int, int]:
    """(wr, ws): the optimizer maximises wr x revenue + ws x subsidy, route by route and in total, which is
    the objective exactly (and the kernels stay one-valued). With no subsidy anywhere, (1, 0). Otherwise:

    "revenue" (then subsidy): (M, 1) with M = 1 + S, S = the subsidy of every node summed over the trains,
    more than any run can earn. A run of more revenue scores at least M x (rev + 1) > M x rev + S, more than
    any run of less revenue whatever their subsidies, so the best score is the most revenue and, among
    those runs, the most subsidy: the weights cannot change the revenue optimum.

    "revenue_and_subsidy" (then revenue): (R + 1, R) with R = 1 + an upper bound of any run's revenue: the
    score R x (revenue + subsidy) + revenue orders by the sum first, then by revenue, since revenue < R.
    """
    if objective not in OBJECTIVES:
        raise ValueError(objective)
    for spec in problem.specs.values():
        if spec.rules.subsidy:
            break
    else:   # (a node pays a subsidy only where the rules list it)
        return 1, 0
    specs = [problem.specs[t.name] for t in problem.company.trains]
    total_sub = sum(int(spec.sub.sum()) for spec in specs if spec.rules.subsidy)
    if total_sub == 0:
        return 1, 0
    if objective == "revenue":
        return total_sub + 1, 1
    most = 1
    for spec in specs:
        value = np.maximum(spec.base * np.maximum(spec.alt_mult, 1) + spec.bonus, 0)
        most += int(value.sum()) + int(np.maximum(spec.rule_amount, 0).sum())
    return most + 1, most


def split_score(score: int, weights: tuple[int, int], objective: str) -> tuple[int, int]:
    """The objective's own figures of a score wr x revenue + ws x subsidy (objective_weights): (revenue,
    subsidy) for "revenue", (revenue + subsidy, revenue) for "revenue_and_subsidy"."""
    wr, ws = weights
    if ws == 0:
        return score, 0
    if objective == "revenue_and_subsidy":     # score = ws x (revenue + subsidy) + revenue
        return score // ws, score % ws
    return score // wr, score % wr


def kernel_values(spec: TrainSpec, weights: tuple[int, int]) -> dict[str, object]:
    """The train's values as the kernels score them (objective_weights): node values and bonuses times
    wr, plus ws x the node's subsidy."""
    wr, ws = weights
    if (wr, ws) == (1, 0):
        return {}
    return {"base": spec.base * wr + spec.sub * ws, "bonus": spec.bonus * wr,
            "rule_amount": spec.rule_amount * wr, "merge_penalty": spec.merge_penalty * wr}
