"""The optimizer against the brute-force reference on many random boards, and every answer re-checked
by the evaluator."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from revenue.evaluate import evaluate
from revenue.solve import solve

from .boards import random_board
from .profiles import examples
from .ref_board import ref_board
from .reference import best_run


def _reference_trains(trains):
    return [{"name": t["name"], "distance": t.get("distance") or t["rows"]} for t in trains]


@settings(max_examples=examples(250))
@given(st.integers(0, 2**31 - 1))
def test_optimizer_matches_reference(seed):
    board_req, company_req, trains = random_board(seed)
    result = solve({"board": board_req, "company": company_req})
    expected, _ = best_run(ref_board(board_req), "A", _reference_trains(trains))
    assert result["optimal"] is True
    assert result["revenue"] == expected, f"seed {seed}"
    assert result["upper_bound"] == expected
    check = evaluate({"board": board_req, "company": company_req,
                      "routes": [{"train": r["train"], "nodes": r["nodes"], "connections": r["connections"]}
                                 for r in result["routes"]]})
    assert check["legal"], check
    assert check["revenue"] == result["revenue"]
    assert [r["revenue"] for r in check["routes"]] == [r["revenue"] for r in result["routes"]]
