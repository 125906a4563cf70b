"""Best goods deliveries of the board game Steam (Martin Wallace) and of Age of Steam.

`deliveries(request)` answers, for the acting player: the best legal delivery, the top K deliveries,
why each cube that cannot be delivered cannot, and the best plan for the Move Goods phase's two rounds.
The request and the answer are proto3-JSON-shaped dicts of `revenue.v1.DeliveriesRequest` and
`DeliveriesResponse` (proto/revenue/v1/steam.proto). The rules are in docs/steam.md.

The search itself is a Numba kernel (revenue.steam.kernel); revenue.steam.request checks the request
and builds the arrays, revenue.steam.search runs the kernel and decodes its answer, revenue.steam.text
writes it as text.
"""
from __future__ import annotations

from .request import COLOURS, RULESETS, check_memory, memory_bytes
from .search import deliveries, deliveries_proto
from .text import format_text

__all__ = ["COLOURS", "RULESETS", "check_memory", "deliveries", "deliveries_proto", "format_text", "memory_bytes"]
