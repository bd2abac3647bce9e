"""Option labels of a view (docs/language.md, "Views"; docs/design/views.md): `label v: T = parts`
says what each option of type T does. The raw option label stays the machine key (saves, #N,
bots, JSON); the note is for people, in the terminal and the browser, and never tells a seat
what it may not see.
"""
from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from game_driver import program_text
from shipped import shipped_program
from test_views import VIEWED, _hide_differently

from mercator.dsl.loader import load_text
from mercator.interpreter.engine.declared_view import option_notes
from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.program import Program

ROOT = Path(__file__).resolve().parent.parent

SHOP = '''game "Shop" players 2..3
enum Good { salt, silk }
player {
  coins: int = 9
  hand: bag<Good> owner
}
table {
  deck: bag<Good> secret
  price: map<Good, int> = {salt: 1, silk: 2}
}
setup {
  for p in players { add salt to p.hand }
  add silk to deck
}
round r limit 1 {
  phase main {
    for p in players {
      let g = choose p one of Good with pass prompt "buy"
      if g != none {
        p.coins -= price[some(g)]
        add some(g) to p.hand
      }
      let n = choose p one of 1..3 prompt "how many"
      p.coins -= n
    }
  }
}
score p: p.coins
'''


def _shop(view: str) -> Program:
    return program_text(SHOP + view)


def test_a_public_label_is_shown_after_each_option_and_the_option_keeps_its_name() -> None:
    prog = _shop('view { label g: Good = "costs", price[g], "coins" }')
    s = prog.new_game(2, 1)
    d = s.pending
    assert isinstance(d, Decision) and d.prompt == "buy"
    assert [o.label for o in d.options] == ["pass", "salt", "silk"]      # the machine keys
    assert option_notes(prog, s, d, 0) == [None, "costs 1 coins", "costs 2 coins"]
    # a public label: a spectator and the other seat are shown the same
    assert option_notes(prog, s, d, None) == option_notes(prog, s, d, 1)
    prog.apply(s, "silk")
    d2 = s.pending
    assert isinstance(d2, Decision) and d2.prompt == "how many"
    assert option_notes(prog, s, d2, 0) == [None, None, None]            # no label for int


def test_a_label_for_the_chooser_reads_his_own_hand_and_only_he_is_shown_it() -> None:
    prog = _shop('view { label g: Good for p = "costs", price[g], "· you hold", p.hand[g] }')
    s = prog.new_game(2, 1)
    d = s.pending
    assert option_notes(prog, s, d, 0) == [None, "costs 1 · you hold 1", "costs 2 · you hold 0"]
    assert option_notes(prog, s, d, 1) == [None, None, None]
    assert option_notes(prog, s, d, None) == [None, None, None]


def test_empty_and_none_parts_are_left_out() -> None:
    prog = _shop('view { label g: Good = if g == silk then "rare" else "", "costs", price[g] }')
    s = prog.new_game(2, 1)
    assert option_notes(prog, s, s.pending, 0) == [None, "costs 1", "rare costs 2"]


def _errors(view: str) -> list[str]:
    res = load_text(SHOP + view, "t.rules")
    return [f"{d.code} {d.message}" for d in res.diagnostics if d.is_error]


def test_a_label_that_reads_a_hidden_field_is_refused() -> None:
    assert any("E161" in e and "secret 'deck'" in e
               for e in _errors('view { label g: Good = "left:", deck[g] }'))
    # another player's hand, even with 'for p'
    assert any("E161" in e and "owner-only 'hand'" in e
               for e in _errors('view { label g: Good for p = "P1 holds", players[0].hand[g] }'))
    assert _errors('view { label g: Good for p = "you hold", p.hand[g] }') == []


def test_a_label_for_a_type_no_decision_offers_is_refused_with_the_types_offered() -> None:
    res = load_text(SHOP + 'view { label b: bool = "is", b }', "t.rules")
    errs = [d for d in res.diagnostics if d.is_error]
    assert [d.code for d in errs] == ["E161"]
    assert errs[0].hint is not None and "Good" in errs[0].hint and "int" in errs[0].hint


def test_manila_placement_shows_each_seat_and_office_with_its_cost() -> None:
    """rules-data "Punt seats": silk seats cost 3, 4, 5 in fill order; "Harbour (wharf) and
    shipyard offices": harbour A costs 4 and pays 6. Placement, seed 003 §放置同夥."""
    prog = shipped_program("manila")
    s = prog.new_game(3, 1)
    rng = random.Random(0)
    while not (isinstance(s.pending, Decision) and s.pending.prompt.startswith("place")):
        prog.apply(s, rng.randrange(s.pending.count))
    d = s.pending
    notes = dict(zip([o.label for o in d.options], option_notes(prog, s, d, d.player)))
    assert notes["harbour_a"] == "costs 4 pesos · pays 6"
    assert notes["harbour_c"] == "costs 2 pesos · pays 15"
    assert notes["pass"] is None
    seat = 1 + len(next(v for k, v in _crews(prog, s).items() if k == "silk"))
    if "silk_boat" in notes:
        assert notes["silk_boat"] == f"seat {seat} costs {[3, 4, 5][seat - 1]} pesos"


def _crews(prog: Program, s: Any) -> dict[str, list]:
    i = [f.name for f in prog.rb.table_fields].index("crew")
    goods = prog.rb.enums["Good"].members
    return {goods[g]: crew for g, crew in s.table[i].items()}


def _decisions(prog: Program, players: int, seed: int, steps: int) -> Any:
    s = prog.new_game(players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.over:
            return s
        prog.apply(s, rng.randrange(s.pending.count))
    return s


@pytest.mark.parametrize("path", VIEWED, ids=lambda p: p.name)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 200))
def test_no_note_tells_a_seat_what_it_may_not_see(path: Path, seed: int, steps: int) -> None:
    """Changing everything a seat may not see never changes the notes it is shown (for the
    chooser and for everyone else)."""
    prog = shipped_program(path.stem)
    s = _decisions(prog, prog.min_players, seed, steps)
    d = s.pending
    if not isinstance(d, Decision):
        return
    for viewer in [*range(len(s.players)), None]:
        mine = option_notes(prog, s, d, viewer)
        assert option_notes(prog, _hide_differently(prog, s, viewer), d, viewer) == mine


def test_every_game_with_labels_shows_notes_somewhere_in_a_random_game() -> None:
    """Each of Manila, Die Händler and Felinia labels some option within a game."""
    for name in ("manila", "die_haendler", "felinia"):
        prog = shipped_program(name)
        assert prog.view is not None and prog.view.labels, name
        s = prog.new_game(prog.min_players, 5)
        rng = random.Random(5)
        found = False
        while not s.over and not found:
            d = s.pending
            if isinstance(d, Decision):
                found = any(option_notes(prog, s, d, d.player))
            prog.apply(s, rng.randrange(d.count))
        assert found, name


def test_the_terminal_and_the_browser_show_the_notes() -> None:
    from mercator.interpreter.cli.terminal import RichScreen, console_for
    prog = _shop('view { label g: Good = "costs", price[g], "coins" }')
    s = prog.new_game(2, 1, narrate=True)
    out = io.StringIO()
    screen = RichScreen(console_for(out))
    screen.turn(prog, s, s.pending, [], 0)
    text = out.getvalue()
    assert "#2 salt — costs 1 coins" in text and "#3 silk — costs 2 coins" in text
    pytest.importorskip("starlette")
    from mercator.interpreter.tools.session import GameSession
    session = GameSession(prog, 2, 1, ["human", "human"], "t.rules", {"t.rules": SHOP})
    opts = session.options(0)
    assert [(o["label"], o["note"]) for o in opts] == [
        ("pass", ""), ("salt", "costs 1 coins"), ("silk", "costs 2 coins")]
    assert session.options(1) == []


def test_felinia_disc_spots_show_the_income_and_the_price_there() -> None:
    """seed 004 §遊戲回合 1): the first disc on income gives +1; 2): the price on a market row
    is the number of discs there counting one's own (a second disc pays 2)."""
    prog = shipped_program("felinia")
    s = prog.new_game(2, 3)
    d = s.pending
    assert isinstance(d, Decision) and d.prompt == "place an action disc"
    notes = dict(zip([o.label for o in d.options], option_notes(prog, s, d, d.player)))
    assert notes["income"] == "take 1 silver"
    row = next(k for k in notes if k.startswith("market_"))
    held = s.table[prog._tindex("market")][prog.rb.enums["Spot"].members.index(row)]
    goods = prog.rb.enums["Good"].members       # the row's goods in words: 'books, cloth×2'
    assert notes[row] == "price 1 silver · the row holds " + ", ".join(
        goods[g] + (f"×{n}" if n != 1 else "") for g, n in sorted(held.items()))
    prog.apply(s, row)                       # P1's disc on that row: P2 would pay 2 there
    d2 = s.pending
    assert isinstance(d2, Decision) and d2.player != d.player
    notes2 = dict(zip([o.label for o in d2.options], option_notes(prog, s, d2, d2.player)))
    assert notes2[row].startswith("price 2 silver")
    assert notes2["guild"] == "price 1 silver"
