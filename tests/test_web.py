"""`mercator serve` over HTTP (no browser): moves, undo, the timeline of a replay, and every
refusal as a 4xx page or JSON with a hint, never a traceback; and the command's bad flags."""
from __future__ import annotations

import html
import os
import random
import re
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from mercator.dsl.loader import load
from game_driver import program
from mercator.interpreter.cli.main import main
from mercator.interpreter.tools.saves import load_save
from mercator.interpreter.tools.session import GameSession
from mercator.interpreter.web.app import SeatLinks, make_app

ROOT = Path(__file__).resolve().parent.parent
MANILA = str(ROOT / "rulebooks" / "manila.rules")
FELINIA = str(ROOT / "rulebooks" / "felinia.rules")


@pytest.fixture(scope="module")
def manila():
    return program(MANILA)


def client_for(prog, seats, seed=5, path=MANILA):
    s = GameSession(prog, len(seats), seed, seats, path, load(path).sources)
    links = SeatLinks([i for i, k in enumerate(seats) if k == "human"])
    return s, links, TestClient(make_app(s, links), raise_server_exceptions=False)


def test_a_move_by_form_redirects_to_the_seat_page(manila):
    s, links, c = client_for(manila, ["human", "random", "random"])
    page = c.get(links.path(0)).text
    digest = re.search(r'name="digest" value="([0-9a-f]+)"', page).group(1)
    n = len(s.decisions)
    r = c.post(f"{links.path(0)}/move", data={"option": "1", "digest": digest},
               follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == links.path(0)
    assert len(s.decisions) > n and s.labels[n] == s.steps[n].pending.options[1].label


def test_a_stale_page_cannot_move(manila):
    s, links, c = client_for(manila, ["human", "random", "random"])
    page = c.get(links.path(0)).text
    digest = re.search(r'name="digest" value="([0-9a-f]+)"', page).group(1)
    c.post(f"{links.path(0)}/move", data={"option": "1", "digest": digest})
    n = len(s.decisions)
    r = c.post(f"{links.path(0)}/move", data={"option": "1", "digest": digest})
    assert r.status_code == 409 and "the game has moved on since this page was shown" in \
        html.unescape(r.text)
    assert len(s.decisions) == n


@pytest.mark.parametrize("body, status, message", [
    ({"option": 10_000}, 400, "illegal move: option 10000 is out of range"),
    ({"option": "no such label"}, 400, "illegal move: 'no such label' is not a legal option"),
    ({}, 400, "no option chosen"),
    ({"option": [1]}, 400, "no option chosen"),
])
def test_an_illegal_move_is_a_400_with_a_hint(manila, body, status, message):
    s, links, c = client_for(manila, ["human", "random", "random"])
    before = s.state.digest()
    r = c.post(f"{links.path(0)}/move", json=body)
    assert r.status_code == status
    assert r.json()["error"].startswith(message) and r.json()["hint"]
    page = c.post(f"{links.path(0)}/move", data={k: str(v) for k, v in body.items()})
    assert page.status_code == status and "hint:" in page.text and "Traceback" not in page.text
    assert s.state.digest() == before


def test_bad_requests_get_pages_with_hints(manila):
    s, links, c = client_for(manila, ["human", "human", "random"])
    r = c.post(f"{links.path(1)}/move", json={"option": 0})
    assert r.status_code == 409 and r.json()["error"] == "it is not P2's turn: P1 is to decide"
    r = c.post(f"{links.path(0)}/move", content=b"{not json", headers={"content-type":
                                                                         "application/json"})
    assert r.status_code == 400 and r.json()["error"] == "the request body is not JSON"
    r = c.post(f"{links.path(0)}/move", content=b"x" * 70_000)
    assert r.status_code == 413
    r = c.get(f"{links.path(0)}?step=abc")
    assert r.status_code == 400 and "step 'abc' is not a whole number" in html.unescape(r.text)
    r = c.get(f"{links.path(0)}?step=999")
    assert r.status_code == 404 and "there is no step 999" in r.text
    r = c.get("/no/such/page")
    assert r.status_code == 404 and "hint:" in r.text
    r = c.get(f"{links.path(0)}/move")
    assert r.status_code == 405 and "moves are sent with POST" in r.text
    r = c.post(f"{links.path(0)}/undo", json={})
    assert r.status_code == 409 and r.json()["error"].startswith("cannot undo: P1 has made no")


def test_undo_over_http(manila):
    s, links, c = client_for(manila, ["human", "random", "random"])
    before = c.get(f"{links.path(0)}/view.json").json()
    assert before["can_undo"] is False and 'id="undo"' not in c.get(links.path(0)).text
    after = c.post(f"{links.path(0)}/move", json={"option": 1}).json()
    assert after["can_undo"] is True and 'id="undo"' in c.get(links.path(0)).text
    back = c.post(f"{links.path(0)}/undo", json={}).json()
    assert back == before


def test_the_page_shows_the_state_the_players_the_options_and_the_log(manila):
    s, links, c = client_for(manila, ["human", "random", "random"])
    c.post(f"{links.path(0)}/move", json={"option": 1})
    page = c.get(links.path(0)).text
    v = s.view(0)
    # (Manila's view shows every table field in a section or keeps it as bookkeeping: no
    # "More of the table")
    for section in ('id="section-1"', 'id="players"', 'id="log"', 'id="timeline-section"'):
        assert section in page
    assert len(re.findall(r'<div class="player[ "]', page)) == 3
    assert 'class="player you' in page
    log = page.split('id="log"')[1].split("</ol>")[0]
    lines = [html.unescape(x) for x in re.findall(r"<li[^>]*>(.*?)</li>", log, flags=re.S)]
    assert lines == v["log"]
    for o in v["options"]:
        assert f'value="{o["index"]}"' in page
    assert f"step {v['step']} of {v['steps']}" in page


def test_labels_from_the_rulebook_are_escaped(manila):
    s, links, c = client_for(manila, ["human", "random", "random"])
    s.steps[-1] = s.state.clone()
    s.steps[-1].record = s.state.record + [["log", None, [["<script>alert(1)</script>", None]]]]
    page = c.get(links.path(0)).text
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_a_replay_steps_through_the_saved_game(manila, tmp_path):
    s = GameSession(manila, 3, 7, ["human", "random", "random"], MANILA, load(MANILA).sources)
    rng = random.Random(2)
    for _ in range(6):
        s.move(0, rng.randrange(s.state.pending.count))
    path = str(tmp_path / "g.json")
    s.save(path)
    r = GameSession.from_save(manila, load_save(path))
    links = SeatLinks([0, 1, 2])
    c = TestClient(make_app(r, links))
    n = len(s.decisions)
    first = c.get("/view.json?step=0").json()
    assert first["step"] == 0 and first["steps"] == n and first["replay"] is True
    assert first["log"] == r.view(None, 0)["log"]
    mid = c.get(f"{links.path(1)}/view.json?step=3").json()
    assert mid == r.view(1, 3)
    page = c.get(f"{links.path(0)}?step=2").text
    assert "step 2 of" in page and 'id="options"' not in page and "replay of a saved game" in page
    assert f'href="{links.path(0)}?step=3"' in page and f'href="{links.path(0)}?step=1"' in page
    m = c.post(f"{links.path(0)}/move", json={"option": 0})
    assert m.status_code == 409 and "this is a replay" in m.json()["error"]


def test_a_game_plays_to_the_end_over_http():
    prog = program(FELINIA)
    s, links, c = client_for(prog, ["human", "random"], seed=3, path=FELINIA)
    rng = random.Random(3)
    for _ in range(5000):
        v = c.get(f"{links.path(0)}/view.json").json()
        if v["over"]:
            break
        assert v["options"], "a human is to move whenever the game is not over"
        c.post(f"{links.path(0)}/move", json={"option": rng.choice(v["options"])["index"]})
    page = c.get(links.path(0)).text
    assert s.state.over and "Game over" in page and 'id="scores"' in page
    assert page.count("winner</span>") == len(s.state.pending.winners)


def test_the_final_screen_shows_every_seat_s_revealed_parts_and_tie_break(manila):
    """Manila reveals the shares at the end: P1's final page shows P2's and P3's parts (no
    "(hidden)" in the table of parts) and a column for the tie-break."""
    s, links, c = client_for(manila, ["human", "random", "random"], seed=4)
    rng = random.Random(4)
    for _ in range(5000):
        v = c.get(f"{links.path(0)}/view.json").json()
        if v["over"]:
            break
        c.post(f"{links.path(0)}/move", json={"option": rng.choice(v["options"])["index"]})
    page = html.unescape(c.get(links.path(0)).text)
    assert s.state.over
    table = page.split('id="breakdown"')[1].split("</table>")[0]
    assert "<th>tie-break: p.pesos</th>" in table and "shares are worth" in table
    assert "(hidden)" not in table and table.count("<tr") == 4


# ------------------------------------------------------------------ the command
@pytest.mark.parametrize("argv, message", [
    (["--seats", "human,robot"], "unknown player 'robot'"),
    (["--seats", "human,random"], "2 seats given for a game of 3 players"),
    (["--seats", "human,ismcts:0,random"], "iterations must be 1 to"),
    (["--players", "9"], "Manila is for 3 to 5 players, not 9"),
    (["--port", "70000"], "a port is 0 to 65535"),
    (["--port", "http"], "expected a port number"),
    (["--host", "no-such-host.invalid"], "cannot listen on host 'no-such-host.invalid'"),
])
def test_bad_flags_are_usage_errors(argv, message, capsys):
    code = main(["serve", MANILA, *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def test_a_port_in_use_is_a_usage_error(capsys):
    from mercator.interpreter.web.server import bind
    sock = bind("127.0.0.1", 0)
    try:
        code = main(["serve", MANILA, "--players", "3", "--port", str(sock.getsockname()[1])])
    finally:
        sock.close()
    err = capsys.readouterr().err
    assert code == 2 and "cannot listen on 127.0.0.1:" in err and "--port 0" in err


def test_replay_flags_are_checked(tmp_path, manila, capsys):
    s = GameSession(manila, 3, 7, ["human", "random", "random"], MANILA, load(MANILA).sources)
    path = str(tmp_path / "g.json")
    s.save(path)
    assert main(["serve", MANILA, "--replay", path, "--seed", "8"]) == 2
    assert "--seed 8 contradicts the save (--seed 7)" in capsys.readouterr().err
    assert main(["serve", FELINIA, "--replay", path]) == 2
    assert "is a save of another rulebook" in capsys.readouterr().err
    assert main(["serve", MANILA, "--replay", str(tmp_path / "none.json")]) == 1
    assert "no such save file" in capsys.readouterr().err
    assert main(["serve", MANILA, "--replay", path, "--save", path]) == 2
    assert main(["serve", MANILA, "--save", str(tmp_path / "no" / "dir.json")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_resume_goes_on_with_a_saved_game(tmp_path, manila, capsys):
    from mercator.interpreter.cli.main import build_parser
    from mercator.interpreter.cli.serve import build_session
    s = GameSession(manila, 3, 7, ["human", "random", "random"], MANILA, load(MANILA).sources)
    s.move(0, 1)
    path = str(tmp_path / "g.json")
    s.save(path)
    args = build_parser().parse_args(["serve", MANILA, "--resume", path, "--seats",
                                      "human,human,random", "--save", path])
    r = build_session(args)
    assert r.state == s.state and not r.replaying and r.seats == ["human", "human", "random"]
    r.move(r.to_decide(), 0)
    assert load_save(path).decisions == r.decisions      # --save keeps saving it
    assert main(["serve", MANILA, "--resume", path, "--replay", path]) == 2
    assert "--resume and --replay do not go together" in capsys.readouterr().err
    assert main(["serve", MANILA, "--resume", path, "--seats", "human,human"]) == 2
    assert "2 seats given for a game of 3 players" in capsys.readouterr().err


def test_serve_prints_the_links_and_serves_them(tmp_path):
    """The real command: a free port, one secret link per human, the spectator address."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "mercator.interpreter.cli", "serve", MANILA,
                             "--players", "3", "--seats", "human,human,random", "--seed", "4",
                             "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=str(ROOT))
    try:
        lines = []
        deadline = time.monotonic() + 30
        while len(lines) < 4 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.strip())
        assert lines[0] == "Manila · 3 players · seed 4 · P1 human · P2 human · P3 random"
        watch = re.fullmatch(r"watch \(spectator\): (http://127\.0\.0\.1:\d+)/", lines[1])
        assert watch
        p1 = re.fullmatch(r"P1 \(human\): (http://127\.0\.0\.1:\d+/play/[\w-]{24,})", lines[2])
        p2 = re.fullmatch(r"P2 \(human\): (http://127\.0\.0\.1:\d+/play/[\w-]{24,})", lines[3])
        assert p1 and p2 and p1.group(1) != p2.group(1)
        import httpx
        v = httpx.get(p1.group(1) + "/view.json", timeout=10).json()
        assert v["viewer"] == "P1" and v["options"]
        assert httpx.get(watch.group(1) + "/view.json", timeout=10).json()["viewer"] is None
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_looking_back_in_a_live_game_offers_nothing(manila):
    s, links, c = client_for(manila, ["human", "random", "random"])
    c.post(f"{links.path(0)}/move", json={"option": 1})
    past = c.get(f"{links.path(0)}/view.json?step=0").json()
    assert past["options"] == [] and past["can_undo"] is False and past["live"] is False
    page = c.get(f"{links.path(0)}?step=0").text
    assert 'id="options"' not in page and 'id="undo"' not in page
    assert "You are looking back at step 0" in page
    assert c.get(f"{links.path(0)}/view.json").json()["options"]


def test_values_are_shown_escaped_with_hidden_marks_and_records_as_tables():
    from mercator.interpreter.web.render import show
    assert str(show("<b>x</b>")) == "&lt;b&gt;x&lt;/b&gt;"
    assert "hidden · 3 items" in show({"hidden": True, "size": 3})
    assert "hidden · 1 item<" in show({"hidden": True, "size": 1})
    assert ">hidden<" in show("hidden")
    own = show({"hidden": True, "size": 3, "seen": {"P1": 54}})
    assert "hidden · 3 items" in own and "yours:" in own and "54" in own
    rows = str(show([{"kind": "contract", "pay": 0}, {"kind": "<i>", "pay": 20}]))
    assert rows.startswith('<table class="rows"><tr><th>kind</th><th>pay</th></tr>')
    assert rows.count("<tr>") == 3 and "&lt;i&gt;" in rows
    keyed = str(show({"ship_1": {"tile": 5}, "ship_2": {"tile": 8}}))
    assert "<th>ship 1</th><td>5</td>" in keyed
    assert str(show([])) == '<span class="none">none</span>'        # as the terminal says it
    assert "nutmeg" in show({"nutmeg": 2}) and '<span class="k">nutmeg</span> 2' in show({"nutmeg": 2})


def test_the_same_move_sent_many_times_at_once_is_made_once(manila):
    """Requests are served in parallel threads; the lock and the page's digest make a double
    click one move."""
    import threading
    import httpx
    from mercator.interpreter.web.server import Served, bind
    s = GameSession(manila, 3, 5, ["human", "random", "random"], MANILA, load(MANILA).sources)
    links = SeatLinks([0])
    served = Served(make_app(s, links), bind("127.0.0.1", 0)).start()
    try:
        digest = s.view(0)["digest"]
        url = served.url + links.path(0) + "/move"
        codes: list[int] = []

        def send() -> None:
            r = httpx.post(url, json={"option": 1, "digest": digest}, timeout=20)
            codes.append(r.status_code)
        threads = [threading.Thread(target=send) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(codes) == [200] + [409] * 7
        assert s.movers.count(0) == 1
    finally:
        served.stop()


def test_a_page_says_it_waits_for_the_searching_bots_after_a_move(manila):
    """With a searching bot at the table the seat's page holds the (hidden) line its script
    shows when a move is sent, naming those bots; with random bots only it has none."""
    _, links, c = client_for(manila, ["human", "ismcts:5", "random"])
    page = c.get(links.path(0)).text
    waiting = re.search(r'<p class="hint" id="waiting" hidden>([^<]*)</p>', page)
    assert waiting and "P2 (ismcts:5)" in waiting.group(1) and "P3" not in waiting.group(1)
    assert 'getElementById("waiting")' in page
    _, links, c = client_for(manila, ["human", "random", "random"])
    assert 'id="waiting"' not in c.get(links.path(0)).text


def test_the_page_tells_the_rules_in_brief(manila):
    """Issue 39, finding 7: the browser had no `rules`; the page tells the rules in brief, in
    the rulebook's words for players (the same lines as the terminal's `rules`)."""
    from mercator.interpreter.tools.rules_text import rules_summary
    s, links, client = client_for(manila, ["human", "random", "random"])
    v = s.view(0)
    assert v["rules"] == rules_summary(manila, MANILA)
    assert any("harbour master" in line for line in v["rules"])
    page = client.get(links.path(0)).text
    assert 'id="rules"' in page and "The rules in brief" in page
    assert "Bid to be the harbour master" in page
