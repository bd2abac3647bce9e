"""Scenario tests of Genoa's rules from rules-data (shared/rules-data/genoa.md, the 2nd-edition
rules text G12): acquiring buildings, ownership income, the special tiles, small orders,
messages, contracts by groups, the market start, no revisits, the end and the tie-break.  Each
test quotes its rules-data line; the board and the window's order: tests/genoa_driver.py.
"""
from __future__ import annotations

import pytest

from genoa_driver import (ACQUIRE, GOODS_TILE, MARKER, MARKER2, SMALL, TILE, TURN, Game,
                          genoa_program)

from mercator.interpreter.engine.nodes import Chance, Terminal
from mercator.interpreter.engine.program import Program


@pytest.fixture(scope="module")
def prog() -> Program:
    return genoa_program()


def quiet_turns(g: Game, squares: list[str]) -> None:
    """Turns in which the tower player starts on these squares and stops at once."""
    for sq in squares:
        g.start(sq)
        g.close(int(g.get("merchant")))
        while not isinstance(g.s.pending, (Chance, Terminal)):
            g.do(g.s.pending.player, "pass")          # no acquisitions


def last_round(g: Game) -> None:
    """The round marker one space before the end: this round is the last."""
    g.set("round_marker", 7)                           # 4 players: 8 rounds (PLACEHOLDER)


# ------------------------------------------------------------------ acquiring buildings
def test_acquiring_one_or_two_markers_next_to_a_street_with_a_disc(prog: Program) -> None:
    """rules-data §Turn 3: "Starting with the merchant and going clockwise, each player who has
    at least one ownership marker in his personal supply gets one chance: choose a street square
    that holds at least one tower disc, place ONE OR TWO ownership markers on buildings
    orthogonally adjacent to that street square …, then remove all discs from that street
    square." — P1 puts markers on the Tavern and Villa Colini beside street r2c3; P2 then finds
    only street r2c4 left."""
    g = Game(prog)
    g.markers_in_supply(0, 2)
    g.markers_in_supply(1, 1)
    g.start("r2c3")
    g.close(0, "street_r2c4")
    g.close(0)
    g.do(0, "street_r2c3")
    assert g.s.pending.prompt == MARKER and set(g.labels()) == {"tavern", "villa_colini"}
    g.do(0, "tavern")
    assert g.s.pending.prompt == MARKER2 and g.labels() == ["pass", "villa_colini"]
    g.do(0, "villa_colini")
    assert g.s.pending.prompt == ACQUIRE and g.s.pending.player == 1
    assert g.labels() == ["pass", "street_r2c4"]
    assert g.owners() == {"tavern": 0, "villa_colini": 0}
    assert (int(g.get("markers", 0)), g.storage(0)) == (0, 5)
    g.check()


def test_acquiring_displaces_another_players_marker_by_sacrificing_one(prog: Program) -> None:
    """rules-data §Turn 3: "A player may remove another player's marker by sacrificing one marker
    from his own supply (both go to the general supply) and may then put his own marker there."
    — P2 owns the Tavern; P1 spends 2 markers to take it: P2's marker goes back to his storage."""
    g = Game(prog)
    g.own(1, "tavern")
    g.markers_in_supply(0, 2)
    g.start("r2c3")
    g.close(0)
    g.do(0, "street_r2c3", "tavern")
    assert g.owners() == {"tavern": 0}
    assert int(g.get("markers", 0)) == 0 and g.storage(1) == 7
    assert isinstance(g.s.pending, Chance)      # no second marker: the next turn's dice
    g.check()


# ------------------------------------------------------------------ ownership income
def test_ownership_income_10_when_another_player_uses_the_building(prog: Program) -> None:
    """rules-data §Ownership income: "whenever a player uses the action of a building carrying
    another player's ownership marker, the owner receives 10 ducats from the bank (never when the
    owner takes the action himself)." — P4 owns the Fabric warehouse; P2 buys it for 5."""
    g = Game(prog)
    g.own(3, "fabric_warehouse")
    g.start("r3c2")
    g.passes(0)
    g.post(1, "fabric_warehouse", give=["5 ducats"])
    g.accept(0, "accept #1")
    assert [g.ducats(p) for p in range(4)] == [135, 125, 130, 140]
    g.check()


def test_no_ownership_income_when_the_owner_acts(prog: Program) -> None:
    """(never when the owner takes the action himself) — P1 owns the Fabric warehouse and takes
    its action himself: nobody is paid."""
    g = Game(prog)
    g.own(0, "fabric_warehouse")
    g.start("r3c2")
    g.close(0, "fabric_warehouse")
    g.close(0, "fabric_warehouse")
    assert [g.ducats(p) for p in range(4)] == [130, 130, 130, 130]
    assert g.goods(0) == {"linen": 1, "silk": 1}


# ------------------------------------------------------------------ cards
def test_a_small_order_pays_40(prog: Program) -> None:
    """rules-data §Cards: "Small order: perform the action of the building named on the card and
    return 'the appropriate commodity'; pays 40 ducats." — P2 buys the Park with a small order
    for it and a silk: he takes the extra-action tile and delivers the order."""
    g = Game(prog)
    g.hand(1, "small_park_silk")
    g.give_goods(1, "silk")
    g.start("r4c2")
    g.passes(0)
    g.post(1, "park", give=["5 ducats"])
    g.accept(0, "accept #1")
    assert g.s.pending.prompt == SMALL
    g.do(1, "small_park_silk")
    assert g.ducats(1) == 130 - 5 + 40 and g.goods(1) == {} and g.cards(1) == []
    assert g.tiles(1) == {"extra_action": 1}
    g.check()


def test_a_message_pays_30_when_the_tower_visited_both_its_buildings(prog: Program) -> None:
    """rules-data §Cards: "Message: 30 ducats when the tower has left discs on BOTH buildings on
    the card in the same turn (any order); the holder need not take an action there." — P3 holds
    the message Post Office / Park; the tower goes Park, street r4c2, Cathedral, market, Post
    Office, nobody acting: P3 is paid 30 — G12: "as soon as there is one of the tower's discs
    on both buildings", so already while the window at the Post Office is open."""
    g = Game(prog)
    g.hand(2, "message_post_office_park")
    g.start("r4c1")
    g.close(0, "none")                          # the Park's action left void
    g.do(0, "street_r4c2")
    g.close(0, "cathedral")
    g.close(0, "none")
    g.do(0, "market")
    assert g.ducats(2) == 130
    g.close(0, "post_office")
    assert g.tower() == "post_office" and g.s.pending.prompt == TURN
    assert g.ducats(2) == 160 and g.cards(2) == []
    g.close(0, "none")
    assert g.ducats(2) == 160 and g.cards(2) == []
    assert int(g.get("acted", 2)) == 0


def test_contracts_score_by_groups_of_adjacent_buildings(prog: Program) -> None:
    """rules-data §Cards: contracts "scored at game end by groups of ADJACENT buildings for which
    the player holds cards: isolated building 10; 4 adjacent buildings 100" (2 → 30 and 3 → 60
    are PLACEHOLDER).  P1: Palace, Coach House, Inn and Spices warehouse (a row of 4: 100) and
    the City Hall (alone: 10).  P2: Park and Fabric warehouse (2 side by side: 30) and the
    Drinks warehouse (alone: 10).  Both also score 10 per marker on a building (rules-data §End
    and scoring): P1 owns the Inn."""
    g = Game(prog)
    g.hand(0, "contract_palace", "contract_coach_house", "contract_inn", "contract_spice",
           "contract_city_hall")
    g.hand(1, "contract_park", "contract_fabric", "contract_drinks")
    g.own(0, "inn")
    last_round(g)
    quiet_turns(g, ["r2c3", "r2c4", "r2c5", "r2c6"])
    t = g.s.pending
    assert isinstance(t, Terminal)
    assert t.scores[0] == 130 + 10 + 100 + 10
    assert t.scores[1] == 130 + 30 + 10


def test_a_fifth_adjacent_building_adds_50(prog: Program) -> None:
    """rules-data §Cards: "4 adjacent buildings 100; each adjacent building beyond the fourth
    +50 (5 → 150 …)" — P1 holds the contracts of the Metals warehouse, the Palace, the Coach
    House, the Inn and the Spices warehouse, five in a row on the PLACEHOLDER board (issue 38:
    before the Metals warehouse and Villa Ricci were swapped, no group exceeded four): 150."""
    g = Game(prog)
    g.hand(0, "contract_metals", "contract_palace", "contract_coach_house", "contract_inn",
           "contract_spice")
    last_round(g)
    quiet_turns(g, ["r2c3", "r2c4", "r2c5", "r2c6"])
    t = g.s.pending
    assert isinstance(t, Terminal)
    assert t.scores[0] == 130 + 150


def test_the_tie_break_is_the_most_goods(prog: Program) -> None:
    """rules-data §End and scoring: "the tied player with the most goods (cards, commodities and
    special tiles) wins." — all four end on 140 (130 and one dealt contract each); P3 holds a
    silk and a tile beside his 4 cards."""
    g = Game(prog)
    g.give_goods(2, "silk")
    g.give_tiles(2, "trade")
    last_round(g)
    quiet_turns(g, ["r2c3", "r2c4", "r2c5", "r2c6"])
    t = g.s.pending
    assert isinstance(t, Terminal)
    assert t.scores == (140, 140, 140, 140) and t.winners == (2,)


# ------------------------------------------------------------------ tiles
def test_commodity_tile_used_right_after_the_action_that_gave_it(prog: Program) -> None:
    """rules-data §Special tiles: commodity of your choice, "same timing (only around one of your
    own actions, incl. the action that gave the tile)" — P2 buys the Harbour and at once turns
    its tile into a wine."""
    g = Game(prog)
    g.start("r2c5")
    g.passes(0)
    g.post(1, "harbour", give=["5 ducats"])
    g.accept(0, "accept #1")
    assert g.s.pending.prompt == GOODS_TILE and g.labels() == ["pass", "commodity"]
    g.do(1, "commodity", "wine")
    assert g.goods(1) == {"wine": 1} and g.tiles(1) == {}
    g.check()


def _buys_city_hall_with_a_trade_tile(prog: Program, *tiles: str, markers: int = 0) -> Game:
    """P2 holds a trade tile (and these tiles, and markers in his supply) and buys the City Hall
    for 5 ducats; the game stops where he may use his goods tiles before the action."""
    g = Game(prog)
    g.give_tiles(1, "trade", *tiles)
    g.markers_in_supply(1, markers)
    g.start("r2c4")
    g.passes(0)
    g.post(1, "city_hall", give=["5 ducats"])
    g.accept(0, "accept #1")
    assert g.s.pending.prompt == GOODS_TILE
    return g


def test_a_trade_tile_during_the_action_fills_a_small_order_there(prog: Program) -> None:
    """rules-data §Special tiles: the goods tiles are played "at the beginning, during or at the
    end of one of your action" — P2 buys the Spices warehouse for 5, takes its pepper and
    saffron, trades the pepper for a silk (during the action) and so delivers his small order
    of the Spices warehouse (a silk) for 40: 130 − 5 + 40 = 165."""
    g = Game(prog)
    g.hand(1, "small_spice_silk")
    g.give_tiles(1, "trade")
    g.start("r6c7")
    g.passes(0)
    g.post(1, "spice_warehouse", give=["5 ducats"])
    g.accept(0, "accept #1")
    g.do(1, "pass")                             # not before the action: he has no goods yet
    assert g.s.pending.prompt == GOODS_TILE and g.goods(1) == {"pepper": 1, "saffron": 1}
    g.do(1, "trade", "one_commodity", "pepper", "one_commodity", "silk")
    assert g.s.pending.prompt == SMALL
    g.do(1, "small_spice_silk")
    assert g.ducats(1) == 165 and g.ducats(0) == 135
    assert g.goods(1) == {"saffron": 1} and g.cards(1) == []
    g.check()


def test_trade_tile_one_good_for_another_around_his_action(prog: Program) -> None:
    """rules-data §Special tiles: trade 1:1, "played at the beginning, during or end of one of
    your own actions" — P2, buying the City Hall, first trades his pepper for a silk.  He is
    asked what kind of thing he gives (a commodity or a card: he holds no other tile and no
    marker) and what kind he takes (never the very good he gave)."""
    g = Game(prog)
    g.give_goods(1, "pepper")
    g.give_tiles(1, "trade")
    g.start("r2c4")
    g.passes(0)
    g.post(1, "city_hall", give=["5 ducats"])
    g.accept(0, "accept #1")
    assert g.s.pending.prompt == GOODS_TILE
    g.do(1, "trade")
    assert g.labels() == ["one_commodity", "one_card"]
    g.do(1, "one_commodity")                    # (his one good to give is not asked)
    assert g.labels() == ["one_commodity", "one_special_tile", "one_card", "one_marker"]
    g.do(1, "one_commodity")
    assert "pepper" not in g.labels() and "silk" in g.labels()
    g.do(1, "silk")
    assert g.goods(1) == {"silk": 1} and g.tiles(1) == {}
    g.check()


def test_trade_tile_a_card_for_a_special_tile(prog: Program) -> None:
    """rules-data §Special tiles (G12): trade 1:1 "allows you to trade one good you own (card,
    Ownership marker, Commodity or special tile), for any one good of your choice" — P2 trades
    his dealt contract for a building-action tile: the card goes face up under its pile (as a
    played card), the tile comes from the stock (4 left of 5), and the trade tile goes back to
    its stock (7 again)."""
    g = _buys_city_hall_with_a_trade_tile(prog)
    contract = next(c for c in g.cards(1) if c.startswith("contract_"))
    g.do(1, "trade")                            # (he can give only a card: not asked)
    assert g.s.pending.prompt == "trade tile: give which card"
    g.do(1, contract, "one_special_tile", "building_action")
    assert contract not in g.cards(1) and len(g.cards(1)) == 4 - 1 + 2   # + City Hall's two
    assert [g.name("Card", c) for c in g.get("discards")[g.m("contract")]] == [contract]
    assert g.tiles(1) == {"building_action": 1}
    supply = g.bag("tile_supply", enum="Tile")
    assert supply["building_action"] == 4 and supply["trade"] == 7
    g.check()


def test_a_trade_tile_taken_by_a_trade_waits_for_the_next_step(prog: Program) -> None:
    """Reading 12b: at one step of an action a player uses at most as many goods tiles as he
    held when it began. P2, holding one trade tile before the City Hall's action, trades his
    contract for another trade tile: he is not asked again before the action (else each trade
    could take the next tile, without end); after what the building gave he may use it."""
    g = _buys_city_hall_with_a_trade_tile(prog)
    contract = next(c for c in g.cards(1) if c.startswith("contract_"))
    g.do(1, "trade", contract, "one_special_tile", "trade")
    assert g.tiles(1) == {"trade": 1}
    assert g.s.pending.prompt == GOODS_TILE      # now after the building's yield, not before
    assert len(g.cards(1)) == 4 - 1 + 2          # the City Hall has given its two cards
    g.check()


def test_trade_tile_a_marker_for_the_top_card_of_a_pile(prog: Program) -> None:
    """rules-data §Special tiles (G12), trade 1:1: "one good you own (card, Ownership marker,
    …) for any one good of your choice" — P2 gives one of the 2 ownership markers in his supply
    (it goes back to his storage: 5 → 6) for the top card of the Large order pile: the fifth
    large order, large_colini_5 (the first four were dealt)."""
    g = _buys_city_hall_with_a_trade_tile(prog, markers=2)
    assert g.storage(1) == 5
    g.do(1, "trade", "one_marker", "one_card", "large_order")
    assert int(g.get("markers", 1)) == 1 and g.storage(1) == 6
    assert "large_colini_5" in g.cards(1) and len(g.cards(1)) == 4 + 1 + 2   # + City Hall's two
    g.check()


def test_trade_tile_a_special_tile_for_a_marker_from_storage(prog: Program) -> None:
    """rules-data §Special tiles (G12), trade 1:1: "… special tile), for any one good of your
    choice" — P2 gives a starting-space tile for one ownership marker of his colour, taken from
    the storage (7 → 6) into his supply (0 → 1).  Had he taken a tile, it could not have been
    one of the kind he gave (the spent trade tile, back in the stock, could)."""
    g = _buys_city_hall_with_a_trade_tile(prog, "starting_space")
    g.do(1, "trade", "one_special_tile")          # (his one tile to give is not asked)
    assert g.labels() == ["one_commodity", "one_special_tile", "one_card", "one_marker"]
    probe = Game(prog)
    probe.s = g.s.clone()
    probe.do(1, "one_special_tile")
    assert "starting_space" not in probe.labels() and "trade" in probe.labels()
    g.do(1, "one_marker")
    assert int(g.get("markers", 1)) == 1 and g.storage(1) == 6 and g.tiles(1) == {}
    g.check()


def _owner_buys_the_city_hall(prog: Program, building: str, *tiles: str) -> Game:
    """P2 owns `building` and holds `tiles`; he buys the City Hall's action for 5 ducats (the
    tower on r2c4) and is about to be asked about his tiles."""
    g = Game(prog)
    g.own(1, building)
    g.give_tiles(1, *tiles)
    g.start("r2c4")
    g.passes(0)
    g.post(1, "city_hall", give=["5 ducats"])
    g.accept(0, "accept #1")
    return g


def test_building_action_tile_takes_an_owned_building_without_the_tower(prog: Program) -> None:
    """rules-data §Special tiles, building action: "immediately perform the action of a building
    YOU OWN; the tower need not be there; it does not use up your one action" — P2 owns the
    Metals warehouse; after buying the City Hall he takes silver and copper with the tile, and
    still counts one action."""
    g = _owner_buys_the_city_hall(prog, "metals_warehouse", "building_action")
    g.do(1, "metals_warehouse")
    assert g.goods(1) == {"silver": 1, "copper": 1} and int(g.get("acted", 1)) == 1
    assert g.get("taken") == [g.m("city_hall"), g.m("metals_warehouse")]
    g.check()


def test_building_action_tiles_take_the_same_building_twice(prog: Program) -> None:
    """rules-data §Special tiles, building action: "several copies may be used in one turn (same
    building repeatedly allowed)" — P2 owns the Metals warehouse and holds two tiles; after
    buying the City Hall he takes its action twice: silver 2, copper 2, both tiles back in the
    stock, still one action (issue 38: the second tile had never been offered)."""
    g = _owner_buys_the_city_hall(prog, "metals_warehouse", "building_action",
                                  "building_action")
    stock = g.bag("tile_supply", enum="Tile")["building_action"]
    g.until(TILE)
    assert g.labels() == ["pass", "metals_warehouse"]
    g.do(1, "metals_warehouse")
    assert g.s.pending.prompt == TILE and g.labels() == ["pass", "metals_warehouse"]
    g.do(1, "metals_warehouse")
    assert g.goods(1) == {"silver": 2, "copper": 2} and g.tiles(1) == {}
    assert g.bag("tile_supply", enum="Tile")["building_action"] == stock + 2
    assert int(g.get("acted", 1)) == 1
    g.check()


def test_a_building_action_tile_spent_at_the_palace_is_not_spent_again_at_once(
        prog: Program) -> None:
    """rules-data §Special tiles, building action ("several copies may be used in one turn"):
    the copies he holds when he starts (issue 38 reading). P2 owns the Palace, whose action
    yields a building-action tile, and holds one: after buying the City Hall he spends it at
    the Palace and takes a tile back — he is not asked again (before, the tile came back and
    could be spent there without end: a rule error after the 'while' limit of 5)."""
    g = _owner_buys_the_city_hall(prog, "palace", "building_action")
    g.until(TILE)
    assert g.labels() == ["pass", "palace"]
    g.do(1, "palace")
    assert g.tiles(1) == {"building_action": 1}
    assert not (g.s.pending.prompt == TILE and g.s.pending.player == 1)
    g.check()


def test_a_building_action_tile_on_a_building_another_player_used_this_turn(
        prog: Program) -> None:
    """rules-data §Special tiles, building action ("a building YOU OWN; the tower need not be
    there"); seed 000 voids only an action nobody bid for — P3 owns the Fabric warehouse; P2
    buys its action (linen and silk); in the next window P3 buys the Park's, and then his tile
    takes the Fabric warehouse's action too: linen 1, silk 1 (issue 38: refused before, as
    its action had been taken this turn)."""
    g = Game(prog)
    g.own(2, "fabric_warehouse")
    g.give_tiles(2, "building_action")
    g.start("r3c2")
    g.passes(0)
    g.post(1, "fabric_warehouse", give=["5 ducats"])
    g.accept(0, "accept #1")
    assert g.goods(1) == {"linen": 1, "silk": 1} and g.tower() == "fabric_warehouse"
    g.passes(0, 1, 0)
    g.post(2, "park", give=["5 ducats"])
    g.accept(0, "accept #1")
    g.until(TILE)
    assert g.s.pending.player == 2 and "fabric_warehouse" in g.labels()
    g.do(2, "fabric_warehouse")
    assert g.goods(2) == {"linen": 1, "silk": 1}
    assert "building_action" not in g.tiles(2)
    g.check()


# ------------------------------------------------------------------ the tower
def test_the_dice_blue_3_red_2_place_the_tower_on_row_2_column_3(prog: Program) -> None:
    """rules-data §Turn 1 (G12): "the blue die gives the horizontal coordinate (blue number) and
    the red die, the vertical coordinate (red number)"; its example: "3 on the blue die and 2 on
    the red die … the street space" — row 2, column 3: street_r2c3."""
    g = Game(prog)
    g.roll(2, 3)                                # red 2, blue 3
    assert g.tower() == "street_r2c3" and g.path() == ["street_r2c3"]


def test_a_market_start_moves_the_round_marker_and_the_turn_continues(prog: Program) -> None:
    """rules-data §Turn 1: "If the start square is in the MARKET …, the round marker is moved one
    space down … the turn CONTINUES with the tower on the Market" — dice 4/4: the round marker
    goes to 1 and P1's window opens on the market (no action there)."""
    g = Game(prog)
    g.start("r4c4")
    assert g.tower() == "market" and int(g.get("round_marker")) == 1
    assert g.s.pending.prompt == TURN and g.s.pending.player == 0
    assert "close: city_hall" in g.labels() and "close: market" not in g.labels()


def test_a_space_is_never_visited_twice(prog: Program) -> None:
    """rules-data §Turn 2: "A space may never be visited twice in the same turn." — from street
    r2c4 to r2c5, the tower cannot go back; a building of two squares is one space."""
    g = Game(prog)
    g.start("r2c4")
    g.close(0, "street_r2c5")
    assert "close: street_r2c4" not in g.labels()
    assert g.labels().count("close: city_hall") == 1
