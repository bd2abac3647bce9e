"""`mercator serve` against bad input and other sites (issue 35 §4; docs/web.md, "Security
model"): malformed bodies are 4xx answers that leave the connection usable (W1), a body is read
no further than its limit (W2), a name that is not this server's is refused (W3, DNS
rebinding), a POST from another site is refused (W4), every answer carries a strict
Content-Security-Policy and the other security headers (W5), and a rule error on a bot's move
after a person's move leaves the game where it was before that move (W6)."""
from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import logging
import os
import re
import select
import socket
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Optional

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from mercator.dsl.loader import load  # noqa: E402
from game_driver import program, program_text  # noqa: E402
from mercator.interpreter.tools.session import GameSession  # noqa: E402
from mercator.interpreter.web.app import SeatLinks, make_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MANILA = str(ROOT / "rulebooks" / "manila.rules")
LOCAL = "http://127.0.0.1:8000"


@pytest.fixture(scope="module")
def manila():
    return program(MANILA)


def hot_seat(prog, hosts=None):
    """Manila with two humans (P1, P2) and a bot: seat links and the shared screen."""
    s = GameSession(prog, 3, 5, ["human", "human", "random"], MANILA, load(MANILA).sources)
    links = SeatLinks([0, 1], table=True)
    return s, links, make_app(s, links) if hosts is None else make_app(s, links, hosts=hosts)


# ------------------------------------------------------------------ W1: malformed bodies
def bad_bodies(links: SeatLinks) -> list[tuple[str, str, bytes, str]]:
    """(name, path, body, content type) of the five bodies that were a 500 with a traceback."""
    move, form = f"{links.path(0)}/move", "application/x-www-form-urlencoded"
    return [
        ("a superscript digit", move, "option=%C2%B2".encode(), form),
        ("5,000 digits", move, b"option=" + b"1" * 5000, form),
        ("a digest outside ASCII", move, "option=1&digest=%C3%A9".encode(), form),
        ("a lone surrogate", move, b'{"option": "\\ud800"}', "application/json"),
        ("the shared screen's seat ²", f"{links.table_path()}/confirm",
         "seat=%C2%B2".encode(), form),
    ]


@pytest.mark.parametrize("which", range(5))
def test_a_malformed_body_is_a_4xx_with_a_message(manila, which):
    s, links, app = hot_seat(manila)
    client = TestClient(app)          # an exception in the application fails the test
    name, path, body, kind = bad_bodies(links)[which]
    before = s.state.digest()
    r = client.post(path, content=body, headers={"content-type": kind},
                    follow_redirects=False)
    assert 400 <= r.status_code < 500, (name, r.status_code, r.text[:300])
    text = r.json()["error"] if kind == "application/json" else r.text
    assert "internal error" not in text and "Traceback" not in text
    assert re.search(r"illegal move|not valid|not Unicode|moved on|not the one to decide",
                     text), (name, text[:300])
    assert s.state.digest() == before


def _raw_request(method: str, path: str, body: bytes = b"", kind: str = "",
                 host: str = "127.0.0.1") -> bytes:
    head = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\n"
    if method == "POST":
        head += f"Content-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


def _read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 response (with a Content-Length) from a socket: status, headers, body."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"the server closed the connection; read {data[:200]!r}")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in
               (line.split(":", 1) for line in lines[1:])}
    size = int(headers.get("content-length", "0"))
    while len(rest) < size:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection mid-body")
        rest += chunk
    return status, headers, rest[:size]


class Records(logging.Handler):
    """Every log record of the server (uvicorn logs an application's exception)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_on_a_real_server_the_malformed_bodies_log_nothing_and_keep_the_connection(manila):
    """One keep-alive connection: each malformed body gets its 4xx, then a page still comes
    (a 500 from an exception used to close the connection: the next request was reset)."""
    from mercator.interpreter.web.server import Served, bind
    s, links, app = hot_seat(manila)
    served = Served(app, bind("127.0.0.1", 0)).start()
    records = Records()
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(records)
    try:
        port = int(served.url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            for name, path, body, kind in bad_bodies(links):
                conn.sendall(_raw_request("POST", path, body, kind))
                status, headers, _ = _read_response(conn)
                assert 400 <= status < 500, name
                assert headers.get("connection", "") != "close", name
            conn.sendall(_raw_request("GET", links.path(0)))
            status, _, page = _read_response(conn)
            assert status == 200 and b'id="options"' in page
    finally:
        logger.removeHandler(records)
        served.stop()
    assert not [r for r in records.records if r.exc_info or r.levelno >= logging.ERROR]


# ------------------------------------------------------------------ W2: the body's limit
def _asgi_post(app: Any, path: str, headers: list[tuple[bytes, bytes]], chunk: int,
               chunks: int) -> tuple[int, int]:
    """POST to an ASGI app a body of `chunks` chunks of `chunk` bytes, offered one by one;
    (the answer's status, how many chunks the app took)."""
    taken = 0
    answer: dict[str, Any] = {}

    async def receive() -> dict[str, Any]:
        nonlocal taken
        taken += 1
        if taken > chunks:
            return {"type": "http.disconnect"}
        return {"type": "http.request", "body": b"x" * chunk, "more_body": taken < chunks}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answer["status"] = message["status"]

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
             "root_path": "", "query_string": b"", "server": ("127.0.0.1", 8000),
             "client": ("127.0.0.1", 50000),
             "headers": [(b"host", b"127.0.0.1:8000"), *headers]}
    asyncio.run(app(scope, receive, send))
    return answer.get("status", 0), taken


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_a_body_is_read_no_further_than_its_limit(manila, declared):
    """A 200 MB body with a valid link: a declared length over 64 KB is refused before any of
    the body is read; a chunked one once 64 KB have come (16 KB chunks: at most 5 taken)."""
    s, links, app = hot_seat(manila)
    size = 16 * 1024
    n = 200 * 1024 * 1024 // size
    headers = [(b"content-type", b"application/x-www-form-urlencoded")]
    headers.append((b"content-length", str(n * size).encode()) if declared else
                   (b"transfer-encoding", b"chunked"))
    status, taken = _asgi_post(app, f"{links.path(0)}/move", headers, size, n)
    assert status == 413
    assert taken == (0 if declared else 5)


def test_a_chunked_body_over_the_limit_is_refused_on_a_real_server(manila):
    """Chunks of 64 KB are sent until the server answers: it answers 413 long before 200 MB."""
    from mercator.interpreter.web.server import Served, bind
    s, links, app = hot_seat(manila)
    served = Served(app, bind("127.0.0.1", 0)).start()
    sent = 0
    try:
        port = int(served.url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            conn.sendall(f"POST {links.path(0)}/move HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         "Content-Type: application/x-www-form-urlencoded\r\n"
                         "Transfer-Encoding: chunked\r\n\r\n".encode())
            chunk = b"%x\r\n" % 65536 + b"x" * 65536 + b"\r\n"
            while sent < 200 * 1024 * 1024:
                if select.select([conn], [], [], 0.01)[0]:
                    break
                try:
                    conn.sendall(chunk)
                except OSError:
                    break
                sent += 65536
            status, headers, _ = _read_response(conn)
        assert status == 413 and headers.get("connection") == "close"
        assert sent < 32 * 1024 * 1024
    finally:
        served.stop()


# ------------------------------------------------------------------ W3: the Host header
def test_a_name_that_is_not_the_servers_is_refused(manila):
    """A page of evil.example whose name was made to point at 127.0.0.1 (DNS rebinding)
    reaches the server with `Host: evil.example`: refused, nothing of the game shown."""
    from mercator.interpreter.web.guard import HostRule
    s, links, app = hot_seat(manila, hosts=HostRule("127.0.0.1"))
    for base in ("http://evil.example:8000", "http://127.0.0.1.evil.example"):
        c = TestClient(app, base_url=base)
        for path in ("/", "/view.json", "/poll", links.path(0)):
            r = c.get(path)
            assert r.status_code == 400 and "does not answer to the name" in r.text
            assert "--allow-host" in r.text and "P1" not in r.text.split("</header>")[-1]
        assert c.post(f"{links.path(0)}/move", data={"option": "1"}).status_code == 400
    for base in (LOCAL, "http://localhost:8000", "http://[::1]:8000", "http://127.0.0.1"):
        assert TestClient(app, base_url=base).get("/view.json").status_code == 200, base


def test_which_names_a_server_answers_to():
    from mercator.interpreter.web.guard import HostRule
    local = HostRule("127.0.0.1")
    assert all(local.allows(h) for h in ("127.0.0.1:8000", "localhost:8000", "LOCALHOST",
                                         "[::1]:8000", "localhost."))
    assert not any(local.allows(h) for h in ("evil.example", "192.168.1.9:8000", "", None,
                                             "localhost.evil.example", "[::2]"))
    lan = HostRule("0.0.0.0", ["mybox.local"])
    assert all(lan.allows(h) for h in ("192.168.1.9:8000", "[fe80::1]:8000", "mybox.local:80",
                                       "localhost"))
    assert not lan.allows("evil.example:8000")
    one = HostRule("192.168.1.9")
    assert one.allows("192.168.1.9:8000") and not one.allows("10.0.0.2:8000")


def test_serve_refuses_other_names_and_answers_to_allow_host():
    """The real command: --allow-host adds a name; any other name is refused."""
    proc = subprocess.Popen([sys.executable, "-m", "mercator.interpreter.cli", "serve", MANILA,
                             "--players", "3", "--seed", "4", "--port", "0",
                             "--allow-host", "mybox.local"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"), cwd=str(ROOT))
    try:
        lines = [proc.stdout.readline().strip() for _ in range(3)]
        url = re.fullmatch(r"watch \(spectator\): (http://127\.0\.0\.1:\d+)/", lines[1])
        assert url, lines
        import httpx
        get = lambda host: httpx.get(url.group(1) + "/view.json", headers={"host": host},  # noqa
                                     timeout=10)
        assert get("evil.example").status_code == 400
        assert get("mybox.local:8000").status_code == 200
        assert get("localhost").status_code == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# ------------------------------------------------------------------ W4: the Origin of a POST
@pytest.mark.parametrize("headers, allowed", [
    ({"origin": "http://evil.example"}, False),
    ({"origin": "null"}, False),
    ({"origin": "http://127.0.0.1:9999"}, False),                 # another server here
    ({"sec-fetch-site": "cross-site", "origin": "http://evil.example"}, False),
    ({"sec-fetch-site": "same-site", "origin": "http://127.0.0.1:9999"}, False),
    ({"sec-fetch-site": "cross-site"}, False),
    ({"origin": LOCAL}, True),
    ({"sec-fetch-site": "same-origin", "origin": LOCAL}, True),
    ({"sec-fetch-site": "same-origin", "origin": "null"}, True),  # Referrer-Policy no-referrer
    ({}, True),                                                   # a script, not a browser
])
def test_a_post_from_another_site_is_refused(manila, headers, allowed):
    from mercator.interpreter.web.guard import HostRule
    s, links, app = hot_seat(manila, hosts=HostRule("127.0.0.1"))
    c = TestClient(app, base_url=LOCAL)
    n = len(s.decisions)
    r = c.post(f"{links.path(0)}/move", data={"option": "1"}, headers=headers,
               follow_redirects=False)
    if allowed:
        assert r.status_code == 303 and len(s.decisions) > n
    else:
        assert r.status_code == 403 and "another site" in r.text and len(s.decisions) == n
        r = c.post(f"{links.path(0)}/undo", headers=headers)
        assert r.status_code == 403
        r = c.post(f"{links.table_path()}/confirm", data={"seat": "0"}, headers=headers)
        assert r.status_code == 403


# ------------------------------------------------------------------ W5: the headers
def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_every_answer_carries_the_security_headers(manila):
    s, links, app = hot_seat(manila)
    c = TestClient(app, raise_server_exceptions=False)
    answers = {
        "spectator": c.get("/"), "seat": c.get(links.path(0)), "json": c.get("/view.json"),
        "poll": c.get(f"{links.path(0)}/poll"), "handover": c.get(links.table_path()),
        "404": c.get("/no/such/page"), "wrong link": c.get("/play/nope"),
        "400": c.get(f"{links.path(0)}?step=x"),
        "413": c.post(f"{links.path(0)}/move", content=b"x" * 70_000),
        "403": c.post(f"{links.path(0)}/move", data={"option": "1"},
                      headers={"origin": "http://evil.example"}),
        "303": c.post(f"{links.path(0)}/move", data={"option": "1"}, follow_redirects=False),
        "409": c.post(f"{links.path(0)}/move", data={"option": "1"}),
    }
    for what, r in answers.items():
        h = r.headers
        csp = h.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp and "default-src 'none'" in csp, what
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, what
        assert h.get("x-content-type-options") == "nosniff", what
        assert h.get("referrer-policy") == "no-referrer", what
        assert h.get("x-frame-options") == "DENY", what
        if h.get("content-type", "").startswith("text/html"):
            page = r.text
            # every inline script and style is allowed by its hash, nothing else runs
            for tag, directive in (("script", "script-src"), ("style", "style-src")):
                allowed = re.search(rf"{directive} ([^;]*)", csp).group(1).split()
                for body in re.findall(rf"<{tag}>(.*?)</{tag}>", page, flags=re.DOTALL):
                    assert _hash(body) in allowed, (what, tag)
                assert not re.search(rf"<{tag}\s[^>]*>", page), (what, tag)
            assert not re.search(r"\son[a-z]+\s*=", page), what      # no onclick="…"
            assert "javascript:" not in page and " style=" not in page, what


# ------------------------------------------------------------------ W6: a bot's rule error
BOT_TRIPS = """game "Bot trips" players 2..2
table { pick: int = 1 }
player { gold: int = 0 }
round r limit 3 { phase a {
  pick = choose first(players) one of [0, 1, 2]
  let y = choose last(players) one of [1, 2]
  last(players).gold += y * 10 / pick
} }
score p: p.gold
"""


@pytest.mark.parametrize("undo", [True, False], ids=["undo", "no-undo"])
def test_a_rule_error_on_the_bots_move_leaves_the_game_before_the_persons_move(undo, capsys):
    """P1 picks 0; P2 (a bot) then chooses, and `y * 10 / pick` divides by zero (line 7).
    The game is where it was before P1's pick: P1 is asked again and may pick 1."""
    prog = program_text(BOT_TRIPS)
    s = GameSession(prog, 2, 1, ["human", "random"], "t.rules", {"t.rules": BOT_TRIPS},
                    undo=undo)
    links = SeatLinks([0])
    c = TestClient(make_app(s, links), raise_server_exceptions=False)
    before, view = s.state, c.get(f"{links.path(0)}/view.json").json()
    r = c.post(f"{links.path(0)}/move", json={"option": "0"})
    assert r.status_code == 500
    assert s.state == before and s.state.digest() == before.digest()
    assert len(s.steps) == 1 and s.movers == [] and s.labels == []
    assert c.get(f"{links.path(0)}/view.json").json() == view      # asked again, as before
    error = r.json()        # the error, and the seed and decisions that reproduce it
    assert error["error"] == "t.rules:7:3: rule error: division by zero"
    assert re.search(r"failed on P2's choice '[12]' \(seed 1, decisions \[0, [01]\]\)",
                     error["hint"]) and "before P1's move '0'" in error["hint"]
    assert "division by zero" in capsys.readouterr().err           # on the server's terminal
    page = c.post(f"{links.path(0)}/move", data={"option": "0"})
    assert page.status_code == 500 and "division by zero" in page.text
    assert s.state == before
    r = c.post(f"{links.path(0)}/move", json={"option": "1"})        # another pick goes on
    assert r.status_code == 200 and s.movers[:2] == [0, 1] and r.json()["options"]


def test_in_a_browser_the_policy_blocks_none_of_the_pages_own_scripts_and_styles(manila):
    """Headless Chromium (skipped without it): the seat's page, the handover screen and an error
    page log no Content-Security-Policy violation; the page's style applies and its scripts
    run (the timeline's slider moves to the step chosen, the back link of an error page)."""
    from browser import Browser, serve_session, why_no_browser
    if why_no_browser() is not None:
        pytest.skip(f"no browser: {why_no_browser()}")
    s = GameSession(manila, 3, 5, ["human", "human", "random"], MANILA, load(MANILA).sources)
    s.move(0, 1)
    s.move(1, 0)
    served, links = serve_session(s, table=True)
    b = Browser()
    d = b.driver
    try:
        for path in (links.path(0), links.table_path(), "/no/such/page"):
            d.get(served.url + path)
            color = d.execute_script("return getComputedStyle(document.querySelector('header'))"
                                     ".backgroundColor")
            assert color == "rgb(23, 50, 77)", (path, color)     # base.html's style applies
        d.get(served.url + links.path(0))
        d.execute_script("var r = document.getElementById('step-slider'); r.value = 1;"
                         "r.dispatchEvent(new Event('change'));")
        deadline = time.monotonic() + 10
        while "step=1" not in d.current_url and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "step=1" in d.current_url and "step 1 of" in d.page_source
        violations = [e["message"] for e in d.get_log("browser")
                      if "Content Security Policy" in e["message"]]
        assert not violations, violations
    finally:
        b.close()
        served.stop()
