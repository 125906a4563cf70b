"""Board assembly: neighbours agree with the 18xx.games dumps, and every kind of bad input is an
InputError naming the exact field."""
from __future__ import annotations

import copy
import json
import pathlib

import pytest

from revenue.board import build_board
from revenue.errors import InputError
from revenue.evaluate import evaluate

SHARED_MAPS = pathlib.Path(__file__).resolve().parents[2] / "shared" / "maps"
TITLE_OF = {"1830": "1830", "steam_over_holland": "steam_over_holland", "18rhl": "18rhl", "1860": "1860",
            "1889": "1889"}


def map_files():
    return sorted(SHARED_MAPS.glob("*.json")) if SHARED_MAPS.is_dir() else []


@pytest.mark.skipif(not SHARED_MAPS.is_dir(), reason=f"{SHARED_MAPS} (the 18xx.games dumps) is not present")
@pytest.mark.parametrize("path", map_files(), ids=lambda p: p.stem)
def test_neighbours_agree_with_18xx_games(path):
    src = json.loads(path.read_text())
    title = TITLE_OF[path.stem.split("-")[0]]
    board = build_board({"title": title, "options": {o: "true" for o in src.get("optional_rules") or ()}})
    assert set(board.hexes) == {h["coord"] for h in src["hexes"]}
    for h in src["hexes"]:
        expected = {int(e): n for e, n in h["neighbors"].items()}
        assert board.neighbours[h["coord"]] == expected, h["coord"]


# ---- bad input -------------------------------------------------------------------------------------------

GOOD = {
    "board": {"title": "1830", "phase": "3",
              "tiles": [{"hex": "F4", "tile": "57", "rotation": 1}, {"hex": "G5", "tile": "7", "rotation": 2}],
              "tokens": [{"hex": "F4", "city": 0, "company": "B&O"}]},
    "company": {"id": "B&O", "trains": [{"name": "2"}]},
    "routes": [{"train": "2", "nodes": ["F2-0", "F4-0"]}],
}


def test_good_request_is_legal():
    assert evaluate(copy.deepcopy(GOOD))["revenue"] == 40 + 20


def broken(path: str, value) -> dict:
    """GOOD with the value at a dotted path (list indices as numbers) replaced."""
    req = copy.deepcopy(GOOD)
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]
    target = req
    for k in keys[:-1]:
        target = target[k]
    if isinstance(target, list) and keys[-1] == len(target):
        target.append(value)
    else:
        target[keys[-1]] = value
    return req


@pytest.mark.parametrize("path, value, field, says", [
    ("board.title", "1831", "board.title", "unknown title '1831'"),
    ("board.phase", "9", "board.phase", "unknown phase '9'"),
    ("board.tiles.0.tile", "9999", "board.tiles[0].tile", "not in the 1830 tile manifest"),
    ("board.tiles.1.hex", "Z99", "board.tiles[1].hex", "not a hex of the 1830 map"),
    ("board.tiles.0.rotation", 7, "board.tiles[0].rotation", "7 is not in 0..5"),
    ("board.tiles.2", {"hex": "G3", "code": "city=revenue:20;path=a:0,b:_3"}, "board.tiles[2].code",
     "malformed tile code"),
    ("board.tiles.2", {"hex": "F2", "tile": "9"}, "board.tiles[2].hex", "red hex"),
    ("board.tokens.0.city", 1, "board.tokens[0].city", "city 1 does not exist"),
    ("board.tokens.1", {"hex": "G5", "city": 0, "company": "PRR"}, "board.tokens[1].city", "has 0 cities"),
    ("board.tokens.1", {"hex": "F4", "city": 0, "company": "PRR"}, "board.tokens[1]", "is full"),
    ("board.tokens.1", {"hex": "Q1", "city": 0, "company": "PRR"}, "board.tokens[1].hex", "not a hex"),
    ("company.trains.0.name", "7", "company.trains[0].name", "unknown train '7'"),
    ("company.id", "", "company.id", "needs an id"),
    ("routes.0.nodes.1", "F4-3", "routes[0].nodes[1]", "'F4-3' is not a node"),
    ("routes.0.nodes.1", "G5-0", "routes[0].nodes[1]", "is not a node"),
    ("routes.0.train", "3", "routes[0].train", "is not a train of the company"),
    ("board.options", {"two_player_map": "true"}, "board.options[two_player_map]", "unknown option"),
])
def test_bad_input_names_the_field(path, value, field, says):
    with pytest.raises(InputError) as e:
        evaluate(broken(path, value))
    assert e.value.field == field
    assert says in e.value.description


def test_custom_title_bad_input():
    base = {"title": "custom", "custom": {"hexes": [{"hex": "A1", "code": "city=revenue:20;path=a:4,b:_0"}],
                                          "trains": [{"name": "2", "distance": 2}]}}
    assert build_board(base).hexes["A1"].tile.cities[0].slots == 1
    bad = copy.deepcopy(base)
    bad["custom"]["hexes"].append({"hex": "B2", "code": "town=revenue:10;path=a:9,b:_0"})
    with pytest.raises(InputError) as e:
        build_board(bad)
    assert e.value.field == "board.custom.hexes[1].code"
    bad = copy.deepcopy(base)
    bad["custom"]["layout"] = "round"
    with pytest.raises(InputError) as e:
        build_board(bad)
    assert e.value.field == "board.custom.layout"
    bad = copy.deepcopy(base)
    bad["custom"]["trains"].append({"name": "x", "rows": [{"nodes": ["village"], "pay": 1, "visit": 1}]})
    with pytest.raises(InputError) as e:
        build_board(bad)
    assert e.value.field == "board.custom.trains[1].rows[0].nodes"


def test_options_select_map_variants():
    small = build_board({"title": "1860", "options": {"two_player_map": "true"}})
    full = build_board({"title": "1860"})
    assert set(small.hexes) != set(full.hexes)
