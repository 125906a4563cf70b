"""The track a board of checked lays gets from revenue.core.track.place_board (its lays, tokens and walk
in one call, packed with its status and the lays' totals changes) against the full check's and
build_track's walk of the same hexes."""
from __future__ import annotations

import numpy as np
import pytest

from benchmarks.scenarios import game_sequences
from revenue.board import _printed_totals, build_board
from revenue.graph import build_graph, map_sides

from .test_board import forget_checked


def _arrays(track) -> dict:
    named = ("gids", "path_start", "node_base", "node_hex", "node_reg", "chain_a", "chain_mode", "ident_start",
             "ident_hex", "ident_parts", "path_hex", "kind0", "val0", "kind1", "val1", "chain_b", "chain_start",
             "chain_paths", "key_start", "key_list", "term_a", "term_b", "term_inner", "chain_keys", "inner_hexes")
    arrays = {name: getattr(track, name) for name in named}
    arrays.update(zip(("adj_start", "adj_chain", "adj_other", "adj_flags"), track.adjacency))
    arrays.update(zip(("kind", "slots", "cost", "diesel", "has_diesel", "grouped"), track.node_columns))
    return arrays


@pytest.mark.parametrize("title", ["1830", "18rhl", "1860"])
def test_place_board_tracks_equal_the_full_walk(title):
    boards = game_sequences(seed=0)[title]
    for board in boards[::max(1, len(boards) // 12)]:
        request = board.request["board"]
        forget_checked(title)
        full = build_board(request)           # checked in full: its track is walked by build_track
        assert full.track is None
        walked = build_graph(full).track
        full.remember[0].tracks.clear()      # (else the board read again shares the walked track)
        again = build_board(request)          # its lays and tokens checked before: one place_board call
        track = again.track
        assert track is not None and track is not walked and track.sides is map_sides(full)
        # (the board's totals are the printed map's and the changes place_board packed with the track)
        assert track.status == 0 and (again.stop_total, again.code_chars) == (full.stop_total, full.code_chars)
        stops, chars = _printed_totals(full.data, full.data.printed)
        assert (track.more_stops, track.more_chars) == (full.stop_total - stops, full.code_chars - chars)
        assert (walked.status, walked.more_stops, walked.more_chars) == (0, 0, 0)
        assert track.n_keys == walked.n_keys
        mine, theirs = _arrays(track), _arrays(walked)
        for name in mine:
            assert mine[name].dtype == theirs[name].dtype and np.array_equal(mine[name], theirs[name]), name
        assert len(again.token_node) == len(request.get("tokens") or ())
