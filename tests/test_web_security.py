"""Hidden information over the web (docs/web.md, "Security model"): a seat's page, JSON view and
poll messages are built from that seat's view only, and a wrong or missing token sees the
spectator's view.

The strongest form of "the page contains nothing the view hides": change what the seat may not
see (another player's shares in Manila, money and cards in Die Händler, hands in Genoa, the
secret decks) and the seat's page, view and messages stay byte for byte the same, while the
owner's page changes. And log parts the seat may not see, replaced by a marker, never reach it.
"""
from __future__ import annotations

import copy
import random
import re
import warnings
from pathlib import Path
from typing import Any, Optional

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
with warnings.catch_warnings():      # Starlette 1.x would rather have httpx2; httpx works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from mercator.dsl.infoflow import is_owner_map  # noqa: E402
from mercator.dsl.loader import load  # noqa: E402
from game_driver import program  # noqa: E402
from mercator.interpreter.engine.seen import sees  # noqa: E402
from mercator.interpreter.engine.declared_view import declared_view  # noqa: E402
from mercator.interpreter.engine.view import observe, visible  # noqa: E402
from mercator.interpreter.tools.session import GameSession  # noqa: E402
from mercator.interpreter.web.app import SeatLinks, make_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GAMES = {name: str(ROOT / "rulebooks" / f"{name}.rules")
         for name in ("manila", "die_haendler", "genoa", "felinia")}
EXTRA_KEYS = {"seats", "step", "steps", "live", "replay", "options", "can_undo", "digest", "marks",
              "new_from", "declared", "changes", "breakdown", "log_words", "rules"}


def served(name: str, players: int, seed: int, seats: Optional[list[str]] = None):
    prog = program(GAMES[name])
    kinds = seats or ["human"] * players
    s = GameSession(prog, players, seed, kinds, GAMES[name], load(GAMES[name]).sources)
    links = SeatLinks([i for i in range(players) if kinds[i] == "human"])
    return s, links, TestClient(make_app(s, links))


def what_seat_gets(client: TestClient, links: SeatLinks, seat: Optional[int]) -> tuple:
    """Everything a connection of this seat receives: page, JSON view, poll message."""
    base = "" if seat is None else links.path(seat)
    page = client.get(base or "/")
    view = client.get(f"{base}/view.json")
    poll = client.get(f"{base}/poll")
    assert page.status_code == view.status_code == poll.status_code == 200
    return page.text, view.text, poll.text


# ------------------------------------------------------------------ changing what is hidden
def _shift(v: Any, t: Any) -> Any:
    """A different value of type t with the same size (a hidden collection shows its size)."""
    k = t.kind
    if k == "opt":
        return None if v is None else _shift(v, t.args[0])
    if v is None:
        return None
    if k == "int":
        return v + 7
    if k == "bool":
        return not v
    if k in ("enum",):
        return (v + 1) % len(t.members)
    if k == "bag":
        inner = t.args[0]
        out: dict = {}
        for x, n in v.items():
            y = _shift(x, inner)
            out[y] = out.get(y, 0) + n
        return out
    if k == "list":
        return [_shift(x, t.args[0]) for x in v]
    if k == "map":
        return {a: _shift(b, t.args[1]) for a, b in v.items()}
    if k == "record":
        return type(v)(_shift(x, ft) for x, ft in zip(v, t.field_types))
    return v


def hide_changed(prog: Any, state: Any, viewer: int) -> tuple[Any, set[int]]:
    """A copy of `state` with everything `viewer` may not see changed, and the seats whose own
    view shows some of the change."""
    rb = prog.rb
    s = state.clone()
    owners: set[int] = set()
    for i, f in enumerate(rb.table_fields):
        v = s.table[i]
        if is_owner_map(f.type, f.visibility):
            if v:
                s.table[i] = {p: (_shift(x, f.type.args[1]) if p != viewer else x)
                              for p, x in v.items()}
                owners |= {p for p in v if p != viewer and s.table[i][p] != v[p]}
        elif not visible(f.visibility, None, viewer):
            s.table[i] = _shift(v, f.type)
    for p, row in enumerate(s.players):
        for i, f in enumerate(rb.player_fields):
            if not visible(f.visibility, p, viewer):
                new = _shift(row[i], f.type)
                if new != row[i]:
                    row[i] = new
                    if f.visibility == "owner":
                        owners.add(p)
    return s, owners


def positions(name: str, players: int, seed: int, upto: int, every: int):
    """A session of the game played at random by its humans, yielding every few decisions."""
    s, links, client = served(name, players, seed)
    rng = random.Random(seed)
    for k in range(upto):
        if s.state.over:
            break
        if k % every == 0:
            yield s, links, client
        seat = s.to_decide()
        assert seat is not None
        r = client.post(f"{links.path(seat)}/move",
                        json={"option": rng.randrange(s.state.pending.count)})
        assert r.status_code == 200, r.text


@pytest.mark.parametrize("name, players, upto, every", [
    ("manila", 3, 90, 9), ("die_haendler", 3, 90, 9), ("genoa", 3, 60, 10),
    ("felinia", 2, 60, 10)])
def test_a_seat_receives_nothing_its_view_hides(name, players, upto, every):
    changed_owner_pages = 0
    for s, links, client in positions(name, players, 21, upto, every):
        real = s.steps[-1]
        for viewer in range(players):
            before = what_seat_gets(client, links, viewer)
            spectator = what_seat_gets(client, links, None)
            fake, owners = hide_changed(s.program, real, viewer)
            owner_pages = {p: what_seat_gets(client, links, p) for p in owners}
            s.steps[-1] = fake
            try:
                assert what_seat_gets(client, links, viewer) == before
                assert what_seat_gets(client, links, None) == spectator
                for p in owners:       # the change is real: its owner sees it
                    if what_seat_gets(client, links, p)[1] != owner_pages[p][1]:
                        changed_owner_pages += 1
            finally:
                s.steps[-1] = real
    if name != "felinia":      # Felinia (basic game) hides nothing from the others
        assert changed_owner_pages > 0


def test_log_parts_a_seat_may_not_see_never_reach_it():
    """Each hidden part of the record (a drawn share, a secret bid) replaced by a marker: the
    marker reaches the seats that may see that part and nobody else."""
    checked = 0
    for s, links, client in positions("manila", 3, 4, 70, 35):
        real = s.steps[-1]
        fake = real.clone()
        fake.record = copy.deepcopy(real.record)
        marks: dict[str, list] = {}
        for n, entry in enumerate(fake.record):
            if entry[0] in ("log", "choice", "forced"):
                parts = entry[2]
                for j, part in enumerate(parts):
                    if part[1] is not None and part[0]:
                        mark = f"MARK{n}x{j}Z"
                        part[0] = mark
                        marks[mark] = part[1]
            if entry[0] == "choice" and entry[4] is not None:
                mark = f"LABEL{n}Z"
                entry[3] = mark
                marks[mark] = entry[4] if not entry[6] else []
        if not marks:
            continue
        checked += 1
        s.steps[-1] = fake
        try:
            for viewer in (None, 0, 1, 2):
                page, view, poll = what_seat_gets(client, links, viewer)
                for mark, vis in marks.items():
                    seen = sees(vis, viewer)
                    in_page = mark in page or mark in view
                    if not seen:
                        assert not in_page, f"{mark} (for {vis}) reached viewer {viewer}"
                got_some = any(mark in view for mark, vis in marks.items() if vis and
                               viewer is not None and viewer in vis)
                if viewer is not None and any(vis and viewer in vis for vis in marks.values()):
                    assert got_some
        finally:
            s.steps[-1] = real
    assert checked, "the game so far should have some hidden log parts"


# ------------------------------------------------------------------ the view is the engine's
def test_the_json_view_is_the_engines_view_and_options_go_to_the_seat_to_move():
    for s, links, client in positions("die_haendler", 3, 5, 60, 6):
        state = s.state
        node = state.pending
        for viewer in (None, 0, 1, 2):
            base = "" if viewer is None else links.path(viewer)
            v = client.get(f"{base}/view.json").json()
            assert set(v) - set(observe(s.program, state, viewer)) <= EXTRA_KEYS
            assert {k: v[k] for k in observe(s.program, state, viewer)} == \
                observe(s.program, state, viewer)
            assert v["declared"] == declared_view(s.program, state, viewer)
            if viewer is not None and viewer == node.player:
                assert [o["label"] for o in v["options"]] == [o.label for o in node.options]
            else:
                assert v["options"] == []
                page = client.get(base or "/").text
                assert 'id="options"' not in page and '/move"' not in page


# ------------------------------------------------------------------ tokens
def _strip_banner(html: str) -> str:
    return re.sub(r'<div class="banner".*?<!--/banner-->', "", html, flags=re.S)


def test_a_wrong_or_missing_token_sees_only_the_spectator_view():
    s, links, client = served("manila", 3, 6, ["human", "human", "random"])
    real = links.tokens[0]
    spectator_page = client.get("/").text
    spectator_view = client.get("/view.json").json()
    wrong = ["x", real[:-1], real.upper() if real.upper() != real else real.lower(), real + "a",
             links.tokens[1][::-1], "%00", "é", "%20" + real]
    for token in wrong:
        r = client.get(f"/play/{token}")
        assert r.status_code == 403
        assert "this link is not a seat of this game" in r.text
        assert _strip_banner(r.text) == spectator_page
        j = client.get(f"/play/{token}/view.json")
        assert j.status_code == 403 and j.json()["view"] == spectator_view
        assert j.json()["hint"]
        assert client.get(f"/play/{token}/poll").json() == client.get("/poll").json()
    r = client.get(f"/play/..%2f..%2f{real}")
    assert r.status_code == 404 and "shares" not in r.text
    for path in ("/play", "/play/"):
        r = client.get(path)
        assert r.status_code == 403 and _strip_banner(r.text) == spectator_page
    assert spectator_view["viewer"] is None and spectator_view["options"] == []
    # the spectator sees the other seats' shares as hidden
    assert all(p["shares"]["hidden"] for p in spectator_view["players"])


def test_a_wrong_token_cannot_move_or_undo():
    s, links, client = served("manila", 3, 6, ["human", "random", "random"])
    before = s.state.digest()
    for url in ("/play/nope/move", f"/play/{links.tokens[0][:-2]}/move"):
        r = client.post(url, json={"option": 0})
        assert r.status_code == 403 and "not a seat" in r.json()["error"]
        assert r.json()["hint"]
    r = client.post("/play/nope/undo", data={})
    assert r.status_code == 403 and "open the link printed" in r.text
    assert s.state.digest() == before


def test_tokens_are_long_random_and_distinct():
    links = SeatLinks(list(range(5)))
    tokens = list(links.tokens.values())
    assert len(set(tokens)) == 5 and all(len(t) >= 24 for t in tokens)
    assert SeatLinks([0]).tokens[0] != SeatLinks([0]).tokens[0]
    assert links.seat_of(tokens[3]) == 3 and links.seat_of(tokens[3] + "x") is None
