"""Real games replayed (revenue.game): the standing actions after undo and redo, and the state of play at
every operating turn of four 18xx.games exports (tests/data/games/exports/: 1830 game 29133, 1889 games 314
and 962, 1860 game 19354), each equal to the 18xx.games engine's own board at that turn (`<game>.turns.jsonl`:
tiles, rotations, tokens, phase, the company's trains with 1860's leased ones, its privates, options and
1860's southern_formed and nationalization), and just before each company's first tile lay of a turn and
each of its tokens (`<game>.lays.jsonl`, cash aside). The run the player made evaluates on the rebuilt
request to the engine's revenue, and the optimizer proves a revenue at least as high as that run and as the
engine's auto-router."""
from __future__ import annotations

import copy
import json
import pathlib
import time

import pytest

from revenue.errors import InputError
from revenue.evaluation import evaluate
from revenue.game import ReplayError, replay, standing_actions, steps, turns
from revenue.game.analysis import suggest
from revenue.game.actions import standing_indexes
from revenue.optimizer import solve
from revenue.titles import get_title

EXPORTS = pathlib.Path(__file__).parent / "data" / "games" / "exports"
GAMES = ("1830_29133", "1889_314", "1889_962", "1860_19354")


def _export(game: str) -> dict:
    return json.loads((EXPORTS / f"{game}.json").read_text())


def _engine_states(game: str, kind: str) -> list[dict]:
    return [json.loads(line) for line in (EXPORTS / f"{game}.{kind}.jsonl").read_text().splitlines() if line]


EXPORT = {game: _export(game) for game in GAMES}
ENGINE = {game: _engine_states(game, "turns") for game in GAMES}
LAYS = {game: _engine_states(game, "lays") for game in GAMES}
TURNS = {game: list(turns(copy.deepcopy(EXPORT[game]))) for game in GAMES}
CASES = [(game, i) for game in GAMES for i in range(len(ENGINE[game]))]


def _case_id(case) -> str:
    game, i = case
    return f"{game}-{ENGINE[game][i]['action_id']}"


def _comparable(request: dict) -> dict:
    """A request with its lists sorted and the train ids left out (the engine's turns give names only)."""
    board, company = request["board"], request["company"]
    return {"title": board["title"], "phase": board["phase"], "options": board.get("options") or {},
            "tiles": sorted((t["hex"], t["tile"], t["rotation"]) for t in board["tiles"]),
            "tokens": sorted((t["hex"], t["city"], t["company"]) for t in board["tokens"]),
            "company": company["id"],
            "trains": sorted((t["name"], bool(t.get("leased"))) for t in company["trains"]),
            "privates": sorted(company.get("privates") or ())}


# ---- which actions stand ---------------------------------------------------------------------------------

def _ids(actions: list[dict]) -> list[int]:
    return [actions[i]["id"] for i in standing_indexes(actions)]


def _log(*kinds) -> list[dict]:
    """Actions numbered from 1: a kind, or (kind, fields)."""
    out = []
    for n, kind in enumerate(kinds, 1):
        kind, fields = kind if isinstance(kind, tuple) else (kind, {})
        out.append({"id": n, "type": kind, **fields})
    return out


def test_undo_takes_back_the_last_action_that_is_not_a_message():
    assert _ids(_log("pass", "bid", "message", "undo")) == [1, 3]
    assert _ids(_log("pass", "bid", "undo", "undo")) == []
    assert _ids(_log("pass", "bid", "undo", "lay_tile")) == [1, 4]


def test_undo_to_an_action_takes_back_all_after_it():
    assert _ids(_log("pass", "bid", "bid", "message", ("undo", {"action_id": 1}))) == [1, 4]
    assert _ids(_log("pass", "bid", "bid", ("undo", {"action_id": 0}))) == []


def test_redo_puts_back_the_last_undone_set():
    assert _ids(_log("pass", "bid", "bid", ("undo", {"action_id": 1}), "redo")) == [1, 2, 3]
    assert _ids(_log("pass", "bid", "undo", "undo", "redo")) == [1]
    assert _ids(_log("pass", "bid", "undo", "undo", "redo", "redo")) == [1, 2]
    assert _ids(_log("pass", "bid", "undo", "message", "redo")) == [1, 2, 4]


def test_an_action_empties_the_redo_stack():
    with pytest.raises(ReplayError, match=r"actions\[4\]: id 5, type redo: nothing to redo"):
        standing_indexes(_log("pass", "bid", "undo", "lay_tile", "redo"))


def test_messages_always_stand():
    assert _ids(_log("message", ("undo", {"action_id": 0}), "message", "pass", "undo")) == [1, 3]


@pytest.mark.parametrize("game", GAMES)
def test_standing_actions_are_the_ones_the_export_does_not_skip(game):
    """The exports mark taken-back actions `skip`: exactly those the rule takes back."""
    actions = EXPORT[game]["actions"]
    standing = {i for i, _ in standing_actions(actions)}
    for i, action in enumerate(actions):
        if action["type"] not in ("undo", "redo"):
            assert (i in standing) != bool(action.get("skip")), action


# ---- the state of play at every operating turn --------------------------------------------------------------

@pytest.mark.parametrize("game", GAMES)
def test_every_run_of_the_game_is_a_turn(game):
    assert [t.action_id for t in TURNS[game]] == [e["action_id"] for e in ENGINE[game]]
    assert [t.company for t in TURNS[game]] == [e["company"] for e in ENGINE[game]]


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_rebuilt_request_is_the_engines(case):
    game, i = case
    assert _comparable(TURNS[game][i].request) == _comparable(ENGINE[game][i]["request"])


@pytest.mark.parametrize("game", GAMES)
def test_the_state_before_each_lay_and_token_is_the_engines(game):
    """Mid-turn states: before a company's first lay of its turn and before each of its tokens (1830's ERIE
    has its home token in Buffalo's first city until it lays its tile there and chooses its city), with the
    company's cash (1889_314's runs, stored by their hexes, are paid by the revenue they store)."""
    engine = {e["action_id"]: e for e in LAYS[game]}
    seen = 0
    for _, action, state in steps(EXPORT[game]):
        if action["id"] in engine:
            wanted = engine[action["id"]]
            assert _comparable(state.request(wanted["company"])) == _comparable(wanted["request"]), action["id"]
            assert state.cash(wanted["company"]) == wanted["request"]["company"]["cash"], action["id"]
            seen += 1
    assert seen == len(engine)


def test_1860s_train_step_is_skipped_when_the_cash_buys_no_train():
    """After each dividend and each train bought in the 1860 game, the company's train step went on (the
    player bought or passed) exactly where may_buy_train says so: a depot train it can pay for, or another
    company's train that is not that company's last (25 of 82 steps skipped, most with cash too low)."""
    seen, skipped, pending = 0, 0, None
    for _, action, state in steps(EXPORT["1860_19354"]):
        kind = action["type"]
        if kind == "message":
            continue
        if pending is not None:
            offered = action.get("entity") == pending and kind in ("buy_train", "pass")
            assert state.may_buy_train(pending) == offered, action["id"]
            seen, skipped = seen + 1, skipped + (not offered)
        pending = action["entity"] if kind in ("dividend", "buy_train") else None
    assert (seen, skipped) == (82, 25)


def test_cash_is_followed_where_the_capitalization_is_known():
    """18Rhl and Steam Over Holland: no model of their cash, None rather than a guess; a run that cannot be
    priced leaves its company's cash unknown."""
    from revenue.game.state import GameState
    assert GameState({"title": "18Rhl", "id": 1, "players": [], "actions": []}).cash("RhE") is None
    state = GameState(EXPORT["1830_29133"])
    state.treasury.add("PRR", 100)
    state.treasury.add("PRR", lambda: None)
    assert state.cash("PRR") is None and state.cash("B&O") == 0


@pytest.mark.parametrize("game", GAMES)
def test_a_turn_carries_its_round_run_and_dividend(game):
    for turn in TURNS[game]:
        assert turn.round.startswith("OR ")
        assert turn.run_routes["type"] == "run_routes" and turn.run_routes["id"] == turn.action_id
        assert turn.request["company"]["id"] == turn.company
        assert all(t["id"] for t in turn.request["company"]["trains"])
        assert turn.dividend in ("payout", "withhold", None)


def test_rounds_follow_the_game():
    rounds = {t.action_id: t.round for t in TURNS["1830_29133"]}
    # OR 1.1: the companies buy their first trains; OR 2.1 is the first that runs (phase 2: one OR a set)
    assert rounds[96] == rounds[110] == "OR 2.1" and rounds[115] == "OR 2.2" and rounds[207] == "OR 3.1"
    dividends = {t.action_id: t.dividend for t in TURNS["1860_19354"]}
    assert dividends[69] == "payout" and dividends[173] == "withhold"
    assert dividends[400] is None        # an insolvent company withholds without a dividend action
    assert dividends[480] is None        # nationalization: payouts are forced


def test_whole_game_rebuilds_in_milliseconds():
    """The replay is linear: a whole game (every request included) in well under 50 ms."""
    for game in GAMES:
        export = EXPORT[game]
        best = min(_timed(lambda: list(turns(export))) for _ in range(3))
        assert best < 0.05, (game, best)


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def test_the_end_of_the_game():
    state = replay(EXPORT["1889_962"])
    assert state.phase.name == "5" and state.round_name.startswith(("OR", "SR"))
    state = replay(EXPORT["1830_29133"])
    assert state.ended == "the bankruptcy of NYNH"


# ---- refusals ------------------------------------------------------------------------------------------------

def _with_action(game: str, after_id: int, action: dict) -> dict:
    """The game with `action` inserted after the action `after_id` (every later action renumbered)."""
    export = copy.deepcopy(EXPORT[game])
    actions = export["actions"]
    at = next(i for i, a in enumerate(actions) if a["id"] == after_id) + 1
    actions.insert(at, {"id": after_id + 1, **action})
    for a in actions[at + 1:]:
        a["id"] += 1
    return export


@pytest.mark.parametrize("action, why", [
    ({"type": "lay_tile", "entity": "PRR", "entity_type": "corporation", "hex": "H16", "tile": "99-0",
      "rotation": 0}, "tile '99-0' is no copy of a tile of the title's manifest"),
    ({"type": "lay_tile", "entity": "PRR", "entity_type": "corporation", "hex": "H10", "tile": "57-1",
      "rotation": 0}, "tile 57-1 already lies on H16"),
    ({"type": "place_token", "entity": "PRR", "entity_type": "corporation", "city": "I15-0-0", "slot": 0},
     "I15 city 0 has no free slot"),
    ({"type": "place_token", "entity": "PRR", "entity_type": "corporation", "city": "57-1-0", "slot": 0},
     "PRR already has a token in H16 city 0"),
    ({"type": "place_token", "entity": "PRR", "entity_type": "corporation", "city": "57-3-0", "slot": 0},
     "no tile 57-3 lies on the board"),
    ({"type": "buy_train", "entity": "PRR", "entity_type": "corporation", "train": "Z-0", "price": 1},
     "train Z-0 is of no type of the title"),
    ({"type": "assign", "entity": "PRR", "entity_type": "corporation", "target": "H16"},
     "the replay does not know this action type"),
])
def test_an_action_the_replay_cannot_rebuild_is_refused_by_name(action, why):
    export = _with_action("1830_29133", 102, action)    # after PRR's token in H16, before its first run
    index = next(i for i, a in enumerate(export["actions"]) if a["id"] == 103)
    with pytest.raises(ReplayError) as caught:
        list(turns(export))
    assert str(caught.value) == f"actions[{index}]: id 103, type {action['type']}: {why}"


def test_a_rusted_train_cannot_be_bought():
    # 1889 game 962: the first 4-train (action 232) rusts the 2-trains
    export = _with_action("1889_962", 300, {"type": "buy_train", "entity": "UR", "entity_type": "corporation",
                                            "train": "2-0", "price": 80})
    with pytest.raises(ReplayError, match=r"id 301, type buy_train: train 2-0 has rusted or left the game"):
        list(turns(export))


def test_an_unknown_title_or_optional_rule_is_refused():
    with pytest.raises(InputError, match="title: no replay for the title '1817'"):
        list(turns({"title": "1817", "actions": []}))
    with pytest.raises(InputError, match="title: the export names no title"):
        list(turns({"actions": []}))
    export = {**EXPORT["1830_29133"], "settings": {"optional_rules": ["a_new_rule"]}}
    with pytest.raises(InputError, match=r"settings.optional_rules\[0\]: 'a_new_rule'"):
        list(turns(export))


@pytest.mark.parametrize("seating", ["hotseat", "2020"])
def test_hotseat_games_and_the_exports_of_2020_replay_alike(seating):
    """A hotseat game names its players by name alone ({name}), an export of 2020 by a bare name, its
    privates by their full names, and buys one share with buy_share {share}: game 962 written so replays
    to the same turns."""
    export = copy.deepcopy(EXPORT["1889_962"])
    names = {p["id"]: p["name"] for p in export["players"]}
    private_names = {c["id"]: c["name"] for c in get_title("1889").data({}).companies}
    export["players"] = [{"name": p["name"]} if seating == "hotseat" else p["name"] for p in export["players"]]
    for action in export["actions"]:
        if action.get("entity") in names:
            action["entity"] = names[action["entity"]]
        if seating == "2020":
            for field in ("company", "entity"):
                if action.get(field) in private_names:
                    action[field] = private_names[action[field]]
            if action["type"] == "buy_shares" and len(action["shares"]) == 1:
                action.update(type="buy_share", share=action.pop("shares")[0])
    assert any(a["type"] == "buy_share" for a in export["actions"]) == (seating == "2020")
    assert [(t.action_id, t.company, t.request) for t in turns(export)] == \
        [(t.action_id, t.company, t.request) for t in TURNS["1889_962"]]


# ---- the runs on the rebuilt requests -------------------------------------------------------------------------

@pytest.mark.parametrize("case", [c for c in CASES if ENGINE[c[0]][c[1]]["engine_revenue"] is not None],
                         ids=_case_id)
def test_the_stored_run_evaluates_to_the_engines_revenue(case):
    game, i = case
    turn = TURNS[game][i]
    result = evaluate({**turn.request, "run_routes": turn.run_routes})
    assert result["legal"], result
    assert result["revenue"] == ENGINE[game][i]["engine_revenue"]


@pytest.mark.parametrize("game", GAMES)
def test_the_optimum_is_proved_and_beats_the_run_and_the_auto_router(game):
    for turn, engine in zip(TURNS[game], ENGINE[game]):
        result = solve(turn.request)
        assert result["optimal"], engine["action_id"]
        assert result["revenue"] >= (engine["engine_revenue"] or 0), engine["action_id"]
        assert result["revenue"] >= (engine["auto_router_revenue"] or 0), engine["action_id"]


# ---- titles without a sample game: 18Rhl and Steam Over Holland, on made-up logs -------------------------------
# (what these check is this project's reading of the rules, rules/18rhl.md and rules/steam_over_holland.md)

def _made_up(title: str, game_id, *steps) -> dict:
    """An export of `steps`: (entity, type, fields); a player is an int."""
    actions = []
    for n, (entity, kind, fields) in enumerate(steps, 1):
        entity_type = "player" if isinstance(entity, int) else fields.pop("entity_type", "corporation")
        actions.append({"id": n, "type": kind, "entity": entity, "entity_type": entity_type, **fields})
    return {"id": game_id, "title": title, "players": [{"id": 1}, {"id": 2}, {"id": 3}],
            "settings": {"optional_rules": []}, "actions": actions}


def test_18rhl_home_tokens_and_the_seeded_mine_and_mill():
    export = _made_up(
        "18Rhl", 96576,
        (1, "par", {"corporation": "RhE", "share_price": "80,1,2"}),
        (2, "par", {"corporation": "CME", "share_price": "75,2,2"}),
        (3, "pass", {}),
        # RhE first operates: its home token in Koeln's city 0, moved with the green tile it lays there
        ("RhE", "lay_tile", {"hex": "I10", "tile": "X923-0", "rotation": 0}),
        ("RhE", "buy_train", {"train": "2-0", "price": 100, "variant": "2"}),
        ("RhE", "pass", {}),
        # CME's home on a green Koeln: the right bank's city 1
        ("CME", "lay_tile", {"hex": "J9", "tile": "8-0", "rotation": 3}),
        ("CME", "buy_train", {"train": "2-1", "price": 100, "variant": "2"}),
        ("RhE", "run_routes", {"routes": []}),
        (1, "bankrupt", {}),
        ("CME", "run_routes", {"routes": []}))
    first, second = turns(export)
    board = first.request["board"]
    assert board["options"] == {"coal": "J3", "steel": "D13"} and board["phase"] == "2"
    assert sorted((t["hex"], t["city"], t["company"]) for t in board["tokens"]) == [("I10", 0, "RhE"),
                                                                                       ("I10", 1, "CME")]
    assert first.round == "OR 1.2" and first.request["company"]["trains"] == [{"name": "2", "id": "2-0"}]
    assert second.company == "CME"          # a bankruptcy leaves 18Rhl's corporations running


def test_steam_over_holland_privates_close_with_the_first_5_train():
    buy = [("NCS", "buy_train", {"train": f"{n}-0", "price": 100 * (n - 1), "variant": str(n)}) for n in (3, 4)]
    export = _made_up(
        "Steam Over Holland", 1,
        (1, "par", {"corporation": "NCS", "share_price": "70,0,3"}),
        (2, "par", {"corporation": "HYSM", "share_price": "70,0,3"}),
        ("NCS", "lay_tile", {"hex": "G8", "tile": "8-0", "rotation": 3}),
        ("NCS", "buy_train", {"train": "2-0", "price": 100, "variant": "2"}),
        ("NCS", "buy_company", {"company": "VES", "price": 75}),
        ("HYSM", "pass", {}),
        ("NCS", "run_routes", {"routes": []}),
        *buy,
        ("NCS", "buy_train", {"train": "5-0", "price": 400, "variant": "5"}),
        ("NCS", "run_routes", {"routes": []}))
    first, second = turns(export)
    tokens = sorted((t["hex"], t["city"], t["company"]) for t in first.request["board"]["tokens"])
    assert tokens == [("F9", 1, "HYSM"), ("H9", 0, "NCS")]
    assert first.request["company"]["privates"] == ["VES"] and first.request["board"]["phase"] == "2"
    assert second.request["board"]["phase"] == "5"
    assert second.request["company"]["privates"] == []                  # closed by the 5-train
    assert [t["name"] for t in second.request["company"]["trains"]] == ["4", "5"]   # 2 and 3 rusted


def test_1860_a_company_at_the_0_cell_goes_bankrupt_and_floats_again():
    """IOW, parred at 54, runs nothing for 6 turns: each moves its price left (two cells of 1860's one-row
    market), the last to 0, where
    it goes bankrupt (rules/1860.md: its tokens flipped, blocking nothing): it leaves the order, its shares
    go back, and it keeps its token and cash. Parred again at 40 and floated, it is capitalized anew and its
    token turns back."""
    def sets(n):
        for _ in range(n):
            yield from ((1, "pass", {}), (2, "pass", {}), (3, "pass", {}), ("IOW", "pass", {}))
    export = _made_up(
        "1860", 1,
        (1, "par", {"corporation": "IOW", "share_price": "54,0,12"}),
        *[(p, "buy_shares", {"shares": [f"IOW_{p}"]}) for p in (1, 2, 3)],
        ("IOW", "pass", {}),                                      # (no home track on I3)
        ("IOW", "pass", {}),
        *sets(5),
        (1, "pass", {}),
        (2, "par", {"corporation": "IOW", "share_price": "40,0,7"}),
        *[(p, "buy_shares", {"shares": [f"IOW_{n}"]}) for p, n in ((1, 1), (3, 2), (1, 3))])
    at = {}
    for index, action, state in steps(export):
        if action["type"] == "par" and action["entity"] == 2:
            at["bankrupt"] = (set(state.bankrupt), list(state.floated), state.cash("IOW"),
                              state.board_request(), state.order.market.price("IOW"))
    final = replay(export)
    bankrupt, floated, cash, board, price = at["bankrupt"]
    assert bankrupt == {"IOW"} and floated == [] and cash == 540 and price is None
    assert {"hex": "I3", "city": 0, "company": "IOW", "flipped": True} in board["tokens"]
    assert final.bankrupt == set() and final.floated == ["IOW"] and final.cash("IOW") == 540 + 400
    assert {"hex": "I3", "city": 0, "company": "IOW"} in final.board_request()["tokens"]
    assert final.order.market.price("IOW") == 40


def test_what_a_programmed_action_sets_off_is_applied():
    """A player's programmed action (18xx.games' auto pass and auto buy) changes nothing itself; the passes
    and buys it sets off come as its automatic actions: game 962 with every share bought and every pass of
    a player so set off replays to the same turns; with every pass so set off, it is suggested the same next
    move at each stock round's end (a programmed buy is no turn that makes the others pass again: game
    29133's first stock round ends on passes between NYNH's programmed buys)."""
    export = copy.deepcopy(EXPORT["1889_962"])

    def programmed(kinds):
        game = copy.deepcopy(export)
        for i, action in enumerate(game["actions"]):
            if action.get("entity_type") == "player" and action["type"] in kinds:
                game["actions"][i] = {"id": action["id"], "type": "program_share_pass", "entity": action["entity"],
                                      "entity_type": "player", "auto_actions": [action]}
        return game
    assert [(t.action_id, t.company, t.request) for t in turns(programmed(("pass", "buy_shares")))] == \
        [(t.action_id, t.company, t.request) for t in TURNS["1889_962"]]
    passes = programmed(("pass",))
    ends = [i for i, (a, b) in enumerate(zip(export["actions"], export["actions"][1:]))
            if a.get("entity_type") == "player" and b.get("entity_type") == "corporation"]
    assert len(ends) > 3

    def next_move(game, end):
        answer = suggest({**game, "status": "active", "actions": game["actions"][:end + 1]})
        return (answer.get("company"), answer.get("waiting_for"),
                [(m["hex"], m["tile"], m["rotation"]) for m in (answer.get("lays") or {}).get("moves", ())])
    for end in ends:
        assert next_move(passes, end) == next_move(export, end), end
    game = _export("1830_29133")
    at = {a["id"]: i for i, a in enumerate(game["actions"])}
    assert next_move(game, at[43])[1] == "B&O to begin its operating turn"
