"""The track as a route walk takes it: the problem's adjacency (CSR arrays of the chains leaving each node),
the nodes a route can reach, and the adjacency reordered (richest track first, or shuffled) or with
chains left out, for the heuristic's and the integer program's walks."""
from __future__ import annotations

import numpy as np

from ..core.track import reachable_nodes
from ..problem import Problem
from .memo import memo

NOISE = 0.5             # a restart's walks order the nodes by worth x uniform(1 - NOISE, 1 + NOISE)


def adjacency(problem: Problem):
    """CSR arrays of the chains leaving each node, with the terminal flags seen from that node (built
    with the graph, revenue.core.track.chain_arrays)."""
    return problem.graph.adjacency_arrays


def reachable(problem: Problem) -> np.ndarray:
    """Nodes that some route through a token city can reach: beyond the token, a walk continues only
    through nodes the company may pass (a blocked node can end a route, never be passed); computed once
    per problem."""
    derived = memo(problem)
    if derived.reachable is None:
        adj_start, _, adj_other, _ = adjacency(problem)
        specs = problem.specs
        bypass = max([spec.bypass for spec in specs.values()], default=0) if len(specs) != 1 else \
            next(iter(specs.values())).bypass
        derived.reachable = reachable_nodes(adj_start, adj_other, problem.token, problem.blocks, problem.bypassable,
                                            bypass)
    return derived.reachable


def sorted_adjacency(problem: Problem, train: str, adj) -> tuple[np.ndarray, ...]:
    """The adjacency with each node's chains ordered by the value, for this train, of the node they lead
    to (richest first); computed once per problem and train type."""
    derived = memo(problem).sorted_adjacency
    if train not in derived:
        start, chain, other, flags = adj
        spec = problem.specs[train]
        worth = np.where(spec.row >= 0, spec.base + spec.bonus, -1)
        source = np.repeat(np.arange(len(start) - 1), np.diff(start))
        order = np.lexsort((-worth[other], source))
        derived[train] = (start, chain[order], other[order], flags[order])
    return derived[train]


def shuffled_adjacency(problem: Problem, train: str, adj, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """The adjacency with each node's chains ordered by the worth of the node they lead to times a random
    factor (a restart's walk: other rich track first than sorted_adjacency's)."""
    start, chain, other, flags = adj
    spec = problem.specs[train]
    worth = np.where(spec.row >= 0, spec.base + spec.bonus, -1) * rng.uniform(1 - NOISE, 1 + NOISE, len(start) - 1)
    source = np.repeat(np.arange(len(start) - 1), np.diff(start))
    order = np.lexsort((-worth[other], source))
    return start, chain[order], other[order], flags[order]


def without_keys(adj, chain_keys: np.ndarray, used: np.ndarray) -> tuple[np.ndarray, ...]:
    """The adjacency without the chains that share a track key with `used`."""
    start, chain, other, flags = adj
    if not used.any():
        return adj
    keep = ~(chain_keys[chain] & used).any(axis=1)
    source = np.repeat(np.arange(len(start) - 1), np.diff(start))
    new_start = np.zeros(len(start), dtype=np.int64)
    np.cumsum(np.bincount(source[keep], minlength=len(start) - 1), out=new_start[1:])
    return new_start, chain[keep], other[keep], flags[keep]


def only_chains(adj, chains: list[int]) -> tuple[np.ndarray, ...]:
    """The adjacency with only `chains` left: a walk on it meets the routes made of them."""
    start, chain, other, flags = adj
    keep = np.isin(chain, np.asarray(chains, dtype=np.int64))
    source = np.repeat(np.arange(len(start) - 1), np.diff(start))
    new_start = np.zeros(len(start), dtype=np.int64)
    np.cumsum(np.bincount(source[keep], minlength=len(start) - 1), out=new_start[1:])
    return new_start, chain[keep], other[keep], flags[keep]

