"""Upper bounds that hold before any route is found: what one train of a type could earn at most.

A route of a train pays, per distance row, at most `pay` of its stops (plus what RouteRules.spill lends
from another row), each worth at most its value with the alternative multiplier, plus every positive
route bonus. So the best `pay` values among the nodes some route can reach (adjacency.reachable), row
by row, bound every route of the train: merged stops, the token rule and the visit limits only lower a
route's revenue. A route is a path: it has two ends, and passes every other node it visits,
which a blocked city, or a node without two exits that share no track key, does not allow
(revenue.core.exits): of those *end-only* nodes a route counts two at most. The sum over the company's
trains bounds every run, since trains share nodes but each is priced by itself. With subsidies (1860's
halts) the same holds of the kernels' scores.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..core.exits import exit_groups, passable_nodes
from ..problem import Problem, TrainSpec, kernel_values
from .adjacency import adjacency
from .memo import memo

END_ONLY_MOST = 2     # end-only nodes of one route: its two ends
NONE = -(1 << 50)     # a knapsack state no choice reaches


def worth_and_stops(problem: Problem, spec: TrainSpec, allowed: np.ndarray, weights: tuple[int, int]):
    """(worth [nodes], stops [rows], bonus): the most each node can pay this train type as a stop, the
    most stops each distance row can pay (the fewer of the stops it pays, with all a spill may lend it,
    and the stops it can visit: its visit limit over the least visit cost, plus the nodes that cost
    nothing), and the route bonuses it can earn, in the kernels' scores for `weights`."""
    scored = kernel_values(spec, weights)     # the kernels' scores, when some node pays a subsidy
    base, bonus = scored.get("base", spec.base), scored.get("bonus", spec.bonus)
    rule_amount = scored.get("rule_amount", spec.rule_amount)
    multiplier = np.maximum(spec.alt_mult, 1) if spec.alt_end.any() else np.ones_like(spec.alt_mult)
    worth = np.maximum(base * multiplier + bonus, 0)
    pay = [int(p) for p in spec.row_pay]
    visit = [int(v) for v in spec.row_visit]
    if spec.spill_from >= 0:
        if spec.spill_next >= 0:
            pay[spec.spill_next] += pay[spec.spill_to] + pay[spec.spill_from]
        pay[spec.spill_to] += pay[spec.spill_from]
        visit[spec.spill_to] += visit[spec.spill_from]
    stops = []
    for r, k in enumerate(pay):
        cost = problem.cost[allowed & (spec.row == r)]
        free = int((cost <= 0).sum())
        if (cost > 0).any():
            k = min(k, free + max(visit[r], 0) // int(cost[cost > 0].min()))
        stops.append(max(k, 0))
    return worth, stops, int(np.maximum(rule_amount, 0).sum())


def route_bound(problem: Problem, spec: TrainSpec, allowed: np.ndarray, weights: tuple[int, int] = (1, 0),
                ends_apart: bool = False) -> int:
    """An upper bound on the score (revenue.problem.objective_weights; the revenue unless some node pays a
    subsidy) of any legal route of this train type: per distance row, the best k values among the
    reachable nodes of the row (k: worth_and_stops); with `ends_apart`, two end-only nodes at most
    among all rows (passable: tighter on large boards, and a few times the cost)."""
    worth, stops, bonus = worth_and_stops(problem, spec, allowed, weights)
    if not ends_apart:
        return sum(int(np.sort(worth[allowed & (spec.row == r)])[::-1][:k].sum()) for r, k in enumerate(stops)) + bonus
    through = passable(problem, allowed)
    # best[e]: the most the rows so far pay with e end-only nodes among their stops
    best = [0] + [-1] * END_ONLY_MOST
    for r, k in enumerate(stops):
        members = allowed & (spec.row == r)
        inner = np.sort(worth[members & through])[::-1]
        ends = np.sort(worth[members & ~through])[::-1]
        row_best = [int(np.sort(np.concatenate([inner, ends[:e]]))[::-1][:k].sum()) for e in range(END_ONLY_MOST + 1)]
        best = [max((best[a] + row_best[e - a] for a in range(e + 1) if best[a] >= 0), default=-1)
                for e in range(END_ONLY_MOST + 1)]
    return max(best) + bonus


def shared_track_bound(problem: Problem, spec: TrainSpec, trains: int, allowed: np.ndarray,
                       weights: tuple[int, int] = (1, 0)) -> int | None:
    """An upper bound on what `trains` trains of this type earn together when no stop limit binds them
    (every row can pay all its reachable nodes; else None): the trains share no track, so at a node
    with s exit groups their visits take s exits at most, two for each train passing it and one for
    each ending there, and each train has two ends. So a node pays at most min(trains, e + (s - e) // 2)
    visits with e ends there (only ends where no route may pass), and the ends number 2 x trains at
    most: the best choice of where the ends go, node by node (a knapsack over the ends)."""
    worth, stops, bonus = worth_and_stops(problem, spec, allowed, weights)
    visitable = allowed & (spec.row >= 0)
    for r, k in enumerate(stops):
        if k < int((visitable & (spec.row == r)).sum()):
            return None
    through = passable(problem, allowed)
    exits = exit_counts(problem, allowed)
    most_ends = 2 * trains
    best = np.full(most_ends + 1, -1, dtype=np.int64)
    best[0] = 0
    for v in np.nonzero(visitable)[0]:
        s, w = int(exits[v]), int(worth[v])
        gain = [w * min(trains, e + (s - e) // 2 if through[v] else e) for e in range(min(trains, s, most_ends) + 1)]
        nxt = best.copy()
        for used in range(most_ends + 1):
            if best[used] < 0:
                continue
            for e in range(1, len(gain)):
                if used + e <= most_ends:
                    nxt[used + e] = max(nxt[used + e], best[used] + gain[e])
            nxt[used] = max(nxt[used], best[used] + gain[0])
        best = nxt
    return int(best.max()) + trains * bonus


def shared_bounds(problem: Problem, allowed: np.ndarray, weights: tuple[int, int] = (1, 0)) -> dict[str, int]:
    """shared_track_bound of each train type the company owns several of, where it applies (computed
    once per problem and weights)."""
    derived = memo(problem).shared_bounds
    if weights not in derived:
        counts: dict[str, int] = {}
        for t in problem.company.trains:
            counts[t.name] = counts.get(t.name, 0) + 1
        out = {}
        for name, k in counts.items():
            shared = shared_track_bound(problem, problem.specs[name], k, allowed, weights) if k > 1 else None
            if shared is not None:
                out[name] = shared
        derived[weights] = out
    return derived[weights]


def joint_bound(problem: Problem, allowed: np.ndarray, weights: tuple[int, int] = (1, 0)) -> int | None:
    """A bound on every run of the company, from the track the trains share between them: at a node
    with s exit groups all trains' visits take s exits at most (two for each train passing it, one for
    each ending there), each train has two ends and visits a node once, and the trains of a type with a
    stop limit k visit k nodes each at most. The best choice node by node of how many trains of each
    type pass and end there (a knapsack over the ends and the limited types' stops) bounds the run.
    Applies when every type pays the same for a node and has one distance row holding every node it
    may visit, each costing one stop (the custom title's n-stop trains); else None. Computed once per
    problem and weights."""
    derived = memo(problem).joint_bound
    if weights in derived:
        return derived[weights]
    counts: dict[str, int] = {}
    for t in problem.company.trains:
        counts[t.name] = counts.get(t.name, 0) + 1
    worth = None
    visitable = allowed & np.any([spec.row >= 0 for spec in problem.specs.values()], axis=0)
    groups, bonus = [], 0          # (trains, most stops of them all or None)
    for name, k in counts.items():
        spec = problem.specs[name]
        w, stops, extra = worth_and_stops(problem, spec, allowed, weights)
        rows = set(spec.row[visitable].tolist())
        if len(rows) != 1 or -1 in rows or (problem.cost[visitable] != 1).any() or (
                worth is not None and not np.array_equal(w[visitable], worth[visitable])):
            derived[weights] = None
            return None
        worth = w
        limit = stops[rows.pop()]
        groups.append((k, None if limit >= int(visitable.sum()) else k * limit))
        bonus += k * extra
    through = passable(problem, allowed)
    exits = exit_counts(problem, allowed)
    most_ends = 2 * sum(k for k, _ in groups)
    choices: dict[tuple[bool, int], list] = {}

    def node_choices(can_pass: bool, s: int) -> list:
        """Per type (passing, ending) trains at a node with s exit groups: every choice that fits."""
        if (can_pass, s) not in choices:
            per = [[(p, e) for p in range(k + 1) for e in range(k + 1 - p) if can_pass or p == 0] for k, _ in groups]
            choices[(can_pass, s)] = [c for c in itertools.product(*per) if sum(2 * p + e for p, e in c) <= s]
        return choices[(can_pass, s)]

    # paid[ends, stops of each limited type]: the most the nodes so far pay (NONE: not reachable)
    limited = [most for _, most in groups if most is not None]
    paid = np.full([most_ends + 1] + [most + 1 for most in limited], NONE, dtype=np.int64)
    paid[(0,) * paid.ndim] = 0
    for v in np.nonzero(visitable)[0]:
        value = int(worth[v])
        nxt = paid.copy()
        for choice in node_choices(bool(through[v]), int(exits[v])):
            shift = [sum(e for _, e in choice)] + [p + e for (p, e), (_, most) in zip(choice, groups)
                                                   if most is not None]
            visits = sum(p + e for p, e in choice)
            if visits == 0 or any(d > n - 1 for d, n in zip(shift, paid.shape)):
                continue
            target = tuple(slice(d, None) for d in shift)
            source = tuple(slice(0, n - d) for d, n in zip(shift, paid.shape))
            np.maximum(nxt[target], paid[source] + value * visits, out=nxt[target])
        paid = nxt
    derived[weights] = int(paid.max()) + bonus
    return derived[weights]


def exit_counts(problem: Problem, allowed: np.ndarray) -> np.ndarray:
    """int [nodes]: each reachable node's exit groups, chains terminal there included
    (revenue.core.exits.exit_groups), once per problem."""
    derived = memo(problem)
    if derived.exit_counts is None:
        start, chain, other, flags = adjacency(problem)
        visitable = allowed & np.any([spec.row >= 0 for spec in problem.specs.values()], axis=0)
        derived.exit_counts = exit_groups(start, chain, other, flags, problem.chain_keys, visitable,
                                          np.zeros(problem.words, dtype=np.uint64), False)
    return derived.exit_counts


def passable(problem: Problem, allowed: np.ndarray) -> np.ndarray:
    """bool [nodes]: the reachable nodes a route may pass through (revenue.core.exits.passable_nodes),
    computed once per problem."""
    derived = memo(problem)
    if derived.passable is None:
        start, chain, other, flags = adjacency(problem)
        visitable = allowed & np.any([spec.row >= 0 for spec in problem.specs.values()], axis=0)
        bypass = max((spec.bypass for spec in problem.specs.values()), default=0)
        derived.passable = passable_nodes(start, chain, other, flags, problem.chain_keys, visitable,
                                          problem.blocks, problem.bypassable, bypass)
    return derived.passable


def type_bounds(problem: Problem, allowed: np.ndarray, weights: tuple[int, int] = (1, 0),
                ends_apart: bool = False) -> dict[str, int]:
    """route_bound of each train type of the company, in the kernels' scores for `weights` (computed once
    per problem, weights and `ends_apart`)."""
    derived = memo(problem).type_bounds
    key = (weights, ends_apart)
    if key not in derived:
        derived[key] = {name: route_bound(problem, spec, allowed, weights, ends_apart)
                        for name, spec in problem.specs.items()}
    return derived[key]
