"""`revenue lays` and `revenue tokens`: one request's legal moves valued as a table or JSON, several requests
(files, or JSON lines on standard input) one answer a line, `--top 0` every legal move."""
from __future__ import annotations

import json
import pathlib

from click.testing import CliRunner

from revenue.cli import main

EXPORTS = pathlib.Path(__file__).parent / "data" / "games" / "exports"


def _rows(kind: str, game: str = "1889_962") -> list[dict]:
    rows = [json.loads(line) for line in (EXPORTS / f"{game}.lays.jsonl").read_text().splitlines()]
    return [r for r in rows if r["kind"] == kind and r["request"]["company"]["trains"]]


def invoke(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def test_one_file_as_json_and_as_a_table(tmp_path):
    lay_file, token_file = tmp_path / "lay.json", tmp_path / "token.json"
    lay_file.write_text(json.dumps(_rows("lay_tile")[-1]["request"]))
    token_row = _rows("place_token")[0]
    token_file.write_text(json.dumps(token_row["request"]))
    shown = invoke("lays", str(lay_file), "--top", "2", "--json")
    assert shown.exit_code == 0, shown.output
    assert len(json.loads(shown.output)["moves"]) == 2
    text = invoke("lays", str(lay_file), "--cash", "0")
    assert text.exit_code == 0 and "legal moves valued" in text.output and "==" not in text.output
    tokens = invoke("tokens", str(token_file), "--json")
    assert tokens.exit_code == 0 and json.loads(tokens.output)["moves"][0]["hex"] == token_row["played"]["hex"]
    missing = invoke("tokens", str(tmp_path / "none.json"))
    assert missing.exit_code == 2 and "no such file" in missing.output


def test_top_zero_lists_every_legal_lay(tmp_path):
    lay_file = tmp_path / "lay.json"
    lay_file.write_text(json.dumps(_rows("lay_tile")[-1]["request"]))
    every = json.loads(invoke("lays", str(lay_file), "--top", "0", "--json").output)
    assert every["legal"] > 2 and len(every["moves"]) == every["legal"]
    assert json.loads(invoke("lays", str(lay_file), "--json").output)["moves"] == every["moves"]
    assert invoke("lays", str(lay_file), "--top", "-1").exit_code == 2


def test_several_files_answer_one_json_line_each(tmp_path):
    rows = _rows("lay_tile")[-2:] + _rows("lay_tile", "1889_314")[-1:]
    files = []
    for n, row in enumerate(rows):
        files.append(tmp_path / f"{n}.json")
        files[-1].write_text(json.dumps(row["request"]))
    shown = invoke("lays", *map(str, files), "--top", "3", "--json")
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert len(lines) == len(rows)
    alone = [json.loads(invoke("lays", str(f), "--top", "3", "--json").output) for f in files]
    for line, one in zip(lines, alone):
        answer = json.loads(line)
        assert answer["moves"] == one["moves"] and answer["base_revenue"] == one["base_revenue"]
    text = invoke("lays", *map(str, files), "--top", "1")
    assert text.exit_code == 0 and text.output.count("== ") == len(rows) and str(files[1]) in text.output


def test_json_lines_on_standard_input_and_bad_lines_reported_by_line():
    requests = [json.dumps(r["request"]) for r in _rows("place_token")[:2]]
    lines = f"{requests[0]}\n\n{{\"board\": {{\"title\": \"nope\"}}, \"company\": {{\"id\": \"AR\"}}}}\n{requests[1]}\n"
    shown = invoke("tokens", "--json", input=lines)
    assert shown.exit_code == 2
    answers = [json.loads(line) for line in shown.stdout.splitlines()]
    assert len(answers) == 2 and all(a["complete"] for a in answers)
    assert "stdin line 3: board.title:" in shown.stderr
    dashed = invoke("tokens", "-", "--json", input=f"{requests[0]}\n")
    assert dashed.exit_code == 0 and json.loads(dashed.stdout)["legal"] == answers[0]["legal"]


def test_the_second_lay_of_an_1860_turn(tmp_path):
    from revenue.moves import value_lays

    from .test_next_moves import second_lay_request

    request, played = second_lay_request()
    path = tmp_path / "second.json"
    path.write_text(json.dumps(request))
    second = json.loads(invoke("lays", str(path), "--second-lay", "--top", "0", "--json").output)
    assert second["moves"] == value_lays(request, second=True)["moves"]
    assert (played["hex"], played["tile"].rpartition("-")[0], played["rotation"]) in \
        {(m["hex"], m["tile"], m["rotation"]) for m in second["moves"]}
    first = json.loads(invoke("lays", str(path), "--top", "0", "--json").output)
    assert {json.dumps(m, sort_keys=True) for m in second["moves"]} <= \
        {json.dumps(m, sort_keys=True) for m in first["moves"]}
