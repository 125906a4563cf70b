"""Games, not just boards: the state of play of an 18xx.games export rebuilt from its action log, so that
every operating turn becomes a SolveRequest (design.md "Games, not just boards")."""
from .actions import ReplayError, standing_actions
from .replay import Turn, replay, steps, turns
from .state import GameState

__all__ = ["GameState", "ReplayError", "Turn", "replay", "standing_actions", "steps", "turns"]
