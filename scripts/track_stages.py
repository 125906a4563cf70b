"""The board track kernel (revenue.core.track.place_board) on the game-server boards, timed per part: the
arguments of every place_board call of `python -m benchmarks.gameserver` are recorded, then each part of
the kernel is run on each board's inputs, looped inside one compiled call (the kernel's own time, caches
warm), and the whole place_board and Track() from Python (dispatch and boxing included). Then, with the
caches cold (8 MB written before each call, as the rest of a solve leaves them), calls from Python of
growing prefixes of place_board: the dispatch of its 15 arguments alone, then the lays and assemble, the
walk, chain_arrays, node_columns and chain_idents, the packing, the packed result boxed, the whole call.

    python scripts/track_stages.py [GAMES] [REPEATS]

Prints the median over the boards of each part's time in microseconds.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))     # the benchmarks package beside revenue

import numpy as np
from numba import njit

from benchmarks.scenarios import game_sequences
from revenue import board as board_module
from revenue import graph as graph_module
from revenue.core import track as T
from revenue.optimizer import solve


SIDES: dict[int, graph_module.MapSides] = {}     # each map's sides by the id of its neighbour array


def record(games: int) -> list[tuple]:
    """The arguments of each place_board call of the game-server boards (and each map's sides, SIDES)."""
    calls = []
    inner, track = board_module.place_board, graph_module.Track

    def spy(*args):
        calls.append(args)
        return inner(*args)

    def spy_track(registry, sides, packed):
        SIDES[id(sides.neighbour)] = sides
        return track(registry, sides, packed)
    board_module.place_board, graph_module.Track = spy, spy_track
    try:
        for seed in range(games):
            for boards in game_sequences(seed=seed).values():
                for board in boards:
                    solve(board.request)
    finally:
        board_module.place_board, graph_module.Track = inner, track
    return calls


@njit(cache=False)
def _loop_lay(reps, lays, table, printed_gids, printed_masks):
    for _ in range(reps):
        out = T.lay_tiles(lays, table, printed_gids, printed_masks)
    return out


@njit(cache=False)
def _loop_assemble(reps, gids, reg_path_start, reg_node_start, reg_table):
    for _ in range(reps):
        out = T.assemble(gids, reg_path_start, reg_node_start, reg_table)
    return out


@njit(cache=False)
def _loop_walk(reps, a, impassable, neighbour, side, n_sides):
    path_start, node_base, path_hex, kind0, val0, kind1, val1, gauge, terminal, node_hex, node_reg = a
    for _ in range(reps):
        out = T.walk_chains(path_start, kind0, val0, kind1, val1, gauge, terminal, node_hex, neighbour, impassable,
                            side, n_sides)
    return out


@njit(cache=False)
def _loop_chain_arrays(reps, a, w, side, n_sides, n_hexes):
    path_start, node_base, path_hex, kind0, val0, kind1, val1, gauge, terminal, node_hex, node_reg = a
    chain_a, chain_b, chain_start, chain_paths = w
    for _ in range(reps):
        out = T.chain_arrays(chain_a, chain_b, chain_start, chain_paths, path_hex, kind0, val0, kind1, val1,
                             terminal, side, n_sides, len(node_hex), n_hexes)
    return out


@njit(cache=False)
def _loop_columns(reps, a, reg_node_table):
    node_reg = a[10]
    for _ in range(reps):
        out = T.node_columns(node_reg, reg_node_table)
    return out


@njit(cache=False)
def _loop_idents(reps, a, w, reg_node_table):
    path_start, node_base, path_hex, kind0, val0, kind1, val1, gauge, terminal, node_hex, node_reg = a
    chain_a, chain_b, chain_start, chain_paths = w
    for _ in range(reps):
        out = T.chain_idents(chain_start, chain_paths, path_start, path_hex, kind0, val0, kind1, val1, node_reg,
                             reg_node_table)
    return out


@njit(cache=False)
def _loop_tokens(reps, tokens, token_table, gids, node_base, reg_city_start, reg_city_table):
    for _ in range(reps):
        out = T.place_tokens(tokens, token_table, gids, node_base, reg_city_start, reg_city_table)
    return out


@njit(cache=False)
def _loop_place(reps, lays, table, printed_gids, printed_masks, tokens, token_table, reg_path_start,
                reg_node_start, reg_table, reg_node_table, reg_city_start, reg_city_table, neighbour, side, n_sides):
    for _ in range(reps):
        out = T.place_board(lays, table, printed_gids, printed_masks, tokens, token_table, reg_path_start,
                            reg_node_start, reg_table, reg_node_table, reg_city_start, reg_city_table, neighbour,
                            side, n_sides)
    return out


# place_board's prefixes (the same arguments), for the cold timing: each returns little but the last two
@njit(nogil=True)
def _only_dispatch(lays, table, printed_gids, printed_masks, tokens, token_table, reg_path_start, reg_node_start,
                   reg_table, reg_node_table, reg_city_start, reg_city_table, neighbour, side, n_sides):
    return len(lays)


@njit(nogil=True)
def _to_assemble(lays, table, printed_gids, printed_masks, tokens, token_table, reg_path_start, reg_node_start,
                 reg_table, reg_node_table, reg_city_start, reg_city_table, neighbour, side, n_sides):
    gids, masks, _, _, _ = T.lay_tiles(lays, table, printed_gids, printed_masks)
    return len(T.assemble(gids, reg_path_start, reg_node_start, reg_table)[3])


@njit(nogil=True)
def _to_walk(lays, table, printed_gids, printed_masks, tokens, token_table, reg_path_start, reg_node_start,
             reg_table, reg_node_table, reg_city_start, reg_city_table, neighbour, side, n_sides):
    gids, masks, _, _, _ = T.lay_tiles(lays, table, printed_gids, printed_masks)
    a = T.assemble(gids, reg_path_start, reg_node_start, reg_table)
    return len(T.walk_chains(a[0], a[3], a[4], a[5], a[6], a[7], a[8], a[9], neighbour, masks, side, n_sides)[0])


@njit(nogil=True)
def _to_chain_arrays(lays, table, printed_gids, printed_masks, tokens, token_table, reg_path_start, reg_node_start,
                     reg_table, reg_node_table, reg_city_start, reg_city_table, neighbour, side, n_sides):
    gids, masks, _, _, _ = T.lay_tiles(lays, table, printed_gids, printed_masks)
    a = T.assemble(gids, reg_path_start, reg_node_start, reg_table)
    w = T.walk_chains(a[0], a[3], a[4], a[5], a[6], a[7], a[8], a[9], neighbour, masks, side, n_sides)
    return len(T.chain_arrays(w[0], w[1], w[2], w[3], a[2], a[3], a[4], a[5], a[6], a[8], side, n_sides, len(a[9]),
                              len(gids))[1])


@njit(nogil=True)
def _to_idents(lays, table, printed_gids, printed_masks, tokens, token_table, reg_path_start, reg_node_start,
               reg_table, reg_node_table, reg_city_start, reg_city_table, neighbour, side, n_sides):
    gids, masks, _, _, _ = T.lay_tiles(lays, table, printed_gids, printed_masks)
    a = T.assemble(gids, reg_path_start, reg_node_start, reg_table)
    w = T.walk_chains(a[0], a[3], a[4], a[5], a[6], a[7], a[8], a[9], neighbour, masks, side, n_sides)
    c = T.chain_arrays(w[0], w[1], w[2], w[3], a[2], a[3], a[4], a[5], a[6], a[8], side, n_sides, len(a[9]),
                       len(gids))
    k = T.node_columns(a[10], reg_node_table)
    i = T.chain_idents(w[2], w[3], a[0], a[2], a[3], a[4], a[5], a[6], a[10], reg_node_table)
    return len(c[1]) + len(k[0]) + len(i[0])


@njit(nogil=True)
def _to_pack(lays, table, printed_gids, printed_masks, tokens, token_table, reg_path_start, reg_node_start,
             reg_table, reg_node_table, reg_city_start, reg_city_table, neighbour, side, n_sides):
    gids, masks, _, _, _ = T.lay_tiles(lays, table, printed_gids, printed_masks)
    return len(T._walk_packed(gids, masks, reg_path_start, reg_node_start, reg_table, reg_node_table, neighbour, side,
                              n_sides, tokens, 0, 0, 0)[0])


@njit(nogil=True)
def _to_boxed(lays, table, printed_gids, printed_masks, tokens, token_table, reg_path_start, reg_node_start,
              reg_table, reg_node_table, reg_city_start, reg_city_table, neighbour, side, n_sides):
    gids, masks, _, _, _ = T.lay_tiles(lays, table, printed_gids, printed_masks)
    return T._walk_packed(gids, masks, reg_path_start, reg_node_start, reg_table, reg_node_table, neighbour, side,
                          n_sides, tokens, 0, 0, 0)


COLD_PREFIXES = (("dispatch (15 arguments)", _only_dispatch), ("+ lay_tiles, assemble", _to_assemble),
                 ("+ walk_chains", _to_walk), ("+ chain_arrays", _to_chain_arrays),
                 ("+ node_columns, chain_idents", _to_idents), ("+ _pack", _to_pack), ("+ result boxed", _to_boxed),
                 ("place_board", T.place_board))


def cold(calls: list[tuple], rounds: int = 3) -> dict[str, list[float]]:
    """Each prefix's time from Python per board, 8 MB written just before each call (interleaved)."""
    buf = np.zeros(1 << 20)
    for _, fn in COLD_PREFIXES:
        fn(*calls[0])
    times: dict[str, list[float]] = {name: [] for name, _ in COLD_PREFIXES}
    for args in calls:
        for _ in range(rounds):
            for name, fn in COLD_PREFIXES:
                buf += 1.0
                started = time.perf_counter()
                fn(*args)
                times[name].append((time.perf_counter() - started) * 1e6)
    return times


def per_call(fn, reps, *args) -> float:
    """Microseconds per repetition of a looped kernel (the least of three runs)."""
    fn(1, *args)
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        fn(reps, *args)
        best = min(best, (time.perf_counter() - started) / reps * 1e6)
    return best


def main(games: int = 2, reps: int = 50) -> None:
    calls = record(games)
    registry = graph_module.current_registry()
    times: dict[str, list[float]] = {}

    def add(name, us):
        times.setdefault(name, []).append(us)
    for args in calls:
        (lays, table, printed_gids, printed_masks, tokens, token_table, reg_path_start, reg_node_start, reg_table,
         reg_node_table, reg_city_start, reg_city_table, neighbour, side, n_sides) = args
        gids, masks, _, _, _ = T.lay_tiles(lays, table, printed_gids, printed_masks)
        a = T.assemble(gids, reg_path_start, reg_node_start, reg_table)
        w = T.walk_chains(a[0], a[3], a[4], a[5], a[6], a[7], a[8], a[9], neighbour, masks, side, n_sides)
        add("place_board (looped)", per_call(_loop_place, reps, *args))
        add("lay_tiles", per_call(_loop_lay, reps, lays, table, printed_gids, printed_masks))
        add("assemble", per_call(_loop_assemble, reps, gids, reg_path_start, reg_node_start, reg_table))
        add("walk_chains", per_call(_loop_walk, reps, a, masks, neighbour, side, n_sides))
        add("chain_arrays", per_call(_loop_chain_arrays, reps, a, w, side, n_sides, len(gids)))
        add("node_columns", per_call(_loop_columns, reps, a, reg_node_table))
        add("chain_idents", per_call(_loop_idents, reps, a, w, reg_node_table))
        add("place_tokens", per_call(_loop_tokens, reps, tokens, token_table, gids, a[1], reg_city_start,
                                     reg_city_table))
        # from Python: the whole call (dispatch of the arguments, boxing of the result) and Track()
        best_call, best_track = float("inf"), float("inf")
        sides = SIDES[id(neighbour)]
        for _ in range(reps):
            started = time.perf_counter()
            packed = T.place_board(*args)
            middle = time.perf_counter()
            graph_module.Track(registry, sides, packed)
            done = time.perf_counter()
            best_call, best_track = min(best_call, middle - started), min(best_track, done - middle)
        add("place_board (Python call)", best_call * 1e6)
        add("Track()", best_track * 1e6)
        add("chains", len(w[0]))
        add("paths", len(a[3]))
        add("hexes", len(gids))
    print(f"{len(calls)} place_board calls; median over the boards (us; chains/paths/hexes: counts)")
    for name, values in times.items():
        print(f"  {name:28s} {statistics.median(values):8.2f}   p90 {sorted(values)[int(0.9 * len(values))]:8.2f}")
    print("caches cold, from Python, place_board's prefixes (us)")
    for name, values in cold(calls[::2]).items():
        print(f"  {name:28s} {statistics.median(values):8.2f}   p90 {sorted(values)[int(0.9 * len(values))]:8.2f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
