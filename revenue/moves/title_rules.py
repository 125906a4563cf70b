"""What each title adds to the base rules of laying track and placing tokens (the 18xx.games engine's
constants and private abilities for 1830, 1860, 1889 and 18Rhl): the track restriction, which hexes a private
blocks while a player owns it, terrain discounts, tiles that may not be rotated, token prices.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .rhl import FOUR_SPOKERS_TO, RHINE_METROPOLIS_HEXES, neutral_metropolis_cities, rhl_upgrade, stubs_joined

PERMISSIVE, SEMI_RESTRICTIVE = "permissive", "semi_restrictive"


@dataclass(frozen=True)
class LayRules:
    # the engine's TRACK_RESTRICTION: permissive (any lay), semi_restrictive (an upgrade must add track the
    # company reaches or change the value of a city it reaches)
    track_restriction: str = SEMI_RESTRICTIVE
    # private -> hexes it blocks while a player owns it; a private the company owns blocks nothing, and
    # privates are closed from `privates_close` on (phase names)
    blocks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    privates_close: tuple[str, ...] = ()
    # private -> (terrain, discount) on hexes whose terrain is that one alone
    discounts: dict[str, tuple[str, int]] = field(default_factory=dict)
    no_rotation: frozenset[str] = frozenset()
    # an upgrade must lie where the company's biggest train reaches, and the track restriction counts only
    # what it reaches (1860's track step); no train, no upgrade
    train_reach: bool = False
    # (board, board hex, new tile name) -> whether it upgrades, or None for the base rules
    upgrade_rule: Callable | None = None
    # hexes whose tiles are laid unrotated, every exit allowed (18Rhl's Rhine metropolises)
    unrotated_hexes: tuple[str, ...] = ()
    # tiles laid free of the track restriction
    unrestricted_tiles: frozenset[str] = frozenset()
    # (board hex, the new tile's exits, its name) -> whether the hex's stubs are joined
    stub_rule: Callable | None = None
    # company -> the price of each of its tokens in order (the first is its home token)
    token_prices: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # a second lay in a turn: a yellow tile without a city, after a first lay of one (1860's TILE_LAYS,
    # :not_if_upgraded_or_city, and its tracker: no city tile after the first lay)
    second_lay: bool = False
    # (board, company) -> the cities ((hex, city index)) whose tokens never block the company (18Rhl's
    # green metropolises, 1860's cities holding a flipped token)
    neutral_cities: Callable | None = None

    def blocking_tokens(self, board, company: str) -> dict:
        """The board's tokens ((hex, city) -> companies) that may block the company's track: all but those
        the title makes neutral (a city with the company's own token blocks nothing anyway, and stays a
        start of its track). Slots are still taken by every token."""
        if self.neutral_cities is None:
            return board.tokens
        neutral = self.neutral_cities(board, company)
        if not neutral:
            return board.tokens
        return {at: placed for at, placed in board.tokens.items() if at not in neutral or company in placed}


def _flipped_cities(board, company: str) -> set[tuple[str, int]]:
    """1860: the cities holding a flipped token (of a company in bankruptcy)."""
    if not board.flipped:
        return set()
    return {at for at, placed in board.tokens.items() if any((at[0], c) in board.flipped for c in placed)}


_LATE = ("5", "6", "D")

RULES = {
    "1889": LayRules(blocks={"TR": ("K4",), "ER": ("C4",)}, privates_close=_LATE,
                     discounts={"SMR": ("mountain", 80)},
                     token_prices={"AR": (0, 40), "IR": (0, 40), "SR": (0, 40), "KO": (0, 40), "TR": (0, 40, 40),
                                   "KU": (0,), "UR": (0, 40, 40)}),
    "1830": LayRules(track_restriction=PERMISSIVE,
                     blocks={"SV": ("G15",), "CS": ("B20",), "DH": ("F16",), "MH": ("D18",), "CA": ("H18",),
                             "BO": ("I13", "I15")}, privates_close=_LATE,
                     token_prices={"PRR": (0, 40, 100, 100), "NYC": (0, 40, 100, 100), "CPR": (0, 40, 100, 100),
                                   "B&O": (0, 40, 100), "C&O": (0, 40, 100, 100), "ERIE": (0, 40, 100),
                                   "NYNH": (0, 40), "B&M": (0, 40)}),
    "1860": LayRules(no_rotation=frozenset({"758", "761", "763", "773", "775"}), train_reach=True, second_lay=True,
                     neutral_cities=_flipped_cities,
                     token_prices={"C&N": (0, 40, 100, 100), "IOW": (0, 40, 100, 100), "IWNJ": (0, 40, 100),
                                   "FYN": (0, 40, 100), "NGStL": (0, 40), "BHI&R": (0, 40), "S&C": (0, 40),
                                   "VYSC": (0, 40)}),
    "18rhl": LayRules(blocks={"PWB": ("E14",)}, privates_close=("5", "6", "8"), upgrade_rule=rhl_upgrade,
                      unrotated_hexes=RHINE_METROPOLIS_HEXES, unrestricted_tiles=FOUR_SPOKERS_TO,
                      stub_rule=stubs_joined, neutral_cities=neutral_metropolis_cities,
                      token_prices={"ADR": (0, 60, 80), "BME": (0, 60, 80, 100), "CME": (0, 60, 80, 100),
                                    "DEE": (0, 60), "KEG": (0, 60), "GVE": (0, 60), "CCE": (0, 0, 80),
                                    "RhE": (0, 60, 80, 100)}),
}


def lay_rules(title: str) -> LayRules:
    return RULES.get(title, LayRules())
