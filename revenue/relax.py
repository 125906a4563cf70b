"""Upper bounds that hold before any route is found: what one train of a type could earn at most.

A route of a train pays, per distance row, at most `pay` of its stops (plus what RouteRules.spill lends
from another row), each worth at most its value with the alternative multiplier, plus every positive
route bonus. So the best `pay` values among the nodes some route can reach (revenue.solve.reachable),
row by row, bound every route of the train: merged stops, the token rule and the visit limits only
lower a route's revenue. The sum over the company's trains bounds every run, since trains share nodes
but each is priced by itself. With subsidies (1860's halts) the same holds of the kernels' scores.
"""
from __future__ import annotations

import numpy as np

from .problem import Problem, TrainSpec, kernel_values


def route_bound(problem: Problem, spec: TrainSpec, allowed: np.ndarray, weights: tuple[int, int] = (1, 0)) -> int:
    """An upper bound on the score (revenue.problem.objective_weights; the revenue unless some node pays a
    subsidy) of any legal route of this train type: per distance row, the best k values among the
    reachable nodes of the row, k being the fewer of the stops it pays (with all a spill may lend it)
    and the stops it can visit (its visit limit over the least visit cost, plus the nodes that cost
    nothing)."""
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
    total = 0
    for r, k in enumerate(pay):
        members = allowed & (spec.row == r)
        cost = problem.cost[members]
        free = int((cost <= 0).sum())
        if (cost > 0).any():
            k = min(k, free + max(visit[r], 0) // int(cost[cost > 0].min()))
        values = np.sort(worth[members])[::-1]
        total += int(values[:max(k, 0)].sum())
    return total + int(np.maximum(rule_amount, 0).sum())


def type_bounds(problem: Problem, allowed: np.ndarray, weights: tuple[int, int] = (1, 0)) -> dict[str, int]:
    """route_bound of each train type of the company, in the kernels' scores for `weights` (computed once
    per problem and weights)."""
    key = ("route bounds", weights)
    if key not in problem.derived:
        problem.derived[key] = {name: route_bound(problem, spec, allowed, weights)
                                for name, spec in problem.specs.items()}
    return problem.derived[key]
