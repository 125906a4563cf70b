"""Upper bounds that hold before any route is found: what one train of a type could earn at most.

A route of a train pays, per distance row, at most `pay` of its stops (plus what RouteRules.spill lends
from another row), each worth at most its value with the alternative multiplier, plus every positive
route bonus. So the best `pay` values among the nodes some route can reach (revenue.solve.reachable),
row by row, bound every route of the train: merged stops, the token rule and the visit limits only
lower a route's revenue. The sum over the company's trains bounds every run, since trains share nodes
but each is priced by itself.
"""
from __future__ import annotations

import numpy as np

from .problem import Problem, TrainSpec


def route_bound(problem: Problem, spec: TrainSpec, allowed: np.ndarray) -> int:
    """An upper bound on the revenue of any legal route of this train type: per distance row, the best
    k values among the reachable nodes of the row, k being the fewer of the stops it pays and the stops
    it can visit (its visit limit over the least visit cost, plus the nodes that cost nothing)."""
    multiplier = np.maximum(spec.alt_mult, 1) if spec.alt_end.any() else np.ones_like(spec.alt_mult)
    worth = np.maximum(spec.base * multiplier + spec.bonus, 0)
    pay = [int(p) for p in spec.row_pay]
    visit = [int(v) for v in spec.row_visit]
    if spec.spill_from >= 0:
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
    return total + int(np.maximum(spec.rule_amount, 0).sum())


def type_bounds(problem: Problem, allowed: np.ndarray) -> dict[str, int]:
    """route_bound of each train type of the company (computed once per problem)."""
    key = ("route bounds",)
    if key not in problem.derived:
        problem.derived[key] = {name: route_bound(problem, spec, allowed) for name, spec in problem.specs.items()}
    return problem.derived[key]
