"""A game of 18xx.games analysed: every operating turn replayed with the run the player made and the best
one (`replay_game`), and the best next run of a game in progress (`suggest`).

    for turn in replay_game(export):
        print(turn["round"], turn["company"], turn["played"]["revenue"], turn["best"]["revenue"], turn["left"])

Each turn's dict holds JSON-ready messages of the service: `request` a SolveRequest, `played` an
EvaluateResponse, `best` a SolveResponse.
"""
from __future__ import annotations

import threading
import time
from typing import Iterator

from ..errors import InputError, Interrupted
from ..optimizer import solve
from .actions import MESSAGE
from .next_moves import home_track, next_moves
from .replay import steps, turns
from .runs import RunEvaluations
from .shapes import players
from .state import GameState

DEADLINE_MS = 10_000          # per turn: real boards prove in milliseconds, this bounds a pathological one
TURN_FIELDS = ("action_id", "round", "company", "request", "played", "best", "left", "dividend")
# what a corporation does next in its turn, by the last step it took (actions.STEP_RANK)
AFTER_STEP = {3: "to choose its dividend", 4: "to buy trains or end its turn",
              5: "to buy more trains or end its turn"}


def replay_game(export: dict, deadline_ms: int | None = None,
                cancel: threading.Event | None = None) -> Iterator[dict]:
    """Every operating turn of the game, in order: the run the player made (`played`, evaluated on the
    turn's request; null when the stored run cannot be read, as 2020's exports store only the hexes of a
    route, or when the routes name what the rebuilt board does not have) and the best run (`best`, solved
    within `deadline_ms` per turn, default DEADLINE_MS), `left` = best - played revenue (null without
    `played`), and the dividend kind the company chose after it (null when none followed). Setting
    `cancel` stops the search under way and raises Interrupted (a cancelled search's run is no turn's best)."""
    deadline = _seconds(deadline_ms)
    for turn in turns(export):
        _check(cancel)
        played = played_run(turn.request, turn.run_routes, turn.evaluations)
        best = solve(turn.request, deadline=deadline, cancel=cancel)
        _check(cancel)
        yield {"action_id": turn.action_id, "round": turn.round, "company": turn.company,
               "request": turn.request, "played": played, "best": best,
               "left": None if played is None else best["revenue"] - played["revenue"],
               "dividend": turn.dividend}


def played_run(request: dict, run_routes: dict, evaluations: RunEvaluations | None = None) -> dict | None:
    """The EvaluateResponse of a stored run_routes action on `request`, or None when it cannot be read
    (`evaluations`: the game's, where the run may have been evaluated already)."""
    return (evaluations or RunEvaluations()).evaluate(request, run_routes)


def suggest(export: dict, deadline_ms: int | None = None, cancel: threading.Event | None = None) -> dict:
    """The game as it stands after its last standing action. When a company is at its route step (its
    operating turn has begun, it has not run yet and has trains): {company, round, best (a SolveResponse),
    run_routes (the action ready to submit, its trains named by the game's train ids), request (the
    SolveRequest solved: the board and company of that moment)}. Otherwise {waiting_for: what the game
    waits for, as precisely as the replay knows it}. While the operating company may still lay track or
    place a token: also `lays` and `tokens`, the best few (next_moves), valued within half of the deadline
    when a run is suggested too. Setting `cancel` stops the search and raises Interrupted."""
    started, seconds = time.perf_counter(), _seconds(deadline_ms)
    state, last, passes = _final_state(export)
    company, waiting = _next_runner(state, last, passes, export)
    moves = next_moves(state, last, seconds * 1000 / (1 if company is None else 2), cancel)
    if company is None:
        return {"waiting_for": waiting, **moves}
    request = state.request(company, running=True)
    _check(cancel)
    best = solve(request, deadline=max(seconds - (time.perf_counter() - started), seconds / 2), cancel=cancel)
    _check(cancel)
    return {"company": company, "round": state.round_name, "best": best, "run_routes": best["run_routes"],
            "request": request, **moves}


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Interrupted("cancelled")


def _seconds(deadline_ms: int | None) -> float:
    if deadline_ms is not None and (isinstance(deadline_ms, bool) or deadline_ms <= 0):
        raise InputError("deadline_ms", f"{deadline_ms!r} is not > 0")
    return (DEADLINE_MS if deadline_ms is None else deadline_ms) / 1000


def _final_state(export: dict) -> tuple[GameState, dict | None, int]:
    """The state after every standing action, the last action that changed it (None before any) and how
    many players passed in a row at the end (a stock round ends when each of them did; a private's exchange
    between the passes is no player's turn)."""
    state, last, passes = None, None, 0
    for _, action, state in steps(export):
        # (an action and what it set off: a programmed action, such as an automatic pass, only the latter)
        for act in (action, *(action.get("auto_actions") or ())):
            kind = act.get("type")
            if kind in (MESSAGE, "end_game") or str(kind).startswith("program_"):
                continue
            last = act
            if kind == "pass" and state.round_kind == "stock":
                passes += 1
            elif act is action and act.get("entity_type") != "company":
                passes = 0       # (neither a private exchanged for a share nor a programmed buy is a turn)
    if state is None:
        state = GameState(export)
    return state, last, passes


def _next_runner(state: GameState, last: dict | None, passes: int, export: dict) -> tuple[str | None, str]:
    """(the company at its route step, "") or (None, what the game waits for)."""
    if state.ended is not None:
        return None, f"nothing: the game is over ({state.ended})"
    if export.get("status") == "finished":
        return None, f"nothing: the game is over ({export.get('game_end_reason') or 'finished'})"
    if last is None:
        return None, "the first action of the game"
    if state.round_kind == "auction":
        return None, f"an action of the private auction (next in turn: {_player_after(last, export)})"
    if state.round_kind == "stock":
        home = home_track(state)
        if home is not None:
            return None, f"{home[0]} to lay its home track on {home[1]}"
        if passes >= max(1, len(state.players)):
            return _first_of(state, state.operating, f"OR {state.turn}.1", next_round=True)
        return _in_stock_round(state, last, export)
    operator = state.operator
    if operator is not None and state.last_rank < 3 and last.get("type") != "discard_train":
        if state.has_run(operator):
            return operator, ""
        return None, f"{operator} to lay track, place a token or buy a train (it has no train to run)"
    if operator is not None and not state.turn_over(last):
        return None, f"{operator} {AFTER_STEP.get(state.step, 'to end its turn')}"
    left = [c for c in state.operating if c not in state.or_operated]
    if left:
        return _first_of(state, left, state.round_name, next_round=False)
    if state.operating_round_follows():
        return _first_of(state, state.operating, f"OR {state.turn}.{state.or_number + 1}", next_round=True)
    return None, f"the next operating round or the stock round ({state.round_name} is over)"


def _first_of(state: GameState, candidates: list[str], round_name: str,
              next_round: bool) -> tuple[str | None, str]:
    """The turn of the next corporation to operate among `candidates` (of the operating round under way,
    or with `next_round` of the next one): the first in share price order (GameState.next_operator),
    its run when its turn begins at the route step (1860 once the Southern has formed: no track, no
    tokens) and it has trains. The state is moved on to that corporation's turn."""
    if not candidates:
        return None, f"{round_name}, once a corporation has floated"
    company = candidates[0] if len(candidates) == 1 else state.next_operator(next_round)
    if company not in candidates:
        return None, (f"the next corporation of {round_name} to operate: one of "
                      f"{', '.join(sorted(candidates))} (they operate in share price order, which the "
                      f"replay does not follow for {state.name})")
    # 1860: no track nor tokens once the Southern has formed, nor for a corporation in receivership
    straight_to_run = state.southern_formed or company in state.receivership
    if straight_to_run and state.has_run(company):
        state.begin_turn(company, at_run=True)
        return company, ""
    state.begin_turn(company)
    return None, f"{company} to begin its operating turn"


def _in_stock_round(state: GameState, last: dict, export: dict) -> tuple[str | None, str]:
    seated = [player for player, _ in players(export)]
    kind = last.get("type")
    entity = last.get("entity")
    if kind == "sell_shares" and entity in seated:
        return None, f"a stock round action by {_player_name(entity, export)} (buy a share or pass)"
    return None, f"a stock round action by {_player_after(last, export)} ({state.round_name})"


def _player_after(last: dict, export: dict) -> str:
    """The player seated after the one who acted last (the first player when no player acted)."""
    seated = [player for player, _ in players(export)]
    if not seated:
        return "a player"
    entity = last.get("entity")
    at = seated.index(entity) + 1 if entity in seated else 0
    return _player_name(seated[at % len(seated)], export)


def _player_name(player, export: dict) -> str:
    return str(dict(players(export)).get(player, player))
