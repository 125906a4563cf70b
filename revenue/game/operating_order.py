"""Which corporation operates next in an 18xx.games game: the floated corporations in share price order
(revenue.game.market), each turn's dividend moving the price of the corporation that ran, and 1860's
nationalization taking corporations out of the rounds.

A turn's dividend: the one the player chose; none chosen is a withhold (a corporation that did not run,
1860's insolvent corporation running a leased train); during 1860's nationalization a corporation that
runs its own trains pays out at once. A paid dividend's move in 1860 depends on the run's revenue, which
is priced (revenue.evaluation) only there.

The rebuild of a state only records what moves the market and the order (pars, sales, dividends with the
run's request of that moment, the ends of turns and rounds); they are applied, and the runs priced, when
the market or the order is first read, and the next read applies only what came since. A state rebuilt
without reading them (the requests of a game's turns) prices no run; a replay prices each run once
(revenue.game.runs).

1860's bankruptcy: a corporation whose price reaches the 0 cell (by a sale, or a turn that paid nothing)
leaves the market. Whether it can have, the order knows without pricing a run: a second market, kept up
to date as each move is recorded, moves every paid dividend as far right as any revenue could (four
cells); a price is at most where that market has it, so only when that one reaches the 0 cell are the
runs priced to tell.

1860's nationalization (the engine's nationalize_corps!): at the end of each operating round once it
has begun, the corporations that paid the least in their last turn (withheld or not run: nothing) stop
operating: all of them, and when only one paid the least also those that paid the next least; with two
or fewer corporations left, all of them.
"""
from __future__ import annotations

from typing import Callable

from .market import StockMarket
from .runs import Run, RunEvaluations

FAR = 10**9      # a revenue that moves a paid dividend's price as far right as any can


class OperatingOrder:
    def __init__(self, title: str, market_spec: dict | None, evaluations: RunEvaluations):
        self._market = StockMarket(title, market_spec)
        # the prices as high as they can be (1860's bankruptcy, above): every move applied at once
        rules = self._market.rules
        self._highest = StockMarket(title, market_spec) if rules is not None and rules.closes else None
        self._highest_paid = False
        self._evaluations = evaluations
        self._pending: list[tuple[Callable, tuple]] = []     # what moves the order, not applied yet
        self._run: Callable[[], Run] | None = None      # the turn's run
        # applied from _pending only
        self.paid = False                       # the operating corporation's turn chose its dividend
        self.revenue = 0                        # what it paid out
        self.last_paid: dict[str, int] = {}     # per corporation, what its last turn paid out
        self.nationalized: set[str] = set()

    def _later(self, apply: Callable, *args) -> None:
        self._pending.append((apply, args))

    def _move(self, name: str, *args) -> None:
        """A market move by its StockMarket method: applied later to the market, now to the highest."""
        self._later(getattr(self._market, name), *args)
        if self._highest is not None:
            getattr(self._highest, name)(*args)

    def _settle(self) -> None:
        """Everything recorded so far applied, in order (the runs whose moves need it priced)."""
        pending, self._pending = self._pending, []
        for apply, args in pending:
            apply(*args)

    @property
    def market(self) -> StockMarket:
        """The market now (what was recorded applied)."""
        self._settle()
        return self._market

    # ---- the market -----------------------------------------------------------------------------------
    def par(self, corporation: str, share_price, holder, percent: int) -> None:
        self._move("enter_cell", corporation, self._market.par_cell(share_price))
        self._market.bought(corporation, percent, holder)

    def floated(self, corporation: str, rises: bool = True) -> None:
        self._move("floated", corporation, rises)

    def bought(self, corporation: str, percent: int, holder) -> None:
        self._market.bought(corporation, percent, holder)

    def holding(self, corporation: str, holder) -> int:
        return self._market.holding(corporation, holder)

    def sold(self, corporation: str, percent: int, operated: bool, holder) -> None:
        self._market.bought(corporation, -percent, holder)
        self._move("drop", corporation, percent, operated)

    def stop_sale_drops(self) -> None:
        self._move("stop_sale_drops")

    def end_stock_round(self, floated: list[str]) -> None:
        self._move("rise_floated")
        self._move("rise", self._market.sold_out(floated))

    def closed(self, corporation: str) -> bool:
        """Whether the corporation's price has reached the 0 cell (1860: bankrupt); the runs are priced only
        when the highest it can be is there."""
        if self._highest is None or not self._highest.at_close(corporation):
            return False
        return self.market.at_close(corporation)

    def bankrupt(self, corporation: str) -> None:
        """The corporation leaves the market (1860's bankruptcy); the highest prices are the market's now."""
        self.market.remove(corporation)
        self._highest = self._market.copy()

    # ---- a turn ---------------------------------------------------------------------------------------
    def ran(self, corporation: str, run: Callable[[], Run], pays_at_once: bool) -> None:
        """`corporation` runs (`run()`: the Run on its request as it runs, asked when a dividend's move needs
        the run priced); `pays_at_once`: 1860's nationalization pays out without a dividend action."""
        self._run = run
        if pays_at_once:
            self.dividend(corporation, True)

    def dividend(self, corporation: str, paid: bool) -> None:
        run, rules = None, self._market.rules
        if paid and self._run is not None and rules is not None and rules.payout_by_multiple:
            run = self._run()                    # the request of now, priced later
        self._later(self._dividend, corporation, paid, run)
        if self._highest is not None:
            self._highest_paid = True
            self._highest.dividend(corporation, paid, FAR if paid else 0)

    def _dividend(self, corporation: str, paid: bool, run: Run | None) -> None:
        if paid and self._market.needs_revenue:
            revenue = 0 if run is None else run.revenue()
        else:
            revenue = None if paid else 0
        self.paid, self.revenue = True, revenue or 0
        self._market.dividend(corporation, paid, revenue)

    def end_turn(self, corporation: str | None) -> None:
        self._run = None
        self._later(self._end_turn, corporation)
        if self._highest is not None:
            if corporation is not None and not self._highest_paid:
                self._highest.dividend(corporation, False, 0)
            self._highest_paid = False

    def _end_turn(self, corporation: str | None) -> None:
        if corporation is not None:
            if not self.paid:
                self._market.dividend(corporation, False, 0)
            self.last_paid[corporation] = self.revenue if self.paid else 0
        self.paid, self.revenue = False, 0

    # ---- rounds ---------------------------------------------------------------------------------------
    def end_operating_round(self, floated: list[str], nationalization: bool) -> None:
        if nationalization:
            self._later(self._nationalize, list(floated))

    def _nationalize(self, floated: list[str]) -> None:
        self.nationalized |= self._to_nationalize(floated, self.last_paid)

    def _to_nationalize(self, floated: list[str], paid: dict[str, int]) -> set[str]:
        left = [c for c in floated if c not in self.nationalized]
        if len(left) < 3:
            return set(left)
        amounts = sorted({paid.get(c, 0) for c in left})
        least = {c for c in left if paid.get(c, 0) == amounts[0]}
        if len(least) == 1 and len(amounts) > 1:
            least |= {c for c in left if paid.get(c, 0) == amounts[1]}
        return least

    def operating(self, floated: list[str]) -> list[str]:
        """The floated corporations that still operate."""
        self._settle()
        return [c for c in floated if c not in self.nationalized]

    def next(self, floated: list[str], operated: set[str], operator: str | None, round_kind: str,
             next_round: bool, nationalization: bool) -> str | None:
        """The corporation that operates next once `operator`'s turn (or the stock round) is over: the first
        of those yet to operate (not in `operated`) in this operating round or, with `next_round`, in the
        next one. None when the model cannot tell."""
        market = self.market.copy()     # (settled)
        left = self.operating(floated)
        if round_kind == "operating" and operator is not None and not self.paid:
            market.dividend(operator, False, 0)
        if round_kind == "stock" and next_round:
            market.end_stock_round(floated)
        if next_round and round_kind == "operating" and nationalization:
            paid = dict(self.last_paid)
            if operator is not None:
                paid[operator] = self.revenue if self.paid else 0
            gone = self._to_nationalize(floated, paid)
            left = [c for c in left if c not in gone]
        return market.first([c for c in left if next_round or c not in operated])
