"""A view row that shows deal offers (docs/language.md §2.20a): any `list<offer<...>>` row, the
whole table or a computed part of it, is shown one line per offer, as the generic view shows a
deal's table — never as records field by field (issue 16, "a view of the table for people").
Then Genoa's three rows of its open table (rulebooks/genoa.rules, view, section "The table of
offers"; docs/games/genoa.md, "The view"), and what a seat may not see in them."""
from __future__ import annotations

import io
import re

from rich.console import Console

from game_driver import program_text
from genoa_driver import Game, genoa_program

from mercator.interpreter.cli.terminal import view_renderable
from mercator.interpreter.engine.declared_view import declared_view, describe_view
from mercator.interpreter.engine.people import people
from mercator.interpreter.engine.program import Program

STALLS = """
game "Stalls" players 2..2
enum Good { salt, silk }
player { coins: int = 9  goods: bag<Good> }
bundle Lot { coins: amount of coins  goods: items of goods }
table { market: list<offer<Lot>> }
setup { first(players).goods[salt] = 2 }
round r limit 1 {
  phase trade {
    deal on market {
      among = players
      terms = [give, get]
      quiet = 2
      limit = 8
    }
  }
}
score p: p.coins + count(p.goods)
view {
  section "Stalls" {
    row "every offer" = market
    row "offers with coins" = [o for o in market if o.give.coins > 0]
  }
}
"""


def _rows(prog: Program, s, viewer: int) -> dict[str, dict]:
    v = declared_view(prog, s, viewer)
    assert v is not None
    return {r["label"]: r for sec in v["sections"] for r in sec["rows"]}


def test_a_row_of_offers_shows_one_line_per_offer_whole_table_or_computed() -> None:
    prog = program_text(STALLS)
    s = prog.new_game(players=2, seed=0)
    for label in ("post an offer", "add salt", "add salt", "done", "add 1 coins", "post"):
        prog.apply(s, label)
    prog.apply(s, "post an offer")                          # P2: 2 coins for nothing
    for label in ("add 1 coins", "add 1 coins", "done", "post"):
        prog.apply(s, label)
    rows = _rows(prog, s, 0)
    assert rows["every offer"]["lines"] == ["#1 P1 to P2: gives salt×2; gets 1 coins",
                                            "#2 P2 to P1: gives 2 coins"]
    assert rows["every offer"]["text"] == "#1 P1 to P2: gives salt×2; gets 1 coins\n" \
                                          "#2 P2 to P1: gives 2 coins"
    assert rows["offers with coins"]["lines"] == ["#2 P2 to P1: gives 2 coins"]
    text = describe_view(prog, s, 1)
    assert "    offers with coins  #2 P2 to P1: gives 2 coins" in text
    assert "give:" not in text and "maker" not in text       # no record field by field


def test_an_empty_row_of_offers_says_so() -> None:
    prog = program_text(STALLS)
    s = prog.new_game(players=2, seed=0)
    rows = _rows(prog, s, 0)
    assert rows["every offer"]["text"] == rows["offers with coins"]["text"] == "(no offers)"
    assert rows["every offer"]["lines"] == []


# ------------------------------------------------------------------ Genoa's open table
def _screen(prog: Program, g: Game, seat: int) -> str:
    out = io.StringIO()
    Console(file=out, width=200, no_color=True, highlight=False, markup=False,
            emoji=False).print(view_renderable(prog, g.s, seat))
    return out.getvalue()


def _table_of_offers() -> tuple[Program, Game]:
    """Tower on street r2c4 (4 players, P1 the tower player): P2 bids 10 ducats, a silk and his
    dealt message for the City Hall (one step away); P1 counter-offers P3 5 ducats for the
    Tavern; P3 hints 5 ducats for Villa Colini (not next to the tower)."""
    prog = genoa_program()
    g = Game(prog)
    g.give_goods(1, "silk")
    g.pay(1, 3, 15)                             # purses 125, 115, 135, 145
    g.pay(0, 2, 5)
    g.start("r2c4")
    g.passes(0)
    msg = next(c for c in g.cards(1) if c.startswith("message_"))
    g.post(1, "city_hall", give=["5 ducats", "5 ducats", "silk", msg])
    g.post(0, "tavern", give=["5 ducats"], to=2)
    g.post(2, "villa_colini", give=["5 ducats"])
    return prog, g


def test_genoa_shows_what_can_be_accepted_now_the_counter_offers_and_the_hints() -> None:
    """seed 000 11 (商人可以自由選擇接受哪個出價), 08 (出價可以包含商人將金幣或物品給對方) and
    §未相鄰的格子 (這樣的出價不能接受或拒絕): each offer in its row, by its building's name."""
    prog, g = _table_of_offers()
    msg = next(c for c in g.cards(1) if c.startswith("message_"))
    rows = _rows(prog, g.s, 3)
    # the names in words, a card by the view's text (message: its two buildings)
    said = people(prog, g.s).label(msg)
    assert said.startswith("message: ") and " and " in said and "_" not in said
    assert rows["the tower player may accept now"]["lines"] == \
        [f"#1 P2 to P1 about city hall: gives 10 ducats + silk + {said}"]
    assert rows["his counter-offers, to accept now"]["lines"] == \
        ["#2 P1 to P3 about tavern: gives 5 ducats"]
    assert rows["hints (not acceptable yet)"]["lines"] == \
        ["#3 P3 to P1 about villa colini: gives 5 ducats"]
    screen = _screen(prog, g, 3)
    assert re.search(r"the tower player may accept now\s+#1 P2 to P1 about city hall", screen)
    assert re.search(r"hints \(not acceptable yet\)\s+#3 P3 to P1 about villa colini", screen)
    # the tower player's accept options are exactly the first row's offers
    assert g.s.pending.player == 0              # (the window: P1, P2, P1, P3, P1, …)
    assert [a.split(":")[0] for a in g.accepts()] == ["accept #1 P2 to P1 about city_hall"]


def test_genoa_offers_never_show_a_purse_or_a_hand() -> None:
    """rules-data §Setup: ducats and cards are secret (reading 8): an offer shows what it names
    (its ducats, the card offered), but no seat other than the holder sees a purse or the rest
    of a hand — not in the rows of offers, not anywhere on its screen."""
    prog, g = _table_of_offers()
    msg = next(c for c in g.cards(1) if c.startswith("message_"))
    w = people(prog, g.s)
    for seat in (0, 2, 3):
        screen = _screen(prog, g, seat) + describe_view(prog, g.s, seat)
        assert w.label(msg) in screen            # offered openly (in words)
        for c in g.cards(1):
            if c != msg:
                assert c not in screen and w.label(c) not in screen, (seat, c)
        assert f"ducats {g.ducats(seat)}" in screen      # his own purse
        for p in range(4):
            if p != seat:
                assert f"ducats {g.ducats(p)}" not in screen
                assert str(g.ducats(p)) not in screen
        for p in (0, 2, 3):
            if p != seat:
                assert not any(c in screen for c in g.cards(p) if c not in g.cards(seat))


def test_the_browser_page_shows_genoa_offers_one_line_each() -> None:
    """The web page of a seat (interpreter/web/) draws a row of offers as one line per offer."""
    import pytest
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from mercator.dsl.loader import load
    from mercator.interpreter.tools.session import GameSession
    from mercator.interpreter.web.app import SeatLinks, make_app

    path = "rulebooks/genoa.rules"
    s = GameSession(genoa_program(), 4, 3, ["human"] * 4, path, load(path).sources)
    links = SeatLinks([0, 1, 2, 3])

    def labels() -> list[str]:
        return [o.label for o in s.state.pending.options]

    while "post an offer" not in labels() or s.to_decide() != 1:
        s.move(s.to_decide(), "pass" if "pass" in labels() else 0)
    s.move(1, "post an offer")
    about = next(lb for lb in labels() if lb.startswith("about "))
    s.move(1, about)
    s.move(1, "add 5 ducats")
    while s.to_decide() == 1 and ("post" in labels() or "done" in labels()):
        s.move(1, "post" if "post" in labels() else "done")
    page = TestClient(make_app(s, links)).get(links.path(3)).text
    line = f"#1 P2 to P1 {people(s.program, s.steps[-1]).label(about)}: gives 5 ducats"
    assert f'<div class="offer">{line}</div>' in page


def _offering(prog: Program, read: bool = False) -> Game:
    """A Genoa game at P2's offer to P1 about the city hall, its bundles not begun (P2 holds
    silk); with `read`, every step's draft read as it comes."""
    g = Game(prog)
    g.give_goods(1, "silk")
    g.start("r2c4")
    g.passes(0)
    for step in ("post an offer", "about city_hall"):
        g.do(1, step)
        assert not read or g.s.pending.draft is not None
    return g


def test_the_offer_being_built_is_shown_to_its_maker_alone() -> None:
    """Issue 39, finding 9: while P2 builds an offer (seed 000 07–08: offers of ducats, goods,
    cards), his screen says what it holds so far, step by step; no other seat's observation,
    screen or log shows any of it."""
    from mercator.interpreter.cli.terminal import options_renderable
    from mercator.interpreter.engine.view import observe
    prog = genoa_program()
    g = _offering(prog)
    node = g.s.pending
    assert node.draft == "your offer so far: to P1 about city_hall: gives nothing"
    g.do(1, "add 5 ducats")
    g.do(1, "add silk")
    node = g.s.pending
    want = "your offer so far: to P1 about city hall: gives 5 ducats + silk"
    assert observe(prog, g.s, 1)["pending"]["draft"] == want
    out = io.StringIO()
    Console(file=out, width=200, no_color=True).print(options_renderable(node))
    assert want in out.getvalue()
    for seat in (None, 0, 2, 3):
        seen = str(observe(prog, g.s, seat))
        assert "draft" not in seen and "silk" not in seen.split("'pending'")[1], seat
        screen = _screen(prog, g, seat) if seat is not None else ""
        assert "your offer so far" not in screen and "gives 5 ducats" not in screen


def test_the_offer_being_built_is_written_when_read_and_says_what_it_said_then() -> None:
    """A node's draft is written only when read (a search's worlds narrate and never read
    it), from what the draft and the state were at that step: a clone sharing the node reads
    the same words after the original has gone on and added to the offer, as a node whose
    text was written at once does; and a draft that is never read is never written."""
    from mercator.interpreter.engine import deals
    prog = genoa_program()
    g = _offering(prog)
    g.do(1, "add 5 ducats")
    twin = g.s.clone()
    node = g.s.pending
    assert twin.pending is node                 # (clones share the pending node)
    written: list[int] = []
    words = deals.DealSpec._draft_words

    def counting(self: deals.DealSpec, d: list) -> str:
        written.append(1)
        return words(self, d)
    deals.DealSpec._draft_words = counting  # type: ignore[method-assign]
    try:
        g.do(1, "add silk")                     # the original goes on: its draft changes
        assert written == []                    # (neither node's text written yet)
        assert node.draft == "your offer so far: to P1 about city_hall: gives 5 ducats"
        assert twin.pending.draft == node.draft and written == [1]
        assert g.s.pending.draft == \
            "your offer so far: to P1 about city_hall: gives 5 ducats + silk"
        assert node.draft and written == [1, 1]     # (written once: kept)
        # the same words as a game that read every draft as it came
        fresh = _offering(prog, read=True)
        fresh.do(1, "add 5 ducats")
        assert fresh.s.pending.draft == node.draft
    finally:
        deals.DealSpec._draft_words = words  # type: ignore[method-assign]


def test_each_step_of_a_deal_says_what_it_does() -> None:
    """Issue 39, finding 9: the buttons of Genoa's negotiation say what each does (the deal
    construct's steps, the same in every rulebook: docs/language.md §4.17)."""
    from mercator.interpreter.engine.declared_view import option_notes
    prog = genoa_program()
    g = Game(prog)
    g.give_goods(1, "silk")
    g.start("r2c4")
    d = g.s.pending
    notes = dict(zip([o.label for o in d.options], option_notes(prog, g.s, d, d.player)))
    assert notes["pass"] == "say nothing this turn"
    assert notes["post an offer"].startswith("build an offer to another player")
    assert notes["close: none"] == "end the bargaining here with no deal; the rules go on with this"
    g.passes(0)
    g.post(1, "city_hall", give=["5 ducats"])
    d = g.s.pending
    assert d.player == 0                        # the tower player, to answer P2's offer
    notes = dict(zip([o.label for o in d.options], option_notes(prog, g.s, d, d.player)))
    accept = next(k for k in notes if k.startswith("accept #1"))
    assert notes[accept].startswith("take this offer: both sides hand over")
