"""1860 on its real map: each route rule of rules/1860.md sections 5-9 on small hand-checked boards (evaluate,
solve and the reference), and the optimizer against the reference's plain reading of the rules on random
boards, with leased trains, the insolvency options, nationalization, the Southern and both objectives.
Flat map edges: 0 S, 1 SW, 2 NW, 3 N, 4 NE, 5 SE; a tile rotated r shows local edge e on (e + r) % 6.
A train "A+B" pays every visited city/off-board (at most A of them) and the best X = B + (A - c) visited
towns, c being the number of visited cities and off-boards; a halt pays no revenue but, counted in what X
leaves, a subsidy of 10, and may not end a route. A leased train earns 40 + 20 per stop.

The reference reads every board through tests/ref_board.py and its trains from the same copy of the
18xx.games data: nothing of the library's board assembly is shared with it."""
from __future__ import annotations

import itertools
import os
import pathlib
import random

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from benchmarks.scenarios import lay_tiles, place_tokens
from revenue.errors import InputError
from revenue.evaluation import evaluate
from revenue.moves import legal_tokens
from revenue.optimizer import solve

from .ref_board import dump_for, ref_board, train_defs
from .reference import G1860Rules, all_trails, best_run, blocks, node_name, pair, route_value, track_graph

# The reference's own reading of the 18xx.games data (tests/ref_board.py), not the library's board
TRAIN_DEFS = train_defs("1860")
CORPORATIONS = dump_for("1860", {})["corporations"]


def board(tiles, tokens, phase="3", options=None, flipped=()):
    """(`flipped`: the companies whose tokens are flipped, in bankruptcy)"""
    return {"title": "1860", "phase": phase, "options": options or {},
            "tiles": [{"hex": h, "tile": t, "rotation": r} for h, t, r in tiles],
            "tokens": [{"hex": h, "city": c, "company": who, **({"flipped": True} if who in flipped else {})}
                       for h, c, who in tokens]}


def company(cid, trains, leased=False):
    return {"id": cid, "trains": [{"name": t, "leased": leased} if leased else {"name": t} for t in trains]}


def run(b, cid, routes, leased=False):
    """Evaluate routes [(train, nodes)] or [(train, nodes, halts)] for company cid; "reference" is the
    reference's (revenue, subsidy) for them."""
    routes = [r if len(r) == 3 else (*r, None) for r in routes]
    expected = reference_run(b, cid, routes, leased)
    result = evaluate({"board": b, "company": company(cid, [t for t, _, _ in routes], leased),
                       "routes": [{"train": t, "nodes": n, **({} if h is None else {"halts": h})}
                                  for t, n, h in routes]})
    return {**result, "reference": expected}


def best(b, cid, trains, leased=False, objective=None):
    r = solve({"board": b, "company": company(cid, trains, leased), **({"objective": objective} if objective else {})})
    assert r["optimal"]
    return r


def train_def(name, leased=False, **extra):
    return {**TRAIN_DEFS[name], **({"leased": True} if leased else {}), **extra}


def reference(b, cid, trains, leased=False, objective="revenue", both=False):
    """The reference's best revenue (both: its best (revenue, subsidy))."""
    built = ref_board(b)
    score = best_run(built, cid, [train_def(t, leased) for t in trains], G1860Rules(built, cid, objective))[0]
    return pair(score) if both else pair(score)[0]


def reference_run(b, cid, routes, leased=False):
    """The reference's (revenue, subsidy) for the routes [(train, nodes, halts)], or None when it finds the
    run illegal: each route a legal trail through exactly those nodes in that order, no two sharing track,
    the run rules."""
    built = ref_board(b)
    g = track_graph(built)
    rules = G1860Rules(built, cid)
    shapes = all_trails(built, g, cid, bypass=1)
    options = []
    for train, nodes, halts in routes:
        found = []
        for shape, ends, paths, seq in shapes:
            for walk, steps in ((shape, seq), (shape[::-1], seq[::-1])):
                if [node_name(g, v) for v in walk] != nodes:
                    continue
                value = route_value(built, g, cid, train_def(train, leased, halts=halts), walk, steps, rules)
                if value is not None:
                    flags = rules.route_flags(nodes, any(blocks(built, g, v, cid) for v in walk[1:-1]))
                    found.append((value, (nodes, flags), ends, paths))
        options.append(found)
    totals = []
    for combo in itertools.product(*options):
        ends = [e for _, _, es, _ in combo for e in es]
        paths = [p for _, _, _, ps in combo for p in ps]
        if len(ends) == len(set(ends)) and len(paths) == len(set(paths)) and rules.run_ok([c[1] for c in combo]):
            totals.append(sum(c[0] for c in combo))
    return pair(max(totals)) if totals else None


def error(result, i=0):
    assert result["reference"] is None
    assert result["legal"] is False and result["revenue"] == 0
    return result["routes"][i]["error"]["rule"]


def run_error(result):
    """The rule a run breaks although each of its routes is legal on its own."""
    assert result["reference"] is None
    assert result["legal"] is False and result["revenue"] == 0
    assert all(not r.get("error") for r in result["routes"])
    return result["run_error"]["rule"]


def stops(result, i=0):
    return {s["node"]: (s["value"], s["paid"]) for s in result["routes"][i]["stops"]}


def legal(result, revenue, subsidy=0):
    assert result["reference"] == (revenue, subsidy)
    assert result["legal"], result
    assert (result["revenue"], result["subsidy"]) == (revenue, subsidy)
    return True


# ---- the town allowance ---------------------------------------------------------------------------------
# Phase 5. Merstone G7 (761, unrotatable: city 20 on edges 0, 4, 5; halt G7-1 on edge 3, linked to the city)
# -0- Godshill G9 (762 rot 3: city 20 on edges 3, 4, 5, 0) -0- Whitwell G11 (747 rot 3: town 10 on edges 3, 4)
# -4- Wroxall H10 (766 rot 5: town 20 on edges 5, 1) -5- Ventnor I11 (printed city 30, edge 2). NGStL home G9.
SPILL = [("G7", "761", 0), ("G9", "762", 3), ("G11", "747", 3), ("H10", "766", 5)]
SPILL_TOKENS = [("G9", 0, "NGStL")]
FULL = ["G7-0", "G9-0", "G11-0", "H10-0", "I11-0"]


def test_unused_city_allowance_pays_towns():
    b = board(SPILL, SPILL_TOKENS, "5")
    # 2+1 with one city: X = 1 + (2 - 1) = 2, both towns paid: 20 + 10 + 20 = 50.
    r = run(b, "NGStL", [("2+1", ["G9-0", "G11-0", "H10-0"])])
    assert legal(r, 50)
    assert stops(r) == {"G9-0": (20, True), "G11-0": (10, True), "H10-0": (20, True)}


def test_a_town_beyond_the_allowance_is_passed_unpaid():
    b = board(SPILL, SPILL_TOKENS, "5")
    # 2+1 with two cities: X = 1 + 0 = 1, the better town (H10, 20) paid: 20 + 20 + 30 = 70; G11 passed.
    r = run(b, "NGStL", [("2+1", FULL[1:])])
    assert legal(r, 70)
    assert stops(r) == {"G9-0": (20, True), "G11-0": (0, False), "H10-0": (20, True), "I11-0": (30, True)}
    # 3+2: X = 2 + 1 = 3, both towns: 20 + 10 + 20 + 30 = 80.
    assert legal(run(b, "NGStL", [("3+2", FULL[1:])]), 80)
    # Best 2+1: that route, 70 (G7 G9 G11 H10 pays 20 + 20 + 20 = 60; G9 G11 H10 50).
    assert reference(b, "NGStL", ["2+1"]) == 70
    assert best(b, "NGStL", ["2+1"])["revenue"] == 70


def test_too_many_cities():
    b = board(SPILL, SPILL_TOKENS, "5")
    # Three cities: a 2+1 may not, cities are never skipped.
    assert error(run(b, "NGStL", [("2+1", FULL)])) == "too_many_stops"
    # 3+2: c = 3, X = 2 + 0 = 2: 20 + 20 + 10 + 20 + 30 = 100; a 4+2 (X = 3) the same.
    assert legal(run(b, "NGStL", [("3+2", FULL)]), 100)
    assert reference(b, "NGStL", ["3+2"]) == 100
    assert best(b, "NGStL", ["3+2"])["revenue"] == 100
    assert reference(b, "NGStL", ["4+2"]) == 100
    assert best(b, "NGStL", ["4+2"])["revenue"] == 100


def test_no_skip_towns_makes_extra_towns_illegal():
    for option in ("no_skip_towns", "original_game"):
        b = board(SPILL, SPILL_TOKENS, "5", {option: "true"})
        # 2+1 with two cities and two towns: X = 1 < 2 towns.
        assert error(run(b, "NGStL", [("2+1", FULL[1:])])) == "too_many_stops"
        # One city, two towns: X = 2, all paid: 50.
        assert legal(run(b, "NGStL", [("2+1", ["G9-0", "G11-0", "H10-0"])]), 50)
        # Best 2+1: 50 (G7 G9 G11: 20 + 20 + 10, or G9 G11 H10: 20 + 10 + 20).
        assert reference(b, "NGStL", ["2+1"]) == 50
        assert best(b, "NGStL", ["2+1"])["revenue"] == 50
        # 3+2 over all five: c = 3, X = 2 = the towns visited: 100.
        assert legal(run(b, "NGStL", [("3+2", FULL)]), 100)


# ---- halts ------------------------------------------------------------------------------------------------
# Phase 2. Cowes F2 (787, C&N home: city 20 F2-0 - town 10 F2-1 - halt F2-2 on edge 0) -0- Cement Mills F4
# (742 rot 3: halt on edges 3, 5) -5- Newport G5 (printed city 30, edges 2, 3).
COWES = [("F2", "787", 0), ("F4", "742", 3)]


def test_cowes_home_is_left_through_its_town_and_halt():
    b = board(COWES, [("F2", 0, "C&N")], "2")
    # Cities F2, G5 (c = 2), town F2 (X = 1 + 0 = 1), halts F2-2 and F4-0 pay nothing and use nothing:
    # 20 + 10 + 30 = 60.
    r = run(b, "C&N", [("2+1", ["F2-0", "F2-1", "F2-2", "F4-0", "G5-0"])])
    assert legal(r, 60)
    assert stops(r)["F2-1"] == (10, True)
    assert legal(run(b, "C&N", [("2+1", ["F2-0", "F2-1"])]), 30)
    assert reference(b, "C&N", ["2+1"]) == 60
    assert best(b, "C&N", ["2+1"])["revenue"] == 60


def test_no_route_begins_or_ends_at_a_halt():
    b = board(COWES, [("F2", 0, "C&N")], "2")
    assert error(run(b, "C&N", [("2+1", ["F2-0", "F2-1", "F2-2"])])) == "bad_end"
    assert error(run(b, "C&N", [("2+1", ["F4-0", "F2-2", "F2-1", "F2-0"])])) == "bad_end"


# ---- no hex re-entry --------------------------------------------------------------------------------------
# Phase 3. Newport G5 (763, unrotatable: city 50 G5-0 on edges 1-4; city 30 G5-1 on edge 0) -0- Merstone G7
# (761: halt G7-1 on edge 3 linked to city 20 G7-0 on edges 0, 4, 5) -4- H6 (8 rot 1: edges 1, 3) -3- Wooton
# H4 (754 rot 4: town 10 H4-1 on edges 0, 1; halt H4-0 on edge 4) -1- G5 city 50. IWNJ home G7.
LOOP = [("G5", "763", 0), ("G7", "761", 0), ("H6", "8", 1), ("H4", "754", 4)]
AROUND = ["G5-1", "G7-1", "G7-0", "H4-1", "G5-0"]


def test_a_route_may_not_reenter_a_hex():
    b = board(LOOP, [("G7", 0, "IWNJ")])
    # Out of Newport by G5-1, back in to G5-0: hexes G5 G7 H6 H4 G5.
    assert error(run(b, "IWNJ", [("3+2", AROUND)])) == "hex_reentry"
    # Best 3+2: G7 H4 G5-0 = 20 + 10 + 50 = 80 (G5-1 G7 H4 is 30 + 20 + 10 = 60).
    assert reference(b, "IWNJ", ["3+2"]) == 80
    assert best(b, "IWNJ", ["3+2"])["revenue"] == 80
    # A halt ends no route.
    assert error(run(b, "IWNJ", [("3+2", ["G7-0", "H4-1", "H4-0"])])) == "bad_end"


def test_reentering_a_hex_with_re_enter_hexes():
    b = board(LOOP, [("G7", 0, "IWNJ")], options={"re_enter_hexes": "true"})
    # c = 3 (G5-1 30, G7 20, G5-0 50), X = 2 + 0 = 2: the town 10 paid, then the halt G7-1 counted in what
    # is left of X: 110 and a subsidy of 10.
    r = run(b, "IWNJ", [("3+2", AROUND)])
    assert legal(r, 110, 10)
    assert r["routes"][0]["halts"] == 1
    assert stops(r)["H4-1"] == (10, True) and stops(r)["G5-0"] == (50, True)
    assert reference(b, "IWNJ", ["3+2"]) == 110
    assert best(b, "IWNJ", ["3+2"])["revenue"] == 110
    # The 2+1 keeps to two cities: G7 H4 G5-0 = 80.
    assert reference(b, "IWNJ", ["2+1"]) == 80
    assert best(b, "IWNJ", ["2+1"])["revenue"] == 80


# Phase 3, a plain crossing tile met twice. Wooton H4 (754 rot 4: town 10 H4-1 on edges 0, 1) -0- H6 (17: paths
# 1-3 and 0-4) -1- Merstone G7 (761: city 20 on edges 0, 4, 5) -5- Horringford H8 (747 rot 2: town 10 on edges
# 2, 3) -3- H6 again -4- Ashey I5 (747 rot 1: town 10 on edges 1, 2). IWNJ home G7.
CROSSING = [("H4", "754", 4), ("H6", "17", 0), ("G7", "761", 0), ("H8", "747", 2), ("I5", "747", 1)]
TWICE = ["H4-1", "G7-0", "H8-0", "I5-0"]


def test_reentering_a_plain_hex_on_its_other_track():
    b = board(CROSSING, [("G7", 0, "IWNJ")])
    # Hexes H4 H6 G7 H8 H6 I5: back in H6 on its other path.
    assert error(run(b, "IWNJ", [("3+2", TWICE)])) == "hex_reentry"
    # Best 3+2: H4 G7 H8 or G7 H8 I5, one city and two towns: 20 + 10 + 10 = 40.
    assert reference(b, "IWNJ", ["3+2"]) == 40
    assert best(b, "IWNJ", ["3+2"])["revenue"] == 40
    again = board(CROSSING, [("G7", 0, "IWNJ")], options={"re_enter_hexes": "true"})
    # 3+2: c = 1, X = 2 + 2 = 4, all three towns: 20 + 30 = 50. 2+1: X = 1 + 1 = 2 towns: 40.
    assert legal(run(again, "IWNJ", [("3+2", TWICE)]), 50)
    r = run(again, "IWNJ", [("2+1", TWICE)])
    assert legal(r, 40)
    assert sum(paid for _, paid in stops(r).values()) == 3          # the city and two of the towns
    assert reference(again, "IWNJ", ["3+2"]) == 50
    assert best(again, "IWNJ", ["3+2"])["revenue"] == 50


# ---- tokened-out cities, home token and connected runs ---------------------------------------------------
# Phase 3. Merstone G7 (761: city 20 on edges 0, 4, 5) -0- Godshill G9 (762 rot 3: city 20 on edges 3, 4, 5, 0)
# -5- Wroxall H10 (748 rot 2: town 10 on edges 2, 4) -4- Shanklin I9 (57 rot 1: city 20 on edges 1, 4) -4-
# Sandown J8 (115 rot 1: city 20 on edge 1). IWNJ at G7 (home) and J8; NGStL fills G9.
SOUTH = [("G7", "761", 0), ("G9", "762", 3), ("H10", "748", 2), ("I9", "57", 1), ("J8", "115", 1)]
SOUTH_TOKENS = [("G7", 0, "IWNJ"), ("J8", 0, "IWNJ"), ("G9", 0, "NGStL")]
LINE = ["G7-0", "G9-0", "H10-0", "I9-0", "J8-0"]


def test_one_tokened_out_city_may_be_passed_and_is_paid():
    b = board(SOUTH, SOUTH_TOKENS)
    # 4+2: c = 4, X = 2 + 0 = 2: 20 + 20 (G9, full of NGStL) + 10 + 20 + 20 = 90.
    r = run(b, "IWNJ", [("4+2", LINE)])
    assert legal(r, 90)
    assert stops(r)["G9-0"] == (20, True)
    assert reference(b, "IWNJ", ["4+2"]) == 90
    assert best(b, "IWNJ", ["4+2"])["revenue"] == 90


def test_two_tokened_out_cities_may_not_be_passed():
    b = board(SOUTH, SOUTH_TOKENS + [("I9", 0, "S&C")])
    assert error(run(b, "IWNJ", [("4+2", LINE)])) == "passes_blocked"
    # Best 4+2: G7 G9 H10 I9 = 20 + 20 + 10 + 20 = 70 (passes G9 only; I9 is its end).
    assert reference(b, "IWNJ", ["4+2"]) == 70
    assert best(b, "IWNJ", ["4+2"])["revenue"] == 70


def test_only_one_route_may_pass_a_tokened_out_city():
    b = board(SOUTH, SOUTH_TOKENS + [("I9", 0, "S&C")])
    # G7 G9 H10 passes G9, H10 I9 J8 passes I9 (each 2+1: c = 2, X = 1: 20 + 20 + 10 = 50).
    both = [("2+1", LINE[:3]), ("2+1", LINE[2:])]
    assert legal(run(b, "IWNJ", both[:1]), 50)
    assert run_error(run(b, "IWNJ", both)) == "run_flag_max"
    # Best 2+1, 2+1: no pair is legal (G7 G9 and I9 J8 share no node), so one route: 50.
    assert reference(b, "IWNJ", ["2+1", "2+1"]) == 50
    assert best(b, "IWNJ", ["2+1", "2+1"])["revenue"] == 50
    # Best 3+2, 2+1: G7 G9 H10 I9 (passes G9: 70) and I9 J8 (40), sharing I9: 110.
    assert legal(run(b, "IWNJ", [("3+2", LINE[:4]), ("2+1", LINE[3:])]), 110)
    assert reference(b, "IWNJ", ["3+2", "2+1"]) == 110
    assert best(b, "IWNJ", ["3+2", "2+1"])["revenue"] == 110
    # With I9 free both 2+1 routes run: 50 + 50.
    free = board(SOUTH, SOUTH_TOKENS)
    assert legal(run(free, "IWNJ", both), 100)
    assert reference(free, "IWNJ", ["2+1", "2+1"]) == 100
    assert best(free, "IWNJ", ["2+1", "2+1"])["revenue"] == 100


def test_a_bankrupt_companys_flipped_tokens_never_block():
    # G9 full of NGStL's token and I9 of S&C's: two tokened-out cities, one too many for a route. With
    # S&C in bankruptcy its flipped token blocks nothing and the line runs, passing G9 only.
    b = board(SOUTH, SOUTH_TOKENS + [("I9", 0, "S&C")], flipped={"S&C"})
    assert legal(run(b, "IWNJ", [("4+2", LINE)]), 90)
    assert reference(b, "IWNJ", ["4+2"]) == 90
    assert best(b, "IWNJ", ["4+2"])["revenue"] == 90
    # Both bankrupt: two routes may each pass a city, no tokened-out city being left.
    both = board(SOUTH, SOUTH_TOKENS + [("I9", 0, "S&C")], flipped={"S&C", "NGStL"})
    pair_ = [("2+1", LINE[:3]), ("2+1", LINE[2:])]
    assert legal(run(both, "IWNJ", pair_), 100)
    assert reference(both, "IWNJ", ["2+1", "2+1"]) == 100
    assert best(both, "IWNJ", ["2+1", "2+1"])["revenue"] == 100
    wrong = board(SOUTH, SOUTH_TOKENS)
    wrong["tokens"][0]["flipped"] = "yes"
    with pytest.raises(InputError, match=r"board.tokens\[0\].flipped: 'yes' is not true or false"):
        solve({"board": wrong, "company": company("IWNJ", ["2+1"])})


def test_a_bankrupt_companys_flipped_tokens_let_lays_and_tokens_through():
    # IWNJ at G7 alone: NGStL fills G9, the way on to I9 and J8. With NGStL bankrupt its token blocks nothing.
    tokens = [("G7", 0, "IWNJ"), ("G9", 0, "NGStL")]
    cities = {}
    for flipped in ((), ("NGStL",)):
        request = {"board": board(SOUTH, tokens, flipped=flipped), "company": company("IWNJ", ["4+2"])}
        cities[bool(flipped)] = {(x["hex"], x["city"]) for x in legal_tokens(request)}
    assert cities[False] == set() and cities[True] == {("I9", 0), ("J8", 0)}


def test_a_run_must_visit_the_home_token_city():
    b = board(SOUTH, SOUTH_TOKENS)
    # I9 J8 holds IWNJ's J8 token, but no route visits its home G7.
    assert run_error(run(b, "IWNJ", [("2+1", ["I9-0", "J8-0"])])) == "run_flag_min"
    # Without its home token IWNJ has no legal run at all.
    away = board(SOUTH, [("J8", 0, "IWNJ"), ("G9", 0, "NGStL")])
    assert run_error(run(away, "IWNJ", [("3+2", LINE[2:])])) == "run_flag_min"
    assert reference(away, "IWNJ", ["3+2"]) == 0
    assert best(away, "IWNJ", ["3+2"])["revenue"] == 0


def test_the_routes_of_a_run_must_share_nodes():
    b = board(SOUTH, SOUTH_TOKENS)
    # G7 G9 (40) and I9 J8 (40) are each legal but share no node.
    assert legal(run(b, "IWNJ", [("2+1", ["G7-0", "G9-0"])]), 40)
    assert run_error(run(b, "IWNJ", [("2+1", ["G7-0", "G9-0"]), ("2+1", ["I9-0", "J8-0"])])) == "run_connected"
    # Sharing H10 they may: G7 G9 H10 (50) and H10 I9 J8 (50).
    assert legal(run(b, "IWNJ", [("2+1", ["G7-0", "G9-0", "H10-0"]), ("2+1", ["H10-0", "I9-0", "J8-0"])]), 100)


# ---- Ryde Pier --------------------------------------------------------------------------------------------
# Ryde Esp I3 (758, IOW home: city 50 on edges 4, 5) -4- Ryde Pier J2 (off-board, yellow 0 / green 20 / brown 40).

def test_ryde_pier_by_phase():
    for phase, pier in (("2", 0), ("3", 20), ("4", 20), ("5", 40), ("9", 40)):
        b = board([("I3", "758", 0)], [("I3", 0, "IOW")], phase)
        r = run(b, "IOW", [("2+1", ["J2-0", "I3-0"])])
        assert legal(r, 50 + pier)
        assert stops(r)["J2-0"][0] == pier
        assert reference(b, "IOW", ["2+1"]) == 50 + pier
        assert best(b, "IOW", ["2+1"])["revenue"] == 50 + pier


# ---- halts: chosen, counted, and their subsidy -------------------------------------------------------------
# COWES, phase 2: the route Cowes F2-0 (city 20) F2-1 (town 10) F2-2 (halt) Cement Mills F4-0 (halt) Newport
# G5-0 (city 30): c = 2, one town, two halts. A halt counted as a stop earns 10 of subsidy, not revenue.
COWES_ROUTE = ["F2-0", "F2-1", "F2-2", "F4-0", "G5-0"]


def test_halts_fill_the_allowance_the_towns_leave():
    b = board(COWES, [("F2", 0, "C&N")], "2")
    # 3+2: X = 2 + 1 = 3: the town (10) and both halts: 60, subsidy 20, halts 2.
    r = run(b, "C&N", [("3+2", COWES_ROUTE)])
    assert legal(r, 60, 20)
    assert r["routes"][0]["halts"] == 2 and r["routes"][0]["subsidy"] == 20
    assert stops(r)["F4-0"] == (0, True)
    # 2+1: X = 1 + 0 = 1, taken by the town: no spare allowance, no halt: 60, no subsidy.
    r = run(b, "C&N", [("2+1", COWES_ROUTE)])
    assert legal(r, 60)
    assert r["routes"][0]["halts"] == 0 and stops(r)["F2-2"] == (0, False)
    # The optimizer: the most revenue, then the most subsidy.
    s = best(b, "C&N", ["3+2"])
    assert (s["revenue"], s["subsidy"], s["routes"][0]["halts"]) == (60, 20, 2)
    assert reference(b, "C&N", ["3+2"], both=True) == (60, 20)


def test_the_halts_a_player_counts():
    b = board(COWES, [("F2", 0, "C&N")], "2")
    # 2+1 asking for one halt: it takes the town's place in X = 1: 50 and a subsidy of 10.
    r = run(b, "C&N", [("2+1", COWES_ROUTE, 1)])
    assert legal(r, 50, 10)
    assert r["routes"][0]["halts"] == 1 and stops(r)["F2-1"] == (0, False)
    # Asking for more halts than X holds (2 > 1) is dropped, as the engine does: the default, 60.
    assert legal(run(b, "C&N", [("2+1", COWES_ROUTE, 2)]), 60)
    # 3+2 asking for none (0 is not "unset"): the town only, no subsidy; one: 60 and 10.
    r = run(b, "C&N", [("3+2", COWES_ROUTE, 0)])
    assert legal(r, 60, 0) and r["routes"][0]["halts"] == 0
    assert legal(run(b, "C&N", [("3+2", COWES_ROUTE, 1)]), 60, 10)


def test_halts_zero_survives_the_json_boundary():
    from revenue import api
    from revenue.v1 import revenue_pb2

    b = board(COWES, [("F2", 0, "C&N")], "2")
    for halts, subsidy in ((0, 0), (None, 20)):
        route = {"train": "3+2", "nodes": COWES_ROUTE, **({} if halts is None else {"halts": halts})}
        request = api.parse_request({"board": b, "company": company("C&N", ["3+2"]), "routes": [route]},
                                    revenue_pb2.EvaluateRequest)
        assert request["routes"][0].get("halts") == halts
        assert evaluate(request)["subsidy"] == subsidy


# ---- leased trains ----------------------------------------------------------------------------------------

def test_a_leased_train_earns_40_and_20_per_stop():
    for options in ({}, {"simplified_insolvency": "true"}):     # simplified: priced as the default (engine)
        b = board(COWES, [("F2", 0, "C&N")], "2", options)
        # 4+2 leased: X = A - c = 2 (no second allowance): the town, then one halt, both stops like towns:
        # 4 stops, 40 + 80 = 120, no subsidy.
        r = run(b, "C&N", [("4+2", COWES_ROUTE)], leased=True)
        assert legal(r, 120)
        assert r["routes"][0]["halts"] == 0
        assert stops(r)["F2-2"] == (20, True) and stops(r)["F4-0"] == (0, False)
        assert r["routes"][0]["bonuses"] == [{"name": "leased train", "amount": 40}]
        # 9+5 leased: all five: 40 + 100 = 140 (a 9+5 that owns it would earn 60 and a subsidy of 20).
        assert legal(run(b, "C&N", [("9+5", COWES_ROUTE)], leased=True), 140)
        assert legal(run(b, "C&N", [("9+5", COWES_ROUTE)]), 60, 20)
        # 2+1 leased: X = 0, the two cities: 80; a halt asked for is ignored.
        assert legal(run(b, "C&N", [("2+1", COWES_ROUTE, 1)], leased=True), 80)
        s = best(b, "C&N", ["4+2"], leased=True)
        assert (s["revenue"], s["subsidy"]) == (120, 0)
        assert reference(b, "C&N", ["4+2"], leased=True) == 120


def test_a_leased_train_under_the_original_insolvency_rules_earns_half():
    for option in ("original_insolvency", "original_game"):
        b = board(COWES, [("F2", 0, "C&N")], "2", {option: "true"})
        # 3+2: the normal stops (town and two halts) at half revenue, the subsidy in full: 30 and 20.
        assert legal(run(b, "C&N", [("3+2", COWES_ROUTE)], leased=True), 30, 20)
        # 2+1: 30.
        assert legal(run(b, "C&N", [("2+1", COWES_ROUTE)], leased=True), 30)
    # The original game counts every town (no_skip_towns): no halt in the town's place.
    b = board(COWES, [("F2", 0, "C&N")], "2", {"original_game": "true"})
    assert legal(run(b, "C&N", [("2+1", COWES_ROUTE, 1)], leased=True), 30)
    b = board(COWES, [("F2", 0, "C&N")], "2", {"original_insolvency": "true"})
    # Otherwise a 2+1 may count a halt instead of the town: 25 and 10.
    assert legal(run(b, "C&N", [("2+1", COWES_ROUTE, 1)], leased=True), 25, 10)
    # The most revenue is 30; the most revenue plus subsidy counts the halt: 25 + 10.
    s = best(b, "C&N", ["2+1"], leased=True)
    assert (s["revenue"], s["subsidy"], s["upper_bound"]) == (30, 0, 30)
    s = best(b, "C&N", ["2+1"], leased=True, objective="revenue_and_subsidy")
    assert (s["revenue"], s["subsidy"], s["upper_bound"], s["routes"][0]["halts"]) == (25, 10, 35, 1)
    assert reference(b, "C&N", ["2+1"], leased=True, objective="revenue_and_subsidy", both=True) == (25, 10)


def test_a_leased_train_needs_a_title_with_leases():
    import pytest
    from revenue.errors import InputError

    b = {"title": "1830", "phase": "2", "tokens": [{"hex": "F4", "city": 0, "company": "B&O"}]}
    with pytest.raises(InputError) as e:
        solve({"board": b, "company": {"id": "B&O", "trains": [{"name": "2", "leased": True}]}})
    assert e.value.field == "company.trains[0].leased"


# ---- nationalization and the Southern ---------------------------------------------------------------------

def test_nationalization_has_no_second_allowance():
    b = board(SPILL, SPILL_TOKENS, "5", {"nationalization": "true"})
    # 2+1 with one city: X = 2 - 1 = 1 (not 1 + 1): the better town, H10 20; G11 is passed unpaid (as the
    # engine does: only no_skip_towns makes such a route illegal): 20 + 20 = 40 (normally 50).
    r = run(b, "NGStL", [("2+1", ["G9-0", "G11-0", "H10-0"])])
    assert legal(r, 40)
    assert stops(r) == {"G9-0": (20, True), "G11-0": (0, False), "H10-0": (20, True)}
    # 3+2 G9 G11 H10 I11: c = 2, X = 1: 20 + 20 + 30 = 70 (normally 80).
    assert legal(run(b, "NGStL", [("3+2", FULL[1:])]), 70)
    assert reference(b, "NGStL", ["3+2"]) == best(b, "NGStL", ["3+2"])["revenue"] == 70


def test_during_nationalization_towns_count_before_halts():
    # COWES 4+2: c = 2, X = 4 - 2 = 2: the town first, one halt in what is left: 60 and 10 (normally 20).
    b = board(COWES, [("F2", 0, "C&N")], "2", {"nationalization": "true"})
    assert legal(run(b, "C&N", [("4+2", COWES_ROUTE)]), 60, 10)
    # 3+2: X = 1, the town: no halt, and none may be asked for in the town's place.
    assert legal(run(b, "C&N", [("3+2", COWES_ROUTE)]), 60)
    assert legal(run(b, "C&N", [("3+2", COWES_ROUTE, 1)]), 60)
    # 2+1: X = 0: the two cities only, 50.
    assert legal(run(b, "C&N", [("2+1", COWES_ROUTE)]), 50)
    s = best(b, "C&N", ["4+2"], objective="revenue_and_subsidy")
    assert (s["revenue"], s["subsidy"]) == (60, 10)


def test_after_the_southern_formed_halts_are_ignored():
    b = board(COWES, [("F2", 0, "C&N")], "2", {"southern_formed": "true"})
    # 3+2: X = 3 but halts are never stops: 60, no subsidy, even when asked for.
    r = run(b, "C&N", [("3+2", COWES_ROUTE, 2)])
    assert legal(r, 60) and r["routes"][0]["halts"] == 0
    assert stops(r)["F2-2"] == (0, False)
    # A leased 4+2: the town (X = 2) and no halt: 3 stops, 100 (120 before).
    assert legal(run(b, "C&N", [("4+2", COWES_ROUTE)], leased=True), 100)
    s = best(b, "C&N", ["3+2"])
    assert (s["revenue"], s["subsidy"]) == (60, 0)
    # The re-entering loop of LOOP: 110 and no subsidy for the halt G7-1 (10 before the Southern).
    loop = board(LOOP, [("G7", 0, "IWNJ")], options={"re_enter_hexes": "true", "southern_formed": "true"})
    assert legal(run(loop, "IWNJ", [("3+2", AROUND)]), 110)


def test_the_late_game_options_are_listed():
    from revenue.api import list_titles

    options = {o["name"] for t in list_titles()["titles"] if t["name"] == "1860" for o in t["options"]}
    assert {"nationalization", "southern_formed", "original_insolvency", "simplified_insolvency",
            "non_operated_full_value"} <= options


# ---- against the reference on random boards -------------------------------------------------------------
CORPS = [c["id"] for c in CORPORATIONS]


def linked_homes(b):
    """The companies whose home city has track leading to another city, town or off-board on board `b`
    (roughly: the component of the track graph, whatever the way the track turns)."""
    built = ref_board(b)
    g = track_graph(built)
    out = []
    for corp in CORPORATIONS:
        h = corp["coordinates"]
        cities = [f"{h}-{c.part}" for c in built.hexes[h].tile.cities] if h in built.hexes else []
        for v in g:
            if v[0] == "node" and node_name(g, v) in cities:
                others = [w for w in nx.node_connected_component(g, v)
                          if w[0] == "node" and w != v and g.nodes[w]["part"].kind != "halt"]
                if others:
                    out.append(corp["id"])
                    break
    return out


def random_case(seed):
    """A random 1860 board (request), the company and its trains. The company is mostly one whose home
    city has track to somewhere; tokens of other companies fill some cities; now and then it has no home
    token (then no run is legal)."""
    rng = random.Random(seed)
    # towns (and so the town allowance) come with green tiles: yellow town hexes hold halts
    colours = rng.choices([("yellow",), ("yellow", "green"), ("yellow", "green", "brown")], [1, 2, 2])[0]
    phase = {1: "2", 2: rng.choice(["3", "4"]), 3: rng.choice(["5", "6", "7", "8", "9"])}[len(colours)]
    r = rng.random()      # original_game: the two-player map, and no town skipped
    map_options = {"two_player_map": "true"} if r < 0.2 else {"original_game": "true"} if r < 0.25 else {}
    options = dict(map_options)
    if rng.random() < 0.4:
        options["re_enter_hexes"] = "true"
    if rng.random() < 0.3:
        options["no_skip_towns"] = "true"
    fraction = rng.uniform(0.5, 0.9) if len(colours) < 3 else rng.uniform(0.35, 0.7)   # brown track is dense
    lays = lay_tiles("1860", colours, fraction, seed, map_options)
    # Newport and Ventnor become two cities in green (lay_tiles keeps a hex's number of cities): laid here,
    # unrotated (the printed exits stay), they give routes that leave a hex and come back to it.
    for hex_name, tiles in (("G5", {"green": "763", "brown": "773"}), ("I11", {"green": "760", "brown": "774"})):
        if len(colours) > 1 and rng.random() < 0.8 and all(lay["hex"] != hex_name for lay in lays):
            lays.append({"hex": hex_name, "tile": tiles[colours[-1]], "rotation": 0})
    linked = linked_homes({"title": "1860", "options": map_options, "tiles": lays})
    corp = rng.choice(linked if linked and rng.random() < 0.9 else CORPS)
    tokens = place_tokens("1860", lays, corp, rng.randint(0, 2), rng.randint(0, 8), seed, map_options)
    home = next(c["coordinates"] for c in CORPORATIONS if c["id"] == corp)
    if rng.random() < 0.08:
        tokens = [t for t in tokens if not (t["company"] == corp and t["hex"] == home)]
    small = ["2+1", "3+2", "4+2", "5+3"] if len(colours) < 3 else ["2+1", "3+2", "4+2"]
    trains = sorted(rng.sample(small, 1) * 2 if rng.random() < 0.25 else rng.sample(small, rng.randint(1, 2)))
    b = {"title": "1860", "phase": phase, "options": options, "tiles": lays, "tokens": tokens}
    return b, corp, trains


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("N1860_EXAMPLES", 60)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1))
def test_optimizer_matches_reference_on_the_real_map(seed):
    b, corp, trains = random_case(seed)
    expected = reference(b, corp, trains)
    result = solve({"board": b, "company": company(corp, trains)})
    assert result["optimal"] and result["revenue"] == expected, (seed, result["revenue"], expected)
    check = evaluate({"board": b, "company": company(corp, trains),
                      "routes": [{k: r[k] for k in ("train", "nodes", "connections")} for r in result["routes"]]})
    assert check["legal"] and check["revenue"] == expected, (seed, check)


LATE_OPTIONS = ("nationalization", "southern_formed", "original_insolvency", "simplified_insolvency",
                "non_operated_full_value")


def random_late_case(seed):
    """random_case with the late-game and insolvency switches at random: nationalization, the Southern
    formed, the insolvency rules, companies in bankruptcy (their tokens flipped), a leased train (alone, as
    an insolvent company runs it) and the objective."""
    b, corp, trains = random_case(seed)
    rng = random.Random(seed ^ 0x1860)
    for option in LATE_OPTIONS:
        if rng.random() < 0.3:
            b["options"][option] = "true"
    others = sorted({t["company"] for t in b["tokens"]} - {corp})
    if others and rng.random() < 0.3:
        flipped = set(rng.sample(others, rng.randint(1, len(others))))
        b["tokens"] = [dict(t, flipped=True) if t["company"] in flipped else t for t in b["tokens"]]
    if "original_insolvency" in b["options"]:
        b["options"].pop("simplified_insolvency", None)    # 18xx.games offers one or the other
    leased = rng.random() < 0.35
    if leased:
        trains = trains[:1]
    objective = rng.choice(["revenue", "revenue_and_subsidy"])
    return b, corp, trains, leased, objective


@pytest.mark.slow
@settings(max_examples=int(os.environ.get("N1860_EXAMPLES", 60)), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1))
def test_optimizer_matches_reference_with_leased_trains_nationalization_and_halts(seed):
    b, corp, trains, leased, objective = random_late_case(seed)
    expected = reference(b, corp, trains, leased, objective, both=True)
    result = solve({"board": b, "company": company(corp, trains, leased), "objective": objective})
    got = (result["revenue"], result["subsidy"])
    assert result["optimal"] and got == expected, (seed, got, expected)
    bound = got[0] + (got[1] if objective == "revenue_and_subsidy" else 0)
    assert result["upper_bound"] == bound
    assert sum(r["subsidy"] for r in result["routes"]) == got[1]
    # The answer's routes, with the halts it counts, evaluate to the same revenue and subsidy.
    check = evaluate({"board": b, "company": company(corp, trains, leased),
                      "routes": [{k: r[k] for k in ("train", "nodes", "connections", "halts")}
                                 for r in result["routes"]]})
    assert check["legal"] and (check["revenue"], check["subsidy"]) == expected, (seed, check)


@pytest.mark.slow
@settings(max_examples=max(1, int(os.environ.get("N1860_EXAMPLES", 60)) // 3), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.integers(0, 2**31 - 1))
def test_halts_ranked_with_the_towns_match_the_reference(monkeypatch, seed):
    """The layout the title keeps for boards where a town pays less than a halt's subsidy (halts and towns
    in one row, ranked by the objective), forced on every board: the same optima as the reference."""
    from revenue.titles import get_title
    from revenue.titles.g1860 import G1860

    rows = G1860._rows
    monkeypatch.setattr(G1860, "_rows", lambda self, name, options, leased, halts_may_displace=True:
                        rows(self, name, options, leased, True))
    # (the trains typed under the forced layout stay with this test: the title's cache of them is its own)
    monkeypatch.setattr(get_title("1860"), "_typed", {})
    b, corp, trains, leased, objective = random_late_case(seed)
    expected = reference(b, corp, trains, leased, objective, both=True)
    result = solve({"board": b, "company": company(corp, trains, leased), "objective": objective})
    assert result["optimal"] and (result["revenue"], result["subsidy"]) == expected, (seed, result, expected)
    check = evaluate({"board": b, "company": company(corp, trains, leased),
                      "routes": [{k: r[k] for k in ("train", "nodes", "connections", "halts")}
                                 for r in result["routes"]]})
    assert check["legal"] and (check["revenue"], check["subsidy"]) == expected, (seed, check)


def test_the_examples():
    from revenue.api import load_request
    from revenue.v1 import revenue_pb2

    root = pathlib.Path(__file__).parents[1] / "examples"
    leased = evaluate(load_request(root / "evaluate_1860_leased.json", revenue_pb2.EvaluateRequest))
    assert (leased["legal"], leased["revenue"], leased["subsidy"]) == (True, 120, 0)
    halts = evaluate(load_request(root / "evaluate_1860_halts.json", revenue_pb2.EvaluateRequest))
    assert (halts["legal"], halts["revenue"], halts["subsidy"], halts["routes"][0]["halts"]) == (True, 60, 10, 1)


def test_halts_through_run_routes_actions():
    """A stored run_routes action's `halts` is read; the answer's action writes the halts it counts."""
    b = board(COWES, [("F2", 0, "C&N")], "2")
    trains = {"id": "C&N", "trains": [{"name": "3+2", "id": "3+2-1"}]}
    s = solve({"board": b, "company": trains})
    action = s["run_routes"]
    assert action["routes"][0]["train"] == "3+2-1" and action["routes"][0]["halts"] == 2
    for halts, expected in ((2, (60, 20)), (1, (60, 10)), (0, (60, 0))):
        action["routes"][0]["halts"] = halts
        r = evaluate({"board": b, "company": trains, "run_routes": action})
        assert r["legal"] and (r["revenue"], r["subsidy"]) == expected, (halts, r)
    del action["routes"][0]["halts"]
    r = evaluate({"board": b, "company": trains, "run_routes": action})
    assert (r["revenue"], r["subsidy"], r["routes"][0]["halts"]) == (60, 20, 2)
