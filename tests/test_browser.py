"""`mercator serve` in a real browser: headless Chromium (Debian's `chromium` and
`chromium-driver`) driven by Selenium, against a server this test starts on a free local port.

Where no browser is installed these tests skip and say how to enable them. Manila is played to
the end in the browser; the other games for their first moves in the browser, then on to the
end over HTTP, with the final page checked in the browser (MERCATOR_BROWSER_FULL=1 plays all
four to the end by clicking: two to three minutes).
"""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from browser import why_no_browser

REASON = why_no_browser()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"no browser: {REASON}")

ROOT = Path(__file__).resolve().parent.parent
FULL = bool(os.environ.get("MERCATOR_BROWSER_FULL"))


@pytest.fixture(scope="module")
def browser():
    from browser import Browser
    b = Browser()
    yield b
    b.close()


def _game(name: str, players: int, seed: int, seats=None):
    from browser import new_session, serve_session
    s = new_session(str(ROOT / "rulebooks" / f"{name}.rules"), players, seed,
                    seats or ["human"] + ["random"] * (players - 1))
    served, links = serve_session(s)
    return s, served, links


def _by(driver, css):
    from selenium.webdriver.common.by import By
    return driver.find_elements(By.CSS_SELECTOR, css)


@pytest.mark.parametrize("name, players, clicks", [
    ("manila", 3, None), ("die_haendler", 2, 12), ("genoa", 2, 12), ("felinia", 2, 12)])
def test_a_game_is_played_to_the_end_against_bots(browser, name, players, clicks):
    from browser import choose_in_page
    s, served, links = _game(name, players, 1)
    d = browser.driver
    rng = random.Random(1)
    try:
        d.get(served.url + links.path(0))
        assert _by(d, "#options button"), "P1 is to move first and sees its options"
        made = 0
        while (FULL or clicks is None or made < clicks) and choose_in_page(d, rng):
            made += 1
            assert not s.state.over or made > 0
        assert made >= (clicks or 1)
        while not s.state.over:          # the rest of the game over HTTP, the same session
            opts = s.options(0)
            s.move(0, rng.choice([o for o in opts if o["kind"] != "action"] or opts)["index"])
        d.get(served.url + links.path(0))
        assert "Game over" in d.find_element("id", "status").text
        rows = _by(d, "#scores tr")
        assert len(rows) == players + 1
        winners = {f"P{w + 1}" for w in s.state.pending.winners}
        shown = {r.text.split()[0] for r in rows[1:] if "winner" in r.text}
        assert shown == winners
        assert not _by(d, "#options")
    finally:
        served.stop()


def test_undo_in_the_browser_takes_the_move_back(browser):
    from browser import choose_in_page, page_digest, wait_for_new_page
    s, served, links = _game("manila", 3, 2)
    d = browser.driver
    try:
        d.get(served.url + links.path(0))
        first = page_digest(d)
        assert not _by(d, "#undo")
        log_before = [li.text for li in _by(d, "#log li")]
        choose_in_page(d, random.Random(0))
        assert len(_by(d, "#log li")) > len(log_before)
        old = page_digest(d)
        _by(d, "#undo")[0].click()
        assert wait_for_new_page(d, old) == first
        assert [li.text for li in _by(d, "#log li")] == log_before
    finally:
        served.stop()


def test_hot_seat_players_see_their_own_cards_and_the_page_follows_the_game(browser):
    """Two humans at one server: P2's page reloads by itself when P1 has moved (the poll), and
    each page shows its own shares and the other's as hidden."""
    from browser import page_digest, wait_for_new_page
    s, served, links = _game("manila", 3, 3, ["human", "human", "random"])
    d = browser.driver
    try:
        d.get(served.url + links.path(1))
        p2_first = page_digest(d)
        assert not _by(d, "#options")
        assert "hidden" in d.find_element("id", "player-P1").text
        assert "hidden" not in d.find_element("id", "player-P2").text.split("shares")[1] \
            .split("mortgaged")[0]
        while s.to_decide() == 0:          # P1 moves (from elsewhere): P2's page must follow
            s.move(0, s.options(0)[-1 if s.options(0)[-1]["kind"] != "action" else 0]["index"])
        wait_for_new_page(d, p2_first, timeout=5)
        if s.to_decide() == 1:
            assert _by(d, "#options button")
    finally:
        served.stop()


def test_a_wrong_link_shows_the_spectator_view(browser):
    s, served, links = _game("genoa", 3, 4, ["human", "human", "human"])
    d = browser.driver
    try:
        d.get(served.url + "/play/not-a-real-token")
        assert "not a seat of this game" in d.find_element("id", "error").text
        assert "watching" in d.find_element("id", "who").text
        assert not _by(d, "#options") and not _by(d, ".player.you")
        d.get(served.url + links.path(s.to_decide()))
        assert _by(d, "#options button") and _by(d, ".player.you")
    finally:
        served.stop()


def test_the_timeline_steps_through_a_saved_game(browser, tmp_path):
    from browser import serve_session
    from game_driver import program
    from mercator.interpreter.tools.saves import load_save
    from mercator.interpreter.tools.session import GameSession
    s, served, links = _game("die_haendler", 2, 5)
    served.stop()
    rng = random.Random(5)
    for _ in range(8):
        s.move(0, rng.randrange(s.state.pending.count))
    path = str(tmp_path / "g.json")
    s.save(path)
    r = GameSession.from_save(program(ROOT / "rulebooks" / "die_haendler.rules"), load_save(path))
    served, links = serve_session(r)
    d = browser.driver
    try:
        d.get(served.url + "/?step=0")
        assert d.find_element("id", "step").text == f"step 0 of {len(r.decisions)}"
        n0 = len(_by(d, "#log li"))
        d.find_element("id", "next").click()
        from browser import wait_for_new_page
        wait_for_new_page(d, r.view(None, 0)["digest"])
        assert d.find_element("id", "step").text == f"step 1 of {len(r.decisions)}"
        assert len(_by(d, "#log li")) >= n0
        d.get(served.url + links.path(1) + "?step=4")
        assert [li.text for li in _by(d, "#log li")] == [" ".join(x.split())
                                                         for x in r.view(1, 4)["log_words"]]
        assert not _by(d, "#options")
    finally:
        served.stop()


def test_a_move_sent_before_a_searching_bot_says_the_page_waits_for_it(browser):
    """While the answer to a move waits for a searching bot (ismcts:600 thinks for a while),
    the page shows the line naming it; clicked twice, the move is made once."""
    from browser import page_digest, wait_for_new_page
    s, served, links = _game("manila", 3, 4, ["human", "ismcts:600", "random"])
    d = browser.driver
    try:
        d.get(served.url + links.path(0))
        assert not d.find_element("id", "waiting").is_displayed()
        old, n = page_digest(d), len(s.decisions)
        button = _by(d, "#options button")[0]
        shown, text = d.execute_script(
            "arguments[0].click(); arguments[0].click();"
            "var w = document.getElementById('waiting'); return [!w.hidden, w.textContent];",
            button)
        assert shown and "P2 (ismcts:600)" in text
        wait_for_new_page(d, old, 60)
        assert s.movers[n:].count(0) == 1          # P1 moved once; the bots after it
        assert 1 in s.movers[n:]
    finally:
        served.stop()
