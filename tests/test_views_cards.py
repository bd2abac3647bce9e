"""Hands and piles in a view (docs/language.md §2.20a; issue 39, "Deliver": boards drawn from
the rulebook ... hands and piles). The three smallest rulebooks that need them:

1. a seat's hidden hand:   player { hand: list<Card> owner }   panel p { hand "cards" = p.hand }
2. a face-down deck, only its size known:   table { deck: list<Card> secret }   pile "deck" = deck
3. a face-up discard pile, its top public:  table { discard: list<Card> }
   pile "discard" = reverse(discard)   (the last card added on top)

A hand is drawn as its cards, face up to whoever may see it, as that many backs to the others;
a pile as a stack with its count, its top card (a list's first, as `draw from` takes it) face
up where the seat may see the pile.
"""
from __future__ import annotations

import io
import re
import warnings

import pytest

from game_driver import error_lines, program_text
from test_views import _hide_differently

from mercator.interpreter.engine.declared_view import declared_view
from mercator.interpreter.engine.program import Program

CARDS = '''game "Cards" players 2..3
enum Card { ace, king, queen, jack }
enum Kind { red, blue }
player {
  coins: int = 3
  hand: list<Card> owner
  tricks: bag<Card>
}
table {
  deck: list<Card> = [queen, jack, ace] secret
  discard: list<Card> = [jack, queen]
  by_kind: map<Kind, list<Card>> = {red: [ace], blue: []}
  left: map<Kind, int> = {red: 4, blue: 0}
}
setup {
  for p in players { add ace to p.hand   add king to p.hand }
  for p in players {
    if p == players[0] { add king to p.tricks   add king to p.tricks   add jack to p.tricks }
  }
}
round r limit 1 {
  phase main {
    for p in players {
      let c = choose p one of p.hand prompt "play"
      remove c from p.hand
      add c to discard
    }
  }
}
score p: p.coins
'''

VIEW = '''view {
  section "Table" {
    pile "deck" = deck
    pile "discard" = reverse(discard)
    pile "by kind" = by_kind
    pile "left" = left
  }
  panel p {
    hand "cards" = p.hand
    hand "tricks" = p.tricks
  }
}
'''


@pytest.fixture(scope="module")
def cards() -> Program:
    return program_text(CARDS + VIEW)


def _view(prog: Program, s=None, viewer: int | None = 0) -> dict:
    v = declared_view(prog, s if s is not None else prog.new_game(2, 1), viewer)
    assert v is not None
    return v


def _table(v: dict) -> dict[str, dict]:
    return {r["label"]: r for r in v["sections"][0]["rows"]}


def _panel(v: dict, seat: int) -> dict[str, dict]:
    return {r["label"]: r for r in v["panel"]["seats"][seat]["rows"]}


def test_a_hand_is_its_cards_to_its_owner_and_its_size_to_the_others(cards: Program) -> None:
    v = _view(cards)
    mine, theirs = _panel(v, 0)["cards"], _panel(v, 1)["cards"]
    assert mine["kind"] == "hand" and not mine["hidden"]
    assert mine["cards"] == ["ace", "king"] and mine["text"] == "ace · king"
    assert theirs["hidden"] and theirs["size"] == 2 and theirs["text"] == "(hidden, 2 items)"
    assert "cards" not in theirs                      # nothing of its faces
    # a bag: each card as often as it is held, in order
    assert _panel(v, 0)["tricks"]["cards"] == ["king", "king", "jack"]
    spectator = _panel(_view(cards, viewer=None), 0)["cards"]
    assert spectator["hidden"] and spectator["size"] == 2


def test_a_pile_has_its_count_and_its_top_where_the_seat_may_see_it(cards: Program) -> None:
    t = _table(_view(cards))
    deck = t["deck"]                                  # secret: its size, no face
    assert deck["hidden"] and deck["size"] == 3 and "piles" not in deck
    discard = t["discard"]["piles"]                   # reversed: the last added on top
    assert discard == [{"key": None, "count": 2, "top": "queen", "items": ["queen", "jack"]}]
    assert t["discard"]["text"] == "2 cards, top: queen"
    assert [(p["key"], p["count"], p["top"]) for p in t["by kind"]["piles"]] == \
        [("red", 1, "ace"), ("blue", 0, None)]
    assert t["left"]["piles"] == [{"key": "red", "count": 4, "top": None, "items": []},
                                  {"key": "blue", "count": 0, "top": None, "items": []}]
    assert t["left"]["text"] == "red: 4 cards · blue: empty"


def test_a_hand_in_the_browser_is_cards_or_backs(cards: Program) -> None:
    from mercator.interpreter.web.cards import CARD_W, GAP, hand_svg
    v = _view(cards)
    svg = str(hand_svg(_panel(v, 0)["cards"]))
    # two cards side by side: the second CARD_W + GAP to the right
    assert f'viewBox="0 0 {2 * CARD_W + GAP} 136"' in svg
    assert '<g class="card" data-key="ace"><title>ace</title><rect x="0.0" y="0.0"' in svg
    assert f'<g class="card" data-key="king"><title>king</title><rect x="{CARD_W + GAP:.1f}"' in svg
    backs = str(hand_svg(_panel(v, 1)["cards"]))
    assert backs.count('<g class="back">') == 2 and "ace" not in backs and "king" not in backs
    assert "(hidden, 2 items)" in backs


def test_a_pile_in_the_browser_is_a_stack_with_its_count(cards: Program) -> None:
    from mercator.interpreter.web.cards import pile_svg
    t = _table(_view(cards))
    discard = str(pile_svg(t["discard"]))
    # two cards: one edge under the top (3 units down and right), the top face up, its count
    assert '<rect class="edge" x="3.0" y="3.0"' in discard and discard.count('class="edge"') == 1
    assert '<title>queen</title>' in discard and ">2 cards</text>" in discard
    deck = str(pile_svg(t["deck"]))
    assert deck.count('class="edge"') == 2 and '<g class="back">' in deck
    assert "queen" not in deck and "jack" not in deck and ">3 cards</text>" in deck
    assert "(hidden)" in deck and "3 items" not in deck      # the count once, on the stack
    # P1's tricks as a pile: a bag face up shows what it holds, by kind
    bag = {"label": "tricks", "kind": "pile", "hidden": False, "piles": [
        {"key": None, "count": 3, "top": None, "items": ["king×2", "jack"]}]}
    assert "<title>king×2, jack</title>" in str(pile_svg(bag))
    left = str(pile_svg(t["left"]))
    assert '<text class="pile-name" x="50.0" y="13">red</text>' in left
    assert ">4 cards</text>" in left and ">empty</text>" in left and 'class="empty"' in left


def test_the_terminal_writes_cards_and_backs(cards: Program) -> None:
    from mercator.interpreter.cli.terminal import console_for, view_renderable
    s = cards.new_game(2, 1)
    out = io.StringIO()
    _wide(console_for(out)).print(view_renderable(cards, s, 0))
    text = out.getvalue()
    assert "[ace] [king]" in text and "▮▮ (hidden, 2 items)" in text
    assert "▮▮▮ (hidden, 3 items)" in text and "2 cards, top: queen" in text
    assert "red: 4 cards" in text and "blue: empty" in text


def _wide(console):
    console.width = 160                  # room for the panel's columns
    return console


def _page_client(prog: Program, text: str):
    pytest.importorskip("starlette")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from mercator.interpreter.tools.session import GameSession
    from mercator.interpreter.web.app import SeatLinks, make_app
    session = GameSession(prog, 2, 1, ["human", "human"], "t.rules", {"t.rules": text})
    links = SeatLinks([0, 1])
    return session, links, TestClient(make_app(session, links))


def test_no_seat_sees_another_seats_hand_in_the_page_or_the_terminal(cards: Program) -> None:
    """The page (its SVG included) and the terminal's screen of each seat and the spectator
    are the same in every world the seat cannot tell apart: the others' hands and the deck
    changed to other cards of the same number."""
    from mercator.interpreter.cli.terminal import console_for, view_renderable
    session, links, client = _page_client(cards, CARDS + VIEW)
    s = session.steps[-1]
    for viewer in (0, 1, None):
        path = links.path(viewer) if viewer is not None else "/"
        mine = client.get(path).text
        assert '<svg class="cards"' in mine
        other = _hide_differently(cards, s, viewer)
        assert other.players != s.players and other.table != s.table
        session.steps[-1] = other
        assert client.get(path).text == mine
        session.steps[-1] = s
        screens = []
        for state in (s, other):
            out = io.StringIO()
            _wide(console_for(out)).print(view_renderable(cards, state, viewer))
            screens.append(out.getvalue())
        assert screens[0] == screens[1]
    page = client.get(links.path(1)).text          # P2's page: P1's hand as two backs
    p1 = page[page.index('id="player-P1"'):page.index('id="player-P2"')]
    assert p1.count('<g class="back">') == 2 and ">ace<" not in p1


def _errors(view: str) -> list[str]:
    return error_lines(CARDS + view)


@pytest.mark.parametrize("line, says", [
    ('section "S" { hand "h" = left }', 'hand "h" has type map<Kind, int>, not a list or a bag'),
    ('section "S" { hand "h" = 3 }', "not a list or a bag of cards"),
    ('section "S" { hand "h" = [[ace]] }', "not a list or a bag of cards"),
    ('section "S" { pile "p" = true }', 'pile "p" has type bool, not a pile'),
    ('section "S" { pile "p" = {k: {c: 1 for c in Card} for k in Kind} }', "not a pile"),
    ('section "S" { pile "p" = discard with left }', "only a graph or a grid"),
    ('section "S" { pile "p" = discard on discard }', "'on' on a pile"),
    ('section "S" { pile "p" = [c for c in deck if c != ace] }', "secret 'deck'"),
    ('panel p { hand "h" = [c for c in players[0].hand] }', "owner-only 'hand'"),
])
def test_a_hand_or_a_pile_that_cannot_be_drawn_is_refused(line: str, says: str) -> None:
    errs = _errors("view { " + line + " }\n")
    assert any(e.startswith("E160") and says in e for e in errs), errs


def test_fmt_round_trips_hands_and_piles() -> None:
    from mercator.dsl.fmt import format_rulebook
    from mercator.dsl.parser import parse
    rb, diags = parse(CARDS + VIEW)
    assert rb is not None, diags
    text = format_rulebook(rb)
    again, _ = parse(text)
    assert again == rb
    assert 'pile "discard" = reverse(discard)' in text and 'hand "cards" = p.hand' in text


def test_a_changed_hand_is_said_in_words(cards: Program) -> None:
    from mercator.interpreter.engine.view_summary import changed_marks, view_changes
    s = cards.new_game(2, 1)
    before = declared_view(cards, s, 0)
    cards.apply(s, "king")
    after = declared_view(cards, s, 0)
    lines = view_changes(before, after, 0)
    assert "you: cards: ace · king → ace" in lines
    assert "discard: 2 cards, top: queen → 3 cards, top: king" in lines
    assert re.escape("Table\x1fdiscard") and "Table\x1fdiscard" in changed_marks(before, after)


@pytest.mark.parametrize("name", ["genoa", "die_haendler", "felinia", "manila", "examples/isles"])
def test_the_shipped_hands_and_piles_show_no_seat_what_it_may_not_see(name: str) -> None:
    """Genoa's cards and piles, Die Händler's red and influence cards, Felinia's bonus cards
    and ship tiles, Manila's shares, Isles' hands and luck pile: in a few games along the way, every hand and pile a seat
    is drawn (SVG and terminal text) is the same when all it may not see is changed; and
    another seat's owner-only hand is backs only."""
    from game_driver import random_steps
    from shipped import shipped_program
    from mercator.interpreter.cli.terminal import _cards_text
    from mercator.interpreter.web.cards import hand_svg, pile_svg
    prog = shipped_program(name)
    players = prog.min_players + 1
    drawn = 0

    def drawings(state, viewer):
        v = declared_view(prog, state, viewer)
        assert v is not None
        rows = [r for sec in v["sections"] for r in sec["rows"]] + \
            [r for col in v["panel"]["seats"] for r in col["rows"]]
        return [(r["label"], str(hand_svg(r) if r["kind"] == "hand" else pile_svg(r)),
                 _cards_text(r).plain) for r in rows if r["kind"] in ("hand", "pile")]
    for seed, steps in ((1, 0), (2, 40), (3, 120)):
        s = random_steps(prog, players, seed, steps)
        for viewer in [*range(players), None]:
            mine = drawings(s, viewer)
            assert mine == drawings(_hide_differently(prog, s, viewer), viewer)
            drawn += len(mine)
            v = declared_view(prog, s, viewer)
            assert v is not None
            for col in v["panel"]["seats"]:
                for r in col["rows"]:
                    if r["kind"] == "hand" and r["hidden"]:
                        assert col["seat"] != f"P{(viewer or 0) + 1}" or viewer is None
                        assert '<g class="card"' not in str(hand_svg(r))
    assert drawn > 0
