"""benchmarks/plain_manila.py plays the rules of rulebooks/manila.rules.

- Scenario tests: a few rules with exact numbers (each quotes the rule of seed 003 and the
  rulebook procedure that encodes it), driven by option label with loaded dice.
- A Hypothesis property: games of 3-5 players end, nobody's pesos go negative, the 20 shares
  are conserved, and the option count matches the labels.
- The rulebook and the plain version in lockstep: with the rulebook's deal and dice, the same
  player is asked, with the same option labels in the same order, and the scores agree.
- The distributions of independent random games agree (decisions per game, winning score), and
  the same comparison does tell the rulebook from the "forced loans only" variant.
"""
from __future__ import annotations

import importlib.util
import math
import random
import statistics
from pathlib import Path
from typing import Any, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "plain_manila.py"
_spec = importlib.util.spec_from_file_location("plain_manila", _PATH)
assert _spec is not None and _spec.loader is not None
pm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pm)

RULEBOOK = Path(__file__).resolve().parent.parent / "rulebooks" / "manila.rules"
G = {name: i for i, name in enumerate(pm.GOOD_NAMES)}


class Loaded(pm.Manila):  # type: ignore[name-defined, misc]
    """A plain game whose dice come from a list (in roll order: loaded boats at sea, Good order)."""

    dice: list

    def _die(self) -> int:
        assert self.dice, "the scenario rolled more dice than it loaded"
        return self.dice.pop(0)


def new_game(shares: Sequence[Sequence[str]], pesos: Sequence[int] = (),
             dice: Sequence[int] = ()) -> Loaded:
    """A game whose players hold these shares (the rest in the supply) and pesos."""
    g = Loaded(len(shares), seed=0)
    g.shares = [[list(held).count(name) for name in pm.GOOD_NAMES] for held in shares]
    g.supply = [pm.SHARES_PER_GOOD - sum(h[k] for h in g.shares) for k in range(4)]
    if pesos:
        g.pesos = list(pesos)
    g.dice = list(dice)
    return g


def play(g: Any, *moves: tuple[int, str]) -> None:
    """Each (player, label): that player (0 = P1) is asked and picks the option with that label."""
    for who, label in moves:
        assert g.player == who, f"P{g.player + 1} is asked, not P{who + 1} ({label})"
        opts = g.options()
        assert label in opts, f"{label!r} not among {opts}"
        g.apply(opts.index(label))


SHARES4 = [["nutmeg", "silk"], ["silk", "jade"], ["ginseng", "jade"], ["nutmeg", "ginseng"]]
ALL_PASS_AUCTION = [(1, "pass"), (2, "pass"), (3, "pass")]


# ---------------------------------------------------------------------------------- scenarios

def test_auction_winner_pays_the_bank() -> None:
    """seed 003 §競標海港負責人的辦事處: 他將得標價交給海港的錢箱; bids go clockwise, a pass is
    final, each bid beats the last, never above cash + 12 per share (lib/auction.rules)."""
    g = new_game(SHARES4)
    play(g, (0, "3"), (1, "7"))
    opts = g.options()
    assert opts[:2] == ["pass", "8"] and "54" in opts and "55" not in opts   # 30 + 2 * 12
    play(g, (2, "pass"), (3, "pass"), (0, "pass"))
    assert g.master == 1 and g.pesos == [30, 23, 30, 30]
    assert g.phase == pm.BUY and g.player == 1


def test_a_bid_above_cash_is_paid_by_forced_mortgages() -> None:
    """seed 003 §信用貸款: 當玩家必須付錢而他沒有足夠的現金，他必須貸款 (proc pay: only the
    mortgage choice is offered, until he can pay)."""
    g = new_game(SHARES4, pesos=[2, 30, 30, 30])
    assert g.options()[-3:] == ["26", "mortgage(nutmeg)", "mortgage(silk)"]
    play(g, (0, "20"), *ALL_PASS_AUCTION)
    assert g.phase == pm.MORTGAGE and g.options() == ["nutmeg", "silk"]
    play(g, (0, "silk"))
    assert g.pesos[0] == 14 and g.options() == ["nutmeg"]
    play(g, (0, "nutmeg"))
    assert g.pesos[0] == 26 - 20 and g.mortgaged[0] == [1, 1, 0, 0] and g.shares[0] == [0] * 4
    assert g.phase == pm.BUY


def test_boats_reaching_manila_pay_their_crews() -> None:
    """seed 003 §第三步驟: crew share the boat's profit (rules-data "Punt seats": silk 30,
    nutmeg 24), seats cost their printed price in fill order (silk 3, 4); harbour A pays 6;
    §第四步驟: the goods that arrived rise one step."""
    g = new_game(SHARES4, dice=[3, 5, 2, 3, 3, 1, 3, 2, 1])
    play(g, (0, "1"), *ALL_PASS_AUCTION, (0, "pass"), (0, "ginseng"),
         (0, "{nutmeg: 5, silk: 4, jade: 0}"),
         (0, "silk_boat"), (1, "silk_boat"), (2, "jade_boat"), (3, "harbour_a"))
    assert g.pesos == [26, 26, 27, 26] and g.position[:2] == [8, 9]
    play(g, (0, "nutmeg_boat"), (1, "pass"), (2, "pass"), (3, "pass"), (0, "pass"))
    # roll 3: nutmeg 11 -> 14 and silk 12 -> 14 reach Manila, jade 3 -> 4 goes to the shipyard
    assert g.dice == []
    assert g.pesos == [26 - 2 + 15 + 24, 26 + 15, 27, 26 + 6]
    assert g.step == [1, 1, 0, 0]
    assert g.phase == pm.BID and g.player == 0 and g.voyage == 2


def test_the_insurer_pays_the_shipyard_with_forced_mortgages() -> None:
    """seed 003 §保險: +10 at once; §保險理賠: for each boat in the shipyard the insurer pays the
    holder of that shipyard space (A = 6) or the bank (B = 8), mortgaging if short."""
    g = new_game([["nutmeg", "silk"], ["silk"], ["ginseng", "jade"], ["nutmeg", "jade"]],
                 pesos=[30, 0, 30, 30], dice=[5, 1, 1, 4, 1, 1, 1, 1])
    play(g, (0, "1"), *ALL_PASS_AUCTION, (0, "pass"), (0, "jade"),
         (0, "{nutmeg: 5, silk: 4, ginseng: 0}"),
         (0, "nutmeg_boat"), (1, "insurance"), (2, "shipyard_a"), (3, "pass"))
    assert g.pesos == [27, 10, 26, 30]
    play(g, (0, "pass"), (1, "pass"), (2, "pass"))
    # nutmeg reaches Manila after roll 2; silk and ginseng end in shipyard A and B: claims 14
    assert g.phase == pm.MORTGAGE and g.player == 1 and g.options() == ["silk"]
    play(g, (1, "silk"))
    assert g.dice == []
    assert g.pesos == [27 + 24, 10 + 12 - 14, 26 + 6, 30]
    assert g.mortgaged[1] == [0, 1, 0, 0] and g.step == [1, 0, 0, 0]


def test_the_bank_covers_what_the_insurer_cannot_pay() -> None:
    """seed 003 §保險理賠: 如果他即使貸款之後仍無法付出理賠金，他付出他能負擔的所有金額，剩下的由
    海港的錢箱負擔 — and the shipyard holder is paid in full (15 for C)."""
    g = new_game([["nutmeg", "silk"], [], ["ginseng", "jade"], ["nutmeg", "jade"]],
                 pesos=[30, 2, 30, 30], dice=[1] * 9)
    play(g, (0, "1"), *ALL_PASS_AUCTION, (0, "pass"), (0, "jade"),
         (0, "{nutmeg: 5, silk: 4, ginseng: 0}"),
         (0, "pass"), (1, "insurance"), (2, "shipyard_c"), (3, "pass"), (1, "pass"), (2, "pass"))
    assert g.dice == [] and g.voyage == 2        # all three boats ended in the shipyard
    assert g.pesos == [29, 0, 30 - 2 + 15, 30] and g.step == [0, 0, 0, 0]


def test_pirates_plunder_a_boat_on_13_after_the_third_roll() -> None:
    """seed 003 §劫掠船隻: the crew goes home unpaid, the pirates share the profit (silk 30 / 2),
    the captain (first pirate placed) sends the boat to the harbour, where it counts for harbour
    office A and its price rises."""
    g = new_game(SHARES4, dice=[1, 1, 1, 1, 1, 1, 1, 6, 1])
    play(g, (0, "1"), *ALL_PASS_AUCTION, (0, "pass"), (0, "ginseng"),
         (0, "{nutmeg: 0, silk: 5, jade: 4}"),
         (0, "silk_boat"), (1, "pirate"), (2, "pirate"), (3, "harbour_a"),
         (0, "pass"), (1, "pass"), (2, "pass"), (3, "pass"))
    assert g.phase == pm.PLUNDER and g.player == 1 and g.options()[:2] == ["harbour", "shipyard"]
    play(g, (1, "harbour"))
    assert g.dice == []
    assert g.pesos == [26, 25 + 15, 25 + 15, 26 + 6]
    assert g.step == [0, 1, 0, 0]


def test_a_boat_on_13_after_the_third_roll_with_no_pirate_takes_the_next_harbour_space() -> None:
    """seed 003 §劫掠船隻: 當平底船在第三次移動回合結束時停留在第１３格，且海盜船上沒有海盜，這艘船停留在
    下一個港口空間 (rulebook trigger unguarded_boats_dock): silk on 13, nobody on the pirate ship —
    the boat takes harbour A (6 for P4), its crew share 30 (15 each for P1, P2), silk rises."""
    g = new_game(SHARES4, dice=[1, 1, 1, 1, 1, 1, 1, 6, 1])
    play(g, (0, "1"), *ALL_PASS_AUCTION, (0, "pass"), (0, "ginseng"),
         (0, "{nutmeg: 0, silk: 5, jade: 4}"),
         (0, "silk_boat"), (1, "silk_boat"), (2, "pass"), (3, "harbour_a"),
         (0, "pass"), (1, "pass"), (3, "pass"))
    assert g.dice == [] and g.voyage == 2                # silk 13, nutmeg 3 and jade 7 wrecked
    assert g.pesos == [29 - 3 + 15, 30 - 4 + 15, 30, 26 + 6] == [41, 41, 30, 32]
    assert g.step == [0, 1, 0, 0]


def test_a_pirate_boards_a_boat_on_13_after_the_second_roll() -> None:
    """seed 003 §海盜登船: the captain boards first (into a free seat, paying nothing); the second
    pirate may then board too or stay; a boarded pirate shares the profit like crew."""
    g = new_game(SHARES4, dice=[1, 2, 1, 1, 6, 1, 1, 1, 1])
    play(g, (0, "1"), *ALL_PASS_AUCTION, (0, "pass"), (0, "ginseng"),
         (0, "{nutmeg: 0, silk: 5, jade: 4}"),
         (0, "silk_boat"), (1, "pirate"), (2, "pirate"), (3, "harbour_a"),
         (0, "pass"), (1, "pass"), (2, "pass"), (3, "pass"))
    assert g.position[1] == 13 and g.phase == pm.BOARD and g.player == 1
    assert g.options()[:2] == ["pass", "silk"]
    play(g, (1, "silk"))
    assert g.crew[1] == [0, 1] and g.pirates == [2] and g.player == 2
    assert g.options()[:2] == ["pass", "silk"]
    play(g, (2, "pass"))
    assert g.dice == []
    assert g.pesos == [26 + 15, 25 + 15, 25, 26 + 6] and g.step == [0, 1, 0, 0]


def test_a_blind_passenger_pays_all_his_cash_for_any_space_but_insurance() -> None:
    """seed 003 §盲目的旅客: 現金不足以放置同夥到最便宜的部署空間 ... 以他所有的金額 ... 任何有空位的
    空間（除了保險仲介者）."""
    g = new_game([["nutmeg", "silk"], ["silk", "jade"], [], ["nutmeg", "ginseng"]],
                 pesos=[30, 30, 1, 30])
    play(g, (0, "1"), *ALL_PASS_AUCTION, (0, "pass"), (0, "ginseng"),
         (0, "{nutmeg: 5, silk: 4, jade: 0}"), (0, "pass"), (1, "pass"))
    assert g.options() == ["pass", "nutmeg_boat", "silk_boat", "jade_boat", "harbour_a",
                           "harbour_b", "harbour_c", "shipyard_a", "shipyard_b", "shipyard_c",
                           "pirate", "small_pilot", "large_pilot"]
    play(g, (2, "large_pilot"))
    assert g.pesos[2] == 0 and g.office[pm.LARGE_PILOT] == 2 and g.player == 3


def test_three_players_place_twice_before_the_first_roll() -> None:
    """seed 003 §第二步驟: 在三人遊戲中 ... 在第一個同夥放置回合之後，執行第二個同夥放置回合 ...
    接著開始第一個平底船移動回合 (and 4 accomplices each)."""
    g = new_game([["nutmeg", "silk"], ["silk", "jade"], ["ginseng", "jade"]], dice=[1, 1, 1])
    play(g, (0, "pass"), (1, "1"), (2, "pass"), (1, "pass"), (1, "ginseng"),
         (1, "{nutmeg: 5, silk: 4, jade: 0}"),
         (1, "jade_boat"), (2, "jade_boat"), (0, "jade_boat"), (1, "jade_boat"))
    assert g.position == [5, 4, 0, 0] and g.accomplices == [3, 2, 3]
    play(g, (2, "silk_boat"), (0, "pass"))
    assert g.position == [6, 5, 0, 1] and g.dice == [] and g.player == 1


# ---------------------------------------------------------------------------------- properties

def shares_of(g: Any, k: int) -> int:
    return g.supply[k] + sum(g.shares[p][k] + g.mortgaged[p][k] for p in range(g.n))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 5), anytime=st.booleans())
def test_random_games_end_with_cash_and_shares_in_order(seed: int, players: int,
                                                        anytime: bool) -> None:
    """Every game ends (a price reaches 30); pesos never go negative; every good keeps its 5
    shares; the option count matches the labels and is never 0 before the end."""
    rng = random.Random(seed)
    g = pm.Manila(players, anytime_loans=anytime, rng=rng)
    for _ in range(5000):
        if g.over:
            break
        n = g.legal_count()
        assert n >= 1 and n == len(g.options())
        g.apply(rng.randrange(n))
        assert min(g.pesos) >= 0
        assert all(shares_of(g, k) == pm.SHARES_PER_GOOD for k in range(4))
        assert min(g.accomplices) >= 0 and len(g.pirates) <= 2
    assert g.over and g.legal_count() == 0 and pm.MAX_STEP in g.step
    values = [pm.PRICE_TRACK[s] for s in g.step]
    assert g.scores() == [g.pesos[p] - 15 * sum(g.mortgaged[p])
                          + sum((g.shares[p][k] + g.mortgaged[p][k]) * values[k] for k in range(4))
                          for p in range(players)]


def test_an_illegal_option_is_refused() -> None:
    g = pm.Manila(4, seed=1)
    with pytest.raises(ValueError):
        g.apply(g.legal_count())
    with pytest.raises(ValueError):
        g.apply(-1)


# ---------------------------------------------------------------------------------- the rulebook

@pytest.fixture(scope="module")
def prog() -> Any:
    from tests.game_driver import program
    return program(RULEBOOK)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_lockstep_with_the_rulebook(prog: Any, players: int) -> None:
    """With the rulebook's deal and dice (explicit chance) and the same random option indices,
    both ask the same player the same labelled options, keep the same pesos, end together and
    score the same."""
    for seed in range(12):
        rng = random.Random(seed)
        s = prog.new_game(players, seed=seed, explicit_chance=True)
        dice: list[int] = []

        def settle() -> None:
            while type(s.pending).__name__ == "Chance":
                node = s.pending
                i = rng.randrange(node.count)
                if node.what == "roll":
                    dice.append(node.option(i).value)
                prog.apply(s, i)

        settle()
        g = Loaded(players, seed=0)
        g.dice = dice
        g.shares = [[prog.get(s, "shares", player=p).get(k, 0) for k in range(4)]
                    for p in range(players)]
        supply = prog.get(s, "supply")
        g.supply = [supply.get(k, 0) for k in range(4)]
        for step in range(5000):
            node = s.pending
            where = f"{players}p seed {seed} decision {step}"
            if type(node).__name__ == "Terminal":
                assert g.over and list(node.scores) == g.scores(), where
                break
            assert node.player == g.player, where
            assert [o.label for o in node.options] == g.options(), where
            assert node.count == g.legal_count(), where
            i = rng.randrange(node.count)
            prog.apply(s, i)
            settle()
            g.apply(i)
            assert [prog.get(s, "pesos", player=p) for p in range(players)] == g.pesos, where
        else:
            raise AssertionError(f"{players}p seed {seed}: no end")


GAMES = 200


def rulebook_games(prog: Any) -> list[tuple[int, int]]:
    """(decisions, winning score) of GAMES seeded random 4-player games of the rulebook."""
    out = []
    for seed in range(GAMES):
        s = prog.new_game(4, seed)
        rng = random.Random(seed + 1_000_003)
        n = 0
        while not s.over:
            prog.apply(s, rng.randrange(s.pending.count))
            n += 1
        out.append((n, max(s.result.scores)))
    return out


def z_score(a: list[int], b: list[int]) -> float:
    """The difference of the means of two independent samples in standard errors."""
    se = math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
    return (statistics.mean(a) - statistics.mean(b)) / se


def test_random_games_are_distributed_as_the_rulebooks(prog: Any) -> None:
    """Independent random 4-player games (the rulebook with its own seeds, the plain version
    with play_random) agree on the mean decisions per game and the mean winning score within 4
    standard errors of the difference (about 15 decisions and 8 points for 200 games each; with
    the same rules a miss has probability ~6e-5, and the seeds are fixed, so the test is
    deterministic).  The same test must tell the rulebook from the "forced loans only" game,
    which differs only in not offering the any-time mortgage and redeem."""
    rule = rulebook_games(prog)
    plain = [pm.play_random(4, seed) for seed in range(GAMES)]
    forced = [pm.play_random(4, seed, anytime_loans=False) for seed in range(GAMES)]
    for k, f in ((0, lambda r: r[0]), (1, lambda r: max(r[1]))):
        z = z_score([r[k] for r in rule], [f(r) for r in plain])
        assert abs(z) < 4, (k, z)
    assert abs(z_score([r[0] for r in rule], [r[0] for r in forced])) > 4
