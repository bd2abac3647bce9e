"""Die Händler's preferences (rulebooks/die_haendler.rules, "The bots' preferences"; docs/
language.md §2.19c): their values at decisions reached from a seeded start, worked out by hand
from the rules, and whole games played by the `prefer` player at every seat."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from game_driver import program

from mercator.interpreter.agents.base import PreferAgent, play_out

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "rulebooks" / "die_haendler.rules"


@pytest.fixture(scope="module")
def prog():
    return program(RULES)


def labels(s) -> list[str]:
    return [o.label for o in s.pending.options]


def play_preferred_until(prog, s, prompt: str, rng: random.Random) -> None:
    """Answer every decision by its preference (ties by rng) until one whose prompt begins with
    `prompt` is pending; the last buyer's pick of a red card, which has none, by its first
    option."""
    while not s.pending.prompt.startswith(prompt):
        pend = s.pending
        i = prog.preferred(s, pend.count - len(pend.actions), rng)
        assert i >= 0 or pend.prompt.startswith("take a red card"), pend.prompt
        prog.apply(s, max(i, 0))


def test_the_red_card_auction_bids_the_minimum_within_the_cards_worth(prog) -> None:
    s = prog.new_game(3, 7)
    pend = s.pending
    # the first card up is the Kurier (red_card_order), from 500 in steps of 100, P1 (the start
    # player) bidding first; fn red_worth gives it 500, so a bid b is worth 500 - b + 1: the
    # minimum 1, every step over it 100 less, the pass 0
    assert pend.player == 0 and pend.prompt.startswith("bid (or pass)")
    assert pend.values[:3] == [500, 600, 700]
    assert prog.preferences(s, 5) == [0, 1, -99, -199, -299]


def test_buying_three_barrels_beside_a_wagon_then_a_pair_elsewhere(prog) -> None:
    s = prog.new_game(3, 7)
    rng = random.Random(0)
    play_preferred_until(prog, s, "buy a barrel", rng)
    # Round 1, P1 (the start player) buys first.  Every good is on the lowest row: it sells
    # for 700 a raise on (fn expected_sale) and costs 100; the cities without a wagon (city4,
    # city5, city6) have a bonus of 200 (§準備事項), and each good is made by none of those
    # three and by one or two of the others, so every margin is 700 - 100 + 7 * (100 + 200)
    # / 10 = 810 and every site is worth the same.  The first site (all_barrels: goods in Good
    # order, then cities in board order) where a wagon stands is cloth in Paris: P1 means to
    # load it, 2; every other barrel -1 (his guest's pair comes after the three), the pass 0.
    assert s.pending.player == 0
    assert labels(s)[:3] == ["pass", "{good: cloth, city: paris}", "{good: cloth, city: genua}"]
    prefs = prog.preferences(s, s.pending.count)
    assert prefs[:2] == [0, 2] and set(prefs[2:]) == {-1}
    for _ in range(3):
        prog.apply(s, 1)                          # three cloth into Paris
    # P2: cloth in Paris is worth 810 - 400 (P1 has two or more of it there) = 410, the other
    # goods of Paris 810 - 150 (P1 is a rival for that wagon) = 660, Köln's and Genua's 810:
    # the first of those is cloth in Genua
    assert s.pending.player == 1
    prefs = prog.preferences(s, s.pending.count)
    best = [labels(s)[i] for i, v in enumerate(prefs) if v == 2]
    assert best == ["{good: cloth, city: genua}"] and sorted(set(prefs)) == [-1, 0, 2]
    play_preferred_until(prog, s, "buy a barrel", rng)
    rng2 = random.Random(1)
    while s.pending.player != 0:                  # P2 and P3 buy their three
        prog.apply(s, prog.preferred(s, s.pending.count, rng2))
    # P3: three iron in Köln (810, the first site no rival stocks)
    assert prog.get(s, "warehouse", 2)[1] == {1: 3}
    # P1's second purchase (round 1 buys twice, §Phase 1): his load is stocked, so the pair for
    # another wagon, the best site outside Paris.  Köln: iron 810 - 400 (P3's three) = 410,
    # wine and salt 810 - 150 = 660; Genua: cloth 410, silk and salt 660.  The first 660 is
    # wine in Köln: 1; the cloth in Paris (stocked) and the rest -1.
    prefs = prog.preferences(s, s.pending.count)
    assert [labels(s)[i] for i, v in enumerate(prefs) if v == 1] == ["{good: wine, city: koeln}"]
    assert sorted(set(prefs)) == [-1, 0, 1]


def test_the_wagon_bid_a_step_over_a_rival_and_the_fee_a_third_of_a_pair(prog) -> None:
    s = prog.new_game(3, 7)
    play_preferred_until(prog, s, "sealed bid", random.Random(0))
    # the barrels bought by preference (the test above, continued): P1 three cloth in Paris and
    # two wine in Köln, P2 three cloth in Genua and two wine in Paris, P3 three iron in Köln and
    # two silk in Genua
    assert prog.get(s, "warehouse", 0)[0] == {0: 3} and prog.get(s, "warehouse", 1)[0] == {2: 2}
    # wagon1 in Paris is under the hammer (fn hammer_wagon: the first wagon in a city with
    # nothing on it).  P1 can load three cloth there: 1,000 + 200; P2 could load two wine: a
    # rival, 100 more; P1 is the start player, who wins ties (§Phase 2): 100 less — 1,200.
    # A bid is worth 10,000 less its distance from that.
    assert s.pending.player == 0 and s.pending.values[:4] == [1000, 1100, 1200, 1300]
    assert prog.preferences(s, 6) == [0, 9800, 9900, 10000, 9900, 9800]
    prog.apply(s, 3)                              # P1 bids 1,200
    # P2 (two wine: 1,000; P1, a rival with three there, 300 more: 1,300)
    assert s.pending.player == 1
    assert max(prog.preferences(s, s.pending.count)) == 10000
    assert s.pending.values[prog.preferences(s, s.pending.count).index(10000) - 1] == 1300
    play_preferred_until(prog, s, "name the fee", random.Random(0))
    # the fee: 600, a third of two barrels at about 900; each 100 away one less
    assert s.pending.values[:3] == [0, 100, 200]
    prefs = prog.preferences(s, s.pending.count)
    assert prefs[:8] == [-600, -500, -400, -300, -200, -100, 0, -100]


def test_the_prefer_player_never_borrows(prog) -> None:
    # repaying is an any-time action, which the prefer player never takes where a preference
    # covers the decision, and a loan held at the end bars the win (§Phase 6 注意): "no" 1,
    # "yes" 0.  (Uniformly random play from seed 5 runs a player short of his upkeep.)
    s = prog.new_game(3, 5)
    rng = random.Random(5)
    while not s.pending.prompt.startswith("take a loan"):
        prog.apply(s, rng.randrange(s.pending.count))
    assert labels(s)[:2] == ["yes", "no"] and prog.preferences(s, 2) == [0, 1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_games_of_prefer_players_finish(prog, players: int) -> None:
    for seed in range(2):
        s = prog.new_game(players, seed)
        fin = play_out(prog, s, [PreferAgent(10 * seed + p) for p in range(players)],
                       max_decisions=20_000)
        assert fin.over
        res = prog.result(fin)
        assert len(res.scores) == players and max(res.scores) > 0
