"""Choose one route per train, no two sharing a track key, maximising the total: branch and bound.

Routes of each train type are sorted by revenue (best first). Trains are searched in order; a train may
also run no route. The bound at train i is `so far + best remaining route of each later train`, valid
because a route's revenue depends on that route alone (run-level rules only forbid runs, so the bound of
the unconstrained problem still holds). Identical trains take routes in non-increasing order, so each set
of routes is searched once.

Run-level rules: each route carries flag bits (rflags); `flag_max[b]` caps how many routes of a run have
bit b (-1 = no cap), `flag_min[b]` asks that at least that many do (checked on non-empty runs), and with
`connected` the routes must form one group through shared nodes (rnodes: node bitsets).

`progress` is shared with the calling thread:
  progress[0] best total, progress[1] twice the improvements so far (odd while one is being written),
  progress[2] nodes explored, progress[3] index of the train-0 route being explored (for the anytime
  bound), progress[4:4+T] the chosen route of each train (-1 = none), as indices into its sorted routes.
"""
from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros     # (an LLVM intrinsic: the lowest set bit's position)

from .signatures import B, B1, I, I1, U2, takes

STOP_CHECK = 1024
FLAG_BITS = 8


@njit(cache=True, nogil=True)
def _run_ok(chosen, n_chosen, rflags, flag_min, connected, rnodes, reached):
    """Leaf checks of a complete run: minimum flag counts and connectedness through shared nodes
    (reached: work space, one flag per train)."""
    if n_chosen == 0:
        return True
    for b in range(FLAG_BITS):
        if flag_min[b] > 0:
            count = 0
            for i in range(n_chosen):
                count += (rflags[chosen[i]] >> b) & 1
            if count < flag_min[b]:
                return False
    if connected and n_chosen > 1:
        reached[:n_chosen] = False
        reached[0] = True
        grown = True
        while grown:
            grown = False
            for i in range(n_chosen):
                if not reached[i]:
                    continue
                for j in range(n_chosen):
                    if reached[j]:
                        continue
                    for k in range(rnodes.shape[1]):
                        if rnodes[chosen[i], k] & rnodes[chosen[j], k]:
                            reached[j] = True
                            grown = True
                            break
        for i in range(n_chosen):
            if not reached[i]:
                return False
    return True


@njit(cache=True, nogil=True)
def _meets(rnodes, r, nodes):
    """Whether route r visits one of the nodes in the bitset `nodes`."""
    for k in range(nodes.shape[0]):
        if rnodes[r, k] & nodes[k]:
            return True
    return False


@njit(cache=True, nogil=True)
def _has_least(counts, flags, flag_min):
    """Whether routes with flag counts `counts`, and one more with flag bits `flags`, meet every minimum."""
    for b in range(FLAG_BITS):
        if counts[b] + ((flags >> b) & 1) < flag_min[b]:
            return False
    return True


@njit(cache=True, nogil=True)
def key_index(keys, n_keys):
    """Per track key, a bitmap of the routes (rows of `keys`, in order) that use it: uint64
    [n_keys, ceil(routes / 64)]. Lets the last train's search test 64 routes at a time."""
    routes, words = keys.shape
    index = np.zeros((n_keys, (routes + 63) // 64), dtype=np.uint64)
    fill_key_index(keys, index, 0)
    return index


@takes(U2, U2, I)
@njit(cache=True, nogil=True)
def fill_key_index(keys, index, base):
    """key_index written into the columns base.. of `index`."""
    routes, words = keys.shape
    for p in range(routes):
        bit = np.uint64(1) << np.uint64(p & 63)
        column = base + (p >> 6)
        for w in range(words):
            bits = keys[p, w]
            while bits:
                index[w * 64 + np.int64(trailing_zeros(bits)), column] |= bit
                bits &= bits - np.uint64(1)


@njit(cache=True, nogil=True, inline="always")
def _first_clear(m, w, i, end, last):
    """Of 64-route word w of a scan over positions [i, end) (last: the scan's last word), the first
    position whose bit is clear in m, or -1 (_first_free and _first_free_over share it)."""
    free = ~m
    if w == (i >> 6):
        free &= ~np.uint64(0) << np.uint64(i & 63)
    if w == last and (end & 63) != 0:
        free &= (np.uint64(1) << np.uint64(end & 63)) - np.uint64(1)
    if free != 0:
        return (w << 6) + np.int64(trailing_zeros(free))
    return -1


@njit(cache=True, nogil=True)
def _first_free(index, base, klist, nk, i, end):
    """The first route position p in [i, end) of a group whose bit is clear in the bitmaps of all keys
    in klist[:nk] (index[k, base + word]: the group's routes that use key k), or `end`. Looks at 64
    routes per step: the last train needs only the best route that fits, so this scan is the hot loop."""
    if i >= end:
        return end
    w = i >> 6
    last = (end - 1) >> 6
    while w <= last:
        m = np.uint64(0)
        for x in range(nk):
            m |= index[klist[x], base + w]
        p = _first_clear(m, w, i, end, last)
        if p >= 0:
            return p
        w += 1
    return end


@njit(cache=True, nogil=True)
def _first_free_over(index, base, klist, nk, i, end, taken, taken_gen, gen, before, n_before):
    """_first_free for the last train when the keys of the trains before n-2 (before[:n_before]) are
    the same for many scans: their bitmaps' OR is kept per 64-route word in `taken` (valid where
    taken_gen[w] == gen), so a scan ORs only the keys of train n-2's route (klist[:nk])."""
    if i >= end:
        return end
    w = i >> 6
    last = (end - 1) >> 6
    while w <= last:
        if taken_gen[w] != gen:
            m0 = np.uint64(0)
            for x in range(n_before):
                m0 |= index[before[x], base + w]
            taken[w] = m0
            taken_gen[w] = gen
        m = taken[w]
        for x in range(nk):
            m |= index[klist[x], base + w]
        p = _first_clear(m, w, i, end, last)
        if p >= 0:
            return p
        w += 1
    return end


@njit(cache=True, nogil=True)
def _key_list(bits_of, klist):
    """The numbers of the set bits of the key words bits_of into klist; returns how many."""
    nk = 0
    for k in range(bits_of.shape[0]):
        bits = bits_of[k]
        while bits:
            klist[nk] = k * 64 + np.int64(trailing_zeros(bits))
            nk += 1
            bits &= bits - np.uint64(1)
    return nk


@njit(cache=True, nogil=True)
def _later_best(t, i, group_of, group_start, rev, suffix_best, index, index_start, klist, nk, budget):
    """A bound on what trains t+1.. can add when the keys klist[:nk] are taken and train t runs the
    i-th route of its group: each takes the best route of its group that shares no key with them (a
    train of t's type no better than t's route, by the symmetry rule; identical trains distinct routes,
    in order). Only whether the bound passes `budget` matters, so each scan stops where the routes
    left could not lift the sum above it (then the next route's revenue bounds the train). Groups
    without key bitmaps (index_start[g] < 0) count their best allowed route."""
    total = 0
    previous = i
    n_trains = group_of.shape[0]
    for j in range(t + 1, n_trains):
        g = group_of[j]
        lo, hi = group_start[g], group_start[g + 1]
        count = hi - lo
        if g == group_of[j - 1]:
            first = previous if j == t + 1 else previous + 1
        else:
            first = 0
        if first >= count:
            previous = count
            continue
        if index_start[g] < 0:
            p = first
            total += rev[lo + p]
            previous = p
            continue
        # routes earning no more than `need` cannot lift the total above the budget
        need = budget - total - suffix_best[j + 1]
        a, b = first, count
        while a < b:
            mid = (a + b) // 2
            if rev[lo + mid] > need:
                a = mid + 1
            else:
                b = mid
        p = _first_free(index, index_start[g], klist, nk, first, a)
        if p < a:
            total += rev[lo + p]
            previous = p
        else:
            if a < count:
                total += rev[lo + a]     # every free route of this train is at or after a
            previous = a
        if total + suffix_best[j + 1] <= budget:
            return total + suffix_best[j + 1]
    return total


@takes(I1, I1, I1, U2, B1, I1, I1, I1, I1, B, U2, U2, I1, B, I1, I1)
@njit(cache=True, nogil=True)
def best_combination(group_of, group_start, rev, keys, same_as_prev, suffix_best, rflags, flag_max, flag_min,
                     connected, rnodes, index, index_start, bound_later, progress, stop):
    """group_of[t]: route group of train t; routes of group g are rev/keys[group_start[g]:group_start[g+1]],
    sorted by revenue descending. suffix_best[t] = sum over trains t.. of their group's best revenue.
    index[k, index_start[g] + w] (key_index of each group side by side; index_start[g] < 0: none) lets
    the last train find its best fitting route 64 routes at a time. With `bound_later` (three or more
    trains, every group with bitmaps: revenue.optimizer.combination.key_indexes), what the later trains can add to a
    train's route is bounded better than by suffix_best while three or more trains are left
    (_later_best).
    Returns True when the search finished (the result is proved optimal)."""
    n_trains = group_of.shape[0]
    words = keys.shape[1]
    same_run = np.zeros(n_trains, dtype=np.int64)   # how many trains right after t are of t's type
    for t in range(n_trains - 2, -1, -1):
        if same_as_prev[t + 1]:
            same_run[t] = same_run[t + 1] + 1
    capped = False
    for b in range(FLAG_BITS):
        if flag_max[b] >= 0:
            capped = True
    used = np.zeros((n_trains + 1, words), dtype=np.uint64)
    flags_used = np.zeros((n_trains + 1, FLAG_BITS), dtype=np.int64)
    idx = np.full(n_trains, -1, dtype=np.int64)     # position within the group; count = "no route"
    total = np.zeros(n_trains + 1, dtype=np.int64)
    chosen = np.empty(n_trains, dtype=np.int64)
    reached = np.empty(n_trains, dtype=np.bool_)
    # With `connected`, the last train's route must share a node with some route chosen before it (else
    # the run falls apart: the leaf check would refuse it), so its scan skips the routes that share none.
    # touched[t]: the nodes of the routes trains 0..t-1 run; running[t]: how many of them run one.
    touched = np.zeros((n_trains + 1, rnodes.shape[1] if connected else 1), dtype=np.uint64)
    running = np.zeros(n_trains + 1, dtype=np.int64)
    # Likewise a run with the last train's route has all its routes: with it, each flag minimum must be met.
    least = False
    for b in range(FLAG_BITS):
        if flag_min[b] > 0:
            least = True
    klist = np.empty(words * 64, dtype=np.int64)
    indexed = index_start[group_of[n_trains - 1]] >= 0   # the key bitmaps of the last train's routes
    later = np.empty(words * 64, dtype=np.int64)
    bits_of = np.empty(words, dtype=np.uint64)
    # What the last train can add once the trains before n-2 have taken their keys: its best route
    # that fits them (found once per route of those trains, 64 routes a step). It bounds the routes
    # of train n-2 better than the last train's best overall when that one needs the same track.
    last_g = group_of[n_trains - 1]
    last_lo, last_count = group_start[last_g], group_start[last_g + 1] - group_start[last_g]
    fit_last = n_trains >= 2 and indexed and not same_as_prev[n_trains - 1]
    last_rest = suffix_best[n_trains - 1]
    # the last train's routes that the trains before n-2 leave no room for (_first_free_over)
    taken = np.zeros((last_count + 63) // 64 if fit_last else 1, dtype=np.uint64)
    taken_gen = np.zeros(taken.shape[0], dtype=np.int64)
    gen = 0
    before = np.empty(words * 64, dtype=np.int64)
    n_before = 0
    prev_keys = np.empty(words, dtype=np.uint64)
    best = progress[0]
    explored = 0
    t = np.int64(0)     # (np.int64, here and below: a literal 0 would compile the calls' kernels once more for it)
    idx[0] = -1
    while t >= 0:
        g = group_of[t]
        lo, hi = group_start[g], group_start[g + 1]
        count = hi - lo
        i = idx[t] + 1
        if same_as_prev[t] and t > 0 and idx[t] == -1:
            i = idx[t - 1] if idx[t - 1] < count else count   # symmetry: not better than the previous train
        found = False
        if fit_last and t == n_trains - 2 and idx[t] == -1:
            gen += 1
            n_before = _key_list(used[t], before)
            p = _first_free_over(index, index_start[last_g], klist, np.int64(0), np.int64(0), last_count, taken,
                                 taken_gen, gen, before, n_before)
            last_rest = rev[last_lo + p] if p < last_count else 0
        after_t = suffix_best[t + 1 + same_run[t]]
        if fit_last and t == n_trains - 2:
            after_t = last_rest
        if indexed and t == n_trains - 1 and i < count:
            # Only routes that beat the best can matter: those before `end` (revenue sorted).
            need = best - total[t]
            a, b = i, count
            while a < b:
                mid = (a + b) // 2
                if rev[lo + mid] > need:
                    a = mid + 1
                else:
                    b = mid
            end = a
            base = index_start[g]
            if fit_last:
                # only the keys of train n-2's route: those of the trains before it are in `taken`
                for k in range(words):
                    prev_keys[k] = used[t, k] & ~used[t - 1, k]
                nk = _key_list(prev_keys, klist)
            else:
                nk = _key_list(used[t], klist)
            while True:
                explored += 1
                if explored % STOP_CHECK == 0:
                    progress[2] = explored
                    if stop[0] != 0:
                        return False
                if fit_last:
                    p = _first_free_over(index, base, klist, nk, i, end, taken, taken_gen, gen, before, n_before)
                else:
                    p = _first_free(index, base, klist, nk, i, end)
                if p >= end:
                    i = count
                    break
                r = lo + p
                ok = True
                if capped:
                    for b in range(FLAG_BITS):
                        if flag_max[b] >= 0 and flags_used[t, b] + ((rflags[r] >> b) & 1) > flag_max[b]:
                            ok = False
                            break
                if ok and connected and running[t] > 0:
                    ok = _meets(rnodes, r, touched[t])
                if ok and least:
                    ok = _has_least(flags_used[t], rflags[r], flag_min)
                if ok:
                    i = p
                    found = True
                    break
                i = p + 1
        # With the bitmaps of this train's group (bound_later), a train after the first skips to its
        # next route that fits the taken keys, 64 routes per step, up to where the bound ends the scan.
        jump = bound_later and 0 < t < n_trains - 1 and index_start[g] >= 0 and not found and i < count
        if jump:
            nk = _key_list(used[t], klist)
            a, b = i, count
            while a < b:
                mid = (a + b) // 2
                if total[t] + (1 + same_run[t]) * rev[lo + mid] + after_t > best:
                    a = mid + 1
                else:
                    b = mid
            scan_end = a
        while not found and i < count:
            explored += 1
            if explored % STOP_CHECK == 0:
                progress[2] = explored
                if stop[0] != 0:
                    return False
            if jump:
                p = _first_free(index, index_start[g], klist, nk, i, scan_end)
                if p >= scan_end:
                    i = count     # sorted: no later route of this train can help
                    break
                i = p
            r = lo + i
            # Later trains of this same type take later (no better) routes: each earns at most rev[r].
            rest = after_t if same_run[t] == 0 else same_run[t] * rev[r] + after_t
            if total[t] + rev[r] + rest <= best:
                i = count     # sorted: no later route of this train can help
                break
            ok = True
            for k in range(words):
                if used[t, k] & keys[r, k]:
                    ok = False
                    break
            if ok and capped:
                for b in range(FLAG_BITS):
                    if flag_max[b] >= 0 and flags_used[t, b] + ((rflags[r] >> b) & 1) > flag_max[b]:
                        ok = False
                        break
            if ok and connected and t == n_trains - 1 and running[t] > 0:
                ok = _meets(rnodes, r, touched[t])
            if ok and least and t == n_trains - 1:
                ok = _has_least(flags_used[t], rflags[r], flag_min)
            if ok and bound_later and t + 2 < n_trains:
                # the later trains' best routes that fit this one (cheaper than searching them)
                for k in range(words):
                    bits_of[k] = used[t, k] | keys[r, k]
                # (its own count: nk still counts klist, which the jump's next scan reads)
                n_later = _key_list(bits_of, later)
                budget = best - total[t] - rev[r]
                if _later_best(t, i, group_of, group_start, rev, suffix_best, index, index_start, later, n_later,
                               budget) <= budget:
                    ok = False
            if ok:
                found = True
                break
            i += 1
        if t == 0:
            progress[3] = i
        if not found:
            if i == count and idx[t] < count:
                # "no route" for this train: only worth it if the rest can still beat the best
                if total[t] + (after_t if same_run[t] == 0 else suffix_best[t + 1]) > best:
                    idx[t] = count
                    total[t + 1] = total[t]
                    for k in range(words):
                        used[t + 1, k] = used[t, k]
                    for b in range(FLAG_BITS):
                        flags_used[t + 1, b] = flags_used[t, b]
                    if connected:
                        for k in range(touched.shape[1]):
                            touched[t + 1, k] = touched[t, k]
                        running[t + 1] = running[t]
                    found = True
            if not found:
                idx[t] = -1
                t -= 1
                continue
        else:
            idx[t] = i
            r = lo + i
            total[t + 1] = total[t] + rev[r]
            for k in range(words):
                used[t + 1, k] = used[t, k] | keys[r, k]
            for b in range(FLAG_BITS):
                flags_used[t + 1, b] = flags_used[t, b] + ((rflags[r] >> b) & 1)
            if connected:
                for k in range(touched.shape[1]):
                    touched[t + 1, k] = touched[t, k] | rnodes[r, k]
                running[t + 1] = running[t] + 1
        if t + 1 == n_trains:
            if total[n_trains] > best:
                n_chosen = np.int64(0)
                for j in range(n_trains):
                    gj = group_of[j]
                    if idx[j] < group_start[gj + 1] - group_start[gj]:
                        chosen[n_chosen] = group_start[gj] + idx[j]
                        n_chosen += 1
                if _run_ok(chosen, n_chosen, rflags, flag_min, connected, rnodes, reached):
                    best = total[n_trains]
                    progress[1] += 1        # odd: the routes below are being written
                    progress[0] = best
                    for j in range(n_trains):
                        gj = group_of[j]
                        progress[4 + j] = idx[j] if idx[j] < group_start[gj + 1] - group_start[gj] else -1
                    progress[1] += 1        # even: a consistent best run
            # stay on this train and try its next option
            continue
        t += 1
        idx[t] = -1
    progress[2] = explored
    return True
