"""The track graphs of recent boards, by request (graph_for): a game server asks about one board for each
company of an operating round, and the track graph does not depend on the company. Bounded by count and by
revenue.cache's estimate of their bytes.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from types import MappingProxyType

from .board_request import build_board
from .cache import GRAPH_CACHE_BYTES, graph_bytes
from .graph import Graph, build_graph

_GRAPHS: OrderedDict[object, Graph] = OrderedDict()
_GRAPHS_LOCK = threading.Lock()
GRAPH_CACHE_SIZE = 64
# Graphs not asked for since they were built, oldest first: past FRESH_GRAPHS of them the oldest is let go
# (freed while its memory is still in the CPU's caches, a graph costs far less to free).
_FRESH: OrderedDict[object, None] = OrderedDict()
FRESH_GRAPHS = 16
_GRAPH_BYTES: dict[object, int] = {}    # the estimated size of each remembered graph (revenue.cache)
# their sum as graph_for keeps it (never below the true sum: a cleared _GRAPH_BYTES, or a key stored twice,
# leaves it above, and _over_budget then sums afresh)
_graphs_bytes = 0


def _over_budget() -> bool:
    """The remembered graphs' estimated size is over GRAPH_CACHE_BYTES (under _GRAPHS_LOCK)."""
    global _graphs_bytes
    if _graphs_bytes <= GRAPH_CACHE_BYTES:
        return False
    _graphs_bytes = sum(_GRAPH_BYTES.values())
    return _graphs_bytes > GRAPH_CACHE_BYTES


def graph_for(board_request: Mapping) -> Graph:
    """build_graph(build_board(board_request)), remembered for the last GRAPH_CACHE_SIZE boards (fewer when
    they would pass GRAPH_CACHE_BYTES by revenue.cache's estimate): a game server asks about one board for
    each company of an operating round, and the track graph does not depend on the company. Boards and
    graphs are never changed after they are built.
    A graph not asked for again is let go after FRESH_GRAPHS newer ones (_FRESH): most boards are asked
    about once, and a graph freed while its memory is still in the CPU's caches costs far less to free.

    A board given as a read-only mapping (types.MappingProxyType) is remembered by identity: its owner
    promises never to change what it holds (the service does this with the boards it has decoded). Any
    other board is remembered by what it holds: the key revenue.known makes while reading lays and tokens
    it has checked before (Board.key), else (a custom map, tile codes in the request) its repr, an exact
    key for JSON data."""
    key: object = None
    by_identity = isinstance(board_request, MappingProxyType)
    if by_identity:
        key = ("same object", id(board_request))
    elif board_request.get("title") == "custom":     # the map is in the request: known before it is read
        try:
            key = repr(board_request)
        except Exception:   # an object without a usable repr: build it, checks and all, uncached
            return build_graph(build_board(board_request))
    if key is not None:
        with _GRAPHS_LOCK:
            graph = _GRAPHS.get(key)
            if graph is not None and (not by_identity or graph.request is board_request):
                _GRAPHS.move_to_end(key)
                _FRESH.pop(key, None)
                return graph
    board = build_board(board_request)
    if key is None:
        key = ("board", board.key)
        if board.key is None:
            try:
                key = repr(board_request)
            except Exception:
                return build_graph(board)
        with _GRAPHS_LOCK:
            graph = _GRAPHS.get(key)
            if graph is not None:
                _GRAPHS.move_to_end(key)
                _FRESH.pop(key, None)
                return graph
    graph = build_graph(board)
    graph.request = board_request      # keeps an identity-keyed board alive while it is remembered
    global _graphs_bytes
    nbytes = graph_bytes(graph)
    with _GRAPHS_LOCK:
        _GRAPHS[key] = graph
        _GRAPH_BYTES[key] = nbytes
        _graphs_bytes += nbytes
        _FRESH.pop(key, None)
        _FRESH[key] = None
        while len(_FRESH) > FRESH_GRAPHS:
            _let_go(_FRESH.popitem(last=False)[0])
        while len(_GRAPHS) > 1 and (len(_GRAPHS) > GRAPH_CACHE_SIZE or _over_budget()):
            old_key = next(iter(_GRAPHS))
            _FRESH.pop(old_key, None)
            _let_go(old_key)
    return graph


def _let_go(key) -> None:
    """A remembered graph forgotten (under _GRAPHS_LOCK)."""
    global _graphs_bytes
    old = _GRAPHS.pop(key, None)
    _graphs_bytes -= _GRAPH_BYTES.pop(key, 0)
    if old is not None:
        # Its problems point back at it: without them the graph is freed as its last user lets go,
        # not by a full collection of the cyclic garbage (40-60 ms each, every few hundred boards).
        old.problems = []
