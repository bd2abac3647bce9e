"""The variants the seeds and rules-data name for Die Händler and Genoa, each against its base.

- rulebooks/variants/die_haendler_fixed_pairs.rules: the red cards dealt in the seed's four
  fixed pairs at random, and 4,000 starting money (seed 002 §特殊卡, the first way);
- rulebooks/variants/genoa_two_players.rules: the official 2-player rules (rules-data genoa.md
  "Turn", "Two-player rules" [G6]): an offer must include a good; the tower player takes two
  actions when his opponent takes one.

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
from test_genoa_scenarios import ANSWER, HERE, MOVE
from test_genoa_scenarios import Game as Genoa

from mercator.dsl.loader import load
from mercator.interpreter.tools.designer import rule_diff
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal
from mercator.interpreter.engine.program import Program
from mercator.interpreter.compiler import compile_program

ROOT = Path(__file__).resolve().parent.parent
DH_BASE = ROOT / "rulebooks" / "die_haendler.rules"
DH_PAIRS = ROOT / "rulebooks" / "variants" / "die_haendler_fixed_pairs.rules"
GENOA_BASE = ROOT / "rulebooks" / "genoa.rules"
GENOA_2P = ROOT / "rulebooks" / "variants" / "genoa_two_players.rules"

# seed 002 §特殊卡: Express-Courier & Lagerverkauf / Grosses Kontor & Wagneri /
# Grosses Wagnerei & Kurier / Gunstiger Einkauf & Kontor
SEED_PAIRS = [["express_kurier", "lagerverkauf"], ["grosses_kontor", "wagnerei"],
              ["grosse_wagnerei", "kurier"], ["guenstiger_einkauf", "kontor"]]


def program(path: Path) -> Program:
    res = load(str(path))
    assert res.ok and res.rulebook is not None, [str(d) for d in res.diagnostics]
    return compile_program(res.rulebook)


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
    return program(DH_BASE)


@pytest.fixture(scope="module")
def dh_pairs() -> Program:
    return program(DH_PAIRS)


@pytest.fixture(scope="module")
def genoa_base() -> Program:
    return program(GENOA_BASE)


@pytest.fixture(scope="module")
def genoa_2p() -> Program:
    return program(GENOA_2P)


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


# =====================================================================================
# Genoa — the two-player rules
# =====================================================================================

def test_two_players_checks_clean_and_changes_only_offers_and_the_action_count() -> None:
    """The variant replaces the offer trigger (rule a), fn can_act, proc take_action and proc
    begin_turn (rule b), and adds three functions and one player field; inside the replaced
    rules only the intended lines differ from the base."""
    assert load(str(GENOA_2P)).ok
    ch = changes(GENOA_BASE, GENOA_2P)
    assert set(ch) == {
        ("changed", "game", "game"),
        ("changed", "trigger", "genoa_offer"),
        ("changed", "function", "can_act"),
        ("changed", "procedure", "take_action"),
        ("changed", "procedure", "begin_turn"),
        ("added", "player field", "extra_spent"),
        ("added", "function", "min_offer_goods"),
        ("added", "function", "free_actions"),
        ("added", "function", "free_actions_taken"),
    }
    # a variant cannot narrow `players 2..5` (no `replace game`): the rules are guarded instead
    assert ch[("changed", "game", "game")].new == 'game "Genoa — two players" players 2..2'
    # (a) the goods of an offer: at least min_offer_goods(); no goods, no offer
    offer = ch[("changed", "trigger", "genoa_offer")]
    assert offer.new == offer.old.replace(
        "goods: subset of bidder.goods size 0..offer_items_cap",
        "goods: subset of bidder.goods size min_offer_goods()..offer_items_cap").replace(
        "  if asking_here {",
        "  if count(bidder.goods) < min_offer_goods() {\n    nego_drop(bidder)\n"
        "  } elif asking_here {")
    # (b) the allowance
    assert changed_lines(ch[("changed", "function", "can_act")].old,
                         ch[("changed", "function", "can_act")].new) == (
        ["fn can_act(p: player) -> bool = p.acted == 0 or p.tiles[extra_action] > 0"],
        ["fn can_act(p: player) -> bool = free_actions_taken(p) < free_actions(p) "
         "or p.tiles[extra_action] > 0"])
    act = ch[("changed", "procedure", "take_action")]
    assert changed_lines(act.old, act.new) == (
        ["if p.acted > 0 {"],
        ["if free_actions_taken(p) >= free_actions(p) {", "p.extra_spent += 1",
         "} elif p.acted > 0 {",
         'log p, "takes a second action: his opponent has taken one (two-player rule)"'])
    turn = ch[("changed", "procedure", "begin_turn")]
    assert changed_lines(turn.old, turn.new) == ([], ["p.extra_spent = 0"])
    assert "player_count == 2" in ch[("added", "function", "min_offer_goods")].new
    assert "player_count == 2" in ch[("added", "function", "free_actions")].new


def goods_options(game: Genoa, bidder: int, kind: str, square: str = "") -> list[str]:
    """Walk an offer's fields up to `goods` (square, money 0) and return the goods options."""
    if kind == MOVE:
        game.decide(bidder, square, f"{MOVE}: square")
    game.decide(bidder, "0", f"{kind}: money")
    assert game.pending.prompt == f"{kind}: goods"
    return game.labels()


def test_two_players_an_offer_of_money_alone_is_allowed_in_the_base_only(
        genoa_base: Program, genoa_2p: Program) -> None:
    """G6 / rules-data "Two-player rules" (a): "An offer from the opponent to the tower player
    may not be only for money; it must always include at least one good" (money alone is not
    enough).  The tower starts on the street r2c3 next to the harbour (r1c3).
    Base, 2 players: P2, without goods, offers 10 ducats for the harbour; P1 accepts: 140 / 120.
    Variant: P2 without goods is not asked for an offer at all — P1 answers an empty table;
    with a pepper, P2's offer must hold it (the goods field has no "nothing")."""
    base = Genoa(genoa_base, 2)
    base.start("r2c3")
    base.offer(1, square="r1c3", money=10)                   # money only
    base.answer(0, "accept_offer")
    assert base.ducats() == [140, 120] and base.tiles(1) == {"commodity": 1}
    base.check()

    var = Genoa(genoa_2p, 2)
    var.start("r2c3")
    assert var.pending.player == 0 and var.pending.prompt == ANSWER   # P2 was not asked
    assert var.labels() == ["refuse_all", "end_negotiation", "ask_again"]
    assert (1, f"{MOVE}: square") not in var.asked

    for prog, expected in ((genoa_base, ["nothing", "pepper"]), (genoa_2p, ["pepper"])):
        game = Genoa(prog, 2)
        game.give_goods(1, "pepper")
        game.start("r2c3")
        assert goods_options(game, 1, MOVE, "r1c3") == expected

    var = Genoa(genoa_2p, 2)
    var.give_goods(1, "pepper")
    var.start("r2c3")
    var.offer(1, square="r1c3", money=10, goods=["pepper"])
    var.answer(0, "accept_offer")
    assert var.ducats() == [140, 120] and var.goods(0) == {"pepper": 1} and var.goods(1) == {}
    assert var.tiles(1) == {"commodity": 1}
    var.check()


def test_two_players_an_offer_for_the_action_here_needs_a_good_too(
        genoa_base: Program, genoa_2p: Program) -> None:
    """Rule (a) holds for every offer to the tower player, also for the action of the building
    where the tower stands (seed 000 §就交易塔所在的建築協商): at the harbour (r1c3), P2 with a
    pepper may offer money alone in the base, not in the variant."""
    for prog, expected in ((genoa_base, ["nothing", "pepper"]), (genoa_2p, ["pepper"])):
        game = Genoa(prog, 2)
        game.give_goods(1, "pepper")
        game.start("r1c3")
        assert goods_options(game, 1, HERE) == expected


def example_1(game: Genoa) -> None:
    """G6 Example 1 on the board: the tower starts on the metals warehouse (r3c1); P2 buys its
    action with a pepper; the tower moves without deals to the coach house (r4c1), where P1
    acts himself, then over the street r4c2 to the cathedral (r4c3).  Hands are emptied so no
    card delivery is offered."""
    game.hand(0)
    game.hand(1)
    game.give_goods(1, "pepper", "saffron")
    game.start("r3c1")
    game.offer(1, HERE, goods=["pepper"])
    game.decide(0, "accept_offer", ANSWER)
    assert game.goods(1) == {"saffron": 1, "silver": 1, "copper": 1}      # P2 acted
    assert game.get("acted", 1) == 1
    game.quiet_move(0, "r4c1", [1])                          # coach house: P2 cannot act
    assert game.labels() == ["do_it_myself", "refuse_all"]
    game.decide(0, "do_it_myself", ANSWER)                   # P1's first action
    assert game.tiles(0).get("starting_space") == 1 and game.get("acted", 0) == 1
    game.quiet_move(0, "r4c2", [1])                          # a street
    game.quiet_move(0, "r4c3", [1])                          # the cathedral


def test_two_players_example_1_the_opponent_acted_first_the_tower_player_acts_twice(
        genoa_base: Program, genoa_2p: Program) -> None:
    """G6 / rules-data "Two-player rules" (b): "whenever the opponent takes an action, the tower
    player may take two actions".  G6 Example 1: "on the first tower field, the opponent makes
    the tower player an offer and it is accepted.  The opponent pays the offer and takes the
    action.  Now the tower player may take two actions."
    Base: after his one action (coach house) P1 can take none at the cathedral — nobody is even
    asked, and its action is lost.  Variant: P1 takes the cathedral too: 2 markers."""
    base = Genoa(genoa_base, 2)
    example_1(base)
    assert "nobody takes the action of the cathedral this turn" in base.s.messages
    assert base.get("markers", 0) == 0 and base.get("acted", 0) == 1
    base.check()

    var = Genoa(genoa_2p, 2)
    example_1(var)
    assert var.pending.prompt == ANSWER and var.labels() == ["do_it_myself", "refuse_all"]
    var.decide(0, "do_it_myself", ANSWER)                    # P1's second action
    assert var.get("acted", 0) == 2 and var.get("extra_spent", 0) == 0
    assert (var.get("markers", 0), var.get("stored_markers", 0)) == (2, 5)
    assert "P1 takes a second action: his opponent has taken one (two-player rule)" \
        in var.s.messages
    var.check()


def test_two_players_the_rule_and_the_extra_action_tile_do_not_use_up_each_other(
        genoa_base: Program, genoa_2p: Program) -> None:
    """G6: "These rules and the special card '1 further action' have no effect on each other!"
    Example 1 with an extra-action tile in P1's hand.  Base: his second action (the cathedral)
    costs the tile.  Variant: it is the two-player rule's, and he keeps the tile."""
    base = Genoa(genoa_base, 2)
    base.give_tiles(0, "extra_action")
    example_1(base)
    assert base.labels() == ["do_it_myself", "refuse_all"]   # with the tile
    base.decide(0, "do_it_myself", ANSWER)
    assert base.tiles(0) == {"starting_space": 1} and base.get("markers", 0) == 2

    var = Genoa(genoa_2p, 2)
    var.give_tiles(0, "extra_action")
    example_1(var)
    var.decide(0, "do_it_myself", ANSWER)
    assert var.tiles(0) == {"starting_space": 1, "extra_action": 1}
    assert var.get("markers", 0) == 2 and var.get("extra_spent", 0) == 0
    var.check()


@pytest.mark.parametrize("acted, spent, tile, may_act, tile_after", [
    (2, 1, 0, True, 0),     # 1 with the allowance + 1 with a tile: the allowance has one left
    (2, 0, 1, True, 0),     # the allowance of two is used up: only with a tile (spent)
    (2, 0, 0, False, 0),    # used up, no tile
])
def test_two_players_tile_actions_are_counted_apart_from_the_allowance(
        genoa_2p: Program, acted: int, spent: int, tile: int, may_act: bool,
        tile_after: int) -> None:
    """The other direction of "no effect on each other": an action paid with a tile does not
    count against the two the rule allows.  Prepared position (as if earlier this turn): P2 has
    acted; P1 has taken `acted` actions, `spent` of them with a tile; the tower stands on the
    cathedral (r4c3)."""
    game = Genoa(genoa_2p, 2)
    game.hand(0)
    game.set("acted", 1, 1)
    game.set("acted", acted, 0)
    game.set("extra_spent", spent, 0)
    if tile:
        game.give_tiles(0, "extra_action")
    game.start("r4c3")
    assert game.pending.player == 0 and game.pending.prompt == ANSWER     # P2 cannot act
    assert ("do_it_myself" in game.labels()) == may_act
    if may_act:
        game.decide(0, "do_it_myself", ANSWER)
        assert game.get("markers", 0) == 2
        assert game.tiles(0).get("extra_action", 0) == tile_after
        assert game.get("extra_spent", 0) == spent + tile
    game.check()


def example_2(game: Genoa) -> None:
    """G6 Example 2 on the board: P1 takes the metals warehouse (r3c1) himself; P2 buys the move
    to the coach house (r4c1) with a pepper and acts there; the tower moves on without deals
    over the street r4c2 to the cathedral (r4c3)."""
    game.hand(0)
    game.hand(1)
    game.give_goods(1, "pepper", "saffron")
    game.start("r3c1")
    game.no_offer(1, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)                   # P1's first action
    game.offer(1, square="r4c1", goods=["pepper"])
    game.answer(0, "accept_offer")                           # P2 acts at the coach house
    assert game.tiles(1) == {"starting_space": 1} and game.get("acted", 1) == 1
    game.quiet_move(0, "r4c2", [1])
    game.quiet_move(0, "r4c3", [1])


def test_two_players_example_2_the_tower_player_acts_again_after_the_opponent(
        genoa_base: Program, genoa_2p: Program) -> None:
    """G6 Example 2: "The tower player takes an action, followed by the opponent taking an
    action.  Now the tower player may take a second action."  Base: the cathedral's action is
    lost.  Variant: P1 takes it (2 markers), no tile needed."""
    base = Genoa(genoa_base, 2)
    example_2(base)
    assert "nobody takes the action of the cathedral this turn" in base.s.messages
    assert base.goods(0) == {"pepper": 1, "silver": 1, "copper": 1}
    assert base.get("markers", 0) == 0
    base.check()

    var = Genoa(genoa_2p, 2)
    example_2(var)
    assert var.labels() == ["do_it_myself", "refuse_all"]
    var.decide(0, "do_it_myself", ANSWER)
    assert var.get("markers", 0) == 2 and var.get("acted", 0) == 2
    var.check()


def test_two_players_no_second_action_before_the_opponent_has_acted(genoa_2p: Program) -> None:
    """The allowance is two only once the opponent has taken an action ("the tower player may
    take two actions if his opponent takes one"): P1 acts at the metals warehouse (r3c1); at
    the coach house (r4c1) P2, who has not acted, offers nothing — and P1 cannot act there."""
    game = Genoa(genoa_2p, 2)
    game.hand(0)
    game.give_goods(1, "pepper")
    game.start("r3c1")
    game.no_offer(1, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)
    game.quiet_move(0, "r4c1", [1])
    game.no_offer(1, kind=HERE)
    assert game.labels() == ["refuse_all", "ask_again"]      # no do_it_myself
    game.check()


def test_two_players_random_games_end_with_the_invariants(genoa_2p: Program) -> None:
    """Random 2-player games (a few seeds): each ends after the rounds of rules-data "Setup"
    (PLACEHOLDER 12 for 2 players); the invariants hold after every decision; every accepted
    offer held a good (rule a); nobody exceeds his allowance (the tower player two, the opponent
    one, besides the actions paid with tiles: rule b); and the second action of rule (b)
    happens."""
    seconds = 0
    # the second action of rule (b) is rare in random play: of seeds 0-39, only 36 has it (since
    # decisions with one option are not asked; before, seed 2 had it)
    for seed in (0, 1, 2, 36):
        dealer = -1
        s = genoa_2p.new_game(2, seed, narrate=True)
        rng = random.Random(seed)
        for _ in range(20_000):
            if s.over:
                break
            genoa_2p.apply(s, rng.randrange(s.pending.count))
            assert genoa_2p.check_invariants(s) == []
            deal = genoa_2p.get(s, "last_deal")              # record Deal: dealer, partner, offer
            if deal is not None:
                assert sum(deal[2][2].values()) >= 1         # Offer.goods
            if genoa_2p.get(s, "nego_dealer") is not None:   # the tower player (until the
                dealer = genoa_2p.get(s, "nego_dealer")    # next turn resets `acted`)
            for p in range(2):
                free = genoa_2p.get(s, "acted", p) - genoa_2p.get(s, "extra_spent", p)
                assert free <= (2 if p == dealer else 1)
        assert isinstance(s.pending, Terminal) and len(s.pending.scores) == 2
        assert genoa_2p.get(s, "round_marker") >= 12
        seconds += sum(1 for m in s.messages if "takes a second action" in m)
    assert seconds > 0


