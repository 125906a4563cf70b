"""The operating order (revenue.game.market, revenue.game.operating_order) against the real games of
tests/data/games/exports/ and 18Rhl's game 96576 (tests/data/games/fixtures/): at every turn of every operating round, the corporation the model says
operates next (GameState.next_operator, asked before the action that begins the turn) is the one that
did; and the market's rules on small cases."""
from __future__ import annotations

import collections
import json
import pathlib

import pytest

from revenue.cache import RUN_CACHE_BYTES, ByteLRU
from revenue.game.actions import standing_actions
from revenue.game.analysis import played_run, suggest
from revenue.game.market import StockMarket
from revenue.game.replay import turns
from revenue.game.state import GameState
from revenue.titles import get_title

EXPORTS = pathlib.Path(__file__).parent / "data" / "games" / "exports"
FIXTURES = EXPORTS.parent / "fixtures"
GAMES = ("1830_29133", "1889_314", "1889_962", "1860_19354", "18rhl_96576")
# turns of each game (a corporation's turn in an operating round)
TURNS = {"1830_29133": 34, "1889_314": 43, "1889_962": 56, "1860_19354": 86, "18rhl_96576": 105}


def _turns_and_predictions(game: str) -> list[tuple[str, str, str | None]]:
    """(round, the corporation that operated, the one predicted) at each turn's first action."""
    export = json.loads((EXPORTS / f"{game}.json" if (EXPORTS / f"{game}.json").exists()
                         else FIXTURES / f"{game}.json").read_text())
    state = GameState(export)
    seen = []
    for index, action in standing_actions(export["actions"]):
        before = (state.round_name, state.operator)
        in_round = state.next_operator(False) if state.round_kind == "operating" else None
        next_round = state.next_operator(True) if state.round_kind in ("operating", "stock") else None
        state.enter(index, action)
        now = (state.round_name, state.operator)
        if state.round_kind == "operating" and state.operator is not None and now != before:
            seen.append((state.round_name, state.operator, next_round if now[0] != before[0] else in_round))
        state.apply(index, action)
    return seen


@pytest.mark.parametrize("game", GAMES)
def test_every_turn_is_the_one_the_market_orders(game):
    seen = _turns_and_predictions(game)
    assert len(seen) == TURNS[game]
    assert [(r, c) for r, c, _ in seen] == [(r, p) for r, _, p in seen]


def _market(title: str) -> StockMarket:
    return StockMarket(title, get_title(title).raw()["stock_market"])


def test_equal_prices_operate_in_the_order_they_reached_the_cell():
    market = _market("1889")
    market.par("KO", "65,5,3")
    market.par("IR", "65,5,3")
    market.par("TR", "70,4,3")
    assert market.order(["KO", "IR", "TR"]) == ["TR", "KO", "IR"]
    market.move("KO", "right")                     # 70: after TR, which was there first
    market.move("KO", "left")                      # back to 65: after IR now
    assert market.order(["KO", "IR", "TR"]) == ["TR", "IR", "KO"]
    market.move("IR", "right")                     # 70 at column 4: right of TR (70 at column 3)
    assert market.first(["KO", "IR", "TR"]) == "IR"


def test_sales_and_sold_out_move_the_price():
    market = _market("1830")
    market.par("PRR", "90,1,6")
    market.bought("PRR", 100, "a")
    market.sold("PRR", 20, True, "a")              # two shares: two rows down
    assert market.price("PRR") == 76
    market.end_stock_round(["PRR"])                # 20% in the market: no rise
    assert market.price("PRR") == 76
    market.bought("PRR", 20, "b")                  # the players hold it all
    market.end_stock_round(["PRR"])
    assert market.price("PRR") == 82


def test_1860_moves_a_cell_per_share_sold_and_by_multiples_of_the_price_paid():
    market = _market("1860")
    market.par("C&N", "100,0,26")
    market.floated("C&N")
    market.sold("C&N", 10, False, "a")             # not operated yet: no drop
    assert market.price("C&N") == 100
    market.sold("C&N", 20, True, "a")
    assert market.price("C&N") == 90
    market.dividend("C&N", True, 89)               # below the price: no move
    assert market.price("C&N") == 90
    market.dividend("C&N", True, 185)              # twice the price: two steps right
    assert market.price("C&N") == 110
    market.dividend("C&N", False, 0)
    assert market.price("C&N") == 100
    market.par("FYN", "36,0,6")                    # (no par cell: a position for the test)
    market.sold("FYN", 10, True, "a")              # an 'ignore_one_sale' cell: the first share is free
    assert market.price("FYN") == 36


def test_1860s_two_cell_step_never_passes_an_end_and_the_0_cell_closes():
    """The engine's zigzag market (revenue.payout.Market), not the data's pointers: at 7 (column 1) a
    withhold stays put, where the data would step to 0; a sale's one cell reaches 0, the 'close' cell."""
    market = _market("1860")
    market.par("FYN", "7,0,1")                     # (no par cell: a position for the test)
    market.dividend("FYN", False, 0)
    assert market.price("FYN") == 7 and not market.at_close("FYN")
    market.sold("FYN", 20, True, "a")              # (an 'ignore_one_sale' cell: two shares, one cell)
    assert market.price("FYN") == 0 and market.at_close("FYN")
    market.remove("FYN")
    assert market.price("FYN") is None and market.holding("FYN", "a") == 0
    market.par("S&C", "0,0,0")                     # (a price of 0 paid out: no division by it)
    market.dividend("S&C", True, 50)
    assert market.price("S&C") == 44                # (four steps right, the most)


def test_18rhl_moves_a_row_per_sale_and_right_once_for_a_dividend_of_the_price():
    market = _market("18rhl")
    market.par("BME", "75,2,2")
    market.floated("BME")                          # floated in the stock round: a row up at its end
    market.par("GVE", "75,2,2")
    market.floated("GVE", rises=False)             # (in the auction, or the brown phase: no rise)
    market.end_stock_round([])
    assert market.price("BME") == 80 and market.price("GVE") == 75
    market.dividend("BME", True, 79)               # below the price: no move
    assert market.price("BME") == 80
    market.dividend("BME", True, 400)              # five times the price: one step right
    assert market.price("BME") == 90
    market.sold("BME", 30, True, "a")              # a sale of three shares: one row down
    assert market.price("BME") == 80


def test_a_title_without_a_model_names_no_one():
    market = _market("steam_over_holland")
    market.par("A", "70,0,4")
    market.par("B", "50,0,0")
    assert market.first(["A", "B"]) is None


def _counting_evaluations(monkeypatch) -> collections.Counter:
    """The evaluations of runs from now on, by run_routes action id (the process's revenues of runs
    priced before forgotten)."""
    import revenue.evaluation
    import revenue.game.runs

    counts: collections.Counter = collections.Counter()
    evaluate = revenue.evaluation.evaluate

    def counting(request, *args, **kwargs):
        counts[request["run_routes"].get("id")] += 1
        return evaluate(request, *args, **kwargs)
    monkeypatch.setattr(revenue.evaluation, "evaluate", counting)
    monkeypatch.setattr(revenue.game.runs, "_REVENUES", ByteLRU(RUN_CACHE_BYTES))
    return counts


def test_the_rebuild_prices_runs_only_when_the_order_is_read_and_each_once(monkeypatch):
    """1860's payouts move prices by the run's revenue: the turns' requests price no run; a state read
    halfway, then extended, prices each paid run once; the replay's played runs are those the market reads."""
    export = json.loads((EXPORTS / "1860_19354.json").read_text())
    counts = _counting_evaluations(monkeypatch)
    assert len(list(turns(export))) == 75 and not counts
    actions = list(standing_actions(export["actions"]))
    state = GameState(export)
    for number, (index, action) in enumerate(actions):
        state.enter(index, action)
        if number == len(actions) // 2:
            assert state.next_operator(False) is not None and counts
        state.apply(index, action)
    state.next_operator(True)
    assert counts and set(counts.values()) == {1}
    state.next_operator(True)
    assert set(counts.values()) == {1}

    counts.clear()
    state = GameState(export)
    for index, action in actions:
        state.enter(index, action)
        if action["type"] == "run_routes":
            played_run(state.run_request(action), action, state.evaluations)
        state.apply(index, action)
    played = dict(counts)
    state.next_operator(True)
    assert counts == played and set(played.values()) == {1}


def test_a_game_asked_again_with_more_actions_prices_only_its_new_runs(monkeypatch):
    export = json.loads((EXPORTS / "1860_19354.json").read_text())
    runs = [i for i, a in standing_actions(export["actions"]) if a["type"] == "run_routes"]
    counts = _counting_evaluations(monkeypatch)
    first = suggest({**export, "actions": export["actions"][:runs[-10]], "status": "active"}, deadline_ms=5000)
    assert first["company"] and counts and set(counts.values()) == {1}
    priced = dict(counts)
    last = suggest({**export, "actions": export["actions"][:runs[-1]], "status": "active"}, deadline_ms=5000)
    assert last["company"] and set(counts.values()) == {1} and len(counts) > len(priced)
