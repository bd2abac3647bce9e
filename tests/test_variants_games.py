"""The variants the seeds and rules-data name for Die Händler and Genoa, each against its base.

- rulebooks/variants/die_haendler_fixed_pairs.rules: the red cards dealt in the seed's four
  fixed pairs at random, and 4,000 starting money (seed 002 §特殊卡, the first way);
- rulebooks/variants/genoa_two_players.rules: its tests are tests/test_genoa_two_players.py.

For each: it checks clean; `rule_diff` lists exactly the intended changes (and, inside a
changed rule, only the intended lines); scenarios quoting the rule show the base's behaviour
and the variant's, with exact numbers, through the real decisions (the scenario helpers of
tests/test_die_haendler_scenarios.py and tests/test_genoa_scenarios.py); a few random games
end with the invariants holding after every decision.

Sources quoted:
  seed 002    shared/seeds/002_a0cd303d4f1be086.txt (Traditional Chinese; the authority)
  rules-data  shared/rules-data/die_haendler.md, shared/rules-data/genoa.md
  G6          the Rio Grande 2001 Genoa rules, "Rules for 2 players" (rules-data's source G6)
"""
from __future__ import annotations

import difflib
import random
from pathlib import Path

import pytest
from test_die_haendler_scenarios import BID, BUY, TAKE_RED
from test_die_haendler_scenarios import Game as Haendler

from shipped import shipped_program

from mercator.dsl.loader import load
from mercator.interpreter.tools.designer import rule_diff
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal
from mercator.interpreter.engine.program import Program

ROOT = Path(__file__).resolve().parent.parent
DH_BASE = ROOT / "rulebooks" / "die_haendler.rules"
DH_PAIRS = ROOT / "rulebooks" / "variants" / "die_haendler_fixed_pairs.rules"

# seed 002 §特殊卡: Express-Courier & Lagerverkauf / Grosses Kontor & Wagneri /
# Grosses Wagnerei & Kurier / Gunstiger Einkauf & Kontor
SEED_PAIRS = [["express_kurier", "lagerverkauf"], ["grosses_kontor", "wagnerei"],
              ["grosse_wagnerei", "kurier"], ["guenstiger_einkauf", "kontor"]]


def changes(base: Path, variant: Path) -> dict:
    return {(c.what, c.kind, c.name): c for c in rule_diff(load(str(base)).items,
                                                          load(str(variant)).items)}


def changed_lines(old: str, new: str) -> tuple[list[str], list[str]]:
    """The lines removed from and added to a rule's text."""
    diff = list(difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0))
    removed = [d[1:].strip() for d in diff if d.startswith("-") and not d.startswith("---")]
    added = [d[1:].strip() for d in diff if d.startswith("+") and not d.startswith("+++")]
    return removed, added


@pytest.fixture(scope="module")
def dh_base() -> Program:
    return shipped_program("die_haendler")


@pytest.fixture(scope="module")
def dh_pairs() -> Program:
    return shipped_program("die_haendler_fixed_pairs")


# =====================================================================================
# Die Händler — the fixed pairs
# =====================================================================================

def test_fixed_pairs_checks_clean_and_changes_only_money_and_the_distribution() -> None:
    """The variant replaces const start_money and proc distribute_red_cards, and adds the table
    of pairs; nothing else (the game's name aside)."""
    assert load(str(DH_PAIRS)).ok
    ch = changes(DH_BASE, DH_PAIRS)
    assert set(ch) == {
        ("changed", "game", "game"),
        ("changed", "constant", "start_money"),
        ("changed", "procedure", "distribute_red_cards"),
        ("added", "constant", "red_pairs"),
    }
    assert ch[("changed", "game", "game")].new == \
        'game "Die Händler — fixed pairs" players 2..4'
    assert ch[("changed", "constant", "start_money")].old == "const start_money = 5000"
    assert ch[("changed", "constant", "start_money")].new == "const start_money = 4000"
    dist = ch[("changed", "procedure", "distribute_red_cards")]
    assert "english_auction_in_steps" in dist.old and "choose" in dist.old
    assert "random one of face_down" in dist.new
    assert "choose" not in dist.new and "pay_bank" not in dist.new     # nobody decides or pays
    assert ch[("added", "constant", "red_pairs")].new == (
        "table red_pairs: list<list<Red>> = [[express_kurier, lagerverkauf], "
        "[grosses_kontor, wagnerei], [grosse_wagnerei, kurier], [guenstiger_einkauf, kontor]]")


def test_fixed_pairs_start_with_4000_instead_of_5000(dh_base: Program, dh_pairs: Program) -> None:
    """seed 002 §特殊卡: 這種方式使用時, 每位玩家的起始現金變為 4,000 元 (played this way, every
    player's starting money becomes 4,000) — instead of §準備事項's 每位玩家收到 5,000 元現金.
    The bank pays it out, so money stays conserved (bank + players = the bank's funds)."""
    base = Haendler(dh_base, 3, auction=False)
    pairs = Haendler(dh_pairs, 3, auction=False)
    assert base.money() == [5000, 5000, 5000]
    assert pairs.money() == [4000, 4000, 4000]
    for g in (base, pairs):
        assert g.get("bank") + sum(g.money()) == 1_000_000
    # for comparison: the base's auction at the (PLACEHOLDER) minimum of 500 a card also leaves
    # 5,000 - 2 × 500 = 4,000 (rules-data "Turn structure" 0: "every player pays 1000")
    auctioned = Haendler(dh_base, 3)
    assert auctioned.money() == [4000, 4000, 4000]


def test_fixed_pairs_each_player_takes_one_seed_pair_at_random_without_an_auction(
        dh_base: Program, dh_pairs: Program) -> None:
    """seed 002 §特殊卡: 一種是分成四組面朝下, 每個玩家亂數選擇一組 (the cards are split into four
    pairs, face down, and each player picks one at random) — the pairs are the seed's:
    Express-Courier & Lagerverkauf, Grosses Kontor & Wagneri, Grosses Wagnerei & Kurier,
    Gunstiger Einkauf & Kontor (rules-data's "Große Wagnerei + Kontor; Günstiger Einkauf +
    Kurier" swaps two cards; the seed wins).  In turn order, each player's pair is a chance
    event among the pairs still face down; nobody is asked anything, and round 1 begins."""
    base = Haendler(dh_base, 4, auction=False)
    assert isinstance(base.pending, Decision) and base.pending.prompt == BID     # the auction
    assert base.pending.player == 0 and base.get("red_queue")[0] == base.m("kurier")

    game = Haendler(dh_pairs, 4, auction=False)
    node = game.pending
    assert isinstance(node, Chance) and node.count == 4      # each pair with probability 1/4
    assert [o.label for o in node.options] == [f"[{a}, {b}]" for a, b in SEED_PAIRS]
    assert "[grosse_wagnerei, kontor]" not in [o.label for o in node.options]
    game.chance("[guenstiger_einkauf, kontor]")              # P1
    assert [o.label for o in game.pending.options] == \
        ["[express_kurier, lagerverkauf]", "[grosses_kontor, wagnerei]", "[grosse_wagnerei, kurier]"]
    game.chance("[grosse_wagnerei, kurier]")                 # P2
    assert game.pending.count == 2
    game.chance("[express_kurier, lagerverkauf]")            # P3
    # P4 takes the last pair: a chance with one outcome is not offered
    assert [game.red(p) for p in range(4)] == [
        ["guenstiger_einkauf", "kontor"], ["grosse_wagnerei", "kurier"],
        ["express_kurier", "lagerverkauf"], ["grosses_kontor", "wagnerei"]]
    assert game.get("red_box") == [] and game.get("red_queue") == []
    assert game.money() == [4000] * 4                        # nothing paid for the cards
    assert isinstance(game.pending, Decision) and game.pending.prompt == BUY
    assert game.pending.player == 0 and game.round == 1 and game.asked == []
    assert "P1 takes the pair [guenstiger_einkauf, kontor]" in game.s.messages
    game.check()


def test_fixed_pairs_with_two_players_the_other_pairs_go_to_the_box(dh_pairs: Program) -> None:
    """With 2 players two pairs are taken; the two left face down go back to the box (as the
    cards the base's auction leaves over do: docs/games/die_haendler.md, "Variants")."""
    game = Haendler(dh_pairs, 2, auction=False)
    game.chance("[grosses_kontor, wagnerei]")
    game.chance("[express_kurier, lagerverkauf]")
    assert game.red(0) == ["grosses_kontor", "wagnerei"]
    assert game.red(1) == ["express_kurier", "lagerverkauf"]
    assert [game.nm("Red", r) for r in game.get("red_box")] == \
        ["kurier", "kontor", "grosse_wagnerei", "guenstiger_einkauf"]
    assert game.pending.prompt == BUY and game.money() == [4000, 4000]
    game.check()


@pytest.mark.parametrize("n", [2, 3, 4])
def test_fixed_pairs_random_games_end_with_the_invariants(dh_pairs: Program, n: int) -> None:
    """Random games (a few seeds): each ends when the round marker reaches 6 / 7 / 8 (seed 002
    §遊戲結束); the invariants hold after every decision (money conserved, every red card in one
    place, ...); no red-card auction decision is ever asked; every player holds exactly one of
    the seed's pairs, and no two players the same."""
    pairs = {tuple(sorted(dh_pairs.member(c) for c in pair)) for pair in SEED_PAIRS}
    for seed in range(3):
        s = dh_pairs.new_game(n, seed)
        rng = random.Random(seed)
        assert [dh_pairs.get(s, "money", p) for p in range(n)] == [4000] * n
        held = [tuple(sorted(dh_pairs.get(s, "red", p))) for p in range(n)]
        assert set(held) <= pairs and len(set(held)) == n
        for _ in range(20_000):
            if s.over:
                break
            node = s.pending
            assert node.prompt not in (BID, TAKE_RED)
            dh_pairs.apply(s, rng.randrange(node.count))
            assert dh_pairs.check_invariants(s) == []
        assert isinstance(s.pending, Terminal) and len(s.pending.scores) == n
        assert dh_pairs.get(s, "round_marker") == {2: 6, 3: 7, 4: 8}[n]
        assert [tuple(sorted(dh_pairs.get(s, "red", p))) for p in range(n)] == held
