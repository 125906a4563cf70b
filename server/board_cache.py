"""The service's cache of decoded boards: `Boards`, which turns a request message into the library's dict."""
from __future__ import annotations

from types import MappingProxyType

from revenue.cache import BOARD_CACHE_BYTES, ByteLRU

from .limits import Limits, check_limits, sizes_fit
from .protojson import request_dict


class Boards:
    """Requests as dicts, each distinct board converted and checked against the limits once: a game
    server asks about one board for each company of a round. The boards are read-only, so the library
    remembers each one's track graph by identity (revenue.graph.graph_for). At most `size` boards and
    BOARD_CACHE_BYTES by estimate (a decoded board takes about 30 KB plus three times its message's
    bytes, key included).

    A message becomes the dict json_format.MessageToDict would give (server/protojson.py, in a third of
    its time), and its strings and lists are checked on the message's encoded sizes (sizes_fit) rather
    than by walking the dict; only a message that may be over a limit is walked, so its error is the
    one check_limits has always given."""

    def __init__(self, limits: Limits, size: int = 64):
        self.limits, self.size = limits, size
        self._boards: ByteLRU[MappingProxyType] = ByteLRU(BOARD_CACHE_BYTES, most=size)

    def request(self, message) -> dict:
        """`message` as a dict, checked (InputError for a request over the limits)."""
        return self.request_sized(message)[0]

    def request_sized(self, message) -> tuple[dict, int]:
        """request(message), and its board's encoded size (0 without a board), which the board's key
        gives for free (cost_key's, without another pass over the board)."""
        if not message.HasField("board"):
            request = request_dict(message)
            check_limits(request, self.limits, walk=not sizes_fit(message, self.limits))
            return request, 0
        board, size = self.board_sized(message.board)
        request = request_dict(message, without="board")
        check_limits(request, self.limits, walk=not sizes_fit(message, self.limits, without="board"))
        request["board"] = board
        return request, size

    def board(self, message) -> MappingProxyType:
        return self.board_sized(message)[0]

    def board_sized(self, message) -> tuple[MappingProxyType, int]:
        key = message.SerializeToString(deterministic=True)
        board = self._boards.get(key)
        if board is not None:
            return board, len(key)
        board = MappingProxyType(request_dict(message))
        fits = len(key) <= min(self.limits.name, self.limits.text, self.limits.entries) or \
            sizes_fit(message, self.limits)
        check_limits({"board": board}, self.limits, walk=not fits)    # an oversized board is not kept
        self._boards.put(key, board, 30_000 + 3 * len(key))
        return board, len(key)
