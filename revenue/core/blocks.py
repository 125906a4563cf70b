"""The base rule's per-company node masks in one pass (revenue.problem compiles a problem with them): which
nodes hold the company's token, which it may not pass (off-boards, and cities full of other companies'
tokens, rules/base.md section 3), and which of those are cities (passable within RouteRules.bypass).

Arrays (one board): kind[nodes] (an index into revenue.geometry.NODE_KINDS), slots[nodes], token_node[tokens]
(each token's node, -1: none), mine[tokens] (the token is the company's).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .signatures import B1, B2, I, I1, takes

TOKEN, BLOCKS, BYPASSABLE, CITY = range(4)     # the rows base_blocks fills


@takes(I1, I1, I1, B1, I, I, B2)
@njit(cache=True, nogil=True)
def base_blocks(kind, slots, token_node, mine, last_city_kind, offboard_kind, out):
    """Fills `out`, bool [4, nodes] of zeros: rows TOKEN, BLOCKS, BYPASSABLE and CITY (kind <= last_city_kind:
    city or pass). Written in place rather than returned: a returned array is boxed, which costs more than
    the caller's allocation."""
    n = kind.shape[0]
    count = np.zeros(n, dtype=np.int64)
    for t in range(token_node.shape[0]):
        v = token_node[t]
        if v >= 0:
            count[v] += 1
            if mine[t]:
                out[TOKEN, v] = True
    for v in range(n):
        k = kind[v]
        if k <= last_city_kind:
            out[CITY, v] = True
            # full of other companies' tokens
            if count[v] > 0 and count[v] >= slots[v] and not out[TOKEN, v]:
                out[BLOCKS, v] = True
                out[BYPASSABLE, v] = True
        elif k == offboard_kind:
            out[BLOCKS, v] = True
