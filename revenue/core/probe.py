"""The plain exact search of a small board in one compiled call: each train type's routes walked (or
refitted from a looser type's), sorted, and the best combination searched, what revenue.optimizer's
Search._probe, RouteSet and Combination do call by call. A game state's walks and combination take a
few microseconds of work each; called one by one from Python, each call's arguments and results, and
the Python objects around them, cost several times that.

The same kernels do the work (core.walk.enumerate_routes, core.refit.refit_routes, core.sort's sorts
and core.combine.best_combination), in the same order on the same arrays, so the routes, their order and
the run found, with its statistics, are those of the call-by-call path. Whatever this call does not
finish (a walk cut short by its step limit or the stop flag, more routes than the scratch arrays hold)
it reports, and the caller takes the call-by-call path instead.

Each argument costs the call about 0.1 us to take in and each array it returns about 1 us to hand out,
so the call takes few: the train types' scalars and row limits, the combination's flag limits and the
call's progress and results (meta) in one int64 array (`io`, laid out below), each walk's arrays once for
the types that share them, the scratch arrays but the keys in one, and its routes and their nodes in one
array out.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from .combine import FLAG_BITS, best_combination
from .refit import refit_routes
from .signatures import B1, I1, I2, U2, takes
from .sort import _order_desc, gather_routes
from .track import reachable_nodes
from .walk import enumerate_routes, walk_prices_children

# walk_and_combine's status (meta[0])
COMBINED = 0        # every route known and the combination searched (meta[1]: it finished)
WALKED = 1          # every route known, too many for the plain combination: the caller searches it (key bitmaps)
STOPPED = 2         # every route known, the stop flag set before the combination
UNFINISHED = 3      # a walk ended unfinished (step limit or stop flag): the walked types before it (meta[1])
OVERFLOW = 4        # a walk's routes did not fit the scratch arrays (likewise)

# io: the header [steps, bypass, trains, the least routes for key bitmaps (revenue.optimizer.combination.INDEX_MIN: from
# there the caller sets the combination up), connected, types, where progress starts, where meta starts,
# flag_max (FLAG_BITS), flag_min (FLAG_BITS)], then per type TYPE_FIELDS values, then per train of the
# company its type, then each type's row limits (row_visit, row_pay: `rows` each, from `limits_at`),
# then the progress array (core.combine: 4 + trains) and the room for meta.
HEAD = 8 + 2 * FLAG_BITS
# per type: its walk (index into `walks`), parent (-1: walked; else the type it is refitted from, earlier in
# the order), fast, from_ends, the spec's scalars (core.pricing.SPEC_FIELDS: need_ends, merge_penalty,
# bypass, spill_from, spill_to, no_reentry, spill_next, token_paid), rows, limits_at
TYPE_FIELDS = 14
# the walk arrays: core.pricing.SPEC_FIELDS but the row limits and the scalars
WALK_FIELDS = ("row", "base", "bonus", "end_ok", "groups", "need", "alt_mult", "alt_end", "merge", "metro",
               "rule_class", "rule_amount", "rule_set", "rule_min", "flag_on")
WALK_SLOTS = 3          # walk_and_combine takes this many walks (the caller repeats one to fill them)
WALKS = types.UniTuple(types.Tuple((I1, I1, I1, B1, I1, B1, I1, B1, I1, I1, I2, I1, I2, I2, I1)), WALK_SLOTS)
SCRATCH_NODES_PER_ROUTE = 16    # the scratch arrays' room for route nodes, per route


@njit(cache=True, nogil=True)
def meta_size(types: int, trains: int) -> int:
    """meta: status, finished, the routes' nodes in all, then per type (in the given order) its route count
    and its group, then per group its first route (and the end), per searched train its company position
    and its group, and the suffix bounds (revenue.optimizer.combination.Combination)."""
    return 3 + 2 * types + (types + 1) + 2 * trains + (trains + 1)


@njit(cache=True, nogil=True, inline="always")
def _spec(walk, io, at):
    """A type's kernel arrays in the order of core.pricing.SPEC_FIELDS: its walk's arrays, its scalars and
    its row limits (views of io)."""
    (row, base, bonus, end_ok, groups, need, alt_mult, alt_end, merge, metro, rule_class, rule_amount, rule_set,
     rule_min, flag_on) = walk
    rows, limits_at = io[at + 12], io[at + 13]
    return (row, base, bonus, end_ok, groups, io[limits_at:limits_at + rows],
            io[limits_at + rows:limits_at + 2 * rows], need, io[at + 4], alt_mult, alt_end, merge, io[at + 5],
            metro, rule_class, rule_amount, rule_set, rule_min, io[at + 6], flag_on, io[at + 7], io[at + 8],
            io[at + 9], io[at + 10], io[at + 11])


@njit(cache=True, nogil=True)
def _node_sets(begin, end, nodes, n, io, k_types, group_type, group_of_type, group_start, sources):
    """core.node_sets.node_bitsets of the routes of every group, a refitted type's copied from its parent's
    (its routes are some of the parent's: sources[k], their positions there)."""
    words = max(1, (n + 63) // 64)
    node_sets = np.zeros((begin.shape[0], words), dtype=np.uint64)
    for walked in (True, False):
        for g in range(k_types):
            k = group_type[g]
            parent = io[HEAD + TYPE_FIELDS * k + 1]
            if (parent < 0) != walked:
                continue
            lo, hi = group_start[g], group_start[g + 1]
            if walked and words == 1:       # (the bits gathered in a register: twice as fast)
                for i in range(lo, hi):
                    bits = np.uint64(0)
                    for at in range(begin[i], end[i]):
                        bits |= np.uint64(1) << np.uint64(nodes[at])
                    node_sets[i, 0] = bits
            elif walked:
                for i in range(lo, hi):
                    for at in range(begin[i], end[i]):
                        v = nodes[at]
                        node_sets[i, v >> 6] |= np.uint64(1) << np.uint64(v & 63)
            else:
                from_lo = group_start[group_of_type[parent]]
                source = sources[k]
                for i in range(hi - lo):        # (word by word: a slice's copy costs ten times more)
                    for w in range(words):
                        node_sets[lo + i, w] = node_sets[from_lo + source[i], w]
    return node_sets


@takes(I1, I1, I1, I1, U2, I1, B1, B1, B1, I1, U2, I1, WALKS, I1, I1, I1, U2)
@njit(cache=True, nogil=True)
def walk_and_combine(adj_start, adj_chain, adj_other, adj_flags, chain_keys, cost, token, blocks, bypassable,
                     node_hex, chain_hexes, chain_mode, walks, io, stop, scratch, rkeys):
    """walks: each distinct walk's arrays (WALK_FIELDS); io: the plan, the progress and meta (above), the
    types in the order revenue.optimizer's probe makes its route sets (walked types first). scratch: one
    walk's routes, flags, node offsets (routes + 1), nodes and chains (SCRATCH_NODES_PER_ROUTE per route) in
    one, rkeys its keys [routes, words].

    Returns (out, keys [R, W], node sets): out holds the nodes and the chains of the routes (N each, meta[2])
    then their score, flags, begin and end (R each, the groups' end), the routes of every type sorted best
    first, the types in the combination's group order; meta and progress are written into io."""
    steps, bypass, n_trains, index_min, connected = io[0], io[1], io[2], io[3], io[4] != 0
    k_types, progress_at, meta_at = io[5], io[6], io[7]
    flag_max, flag_min = io[8:8 + FLAG_BITS], io[8 + FLAG_BITS:8 + 2 * FLAG_BITS]
    trains_plan = HEAD + TYPE_FIELDS * k_types      # (each train's type)
    progress = io[progress_at:progress_at + 4 + n_trains]
    meta = io[meta_at:meta_at + meta_size(k_types, n_trains)]
    meta[:] = 0
    capacity = rkeys.shape[0]
    rev, rflags = scratch[:capacity], scratch[capacity:2 * capacity]
    rstart = scratch[2 * capacity:3 * capacity + 1]
    node_room = (scratch.shape[0] - 3 * capacity - 1) // 2
    pnodes = scratch[3 * capacity + 1:3 * capacity + 1 + node_room]
    pchains = scratch[3 * capacity + 1 + node_room:3 * capacity + 1 + 2 * node_room]
    n, words = token.shape[0], chain_keys.shape[1]
    allowed = reachable_nodes(adj_start, adj_other, token, blocks, bypassable, bypass)
    revs = [np.empty(0, dtype=np.int64) for _ in range(k_types)]
    flagss = [np.empty(0, dtype=np.int64) for _ in range(k_types)]
    begins = [np.empty(0, dtype=np.int64) for _ in range(k_types)]
    ends = [np.empty(0, dtype=np.int64) for _ in range(k_types)]
    keyss = [np.empty((0, words), dtype=np.uint64) for _ in range(k_types)]
    node_parts = [np.empty(0, dtype=np.int64) for _ in range(k_types)]
    chain_parts = [np.empty(0, dtype=np.int64) for _ in range(k_types)]
    offset = 0
    most_routes = 0     # (the routes of every type at most: a refitted type's are among its parent's)
    limits = np.empty(5, dtype=np.int64)
    last_walked = -1        # (its nodes and chains are still in pnodes and pchains when the walks end)
    for k in range(k_types):
        if io[HEAD + TYPE_FIELDS * k + 1] < 0:
            last_walked = k
    # The refitted types whose routes their parent's walk prices (core.walk.walk_prices_children):
    # (picked, scores) as refit_routes would give them.
    priced = np.zeros(k_types, dtype=np.bool_)
    picks = [np.empty(0, dtype=np.int64) for _ in range(k_types)]
    scores = [np.empty(0, dtype=np.int64) for _ in range(k_types)]
    for k in range(k_types):
        at = HEAD + TYPE_FIELDS * k
        if io[at + 1] >= 0:
            continue
        limits[0], limits[1], limits[2], limits[3], limits[4] = -1, -1, 0, steps, 0
        spec = _spec(walks[io[at]], io, at)
        fast = io[at + 2] != 0
        children = np.zeros(0, dtype=np.int64)
        if walk_prices_children(spec, fast):
            children = np.array([c for c in range(k_types) if io[HEAD + TYPE_FIELDS * c + 1] == k], dtype=np.int64)
        rows = io[at + 12]
        child_visit = np.empty((children.shape[0], rows), dtype=np.int64)
        child_pay = np.empty((children.shape[0], rows), dtype=np.int64)
        for i in range(children.shape[0]):
            limits_at = io[HEAD + TYPE_FIELDS * children[i] + 13]
            for j in range(rows):       # (element by element: an array copy compiles a shape check)
                child_visit[i, j] = io[limits_at + j]
                child_pay[i, j] = io[limits_at + rows + j]
        child_rev = np.empty((capacity if children.shape[0] > 0 else 0, children.shape[0]), dtype=np.int64)
        # (np.bool_: a bool as the Python callers pass, not a literal: the one compiled signature)
        count, total, stored, complete = enumerate_routes(
            adj_start, adj_chain, adj_other, adj_flags, chain_keys, cost, token, blocks, bypassable, allowed,
            node_hex, chain_hexes, chain_mode, spec, fast, io[at + 3] != 0, stop, rev, rkeys, rflags, rstart,
            pnodes, pchains, limits, np.bool_(False), child_visit, child_pay, child_rev)
        if not complete or stored != count:
            # (the types walked before it are complete: they are returned as if the rest had no routes)
            meta[0] = UNFINISHED if not complete else OVERFLOW
            meta[1] = k
            break
        used = rstart[stored]
        if k == last_walked:
            node_parts[k] = pnodes[:used]
            chain_parts[k] = pchains[:used]
        else:
            node_parts[k] = pnodes[:used].copy()
            chain_parts[k] = pchains[:used].copy()
        # (each type's node offsets shifted to its place in the nodes of all types, joined below)
        order = _order_desc(rev[:stored])
        revs[k], keyss[k], flagss[k], begins[k], ends[k] = gather_routes(
            order, rev[:stored], np.arange(stored), rkeys, rflags, rstart[:stored] + offset,
            rstart[1:stored + 1] + offset)
        for i in range(children.shape[0]):     # (the child's routes among the parent's, in its sorted order)
            c = children[i]
            picked = np.empty(stored, dtype=np.int64)
            scored = np.empty(stored, dtype=np.int64)
            m = 0
            for j in range(stored):
                x = child_rev[order[j], i]
                if x >= 0:
                    picked[m] = j
                    scored[m] = x
                    m += 1
            picks[c], scores[c], priced[c] = picked[:m], scored[:m], True
        offset += used
        most_routes += stored
    # a refitted type's routes: their positions among its parent's (sorted) routes
    sources = [np.empty(0, dtype=np.int64) for _ in range(k_types)]
    for k in range(k_types):
        parent = io[HEAD + TYPE_FIELDS * k + 1]
        if parent >= 0:
            most_routes += revs[parent].shape[0]
    out = np.empty(2 * offset + 4 * most_routes, dtype=np.int64)
    nodes = out[:offset]
    chains = out[offset:2 * offset]
    meta[2] = offset
    at = 0
    for k in range(k_types):
        part_nodes, part_chains = node_parts[k], chain_parts[k]
        for i in range(part_nodes.shape[0]):
            nodes[at + i] = part_nodes[i]
            chains[at + i] = part_chains[i]
        at += part_nodes.shape[0]
    for k in range(k_types):
        at = HEAD + TYPE_FIELDS * k
        parent = io[at + 1]
        if parent < 0 or meta[0] != COMBINED:
            continue
        if priced[k]:
            picked, scored = picks[k], scores[k]
        else:
            picked, scored = refit_routes(_spec(walks[io[at]], io, at), cost, token, begins[parent], ends[parent],
                                          nodes)
        order = _order_desc(scored)
        revs[k], keyss[k], flagss[k], begins[k], ends[k] = gather_routes(
            order, scored, picked, keyss[parent], flagss[parent], begins[parent], ends[parent])
        sources[k] = picked[order]
    # The groups: the types by their best route, best first (stable: ties keep the given order).
    top = np.zeros(k_types, dtype=np.int64)
    for k in range(k_types):
        meta[3 + k] = revs[k].shape[0]
        if revs[k].shape[0] > 0:
            top[k] = revs[k][0]
    group_type = np.arange(k_types)
    for a in range(1, k_types):
        b = a
        while b > 0 and top[group_type[b]] > top[group_type[b - 1]]:
            group_type[b], group_type[b - 1] = group_type[b - 1], group_type[b]
            b -= 1
    group_of_type = np.empty(k_types, dtype=np.int64)
    for g in range(k_types):
        group_of_type[group_type[g]] = g
    starts_at = 3 + 2 * k_types
    group_start = meta[starts_at:starts_at + k_types + 1]
    routes = 0
    for g in range(k_types):
        meta[3 + k_types + group_type[g]] = g
        group_start[g] = routes
        routes += revs[group_type[g]].shape[0]
    group_start[k_types] = routes
    packed = out[2 * offset:2 * offset + 4 * routes].reshape(4, routes)
    keys = np.empty((routes, words), dtype=np.uint64)
    for g in range(k_types):
        k = group_type[g]
        lo = group_start[g]
        for i in range(revs[k].shape[0]):
            packed[0, lo + i] = revs[k][i]
            packed[1, lo + i] = flagss[k][i]
            packed[2, lo + i] = begins[k][i]
            packed[3, lo + i] = ends[k][i]
            for w in range(words):
                keys[lo + i, w] = keyss[k][i, w]
    # The trains by their type's group (stable), each train's group, the suffix bounds.
    trains_at = starts_at + k_types + 1
    position = meta[trains_at:trains_at + n_trains]
    group_of = meta[trains_at + n_trains:trains_at + 2 * n_trains]
    suffix = meta[trains_at + 2 * n_trains:trains_at + 3 * n_trains + 1]
    t = 0
    for g in range(k_types):
        for i in range(n_trains):
            if group_of_type[io[trains_plan + i]] == g:
                position[t] = i
                group_of[t] = g
                t += 1
    suffix[n_trains] = 0
    for i in range(n_trains - 1, -1, -1):
        suffix[i] = suffix[i + 1] + top[group_type[group_of[i]]]
    if meta[0] != COMBINED:     # (UNFINISHED or OVERFLOW: no combination)
        return out, keys, np.zeros((1, 1), dtype=np.uint64)
    node_sets = _node_sets(packed[2], packed[3], nodes, n, io, k_types, group_type, group_of_type, group_start,
                           sources) if connected else np.zeros((1, 1), dtype=np.uint64)
    if routes >= index_min:
        meta[0] = WALKED
    elif stop[0] != 0:
        meta[0] = STOPPED
    else:
        same = np.zeros(n_trains, dtype=np.bool_)
        for i in range(1, n_trains):
            same[i] = group_of[i] == group_of[i - 1]
        meta[0] = COMBINED
        meta[1] = best_combination(group_of, group_start, packed[0], keys, same, suffix, packed[1], flag_max,
                                   flag_min, connected, node_sets, np.zeros((1, 1), dtype=np.uint64),
                                   np.full(k_types, -1, dtype=np.int64), np.bool_(False), progress, stop)
    return out, keys, node_sets
