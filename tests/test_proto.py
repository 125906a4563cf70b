"""The contract: committed generated modules are current, examples parse into their messages, and the
library's results convert into the response messages."""
from __future__ import annotations

import json
import pathlib
import sys

import pytest
from google.protobuf import json_format

from revenue import api
from revenue.errors import InputError
from revenue.evaluation import evaluate
from revenue.v1 import revenue_pb2

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("evaluate_*.json"))
sys.path.insert(0, str(ROOT / "scripts"))


def test_generated_modules_are_up_to_date(tmp_path):
    pytest.importorskip("grpc_tools")
    import gen_proto

    gen_proto.generate(tmp_path)
    fresh = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.py*") if p.is_file())
    assert fresh, "protoc generated nothing"
    for rel in fresh:
        committed = ROOT / rel
        assert committed.exists(), f"{rel} is not committed: run scripts/gen_proto.py"
        assert committed.read_text() == (tmp_path / rel).read_text(), f"{rel} is stale: run scripts/gen_proto.py"


def test_one_example_per_title_and_1860s_leased_train_and_halts():
    assert {p.name for p in EXAMPLES} == {"evaluate_1830.json", "evaluate_steam_over_holland.json",
                                          "evaluate_18rhl.json", "evaluate_1860.json", "evaluate_1889.json",
                                          "evaluate_custom.json", "evaluate_1860_leased.json",
                                          "evaluate_1860_halts.json"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_parses_and_result_converts(path):
    raw = json.loads(path.read_text())
    json_format.Parse(path.read_text(), revenue_pb2.EvaluateRequest())   # strict: no unknown fields
    request = api.load_request(path, revenue_pb2.EvaluateRequest)
    assert request["board"]["title"] == raw["board"]["title"]
    result = evaluate(request)
    assert result["legal"] is True
    message = api.to_message(result, revenue_pb2.EvaluateResponse)
    assert message.revenue == result["revenue"] > 0
    assert [r.train for r in message.routes] == [r["train"] for r in raw["routes"]]
    back = json.loads(api.to_json(result, revenue_pb2.EvaluateResponse))
    assert back["revenue"] == result["revenue"] and back["legal"] is True


def test_illegal_result_converts():
    request = api.load_request(EXAMPLES[0], revenue_pb2.EvaluateRequest)
    request["routes"][0]["nodes"] = ["F6-0", "G7-0"]   # no token on the second route in any example
    request["routes"][0].pop("connections", None)      # else the route is read from its connections
    result = evaluate(request)
    message = api.to_message(result, revenue_pb2.EvaluateResponse)
    assert not message.legal
    assert any(r.error.rule for r in message.routes)


def test_load_request_defaults_are_dropped_and_tolerated():
    text = json.dumps({"board": {"title": "1830", "tiles": [{"hex": "F4", "tile": "57", "rotation": 0}],
                                 "tokens": [{"hex": "F4", "city": 0, "company": "B&O"}]},
                       "company": {"id": "B&O"}})
    request = api.load_request(text, revenue_pb2.EvaluateRequest)
    assert request["board"]["tiles"] == [{"hex": "F4", "tile": "57"}]      # proto3 drops rotation 0
    assert evaluate(request) == {"legal": True, "revenue": 0, "subsidy": 0, "routes": []}


@pytest.mark.parametrize("obj, field", [
    ({"board": {"tiles": [{"hex": 5}]}}, "board.tiles[0].hex"),
    ({"board": {"tiles": {"hex": "A1"}}}, "board.tiles"),
    ({"board": {"tokens": [{"city": "one"}]}}, "board.tokens[0].city"),
    ({"board": {"tokens": [{"city": 2**40}]}}, "board.tokens[0].city"),
    ({"company": {"trains": ["2"]}}, "company.trains[0]"),
    ({"company": {"privates": [1]}}, "company.privates[0]"),
    ({"routes": [{"nodes": ["A1-0"], "extra": 1}]}, "routes[0].extra"),
    ({"board": {"custom": {"trains": [{"rows": [{"pay": True}]}]}}}, "board.custom.trains[0].rows[0].pay"),
])
def test_wrong_shapes_name_the_field(obj, field):
    with pytest.raises(InputError) as e:
        api.load_request(json.dumps(obj), revenue_pb2.EvaluateRequest)
    assert e.value.field == field


def test_json_names_are_accepted_too():
    request = api.load_request('{"deadlineMs": 250, "board": {"title": "1830"}}', revenue_pb2.SolveRequest)
    assert request == {"deadline_ms": 250, "board": {"title": "1830"}}


def test_solve_response_shape():
    result = {"revenue": 50, "optimal": True, "upper_bound": 50,
              "routes": [{"train": "2", "revenue": 50, "nodes": ["H9-0", "F9-0"],
                          "connections": [{"hexes": ["H9", "G8", "F9"]}],
                          "stops": [{"node": "H9-0", "value": 20, "paid": True}]}],
              "stats": {"candidate_routes": 3, "nodes_explored": 7, "elapsed_ms": 1.5, "timed_out": False}}
    assert api.to_message(result, revenue_pb2.SolveResponse).stats.candidate_routes == 3


def test_list_titles_converts():
    message = api.to_message(api.list_titles(), revenue_pb2.ListTitlesResponse)
    assert len(message.titles) == 6
    beginner = next(o for t in message.titles if t.name == "1889" for o in t.options)
    assert beginner.name == "beginner_game" and beginner.changes_routes is False
