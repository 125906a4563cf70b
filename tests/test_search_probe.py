"""core.probe.walk_and_combine's one returned array: the keys and node sets it holds after the routes
(core.probe.out_keys, out_node_sets) are those the step-by-step combination builds from the same routes."""
from __future__ import annotations

import time

import numpy as np

from benchmarks.scenarios import title_scenarios
from revenue import solve as solve_module
from revenue.company import build_company
from revenue.graph import graph_for
from revenue.problem import compile_problem

from .boards import random_board


def _problem(request):
    graph = graph_for(request["board"])
    return compile_problem(graph, build_company(request["company"], graph.board))


def test_the_kernels_keys_and_node_sets_are_the_step_by_step_ones():
    requests = [{"board": b, "company": c} for b, c, _ in (random_board(seed, max_trains=4) for seed in range(30))]
    requests += [sc.request for sc in title_scenarios() if sc.title == "1860"]     # (a connected run)
    compared = connected = 0
    for request in requests:
        problem = _problem(request)
        if not problem.company.trains or not np.count_nonzero(problem.token):
            continue
        search = solve_module.Search(problem, time.perf_counter(), None, None, None)
        parents = solve_module.route_parents(problem)
        cap = solve_module.bounded.capacity(problem, search.memory_mb, len(problem.specs) - len(parents))
        if not search._at_once(parents, cap, solve_module.AT_ONCE_STEPS) or search.combination is None:
            continue
        fused = search.combination
        built = solve_module.Combination(problem, list(problem.company.trains), search.sets)
        assert fused.keys.dtype == np.uint64 and fused.keys.shape == (len(fused.rev), problem.words)
        assert np.array_equal(fused.keys, built.keys), request
        assert np.array_equal(fused.node_sets, built.node_sets), request
        compared += 1
        connected += problem.run.connected
    assert compared >= 20 and connected >= 1
