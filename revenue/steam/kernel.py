"""Numba kernels of the Steam goods-delivery search.

The kernels see only flat arrays: a CSR adjacency over the *complete* links, the colour of every city
(-1 for towns), and the cube groups (origin stop, colour). Titles, ids and JSON stay in Python.

A delivery is scored by one packed integer so that comparing two deliveries is one comparison:
more own points first, then fewer points for other players, then fewer links (see `pack_key`).
"""
from __future__ import annotations

import numpy as np
from numba import njit, types

from ..core.signatures import B, I, I1, takes

I32_1, I32_2, I8_1 = types.int32[::1], types.int32[:, ::1], types.int8[::1]

UNREACHED = 1 << 20
# The search reads its stop flag once every STOP_POLL steps (a step costs nanoseconds).
STOP_POLL = 4096
# Packed key fields are 6 bits wide, so paths may have at most 63 links (the API caps levels far lower).
FIELD = 64


@njit(cache=True, nogil=True)
def pack_key(own, others, length):
    """Higher is better: own points, then fewer others' points, then fewer links."""
    return (own * FIELD + (FIELD - 1 - others)) * FIELD + (FIELD - 1 - length)


@takes(I1, I32_1, I8_1, I)
@njit(cache=True, nogil=True)
def colour_distances(adj_ptr, adj_to, stop_colour, n_colours):
    """dist[c, v]: fewest links from v to any city of colour c (BFS over complete links).

    A lower bound on the length of any delivery from v to a city of colour c, used to prune."""
    n = stop_colour.shape[0]
    dist = np.full((n_colours, n), UNREACHED, np.int32)
    queue = np.empty(n, np.int32)
    for c in range(n_colours):
        head = 0
        tail = 0
        for v in range(n):
            if stop_colour[v] == c:
                dist[c, v] = 0
                queue[tail] = v
                tail += 1
        while head < tail:
            v = queue[head]
            head += 1
            for k in range(adj_ptr[v], adj_ptr[v + 1]):
                w = adj_to[k]
                if dist[c, w] == UNREACHED:
                    dist[c, w] = dist[c, v] + 1
                    queue[tail] = w
                    tail += 1
    return dist


@njit(cache=True, nogil=True)
def _record(key, length, path_stops, path_links, last_stop, last_link, group,
            keys, lens, links_out, stops_out, groups_out, size, capacity):
    """Insert a delivery into a list kept sorted by key (best first); equal keys keep discovery order.
    Returns the new size."""
    if size == capacity and key <= keys[size - 1]:
        return size
    pos = size if size < capacity else capacity - 1
    while pos > 0 and keys[pos - 1] < key:
        pos -= 1
    last = size if size < capacity else capacity - 1
    for i in range(last, pos, -1):
        keys[i] = keys[i - 1]
        lens[i] = lens[i - 1]
        groups_out[i] = groups_out[i - 1]
        for j in range(links_out.shape[1]):     # (element by element: an array copy compiles a shape check)
            links_out[i, j] = links_out[i - 1, j]
        for j in range(stops_out.shape[1]):
            stops_out[i, j] = stops_out[i - 1, j]
    keys[pos] = key
    lens[pos] = length
    groups_out[pos] = group
    for j in range(length - 1):
        links_out[pos, j] = path_links[j + 1]
        stops_out[pos, j] = path_stops[j]
    links_out[pos, length - 1] = last_link
    stops_out[pos, length - 1] = path_stops[length - 1]
    stops_out[pos, length] = last_stop
    return size + 1 if size < capacity else size


@takes(I1, I32_1, I32_1, I32_1, I8_1, I32_2, I32_1, I32_2, I, I, I, I, B, B, I, I1)
@njit(cache=True, nogil=True)
def search(adj_ptr, adj_to, adj_link, adj_owner, stop_colour, dist,
           origins, origin_groups, n_groups, player, n_players, level,
           own_majority, require_own_link, top_k, stop):
    """Every legal delivery of every cube group, exhaustively (depth-first, explicit stack).

    origins[i] is a stop holding cubes; origin_groups[i, c] is the group index of colour c there, or -1.
    All colours of one origin are searched in one walk: a colour drops out when the walk enters the
    first city of that colour (the delivery ends there), the walk goes on for the others.

    `stop[0]` set to nonzero (by a watchdog, for a deadline or a cancel) ends the search within STOP_POLL
    steps; what it returns then is incomplete, and the caller must not use it as an answer.

    Exact for what it returns, not an enumeration: branches that cannot change any group's best or the
    top K are cut (branch and bound), so group_found counts only the deliveries met on the way; it is
    > 0 exactly when the group has a legal delivery.

    Returns (group_key, group_len, group_links, group_stops, group_found,
             top_key, top_len, top_links, top_stops, top_group, top_size, explored);
    keys are -1 where there is no delivery.
    """
    n = adj_ptr.shape[0] - 1
    n_colours = origin_groups.shape[1]
    g_key = np.full(n_groups, -1, np.int64)
    g_len = np.zeros(n_groups, np.int32)
    g_links = np.full((n_groups, level), -1, np.int32)
    g_stops = np.full((n_groups, level + 1), -1, np.int32)
    g_found = np.zeros(n_groups, np.int64)
    t_key = np.full(top_k, -1, np.int64)
    t_len = np.zeros(top_k, np.int32)
    t_links = np.full((top_k, level), -1, np.int32)
    t_stops = np.full((top_k, level + 1), -1, np.int32)
    t_group = np.full(top_k, -1, np.int32)
    t_size = np.int64(0)    # (not a literal 0, which would compile _record once more for it)
    explored = 0

    visited = np.zeros(n, np.bool_)
    count = np.zeros(max(n_players, 1), np.int32)  # links of each other player on the current path
    p_stop = np.empty(level + 1, np.int32)
    p_link = np.empty(level + 1, np.int32)
    p_owner = np.empty(level + 1, np.int32)
    p_iter = np.empty(level + 1, np.int64)
    p_alive = np.empty(level + 1, np.int64)
    p_own = np.empty(level + 1, np.int32)
    p_others = np.empty(level + 1, np.int32)
    p_maxother = np.empty(level + 1, np.int32)

    for oi in range(origins.shape[0]):
        if stop[0] != 0:
            break
        s = origins[oi]
        alive0 = 0
        for c in range(n_colours):
            if origin_groups[oi, c] >= 0:
                alive0 |= 1 << c
        if alive0 == 0:
            continue
        visited[s] = True
        p_stop[0] = s
        p_iter[0] = adj_ptr[s]
        p_alive[0] = alive0
        p_own[0] = 0
        p_others[0] = 0
        p_maxother[0] = 0
        depth = 0
        while depth >= 0:
            v = p_stop[depth]
            k = p_iter[depth]
            if k == adj_ptr[v + 1]:
                visited[v] = False
                if depth > 0:
                    q = p_owner[depth]
                    if q >= 0 and q != player:
                        count[q] -= 1
                depth -= 1
                continue
            p_iter[depth] = k + 1
            w = adj_to[k]
            if visited[w]:
                continue
            explored += 1
            if explored % STOP_POLL == 0 and stop[0] != 0:
                break
            q = adj_owner[k]
            own = p_own[depth]
            others = p_others[depth]
            maxother = p_maxother[depth]
            if q == player:
                own += 1
            elif q >= 0:
                others += 1
                if count[q] + 1 > maxother:
                    maxother = count[q] + 1
            nd = depth + 1
            alive = p_alive[depth]
            col = stop_colour[w]
            if col >= 0 and (alive >> col) & 1:
                # First city of this colour: the cube of this colour must stop here.
                alive &= ~(1 << col)
                legal = True
                if own_majority and own < maxother:
                    legal = False
                if require_own_link and own == 0:
                    legal = False
                if legal:
                    g = origin_groups[oi, col]
                    g_found[g] += 1
                    key = pack_key(own, others, nd)
                    if key > g_key[g]:
                        g_key[g] = key
                        g_len[g] = nd
                        for j in range(1, nd):
                            g_links[g, j - 1] = p_link[j]
                            g_stops[g, j - 1] = p_stop[j - 1]
                        g_links[g, nd - 1] = adj_link[k]
                        g_stops[g, nd - 1] = p_stop[nd - 1]
                        g_stops[g, nd] = w
                    if top_k > 0:
                        t_size = _record(key, nd, p_stop, p_link, w, adj_link[k], g,
                                         t_key, t_len, t_links, t_stops, t_group, t_size, top_k)
            if alive == 0 or nd == level:
                continue
            # Prune: the rest of the walk has `rest` links; it needs enough own links to satisfy the
            # ownership rules and must still reach a city of some live colour.
            rest = level - nd
            need = 0
            if own_majority and maxother > own:
                need = maxother - own
            if require_own_link and own == 0 and need < 1:
                need = 1
            if need > rest:
                continue
            # Keep a colour only if it can still reach a city of its colour and its delivery could
            # still matter: its group has none yet (existence decides the reasons), or the best key any
            # extension could reach (every remaining link own, no more for others, shortest length)
            # beats its group's best or the K-th best listed. Equal keys never replace, so ties prune.
            useful = 0
            for c in range(n_colours):
                if (alive >> c) & 1 and dist[c, w] <= rest:
                    g = origin_groups[oi, c]
                    bound = pack_key(own + rest, others, nd + dist[c, w])
                    # (Missing entries hold key -1, so an empty group or list always passes.)
                    if bound > g_key[g] or (top_k > 0 and bound > t_key[top_k - 1]):
                        useful |= 1 << c
            if useful == 0:
                continue
            alive = useful
            if q >= 0 and q != player:
                count[q] += 1
            visited[w] = True
            p_stop[nd] = w
            p_link[nd] = adj_link[k]
            p_owner[nd] = q
            p_iter[nd] = adj_ptr[w]
            p_alive[nd] = alive
            p_own[nd] = own
            p_others[nd] = others
            p_maxother[nd] = maxother
            depth = nd
    return (g_key, g_len, g_links, g_stops, g_found,
            t_key, t_len, t_links, t_stops, t_group, t_size, explored)
