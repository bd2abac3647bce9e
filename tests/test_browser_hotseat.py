"""One shared screen for several humans in the browser (interpreter/web/app.py, /table/TOKEN):
the page of the human to decide once they have said it is them, and between two humans a
handover screen that shows nothing of anyone's view. Over HTTP (Starlette's test client), and
once in headless Chromium.
"""
from __future__ import annotations

import random
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from browser import new_session, why_no_browser  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MANILA = str(ROOT / "rulebooks" / "manila.rules")


def _client(seats: list[str], seed: int = 3) -> tuple[Any, Any, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from mercator.interpreter.web.app import SeatLinks, make_app
    s = new_session(MANILA, len(seats), seed, seats)
    links = SeatLinks([i for i, k in enumerate(seats) if k == "human"], table=True)
    return s, links, TestClient(make_app(s, links))


def _private(s: Any, seat: int) -> str:
    """What only `seat` may see in its own card: its shares, as the page prints them."""
    v = s.view(seat)
    return repr(v["players"][seat]["shares"])


def _seat_of_page(page: str) -> str:
    return page.split('id="who">')[1].split("<")[0]


def test_the_handover_screen_hides_every_view_until_the_next_seat_confirms() -> None:
    s, links, c = _client(["human", "human", "random"])
    base = links.table_path()
    first = s.to_decide()
    page = c.get(base).text
    assert f"Pass the screen to P{first + 1}" in page
    for hidden in ('id="players"', 'id="log"', "shares", 'id="options"'):
        assert hidden not in page, hidden
    r = c.post(base + "/confirm", data={"seat": str(first)}, follow_redirects=True)
    assert r.status_code == 200 and _seat_of_page(r.text) == f"you are P{first + 1}"
    assert 'id="options"' in r.text
    # the seat moves; the next human to decide gets the handover screen, not P1's view
    opts = s.options(first)
    idx = next(o for o in opts if o["kind"] != "action")["index"]
    r = c.post(base + "/move", data={"option": str(idx), "digest": s.view(first)["digest"]},
               follow_redirects=True)
    nxt = s.to_decide()
    assert nxt is not None and nxt != first       # the auction: P1 bids, then P2
    assert f"Pass the screen to P{nxt + 1}" in r.text
    assert 'id="players"' not in r.text and 'id="log"' not in r.text


def test_only_the_seat_to_decide_may_take_the_screen_and_moves_need_it() -> None:
    s, links, c = _client(["human", "human", "random"])
    base = links.table_path()
    first = s.to_decide()
    other = 1 - first
    assert c.post(base + "/confirm", data={"seat": str(other)}).status_code == 409
    assert c.post(base + "/confirm", data={"seat": "x"}).status_code == 409
    r = c.post(base + "/move", data={"option": "0"})
    assert r.status_code == 409 and "nobody has taken the shared screen" in r.text
    assert s.decisions == []


def test_a_wrong_table_token_sees_only_the_spectator_view() -> None:
    s, links, c = _client(["human", "human", "random"])
    r = c.get("/table/not-the-token")
    assert r.status_code == 403 and "watching" in r.text and 'id="options"' not in r.text
    assert c.post("/table/not-the-token/confirm", data={"seat": "0"}).status_code == 403
    assert c.get(links.path(0).replace("/play/", "/table/")).status_code == 403  # a seat's token


def test_the_table_polls_say_nothing_of_the_views() -> None:
    s, links, c = _client(["human", "human", "random"])
    j = c.get(links.table_path() + "/poll").json()
    assert set(j) == {"digest"} and j["digest"].startswith("handover-")


def test_a_hot_seat_game_is_played_to_the_end_at_one_screen() -> None:
    """Each decision: the handover screen (no view), the seat's confirmation, its own view
    (its shares shown, the others' hidden), its move; to the end, then the public result."""
    s, links, c = _client(["human", "human", "random"], seed=4)
    base = links.table_path()
    rng = random.Random(4)
    handovers = 0
    last = None
    while not s.state.over:
        seat = s.to_decide()
        assert seat is not None
        page = c.get(base).text
        if seat != last:
            assert f"Pass the screen to P{seat + 1}" in page and 'id="players"' not in page
            handovers += 1
            page = c.post(base + "/confirm", data={"seat": str(seat)},
                          follow_redirects=True).text
        assert _seat_of_page(page) == f"you are P{seat + 1}"
        assert page.count('title="you may not see this"') >= 1     # the other's shares
        opts = [o for o in s.options(seat) if o["kind"] != "action"] or s.options(seat)
        r = c.post(base + "/move", data={"option": str(rng.choice(opts)["index"]),
                                         "digest": s.view(seat)["digest"]})
        assert r.status_code in (200, 303), r.text[:300]
        last = seat
    page = c.get(base).text
    assert "Game over" in page and "watching" in page
    assert handovers > 5


@pytest.mark.skipif(why_no_browser() is not None, reason=f"no browser: {why_no_browser()}")
def test_the_shared_screen_in_chromium() -> None:
    from browser import Browser, serve_session, wait_for_new_page, page_digest
    s = new_session(MANILA, 3, 3, ["human", "human", "random"])
    served, links = serve_session(s, table=True)
    b = Browser()
    try:
        d = b.driver
        d.get(served.url + links.table_path())
        first = s.to_decide()
        assert d.find_element("id", "confirm").text == f"I am P{first + 1}: show my view"
        old = page_digest(d)
        d.find_element("id", "confirm").click()
        wait_for_new_page(d, old)
        assert d.find_element("id", "who").text == f"you are P{first + 1}"
        old = page_digest(d)
        from selenium.webdriver.support.ui import Select
        boxes = d.find_elements("id", "option-select")        # a bid: a list box of values
        if boxes:
            Select(boxes[0]).select_by_index(0)
            d.find_element("id", "choose").click()
        else:
            d.find_elements("css selector", "#options button[data-label]:not(.pass)")[0].click()
        wait_for_new_page(d, old)
        nxt = s.to_decide()
        assert nxt is not None and nxt != first
        assert d.find_element("id", "confirm").text == f"I am P{nxt + 1}: show my view"
        assert not d.find_elements("id", "players")
    finally:
        b.close()
        served.stop()
