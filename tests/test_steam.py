"""Steam goods deliveries: each rule (issue 7, rules/steam.md §3), bad input, proto round trip, and
property tests against the naive reference in tests/naive_steam.py."""
from __future__ import annotations

import json
import pathlib

import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

from .naive_steam import Board
from .profiles import examples
from revenue.errors import InputError
from revenue.steam import deliveries, deliveries_proto, format_text
from revenue.v1 import steam_pb2

ROOT = pathlib.Path(__file__).resolve().parent.parent


def make(stops: dict, links: list, cubes: list, players=None, player="me", **rules) -> dict:
    """A request: stops {id: colour or None for a town}; links (id, a, b, owner[, complete]);
    cubes (stop, colour[, count]); players {id: level}."""
    players = players or {"me": 6, "A": 6, "B": 6}
    req = {
        "stops": [{"id": s, "kind": "city", "colour": c} if c else {"id": s, "kind": "town"}
                  for s, c in stops.items()],
        "links": [{"id": l[0], "a": l[1], "b": l[2], "owner": l[3] or "",
                   **({"complete": l[4]} if len(l) > 4 else {})} for l in links],
        "cubes": [{"stop": c[0], "colour": c[1], "count": c[2] if len(c) > 2 else 1} for c in cubes],
        "players": [{"id": p, "level": lv} for p, lv in players.items()],
        "player": player,
    }
    req.update(rules)
    return req


def chain(stops: dict, owners: list, cubes, **kw) -> dict:
    """Stops joined in order by links l1, l2, ... with the given owners."""
    ids = list(stops)
    links = [(f"l{i + 1}", ids[i], ids[i + 1], o) for i, o in enumerate(owners)]
    return make(stops, links, cubes, **kw)


def key(d: dict) -> tuple:
    return d["own_points"], d["other_points"], len(d["links"])


# ---------------------------------------------------------------- the rules, one by one

def test_rulebook_example_through_a_town_scores_two():
    # Age of Steam rulebook p. 8: Cincinnati -> Indianapolis (town) -> Evansville, 2 links, +2.
    req = json.loads((ROOT / "examples/steam.json").read_text())
    r = deliveries(req)
    best = r["best"]
    assert best["stops"] == ["Cincinnati", "Indianapolis", "Evansville"]
    assert best["links"] == ["cin-ind", "ind-eva"]
    assert best["destination"] == "Evansville" and best["colour"] == "purple"
    assert (best["own_points"], best["other_points"], best["points_by_owner"]) == (2, 0, {"red": 2})


def test_cube_stops_at_first_city_of_its_colour():
    # X (purple) lies on the way to Z (purple): the 3-link route to Z would pay 3 but is illegal.
    req = chain({"O": "red", "X": "purple", "T": None, "Z": "purple"}, ["me", "me", "me"],
                [("O", "purple")], ruleset="age_of_steam")
    r = deliveries(req)
    assert r["best"]["stops"] == ["O", "X"] and r["best"]["own_points"] == 1
    assert [d["stops"] for d in r["deliveries"]] == [["O", "X"]]


def test_first_matching_city_blocks_only_its_own_colour():
    # A yellow cube passes the purple city X and pays 3.
    req = chain({"O": "red", "X": "purple", "T": None, "Z": "yellow"}, ["me", "me", "me"],
                [("O", "yellow")])
    assert deliveries(req)["best"]["stops"] == ["O", "X", "T", "Z"]


def test_no_stop_twice_towns_included():
    # The only 4-link route revisits town T (O-T-P-T-R, over the parallel T-P links); it is illegal,
    # so the best is the direct O-T-R for 2.
    req = make({"O": "blue", "T": None, "P": "yellow", "R": "red"},
               [("a", "O", "T", "me"), ("b", "T", "P", "me"), ("c", "P", "T", "me"), ("d", "T", "R", "me")],
               [("O", "red")])
    r = deliveries(req)
    assert [d["stops"] for d in r["deliveries"]] == [["O", "T", "R"]]
    assert r["best"]["own_points"] == 2


def test_cube_in_city_of_its_colour_must_go_to_another_one():
    req = chain({"O": "red", "T": None, "R": "red"}, ["me", "me"], [("O", "red")])
    assert deliveries(req)["best"]["stops"] == ["O", "T", "R"]
    # Without another red city, there is nowhere to go: the origin does not count.
    req = make({"O": "red", "T": None}, [("a", "O", "T", "me"), ("b", "T", "O", "me")], [("O", "red")])
    r = deliveries(req)
    assert "best" not in r
    assert r["undeliverable"][0]["reason"] == "no_destination"


def test_incomplete_links_are_invisible():
    stops = {"O": "red", "T": None, "Y": "yellow"}
    r = deliveries(chain(stops, ["me", "me"], [("O", "yellow")]))
    assert r["best"]["own_points"] == 2  # `complete` absent means complete
    req = make(stops, [("a", "O", "T", "me"), ("b", "T", "Y", "me", False)], [("O", "yellow")])
    r = deliveries(req)
    assert "best" not in r and r["undeliverable"][0]["reason"] == "unreachable"
    req = make(stops, [("a", "O", "T", "me", False), ("b", "T", "Y", "me")], [("O", "yellow")])
    assert deliveries(req)["undeliverable"][0]["reason"] == "no_link"


def test_unowned_links_pay_nobody_and_count_for_nobody():
    # 1 own + 2 unowned: Steam's majority rule holds (the unowned links belong to no player).
    req = chain({"O": "red", "T": None, "U": None, "Y": "yellow"}, ["me", None, None], [("O", "yellow")])
    best = deliveries(req)["best"]
    assert (best["own_points"], best["other_points"], best["points_by_owner"]) == (1, 0, {"me": 1})
    # Only unowned links: illegal under Steam's default (at least one own link), legal with the flag off.
    req = chain({"O": "red", "T": None, "Y": "yellow"}, [None, None], [("O", "yellow")])
    r = deliveries(req)
    assert "best" not in r and r["undeliverable"][0]["reason"] == "own_link"
    r = deliveries({**req, "require_own_link": False})
    assert key(r["best"]) == (0, 0, 2) and r["best"]["points_by_owner"] == {}


def test_steam_own_links_at_least_each_other_players():
    # 2 own + 3 of A: illegal in Steam; 2 own + 2 of A + 1 of B: legal.
    stops = {"O": "red", "T1": None, "T2": None, "T3": None, "T4": None, "Y": "yellow"}
    bad = chain(stops, ["me", "me", "A", "A", "A"], [("O", "yellow")])
    r = deliveries(bad)
    assert "best" not in r and r["undeliverable"][0]["reason"] == "own_majority"
    assert "more links of another player" in r["undeliverable"][0]["detail"]
    good = chain(stops, ["me", "A", "me", "A", "B"], [("O", "yellow")])
    best = deliveries(good)["best"]
    assert best["points_by_owner"] == {"me": 2, "A": 2, "B": 1} and key(best) == (2, 3, 5)
    # Age of Steam has no such rule; the flag turns it on.
    assert key(deliveries({**bad, "ruleset": "age_of_steam"})["best"]) == (2, 3, 5)
    assert "best" not in deliveries({**bad, "ruleset": "age_of_steam", "own_majority": True})
    # Age of Steam even allows a move that pays only others.
    only_a = chain({"O": "red", "Y": "yellow"}, ["A"], [("O", "yellow")], ruleset="age_of_steam")
    assert key(deliveries(only_a)["best"]) == (0, 1, 1)


def test_parallel_links_of_one_owner_count_once():
    # 24,000 parallel links each way used to cost the search quadratic time; one of each owner is searched.
    links = [(f"m{i}", "O", "T", "me") for i in range(24000)] + [(f"n{i}", "T", "Y", "me") for i in range(24000)]
    links.append(("theirs", "O", "T", "A"))
    req = make({"O": "red", "T": None, "Y": "yellow"}, links, [("O", "yellow")], ruleset="age_of_steam")
    r = deliveries({**req, "top_k": 5})
    assert r["best"]["links"] == ["m0", "n0"] and r["best"]["own_points"] == 2
    assert [d["links"] for d in r["deliveries"]] == [["m0", "n0"], ["theirs", "n0"]]
    assert r["explored"] < 100


def test_deadline_and_cancel_stop_deliveries():
    import threading

    from revenue.errors import Interrupted

    links = [(f"m{i}", "O", "T", "me") for i in range(20000)] + [("ty", "T", "Y", "me")]
    req = make({"O": "red", "T": None, "Y": "yellow"}, links, [("O", "yellow")], ruleset="age_of_steam")
    with pytest.raises(Interrupted):
        deliveries(req, deadline=0.0)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Interrupted):
        deliveries(req, cancel=cancel)
    # With time enough, the same answer as without a deadline.
    assert deliveries(req, deadline=30.0, cancel=threading.Event()) == deliveries(req)


def test_parallel_links_choose_the_owner():
    req = make({"O": "red", "Y": "yellow"}, [("theirs", "O", "Y", "A"), ("mine", "O", "Y", "me")],
               [("O", "yellow")], ruleset="age_of_steam")
    r = deliveries(req)
    assert r["best"]["links"] == ["mine"] and r["best"]["own_points"] == 1
    assert [d["links"] for d in r["deliveries"]] == [["mine"], ["theirs"]]


def test_level_limits_the_links_and_shorter_routes_are_legal():
    stops = {"O": "red", "T1": None, "T2": None, "Y": "yellow"}
    req = chain(stops, ["me", "me", "me"], [("O", "yellow")], players={"me": 2, "A": 3})
    r = deliveries(req)
    assert "best" not in r
    u = r["undeliverable"][0]
    assert (u["reason"], u["links_needed"]) == ("too_far", 3)
    r = deliveries({**req, "players": [{"id": "me", "level": 3}, {"id": "A", "level": 3}]})
    assert key(r["best"]) == (3, 0, 3)
    # A shorter route is legal at a higher level.
    r = deliveries({**req, "players": [{"id": "me", "level": 6}, {"id": "A", "level": 3}]})
    assert key(r["best"]) == (3, 0, 3)


def test_troypress_example_four_links_three_to_the_mover():
    # Yellow cube Albany -> New York -> Philadelphia -> yellow city: 3 links of the mover, 1 of blue.
    req = chain({"Albany": "red", "New York": "blue", "Philadelphia": "purple", "Pittsburgh": None,
                 "Wheeling": "yellow"}, ["me", "blue", "me", "me"], [("Albany", "yellow")],
                players={"me": 4, "blue": 4})
    best = deliveries(req)["best"]
    assert best["points_by_owner"] == {"me": 3, "blue": 1}
    assert best["stops"] == ["Albany", "New York", "Philadelphia", "Pittsburgh", "Wheeling"]


def test_ranking_ties_go_to_fewer_points_for_others_then_fewer_links():
    # Three routes for 2 own points: via A's link (2,1,3), over an unowned link (2,0,3), all own (2,0,2).
    req = make({"O": "red", "P": None, "Q": None, "S": None, "R": None, "W": None, "Y": "yellow"},
               [("a1", "O", "Q", "A"), ("q2", "Q", "S", "me"), ("q3", "S", "Y", "me"),
                ("n1", "O", "R", None), ("r2", "R", "W", "me"), ("r3", "W", "Y", "me"),
                ("o1", "O", "P", "me"), ("o2", "P", "Y", "me")],
               [("O", "yellow")])
    r = deliveries(req)
    assert [key(d) for d in r["deliveries"]] == [(2, 0, 2), (2, 0, 3), (2, 1, 3)]
    assert r["best"]["links"] == ["o1", "o2"]


def test_bounds_keep_a_later_tie_break_winner():
    # Own links are searched first, so O-P-Y (1 own, 1 of A) is found before O-Q-Y (1 own, over an
    # unowned link). The second must still win, in the list and in the plan, even with top_k 1.
    req = make({"O": "red", "P": None, "Q": None, "Y": "yellow"},
               [("a", "O", "P", "me"), ("b", "P", "Y", "A"), ("c", "O", "Q", None), ("d", "Q", "Y", "me")],
               [("O", "yellow")], players={"me": 2, "A": 2}, top_k=1, max_level=2)
    r = deliveries(req)
    assert r["best"]["links"] == ["c", "d"] and [key(d) for d in r["deliveries"]] == [(1, 0, 2)]
    assert r["plan"]["steps"][0]["delivery"]["links"] == ["c", "d"]


def test_top_k_limits_the_list_and_keeps_the_order():
    req = make({"O": "red", "T": None, "Y": "yellow", "Z": "yellow"},
               [("a", "O", "T", "me"), ("b", "T", "Y", "me"), ("c", "T", "Z", "A"), ("d", "O", "Y", "me")],
               [("O", "yellow")], ruleset="age_of_steam")
    r = deliveries(req)
    assert [key(d) for d in r["deliveries"]] == [(2, 0, 2), (1, 0, 1), (1, 1, 2)]
    r = deliveries({**req, "top_k": 2})
    assert [key(d) for d in r["deliveries"]] == [(2, 0, 2), (1, 0, 1)]


def test_plan_second_move_cannot_reuse_a_moved_cube():
    stops = {"O": "red", "T": None, "Y": "yellow", "P": "purple"}
    links = [("a", "O", "T", "me"), ("b", "T", "Y", "me"), ("c", "O", "P", "me")]
    # One yellow cube (2 points) and one purple cube (1 point): move both.
    r = deliveries(make(stops, links, [("O", "yellow"), ("O", "purple")], players={"me": 2, "A": 2}))
    plan = r["plan"]
    assert (plan["name"], plan["own_points"]) == ("move+move", 3)
    assert [s["delivery"]["colour"] for s in plan["steps"]] == ["yellow", "purple"]
    # Two yellow cubes: the same route twice.
    r = deliveries(make(stops, links, [("O", "yellow", 2)], players={"me": 2, "A": 2}))
    assert (r["plan"]["name"], r["plan"]["own_points"]) == ("move+move", 4)
    # One cube only: move, then the free upgrade.
    r = deliveries(make(stops, links, [("O", "yellow")], players={"me": 2, "A": 2}))
    assert (r["plan"]["name"], r["plan"]["own_points"], r["plan"]["level_after"]) == ("move+upgrade", 2, 3)
    assert [s["action"] for s in r["plan"]["steps"]] == ["move", "upgrade"]


def test_plan_upgrade_first_when_it_reaches_further():
    stops = {"O": "red", "T1": None, "T2": None, "Y": "yellow"}
    req = chain(stops, ["me", "me", "me"], [("O", "yellow")], players={"me": 2, "A": 2})
    r = deliveries(req)
    plan = r["plan"]
    assert (plan["name"], plan["own_points"], plan["level_after"]) == ("upgrade+move", 3, 3)
    assert plan["steps"][1]["delivery"]["stops"] == ["O", "T1", "T2", "Y"]
    # Already upgraded this phase, or at the maximum level: no upgrade, nothing to move.
    up = {**req, "players": [{"id": "me", "level": 2, "upgraded": True}, {"id": "A", "level": 2}]}
    assert deliveries(up)["plan"]["name"] == "pass+pass"
    assert deliveries({**req, "max_level": 2})["plan"]["name"] == "pass+pass"
    # In round 2 only one action is left.
    r = deliveries({**req, "round": 2})
    assert r["plan"]["name"] == "upgrade" and r["plan"]["steps"][0]["round"] == 2


def test_reasons_for_each_undeliverable_cube():
    req = make({"O": "red", "T": None, "Y": "yellow", "L": "blue", "F": "purple", "G": "purple"},
               [("a", "O", "T", "me"), ("b", "T", "Y", "A"), ("c", "F", "G", "me")],
               [("O", "yellow"), ("O", "blue"), ("L", "red"), ("O", "black"), ("O", "purple")])
    r = deliveries(req)
    got = {(u["stop"], u["colour"]): u["reason"] for u in r["undeliverable"]}
    assert got == {("O", "blue"): "unreachable", ("L", "red"): "no_link", ("O", "black"): "no_destination",
                   ("O", "purple"): "unreachable"}
    assert r["best"]["stops"] == ["O", "T", "Y"]  # 1 own + 1 of A: a tie is allowed


def test_new_city_changes_destinations_and_blocking():
    # Urbanizing town T into a yellow New City makes it both the destination and a block for Y.
    before = chain({"O": "red", "T": None, "Y": "yellow"}, ["me", "me"], [("O", "yellow")])
    assert deliveries(before)["best"]["stops"] == ["O", "T", "Y"]
    after = chain({"O": "red", "T": "yellow", "Y": "yellow"}, ["me", "me"], [("O", "yellow")])
    assert deliveries(after)["best"]["stops"] == ["O", "T"]


def test_format_text_reads_like_a_move():
    text = format_text(deliveries(json.loads((ROOT / "examples/steam.json").read_text())))
    assert "Best: purple cube Cincinnati -> Indianapolis -> Evansville (2 links): 2 for you" in text
    assert "round 2: move red cube Cincinnati -> Indianapolis -> Chicago" in text
    assert "yellow at Chicago (x2): the nearest yellow city is 3 links away; level is 2" in text


def test_the_documented_request_works():
    doc = (ROOT / "docs/steam.md").read_text()
    req = json.loads(doc.split("```json")[1].split("```")[0])
    best = deliveries(req)["best"]
    assert (best["stops"], best["own_points"]) == (["Cincinnati", "Indianapolis", "Evansville"], 2)


# ---------------------------------------------------------------- proto / JSON

def test_json_round_trip_through_the_proto_messages():
    raw = json.loads((ROOT / "examples/steam.json").read_text())
    msg = json_format.ParseDict(raw, steam_pb2.DeliveriesRequest())
    assert msg.links[6].HasField("complete") and not msg.links[6].complete
    assert not msg.links[0].HasField("complete")
    as_dict = json_format.MessageToDict(msg, preserving_proto_field_name=True)
    result = deliveries(as_dict)
    assert result == deliveries(raw)
    response = json_format.ParseDict(result, steam_pb2.DeliveriesResponse())
    assert response.best.own_points == 2 and list(response.best.stops) == ["Cincinnati", "Indianapolis",
                                                                          "Evansville"]
    assert response.plan.name == "move+move" and response.undeliverable[0].reason == "too_far"
    back = json_format.MessageToDict(response, preserving_proto_field_name=True)
    assert back["best"]["points_by_owner"] == {"red": 2}
    assert deliveries_proto(msg) == response


def test_camel_case_json_is_accepted():
    req = chain({"O": "red", "Y": None, "Z": "yellow"}, [None, None], [("O", "yellow")])
    req["requireOwnLink"] = False
    req["topK"] = 1
    r = deliveries(req)
    assert r["rules"]["require_own_link"] is False and len(r["deliveries"]) == 1


# ---------------------------------------------------------------- bad input

def _bad(**changes):
    req = make({"O": "red", "T": None, "Y": "yellow"}, [("a", "O", "T", "me"), ("b", "T", "Y", "A")],
               [("O", "yellow")])
    for path, value in changes.items():
        target = req
        parts = path.split("__")
        for p in parts[:-1]:
            target = target[int(p)] if p.isdigit() else target[p]
        target[parts[-1]] = value
    return req


@pytest.mark.parametrize("req, field, text", [
    (_bad(links__0__a="Nowhere"), "links[0].a", "'Nowhere' is not a stops[].id"),
    (_bad(stops__2__id="O"), "stops[2].id", "'O' duplicates stops[0].id"),
    (_bad(links__1__id="a"), "links[1].id", "'a' duplicates links[0].id"),
    (_bad(stops__0__colour="green"), "stops[0].colour", "'green' is not one of"),
    (_bad(stops__0__colour=""), "stops[0].colour", "a city needs a colour"),
    (_bad(stops__1__colour="red"), "stops[1].colour", "a town has no colour"),
    (_bad(stops__1__kind="village"), "stops[1].kind", "'village' is not city or town"),
    (_bad(cubes__0__colour="pink"), "cubes[0].colour", "'pink' is not one of"),
    (_bad(cubes__0__count=-1), "cubes[0].count", "-1 is not >= 0"),
    (_bad(cubes__0__stop="X"), "cubes[0].stop", "'X' is not a stops[].id"),
    (_bad(player="zed"), "player", "'zed' is not a players[].id"),
    (_bad(player=""), "player", "is required"),
    (_bad(ruleset="1830"), "ruleset", "'1830' is not one of steam, age_of_steam"),
    (_bad(players__2__level=-1), "players[2].level", "-1 is not >= 1"),
    (_bad(players__2__level=7), "players[2].level", "7 is not <= 6"),
    (_bad(players__1__id="me"), "players[1].id", "'me' duplicates players[0].id"),
    (_bad(links__0__owner="zed"), "links[0].owner", "'zed' is not a players[].id"),
    (_bad(links__0__b="O"), "links[0].b", "a link must join two different stops"),
    (_bad(links__0__complete="yes"), "links[0].complete", "must be true or false"),
    (_bad(max_level=0), "max_level", "0 is not >= 1"),
    (_bad(top_k=-3), "top_k", "-3 is not >= 0"),
    (_bad(round=3), "round", "3 is not <= 2"),
    (_bad(stops__0__size=3), "stops[0].size", "unknown field"),
    (_bad(stops="O"), "stops", "must be a list"),
    (_bad(own_majority=1), "own_majority", "must be true or false"),
])
def test_bad_input_names_the_field(req, field, text):
    with pytest.raises(InputError) as err:
        deliveries(req)
    assert err.value.field == field
    assert text in err.value.description


def test_bad_input_reports_every_violation_and_non_objects():
    req = _bad(players__2__level=-1, cubes__0__count=-1)
    with pytest.raises(InputError) as err:
        deliveries(req)
    assert str(err.value) == "players[2].level: -1 is not >= 1; cubes[0].count: -1 is not >= 0"
    with pytest.raises(InputError):
        deliveries([1, 2])
    with pytest.raises(InputError) as err:
        deliveries({**_bad(), "links": [7]})
    assert (err.value.field, err.value.description) == ("links[0]", "must be an object, not int")


# ---------------------------------------------------------------- kernel vs reference

COLOURS3 = ["red", "blue", "yellow"]


@st.composite
def boards(draw):
    n = draw(st.integers(3, 8))
    stops = {}
    for i in range(n):
        stops[f"s{i}"] = draw(st.sampled_from(COLOURS3 + [None]))  # None: a town
    ids = list(stops)
    players = {f"p{i}": 1 for i in range(draw(st.integers(1, 3)))}
    links = []
    for i in range(draw(st.integers(2, 16))):
        a, b = draw(st.sampled_from([(x, y) for x in ids for y in ids if x != y]))
        links.append((f"l{i}", a, b, draw(st.sampled_from(list(players) + [None])), draw(st.booleans())
                      or draw(st.booleans())))
    cubes = [(draw(st.sampled_from(ids)), draw(st.sampled_from(COLOURS3)), draw(st.sampled_from([1, 1, 2, 0])))
             for _ in range(draw(st.integers(1, 6)))]
    max_level = draw(st.integers(1, 5))
    level = draw(st.integers(1, max_level))
    players["p0"] = level
    req = make(stops, links, cubes, players=players, player="p0", max_level=max_level,
               ruleset=draw(st.sampled_from(["steam", "age_of_steam"])),
               top_k=draw(st.integers(1, 6)), round=draw(st.sampled_from([1, 2])))
    req["players"][0]["upgraded"] = draw(st.booleans())
    for flag in ("own_majority", "require_own_link"):
        choice = draw(st.sampled_from([None, True, False]))
        if choice is not None:
            req[flag] = choice
    return req


@settings(max_examples=examples(200))
@given(boards())
def test_kernel_matches_reference(req):
    r = deliveries(req)
    ref = Board(req)
    # Parallel complete links of one owner are interchangeable: the first listed stands for them all.
    first: dict = {}
    for link in req["links"]:
        if link.get("complete", True):
            first.setdefault((frozenset((link["a"], link["b"])), link.get("owner") or ""), link["id"])
    legal = [d for d in ref.legal(ref.level) if set(d["links"]) <= set(first.values())]
    keys = sorted((d["key"] for d in legal), reverse=True)
    # With room for every delivery the bounds never cut a listed one: the full list must match.
    every = deliveries({**req, "top_k": 1000})["deliveries"]
    assert sorted((tuple(d["stops"]), tuple(d["links"])) for d in every) \
        == sorted((tuple(d["stops"]), tuple(d["links"])) for d in legal)
    assert [(d["own_points"], -d["other_points"], -len(d["links"])) for d in r["deliveries"]] \
        == keys[:req["top_k"]]
    by_path = {(tuple(d["stops"]), tuple(d["links"])): d for d in legal}
    for d in r["deliveries"]:
        ref_d = by_path[(tuple(d["stops"]), tuple(d["links"]))]  # a legal delivery, same path
        assert d["points_by_owner"] == ref_d["points"] and d["colour"] == ref_d["colour"]
    if keys:
        assert (r["best"]["own_points"], -r["best"]["other_points"], -len(r["best"]["links"])) == keys[0]
    else:
        assert "best" not in r
    assert {(u["stop"], u["colour"]): (u["reason"], u.get("links_needed")) for u in r["undeliverable"]} \
        == ref.reasons()
    plan = r["plan"]
    assert (plan["name"], plan["own_points"], plan["other_points"], plan["level_after"]) == ref.plan()
    for step in plan["steps"]:
        if step["action"] == "move":
            lvl = step["level"]
            assert (tuple(step["delivery"]["stops"]), tuple(step["delivery"]["links"])) in \
                {(tuple(d["stops"]), tuple(d["links"])) for d in ref.legal(lvl)}


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=3),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                 max_size=3),
                    max_leaves=6)


@settings(max_examples=examples(150))
@given(st.data())
def test_garbage_in_any_field_is_an_input_error_not_a_crash(data):
    req = json.loads((ROOT / "examples/steam.json").read_text())
    # Replace one value anywhere in the request by arbitrary JSON.
    target, path = req, []
    while True:
        keys = list(target) if isinstance(target, dict) else list(range(len(target)))
        k = data.draw(st.sampled_from(keys))
        path.append(k)
        if isinstance(target[k], (dict, list)) and target[k] and data.draw(st.booleans()):
            target = target[k]
            continue
        target[k] = data.draw(JSON)
        break
    try:
        r = deliveries(req)
    except InputError as err:
        assert err.field and err.description
    else:
        json_format.ParseDict(r, steam_pb2.DeliveriesResponse())


def test_remembered_board_answers_each_player_as_a_fresh_parse():
    """deliveries() remembers a parsed board between requests that differ only in the acting player."""
    from benchmarks.steam import PLAYERS, large_map

    from revenue.steam.request import parse
    from revenue.steam.search import solve

    board = large_map(seed=3, level=4)
    for player in PLAYERS + PLAYERS[::-1]:
        request = {**board, "player": player}
        assert deliveries(request) == solve(parse(request))
    with pytest.raises(InputError) as err:
        deliveries({**board, "player": "nobody"})
    assert err.value.field == "player"
