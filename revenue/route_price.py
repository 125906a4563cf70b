"""A route's revenue and subsidy as the rules pay it, in Python: the twin of the kernels' pricing, read
from the same compiled problem (revenue.problem), so both apply one reading of the rules. An answer prices
its routes with it, and a player's route is checked with it (and the hexes its chains walk: chain_hex_walk).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .graph import Chain
from .problem import Problem, TrainSpec


@dataclass
class RoutePrice:
    revenue: int
    stops: list[tuple[int, int, bool]]   # (node, value it is worth to this train, paid)
    bonuses: list[tuple[str, int]]
    subsidy: int = 0                     # paid to the company apart from the revenue (RouteRules.subsidy)
    halts: int = 0                       # paid stops that earn a subsidy (18xx.games 1860 `halts`)


class RouteValues:
    """A train's arrays read at one route's nodes only, as dicts by node (a route visits a node once): an
    answer prices a few routes of a problem seen once, where lists of every node cost more than the
    routes. alt_end, alt_mult and merge are None when the rules list no node for them."""

    def __init__(self, problem: Problem, spec: TrainSpec, nodes: list[int]):
        at = np.array(nodes, dtype=np.int64)
        self.base = dict(zip(nodes, spec.base[at].tolist()))
        self.row = dict(zip(nodes, spec.row[at].tolist()))
        self.token = dict(zip(nodes, problem.token[at].tolist()))
        self.bonus = dict(zip(nodes, spec.bonus[at].tolist())) if spec.bonus_names else dict.fromkeys(nodes, 0)
        self.sub = dict(zip(nodes, spec.sub[at].tolist())) if spec.rules.subsidy else dict.fromkeys(nodes, 0)
        self.alt_end = dict(zip(nodes, spec.alt_end[at].tolist())) if spec.rules.alt_ends else None
        self.alt_mult = dict(zip(nodes, spec.alt_mult[at].tolist())) if self.alt_end is not None else None
        self.merge = dict(zip(nodes, spec.merge[at].tolist())) if spec.rules.merge else None


def route_bonuses(spec: TrainSpec, nodes: list[int]) -> list[tuple[str, int]]:
    """The route bonuses (RouteRules.bonuses) a route earns, in the rules' order, one line per bonus: those
    whose every clause holds, the route's nodes in the clause's classes being of at least its minimum of
    distinct classes."""
    out = []
    for b in spec.rules.bonuses:
        for classes, minimum in b.clauses:
            hit = classes.keys() & nodes    # (a set op in C; no more classes than nodes hit)
            if len(hit) < minimum or minimum > 1 and len({classes[v] for v in hit}) < minimum:
                break
        else:
            out.append((b.name, b.amount))
    return out


def all_paid(problem: Problem, spec: TrainSpec, path: np.ndarray, nodes: list[int]
             ) -> tuple[int, list[int], list[tuple[str, int]], int, int] | None:
    """price_route of a legal route whose every stop is paid, whichever the weights: no merged consecutive
    stops, not both ends alternative ends, every row (with what a spill lends) paying all its stops, one
    of them holding a token (or RouteRules.token_paid off), and the per-stop bonuses of at most one name
    (price_route lists several in the order of its set of paid stops). Read from the train's arrays at the
    route's nodes alone (`path`, the nodes as an array): (revenue, each stop's value, bonus lines,
    subsidy, halts). None otherwise (price_route's ranked reading decides)."""
    row_pay = spec.row_pay.tolist()
    if len(row_pay) == 1:       # (one row: every stop is in it)
        if len(nodes) > row_pay[0]:
            return None
    else:
        count = [0] * len(row_pay)
        for r in spec.row[path].tolist():
            count[r] += 1
        if spec.spill_from >= 0:
            row_pay = spec.pay_and_visit(dict(enumerate(count)), {})[0]
        for c, p in zip(count, row_pay):
            if c > p:
                return None
    rules = spec.rules
    if not spec.simple:     # (a simple train has no merged stops, alternative ends or spill)
        if rules.merge:
            merge = spec.merge[path].tolist()
            for u, v in zip(merge, merge[1:]):
                if u == v >= 0:
                    return None
        if rules.alt_ends and spec.alt_end.item(nodes[0]) and spec.alt_end.item(nodes[-1]):
            return None
    if spec.token_paid and True not in problem.token[path].tolist():    # (ndarray.any: a Python wrapper)
        return None
    values = spec.base[path].tolist()
    revenue = sum(values)
    lines: dict[str, int] = {}
    if spec.bonus_names:
        names = spec.bonus_names
        named = [line for v in nodes if v in names for line in names[v]]
        if named:
            name = named[0][0]
            if any(n != name for n, _ in named):
                return None
            lines[name] = sum(amount for _, amount in named)
        revenue += sum(spec.bonus[path].tolist())
    if rules.bonuses:
        for name, amount in route_bonuses(spec, nodes):
            revenue += amount
            lines[name] = lines.get(name, 0) + amount
    if not rules.subsidy:
        return revenue, values, list(lines.items()), 0, 0
    sub = spec.sub[path].tolist()
    return revenue, values, list(lines.items()), sum(sub), len(sub) - sub.count(0)


def price_route(problem: Problem, spec: TrainSpec, nodes: list[int], halts: int | None = None,
                weights: tuple[int, int] | None = None) -> RoutePrice | None:
    """Revenue and subsidy of a route that passed the legality checks (the Python twin of
    core.pricing.price): merged consecutive stops, the alternative multiplier, the engine's stop choice (per
    distance row the best `pay` nodes, one of them a city with the company's token unless
    RouteRules.token_paid is off), per-stop and route bonuses. None when no choice of paid stops holds a
    token city (and one must).

    Which stops of a row are "best" when some earn a subsidy (RouteRules.subsidy):
    - with `weights` (the optimizer's reading, objective_weights): the highest wr x value + ws x subsidy;
    - without (a route someone chose, 18xx.games 1860): the player's `halts` subsidy stops first (in visit
      order), then the best others; with `halts` None, or more than the rows can pay, the others first
      and the subsidy stops fill what they leave (the engine's default)."""
    # (a player's halts, and the rows pooled for a player's route, choose stops the plain reading does not)
    if not spec.bonus_names and (spec.simple or halts is None and not (weights is None and spec.rules.request_pool)):
        plain = all_paid(problem, spec, np.array(nodes, dtype=np.int64), nodes)
        if plain is not None:
            revenue, values, lines, subsidy, halts_paid = plain
            return RoutePrice(revenue, [(v, value, True) for v, value in zip(nodes, values)], lines, subsidy,
                              halts_paid)
    return ranked_price(problem, spec, nodes, halts, weights)


def ranked_price(problem: Problem, spec: TrainSpec, nodes: list[int], halts: int | None = None,
                 weights: tuple[int, int] | None = None) -> RoutePrice | None:
    """price_route's general reading: each row's stops ranked and the best paid (all_paid's routes too)."""
    values = RouteValues(problem, spec, nodes)
    token, base, bonus, row = values.token, values.base, values.bonus, values.row
    alt_end, alt_mult, merge = values.alt_end, values.alt_mult, values.merge
    doubled = alt_end is not None and alt_end[nodes[0]] and alt_end[nodes[-1]]
    worth: dict[int, int] = {}
    kept: list[int] = []
    for i, v in enumerate(nodes):
        if merge is not None and i > 0 and merge[v] >= 0 and merge[v] == merge[nodes[i - 1]]:
            # dropped: the last kept stop pays the penalty (times its multiplier), never below 0
            last = kept[-1]
            penalty = spec.merge_penalty * (alt_mult[last] if doubled else 1)
            worth[last] = max(0, worth[last] - penalty)
            worth[v] = 0
            continue
        worth[v] = base[v] * alt_mult[v] if doubled else base[v]
        kept.append(v)
    value = {v: worth[v] + bonus[v] for v in kept}
    sub = {v: values.sub[v] for v in kept}
    by_row: dict[int, list[int]] = {}
    for v in kept:
        by_row.setdefault(row[v], []).append(v)
    row_pay, _ = spec.pay_and_visit({r: len(members) for r, members in by_row.items()}, {})
    if weights is None and spec.rules.request_pool and spec.spill_next >= 0:
        # rows spill_to and spill_next as one, paying what spill_to pays (RouteRules.request_pool)
        pooled = by_row.pop(spec.spill_next, [])
        if pooled:
            by_row[spec.spill_to] = [v for v in kept if v in pooled or v in by_row.get(spec.spill_to, ())]
    if weights is not None:
        wr, ws = weights
        rank = {v: wr * value[v] + ws * sub[v] for v in kept}
    else:
        # the engine's default: stops with no subsidy before those with one (a big constant apart)
        big = 1 + sum(abs(x) for x in value.values())
        rank = {v: value[v] - (big if sub[v] else 0) for v in kept}
        most = sum(min(sum(1 for v in members if sub[v]), row_pay[r]) for r, members in by_row.items())
        if halts is not None and halts > most:
            halts = None
    paid: set[int] = set()
    left = halts if weights is None and halts is not None else None
    for r, members in by_row.items():
        pay = row_pay[r]
        if left is not None:
            first = [v for v in members if sub[v]][:min(left, pay)]
            left -= len(first)
            paid.update(first)
            pay -= len(first)
            members = [v for v in members if not sub[v]]
        members = sorted(members, key=lambda v: -rank[v])
        paid.update(members[:pay])
    if spec.token_paid and not any(token[v] for v in paid):
        best, best_paid = None, None
        for t in kept:      # force one tokened city in, in place of the weakest paid node of its row
            r = row[t]
            if not token[t] or row_pay[r] == 0:
                continue
            weakest = min((v for v in paid if row[v] == r), key=lambda v: rank[v])
            total = sum(rank[v] for v in paid) - rank[weakest] + rank[t]
            if best is None or total > best:
                best, best_paid = total, (paid - {weakest}) | {t}
        if best_paid is None:
            return None
        paid = best_paid
    revenue = sum(value[v] for v in paid)
    lines: dict[str, int] = {}
    for v in paid:
        for name, amount in spec.bonus_names.get(v, ()):
            lines[name] = lines.get(name, 0) + amount
    for name, amount in route_bonuses(spec, nodes):
        revenue += amount
        lines[name] = lines.get(name, 0) + amount
    return RoutePrice(revenue, [(v, worth[v], v in paid) for v in nodes], list(lines.items()),
                      sum(sub[v] for v in paid), sum(1 for v in paid if sub[v]))


def chain_hex_walk(chain: Chain) -> list[str]:
    """The hexes a chain walks through from node a to node b, each once per visit (18xx.games: a route
    that leaves a hex and comes back to it re-enters it)."""
    walk: list[str] = []
    for hex_name, _ in chain.paths:
        if not walk or walk[-1] != hex_name:
            walk.append(hex_name)
    return walk
