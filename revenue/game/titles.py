"""What replaying a game needs to know of each title beyond its map, tiles, trains and phases (which come
from revenue.titles): when home tokens go down, when a corporation floats, how many copies of each train the
depot has, and where a title's game flow differs (1860's home tiles laid at floating and its leased trains;
18Rhl's seeded coal mine and steel mill, its Rhine metropolis home cities and its bankruptcies). Privates
close at the train event `close_companies` (the first 5-train in 1830, 1889, 18Rhl and Steam Over Holland).

Home token timing (the engine's HOME_TOKEN_TIMING): `operate` when the corporation first operates (1830,
18Rhl, Steam Over Holland), `operating_round` at the start of every operating round for every floated
corporation (1889), `float` when it floats (1860).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..titles import get_title

OPERATE, OPERATING_ROUND, FLOAT = "operate", "operating_round", "float"
FULL = "full"


@dataclass(frozen=True)
class GameRules:
    title: str
    home_timing: str = OPERATE
    float_percent: int = 60
    president_percent: int = 20
    train_counts: dict[str, int | None] = field(default_factory=dict)  # None: unlimited
    # a corporation lays a tile on its home hex when it floats, during the stock round (1860)
    float_lays_home_tile: bool = False
    # an insolvent corporation runs the bank's cheapest train, leased, and lays no track nor tokens (1860)
    leases_trains: bool = False
    # a player's bankruptcy leaves the board and the trains as they are and the game goes on (18Rhl: the
    # bankrupt president's corporations run on in receivership); elsewhere the replay stops there (1830 and
    # 1889 end the game; 1860's engine has no bankrupt step: its companies go bankrupt, revenue.game.shares)
    bankruptcy_continues: bool = False
    # a private that comes with a share, given at its purchase in the auction (1830's CA: a PRR share)
    private_shares: dict[str, str] = field(default_factory=dict)
    # a corporation parred in the auction by the buyer of its director's private, and the shares the bank
    # puts in the market then (18Rhl's RhE: three): it floats in the auction, not in a stock round
    auction_pars: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # private -> the corporation whose first train closes it (1830's BO: the B&O's)
    closes_on_first_train: dict[str, str] = field(default_factory=dict)
    # how a corporation is paid for its shares (the engine's CAPITALIZATION): `full`, ten times its par price
    # when it floats (1830, 1889 and, in the engine, 1860); None: the replay does not follow corporations'
    # cash (18Rhl's companies are full or incremental by when they float, revenue.payout)
    capitalization: str | None = None
    # a turn ends with its train step (1860; 1830 and 1889 may buy privates after it), and the step goes on
    # while the corporation's cash buys a train from the depot or one of another corporation for at least
    # `train_trade_min` (1860's TRAIN_PRICE_MIN, G1860 BuyTrain#buyable_trains: not another's last train when
    # the buyer has one, not from or for a corporation in receivership)
    turn_ends_with_trains: bool = False
    train_trade_min: int | None = None
    # 18Rhl: corporation -> the city of a green Rhine metropolis its home token goes to
    metropolis_homes: dict[str, int] = field(default_factory=dict)

    def home_city(self, board, hex_name: str, corporation: str, city: int | None) -> int | None:
        """The city of `hex_name` that `corporation`'s home token goes to (None: the player chooses)."""
        if corporation in self.metropolis_homes:
            cities = len(board.hex(hex_name).tile.cities)
            if cities == 1:
                return 0
            if cities == 2:
                return self.metropolis_homes[corporation]
            return city
        return board.home_city(hex_name, corporation, city)

    def extra_options(self, export: dict) -> dict[str, str]:
        """Board options a title derives from the game itself rather than from its optional rules."""
        if self.title == "18rhl":
            return variable_mine_and_mill(export)
        return {}


# 18Rhl: the home tokens of the corporations at home in a Rhine metropolis go to the city its tile gives
# (rules/18rhl.md section 9, the engine's place_rhine_metropolis_home_token): on the yellow tile (three
# cities) the corporation's own, on green (two) the right bank's (city 1) for CME and DEE and the left bank's
# (city 0) for RhE and CCE, on brown and gray (one) the only one. CCE has a second home, Krefeld (E6).
METROPOLIS_HOMES = {"CME": 1, "DEE": 1, "RhE": 0, "CCE": 0}

# 18Rhl: the engine draws the variable coal mine and steel mill from its first random number: placement =
# (rand mod 9) + 1, rand = (1103515245 * seed + 12345) mod 2^31, its seed the first number in the game's id
# mod 2^31 (game 96576: J3 and D13; hs_znvlgfsh_1626962701: D11 and D9; hs_tmekvprd_1627631653: D11 and E6).
RHL_PLACEMENTS = {1: ("J3", "E6"), 2: ("K4", "D9"), 3: ("D9", "E6"), 4: ("D9", "D13"), 5: ("C12", "E6"),
                  6: ("C12", "D9"), 7: ("J3", "D13"), 8: ("D11", "E6"), 9: ("D11", "D9")}


def variable_mine_and_mill(export: dict) -> dict[str, str]:
    digits = re.search(r"\d+", str(export.get("id", "")))
    seed = int(digits.group()) % 2 ** 31 if digits else 0
    coal, steel = RHL_PLACEMENTS[(1103515245 * seed + 12345) % 2 ** 31 % 9 + 1]
    return {"coal": coal, "steel": steel}


def _counts(title: str) -> dict[str, int | None]:
    counts = {}
    for t in get_title(title).raw()["trains"]:
        num = t.get("num")
        counts[t["name"]] = None if num in (None, "unlimited") else int(num)
    return counts


_RULES: dict[str, GameRules] = {}


def game_rules(title: str) -> GameRules:
    """The replay rules of `title` (a name revenue.titles knows)."""
    rules = _RULES.get(title)
    if rules is None:
        common = dict(title=title, train_counts=_counts(title))
        if title == "1830":
            rules = GameRules(**common, home_timing=OPERATE, float_percent=60, private_shares={"CA": "PRR_1"},
                              closes_on_first_train={"BO": "B&O"}, capitalization=FULL)
        elif title == "1889":
            # Uno-Takamatsu Ferry stays open while a player owns it (its text; a corporation's closes)
            rules = GameRules(**common, home_timing=OPERATING_ROUND, float_percent=50, capitalization=FULL)
        elif title == "1860":
            rules = GameRules(**common, home_timing=FLOAT, float_percent=50, float_lays_home_tile=True,
                              leases_trains=True, capitalization=FULL, turn_ends_with_trains=True,
                              train_trade_min=10)
        elif title == "18rhl":
            # NLK comes with a GVE share (and GVE floats once 40% more are sold: 50% out of the offering)
            rules = GameRules(**common, home_timing=OPERATE, float_percent=50, metropolis_homes=METROPOLIS_HOMES,
                              bankruptcy_continues=True, private_shares={"NLK": "GVE_1"},
                              auction_pars={"RhE": ("RhE_1", "RhE_2", "RhE_3")})
        elif title == "steam_over_holland":
            rules = GameRules(**common, home_timing=OPERATE, float_percent=20)
        else:
            rules = GameRules(**common)
        _RULES[title] = rules
    return rules
