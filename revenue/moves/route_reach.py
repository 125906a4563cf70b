"""The hexes some route of a company's trains may touch: an over-approximation from the solver's own problem
(revenue.problem: the track graph's chains, the company's token cities, the cities it may not pass, each
train type's visit limits), cheap beside a solve.

A route holds a token city and visits at most its train's visit limit of the nodes its limited distance
rows count; from a token city, a walk over chains that adds each node's visit cost within that limit
reaches every node and chain of every route. The walk is generous where the route rules are subtle: a
node of a merge group, one of a row without a binding limit (or spilling into one) and one the train may
not visit cost nothing, a terminal path only stops a walk at the node it ends at, and the bypass of a
blocked city is never used up. So a hex outside the set is touched by no route: a lay there, when it was
outside before the lay too, leaves every route, and the best run, as they were (value.py).
"""
from __future__ import annotations

import heapq

import numpy as np

from ..core.walk import TERM_THERE
from ..problem import Problem


def route_hexes(problem: Problem | None) -> set[str]:
    """The names of the hexes some route of the problem's company may touch (its nodes' hexes and the hexes
    of the chains between them); empty when it has no train (None) or no token city."""
    if problem is None:
        return set()
    starts = np.flatnonzero(problem.token).tolist()
    if not starts:
        return set()
    touched_nodes: set[int] = set()
    touched_chains: set[int] = set()
    for spec in problem.specs.values():
        _walk(problem, spec, starts, touched_nodes, touched_chains)
    graph = problem.graph
    node_hex, names = graph.track.node_hex, graph.sides.names
    out = {names[int(node_hex[v])] for v in touched_nodes}
    for c in touched_chains:
        out.update(name for name, _ in graph.chain(c).paths)
    return out


def _walk(problem, spec, starts: list[int], nodes: set[int], chains: set[int]) -> None:
    """Add the nodes and chains a route of this train type may reach from the token cities `starts`."""
    n = problem.graph.n_nodes
    budget, counted = _limits(spec, n)
    row = spec.row
    cost = np.where(counted[np.maximum(row, 0)] & (row >= 0) & (spec.merge < 0), problem.cost, 0).tolist()
    passable = (~problem.blocks | (problem.bypassable & (spec.bypass > 0))).tolist()
    start, chain, other, flags = problem.graph.adjacency_arrays
    start, chain, other, flags = start.tolist(), chain.tolist(), other.tolist(), flags.tolist()
    best = [budget + 1] * n     # the least visit cost at which a walk reaches each node and may go on
    heap = []
    for t in starts:
        if cost[t] <= budget and cost[t] < best[t]:
            best[t] = cost[t]
            heap.append((cost[t], t))
    heapq.heapify(heap)
    while heap:
        used, v = heapq.heappop(heap)
        nodes.add(v)
        if used > best[v]:
            continue
        for e in range(start[v], start[v + 1]):
            w = other[e]
            after = used + cost[w]
            if after > budget:
                continue
            chains.add(chain[e])
            nodes.add(w)
            if flags[e] & TERM_THERE or not passable[w] or after >= best[w]:
                continue
            best[w] = after
            heapq.heappush(heap, (after, w))


def _limits(spec, n_nodes: int) -> tuple[int, np.ndarray]:
    """(the most visit cost a route may have in the rows whose limit binds, bool [rows]: whether a row's
    nodes count towards it). A row binds when its limit is below the nodes of the board and no row without
    a binding limit spills into it."""
    visit = spec.row_visit.tolist()
    binding = [v < n_nodes for v in visit]
    spill = [r for r in (spec.spill_from, spec.spill_to, spec.spill_next) if 0 <= r < len(visit)]
    if spec.spill_from >= 0 and not all(binding[r] for r in spill):
        for r in spill:
            binding[r] = False
    return sum(v for v, b in zip(visit, binding) if b), np.array(binding, dtype=np.bool_)
