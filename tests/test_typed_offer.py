"""A whole offer typed on one line at the terminal (issue 16: people type a bundle "25 + pepper +
silk for Villa Colini"): interpreter/agents/typed_offer.py turns it into the deal's steps, checked
on a copy of the game before any is taken; a bad item or subject is refused with a hint and
changes nothing.  Played on Genoa (rulebooks/genoa.rules), 4 players, P1 the tower player on
street r2c4: the window's turns go P1, P2, P1, P3, …"""
from __future__ import annotations

from typing import Iterator

import pytest

from genoa_driver import TURN, Game, genoa_program

from mercator.interpreter.agents.human import HumanAgent, help_lines
from mercator.interpreter.agents.typed_offer import match_subject, offer_steps
from mercator.interpreter.engine.program import Program


@pytest.fixture(scope="module")
def prog() -> Program:
    return genoa_program()


def _at_p2s_turn(prog: Program) -> Game:
    g = Game(prog)
    g.give_goods(1, "pepper", "silk")
    g.start("r2c4")
    g.passes(0)
    return g


def _type(prog: Program, g: Game, seat: int, *lines: str) -> tuple[list[str], Iterator[str]]:
    """Seat answers its decisions with these typed lines until another seat is to decide; what
    it was told, and the lines it did not read."""
    typed = iter(lines)
    shown: list[str] = []
    human = HumanAgent(input_fn=lambda _: next(typed), output_fn=shown.append, show_view=False)
    while g.s.pending.player == seat:
        prog.apply(g.s, human.choose(prog, g.s))
    return shown, typed


def test_one_line_posts_the_offer_bundle_and_subject(prog: Program) -> None:
    """"25 + pepper + silk for Villa Colini": 25 ducats (five steps of 5: seed 000 09, 以金幣出價
    時，最小單位為5金幣), the pepper and the silk, about Villa Colini (two moves away: a hint) — one
    typed line, then it is P1's turn."""
    g = _at_p2s_turn(prog)
    _, rest = _type(prog, g, 1, "25 + pepper + silk for Villa Colini")
    assert list(rest) == []
    assert g.offers() == ["#1 P2 to P1 about villa_colini: gives 25 ducats + pepper + silk"]
    assert g.s.pending.player == 0 and g.s.pending.prompt == TURN


@pytest.mark.parametrize("subject", ["villa colini", "colini", "Villa_Colini", "COLINI"])
def test_a_subject_by_its_words_or_one_word_of_it(prog: Program, subject: str) -> None:
    g = _at_p2s_turn(prog)
    steps, why = offer_steps(f"5 for {subject}", prog, g.s)
    # (then 'done' past what he gives and what he asks (issue 38: the tower player's ducats),
    # and 'post' past what he promises: nothing)
    assert why == "" and steps == ["post an offer", "about villa_colini", "add 5 ducats", "done",
                                   "done", "post"]


def test_the_tower_player_says_whom_with_to(prog: Program) -> None:
    """seed 000 08 出價可以包含商人將金幣或物品給對方: the tower player's counter-offer goes to a
    player he names; without 'to P…' the line is refused, saying who may be named."""
    g = Game(prog)
    g.start("r2c4")
    shown, _ = _type(prog, g, 0, "10 for tavern", "10 for tavern to P3")
    assert any("say whom the offer is to" in m and "P2, P3, P4" in m for m in shown)
    assert g.offers() == ["#1 P1 to P3 about tavern: gives 10 ducats"]


def test_a_bad_subject_is_refused_with_a_hint_and_nothing_is_done(prog: Program) -> None:
    g = _at_p2s_turn(prog)
    before = g.s.digest()
    steps, why = offer_steps("5 for Villa Colinni", prog, g.s)
    assert steps is None and "did you mean villa_colini?" in why
    assert "the offer may be about:" in why and "city_hall" in why
    steps, why = offer_steps("5 for warehouse", prog, g.s)
    assert steps is None and why.startswith("'warehouse': say which: ")
    assert "fabric_warehouse" in why
    assert g.s.digest() == before and g.offers() == []


def test_a_bad_item_is_refused_with_what_may_be_added(prog: Program) -> None:
    """P2 holds a pepper and a silk, no saffron; ducats go by 5."""
    g = _at_p2s_turn(prog)
    before = g.s.digest()
    steps, why = offer_steps("5 + saffron for colini", prog, g.s)
    assert steps is None
    assert why.startswith("'saffron': you cannot add that to this offer now; you may add: ")
    assert "5 ducats" in why and "pepper" in why and "silk" in why
    steps, why = offer_steps("23 for colini", prog, g.s)
    assert steps is None and why == "'23': ducats go in units of 5"
    steps, why = offer_steps("135 for colini", prog, g.s)     # he has 130
    assert steps is None and why.startswith("'135': you cannot add that to this offer now")
    assert g.s.digest() == before
    shown, _ = _type(prog, g, 1, "5 + saffron for colini", "5 + silk for colini")
    assert any("'saffron': you cannot add that" in m for m in shown)
    assert g.offers() == ["#1 P2 to P1 about villa_colini: gives 5 ducats + silk"]


def test_for_while_building_a_bundle_says_where_the_subject_is_chosen(prog: Program) -> None:
    g = _at_p2s_turn(prog)
    g.do(1, "post an offer", "about city_hall")
    steps, why = offer_steps("5 for colini", prog, g.s)
    assert steps is None and "chosen before its bundle" in why
    steps, _ = offer_steps("nothing", prog, g.s)
    assert steps is None


def test_match_subject_and_the_help() -> None:
    names = ["city_hall", "villa_colini", "street_r2c3", "metals_warehouse", "spice_warehouse"]
    assert match_subject("City Hall", names) == ("city_hall", "")
    assert match_subject("r2c3", names) == ("street_r2c3", "")
    assert match_subject("", names)[0] is None
    from mercator.interpreter.engine.nodes import Option
    assert "Offers:" in help_lines([Option("post an offer", ("post",))])
    assert "Offers:" not in help_lines([Option("pass", None)])


def test_any_rulebook_with_a_deal_takes_a_typed_offer() -> None:
    """The same line on rulebooks/examples/bazaar.rules (coins by 2, subjects left/right)."""
    from game_driver import program
    from test_bazaar import BAZAAR, Bazaar

    bz = program(BAZAAR)
    g = Bazaar(bz, [12, 12, 12], [{}, {"salt": 1}, {}], {"silk": 2}, {"tea": 2}, narrate=False)
    assert g.s.pending.player == 1
    steps, why = offer_steps("4 coins + salt for left", bz, g.s)
    assert why == "" and steps is not None
    assert steps[:4] == ["post an offer", "about left", "add 2 coins", "add 2 coins"]
    for label in steps:
        bz.apply(g.s, label)
    (o,) = g.offers("bids")
    assert o[4] == [4, {bz.member("salt"): 1}]
