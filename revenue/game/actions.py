"""Which actions of an 18xx.games action log stand, after its undos and redos (the engine's
`filtered_actions`, ../shared/games/README.md).

Walking the log in order: a `message` always stands and is never taken back. An `undo` without
`action_id` takes back the last standing action that is not a message; `undo` with `action_id` N takes
back every standing action after N (N = 0: all of them). Each taken-back set is pushed on a stack, and a
`redo` puts the last one back. Any other action stands and empties the stack: after it, nothing can be
redone.
"""
from __future__ import annotations

from ..errors import InputError, short_repr
from .shapes import common_problem

UNDO, REDO, MESSAGE = "undo", "redo", "message"


class ReplayError(InputError):
    """An action the replay cannot rebuild exactly: `actions[i]: id N, type T: why`."""

    def __init__(self, index: int, action: dict, why: str):
        super().__init__(f"actions[{index}]", f"id {action.get('id')}, type {action.get('type')}: {why}")
        self.index = index
        self.action_id = action.get("id")


def standing_indexes(actions: list[dict]) -> list[int]:
    """Positions in `actions` of the actions that stand, in log order (undo and redo never stand)."""
    standing: list[int] = []          # positions, in order
    undone: list[list[int]] = []      # stack of taken-back sets, each in log order
    for i, action in enumerate(actions):
        if not isinstance(action, dict):
            raise InputError(f"actions[{i}]", "an action is a JSON object")
        problem = common_problem(action)
        if problem:
            raise ReplayError(i, action, problem)
        kind = action.get("type")
        if kind == MESSAGE:
            standing.append(i)
        elif kind == UNDO:
            target = action.get("action_id")
            if target is not None and (not isinstance(target, int) or isinstance(target, bool)):
                raise ReplayError(i, action, f"action_id {short_repr(target)} is not an action's id")
            if target is None:
                cut = _last_not_message(actions, standing)
                if cut is None:
                    raise ReplayError(i, action, "nothing to undo")
            else:
                cut = next((k for k, j in enumerate(standing)
                            if actions[j].get("type") != MESSAGE and actions[j].get("id", 0) > target), None)
                if cut is None:
                    undone.append([])
                    continue
            taken = [j for j in standing[cut:] if actions[j].get("type") != MESSAGE]
            standing = standing[:cut] + [j for j in standing[cut:] if actions[j].get("type") == MESSAGE]
            undone.append(taken)
        elif kind == REDO:
            if not undone:
                raise ReplayError(i, action, "nothing to redo")
            standing = sorted(standing + undone.pop())
        else:
            standing.append(i)
            undone.clear()
    return standing


def _last_not_message(actions: list[dict], standing: list[int]) -> int | None:
    for k in range(len(standing) - 1, -1, -1):
        if actions[standing[k]].get("type") != MESSAGE:
            return k
    return None


def standing_actions(actions: list[dict]) -> list[tuple[int, dict]]:
    """(position in the log, action) of every standing action, in log order."""
    return [(i, actions[i]) for i in standing_indexes(actions)]
