"""Route-local moves for the heuristic (revenue.optimizer.moves.detour_moves): for one route of a run, the richest
detours found by a bounded depth-first walk over the chains, as for longest-path problems.

A route is its nodes v_0 .. v_k and the chains c_1 .. c_k (c_m joins v_{m-1} and v_m). From each v_i the walk
leaves by chains that share no key with `taken` (the other trains' track) nor with c_1 .. c_i, through nodes
the route does not visit, at most `max_depth` chains and `max_steps` steps; it meets
- a route node v_m (m > i): the stretch v_i .. v_m is replaced by the detour (when its keys miss those of
  c_{m+1} .. c_k), dropping v_{i+1} .. v_{m-1} (m = i + 1: a detour inserted between two consecutive stops);
- any other node w: the route ends there instead, dropping v_{i+1} .. v_k (i = k: the route is extended).
Per pair (i, m) (m = k + 1 for a new end) the detour of the largest gain in `worth` is kept, when the gain is
positive, the visits (`counts`) stay within `limit` and the new route keeps a token city. These are only
proposals: the caller walks each with the route kernel on its chains and combines the routes, so every rule
is applied there (revisited hexes, merged stops, bonuses, run rules); the estimate only orders them.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .signatures import B1, I, I1, I2, U1, U2, takes

TERM_HERE, TERM_THERE, TERM_INNER = 1, 2, 4


@njit(cache=True, nogil=True, inline="always")
def _keep(gain, length, detour, entry, g, d, st_chain, c):
    """Keep for `entry` the detour st_chain[1 .. d] then chain c when it gains more than the one kept."""
    if g > gain[entry]:
        gain[entry] = g
        length[entry] = d + 1
        for q in range(d):
            detour[entry, q] = st_chain[q + 1]
        detour[entry, d] = c


@takes(I1, I1, I1, I1, U2, I1, I1, B1, B1, B1, U1, I1, I1, I, I, I, I1, I1, I2)
@njit(cache=True, nogil=True)
def best_detours(adj_start, adj_chain, adj_other, adj_flags, chain_keys, worth, counts, usable, through, token,
                 taken, nodes, chains, limit, max_depth, max_steps, gain, length, detour):
    """Fill gain [(k + 1) * (k + 2)], length [same] and detour [same, max_depth] (see the module): entry
    i * (k + 2) + m is the best detour from v_i to v_m (m = k + 1: to a new end), its chains
    detour[entry, :length[entry]], or gain 0 when none gains. Returns the steps walked."""
    n = adj_start.shape[0] - 1
    words = chain_keys.shape[1]
    k = nodes.shape[0] - 1
    pos = np.full(n, -1, dtype=np.int64)
    for m in range(k + 1):
        pos[nodes[m]] = m
    # prefix (c_1 .. c_i) and suffix (c_{m+1} .. c_k) keys, worth and visits up to v_m, tokens
    prefix = np.zeros((k + 1, words), dtype=np.uint64)
    suffix = np.zeros((k + 1, words), dtype=np.uint64)
    for m in range(1, k + 1):
        for j in range(words):
            prefix[m, j] = prefix[m - 1, j] | chain_keys[chains[m - 1], j]
    for m in range(k - 1, -1, -1):
        for j in range(words):
            suffix[m, j] = suffix[m + 1, j] | chain_keys[chains[m], j]
    worth_to = np.zeros(k + 1, dtype=np.int64)
    count_to = np.zeros(k + 1, dtype=np.int64)
    token_to = np.zeros(k + 1, dtype=np.bool_)
    token_from = np.zeros(k + 2, dtype=np.bool_)
    for m in range(k + 1):
        v = nodes[m]
        worth_to[m] = worth[v] + (worth_to[m - 1] if m > 0 else 0)
        count_to[m] = counts[v] + (count_to[m - 1] if m > 0 else 0)
        token_to[m] = token[v] or (token_to[m - 1] if m > 0 else False)
    for m in range(k, -1, -1):
        token_from[m] = token[nodes[m]] or token_from[m + 1]
    gain[:] = 0
    length[:] = 0
    visited = np.zeros(n, dtype=np.bool_)
    st_node = np.empty(max_depth + 1, dtype=np.int64)
    st_it = np.empty(max_depth + 1, dtype=np.int64)
    st_keys = np.empty((max_depth + 1, words), dtype=np.uint64)
    st_worth = np.empty(max_depth + 1, dtype=np.int64)
    st_count = np.empty(max_depth + 1, dtype=np.int64)
    st_token = np.empty(max_depth + 1, dtype=np.bool_)
    st_chain = np.empty(max_depth + 1, dtype=np.int64)
    total = 0
    for i in range(k + 1):
        for m in range(k + 1):
            visited[nodes[m]] = m <= i
        d = 0
        st_node[0] = nodes[i]
        st_it[0] = adj_start[nodes[i]]
        for j in range(words):
            st_keys[0, j] = taken[j] | prefix[i, j]
        st_worth[0] = 0
        st_count[0] = 0
        st_token[0] = False
        steps = 0
        while d >= 0:
            v = st_node[d]
            if st_it[d] >= adj_start[v + 1] or steps >= max_steps:
                if d > 0:
                    visited[v] = False
                d -= 1
                continue
            e = st_it[d]
            st_it[d] += 1
            steps += 1
            w = adj_other[e]
            f = adj_flags[e]
            c = adj_chain[e]
            if (f & TERM_INNER) or not usable[w] or visited[w]:
                continue
            if (f & TERM_HERE) and (d > 0 or i > 0):
                continue        # the chain ends the route at v, which the route passes
            clash = False
            for j in range(words):
                if st_keys[d, j] & chain_keys[c, j]:
                    clash = True
                    break
            if clash:
                continue
            m = pos[w]
            if m >= 0:          # back on the route: replace v_i .. v_m
                if (d == 0 and m == i + 1) or ((f & TERM_THERE) and m < k):
                    continue
                for j in range(words):
                    if (st_keys[d, j] | chain_keys[c, j]) & suffix[m, j]:
                        clash = True
                        break
                visits = count_to[k] - (count_to[m - 1] - count_to[i]) + st_count[d]
                if clash or visits > limit or not (token_to[i] or st_token[d] or token_from[m]):
                    continue
                _keep(gain, length, detour, i * (k + 2) + m, st_worth[d] - (worth_to[m - 1] - worth_to[i]), d,
                      st_chain, c)
                continue
            new_worth = st_worth[d] + worth[w]
            new_count = st_count[d] + counts[w]
            new_token = st_token[d] or token[w]
            if count_to[i] + new_count <= limit and (token_to[i] or new_token):
                _keep(gain, length, detour, i * (k + 2) + k + 1, new_worth - (worth_to[k] - worth_to[i]), d,
                      st_chain, c)
            # (a detour of at most max_depth chains: one more frame while it has room for another)
            if d < max_depth - 1 and through[w] and not (f & TERM_THERE) and count_to[i] + new_count < limit:
                d += 1
                st_node[d] = w
                st_it[d] = adj_start[w]
                for j in range(words):
                    st_keys[d, j] = st_keys[d - 1, j] | chain_keys[c, j]
                st_worth[d] = new_worth
                st_count[d] = new_count
                st_token[d] = new_token
                st_chain[d] = c
                visited[w] = True
        total += steps
    return total
