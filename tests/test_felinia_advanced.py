"""The advanced game of Felinia (rulebooks/variants/felinia_advanced.rules), a variant of the basic
rulebook (rulebooks/felinia.rules): it checks clean, `rule_diff` names what it changes, one
scenario per advanced rule with exact numbers (set up and driven as in
tests/test_felinia_scenarios.py, whose `Game` driver this file reuses), and random games over
seeds and player counts.

Sources quoted in the docstrings:
  seed 004    shared/seeds/004_0dfb577867d3a254.txt (Traditional Chinese; the authority),
              its "(進階版)" (advanced) lines
  choice AN   docs/games/felinia.md, "Variant: advanced game", choices where the seed is ambiguous
  PLACEHOLDER the narrow-coast map of the variant (X_1 harbour, X_2..X_9 trade regions, X_10 a
              secret realm; yields X_2 good, X_3 silver, X_4 gold, X_5 spice, X_6 good, X_7 spice,
              X_8 silver, X_9 gold, X_10 a secret bonus card), the special tokens' colours
              (red 7, 8; yellow 9, 10; green 7, 9; brown 8; purple 10), 10 secret cards "1 ~ 2".

Scoring tests compare, on one prepared position, the base rulebook, the variant without the
special trade token a rule needs (so the base rule applies) and the variant with it.
"""
from __future__ import annotations

import random
from typing import Optional

import pytest
from test_felinia_properties import eager, goods_everywhere, uniform
from test_felinia_scenarios import COLOURS, EMPTY_DAY_2P, GIVE, PLACE, TAKE, WALK, Game

from shipped import shipped_program

from mercator.dsl.loader import load
from mercator.interpreter.tools.designer import rule_diff
from mercator.interpreter.engine.nodes import Decision, Terminal
from mercator.interpreter.engine.program import Program
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.view import observe

BASE = "rulebooks/felinia.rules"
ADVANCED = "rulebooks/variants/felinia_advanced.rules"
MOVE = "merchant: stop here, walk along a road, or spend a provision for one more move"
# the narrow-coast Region enum, in declaration order (red_1 .. purple_10)
REGIONS = [f"{c}_{k}" for c in COLOURS for k in range(1, 11)]
SPECIAL = {"red": [7, 8], "yellow": [9, 10], "green": [7, 9], "brown": [8], "purple": [10]}


@pytest.fixture(scope="module")
def base() -> Program:
    return shipped_program("felinia")


@pytest.fixture(scope="module")
def adv() -> Program:
    return shipped_program("felinia_advanced")


class Advanced(Game):
    """The scenario driver of the basic game, on the narrow-coast board with its face-up tokens.

    Tokens are records [colour, cap, at, rule] (rule 0: an ordinary "1 ~ n" token; 7..10: the
    special token for that scoring rule, cap 0).  They lie face up from the start, in random
    places: a test puts the one it needs on a region by swapping two tokens of that colour."""

    def walker_at(self) -> Optional[str]:
        r = self.get("walker_at")
        return None if r is None else REGIONS[r]

    def posted(self, region: str) -> list:
        """The face-up token on a region."""
        for t in self.get("face_up"):
            if t[2] == self.m(region):
                return t
        raise AssertionError(f"no face-up token on {region}")

    def put(self, region: str, cap: int = 0, rule: int = 0) -> None:
        """Swap the token of this cap and rule of the region's colour onto the region."""
        here = self.posted(region)
        other = next(t for t in self.get("face_up")
                     if t[0] == here[0] and t[1] == cap and t[3] == rule)
        here[2], other[2] = other[2], here[2]

    def settle(self, p: int, *regions: str) -> None:
        """Merchants of p that stayed on these regions earlier, having taken their tokens."""
        for r in regions:
            t = self.posted(r)
            self.get("face_up").remove(t)
            self.get("tokens", p).append(t)
            self.get("occupant")[self.m(r)] = p
            self.set("merchants", self.get("merchants", p) - 1, player=p)

    def give_secret_cards(self, p: int, k: int) -> None:
        """P gets k secret bonus cards from the deck (each marked "1 ~ 2")."""
        deck = self.get("secret_deck")
        deck[2] -= k
        cards = self.get("secret_cards", p)
        cards[2] = cards.get(2, 0) + k

    def score(self) -> tuple:
        return self.prog.result(self.s).scores

    def move(self, player: int, kind: str) -> None:
        self.decide(player, kind, MOVE)

    def walk(self, player: int, *regions: str) -> None:
        for r in regions:
            self.move(player, "walk")
            self.decide(player, r, WALK)


# =====================================================================================
# The variant as a file
# =====================================================================================

def test_the_variant_checks_clean() -> None:
    """`mercator check` on the variant: no error, no warning; the one note is the W292 its walk
    decision allows (`# allow W292: ...`: where another merchant stays, a road on is always
    open); the merged game is named after both."""
    res = load(ADVANCED)
    assert res.ok and res.rulebook is not None
    assert [(d.code, d.severity, d.span.line) for d in res.diagnostics] == \
        [("W292", "info", _line_of(ADVANCED, 'choose p one of walkable(at, steps_left(p, moves))'))]
    assert compile_program(res.rulebook).name == "Felinia — advanced game"


def _line_of(path: str, text: str) -> int:
    """The 1-based number of the one line of a file that contains `text`."""
    rows = [i + 1 for i, line in enumerate(open(path, encoding="utf-8")) if text in line]
    assert len(rows) == 1, rows
    return rows[0]


def test_rule_diff_lists_every_change() -> None:
    """`rule_diff` (what `mercator diff` prints) names exactly the rules the variant changes, adds
    and removes."""
    changes = rule_diff(load(BASE).items, load(ADVANCED).items)
    got = {(c.what, c.kind, c.name) for c in changes}
    changed = {("enum", "Region"), ("enum", "Yield"), ("enum", "MoveKind"), ("record", "TradeToken"),
               ("constant", "trade_spaces"), ("constant", "roads"), ("constant", "region_yield"),
               ("constant", "island_map"),   # the drawing of the narrow coast (PLACEHOLDER)
               ("constant", "total_tokens"), ("function", "move_kinds"),
               ("function", "spice_points"), ("function", "merchant_points"),
               ("function", "set_size"), ("procedure", "setup_tokens"),
               ("procedure", "guild_reward"), ("procedure", "land"), ("procedure", "move_action"),
               ("procedure", "gain_yield"), ("function", "points"), ("game", "game"),
               ("view", "view")}   # extend view: its own rows and labels
    added = {("constant", "special_tokens"), ("constant", "provision_value"),
             ("player field", "provisions"), ("any-time action", "sell_provision"),
             ("function", "can_extend"), ("function", "steps_left"),
             ("function", "passing_through"), ("constant", "secret_bonus_cards"),
             ("table field", "secret_deck"), ("player field", "secret_cards"),
             ("event", "provision_gained"), ("event", "provision_spent"),
             ("event", "secret_card_drawn"), ("statistic", "provisions_gained"),
             ("statistic", "extra_moves"), ("statistic", "secret_cards_drawn"),
             ("invariant", "10 secret bonus cards: in the deck or with the players"),
             ("invariant", "no player has fewer than 0 provisions"),
             ("constant", "rule_provisions"), ("constant", "rule_spices"),
             ("constant", "rule_secret_cards"), ("constant", "rule_lone_merchants"),
             ("function", "has_special"), ("function", "secret_card_points"),
             ("constant", "points_per_provision"), ("function", "provision_points"),
             ("constant", "points_per_spice"), ("constant", "secret_card_extra"),
             ("function", "secret_card_bonus"), ("constant", "lone_merchant_points"),
             ("function", "merchant_worth")}
    removed = {("constant", "tokens_per_reveal"), ("function", "colour_of"),
               ("function", "covered_in"), ("function", "reveal_count"),
               ("procedure", "reveal_tokens")}
    assert got == {("changed",) + k for k in changed} | {("added",) + k for k in added} | \
        {("removed",) + k for k in removed}
    guild = next(c for c in changes if c.name == "guild_reward")
    assert guild.old is not None and guild.new is not None
    assert "p.spice += 1" in guild.old and "p.provisions += 1" in guild.new


# =====================================================================================
# Setup — seed 004 §起始設置 (進階版)
# =====================================================================================

@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_narrow_coast_all_38_tokens_face_up_secret_deck(base: Program, adv: Program, n: int) -> None:
    """seed 004 §起始設置 1: 選擇 ... 反面(進階版、狹長岸)遊戲圖板 (the narrow-coast side: PLACEHOLDER
    map, 10 regions per country).  5: (基本版) 將8片特殊貿易標示物移出遊戲；剩下30片 ... 面朝下 vs
    (進階版) 將總計38片的貿易標示物依照顏色，面朝下分開洗混，隨機蓋在圖板上畫有貿易獎勵的地區後、全數翻開
    (all 38, the 8 special ones included, shuffled by colour onto that colour's trade regions, then
    all turned face up).  6: (進階版) 將秘境加分卡面朝下洗混後，放在一旁；將乾糧、黃金與香料卡分好後放著
    (the secret bonus cards face down; provisions in the supply).  Everything else as the base."""
    b, a = Game(base, n, empty_rows=False), Advanced(adv, n, empty_rows=False)
    # the base: 30 face down, none face up
    assert len(b.get("face_down")) == 30 and b.get("face_up") == []
    # the variant: nothing face down, 38 face up, one on each trade region of its colour
    assert a.get("face_down") == [] and a.get("covered") == []
    up = a.get("face_up")
    assert len(up) == 38
    spaces = adv.consts["trade_spaces"]
    for c in COLOURS:
        mine = [t for t in up if t[0] == a.m(c)]
        assert sorted(t[2] for t in mine) == sorted(spaces[a.m(c)])
        assert sorted(t[1] for t in mine if t[3] == 0) == [1, 2, 2, 3, 3, 4]      # the basic 30
        assert sorted(t[3] for t in mine if t[3] != 0) == SPECIAL[c]              # the special 8
        assert all(t[1] == 0 for t in mine if t[3] != 0)
    assert sorted(t[3] for t in up if t[3]) == [7, 7, 8, 8, 9, 9, 10, 10]
    # the narrow coast: 10 regions per country, the harbours where the base has them
    assert list(adv.rb.member_of["red_1"][0].members) == REGIONS
    assert [adv.consts["harbour"][a.m(c)] for c in COLOURS] == [a.m(f"{c}_1") for c in COLOURS]
    # the secret bonus deck: 10 face-down cards; nobody holds one or a provision yet
    assert a.get("secret_deck") == {2: 10}
    assert all(a.get("secret_cards", p) == {} and a.get("provisions", p) == 0 for p in range(n))
    # the rest of the setup is the base's: money, merchants, starting goods, ships, bonus cards
    for p in range(n):
        assert a.goods(p) == b.goods(p) and a.get("silver", p) == 2 and a.get("merchants", p) == 12
    assert len(a.get("ship_deck")) == 16 and len(a.get("ships")) == 4
    assert a.named(a.get("bonus_supply"), COLOURS) == {c: 1 for c in COLOURS}
    a.check()


def test_secret_bonus_cards_are_seen_by_their_owner_only(adv: Program) -> None:
    """seed 004 §起始設置 6: 秘境加分卡面朝下 (face down): a player sees what his own cards show; the
    others see only how many he has; the deck is secret to all."""
    game = Advanced(adv, 3)
    game.give_secret_cards(0, 2)
    game.ready()
    mine, theirs = observe(adv, game.s, 0), observe(adv, game.s, 1)
    assert mine["players"][0]["secret_cards"] == {"2": 2}
    assert theirs["players"][0]["secret_cards"] == {"hidden": True, "size": 2}
    assert mine["table"]["secret_deck"] == {"hidden": True, "size": 8}
    assert theirs["players"][0]["provisions"] == 0                 # provisions are public


# =====================================================================================
# Provisions — seed 004 §遊戲回合 1) a., 2), 3) b.
# =====================================================================================

def _guild_day(game: Game) -> None:
    game.set_player(0, silver=3, goods={"books": 1})
    game.set_player(1, silver=2, goods={})
    game.ready()
    game.place_all([["guild", "income"], ["market_3", "market_3"], ["market_5", "market_5"]])
    game.decide(0, "books", GIVE)
    game.decide(0, "cloth", TAKE)


def test_a_guild_trade_gives_a_provision_instead_of_a_spice(base: Program, adv: Program) -> None:
    """seed 004 §遊戲回合 2) 交易: 拿一片自己的物資標示物與袋子中任一枚交換；然後根據商會的行動得到額外
    的好處 (基本版) 得到 +1香料 (進階版) 得到 +1乾糧.  The same trade, price 1, in both games."""
    b, a = Game(base, 2), Advanced(adv, 2)
    _guild_day(b)
    _guild_day(a)
    assert b.goods(0) == a.goods(0) == {"cloth": 1}
    assert b.silver()[0] == a.silver()[0] == 2
    assert (b.get("spice", 0), a.get("spice", 0), a.get("provisions", 0)) == (1, 0, 1)
    a.check()


def test_a_provision_sells_for_zero_silver(base: Program, adv: Program) -> None:
    """seed 004 §遊戲回合 1) a.: 玩家手上所擁有的物資也可以隨時兌換成資金: 黃金 = +2銀幣, 香料 = +1銀幣,
    其他物資 = +1銀幣, (進階版) 乾糧 = +0銀幣.  (A provision may be converted at any time, for 0
    silver; a spice still gives 1.)  The base has no provisions: no such action."""
    b = Game(base, 2)
    b.set_player(0, silver=3, spice=1)
    b.ready()
    assert [o.label for o in b.pending.options if o.action is not None][-1] == "sell_spice"
    game = Advanced(adv, 2)
    game.set_player(0, silver=3, spice=1, provisions=2)
    game.ready()
    assert [o.label for o in game.pending.options][-2:] == ["sell_spice", "sell_provision"]
    game.decide(0, "sell_provision", PLACE)
    assert game.silver()[0] == 3 and game.get("provisions", 0) == 1
    assert "P1 converts a provision to 0 silver" in game.s.messages
    game.decide(0, "sell_spice", PLACE)
    assert game.silver()[0] == 4 and game.get("spice", 0) == 0
    assert game.pending.prompt == PLACE and game.pending.player == 0      # asked again
    game.check()


def test_a_provision_buys_one_more_move(adv: Program) -> None:
    """seed 004 §遊戲回合 3): 執行該玩家商人標示物的著陸與最多3次的移動行動 ... b. (進階版) 玩家每消耗1乾糧
    就可以換得1次額外的行動; c. 沿著道路移動，每移動1步花費1點移動行動.  (Up to 3 moves, and one more
    for each provision spent — choice A1: offered when his moves are spent and a road leads on.)
    No revealing: every token is already face up.  P1 lands at red_1 with 2 provisions; the
    secret realm red_10 is 4 steps away by red_2, red_3, red_7 (PLACEHOLDER map)."""
    game = Advanced(adv, 2)
    game.set_player(0, provisions=2)
    game.set_ships([(1, [0, None]), (12, [None]), (13, [None]), (14, [None])])
    game.ready()
    game.place_all(EMPTY_DAY_2P)
    assert game.walker_at() == "red_1" and game.labels() == ["stop", "walk"]   # no "reveal"
    game.walk(0, "red_2", "red_3", "red_7")
    # three moves spent: stop, or spend a provision
    assert game.labels() == ["stop", "provision"]
    game.move(0, "provision")
    assert game.get("provisions", 0) == 1 and game.labels() == ["stop", "walk"]
    game.walk(0, "red_10")
    assert game.labels() == ["stop", "provision"]       # one provision left
    game.move(0, "stop")
    # the secret realm: a secret bonus card from the deck (choice A3); no token: he comes back
    # the deck's 10 cards are all alike ("1 ~ 2"): one outcome, drawn without a chance node
    assert game.get("secret_cards", 0) == {2: 1} and game.get("secret_deck") == {2: 9}
    assert game.get("provisions", 0) == 1 and game.get("merchants", 0) == 12
    assert "P1 spends a provision for one more move" in game.s.messages
    assert [p for p, prompt in game.asked if prompt == MOVE] == [0] * 6
    game.check()


def test_without_a_provision_the_merchant_stops_after_three_moves(adv: Program) -> None:
    """seed 004 §遊戲回合 3): 最多3次的移動行動 — the contrast: with no provision, after three steps
    (red_2, red_3, red_7) the merchant stops without being asked.  red_7 gives a spice and, as
    every token lies face up, is a trade post (※...就將貿易標示物拿到手上、然後將商人留在該處)."""
    game = Advanced(adv, 2)
    game.set_ships([(1, [0, None]), (12, [None]), (13, [None]), (14, [None])])
    game.ready()
    token = game.posted("red_7")
    game.place_all(EMPTY_DAY_2P)
    game.walk(0, "red_2", "red_3", "red_7")
    assert not (isinstance(game.pending, Decision) and game.pending.prompt == MOVE)
    assert game.get("spice", 0) == 1 and game.get("tokens", 0) == [token]
    assert game.get("occupant") == {game.m("red_7"): 0} and game.get("merchants", 0) == 11
    assert [p for p, prompt in game.asked if prompt == MOVE] == [0] * 3
    game.check()


def test_a_provision_carries_a_merchant_through_a_region_where_another_stays(adv: Program) -> None:
    """seed 004 §遊戲回合 3): ※每一區域最多只能停留1名商人; b. (進階版) 玩家每消耗1乾糧就可以換得1次額外的
    行動.  (At most one merchant may stay in a region; each provision spent buys one more move.)
    Choice 13 (base) and A13: he may pass through a region where another merchant stays, never
    stop there; his provisions count as steps to come, and he cannot sell one while he stands
    there.  P2 stays on red_4 and red_8; P1 (1 provision, 1 book, 2 silver) lands at red_1 and
    walks red_2, red_3, red_4; his provision takes him on to red_5 (spice, a trade post).
    PLACEHOLDER map: red_1–red_2–red_3–red_4–red_5, red_3–red_7, red_4–red_8 ..."""
    game = Advanced(adv, 2)
    game.settle(1, "red_4", "red_8")
    game.set_player(0, provisions=1, silver=2, goods={"books": 1})
    game.set_ships([(1, [0, None]), (12, [None]), (13, [None]), (14, [None])])
    game.ready()
    token = game.posted("red_5")
    game.place_all(EMPTY_DAY_2P)
    game.walk(0, "red_2")
    game.move(0, "walk")
    game.decide(0, "red_3", WALK)
    assert "sell_provision" in [o.label for o in game.pending.options]   # nobody stays on red_3
    game.move(0, "walk")
    assert game.labels() == ["red_2", "red_4", "red_7"]   # red_4: 1 move + 1 provision = 2 steps
    game.decide(0, "red_4", WALK)
    assert game.labels() == ["provision"]              # moves spent, and P2 stays here: no "stop"
    assert [o.label for o in game.pending.options if o.action is not None] == ["sell_good(books)"]
    game.move(0, "provision")
    assert game.labels() == ["walk"]
    game.decide(0, "walk", MOVE)
    assert game.labels() == ["red_3", "red_5"]         # not red_8: P2 stays there, and no step is left
    game.decide(0, "red_5", WALK)                      # no move, no provision: he stops on red_5
    assert game.get("spice", 0) == 1 and game.get("provisions", 0) == 0
    assert game.get("tokens", 0) == [token] and game.get("merchants", 0) == 11
    assert game.get("occupant") == {game.m("red_4"): 1, game.m("red_8"): 1, game.m("red_5"): 0}
    assert game.get("gold", 0) == 0                    # red_4 (gold) passed: nothing
    game.check()


def test_without_a_provision_the_last_move_cannot_enter_a_region_where_another_stays(adv: Program) -> None:
    """seed 004 §遊戲回合 3): 最多3次的移動行動; ※每一區域最多只能停留1名商人 — the contrast: with no
    provision, from red_3 with 1 move left the road to red_4, where P2 stays, is closed (he would
    end there); red_2 and red_7 stay open."""
    game = Advanced(adv, 2)
    game.settle(1, "red_4", "red_8")
    game.set_ships([(1, [0, None]), (12, [None]), (13, [None]), (14, [None])])
    game.ready()
    game.place_all(EMPTY_DAY_2P)
    game.walk(0, "red_2")
    game.move(0, "walk")
    assert game.labels() == ["red_1", "red_3", "red_6"]
    game.decide(0, "red_3", WALK)
    game.move(0, "walk")
    assert game.labels() == ["red_2", "red_7"]
    game.decide(0, "red_7", WALK)                      # red_7: spice, a trade post
    assert game.get("spice", 0) == 1 and game.get("merchants", 0) == 11
    assert game.get("occupant") == {game.m("red_4"): 1, game.m("red_8"): 1, game.m("red_7"): 0}
    game.check()


def test_a_merchant_stays_on_a_special_token(adv: Program) -> None:
    """seed 004 §遊戲回合 3): ※如果玩家有得到一片貿易標示物，就將貿易標示物拿到手上、然後將商人留在該處 —
    the special tokens are trade tokens too: stopping on one, he takes it and his merchant stays."""
    game = Advanced(adv, 2)
    game.put("red_2", rule=7)
    game.set_ships([(1, [0, None]), (12, [None]), (13, [None]), (14, [None])])
    game.ready()
    game.place_all(EMPTY_DAY_2P)
    game.walk(0, "red_2")
    game.move(0, "stop")
    game.chance("wine")                                 # red_2 gives a good
    assert game.get("tokens", 0) == [[game.m("red"), 0, game.m("red_2"), 7]]
    assert game.get("occupant") == {game.m("red_2"): 0} and game.get("merchants", 0) == 11
    game.check()


# =====================================================================================
# Scoring — seed 004 §遊戲結束 (進階版) 6–10
# =====================================================================================

def test_rule_6_secret_bonus_cards_m_each_at_most_2(base: Program, adv: Program) -> None:
    """seed 004 §遊戲結束 6. 每有 m 張標示 1 ~ 2 分的秘境加分卡，每張秘境加分卡就值 = +m分 (最多2)
    (with m secret bonus cards, each is worth m, at most 2: 1 card 1, 2 cards 2 × 2, 3 cards
    3 × 2).  P1 also has 2 gold (rule 1), which both games count; the base has no secret cards."""
    b = Game(base, 2)
    b.set_player(0, goods={}, gold=2)
    b.set_player(1, goods={})
    b.ready()
    assert b.prog.result(b.s).scores == (2, 0)
    game = Advanced(adv, 2)
    game.set_player(0, goods={}, gold=2)
    game.set_player(1, goods={})
    game.ready()
    got = []
    for _ in range(4):
        got.append(game.score()[0])
        game.give_secret_cards(0, 1)
    assert got == [2 + 0, 2 + 1, 2 + 2 * 2, 2 + 3 * 2]
    game.check()


def test_rule_7_provisions_score_2_each_with_the_special_token(adv: Program) -> None:
    """seed 004 §遊戲結束 7. (需拿到對應的特殊貿易標示物) 每1個乾糧 = +2分 (with the matching special
    trade token, each provision is worth 2; without it nothing — the base has no provisions).
    P1 holds 3 provisions.  With the token, his merchant on it counts too (rule 4: a lone
    merchant, 1).  A second rule-7 token adds nothing more (choice A5)."""
    game = Advanced(adv, 2)
    game.put("red_2", rule=7)
    game.put("green_3", rule=7)
    game.set_player(0, goods={}, provisions=3)
    game.set_player(1, goods={})
    game.ready()
    assert game.score() == (0, 0)                       # the base rule: provisions score nothing
    game.settle(0, "red_2")
    assert game.score() == (3 * 2 + 1, 0)
    game.settle(0, "green_3")
    assert game.score() == (3 * 2 + 1 + 1, 0)
    game.check()


def test_rule_8_every_spice_scores_1_with_the_special_token(base: Program, adv: Program) -> None:
    """seed 004 §遊戲結束 8. (需拿到對應的特殊貿易標示物) 每1個香料 = +1分 (原本：+2分) — rule 2 gives 1
    point per 2 spices; with the special token every spice scores 1 (choice A8).  P1: 5 spices.
    With the token, his merchant on it counts too (rule 4, a lone merchant: 1)."""
    b = Game(base, 2)
    b.set_player(0, goods={}, spice=5)
    b.set_player(1, goods={})
    b.ready()
    assert b.prog.result(b.s).scores == (5 // 2, 0)
    game = Advanced(adv, 2)
    game.put("brown_4", rule=8)
    game.set_player(0, goods={}, spice=5)
    game.set_player(1, goods={})
    game.ready()
    assert game.score() == (5 // 2, 0)                  # without the token: as the base
    game.settle(0, "brown_4")
    assert game.score() == (5 + 1, 0)
    game.check()


def test_rule_9_each_secret_card_one_more_with_the_special_token(adv: Program) -> None:
    """seed 004 §遊戲結束 9. (需拿到對應的特殊貿易標示物) 每張秘境加分卡都可以再多 = +1分 (with the
    special token every secret bonus card is worth 1 more).  P1: 3 secret cards (rule 6: 3 × 2).
    With the token, his merchant on it counts too (rule 4, a lone merchant: 1)."""
    game = Advanced(adv, 2)
    game.put("yellow_5", rule=9)
    game.give_secret_cards(0, 3)
    game.set_player(0, goods={})
    game.set_player(1, goods={})
    game.ready()
    assert game.score() == (3 * 2, 0)
    game.settle(0, "yellow_5")
    assert game.score() == (3 * 2 + 3 * 1 + 1, 0)
    game.check()


def test_rule_10_lone_merchants_score_2_with_the_special_token(base: Program, adv: Program) -> None:
    """seed 004 §遊戲結束 10. (需拿到對應的特殊貿易標示物) 地圖上落單的商人 = +2分 (原本：+1分) (a merchant
    with no connected merchant of his owner scores 2 instead of 1; rule 4 still gives a group of n
    n each).  P1 stays on red_2–red_3 (a group of 2; tokens n = 1, 2), yellow_4 (alone; n = 1) —
    connected the same way on both boards — and on yellow_9 (alone), where the variant puts a
    special token: rule 9's (no effect: he has no secret card) or rule 10's."""
    # the base: 2 × 2 + 1 for the merchants; red set m = 2: 1 + 2, yellow m = 1: 1
    b = Game(base, 2)
    b.set_caps({"red_2": 1, "red_3": 2, "yellow_4": 1})
    b.settle(0, "red_2", "red_3", "yellow_4")
    b.set_player(0, goods={})
    b.set_player(1, goods={})
    b.ready()
    assert b.prog.result(b.s).scores == (2 * 2 + 1 + (1 + 2) + 1, 0)
    def position(rule: Optional[int]) -> Advanced:
        game = Advanced(adv, 2)
        game.put("red_2", cap=1)
        game.put("red_3", cap=2)
        game.put("yellow_4", cap=1)
        game.settle(0, "red_2", "red_3", "yellow_4")
        if rule is not None:
            game.put("yellow_9", rule=rule)
            game.settle(0, "yellow_9")
        game.set_player(0, goods={})
        game.set_player(1, goods={})
        game.ready()
        return game

    assert position(None).score() == (2 * 2 + 1 + (1 + 2) + 1, 0)    # the same as the base
    assert position(9).score() == (2 * 2 + 1 + 1 + (1 + 2) + 1, 0)   # rule 9's token: lone = 1
    game = position(10)                                              # rule 10's: lone = 2
    assert game.score() == (2 * 2 + 2 + 2 + (1 + 2) + 1, 0)
    game.check()


def test_special_tokens_do_not_count_in_colour_sets(adv: Program) -> None:
    """seed 004 §遊戲結束 5. 每有 m 片標示 1 ~ n 分的同色貿易標示物，每片貿易標示物就值 = +m分 (最多n) —
    only the "1 ~ n" tokens: a special token is not one, scores nothing in rule 5 and does not
    raise m (choice A6).  P1: red n = 2 and 3 (m = 2: 2 + 2) and the red rule-8 token; his three
    merchants stand apart (3 × 1)."""
    game = Advanced(adv, 2)
    game.put("red_2", cap=2)
    game.put("red_4", cap=3)
    game.put("red_9", rule=8)
    game.settle(0, "red_2", "red_4", "red_9")
    game.set_player(0, goods={})
    game.set_player(1, goods={})
    game.ready()
    assert game.score() == ((2 + 2) + 3, 0)
    game.check()


# =====================================================================================
# Random games — every game ends, the invariants hold
# =====================================================================================

def _play(prog: Program, n: int, seed: int, agent) -> tuple:
    """A random game to the end, checking after every decision; returns the state and what the
    game did with provisions and secret cards."""
    s = prog.new_game(n, seed)
    rng = random.Random(seed)
    seen = {"provisions": 0, "secret": 0}
    for _ in range(6000):
        if s.over:
            return s, seen
        prog.apply(s, agent(rng, s.pending))
        assert prog.check_invariants(s) == []
        assert goods_everywhere(prog, s) == {g: 12 for g in range(5)}
        for p in range(n):
            assert 0 <= prog.get(s, "silver", player=p) <= 6
            assert prog.get(s, "provisions", player=p) >= 0
            seen["provisions"] = max(seen["provisions"], prog.get(s, "provisions", player=p))
        cards = sum(sum(prog.get(s, "secret_cards", player=p).values()) for p in range(n))
        assert cards + sum(prog.get(s, "secret_deck").values()) == 10
        seen["secret"] = max(seen["secret"], cards)
    raise AssertionError("the game did not end within 6000 decisions")


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_games_end_with_the_invariants_kept(adv: Program, n: int, seed: int) -> None:
    """Random games (uniform and eager players, tests/test_felinia_properties.py) on seeds 1–3 with
    2–4 players: after every decision the invariants hold (money 0..6, 60 goods, 38 tokens, 12
    merchants each, 10 secret cards, provisions ≥ 0); every game ends by one of seed 004
    §遊戲流程's two conditions; merchants stay only on tokens they took."""
    for agent in (uniform, eager):
        s, _ = _play(adv, n, seed, agent)
        res = s.pending
        assert isinstance(res, Terminal) and len(res.scores) == n and res.winners
        assert adv.get(s, "last_merchant_boarded") or adv.get(s, "fleet_exhausted")
        occupant = adv.get(s, "occupant")
        for p in range(n):
            taken = {t[2] for t in adv.get(s, "tokens", player=p)}
            assert {r for r, q in occupant.items() if q == p} <= taken
        assert len(adv.get(s, "face_up")) + sum(len(adv.get(s, "tokens", player=p))
                                                for p in range(n)) == 38


def test_random_play_reaches_the_advanced_rules(adv: Program) -> None:
    """Over a few eager games, players do gain provisions and draw secret bonus cards (the
    property test above is not vacuous for the new rules)."""
    seen = [_play(adv, 4, seed, eager)[1] for seed in range(1, 7)]
    assert max(x["provisions"] for x in seen) > 0
    assert max(x["secret"] for x in seen) > 0


def test_the_bots_estimate_counts_the_advanced_scoring_too(adv: Program) -> None:
    """The variant replaces fn points, which the base's score and its bots' estimate both start
    from, so rule 6's secret cards count in the estimate as in the score: with 2 gold and then
    1, 2, 3 secret cards, the score goes 2, 3, 6, 8 and the estimate (in twelfths of a point)
    rises by as much."""
    game = Advanced(adv, 2)
    game.set_player(0, goods={}, gold=2)
    game.set_player(1, goods={})
    game.ready()
    scores, estimates = [], []
    for _ in range(4):
        scores.append(game.score()[0])
        estimates.append(adv.estimated(game.s).scores[0])
        game.give_secret_cards(0, 1)
    assert scores == [2, 3, 6, 8]
    assert [e - estimates[0] for e in estimates] == [0, 12, 48, 72]
