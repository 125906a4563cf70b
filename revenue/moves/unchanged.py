"""Whether the board a lay makes poses the solver the same problem as the board before it (many lays only
add track that leads to no stop): the same nodes in the same order with the same values, tokens and limits,
the same chains between them through the same hexes, the same track shared between chains, and the same
arrays and rules of every train type. The same problem has the same best run, so value.py takes the
request's without a search.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ..company import build_company
from ..graph_cache import graph_for
from ..problem import Problem, TrainSpec, compile_problem

# TrainSpec fields that say nothing about the routes: the train type (the same company's), an identity
# token of specs that walk alike, the bonuses' display names
_SPEC_FIELDS = tuple(f.name for f in dataclasses.fields(TrainSpec) if f.name not in ("train", "walk", "bonus_names"))
_NODE_ARRAYS = ("token", "blocks", "bypassable", "cost")


def problem_of(request: dict) -> Problem | None:
    """The solver's problem for the request's board and company (None when the company has no train)."""
    graph = graph_for(request.get("board") or {})
    company = build_company(request.get("company") or {}, graph.board)
    return compile_problem(graph, company) if company.trains else None


def problem_print(problem: Problem):
    """What the search of `problem` depends on, comparable between two boards of one map, part by part,
    the cheapest first (so that two prints differ early): the nodes, the company's node arrays, the train
    types' arrays and rules, the run's rules, the chains and the track they share (None when two chains
    look alike, which the print could not tell apart)."""
    graph = problem.graph
    nodes = tuple((n.name, n.kind, n.value, n.slots, n.tokens, n.groups, n.visit_cost, n.city_index, n.icons)
                  for n in graph.nodes)
    yield nodes
    yield tuple(_comparable(getattr(problem, name)) for name in _NODE_ARRAYS)
    yield tuple((name, tuple(_comparable(getattr(spec, f)) for f in _SPEC_FIELDS))
                for name, spec in sorted(problem.specs.items()))
    yield problem.run
    names = [n[0] for n in nodes]
    # (read from the track's arrays: the Chain objects cost more to build than the whole comparison)
    chain_start, chain_paths, path_hex, _ = graph.track.walk_lists()
    hex_names = graph.sides.names
    path_hexes = [hex_names[h] for h in path_hex]
    chains = [(names[a], names[b], tuple(path_hexes[p] for p in chain_paths[chain_start[c]:chain_start[c + 1]]),
               terminal_a, terminal_b, terminal_inner)
              for c, (a, b, terminal_a, terminal_b, terminal_inner) in enumerate(zip(
                  graph.chain_a.tolist(), graph.chain_b.tolist(), graph.term_a.tolist(), graph.term_b.tolist(),
                  graph.term_inner.tolist()))]
    if len(set(chains)) < len(chains):
        yield None
        return
    by_key: dict[int, list] = {}
    key_start, key_list = graph.key_start.tolist(), graph.key_list.tolist()
    for c, chain in enumerate(chains):
        for key in key_list[key_start[c]:key_start[c + 1]]:
            by_key.setdefault(key, []).append(chain)
    yield frozenset(chains), frozenset(frozenset(group) for group in by_key.values() if len(group) > 1)


def same_problem(before: list, problem: Problem) -> bool:
    """Whether `problem` prints as `before` (list(problem_print(...)) of the other board's problem)."""
    if None in before:
        return False
    return all(part is not None and part == want for want, part in zip(before, problem_print(problem)))


def _comparable(value):
    if isinstance(value, np.ndarray):
        return value.dtype.str, value.shape, value.tobytes()
    return value
