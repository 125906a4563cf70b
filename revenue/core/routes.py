"""Enumerate every legal route of one train type: a depth-first walk over chains (node-to-node track).

Arrays (built by revenue.solve from revenue.problem.Problem):
  adj_start[n+1], adj_chain[e], adj_other[e], adj_flags[e]: chains leaving each node (CSR); flags bit 0 =
    terminal path at the leaving end, bit 1 = at the far end, bit 2 = inside the chain
  chain_keys[c, w]: track-key bitsets; two chains of one run may not share a bit
  row[n] (-1 = this train may not visit), value[n] (paid value), cost[n] (visit cost), end_ok[n],
  token[n], blocks[n], groups[n] (bitmask), row_visit[r], row_pay[r], allowed[n] (reachable from a token)
Every route is found once: from its lower-numbered end node.
"""
from __future__ import annotations

import numpy as np
from numba import njit

TERM_HERE, TERM_THERE, TERM_INNER = 1, 2, 4
STOP_CHECK = 4096   # steps between looks at the stop flag


@njit(cache=True, nogil=True)
def route_revenue(path, depth, row, value, token, row_pay, scratch):
    """The engine's stop choice: per row the best `pay` nodes are paid and at least one paid node holds
    the company's token. Returns -1 when no choice satisfies the token rule."""
    total = 0
    has_token = False
    n_rows = row_pay.shape[0]
    for r in range(n_rows):
        k = 0
        for i in range(depth + 1):
            v = path[i]
            if row[v] == r:
                scratch[k] = value[v]
                k += 1
        pay = row_pay[r]
        if k <= pay:
            for i in range(k):
                total += scratch[i]
            for i in range(depth + 1):
                if row[path[i]] == r and token[path[i]] and pay > 0:
                    has_token = True
        else:
            part = np.sort(scratch[:k])[::-1]
            threshold = part[pay - 1] if pay > 0 else 0
            for i in range(pay):
                total += part[i]
            for i in range(depth + 1):
                v = path[i]
                if row[v] == r and token[v] and pay > 0 and value[v] >= threshold:
                    has_token = True
    if has_token:
        return total
    # Swap a tokened city in for the weakest paid node of its row.
    best = -1
    for i in range(depth + 1):
        t = path[i]
        r = row[t]
        if not token[t] or row_pay[r] == 0:
            continue
        k = 0
        for j in range(depth + 1):
            if row[path[j]] == r:
                scratch[k] = value[path[j]]
                k += 1
        part = np.sort(scratch[:k])[::-1]
        weakest = part[row_pay[r] - 1]
        cand = total - weakest + value[t]
        if cand > best:
            best = cand
    return best


@njit(cache=True, nogil=True)
def _grow(a, size):
    out = np.empty((size,) + a.shape[1:], dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True, nogil=True)
def enumerate_routes(adj_start, adj_chain, adj_other, adj_flags, chain_keys, row, value, cost, end_ok,
                     token, blocks, groups, row_visit, row_pay, allowed, stop):
    """All legal routes. Returns (revenue[R], keys[R, W], start[R+1] into path_nodes/path_chains, path_nodes,
    path_chains, complete). `stop[0] != 0` (set by another thread) ends the walk early: complete = False."""
    n = adj_start.shape[0] - 1
    words = chain_keys.shape[1]
    n_rows = row_visit.shape[0]
    max_depth = n + 1
    path = np.empty(max_depth, dtype=np.int64)
    via = np.empty(max_depth, dtype=np.int64)
    it = np.empty(max_depth, dtype=np.int64)
    keys = np.zeros((max_depth, words), dtype=np.uint64)
    usage = np.zeros((max_depth, n_rows), dtype=np.int64)
    grp = np.zeros(max_depth, dtype=np.int64)
    tok = np.zeros(max_depth, dtype=np.int64)
    visited = np.zeros(n, dtype=np.bool_)
    scratch = np.empty(n + 1, dtype=np.int64)

    cap = 1024
    rev = np.empty(cap, dtype=np.int64)
    rkeys = np.empty((cap, words), dtype=np.uint64)
    rstart = np.zeros(cap + 1, dtype=np.int64)
    ncap = 4096
    pnodes = np.empty(ncap, dtype=np.int64)
    pchains = np.empty(ncap, dtype=np.int64)
    count = 0
    steps = 0
    complete = True

    for s in range(n):
        if not allowed[s] or row[s] < 0 or not end_ok[s] or cost[s] > row_visit[row[s]]:
            continue
        if not complete:
            break
        depth = 0
        path[0] = s
        visited[s] = True
        keys[0, :] = 0
        usage[0, :] = 0
        usage[0, row[s]] = cost[s]
        grp[0] = groups[s]
        tok[0] = 1 if token[s] else 0
        it[0] = adj_start[s]
        while depth >= 0:
            steps += 1
            if steps % STOP_CHECK == 0 and stop[0] != 0:
                complete = False
                for d in range(depth + 1):
                    visited[path[d]] = False
                break
            v = path[depth]
            if it[depth] >= adj_start[v + 1]:
                visited[v] = False
                depth -= 1
                continue
            e = it[depth]
            it[depth] += 1
            w = adj_other[e]
            f = adj_flags[e]
            if visited[w] or not allowed[w] or row[w] < 0:
                continue
            if f & TERM_INNER:
                continue
            if depth > 0 and (f & TERM_HERE):
                continue
            if grp[depth] & groups[w]:
                continue
            r = row[w]
            if usage[depth, r] + cost[w] > row_visit[r]:
                continue
            c = adj_chain[e]
            clash = False
            for k in range(words):
                if keys[depth, k] & chain_keys[c, k]:
                    clash = True
                    break
            if clash:
                continue
            d = depth + 1
            path[d] = w
            via[d] = c
            visited[w] = True
            for k in range(words):
                keys[d, k] = keys[depth, k] | chain_keys[c, k]
            for k in range(n_rows):
                usage[d, k] = usage[depth, k]
            usage[d, r] += cost[w]
            grp[d] = grp[depth] | groups[w]
            tok[d] = tok[depth] | (1 if token[w] else 0)
            depth = d
            if tok[d] and end_ok[w] and s < w:
                revenue = route_revenue(path, d, row, value, token, row_pay, scratch)
                if revenue >= 0:
                    if count == cap:
                        cap *= 2
                        rev = _grow(rev, cap)
                        rkeys = _grow(rkeys, cap)
                        rstart = _grow(rstart, cap + 1)
                    base = rstart[count]
                    if base + d + 1 > ncap:
                        ncap = max(ncap * 2, base + d + 1)
                        pnodes = _grow(pnodes, ncap)
                        pchains = _grow(pchains, ncap)
                    for i in range(d + 1):
                        pnodes[base + i] = path[i]
                        pchains[base + i] = via[i] if i > 0 else -1
                    rev[count] = revenue
                    rkeys[count, :] = keys[d, :]
                    rstart[count + 1] = base + d + 1
                    count += 1
            if (f & TERM_THERE) or blocks[w]:
                visited[w] = False      # an end only: a route may stop here but never pass through
                depth -= 1
            else:
                it[depth] = adj_start[w]
        visited[s] = False
    total_nodes = rstart[count]
    return (rev[:count].copy(), rkeys[:count].copy(), rstart[: count + 1].copy(),
            pnodes[:total_nodes].copy(), pchains[:total_nodes].copy(), complete)
