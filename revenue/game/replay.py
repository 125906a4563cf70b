"""A whole game replayed: each operating turn of an 18xx.games export as the SolveRequest of that moment.

    for turn in turns(export):
        solve(turn.request)          # the best run; turn.run_routes is the one the player made

The state is rebuilt once, linearly, from the standing actions (revenue.game.actions); each standing
`run_routes` yields the board and the running company as they were just before it ran.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from .actions import MESSAGE, ReplayError, standing_actions
from .state import GameState


@dataclass
class Turn:
    action_id: int
    round: str              # e.g. "OR 2.1"
    company: str
    request: dict           # a SolveRequest: board and company
    run_routes: dict        # the run_routes action as the export stores it
    dividend: str | None    # the kind of the dividend that follows (payout, withhold, half), if one does


def _dividend_after(standing: list[tuple[int, dict]], k: int, company: str) -> str | None:
    for _, action in standing[k + 1:]:
        if action.get("type") == MESSAGE:
            continue
        if action.get("type") == "dividend" and action.get("entity") == company:
            return action.get("kind")
        return None
    return None


def turns(export: dict) -> Iterator[Turn]:
    """Every standing run_routes of the game, in order, with the state it ran in."""
    actions = export.get("actions")
    if not isinstance(actions, list):
        raise ReplayError(-1, {"id": None, "type": "export"}, "the export has no list of actions")
    state = GameState(export)
    standing = standing_actions(actions)
    for k, (index, action) in enumerate(standing):
        if action.get("type") == "run_routes":
            state.apply(index, {**action, "routes": []})     # the round and operator move on first
            company = action.get("entity")
            yield Turn(action.get("id"), state.round_name, company, state.request(company), action,
                       _dividend_after(standing, k, company))
        else:
            state.apply(index, action)


def replay(export: dict) -> GameState:
    """The state at the end of the game (every standing action applied)."""
    state = GameState(export)
    for index, action in standing_actions(export.get("actions") or []):
        state.apply(index, action)
    return state
