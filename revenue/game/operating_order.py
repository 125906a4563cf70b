"""Which corporation operates next in an 18xx.games game: the floated corporations in share price order
(revenue.game.market), each turn's dividend moving the price of the corporation that ran, and 1860's
nationalization taking corporations out of the rounds.

A turn's dividend: the one the player chose; none chosen is a withhold (a corporation that did not run,
1860's insolvent corporation running a leased train); during 1860's nationalization a corporation that
runs its own trains pays out at once. A paid dividend's move in 1860 depends on the run's revenue, which
is priced (revenue.evaluation) only there.

1860's nationalization (the engine's nationalize_corps!): at the end of each operating round once it
has begun, the corporations that paid the least in their last turn (withheld or not run: nothing) stop
operating: all of them, and when only one paid the least also those that paid the next least; with two
or fewer corporations left, all of them.
"""
from __future__ import annotations

from typing import Callable

from ..errors import InputError
from .market import StockMarket


class OperatingOrder:
    def __init__(self, title: str, market_spec: dict | None):
        self.market = StockMarket(title, market_spec)
        self.paid = False                       # the operating corporation's turn chose its dividend
        self.revenue = 0                        # what it paid out
        self.run: Callable[[], dict] | None = None    # its run: a SolveRequest with the run_routes action
        self.last_paid: dict[str, int] = {}     # per corporation, what its last turn paid out
        self.nationalized: set[str] = set()

    # ---- a turn ---------------------------------------------------------------------------------------
    def ran(self, corporation: str, run: Callable[[], dict], pays_at_once: bool) -> None:
        """`corporation` runs (`run()`: its request with the run_routes action, made when the run is priced,
        before the board changes); `pays_at_once`: 1860's nationalization pays out without a dividend
        action."""
        self.run = run
        if pays_at_once:
            self.dividend(corporation, True)

    def dividend(self, corporation: str, paid: bool) -> None:
        revenue = self.run_revenue() if paid and self.market.needs_revenue else (None if paid else 0)
        self.paid, self.revenue = True, revenue or 0
        self.market.dividend(corporation, paid, revenue)

    def run_revenue(self) -> int | None:
        """The revenue of this turn's run (0 without one, None when it cannot be priced)."""
        if self.run is None:
            return 0
        from ..evaluation import evaluate     # the route kernels: loaded only for a title that prices runs
        try:
            return evaluate(self.run())["revenue"]
        except InputError:
            return None

    def end_turn(self, corporation: str | None) -> None:
        if corporation is not None:
            if not self.paid:
                self.market.dividend(corporation, False, 0)
            self.last_paid[corporation] = self.revenue if self.paid else 0
        self.paid, self.revenue, self.run = False, 0, None

    # ---- rounds ---------------------------------------------------------------------------------------
    def end_operating_round(self, floated: list[str], nationalization: bool) -> None:
        if nationalization:
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
        return [c for c in floated if c not in self.nationalized]

    def next(self, floated: list[str], operated: set[str], operator: str | None, round_kind: str,
             next_round: bool, nationalization: bool) -> str | None:
        """The corporation that operates next once `operator`'s turn (or the stock round) is over: the first
        of those yet to operate (not in `operated`) in this operating round or, with `next_round`, in the
        next one. None when the model cannot tell."""
        market = self.market.copy()
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
