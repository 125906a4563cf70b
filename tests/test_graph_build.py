"""The track graph built from cached pieces (tile geometries, checked tile lays, the map's sides) and the
Numba walk is the graph of the plain Python walk (tests/slow_graph.py), whatever the caches hold: same
nodes, same chains in the same order (ends, paths, terminal flags, chain ids), same track keys by name;
and a solve on it gives the same answer as one on a graph built with every cache empty."""
from __future__ import annotations

import pytest

from benchmarks.scenarios import game_sequences
from revenue import geometry as geometry_module
from revenue import graph_cache as graph_cache_module
from revenue.board_request import build_board
from revenue.graph import build_graph
from revenue.optimizer import solve
from revenue.titles import TITLES
from tests.boards import random_board
from tests.slow_graph import walk_graph


def forget_everything() -> None:
    """Empty every cache a board or graph is built from."""
    geometry_module._GEOMETRIES.clear()
    with graph_cache_module._GRAPHS_LOCK:
        graph_cache_module._GRAPHS.clear()
        graph_cache_module._GRAPH_BYTES.clear()     # (sizes of graphs no longer kept would count against the budget)
        graph_cache_module._FRESH.clear()
    for title in TITLES.values():
        for data in title._data.values():
            data.printed_totals = data.known = data.sides = None
            data.tracks.clear()
            data.graph_nodes.clear()


def graph_facts(graph) -> tuple:
    """Everything a graph says, track keys by name (their numbering is the builder's own)."""
    names = graph.key_names
    return (graph.nodes,
            [(c.id, c.a, c.b, c.paths, c.terminal_a, c.terminal_b, c.terminal_inner, c.ident) for c in graph.chains],
            [sorted(names[k] for k in c.keys) for c in graph.chains],
            graph.adjacency)


def walked_facts(board) -> tuple:
    nodes, chains, names = walk_graph(board)
    adjacency = [[] for _ in nodes]
    for c in chains:
        adjacency[c.a].append(c.id)
        adjacency[c.b].append(c.id)
    return (nodes, [(c.id, c.a, c.b, c.paths, c.terminal_a, c.terminal_b, c.terminal_inner, c.ident) for c in chains],
            [sorted(names[k] for k in c.keys) for c in chains], adjacency)


@pytest.fixture(scope="module")
def games():
    return game_sequences(seed=3)


@pytest.mark.parametrize("seed", range(0, 240, 3))
def test_random_boards_match_the_python_walk(seed):
    board_request, _, _ = random_board(seed)
    board = build_board(board_request)
    assert graph_facts(build_graph(board)) == walked_facts(board)


@pytest.mark.parametrize("title", ["1830", "steam_over_holland", "18rhl", "1860"])
def test_game_boards_match_the_python_walk(games, title):
    boards = games[title]
    for game_board in boards[::4]:
        board = build_board(game_board.request["board"])
        assert graph_facts(build_graph(board)) == walked_facts(board), game_board.step


@pytest.mark.parametrize("title", ["1830", "steam_over_holland", "18rhl", "1860"])
def test_cached_construction_is_construction_from_scratch(games, title):
    """Boards one tile lay or token apart, built one after the other (every cache warm), against each built
    alone after every cache was emptied: the same graph and the same answer."""
    boards = games[title][::5]
    warm = []
    for game_board in boards:
        request = game_board.request
        warm.append((graph_facts(build_graph(build_board(request["board"]))), solve(request)))
    for game_board, (facts, answer) in zip(boards, warm):
        forget_everything()
        request = game_board.request
        assert graph_facts(build_graph(build_board(request["board"]))) == facts, game_board.step
        forget_everything()
        alone = solve(request)
        for result in (alone, answer):
            result["stats"].pop("elapsed_ms")
            result["stats"].pop("compile_ms", None)      # (a fresh cache's first calls compile)
        assert alone == answer, game_board.step


def test_a_hex_changed_in_place_changes_the_graph():
    """A cached geometry is never served for another tile or rotation of the same hex."""
    base = {"title": "1830", "tiles": [{"hex": "F4", "tile": "57", "rotation": 0}]}
    turned = {"title": "1830", "tiles": [{"hex": "F4", "tile": "57", "rotation": 1}]}
    one, two = (build_graph(build_board(b)) for b in (base, turned))
    assert graph_facts(one) == walked_facts(one.board)
    assert graph_facts(two) == walked_facts(two.board)
    assert [c.paths for c in one.chains] != [c.paths for c in two.chains]


def test_game_boards_are_one_step_apart_and_fresh(games):
    """The game-server benchmark's boards: each differs from the one before by one tile lay (and the
    tokens that tile leaves no room for) or one token, and no board repeats."""
    for boards in games.values():
        seen = set()
        for before, after in zip(boards, boards[1:]):
            if before.game != after.game:
                continue
            b, a = before.request["board"], after.request["board"]
            tiles_b = {t["hex"]: (t["tile"], t["rotation"]) for t in b["tiles"]}
            tiles_a = {t["hex"]: (t["tile"], t["rotation"]) for t in a["tiles"]}
            changed = {h for h in tiles_a if tiles_b.get(h) != tiles_a[h]}
            tokens_b = {(t["hex"], t["city"], t["company"]) for t in b["tokens"]}
            tokens_a = {(t["hex"], t["city"], t["company"]) for t in a["tokens"]}
            if after.step.startswith("lay"):
                assert len(changed) == 1 and tokens_a <= tokens_b
                assert all(h in changed for h, _, _ in tokens_b - tokens_a)
            else:
                assert not changed and len(tokens_a - tokens_b) == 1 and tokens_b <= tokens_a
            key = repr(a)
            assert key not in seen
            seen.add(key)


def test_a_registry_started_afresh_gives_the_same_graphs(monkeypatch, games):
    """When request-made tiles fill the geometry registry it starts afresh; boards built before and
    after (their board hexes still holding geometries of the old registry) keep their graphs."""
    boards = [build_board(b.request["board"]) for b in games["1830"][::25]]
    before = [graph_facts(build_graph(board)) for board in boards]
    first = geometry_module._REGISTRY
    monkeypatch.setattr(geometry_module, "REGISTRY_PATHS", first.paths + 3)    # the next new tile starts afresh
    for i, board in enumerate(boards):
        custom = build_board({"title": "custom", "custom": {"hexes": [
            {"hex": "A1", "code": f"city=revenue:{10 * i + 5};path=a:0,b:_0;path=a:3,b:_0"}]}})
        build_graph(custom)      # a new tile code: registering it may start the registry afresh
        assert graph_facts(build_graph(board)) == before[i]
        assert graph_facts(build_graph(board)) == walked_facts(board)
    assert geometry_module._REGISTRY is not first


@pytest.mark.parametrize("title", ["1830", "steam_over_holland", "18rhl", "1860"])
def test_boards_differing_in_tokens_or_phase_share_the_track(games, title):
    """A board one token away from the one before, or in another phase, reuses its track (the walk's
    arrays, chains, names) and is still the graph of the plain walk, with its own tokens and values."""
    from revenue.graph_cache import graph_for

    shared = 0
    for before, after in zip(games[title], games[title][1:]):
        if not after.step.startswith("token") or before.game != after.game:
            continue
        one, two = (graph_for(b.request["board"]) for b in (before, after))
        assert two.track is one.track and two.board is not one.board
        shared += 1
        assert graph_facts(two) == walked_facts(two.board), after.step
        assert sum(map(len, two.board.tokens.values())) == len(after.request["board"]["tokens"])
        assert {v: list(cs) for v, cs in two.node_arrays().tokens.items()} == \
            {n.id: list(n.tokens) for n in two.nodes if n.tokens}
        phases = [p.name for p in two.board.data.phases]
        other = {**after.request["board"], "phase": phases[-1]}
        late = graph_for(other)
        assert late.track is two.track and graph_facts(late) == walked_facts(late.board)
        assert list(late.node_arrays().value) == [n.value for n in late.nodes]
    assert shared >= 3


def test_graphs_asked_for_once_are_let_go_first():
    # graph_for remembers GRAPH_CACHE_SIZE graphs, of which at most FRESH_GRAPHS never asked for again
    # (graph_cache_module._FRESH): a board asked about again within that many newer boards gets the same graph,
    # and keeps it while newer boards come; one asked about once is let go after FRESH_GRAPHS newer ones.
    # The byte total follows what is kept.
    from revenue.graph_cache import FRESH_GRAPHS, GRAPH_CACHE_SIZE, graph_for
    boards = [b.request["board"] for b in game_sequences(seed=3)["1830"]]
    assert len(boards) > GRAPH_CACHE_SIZE + 2 * FRESH_GRAPHS + 2
    forget_everything()
    graph_cache_module._graphs_bytes = 0
    asked_again, once = boards[0], boards[1]
    first, first_once = graph_for(asked_again), graph_for(once)
    for board in boards[2:FRESH_GRAPHS]:
        graph_for(board)
    assert graph_for(asked_again) is first      # fewer than FRESH_GRAPHS newer boards: kept
    graph_for(boards[FRESH_GRAPHS])
    assert list(graph_cache_module._FRESH)[0] == ("board", first_once.board.key)     # kept so far
    graph_for(boards[FRESH_GRAPHS + 1])
    assert graph_for(once) is not first_once    # asked about once, FRESH_GRAPHS newer: let go
    for board in boards[FRESH_GRAPHS + 1:3 * FRESH_GRAPHS]:
        graph_for(board)
    assert len(graph_cache_module._FRESH) == FRESH_GRAPHS
    assert graph_for(asked_again) is first      # asked about again before: kept past FRESH_GRAPHS newer boards
    for board in boards[:GRAPH_CACHE_SIZE + 2 * FRESH_GRAPHS]:     # every board asked about twice
        assert graph_for(board) is graph_for(board)
    kept = graph_cache_module._GRAPHS
    assert len(kept) == GRAPH_CACHE_SIZE and set(graph_cache_module._FRESH) <= set(kept)
    assert graph_for(asked_again) is not first  # no more than GRAPH_CACHE_SIZE kept, the oldest let go
    assert graph_cache_module._graphs_bytes == sum(graph_cache_module._GRAPH_BYTES.values())
    assert set(graph_cache_module._GRAPH_BYTES) == set(kept)
    forget_everything()
