"""Fuzz: the real exports of tests/data/games/exports/ with fields of their actions (and of the export)
mutated, as a broken or hostile export would have them: wrong types, missing fields, out-of-range numbers,
huge lists, unknown ids. Every outcome is a normal replay or an InputError naming where, never another exception."""
from __future__ import annotations

import copy
import functools
import json
import pathlib
import random

import pytest

from revenue.errors import InputError
from revenue.game import replay, standing_actions, turns
from revenue.game.analysis import played_run, replay_game, suggest

EXPORTS = pathlib.Path(__file__).parent / "data" / "games" / "exports"
N_CASES = 400
N_SOLVED = 12                 # of them, replayed with every turn solved, and suggested
FIELDS = ["hex", "tile", "rotation", "city", "train", "exchange", "variant", "price", "share_price", "entity",
          "entity_type", "shares", "percent", "company", "corporation", "kind", "routes", "auto_actions",
          "action_id", "id", "type"]
ROUTE_FIELDS = ["train", "connections", "hexes", "nodes", "revenue", "halts"]
EXPORT_FIELDS = ["title", "settings", "players", "actions", "id", "status"]


@functools.lru_cache(maxsize=None)
def _export(name: str, cut: int) -> dict:
    export = json.loads((EXPORTS / f"{name}.json").read_text())
    export["actions"] = export["actions"][:cut]
    export["status"] = "active"
    return export


# each game up to a few of its operating rounds, so that every case replays in milliseconds
BASES = [("1830_29133", 200), ("1889_314", 160), ("1889_962", 160), ("1860_19354", 220)]


def _value(rng: random.Random):
    """A wrong, odd or out-of-range value."""
    return rng.choice([
        lambda: rng.randint(-2**31, 2**31 - 1), lambda: rng.randint(-3, 12), lambda: 2**40, lambda: -1,
        lambda: 1.5, lambda: "", lambda: rng.random() < 0.5, lambda: None, lambda: [], lambda: {},
        lambda: [rng.choice(["A1", 3, None])], lambda: {"x": 1},
        lambda: rng.choice(["ZZ", "Z99", "99-0", "57-9", "57-0-7", "7-0", "2-99", "9-0", "PRR", "B&O", "CA",
                            "PRR_9", "xx_1", "payout", "half", "OR", "-", "--", "1-1-1-1", "é\x00"]),
    ])()


def _mutate(export: dict, rng: random.Random) -> dict:
    out = copy.deepcopy(export)
    actions = out["actions"]
    for _ in range(rng.randint(1, 2)):
        if rng.random() < 0.1:
            key = rng.choice(EXPORT_FIELDS)
            if rng.random() < 0.3:
                out.pop(key, None)
            elif key == "players" and out.get("players") and rng.random() < 0.5:
                out["players"][rng.randrange(len(out["players"]))] = _value(rng)
            else:
                out[key] = _value(rng)
            continue
        action = rng.choice(actions) if isinstance(actions, list) and actions else None
        if not isinstance(action, dict):
            continue
        target = action
        routes, autos = action.get("routes"), action.get("auto_actions")
        if isinstance(routes, list) and routes and rng.random() < 0.5:
            target = rng.choice(routes)
            keys = ROUTE_FIELDS
        elif isinstance(autos, list) and autos and rng.random() < 0.3:
            target = rng.choice(autos)
            keys = FIELDS
        else:
            keys = list(action) + FIELDS
        if not isinstance(target, dict):
            continue
        key = rng.choice(keys)
        value = target.get(key)
        roll = rng.random()
        if roll < 0.2:
            target.pop(key, None)
        elif roll < 0.4 and isinstance(value, list) and value:
            value[rng.randrange(len(value))] = _value(rng)
        elif roll < 0.45 and isinstance(value, list) and value:
            target[key] = value * (rng.randint(300, 3000) // len(value) + 1)     # huge
        elif roll < 0.5 and isinstance(value, int) and not isinstance(value, bool):
            target[key] = value + rng.choice([-1000, -7, -1, 1, 6, 99, 2**31])
        else:
            target[key] = _value(rng)
    return out


def _outcome(export: dict, solve: bool) -> str:
    try:
        if solve:
            for _ in replay_game(export, deadline_ms=2000):
                pass
            suggest(export, deadline_ms=2000)
        else:
            replay(export)
            for turn in turns(export):
                played_run(turn.request, turn.run_routes)
    except InputError as exc:
        assert exc.field, exc
        return "InputError"
    return "ok"


def test_mutated_exports_replay_or_are_refused_by_name():
    rng = random.Random(1836)
    tally = {"ok": 0, "InputError": 0}
    for n in range(N_CASES):
        name, cut = BASES[n % len(BASES)]
        mutant = _mutate(_export(name, cut), rng)
        try:
            tally[_outcome(mutant, solve=n < N_SOLVED)] += 1
        except Exception as exc:      # noqa: BLE001 - the point: name the case that raised something else
            pytest.fail(f"case {n} ({name}): {type(exc).__name__}: {exc}")
    # Both outcomes occur: the mutations reach the checks and the replay alike.
    assert tally["ok"] > N_CASES // 10 and tally["InputError"] > N_CASES // 10, tally


def test_a_malformed_action_is_named_with_its_field():
    export = copy.deepcopy(_export("1830_29133", 200))
    index = next(i for i, a in standing_actions(export["actions"]) if a.get("type") == "lay_tile")
    export["actions"][index]["hex"] = ["F9"]
    with pytest.raises(InputError, match=rf"^actions\[{index}\]: id \d+, type lay_tile: hex \['F9'\] is not a "
                                         r"string"):
        replay(export)


def test_a_huge_route_is_refused_before_it_is_read():
    export = copy.deepcopy(_export("1830_29133", 200))
    index, action = next((i, a) for i, a in standing_actions(export["actions"]) if a.get("type") == "run_routes")
    route = action["routes"][0]
    route["connections"] = route["connections"] * 2000         # (read recursively, a link at a time)
    with pytest.raises(InputError, match=rf"^actions\[{index}\]: .*routes\[0\]: connections: \d+ entries; "
                                         r"a route has at most 200"):
        list(replay_game(export, deadline_ms=2000))
