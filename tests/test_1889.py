"""1889 (Shikoku) on its real map (flat: edges 0 S, 1 SW, 2 NW, 3 N, 4 NE, 5 SE): the base rules, and the
off-boards' diesel value for the D train (rules/base.md section 5). Imabari F1 is
`offboard=revenue:yellow_30|brown_60|diesel_100` with track to F3 (its edge 0) and E2 (its edge 1)."""
from __future__ import annotations

import json
import pathlib

from revenue.evaluation import evaluate
from revenue.optimizer import solve

from .ref_board import ref_board, train_defs
from .reference import best_run

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Matsuyama E2: tile 57 (a 20 city, local edges 0 and 3) turned 1 shows edges 1 and 4 (NE, to F1);
# Saijou F3: tile 5 (a 20 city, local edges 0 and 1) turned 2 shows edges 2 and 3 (N, to F1).
TILES = [{"hex": "E2", "tile": "57", "rotation": 1}, {"hex": "F3", "tile": "5", "rotation": 2}]
TOKENS = [{"hex": "E2", "city": 0, "company": "IR"}, {"hex": "F3", "city": 0, "company": "IR"}]


def board(phase):
    return {"title": "1889", "phase": phase, "tiles": TILES, "tokens": TOKENS}


def route_value(phase, train, nodes):
    r = evaluate({"board": board(phase), "company": {"id": "IR", "trains": [{"name": train}]},
                  "routes": [{"train": train, "nodes": nodes}]})
    assert r["legal"]
    return r["revenue"], {s["node"]: s["value"] for s in r["routes"][0]["stops"]}


def test_offboard_values_by_phase_and_the_diesel_value_of_the_d_train():
    # phase 4 (yellow, green): F1 30 + E2 20 = 50
    assert route_value("4", "4", ["F1-0", "E2-0"]) == (50, {"F1-0": 30, "E2-0": 20})
    # phase D (yellow, green, brown): a 6-train takes the brown 60, + 20 = 80
    assert route_value("D", "6", ["F1-0", "E2-0"]) == (80, {"F1-0": 60, "E2-0": 20})
    # the D train takes the diesel 100, + 20 = 120
    assert route_value("D", "D", ["F1-0", "E2-0"]) == (120, {"F1-0": 100, "E2-0": 20})


def test_solve_gives_the_d_train_its_diesel_value():
    # Two routes, F1-E2 and F1-F3 (F1 is reached by two hex sides): D 100 + 20 and 6 60 + 20 = 200,
    # whichever route the D takes.
    r = solve({"board": board("D"), "company": {"id": "IR", "trains": [{"name": "D"}, {"name": "6"}]}})
    assert r["optimal"] and r["revenue"] == 200
    by_train = {x["train"]: x for x in r["routes"]}
    assert by_train["D"]["revenue"] == 120 and by_train["6"]["revenue"] == 80
    assert {s["node"]: s["value"] for s in by_train["D"]["stops"]}["F1-0"] == 100


def test_the_reference_gives_the_d_train_its_diesel_value():
    # The optimizer's answer above, from the reference's own board reading: D 100 + 20, 6 60 + 20.
    built = ref_board(board("D"))
    defs = train_defs("1889")
    assert best_run(built, "IR", [defs["D"], defs["6"]])[0] == 200
    assert best_run(built, "IR", [defs["6"], defs["6"]])[0] == 160


def test_examples():
    r = evaluate(json.loads((ROOT / "examples/evaluate_1889.json").read_text()))
    assert r["legal"] and [x["revenue"] for x in r["routes"]] == [120, 80] and r["revenue"] == 200
    # a real game's state (conformance action 384): AR's 3-train Takamatsu 60 - Kotohira 80 - Marugame 30
    # (170) and 5-train Naruto 40 - Takamatsu 60 - Ritsurin Kouen 10 - Marugame 30 - Kotohira 80 (220)
    r = solve(json.loads((ROOT / "examples/solve_1889.json").read_text()))
    assert r["optimal"] and r["revenue"] == 390
    assert sorted(x["revenue"] for x in r["routes"]) == [170, 220]


def test_private_companies_change_no_route():
    """The privates of 1889 (the data's companies) block hexes, lay tiles, discount building or exchange;
    none changes a route, so owning one leaves the answer as it is."""
    request = {"board": board("D"), "company": {"id": "IR", "trains": [{"name": "D"}, {"name": "6"}]}}
    ids = [c["id"] for c in json.loads((ROOT / "revenue/titles/data/1889.json").read_text())["companies"]]
    assert ids == ["TR", "MF", "ER", "SMR", "DR", "SIR", "UTF"]
    with_all = {**request, "company": {**request["company"], "privates": ids}}
    assert solve(with_all)["revenue"] == solve(request)["revenue"] == 200
