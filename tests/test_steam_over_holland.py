"""Steam Over Holland on its real map: each rule of rules/steam_over_holland.md on hand-checked boards,
and the optimizer against the reference on random tile lays of the real map."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from benchmarks.scenarios import lay_tiles, place_tokens
from revenue.evaluation import evaluate
from revenue.optimizer import solve

from . import hits
from .profiles import examples
from .ref_board import dump_for, ref_board, train_defs
from .reference import SteamOverHollandRules, answer_of, best_run

DATA = dump_for("steam_over_holland", {})
TRAIN_DEFS = train_defs("steam_over_holland")        # the 18xx.games definitions, 3E included

# Utrecht H9 (tile 57 rot 2: exits 2, 5) -edge 2- G8 (tile 8 rot 3: exits 3, 5) -edge 3- Amsterdam F9
# (SOH1: city 0 on edges 0, 5; city 1 on edges 2, 1).
UTRECHT_AMSTERDAM = [{"hex": "H9", "tile": "57", "rotation": 2}, {"hex": "G8", "tile": "8", "rotation": 3},
                     {"hex": "F9", "tile": "SOH1", "rotation": 0}]


def board(tiles, tokens, phase="2"):
    return {"title": "steam_over_holland", "phase": phase, "tiles": tiles, "tokens": tokens}


def company(cid, trains, privates=()):
    return {"id": cid, "trains": [{"name": t} for t in trains], "privates": list(privates)}


def test_worked_example_utrecht_amsterdam():
    b = board(UTRECHT_AMSTERDAM, [{"hex": "H9", "city": 0, "company": "NCS"}])
    r = evaluate({"board": b, "company": company("NCS", ["2"]), "routes": [{"train": "2", "nodes": ["H9-0", "F9-0"]}]})
    assert r["legal"] and r["revenue"] == 50
    best = solve({"board": b, "company": company("NCS", ["2"])})
    assert best["revenue"] == 50 and best["optimal"]


# The Zuiderzee ferry: Den Helder C8 (offboard 30/40, edge 0 -> D7), D7 (tile 8 rot 3: exits 3, 5) no...
# Built by hand: E8 city (tile 57 rot 1: exits 1, 4) between D7? Instead the ferry line runs
# E8 -edge 3- D9 (town 10, exits 0 -> E8 and 4 -> D11) -edge 4- D11 (track 1-3) -edge 3- C12.
# E8: tile 57 rot 3 puts the city on edges 3 (to D9) and 0 (to F7). C12: tile 57 rot 4: edges 4, 1
# (edge 1 -> D11 ... C12's W neighbour is C10? C12 edge 0 (SW) is D11). So C12 takes tile 57 rot 3:
# edges 3 and 0; edge 0 faces D11.
FERRY = [{"hex": "E8", "tile": "57", "rotation": 3}, {"hex": "C12", "tile": "57", "rotation": 3}]
FERRY_ROUTE = ["E8-0", "D9-0", "C12-0"]   # 20 + 10 + 20


def ferry_board(phase="2"):
    return board(FERRY, [{"hex": "E8", "city": 0, "company": "HYSM"}], phase)


def test_ferry_bonus_needs_the_private():
    with_ves = evaluate({"board": ferry_board(), "company": company("HYSM", ["2"], ["VES"]),
                         "routes": [{"train": "2", "nodes": FERRY_ROUTE}]})
    assert with_ves["legal"] and with_ves["revenue"] == 70
    assert with_ves["routes"][0]["bonuses"] == [{"name": "VES ferry", "amount": 20}]
    without = evaluate({"board": ferry_board(), "company": company("HYSM", ["2"]),
                        "routes": [{"train": "2", "nodes": FERRY_ROUTE}]})
    assert without["revenue"] == 50 and without["routes"][0]["bonuses"] == []
    # The privates close with the first 5-train: no bonus in phase 5.
    late = evaluate({"board": ferry_board("5"), "company": company("HYSM", ["2"], ["VES"]),
                     "routes": [{"train": "2", "nodes": FERRY_ROUTE}]})
    assert late["revenue"] == 50
    best = solve({"board": ferry_board(), "company": company("HYSM", ["2"], ["VES"])})
    assert best["revenue"] == 70 and best["routes"][0]["bonuses"] == [{"name": "VES ferry", "amount": 20}]


def test_towns_use_no_range_but_pay():
    # A 2-train passes the town D9: two cities plus a town, all paid.
    r = evaluate({"board": ferry_board(), "company": company("HYSM", ["2"]),
                  "routes": [{"train": "2", "nodes": FERRY_ROUTE}]})
    assert r["revenue"] == 50
    assert [s["paid"] for s in r["routes"][0]["stops"]] == [True, True, True]


def test_route_may_not_end_at_a_town():
    r = evaluate({"board": ferry_board(), "company": company("HYSM", ["2"]),
                  "routes": [{"train": "2", "nodes": ["E8-0", "D9-0"]}]})
    assert r["legal"] is False and r["routes"][0]["error"]["rule"] == "bad_end"
    assert r["routes"][0]["error"]["where"] == "D9-0"


def test_3e_ignores_towns_doubles_cities_and_gets_no_ferry_bonus():
    r = evaluate({"board": ferry_board(), "company": company("HYSM", ["3E"], ["VES"]),
                  "routes": [{"train": "3E", "nodes": FERRY_ROUTE}]})
    assert r["legal"] and r["revenue"] == 80        # (20 + 20) x 2, the town unpaid, no VES bonus
    assert [(s["node"], s["value"], s["paid"]) for s in r["routes"][0]["stops"]] == [
        ("E8-0", 40, True), ("D9-0", 0, False), ("C12-0", 40, True)]
    assert r["routes"][0]["bonuses"] == []
    best = solve({"board": ferry_board(), "company": company("HYSM", ["3E"], ["VES"])})
    assert best["revenue"] == 80


def test_offboard_value_changes_in_phase_5_and_vvl_bonus():
    # Vlissingen J1 (offboard 40/60, edge 5 -> K2) - Middelburg K2 (tile 58 rot 2: town on edges 2, 4)
    # - K4 (tile 9 rot 1: edges 1, 4) - K6 (tile 8 rot 1: edges 1, 3) - Breda J7 (tile 57: edges 0, 3).
    tiles = [{"hex": "K2", "tile": "58", "rotation": 2}, {"hex": "K4", "tile": "9", "rotation": 1},
             {"hex": "K6", "tile": "8", "rotation": 1}, {"hex": "J7", "tile": "57", "rotation": 0}]
    for phase, value, bonus in (("4", 40, 20), ("5", 60, 0)):
        b = board(tiles, [{"hex": "J7", "city": 0, "company": "AR"}], phase)
        r = evaluate({"board": b, "company": company("AR", ["2"], ["VVL"]),
                      "routes": [{"train": "2", "nodes": ["J1-0", "K2-0", "J7-0"]}]})
        assert r["legal"], r
        assert r["revenue"] == value + 10 + 20 + bonus
        best = solve({"board": b, "company": company("AR", ["2"], ["VVL"])})
        assert best["revenue"] == value + 10 + 20 + bonus


def _reference_trains(names):
    return [TRAIN_DEFS[n] for n in names]


# Rule-seeking boards: the random lays of lay_tiles, aimed at one rule. A ferry aim lays the track to its
# ferry hex (each tile with probability 0.9: the line is sometimes broken), puts a company token on that
# line and gives the company the private, in a phase that pays it; a 3E aim gives the company a 3E.
FERRY_LINES = {"VES": ([("E8", "57", 3), ("C12", "57", 3)], ["E8", "C12"]),
               "VVL": ([("K2", "58", 2), ("K4", "9", 1), ("K6", "8", 1), ("J7", "57", 0)], ["J7"])}
AIMS = ("VES", "VVL", "town_end", "3E", "town_range")


def soh_case(seed: int, aim: str | None = None):
    """(board request, company id, trains, privates) of a random Steam Over Holland board aimed at a rule."""
    rng = random.Random(seed)
    aim = aim or rng.choice(AIMS + ("any",))
    ferry = aim in FERRY_LINES
    colours = rng.choice([("yellow",), ("yellow", "green")] + ([] if ferry else [("yellow", "green", "brown")]))
    phase = {1: "2", 2: rng.choice(["3", "4"]), 3: rng.choice(["5", "6"])}[len(colours)]
    corp = rng.choice([c["id"] for c in DATA["corporations"]])
    lays = lay_tiles("steam_over_holland", colours, rng.uniform(0.4, 0.7), seed)
    keep = []
    if ferry:
        line, cities = FERRY_LINES[aim]
        keep = [(h, t, r) for h, t, r in line if rng.random() < 0.9]
        lays = [lay for lay in lays if lay["hex"] not in {h for h, _, _ in keep}] + \
            [{"hex": h, "tile": t, "rotation": r} for h, t, r in keep]
    tokens = place_tokens("steam_over_holland", lays, corp, rng.randint(1, 2), rng.randint(0, 6), seed)
    laid = [c for c in cities if c in {h for h, _, _ in keep}] if ferry else []
    if laid:
        city = rng.choice(laid)
        tokens = [t for t in tokens if t["hex"] != city] + [{"hex": city, "city": 0, "company": corp}]
    trains = rng.sample(["2", "3", "4", "2", "3"], rng.randint(1, 2))
    if aim == "3E" or (aim == "any" and rng.random() < 0.3):
        trains = ["3E"] + trains[:rng.randint(0, 1)]
    privates = sorted({aim} | set(rng.sample(["VES", "VVL", "W"], rng.randint(0, 1)))) if ferry else \
        rng.sample(["VES", "VVL", "W"], rng.randint(0, 2))
    return board(lays, tokens, phase), corp, trains, privates


class AnyEnd(SteamOverHollandRules):
    """The rules without "no route begins or ends at a town"."""

    def may_end(self, train, part, name="") -> bool:
        return True


def soh_optimum(b, corp, trains, privates, rules=None, answer=None):
    """The reference's optimum (and, with `answer`, its reading of that run: see best_run)."""
    out = best_run(ref_board(b), corp, _reference_trains(trains), rules or SteamOverHollandRules(), privates,
                   answer=answer)
    return out[0] if answer is None else (out[0], out[2])


def soh_without(rule, b, corp, trains, privates) -> int:
    """The reference's optimum with `rule` taken out."""
    if rule in FERRY_LINES:
        return soh_optimum(b, corp, trains, [p for p in privates if p != rule])
    if rule == "town_end":
        return soh_optimum(b, corp, trains, privates, AnyEnd())
    if rule == "town_range":       # towns counted in an N-train's N, as in a plain 18xx train
        ranged = [{"name": t, "distance": int(t)} if t != "3E" else TRAIN_DEFS[t] for t in trains]
        return best_run(ref_board(b), corp, ranged, SteamOverHollandRules(), privates)[0]
    return soh_optimum(b, corp, ["3" if t == "3E" else t for t in trains], privates)      # 3E run as a 3


def check_soh(b, corp, trains, privates) -> int:
    result = solve({"board": b, "company": company(corp, trains, privates)})
    expected, reading = soh_optimum(b, corp, trains, privates, answer=answer_of(result))
    assert result["optimal"] and result["revenue"] == expected
    # The reference reads the answer too: a legal run, each route worth what the optimizer says.
    assert reading == (expected, [r["revenue"] for r in result["routes"]]), reading
    check = evaluate({"board": b, "company": company(corp, trains, privates),
                      "routes": [{k: r[k] for k in ("train", "nodes", "connections")} for r in result["routes"]]})
    assert check["legal"] and check["revenue"] == expected
    return expected


@settings(max_examples=examples(60))
@given(st.integers(0, 2**31 - 1))
def test_optimizer_matches_reference_on_the_real_map(seed):
    b, corp, trains, privates = soh_case(seed)
    check_soh(b, corp, trains, privates)


HIT_BOARDS = examples(40)


@pytest.mark.slow
@pytest.mark.parametrize("rule", AIMS)
def test_each_rule_decides_the_optimum_often(rule):
    # Fixed seeds: the optimizer against the reference on boards aimed at `rule`, and how often the
    # reference's optimum changes when the rule is taken out (at least hits.FLOOR of the boards).
    decided = 0
    for seed in range(HIT_BOARDS):
        b, corp, trains, privates = soh_case(seed, rule)
        decided += check_soh(b, corp, trains, privates) != soh_without(rule, b, corp, trains, privates)
    rate = hits.record(f"steam_over_holland: {rule}", decided, HIT_BOARDS)
    assert rate >= hits.FLOOR, f"{rule} decides the optimum on {decided} of {HIT_BOARDS} boards"


@pytest.mark.slow
def test_random_boards_are_not_trivial():
    # The property test's boards on fixed seeds: most of them give the company a run.
    n = examples(60)
    runs = sum(solve({"board": b, "company": company(corp, trains, privates)})["revenue"] > 0
               for b, corp, trains, privates in map(soh_case, range(n)))
    assert hits.record("steam_over_holland boards: optimum > 0", runs, n) >= 0.7
