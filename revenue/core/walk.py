"""Enumerate every legal route of one train type: a depth-first walk over chains (node-to-node track).

Arrays (built by revenue.optimizer from revenue.problem.Problem):
  adj_start[n+1], adj_chain[e], adj_other[e], adj_flags[e]: chains leaving each node (CSR); flags bit 0 =
    terminal path at the leaving end, bit 1 = at the far end, bit 2 = inside the chain
  chain_keys[c, w]: track-key bitsets; two chains of one run may not share a bit
  cost[n] (visit cost), token[n] (holds the company's token), blocks[n] (may not be passed),
  allowed[n] (reachable from a token)
  spec: the train's arrays, in the order of core.pricing.SPEC_FIELDS
Every route is found once (see enumerate_routes).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .pricing import SPEC, UNDECIDED, best_rows_revenue, fits, price, priced_by_rows, rows_revenue, two_valued
from .signatures import B, B1, I1, I2, U2, takes
from .sort import _order_desc

TERM_HERE, TERM_THERE, TERM_INNER = 1, 2, 4
STOP_CHECK = 4096   # steps between looks at the stop flag
BYPASS_FLAG = 1     # route flag: passes a blocked city (revenue.titles.base.BYPASS_FLAG)
# enumerate_routes' child_visit, child_pay and child_rev when no child type is priced by the walk (every
# argument always passed, of one type: one compiled signature)
NO_CHILDREN = np.zeros((0, 0), dtype=np.int64)


@njit(cache=True, nogil=True)
def _merged_pair(path, length, merge):
    """Whether two consecutive nodes of path[:length] are of one merge group."""
    for i in range(1, length):
        if merge[path[i]] >= 0 and merge[path[i]] == merge[path[i - 1]]:
            return True
    return False


@njit(cache=True, nogil=True)
def walk_prices_children(spec, fast):
    """Whether enumerate_routes prices the routes of its child types itself (child_rev): the walk is
    priced by rows, so it keeps the rows' counts, sums and tokens, and no merge changes the usage."""
    (row, base, bonus, end_ok, groups, row_visit, row_pay, need, need_ends, alt_mult, alt_end, merge,
     merge_penalty, metro, rule_class, rule_amount, rule_set, rule_min, bypass, flag_on, spill_from, spill_to,
     no_reentry, spill_next, token_paid) = spec
    return not fast and priced_by_rows(need_ends, rule_amount, merge, alt_end, metro)


@njit(cache=True, nogil=True)
def _child_price(path, length, count, total, has_token, visit, pay, spec, token, cost, value, undecided, worth,
                 kept, scratch, row_count, row_sum, row_token):
    """refit_routes' price of the route path[:length] for a type with row limits visit and pay where
    rows_revenue did not decide it (`undecided`) or found no paid token, from the route's row counts,
    sums and tokens."""
    (row, base, bonus, end_ok, groups, row_visit, row_pay, need, need_ends, alt_mult, alt_end, merge,
     merge_penalty, metro, rule_class, rule_amount, rule_set, rule_min, bypass, flag_on, spill_from, spill_to,
     no_reentry, spill_next, token_paid) = spec
    revenue = -1
    if undecided:
        revenue = best_rows_revenue(path, length, row, value, token, count, total, has_token, pay, spill_from,
                                    spill_to, spill_next, token_paid, scratch)
    if revenue < 0:
        child = (row, base, bonus, end_ok, groups, visit, pay, need, need_ends, alt_mult, alt_end, merge,
                 merge_penalty, metro, rule_class, rule_amount, rule_set, rule_min, bypass, flag_on, spill_from,
                 spill_to, no_reentry, spill_next, token_paid)
        revenue = price(path, length, token, cost, child, worth, kept, scratch, row_count, row_sum, row_token)
    return revenue


@njit(cache=True, nogil=True)
def _compact(rev, rkeys, rflags, rstart, pnodes, pchains, stored, limits):
    """Keep the stored routes earning more than their median revenue, in order, and raise the floor
    limits[0] to that median (limits[2] counts the compactions). Returns how many are kept.

    When the median is also the best revenue stored, the floor is the best revenue below it (every route
    earning the best stays); when all earn the same, the first half of them stay and the floor is their
    revenue (routes at the floor may then be kept; every route left out still earns at most it). Else a
    walk that met hundreds of routes of one revenue, as on large boards, would keep none."""
    # (the revenues ranked by the route sorts' radix sort, best first: rev[order[stored - 1 - j]] is the j-th
    # lowest; Numba's np.sort would add its quicksort to compile)
    order = _order_desc(rev[:stored])
    floor = rev[order[stored - 1 - stored // 2]] if stored > 0 else limits[0]
    ties = 0
    if stored > 0 and floor == rev[order[0]]:
        below = 0       # routes earning less than the best
        for i in range(stored):
            if rev[i] < floor:
                below += 1
        if below > 0:
            floor = rev[order[stored - below]]
        else:
            ties = stored // 2
    if floor > limits[0]:
        limits[0] = floor
    limits[2] += 1
    m = 0
    at = 0
    for i in range(stored):
        if rev[i] < limits[0] or rev[i] == limits[0] and ties == 0:
            continue
        if rev[i] == limits[0]:
            ties -= 1
        a, b = rstart[i], rstart[i + 1]
        for k in range(b - a):
            pnodes[at + k] = pnodes[a + k]
            pchains[at + k] = pchains[a + k]
        rev[m] = rev[i]
        for j in range(rkeys.shape[1]):     # (element by element: an array copy compiles a shape check)
            rkeys[m, j] = rkeys[i, j]
        rflags[m] = rflags[i]
        rstart[m] = at
        at += b - a
        m += 1
    rstart[m] = at
    return m


A_FRAME, B_ROOT, B_FRAME = 0, 1, 2


@takes(I1, I1, I1, I1, U2, I1, B1, B1, B1, B1, I1, U2, I1, SPEC, B, B, I1, I1, U2, I1, I1, I1, I1, I1, B, I2, I2, I2)
@njit(cache=True, nogil=True)
def enumerate_routes(adj_start, adj_chain, adj_other, adj_flags, chain_keys, cost, token, blocks, bypassable,
                     allowed, node_hex, chain_hexes, chain_mode, spec, fast, from_ends, stop, rev, rkeys, rflags,
                     rstart, pnodes, pchains, limits, compact, child_visit, child_pay, child_rev):
    """All legal routes, written into rev[R], rkeys[R, W], rstart[R+1] (offsets into pnodes/pchains: the
    nodes of each route and, per node after the first, the chain that reaches it). Returns (routes, nodes,
    stored, complete): when routes or nodes exceed the arrays given, only the first `stored` routes are
    written and the caller calls again with larger arrays (arrays are never reallocated here: that keeps the walk fast).
    `stop[0] != 0` (set by another thread) ends the walk early: complete = False.
    limits[0] is a floor: only routes earning more are counted and stored; limits[1] gets the best
    revenue of any route met (stored or not). With `compact`, full arrays do not stop the storing: the
    stored routes earning at most their median are dropped and the floor raised to it (_compact), so the
    arrays hold the best routes and limits[0] bounds every route left out (revenue.optimizer.bounded). A walk
    ends unfinished after limits[3] steps (0: no limit); limits[4] gets the steps it took.

    Every route holds a city with the company's token; it is found from the first such city T (by node
    number) as two arms leaving T: arm A, and for each state of A an arm B on the other side. B's first
    chain is numbered above A's, so each route is found once; earlier token cities are off limits.
    With `from_ends` (a train whose routes must begin or end at one of a few `need` nodes, such as
    18Rhl's Rheingold-Express) routes are walked from those nodes instead, as one arm: every route
    is found from its required end (once: from the lower-numbered end when both ends qualify).
    With `fast` (every visited node paid, no route-level rules) a route earns the running sum of values.
    A route may pass up to `bypass` blocked cities (bypassable); rflags gets its flag bits.
    With `no_reentry` a route may not come back to a hex it left: node_hex[n] is each node's hex,
    chain_hexes[c] the hexes chain c passes between its ends' hexes, chain_mode[c] whether it stays in
    one hex (0), moves on (1) or re-enters a hex by itself (2) (Graph.hex_walks).

    child_visit and child_pay ([K, rows]: the row limits of K train types refit_routes would refit from
    this one's routes; K = 0, NO_CHILDREN, for none) with a walk priced by rows (walk_prices_children):
    child_rev[i, k] gets what stored route i earns as a route of type k, or -1 where refit_routes would
    leave it out: the row counts, sums and tokens the walk keeps at the route's end are the ones
    refit_routes adds up again.
    """
    (row, base, bonus, end_ok, groups, row_visit, row_pay, need, need_ends, alt_mult, alt_end, merge,
     merge_penalty, metro, rule_class, rule_amount, rule_set, rule_min, bypass, flag_on, spill_from, spill_to,
     no_reentry, spill_next, token_paid) = spec
    value = base + bonus
    n = adj_start.shape[0] - 1
    words = chain_keys.shape[1]
    n_rows = row_visit.shape[0]
    max_depth = n + 2
    vsum = np.zeros(max_depth, dtype=np.int64)     # running sum of values, for `fast`
    back = np.empty(max_depth, dtype=np.int64)
    # Of two merged consecutive stops only one counts, the first in the route's direction, which the walk
    # leaves open: usage leaves both out (counted[d]: what node[d] adds to it, taken back when the next
    # stop merges with it), and price() checks the exact usage. A stop that may merge with its next one
    # (mergeable: a neighbour of its merge group) may take usage over the limits as the arm's last node
    # (over[d]): then the arm goes on only to a stop that merges with it, and no route ends there. T's
    # cost, while B's first stop may merge with it, is out of A's usage (t_pend) and counts from B's root.
    has_merge = False
    mergeable = np.zeros(n, dtype=np.bool_)
    for v in range(n):
        if merge[v] >= 0:
            has_merge = True
            for e in range(adj_start[v], adj_start[v + 1]):
                if merge[adj_other[e]] == merge[v]:
                    mergeable[v] = True
    # Each distance row's stop count, value sum and tokens kept along the walk price most routes.
    by_rows = not fast and priced_by_rows(need_ends, rule_amount, merge, alt_end, metro)
    low, high = two_valued(row, value, n_rows)
    rcount = np.zeros((max_depth, n_rows), dtype=np.int64)
    rsum = np.zeros((max_depth, n_rows), dtype=np.int64)
    rtoken = np.zeros((max_depth, n_rows), dtype=np.bool_)
    mgrp = np.zeros(max_depth, dtype=np.int64)     # merge groups visited
    byp = np.zeros(max_depth, dtype=np.int64)      # blocked cities passed
    node = np.empty(max_depth, dtype=np.int64)
    via = np.full(max_depth, -1, dtype=np.int64)
    kind = np.empty(max_depth, dtype=np.int64)
    it = np.empty(max_depth, dtype=np.int64)
    extend = np.empty(max_depth, dtype=np.bool_)     # may this arm go on from node[d]?
    launched = np.empty(max_depth, dtype=np.bool_)   # has this A frame started its B arm?
    keys = np.zeros((max_depth, words), dtype=np.uint64)
    hex_words = chain_hexes.shape[1]
    hexes = np.zeros((max_depth, hex_words), dtype=np.uint64)   # hexes the route has been in
    usage = np.zeros((max_depth, n_rows), dtype=np.int64)
    counted = np.zeros(max_depth, dtype=np.int64)
    over = np.zeros(max_depth, dtype=np.bool_)
    settled = np.empty(n_rows, dtype=np.int64)      # usage with T's cost, to check it
    grp = np.zeros(max_depth, dtype=np.int64)
    flg = np.zeros(max_depth, dtype=np.int64)      # the flags of the nodes on the route (flag_on)
    visited = np.zeros(n, dtype=np.bool_)
    scratch = np.empty(n + 1, dtype=np.int64)
    worth = np.empty(n + 1, dtype=np.int64)
    kept = np.empty(n + 1, dtype=np.int64)
    path = np.empty(max_depth, dtype=np.int64)
    vias = np.empty(max_depth, dtype=np.int64)
    row_count = np.empty(n_rows, dtype=np.int64)
    row_sum = np.empty(n_rows, dtype=np.int64)
    row_token = np.empty(n_rows, dtype=np.bool_)

    cap, ncap = rev.shape[0], pnodes.shape[0]
    count = 0
    total = 0
    stored = np.int64(0)     # (not a literal 0, which would compile _compact once more for it)
    rstart[0] = 0
    length = 0
    steps = 0
    complete = True

    tok = np.zeros(max_depth, dtype=np.bool_)     # a city with the company's token is on the route
    edge_ok = np.empty(adj_other.shape[0], dtype=np.bool_)     # (the far node may be on a route)
    for e in range(adj_other.shape[0]):
        w = adj_other[e]
        edge_ok[e] = allowed[w] and row[w] >= 0 and (adj_flags[e] & TERM_INNER) == 0
    next_check = STOP_CHECK      # the steps at which the stop flag and the step limit are looked at next
    for t in range(n):
        anchor = (need[t] and end_ok[t]) if from_ends else token[t]
        if not anchor or not allowed[t] or row[t] < 0 or cost[t] > row_visit[row[t]]:
            continue
        if not complete:
            break
        if not from_ends:
            for u in range(t):       # routes through an earlier token city were found from it
                if token[u]:
                    visited[u] = True
        visited[t] = True
        tok[0] = token[t]
        d = 0
        node[0] = t
        via[0] = -1
        kind[0] = A_FRAME
        it[0] = adj_start[t]
        extend[0] = True
        launched[0] = True           # no B arm while A is empty
        keys[0, :] = 0
        hexes[0, :] = 0
        hexes[0, node_hex[t] >> 6] = np.uint64(1) << np.uint64(node_hex[t] & 63)
        usage[0, :] = 0
        counted[0] = 0 if mergeable[t] else cost[t]
        usage[0, row[t]] = counted[0]
        over[0] = False
        t_pend = 0                   # T's cost when out of A's usage
        grp[0] = groups[t]
        flg[0] = flag_on[t]
        vsum[0] = value[t]
        rcount[0, :] = 0
        rsum[0, :] = 0
        rtoken[0, :] = False
        rcount[0, row[t]] = 1
        rsum[0, row[t]] = value[t]
        rtoken[0, row[t]] = token[t]
        mgrp[0] = (np.int64(1) << merge[t]) if merge[t] >= 0 else 0
        byp[0] = 0
        a_top = 0                    # depth of A's last frame while a B arm is out
        a_first_term = False         # A's first chain is terminal at T: T must stay an end
        while d >= 0:
            steps += 1
            if steps >= next_check:      # (a multiple of STOP_CHECK reached: the edges passed over count)
                next_check = (steps // STOP_CHECK + 1) * STOP_CHECK
                if stop[0] != 0 or 0 < limits[3] <= next_check - STOP_CHECK:
                    complete = False
                    break
            k = kind[d]
            if k == A_FRAME and not launched[d]:
                launched[d] = True
                if not a_first_term and not from_ends:
                    if over[d]:
                        continue     # A's last node ends every route of this B arm: its cost counts
                    a_top = d
                    d += 1
                    kind[d] = B_ROOT
                    node[d] = t
                    via[d] = -1
                    it[d] = adj_start[t]
                    extend[d] = True
                    for j in range(words):
                        keys[d, j] = keys[d - 1, j]
                    for j in range(hex_words):
                        hexes[d, j] = hexes[d - 1, j]
                    for j in range(n_rows):
                        usage[d, j] = usage[d - 1, j]
                    usage[d, row[t]] += t_pend
                    counted[d] = t_pend
                    over[d] = False
                    if t_pend > 0:
                        for j in range(n_rows):
                            settled[j] = usage[d, j]
                        over[d] = not fits(settled, row_visit, spill_from, spill_to)
                    grp[d] = grp[d - 1]
                    flg[d] = flg[d - 1]
                    vsum[d] = vsum[d - 1]
                    for j in range(n_rows):
                        rcount[d, j] = rcount[d - 1, j]
                        rsum[d, j] = rsum[d - 1, j]
                        rtoken[d, j] = rtoken[d - 1, j]
                    mgrp[d] = mgrp[d - 1]
                    byp[d] = byp[d - 1]
                    tok[d] = tok[d - 1]
                continue
            v = node[d]
            e, last = it[d], adj_start[v + 1]
            if not extend[d]:
                e = last
            # The edges ruled out at once are passed over here, a step each as if the loop had taken them
            # one by one (a turn of the whole loop costs more): a node visited or off limits, a group
            # met, B's first chain not after A's, a terminal chain that would put v (or T) inside the route.
            inner = k != B_ROOT and d > 0
            while e < last:
                w = adj_other[e]
                f = adj_flags[e]
                if not (visited[w] or not edge_ok[e] or (grp[d] & groups[w]) != 0 or (
                        (f & TERM_HERE) != 0 and (inner or k == B_ROOT)) or (k == B_ROOT and adj_chain[e] <= via[1])):
                    break
                e += 1
                steps += 1
            if e >= last:
                if k != B_ROOT and d > 0:
                    visited[v] = False
                d -= 1
                continue
            it[d] = e + 1
            c = adj_chain[e]
            # Two consecutive nodes of one merge group count as one stop; a group is met once otherwise.
            merged = merge[w] >= 0 and merge[w] == merge[v]
            if merge[w] >= 0 and not merged and (mgrp[d] >> merge[w]) & 1:
                continue
            r = row[w]
            w_cost = 0 if merged else cost[w]
            bad = False              # (taking v's cost out keeps usage within the limits)
            if not merged:
                if over[d]:
                    continue         # v's cost stays: over the limits
                limit = row_visit[r]
                if r == spill_to:        # what row spill_from leaves unused
                    limit += max(0, row_visit[spill_from] - usage[d, spill_from])
                bad = usage[d, r] + w_cost > limit or (
                    r == spill_from and spill_to >= 0 and usage[d, r] + w_cost + usage[d, spill_to] >
                    row_visit[r] + row_visit[spill_to])   # row spill_to already uses what this visit would take
                if bad and not mergeable[w]:
                    continue
            clash = False
            for j in range(words):
                if keys[d, j] & chain_keys[c, j]:
                    clash = True
                    break
            if clash:
                continue
            if no_reentry and chain_mode[c] != 0:
                if chain_mode[c] == 2:
                    continue
                h = node_hex[w]
                clash = (hexes[d, h >> 6] >> np.uint64(h & 63)) & np.uint64(1) != 0
                for j in range(hex_words):
                    if hexes[d, j] & chain_hexes[c, j]:
                        clash = True
                if clash:
                    continue
            nd = d + 1
            node[nd] = w
            via[nd] = c
            kind[nd] = A_FRAME if k == A_FRAME else B_FRAME
            it[nd] = adj_start[w]
            # v is inside the route now: passing it uses the bypass when it is blocked
            byp[nd] = byp[d] + (1 if k != B_ROOT and d > 0 and blocks[v] else 0)
            extend[nd] = not ((f & TERM_THERE) or (blocks[w] and not (bypassable[w] and byp[nd] < bypass)))
            launched[nd] = False
            for j in range(words):
                keys[nd, j] = keys[d, j] | chain_keys[c, j]
            for j in range(hex_words):
                hexes[nd, j] = hexes[d, j] | chain_hexes[c, j]
            hexes[nd, node_hex[w] >> 6] |= np.uint64(1) << np.uint64(node_hex[w] & 63)
            for j in range(n_rows):
                usage[nd, j] = usage[d, j]
            usage[nd, r] += w_cost
            if merged:
                usage[nd, row[v]] -= counted[d]
            counted[nd] = w_cost
            over[nd] = bad
            grp[nd] = grp[d] | groups[w]
            flg[nd] = flg[d] | flag_on[w]
            vsum[nd] = vsum[d] + value[w]
            if by_rows:
                for j in range(n_rows):
                    rcount[nd, j] = rcount[d, j]
                    rsum[nd, j] = rsum[d, j]
                    rtoken[nd, j] = rtoken[d, j]
                rcount[nd, r] += 1
                rsum[nd, r] += value[w]
                rtoken[nd, r] = rtoken[nd, r] or token[w]
            mgrp[nd] = mgrp[d] | ((np.int64(1) << merge[w]) if merge[w] >= 0 else 0)
            tok[nd] = tok[d] or token[w]
            visited[w] = True
            if k == A_FRAME and d == 0:
                a_first_term = (f & TERM_HERE) != 0
                t_pend = cost[t] if mergeable[t] and not merged else 0
            d = nd
            length = 0
            if kind[d] == A_FRAME:
                # the route T .. w (walked from a required end: with a token, once if w qualifies too)
                if end_ok[w] and end_ok[t] and tok[d] and not (from_ends and need[w] and w < t):
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
            if over[d]:
                continue             # w's cost counts at the route's end
            if kind[d] == A_FRAME and t_pend > 0:
                for j in range(n_rows):     # T ends this route: its cost counts
                    settled[j] = usage[d, j]
                settled[row[t]] += t_pend
                if not fits(settled, row_visit, spill_from, spill_to):
                    continue
            revenue = -1
            if fast:
                revenue = vsum[d]
            elif by_rows:
                revenue = rows_revenue(rcount[d], rsum[d], rtoken[d], row_pay, spill_from, spill_to, spill_next,
                                       token_paid, low, high)
                if revenue == UNDECIDED:
                    revenue = best_rows_revenue(path, length, row, value, token, rcount[d], rsum[d], rtoken[d],
                                                row_pay, spill_from, spill_to, spill_next, token_paid, scratch)
                if revenue < 0:
                    revenue = price(path, length, token, cost, spec, worth, kept, scratch, row_count, row_sum, row_token)
            else:
                revenue = price(path, length, token, cost, spec, worth, kept, scratch, row_count, row_sum, row_token)
                if has_merge and _merged_pair(path, length, merge):
                    # Merged stops depend on the direction (the first of a pair is kept): take the
                    # better one, and store the route that way round (nothing else in price() does).
                    for i in range(length):
                        back[i] = path[length - 1 - i]
                    backward = price(back, length, token, cost, spec, worth, kept, scratch, row_count, row_sum, row_token)
                    if backward > revenue:
                        revenue = backward
                        for i in range(length):
                            path[i] = back[i]
                        for i in range(1, length):
                            back[i] = vias[length - i]
                        vias[0] = -1
                        for i in range(1, length):
                            vias[i] = back[i]
            if revenue < 0:
                continue
            if revenue > limits[1]:
                limits[1] = revenue
            if revenue <= limits[0]:
                continue
            while compact and stored > 0 and revenue > limits[0] and not (
                    stored < cap and rstart[stored] + length <= ncap):
                stored = _compact(rev, rkeys, rflags, rstart, pnodes, pchains, stored, limits)
                count, total = stored, rstart[stored]
            if revenue <= limits[0]:
                continue
            if count < cap and total + length <= ncap:
                for i in range(length):
                    pnodes[total + i] = path[i]
                    pchains[total + i] = vias[i]
                rev[count] = revenue
                for j in range(words):
                    rkeys[count, j] = keys[d, j]
                rflags[count] = flg[d] | (BYPASS_FLAG if byp[d] > 0 else 0)
                rstart[count + 1] = total + length
                for kc in range(child_rev.shape[1]):
                    # refit_routes' price, written out: a call with the spec's arrays costs more
                    fit = True
                    for j in range(n_rows):
                        limit = child_visit[kc, j]
                        if j == spill_to:
                            limit += max(0, child_visit[kc, spill_from] - usage[d, spill_from])
                        if usage[d, j] > limit:
                            fit = False
                    child = -1
                    if fit:
                        child = rows_revenue(rcount[d], rsum[d], rtoken[d], child_pay[kc], spill_from, spill_to,
                                             spill_next, token_paid, low, high)
                        if child < 0:     # (UNDECIDED, or no paid token: rare)
                            child = _child_price(path, length, rcount[d], rsum[d], rtoken[d], child_visit[kc],
                                                 child_pay[kc], spec, token, cost, value, child == UNDECIDED,
                                                 worth, kept, scratch, row_count, row_sum, row_token)
                    child_rev[count, kc] = child
                stored += 1
            count += 1
            total += length
        for u in range(n):
            visited[u] = False
    if complete and steps >= next_check and 0 < limits[3] <= steps // STOP_CHECK * STOP_CHECK:
        complete = False         # (the limit reached among the last edges passed over)
    limits[4] = steps
    return count, total, stored, complete
