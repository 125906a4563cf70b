"""value_lays takes the request's best run for a lay whose board poses the solver the same problem
(revenue.moves.unchanged), and solves two rotations of a tile that lay the same track once: on real boards
of every title, each lay's value equals solving the board it makes."""
from __future__ import annotations

import json
import pathlib

import pytest

import revenue
from revenue.board_request import build_board
from revenue.moves import value_lays
from revenue.moves.lays import legal_lays
from revenue.moves.unchanged import problem_of, problem_print, same_problem
from revenue.moves.value import with_lay

DATA = pathlib.Path(__file__).parent / "data" / "games"
EXAMPLES = pathlib.Path(__file__).parent.parent / "examples"
GAMES = ("1889_314", "1889_962", "1830_29133", "1860_19354")


def _lay_requests(game: str) -> list[dict]:
    rows = [json.loads(line) for line in (DATA / "exports" / f"{game}.lays.jsonl").read_text().splitlines()]
    return [r["request"] for r in rows if r["kind"] == "lay_tile" and r["request"]["company"]["trains"]]


def _boards(every: int) -> list[tuple[str, dict]]:
    """Late-game boards of each game (the last lay of a company with trains), and with `every` > 0 every
    that-many-th lay before; 18Rhl's last turn of game 96576; the examples with lays."""
    out = []
    for game in GAMES:
        requests = _lay_requests(game)
        picked = {len(requests) - 1} | (set(range(0, len(requests), every)) if every else set())
        out += [(f"{game}[{i}]", requests[i]) for i in sorted(picked)]
    rhl = [json.loads(line) for line in (DATA / "18rhl_96576.jsonl").read_text().splitlines()]
    out += [(f"18rhl_96576[{i}]", rhl[i]["request"]) for i in ([len(rhl) - 1] + (list(range(0, len(rhl), 4 * every))
                                                                                  if every else []))]
    out += [(f"examples/solve_{t}", json.loads((EXAMPLES / f"solve_{t}.json").read_text()))
            for t in ("1830", "1860", "1889", "18rhl")]
    return out


def _plainly_valued(request: dict) -> dict:
    """(hex, tile, rotation) -> (revenue_after, optimal) of every legal lay, each board solved."""
    board = build_board(request["board"])
    out = {}
    for lay in legal_lays(request):
        solved = revenue.solve(with_lay(request, board, lay))
        out[(lay["hex"], lay["tile"], lay["rotation"])] = (solved["revenue"], solved["optimal"])
    return out


@pytest.fixture
def checked_everywhere(monkeypatch):
    """Every lay's board compared with the request's (unchanged), however few the routes."""
    monkeypatch.setattr("revenue.moves.value.SAME_RUN_FROM_ROUTES", 0)


def _check_equal(name: str, request: dict) -> int:
    """value_lays against solving each lay; how many lays left the problem as it was."""
    valued = value_lays(request)
    assert valued["complete"], name
    fast = {(m["hex"], m["tile"], m["rotation"]): (m["revenue_after"], m["optimal"]) for m in valued["moves"]}
    assert fast == _plainly_valued(request), name
    assert valued["base_revenue"] == revenue.solve(request)["revenue"]
    board, problem = build_board(request["board"]), problem_of(request)
    if problem is None:
        return 0
    printed = list(problem_print(problem))
    return sum(same_problem(printed, problem_of(with_lay(request, board, move))) for move in valued["moves"])


@pytest.fixture(params=["one thread", "two threads"])
def searches(request, monkeypatch):
    """The boards of the moves searched on the calling thread, or two at a time (value.PARALLEL_FROM_MS)."""
    threshold = float("inf") if request.param == "one thread" else 0.0
    monkeypatch.setattr("revenue.moves.value.PARALLEL_FROM_MS", threshold)


def test_every_lay_valued_as_solving_it_on_late_boards(checked_everywhere, searches):
    assert sum(_check_equal(name, request) for name, request in _boards(0)) > 100   # many on real boards


def test_the_two_threads_stop_at_the_deadline_with_what_they_have(monkeypatch):
    """Two at a time too, a deadline that has passed by the end of the request's own search (which is
    always made) ends the valuation there: no lay valued, `complete` false."""
    monkeypatch.setattr("revenue.moves.value.PARALLEL_FROM_MS", 0.0)
    request = _lay_requests("1860_19354")[-1]
    every = value_lays(request)
    assert every["complete"] and every["valued"] == every["legal"]
    cut = value_lays(request, deadline_ms=1)
    assert not cut["complete"] and cut["valued"] == 0 and cut["legal"] == every["legal"]


@pytest.mark.slow
def test_every_lay_valued_as_solving_it_through_the_games(checked_everywhere):
    for name, request in _boards(2):
        _check_equal(name, request)


def test_rotations_that_lay_the_same_track_make_one_board():
    from revenue.moves.value import _lay_track

    board = build_board({"title": "1889", "phase": "2"})
    straight = [_lay_track(board, {"hex": "F3", "tile": "9", "rotation": r}) for r in range(6)]
    assert straight[0] == straight[3] and straight[1] == straight[4] and len(set(straight)) == 3
    curve = {_lay_track(board, {"hex": "F3", "tile": "7", "rotation": r}) for r in range(6)}
    assert len(curve) == 6
    assert _lay_track(board, {"hex": "F5", "tile": "9", "rotation": 0}) != straight[0]
