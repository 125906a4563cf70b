"""The shape of what the replay reads from an 18xx.games export, checked before any of it takes effect, so
that a malformed export is an input error naming the field rather than a crash deep in the replay.

Only types and presence are checked here; whether a hex, tile, train or company exists is for the state to
say (revenue.game.state), which knows the title. Fields the replay does not read are not checked.
"""
from __future__ import annotations

from typing import Callable

from ..errors import short_repr

MAX_ID = 2**31 - 1          # ids travel as int32 (ReplayTurn.action_id)
MAX_ROUTE_ENTRIES = 200     # a route's nodes, hexes or connections (the service's cap on a Route's)
MAX_AUTO_DEPTH = 8          # automatic actions carried by automatic actions...


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value) -> bool:
    return isinstance(value, str)


def _texts(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _entity(value) -> bool:
    return isinstance(value, str) or _whole(value)


def _action_id(value) -> bool:
    return _whole(value) and 0 <= value <= MAX_ID


def _connections(value) -> bool:
    return isinstance(value, list) and all(_texts(c) for c in value)


Check = tuple[Callable[[object], bool], str]
TEXT: Check = (_text, "a string")
TEXTS: Check = (_texts, "a list of strings")
WHOLE: Check = (_whole, "a whole number")
PRICE: Check = (lambda v: _whole(v) and v >= 0, "a whole number >= 0")

# the fields every action may carry
COMMON: dict[str, Check] = {
    "type": (_text, "a string"),
    "id": (_action_id, f"an action id (a whole number 0..{MAX_ID})"),
    "entity": (_entity, "a player's, corporation's or company's id (a string or a whole number)"),
    "entity_type": TEXT,
}
# by action type: the fields the replay reads (name -> (check, what it must be), required)
FIELDS: dict[str, dict[str, tuple[Check, bool]]] = {
    "undo": {"action_id": ((_action_id, "an action's id"), False)},
    "lay_tile": {"hex": (TEXT, True), "tile": (TEXT, True), "rotation": (WHOLE, True)},
    "place_token": {"city": (TEXT, True)},
    "buy_train": {"train": (TEXT, True), "exchange": (TEXT, False), "variant": (TEXT, False),
                  "price": (PRICE, False)},
    "discard_train": {"train": (TEXT, True)},
    "buy_company": {"company": (TEXT, True), "price": (PRICE, False)},
    "par": {"corporation": (TEXT, True), "share_price": (TEXT, False)},
    "buy_shares": {"shares": (TEXTS, False), "percent": (WHOLE, False)},
    "sell_shares": {"shares": (TEXTS, False), "percent": (WHOLE, False)},
    "dividend": {"kind": (TEXT, False)},
    "run_routes": {"entity": (TEXT, True), "routes": ((lambda v: isinstance(v, list), "a list of routes"), True)},
}
# a run_routes action's route, as the played run is read (revenue.interop.action_routes)
ROUTE_FIELDS: dict[str, Check] = {
    "train": TEXT, "hexes": TEXTS, "nodes": TEXTS, "revenue": WHOLE, "halts": WHOLE,
    "connections": (_connections, "a list of lists of hexes"),
}


def current_form(action):
    """The action as today's engine writes it: the exports of 2020 buy one share with `buy_share` {share}
    where today's buy_shares takes a list."""
    if isinstance(action, dict) and action.get("type") == "buy_share" and isinstance(action.get("share"), str):
        action = {**action, "type": "buy_shares", "shares": [action["share"]]}
        del action["share"]
    return action


def common_problem(action) -> str | None:
    """What is wrong with the fields every action may carry (what telling the standing actions reads)."""
    if not isinstance(action, dict):
        return "an action is a JSON object"
    for name, (check, what) in COMMON.items():
        value = action.get(name)
        if value is not None and not check(value):
            return f"{name} {short_repr(value)} is not {what}"
    return None


def action_problem(action, depth: int = 0) -> str | None:
    """What is wrong with the shape of a standing action (and the automatic actions it carries), or None."""
    if depth > MAX_AUTO_DEPTH:
        return f"automatic actions nested over {MAX_AUTO_DEPTH} deep"
    problem = common_problem(action)
    if problem:
        return problem
    for name, ((check, what), required) in FIELDS.get(action.get("type"), {}).items():
        value = action.get(name)
        if value is None:
            if required:
                return f"{name} is missing"
        elif not check(value):
            return f"{name} {short_repr(value)} is not {what}"
    if action.get("type") == "run_routes":
        for i, route in enumerate(action["routes"]):
            problem = _route_problem(route)
            if problem:
                return f"routes[{i}]: {problem}"
    autos = action.get("auto_actions")
    if autos is not None:
        if not isinstance(autos, list):
            return f"auto_actions {short_repr(autos)} is not a list of actions"
        for i, auto in enumerate(autos):
            problem = action_problem(auto, depth + 1)
            if problem:
                return f"auto_actions[{i}]: {problem}"
    return None


def _route_problem(route) -> str | None:
    if not isinstance(route, dict):
        return "a route is a JSON object"
    for name, (check, what) in ROUTE_FIELDS.items():
        value = route.get(name)
        if value is not None and not check(value):
            return f"{name} {short_repr(value)} is not {what}"
        if isinstance(value, list) and len(value) > MAX_ROUTE_ENTRIES:
            return f"{name}: {len(value)} entries; a route has at most {MAX_ROUTE_ENTRIES}"
    return None


def export_problem(export: dict) -> tuple[str, str] | None:
    """(field, what is wrong) with the parts of an export outside its actions that the replay reads."""
    settings = export.get("settings")
    if settings is not None and not isinstance(settings, dict):
        return "settings", "is not a JSON object"
    rules = (settings or {}).get("optional_rules")
    if rules is not None and not _texts(rules):
        return "settings.optional_rules", "is not a list of strings"
    players = export.get("players")
    if players is not None and not isinstance(players, list):
        return "players", "is not a list of players"
    for i, player in enumerate(players or ()):
        if _player(player) is None:
            return f"players[{i}]", ("is not a player: a name, or a JSON object with an id (a string or a whole "
                                     "number) or a name")
    return None


def _player(player) -> tuple | None:
    """(id, name) of an export's player: {id, name} online, {name} in a hotseat game (its actions name it),
    a bare name in the exports of 2020; None for anything else."""
    if isinstance(player, str):
        return player, player
    if not isinstance(player, dict):
        return None
    if player.get("id") is not None:
        return (player["id"], player.get("name") or player["id"]) if _entity(player["id"]) else None
    return (player["name"], player["name"]) if _text(player.get("name")) else None


def players(export: dict) -> list[tuple]:
    """(id, name) of each player of a well-formed export (export_problem None), in seating order; an action
    names a player by its id."""
    return [_player(p) for p in export.get("players") or ()]
