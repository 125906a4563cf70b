"""A least-recently-used cache bounded by bytes: what each entry costs is estimated when it is stored
(from its input's size, by factors measured with tracemalloc), and the oldest entries go once the total
passes the budget. A count alone does not bound memory when one entry can be a thousand times another
(a 4 MB custom board beside an 1830 board of 1 KB).

The budgets of the process's caches (docs/service.md, Memory): parsed tile codes, track graphs, the
service's decoded boards (from gRPC and from JSON) and Steam boards; together CACHE_BUDGET_BYTES at most,
beside the code and the compiled kernels.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, Hashable, TypeVar

V = TypeVar("V")

MB = 1 << 20
TILE_CACHE_BYTES = 32 * MB       # parsed tile codes (revenue.tiles)
GRAPH_CACHE_BYTES = 128 * MB     # boards and their track graphs (revenue.graph_cache)
BOARD_CACHE_BYTES = 16 * MB      # the service's decoded board messages (server.board_cache.Boards)
JSON_BOARD_CACHE_BYTES = 16 * MB # the HTTP API's boards parsed from JSON (server.http.JsonBoards)
STEAM_CACHE_BYTES = 32 * MB      # parsed Steam boards (revenue.steam)
RUN_CACHE_BYTES = 2 * MB         # the revenues of games' played runs (revenue.game.runs)
CACHE_BUDGET_BYTES = TILE_CACHE_BYTES + GRAPH_CACHE_BYTES + BOARD_CACHE_BYTES + JSON_BOARD_CACHE_BYTES + \
    STEAM_CACHE_BYTES + RUN_CACHE_BYTES


class ByteLRU(Generic[V]):
    """key -> value, at most `budget` estimated bytes and at most `most` entries; thread-safe."""

    def __init__(self, budget: int, most: int | None = None):
        self.budget, self.most = budget, most
        self.bytes = 0
        self._entries: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: Hashable, value: V, nbytes: int) -> None:
        """Remember `value` unless it alone is over the budget; evict the oldest beyond the bounds."""
        if nbytes > self.budget:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.bytes -= old[1]
            self._entries[key] = (value, nbytes)
            self.bytes += nbytes
            while self._entries and (self.bytes > self.budget or
                                     (self.most is not None and len(self._entries) > self.most)):
                _, (_, size) = self._entries.popitem(last=False)
                self.bytes -= size

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0


# Estimates from tracemalloc on boards from an 1830 late game to 400 hexes of 4,000-character codes: a parsed tile about 3 KB plus 50 bytes a code character; a board and its track graph
# about 1.5 KB a hex beside its tiles, plus what later calls derive from it (problems, adjacency).

def tile_bytes(code: str) -> int:
    return 3000 + 50 * len(code)


def graph_bytes(graph) -> int:
    """A board's track graph with what it keeps alive (its board, the tiles laid) and derives."""
    board = graph.board
    return 100_000 + 1500 * len(board.neighbours) + 50 * board.code_chars   # (neighbours: a key per hex)
