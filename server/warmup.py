"""The service's warm-up before it reports SERVING: the kernels compiled (or loaded from Numba's cache)
and the titles loaded, so that no call pays for them inside its deadline."""
from __future__ import annotations

import json
import pathlib
import threading

import numpy as np

from revenue.evaluation import evaluate
from revenue.optimizer import solve
from revenue.optimizer.combination import INDEX_MIN, key_indexes
from revenue.steam import deliveries

from .service import RouteService


def warm_up(service: RouteService) -> None:
    """Compile the kernels and load the titles (into `service`, a RouteService): small solves, one
    evaluate, one deliveries, and the package's example boards."""
    # No deadline: on a machine busy enough, loading (or compiling) the kernels can take a minute.
    result = solve(WARM_SOLVE, cancel=threading.Event())
    assert result["revenue"] == 60 and result["optimal"], result
    # The small search's one-call kernel (revenue.core.probe) is compiled once per number of distinct
    # walks (train types whose arrays differ beyond their limits): a first company of two or three types
    # would otherwise compile or load it inside its deadline.
    for trains in WARM_TYPES:
        result = solve({"board": _WARM_BOARD, "company": {"id": "W", "trains": trains}},
                       cancel=threading.Event())
        assert result["optimal"], result
    # The key bitmaps of large searches, a kernel the small board does not reach: loading it in a
    # first large call would hold the interpreter's lock (and so every other call) meanwhile.
    key_indexes(np.zeros((INDEX_MIN, 1), dtype=np.uint64), np.array([0, INDEX_MIN]), np.zeros(1, dtype=np.int64))
    assert evaluate({**WARM_SOLVE, "routes": WARM_ROUTES})["revenue"] == 60
    deliveries(WARM_DELIVERIES)
    service.titles()
    # A real board of each title (the package's examples): their kernels, loaded from Numba's cache
    # at a first call of their kind, took 20-300 ms each in the first calls of a fresh server.
    # Each once more as a game's next boards come (lays and tokens all checked before on that map:
    # one compiled call places them, revenue.board._build_known): its lays in another order, then
    # its tokens too (the same lays' track, the tokens placed on it). Without these, a fresh
    # server's first such board compiled those kernels in its call (7 s with Numba's cache empty).
    for path in example_solves():
        request = json.loads(path.read_text())
        solve(request, cancel=threading.Event())
        board = request["board"]
        tiles, tokens = board.get("tiles"), board.get("tokens") or []
        if tiles:
            for placed in (tokens, tokens[::-1]):
                again = {**request, "board": {**board, "tiles": tiles[::-1], "tokens": placed}}
                solve(again, cancel=threading.Event())


def example_solves() -> list:
    """The package's examples/solve_*.json (none when they were not installed)."""
    try:
        import revenue.examples as examples
    except ImportError:
        return []
    return sorted(path for folder in examples.__path__ if pathlib.Path(folder).is_dir()
                  for path in pathlib.Path(folder).glob("solve_*.json"))


_WARM_BOARD = {
    "title": "custom",
    "custom": {"hexes": [
        {"hex": "A1", "code": "city=revenue:20;path=a:4,b:_0", "color": "gray"},
        {"hex": "A3", "code": "path=a:1,b:4"},
        {"hex": "A5", "code": "city=revenue:30;path=a:1,b:_0;path=a:4,b:_0", "color": "gray"},
        {"hex": "A7", "code": "town=revenue:10;path=a:1,b:_0", "color": "gray"}],
        "trains": [{"name": "2", "distance": 2}, {"name": "3", "distance": 3}, {"name": "4", "distance": 4},
                   # (other rows, other multipliers: trains that walk apart, see WARM_TYPES)
                   {"name": "2+1", "rows": [{"nodes": ["city", "offboard"], "pay": 2, "visit": 2},
                                            {"nodes": ["town"], "pay": 1, "visit": 1}]},
                   {"name": "2x2", "rows": [{"nodes": ["city", "offboard", "town"], "pay": 2, "visit": 2,
                                             "multiplier": 2}]}]},
    "tokens": [{"hex": "A1", "city": 0, "company": "W"}],
}
WARM_SOLVE = {"board": _WARM_BOARD, "company": {"id": "W", "trains": [{"name": "3"}]}}
WARM_TYPES = ([{"name": "2"}, {"name": "3"}], [{"name": "2"}, {"name": "3"}, {"name": "4"}],
              [{"name": "2"}, {"name": "2+1"}], [{"name": "2"}, {"name": "2+1"}, {"name": "2x2"}])
WARM_ROUTES = [{"train": "3", "nodes": ["A1-0", "A5-0", "A7-0"]}]
WARM_DELIVERIES = {
    "ruleset": "steam", "player": "p",
    "stops": [{"id": "a", "kind": "city", "colour": "red"}, {"id": "b", "kind": "city", "colour": "blue"}],
    "links": [{"id": "ab", "a": "a", "b": "b", "owner": "p"}],
    "cubes": [{"stop": "a", "colour": "blue"}],
    "players": [{"id": "p", "level": 1}],
}
