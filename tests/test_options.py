"""The optional rules of 18xx.games, by the names it uses, in board.options: each title accepts all of its
own, applies those that change the map, the tiles, routes or revenue, accepts the others without effect,
lists both kinds (`revenue titles`, ListTitles) and rejects any other name with the list of known ones."""
from __future__ import annotations

import pytest

from revenue.api import list_titles
from revenue.board_request import build_board
from revenue.errors import InputError
from revenue.optimizer import solve

# title -> (options applied, options accepted without effect), as 18xx.games offers them
OPTIONS = {
    "1830": (set(), {"multiple_brown_from_ipo", "optional_6_train"}),
    "18rhl": ({"ratingen_variant", "promotion_tiles"}, {"optional_2_train", "lower_starting_capital"}),
    # (with 1860's game states nationalization and southern_formed, which the caller sets as options)
    "1860": ({"two_player_map", "no_skip_towns", "original_game", "re_enter_hexes", "original_insolvency",
              "nationalization", "southern_formed"}, {"simplified_insolvency", "non_operated_full_value"}),
    "1889": (set(), {"beginner_game"}),
    "steam_over_holland": (set(), set()),
}


def test_every_option_is_listed_with_whether_it_changes_routes():
    listed = {t["name"]: t.get("options", []) for t in list_titles()["titles"]}
    for title, (applied, passive) in OPTIONS.items():
        assert {o["name"] for o in listed[title] if o.get("changes_routes")} == applied, title
        assert {o["name"] for o in listed[title] if not o.get("changes_routes")} == passive, title


@pytest.mark.parametrize("title,option", [(t, o) for t, (a, p) in OPTIONS.items() for o in sorted(a | p)])
def test_every_option_is_accepted(title, option):
    board = build_board({"title": title, "options": {option: "true"}})
    assert board.options == {option: "true"}


def test_all_options_of_a_title_together():
    # 1860 takes all of its options at once (original_game implies the two-player map: A5 is gone)
    applied, passive = OPTIONS["1860"]
    board = build_board({"title": "1860", "options": {o: "true" for o in applied | passive}})
    assert "A5" not in board.hexes and "A5" in build_board({"title": "1860"}).hexes


@pytest.mark.parametrize("title", ["1830", "18rhl", "1860", "1889", "steam_over_holland"])
def test_unknown_option_names_it_and_lists_the_known_ones(title):
    with pytest.raises(InputError) as e:
        build_board({"title": title, "options": {"no_such_rule": "true"}})
    assert e.value.field == "board.options[no_such_rule]"
    applied, passive = OPTIONS[title]
    free = {"coal", "steel"} if title == "18rhl" else set()
    known = ", ".join(sorted(applied | passive | free)) or "none"
    assert e.value.description == f"unknown option for {title} (known: {known})"


def test_options_that_change_the_tiles():
    plain = build_board({"title": "18rhl"}).data.manifest
    promo = build_board({"title": "18rhl", "options": {"promotion_tiles": "true"}}).data.manifest
    # promotion tiles: gray Essen, 949, 950 and 932V added, 932 removed
    assert {"Essen", "949", "950", "932V"} <= set(promo) and "932" not in promo
    assert not {"Essen", "949", "950", "932V"} & set(plain) and "932" in plain
    ratingen = build_board({"title": "18rhl", "options": {"ratingen_variant": "true"}})
    assert {"1910", "1911"} <= set(ratingen.data.manifest) and "1910" not in plain
    # the Ratingen variant gives E10 a city (printed `city=revenue:0`): a token may go there
    assert ratingen.hexes["E10"].tile.cities and not build_board({"title": "18rhl"}).hexes["E10"].tile.cities


# A 1830 board where B&O's 2-train earns Chicago F2 (40 in phase 3) + Toledo F4 (tile 57, 20): 60.
B_AND_O = {"board": {"title": "1830", "phase": "3", "tiles": [{"hex": "F4", "tile": "57", "rotation": 1}],
                     "tokens": [{"hex": "F4", "city": 0, "company": "B&O"}]},
           "company": {"id": "B&O", "trains": [{"name": "2"}]}}


@pytest.mark.parametrize("option", ["multiple_brown_from_ipo", "optional_6_train"])
def test_options_without_effect_leave_the_answer(option):
    assert solve(B_AND_O)["revenue"] == 60
    with_option = {**B_AND_O, "board": {**B_AND_O["board"], "options": {option: "true"}}}
    assert solve(with_option)["revenue"] == 60
    # the same map and trains (optional_6_train adds a copy of a train the title has anyway)
    plain, optioned = build_board(B_AND_O["board"]), build_board(with_option["board"])
    assert set(optioned.hexes) == set(plain.hexes) and optioned.data.trains == plain.data.trains
