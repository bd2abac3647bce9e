"""rulebooks/variants/genoa_two_players.rules against its base: the official 2-player rules
(rules-data genoa.md §Turn, "Two-player rules" [G6]): (a) an offer to the tower player must
include at least one good; (b) whenever the opponent takes an action, the tower player may take
two actions, independently of the extra-action tile.  (Moved here from
tests/test_variants_games.py when Genoa's negotiation became a deal, issue 16.)
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from genoa_driver import GET, GIVE, Game, genoa_program

from mercator.dsl.loader import load
from mercator.interpreter.engine.program import Program
from mercator.interpreter.tools.designer import rule_diff

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "rulebooks" / "genoa.rules"
TWO = ROOT / "rulebooks" / "variants" / "genoa_two_players.rules"


@pytest.fixture(scope="module")
def base() -> Program:
    return genoa_program()


@pytest.fixture(scope="module")
def two() -> Program:
    return genoa_program(str(TWO))


def test_the_variant_checks_clean_and_changes_only_the_offer_rule_and_the_action_count() -> None:
    """It replaces fn offer_rules_ok (rule a), fn needs_tile and proc count_action (rule b) and
    proc new_turn_for (the new counter), and adds fn free_actions and one player field (shown
    in the view's panel by an `extend view`)."""
    assert load(str(TWO)).ok
    ch = {(c.what, c.kind, c.name) for c in rule_diff(load(str(BASE)).items, load(str(TWO)).items)}
    assert ch == {
        ("changed", "game", "game"),
        ("changed", "function", "offer_rules_ok"),
        ("changed", "function", "needs_tile"),
        ("changed", "procedure", "count_action"),
        ("changed", "procedure", "new_turn_for"),
        ("added", "player field", "extra_spent"),
        ("added", "function", "free_actions"),
        ("changed", "view", "view"),
    }


def test_a_offer_of_money_alone_is_allowed_in_the_base_only(base: Program, two: Program) -> None:
    """G6 (a): "An offer from the opponent to the tower player may not be only for money; it must
    always include at least one good" — 10 ducats for street r2c3: posted in the base; in the
    variant 'post' is only offered once a pepper is in."""
    for prog, money_alone in ((base, True), (two, False)):
        g = Game(prog, 2)
        g.give_goods(1, "pepper")
        g.start("r2c4")
        g.passes(0)
        g.do(1, "post an offer", "about street_r2c3", "add 5 ducats", "add 5 ducats", "done")
        g.until(GET)                                    # (asking the tower player: issue 38)
        assert ("post" in g.labels()) == money_alone
        g = Game(prog, 2)                               # again, with the pepper
        g.give_goods(1, "pepper")
        g.start("r2c4")
        g.passes(0)
        g.post(1, "street_r2c3", give=["5 ducats", "5 ducats", "pepper"])
        assert g.offers() == ["#1 P2 to P1 about street_r2c3: gives 10 ducats + pepper"]


def test_a_the_tower_players_own_offer_needs_no_good(two: Program) -> None:
    """G6 (a) is about offers TO the tower player: his own counter-offer of 10 ducats is posted."""
    g = Game(two, 2)
    g.start("r2c4")
    g.post(0, "city_hall", give=["5 ducats", "5 ducats"])
    assert g.offers() == ["#1 P1 to P2 about city_hall: gives 10 ducats"]


def test_b_example_1_the_opponent_acted_first_the_tower_player_acts_twice(
        base: Program, two: Program) -> None:
    """G6 Example 1: "on the first tower field, the opponent makes the tower player an offer and
    it is accepted.  The opponent pays the offer and takes the action.  Now the tower player may
    take two actions."  P2 buys the City Hall (where the tower starts); P1 then takes the Tavern
    and the Harbour himself: the second is free in the variant; in the base he cannot."""
    for prog, second in ((base, False), (two, True)):
        g = Game(prog, 2)
        g.give_goods(1, "pepper")
        g.start("r3c4")
        g.passes(0)
        g.post(1, "city_hall", give=["5 ducats", "pepper"])
        g.accept(0, "accept #1")
        g.close(0, "street_r2c4")
        g.close(0, "tavern")
        g.close(0, "tavern")                         # he takes the Tavern's action himself
        g.no_tiles(0)                                # (he keeps the trade tile it gave)
        assert int(g.get("acted", 0)) == 1 and g.tiles(0) == {"trade": 1}
        g.close(0, "harbour")
        assert ("close: harbour" in g.labels()) == second
        if second:
            g.close(0, "harbour")
            g.no_tiles(0)
            assert int(g.get("acted", 0)) == 2 and g.tiles(0) == {"trade": 1, "commodity": 1}


def test_b_no_second_action_before_the_opponent_has_acted(two: Program) -> None:
    """G6 (b) "whenever the opponent takes an action": P1 takes the Tavern, and at the Harbour
    he can no longer act (P2 has not acted)."""
    g = Game(two, 2)
    g.start("r2c4")
    g.close(0, "tavern")
    g.close(0, "tavern")
    g.no_tiles(0)
    g.close(0, "harbour")
    assert "close: harbour" not in g.labels()


def test_b_the_rule_and_the_extra_action_tile_do_not_use_up_each_other(two: Program) -> None:
    """G6: "These rules and the special card '1 further action' have no effect on each other!"
    — P1 holds an extra-action tile: after P2's action, his second action is free and the tile
    is still there for a third."""
    g = Game(two, 2)
    g.give_goods(1, "pepper")
    g.give_tiles(0, "extra_action")
    g.start("r3c4")
    g.passes(0)
    g.post(1, "city_hall", give=["5 ducats", "pepper"])
    g.accept(0, "accept #1")
    g.close(0, "street_r2c4")
    g.close(0, "tavern")
    g.close(0, "tavern")
    g.no_tiles(0)
    g.close(0, "harbour")
    g.close(0, "harbour")
    g.no_tiles(0)
    assert g.tiles(0) == {"extra_action": 1, "trade": 1, "commodity": 1}
    assert (int(g.get("acted", 0)), int(g.get("extra_spent", 0))) == (2, 0)


def test_random_two_player_games_keep_both_rules(two: Program) -> None:
    """Random games: the invariants hold after every decision; every accepted offer to the tower
    player held a good (a); nobody exceeds his allowance besides the actions paid with tiles (b)."""
    for seed in (0, 1, 2):
        s = two.new_game(2, seed)
        rng = random.Random(seed)
        while not s.over:
            two.apply(s, rng.randrange(s.pending.count))
            assert two.check_invariants(s) == []
            deal = two.get(s, "last_deal")
            merchant = two.get(s, "merchant")
            if deal is not None and deal[1] != merchant:          # maker: a bid to him
                assert sum(deal[4][1].values()) >= 1               # give.goods
            for p in range(2):
                free = two.get(s, "acted", p) - two.get(s, "extra_spent", p)
                assert free <= (2 if p == merchant else 1)
