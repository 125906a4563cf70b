"""Every route the walk stores, and every route a refit keeps (revenue.optimizer.trains.route_parents),
earns what the Python twin of the pricing says (revenue.route_price.price_route, with the optimizer's weights),
route by route: the kernels price most routes from each distance row's counts and sums (core.pricing.best_rows_revenue)
and call the whole-route price() only where that cannot decide, so both readings are compared on random
boards with row trains (pay fewer stops than they visit, spill) and on the game-server benchmark's 1860
and 18Rhl boards (n+m trains, halts and subsidies; merged stops, metropolises)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from benchmarks.scenarios import game_sequences
from revenue.company import build_company
from revenue.graph_cache import graph_for
from revenue.optimizer.adjacency import adjacency, reachable
from revenue.optimizer.routeset import all_routes
from revenue.optimizer.trains import route_parents
from revenue.problem import compile_problem, objective_weights
from revenue.route_price import price_route

from .boards import TRAIN_POOL, linked_board
from .profiles import examples

ROW_TRAINS = [t for t in TRAIN_POOL if "rows" in t]


def check_prices(board: dict, company: dict, objective: str = "revenue") -> int:
    """Asserts each stored route's score is its price; returns how many routes were compared."""
    graph = graph_for(board)
    problem = compile_problem(graph, build_company(company, graph.board))
    if not problem.token.any():
        return 0
    weights = objective_weights(problem, objective)
    adj, allowed, stop = adjacency(problem), reachable(problem), np.zeros(1, dtype=np.int64)
    parents = route_parents(problem)
    sets: dict = {}
    compared = 0
    for train in sorted(problem.specs, key=lambda t: t in parents):    # walked types first
        if train in parents:
            sets[train] = sets[parents[train]].refit(train)
        else:
            sets[train] = all_routes(problem, train, adj, allowed, stop, weights)
        routes = sets[train]
        assert routes.complete
        spec = problem.specs[train]
        for i in range(len(routes)):
            nodes = routes.nodes[routes.begin[i]:routes.end[i]].tolist()
            price = price_route(problem, spec, nodes, weights=weights)
            assert price is not None, (train, nodes)
            assert weights[0] * price.revenue + weights[1] * price.subsidy == routes.rev[i], (train, nodes)
            compared += 1
    return compared


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_stored_routes_earn_their_price_on_random_boards(seed):
    board, company, _ = linked_board(seed, width=(3, 4), height=(3, 4), link=0.7, pool=ROW_TRAINS)
    check_prices(board, company)


def test_stored_routes_earn_their_price_on_game_boards():
    compared = 0
    for title, boards in game_sequences(seed=0).items():
        if title not in ("1860", "18rhl"):
            continue
        for board in boards[::6]:
            for objective in ("revenue", "revenue_and_subsidy") if title == "1860" else ("revenue",):
                compared += check_prices(board.request["board"], board.request["company"], objective)
    assert compared > 10_000


def test_rows_revenue_decides_as_the_route_read_does():
    """core.pricing.rows_revenue (from the rows' counts and sums; rows of at most two values) says what
    best_rows_revenue (which reads the route's stops) says, wherever it decides; random routes over
    rows of one value, two values and more, with tokens and spills."""
    from numba import njit

    from revenue.core.pricing import UNDECIDED, best_rows_revenue, rows_revenue, two_valued

    @njit
    def rows_revenue_call(count, total, has_token, row_pay, spill_from, spill_to, spill_next, token_paid, low, high):
        return rows_revenue(count, total, has_token, row_pay, spill_from, spill_to, spill_next, token_paid, low, high)

    rng = np.random.default_rng(17)
    decided = undecided = 0
    for _ in range(3000):
        n_rows = int(rng.integers(1, 4))
        n = int(rng.integers(4, 30))
        row = rng.integers(0, n_rows, n)
        levels = [rng.choice([10, 20, 30, 40, 50, 60], size=int(rng.integers(1, 4)), replace=False)
                  for _ in range(n_rows)]
        value = np.array([rng.choice(levels[r]) for r in row], dtype=np.int64)
        token = rng.random(n) < 0.2
        row_pay = rng.integers(0, 5, n_rows)
        spill = n_rows >= 2 and rng.random() < 0.5
        spill_from, spill_to = (0, 1) if spill else (-1, -1)
        spill_next = 2 if spill and n_rows == 3 and rng.random() < 0.5 else -1
        token_paid = np.int64(rng.random() < 0.7)
        path = rng.permutation(n)[:int(rng.integers(1, n + 1))].astype(np.int64)
        count = np.bincount(row[path], minlength=n_rows).astype(np.int64)
        total = np.bincount(row[path], weights=value[path], minlength=n_rows).astype(np.int64)
        has_token = np.array([token[path][row[path] == r].any() for r in range(n_rows)])
        low, high = two_valued(row, value, n_rows)
        args = (count, total, has_token, row_pay, np.int64(spill_from), np.int64(spill_to), np.int64(spill_next),
                token_paid)
        got = rows_revenue_call(*args, low, high)
        want = best_rows_revenue(path, len(path), row, value, token, *args[:3], row_pay, *args[4:],
                                 np.empty(n + 1, dtype=np.int64))
        if got == UNDECIDED:
            undecided += 1
            assert any(len(lv) > 2 for lv in levels) or has_token.any()
        else:
            decided += 1
            assert got == want
    assert decided > 1000 and undecided > 100


def test_objective_weights_sum_over_every_train():
    # objective_weights' weights as its docstring defines them, summed over the company's trains one by one
    # (1860's boards have subsidies; a type twice in a company counts twice)
    compared = 0
    for board in game_sequences(0)["1860"][::6]:
        request = board.request
        trains = request["company"]["trains"]
        for company in (request["company"], {**request["company"], "trains": trains + trains[:1]}):
            graph = graph_for(request["board"])
            problem = compile_problem(graph, build_company(company, graph.board))
            specs = [problem.specs[t.name] for t in problem.company.trains]
            total_sub = sum(int(spec.sub.sum()) for spec in specs if spec.rules.subsidy)
            most = 1 + sum(int(np.maximum(s.base * np.maximum(s.alt_mult, 1) + s.bonus, 0).sum())
                           + int(np.maximum(s.rule_amount, 0).sum()) for s in specs)
            assert objective_weights(problem, "revenue") == ((total_sub + 1, 1) if total_sub else (1, 0))
            assert objective_weights(problem, "revenue_and_subsidy") == ((most + 1, most) if total_sub else (1, 0))
            compared += total_sub > 0
    assert compared > 0
