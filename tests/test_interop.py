"""Routes in and out in the shape of 18xx.games `run_routes` actions (rules/base.md section 8).

The chain ids written for in-hex paths are checked against the engine's own (tests/data/in_hex_paths.jsonl,
from ../shared/conformance); junction tiles and the shapes real actions come in against hand-made boards;
and every solved route, on random boards of every title, is written out and read back as the engine
would read it: each connection turned round at random and `nodes` in the order of the chains' ends.
"""
from __future__ import annotations

import json
import pathlib
import random
import sys

import pytest

from benchmarks.scenarios import lay_tiles, place_tokens, rhl_lays
from revenue.api import parse_request
from revenue.errors import InputError
from revenue.evaluation import evaluate
from revenue.graph_cache import graph_for
from revenue.optimizer import solve
from revenue.v1 import revenue_pb2

from .boards import random_board

DATA = pathlib.Path(__file__).parent / "data"

# 1830: B&O at Toledo (F4); the 1830 example's D route runs Toledo - Cleveland - Akron - Pittsburgh -
# Altoona over five laid tiles.
B1830 = {"title": "1830", "phase": "5",
         "tiles": [{"hex": "F4", "tile": "15", "rotation": 5}, {"hex": "G5", "tile": "7", "rotation": 2},
                   {"hex": "G7", "tile": "1", "rotation": 1}, {"hex": "G9", "tile": "8", "rotation": 5},
                   {"hex": "H10", "tile": "15", "rotation": 2}],
         "tokens": [{"hex": "F4", "city": 0, "company": "B&O"}, {"hex": "H10", "city": 0, "company": "PRR"}]}
D_ROUTE = ["F4-0", "F6-0", "G7-0", "H10-0", "H12-0"]
# Its chains as the engine writes them walking from Toledo: F4 -> G5 -> F6 (tile 7 in G5), F6 -> G7 (the
# town tile 1 in G7 has two towns: its first, G7-0), G7 -> G9 -> H10, H10 -> H12.
D_CONNECTIONS = [["F4", "G5", "F6"], ["F6", "G7"], ["G7", "G9", "H10"], ["H10", "H12"]]


def evaluate_one(board, company, route):
    return evaluate({"board": board, "company": company, "routes": [route]})


# ---- the chain ids of in-hex paths, as the engine writes them -----------------------------------------

def _in_hex_cases():
    return [json.loads(line) for line in (DATA / "in_hex_paths.jsonl").read_text().splitlines() if line]


@pytest.mark.parametrize("case", _in_hex_cases(), ids=lambda c: f"{c['title']}-{c['tile']}")
def test_in_hex_path_chain_ids_are_the_engines(case):
    # The tile alone on a one-hex custom map: its in-hex chains are exactly the engine's in-hex paths.
    hex_name = "A1"
    board = {"title": "custom", "custom": {"hexes": [{"hex": hex_name, "code": case["code"], "color": "green"}]}}
    graph = graph_for(board)
    in_hex = {}
    for chain in graph.chains:
        if len(chain.paths) == 1 and all(graph.nodes[v].hex == hex_name for v in (chain.a, chain.b)):
            in_hex[tuple(sorted((graph.nodes[chain.a].part, graph.nodes[chain.b].part)))] = chain
    expected = {tuple(sorted(p["nodes"])): [x.replace("<hex>", hex_name) for x in p["chain_id"]]
                for p in case["in_hex_paths"]}
    assert {k: graph.connection(c, c.a) for k, c in in_hex.items()} == expected
    for chain in in_hex.values():   # read back, either way round
        assert graph.chains_for(graph.connection(chain, chain.b)) == [chain]


def test_one_in_hex_path_is_the_plain_hex_and_two_are_ambiguous():
    # 1860's tile 773 (two cities joined by one in-hex path) writes ["<hex>"]; tile 787 (city, town and
    # halt, with two node-to-node paths) writes "<hex> 0.1" and "<hex> 1.2" (rules/base.md section 8).
    one = graph_for({"title": "custom", "custom": {"hexes": [{"hex": "B2", "color": "brown", "code":
        "city=revenue:60,slots:2;city=revenue:20;path=a:1,b:_0;path=a:0,b:_1;path=a:_0,b:_1"}]}})
    chain = next(c for c in one.chains if len(c.paths) == 1)
    assert one.connection(chain, chain.a) == ["B2"]
    two = graph_for({"title": "custom", "custom": {"hexes": [{"hex": "B2", "color": "green", "code":
        "city=revenue:20;town=revenue:10;halt=symbol:£;path=a:0,b:_2;path=a:_2,b:_1;path=a:_0,b:_1"}]}})
    ids = sorted(two.connection(c, c.a)[0] for c in two.chains if len(c.paths) == 1)
    assert ids == ["B2 0.1", "B2 1.2"]


# ---- junctions ---------------------------------------------------------------------------------------------

def junction_board():
    """A1 (city 20, token) - A3 (a junction tile: three paths meet in the middle) - A5 (city 30);
    the junction's third arm runs to B4 (town 10, and on to nothing). Pointy layout: A3's edge 1 faces A1,
    edge 4 faces A5, edge 5 faces B4."""
    hexes = [{"hex": "A1", "code": "city=revenue:20;path=a:4,b:_0"},
             {"hex": "A3", "code": "junction;path=a:1,b:_0;path=a:4,b:_0;path=a:5,b:_0"},
             {"hex": "A5", "code": "city=revenue:30;path=a:1,b:_0"},
             {"hex": "B4", "code": "town=revenue:10;path=a:2,b:_0"}]
    board = {"title": "custom", "custom": {"hexes": hexes, "trains": [{"name": "2", "distance": 2}]},
             "tokens": [{"hex": "A1", "city": 0, "company": "X"}]}
    return board, {"id": "X", "trains": [{"name": "2"}]}


def test_a_junction_hex_is_written_once():
    board, company = junction_board()
    graph = graph_for(board)
    a1, a5 = graph.by_name["A1-0"], graph.by_name["A5-0"]
    chain = next(c for c in graph.chains if {c.a, c.b} == {a1, a5})
    assert len(chain.paths) == 4                        # A1's path, two of A3's, A5's
    assert graph.connection(chain, a1) == ["A1", "A3", "A5"]
    best = solve({"board": board, "company": company})
    assert best["revenue"] == 50                        # 20 + 30; the town route pays 30
    assert best["routes"][0]["connections"] == [{"hexes": ["A1", "A3", "A5"]}]
    assert best["run_routes"]["routes"][0]["connections"] == [["A1", "A3", "A5"]]
    back = evaluate_one(board, company, {"train": "2-0", "connections": [{"hexes": ["A5", "A3", "A1"]}]})
    assert back["legal"] and back["revenue"] == 50


# ---- the shapes real actions come in -----------------------------------------------------------------------

def chain_end_nodes(connections, graph):
    """`nodes` as the engine writes them: each chain's start then its end, in the direction each entry is
    written, duplicates dropped."""
    out = []
    for entry in connections:
        chain = graph.chains_for(entry)[0]
        start = chain.a if graph.connection(chain, chain.a) == list(entry) else chain.b
        for v in (start, chain.other(start)):
            name = graph.nodes[v].name
            if name not in out:
                out.append(name)
    return out


@pytest.mark.parametrize("shape", ["visit order", "chain-end order", "no nodes", "connections turned",
                                   "train id", "display fields"])
def test_real_route_shapes_read_as_the_engine_reads_them(shape):
    company = {"id": "B&O", "trains": [{"name": "D"}]}
    connections = [list(c) for c in D_CONNECTIONS]
    route = {"train": "D", "nodes": list(D_ROUTE), "connections": [{"hexes": c} for c in connections]}
    if shape == "chain-end order":
        turned = [c[::-1] if i % 2 == 0 else c for i, c in enumerate(connections)]
        route = {"train": "D", "connections": [{"hexes": c} for c in turned],
                 "nodes": chain_end_nodes(turned, graph_for(B1830))}
        assert route["nodes"] != D_ROUTE     # the shape differs from visit order
    elif shape == "no nodes":
        del route["nodes"]
    elif shape == "connections turned":
        route["connections"] = [{"hexes": c[::-1]} for c in connections]
    elif shape == "train id":
        route["train"] = "D-0"
    elif shape == "display fields":
        route.update(hexes=["F4", "G5"], revenue=999, revenue_str="999 (x)", subsidy=5)
    result = evaluate_one(B1830, company, parse_request(
        {"board": B1830, "company": company, "routes": [route]}, revenue_pb2.EvaluateRequest)["routes"][0])
    # Toledo 30 + Cleveland 30 + Akron 10 (town) + Pittsburgh 30 + Altoona 10, phase 5 values: 110.
    assert result["legal"] and result["revenue"] == 110
    assert result["routes"][0]["nodes"] == D_ROUTE
    assert [c["hexes"] for c in result["routes"][0]["connections"]] == D_CONNECTIONS


def test_a_stored_run_routes_action_is_read_unchanged():
    # As 18xx.games stores it: ids, user and time of its own, display fields, the company's trains by id.
    action = {"type": "run_routes", "entity": "B&O", "entity_type": "corporation", "id": 412, "user": 7,
              "created_at": 1700000000, "auto_routed": True,
              "routes": [{"train": "2-0", "connections": [["F4", "F2"]], "hexes": ["F4", "F2"], "revenue": 100,
                          "revenue_str": "100", "nodes": ["F4-0", "F2-0"]},
                         {"train": "D-0", "connections": [c[::-1] for c in D_CONNECTIONS], "revenue": 110}]}
    request = parse_request({"board": B1830, "run_routes": action}, revenue_pb2.EvaluateRequest)
    result = evaluate(request)
    # Chicago 70 (brown value of the off-board) + Toledo 30 = 100 for the 2-train, and the D route: 110.
    assert result["legal"] and result["revenue"] == 210
    assert [r["train"] for r in result["routes"]] == ["2", "D"]
    assert result["routes"][1]["nodes"] == D_ROUTE     # entries in route order, each turned: same route


def test_connections_with_their_hexes_sorted_read_as_the_route():
    # Exports of 2020 (the engine's fixture 1889/956.json) wrote each connection's hexes sorted by name:
    # F4 -> G5 -> F6 as ["F4", "F6", "G5"]; entries are still in route order and join at shared nodes.
    company = {"id": "B&O", "trains": [{"name": "D"}]}
    walked = evaluate_one(B1830, company, {"train": "D", "connections": [{"hexes": c} for c in D_CONNECTIONS]})
    result = evaluate_one(B1830, company, {"train": "D", "connections": [{"hexes": sorted(c)} for c in D_CONNECTIONS]})
    assert [sorted(c) for c in D_CONNECTIONS] != D_CONNECTIONS
    assert result["legal"] and result["routes"][0]["nodes"] == D_ROUTE and result["revenue"] == walked["revenue"]


def test_connections_that_do_not_join_are_not_connected():
    company = {"id": "B&O", "trains": [{"name": "D"}]}
    route = {"train": "D", "connections": [{"hexes": D_CONNECTIONS[0]}, {"hexes": D_CONNECTIONS[2]}]}
    result = evaluate_one(B1830, company, route)
    assert not result["legal"] and result["routes"][0]["error"]["rule"] == "not_connected"


def test_a_route_of_a_thousand_connections_is_read_and_checked_without_recursion():
    # One connection walked there and back again a thousand times (the most a list may hold): its entries
    # join end to end, each one deeper than the one before, beyond Python's recursion limit.
    there = D_CONNECTIONS[3]
    connections = [there if i % 2 == 0 else there[::-1] for i in range(1000)]
    assert len(connections) >= sys.getrecursionlimit()
    action = {"type": "run_routes", "entity": "PRR", "routes": [{"train": "D-0", "connections": connections}]}
    result = evaluate(parse_request({"board": B1830, "run_routes": action}, revenue_pb2.EvaluateRequest))
    route = result["routes"][0]
    assert not result["legal"] and route["error"]["rule"] == "node_twice"
    assert len(route["nodes"]) == 1001 and set(route["nodes"]) == {"H10-0", "H12-0"}


def test_a_connection_that_is_no_chain_names_the_entry():
    company = {"id": "B&O", "trains": [{"name": "D"}]}
    with pytest.raises(InputError) as err:
        evaluate_one(B1830, company, {"train": "D", "connections": [{"hexes": ["F4", "G5", "F6"]},
                                                                    {"hexes": ["F6", "Q99"]}]})
    assert err.value.field == "routes[0].connections[1]" and "'Q99'" in err.value.description


def test_a_train_id_the_company_lacks_is_bad_input():
    with pytest.raises(InputError) as err:
        evaluate_one(B1830, {"id": "B&O", "trains": [{"name": "D"}]}, {"train": "4-0", "nodes": D_ROUTE})
    assert err.value.field == "routes[0].train" and "'4-0'" in err.value.description


def test_answer_carries_run_routes_with_the_requests_train_ids():
    company = {"id": "B&O", "trains": [{"name": "2", "id": "2-3"}, {"name": "D", "id": "D-1"}]}
    result = solve({"board": B1830, "company": company})
    action = result["run_routes"]
    assert action["type"] == "run_routes" and action["entity"] == "B&O"
    assert sorted(r["train"] for r in action["routes"]) == ["2-3", "D-1"]
    back = evaluate({"board": B1830, "company": company, "run_routes": action})
    assert back["legal"] and back["revenue"] == result["revenue"]


# ---- round trip on random boards of every title ----------------------------------------------------------

def title_board(title: str, seed: int) -> dict:
    rng = random.Random(seed)
    if title == "18rhl":
        options = {"coal": "D11", "steel": "D13"}
        lays, company, trains = rhl_lays(("yellow", "green", "brown"), 0.8, seed, options), "BME", ["4", "6"]
    else:
        options = {}
        lays = lay_tiles(title, ("yellow", "green", "brown"), rng.choice([0.6, 0.9]), seed)
        company, trains = {"1830": ("PRR", ["4", "5"]), "steam_over_holland": ("NCS", ["4", "3E"]),
                           "1860": ("IOW", ["4+2", "6+3"])}[title]
    tokens = place_tokens(title, lays, company, 2, 6, seed, options)
    board = {"title": title, "phase": {"1830": "5", "steam_over_holland": "5", "18rhl": "6", "1860": "6"}[title],
             "tiles": lays, "tokens": tokens, "options": options}
    return {"board": board, "company": {"id": company, "trains": [{"name": t} for t in trains]}}


def requests_of_every_title():
    out = [(f"{title} {seed}", title_board(title, seed))
           for title in ("1830", "steam_over_holland", "18rhl", "1860") for seed in range(6)]
    for seed in range(40):
        board, company, _ = random_board(seed)
        out.append((f"custom {seed}", {"board": board, "company": company}))
    return out


@pytest.mark.parametrize("label,request_", requests_of_every_title(), ids=lambda x: x if isinstance(x, str) else "")
def test_solved_routes_read_back_from_their_connections_alone(label, request_):
    result = solve(request_)
    graph = graph_for(request_["board"])
    rng = random.Random(label)
    action = result["run_routes"]
    stored = []
    for route in action["routes"]:
        turned = [c[::-1] if rng.random() < 0.5 else list(c) for c in route["connections"]]
        stored.append({"train": route["train"], "connections": turned, "nodes": chain_end_nodes(turned, graph)})
    back = evaluate(parse_request({"board": request_["board"], "company": request_["company"],
                                   "run_routes": {**action, "routes": stored}}, revenue_pb2.EvaluateRequest))
    assert back["legal"], back
    assert back["revenue"] == result["revenue"]
    for solved, read in zip(result["routes"], back["routes"]):
        assert read["revenue"] == solved["revenue"]
        if len(solved["nodes"]) > 2:     # a one-chain route may be read either way round
            assert read["nodes"] == solved["nodes"]
            assert read["connections"] == solved["connections"]
        else:
            assert read["nodes"] in (solved["nodes"], solved["nodes"][::-1])


def test_answer_names_and_connections_read_at_the_routes_nodes_match_the_graphs():
    """evaluate.node_names and chain_connections (read at an answer's nodes and chains alone) give
    Graph.node_name and Graph.connection_of, for every node and every chain from either end, on the
    game-server scenario's boards of every title and on random boards (in-hex path ids among them)."""
    from benchmarks.scenarios import game_sequences
    from revenue.evaluation import chain_connections, node_names

    graphs = [graph_for(b.request["board"]) for boards in game_sequences(seed=5).values() for b in boards[::10]]
    graphs += [graph_for(random_board(seed)[0]) for seed in range(20)]
    chains_read = 0
    for graph in graphs:
        every = list(range(graph.n_nodes))
        assert node_names(graph, every) == [graph.node_name(v) for v in every]
        assert node_names(graph, every[::-1]) == [graph.node_name(v) for v in every][::-1]
        chains = list(range(len(graph.chain_a)))
        for ends in (graph.chain_a, graph.chain_b):
            assert chain_connections(graph, chains, ends.tolist()) == [
                graph.connection_of(c, v) for c, v in zip(chains, ends.tolist())]
        chains_read += len(chains)
    assert chains_read > 1000
