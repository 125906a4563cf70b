"""The route walk with merged stops (RouteRules.merge), route by route against the reference. Of two
consecutive stops of one merge group only the first in the route's direction counts, so a route whose
pair joins a town and a city can keep within the city limit one way round only; the walk, which leaves
the direction open, must not count such a stop before it knows both its neighbours on the route (seed
11906 of test_route_rules' merge rule: the legal D6, B4, A3, B2 was never met, and the optimizer called
190 optimal for 200)."""
from __future__ import annotations

import random

import numpy as np
from hypothesis import example, given, settings, strategies as st

from revenue.company import build_company
from revenue.graph_cache import graph_for
from revenue.optimizer.adjacency import adjacency, reachable
from revenue.optimizer.routeset import all_routes
from revenue.problem import compile_problem

from . import hits
from .boards import TRAIN_POOL, linked_board
from .profiles import examples
from .ref_board import ref_board
from .reference import DataRules, node_name, route_shapes, route_value
from .rule_seeking import reference_trains, seek
from .test_route_rules import check, install

# trains with a city limit and a town row: there a merged town-city pair counts differently either way round
ROW_TRAINS = [t for t in TRAIN_POOL if "rows" in t]


def merge_case(seed: int):
    """A linked board with merge groups on neighbouring town-city pairs (the company's city in one of
    them when it has such a neighbour): (board, company, trains, rule data)."""
    rng = random.Random(seed)
    for k in range(50):
        board, company, trains = linked_board(seed * 53 + k, width=(3, 4), height=(3, 4), link=0.7,
                                              pool=ROW_TRAINS)
        graph = graph_for(board)
        problem = compile_problem(graph, build_company(company, graph.board))
        adj_start, _, adj_other, _ = adjacency(problem)
        kinds = [n.kind for n in graph.nodes]
        pairs = sorted({(min(v, w), max(v, w)) for v in range(len(kinds))
                        for w in adj_other[adj_start[v]:adj_start[v + 1]]
                        if v != w and {kinds[v], kinds[w]} == {"town", "city"}})
        if not pairs:
            continue
        tokened = [p for p in pairs if problem.token[p[0]] or problem.token[p[1]]]
        chosen = rng.sample(tokened, 1) if tokened and rng.random() < 0.5 else []
        rest = [p for p in pairs if not set(p) & {v for q in chosen for v in q}]
        chosen += rng.sample(rest, min(len(rest), rng.randint(1, 3)))
        names = [n.name for n in graph.nodes]
        merge = {names[v]: g for g, pair in enumerate(chosen) for v in pair}
        return board, company, trains, {"merge": (merge, rng.choice([0, 10]))}
    raise AssertionError(f"no linked board with a town next to a city for seed {seed}")


def walk_routes(monkeypatch, board, company, data) -> dict:
    """{(train, node names one way round): best revenue} over the routes the walk stores."""
    out: dict = {}
    with monkeypatch.context() as m:
        install(m, data)
        graph = graph_for(board)
        problem = compile_problem(graph, build_company(company, graph.board))
        adj, allowed, stop = adjacency(problem), reachable(problem), np.zeros(1, dtype=np.int64)
        names = [n.name for n in graph.nodes]
        for train in problem.specs:
            found = all_routes(problem, train, adj, allowed, stop)
            assert found.complete
            for i in range(len(found.rev)):
                route = tuple(names[v] for v in found.nodes[found.begin[i]:found.end[i]])
                key = (train, min(route, route[::-1]))
                out[key] = max(out.get(key, -1), int(found.rev[i]))
    return out


def reference_routes(board, trains, data) -> tuple[dict, int]:
    """The same from the reference, and how many of its routes are legal one way round only."""
    rules = DataRules(data)
    board = ref_board(board)
    g, shapes = route_shapes(board, "A", reference_trains(trains), rules)
    out: dict = {}
    one_way = 0
    for train in reference_trains(trains):
        for nodes, _, _, seq in shapes:
            values = [route_value(board, g, "A", train, n, q, rules)
                      for n, q in ((nodes, seq), (nodes[::-1], seq[::-1]))]
            legal = [v for v in values if v is not None]
            if not legal:
                continue
            one_way += len(legal) == 1
            route = tuple(node_name(g, v) for v in nodes)
            key = (train["name"], min(route, route[::-1]))
            out[key] = max(out.get(key, -1), max(legal))
    return out, one_way


@settings(max_examples=examples(60, "MERGE_EXAMPLES"))
@given(st.integers(0, 2**31 - 1))
@example(3)     # legal one way round only; the walk's B arm met the pair's first stop over the city limit
@example(50)    # the company's city merges with B's first stop: A's arm must not count it meanwhile
def test_walk_finds_every_merged_route(monkeypatch, seed):
    board, company, trains, data = merge_case(seed)
    expected, _ = reference_routes(board, trains, data)
    assert walk_routes(monkeypatch, board, company, data) == expected


def test_seed_11906_of_the_merge_rule(monkeypatch):
    # 2+1 on D6, B4, A3, B2 (B4 merged into D6: two cities and a town) is legal that way round only
    board, company, trains, data = seek("merge", 11906)
    assert check(monkeypatch, board, company, trains, data) == 200


HIT_BOARDS = examples(100)


def test_merge_boards_hold_one_way_routes(monkeypatch):
    # On fixed seeds (a deterministic rate): the walk matches the reference route by route, and on at
    # least FLOOR of the boards some route is legal one way round only (the case the walk once missed).
    decided = 0
    for seed in range(HIT_BOARDS):
        board, company, trains, data = merge_case(seed)
        expected, one_way = reference_routes(board, trains, data)
        assert walk_routes(monkeypatch, board, company, data) == expected, seed
        decided += one_way > 0
    rate = hits.record("merge walk: a route legal one way round only", decided, HIT_BOARDS)
    assert rate >= hits.FLOOR, f"{decided} of {HIT_BOARDS} boards"
