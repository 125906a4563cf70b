"""Each legal tile lay or station token of a company valued by the best run it makes possible: the move
applied to the board, the board solved by revenue.solve, ranked by the revenue after it, then by cost.
Boards that differ from the request's by one lay or token reuse the solver's caches of the request's board
(its graph and its checked lays and tokens), so each costs little more than its search. A lay whose board
poses the solver the same problem as the request's (unchanged: most lays add track that leads to no stop)
has the request's best run, taken without a search; two rotations of a tile that put the same track on the
hex (a symmetric tile) make one board, solved once. Where the request's own search is long enough to be
worth it, the boards are solved two at a time (the kernels release the GIL), on both cores of a 2-core
machine.
"""
from __future__ import annotations

import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

from ..errors import Interrupted
from ..tiles import parse_tile
from .lays import lays_on, read_request
from .shapes import shape
from .tokens import tokens_on
from .unchanged import problem_of, problem_print, same_problem


def value_lays(request: dict, deadline_ms: float | None = None, top: int | None = None,
               player_privates=None, cancel=None, memory_mb: float | None = None, second: bool = False,
               hexes=None) -> dict:
    """{base_revenue, base_optimal, moves: [{hex, tile, rotation, cost, revenue_after, gain, optimal}],
    legal, valued, complete, elapsed_ms}: every legal lay (revenue.moves.lays) solved on the board it
    makes, best first (then the cheapest); `top` keeps the best so many. With a deadline, the lays valued
    before it (`valued` of `legal`; `complete` False when some were left); likewise once `cancel` (an
    event, as solve takes it) is set. `memory_mb` caps each search's memory, as solve's does. `second`: the
    turn's second lay (legal_lays); `hexes`: only lays on these."""
    board, company, cash = read_request(request)
    spec = request.get("company") or {}
    moves = list(lays_on(board, company, cash, spec.get("privates") or (), player_privates,
                         spec.get("trains") or (), second, hexes))
    return _value(request, board, moves, lambda move: with_lay(request, board, move), deadline_ms, top,
                  cancel, memory_mb, _same_run(request), lambda move: _lay_track(board, move))


def value_tokens(request: dict, deadline_ms: float | None = None, top: int | None = None, cancel=None,
                 memory_mb: float | None = None) -> dict:
    """As value_lays, for every legal station token: moves [{hex, city, cost, revenue_after, gain,
    optimal}]."""
    board, company, cash = read_request(request)
    moves = list(tokens_on(board, company, cash))
    return _value(request, board, moves, lambda move: with_token(request, company, move), deadline_ms, top,
                  cancel, memory_mb)


# Comparing a lay's problem with the request's (unchanged) costs about a solve of this many candidate
# routes: on a board of fewer, the lays are solved without it
SAME_RUN_FROM_ROUTES = 1000


def _same_run(request: dict):
    """(the request with a lay, the request's own solve) -> whether the lay's board poses the solver the
    request's problem (unchanged), so that its best run is the request's. False, unchecked, when the
    request's solve met few routes."""
    before: list = []

    def same(changed: dict, base: dict) -> bool:
        if int((base.get("stats") or {}).get("candidate_routes") or 0) < SAME_RUN_FROM_ROUTES:
            return False
        if not before:
            problem = problem_of(request)
            before.extend([None] if problem is None else problem_print(problem))
        after = problem_of(changed)
        return after is not None and same_problem(before, after)
    return same


def _lay_track(board, lay: dict) -> tuple:
    """What a solve sees of the board a lay makes, beside the rest of the board: the hex, the tile and its
    paths at the lay's rotation (each end a map edge or a node, with its lane, and the path's kind)."""
    tile = parse_tile(board.data.manifest[lay["tile"]]["code"], f"tile {lay['tile']}")
    rotation = lay["rotation"]

    def end(e, lane: int) -> tuple:
        return ("node", e.node, lane) if e.edge is None else ("edge", (e.edge + rotation) % 6, lane)
    return lay["hex"], lay["tile"], frozenset(
        (frozenset((end(p.a, p.a_lane), end(p.b, p.b_lane))), p.terminal, p.gauge, p.lanes) for p in tile.paths)


def _value(request, board, moves, changed, deadline_ms, top, cancel=None, memory_mb=None, same_run=None,
           same_board=None) -> dict:
    from ..optimizer import solve

    started = time.perf_counter()
    end = None if deadline_ms is None else started + deadline_ms / 1000.0
    left = _left(end)
    alike: dict = {}        # the boards differ by one move: their searches go alike (solve)
    base = solve(_without_deadline(request), deadline=None if left is None else max(left, MIN_SECONDS),
                 cancel=cancel, memory_mb=memory_mb, alike=alike)
    pool = _pool() if float((base.get("stats") or {}).get("elapsed_ms") or 0) >= PARALLEL_FROM_MS else None
    made = []               # (move, the solve of its board, or its Future)
    solved: dict = {}       # same_board(move) -> the solve of the board it makes
    for move in moves:
        left = _left(end)
        if (left is not None and left <= 0) or (cancel is not None and cancel.is_set()):
            break
        key = None if same_board is None else same_board(move)
        result = solved.get(key)
        if result is None:
            move_request = changed(move)
            options = dict(deadline=left, cancel=cancel, memory_mb=memory_mb, alike=alike)
            if same_run is not None and same_run(move_request, base):
                result = base
            elif pool is None:
                result = solve(move_request, **options)
            else:
                result = pool.submit(solve, move_request, **options)
            if key is not None:
                solved[key] = result
        made.append((move, result))
    valued = []
    for move, result in made:
        if isinstance(result, Future):
            try:
                result = result.result()    # (each search ends by the deadline it was given)
            except Interrupted:             # stopped before its search began: the valuation ends there
                break
        after = int(result.get("revenue") or 0)
        valued.append({**move, "revenue_after": after, "gain": after - int(base.get("revenue") or 0),
                       "optimal": bool(result.get("optimal"))})
    valued.sort(key=lambda m: (-m["revenue_after"], m["cost"]))
    return {"base_revenue": int(base.get("revenue") or 0), "base_optimal": bool(base.get("optimal")),
            "moves": valued if top is None else valued[:top], "legal": len(moves), "valued": len(valued),
            "complete": len(valued) == len(moves),
            "elapsed_ms": round((time.perf_counter() - started) * 1000.0, 3)}


MIN_SECONDS = 0.001     # the request's own board is solved even when the deadline has passed
# a request whose own search takes this long has the boards of its moves solved on two threads (below it,
# handing a search to a thread costs more than it saves)
PARALLEL_FROM_MS = 2.0
_POOL: dict[int, ThreadPoolExecutor] = {}     # by process id: a forked process makes its own threads
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor | None:
    """The process's two threads for the searches of moves (None on a machine of one core)."""
    if (os.cpu_count() or 1) < 2:
        return None
    with _POOL_LOCK:
        pool = _POOL.get(os.getpid())
        if pool is None:
            pool = _POOL[os.getpid()] = ThreadPoolExecutor(max_workers=2, thread_name_prefix="revenue-moves")
        return pool


def _left(end: float | None) -> float | None:
    return None if end is None else end - time.perf_counter()


def _without_deadline(request: dict) -> dict:
    return {k: v for k, v in request.items() if k != "deadline_ms"}


def with_lay(request: dict, board, lay: dict) -> dict:
    """The request with `lay` on its board: the hex's tile replaced, and the tokens of a tile with more than
    one city moved to the new city that keeps their old city's exits."""
    out = _without_deadline(request)
    spec = dict(out.get("board") or {})
    name = lay["hex"]
    spec["tiles"] = [t for t in spec.get("tiles") or () if t.get("hex") != name] + \
        [{"hex": name, "tile": lay["tile"], "rotation": lay["rotation"]}]
    old = board.hexes[name]
    if len(old.tile.cities) > 1:
        entry = board.data.manifest[lay["tile"]]
        new_tile = parse_tile(entry["code"], f"tile {lay['tile']}")
        moved = _city_map(old.tile, old.rotation, new_tile, lay["rotation"])
        spec["tokens"] = [dict(t, city=moved.get(int(t.get("city") or 0), int(t.get("city") or 0)))
                          if t.get("hex") == name else t for t in spec.get("tokens") or ()]
    out["board"] = spec
    return out


def _city_map(old_tile, old_rotation, new_tile, new_rotation) -> dict[int, int]:
    """Old city index -> the new city whose exits hold all of the old one's (the first such); a city without
    track keeps its index (the engine lets the player choose)."""
    old, new = shape(old_tile, old_rotation), shape(new_tile, new_rotation)
    old_exits, new_exits = old.node_exits[:old.cities], new.node_exits[:new.cities]
    out = {}
    for i, exits in enumerate(old_exits):
        j = i if not exits else next((j for j, n in enumerate(new_exits) if exits <= n), None)
        if j is not None and j < len(new_tile.cities):
            out[i] = j
    return out


def with_token(request: dict, company: str, token: dict) -> dict:
    out = _without_deadline(request)
    spec = dict(out.get("board") or {})
    spec["tokens"] = list(spec.get("tokens") or ()) + [{"hex": token["hex"], "city": token["city"],
                                                         "company": company}]
    out["board"] = spec
    return out
