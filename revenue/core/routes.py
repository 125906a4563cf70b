"""Enumerate every legal route of one train type: a depth-first walk over chains (node-to-node track).

Arrays (built by revenue.solve from revenue.problem.Problem):
  adj_start[n+1], adj_chain[e], adj_other[e], adj_flags[e]: chains leaving each node (CSR); flags bit 0 =
    terminal path at the leaving end, bit 1 = at the far end, bit 2 = inside the chain
  chain_keys[c, w]: track-key bitsets; two chains of one run may not share a bit
  row[n] (-1 = this train may not visit), value[n] (paid value), cost[n] (visit cost), end_ok[n],
  token[n], blocks[n], groups[n] (bitmask), row_visit[r], row_pay[r], allowed[n] (reachable from a token)
Every route is found once (see enumerate_routes).
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


A_FRAME, B_ROOT, B_FRAME = 0, 1, 2


@njit(cache=True, nogil=True)
def enumerate_routes(adj_start, adj_chain, adj_other, adj_flags, chain_keys, row, value, cost, end_ok,
                     token, blocks, groups, row_visit, row_pay, allowed, stop, rev, rkeys, rstart, pnodes, pchains):
    """All legal routes, written into rev[R], rkeys[R, W], rstart[R+1] (offsets into pnodes/pchains: the
    nodes of each route and, per node after the first, the chain that reaches it). Returns (routes, nodes,
    stored, complete): when routes or nodes exceed the arrays given, only the first `stored` routes are
    written and the caller calls again with larger arrays (arrays are never reallocated here: that keeps the walk fast).
    `stop[0] != 0` (set by another thread) ends the walk early: complete = False.

    Every route holds a city with the company's token; it is found from the first such city T (by node
    number) as two arms leaving T: arm A, and for each state of A an arm B on the other side. B's first
    chain is numbered above A's, so each route is found once; earlier token cities are off limits.
    """
    n = adj_start.shape[0] - 1
    words = chain_keys.shape[1]
    n_rows = row_visit.shape[0]
    max_depth = n + 2
    # When every row pays all it may visit, a route earns the sum of its values: kept as we go.
    all_paid = True
    for r in range(n_rows):
        if row_pay[r] < row_visit[r]:
            all_paid = False
    vsum = np.zeros(max_depth, dtype=np.int64)
    node = np.empty(max_depth, dtype=np.int64)
    via = np.full(max_depth, -1, dtype=np.int64)
    kind = np.empty(max_depth, dtype=np.int64)
    it = np.empty(max_depth, dtype=np.int64)
    extend = np.empty(max_depth, dtype=np.bool_)     # may this arm go on from node[d]?
    launched = np.empty(max_depth, dtype=np.bool_)   # has this A frame started its B arm?
    keys = np.zeros((max_depth, words), dtype=np.uint64)
    usage = np.zeros((max_depth, n_rows), dtype=np.int64)
    grp = np.zeros(max_depth, dtype=np.int64)
    visited = np.zeros(n, dtype=np.bool_)
    scratch = np.empty(n + 1, dtype=np.int64)
    path = np.empty(max_depth, dtype=np.int64)
    vias = np.empty(max_depth, dtype=np.int64)

    cap, ncap = rev.shape[0], pnodes.shape[0]
    count = 0
    total = 0
    stored = 0
    rstart[0] = 0
    length = 0
    steps = 0
    complete = True

    for t in range(n):
        if not token[t] or not allowed[t] or row[t] < 0 or cost[t] > row_visit[row[t]]:
            continue
        if not complete:
            break
        for u in range(t):           # routes through an earlier token city were found from it
            if token[u]:
                visited[u] = True
        visited[t] = True
        d = 0
        node[0] = t
        via[0] = -1
        kind[0] = A_FRAME
        it[0] = adj_start[t]
        extend[0] = True
        launched[0] = True           # no B arm while A is empty
        keys[0, :] = 0
        usage[0, :] = 0
        usage[0, row[t]] = cost[t]
        grp[0] = groups[t]
        vsum[0] = value[t]
        a_top = 0                    # depth of A's last frame while a B arm is out
        a_first_term = False         # A's first chain is terminal at T: T must stay an end
        while d >= 0:
            steps += 1
            if steps % STOP_CHECK == 0 and stop[0] != 0:
                complete = False
                break
            k = kind[d]
            if k == A_FRAME and not launched[d]:
                launched[d] = True
                if not a_first_term:
                    a_top = d
                    d += 1
                    kind[d] = B_ROOT
                    node[d] = t
                    via[d] = -1
                    it[d] = adj_start[t]
                    extend[d] = True
                    keys[d, :] = keys[d - 1, :]
                    usage[d, :] = usage[d - 1, :]
                    grp[d] = grp[d - 1]
                    vsum[d] = vsum[d - 1]
                continue
            v = node[d]
            if not extend[d] or it[d] >= adj_start[v + 1]:
                if k != B_ROOT and d > 0:
                    visited[v] = False
                d -= 1
                continue
            e = it[d]
            it[d] += 1
            w = adj_other[e]
            f = adj_flags[e]
            c = adj_chain[e]
            if visited[w] or not allowed[w] or row[w] < 0 or (f & TERM_INNER):
                continue
            if k == B_ROOT:
                if c <= via[1] or (f & TERM_HERE):
                    continue         # B's first chain after A's; T is inside the route now
            elif d > 0 and (f & TERM_HERE):
                continue             # v would be inside the route
            if grp[d] & groups[w]:
                continue
            r = row[w]
            if usage[d, r] + cost[w] > row_visit[r]:
                continue
            clash = False
            for j in range(words):
                if keys[d, j] & chain_keys[c, j]:
                    clash = True
                    break
            if clash:
                continue
            nd = d + 1
            node[nd] = w
            via[nd] = c
            kind[nd] = A_FRAME if k == A_FRAME else B_FRAME
            it[nd] = adj_start[w]
            extend[nd] = not ((f & TERM_THERE) or blocks[w])
            launched[nd] = False
            for j in range(words):
                keys[nd, j] = keys[d, j] | chain_keys[c, j]
            for j in range(n_rows):
                usage[nd, j] = usage[d, j]
            usage[nd, r] += cost[w]
            grp[nd] = grp[d] | groups[w]
            vsum[nd] = vsum[d] + value[w]
            visited[w] = True
            if k == A_FRAME and d == 0:
                a_first_term = (f & TERM_HERE) != 0
            d = nd
            length = 0
            if kind[d] == A_FRAME:
                if end_ok[w] and end_ok[t]:          # the route T .. w
                    for i in range(d + 1):
                        path[i] = node[i]
                        vias[i] = via[i]
                    length = d + 1
            elif end_ok[w] and end_ok[node[a_top]]:  # the route w .. (B arm) .. T .. (A arm) .. A's end
                for i in range(d, a_top + 1, -1):    # B arm, from its end back to T
                    path[length] = node[i]
                    vias[length] = via[i + 1] if i < d else -1
                    length += 1
                path[length] = t
                vias[length] = via[a_top + 2]
                length += 1
                for i in range(1, a_top + 1):
                    path[length] = node[i]
                    vias[length] = via[i]
                    length += 1
            if length == 0:
                continue
            revenue = vsum[d] if all_paid else route_revenue(path, length - 1, row, value, token, row_pay, scratch)
            if revenue < 0:
                continue
            if count < cap and total + length <= ncap:
                for i in range(length):
                    pnodes[total + i] = path[i]
                    pchains[total + i] = vias[i]
                rev[count] = revenue
                for j in range(words):
                    rkeys[count, j] = keys[d, j]
                rstart[count + 1] = total + length
                stored += 1
            count += 1
            total += length
        for u in range(n):
            visited[u] = False
    return count, total, stored, complete
