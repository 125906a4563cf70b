"""The answer's fast pricing (revenue.route_price.all_paid: every stop paid, read from the train's arrays at the
route's nodes) says what the general ranked reading (revenue.route_price.ranked_price) says, for every route it
takes, with the optimizer's weights and without: revenue, each stop's value, bonus lines in order, subsidy
and halts. Compared on every stored route of game-server boards of every title (per-stop bonuses in Steam
Over Holland, route bonuses, merges and alternative ends in 18Rhl, spill, halts and subsidies in 1860) and
of random boards of row trains; the route bonus clauses are compared with their plain reading on random
classes."""
from __future__ import annotations

import copy
import random

import numpy as np
from hypothesis import given, settings, strategies as st

from benchmarks.scenarios import game_sequences
from revenue.company import build_company
from revenue.graph_cache import graph_for
from revenue.optimizer.adjacency import adjacency, reachable
from revenue.optimizer.routeset import all_routes
from revenue.optimizer.trains import route_parents
from revenue.problem import compile_problem, objective_weights
from revenue.route_price import all_paid, ranked_price, route_bonuses
from revenue.titles.base import RouteBonus, RouteRules

from .boards import TRAIN_POOL, linked_board
from .profiles import examples


def with_stop_bonuses(spec, rng: random.Random):
    """A copy of `spec` paying per-stop bonuses (TrainSpec.bonus_names and bonus) at a few nodes, of one
    or two names (no stored route of the game-server boards visits Steam Over Holland's ferries)."""
    out = copy.copy(spec)
    out.bonus, out.bonus_names = spec.bonus.copy(), {}
    for v in rng.sample(range(len(spec.base)), min(len(spec.base), 6)):
        lines = [(rng.choice(("ferry", "port")), rng.randint(1, 4) * 10) for _ in range(rng.randint(1, 2))]
        out.bonus_names[v] = lines
        out.bonus[v] += sum(amount for _, amount in lines)
    return out


def compare(board: dict, company: dict, objective: str = "revenue", every: int = 1,
            bonuses: random.Random | None = None) -> tuple[int, int]:
    """Asserts all_paid agrees with ranked_price on the stored routes (each `every`-th), with per-stop
    bonuses added when `bonuses` is given (with_stop_bonuses; then the kernel's score is not theirs);
    returns how many routes all_paid took and how many it left to the ranked reading."""
    graph = graph_for(board)
    problem = compile_problem(graph, build_company(company, graph.board))
    if not problem.token.any():
        return 0, 0
    weights = objective_weights(problem, objective)
    adj, allowed, stop = adjacency(problem), reachable(problem), np.zeros(1, dtype=np.int64)
    parents = route_parents(problem)
    sets: dict = {}
    taken = left = 0
    for train in sorted(problem.specs, key=lambda t: t in parents):    # walked types first
        sets[train] = sets[parents[train]].refit(train) if train in parents else \
            all_routes(problem, train, adj, allowed, stop, weights)
        routes, spec = sets[train], problem.specs[train]
        if bonuses is not None:
            spec = with_stop_bonuses(spec, bonuses)
        for i in range(0, len(routes), every):
            path = routes.nodes[routes.begin[i]:routes.end[i]]
            nodes = path.tolist()
            fast = all_paid(problem, spec, path, nodes)
            if fast is None:
                left += 1
                continue
            taken += 1
            revenue, values, lines, subsidy, halts = fast
            assert bonuses is not None or weights[0] * revenue + weights[1] * subsidy == routes.rev[i], (train, nodes)
            for w in (weights, None):
                ranked = ranked_price(problem, spec, nodes, weights=w)
                assert (ranked.revenue, ranked.bonuses, ranked.subsidy, ranked.halts) == \
                    (revenue, lines, subsidy, halts), (train, nodes, w)
                assert ranked.stops == [(v, value, True) for v, value in zip(nodes, values)], (train, nodes, w)
    return taken, left


def test_all_paid_is_the_ranked_reading_on_game_boards():
    taken: dict[str, int] = {}
    for title, boards in game_sequences(seed=0).items():
        for board in boards[::4]:
            for objective in ("revenue", "revenue_and_subsidy") if title == "1860" else ("revenue",):
                t, _ = compare(board.request["board"], board.request["company"], objective)
                taken[title] = taken.get(title, 0) + t
    assert len(taken) == 4 and all(n > 400 for n in taken.values()), taken


def test_all_paid_is_the_ranked_reading_with_stop_bonuses():
    rng = random.Random(3)
    taken = left = 0
    for title, boards in game_sequences(seed=0).items():
        for board in boards[::25]:
            t, l = compare(board.request["board"], board.request["company"], bonuses=rng)
            taken, left = taken + t, left + l
    assert taken > 400 and left > 400, (taken, left)


@settings(max_examples=examples(40), deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_all_paid_is_the_ranked_reading_on_random_boards(seed):
    board, company, _ = linked_board(seed, width=(3, 4), height=(3, 4), link=0.7,
                                     pool=[t for t in TRAIN_POOL if "rows" in t])
    compare(board, company)


class _Spec:
    def __init__(self, bonuses):
        self.rules = RouteRules(bonuses=bonuses)


def test_route_bonus_clauses_count_distinct_classes():
    rng = random.Random(7)
    for _ in range(3000):
        bonuses = []
        for b in range(rng.randint(1, 4)):
            clauses = [({v: rng.randint(0, 3) for v in rng.sample(range(12), rng.randint(0, 6))}, rng.randint(0, 3))
                       for _ in range(rng.randint(1, 3))]
            bonuses.append(RouteBonus(f"b{b}", rng.randint(1, 9) * 10, clauses))
        nodes = rng.sample(range(12), rng.randint(2, 7))
        plain = [(b.name, b.amount) for b in bonuses
                 if all(len({classes[v] for v in nodes if v in classes}) >= minimum for classes, minimum in b.clauses)]
        assert route_bonuses(_Spec(bonuses), nodes) == plain, (bonuses, nodes)
