"""Upper bounds that hold before any route is found: what one train of a type could earn at most.

A route of a train pays, per distance row, at most `pay` of its stops (plus what RouteRules.spill lends
from another row), each worth at most its value with the alternative multiplier, plus every positive
route bonus. So the best `pay` values among the nodes some route can reach (revenue.solve.reachable),
row by row, bound every route of the train: merged stops, the token rule and the visit limits only
lower a route's revenue. A route is a path: it has two ends, and passes every other node it visits,
which a blocked city, or a node without two exits that share no track key, does not allow
(revenue.core.exits): of those *end-only* nodes a route counts two at most. The sum over the company's
trains bounds every run, since trains share nodes but each is priced by itself. With subsidies (1860's
halts) the same holds of the kernels' scores.
"""
from __future__ import annotations

import numpy as np

from .core.exits import passable_nodes
from .problem import Problem, TrainSpec, kernel_values

END_ONLY_MOST = 2     # end-only nodes of one route: its two ends


def route_bound(problem: Problem, spec: TrainSpec, allowed: np.ndarray, weights: tuple[int, int] = (1, 0)) -> int:
    """An upper bound on the score (revenue.problem.objective_weights; the revenue unless some node pays a
    subsidy) of any legal route of this train type: per distance row, the best k values among the
    reachable nodes of the row, k being the fewer of the stops it pays (with all a spill may lend it)
    and the stops it can visit (its visit limit over the least visit cost, plus the nodes that cost
    nothing), two end-only nodes at most among all rows (passable)."""
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
    through = passable(problem, allowed)
    # best[e]: the most the rows so far pay with e end-only nodes among their stops
    best = [0] + [-1] * END_ONLY_MOST
    for r, k in enumerate(pay):
        members = allowed & (spec.row == r)
        cost = problem.cost[members]
        free = int((cost <= 0).sum())
        if (cost > 0).any():
            k = min(k, free + max(visit[r], 0) // int(cost[cost > 0].min()))
        k = max(k, 0)
        inner = np.sort(worth[members & through])[::-1]
        ends = np.sort(worth[members & ~through])[::-1]
        row_best = [int(np.sort(np.concatenate([inner, ends[:e]]))[::-1][:k].sum()) for e in range(END_ONLY_MOST + 1)]
        best = [max((best[a] + row_best[e - a] for a in range(e + 1) if best[a] >= 0), default=-1)
                for e in range(END_ONLY_MOST + 1)]
    return max(best) + int(np.maximum(rule_amount, 0).sum())


def passable(problem: Problem, allowed: np.ndarray) -> np.ndarray:
    """bool [nodes]: the reachable nodes a route may pass through (revenue.core.exits.passable_nodes),
    computed once per problem."""
    if "passable" not in problem.derived:
        start, chain, other, flags = problem.graph.derived["adjacency"]
        visitable = allowed & np.any([spec.row >= 0 for spec in problem.specs.values()], axis=0)
        bypass = max((spec.bypass for spec in problem.specs.values()), default=0)
        problem.derived["passable"] = passable_nodes(start, chain, other, flags, problem.chain_keys, visitable,
                                                     problem.blocks, problem.bypassable, bypass)
    return problem.derived["passable"]


def type_bounds(problem: Problem, allowed: np.ndarray, weights: tuple[int, int] = (1, 0)) -> dict[str, int]:
    """route_bound of each train type of the company, in the kernels' scores for `weights` (computed once
    per problem and weights)."""
    key = ("route bounds", weights)
    if key not in problem.derived:
        problem.derived[key] = {name: route_bound(problem, spec, allowed, weights)
                                for name, spec in problem.specs.items()}
    return problem.derived[key]
