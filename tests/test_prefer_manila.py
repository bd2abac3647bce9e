"""Manila's preferences (rulebooks/manila.rules, "The bots' preferences"; docs/language.md
§2.19c): not rules of the game but how a casual player chooses, which the searcher's rollouts
follow (`prefer=X`) and the `prefer` player plays by. Exact numbers at positions of
tests/test_manila_scenarios.py."""
from __future__ import annotations

import pytest

from test_manila_scenarios import Game, placed_and_rolled, shipped_program

from mercator.interpreter.agents.base import PreferAgent, play_out
from mercator.interpreter.engine.program import Program


@pytest.fixture(scope="module")
def prog() -> Program:
    return shipped_program("manila")


def test_the_harbour_master_is_bid_for_while_the_bid_is_within_his_worth(prog: Program) -> None:
    """The first auction, 4 players, P1 holding a nutmeg and a silk share, every good on step 0
    (a rise is worth 5 pesos on the track) and in the supply. The first voyage not loaded yet,
    10 + 17 x 3 = 61 tenths of a voyage are to come, 0.4 of a step each: a share on step 0 is
    expected to end at the track read at 2.4, 10 + 0.4 x 10 = 14 pesos; a share costs 5, so a
    nutmeg or silk share gains 14 - 5 + 3 x 1 / 2 = 10 (held goods favoured), a ginseng or jade
    share 9. The office is worth 3 + (5 + 5) / 4 + 10 = 15 (under his 30 pesos less 4): a bid
    b is preferred 2 x (15 - b) + 1, so he bids 1, and 15 at most (16 is below the pass)."""
    game = Game(prog)
    pend = game.s.pending
    assert pend.player == 0 and pend.prompt == "bid (or pass)"
    prefs = prog.preferences(game.s, pend.count - len(pend.actions))
    assert prefs is not None
    assert prefs[:4] == [0, 29, 27, 25]              # the pass, then bids 1, 2, 3
    assert prefs[15] == 1 and prefs[16] == -1        # bids 15 and 16


def test_the_auction_raises_the_high_bidder_while_his_guessed_worth_leaves_room(
        prog: Program) -> None:
    """The first auction as above, P1 bidding 11. P2 holds a ginseng and a jade share and 30
    pesos: the office is worth 15 to him as to P1 (the shares are alike), so bids 12 to 15 are
    preferred 2 x (15 - b) + 1. With 14 pesos it is worth at most 14 - 4 = 10 to him, yet P1's
    worth, guessed from what is public (his 30 pesos; of each good half the shares the others
    hold: 2 / 2 = 1, as P2's own), is 15, and P2 raises him while that leaves room to outbid:
    bids preferred 2 x (15 - 1 - b) + 1, 12 to 14 above the pass."""
    rich = Game(prog)
    rich.bid(0, 11)
    pend = rich.s.pending
    assert pend.player == 1
    prefs = prog.preferences(rich.s, pend.count - len(pend.actions))
    assert prefs is not None and prefs[:6] == [0, 7, 5, 3, 1, -1]    # pass, bids 12..16
    poor = Game(prog, pesos={1: 14})
    poor.bid(0, 11)
    prefs = prog.preferences(poor.s, poor.s.pending.count - len(poor.s.pending.actions))
    assert prefs is not None and prefs[:5] == [0, 5, 3, 1, -1]       # pass, bids 12..15


def test_the_harbour_master_leaves_ashore_the_good_the_others_hold(prog: Program) -> None:
    """Nobody bids in the first voyage, 4 players: P1 is harbour master, holds a nutmeg and a
    silk share; 3 of each good are in the supply, so the others hold 1 nutmeg, 1 silk, 2
    ginseng and 2 jade; every rise is 5 pesos (step 0 to 5). In tenths of a peso a good is kept
    at sea for 30 x his shares x 5, less 10 x the others' shares x 5, plus its cargo: nutmeg
    150 - 50 + 24 = 124, silk 150 - 50 + 30 = 130, ginseng 0 - 100 + 18 = -82, jade -100 + 36 =
    -64: ginseng (preferred 82) stays ashore. Nutmeg ashore, the start spaces weigh each space
    of silk 60 x 5 + 5 x 30 - 18 x 1 x 5 = 360, of ginseng 90 - 180 = -90 and of jade 180 - 180
    = 0: silk on 5, ginseng on 0, jade on 4 is preferred 1800, the default start of the
    scenarios (silk 0, ginseng 4, jade 5) -360."""
    game = Game(prog)
    for p in range(4):
        game.bid(p, None)
    game.decide(0, "pass", "buy one share (or pass)")
    pend = game.s.pending
    assert pend.prompt.startswith("which good stays ashore")
    m = pend.count - len(pend.actions)
    prefs = dict(zip([o.label for o in pend.options[:m]], prog.preferences(game.s, m) or []))
    assert prefs == {"nutmeg": -124, "silk": -130, "ginseng": 82, "jade": 64}
    game.decide(0, "nutmeg", "which good stays ashore this voyage?")
    pend = game.s.pending
    m = pend.count - len(pend.actions)
    prefs = dict(zip([o.label for o in pend.options[:m]], prog.preferences(game.s, m) or []))
    assert max(prefs.values()) == prefs["{silk: 5, ginseng: 0, jade: 4}"] == 1800
    assert prefs["{silk: 0, ginseng: 4, jade: 5}"] == -360


def test_a_placement_is_preferred_by_its_expected_pay_less_its_price(prog: Program) -> None:
    """After the first roll of tests/test_manila_scenarios.py's placed_and_rolled (silk on 6,
    ginseng on 5, jade on 6, two rolls left; nobody on the pirate ship, so a boat ending on 13
    docks: silk lands with 126 chances in 216, ginseng 90, jade 126; P2 and P3 hold 4
    accomplices for 18 free places, a free seat filling 22 in 100), P1 (27 pesos, on the silk
    boat's first seat, holding a nutmeg and a silk share) places again. In 216ths of a peso:
    - silk's second seat: his share of the cargo grows from 1 of a crew of 100 + 2 x 22 (126 x
      30 x 100 / 144 = 2625) to 2 of 200 + 1 x 22 (126 x 30 x 200 / 222 = 3405): 780, less 4
      pesos (864): -84, below the pass (a second seat only takes the third seat's share);
    - ginseng's first seat: 90 x 18 x 100 / (100 + 2 x 22) = 1125, less 1 peso: 909;
    - jade's second seat: 126 x 36 x 100 / (200 + 2 x 22) = 1859, less 4 pesos: 995, and what it
      takes from P2 aboard, shared among the three others: his share falls from 126 x 36 x 100
      / (100 + 3 x 22) = 2732 to 1859, 873 / 3 = 291: 1286;
    - harbour B pays 8 if two boats land (126, 90, 126: 117 chances), 936, less 3 pesos: 288;
    - shipyard A pays 6 if a boat ends in the shipyard (90, 126, 90 chances each: 216 less 126
      x 90 x 126 / 216^2 = 30 for none, 186), 1116, less 4 pesos: 252;
    - the pirate: the boats' plunder if one ends the last roll on 13 (silk 36 x 30, ginseng
      30 x 18, jade 36 x 36: 2916; no boat can end the second roll on 13 from 5 or 6 with one
      die, so no boarding), less what the silk boat would have brought him had it docked from 13
      (36 x (30 x 100 / 144 = 20 of the cargo + his silk share's rise, 10)): 1080, less 5
      pesos: 756;
    - insurance: 10 pesos now, nobody in the shipyard to pay: 2160, the most preferred."""
    game = placed_and_rolled(prog, "pass")
    pend = game.s.pending
    m = pend.count - len(pend.actions)
    labels = [o.label for o in pend.options[:m]]
    assert pend.player == 0 and labels[0] == "pass"
    prefs = dict(zip(labels, prog.preferences(game.s, m) or []))
    assert prefs["pass"] == 0
    assert (prefs["silk_boat"], prefs["ginseng_boat"], prefs["jade_boat"]) == (-84, 909, 1286)
    assert prefs["harbour_b"] == 288 and prefs["shipyard_a"] == 252
    assert prefs["pirate"] == 756
    assert prefs["insurance"] == 2160 == max(prefs.values())


def test_a_boat_seat_counts_what_it_takes_from_the_others_aboard(prog: Program) -> None:
    """The first voyage, 3 players (silk on 0, ginseng on 4, jade on 5, three rolls to come,
    nobody on the pirate ship): P1 on the silk boat, P2 and P3 on the jade boat, P1 places his
    second accomplice. The jade boat lands with 181 chances in 216 (passes 13 with 160: 9 or more
    on three dice; ends on 13 with 21, and docks), ginseng with 160 (135 + 25). P2 and P3 hold 6
    accomplices for 18 free places: a free seat fills 33 in 100. In 216ths of a peso:
    - jade's third seat: his share, 181 x 36 x 100 / (300 + 1 x 33) = 1956, less 5 pesos (1080),
      and what it takes from the two seats of P2 and P3, shared between them: their share falls
      from 181 x 36 x 100 x 2 / (200 + 2 x 33) = 4899 to 1303200 / 333 = 3913, 986 / 2 = 493:
      1369 (876 without it);
    - ginseng's first seat, nobody aboard to take from: 160 x 18 x 100 / (100 + 2 x 33) = 1734,
      less 1 peso: 1518."""
    game = Game(prog, 3)
    game.begin_voyage_1()
    game.place(0, "silk_boat")
    game.place(1, "jade_boat")
    game.place(2, "jade_boat")
    pend = game.s.pending
    assert pend.player == 0 and pend.prompt.startswith("place an accomplice")
    m = pend.count - len(pend.actions)
    prefs = dict(zip([o.label for o in pend.options[:m]], prog.preferences(game.s, m) or []))
    assert prefs["jade_boat"] == 1369
    assert prefs["ginseng_boat"] == 1518


def test_the_pirate_ship_counts_plunder_boarding_and_the_docking_it_stops(prog: Program) -> None:
    """The first placement of the first voyage (silk on 0, ginseng on 4, jade on 5, three rolls
    to come, nobody aboard anywhere), P1 holding a nutmeg and a silk share. The boats end the
    last roll on 13 with 21 (silk: 13 on three dice), 25 (ginseng: 9) and 21 (jade: 8) chances
    in 216: a plunder of 21 x 30 + 25 x 18 + 21 x 36 = 1836. They end the second roll on 13, when
    a pirate may board one, with 0 (silk cannot), 24 (ginseng: 9 on two dice) and 30 (jade: 8):
    half a seat on the empty boat, (24 x 18 + 30 x 36) / 2 = 756. With a pirate waiting the silk
    boat no longer docks from 13: his silk share's rise (a step, from 10 to 20 pesos at the end:
    10) is lost 21 times: 210. Less 5 pesos (1080): 1302."""
    game = Game(prog)
    game.begin_voyage_1()
    pend = game.s.pending
    m = pend.count - len(pend.actions)
    labels = [o.label for o in pend.options[:m]]
    assert pend.player == 0 and pend.prompt.startswith("place an accomplice")
    prefs = dict(zip(labels, prog.preferences(game.s, m) or []))
    assert prefs["pirate"] == 1302


def test_a_pilot_moves_by_what_the_last_die_brings_him_and_the_others(prog: Program) -> None:
    """Before the last roll, 4 players: silk on 10 (P2 aboard), ginseng on 12 (empty), jade on
    12 (P3 aboard), nobody on the pirate ship (a boat ending on 13 docks). With one die a boat
    lands with 144 chances in 216 from 10 (passing 108, docking 36), 180 from 11, 216 from 12 or
    13. A move is worth what it adds to the pilot's voyage (a share's rise, 10 pesos at the end)
    less a third of what it adds to the others' crews (the richest player wins), less 1.
    The small pilot P4 (ginseng and jade shares): ginseng onto 13 changes nothing (-1); silk
    back to 9 (108 chances) takes 36 x 30 / 3 = 360 from P2: 359; jade back to 11 costs his jade
    share 36 x 10 = 360 and P3 36 x 36 / 3 = 432: 71. Should he pass, the large pilot P1
    (nutmeg and silk): silk forward to 11 brings his silk share 360 and P2 as much, net 0, and
    with the best second move (jade back to 11, 432) 431; jade back 2 spaces (144 chances)
    takes 72 x 36 / 3 = 864 from P3: 863, the most preferred."""
    game = Game(prog, 4)
    game.begin_voyage_1()
    game.place(0, "large_pilot")
    game.place(1, "silk_boat")
    game.place(2, "jade_boat")
    game.place(3, "small_pilot")
    game.roll(5, 4, 6)
    game.passes(0, 1, 2, 3)
    game.roll(5, 4, 1)
    assert game.by_good(game.get("position")) == {"nutmeg": 0, "silk": 10, "ginseng": 12,
                                                  "jade": 12}
    pend = game.s.pending
    assert pend.player == 3 and pend.prompt.startswith("small pilot")
    m = pend.count - len(pend.actions)
    prefs = dict(zip([o.label for o in pend.options[:m]], prog.preferences(game.s, m) or []))
    assert prefs["{boat: ginseng, steps: 1}"] == -1
    assert prefs["{boat: silk, steps: -1}"] == 359 == max(prefs.values())
    assert prefs["{boat: jade, steps: -1}"] == 71
    game.decide(3, "pass", pend.prompt)
    pend = game.s.pending
    assert pend.player == 0 and pend.prompt.startswith("large pilot: move one boat")
    m = pend.count - len(pend.actions)
    prefs = dict(zip([o.label for o in pend.options[:m]], prog.preferences(game.s, m) or []))
    assert prefs["{boat: silk, steps: 1}"] == 431
    assert prefs["{boat: jade, steps: -2}"] == 863 == max(prefs.values())


@pytest.mark.parametrize("players", [3, 4, 5])
def test_prefer_players_finish_whole_games(prog: Program, players: int) -> None:
    s = play_out(prog, prog.new_game(players, 11), [PreferAgent(i) for i in range(players)])
    res = prog.result(s)
    assert len(res.scores) == players and res.winners
