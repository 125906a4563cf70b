"""The page's "Best lays" and "Best tokens" in headless Chromium (as tests/test_page.py): after a solve, the
best hexes are marked with their gain from POST /v1/lays or /v1/tokens, as the library values them; a click
on a mark lays that tile or places that token on the map and draws the best run it makes."""
from __future__ import annotations

import json

import revenue

from .server_helpers import EXAMPLES
from .test_page import _choose, _open, _paste, browser, server  # noqa: F401  (the fixtures)

EXPORTS = EXAMPLES.parent / "tests" / "data" / "games" / "exports"


def test_best_lays_marks_the_best_hexes_and_draws_a_lay(browser, server):  # noqa: F811
    request = json.loads((EXAMPLES / "solve_1889.json").read_text())
    expected = revenue.value_lays(request, top=10)
    best = expected["moves"][0]
    assert best["gain"] > 0
    wait = _open(browser, server)
    _choose(browser, wait, "1889", "solve_1889")
    browser.find_element("id", "run").click()
    wait.until(lambda b: "proved" in b.find_element("id", "status").text)
    marks = _best_marks(browser, wait, "lays", "#layer-lays .lay-mark", expected)
    browser.execute_script("""document.querySelector(`#layer-lays .lay-mark[data-hex="${arguments[0]}"]`)
        .dispatchEvent(new MouseEvent('click', {bubbles: true}))""", best["hex"])
    wait.until(lambda b: b.find_element("id", "status").text.startswith(f"with {best['hex']}"))
    status = browser.find_element("id", "status").text
    assert f"best run {best['revenue_after']}" in status and f"(+{best['gain']})" in status
    labels = browser.execute_script(
        "return [...document.querySelectorAll('#layer-labels text')].map(t => t.textContent)")
    assert f"{best['hex']} #{best['tile']}" in labels          # the tile laid is on the map
    assert browser.execute_script("return document.querySelectorAll('#layer-routes g.route').length") > 0
    assert browser.find_element("id", "total").text == str(best["revenue_after"])
    # the marks stay, to try another lay
    assert browser.execute_script("return document.querySelectorAll('#layer-lays .lay-mark').length") == len(marks)


def _token_request() -> dict:
    """1860 game 19354, action 307: S&C's best token is the second city of G5 (a two-city hex)."""
    rows = [json.loads(line) for line in (EXPORTS / "1860_19354.lays.jsonl").read_text().splitlines()]
    request = next(r for r in rows if r["action_id"] == 307)["request"]
    return dict(request, company={k: v for k, v in request["company"].items() if k != "cash"})


def test_best_tokens_marks_the_best_cities_and_places_a_token(browser, server):  # noqa: F811
    request = _token_request()
    expected = revenue.value_tokens(request, top=10)
    best = expected["moves"][0]
    assert best["gain"] > 0 and best["city"] == 1
    wait = _open(browser, server)
    _paste(browser, wait, request)
    wait.until(lambda b: b.execute_script("return document.querySelectorAll('#layer-labels text').length") > 0
               and "G5" in b.execute_script("return [...page.geometry.hexAt.keys()].join(' ')"))
    browser.find_element("id", "run").click()
    wait.until(lambda b: "proved" in b.find_element("id", "status").text)
    marks = _best_marks(browser, wait, "tokens", "#layer-tokens .token-mark", expected)
    # the mark sits over its city, not the hex's other one
    offset = browser.execute_script("""
        const city = page.geometry.nodes.find(n => n.name.split('-')[0] === arguments[0] && n.city === arguments[1]);
        const rect = document.querySelector(`#layer-tokens .token-mark[data-hex="${arguments[0]}"] rect`);
        return [Number(rect.getAttribute('x')) + 11 - city.x, Number(rect.getAttribute('y')) + 5 - city.y];""",
                                    best["hex"], best["city"])
    assert offset == [0, -12]
    browser.execute_script("""document.querySelector(`#layer-tokens .token-mark[data-hex="${arguments[0]}"]`)
        .dispatchEvent(new MouseEvent('click', {bubbles: true}))""", best["hex"])
    wait.until(lambda b: b.find_element("id", "status").text.startswith(f"with {best['hex']} city {best['city']}"))
    status = browser.find_element("id", "status").text
    assert f"best run {best['revenue_after']}" in status and f"(+{best['gain']})" in status
    placed = browser.execute_script("""return page.geometry.nodes.find(
        n => n.name.split('-')[0] === arguments[0] && n.city === arguments[1]).tokens""", best["hex"], best["city"])
    assert request["company"]["id"] in placed                  # the token is on the map
    assert browser.find_element("id", "total").text == str(best["revenue_after"])
    assert browser.execute_script(
        "return document.querySelectorAll('#layer-tokens .token-mark').length") == len(marks)


def _best_marks(browser, wait, kind: str, selector: str, expected: dict) -> list:
    """Click "Best lays" or "Best tokens" (`kind`) and check its marks (`selector`): one a hex, with the
    gain of the hex's best move, and the count of legal moves said; the marks [hex, gain, text]."""
    browser.find_element("id", f"best-{kind}").click()
    wait.until(lambda b: b.execute_script(f"return document.querySelectorAll('{selector}').length") > 0)
    marks = browser.execute_script(f"""return [...document.querySelectorAll('{selector}')].map(
        m => [m.getAttribute('data-hex'), Number(m.getAttribute('data-gain')), m.querySelector('text').textContent])""")
    firsts: dict = {}
    for move in expected["moves"]:
        firsts.setdefault(move["hex"], move["gain"])
    assert {hex_: gain for hex_, gain, _ in marks} == firsts
    best = expected["moves"][0]
    assert [text for hex_, _, text in marks if hex_ == best["hex"]] == [f"+{best['gain']}"]
    assert f"{expected['legal']} legal {kind}" in browser.find_element("id", "status").text
    return marks

