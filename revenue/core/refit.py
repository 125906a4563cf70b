"""Routes of one train type taken from a looser type's walk and priced for it (refit_routes), instead of
walking the board again."""
from __future__ import annotations

import numpy as np
from numba import njit

from .pricing import SPEC, UNDECIDED, best_rows_revenue, price, priced_by_rows, rows_revenue, two_valued
from .signatures import B1, I1, takes


@takes(SPEC, I1, B1, I1, I1, I1)
@njit(cache=True, nogil=True)
def refit_routes(spec, cost, token, begin, end, nodes):
    """The routes (nodes[begin[i]:end[i]]) of a looser train type that this train may run too, priced
    for it: (their positions, their revenues). Valid when the two types differ only in their rows'
    visit and pay limits and the other type's are no lower (revenue.optimizer.trains.route_parents): its walk then
    met every route of this one, and priced a route -1 only where this one would too."""
    (row, base, bonus, end_ok, groups, row_visit, row_pay, need, need_ends, alt_mult, alt_end, merge,
     merge_penalty, metro, rule_class, rule_amount, rule_set, rule_min, bypass, flag_on, spill_from, spill_to,
     no_reentry, spill_next, token_paid) = spec
    n, n_rows, routes = token.shape[0], row_visit.shape[0], begin.shape[0]
    usage = np.zeros(n_rows, dtype=np.int64)
    path = np.empty(n + 2, dtype=np.int64)
    worth = np.empty(n + 1, dtype=np.int64)
    kept = np.empty(n + 1, dtype=np.int64)
    scratch = np.empty(n + 1, dtype=np.int64)
    row_count = np.empty(n_rows, dtype=np.int64)
    row_sum = np.empty(n_rows, dtype=np.int64)
    row_token = np.empty(n_rows, dtype=np.bool_)
    picked = np.empty(routes, dtype=np.int64)
    rev = np.empty(routes, dtype=np.int64)
    by_rows = priced_by_rows(need_ends, rule_amount, merge, alt_end, metro)
    value = base + bonus
    low, high = two_valued(row, value, n_rows)
    m = 0
    for i in range(routes):
        usage[:] = 0
        row_count[:] = 0
        row_sum[:] = 0
        row_token[:] = False
        length = end[i] - begin[i]
        for k in range(length):
            v = nodes[begin[i] + k]
            path[k] = v
            r = row[v]
            usage[r] += cost[v]
            row_count[r] += 1
            row_sum[r] += value[v]
            row_token[r] = row_token[r] or token[v]
        fits = True
        for r in range(n_rows):
            limit = row_visit[r]
            if r == spill_to:
                limit += max(0, row_visit[spill_from] - usage[spill_from])
            if usage[r] > limit:
                fits = False
        if not fits:
            continue
        revenue = -1
        if by_rows:
            revenue = rows_revenue(row_count, row_sum, row_token, row_pay, spill_from, spill_to, spill_next,
                                   token_paid, low, high)
            if revenue == UNDECIDED:
                revenue = best_rows_revenue(path, length, row, value, token, row_count, row_sum, row_token, row_pay,
                                            spill_from, spill_to, spill_next, token_paid, scratch)
        if revenue < 0:
            revenue = price(path, length, token, cost, spec, worth, kept, scratch, row_count, row_sum, row_token)
        if revenue >= 0:
            picked[m] = i
            rev[m] = revenue
            m += 1
    return picked[:m], rev[:m]
