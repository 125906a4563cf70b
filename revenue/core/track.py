"""The track graph's chains, found by one Numba walk over flat path arrays (revenue.graph builds them).

Arrays (one board):
  path_start[h+1]: the paths of hex h are path_start[h]..path_start[h+1] (tile order)
  kind0/val0, kind1/val1 [paths]: each end of a path: END_EDGE and the map edge, END_NODE and the node id,
    END_JUNCTION and the junction's ordinal in its tile
  gauge[paths] (GAUGE_*), terminal[paths]
  node_hex[nodes], neighbour[h * 6 + edge] (-1: no hex there), impassable[h] (a bit per map edge),
  side[h * 6 + edge]: the track key of the hex side (one id for both hexes that share it)
The walk is the one rules/base.md section 6 describes: from each node in id order, through each of its
paths in tile order, follow track until a node, never using a path or a hex side twice; a chain is kept
when it ends at a node with a higher id (the same chain walked from its other end is the same track).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .signatures import B1, I, I1, I2, takes

END_EDGE, END_NODE, END_JUNCTION = 0, 1, 2
GAUGE_BROAD, GAUGE_NARROW, GAUGE_DUAL = 0, 1, 2
CHAIN_STAYS, CHAIN_MOVES, CHAIN_REENTERS = 0, 1, 2
TERM_HERE, TERM_THERE, TERM_INNER = 1, 2, 4
# How walk_chains ended (a track's status past place_board's 1 and 2): done, stopped by its flag, its chains
# past their bytes cap, its steps past their cap. Past a cap the track has no chains.
WALK_DONE, WALK_STOPPED, WALK_TOO_LARGE, WALK_TOO_LONG = 0, 3, 4, 5
# What the track's arrays and the graph built on them take per chain (besides its bitsets: a 64-bit word
# per 64 track keys and per 64 hexes) and per path of a chain, as the walk estimates them (bytes).
CHAIN_BYTES = 320
CHAIN_PATH_BYTES = 64
CHECK_STEPS = 4096      # how often the walk looks at its stop flag (steps)


@njit(cache=True, nogil=True, inline="always")
def _has_end(kind0, val0, kind1, val1, q, kind, val):
    return (kind0[q] == kind and val0[q] == val) or (kind1[q] == kind and val1[q] == val)


@njit(cache=True, nogil=True)
def _grow(a, need):
    if need <= len(a):
        return a
    b = np.empty(max(need, 2 * len(a)), dtype=a.dtype)
    for i in range(len(a)):     # (element by element: an array copy compiles a shape check)
        b[i] = a[i]
    return b


@njit(cache=True, nogil=True)
def walk_chains(path_start, kind0, val0, kind1, val1, gauge, terminal, node_hex, neighbour, impassable, side,
                n_sides, stop, caps):
    """Every chain: (chain_a, chain_b, chain_start, chain_paths, status), the paths of chain c from node
    chain_a[c] to chain_b[c] being chain_paths[chain_start[c]:chain_start[c + 1]] (global path indexes), in
    the order of discovery (by lower end, then depth first in tile path order). The walk follows every
    trail of track, which grows exponentially on boards of hexes joining many sides: it ends with no
    chains and status WALK_STOPPED when stop[0] is set, WALK_TOO_LARGE when the chains' estimated bytes
    (CHAIN_BYTES, CHAIN_PATH_BYTES) pass caps[1], WALK_TOO_LONG past caps[0] steps."""
    n_paths = len(kind0)
    n_nodes = len(node_hex)
    n_hexes = len(path_start) - 1
    chain_bytes = CHAIN_BYTES + 8 * ((n_sides + n_paths) // 64 + n_hexes // 64 + 2)
    max_steps, max_bytes = caps[0], caps[1]
    steps, check = 0, CHECK_STEPS
    status = WALK_DONE
    walked = np.zeros(n_paths, dtype=np.bool_)
    used_side = np.zeros(max(n_sides, 1), dtype=np.bool_)
    depth_max = n_paths + 1
    f_path = np.empty(depth_max, dtype=np.int64)
    f_hex = np.empty(depth_max, dtype=np.int64)
    f_kind = np.empty(depth_max, dtype=np.int64)
    f_val = np.empty(depth_max, dtype=np.int64)
    f_end = np.empty(depth_max, dtype=np.int64)
    f_q = np.empty(depth_max, dtype=np.int64)
    f_side = np.empty(depth_max, dtype=np.int64)
    chain_a = np.empty(64, dtype=np.int64)
    chain_b = np.empty(64, dtype=np.int64)
    chain_start = np.zeros(65, dtype=np.int64)
    chain_paths = np.empty(256, dtype=np.int64)
    # The paths with an end on each hex side (h * 6 + edge), in path order: a walk crossing into a hex
    # tries only those, not every path of the hex (the same paths in the same order).
    edge_start = np.zeros(6 * n_hexes + 1, dtype=np.int64)
    for h in range(n_hexes):
        for p in range(path_start[h], path_start[h + 1]):
            if kind0[p] == END_EDGE:
                edge_start[h * 6 + val0[p] + 1] += 1
            if kind1[p] == END_EDGE and not (kind0[p] == END_EDGE and val0[p] == val1[p]):
                edge_start[h * 6 + val1[p] + 1] += 1
    for i in range(6 * n_hexes):
        edge_start[i + 1] += edge_start[i]
    edge_path = np.empty(edge_start[6 * n_hexes], dtype=np.int64)
    fill = edge_start[:-1].copy()
    for h in range(n_hexes):
        for p in range(path_start[h], path_start[h + 1]):
            if kind0[p] == END_EDGE:
                edge_path[fill[h * 6 + val0[p]]] = p
                fill[h * 6 + val0[p]] += 1
            if kind1[p] == END_EDGE and not (kind0[p] == END_EDGE and val0[p] == val1[p]):
                edge_path[fill[h * 6 + val1[p]]] = p
                fill[h * 6 + val1[p]] += 1
    n_chains = 0
    for u in range(n_nodes):
        if status != WALK_DONE:
            break
        h = node_hex[u]
        for p in range(path_start[h], path_start[h + 1]):
            if status != WALK_DONE:
                break
            if not _has_end(kind0, val0, kind1, val1, p, END_NODE, u):
                continue
            d = 0
            # (a path's end it is entered by is passed over; its first end at once, without a step)
            f_path[0], f_hex[0], f_kind[0], f_val[0], f_end[0], f_q[0], f_side[0] = \
                p, h, END_NODE, u, 1 if kind0[p] == END_NODE and val0[p] == u else 0, -1, -1
            walked[p] = True
            while d >= 0:
                steps += 1
                if steps >= check:
                    check += CHECK_STEPS
                    if stop[0] != 0:
                        status = WALK_STOPPED
                        break
                    if steps > max_steps:
                        status = WALK_TOO_LONG
                        break
                p, h, e = f_path[d], f_hex[d], f_end[d]
                if e == 2:
                    walked[p] = False
                    d -= 1
                    continue
                kind = kind0[p] if e == 0 else kind1[p]
                val = val0[p] if e == 0 else val1[p]
                if kind == f_kind[d] and val == f_val[d]:     # the end it was entered by
                    f_end[d] += 1
                    continue
                if kind == END_NODE:
                    if val > u:
                        if (n_chains + 1) * chain_bytes + (chain_start[n_chains] + d + 1) * CHAIN_PATH_BYTES \
                                > max_bytes:
                            status = WALK_TOO_LARGE
                            break
                        chain_a = _grow(chain_a, n_chains + 1)
                        chain_b = _grow(chain_b, n_chains + 1)
                        chain_start = _grow(chain_start, n_chains + 2)
                        base = chain_start[n_chains]
                        chain_paths = _grow(chain_paths, base + d + 1)
                        for i in range(d + 1):
                            chain_paths[base + i] = f_path[i]
                        chain_a[n_chains], chain_b[n_chains] = u, val
                        chain_start[n_chains + 1] = base + d + 1
                        n_chains += 1
                    f_end[d] += 1
                    continue
                if kind == END_JUNCTION:
                    q = path_start[h] if f_q[d] < 0 else f_q[d]
                    found = -1
                    while q < path_start[h + 1]:
                        if q != p and not walked[q] and _has_end(kind0, val0, kind1, val1, q, END_JUNCTION, val):
                            found = q
                            break
                        q += 1
                    if found < 0:
                        f_end[d] += 1
                        f_q[d] = -1
                        continue
                    f_q[d] = found + 1
                    d += 1
                    f_path[d], f_hex[d], f_kind[d], f_val[d], f_end[d], f_q[d], f_side[d] = \
                        found, h, END_JUNCTION, val, 1 if kind0[found] == END_JUNCTION and val0[found] == val else 0, \
                        -1, -1
                    walked[found] = True
                    continue
                # an edge: cross to the neighbouring hex, once per hex side
                other = neighbour[h * 6 + val]
                back = (val + 3) % 6
                if f_q[d] < 0:
                    s = side[h * 6 + val]
                    if other < 0 or used_side[s] or (impassable[h] >> val) & 1 or (impassable[other] >> back) & 1:
                        f_end[d] += 1
                        continue
                    used_side[s] = True
                    f_side[d] = s
                    f_q[d] = edge_start[other * 6 + back]
                i = f_q[d]      # (here an index into edge_path)
                found = -1
                while i < edge_start[other * 6 + back + 1]:
                    q = edge_path[i]
                    if not walked[q] and (gauge[p] == gauge[q] or gauge[p] == GAUGE_DUAL or gauge[q] == GAUGE_DUAL):
                        found = q
                        break
                    i += 1
                if found < 0:
                    used_side[f_side[d]] = False
                    f_side[d] = -1
                    f_end[d] += 1
                    f_q[d] = -1
                    continue
                f_q[d] = i + 1
                d += 1
                f_path[d], f_hex[d], f_kind[d], f_val[d], f_end[d], f_q[d], f_side[d] = \
                    found, other, END_EDGE, back, 1 if kind0[found] == END_EDGE and val0[found] == back else 0, -1, -1
                walked[found] = True
    if status != WALK_DONE:
        n_chains = 0
    return chain_a[:n_chains].copy(), chain_b[:n_chains].copy(), chain_start[:n_chains + 1].copy(), \
        chain_paths[:chain_start[n_chains]].copy(), status


@njit(cache=True, nogil=True)
def chain_arrays(chain_a, chain_b, chain_start, chain_paths, path_hex, kind0, val0, kind1, val1, terminal,
                 side, n_sides, n_nodes, n_hexes):
    """What the kernels and the graph read of the chains: each chain's track keys (numbered by first use,
    chains in order: hex sides, and in-hex paths with no edge), as sorted lists (key_start, key_list) and
    bitsets; the chains at each node (CSR, chain order) with their terminal flags seen from that node
    (TERM_*); and for the no-re-entry rule, each chain's inner hexes (bitsets) and mode (CHAIN_*)."""
    n_chains = len(chain_a)
    raw_to_key = np.full(n_sides + len(kind0), -1, dtype=np.int64)
    n_keys = 0
    key_start = np.zeros(n_chains + 1, dtype=np.int64)
    key_list = np.empty(2 * len(chain_paths) + 1, dtype=np.int64)
    scratch = np.empty(2 * len(chain_paths) + 1, dtype=np.int64)
    term_a = np.zeros(n_chains, dtype=np.bool_)
    term_b = np.zeros(n_chains, dtype=np.bool_)
    term_inner = np.zeros(n_chains, dtype=np.bool_)
    for c in range(n_chains):
        k = 0
        first, last = chain_start[c], chain_start[c + 1]
        for i in range(first, last):
            p = chain_paths[i]
            edges = 0
            for e in range(2):
                kind = kind0[p] if e == 0 else kind1[p]
                if kind == END_EDGE:
                    edges += 1
                    raw = side[path_hex[p] * 6 + (val0[p] if e == 0 else val1[p])]
                    if raw_to_key[raw] < 0:
                        raw_to_key[raw] = n_keys
                        n_keys += 1
                    scratch[k] = raw_to_key[raw]
                    k += 1
            if edges == 0:
                raw = n_sides + p
                if raw_to_key[raw] < 0:
                    raw_to_key[raw] = n_keys
                    n_keys += 1
                scratch[k] = raw_to_key[raw]
                k += 1
            if i > first and i < last - 1 and terminal[p]:
                term_inner[c] = True
        term_a[c] = terminal[chain_paths[first]]
        term_b[c] = terminal[chain_paths[last - 1]]
        for i in range(1, k):      # a chain's few keys sorted in place (np.sort allocates per chain)
            x = scratch[i]
            j = i - 1
            while j >= 0 and scratch[j] > x:
                scratch[j + 1] = scratch[j]
                j -= 1
            scratch[j + 1] = x
        base = key_start[c]
        m = 0
        for i in range(k):
            if i == 0 or scratch[i] != scratch[i - 1]:
                key_list[base + m] = scratch[i]
                m += 1
        key_start[c + 1] = base + m
    words = max(1, (n_keys + 63) // 64)
    bits = np.zeros((n_chains, words), dtype=np.uint64)
    for c in range(n_chains):
        for i in range(key_start[c], key_start[c + 1]):
            k = key_list[i]
            bits[c, k >> 6] |= np.uint64(1) << np.uint64(k & 63)
    # chains at each node, in chain order
    degree = np.zeros(n_nodes + 1, dtype=np.int64)
    for c in range(n_chains):
        degree[chain_a[c] + 1] += 1
        degree[chain_b[c] + 1] += 1
    adj_start = degree      # (the counts summed in place: np.cumsum would add a kernel to compile)
    for v in range(n_nodes):
        adj_start[v + 1] += adj_start[v]
    fill = adj_start[:-1].copy()
    adj_chain = np.empty(2 * n_chains, dtype=np.int64)
    adj_other = np.empty(2 * n_chains, dtype=np.int64)
    adj_flags = np.empty(2 * n_chains, dtype=np.int64)
    for c in range(n_chains):
        for end in range(2):
            v = chain_a[c] if end == 0 else chain_b[c]
            w = chain_b[c] if end == 0 else chain_a[c]
            here = term_a[c] if end == 0 else term_b[c]
            there = term_b[c] if end == 0 else term_a[c]
            i = fill[v]
            fill[v] += 1
            adj_chain[i], adj_other[i] = c, w
            adj_flags[i] = (TERM_HERE if here else 0) | (TERM_THERE if there else 0) | \
                (TERM_INNER if term_inner[c] else 0)
    # hexes walked through (consecutive paths in one hex count once)
    hex_words = max(1, (n_hexes + 63) // 64)
    inner = np.zeros((n_chains, hex_words), dtype=np.uint64)
    mode = np.zeros(n_chains, dtype=np.int64)
    seen = np.zeros(n_hexes, dtype=np.bool_)
    walk = np.empty(len(chain_paths) + 1, dtype=np.int64)
    for c in range(n_chains):
        n = 0
        for i in range(chain_start[c], chain_start[c + 1]):
            h = path_hex[chain_paths[i]]
            if n == 0 or walk[n - 1] != h:
                walk[n] = h
                n += 1
        if n == 1:
            mode[c] = CHAIN_STAYS
            continue
        mode[c] = CHAIN_MOVES
        for i in range(n):
            if seen[walk[i]]:
                mode[c] = CHAIN_REENTERS
            seen[walk[i]] = True
        for i in range(n):
            seen[walk[i]] = False
        for i in range(1, n - 1):
            h = walk[i]
            inner[c, h >> 6] |= np.uint64(1) << np.uint64(h & 63)
    return (n_keys, key_start, key_list[:key_start[n_chains]].copy(), bits, term_a, term_b, term_inner,
            adj_start, adj_chain, adj_other, adj_flags, inner, mode)


@takes(I1, I1, B1, B1, B1, I)
@njit(cache=True, nogil=True)
def reachable_nodes(adj_start, adj_other, token, blocks, bypassable, bypass):
    """Nodes that some route through a token city can reach (revenue.optimizer.adjacency.reachable)."""
    n = len(token)
    seen = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int64)
    head, tail = 0, 0
    for v in range(n):
        if token[v]:
            seen[v] = True
            queue[tail] = v
            tail += 1
    while head < tail:
        v = queue[head]
        head += 1
        if blocks[v] and not token[v] and not (bypass and bypassable[v]):
            continue
        for i in range(adj_start[v], adj_start[v + 1]):
            w = adj_other[i]
            if not seen[w]:
                seen[w] = True
                queue[tail] = w
                tail += 1
    return seen


@njit(cache=True, nogil=True)
def assemble(gids, reg_path_start, reg_node_start, reg_table):
    """A board's path and node arrays from the geometry id of each hex (revenue.geometry's registry): path_start,
    node_base (per hex), path_hex, the path ends with node ends as board node ids, gauge, terminal, and per
    node its hex and its registry entry."""
    n_hexes = len(gids)
    path_start = np.zeros(n_hexes + 1, dtype=np.int64)
    node_base = np.zeros(n_hexes + 1, dtype=np.int64)
    for h in range(n_hexes):
        g = gids[h]
        path_start[h + 1] = path_start[h] + reg_path_start[g + 1] - reg_path_start[g]
        node_base[h + 1] = node_base[h] + reg_node_start[g + 1] - reg_node_start[g]
    n_paths, n_nodes = path_start[n_hexes], node_base[n_hexes]
    path_hex = np.empty(n_paths, dtype=np.int64)
    kind0 = np.empty(n_paths, dtype=np.int64)
    val0 = np.empty(n_paths, dtype=np.int64)
    kind1 = np.empty(n_paths, dtype=np.int64)
    val1 = np.empty(n_paths, dtype=np.int64)
    gauge = np.empty(n_paths, dtype=np.int64)
    terminal = np.empty(n_paths, dtype=np.bool_)
    node_hex = np.empty(n_nodes, dtype=np.int64)
    node_reg = np.empty(n_nodes, dtype=np.int64)
    for h in range(n_hexes):
        g = gids[h]
        for i in range(path_start[h + 1] - path_start[h]):
            p, r = path_start[h] + i, reg_path_start[g] + i
            path_hex[p] = h
            kind0[p], val0[p], kind1[p], val1[p] = reg_table[r, 0], reg_table[r, 1], reg_table[r, 2], reg_table[r, 3]
            if kind0[p] == END_NODE:
                val0[p] += node_base[h]
            if kind1[p] == END_NODE:
                val1[p] += node_base[h]
            gauge[p] = reg_table[r, 4]
            terminal[p] = reg_table[r, 5] != 0
        for i in range(node_base[h + 1] - node_base[h]):
            node_hex[node_base[h] + i] = h
            node_reg[node_base[h] + i] = reg_node_start[g] + i
    return path_start, node_base, path_hex, kind0, val0, kind1, val1, gauge, terminal, node_hex, node_reg


@njit(cache=True, nogil=True)
def node_columns(node_reg, reg_node_table):
    """The board's nodes' fixed attributes from their registry rows (columns: kind, slots, visit cost, diesel
    value, has a diesel value, has groups): (kind, slots, cost, diesel, has_diesel, the nodes with groups)."""
    n = len(node_reg)
    kind = np.empty(n, dtype=np.int64)
    slots = np.empty(n, dtype=np.int64)
    cost = np.empty(n, dtype=np.int64)
    diesel = np.empty(n, dtype=np.int64)
    has_diesel = np.empty(n, dtype=np.bool_)
    grouped = np.empty(n, dtype=np.int64)
    n_grouped = 0
    for v in range(n):
        r = node_reg[v]
        kind[v], slots[v], cost[v], diesel[v] = reg_node_table[r, 0], reg_node_table[r, 1], reg_node_table[r, 2], \
            reg_node_table[r, 3]
        has_diesel[v] = reg_node_table[r, 4] != 0
        if reg_node_table[r, 5] != 0:
            grouped[n_grouped] = v
            n_grouped += 1
    return kind, slots, cost, diesel, has_diesel, grouped[:n_grouped].copy()


NODE_PART = 6    # the registry node table's column of a node's part index in its tile code


@njit(cache=True, nogil=True)
def chain_idents(chain_start, chain_paths, path_start, path_hex, kind0, val0, kind1, val1, node_reg, reg_node_table):
    """Every chain's 18xx.games chain id (rules/base.md section 8) walked from its first node: the hexes
    ident_hex[ident_start[c]:ident_start[c + 1]] in walking order, a path skipped when one of its ends is
    a junction already met on the chain; and for a chain of one in-hex node-to-node path on a tile with
    more than one such path (the engine's ambiguous tile), the two nodes' part indexes ascending in
    ident_parts[2c], ident_parts[2c + 1] (the id is then "<hex> a.b"), else -1."""
    n_chains = len(chain_start) - 1
    ident_start = np.zeros(n_chains + 1, dtype=np.int64)
    ident_hex = np.empty(len(chain_paths), dtype=np.int64)
    ident_parts = np.full(2 * n_chains, -1, dtype=np.int64)
    met_hex = np.empty(2 * len(chain_paths) + 1, dtype=np.int64)
    met_junction = np.empty(2 * len(chain_paths) + 1, dtype=np.int64)
    n = 0
    for c in range(n_chains):
        first, last = chain_start[c], chain_start[c + 1]
        if last - first == 1:
            p = chain_paths[first]
            if kind0[p] == END_NODE and kind1[p] == END_NODE:
                h = path_hex[p]
                pairs = 0
                for q in range(path_start[h], path_start[h + 1]):
                    if kind0[q] == END_NODE and kind1[q] == END_NODE:
                        pairs += 1
                if pairs > 1:
                    a = reg_node_table[node_reg[val0[p]], NODE_PART]
                    b = reg_node_table[node_reg[val1[p]], NODE_PART]
                    ident_parts[2 * c], ident_parts[2 * c + 1] = min(a, b), max(a, b)
                    ident_hex[n] = h
                    n += 1
                    ident_start[c + 1] = n
                    continue
        n_met = 0
        for i in range(first, last):
            p = chain_paths[i]
            h = path_hex[p]
            skip = False
            for e in range(2):
                if (kind0[p] if e == 0 else kind1[p]) == END_JUNCTION:
                    j = val0[p] if e == 0 else val1[p]
                    for m in range(n_met):
                        if met_hex[m] == h and met_junction[m] == j:
                            skip = True
            if skip:
                continue
            for e in range(2):
                if (kind0[p] if e == 0 else kind1[p]) == END_JUNCTION:
                    met_hex[n_met], met_junction[n_met] = h, val0[p] if e == 0 else val1[p]
                    n_met += 1
            ident_hex[n] = h
            n += 1
        ident_start[c + 1] = n
    return ident_start, ident_hex[:n].copy(), ident_parts


# build_track's results, packed so that a call boxes four arrays rather than thirty (each boxed array
# costs about half a microsecond): the int64 arrays, in this order, one after the other in `ints`, the bool
# arrays likewise in `bools`; `ints` ends with TRACK_TAIL numbers, read in one go: where each int64 array
# starts (and the end), where each bool array starts (and the end), the number of track keys, and
# place_board's status, stop total change and code length change (0s from build_track). revenue.geometry.Track
# splits them.
TRACK_INTS = ("gids", "path_start", "node_base", "path_hex", "kind0", "val0", "kind1", "val1", "node_hex", "node_reg",
              "chain_a", "chain_b", "chain_start", "chain_paths", "key_start", "key_list", "adj_start", "adj_chain",
              "adj_other", "adj_flags", "chain_mode", "node_kind", "node_slots", "node_cost", "node_diesel",
              "node_grouped", "ident_start", "ident_hex", "ident_parts", "token_node")
TRACK_BOOLS = ("term_a", "term_b", "term_inner", "node_has_diesel")
TRACK_TAIL = len(TRACK_INTS) + len(TRACK_BOOLS) + 6


@njit(cache=True, nogil=True, inline="always")
def _pack(arrays, tail):
    """A tuple of 1-D arrays of one dtype as one array and the start of each (and the end), the `tail`
    numbers after them (room for the starts included)."""
    start = np.zeros(len(arrays) + 1, dtype=np.int64)
    for i in range(len(arrays)):
        start[i + 1] = start[i] + len(arrays[i])
    out = np.empty(start[len(arrays)] + tail, dtype=arrays[0].dtype)
    for i in range(len(arrays)):
        part = arrays[i]
        for j in range(len(part)):      # (element by element: an array copy compiles a shape check)
            out[start[i] + j] = part[j]
    return out, start


@takes(I1, I1, I1, I1, I2, I2, I1, I1, I, I1, I, I, I, I1, I1)
@njit(cache=True, nogil=True)
def _walk_packed(gids, impassable, reg_path_start, reg_node_start, reg_table, reg_node_table, neighbour, side,
                 n_sides, token_node, status, stops, chars, stop, caps):
    """assemble, walk_chains, chain_arrays and node_columns, packed (TRACK_INTS, TRACK_BOOLS, TRACK_TAIL):
    (ints, bools, chain key bitsets, chain inner hexes). A walk cut short (walk_chains) leaves its status
    in place of `status`."""
    path_start, node_base, path_hex, kind0, val0, kind1, val1, gauge, terminal, node_hex, node_reg = assemble(
        gids, reg_path_start, reg_node_start, reg_table)
    chain_a, chain_b, chain_start, chain_paths, walked = walk_chains(
        path_start, kind0, val0, kind1, val1, gauge, terminal, node_hex, neighbour, impassable, side, n_sides, stop,
        caps)
    if walked != WALK_DONE:
        status = walked
    (n_keys, key_start, key_list, bits, term_a, term_b, term_inner, adj_start, adj_chain, adj_other, adj_flags,
     inner, mode) = chain_arrays(chain_a, chain_b, chain_start, chain_paths, path_hex, kind0, val0, kind1, val1,
                                 terminal, side, n_sides, len(node_hex), len(gids))
    kind, slots, cost, diesel, has_diesel, grouped = node_columns(node_reg, reg_node_table)
    ident_start, ident_hex, ident_parts = chain_idents(chain_start, chain_paths, path_start, path_hex, kind0, val0,
                                                       kind1, val1, node_reg, reg_node_table)
    ints, int_start = _pack((gids, path_start, node_base, path_hex, kind0, val0, kind1, val1, node_hex, node_reg,
                             chain_a, chain_b, chain_start, chain_paths, key_start, key_list, adj_start, adj_chain,
                             adj_other, adj_flags, mode, kind, slots, cost, diesel, grouped, ident_start, ident_hex,
                             ident_parts, token_node), TRACK_TAIL)
    bools, bool_start = _pack((term_a, term_b, term_inner, has_diesel), 0)
    tail = ints[len(ints) - TRACK_TAIL:]
    for i in range(len(int_start)):     # (element by element: an array copy compiles a shape check)
        tail[i] = int_start[i]
    for i in range(len(bool_start)):
        tail[len(int_start) + i] = bool_start[i]
    tail[TRACK_TAIL - 4], tail[TRACK_TAIL - 3], tail[TRACK_TAIL - 2], tail[TRACK_TAIL - 1] = n_keys, status, stops, \
        chars
    return ints, bools, bits, inner


_NO_TOKENS = np.empty(0, dtype=np.int64)


def build_track(gids, impassable, reg_path_start, reg_node_start, reg_table, reg_node_table, neighbour, side,
                n_sides, stop, caps):
    """assemble, walk_chains, chain_arrays and node_columns in one call (one dispatch): everything
    revenue.geometry.Track holds, packed (_walk_packed; no tokens placed). `stop` and `caps`: walk_chains'."""
    return _walk_packed(gids, impassable, reg_path_start, reg_node_start, reg_table, reg_node_table, neighbour,
                        side, n_sides, _NO_TOKENS, 0, 0, 0, stop, caps)


@njit(cache=True, nogil=True)
def lay_tiles(lays, table, printed_gids, printed_masks):
    """A board's hexes from the printed map and the rows of its checked lays (revenue.known.Known.table:
    hex index, geometry id, impassable bits, stop total and code length changes), in one call: (geometry
    ids, impassable bits, stop total change, code length change, False when a hex is laid twice)."""
    gids = printed_gids.copy()
    masks = printed_masks.copy()
    laid = np.zeros(len(printed_gids), dtype=np.bool_)
    stops, chars = 0, 0
    for i in range(len(lays)):
        row = lays[i]
        h = table[row, 0]
        if laid[h]:
            return gids, masks, 0, 0, False
        laid[h] = True
        gids[h], masks[h] = table[row, 1], table[row, 2]
        stops += table[row, 3]
        chars += table[row, 4]
    return gids, masks, stops, chars, True


@takes(I1, I2, I1, I1, I1, I2)
@njit(cache=True, nogil=True)
def place_tokens(tokens, token_table, gids, node_base, reg_city_start, reg_city_table):
    """A board's tokens (ids into revenue.known.Known.token_table: hex index, city index, company number)
    on the hexes' geometries (gids; registry city rows: slots, local node or -1): the board node of each
    token's city (-1 when the city is no node), or an empty array when a token's city does not exist on its
    tile, is full, or already holds the company's token (revenue.board_request then checks the board in full
    and names the field)."""
    n = len(tokens)
    n_hexes = len(gids)
    city_base = np.zeros(n_hexes + 1, dtype=np.int64)      # a number per city of the board
    for h in range(n_hexes):
        g = gids[h]
        city_base[h + 1] = city_base[h] + reg_city_start[g + 1] - reg_city_start[g]
    placed = np.zeros(city_base[n_hexes], dtype=np.int64)
    last = np.full(city_base[n_hexes], -1, dtype=np.int64)  # the latest token in each city, and before it
    before = np.full(max(n, 1), -1, dtype=np.int64)
    node = np.empty(n, dtype=np.int64)
    for t in range(n):
        row = tokens[t]
        h, city, company = token_table[row, 0], token_table[row, 1], token_table[row, 2]
        g = gids[h]
        if city >= reg_city_start[g + 1] - reg_city_start[g]:
            return np.empty(0, dtype=np.int64)
        c = city_base[h] + city
        r = reg_city_start[g] + city
        if placed[c] >= reg_city_table[r, 0]:
            return np.empty(0, dtype=np.int64)
        s = last[c]
        while s >= 0:
            if token_table[tokens[s], 2] == company:
                return np.empty(0, dtype=np.int64)
            s = before[s]
        before[t], last[c] = last[c], t
        placed[c] += 1
        local = reg_city_table[r, 1]
        node[t] = node_base[h] + local if local >= 0 else -1
    return node


@takes(I1, I2, I1, I)
@njit(cache=True, nogil=True)
def least_town(node_reg, reg_node_table, reg_values, town_kind):
    """The least value (reg_values, the registry's nodes' revenue in a phase) of the board's nodes of kind
    town_kind (their registry rows node_reg; column 0 the kind), or NO_TOWN without such nodes."""
    least = NO_TOWN
    for v in range(len(node_reg)):
        r = node_reg[v]
        if reg_node_table[r, 0] == town_kind and reg_values[r] < least:
            least = reg_values[r]
    return least


NO_TOWN = 1 << 62   # least_town's answer for a board without towns (no stop pays this much)


@takes(I1, I2, I1, I1, I1, I2, I1, I1, I2, I2, I1, I2, I1, I1, I, I1, I1)
@njit(cache=True, nogil=True)
def place_board(lays, table, printed_gids, printed_masks, tokens, token_table, reg_path_start, reg_node_start,
                reg_table, reg_node_table, reg_city_start, reg_city_table, neighbour, side, n_sides, stop, caps):
    """A board of checked lays and tokens in one call: lay_tiles, its track (_walk_packed) and
    place_tokens, packed with place_board's status (1: a hex laid twice, 2: a token that does not fit;
    revenue.board_request then checks the board in full) and the lays' stop total and code length
    changes."""
    gids, masks, stops, chars, once = lay_tiles(lays, table, printed_gids, printed_masks)
    token_node = np.empty(0, dtype=np.int64)
    status = np.int64(0)    # (one call of _walk_packed below, with the types build_track gives it: one signature)
    if not once:
        status, stops, chars = 1, 0, 0
    else:
        node_base = np.zeros(len(gids) + 1, dtype=np.int64)
        for h in range(len(gids)):
            g = gids[h]
            node_base[h + 1] = node_base[h] + reg_node_start[g + 1] - reg_node_start[g]
        token_node = place_tokens(tokens, token_table, gids, node_base, reg_city_start, reg_city_table)
        if len(token_node) < len(tokens):
            status = 2
    if status:
        gids, masks = gids[:0], masks[:0]    # (no walk)
    return _walk_packed(gids, masks, reg_path_start, reg_node_start, reg_table, reg_node_table, neighbour, side,
                        n_sides, token_node, status, stops, chars, stop, caps)
