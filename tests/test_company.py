"""The company of a request: a reading remembered (revenue.company._READINGS) gives what a full reading
gives, and what depends on the board (the title's train types, the run total's bound) is read again."""
from __future__ import annotations

import types

import pytest

from benchmarks.scenarios import game_sequences
from revenue import company as company_module
from revenue.board_request import build_board
from revenue.bounds import MAX_RUN_TOTAL
from revenue.company import build_company
from revenue.errors import InputError


def read_afresh(request: dict, board):
    company_module._READINGS.clear()
    return build_company(request, board)


@pytest.mark.parametrize("title", ["1830", "1860", "18rhl"])
def test_a_remembered_reading_is_the_full_reading_on_every_board(title):
    # Each board's company read with the readings of the boards before it remembered, against a reading
    # with none remembered: the same id, privates and train objects (1860's types follow the board's
    # towns, so a remembered reading must take this board's).
    boards = game_sequences(seed=3)[title][::7]
    assert len(boards) > 10
    for board in boards:
        b = build_board(board.request["board"])
        request = board.request["company"]
        warm = build_company(request, b)
        cold = read_afresh(request, b)
        assert (warm.id, warm.privates, len(warm.trains)) == (cold.id, cold.privates, len(cold.trains))
        assert all(w is c for w, c in zip(warm.trains, cold.trains))
        assert build_company(request, b) == cold      # (this time from the reading just remembered)


def test_the_run_total_is_checked_on_every_board():
    request = {"id": "PRR", "trains": [{"name": "D"}, {"name": "D"}], "privates": ["CA"]}
    board = build_board({"title": "1830", "phase": "D"})
    assert build_company(request, board).privates == frozenset({"CA"})
    assert company_module._READINGS     # remembered
    # a board whose stops could pay more than a run may total, read with the reading remembered
    rich = types.SimpleNamespace(data=board.data, title=board.title, stop_total=MAX_RUN_TOTAL)
    with pytest.raises(InputError) as e:
        build_company(request, rich)
    assert e.value.field == "company.trains" and f"could earn up to {2 * MAX_RUN_TOTAL}" in e.value.description


@pytest.mark.parametrize("request_, field", [
    ({"id": "PRR", "trains": [{"name": "D"}, {"name": "9"}]}, "company.trains[1].name"),
    ({"id": "PRR", "trains": [{"name": "D", "leased": True}]}, "company.trains[0].leased"),
    ({"id": "PRR", "trains": [{"name": "D"}], "privates": [""]}, "company.privates[0]"),
    ({"id": "", "trains": [{"name": "D"}]}, "company.id"),
    ({"id": "P" * 300, "trains": [{"name": "D"}]}, "company.id"),
])
def test_bad_companies_are_not_remembered(request_, field):
    # read twice, each time the error of a full reading
    board = build_board({"title": "1830", "phase": "D"})
    company_module._READINGS.clear()
    for _ in range(2):
        with pytest.raises(InputError) as e:
            build_company(request_, board)
        assert e.value.field == field
    assert not company_module._READINGS


def test_other_shapes_are_read_in_full():
    # a train given by its name alone, or with its game id, is the same train; neither is remembered
    board = build_board({"title": "1830", "phase": "D"})
    company_module._READINGS.clear()
    plain = build_company({"id": "PRR", "trains": ["D", {"name": "5", "id": "5-0"}]}, board)
    assert [t.name for t in plain.trains] == ["D", "5"] and not company_module._READINGS
    assert build_company({"id": "PRR", "trains": [{"name": "D"}, {"name": "5"}]}, board) == plain
    assert len(company_module._READINGS) == 1


def test_a_remembered_reading_takes_the_boards_train_types():
    # a title whose train types depend on the board (as 1860's rows follow its towns): the reading
    # remembered on one board gives another board that board's types
    from dataclasses import replace

    board = build_board({"title": "1830", "phase": "D"})
    request = {"id": "PRR", "trains": [{"name": "D"}, {"name": "5"}]}
    first = build_company(request, board)
    doubled = {}

    class Doubling:
        name = "doubling"

        def company_train(self, train, board, leased=False):
            return doubled.setdefault(train.name, replace(train, multiplier=2))

    other = types.SimpleNamespace(data=board.data, title=Doubling(), stop_total=board.stop_total)
    company = build_company(request, other)
    assert [t.multiplier for t in company.trains] == [2, 2] and company.trains[0] is doubled["D"]
    assert [t.multiplier for t in first.trains] == [1, 1]
    # the bound reads the board's types too: at the stop total where two doubled trains pass it, not one
    rich = types.SimpleNamespace(data=board.data, title=Doubling(), stop_total=MAX_RUN_TOTAL // 3)
    assert build_company(request, types.SimpleNamespace(**{**vars(rich), "title": board.title})) == first
    with pytest.raises(InputError) as e:
        build_company(request, rich)
    assert e.value.field == "company.trains"
