"""The command line on the bundled examples (text and --json) and on bad input (exit 2, the field)."""
from __future__ import annotations

import json
import pathlib
import sys

import pytest
from click.testing import CliRunner

from revenue.cli import main

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
TOTALS = {"evaluate_1830.json": 210, "evaluate_steam_over_holland.json": 50, "evaluate_18rhl.json": 80,
          "evaluate_1860.json": 60, "evaluate_custom.json": 60}


def invoke(*args):
    # click >= 8.2 keeps stderr apart from stdout by default
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("name, total", TOTALS.items())
def test_evaluate_examples_text(name, total):
    r = invoke("evaluate", str(EXAMPLES / name))
    assert r.exit_code == 0, r.output
    assert f"total {total}" in r.stdout


@pytest.mark.parametrize("name, total", TOTALS.items())
def test_evaluate_examples_json(name, total):
    r = invoke("evaluate", str(EXAMPLES / name), "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["legal"] is True and out["revenue"] == total
    assert sum(route["revenue"] for route in out["routes"]) == total


def test_evaluate_text_shows_stops_and_values():
    r = invoke("evaluate", str(EXAMPLES / "evaluate_steam_over_holland.json"))
    assert "H9-0 (Utrecht) 20 -> F9-0 (Amsterdam) 30" in r.stdout
    assert "revenue 50" in r.stdout


def test_evaluate_illegal_route_shows_rule(tmp_path):
    req = json.loads((EXAMPLES / "evaluate_1830.json").read_text())
    req["routes"][1]["nodes"] = ["F4-0", "F6-0", "F4-0"]
    f = tmp_path / "r.json"
    f.write_text(json.dumps(req))
    r = invoke("evaluate", str(f))
    assert r.exit_code == 0
    assert "illegal (node_twice" in r.stdout and "illegal run" in r.stdout
    out = json.loads(invoke("evaluate", str(f), "--json").stdout)
    assert out["legal"] is False and out["revenue"] == 0
    assert out["routes"][1]["error"]["rule"] == "node_twice"


@pytest.mark.parametrize("change, field", [
    (lambda r: r["board"]["tiles"][0].update(rotation=7), "board.tiles[0].rotation: 7 is not in 0..5"),
    (lambda r: r["board"]["tiles"][0].update(rotation="x"), "board.tiles[0].rotation: \"x\" is not an integer"),
    (lambda r: r["board"].update(colour="red"), "board.colour: unknown field of Board"),
    (lambda r: r["company"]["trains"].append({"name": "9"}), "company.trains[2].name: unknown train '9'"),
    (lambda r: r["routes"][0]["nodes"].append("F4-9"), "routes[0].nodes[2]: 'F4-9' is not a node"),
])
def test_bad_input_exit_2(tmp_path, change, field):
    req = json.loads((EXAMPLES / "evaluate_1830.json").read_text())
    change(req)
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(req))
    for args in ((str(f),), (str(f), "--json")):
        r = invoke("evaluate", *args)
        assert r.exit_code == 2
        assert r.stderr.startswith(f"error: {field}")
        assert "Traceback" not in r.output and r.stdout == ""


def test_missing_file_and_bad_json(tmp_path):
    r = invoke("evaluate", str(tmp_path / "nope.json"))
    assert r.exit_code == 2 and "no such file" in r.stderr
    f = tmp_path / "x.json"
    f.write_text("{\"board\": ")
    r = invoke("evaluate", str(f))
    assert r.exit_code == 2 and "not valid JSON" in r.stderr


def test_titles():
    r = invoke("titles")
    assert r.exit_code == 0
    for name in ("1830", "steam_over_holland", "18rhl", "1860", "1889", "custom"):
        assert name in r.stdout
    assert "option beginner_game: beginner game" in r.stdout and "(accepted, no effect on routes" in r.stdout
    assert "unlimited stops" in r.stdout
    out = json.loads(invoke("titles", "--json").stdout)
    by_name = {t["name"]: t for t in out["titles"]}
    assert set(by_name) == {"1830", "steam_over_holland", "18rhl", "1860", "1889", "custom"}
    assert [t["name"] for t in by_name["1830"]["trains"]] == ["2", "3", "4", "5", "6", "D"]
    assert "3E" in [t["name"] for t in by_name["steam_over_holland"]["trains"]]
    assert by_name["1860"]["layout"] == "flat"
    assert by_name["1830"]["phases"][0] == {"name": "2", "tiles": ["yellow"], "train_limit": 4}
    assert {o["name"] for o in by_name["1860"]["options"] if o["changes_routes"]} == {
        "two_player_map", "re_enter_hexes", "no_skip_towns", "original_game", "original_insolvency",
        "nationalization", "southern_formed"}
    assert {o["name"] for o in by_name["1860"]["options"] if not o["changes_routes"]} == {
        "simplified_insolvency", "non_operated_full_value"}


def test_help():
    r = invoke("--help")
    assert r.exit_code == 0 and "evaluate" in r.stdout and "titles" in r.stdout
    r = invoke("evaluate", "--help")
    assert r.exit_code == 0 and "EvaluateRequest" in r.stdout


def test_serve_is_always_a_command_and_shows_why_the_server_cannot_load(monkeypatch):
    assert "serve" in invoke("--help").stdout
    # A server that cannot be imported is that error, not a command gone missing.
    monkeypatch.setitem(sys.modules, "revenue.server.app", None)     # importing it raises ImportError
    r = invoke("serve", "--port", "0", "--no-http")
    assert isinstance(r.exception, ImportError) and "revenue.server.app" in str(r.exception)
