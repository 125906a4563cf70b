"""The exact search within a memory cap, and the bound that holds whatever was left out.

When the routes of a board are too many to enumerate at once, the search (search.Search) first finds a
heuristic run worth `best` (heuristic), then walks every route but stores only those that could be part
of a better run: a route of train i earning r can only if r plus every other train's
best route beats `best`, so routes earning at most `best - sum of the others' bounds` (the floor) are
counted, not stored. When the stored routes would pass the cap anyway, the walk drops the weaker half
of them and raises its floor (core.walk._compact).

Whatever was left out, every run either uses stored routes only, which the combination search bounds,
or uses a left-out route of some train i, earning at most floor_i plus the other trains' bounds; the
larger of the two is a valid bound (run_bound), and when the best run found reaches it, it is proved.
"""
from __future__ import annotations

from ..problem import Problem

STORE_SHARE = 0.6         # of the memory cap, for the route arrays; the rest for what is built from them
CAPPED_NODES_PER_ROUTE = 16   # room for route nodes per route in a capped walk's arrays (a guess of the average)
MIN_ROUTES = 4096


def route_bytes(problem: Problem) -> int:
    """Memory one stored route takes, from its walk to the combination search: revenue, keys, flags and
    offsets (stored, sorted, concatenated), its nodes and chains, its bit in each key's bitmap."""
    words = problem.words
    fixed = 8 * (5 + words)
    node_words = (problem.graph.n_nodes + 63) // 64 if problem.run.connected else 0
    return 3 * fixed + words * 64 // 8 + 16 * CAPPED_NODES_PER_ROUTE + 8 * node_words


def capacity(problem: Problem, memory_mb: float, walked: int, stored: int = 0) -> tuple[int, int]:
    """(routes, route nodes) each of `walked` train types still to walk may store within `memory_mb`
    for the whole search, `stored` routes being kept already (a walk that needed less leaves the rest
    to the walks after it)."""
    per_route = route_bytes(problem)
    budget = (memory_mb * 2**20 * STORE_SHARE - stored * per_route) / max(walked, 1)
    routes = max(MIN_ROUTES, int(budget // per_route))
    return routes, routes * CAPPED_NODES_PER_ROUTE


def walk_order(names: list[str], bounds: dict[str, int]) -> list[str]:
    """Train types to walk, each by itself: the ones with the lowest bound first (short trains are
    walked quickly, and their exact best raises the floors of the others)."""
    return sorted(names, key=lambda n: (bounds[n], n))


def floor(problem: Problem, name: str, best: int, upper: dict[str, int]) -> int:
    """The floor of the walk of train type `name`: its routes earning no more cannot be part of a run
    worth more than `best` (`upper`: each type's bound on its routes)."""
    trains = [t.name for t in problem.company.trains]
    total = sum(upper[t] for t in trains)
    return max(-1, best - (total - upper[name])) if name in trains else -1


def run_bound(problem: Problem, sets: dict, upper: dict[str, int], combined: int | None,
              shared: dict[str, int] | None = None, joint: int | None = None) -> int:
    """A bound on every run: the sum of the trains' bounds (the trains of a type together at most
    `shared`: relax.shared_bounds; all of them at most `joint`: relax.joint_bound)
    until the combination search has started; then the larger of its bound over the stored routes
    (`combined`) and, for each train whose routes were not all stored, its floor plus the other trains'
    bounds, and never above the first."""
    trains = [t.name for t in problem.company.trains]
    total = sum(upper[t] for t in trains)
    together = total
    for name, most in (shared or {}).items():
        k = trains.count(name)
        together -= max(0, k * upper[name] - most)
    if joint is not None:
        together = min(together, joint)
    if combined is None:
        return together
    bound = combined
    for t in trains:
        routes = sets.get(t)
        missing = upper[t] if routes is None or not routes.complete else routes.floor
        if missing >= 0:
            bound = max(bound, missing + total - upper[t])
    return min(bound, together)
