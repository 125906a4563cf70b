"""revenue.bounds.size_violations: the bulk reading of a list of flat dicts (a board's tile lays and
tokens) reports exactly what the dict-by-dict reading does."""
import random

import pytest

from revenue import bounds
from revenue.bounds import MAX_NAME_CHARS, size_violations


def _value(rng: random.Random):
    if rng.random() < 0.97:     # mostly what real boards hold; now and then a value out of bounds
        return rng.choice((None, 3, 1.5, True, "F10", "x" * 200, "x" * 4096))
    kind = rng.randrange(8)
    if kind == 0:
        return None
    if kind == 1:
        return rng.randrange(-3, 10)
    if kind == 2:
        return rng.random()
    if kind == 3:
        return rng.random() < 0.5
    if kind == 4:
        return [rng.randrange(3)]       # not flat
    return "x" * rng.choice((0, 3, 199, 200, 201, 4096, 4097))


def _board(rng: random.Random) -> dict:
    keys = ["hex", "tile", "rotation", "code", "company", "city", "k" * (201 if rng.random() < 0.1 else 5)]

    def flat():
        return {rng.choice(keys): _value(rng) for _ in range(rng.randrange(0, 5))}

    board = {"title": "1830", "tiles": [flat() for _ in range(rng.randrange(0, 30))],
             "tokens": [flat() for _ in range(rng.randrange(0, 8))]}
    if rng.random() < 0.2:
        board["tiles"].append("F10" if rng.random() < 0.5 else 7)   # a list of more than dicts
    return board


@pytest.mark.parametrize("seed", range(300))
def test_bulk_reading_reports_what_the_dict_by_dict_reading_does(seed, monkeypatch):
    rng = random.Random(seed)
    board = _board(rng)
    bulk = size_violations(board, "board", [], name=MAX_NAME_CHARS)
    monkeypatch.setattr(bounds, "_flat_dicts_within", lambda *args: False)
    assert bulk == size_violations(board, "board", [], name=MAX_NAME_CHARS)


def test_a_long_name_in_one_lay_of_many_is_reported():
    tiles = [{"hex": f"A{i}", "tile": "7", "rotation": 0} for i in range(100)]
    tiles[57]["tile"] = "t" * 201
    tiles[80]["code"] = "c" * 4096      # a tile code may be longer than a name
    assert size_violations({"tiles": tiles}, "board", [], name=MAX_NAME_CHARS) == [
        ("board.tiles[57].tile", "201 characters; at most 200 are allowed")]


def _company(rng: random.Random):
    """A company request, now and then with a string, key or list over its bound or a deeper value."""
    def name():
        return "x" * rng.choice((0, 3, 200)) if rng.random() < 0.9 else "x" * rng.choice((201, 4097))

    def train():
        kind = rng.randrange(10)
        if kind == 0:
            return name()
        if kind == 1:
            return {name(): rng.choice((None, 1, 2.5, True, [name()], {name(): name()}))}
        return {"name": name(), "leased": rng.choice((None, False, True))}
    company = {"id": name(), "trains": [train() for _ in range(rng.randrange(0, 5))],
               "privates": [name() for _ in range(rng.randrange(0, 3))]}
    if rng.random() < 0.1:
        company["trains"] = [train() for _ in range(1001)]
    if rng.random() < 0.1:
        company["extra"] = [[[[[name()]]]]]      # deeper than the quick check reads
    return company


@pytest.mark.parametrize("seed", range(300))
def test_the_quick_check_passes_only_what_the_walk_passes(seed):
    company = _company(random.Random(seed))
    if bounds.small_within(company):
        assert size_violations(company, "company", [], name=MAX_NAME_CHARS) == []


def test_the_quick_check_passes_a_real_company_and_not_a_long_name():
    company = {"id": "PRR", "trains": [{"name": "4"}, {"name": "D", "leased": True}], "privates": ["CS"]}
    assert bounds.small_within(company)
    company["trains"][1]["name"] = "D" * 201
    assert not bounds.small_within(company)
    assert not bounds.small_within({"id": "PRR", "trains": ["4"] * 1001})
    assert not bounds.small_within({"id": "PRR", 7: "4"})
