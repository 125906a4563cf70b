"""revenue: the exact route optimizer and revenue calculator for 18xx games.

The public API (each takes and returns proto3-JSON dicts of the revenue.v1 messages):

- solve(request, deadline=None, on_improve=None, cancel=None, memory_mb=None): the best routes, proved
- evaluate(request, deadline=None, cancel=None, memory_mb=None): legality and revenue of given routes
- dividends(request, deadline=None, cancel=None, memory_mb=None): what a run pays under each dividend kind
- deliveries(request, deadline=None, cancel=None, memory_mb=None): Steam's best goods deliveries
- replay_game(export, deadline_ms=None, cancel=None): each operating turn of an 18xx.games export, played and best run
- suggest(export, deadline_ms=None, cancel=None): the best next run of a game in progress, or what the game waits for
- legal_lays(request, player_privates=None, second=False), legal_tokens(request): every legal tile lay (or the
  turn's second lay, 1860's) and station token
- value_lays(request, deadline_ms=None, top=None, player_privates=None, second=False), value_tokens(request,
  deadline_ms=None, top=None): each legal lay or token valued by the best run it makes possible, best first
- InputError: bad input, naming its field (also a board whose track graph passes the memory cap)
- Interrupted: a deadline or cancel that ended a call before it had an answer (the track graph unbuilt)

Names are imported when first used, so `import revenue` stays light (no Numba until a solve).
"""
from __future__ import annotations

from importlib import import_module

_API = {
    "solve": "revenue.optimizer",
    "evaluate": "revenue.evaluation",
    "dividends": "revenue.payout",
    "deliveries": "revenue.steam",
    "InputError": "revenue.errors",
    "Interrupted": "revenue.errors",
    "replay_game": "revenue.game.analysis",
    "suggest": "revenue.game.analysis",
    "legal_lays": "revenue.moves",
    "legal_tokens": "revenue.moves",
    "value_lays": "revenue.moves",
    "value_tokens": "revenue.moves",
}

__all__ = sorted(_API)


def __getattr__(name: str):
    if name not in _API:
        raise AttributeError(f"module 'revenue' has no attribute {name!r}")
    value = getattr(import_module(_API[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API))
