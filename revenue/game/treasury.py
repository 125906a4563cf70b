"""Each corporation's cash in a replayed 18xx.games game (the engine's treasury): what a company can pay for a
tile, a token or a train at a moment of the game.

What moves it, as the engine does for 1830, 1889 and 1860 (revenue.game.state applies it; the titles'
`capitalization` in revenue.game.titles):
- full capitalization: ten times the par price when the corporation floats (1860 too, in the engine);
- the revenue of the privates it owns, at the start of each operating round;
- terrain costs of its tiles, its tokens' prices, privates it buys, trains it buys (what the treasury lacks for
  a train its president pays: the treasury ends at nothing) and sells;
- its runs' dividends as revenue.payout pays them: withheld, the revenue; paid out, what the market's shares
  earn it (1830, 1889); 1860's halt subsidy either way.

A run's revenue is known once the run is priced (revenue.game.runs): the ledger keeps such amounts unpriced
until a cash is read, and a cash read prices only what came since the last read.
"""
from __future__ import annotations

from typing import Callable

from ..payout import RULES as DIVIDEND_RULES
from .runs import Run

Amount = int | Callable[[], int | None]     # a sum, or one priced when first read (None: it cannot be)


class Treasury:
    def __init__(self, title: str, capitalization: str):
        self._dividends = DIVIDEND_RULES[title]
        self._capitalization = capitalization
        self._cash: dict[str, int] = {}
        self._pending: dict[str, list[tuple[bool, Amount]]] = {}    # (spent, amount) not applied yet
        self._unknown: set[str] = set()                                # a run that could not be priced

    def add(self, corporation: str, amount: Amount) -> None:
        if amount:
            self._pending.setdefault(corporation, []).append((False, amount))

    def spend(self, corporation: str, amount: int) -> None:
        """Pay `amount` from the treasury, or all of it when it has less (the president pays the rest)."""
        if amount:
            self._pending.setdefault(corporation, []).append((True, amount))

    def dividend(self, corporation: str, kind, run: Run, total: int, unsold: int, pooled: int) -> None:
        """A turn's `run` and its dividend of `kind`, as revenue.payout pays one: what the corporation keeps
        (withheld: the revenue; 1860's subsidy either way) and what its `unsold` shares (of `total`) and those
        in the market (`pooled`) earn where they pay it; a kind the title does not have leaves the cash
        unknown."""
        rules = self._dividends
        if kind not in rules.kinds:
            self.add(corporation, lambda: None)
            return
        earning = sum(n for holder, n in (("own", unsold), ("pool", pooled))
                      if rules.paid_to(holder, holder, corporation, self._capitalization) == corporation)

        def amount() -> int | None:
            revenue, subsidy = run.priced()
            if revenue is None:
                return None
            per_share = revenue // total if kind == "payout" else 0
            return rules.kept(kind, revenue, subsidy or 0) + earning * per_share
        self.add(corporation, amount)

    def cash(self, corporation: str) -> int | None:
        """The corporation's cash now (None when a run it was paid for could not be priced)."""
        cash = self._cash.get(corporation, 0)
        for spent, amount in self._pending.pop(corporation, ()):
            if callable(amount):
                amount = amount()
                if amount is None:
                    self._unknown.add(corporation)
                    amount = 0
            cash = max(0, cash - amount) if spent else cash + amount
        self._cash[corporation] = cash
        return None if corporation in self._unknown else cash
