"""Benchmark: every legal tile lay and station token of a company listed and valued (revenue.moves) on real
late-game boards and on the example requests.

    python -m benchmarks.moves [--repeats N] [--only TEXT] [--solve-every-lay] [--json]

Per board, warm (after one untimed call), the median and maximum ms of N calls of revenue.legal_lays (the
listing), revenue.value_lays (every legal lay solved and ranked, top=None) and revenue.value_tokens. Boards:
the last lay and the last token placement of a company with trains in each real game of
tests/data/games/exports (the lays on the one's board, the tokens on the other's), the last turn of 18Rhl
game 96576 (the tokens on its last turn whose company has a token left), and examples/solve_*.json of the
titles with lay rules. Target (issue 37): every legal lay of a real late-game board valued and ranked in under
100 ms, warm.
"""
from __future__ import annotations

import json
import pathlib
import statistics
import sys
import time

import click
from rich.console import Console
from rich.table import Table

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXPORTS = ROOT / "tests" / "data" / "games" / "exports"
RHL_TURNS = ROOT / "tests" / "data" / "games" / "18rhl_96576.jsonl"
EXAMPLES = ROOT / "examples"
VALUE_TARGET_MS = 100
TITLES = ("1830", "1860", "1889", "18rhl")


def boards() -> list[tuple[str, dict, dict]]:
    """(name, SolveRequest whose lays are timed, SolveRequest whose tokens are timed) of every board; in a
    real game the last lay and the last token placement of a company with trains (named by their action
    ids). Those whose files are not there (an installed package without the repository's tests/) are left
    out."""
    out = []
    for path in sorted(EXPORTS.glob("*.lays.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        late = {kind: [r for r in rows if r["kind"] == kind and r["request"]["company"]["trains"]][-1:]
                for kind in ("lay_tile", "place_token")}
        if late["lay_tile"] and late["place_token"]:
            lay, token = late["lay_tile"][0], late["place_token"][0]
            out.append((f"{path.name.split('.')[0]} #{lay['action_id']}/#{token['action_id']}",
                        lay["request"], token["request"]))
    if RHL_TURNS.is_file():
        from revenue import legal_tokens

        turns = [json.loads(line) for line in RHL_TURNS.read_text().splitlines()]
        token = next((t for t in reversed(turns) if legal_tokens(t["request"])), turns[-1])
        out.append((f"18rhl_96576 #{turns[-1]['action_id']}/#{token['action_id']}", turns[-1]["request"],
                    token["request"]))
    for title in TITLES:
        path = EXAMPLES / f"solve_{title}.json"
        if path.is_file():
            request = json.loads(path.read_text())
            out.append((path.name, request, request))
    return out


def _times(fn, repeats: int) -> list[float]:
    fn()                                                        # warm: caches and kernels
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def run(repeats: int = 5, only: str = "") -> list[dict]:
    """Per board: title, company, legal lays and tokens, the best run now and after the best lay, and the
    median and max ms of listing the lays, valuing them all, and valuing every token."""
    from revenue import legal_lays, value_lays, value_tokens

    rows = []
    picked = [board for board in boards() if only.lower() in board[0].lower()]
    # (a board read again is placed by a compiled kernel (revenue.known), loaded once per process: not timed)
    for _ in range(2):
        for _, request, _ in picked[:1]:
            legal_lays(request)
    for name, request, token_request in picked:
        listing = _times(lambda: legal_lays(request), repeats)
        valuing = _times(lambda: value_lays(request), repeats)
        tokening = _times(lambda: value_tokens(token_request), repeats)
        lays, tokens = value_lays(request), value_tokens(token_request)
        rows.append({"board": name, "title": request["board"]["title"],
                     "company": request["company"]["id"] + ("" if token_request is request
                                                            else "/" + token_request["company"]["id"]),
                     "lays": lays["legal"], "tokens": tokens["legal"], "base_revenue": lays["base_revenue"],
                     "best_after": max((m["revenue_after"] for m in lays["moves"]), default=None),
                     "all_proved": all(m["optimal"] for m in lays["moves"] + tokens["moves"]),
                     **_stats("legal_lays", listing), **_stats("value_lays", valuing),
                     **_stats("value_tokens", tokening)})
    return rows


def _stats(name: str, times: list[float]) -> dict:
    return {f"{name}_median_ms": statistics.median(times), f"{name}_max_ms": max(times), f"{name}_runs": len(times)}


def print_table(rows: list[dict], out: Console) -> None:
    table = Table(title=f"Next moves valued (warm; target: every legal lay valued < {VALUE_TARGET_MS} ms)")
    for col in ("board", "company", "lays", "tokens", "run now", "best lay", "proved", "list lays ms",
                "value lays ms", "value tokens ms"):
        table.add_column(col + (" (median / max)" if col.endswith("ms") else ""),
                         justify="left" if col in ("board", "company") else "right")
    for r in rows:
        table.add_row(r["board"], r["company"], str(r["lays"]), str(r["tokens"]), str(r["base_revenue"]),
                      "" if r["best_after"] is None else str(r["best_after"]),
                      "yes" if r["all_proved"] else "[red]no[/red]",
                      _pair(r, "legal_lays"), _pair(r, "value_lays", VALUE_TARGET_MS), _pair(r, "value_tokens"))
    out.print(table)


def _pair(row: dict, name: str, target: float | None = None) -> str:
    median, most = row[f"{name}_median_ms"], row[f"{name}_max_ms"]
    text = f"{median:.1f} / {most:.1f}"
    return f"[red]{text}[/red]" if target is not None and median >= target else text


@click.command()
@click.option("--repeats", default=5, show_default=True, help="Warm runs per board and call.")
@click.option("--only", default="", help="Only boards whose name contains this text.")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.option("--solve-every-lay", is_flag=True,
              help="Solve every lay's board, none taken from the request's run (revenue.moves.unchanged): to compare "
                   "(rotations that lay the same track still share a solve).")
def main(repeats: int, only: str, as_json: bool, solve_every_lay: bool) -> None:
    """Time listing and valuing every legal lay and token of real late-game boards."""
    if solve_every_lay:
        from revenue.moves import value

        value.SAME_RUN_FROM_ROUTES = sys.maxsize
    rows = run(repeats, only)
    if as_json:
        click.echo(json.dumps(rows, indent=2))
    else:
        print_table(rows, Console(highlight=False, width=max(Console().width, 140)))


if __name__ == "__main__":
    main()
