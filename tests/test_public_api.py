"""The public API of `import revenue`: the names the README documents, each the library's own function,
imported when first used (importing revenue alone loads no Numba)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

import revenue

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_the_documented_names_are_the_librarys_functions():
    from revenue.errors import InputError, Interrupted
    from revenue.evaluation import evaluate
    from revenue.optimizer import solve
    from revenue.payout import dividends
    from revenue.steam import deliveries

    assert revenue.solve is solve and revenue.evaluate is evaluate and revenue.dividends is dividends
    assert revenue.deliveries is deliveries and revenue.InputError is InputError and revenue.Interrupted is Interrupted
    from revenue.game.analysis import replay_game, suggest

    assert revenue.replay_game is replay_game and revenue.suggest is suggest
    from revenue.moves import legal_lays, legal_tokens, value_lays, value_tokens

    assert revenue.legal_lays is legal_lays and revenue.legal_tokens is legal_tokens
    assert revenue.value_lays is value_lays and revenue.value_tokens is value_tokens
    assert set(revenue.__all__) == {"solve", "evaluate", "dividends", "deliveries", "InputError", "Interrupted",
                                    "replay_game", "suggest", "legal_lays", "legal_tokens", "value_lays",
                                    "value_tokens"}
    with pytest.raises(AttributeError):
        revenue.no_such_name


def test_importing_revenue_loads_no_numba():
    code = "import sys, revenue; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_solve_and_evaluate_agree_through_the_public_names():
    request = json.loads((EXAMPLES / "solve_1830.json").read_text())
    answer = revenue.solve(request)
    assert answer["optimal"] and answer["revenue"] > 0
    checked = revenue.evaluate({**request, "routes": [
        {"train": r["train"], "nodes": r["nodes"]} for r in answer["routes"]]})
    assert checked["legal"] and checked["revenue"] == answer["revenue"]
    with pytest.raises(revenue.InputError):
        revenue.solve({"board": {"title": "no such title"}, "company": {"id": "X"}})
