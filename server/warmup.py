"""The service's warm-up before it reports SERVING: the kernels compiled (or loaded from their cache) and
the titles loaded, so that no call pays for them inside its deadline."""
from __future__ import annotations

import json
import logging
import pathlib
import threading

from revenue.compiling import announce, compile_ahead, load_kernels
from revenue.evaluation import evaluate
from revenue.optimizer import solve
from revenue.steam import deliveries

from .service import RouteService

log = logging.getLogger("revenue.server")


def warm_up(service: RouteService) -> None:
    """Compile the kernels the install lacks and load them all, then the titles (into `service`, a
    RouteService): a small solve, one evaluate, one deliveries, and the package's example boards."""
    # A fresh install compiles its kernels first, several at a time (revenue.compiling), said once in the log.
    announce(lambda text: log.info(json.dumps({"event": "compiling", "message": text})))
    compile_ahead()
    # Each kernel loaded (from the cache) now: a first call of its kind would hold the interpreter's lock,
    # and so every other call, while it loads (20-300 ms).
    load_kernels()
    result = solve(WARM_SOLVE, cancel=threading.Event())
    assert result["revenue"] == 60 and result["optimal"], result
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
        "trains": [{"name": "3", "distance": 3}]},
    "tokens": [{"hex": "A1", "city": 0, "company": "W"}],
}
WARM_SOLVE = {"board": _WARM_BOARD, "company": {"id": "W", "trains": [{"name": "3"}]}}
WARM_ROUTES = [{"train": "3", "nodes": ["A1-0", "A5-0", "A7-0"]}]
WARM_DELIVERIES = {
    "ruleset": "steam", "player": "p",
    "stops": [{"id": "a", "kind": "city", "colour": "red"}, {"id": "b", "kind": "city", "colour": "blue"}],
    "links": [{"id": "ab", "a": "a", "b": "b", "owner": "p"}],
    "cubes": [{"stop": "a", "colour": "blue"}],
    "players": [{"id": "p", "level": 1}],
}
