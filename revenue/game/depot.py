"""The trains of a replayed 18xx.games game: who holds which train (by its id, `"<name>-<copy>"`), what the
depot still sells (copies by type, trains discarded back to it) and which types have rusted. The state of
play (revenue.game.state) moves them by the log's actions and decides what a train bought sets off
(phases, rusting, events).
"""
from __future__ import annotations

from typing import Callable

from .board_state import BoardError


def train_type(train_id: str) -> str:
    return str(train_id).rpartition("-")[0]


class Depot:
    def __init__(self, specs: list[dict], counts: dict[str, int | None]):
        self.specs = {t["name"]: t for t in specs}
        self.order = [t["name"] for t in specs]
        self.counts = counts                        # train type -> copies (None: unlimited)
        self.owner: dict[str, str] = {}             # train -> the corporation holding it (absent: the bank)
        self.held: dict[str, list[str]] = {}        # corporation -> its trains, in the order bought
        self.names: dict[str, str] = {}             # train -> its name as run (a variant's)
        self.bought: dict[str, int] = {}            # train type -> copies sold by the depot
        self.discarded: list[str] = []              # trains back in the depot
        self.gone: set[str] = set()                 # rusted or exchanged
        self.rusted: set[str] = set()

    def of(self, corporation: str) -> list[str]:
        return self.held.get(corporation) or []

    def price(self, train: str) -> int:
        return int(self.specs[train_type(train)].get("price", 0))

    def cheapest(self, phase_reached: Callable[[str], bool]) -> str | None:
        """The depot's cheapest train on offer (the engine's min_depot_train)."""
        offered = self.offered(phase_reached)
        return min(offered, key=self.price) if offered else None

    def offered(self, phase_reached: Callable[[str], bool]) -> list[str]:
        """The trains the depot sells now: the next train of the first type not sold out, those of later
        types whose `available_on` phase has come (`phase_reached`), and the discarded ones."""
        offered: list[str] = []
        first = True
        for name in self.order:
            if name in self.rusted:
                continue
            count = self.counts.get(name)
            sold = self.bought.get(name, 0)
            if count is not None and sold >= count:
                continue
            available_on = self.specs[name].get("available_on")
            if first or (available_on and phase_reached(available_on)):
                offered.append(f"{name}-{sold}")
            first = False
        return offered + self.discarded

    def buy(self, buyer: str, train: str, variant: str | None, exchange: str | None) -> tuple[str | None, bool]:
        """`buyer` buys `train` (from another corporation, the discarded trains or the depot), giving
        `exchange` back if named: (the seller, None for the bank; whether it is the depot's first of its
        type)."""
        if exchange:
            if self.owner.get(exchange) != buyer:
                raise BoardError(f"{buyer} does not own train {exchange} to exchange")
            self.take(exchange)
            self.gone.add(exchange)
        if train in self.gone:
            raise BoardError(f"train {train} has rusted or left the game")
        seller, first = self.owner.get(train), False
        if seller is not None:
            self.take(train)
        elif train in self.discarded:
            self.discarded.remove(train)
        else:
            first = self._from_depot(train)
        self.owner[train] = buyer
        self.held.setdefault(buyer, []).append(train)
        self.names[train] = variant or self.names.get(train) or train_type(train)
        return seller, first

    def _from_depot(self, train: str) -> bool:
        kind = train_type(train)
        if kind not in self.specs:
            raise BoardError(f"train {train} is of no type of the title")
        if kind in self.rusted:
            raise BoardError(f"{kind} trains have rusted")
        count = self.counts.get(kind)
        copy = train.rpartition("-")[2]
        if not copy.isdigit() or (count is not None and int(copy) >= count):
            raise BoardError(f"train {train} is no copy of the {kind} trains the depot has")
        first = kind not in self.bought
        self.bought[kind] = self.bought.get(kind, 0) + 1
        return first

    def rust(self, kind: str) -> None:
        self.rusted.add(kind)
        for train in [t for t in self.owner if train_type(t) == kind]:
            self.take(train)
            self.gone.add(train)
        for train in [t for t in self.discarded if train_type(t) == kind]:
            self.discarded.remove(train)
            self.gone.add(train)

    def discard(self, corporation, train: str) -> None:
        if self.owner.get(train) != corporation:
            raise BoardError(f"{corporation} does not own train {train}")
        self.take(train)
        self.discarded.append(train)

    def take(self, train: str) -> None:
        owner = self.owner.pop(train, None)
        if owner is not None:
            self.held[owner].remove(train)
