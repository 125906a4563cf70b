"""The page's "Best lays" in headless Chromium (as tests/test_page.py): after a solve of the 1889 example,
the best hexes are marked with their gain from POST /v1/lays, as the library values them; a click on a
mark lays that tile on the map and draws the best run it makes."""
from __future__ import annotations

import json

import revenue

from .server_helpers import EXAMPLES
from .test_page import _choose, _open, browser, server  # noqa: F401  (the fixtures)


def test_best_lays_marks_the_best_hexes_and_draws_a_lay(browser, server):  # noqa: F811
    request = json.loads((EXAMPLES / "solve_1889.json").read_text())
    expected = revenue.value_lays(request, top=10)
    best = expected["moves"][0]
    assert best["gain"] > 0
    wait = _open(browser, server)
    _choose(browser, wait, "1889", "solve_1889")
    browser.find_element("id", "run").click()
    wait.until(lambda b: "proved" in b.find_element("id", "status").text)
    browser.find_element("id", "best-lays").click()
    wait.until(lambda b: b.execute_script("return document.querySelectorAll('#layer-lays .lay-mark').length") > 0)
    marks = browser.execute_script("""return [...document.querySelectorAll('#layer-lays .lay-mark')].map(
        m => [m.getAttribute('data-hex'), Number(m.getAttribute('data-gain')), m.querySelector('text').textContent])""")
    firsts = {}
    for move in expected["moves"]:
        firsts.setdefault(move["hex"], move["gain"])
    assert {hex_: gain for hex_, gain, _ in marks} == firsts
    assert [text for hex_, _, text in marks if hex_ == best["hex"]] == [f"+{best['gain']}"]
    assert f"{expected['legal']} legal lays" in browser.find_element("id", "status").text
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
