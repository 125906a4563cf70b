"""18Rhl's own tile lay rules (the engine's G18Rhl::Game#upgrades_to?, its Track step and StubsAreRestricted):
fixed upgrade chains for the Rhine metropolises, Moers, the 3- and 4-spoke towns and the promotion and
Ratingen variants; the metropolis tiles laid unrotated; no track restriction for the 4-spoke town tiles; a
stub of the hex must be joined.
"""
from __future__ import annotations

from ..titles.g18rhl import neutral_tokens

RHINE_METROPOLIS_HEXES = ("D9", "F9", "I10")
FOUR_SPOKERS_TO = frozenset({"87", "88", "204"})
OSTERATH = "935"
_CHAINS = {"3": {"141", "142", "143"}, "4": {"141", "142"}, "58": {"141", "142", "143", "144"}}
_FROM_3_SPOKERS = {"141", "142", "143", "144"}
_TO_87, _TO_88 = {"2", "56"}, {"1", "55"}
_GREEN_METROPOLIS = {"F9": "927", "I10": "928", "D9": "929"}


def neutral_metropolises(board, company: str) -> set[str]:
    """The green Rhine metropolises whose tokens are neutral for `company` (titles.g18rhl.neutral_tokens; the
    engine sets this at the start of every turn and after each lay there)."""
    return {name for name in RHINE_METROPOLIS_HEXES
            if (bh := board.hexes.get(name)) is not None and bh.color == "green"
            and neutral_tokens(board, name, company)}


def neutral_metropolis_cities(board, company: str) -> set[tuple[str, int]]:
    """The cities ((hex, city index)) with tokens in the metropolises neutral_metropolises names."""
    neutral = neutral_metropolises(board, company)
    return {at for at in board.tokens if at[0] in neutral} if neutral else set()


def _active(options: dict, name: str) -> bool:
    return str(options.get(name, "")).lower() not in ("", "0", "false", "no")


def rhl_upgrade(board, bh, new_name: str) -> bool | None:
    """Whether the tile on `bh` may become `new_name` by 18Rhl's own rules; None: the base rules decide."""
    old, name, phase = bh.tile_name, bh.name, board.phase.name
    if old == OSTERATH or (new_name == OSTERATH and phase.isdigit() and int(phase) >= 5):
        return False
    if bh.color == "green" and name in _GREEN_METROPOLIS:
        return new_name == _GREEN_METROPOLIS[name]
    if name == "D7" and bh.color == "green":
        return new_name == "947"
    if name == "D7" and bh.color == "brown":
        return new_name == "950"
    if old in _CHAINS:
        return new_name in _CHAINS[old]
    if old in _FROM_3_SPOKERS:
        return False
    if old in _TO_87:
        return new_name == "87"
    if old in _TO_88:
        return new_name == "88"
    if old == "69":
        return new_name == "204"
    options = board.options
    if _active(options, "promotion_tiles"):
        if bh.color == "brown" and old == "216" and name == "D13":
            return new_name == "Essen"
        if bh.color == "brown" and name in ("F9", "I10"):
            return new_name == "932V"
        if bh.color == "brown" and name == "D9":
            return new_name == "949"
    elif bh.color == "brown" and name in RHINE_METROPOLIS_HEXES:
        return new_name == "932"
    if _active(options, "ratingen_variant"):
        if name == "E10":
            return {"white": new_name == "1910", "yellow": new_name == "1911"}.get(bh.color, False)
        if name == "E12" and phase == "2":
            return False
    return None


def stubs_joined(bh, exits: frozenset[int], new_name: str) -> bool:
    """StubsAreRestricted: the new tile's exits include every stub of the hex (tile 1910 exactly them)."""
    stubs = {(int(params.get("edge", "0")) + bh.rotation) % 6 for kind, params in bh.tile.parts if kind == "stub"}
    if new_name == "1910":
        return stubs == set(exits)
    return stubs <= exits
