"""Which nodes a route can pass through, and which it can only end at: what the run bounds of
revenue.optimizer.relax read from the track (a route is a path, so it has two ends; every other node it visits
it enters and leaves by two chains that share no track key).

A node's *exits* are its chains towards nodes a route may visit, grouped so that the chains of one group
share a track key (the hex side or the in-hex path they leave by): a route, or a run of routes that
share no key, leaves a node at most once per group. The groups are made greedily (a chain joins the
first group whose common keys it shares), so their count is at least the most key-disjoint exits: an
upper limit, which is what a bound needs.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .signatures import B, B1, I, I1, U1, U2, takes

TERM_HERE, TERM_INNER = 1, 4


@takes(I1, I1, I1, I1, U2, B1, U1, B)
@njit(cache=True, nogil=True)
def exit_groups(adj_start, adj_chain, adj_other, adj_flags, chain_keys, visitable, used, passing):
    """Per node, the number of exit groups among its chains to `visitable` nodes that share no key with
    `used` (uint64 [words]: keys already taken), leaving out chains terminal inside (no route takes
    them) and, when `passing`, those terminal at the node (a route ends where it takes one)."""
    n = adj_start.shape[0] - 1
    words = chain_keys.shape[1]
    out = np.zeros(n, dtype=np.int64)
    common = np.empty((64, words), dtype=np.uint64)
    for v in range(n):
        if not visitable[v]:
            continue
        groups = 0
        for e in range(adj_start[v], adj_start[v + 1]):
            if not visitable[adj_other[e]] or (adj_flags[e] & TERM_INNER) or (passing and adj_flags[e] & TERM_HERE):
                continue
            c = adj_chain[e]
            free = True
            for j in range(words):
                if chain_keys[c, j] & used[j]:
                    free = False
                    break
            if not free:
                continue
            joined = False
            for g in range(min(groups, 64)):
                shares = False
                for j in range(words):
                    if common[g, j] & chain_keys[c, j]:
                        shares = True
                        break
                if shares:
                    for j in range(words):
                        common[g, j] &= chain_keys[c, j]
                    joined = True
                    break
            if not joined:
                if groups < 64:
                    for j in range(words):
                        common[groups, j] = chain_keys[c, j]
                groups += 1
        out[v] = groups
    return out


@takes(I1, I1, I1, I1, U2, B1, B1, B1, I)
@njit(cache=True, nogil=True)
def passable_nodes(adj_start, adj_chain, adj_other, adj_flags, chain_keys, visitable, blocks, bypassable, bypass):
    """bool [nodes]: nodes some route may pass through (two exit groups, and not blocked unless a
    blocked city may be bypassed). A route visits at most two other nodes: its ends."""
    used = np.zeros(chain_keys.shape[1], dtype=np.uint64)
    # (np.bool_: a bool as revenue.relax passes, not a literal: one compiled signature)
    groups = exit_groups(adj_start, adj_chain, adj_other, adj_flags, chain_keys, visitable, used, np.bool_(True))
    out = np.zeros(groups.shape[0], dtype=np.bool_)
    for v in range(groups.shape[0]):
        out[v] = visitable[v] and groups[v] >= 2 and (not blocks[v] or (bypass > 0 and bypassable[v]))
    return out
