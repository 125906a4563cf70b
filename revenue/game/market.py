"""The stock market of an 18xx.games game, as far as it decides the order in which corporations operate.

The engine operates the floated corporations by share price, highest first; at equal prices the one
farther right on the market goes first, then the one that reached its cell first (each cell keeps its
corporations in arrival order, a corporation moving in goes last; the engine's Corporation#<=>). Prices
move as the engine moves them (revenue.payout.Market; a move off the market or into the same cell leaves
the marker where it is, and 1860's two-cell step never passes an end):
- par: the corporation enters the par cell; 1860 moves a floating corporation's marker left and back
  right, to the end of its cell's queue (the engine's move_marker_to_bottom!).
- a dividend: paid, right (1860: right once per multiple of the price the run earned, 18Rhl once if it
  earned the price; neither below it); withheld or not run, left. A corporation whose turn ends without a
  dividend did not run.
- a sale by a player: down per share sold (a row in 1830 and 1889; a cell in 1860's one-row market,
  where a dividend's step is two cells; 18Rhl a row per sale), in 1860 but for the first share on an
  'ignore_one_sale' cell, only once the corporation has operated and not after the first 8+4 train.
- the end of a stock round: in 18Rhl first the corporations that floated in it before the brown phase
  rise a row, in float order (the engine's handle_share_price_increase_for_newly_floated_corporations);
  then each corporation whose shares the players hold all moves up (not in 1860), in operating order.

Inside an operating round, prices only change for the corporations still to operate through sales, and
the engine sorts those again after a sale: the next to operate is the first of those left, by the order
of now. Titles without a model here (Steam Over Holland) say so by `known` False.

Who holds the shares (`held`, `sold_out`) is read as it changes, where the markers stand may be moved
later: revenue.game.operating_order applies the moves when the order is read.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from ..payout import RULES as DIVIDEND_RULES, Market
from .board_state import BoardError


@dataclass(frozen=True)
class MarketRules:
    """Where a title's moves differ. 1860's ignore_one_sale, sale_needs_operated and float_to_bottom follow
    the engine's code; no move of the real games tested depends on them."""
    ignore_one_sale: bool = False           # 1860: the first share sold on such a cell does not move it
    sale_needs_operated: bool = False       # 1860: no drop before the corporation first operated
    sold_out_rises: bool = True
    payout_by_multiple: bool = False        # 1860: right once per multiple of the price earned (18Rhl: the
    payout_most: int = 4                    # first only), at most this many cells; below the price not at all
    sale_per_block: bool = False            # 18Rhl: a sale drops a row, however many shares it sells
    float_to_bottom: bool = False           # 1860: a floating corporation goes to the end of its cell
    floats_rise: bool = False               # 18Rhl: one floated before the brown phase rises a row at the
                                            # stock round's end, before the sold out ones, in float order
    closes: bool = False                    # 1860: a corporation whose price reaches a 'close' cell is bankrupt


RULES = {"1830": MarketRules(), "1889": MarketRules(),
         "18rhl": MarketRules(payout_by_multiple=True, payout_most=1, sale_per_block=True, floats_rise=True),
         "1860": MarketRules(ignore_one_sale=True, sale_needs_operated=True,
                             sold_out_rises=False, payout_by_multiple=True, float_to_bottom=True, closes=True)}
SHARE_PERCENT = 10


class StockMarket:
    """The market of one game: where each corporation stands and who holds its shares."""

    def __init__(self, title: str, spec: dict | None):
        self.rules = RULES.get(title)
        self.modelled = self.rules is not None and bool(spec)
        self.known = self.modelled               # False too once a move could not be priced
        self.cells = (spec or {}).get("market") or []
        dividends = DIVIDEND_RULES.get(title)
        self.steps = Market(spec, zigzag=dividends.zigzag_market) if self.cells and dividends else None
        self.cell_of: dict[str, tuple[int, int]] = {}
        self.queue: dict[tuple[int, int], list[str]] = {}
        self.held: dict[str, dict] = {}       # corporation -> holder (a player) -> percent
        self.sales_drop = True                 # 1860 stops the drops at its first 8+4 train
        self.newly_floated: list[str] = []     # 18Rhl: to rise at the stock round's end

    @property
    def needs_revenue(self) -> bool:
        """Whether a paid dividend's move depends on the run's revenue."""
        return self.known and self.rules.payout_by_multiple

    def copy(self) -> StockMarket:
        other = copy.copy(self)
        other.cell_of = dict(self.cell_of)
        other.queue = {at: list(q) for at, q in self.queue.items()}
        other.held = {c: dict(h) for c, h in self.held.items()}
        other.newly_floated = list(self.newly_floated)
        return other

    # ---- reading ------------------------------------------------------------------------------------
    def _cell(self, at: tuple[int, int]) -> dict | None:
        row, column = at
        if 0 <= row < len(self.cells) and 0 <= column < len(self.cells[row]):
            return self.cells[row][column]
        return None

    def price(self, corporation: str) -> int | None:
        at = self.cell_of.get(corporation)
        return None if at is None else self._cell(at)["price"]

    def at_close(self, corporation: str) -> bool:
        """Whether the corporation's price is on a 'close' cell (1860's 0: it is bankrupt), as far as the
        model knows."""
        at = self.cell_of.get(corporation)
        return self.known and at is not None and "close" in (self._cell(at).get("types") or ())

    def sort_key(self, corporation: str) -> tuple:
        at = self.cell_of[corporation]
        return -self.price(corporation), -at[1], self.queue[at].index(corporation)

    def first(self, candidates: list[str]) -> str | None:
        """The one of `candidates` that operates first now (None when the model cannot tell)."""
        if not self.known or not candidates or any(c not in self.cell_of for c in candidates):
            return None
        return min(candidates, key=self.sort_key)

    def order(self, corporations: list[str]) -> list[str]:
        return sorted(corporations, key=self.sort_key)

    # ---- moves ----------------------------------------------------------------------------------------
    def _enter(self, corporation: str, at: tuple[int, int]) -> None:
        old = self.cell_of.get(corporation)
        if old is not None:
            self.queue[old].remove(corporation)
        self.cell_of[corporation] = at
        self.queue.setdefault(at, []).append(corporation)

    def move(self, corporation: str, direction: str, times: int = 1) -> None:
        at = self.cell_of.get(corporation)
        if at is None or self.steps is None:
            return
        target, moved = self.steps.move(at, direction, times)
        if moved:
            self._enter(corporation, target)

    def par(self, corporation: str, share_price) -> None:
        """The corporation enters the cell of `share_price`, as the engine writes it: 'price,row,column'
        (none given: the corporation has no place the order could be read from)."""
        self.enter_cell(corporation, self.par_cell(share_price))

    def par_cell(self, share_price) -> tuple[int, int] | None:
        """The cell of a par's `share_price` (BoardError when it names no cell of a modelled market)."""
        if share_price is None:
            return None
        try:
            price, row, column = (int(p) for p in str(share_price).split(","))
        except ValueError:
            raise BoardError(f"share_price {share_price!r} is not 'price,row,column'") from None
        cell = self._cell((row, column))
        if self.modelled and (cell is None or cell["price"] != price):
            raise BoardError(f"share_price {share_price!r} is no cell of the title's market")
        return row, column

    def enter_cell(self, corporation: str, at: tuple[int, int] | None) -> None:
        if at is not None:
            self._enter(corporation, at)

    def remove(self, corporation: str) -> None:
        """The corporation leaves the market, its shares back in its treasury (1860's bankruptcy)."""
        at = self.cell_of.pop(corporation, None)
        if at is not None:
            self.queue[at].remove(corporation)
        self.held.pop(corporation, None)

    def floated(self, corporation: str, rises: bool = True) -> None:
        """The corporation floats (`rises`: where the title raises those floated at the stock round's end,
        whether this one does: floated in a stock round, before the brown phase)."""
        if self.rules is not None and self.rules.float_to_bottom:
            self.move(corporation, "left")
            self.move(corporation, "right")
        if self.rules is not None and self.rules.floats_rise and rises:
            self.newly_floated.append(corporation)

    def holding(self, corporation: str, holder) -> int:
        return self.held.get(corporation, {}).get(holder, 0)

    def bought(self, corporation: str, percent: int, holder) -> None:
        held = self.held.setdefault(corporation, {})
        held[holder] = held.get(holder, 0) + percent

    def sold(self, corporation: str, percent: int, operated: bool, holder) -> None:
        self.bought(corporation, -percent, holder)
        self.drop(corporation, percent, operated)

    def drop(self, corporation: str, percent: int, operated: bool) -> None:
        """The move of a sale of `percent` by a player (`operated`: the corporation had operated then)."""
        rules = self.rules
        if rules is None or corporation not in self.cell_of:
            return
        shares = min(percent // SHARE_PERCENT, 1) if rules.sale_per_block else percent // SHARE_PERCENT
        if rules.ignore_one_sale and "ignore_one_sale" in (self._cell(self.cell_of[corporation]).get("types") or ()):
            shares -= 1
        if rules.sale_needs_operated and (not operated or not self.sales_drop):
            return
        self.move(corporation, "down", max(shares, 0))

    def stop_sale_drops(self) -> None:
        self.sales_drop = False

    def dividend(self, corporation: str, paid: bool, revenue: int | None) -> None:
        """A dividend: `paid` with the run's `revenue` (None when unknown: the model is then unsure where
        the price goes if the title's move depends on it)."""
        if self.rules is None or corporation not in self.cell_of:
            return
        if not paid or revenue == 0:
            self.move(corporation, "left")
        elif not self.rules.payout_by_multiple:
            self.move(corporation, "right")
        elif revenue is None:
            self.known = False
        else:
            self.move(corporation, "right", min(revenue // max(self.price(corporation), 1), self.rules.payout_most))

    def end_stock_round(self, floated: list[str]) -> None:
        self.rise_floated()
        self.rise(self.sold_out(floated))

    def rise_floated(self) -> None:
        """18Rhl: the corporations floated in this stock round (not in the brown phase) rise, in float order."""
        for corporation in self.newly_floated:
            self.move(corporation, "up")
        self.newly_floated = []

    def sold_out(self, floated: list[str]) -> list[str]:
        """The corporations of `floated` whose shares the players hold all (those that rise at the end of
        a stock round, where the title moves them)."""
        if self.rules is None or not self.rules.sold_out_rises:
            return []
        return [c for c in floated if sum(self.held.get(c, {}).values()) >= 100]

    def rise(self, sold_out: list[str]) -> None:
        rising = [c for c in sold_out if c in self.cell_of]
        for corporation in self.order(rising) if self.known else rising:
            self.move(corporation, "up")
