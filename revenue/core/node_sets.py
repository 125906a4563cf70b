"""The nodes of each route as bits, for the combination's rule that a run's routes be connected."""
from __future__ import annotations

import numpy as np
from numba import njit

from .signatures import I, I1, takes


@takes(I1, I1, I1, I)
@njit(cache=True, nogil=True)
def node_bitsets(begin, end, nodes, n_nodes):
    """uint64 [routes, words]: the nodes of each route (nodes[begin[i]:end[i]]) as bits."""
    words = max(1, (n_nodes + 63) // 64)
    out = np.zeros((begin.shape[0], words), dtype=np.uint64)
    if words == 1:      # (gathered in a register: faster than in the array)
        for i in range(begin.shape[0]):
            bits = np.uint64(0)
            for k in range(begin[i], end[i]):
                bits |= np.uint64(1) << np.uint64(nodes[k])
            out[i, 0] = bits
        return out
    for i in range(begin.shape[0]):
        for k in range(begin[i], end[i]):
            v = nodes[k]
            out[i, v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    return out
