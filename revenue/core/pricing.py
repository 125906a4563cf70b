"""What one route earns for a train: price() reads the whole route; rows_revenue and best_rows_revenue
price most routes from each distance row's stop count, value sum and tokens, which the walk (core.walk)
keeps as it goes and the refit (core.refit) adds up.

spec: the train's arrays, in the order of SPEC_FIELDS (revenue.problem.TrainSpec has their meaning), as
the walk and the refit take them too.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from .signatures import B1, I, I1, I2, takes

SPEC_FIELDS = ("row", "base", "bonus", "end_ok", "groups", "row_visit", "row_pay", "need", "need_ends",
               "alt_mult", "alt_end", "merge", "merge_penalty", "metro", "rule_class", "rule_amount",
               "rule_set", "rule_min", "bypass", "flag_on", "spill_from", "spill_to", "no_reentry", "spill_next",
               "token_paid")
# ... and their types
SPEC = types.Tuple((I1, I1, I1, B1, I1, I1, I1, B1, I, I1, B1, I1, I, I1, I2, I1, I2, I2, I, I1, I, I, I, I, I))


@njit(cache=True, nogil=True, inline="always")
def _sort_desc(values, k):
    """Sort values[:k] in place, largest first (insertion sort: k is a route's stop count, and this
    allocates nothing)."""
    for i in range(1, k):
        x = values[i]
        j = i - 1
        while j >= 0 and values[j] < x:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = x


@njit(cache=True, nogil=True, inline="always")
def _best_of_row(r, pay, nodes, n, worth, by_node, row, token, check_token, scratch):
    """Of the stops nodes[:n] in distance row r, which holds more than the `pay` (> 0) it pays: the sum of
    the best `pay` worths (worth[v] by node when by_node, else worth[i] by position), and with
    check_token whether a tokened city is among them (one worth no less than the lowest paid value
    counts: equal worths may be paid either way)."""
    k = 0
    for i in range(n):
        v = nodes[i]
        if row[v] == r:
            scratch[k] = worth[v] if by_node else worth[i]
            k += 1
    _sort_desc(scratch, k)
    paid = 0
    for i in range(pay):
        paid += scratch[i]
    tokened = False
    if check_token:
        threshold = scratch[pay - 1]
        for i in range(n):
            v = nodes[i]
            if row[v] == r and token[v] and (worth[v] if by_node else worth[i]) >= threshold:
                tokened = True
    return paid, tokened


@njit(cache=True, nogil=True, inline="always")
def _paid_rows(nodes, n, worth, by_node, row, token, count, total, has_token, row_pay, spill_to, spill_next, spare,
               spare_next, scratch):
    """What the distance rows of the stops nodes[:n] pay, from each row's stop count, worth sum and tokens
    (count, total, has_token) and what spill_to and spill_next are lent (spares()): a row holding more
    stops than it pays pays its best ones (_best_of_row; worth as there); and whether a paid stop is a
    tokened city. price() and best_rows_revenue share it."""
    paid, tokened = 0, False
    for r in range(row_pay.shape[0]):
        pay = row_pay[r] + (spare if r == spill_to else 0) + (spare_next if r == spill_next else 0)
        if count[r] <= pay:
            paid += total[r]
            tokened = tokened or has_token[r]
            continue
        if pay == 0:
            continue
        best, tokened_here = _best_of_row(r, pay, nodes, n, worth, by_node, row, token, has_token[r] and not tokened,
                                          scratch)
        paid += best
        tokened = tokened or tokened_here
    return paid, tokened


@takes(I1, I, B1, I1, SPEC, I1, I1, I1, I1, I1, B1)
@njit(cache=True, nogil=True)
def price(path, length, token, cost, spec, worth, kept, scratch, row_count, row_sum, row_token):
    """Revenue of the route path[:length] for this train, or -1 when its ends, its metropolis or its
    token rule make it illegal. Mirrors revenue.route_price.price_route: merged consecutive stops, the
    alternative multiplier when both ends allow it, per distance row the best `pay` stops (one of them a
    tokened city unless token_paid is 0; row spill_to also pays what row spill_from leaves unused, and row
    spill_next what spill_to then leaves unused), then route bonuses. With subsidies the values are the optimizer's
    scores (revenue.problem.kernel_values) and so is the result. worth, kept, scratch and the row_ arrays
    are work space. A route with merged stops is also checked against the rows' visit limits here: which
    stop of a pair counts depends on the direction, which the walk leaves open."""
    (row, base, bonus, end_ok, groups, row_visit, row_pay, need, need_ends, alt_mult, alt_end, merge,
     merge_penalty, metro, rule_class, rule_amount, rule_set, rule_min, bypass, flag_on, spill_from, spill_to,
     no_reentry, spill_next, token_paid) = spec
    first, last = path[0], path[length - 1]
    if need_ends > 0:
        ends = (1 if need[first] else 0) + (1 if need[last] else 0)
        if ends < need_ends:
            return -1
    if metro[first] >= 0:
        inside = True
        for i in range(1, length):
            if metro[path[i]] != metro[first]:
                inside = False
                break
        if inside:
            return -1
    doubled = alt_end[first] and alt_end[last]
    # The stops, and what each distance row holds; a row is sorted only when it has more than it pays.
    for r in range(row_pay.shape[0]):
        row_count[r] = 0
        row_sum[r] = 0
        row_token[r] = False
    nk = 0
    merged_any = False
    for i in range(length):
        v = path[i]
        if i > 0 and merge[v] >= 0 and merge[v] == merge[path[i - 1]]:
            merged_any = True
            # never below 0: the engine would then drop the stop, which no title's values lead to
            was = worth[nk - 1]
            worth[nk - 1] = max(0, was - merge_penalty * (alt_mult[kept[nk - 1]] if doubled else 1))
            row_sum[row[kept[nk - 1]]] += worth[nk - 1] - was
            continue
        worth[nk] = base[v] * (alt_mult[v] if doubled else 1) + bonus[v]
        kept[nk] = v
        r = row[v]
        row_count[r] += 1
        row_sum[r] += worth[nk]
        if token[v]:
            row_token[r] = True
        nk += 1
    if merged_any:
        used = scratch     # visit cost per row of the stops kept this way round
        used[:row_visit.shape[0]] = 0
        for i in range(nk):
            used[row[kept[i]]] += cost[kept[i]]
        for r in range(row_visit.shape[0]):
            limit = row_visit[r]
            if r == spill_to:
                limit += max(0, row_visit[spill_from] - used[spill_from])
            if used[r] > limit:
                return -1
    spare, spare_next = spares(row_count, row_pay, spill_from, spill_to, spill_next)
    total, has_token = _paid_rows(kept, nk, worth, False, row, token, row_count, row_sum, row_token, row_pay,
                                  spill_to, spill_next, spare, spare_next, scratch)
    if not has_token and token_paid:
        # Swap a tokened city in for the weakest paid stop of its row.
        best = -1
        for i in range(nk):
            t = kept[i]
            r = row[t]
            pay = row_pay[r] + (spare if r == spill_to else 0) + (spare_next if r == spill_next else 0)
            if not token[t] or pay == 0:
                continue
            k = 0
            for j in range(nk):
                if row[kept[j]] == r:
                    scratch[k] = worth[j]
                    k += 1
            _sort_desc(scratch, k)
            cand = total - scratch[pay - 1] + worth[i]
            if cand > best:
                best = cand
        if best < 0:
            return -1
        total = best
    return total + route_bonus(path, length, rule_class, rule_amount, rule_set, rule_min)


@njit(cache=True, nogil=True)
def fits(used, row_visit, spill_from, spill_to):
    """Whether visit costs used[r] per distance row keep within the rows' limits (row spill_to may also
    use what row spill_from leaves)."""
    for r in range(row_visit.shape[0]):
        limit = row_visit[r]
        if r == spill_to:
            limit += max(0, row_visit[spill_from] - used[spill_from])
        if used[r] > limit:
            return False
    return True


@njit(cache=True, nogil=True)
def route_bonus(path, length, rule_class, rule_amount, rule_set, rule_min):
    """Sum of the route bonuses whose clauses all hold: each clause needs `min` distinct classes of its
    set among the visited nodes."""
    extra = 0
    for b in range(rule_amount.shape[0]):
        ok = True
        for c in range(rule_set.shape[1]):
            s = rule_set[b, c]
            if s < 0:
                continue
            seen = np.int64(0)
            for i in range(length):
                cls = rule_class[s, path[i]]
                if cls >= 0:
                    seen |= np.int64(1) << cls
            count = 0
            while seen:
                seen &= seen - 1
                count += 1
            if count < rule_min[b, c]:
                ok = False
                break
        if ok:
            extra += rule_amount[b]
    return extra


@njit(cache=True, nogil=True)
def priced_by_rows(need_ends, rule_amount, merge, alt_end, metro):
    """Whether routes may be priced from each distance row's stop count, value sum and tokens alone (no
    rule that needs the whole route: required ends, route bonuses, merged stops, alternative ends,
    metropolises)."""
    if need_ends > 0 or rule_amount.shape[0] > 0:
        return False
    for v in range(merge.shape[0]):
        if merge[v] >= 0 or alt_end[v] or metro[v] >= 0:
            return False
    return True


@njit(cache=True, nogil=True)
def spares(count, row_pay, spill_from, spill_to, spill_next):
    """What row spill_from leaves unpaid (lent to spill_to), and what spill_to then leaves unpaid (lent to
    spill_next), for a route with count[r] stops in row r. (Not inline="always": LLVM inlines it better.)"""
    if spill_from < 0:
        return 0, 0
    spare = max(row_pay[spill_from] - count[spill_from], 0)
    spare_next = max(row_pay[spill_to] + spare - count[spill_to], 0) if spill_next >= 0 else 0
    return spare, spare_next


@njit(cache=True, nogil=True)
def two_valued(row, value, n_rows):
    """(low, high) per distance row: the lowest and highest value of its nodes where they have at most
    two values, else low > high (no node: low > high too). rows_revenue pays such a row's best stops
    from its count and sum, without reading the route."""
    low = np.full(n_rows, np.iinfo(np.int64).max, dtype=np.int64)
    high = np.full(n_rows, np.iinfo(np.int64).min, dtype=np.int64)
    for v in range(row.shape[0]):
        r = row[v]
        if r >= 0:
            low[r] = min(low[r], value[v])
            high[r] = max(high[r], value[v])
    for v in range(row.shape[0]):
        r = row[v]
        if r >= 0 and low[r] <= high[r] and value[v] != low[r] and value[v] != high[r]:
            low[r], high[r] = 1, 0
    return low, high


@njit(cache=True, nogil=True)
def best_rows_revenue(path, length, row, value, token, count, total, has_token, row_pay, spill_from, spill_to,
                      spill_next, token_paid, scratch):
    """price() of a route that priced_by_rows allows, from each distance row's stop count, value sum and
    tokens (count, total, has_token): a row holding more stops than it pays pays its best ones (found
    among path[:length]). -1 when no paid stop holds a token city and one must: then price() decides
    (it swaps one in). Cheaper than price(), which walks the whole route again."""
    spare, spare_next = spares(count, row_pay, spill_from, spill_to, spill_next)
    paid, tokened = _paid_rows(path, length, value, True, row, token, count, total, has_token, row_pay, spill_to,
                               spill_next, spare, spare_next, scratch)
    return paid if tokened or not token_paid else -1


UNDECIDED = -2      # rows_revenue: a row's best stops need the route read (best_rows_revenue)


@njit(cache=True, nogil=True, inline="always")
def rows_revenue(count, total, has_token, row_pay, spill_from, spill_to, spill_next, token_paid, low, high):
    """best_rows_revenue from the rows' counts, sums and tokens alone, or UNDECIDED where that needs the
    route read: a row holding more stops than it pays is decided here when its nodes have at most two
    values (two_valued: the higher ones are paid first, and how many there are follows from the row's
    count and sum), unless it must also say whether a tokened stop of the higher value is paid. Kept
    apart from the reading of the route, which inlined into the walk's loop made every route's pricing
    slower, read or not."""
    spare, spare_next = spares(count, row_pay, spill_from, spill_to, spill_next)
    paid, tokened = 0, False
    for r in range(row_pay.shape[0]):
        pay = row_pay[r] + (spare if r == spill_to else 0) + (spare_next if r == spill_next else 0)
        if count[r] <= pay:
            paid += total[r]
            tokened = tokened or has_token[r]
            continue
        if pay == 0:
            continue
        if low[r] > high[r]:
            return UNDECIDED
        tops = (total[r] - count[r] * low[r]) // (high[r] - low[r]) if high[r] > low[r] else count[r]
        # the lowest paid value is low[r] (every tokened stop of the row is as good as a paid one)
        # unless only higher ones are paid: which of them holds the token needs the route
        lowest_paid_low = tops < pay or high[r] == low[r]
        if has_token[r] and not tokened and not lowest_paid_low:
            return UNDECIDED
        paid += high[r] * min(tops, pay) + low[r] * max(pay - tops, 0)
        tokened = tokened or (has_token[r] and lowest_paid_low)
    return paid if tokened or not token_paid else -1
