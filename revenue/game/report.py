"""A replayed game (revenue.game.analysis.replay_game) as one self-contained HTML page: the revenue left on
the table per operating round and company as a chart, and per turn the map with the run played and the
best run (revenue.render). Everything is inline (CSS and SVG): the page fetches nothing when viewed."""
from __future__ import annotations

from html import escape

from ..graph_cache import graph_for
from ..render import ROUTE_COLOURS, render_svg

CHART_HEIGHT, BAR_WIDTH, GAP, MARGIN = 220, 26, 8, 44
STYLE = """
body { font-family: sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { padding: 0.2em 0.8em; text-align: right; border-bottom: 1px solid #ddd; }
th:first-child, td:first-child { text-align: left; }
details { margin: 0.3em 0; }
summary { cursor: pointer; }
.left { color: #b22222; font-weight: bold; }
.maps { display: flex; flex-wrap: wrap; gap: 1em; }
.maps figure { margin: 0; }
.maps svg { max-width: 100%; height: auto; }
"""


def html_report(title: str, turns: list[dict]) -> str:
    """The page for the turns of one game (the dicts replay_game yields)."""
    companies = sorted({t["company"] for t in turns})
    colour = {c: ROUTE_COLOURS[i % len(ROUTE_COLOURS)] for i, c in enumerate(companies)}
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{escape(title)}</title>",
             f"<style>{STYLE}</style></head><body><h1>{escape(title)}</h1>",
             "<h2>Revenue left on the table per operating round</h2>", left_chart(turns, colour),
             "<h2>Totals per company</h2>", _totals_table(turns), "<h2>Turns</h2>"]
    parts += [_turn_section(t) for t in turns]
    parts.append("</body></html>")
    return "\n".join(parts)


def left_chart(turns: list[dict], colour: dict[str, str]) -> str:
    """Inline SVG: per operating round a bar of the revenue left, stacked by company, and a legend."""
    rounds: dict[str, dict[str, int]] = {}
    for t in turns:
        rounds.setdefault(t["round"], {})
        rounds[t["round"]][t["company"]] = rounds[t["round"]].get(t["company"], 0) + (t["left"] or 0)
    top = max([sum(r.values()) for r in rounds.values()] + [10])
    scale = CHART_HEIGHT / top
    width = MARGIN + len(rounds) * (BAR_WIDTH + GAP) + 140
    height = CHART_HEIGHT + 70
    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
           f"viewBox='0 0 {width} {height}' font-family='sans-serif' font-size='10'>",
           f"<line x1='{MARGIN}' y1='10' x2='{MARGIN}' y2='{CHART_HEIGHT + 10}' stroke='#444'/>",
           f"<line x1='{MARGIN}' y1='{CHART_HEIGHT + 10}' x2='{width - 140}' y2='{CHART_HEIGHT + 10}' "
           f"stroke='#444'/>",
           f"<text x='{MARGIN - 4}' y='14' text-anchor='end'>{top}</text>",
           f"<text x='{MARGIN - 4}' y='{CHART_HEIGHT + 10}' text-anchor='end'>0</text>"]
    for i, (name, by_company) in enumerate(rounds.items()):
        x = MARGIN + GAP + i * (BAR_WIDTH + GAP)
        y = CHART_HEIGHT + 10
        for company, left in sorted(by_company.items()):
            if left <= 0:
                continue
            h = left * scale
            y -= h
            out.append(f"<rect x='{x}' y='{y:.1f}' width='{BAR_WIDTH}' height='{h:.1f}' "
                       f"fill='{colour[company]}'><title>{escape(name)} {escape(company)}: {left}</title></rect>")
        label_y = CHART_HEIGHT + 22
        out.append(f"<text x='{x + BAR_WIDTH / 2}' y='{label_y}' text-anchor='end' "
                   f"transform='rotate(-45 {x + BAR_WIDTH / 2} {label_y})'>{escape(name)}</text>")
    for i, company in enumerate(colour):
        y = 16 + 16 * i
        out.append(f"<rect x='{width - 130}' y='{y - 9}' width='10' height='10' fill='{colour[company]}'/>"
                   f"<text x='{width - 115}' y='{y}'>{escape(company)}</text>")
    out.append("</svg>")
    return "".join(out)


def company_totals(turns: list[dict]) -> dict[str, dict[str, int]]:
    """Per company: turns, revenue played (of the turns whose run reads), best and left."""
    totals: dict[str, dict[str, int]] = {}
    for t in turns:
        row = totals.setdefault(t["company"], {"turns": 0, "played": 0, "best": 0, "left": 0, "unread": 0})
        row["turns"] += 1
        row["best"] += t["best"]["revenue"]
        if t["played"] is None:
            row["unread"] += 1
        else:
            row["played"] += t["played"]["revenue"]
            row["left"] += t["left"]
    return totals


def _totals_table(turns: list[dict]) -> str:
    rows = ["<table><tr><th>company</th><th>turns</th><th>played</th><th>best</th><th>left</th></tr>"]
    for company, row in sorted(company_totals(turns).items()):
        unread = f" ({row['unread']} unread)" if row["unread"] else ""
        rows.append(f"<tr><td>{escape(company)}</td><td>{row['turns']}</td><td>{row['played']}{unread}</td>"
                    f"<td>{row['best']}</td><td>{row['left']}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def _turn_section(turn: dict) -> str:
    played, best, left = turn["played"], turn["best"], turn["left"]
    played_text = "unread" if played is None else str(played["revenue"])
    left_text = "" if left is None else (f", <span class='left'>left {left}</span>" if left else ", left 0")
    summary = (f"{escape(turn['round'])} {escape(turn['company'])}: played {played_text}, best "
               f"{best['revenue']}{'' if best['optimal'] else ' (not proved)'}{left_text}"
               + (f" ({escape(turn['dividend'])})" if turn["dividend"] else ""))
    graph = graph_for(turn["request"]["board"])
    maps = []
    if played is not None:
        maps.append(_figure(render_svg(graph, played["routes"], f"played: {played['revenue']}"),
                            "the run played" + (" (as good as the best)" if left == 0 else "")))
    if played is None or left:
        maps.append(_figure(render_svg(graph, best["routes"], f"best: {best['revenue']}"), "the best run"))
    return (f"<details id='action-{turn['action_id']}'{' open' if left else ''}><summary>{summary}</summary>"
            f"<div class='maps'>{''.join(maps)}</div></details>")


def _figure(svg: str, caption: str) -> str:
    return f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>"
