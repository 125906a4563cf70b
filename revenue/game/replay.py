"""A whole game replayed: each operating turn of an 18xx.games export as the SolveRequest of that moment.

    for turn in turns(export):
        solve(turn.request)          # the best run; turn.run_routes is the one the player made

The state is rebuilt once, linearly, from the standing actions (revenue.game.actions); each standing
`run_routes` yields the board and the running company as they were just before it ran.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from ..errors import InputError
from .actions import MESSAGE, ReplayError, standing_actions
from .runs import RunEvaluations
from .shapes import action_problem, current_form
from .state import GameState


@dataclass
class Turn:
    action_id: int
    round: str              # e.g. "OR 2.1"
    company: str
    request: dict           # a SolveRequest: board and company
    run_routes: dict        # the run_routes action as the export stores it
    dividend: str | None    # the kind of the dividend that follows (payout, withhold, half), if one does
    # the game's runs evaluated (the played run evaluated there is not evaluated again for the market)
    evaluations: RunEvaluations = field(default_factory=RunEvaluations, repr=False, compare=False)


def steps(export: dict) -> Iterator[tuple[int, dict, GameState]]:
    """Each standing action (its position in the log, the action) with the state just before it takes
    effect, its round and operator already moved on: the board a lay or a token is chosen on. The state
    is one object, changed in place after each step."""
    if not isinstance(export, dict):
        raise InputError("", "an 18xx.games export is a JSON object (title, players, actions)")
    actions = export.get("actions")
    if not isinstance(actions, list):
        raise InputError("actions", "the export has no list of actions")
    state = GameState(export)
    for index, action in standing_actions(actions):
        current = current_form(action)
        problem = action_problem(current)
        if problem:
            raise ReplayError(index, action, problem)
        action = state.by_ids(current)
        state.enter(index, action)
        yield index, action, state
        state.apply(index, action)


def turns(export: dict) -> Iterator[Turn]:
    """Every standing run_routes of the game, in order, with the state it ran in (each yielded once the
    next action tells whether a dividend follows it)."""
    pending: Turn | None = None
    for _, action, state in steps(export):
        kind = action.get("type")
        if pending is not None and kind != MESSAGE:
            if kind == "dividend" and action.get("entity") == pending.company:
                pending.dividend = action.get("kind")
            yield pending
            pending = None
        if kind == "run_routes":
            company = action.get("entity")
            pending = Turn(action.get("id"), state.round_name, company, state.run_request(action), action, None,
                           state.evaluations)
    if pending is not None:
        yield pending


def replay(export: dict) -> GameState:
    """The state at the end of the game (every standing action applied)."""
    state = None
    for _, _, state in steps(export):
        pass
    return state if state is not None else GameState(export)
