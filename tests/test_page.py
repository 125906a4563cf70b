"""The auto-route page in a real browser: headless Chromium (Debian's chromium and chromium-driver, which
.ci/run installs) driven by Selenium, against an in-process server. Without Chromium the tests fail in CI
(CI=true) and are skipped, saying why, elsewhere.

REVENUE_SCREENSHOT=docs/page.png python -m pytest tests/test_page.py  also saves the screenshot of the
solved 1830 example there (the one in docs/service.md)."""
from __future__ import annotations

import json
import os
import shutil

import pytest

from .server_helpers import EXAMPLES, running

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
CHROMEDRIVER = shutil.which("chromedriver")
WAIT = 60          # seconds a page may take to show an answer on a busy machine


def _missing() -> str:
    if not (CHROMIUM and CHROMEDRIVER):
        return "headless Chromium is not installed (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    return ""


@pytest.fixture(scope="module")
def server():
    with running(workers=2, max_queue=8, http_port=0) as s:
        yield s


@pytest.fixture(scope="module")
def browser():
    missing = _missing()
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the browser tests: {missing}")
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,900", "--disable-extensions", "--no-first-run"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    yield driver
    driver.quit()


def _open(browser, server):
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"http://127.0.0.1:{server.http_port}/")
    wait = WebDriverWait(browser, WAIT)
    # The titles came from GET /v1/titles and the first example's board is drawn.
    wait.until(lambda b: b.execute_script("return document.querySelectorAll('#title option').length") >= 5)
    wait.until(lambda b: b.execute_script("return document.querySelectorAll('#layer-hexes polygon').length") > 0)
    return wait


def _choose(browser, wait, title: str, example: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(browser.find_element("id", "title")).select_by_value(title)
    Select(browser.find_element("id", "example")).select_by_value(example)
    wait.until(lambda b: f'"title": "{title}"' in b.find_element("id", "request").get_property("value"))
    wait.until(lambda b: b.execute_script("return document.querySelectorAll('#layer-hexes polygon').length") > 0)


def _paste(browser, wait, request: dict) -> None:
    """Put `request` in the request box as a user pasting it would (the box fires `change`)."""
    browser.execute_script("""
        const box = document.getElementById('request');
        box.value = arguments[0];
        box.dispatchEvent(new Event('change'));""", json.dumps(request, indent=1))


def test_page_solves_the_1830_example_and_draws_the_routes(browser, server, tmp_path):
    wait = _open(browser, server)
    _choose(browser, wait, "1830", "solve_1830")
    # The late-game board of the example replaces the first example's (an early one) on the map.
    wait.until(lambda b: b.execute_script("return document.querySelectorAll('#layer-track path').length") > 100)
    hexes = browser.execute_script("return document.querySelectorAll('#layer-hexes polygon').length")
    assert hexes == 93                                          # the whole 1830 map is drawn
    tokens = browser.execute_script("return [...document.querySelectorAll('#layer-nodes text')].map(t => t.textContent)")
    assert "NYC" in tokens                                      # the company's tokens are on the map
    browser.find_element("id", "run").click()
    wait.until(lambda b: "proved" in b.find_element("id", "status").text)
    assert b_text(browser, "status") == "proved optimal: 980"
    assert b_text(browser, "total") == "980"
    assert b_text(browser, "bound") == "bound 980"
    rows = browser.find_elements("css selector", "#routes tbody tr")
    assert [r.find_elements("tag name", "td")[1].text for r in rows] == ["6", "D"]
    assert sum(int(r.find_elements("tag name", "td")[3].text) for r in rows) == 980
    # Each train's route is drawn on its track, in its own colour.
    drawn = browser.execute_script("""return [...document.querySelectorAll('#layer-routes g.route')].map(
        g => [g.getAttribute('stroke'), g.querySelectorAll('path').length])""")
    assert len(drawn) == 2 and drawn[0][0] != drawn[1][0] and all(n >= 3 for _, n in drawn)
    shot = tmp_path / "page.png"
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000
    if os.environ.get("REVENUE_SCREENSHOT"):
        shutil.copy(shot, os.environ["REVENUE_SCREENSHOT"])


def test_page_shows_the_rule_an_illegal_route_breaks(browser, server):
    wait = _open(browser, server)
    request = json.loads((EXAMPLES / "evaluate_1830.json").read_text())
    request["routes"][0]["nodes"] = ["F6-0", "G7-0"]            # no B&O token on this route
    request["routes"][0].pop("connections", None)
    _paste(browser, wait, request)
    wait.until(lambda b: b.find_element("id", "run").text == "Check these routes")
    browser.find_element("id", "run").click()
    wait.until(lambda b: "illegal" in b.find_element("id", "status").text)
    assert "no_token" in b_text(browser, "status")
    first = browser.find_elements("css selector", "#routes tbody tr")[0]
    assert first.find_element("css selector", ".rule").text == "no_token"
    marks = browser.execute_script("return [...document.querySelectorAll('#layer-marks .rule-mark')].map(t => t.textContent)")
    assert marks == ["no_token"]                                # the broken rule is on the map
    # The rule names no node: each node of the route is ringed.
    assert browser.execute_script("return document.querySelectorAll('#layer-marks circle').length") == 2


def test_page_marks_the_node_where_a_route_breaks(browser, server):
    wait = _open(browser, server)
    request = json.loads((EXAMPLES / "evaluate_1830.json").read_text())
    request["routes"][1]["nodes"].append("F2-0")                # Altoona is not joined to Chicago
    _paste(browser, wait, request)
    browser.find_element("id", "run").click()
    wait.until(lambda b: "illegal" in b.find_element("id", "status").text)
    assert b_text(browser, "status") == "illegal: not_connected"
    rings = browser.execute_script("""return [...document.querySelectorAll('#layer-marks circle')].map(
        c => [c.getAttribute('cx'), c.getAttribute('cy')])""")
    chicago = browser.execute_script("""const c = document.querySelector('[data-node="F2-0"] rect');
        return [String(+c.getAttribute('x') + 7), String(+c.getAttribute('y') + 5)]""")
    assert rings == [chicago]                                   # the ring is at the node named


def test_page_checks_a_stored_run_routes_action(browser, server):
    wait = _open(browser, server)
    _choose(browser, wait, "1830", "run_routes_1830")
    wait.until(lambda b: b.find_element("id", "run").text == "Check these routes")
    browser.find_element("id", "run").click()
    wait.until(lambda b: "legal" in b.find_element("id", "status").text)
    assert b_text(browser, "status") == "legal: 210" and b_text(browser, "total") == "210"
    assert browser.execute_script("return document.querySelectorAll('#layer-routes g.route').length") == 2
    assert browser.execute_script("return document.querySelectorAll('#layer-routes g.route path').length") >= 5


def test_page_shows_the_field_of_a_bad_request(browser, server):
    wait = _open(browser, server)
    request = json.loads((EXAMPLES / "solve_1830.json").read_text())
    request["board"]["tiles"][0]["rotation"] = 7
    _paste(browser, wait, request)
    wait.until(lambda b: not b.find_element("id", "errors").get_property("hidden"))
    errors = b_text(browser, "errors")
    assert "board.tiles[0].rotation" in errors and "7 is not in 0..5" in errors
    assert b_text(browser, "status").startswith("error 400")


def test_page_fits_a_phone(browser, server):
    browser.set_window_size(390, 844)
    try:
        _open(browser, server)
        width = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= 390                                      # nothing wider than the screen
        box = browser.execute_script("return document.getElementById('map').getBoundingClientRect().width")
        assert 300 <= box <= 390
    finally:
        browser.set_window_size(1280, 900)


def b_text(browser, element_id: str) -> str:
    return browser.find_element("id", element_id).text.strip()


def test_page_asks_for_the_token_of_a_guarded_server(browser):
    from selenium.webdriver.support.ui import WebDriverWait

    with running(workers=1, max_queue=4, http_port=0, auth_token="s3cret") as guarded:
        browser.get(f"http://127.0.0.1:{guarded.http_port}/")
        wait = WebDriverWait(browser, WAIT)
        wait.until(lambda b: "401" in b.find_element("id", "status").text)
        assert browser.find_element("id", "options-box").get_property("open")
        token = browser.find_element("id", "token")
        token.send_keys("s3cret")
        browser.execute_script("arguments[0].dispatchEvent(new Event('change'))", token)
        wait.until(lambda b: b.execute_script("return document.querySelectorAll('#layer-hexes polygon').length") > 0)
        browser.find_element("id", "run").click()
        wait.until(lambda b: b.find_element("id", "status").text.startswith(("proved", "legal")))
        browser.execute_script("sessionStorage.clear()")


GAMES = EXAMPLES.parent / "tests" / "data" / "games" / "exports"


def test_page_replays_a_game_and_suggests_the_next_run(browser, server):
    export = json.loads((GAMES / "1830_29133.json").read_text())
    turns = [json.loads(line) for line in (GAMES / "1830_29133.turns.jsonl").read_text().splitlines()]
    wait = _open(browser, server)
    browser.execute_script("document.getElementById('game-box').open = true;"
                           "document.getElementById('game').value = arguments[0];", json.dumps(export))
    browser.find_element("id", "replay").click()
    wait.until(lambda b: b_text(b, "status").startswith("replayed"))
    assert b_text(browser, "status").startswith(f"replayed {len(turns)} operating turns: ")
    assert browser.find_element("id", "turn").get_property("max") == str(len(turns) - 1)
    replayed = browser.execute_script("return game.turns")
    rounds = len({t["round"] for t in replayed})
    assert browser.execute_script("return document.querySelectorAll('#left-chart rect.bar').length") == rounds
    # The slider shows a turn: its board, the best run in colour and the run played dashed over it.
    known = turns[5]
    browser.execute_script("const s = document.getElementById('turn'); s.value = 5;"
                           "s.dispatchEvent(new Event('input'));")
    wait.until(lambda b: f" {known['company']}: played " in b_text(b, "turn-info"))
    wait.until(lambda b: b.execute_script("return document.querySelectorAll('#layer-routes g.played-route').length") > 0)
    assert browser.execute_script("return document.querySelectorAll('#layer-routes g.route').length") >= 1
    assert json.loads(browser.find_element("id", "request").get_property("value"))["company"]["id"] == known["company"]
    assert browser.execute_script("return document.querySelectorAll('#left-chart rect.bar.current').length") == 1
    # Suggest: the game cut just before that run, in progress.
    export["actions"] = export["actions"][:next(i for i, a in enumerate(export["actions"])
                                                if a.get("id") == known["action_id"])]
    export["status"] = "active"
    del export["result"], export["game_end_reason"]
    browser.execute_script("document.getElementById('game').value = arguments[0];", json.dumps(export))
    browser.execute_script("page.geometryKey = ''; document.getElementById('map').innerHTML = '';")  # no map
    browser.find_element("id", "suggest").click()
    wait.until(lambda b: "best run" in b_text(b, "status"))
    assert b_text(browser, "status").startswith(f"{replayed[5]['round']} {known['company']}: best run ")
    action = json.loads(browser.find_element("id", "run-routes").get_property("value"))
    assert action["type"] == "run_routes" and action["entity"] == known["company"] and action["routes"]
    # The map of that moment is drawn, with the best run on it, and the request box holds its request.
    wait.until(lambda b: b.execute_script("return document.querySelectorAll('#layer-routes g.route').length") > 0)
    assert browser.execute_script("return document.querySelectorAll('#layer-hexes polygon').length") > 0
    request = json.loads(browser.find_element("id", "request").get_property("value"))
    assert request["company"]["id"] == known["company"] and request["board"]["title"] == "1830"


def test_page_suggests_the_builders_best_lays(browser, server):
    """A game cut just before a company's first lay: the suggestion waits for its turn and lists its best lays
    and tokens, with its cash."""
    export = json.loads((GAMES / "1830_29133.json").read_text())
    row = next(json.loads(line) for line in (GAMES / "1830_29133.lays.jsonl").read_text().splitlines()
               if json.loads(line)["action_id"] == 119)      # PRR's lay, the turn before it over
    export["actions"] = export["actions"][:next(i for i, a in enumerate(export["actions"]) if a.get("id") == 119)]
    export["status"] = "active"
    wait = _open(browser, server)
    browser.execute_script("document.getElementById('game-box').open = true;"
                           "document.getElementById('game').value = arguments[0];", json.dumps(export))
    browser.find_element("id", "suggest").click()
    wait.until(lambda b: "best lays" in b_text(b, "status"))
    status = b_text(browser, "status")
    assert status.startswith("no run to suggest: the game waits for ")
    assert f"PRR (cash {row['request']['company']['cash']}): best lays " in status and "; best tokens " in status
