"""Hidden holdings and the deal construct (issue 35 §1): "Drafting is seen by the drafter alone;
a posted offer shows what the rulebook's visibility says it shows" (docs/language.md §4.17,
"Visibility", and §10.11).

Seeded random games of Genoa (2–5 players) and Bazaar (2–4), narrated: at every decision, for
every seat, what the seat is shown — its log, its view, the prompt of the pending decision as it
sees it, and its options when it is the one to choose — names no item of another seat's hidden
holding (an owner-only field: Genoa's cards) nor of a secret field (the decks) that the seat has
not been shown by the rules: by a public field (a posted offer is one: the table of offers is
public), a public part of a `log` line, a public announcement of a choice other than a step of
building an offer, or by having held the item itself. And no seat sees another seat's steps of
building an offer ("P2 chooses add 5 ducats"). A few games are also served by the web app
(interpreter/web/app.py), and each seat's page, JSON view and poll message are searched the same
way (as tests/test_web_security.py fetches them).

Before the fix every step of a draft was announced to every seat: "P2 chooses add
large_monetti_6 (bids: what you give)", "P2 chooses cancel" — the cards of a draft that was never
posted included.
"""
from __future__ import annotations

import random
import re
import warnings
from pathlib import Path
from typing import Any, Iterable, Optional

import pytest

from game_driver import program
from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.seen import render
from mercator.interpreter.engine.values import fmt
from mercator.interpreter.engine.view import describe, observe

ROOT = Path(__file__).resolve().parent.parent
BOOKS = {"genoa": ROOT / "rulebooks" / "genoa.rules",
         "bazaar": ROOT / "rulebooks" / "examples" / "bazaar.rules",
         "isles": ROOT / "rulebooks" / "examples" / "isles.rules"}
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# a step of building an offer, as another seat would have been told it
DRAFT_STEP = re.compile(r"^P(\d+) (?:chooses|has chosen) (?:add |to P\d|about |done\b)")
DRAFT_PROMPT = ("what you give", "what you ask for", "what you promise", "make the offer to",
                "the offer is about")


def _items(v: Any, t: Any) -> Iterable[str]:
    """The names of the items of a collection value (bags by key, maps by value)."""
    k = t.args[0].kind if t.kind == "opt" else t.kind
    if t.kind == "opt":
        t = t.args[0]
    if v is None:
        return
    if k == "list":
        for x in v:
            yield from _atoms(x, t.args[0])
    elif k == "bag":
        for x in v:
            yield from _atoms(x, t.args[0])
    elif k == "map":
        for x in v.values():
            yield from _items(x, t.args[1]) if t.args[1].kind in ("list", "bag", "map") \
                else _atoms(x, t.args[1])


def _atoms(x: Any, t: Any) -> Iterable[str]:
    if t.kind in ("list", "bag", "map", "opt"):
        yield from _items(x, t)
    elif t.kind == "enum":
        yield fmt(x, t)


class Watch:
    """What each seat of one narrated game may have learnt, kept up as the game goes: the item
    names shown publicly so far, and those each seat has held itself."""

    def __init__(self, prog: Any, players: int):
        self.prog, self.players = prog, players
        rb = prog.rb
        self.hidden_player = [(i, f) for i, f in enumerate(rb.player_fields)
                              if f.visibility == "owner"]
        self.secret_table = [(i, f) for i, f in enumerate(rb.table_fields)
                             if f.visibility == "secret"]
        self.public: set[str] = set()
        self.held: list[set[str]] = [set() for _ in range(players)]
        self.read = 0               # record entries looked at so far
        self.checked = 0            # (seat, thing shown) pairs searched
        self.hidden_seen = 0        # ... of which some other seat's hidden item was unknown

    def holdings(self, s: Any) -> list[set[str]]:
        """Per seat, the item names in its owner-only fields now."""
        return [{n for i, f in self.hidden_player for n in _items(row[i], f.type)}
                for row in s.players]

    def secret(self, s: Any) -> set[str]:
        """The item names in the secret table fields now (nobody's to see)."""
        return {n for i, f in self.secret_table for n in _items(s.table[i], f.type)}

    def update(self, s: Any) -> None:
        """Take in what the rules have shown every seat since the last call: the public fields
        (offers included), public log parts, public announcements that are no draft steps."""
        self.public |= set(WORD.findall(describe(self.prog, s, None)))
        for e in s.record[self.read:]:
            if e[0] == "log" and e[1] is None:
                for text, vis in e[2]:
                    if vis is None:
                        self.public |= set(WORD.findall(text))
            elif e[0] in ("choice", "forced") and e[4] is None and len(e) <= 7 \
                    and not (e[0] == "choice" and e[6]) and not _deal_prompt(e):
                self.public |= set(WORD.findall(e[3]))
            elif e[0] == "revealed":
                for _, label, vis in e[1]:
                    if vis is None:
                        self.public |= set(WORD.findall(label))
        self.read = len(s.record)
        for p, h in enumerate(self.holdings(s)):
            self.held[p] |= h

    def unknown_to(self, s: Any, seat: int) -> dict[str, str]:
        """The hidden item names `seat` has not been shown, with whose they are."""
        out = {n: "a secret field" for n in self.secret(s)}
        for p, h in enumerate(self.holdings(s)):
            if p != seat:
                out.update({n: f"P{p + 1}'s hidden holding" for n in h})
        return {n: w for n, w in out.items() if n not in self.public and n not in self.held[seat]}

    def search(self, what: str, texts: Iterable[str], unknown: dict[str, str],
               seat: int) -> None:
        """Assert that no text names an unknown item."""
        self.checked += 1
        self.hidden_seen += bool(unknown)
        for text in texts:
            leaked = set(WORD.findall(text)) & unknown.keys()
            if leaked:
                at = text.find(min(leaked))
                raise AssertionError(
                    f"P{seat + 1}'s {what} names {sorted(leaked)} "
                    f"({', '.join(sorted({unknown[n] for n in leaked}))}): "
                    f"...{text[max(0, at - 160):at + 80]!r}...")


def _deal_prompt(entry: list) -> bool:
    """Is this announcement a step of a deal window (prompt 'bids: ...')?"""
    return any(any(p in text for p in DRAFT_PROMPT + ("your turn to deal",))
               for text, _ in entry[2])


def _shown(prog: Any, s: Any, seat: int, since: int) -> list[tuple[str, list[str]]]:
    """Everything `seat` is shown now: its log (the lines since record entry `since`: each
    line is searched when it is new), its view (text and JSON), the pending prompt as it sees
    it, and its options when it is the one to choose."""
    node = s.pending
    log = [line for line in (render(e, seat) for e in s.record[since:]) if line is not None]
    obs = observe(prog, s, seat)
    obs.pop("log", None)
    out = [("log", log), ("view", [describe(prog, s, seat), repr(obs)])]
    if isinstance(node, Decision):
        out.append(("prompt", [node.prompt_for(seat)]))
        if node.player == seat:
            out.append(("options", [o.label for o in node.options]))
    return out


def _no_draft_of_others(log: list[str], prompt: Optional[str], seat: int,
                        node: Any) -> None:
    """The seat sees none of another seat's steps of building an offer."""
    for line in log:
        m = DRAFT_STEP.match(line)
        assert m is None or int(m.group(1)) == seat + 1, \
            f"P{seat + 1} is told another seat's step of building an offer: {line!r}"
    if isinstance(node, Decision) and node.player != seat and prompt:
        assert not any(p in prompt for p in DRAFT_PROMPT), \
            f"P{seat + 1} is shown P{node.player + 1}'s prompt {prompt!r}"


def play_and_search(name: str, players: int, seed: int, decisions: int) -> Watch:
    """Play a narrated random game (up to `decisions`), searching every seat's screens at every
    decision."""
    prog = program(BOOKS[name])
    s = prog.new_game(players, seed, narrate=True)
    rng = random.Random(seed)
    w = Watch(prog, players)
    drafts = 0
    for _ in range(decisions):
        if s.over:
            break
        since = w.read
        w.update(s)
        node = s.pending
        for seat in range(players):
            unknown = w.unknown_to(s, seat)
            shown = _shown(prog, s, seat, since)
            for what, texts in shown:
                w.search(what, texts, unknown, seat)
            prompt = node.prompt_for(seat) if isinstance(node, Decision) else None
            _no_draft_of_others(shown[0][1], prompt, seat, node)
        if isinstance(node, Decision) and any(p in node.prompt for p in DRAFT_PROMPT[:3]):
            drafts += 1
        prog.apply(s, _pick(node, rng))
    assert drafts, "the game should build some offers"
    return w


def _pick(node: Any, rng: random.Random) -> int:
    """A random option, leaning to building offers with something in them (so drafts of
    hidden items are made, cancelled and posted)."""
    if isinstance(node, Decision) and node.vtype.__class__ is tuple:
        labels = [o.label for o in node.options]
        adds = [i for i, lb in enumerate(labels) if lb.startswith("add ")]
        if adds and rng.random() < 0.6:
            return rng.choice(adds)
        if "post an offer" in labels and rng.random() < 0.5:
            return labels.index("post an offer")
    return rng.randrange(node.count)


GAMES = [("genoa", n, seed) for n in (2, 3, 4, 5) for seed in (1, 2)] + \
        [("bazaar", n, seed) for n in (2, 3, 4) for seed in (1, 2, 3)] + \
        [("isles", n, seed) for n in (3, 4) for seed in (1, 2)]


@pytest.mark.parametrize("name, players, seed", GAMES)
def test_no_seat_is_shown_another_seats_hidden_items_or_drafts(name: str, players: int,
                                                               seed: int) -> None:
    w = play_and_search(name, players, seed, 260 if name == "genoa" else 400)
    assert w.checked
    if name == "genoa":        # the search is not empty: there were hidden cards to find
        assert w.hidden_seen


# ------------------------------------------------------------------ the web pages
def test_no_web_page_shows_another_seats_hidden_items_or_drafts() -> None:
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from mercator.dsl.loader import load
    from mercator.interpreter.tools.session import GameSession
    from mercator.interpreter.web.app import SeatLinks, make_app

    searched = 0
    for name, players, seed, upto, every in (("genoa", 3, 4, 160, 5), ("bazaar", 3, 4, 120, 6)):
        path = str(BOOKS[name])
        prog = program(path)
        session = GameSession(prog, players, seed, ["human"] * players, path,
                              load(path).sources)
        links = SeatLinks(list(range(players)))
        client = TestClient(make_app(session, links))
        rng = random.Random(seed)
        w = Watch(prog, players)
        for k in range(upto):
            s = session.state
            if s.over:
                break
            w.update(s)
            if k % every == 0:
                for seat in range(players):
                    base = links.path(seat)
                    pages = [client.get(base).text, client.get(f"{base}/view.json").text,
                             client.get(f"{base}/poll").text]
                    w.search("web page", pages, w.unknown_to(s, seat), seat)
                    for line in client.get(f"{base}/view.json").json().get("log", []):
                        assert not (DRAFT_STEP.match(line) and
                                    not line.startswith(f"P{seat + 1} ")), line
                    searched += 1
            seat = session.to_decide()
            assert seat is not None
            r = client.post(f"{links.path(seat)}/move", json={"option": _pick(s.pending, rng)})
            assert r.status_code == 200, r.text
    assert searched


# ------------------------------------------------------------------ the information state
def _to_the_give_bundle(prog: Any, s: Any) -> None:
    """Answer a new draft's first steps (to whom, about what) with the first option."""
    while s.pending.prompt.endswith(("make the offer to", "the offer is about")):
        prog.apply(s, 0)


def _cancel(prog: Any, s: Any, adds: list[str]) -> None:
    """Build an offer with these 'add' steps (as far as they go), then cancel it."""
    prog.apply(s, "post an offer")
    _to_the_give_bundle(prog, s)
    for a in adds:
        labels = [o.label for o in s.pending.options]
        if a in labels:
            prog.apply(s, a)
    prog.apply(s, "cancel")


def test_a_cancelled_draft_leaves_the_others_information_state_as_it_was() -> None:
    """Two drafts of different cards, both cancelled: every other seat has observed the same
    (docs/language.md §10.11, "a step of building a deal's offer"); the drafter has not."""
    prog = program(BOOKS["genoa"])
    s = prog.new_game(3, 4, narrate=True)
    rng = random.Random(4)
    for _ in range(400):
        node = s.pending
        labels = [o.label for o in node.options]
        if "post an offer" in labels:
            trial = s.clone()
            prog.apply(trial, "post an offer")
            _to_the_give_bundle(prog, trial)
            adds = [lb for lb in (o.label for o in trial.pending.options)
                    if lb.startswith("add ") and "ducats" not in lb]
            if len(adds) >= 2:
                break
        prog.apply(s, rng.randrange(node.count))
    else:
        pytest.fail("no draft with two cards to add")
    drafter = s.pending.player
    a, b, c = s.clone(), s.clone(), s.clone()
    _cancel(prog, a, adds[:1])
    _cancel(prog, b, adds[1:2] + ["add 5 ducats", "add 5 ducats"])
    _cancel(prog, c, [])
    for seat in range(3):
        keys = {x.information_state(seat) for x in (a, b, c)}
        assert len(keys) == (3 if seat == drafter else 1), seat
        if seat != drafter:
            assert observe(prog, a, seat) == observe(prog, c, seat)


def test_whether_the_taker_can_pay_an_ask_of_his_hidden_ducats_is_his_alone() -> None:
    """Issue 38, asks(o): P1 (the tower player) asks P3 for 130 of his secret ducats. In one game
    P3 holds 130, in the other he paid 5 away before (to P2, who then holds 135 or 130: the
    seats that see neither purse are P1 and P4). Up to P3's answer, P1 and P4 have observed
    the same in both games — the offer stands in both (never void for P3's purse), and P3's
    options, which differ (accept, or not), are shown to P3 alone."""
    from genoa_driver import Game, genoa_program
    prog = genoa_program()
    games = []
    for paid in (0, 5):
        g = Game(prog)
        if paid:
            g.pay(2, 1, paid)
        g.start("r2c4")
        g.post(0, "city_hall", get=["5 ducats"] * 26, to=2)
        g.passes(1, 0)
        games.append(g)
    rich, poor = games
    assert [lb for lb in rich.labels() if lb.startswith("accept")] == \
        ["accept #1 P1 to P3 about city_hall: gives nothing; gets 130 ducats; promises nothing"]
    assert [lb for lb in poor.labels() if lb.startswith("accept")] == []
    for seat in (0, 3):
        assert rich.s.information_state(seat) == poor.s.information_state(seat), seat
        assert observe(prog, rich.s, seat) == observe(prog, poor.s, seat)
    for g in games:
        g.passes(2)
    assert rich.offers() == poor.offers() == \
        ["#1 P1 to P3 about city_hall: gives nothing; gets 130 ducats"]
    for seat in (0, 3):
        assert rich.s.information_state(seat) == poor.s.information_state(seat), seat
