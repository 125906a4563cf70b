"""Board assembly: neighbours agree with the 18xx.games dumps (their trimmed copies in tests/data/maps), the
parsed and assembled board agrees with the reference's own reading of the same request (tests/ref_board.py),
and every kind of bad input is an InputError naming the exact field."""
from __future__ import annotations

import copy
import json
import pathlib
import random

import pytest

from revenue.board import _TOWN_KIND
from revenue.board_request import build_board
from revenue.errors import InputError
from revenue.evaluation import evaluate
from revenue.geometry import NODE_KINDS

from . import ref_board
from .boards import random_board

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHARED_MAPS = next((d / "shared" / "maps" for d in ROOT.parents if (d / "shared" / "maps").is_dir()), None)
GOLDEN = sorted(ref_board.MAPS.glob("*.json"))
TITLE_OF = {"1830": "1830", "steam_over_holland": "steam_over_holland", "18rhl": "18rhl", "1860": "1860",
            "1889": "1889"}


def test_every_title_has_its_golden_maps():
    assert {p.stem for p in GOLDEN} == {stem for stems in ref_board.DUMPS.values() for _, stem in stems}


@pytest.mark.skipif(SHARED_MAPS is None, reason="../shared/maps (the 18xx.games dumps) is not present")
@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_maps_are_the_18xx_games_dumps(path):
    # tests/data/maps is the trimmed copy of the dumps (python -m tests.ref_board refreshes it).
    assert json.loads(path.read_text()) == ref_board.trim(json.loads((SHARED_MAPS / path.name).read_text()))


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_neighbours_agree_with_18xx_games(path):
    src = json.loads(path.read_text())
    title = TITLE_OF[path.stem.split("-")[0]]
    board = build_board({"title": title, "options": {o: "true" for o in src["optional_rules"]}})
    assert set(board.hexes) == {h["coord"] for h in src["hexes"]}
    derived = ref_board.neighbours_of({h["coord"]: (h["x"], h["y"]) for h in src["hexes"]}, src["layout"])
    for h in src["hexes"]:
        expected = {int(e): n for e, n in h["neighbors"].items()}
        assert board.neighbours[h["coord"]] == expected, h["coord"]
        assert derived[h["coord"]] == expected, h["coord"]
        assert ref_board.coordinates(h["coord"], src["layout"]) == (h["x"], h["y"])


def assembled(board, colours) -> dict:
    """What a board means for routes, hex by hex, in terms both readings share: nodes (part index, kind,
    value in the phase, slots, groups, visit cost), paths (part index, ends as map edges or node part
    indexes, terminal), impassable map edges, icons and colour; tokens; neighbours."""
    out = {}
    for name, h in board.hexes.items():
        parts = {n.ordinal: n.part for n in h.tile.node_parts}
        out[name] = (
            h.color, frozenset(h.impassable), frozenset(h.icons),
            tuple((n.part, n.kind, n.revenue.value(colours), n.slots, tuple(n.groups), n.visit_cost)
                  for n in h.tile.node_parts),
            tuple((p.part, frozenset(("edge", (e.edge + h.rotation) % 6) if e.edge is not None
                                     else ("node", parts[e.node]) for e in p.ends), bool(p.terminal))
                  for p in h.tile.paths),
            tuple(c.part for c in h.tile.cities))
    return {"hexes": out, "tokens": {k: sorted(v) for k, v in board.tokens.items()},
            "neighbours": {h: dict(n) for h, n in board.neighbours.items()}}


def assembly_cases():
    from benchmarks.scenarios import lay_tiles, place_tokens, rhl_lays

    cases = []
    for seed in range(12):
        rng = random.Random(seed)
        for title in ("1830", "steam_over_holland", "18rhl", "1860", "1889"):
            colours = rng.choice([("yellow",), ("yellow", "green"), ("yellow", "green", "brown")])
            options = {}
            if title == "1860" and rng.random() < 0.4:
                options = {rng.choice(["two_player_map", "original_game"]): "true"}
            if title == "18rhl":
                options = {"coal": "D11", "steel": "D13"}
                if rng.random() < 0.4:
                    options.update(ratingen_variant="true", promotion_tiles="true")
            lays = rhl_lays(colours, 0.6, seed, options) if title == "18rhl" else \
                lay_tiles(title, colours, 0.6, seed, options)
            corp = rng.choice(ref_board.dump_for(title, options)["corporations"])["id"]
            tokens = place_tokens(title, lays, corp, 2, 6, seed, options)
            phase = rng.choice(ref_board.dump_for(title, options)["phases"])["name"]
            cases.append({"title": title, "phase": phase, "options": options, "tiles": lays, "tokens": tokens})
        custom, _, _ = random_board(seed)
        cases.append(custom)
    return cases


@pytest.mark.parametrize("request_", assembly_cases(), ids=lambda r: r["title"])
def test_board_assembly_agrees_with_an_independent_reading(request_):
    # The tile DSL parser and board assembly against the reference's own reading of the same request.
    built, ref = build_board(request_), ref_board.ref_board(request_)
    assert built.phase.name == ref.phase.name and tuple(built.phase.colours) == ref.phase.colours
    assert assembled(built, ref.phase.colours) == assembled(ref, ref.phase.colours)
    if request_["title"] != "custom":
        assert [c["id"] for c in built.data.corporations] == [c["id"] for c in ref.data.corporations]
        assert [c["coordinates"] for c in built.data.corporations] == [c["coordinates"] for c in ref.data.corporations]


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


# ---- boards read from lays and tokens checked before ---------------------------------------------------------

def forget_checked(title: str = "1830") -> None:
    """Forget the lays and tokens checked before (revenue.known.Known) on every map variant of `title`."""
    from revenue.titles import TITLES

    for data in TITLES[title]._data.values():
        data.known = None


@pytest.mark.parametrize("request_", [r for r in assembly_cases() if r["title"] != "custom"],
                         ids=lambda r: r["title"])
def test_a_board_read_again_from_checked_lays_agrees(request_):
    # The second reading takes the lays and tokens the first one checked (its track comes from that
    # reading's kernel call, Board.track); the board is the reference's reading all the same, and so is
    # one whose lays leave rotation 0 out (as a decoded proto message does).
    build_board(request_)
    again, ref = build_board(request_), ref_board.ref_board(request_)
    assert again.track is not None
    assert assembled(again, ref.phase.colours) == assembled(ref, ref.phase.colours)
    sparse = {**request_, "tiles": [{k: v for k, v in lay.items() if k != "rotation" or v}
                                    for lay in request_["tiles"]]}
    build_board(sparse)
    sparse_again = build_board(sparse)
    assert sparse_again.track is not None
    assert assembled(sparse_again, ref.phase.colours) == assembled(ref, ref.phase.colours)
    forget_checked(request_["title"])
    cold = build_board(request_)
    assert cold.track is None and (cold.stop_total, cold.code_chars) == (again.stop_total, again.code_chars)
    assert build_board(request_).key == cold.key    # the full check keys the board as its re-reading does
    # the least town revenue (1860's halt rows) read from the track's node arrays is the tiles' own
    assert NODE_KINDS[_TOWN_KIND] == "town"
    towns = [r.value(ref.phase.colours) for bh in again.hexes.values() for r in bh.tile.town_revenues]
    assert again.least_town_revenue() == cold.least_town_revenue() == (min(towns) if towns else None)


LAID = {"title": "1830", "phase": "5", "tiles": [{"hex": "F4", "tile": "15", "rotation": 0},
                                                  {"hex": "G5", "tile": "7", "rotation": 1}],
        "tokens": [{"hex": "F4", "city": 0, "company": "B&O"}, {"hex": "F4", "city": 0, "company": "PRR"}]}
# each of these lays and tokens is checked once (with LAID and ALSO) before the bad boards made of them
ALSO = {"title": "1830", "tiles": [{"hex": "F4", "tile": "57", "rotation": 0}, {"hex": "G5", "tile": "7"}]}
ALSO_7 = {"title": "1830", "tiles": [{"hex": "F4", "tile": "7", "rotation": 1}]}


@pytest.mark.parametrize("board, field, says", [
    ({**LAID, "tiles": LAID["tiles"] + LAID["tiles"][:1]}, "board.tiles[2].hex", "already has a tile laid"),
    ({**LAID, "tiles": ALSO["tiles"][:1]}, "board.tokens[1]", "is full (1 slot)"),
    ({**LAID, "tiles": ALSO_7["tiles"], "tokens": LAID["tokens"][:1]}, "board.tokens[0].city",
     "has 0 cities, so city 0 does not exist"),
    ({**LAID, "tiles": [{"hex": "G5", "tile": "7", "rotation": True}]}, "board.tiles[0].rotation",
     "True is not an integer"),
    ({**LAID, "tokens": [{"hex": "F4", "city": False, "company": "B&O"}]}, "board.tokens[0].city",
     "False is not an integer"),
    ({**LAID, "tokens": LAID["tokens"] + LAID["tokens"][:1]}, "board.tokens[2].company",
     "B&O already has a token in F4 city 0"),
    ({**LAID, "phase": "9"}, "board.phase", "unknown phase '9'"),
    ({**LAID, "options": {"no_such_option": "1"}}, "board.options[no_such_option]", "unknown option"),
    ({**LAID, "tiles": [{**LAID["tiles"][0], "tile": "x" * 300}]}, "board.tiles[0].tile",
     "300 characters; at most 200"),
])
def test_bad_boards_of_checked_lays_and_tokens_name_the_field(board, field, says):
    # Every lay and token of these boards was checked before; put together they are wrong, and the error
    # is the one a board of unchecked lays gets.
    errors = []
    for warm in (True, False):
        forget_checked()
        if warm:
            for good in (LAID, ALSO, ALSO_7):
                build_board(good)
        with pytest.raises(InputError) as e:
            build_board(board)
        errors.append((e.value.field, e.value.description))
    assert errors[0] == errors[1]
    assert errors[0][0] == field and says in errors[0][1]


def test_a_known_boards_options_keep_their_spelling():
    # A known board's title, phase and options are checked once and remembered by their values when they
    # are strings (revenue.known._opened); True and 1 are equal as keys, so such values are read afresh
    # and each board keeps its own options.
    forget_checked()
    values = (True, 1, "1", True)
    for value in values:    # (each the first board of its map variant: checked in full)
        build_board({**LAID, "options": {"optional_6_train": value}})
    spelled = [build_board({**LAID, "options": {"optional_6_train": value}}) for value in values]
    assert all(board.key is not None for board in spelled)
    assert [board.options for board in spelled] == [{"optional_6_train": v} for v in ("True", "1", "1", "True")]
