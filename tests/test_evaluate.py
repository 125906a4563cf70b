"""Revenue of hand-checked routes on each title's printed map with laid tiles, and each illegal case with
its rule code. Every board is worked out by hand from the title data: pointy edges 0 SW, 1 W, 2 NW, 3 NE,
4 E, 5 SE; flat 0 S, 1 SW, 2 NW, 3 N, 4 NE, 5 SE; a tile rotated r shows local edge e on map edge
(e + r) % 6.
"""
from __future__ import annotations

import copy

import pytest

from revenue.errors import InputError
from revenue.evaluation import evaluate

# 1830, west: Chicago F2 (offboard 40/brown 70, exits 3,4,5) -edge 4- Toledo F4 (tile 15 rot 5: exits
# 5,0,1,2) -edge 5- G5 (tile 7 rot 2: exits 2,3) - Cleveland F6 (gray 30, exits 5,0) -edge 5- Akron G7
# (tile 1 rot 1: town part 0 on edges 2,4) -edge 4- G9 (tile 8 rot 5: exits 5,1) - Pittsburgh H10 (tile 15
# rot 2: exits 2,3,4,5) -edge 4- Altoona H12 (gray 10, exits 1,4).
B1830 = {
    "title": "1830", "phase": "5",
    "tiles": [{"hex": "F4", "tile": "15", "rotation": 5}, {"hex": "G5", "tile": "7", "rotation": 2},
              {"hex": "G7", "tile": "1", "rotation": 1}, {"hex": "G9", "tile": "8", "rotation": 5},
              {"hex": "H10", "tile": "15", "rotation": 2}],
    "tokens": [{"hex": "F4", "city": 0, "company": "B&O"}, {"hex": "H10", "city": 0, "company": "PRR"}],
}
LONG = ["F2-0", "F4-0", "F6-0", "G7-0", "H10-0", "H12-0"]   # 70 + 30 + 30 + 10 + 30 + 10


def run(board: dict, trains: list[str], routes: list[dict], company: str = "B&O", privates=()) -> dict:
    req = {"board": board, "company": {"id": company, "trains": [{"name": t} for t in trains],
                                       "privates": list(privates)}, "routes": routes}
    return evaluate(copy.deepcopy(req))


def one(board, train, nodes, company="B&O", **kw) -> dict:
    return run(board, [train], [{"train": train, "nodes": nodes, **kw}], company)


def with_board(base: dict, tiles=(), tokens=(), **fields) -> dict:
    b = copy.deepcopy(base)
    b["tiles"] = b.get("tiles", []) + list(tiles)
    b["tokens"] = b.get("tokens", []) + list(tokens)
    b.update(fields)
    return b


def rule_of(result: dict, i: int = 0) -> str:
    assert result["legal"] is False and result["revenue"] == 0
    return result["routes"][i]["error"]["rule"]


# ---- 1830 -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("train, stops, revenue", [
    ("2", 2, 100), ("3", 3, 130), ("4", 4, 140), ("5", 5, 170), ("6", 6, 180), ("D", 6, 180)])
def test_1830_trains(train, stops, revenue):
    r = one(B1830, train, LONG[:stops])
    assert r["legal"] and r["revenue"] == revenue
    assert r["routes"][0]["revenue"] == revenue


def test_1830_stops_and_connections():
    route = one(B1830, "6", LONG)["routes"][0]
    assert [(s["node"], s["value"], s["paid"]) for s in route["stops"]] == [
        ("F2-0", 70, True), ("F4-0", 30, True), ("F6-0", 30, True), ("G7-0", 10, True),
        ("H10-0", 30, True), ("H12-0", 10, True)]
    assert [c["hexes"] for c in route["connections"]] == [
        ["F2", "F4"], ["F4", "G5", "F6"], ["F6", "G7"], ["G7", "G9", "H10"], ["H10", "H12"]]


def test_1830_phase_values():
    # Chicago is yellow_40|brown_70: 40 until a brown phase.
    assert one(with_board(B1830, phase="3"), "2", ["F2-0", "F4-0"])["revenue"] == 70
    assert one(with_board(B1830, phase="D"), "2", ["F2-0", "F4-0"])["revenue"] == 100


def test_1830_connections_given_and_checked():
    ok = one(B1830, "3", LONG[:3], connections=[{"hexes": ["F2", "F4"]}, {"hexes": ["F4", "G5", "F6"]}])
    assert ok["revenue"] == 130
    # F4 and F6 are not neighbours: no chain has that id, which is bad input naming the entry.
    with pytest.raises(InputError) as err:
        one(B1830, "3", LONG[:3], connections=[{"hexes": ["F2", "F4"]}, {"hexes": ["F4", "F6"]}])
    assert err.value.field == "routes[0].connections[1]" and "['F4', 'F6']" in err.value.description


def test_1830_two_trains_share_a_city_not_track():
    r = run(B1830, ["2", "4"], [{"train": "2", "nodes": ["F2-0", "F4-0"]},
                                {"train": "4", "nodes": ["F4-0", "F6-0", "G7-0", "H10-0"]}])
    assert r["legal"] and r["revenue"] == 100 + 100
    assert [x["revenue"] for x in r["routes"]] == [100, 100]


def test_not_connected():
    assert rule_of(one(B1830, "2", ["F2-0", "F6-0"])) == "not_connected"


def test_passes_blocked_city():
    # Cleveland has one slot; a NYC token there blocks B&O from running through, not from ending there.
    b = with_board(B1830, tokens=[{"hex": "F6", "city": 0, "company": "NYC"}])
    assert one(b, "2", ["F4-0", "F6-0"])["revenue"] == 60
    assert rule_of(one(b, "3", ["F4-0", "F6-0", "G7-0"])) == "passes_blocked"


def test_passes_offboard():
    # Tile 4 (town, straight) on E3, rotation 0: edges 0 (F2) and 3 (D4). Chicago in the middle.
    b = with_board(B1830, tiles=[{"hex": "E3", "tile": "4", "rotation": 0}])
    assert rule_of(one(b, "2", ["E3-0", "F2-0"])) == "no_token"
    r = one(b, "3", ["E3-0", "F2-0", "F4-0"])
    assert rule_of(r) == "passes_blocked" and r["routes"][0]["error"]["where"] == "F2-0"


def test_track_reused_between_trains():
    r = run(B1830, ["2", "3"], [{"train": "2", "nodes": ["F2-0", "F4-0"]},
                                {"train": "3", "nodes": ["F2-0", "F4-0", "F6-0"]}])
    assert rule_of(r, 0) == "track_reused" and rule_of(r, 1) == "track_reused"


def test_too_many_stops():
    assert rule_of(one(B1830, "2", LONG[:3])) == "too_many_stops"
    assert rule_of(one(B1830, "5", LONG)) == "too_many_stops"


def test_no_token():
    assert rule_of(one(B1830, "2", ["F6-0", "G7-0"])) == "no_token"


def test_node_twice():
    assert rule_of(one(B1830, "3", ["F4-0", "F6-0", "F4-0"])) == "node_twice"


def test_group_reused_1830_canada():
    # Barrie B10, tile 15 rotation 0 (city 30 on edges 0-3): A9 (Canada, edge 2) - Barrie - A11 (Canada, edge 3).
    b = with_board(B1830, tiles=[{"hex": "B10", "tile": "15", "rotation": 0}],
                   tokens=[{"hex": "B10", "city": 0, "company": "CPR"}])
    assert one(b, "2", ["A9-0", "B10-0"], company="CPR")["revenue"] == 50 + 30
    r = one(b, "3", ["A9-0", "B10-0", "A11-0"], company="CPR")
    assert rule_of(r) == "group_reused"


# ---- Steam Over Holland ----------------------------------------------------------------------------------

SOH = {"title": "steam_over_holland", "phase": "2",
       "tiles": [{"hex": "H9", "tile": "57", "rotation": 2}, {"hex": "G8", "tile": "8", "rotation": 3},
                 {"hex": "F9", "tile": "SOH1", "rotation": 0}],
       "tokens": [{"hex": "H9", "city": 0, "company": "NCS"}]}
# Den Haag H5 (57 rot 1: edges 1, 4) - Gouda H7 (tile 4 rot 1: town on edges 1, 4) - Utrecht H9 (57 rot 1).
SOH_WEST = {"title": "steam_over_holland", "phase": "6",
            "tiles": [{"hex": "H9", "tile": "57", "rotation": 1}, {"hex": "H7", "tile": "4", "rotation": 1},
                      {"hex": "H5", "tile": "57", "rotation": 1}],
            "tokens": [{"hex": "H9", "city": 0, "company": "NCS"}]}


def test_soh_worked_example():
    r = one(SOH, "2", ["H9-0", "F9-0"], company="NCS")
    assert r["legal"] and r["revenue"] == 50
    assert r["routes"][0]["connections"] == [{"hexes": ["H9", "G8", "F9"]}]


def test_soh_towns_pay_without_range_and_3e():
    assert one(SOH_WEST, "2", ["H9-0", "H7-0", "H5-0"], company="NCS")["revenue"] == 20 + 10 + 20
    # The 3E doubles cities and ignores towns.
    r = one(SOH_WEST, "3E", ["H9-0", "H7-0", "H5-0"], company="NCS")
    assert r["revenue"] == 2 * (20 + 20)
    assert [s["paid"] for s in r["routes"][0]["stops"]] == [True, False, True]


def test_soh_bad_end_at_town():
    r = one(SOH_WEST, "2", ["H9-0", "H7-0"], company="NCS")
    assert rule_of(r) == "bad_end" and r["routes"][0]["error"]["where"] == "H7-0"


# ---- 18Rhl and 1860 (base rules so far) --------------------------------------------------------------------

def test_18rhl_route():
    # Nimwegen A4 (40 before brown) - B3 (printed 3-5) - C4 (tile 4 rot 2: town on 2, 5) - D5 (tile 8
    # rot 2: 2, 4) - Moers D7 (tile 15: city 30).
    b = {"title": "18rhl", "phase": "3",
         "tiles": [{"hex": "C4", "tile": "4", "rotation": 2}, {"hex": "D5", "tile": "8", "rotation": 2},
                   {"hex": "D7", "tile": "15", "rotation": 0}],
         "tokens": [{"hex": "D7", "city": 0, "company": "KEG"}]}
    assert one(b, "2", ["A4-0", "C4-0", "D7-0"], company="KEG")["revenue"] == 40 + 10 + 30
    assert one(with_board(b, phase="5"), "2", ["A4-0", "C4-0", "D7-0"], company="KEG")["revenue"] == 60 + 10 + 30
    # A town on the way is a visited node: a route cannot skip it.
    assert rule_of(one(b, "2", ["A4-0", "D7-0"], company="KEG")) == "not_connected"


def test_1860_route():
    # Flat. Ryde Esp I3 (30, edge 5) - Ryde J4 (tile 6 rot 0: edges 0, 2) - Brading J6 (tile 746: 10, edges 0, 3).
    b = {"title": "1860", "phase": "3",
         "tiles": [{"hex": "J4", "tile": "6", "rotation": 0}, {"hex": "J6", "tile": "746", "rotation": 0}],
         "tokens": [{"hex": "I3", "city": 0, "company": "IOW"}]}
    assert one(b, "3+2", ["I3-0", "J4-0", "J6-0"], company="IOW")["revenue"] == 60
    assert one(b, "2+1", ["I3-0", "J4-0"], company="IOW")["revenue"] == 50
    assert rule_of(one(b, "2+1", ["I3-0", "J4-0", "J6-0"], company="IOW")) == "too_many_stops"


# ---- custom ----------------------------------------------------------------------------------------------------

def custom(hexes: list[tuple[str, str]], trains=({"name": "3", "distance": 3},), token="B1") -> dict:
    return {"title": "custom", "custom": {"layout": "pointy", "hexes": [{"hex": h, "code": c} for h, c in hexes],
                                          "trains": list(trains)},
            "tokens": [{"hex": token, "city": 0, "company": "X"}]}


def test_custom_route_and_rows():
    b = custom([("B1", "city=revenue:20;path=a:4,b:_0"), ("B3", "path=a:1,b:4"),
                ("B5", "city=revenue:30;path=a:1,b:_0;path=a:4,b:_0"), ("B7", "town=revenue:10;path=a:1,b:_0")],
               trains=[{"name": "3", "distance": 3}, {"name": "2", "distance": 2},
                       {"name": "1+1", "rows": [{"nodes": ["city"], "pay": 1, "visit": 1},
                                                {"nodes": ["town"], "pay": 1, "visit": 1}]},
                       {"name": "2x", "distance": 2, "multiplier": 2}])
    assert one(b, "3", ["B1-0", "B5-0", "B7-0"], company="X")["revenue"] == 60
    assert one(b, "2x", ["B1-0", "B5-0"], company="X")["revenue"] == 100
    assert rule_of(one(b, "2", ["B1-0", "B5-0", "B7-0"], company="X")) == "too_many_stops"
    assert rule_of(one(b, "1+1", ["B1-0", "B5-0"], company="X")) == "too_many_stops"
    assert rule_of(one(b, "3", ["B1-0", "B7-0"], company="X")) == "not_connected"


def test_track_reused_within_one_route():
    # B3 carries two paths from edge 1 (to B1): to edge 3 (A4) and edge 5 (C4). A4 -> B1 -> C4 walks the
    # B1/B3 side twice.
    b = custom([("B1", "city=revenue:20;path=a:4,b:_0"), ("B3", "path=a:1,b:3;path=a:1,b:5"),
                ("A4", "town=revenue:10;path=a:0,b:_0"), ("C4", "town=revenue:10;path=a:2,b:_0")])
    assert one(b, "3", ["A4-0", "B1-0"], company="X")["revenue"] == 30
    assert rule_of(one(b, "3", ["A4-0", "B1-0", "C4-0"], company="X")) == "track_reused"


def test_terminal_in_the_middle():
    b = custom([("B1", "city=revenue:20;path=a:4,b:_0"),
                ("B3", "city=revenue:40;path=a:1,b:_0,terminal:1;path=a:4,b:_0,terminal:1"),
                ("B5", "city=revenue:30;path=a:1,b:_0")])
    assert one(b, "3", ["B1-0", "B3-0"], company="X")["revenue"] == 60
    assert rule_of(one(b, "3", ["B1-0", "B3-0", "B5-0"], company="X")) == "terminal"


# ---- bad input in routes -----------------------------------------------------------------------------------------

def test_route_naming_missing_node():
    with pytest.raises(InputError) as e:
        one(B1830, "2", ["F2-0", "F4-7"])
    assert e.value.field == "routes[0].nodes[1]"


def test_route_with_a_train_the_company_lacks():
    with pytest.raises(InputError) as e:
        run(B1830, ["2"], [{"train": "2", "nodes": ["F2-0", "F4-0"]}, {"train": "2", "nodes": ["F4-0", "F6-0"]}])
    assert e.value.field == "routes[1].train"


def test_a_route_legal_by_itself_is_priced_in_an_illegal_run():
    # The 2-train's Chicago-Toledo is legal (70 + 30); the D route has no token, so the run is illegal and
    # pays 0, but the 2-train's own line still shows its stops and revenue.
    r = run(B1830, ["2", "D"], [{"train": "2", "nodes": ["F2-0", "F4-0"]},
                                {"train": "D", "nodes": ["F6-0", "G7-0"]}])
    assert not r["legal"] and r["revenue"] == 0
    assert r["routes"][0]["revenue"] == 100 and [s["value"] for s in r["routes"][0]["stops"]] == [70, 30]
    assert r["routes"][1]["error"]["rule"] == "no_token"
