"""The tile DSL: every tile of every manifest and every printed hex parses (from the package's own title
data), and the parser's details: part indices, `_N` node references, phase revenue, terminal paths,
trailing `;`, and errors for malformed codes."""
from __future__ import annotations

import json
import pathlib

import pytest
from hypothesis import given, strategies as st

import revenue.titles
from revenue.errors import InputError
from revenue.tiles import parse_revenue, parse_tile

DATA = pathlib.Path(revenue.titles.__file__).parent / "data"
FILES = sorted(DATA.glob("*.json"))


def test_package_has_the_five_titles():
    assert [f.stem for f in FILES] == ["1830", "1860", "1889", "18rhl", "steam_over_holland"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_tile_and_printed_hex_parses(path):
    raw = json.loads(path.read_text())
    codes = [t["code"] for t in raw["tiles"]] + [h["code"] for h in raw["hexes"]]
    for v in raw.get("variants", []):
        codes += [t["code"] for t in v["tiles"].values() if t] + [h["code"] for h in v["hexes"].values() if h]
    assert len(codes) > 50
    for code in codes:
        tile = parse_tile(code)
        # Every path end that names a node names a declared node-like part.
        for p in tile.paths:
            for end in p.ends:
                assert (end.edge is not None) != (end.node is not None)
                assert end.node is None or end.node < len(tile.node_parts)


def test_part_indices_and_node_references():
    tile = parse_tile("label=C;city=revenue:20,loc:3;town=revenue:10;halt=symbol:x;path=a:0,b:_2;"
                      "path=a:_2,b:_1;path=a:_0,b:_1")
    assert [(n.part, n.ordinal, n.kind) for n in tile.node_parts] == [(1, 0, "city"), (2, 1, "town"), (3, 2, "halt")]
    assert tile.paths[0].b.node == 2 and tile.paths[0].a.edge == 0
    assert (tile.paths[1].a.node, tile.paths[1].b.node) == (2, 1)
    assert tile.labels == ("C",)
    assert [n.part for n in tile.nodes] == [1, 2, 3]


def test_unreferenced_node_is_not_a_node_but_counts_as_a_city():
    tile = parse_tile("city=revenue:0;city=revenue:0;label=OO")
    assert tile.nodes == () and len(tile.cities) == 2


def test_phase_revenue():
    rev = parse_revenue("yellow_30|brown_40")
    assert rev.value(("yellow",)) == 30
    assert rev.value(("yellow", "green")) == 30        # green has no value: the newest colour that does
    assert rev.value(("yellow", "green", "brown")) == 40
    assert rev.value(("gray",)) == 0
    assert rev.maximum == 40
    assert parse_revenue("20").value(("brown",)) == 20
    node = parse_tile("offboard=revenue:yellow_40|brown_70;path=a:3,b:_0").node_parts[0]
    assert node.kind == "offboard" and node.revenue.value(("yellow", "green", "brown")) == 70


def test_terminal_slots_groups_and_gauge():
    tile = parse_tile("offboard=revenue:yellow_40|brown_60,groups:NorthWest;path=a:0,b:_0,terminal:1")
    assert tile.paths[0].terminal and tile.node_parts[0].groups == ("NorthWest",)
    city = parse_tile("city=revenue:30,slots:2;path=a:0,b:_0;path=a:_0,b:3,track:narrow")
    assert city.cities[0].slots == 2 and city.paths[1].gauge == "narrow" and not city.paths[0].terminal


def test_trailing_semicolon_adds_no_part():
    assert parse_tile("city=revenue:20;path=a:0,b:_0;").parts == parse_tile("city=revenue:20;path=a:0,b:_0").parts
    assert len(parse_tile("town=revenue:10;path=a:0,b:_0;path=a:_0,b:3;").parts) == 3


def test_empty_code_is_a_blank_tile():
    tile = parse_tile("")
    assert tile.parts == () and tile.paths == () and tile.exits() == set()


def test_exits():
    assert parse_tile("city=revenue:20;path=a:0,b:_0;path=a:_0,b:3").exits() == {0, 3}


@pytest.mark.parametrize("code, says", [
    ("citty=revenue:20", "unknown part type"),
    ("city=revenue:20;path=a:0,b:_1", "names node 1"),
    ("path=a:0,b:6", "not an edge"),
    ("path=a:0", "needs both"),
    ("city=revenue:twenty", "twenty"),
    ("city=revenue:yellow_x", "yellow_x"),
    ("path=a:0,b:3,track:wide", "track"),
    ("city=revenue", "key:value"),
])
def test_malformed_code(code, says):
    with pytest.raises(InputError) as e:
        parse_tile(code, "board.tiles[2].code")
    assert e.value.field == "board.tiles[2].code"
    assert "malformed tile code" in e.value.description and says in e.value.description


@given(st.text(alphabet="cityowpah=:;,_0123456789rveun|", max_size=40))
def test_parser_fails_only_with_input_error(code):
    try:
        parse_tile(code, "code")
    except InputError as e:
        assert e.field == "code"
