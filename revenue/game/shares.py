"""Shares of an 18xx.games game as the replay follows them (a part of revenue.game.state.GameState): pars,
shares bought from the initial offering or the market and sold to it, the float (with its capitalization
and, by title, its home token or 1860's home track), the president's certificate sold (1860's
receivership), and 1860's company bankruptcy at the 0 cell of its market."""
from __future__ import annotations

from .board_state import BoardError
from .titles import FLOAT, FULL


class Shares:
    """The share actions of GameState, which holds the state they change."""

    def _par(self, action: dict) -> None:
        corporation = action.get("corporation")
        if corporation not in self.corporations:
            raise BoardError(f"{corporation!r} is no corporation of the title")
        self.order.par(corporation, action.get("share_price"), action.get("entity"), self.rules.president_percent)
        price = str(action.get("share_price") or "").partition(",")[0]
        if price.isdigit():
            self.par_price[corporation] = int(price)
        for share in self.rules.auction_pars.get(corporation, ()):    # (18Rhl's RhE: into the market)
            self._sell_from_ipo(corporation, share, 10)
            self.pool_percent[corporation] = self.pool_percent.get(corporation, 0) + 10
        self._sell_from_ipo(corporation, f"{corporation}_0", self.rules.president_percent)

    def _buy_shares(self, action: dict) -> None:
        shares = [str(s) for s in action.get("shares") or ()]
        if not shares:
            return
        each = int(action.get("percent") or 10 * len(shares)) // len(shares)
        kind, entity = self._entity(action)
        for share in shares:
            corporation = share.rpartition("_")[0]
            if corporation not in self.corporations:
                raise BoardError(f"share {share!r} is of no corporation of the title")
            self.order.bought(corporation, each, entity)
            if self.order.holding(corporation, entity) >= self.rules.president_percent:
                self.receivership.discard(corporation)     # a president again
            self._sell_from_ipo(corporation, share, each)
        if kind == "company" and entity in self.companies:
            self.closed.add(entity)            # a private exchanged for a share

    def _give_private_shares(self) -> None:
        """The shares that come with privates, theirs since the auction (which sells every private)."""
        for share in self.rules.private_shares.values():
            corporation = share.rpartition("_")[0]
            self.order.bought(corporation, 10, "private")
            self._sell_from_ipo(corporation, share, 10)

    def _sell_from_ipo(self, corporation: str, share: str, percent: int) -> None:
        """A share leaves the initial offering."""
        sold = self.ipo_sold.setdefault(corporation, set())
        if share in sold:                      # bought from the market
            self.pool_percent[corporation] = self.pool_percent.get(corporation, 0) - percent
            return
        sold.add(share)
        self.ipo_percent[corporation] = self.ipo_percent.get(corporation, 0) + percent
        if corporation not in self.floated and self.ipo_percent[corporation] >= self.rules.float_percent:
            self.bankrupt.discard(corporation)         # (1860: floated again, its tokens turn back)
            self.floated.append(corporation)
            # (18Rhl raises those floated in a stock round before the brown phase at its end)
            self.order.floated(corporation, rises="brown" not in self.phase.colours and self.round_kind == "stock")
            if self.treasury is not None and self.rules.capitalization == FULL:
                self.treasury.add(corporation, self.par_price.get(corporation, 0) * self._total_shares(corporation))
            if self.rules.home_timing == FLOAT:
                self._place_home(corporation)
            if self.rules.float_lays_home_tile:         # 1860: its home track, on a hex without track
                home = self._home_hexes(corporation)[0]
                if not self.board.hex(home).tile.paths:
                    self.pending_home[corporation] = home

    def _sell_shares(self, action: dict) -> None:
        shares = [str(s) for s in action.get("shares") or ()]
        if not shares:
            return
        corporation = shares[0].rpartition("_")[0]
        if corporation not in self.corporations:
            raise BoardError(f"shares {shares!r} are of no corporation of the title")
        percent = int(action.get("percent") or 10 * len(shares))
        self.pool_percent[corporation] = self.pool_percent.get(corporation, 0) + percent
        self.order.sold(corporation, percent, corporation in self.operated, action.get("entity"))
        if f"{corporation}_0" in shares and self.rules.leases_trains:
            self.receivership.add(corporation)
        self._check_closed(corporation)

    def _check_closed(self, corporation: str | None) -> None:
        """1860: a corporation whose price has reached the 0 cell goes bankrupt (the engine's make_bankrupt!):
        it leaves the market and the operating order, its shares go back to its treasury, its tokens stay
        on the map flipped (GameState.bankrupt, `flipped` in the request: they block nothing) and its
        turn, if it is operating, ends. It keeps its trains, privates and cash, and when it floats again
        it is capitalized anew and its tokens turn back."""
        if corporation is None or corporation not in self.floated or not self.order.closed(corporation):
            return
        self.order.bankrupt(corporation)
        self.bankrupt.add(corporation)
        self.floated.remove(corporation)
        for shares in (self.ipo_sold, self.ipo_percent, self.pool_percent, self.par_price):
            shares.pop(corporation, None)
        self.receivership.discard(corporation)
        self.pending_home.pop(corporation, None)
        if self.operator == corporation:
            self._turn_run = None
            self.operator = None

    def _total_shares(self, corporation: str) -> int:
        return int((self.title.raw()["stock_market"].get("total_shares") or {}).get(corporation) or 10)

