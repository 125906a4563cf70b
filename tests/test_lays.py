"""revenue.moves: every legal tile lay and station token of a company, as the 18xx.games engine allows them,
and each valued by the best run it makes possible.

The real games' lays.jsonl (tests/data/games/exports) give, at every company's first lay of a turn and at
every token placement, what the engine offered and accepted there (`engine_legal`); the legal sets must equal
them exactly. The engine knows who owns each private; a request names only the company's own, so the tests
tell legal_lays which privates players own (those not yet bought by a corporation, 1830's B&O private closed
once the B&O has bought a train).
"""
from __future__ import annotations

import json
import pathlib

import pytest

import revenue
from revenue.game.actions import standing_actions
from revenue.moves import legal_lays, legal_tokens, value_lays, value_tokens
from revenue.moves.shapes import paths_kept, shape
from revenue.moves.title_rules import lay_rules
from revenue.moves.value import with_lay, with_token
from revenue.tiles import parse_tile

EXPORTS = pathlib.Path(__file__).parent / "data" / "games" / "exports"
GAMES = ("1889_314", "1889_962", "1830_29133", "1860_19354")
# privates that close when their corporation buys its first train
CLOSES_ON_FIRST_TRAIN = {"1830": {"BO": "B&O"}}


def _rows(game: str) -> list[dict]:
    return [json.loads(line) for line in (EXPORTS / f"{game}.lays.jsonl").read_text().splitlines()]


def _export(game: str) -> dict:
    return json.loads((EXPORTS / f"{game}.json").read_text())


def player_privates(export: dict, action_id: int) -> set[str]:
    """The privates with blocking abilities that no corporation has bought, nor closed, before the action."""
    standing = [a for _, a in standing_actions(export["actions"])]
    before = [a for a in standing if a["id"] < action_id]
    bought = {a["company"] for a in before if a["type"] == "buy_company" and a.get("entity_type") == "corporation"}
    closed = {private for private, corp in CLOSES_ON_FIRST_TRAIN.get(export["title"], {}).items()
              if any(a["type"] == "buy_train" and a["entity"] == corp for a in before)}
    return set(lay_rules(export["title"]).blocks) - bought - closed


def _cashless(request: dict) -> dict:
    return dict(request, company={k: v for k, v in request["company"].items() if k != "cash"})


@pytest.mark.parametrize("game", GAMES)
def test_legal_lays_are_the_engines_at_every_lay(game):
    export = _export(game)
    differ = []
    moments = 0
    for row in _rows(game):
        if row["kind"] != "lay_tile":
            continue
        moments += 1
        mine = {(x["hex"], x["tile"], x["rotation"])
                for x in legal_lays(_cashless(row["request"]), player_privates(export, row["action_id"]))}
        theirs = {(x["hex"], x["tile"], x["rotation"]) for x in row["engine_legal"]}
        played = row["played"]
        assert (played["hex"], played["tile"], played["rotation"]) in theirs
        if mine != theirs:
            differ.append(f"action {row['action_id']} {row['company']}: extra {sorted(mine - theirs)} "
                          f"missing {sorted(theirs - mine)}")
    assert moments
    assert not differ, "\n".join(differ)


@pytest.mark.parametrize("game", GAMES)
def test_legal_tokens_are_the_engines_at_every_token(game):
    differ = []
    for row in _rows(game):
        if row["kind"] != "place_token":
            continue
        mine = {(x["hex"], x["city"]) for x in legal_tokens(_cashless(row["request"]))}
        theirs = {(x["hex"], x["city"]) for x in row["engine_legal"]}
        assert (row["played"]["hex"], row["played"]["city"]) in mine
        if mine != theirs:
            differ.append(f"action {row['action_id']} {row['company']}: extra {sorted(mine - theirs)} "
                          f"missing {sorted(theirs - mine)}")
    assert not differ, "\n".join(differ)


@pytest.mark.slow
def test_the_played_lay_is_legal_within_the_companys_cash():
    for game in GAMES:
        export = _export(game)
        for row in _rows(game):
            if row["kind"] == "lay_tile":
                mine = {(x["hex"], x["tile"], x["rotation"])
                        for x in legal_lays(row["request"], player_privates(export, row["action_id"]))}
                played = row["played"]
                assert (played["hex"], played["tile"], played["rotation"]) in mine, (game, row["action_id"])


# ---- the rules one by one, on 1889's map -----------------------------------------------------------------

IR_HOME = {"hex": "E2", "city": 0, "company": "IR"}
KO_HOME = {"hex": "K4", "city": 0, "company": "KO"}


def _request(tiles=(), tokens=(IR_HOME,), phase="2", company="IR", cash=None, privates=(), trains=()):
    spec = {"id": company, "privates": list(privates), "trains": [{"name": t} for t in trains]}
    if cash is not None:
        spec["cash"] = cash
    return {"board": {"title": "1889", "phase": phase, "tiles": list(tiles), "tokens": list(tokens)},
            "company": spec}


def _lays(*args, player_privates=None, **kwargs) -> set[tuple]:
    return {(x["hex"], x["tile"], x["rotation"]) for x in legal_lays(_request(*args, **kwargs), player_privates)}


def test_a_phase_allows_its_colours_only():
    # phase 2: yellow on IR's white home city, every rotation whose exits lead on
    assert _lays() == {("E2", "5", 0), ("E2", "5", 4), ("E2", "5", 5), ("E2", "6", 4), ("E2", "6", 5),
                       ("E2", "57", 1), ("E2", "57", 4)}
    # phase 3: green on the yellow tile, yellow still on the white city next to it
    laid = [{"hex": "E2", "tile": "5", "rotation": 4}]
    lays = _lays(laid, phase="3")
    assert {t for h, t, _ in lays if h == "E2"} == {"12", "15", "205"}
    assert {t for h, t, _ in lays if h == "F3"} == {"5", "6", "57"}
    # phase 2: no green
    assert not {t for h, t, _ in _lays(laid) if h == "E2"}


def test_an_upgrade_keeps_every_old_path():
    laid = [{"hex": "E2", "tile": "5", "rotation": 4}]
    old = shape(parse_tile("city=revenue:20;path=a:0,b:_0;path=a:1,b:_0"), 4)
    for hex_name, tile, rotation in _lays(laid, phase="3"):
        if hex_name == "E2":
            code = {"12": "city=revenue:30;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0",
                    "15": "city=revenue:30,slots:2;path=a:0,b:_0;path=a:1,b:_0;path=a:2,b:_0;path=a:3,b:_0",
                    "205": "city=revenue:30;path=a:0,b:_0;path=a:1,b:_0;path=a:3,b:_0"}[tile]
            assert paths_kept(old, shape(parse_tile(code), rotation))
    # tile 12 at rotation 4 keeps exits 4 and 5; at rotation 5 it would drop exit 4
    assert ("E2", "12", 4) in _lays(laid, phase="3")
    assert ("E2", "12", 5) not in _lays(laid, phase="3")


def test_a_label_takes_tiles_of_its_label():
    # K4 (label T): its green upgrade is 440 (T) alone; K4 is blocked while a player owns the TR private
    lays = _lays(tokens=[KO_HOME], phase="3", company="KO", player_privates=())
    assert {t for h, t, _ in lays if h == "K4"} == {"440"}
    assert not {h for h, _, _ in _lays(tokens=[KO_HOME], phase="3", company="KO", player_privates={"TR"})
                if h == "K4"}
    # the company owning the private lays there (by default every other open private blocks)
    assert {t for h, t, _ in _lays(tokens=[KO_HOME], phase="3", company="KO", privates=["TR"]) if h == "K4"} \
        == {"440"}


def test_a_lay_needs_an_exit_the_company_reaches():
    lays = _lays(tokens=[KO_HOME], company="KO", privates=["TR"])
    assert {h for h, _, _ in lays} == {"J3", "J5", "K6"}     # K4's three neighbours with track towards them
    # K6 (K4's edge 0): each rotation has an exit on K6's side towards K4 (edge 3)
    assert {r for h, t, r in lays if h == "K6" and t == "9"} == {0, 3}


def test_a_tile_with_no_copy_left_is_not_laid():
    both = [{"hex": "F3", "tile": "57", "rotation": 2}, {"hex": "G4", "tile": "57", "rotation": 0}]
    assert "57" in {t for _, t, _ in _lays()}
    assert "57" not in {t for _, t, _ in _lays(both)}          # 1889 has two 57s


def test_terrain_costs_and_the_companys_cash():
    lays = legal_lays(_request(tokens=[KO_HOME], company="KO", privates=["TR"]))
    assert {x["cost"] for x in lays if x["hex"] == "K6"} == {80}     # river
    assert {x["cost"] for x in lays if x["hex"] != "K6"} == {0}
    poor = legal_lays(_request(tokens=[KO_HOME], company="KO", privates=["TR"], cash=79))
    assert {x["hex"] for x in poor} == {"J3", "J5"}


def test_the_mountain_private_waives_mountain_but_not_mountain_and_river():
    from revenue.moves.lays import upgrade_cost

    rules = lay_rules("1889")
    mountain = parse_tile("upgrade=cost:80,terrain:mountain")
    both = parse_tile("upgrade=cost:80,terrain:water|mountain")
    assert upgrade_cost(mountain, rules, {"SMR"}) == 0
    assert upgrade_cost(mountain, rules, set()) == 80
    assert upgrade_cost(both, rules, {"SMR"}) == 80


def test_an_upgrade_must_use_new_track_or_change_a_city():
    # a straight (9) upgraded to a green tile keeping it: legal only where a new branch is reached
    export = _export("1889_962")
    row = next(r for r in _rows("1889_962") if r["action_id"] == 242)
    mine = {(x["hex"], x["tile"], x["rotation"])
            for x in legal_lays(_cashless(row["request"]), player_privates(export, 242))}
    refused = {(x["hex"], x["tile"], x["rotation"]) for x in row["engine_refused"]}
    assert refused and not mine & refused


def test_tokens_need_a_reached_free_city_and_respect_home_reservations():
    track = [{"hex": "E2", "tile": "57", "rotation": 2}, {"hex": "F3", "tile": "5", "rotation": 1}]
    assert legal_tokens(_request(track, cash=100)) == [{"hex": "F3", "city": 0, "cost": 40}]
    assert legal_tokens(_request(track, cash=39)) == []
    taken = [IR_HOME, {"hex": "F3", "city": 0, "company": "TR"}]
    assert legal_tokens(_request(track, tokens=taken)) == []
    # K8 is the AR's home: reserved until the AR's token is there
    to_k8 = [{"hex": "K6", "tile": "9", "rotation": 0}, {"hex": "K8", "tile": "6", "rotation": 1}]
    reach = legal_lays(_request(to_k8[:1], tokens=[KO_HOME], company="KO", privates=["TR"]))
    assert {"hex": "K8", "tile": "6", "rotation": 1, "cost": 0} in reach
    assert legal_tokens(_request(to_k8, tokens=[KO_HOME], company="KO")) == []


# ---- valuation ---------------------------------------------------------------------------------------------

def _late_lay(game: str) -> dict:
    return [r for r in _rows(game) if r["kind"] == "lay_tile" and r["request"]["company"]["trains"]][-1]


def test_each_valued_lay_is_the_solve_of_the_board_it_makes():
    row = _late_lay("1889_962")
    request = row["request"]
    valued = value_lays(request)
    assert valued["complete"] and valued["valued"] == valued["legal"] == len(valued["moves"]) > 0
    base = revenue.solve(request)["revenue"]
    assert valued["base_revenue"] == base
    from revenue.board_request import build_board

    board = build_board(request["board"])
    for move in valued["moves"]:
        solved = revenue.solve(with_lay(request, board, move))
        assert move["revenue_after"] == solved["revenue"] and move["optimal"] == solved["optimal"]
        assert move["gain"] == move["revenue_after"] - base
    ranks = [(-m["revenue_after"], m["cost"]) for m in valued["moves"]]
    assert ranks == sorted(ranks)
    assert len(value_lays(request, top=3)["moves"]) == min(3, valued["legal"])


def test_each_valued_token_is_the_solve_of_the_board_it_makes():
    row = next(r for r in _rows("1889_962") if r["kind"] == "place_token" and r["request"]["company"]["trains"])
    request = row["request"]
    valued = value_tokens(request)
    assert valued["complete"] and valued["moves"]
    for move in valued["moves"]:
        solved = revenue.solve(with_token(request, row["company"], move))
        assert move["revenue_after"] == solved["revenue"]


def test_valuing_stops_at_the_deadline_with_what_it_has():
    request = _late_lay("1889_314")["request"]
    valued = value_lays(request, deadline_ms=0.001)
    assert valued["valued"] < valued["legal"] and not valued["complete"]


def test_valuing_stops_once_cancelled():
    import threading

    request = _late_lay("1889_314")["request"]
    cancel = threading.Event()
    cancel.set()
    valued = value_lays(request, cancel=cancel)
    assert valued["valued"] == 0 < valued["legal"] and not valued["complete"]
    assert value_tokens(request, cancel=cancel)["valued"] == 0


# ---- 18Rhl: no engine lay lists, so the lays seen in a real game ------------------------------------------

def test_18rhl_lays_seen_between_turns_are_legal():
    """Between two run_routes of 18Rhl game 96576, where the board changed by one tile and the second company
    had a token before, that tile is a legal lay of the second company (the privates' lays aside: none there)."""
    rows = [json.loads(line) for line in (EXPORTS.parent / "18rhl_96576.jsonl").read_text().splitlines()]
    checked = 0
    for prev, cur in zip(rows, rows[1:]):
        before, after = prev["request"]["board"], cur["request"]["board"]
        old = {t["hex"]: (t["tile"], t["rotation"]) for t in before["tiles"]}
        changed = [(t["hex"], t["tile"], t["rotation"]) for t in after["tiles"]
                   if old.get(t["hex"]) != (t["tile"], t["rotation"])]
        company = cur["request"]["company"]
        if len(changed) != 1 or not any(t["company"] == company["id"] for t in before["tokens"]):
            continue
        request = {"board": before, "company": {"id": company["id"], "trains": company["trains"]}}
        assert changed[0] in {(x["hex"], x["tile"], x["rotation"]) for x in legal_lays(request, ())}, cur["action_id"]
        checked += 1
    assert checked > 50


def test_a_lay_on_a_multi_city_hex_keeps_each_token_in_its_city():
    from revenue.board_request import build_board

    rebuilt = 0
    for row in _rows("1830_29133"):
        if row["kind"] != "lay_tile":
            continue
        request = row["request"]
        board = build_board(request["board"])
        for lay in legal_lays(request):
            if len(board.hexes[lay["hex"]].tile.cities) > 1:
                changed = build_board(with_lay(request, board, lay)["board"])
                assert sum(map(len, changed.tokens.values())) == len(request["board"]["tokens"])
                rebuilt += 1
    assert rebuilt


def test_18rhl_tokens_cost_their_price_and_run_out():
    """18Rhl's token prices (RhE: 0, 60, 80, 100): on 18Rhl game 96576's last board RhE has all four of its
    tokens out and may place none; one taken back, its fourth costs 100."""
    rows = [json.loads(line) for line in (EXPORTS.parent / "18rhl_96576.jsonl").read_text().splitlines()]
    request = rows[-1]["request"]
    assert request["company"]["id"] == "RhE"
    assert sum(t["company"] == "RhE" for t in request["board"]["tokens"]) == 4 and legal_tokens(request) == []
    board = dict(request["board"], tokens=[t for t in request["board"]["tokens"]
                                           if (t["hex"], t["company"]) != ("E6", "RhE")])
    fewer = legal_tokens({**request, "board": board})
    assert fewer and {t["cost"] for t in fewer} == {100}
    poor = {**request, "board": board, "company": dict(request["company"], cash=99)}
    assert legal_tokens(poor) == []
