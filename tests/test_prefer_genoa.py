"""Genoa's preferences (rulebooks/genoa.rules, "The bots' preferences"; docs/language.md
§2.19c): not rules of the game but how a casual player chooses, which the searcher's rollouts
follow (`prefer=X`) and the `prefer` player plays by. Exact numbers at positions prepared with
the scenario driver (tests/genoa_driver.py: chosen dice, hands and goods), worked out by hand
from the rules, and whole games played by `prefer` seats.

The numbers are in hundredths of a ducat (est_percent = 100). Every position here is in the
first round of a 3-player game (10 rounds, rules-data §Setup): 10 rounds are left, so the life
share (fn life_pct: (100 x 10 - 50) / 3, at most 100) is all of it. The board around the City
Hall (row r = red die, column c = blue die):

     c1       c2      c3        c4        c5        c6
r1   colini   colini  tavern    tavern    harbour   harbour
r2   fabric   colini  S         S         S         S
r3   fabric   S       S         cityhall  cityhall  S
r4   park     S       cathedr.  market    market    postoff.
r5   park     S       cathedr.  market    market    postoff.
r6   ricci    S       S         guildh.   guildh.   S

What each action there is worth to a player with no tiles, no markers in his supply (all 7 in
his storage), no contracts, and no order but the small order of the City Hall for pepper with
a pepper in hand (the preferences' fn act_worth):
- City Hall: 2 small orders drawn, 40 x 30% each (2,400), and the order delivered with it: 40
  ducats less its worth held with its good, 40 x 60% (1,600): 4,000;
- Cathedral: 2 markers from his storage, each, while he holds fewer than 2 in his supply, what
  it brings once on a building (fn cathedral_marker): 10 at the end and the income of the 9
  rounds after this one, 10 x 2 others x 9 / 11 = 16 (rounded down): 2 x 2,600 = 5,200 (with
  no marker left in his storage, nothing);
- Post Office: 2 messages, 30 x 30% each: 1,800;
- Guild Hall: 1 large order, 110 x 15%: 1,650;
- Harbour: a commodity tile, 10: 1,000; a villa: a contract, 10 alone: 1,000;
- Tavern: a trade tile, 6: 600; a street or the market: nothing.
The tower player's plan (fn plan, the anchor's plan) counts the best action on the tower's way
from a space in full at the first move, 3% less at the second, 3% less again at the third
(x 97 / 100 each, rounded down).
"""
from __future__ import annotations

from typing import Any

import pytest

from genoa_driver import MOVE, MYSELF, START_TILE, TURN, Game, genoa_program

from mercator.interpreter.agents.base import PreferAgent, RandomAgent, play_out
from mercator.interpreter.engine.deals import NEVER
from mercator.interpreter.engine.program import Program


@pytest.fixture(scope="module")
def prog() -> Program:
    return genoa_program()


def _prefs(g: Game) -> dict[str, Any]:
    pend = g.s.pending
    m = pend.count - len(pend.actions)
    prefs = g.prog.preferences(g.s, m)
    assert prefs is not None
    return dict(zip([pend.option(i).label for i in range(m)], prefs))


def _pepper_order(g: Game, p: int) -> None:
    """p's hand: only the City Hall's small order for pepper, and a pepper to deliver it."""
    g.hand(p, "small_city_hall_pepper")
    g.give_goods(p, "pepper")


def test_the_tower_moves_toward_the_action_worth_most(prog: Program) -> None:
    """The tower starts on street r2c4; nobody bids (P1, P2, P1, P3 pass: the window closes),
    and P1 moves it on (4 moves left). Each step is preferred 100 (a move beats stopping) plus
    the best of the action there and his plan beyond it with the 3 moves then left (fn plan:
    the best action on the way, in full a move on, 3% less two moves on, 6% three), plus 50 for
    a building. With the Cathedral's action taken this turn:
    - the City Hall: its action, 4,000, more than the Post Office two moves beyond: 4,150;
    - street r2c5: the City Hall a move beyond, 4,000 in full: 4,100;
    - street r2c3: the City Hall two moves beyond (through street r3c3), 4,000 less 3%: 3,980;
    - the Tavern: the City Hall three moves beyond (through street r2c3 and r3c3, or the
      Harbour and street r2c5), 4,000 less 3% twice, 3,880 then 3,763: 100 + 3,763 + 50 = 3,913.
    (The one-step plan of before preferred the Tavern 1,120 and street r2c3 1,070: the City Hall
    lay beyond its reach.) With the Cathedral open, its 5,200 (2 markers, none in his supply)
    pulls the tower its way: from the City Hall or street r2c3 it lies two moves on (through
    street r3c3 or the market), 5,200 less 3%, 5,044: 5,194 and 5,144; from street r2c5 or the
    Tavern three moves on, 4,892: 4,992 and 5,042. Stopping (the pass) is 0."""
    for cathedral_open, want in (
            (False, {"tavern": 3913, "street_r2c3": 3980, "street_r2c5": 4100, "city_hall": 4150}),
            (True, {"tavern": 5042, "street_r2c3": 5144, "street_r2c5": 4992, "city_hall": 5194})):
        g = Game(prog, n=3)
        _pepper_order(g, 0)
        g.start("r2c4")
        if not cathedral_open:
            g.get("taken").append(g.m("cathedral"))
        g.passes(0, 1, 0, 2)
        g.until(MOVE)
        assert _prefs(g) == {"pass": 0, **want}


def test_the_tower_player_takes_an_action_that_beats_the_next_moves(prog: Program) -> None:
    """The tower starts on the City Hall; nobody bids, so P1 may take its action himself (the
    anchor's act_here). His 7 markers are all in his supply (the Cathedral brings him none).
    The action is worth 4,000 to him, more than 3 ducats; his plan with the 4 moves left and no
    action is worth 600 (no messages; a street beside a free building, street r3c3 or r3c6, with
    markers to place), and with an action the best on the tower's way from the City Hall (its
    disc stays) is the Post Office two moves away, through street r3c6: 1,800 less 3%, 1,746,
    and the street: 2,346. Preferred 4,000 + 600 - 2,346 + 1 (a tie takes it) = 2,255 > 0: he
    takes it. Without the pepper (the order cannot be delivered) the action is only the two
    cards, 2,400: 655, still taken. (The one-step plan of before took 3% off twice, 1,693: 2,307
    and 707.) With his markers in his storage instead, the Cathedral two moves on (through
    street r3c3) brings 2 of them, 5,200 (fn cathedral_marker), less 3%: 5,044, and no street
    counts (no marker to place): he leaves the City Hall's action, 4,000 + 0 - 5,044 + 1 =
    -1,043, and -2,643 without the pepper."""
    for pepper, markers, want in ((True, 7, 2255), (False, 7, 655), (True, 0, -1043),
                                  (False, 0, -2643)):
        g = Game(prog, n=3)
        if pepper:
            _pepper_order(g, 0)
        else:
            g.hand(0, "small_city_hall_pepper")
        g.markers_in_supply(0, markers)
        g.start("r3c4")
        g.passes(0, 1, 0, 2)
        g.until(MYSELF)
        assert _prefs(g) == {"pass": 0, "city_hall": want}


def test_a_starting_space_tile_picks_the_best_action_worth_the_tile(prog: Program) -> None:
    """P2 holds a starting-space tile, the pepper order and a pepper; P1's turn ends at once
    (the tower on a street, stopped). P2's start is preferred by the action there less the
    tile (7) and 10 more (the anchor's start_space): the City Hall 4,000 - 1,700 = 2,300; the
    Cathedral 5,200 - 1,700 = 3,500 (2 markers with none in his supply: fn cathedral_marker); a
    villa 1,000 - 1,700 = -700; the Tavern -1,100; a street or the market -1 (no action; the
    market costs the game a round: rules-data §Turn 1). Rolling the dice (the pass) is 0: he
    places the tower on the Cathedral."""
    g = Game(prog, n=3)
    _pepper_order(g, 1)
    g.give_tiles(1, "starting_space")
    g.start("r2c3")
    g.close(0)
    g.until(START_TILE)
    prefs = _prefs(g)
    assert prefs["pass"] == 0
    assert (prefs["city_hall"], prefs["cathedral"], prefs["villa_colini"], prefs["tavern"]) \
        == (2300, 3500, -700, -1100)
    assert prefs["market"] == prefs["street_r2c3"] == -1
    assert max(prefs.values()) == prefs["cathedral"]


@pytest.mark.parametrize("players", [3, 5])
def test_prefer_players_finish_whole_games(prog: Program, players: int) -> None:
    s = play_out(prog, prog.new_game(players, 11), [PreferAgent(i) for i in range(players)])
    res = prog.result(s)
    assert len(res.scores) == players and res.winners


@pytest.mark.parametrize("seed", [2, 5])
def test_a_prefer_player_beside_random_ones_finishes_whole_games(prog: Program,
                                                                 seed: int) -> None:
    """A random seat offers what no casual trader would — an order card, say, of a kind the
    `prefer` seat already holds; valuing it (fn claims_before, of a card not yet in his hand)
    stopped these games with a rule error (index_of of a card not in the list) until session
    44, in 15 of 20 seeds."""
    agents = [RandomAgent(seed), PreferAgent(seed + 1), RandomAgent(seed + 2)]
    s = play_out(prog, prog.new_game(3, seed), agents, max_decisions=30000)
    assert s.over and len(prog.result(s).scores) == 3


def test_the_bidders_climb_to_their_prices_and_the_tower_player_sells_his_action(
        prog: Program) -> None:
    """The windows of offers (the preference over offers; docs/language.md §2.19c, "Offers").
    The tower stands on the City Hall, P1 the tower player, P2 holding the pepper order and a
    pepper; nobody holds a tile. P2 likes the action 4,000: his price is 30% of it, 12 ducats,
    in units of 5: 10 (at most 45%, 18: 15), liked 4,000 - 1,000 = 3,000 — so he posts 10
    ducats, a unit at a time. P3 likes it 2,400 (the two orders drawn): P2's 10 stand, so his
    price would be 15, above his cap of 10: he offers his cap, liked 1,400. P2, matched,
    raises to 5 over P3 (15, his cap), liked 2,500 against his standing
    offer's 4,000 - 1,000 - 2 x 500 = 2,000, so replacing it is worth 500. P1, with offers for
    the action standing, would take it himself without a deal (the only way to refuse them):
    its 2,400 and his plan on without an action, 0 (the anchor's _no_deal); with a deal the
    buyer acts and his own plan from the City Hall is worth the Post Office's
    1,746 two moves on (fn plan_loss: 2,400 - 1,746 = 654). So 10 ducats are liked 1,000 - 654
    - 500 (5 to spare) = -154, and P2's 15 ducats 346: he accepts them, and P2 takes the
    action. (Before, his plan's loss counted the whole action, 2,400: -1,900 and -1,400, and
    he took the action himself.) The Cathedral's action is taken this turn (open, its 5,200 to
    P1 two moves on would make the City Hall's action cheap to sell)."""
    g = Game(prog, n=3)
    _pepper_order(g, 1)
    g.start("r3c4")
    g.get("taken").append(g.m("cathedral"))
    seen = []
    start = len(g.s.messages)
    while g.s.pending.prompt.startswith("bids"):
        pend = g.s.pending
        liked = {k: v for k, v in _prefs(g).items() if v > NEVER}
        i = PreferAgent(0).choose(prog, g.s)
        if pend.prompt == TURN:
            seen.append((pend.player, liked))
        prog.apply(g.s, i)
    accept2 = "accept #2 P3 to P1 about city_hall: gives 10 ducats; gets nothing; " \
              "promises nothing"
    accept3 = "accept #3 P2 to P1 about city_hall: gives 15 ducats; gets nothing; " \
              "promises nothing"
    assert seen[:6] == [
        (0, {"pass": 0}),
        (1, {"pass": 0, "post an offer": 3000}),
        (0, {"pass": 0, "accept #1 P2 to P1 about city_hall: gives 10 ducats; gets nothing; "
                        "promises nothing": -154}),
        (2, {"pass": 0, "post an offer": 1400}),
        (0, {"pass": 0, "accept #1 P2 to P1 about city_hall: gives 10 ducats; gets nothing; "
                        "promises nothing": -154, accept2: -154}),
        (1, {"pass": 0, "replace #1": 500, "withdraw #1": -2000})]
    assert seen[6] == (0, {"pass": 0, accept2: -154, accept3: 346})
    assert g.s.messages[start:start + 5] == [
        "P2 offers #1 P2 to P1 about city_hall: gives 10 ducats; gets nothing; promises nothing",
        "P3 offers #2 P3 to P1 about city_hall: gives 10 ducats; gets nothing; promises nothing",
        "P2 replaces #1 by #3 P2 to P1 about city_hall: gives 15 ducats; gets nothing; "
        "promises nothing",
        "P1 accepts #3 P2 to P1 about city_hall: gives 15 ducats; gets nothing; "
        "promises nothing",
        "P2 takes the action of the city_hall"]


def test_a_tower_player_who_cannot_act_takes_the_best_bid(prog: Program) -> None:
    """P1, the tower player, has acted this turn (no extra-action tile: he cannot act), so the
    City Hall's action costs his plan nothing (his plan with no deal and with one are the same:
    the Cathedral or the Post Office two moves on are no more his to take). He makes no
    counter-offer (a sale was tried and not kept: docs/agents.md, session 41). P2 (the City
    Hall worth 2,400 to him: two small orders drawn) bids 30% of it, 7 ducats, in units of 5:
    5, liked 2,400 - 500 = 1,900; P1 likes it 500 - 500 = 0, no more than passing, and passes.
    P3 (also 2,400) must beat P2's 5: 10, his cap, liked 1,400; P1 likes it 500 and takes it."""
    g = Game(prog, n=3)
    _pepper_order(g, 0)
    g.start("r3c4")
    g.set("acted", 1, 0)
    start = len(g.s.messages)
    seen = []
    while g.s.pending.prompt.startswith("bids"):
        pend = g.s.pending
        liked = {k: v for k, v in _prefs(g).items() if v > NEVER}
        if pend.prompt == TURN:
            seen.append((pend.player, liked))
        prog.apply(g.s, PreferAgent(0).choose(prog, g.s))
    bid2 = "P2 to P1 about city_hall: gives 5 ducats; gets nothing; promises nothing"
    bid3 = "P3 to P1 about city_hall: gives 10 ducats; gets nothing; promises nothing"
    assert seen[:5] == [
        (0, {"pass": 0}),
        (1, {"pass": 0, "post an offer": 1900}),
        (0, {"pass": 0, f"accept #1 {bid2}": 0}),
        (2, {"pass": 0, "post an offer": 1400}),
        (0, {"pass": 0, f"accept #1 {bid2}": 0, f"accept #2 {bid3}": 500})]
    assert g.s.messages[start:start + 4] == [
        f"P2 offers #1 {bid2}", f"P3 offers #2 {bid3}", f"P1 accepts #2 {bid3}",
        "P3 takes the action of the city_hall"]


@pytest.mark.parametrize("markers", [0, 1])
def test_the_tower_player_plans_his_messages_and_streets_moves_ahead(
        prog: Program, markers: int) -> None:
    """The tower player's plan over the tower's whole way (fn plan, the anchor's plan). P1
    holds only the message Tavern-City Hall, and none or one ownership marker in his supply;
    the tower starts on street r3c6, nobody bids, and P1 moves it on (4 moves left, so 3 after
    this one). With his hand the City Hall draws 2 small orders (2,400), the Cathedral and the
    Post Office 1,800, a villa or the Harbour 1,000, the Tavern 600. Each move is preferred 100
    plus the action there or his plan beyond it, whichever is more, plus 50 for a building:
    - the City Hall: beyond it, street r2c5, the Harbour (1,000 less 3%: 970) and the Tavern,
      whose disc completes the message with the City Hall's (3,000): 3,970 over the action's
      2,400: 4,120;
    - the Post Office: the City Hall two moves on (through the market), 2,400 less 3%: 2,328,
      over its own 1,800: 2,478 (the Tavern is out of reach);
    - street r2c6: the City Hall two moves on, through street r2c5: 2,328 + 100 = 2,428;
    - street r3c7: the Post Office two moves on, through street r4c7, 1,746: 1,846.
    With a marker in his supply, each of these ways passes a street beside a free building
    (r2c5, r2c4, r4c7), 6 ducats more (once): 600 more each. The street a move takes him to
    counts only in the plan beyond it (the anchor's move_tower). The Cathedral's action is
    taken this turn (open, its 5,200 two moves on from the City Hall or the Post Office would
    outweigh the message)."""
    g = Game(prog, n=3)
    g.hand(0, "message_tavern_city_hall")
    g.markers_in_supply(0, markers)
    g.start("r3c6")
    g.get("taken").append(g.m("cathedral"))
    g.passes(0, 1, 0, 2)
    g.until(MOVE)
    more = 600 * markers
    assert _prefs(g) == {"pass": 0, "city_hall": 4120 + more, "post_office": 2478 + more,
                         "street_r2c6": 2428 + more, "street_r3c7": 1846 + more}
