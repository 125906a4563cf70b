"""What the operating company of a game in progress may build at its track or token step: the best few
legal tile lays and station tokens (revenue.moves), each valued by the best run it makes possible, on the
board of that moment, within the company's cash where the replay follows it (revenue.game.treasury); the
privates that block hexes are those no corporation owns (the players')."""
from __future__ import annotations

from ..moves import value_lays, value_tokens
from ..moves.title_rules import lay_rules
from .state import GameState

TOP = 5     # the moves a suggestion lists, of each kind


def next_moves(state: GameState, last: dict | None, deadline_ms: float | None = None, cancel=None) -> dict:
    """{"lays": {...}, "tokens": {...}} (each value_lays's / value_tokens's answer with its best TOP moves,
    the `company` and its `cash`, None where not followed; half of `deadline_ms` for each) for the
    company whose operating turn is open before its run (`company` in each): lays while it has neither laid
    nor placed a token (or, in 1860, its second lay after a yellow tile without a city), tokens while it
    has placed none (a turn suggest moved the state on to, GameState.begin_turn, at its first step); {}
    when no such company is known. In 1860's stock round, a floating corporation's lays on its home hex
    while it has yet to lay its home track."""
    home = home_track(state)
    company, done = (home[0], None) if home else _builder(state, last)
    if company is None:
        return {}
    request = state.request(company, running=True)
    cash = state.cash(company)
    if cash is not None:
        request["company"]["cash"] = cash
    out = {}
    budget = None if deadline_ms is None else deadline_ms / 2
    second = done == "lay_tile" and _second_lay(state)
    if done is None or second:
        valued = value_lays(request, deadline_ms=budget, top=TOP, player_privates=player_privates(state),
                            cancel=cancel, second=second, hexes=None if home is None else (home[1],))
        out["lays"] = _listed(company, cash, valued)
    if done in (None, "lay_tile") and home is None:
        out["tokens"] = _listed(company, cash, value_tokens(request, deadline_ms=budget, top=TOP, cancel=cancel))
    return out


def _builder(state: GameState, last: dict | None) -> tuple[str | None, str | None]:
    """(the company at its track or token step, the building step it took last: None, "lay_tile" or
    another), or (None, None): the operator before its run (a turn that has just begun, suggest moved the
    state on to, at its first step)."""
    if state.round_kind != "operating" or state.ended is not None or last is None:
        return None, None
    operator = state.operator
    if operator is None or state.last_rank >= 3 or state.southern_formed or operator in state.receivership:
        return None, None
    if last.get("entity") != operator:
        return operator, None                # its turn begins
    if last.get("type") == "pass":
        return None, None                    # a building step passed (which, the log does not say)
    return operator, last.get("type") if state.last_rank else None


def home_track(state: GameState) -> tuple[str, str] | None:
    """(corporation, hex): 1860's floating corporation that lays its home track before the stock round goes
    on (the engine's HomeTrack step), when one does."""
    if state.round_kind != "stock" or state.ended is not None:
        return None
    return next(iter(state.pending_home.items()), None)


def _second_lay(state: GameState) -> bool:
    """Whether the operator's turn has a second lay to make: one lay made, a yellow tile without a city, where
    the title allows another (1860)."""
    if not lay_rules(state.name).second_lay or len(state.turn_lays) != 1:
        return False
    laid = state.board.hex(state.turn_lays[0])
    return laid.colour == "yellow" and not laid.tile.cities


def player_privates(state: GameState) -> set[str]:
    """The privates that block hexes and that no corporation owns, nor have closed."""
    return {p for p in lay_rules(state.name).blocks
            if state.company_owner.get(p) not in state.corporations and p not in state.closed}


def _listed(company: str, cash: int | None, valued: dict) -> dict:
    return {"company": company, "cash": cash, **valued}
