"""1860 (Isle of Wight), rules/1860.md sections 5-7: an A+B train pays every city and off-board it visits
(at most A of them) and the best B + (A - cities) towns; halts pay nothing here (their subsidy is not
revenue) and may not end a route; a route may pass one tokened-out city, and one route of a run at most;
one route must visit the home token city, the routes must intersect, and no route may come back to a
hex it left. Not modelled: leased trains of insolvent companies, nationalization, ignored halts after
the Southern forms, flipped or neutral tokens."""
from __future__ import annotations

from dataclasses import replace

from .base import BYPASS_FLAG, DistanceRow, RouteRules, RunRules, Title, TitleData, TrainType

HOME_FLAG = 2          # flag bit 1: the route visits the company's home token city
CITIES, TOWNS = 0, 1   # rows of an A+B train here (the third row holds the halts)


def _on(options: dict | None, name: str) -> bool:
    return str((options or {}).get(name, "")).lower() not in ("", "0", "false", "no")


def _options(options: dict | None) -> dict:
    """The original game is the two-player map with every visited town counted."""
    options = dict(options or {})
    if _on(options, "original_game"):
        options.update(two_player_map="true", no_skip_towns="true")
    return options


def _a_plus_b(train: TrainType, no_skip_towns: bool) -> TrainType:
    """The data's rows (cities/off-boards: pay A, visit A; towns/halts: pay B, visit 99) with the halts
    in a row of their own that pays nothing and limits nothing; with no_skip_towns a route may visit
    only as many towns as it can pay."""
    cities, towns = train.rows
    town_visit = towns.pay if no_skip_towns else towns.visit
    return replace(train, rows=(cities, DistanceRow(("town",), towns.pay, town_visit), DistanceRow(("halt",), 0, 99)))


class G1860(Title):
    name = "1860"
    description = ("1860: Railways on the Isle of Wight (an A+B train's unused city allowance pays towns too; "
                   "halts earn no revenue)")
    options = {"two_player_map": "the smaller first-edition map",
               "re_enter_hexes": "routes may re-enter a hex they left",
               "no_skip_towns": "every visited town is counted",
               "original_game": "two_player_map, original_insolvency and no_skip_towns",
               "original_insolvency": "leased trains of insolvent companies earn half revenue"}
    passive_options = {"simplified_insolvency": "fixed leased-train revenue in the help text; the engine runs "
                                                "leased trains as under the default rules",
                       "non_operated_full_value": "the value of companies that have not operated"}

    def __init__(self) -> None:
        super().__init__()
        self._trains: dict[int, TitleData] = {}

    def data(self, options: dict | None = None, board_request: dict | None = None) -> TitleData:
        options = _options(options)
        data = super().data(options, board_request)
        if id(data) not in self._trains:   # once per variant: the rows with the halts apart
            no_skip = _on(options, "no_skip_towns")
            data.trains = {name: _a_plus_b(t, no_skip) for name, t in data.trains.items()}
            self._trains[id(data)] = data
        return data

    def end_allowed(self, train, node) -> bool:
        return node.kind != "halt"

    def route_rules(self, train, company, board, graph) -> RouteRules:
        home = self._home(company.id)
        return RouteRules(bypass=1, spill=(CITIES, TOWNS), no_reentry=not _on(board.options, "re_enter_hexes"),
                          flags={n.id: HOME_FLAG for n in graph.nodes
                                 if n.hex == home and n.kind == "city" and company.id in n.tokens})

    def run_rules(self, company, board, graph) -> RunRules:
        return RunRules(flag_max={BYPASS_FLAG.bit_length() - 1: 1}, flag_min={HOME_FLAG.bit_length() - 1: 1},
                        connected=True, messages={
                            "flag_max": "Only one train can bypass a tokened-out city",
                            "flag_min": "At least one route must include home token",
                            "connected": "Routes must intersect with each other"})

    def _home(self, company_id: str) -> str | None:
        return next((c["coordinates"] for c in self.raw().get("corporations", ()) if c["id"] == company_id), None)
