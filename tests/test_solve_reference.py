"""The optimizer against the brute-force reference on many random boards, and every answer re-checked
by the evaluator."""
from __future__ import annotations

from hypothesis import event, given, settings, strategies as st

from revenue.evaluation import evaluate
from revenue.optimizer import solve

from . import hits
from .boards import linked_board, random_board
from .profiles import examples
from .ref_board import ref_board
from .reference import answer_of, best_run


def _reference_trains(trains):
    return [{"name": t["name"], "distance": t.get("distance") or t["rows"]} for t in trains]


def board_for(seed):
    """Odd seeds: random_board's small boards of odd tiles; even seeds: linked boards, larger, with longer
    runs and more trains running."""
    return random_board(seed) if seed % 2 else linked_board(seed, width=(3, 5), height=(3, 4), link=0.65)


@settings(max_examples=examples(250))
@given(st.integers(0, 2**31 - 1))
def test_optimizer_matches_reference(seed):
    board_req, company_req, trains = board_for(seed)
    result = solve({"board": board_req, "company": company_req})
    expected, _, reading = best_run(ref_board(board_req), "A", _reference_trains(trains), answer=answer_of(result))
    event(f"trains running: {len(result['routes'])}")
    assert result["optimal"] is True
    assert result["revenue"] == expected, f"seed {seed}"
    assert result["upper_bound"] == expected
    # The reference reads the answer too: a legal run, each route worth what the optimizer says.
    assert reading == (expected, [r["revenue"] for r in result["routes"]]), reading
    check = evaluate({"board": board_req, "company": company_req,
                      "routes": [{"train": r["train"], "nodes": r["nodes"], "connections": r["connections"]}
                                 for r in result["routes"]]})
    assert check["legal"], check
    assert check["revenue"] == result["revenue"]
    assert [r["revenue"] for r in check["routes"]] == [r["revenue"] for r in result["routes"]]


def test_linked_boards_are_not_trivial():
    # The linked boards the property test draws (even seeds), on fixed seeds: few empty answers, a choice
    # of routes, runs of several trains.
    n = examples(60)
    answers = [solve({"board": b, "company": c}) for b, c, _ in (board_for(2 * k) for k in range(n))]
    nonzero = hits.record("linked custom boards: optimum > 0", sum(a["revenue"] > 0 for a in answers), n)
    two = hits.record("linked custom boards: 2+ trains run", sum(len(a["routes"]) >= 2 for a in answers), n)
    three = hits.record("linked custom boards: 3 trains run", sum(len(a["routes"]) >= 3 for a in answers), n)
    choice = hits.record("linked custom boards: 5+ candidate routes",
                         sum(a["stats"]["candidate_routes"] >= 5 for a in answers), n)
    assert nonzero >= 0.8 and two >= 0.5 and three >= 0.15 and choice >= 0.35, (nonzero, two, three, choice)
