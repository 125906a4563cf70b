"""Dividends (revenue/payout.py), each title's rule read plainly and checked on hand-made cases, then
against the 48 real 1889 turns of tests/data/1889.jsonl (what the 18xx.games engine offered and did).

The engine: per share = revenue // 10; a holder gets ceil(shares x per share). Markets (from the titles'
data; a step follows the cell's `right`/`left`, which already holds each title's own movement):
  1889 row 6: 45 50 55 60 65 70 ... ; row 0 ends at [0, 14] 350; row 4 ends at [4, 7] 100, whose right
      is [3, 7] 110 (up); [0, 0] 75's left is [1, 0] 70 (down).
  steam_over_holland (one row): 50 55 60 65 70 75 80 90 100 110 125 140 160 180 210 240 270 300 330 360e
  18rhl row 1: 70 75 80 90 100 110 ...
  1860 (one row, a step is two cells): [12] 54, [14] 58, [16] 62, [18] 68, [20] 74; [10] 50;
      [0] 0 (close), [1] 7; [52] 320, [53] 330, [54] 340 (endgame).
"""
from __future__ import annotations

import json
import pathlib

import pytest

from revenue.payout import dividends
from revenue.errors import InputError
from revenue.optimizer import solve

ROOT = pathlib.Path(__file__).resolve().parents[1]
STATES = [json.loads(line) for line in (ROOT / "tests/data/1889.jsonl").read_text().splitlines() if line.strip()]


def run(title, company, cell, holders, revenue, subsidy=0, **holding):
    request = {"title": title, "company": company, "revenue": revenue, "subsidy": subsidy,
               "holding": {"share_price": cell, "holders": [{"id": h, "shares": s} for h, s in holders], **holding}}
    return {o["kind"]: o for o in dividends(request)["options"]}


def paid(option):
    """holder -> (amount, who receives it)"""
    return {h["id"]: (h["amount"], h["paid_to"]) for h in option["holders"]}


def cash(option):
    return {c["id"]: c["amount"] for c in option["cash"]}


def move(option):
    return option["direction"], option["steps"], option["moved"], option["share_price_after"], option["price_after"]


# ---- the base rules: 1830, 1889 ----------------------------------------------------------------------------

def test_base_payout_and_withhold_with_ipo_and_pool_shares():
    # TR at [6, 4] 65 earns 160: 16 a share; players 5 and 2 shares get 80 and 32; TR's own 2 shares
    # (initial offering, full capitalization) pay nobody; the pool share pays TR 16.
    o = run("1889", "TR", [6, 4], [("Player 3", 5), ("Player 4", 2), ("TR", 2), ("pool", 1)], 160)
    payout, withhold = o["payout"], o["withhold"]
    assert list(o) == ["payout", "withhold"]
    assert payout["kept"] == 0 and payout["per_share"] == 16 and payout["divs_to_company"] == 16
    assert paid(payout) == {"Player 3": (80, "Player 3"), "Player 4": (32, "Player 4"), "TR": (0, ""),
                            "pool": (16, "TR")}
    assert cash(payout) == {"Player 3": 80, "Player 4": 32, "TR": 16}
    assert payout["company_amount"] == 16
    assert move(payout) == ("right", 1, 1, [6, 5], 70)
    # withhold: TR keeps 160, nobody else is paid, one left
    assert withhold["kept"] == 160 and withhold["per_share"] == 0 and cash(withhold) == {"TR": 160}
    assert move(withhold) == ("left", 1, 1, [6, 3], 60)
    assert not payout["game_end"] and not withhold["game_end"]


def test_base_rounding_fractional_shares_and_other_companies():
    # 75 // 10 = 7 a share; 1.5 shares earn ceil(10.5) = 11; another company (KO) holding 2 shares of IR
    # is paid 14; 5 shares 35.
    o = run("1889", "IR", [5, 2], [("Player 1", 5), ("Player 2", 1.5), ("KO", 2)], 75)["payout"]
    assert o["per_share"] == 7
    assert paid(o) == {"Player 1": (35, "Player 1"), "Player 2": (11, "Player 2"), "KO": (14, "KO")}
    assert cash(o) == {"Player 1": 35, "Player 2": 11, "KO": 14}


def test_base_market_edges():
    # [0, 14] 350 has nothing to its right: the price stays (0 of 1 steps moved)
    assert move(run("1889", "AR", [0, 14], [("Player 1", 6)], 500)["payout"]) == ("right", 1, 0, [0, 14], 350)
    # at the end of row 4 a move right goes up: [4, 7] 100 -> [3, 7] 110
    assert move(run("1889", "AR", [4, 7], [("Player 1", 6)], 100)["payout"]) == ("right", 1, 1, [3, 7], 110)
    # at the start of row 0 a move left goes down: [0, 0] 75 -> [1, 0] 70
    assert move(run("1889", "AR", [0, 0], [("Player 1", 6)], 100)["withhold"]) == ("left", 1, 1, [1, 0], 70)


def test_base_nothing_to_pay_moves_left():
    # a run of 0: paying out 0 moves left like withholding
    o = run("1830", "B&O", [0, 6], [("Player 1", 6)], 0)
    assert move(o["payout"]) == move(o["withhold"]) == ("left", 1, 1, [0, 5], 90)
    assert cash(o["payout"]) == {} and o["payout"]["per_share"] == 0


def test_1830_is_the_base():
    # B&O at [0, 6] 100 pays 100: 10 a share, one right to 112; its pool share pays B&O
    o = run("1830", "B&O", [0, 6], [("Player 1", 6), ("pool", 1)], 100)["payout"]
    assert paid(o) == {"Player 1": (60, "Player 1"), "pool": (10, "B&O")}
    assert move(o) == ("right", 1, 1, [0, 7], 112)


def test_incremental_capitalization_pays_the_treasury_not_the_pool():
    # the base rules with capitalization incremental (as the request may say): the company's own
    # 3 shares pay it 3 x 20 = 60; the pool's 2 shares pay nobody
    o = run("1889", "SR", [5, 2], [("Player 1", 5), ("SR", 3), ("pool", 2)], 200,
            capitalization="incremental")["payout"]
    assert paid(o) == {"Player 1": (100, "Player 1"), "SR": (60, "SR"), "pool": (0, "")}
    assert o["divs_to_company"] == 60 and cash(o) == {"Player 1": 100, "SR": 60}


# ---- Steam Over Holland: incremental, moves by the revenue against the price ------------------------------

NCS = [("Player 1", 5), ("NCS", 3), ("pool", 2)]


@pytest.mark.parametrize("revenue,expected", [
    (60, ("", 0, 0, [0, 4], 70)),          # below the price 70: no move
    (70, ("right", 1, 1, [0, 5], 75)),     # at the price: one right
    (139, ("right", 1, 1, [0, 5], 75)),    # below twice the price: one right
    (140, ("right", 2, 2, [0, 6], 80)),    # twice the price: two right
    (700, ("right", 2, 2, [0, 6], 80)),    # ten times: still two
])
def test_steam_over_holland_moves(revenue, expected):
    assert move(run("steam_over_holland", "NCS", [0, 4], NCS, revenue)["payout"]) == expected


def test_steam_over_holland_payouts_withhold_and_the_end():
    o = run("steam_over_holland", "NCS", [4], NCS, 60)   # a one-row market takes [column] too
    # 6 a share: the player's 5 shares 30, the treasury's 3 shares 18 to NCS (incremental), the pool's none
    assert paid(o["payout"]) == {"Player 1": (30, "Player 1"), "NCS": (18, "NCS"), "pool": (0, "")}
    assert o["payout"]["company_amount"] == 18
    assert move(o["withhold"]) == ("left", 1, 1, [0, 3], 65) and o["withhold"]["kept"] == 60
    # at 330 a run of 700 (twice 330 and more) moves two, but 360 is the last cell: one moved, game end
    end = run("steam_over_holland", "NCS", [0, 18], NCS, 700)["payout"]
    assert move(end) == ("right", 2, 1, [0, 19], 360)
    assert end["game_end"] and end["cell_types_after"] == ["endgame"]


# ---- 18Rhl: full capitalization, pool unpaid, one right at or above the price -----------------------------

def test_18rhl():
    holders = [("Player 1", 6), ("KEG", 2), ("pool", 2)]
    at = run("18rhl", "KEG", [1, 3], holders, 90)
    # 9 a share: the player 54; KEG holds 2 of its own shares, which (g_18_rhl/game.rb float_corporation)
    # only a company floated before phase 5 does: it is incremental, so they are treasury shares paying
    # KEG 2 x 9 = 18 (step/dividend.rb holder_for_corporation); the pool's shares pay nobody
    assert paid(at["payout"]) == {"Player 1": (54, "Player 1"), "KEG": (18, "KEG"), "pool": (0, "")}
    assert cash(at["payout"]) == {"Player 1": 54, "KEG": 18} and at["payout"]["divs_to_company"] == 18
    assert move(at["payout"]) == ("right", 1, 1, [1, 4], 100)                 # 90 at the price 90
    assert move(run("18rhl", "KEG", [1, 3], holders, 300)["payout"]) == ("right", 1, 1, [1, 4], 100)
    assert move(run("18rhl", "KEG", [1, 3], holders, 80)["payout"]) == ("", 0, 0, [1, 3], 90)   # below
    assert move(at["withhold"]) == ("left", 1, 1, [1, 2], 80)


def test_18rhl_capitalization_full_and_incremental():
    # the 18Rhl data says "full" for every company (the engine's CAPITALIZATION); g_18_rhl/game.rb
    # float_corporation makes a company floated before phase 5 incremental and sends a later one's unsold
    # shares to the pool. Without a capitalization, a company holding none of its own shares stays full.
    r = dividends({"title": "18rhl", "company": "ADR", "revenue": 120,
                   "holding": {"share_price": [0, 4], "holders": [{"id": "Player 1", "shares": 6},
                                                                  {"id": "pool", "shares": 4}]}})
    assert r["capitalization"] == "full"
    payout = r["options"][0]
    # 12 a share: the player's 6 shares 72; the pool's 4 pay nobody (g_18_rhl/step/dividend.rb
    # dividends_for_entity: a full company gets nothing for pool shares, unlike 1830/1889)
    assert paid(payout) == {"Player 1": (72, "Player 1"), "pool": (0, "")} and payout["divs_to_company"] == 0
    # a request that says full is followed even with own shares (the initial offering pays nobody)
    o = run("18rhl", "ADR", [0, 4], [("Player 1", 6), ("ADR", 2), ("pool", 2)], 120, capitalization="full")
    assert paid(o["payout"]) == {"Player 1": (72, "Player 1"), "ADR": (0, ""), "pool": (0, "")}
    # and incremental, said or inferred from the own shares: the treasury's 2 shares pay ADR 24
    for extra in ({"capitalization": "incremental"}, {}):
        o = run("18rhl", "ADR", [0, 4], [("Player 1", 6), ("ADR", 2), ("pool", 2)], 120, **extra)
        assert paid(o["payout"]) == {"Player 1": (72, "Player 1"), "ADR": (24, "ADR"), "pool": (0, "")}


# ---- 1860: players only, subsidy to the company, one to four right by multiples of the price --------------

HOLDERS_1860 = [("Player 1", 6), ("Player 2", 1), ("IOW", 1), ("FYN", 1), ("pool", 1)]


@pytest.mark.parametrize("revenue,expected", [
    (50, ("", 0, 0, [0, 12], 54)),         # below the price 54: no move
    (54, ("right", 1, 1, [0, 14], 58)),    # at the price: one step (two cells)
    (108, ("right", 2, 2, [0, 16], 62)),   # 2 x 54
    (200, ("right", 3, 3, [0, 18], 68)),   # 3 x 54 = 162 <= 200 < 216
    (300, ("right", 4, 4, [0, 20], 74)),   # 5 x 54 = 270 <= 300: four at most
])
def test_1860_moves(revenue, expected):
    assert move(run("1860", "IOW", [0, 12], HOLDERS_1860, revenue)["payout"]) == expected


def test_1860_payouts_subsidy_and_edges():
    o = run("1860", "IOW", [0, 12], HOLDERS_1860, 110, subsidy=20)
    payout, withhold = o["payout"], o["withhold"]
    # 11 a share to the players only: 66 and 11; IOW's own, FYN's and the pool's shares pay nobody;
    # the subsidy 20 goes to IOW on a payout ...
    assert paid(payout) == {"Player 1": (66, "Player 1"), "Player 2": (11, "Player 2"), "IOW": (0, ""),
                            "FYN": (0, ""), "pool": (0, "")}
    assert payout["kept"] == 20 and cash(payout) == {"IOW": 20, "Player 1": 66, "Player 2": 11}
    assert move(payout) == ("right", 2, 2, [0, 16], 62)    # 110 >= 2 x 54
    # ... and with the revenue on a withhold: 130, one step left
    assert withhold["kept"] == 130 and cash(withhold) == {"IOW": 130}
    assert move(withhold) == ("left", 1, 1, [0, 10], 50)
    # a withhold at 14 [2] drops two cells to 0 [0], a cell that closes the company
    low = run("1860", "IOW", [0, 2], HOLDERS_1860, 50)["withhold"]
    assert move(low) == ("left", 1, 1, [0, 0], 0) and low["cell_types_after"] == ["close"] and not low["game_end"]
    # from 320 [52], two steps right reach 340 [54] after one: the end of the track, which ends the game
    top = run("1860", "IOW", [0, 52], HOLDERS_1860, 700)["payout"]
    assert move(top) == ("right", 2, 1, [0, 54], 340) and top["game_end"]


def test_1860_zigzag_stops_short_of_the_ends():
    # g_1860/game.rb init_stock_market: StockMarket.new(MARKET, [], zigzag: true), no ledge_movement; in
    # lib/engine/stock_movement.rb ZigZagMovement#left moves c - 2 only if c - 2 >= 0 and #right c + 2 only
    # if c + 2 < 55, else the column stays. So (odd columns, reached by a re-par at 40, 47, 52, 56 ...):
    # 7 [1] withholding stays at 7 (the title data's dump says 0 [0]) ...
    low = run("1860", "IOW", [0, 1], HOLDERS_1860, 50)["withhold"]
    assert move(low) == ("left", 1, 0, [0, 1], 7) and low["cell_types_after"] == ["ignore_one_sale"]
    # ... and 330 [53] paying out 700 (2 x 330 <= 700 < 3 x 330: two steps) stays at 330, no game end
    # (the data's dump says 340 [54])
    top = run("1860", "IOW", [0, 53], HOLDERS_1860, 700)["payout"]
    assert move(top) == ("right", 2, 0, [0, 53], 330) and not top["game_end"]
    # 316 is not a price: from 310 [51] one step reaches 330 [53] and the second stays
    assert move(run("1860", "IOW", [0, 51], HOLDERS_1860, 700)["payout"]) == ("right", 2, 1, [0, 53], 330)


# ---- the engine's edge cases of the step ---------------------------------------------------------------------

@pytest.mark.parametrize("title,company,cell,expected", [
    # lib/engine/step/dividend.rb: a payout of 5 is 0 a share (5 // 10) and pays nobody, but the base
    # share_price_change gets revenue - corporation = 5 > 0: one right (1889 [6, 4] 65 -> [6, 5] 70)
    ("1889", "TR", [6, 4], ("right", 1, 1, [6, 5], 70)),
    # Steam Over Holland: 5 is below the price 70: no move (only 0 moves left)
    ("steam_over_holland", "NCS", [0, 4], ("", 0, 0, [0, 4], 70)),
    # 18Rhl: 5 > 0 but below 90: no move
    ("18rhl", "KEG", [1, 3], ("", 0, 0, [1, 3], 90)),
    # 1860: g_1860/step/dividend.rb passes 0 for the move when per share is 0: one step left, 54 -> 50
    ("1860", "IOW", [0, 12], ("left", 1, 1, [0, 10], 50)),
])
def test_a_payout_of_less_than_one_a_share(title, company, cell, expected):
    payout = run(title, company, cell, [("Player 1", 6)], 5)["payout"]
    assert payout["per_share"] == 0 and cash(payout) == {} and move(payout) == expected


def test_the_markets_move_as_the_engines_stock_market():
    """Every cell's moves, as lib/engine/stock_movement.rb moves them on each title's market, against the
    moves the title data's dump lists: the same except 1860's two ledge cells (see the test above)."""
    from revenue.payout import RULES, Market
    from revenue.titles import get_title

    differ = []
    for name, rules in RULES.items():
        stock = get_title(name, "title").raw()["stock_market"]
        market = Market(stock, zigzag=rules.zigzag_market)
        for r, row in enumerate(stock["market"]):
            for c, cell in enumerate(row):
                for direction in ("right", "left", "up", "down") if cell else ():
                    ours = market.step((r, c), direction)
                    if (list(ours) if ours else None) != cell[direction]:
                        differ.append((name, [r, c], direction, cell[direction]))
    assert differ == [("1860", [0, 1], "left", [0, 0]), ("1860", [0, 53], "right", [0, 54])]


# ---- requests --------------------------------------------------------------------------------------------

def test_routes_evaluated_first():
    # examples/evaluate_1889.json runs for 200 (D 120 + 6 80): 20 a share
    evaluated = json.loads((ROOT / "examples/evaluate_1889.json").read_text())
    r = dividends({"evaluate": evaluated, "holding": {"share_price": [5, 3], "holders": [{"id": "P", "shares": 6}]}})
    assert r["title"] == "1889" and r["company"] == "IR" and r["revenue"] == 200 and r["price"] == 65
    assert paid(r["options"][0]) == {"P": (120, "P")}


def test_solve_with_a_holding_lists_the_dividends_of_the_best_run():
    request = json.loads((ROOT / "examples/solve_1889.json").read_text())
    request["holding"] = {"share_price": [5, 2], "holders": [{"id": "Player 3", "shares": 5},
                                                            {"id": "AR", "shares": 4}, {"id": "pool", "shares": 1}]}
    r = solve(request)
    # the best run earns 390 (conformance action 384): 39 a share, the pool share pays AR 39; 60 -> 65
    assert r["revenue"] == 390
    payout = {o["kind"]: o for o in r["dividends"]}["payout"]
    assert cash(payout) == {"Player 3": 195, "AR": 39} and payout["price_after"] == 65
    assert "dividends" not in solve(json.loads((ROOT / "examples/solve_1889.json").read_text()))


@pytest.mark.parametrize("change,field,says", [
    ({"company": "XX"}, "company", "'XX' is not a corporation of 1889"),
    ({"holding": {"share_price": [11, 0]}}, "holding.share_price", "[11, 0] is not a cell"),
    ({"holding": {"share_price": [8, 4]}}, "holding.share_price", "[8, 4] is not a cell"),   # row 8 has 4 cells
    ({"holding": {}}, "holding.share_price", "is required"),
    ({"holding": {"share_price": [5, 2], "holders": [{"id": "A", "shares": 8}, {"id": "B", "shares": 3}]}},
     "holding.holders", "hold 11 shares of KO's 10"),
    ({"holding": {"share_price": [5, 2], "holders": [{"id": "A", "shares": -1}]}},
     "holding.holders[0].shares", "negative"),
    ({"holding": {"share_price": [5, 2], "holders": [{"id": "A", "shares": 1}, {"id": "A", "shares": 1}]}},
     "holding.holders[1].id", "listed twice"),
    ({"holding": {"share_price": [5, 2], "capitalization": "partial"}}, "holding.capitalization", "not full"),
    ({"title": "custom"}, "title", "custom has no stock market"),
    ({"title": "9999"}, "title", "unknown title"),
    ({"options": {"no_such": "true"}}, "options[no_such]", "unknown option for 1889 (known: beginner_game)"),
    ({"revenue": -10}, "revenue", "negative"),
])
def test_bad_input_names_the_field(change, field, says):
    request = {"title": "1889", "company": "KO", "revenue": 70, "holding": {"share_price": [5, 2]}, **change}
    with pytest.raises(InputError) as e:
        dividends(request)
    assert e.value.field == field and says in e.value.description


def test_bad_routes_name_the_field():
    evaluated = json.loads((ROOT / "examples/evaluate_1889.json").read_text())
    evaluated["routes"][1]["nodes"] = ["F1-0", "J1-0"]
    with pytest.raises(InputError) as e:
        dividends({"evaluate": evaluated, "holding": {"share_price": [5, 2]}})
    assert e.value.field == "evaluate.routes" and "not a legal run" in e.value.description
    with pytest.raises(InputError) as e:
        dividends({"evaluate": evaluated, "revenue": 10, "holding": {"share_price": [5, 2]}})
    assert e.value.field == "evaluate"


# ---- the engine's own dividends in 48 real turns -----------------------------------------------------------

@pytest.mark.parametrize("state", STATES, ids=lambda s: f"{s['game']}-{s['action_id']}")
def test_conformance_1889(state):
    d = state["dividend"]
    r = dividends({"title": "1889", "company": state["request"]["company"]["id"], "revenue": d["revenue"],
                   "subsidy": d["subsidy"],
                   "holding": {"share_price": d["share_price"]["coordinates"],
                               "holders": [{"id": h["id"], "shares": h["shares"]} for h in d["holders"]]}})
    assert r["price"] == d["share_price"]["price"]
    assert r["total_shares"] == d["total_shares"] and r["capitalization"] == d["capitalization"]
    ours = {o["kind"]: o for o in r["options"]}
    assert set(ours) == set(d["options"])
    for kind, engine in d["options"].items():
        o = ours[kind]
        assert (o["kept"], o["per_share"], o["divs_to_company"]) == \
            (engine["corporation"], engine["per_share"], engine["divs_to_corporation"])
        assert (o["direction"], o["steps"]) == (engine["share_direction"], engine["share_times"])
    chosen = ours[d["chosen"]]
    assert cash(chosen) == d["cash_delta"]
    assert chosen["share_price_after"] == d["share_price_after"]["coordinates"]
    assert chosen["price_after"] == d["share_price_after"]["price"]


# ---- the examples and the command line ------------------------------------------------------------------

# examples/dividends_<title>.json -> (payout: company receives, price after; withhold: price after)
EXAMPLES = {
    "1830": (42, 112, 90),                 # 210: 21 a share, B&O's 2 pool shares 42; 100 -> 112 / 90
    "1889": (16, 70, 60),                  # 160: 16 a share, TR's pool share 16; 65 -> 70 / 60
    "steam_over_holland": (45, 80, 65),    # 150 >= 2 x 70: two right; NCS's 3 treasury shares 45
    "18rhl": (18, 100, 80),                # 90 at the price 90: one right; KEG's 2 treasury shares 18
    "1860": (20, 62, 50),                  # 110 >= 2 x 54: two steps; the subsidy 20 to IOW
}


@pytest.mark.parametrize("title", EXAMPLES)
def test_examples_on_the_command_line(title):
    from click.testing import CliRunner
    from google.protobuf import json_format

    from revenue.cli import main
    from revenue.v1 import revenue_pb2

    path = ROOT / "examples" / f"dividends_{title}.json"
    json_format.Parse(path.read_text(), revenue_pb2.DividendsRequest())   # strict: no unknown fields
    company, price_paid, price_withheld = EXAMPLES[title]
    out = CliRunner().invoke(main, ["dividends", str(path), "--json"])
    assert out.exit_code == 0, out.output
    options = {o["kind"]: o for o in json.loads(out.stdout)["options"]}
    assert options["payout"]["company_amount"] == company
    assert options["payout"]["price_after"] == price_paid and options["withhold"]["price_after"] == price_withheld
    text = CliRunner().invoke(main, ["dividends", str(path)])
    assert text.exit_code == 0 and "payout" in text.stdout and "withhold" in text.stdout
    assert f"{price_paid} at" in text.stdout and f"{price_withheld} at" in text.stdout


def test_command_line_bad_input():
    from click.testing import CliRunner

    from revenue.cli import main

    out = CliRunner().invoke(main, ["dividends", "-"], input='{"title": "1889", "company": "KO", "holding": {}}')
    assert out.exit_code == 2
    assert "error: holding.share_price: the company's share price cell [row, column] is required" in out.stderr
