"""The state of play of an 18xx.games game, rebuilt one standing action at a time: what routes and revenue
depend on (the board's tiles and tokens, the phase, each corporation's trains and privates, the game's
options and 1860's late-game flags), and enough of the rest to get those right (shares bought from the
initial offering, for floating; the round; which corporation operates), what decides which corporation
operates next (share prices and dividends: revenue.game.operating_order; 1860's receivership) and each
corporation's cash (revenue.game.treasury).

Rounds are read from who acts: a player buying, selling or passing in a stock round, corporations in
operating rounds (but for 1860's home track, laid in the stock round as a corporation floats). A
corporation starts a new turn when it acts after another corporation did, or when it goes back to an
earlier step (a tile after a run); a turn of a corporation that already operated in this operating round
starts the next one.

An action the replay cannot rebuild exactly raises ReplayError naming it.
"""
from __future__ import annotations

from ..errors import InputError
from ..moves.lays import upgrade_cost
from ..moves.title_rules import lay_rules
from ..titles import get_title
from .actions import ReplayError
from .board_state import BoardError, BoardState
from .depot import Depot, train_type
from .operating_order import OperatingOrder
from .runs import Run, RunEvaluations
from .shapes import export_problem, players
from .shares import Shares
from .titles import OPERATING_ROUND, game_rules
from .treasury import Treasury

TITLE_NAMES = {"1830": "1830", "1889": "1889", "1860": "1860", "18rhl": "18rhl",
               "steam over holland": "steam_over_holland", "steam_over_holland": "steam_over_holland"}
# a corporation's steps in its turn: an action of a lower rank than the last one starts a new turn
STEP_RANK = {"lay_tile": 1, "place_token": 1, "run_routes": 3, "dividend": 4, "buy_train": 5}
# actions of players that only a stock round has (the first stock round begins at a share bought)
STOCK_ACTIONS = {"buy_shares", "par", "pass", "buy_company", "bid"}
SHARE_ACTIONS = {"buy_shares", "par"}
# actions that change nothing routes depend on, nor the round (and standing orders, `program_*`, but for
# the actions they set off, their automatic ones)
IGNORED = {"message", "end_game"}
# actions that move the round and the operator on, and change nothing else the replay keeps (18Rhl's
# destination_connection: the check for the Aachen-Dueren-Koeln link, which pays the RhE's treasury only)
ROUND_ONLY = {"bid", "destination_connection"}
HANDLED = ROUND_ONLY | {"lay_tile", "place_token", "buy_train", "discard_train", "buy_company", "buy_shares",
                        "par", "bankrupt", "run_routes", "dividend", "sell_shares", "pass"}


def title_name(export: dict) -> str:
    raw = str(export.get("title") or "")
    name = TITLE_NAMES.get(raw.lower())
    if name is None:
        what = f"no replay for the title {raw!r}" if raw else "the export names no title"
        raise InputError("title", f"{what} (known: {', '.join(sorted(set(TITLE_NAMES.values())))})")
    return name


def _names(on) -> tuple:
    """The train names a phase starts on (the engine's `on`: a name or a list of them)."""
    return tuple(on) if isinstance(on, (list, tuple)) else (on,)


class GameState(Shares):
    """The state after the standing actions applied so far (apply one at a time, in log order)."""

    def __init__(self, export: dict):
        problem = export_problem(export)
        if problem:
            raise InputError(*problem)
        self.name = title_name(export)
        self.title = get_title(self.name)
        self.rules = game_rules(self.name)
        settings = export.get("settings") or {}
        self.options: dict[str, str] = {}
        for i, rule in enumerate(settings.get("optional_rules") or ()):
            if rule not in self.title.options and rule not in self.title.passive_options:
                raise InputError(f"settings.optional_rules[{i}]", f"{rule!r}: an optional rule of "
                                 f"{export.get('title')} the replay does not know")
            self.options[str(rule)] = "true"
        self.options.update(self.rules.extra_options(export))
        raw = self.title.raw()
        self.data = self.title.data(self.options)
        self.board = BoardState(self.data, raw["hexes"])
        self.players = {player for player, _ in players(export)}
        self.corporations = {c["id"]: c for c in self.data.corporations}
        self.companies = {c["id"] for c in self.data.companies}
        self.company_revenue = {c["id"]: int(c.get("revenue") or 0) for c in self.data.companies}
        self.company_ids = {c["name"]: c["id"] for c in self.data.companies if c.get("name")}
        self.phase_index = 0
        self.depot = Depot(raw["trains"], self.rules.train_counts)     # the trains and who holds them
        # privates: owner (a corporation or a player), closed ones
        self.company_owner: dict[str, object] = {}
        self.closed: set[str] = set()
        # shares: what left the initial offering, by corporation; who floated
        self.ipo_sold: dict[str, set[str]] = {}
        self.ipo_percent: dict[str, int] = {}
        self.floated: list[str] = []
        self.pool_percent: dict[str, int] = {}     # shares in the market, by corporation
        # cash (revenue.game.treasury), followed where the title's capitalization is known
        self.treasury = Treasury(self.name, self.rules.capitalization) if self.rules.capitalization else None
        self.par_price: dict[str, int] = {}
        self._turn_run: Run | None = None          # the operating corporation's run, until its dividend
        self.operated: set[str] = set()            # corporations that have had a turn
        self.receivership: set[str] = set()        # 1860: the president's certificate is in the market
        self.bankrupt: set[str] = set()            # 1860: price at 0, not floated again (tokens flipped)
        self.insolvent: set[str] = set()           # 1860: ended a turn without a train
        self.choosing_home: dict[str, str] = {}     # corporation -> home hex whose city it has yet to choose
        self.pending_home: dict[str, str] = {}      # 1860: floated corporation -> home hex it has to lay track on
        # rounds
        self.round_kind = "auction"
        self.turn = 1
        self.or_number = 0
        self.set_rounds: int | None = None          # operating rounds in this set (the phase's at its start)
        self.operator: str | None = None
        self.turn_lays: list[str] = []              # the hexes the operator laid a tile on in its turn
        self.or_operated: set[str] = set()
        self.last_rank = 0
        self.ended: str | None = None
        # share prices and dividends, for the order of operation
        self.evaluations = RunEvaluations()         # the played runs evaluated, shared with the replay
        self.order = OperatingOrder(self.name, raw.get("stock_market"), self.evaluations)
        self._run_request: tuple[dict, dict] | None = None   # (a run_routes action, its request)
        self._run: Run | None = None                # the last run_routes's Run
        # 1860
        self.southern_forms = False
        self.southern_formed = False
        self.nationalization = False

    # ---- reading the state -------------------------------------------------------------------------
    @property
    def phase(self):
        return self.data.phases[self.phase_index]

    @property
    def round_name(self) -> str:
        if self.round_kind == "operating":
            return f"OR {self.turn}.{self.or_number}"
        return f"SR {self.turn}" if self.round_kind == "stock" else "Auction"

    def privates_of(self, corporation: str) -> list[str]:
        return [c for c, owner in self.company_owner.items() if owner == corporation and c not in self.closed]

    def cash(self, corporation: str) -> int | None:
        """The corporation's cash now; None where the replay does not follow it (the title's capitalization
        unknown, or a run it was paid for that could not be priced)."""
        return None if self.treasury is None else self.treasury.cash(corporation)

    def board_request(self) -> dict:
        tokens = self.board.tokens_request()
        if self.bankrupt:
            tokens = [dict(t, flipped=True) if t["company"] in self.bankrupt else t for t in tokens]
        board = {"title": self.name, "phase": self.phase.name, "tiles": self.board.tiles_request(), "tokens": tokens}
        options = dict(self.options)
        if self.nationalization:
            options["nationalization"] = "true"
        if self.southern_formed:
            options["southern_formed"] = "true"
        if options:
            board["options"] = options
        return board

    def company_request(self, corporation: str, running: bool = False) -> dict:
        """The company's part of a request; `running`: at its run, when a trainless corporation (insolvent,
        since it runs) runs the depot's cheapest train where the title leases trains."""
        trains = [{"name": self.depot.names[t], "id": t} for t in self.depot.of(corporation)]
        if not trains and running and self.rules.leases_trains:
            leased = self.cheapest_depot_train()
            if leased is not None:
                trains = [{"name": self.depot.names.get(leased, train_type(leased)), "id": leased, "leased": True}]
        return {"id": corporation, "trains": trains, "privates": self.privates_of(corporation)}

    def request(self, corporation: str, running: bool = False) -> dict:
        """The SolveRequest of `corporation` now (`running`: at its run)."""
        return {"board": self.board_request(), "company": self.company_request(corporation, running)}

    def run_request(self, action: dict) -> dict:
        """The request of the corporation that runs `action` (a run_routes), as it runs: made once, from the
        action's turn until another action changes the state."""
        if self._run_request is None or self._run_request[0] is not action:
            self._run_request = (action, self.request(action.get("entity"), running=True))
        return self._run_request[1]

    def _run_of(self, action: dict) -> Run:
        """The Run of `action` (a run_routes) on the request it runs on: made once, at its run."""
        if self._run is None or self._run.run_routes is not action:
            self._run = Run(self.run_request(action), action, self.evaluations)
        return self._run

    @property
    def operating(self) -> list[str]:
        """The floated corporations that operate (1860's nationalized ones no longer do)."""
        return self.order.operating(self.floated)

    def next_operator(self, next_round: bool) -> str | None:
        """The corporation that operates next once the operating corporation's turn (or the stock round) is
        over: the first of those yet to operate in this operating round or, with `next_round`, in the next
        one. None when the market model cannot tell."""
        return self.order.next(self.floated, self.or_operated, self.operator, self.round_kind, next_round,
                               self.nationalization)

    def has_run(self, corporation: str) -> bool:
        """Whether the corporation has a train to run now: its own, or (1860) the depot's cheapest, leased,
        when it is insolvent or in receivership and its cash does not buy that train."""
        if self.depot.of(corporation):
            return True
        if not self.rules.leases_trains or corporation not in self.insolvent | self.receivership:
            return False
        cheapest, cash = self.cheapest_depot_train(), self.cash(corporation)
        return cheapest is not None and (cash is None or cash < self.depot.price(cheapest))

    def may_buy_train(self, corporation: str) -> bool:
        """Whether the corporation's turn may still buy a train: not at its train limit; where the title's
        train step ends when the cash buys no train (1860), one it can pay for, and none of its own while in
        receivership."""
        owned = self.depot.of(corporation)
        limit = self.phase.train_limit
        if limit is not None and len(owned) >= limit:
            return False
        trade_min, cash = self.rules.train_trade_min, self.cash(corporation)
        if trade_min is None or cash is None:
            return True
        if owned and corporation in self.receivership:
            return False
        cheapest = self.cheapest_depot_train()
        if cheapest is not None and cash >= self.depot.price(cheapest):
            return True
        return cash >= trade_min and corporation not in self.receivership and any(
            trains and seller != corporation and seller not in self.receivership and (not owned or len(trains) > 1)
            for seller, trains in self.depot.held.items())

    def turn_over(self, last: dict) -> bool:
        """Whether the operating corporation's turn has ended with `last`, the last action: its pass, or
        after its run, 1860's nationalization paying out at once, or (where a turn ends with its trains, 1860)
        a train step its cash cannot use."""
        operator = self.operator
        return (last.get("entity") == operator and last.get("type") == "pass") or (
            last.get("type") == "run_routes" and self.nationalization) or (
            self.rules.turn_ends_with_trains and self.step >= 4 and not self.may_buy_train(operator))

    @property
    def step(self) -> int:
        """The operator's last step (STEP_RANK), a run that withholds at once counted as its dividend (1860: in
        receivership or on a leased train)."""
        automatic = self.last_rank == 3 and self.rules.leases_trains and (
            self.operator in self.receivership or not self.depot.of(self.operator))
        return 4 if automatic else self.last_rank

    def operating_round_follows(self) -> bool | None:
        """Whether another operating round follows this one (else the stock round); None when unknown.
        1860's nationalization goes on with operating rounds."""
        if self.nationalization or (self.southern_forms and self._all_own_trains()):
            return True
        if self.set_rounds is None:
            return None
        return self.or_number < self.set_rounds

    def cheapest_depot_train(self) -> str | None:
        """The depot's cheapest train on offer (the engine's min_depot_train)."""
        return self.depot.cheapest(self._phase_reached)

    def _phase_reached(self, name: str) -> bool:
        names = [p.name for p in self.data.phases]
        return name in names and names.index(name) <= self.phase_index

    # ---- applying actions --------------------------------------------------------------------------
    def enter(self, index: int, action: dict) -> bool:
        """What comes before the standing action at position `index` of the log takes effect: the round
        and the operating corporation move on (a corporation's first turn places its home token where the
        title says so). False for an action that changes nothing the replay keeps. Calling it again for
        the same action changes nothing."""
        kind = action.get("type")
        if kind in IGNORED or str(kind).startswith("program_"):
            return False
        if kind not in HANDLED:
            raise ReplayError(index, action, "the replay does not know this action type")
        if self.ended is not None:
            if kind == "run_routes":
                raise ReplayError(index, action, f"a company runs after {self.ended}")
            return False
        try:
            self._round_of(action)
        except BoardError as exc:
            raise ReplayError(index, action, str(exc)) from None
        return True

    def by_ids(self, action: dict) -> dict:
        """The action with its privates named by their ids (the exports of 2020 name them by their names)."""
        named = {k: self.company_ids[v] for k in ("company", "entity")
                 if isinstance(v := action.get(k), str) and v in self.company_ids}
        return {**action, **named} if named else action

    def begin_turn(self, corporation: str, at_run: bool = False) -> None:
        """Move on to `corporation`'s operating turn as its first action would (a look ahead: the operating
        round begins if it must, a first turn's home token goes down), at its first step or its run."""
        self.enter(-1, {"type": "run_routes" if at_run else "pass", "entity": corporation,
                        "entity_type": "corporation"})

    def apply(self, index: int, action: dict) -> None:
        """Apply the standing action at position `index` of the log (and the automatic actions it carries)."""
        if not self.enter(index, action):
            if str(action.get("type")).startswith("program_"):     # what a player's programmed action set off
                for auto in action.get("auto_actions") or ():
                    self.apply(index, auto)
            return
        kind = action["type"]
        if kind not in ("run_routes", "dividend"):
            self._run_request = None          # the state changes: the run's request is made again
            if self._turn_run is not None:    # a run followed by no dividend was withheld at once
                self._pay(self.operator, "withhold")
        if kind not in ROUND_ONLY:
            try:
                getattr(self, "_" + kind)(action)
            except BoardError as exc:
                raise ReplayError(index, action, str(exc)) from None
        for auto in action.get("auto_actions") or ():
            self.apply(index, auto)

    def _entity(self, action: dict):
        """(kind, id): 'player', 'corporation' or 'company'."""
        entity = action.get("entity")
        kind = action.get("entity_type")
        if kind in ("player", "corporation", "company"):
            return kind, entity
        if entity in self.players or isinstance(entity, int):
            return "player", entity
        return ("corporation" if entity in self.corporations else "company"), entity

    def _round_of(self, action: dict) -> None:
        kind, entity = self._entity(action)
        atype = action["type"]
        if kind == "player":
            if atype in STOCK_ACTIONS and self.round_kind == "operating":
                self._start_stock_round()
            elif atype in SHARE_ACTIONS and self.round_kind == "auction" and not (
                    atype == "par" and action.get("corporation") in self.rules.auction_pars):
                self.round_kind = "stock"
                self._give_private_shares()
            return
        if kind == "company":
            owner = self.company_owner.get(entity)
            if owner not in self.corporations or atype not in ("lay_tile", "place_token"):
                return
            entity, atype = owner, ""          # a private of a corporation acts in its turn
        if entity not in self.corporations:
            raise BoardError(f"{entity!r} is no corporation of {self.name}")
        if atype == "discard_train":
            return                                # any corporation over its limit discards
        if self.round_kind != "operating":
            if entity in self.pending_home and atype in ("lay_tile", "pass"):
                return                            # 1860: a floating corporation lays its home track
            self._start_operating_round()
        rank = STEP_RANK.get(atype, 0)
        if entity != self.operator or (rank and rank < self.last_rank):
            if entity in self.or_operated:
                self._start_operating_round()
            self._start_turn(entity)
        if rank:
            self.last_rank = max(self.last_rank, rank)

    def _start_stock_round(self) -> None:
        if self.round_kind == "operating":
            self._end_operating_round()
            self.turn += 1
        self.round_kind = "stock"
        self.operator = None
        if self.southern_forms:
            self.southern_formed = True
        self._check_nationalization()

    def _start_operating_round(self) -> None:
        if self.round_kind == "operating":
            self._end_operating_round()
        elif self.round_kind == "stock":
            self.order.end_stock_round(self.floated)
            self.set_rounds = self.title.raw()["phases"][self.phase_index].get("operating_rounds")
        self.or_number = self.or_number + 1 if self.round_kind == "operating" else 1
        self.round_kind = "operating"
        self.or_operated = set()
        self.operator = None
        self._check_nationalization()
        if self.treasury is not None:
            for company, owner in self.company_owner.items():
                if owner in self.corporations and company not in self.closed:
                    self.treasury.add(owner, self.company_revenue.get(company, 0))
        if self.rules.home_timing == OPERATING_ROUND:
            for corporation in self.floated:
                self._place_home(corporation)

    def _start_turn(self, corporation: str) -> None:
        self._end_turn()
        self.operator = corporation
        self.turn_lays = []
        self.or_operated.add(corporation)
        self.last_rank = 0
        if corporation not in self.operated:
            self.operated.add(corporation)
            self._place_home(corporation)

    def _end_turn(self) -> None:
        if self._turn_run is not None:         # it ran and chose no dividend: withheld
            self._pay(self.operator, "withhold")
        if self.rules.leases_trains and self.operator is not None and not self.depot.of(self.operator):
            self.insolvent.add(self.operator)
        self.order.end_turn(self.operator)
        self._check_closed(self.operator)
        self.operator = None

    def _end_operating_round(self) -> None:
        self._end_turn()
        self.order.end_operating_round(self.floated, self.nationalization)

    def _check_nationalization(self) -> None:
        """1860: nationalization begins at a round's change once the Southern has formed and every
        floated corporation owns a train."""
        if self.southern_formed and not self.nationalization:
            if self._all_own_trains():
                self.nationalization = True

    def _all_own_trains(self) -> bool:
        return all(self.depot.of(c) for c in self.floated if c not in self.receivership)

    def _home_hexes(self, corporation: str) -> list[str]:
        coordinates = self.corporations[corporation].get("coordinates")
        return list(coordinates) if isinstance(coordinates, list) else [coordinates]

    def _place_home(self, corporation: str) -> None:
        spec = self.corporations.get(corporation)
        if spec is None:
            return
        for hex_name in self._home_hexes(corporation):
            if self.board.has_token(hex_name, corporation):
                continue
            city = self.rules.home_city(self.board, hex_name, corporation, spec.get("city"))
            state = self.board.hex(hex_name)
            if city is None:                      # several cities, none its own: the corporation chooses,
                if state.tile.paths:              # now, by a place_token
                    continue
                city = 0                          # or, on a tile without track, once a tile is laid there
                self.choosing_home[corporation] = hex_name
            if len(state.tokens[city]) < state.tile.cities[city].slots:
                self.board.place_token(hex_name, city, corporation)

    # ---- the actions ---------------------------------------------------------------------------------
    def _lay_tile(self, action: dict) -> None:
        hex_name = action.get("hex")
        kind, entity = self._entity(action)
        if self.treasury is not None and kind == "corporation":    # (a private's lay is free)
            self.treasury.spend(entity, upgrade_cost(self.board.hex(hex_name).tile, lay_rules(self.name),
                                                     set(self.privates_of(entity))))
        if self.pending_home.get(entity) == hex_name:
            del self.pending_home[entity]                           # (1860's home track, in the stock round)
        elif kind == "corporation":
            self.turn_lays.append(hex_name)
        self.board.lay(hex_name, str(action.get("tile")), action.get("rotation"))
        for corporation, home in list(self.choosing_home.items()):
            if home == hex_name:                  # its home token leaves city 0 for the city it chooses
                del self.choosing_home[corporation]
                if len(self.board.hex(hex_name).tile.cities) > 1:
                    self.board.remove_token(hex_name, corporation)

    def _place_token(self, action: dict) -> None:
        kind, entity = self._entity(action)
        company = self.company_owner.get(entity) if kind == "company" else entity
        if company not in self.corporations:
            raise BoardError(f"{entity} places a token for no corporation")
        hex_name, city = self.board.city_of(action.get("city"))
        if self.treasury is not None and kind == "corporation":
            prices = lay_rules(self.name).token_prices.get(company) or ()
            used = self.board.token_count(company)
            self.treasury.spend(company, prices[used] if used < len(prices) else 0)
        self.board.place_token(hex_name, city, company)

    def _buy_train(self, action: dict) -> None:
        buyer = action.get("entity")
        exchange = action.get("exchange")
        seller, first = self.depot.buy(buyer, str(action.get("train")), action.get("variant"),
                                       None if exchange is None else str(exchange))
        self.insolvent.discard(buyer)
        self.closed.update(p for p, owner in self.rules.closes_on_first_train.items() if owner == buyer)
        if self.treasury is not None:
            price = int(action.get("price") or 0)
            self.treasury.spend(buyer, price)
            if seller is not None:
                self.treasury.add(seller, price)
        if first:
            self._first_of_type(train_type(str(action.get("train"))))

    def _first_of_type(self, kind: str) -> None:
        """The first train of a type bought: phase changes, rusting and the type's events."""
        phases = self.data.phases
        while self.phase_index + 1 < len(phases) and kind in _names(phases[self.phase_index + 1].on):
            self.phase_index += 1
        for name, spec in self.depot.specs.items():
            if spec.get("rusts_on") == kind:
                self.depot.rust(name)
        for event in self.depot.specs[kind].get("events") or ():
            self._event(event.get("type"))

    def _event(self, kind: str | None) -> None:
        if kind == "close_companies":
            self.closed.update(self.companies)
        elif kind == "southern_forms":
            self.southern_forms = True
        elif kind == "relax_cert_limit":
            self.order.stop_sale_drops()

    def _pass(self, action: dict) -> None:
        self.pending_home.pop(action.get("entity"), None)     # (1860: no tile for its home track)

    def _discard_train(self, action: dict) -> None:
        self.depot.discard(action.get("entity"), str(action.get("train")))

    def _buy_company(self, action: dict) -> None:
        company = action.get("company")
        if not isinstance(company, str) or not company:
            raise BoardError(f"{company!r} is no private company")
        self.companies.add(company)             # (Steam Over Holland deals its privates by the seed)
        if company in self.closed:
            raise BoardError(f"{company} has closed")
        buyer = action.get("entity")
        if self.treasury is not None and buyer in self.corporations:
            self.treasury.spend(buyer, int(action.get("price") or 0))
        self.company_owner[company] = buyer

    def _run_routes(self, action: dict) -> None:
        corporation = action.get("entity")
        # 1860's nationalization pays out at once, but for an insolvent corporation (it runs a leased
        # train) and one in receivership
        pays_at_once = (self.nationalization and bool(self.depot.of(corporation))
                        and corporation not in self.receivership)
        self.order.ran(corporation, lambda: self._run_of(action), pays_at_once)
        if self.treasury is not None:
            self._turn_run = self._run_of(action)
            if pays_at_once:
                self._pay(corporation, "payout")

    def _dividend(self, action: dict) -> None:
        corporation = action.get("entity")
        if corporation != self.operator:
            raise BoardError(f"{corporation} pays a dividend out of its turn")
        self.order.dividend(corporation, action.get("kind") == "payout")
        self._pay(corporation, action.get("kind"))
        self._check_closed(corporation)

    def _pay(self, corporation: str, kind) -> None:
        """The treasury's part of the turn's run and its dividend (revenue.game.treasury)."""
        run, self._turn_run = self._turn_run, None
        if self.treasury is not None and run is not None:
            total = self._total_shares(corporation)
            self.treasury.dividend(corporation, kind, run, total,
                                   unsold=(100 - self.ipo_percent.get(corporation, 0)) * total // 100,
                                   pooled=self.pool_percent.get(corporation, 0) * total // 100)

    def _bankrupt(self, action: dict) -> None:
        if not self.rules.bankruptcy_continues:
            self.ended = f"the bankruptcy of {action.get('entity')}"


