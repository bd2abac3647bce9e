"""Scenario tests of Die Händler (rulebooks/die_haendler.rules): one rule per test, exact numbers.

Every test drives the rulebook through its real decisions, with explicit chance (the only chance
in the game is the draw of a green influence card, chosen by the test).  The red cards are first
distributed by the real setup auction: the card at the front of the queue goes to seat
(cards sold so far) mod n, who bids its minimum (500) while everybody else passes.

`Game.prepare` only sets up a position (money, warehouses, cargo, wagons, prices, red cards,
levels) while a decision is pending, and then recomputes that decision's options
(`prog.resume`); it never does what the rule under test should do.  Most tests take the red
cards away from everybody (into the box) so that no ability adds decisions the test is not
about.

Sources quoted in the docstrings:
  seed 002    shared/seeds/002_a0cd303d4f1be086.txt (Traditional Chinese; the authority)
  rules-data  shared/rules-data/die_haendler.md
  choice N    docs/games/die_haendler.md, "Choices where the rules are ambiguous"

The price table is the printed one (rules-data "Board" [H12 | MED]): steps 0..4, buy 100, 100,
200, 300, 400, sell 600, 700, 800, 900, 1000.  Defaults the tests rely on (PLACEHOLDER data of
the rulebook): roads paris-r1-r2-r3-koeln, koeln-r4..r7-city4, city4-r8..r10-genua,
genua-r11..r15-city5 (r13 a fork), city5-r16..r18-city6, city6-r19..r22-paris, and the
cross-road r2-r23-r24-r25-r13; wagon1 in paris, wagon2 in koeln, wagon3 in genua; the courier
on r24; upkeep by level 0, 200, 300, 400, 500, 600, 800, 1000; climb cost by round-track
position 1000, 1200, ..., 2800 (position = marker + 1).
"""
from __future__ import annotations

from typing import Any, Optional

import pytest

from game_driver import ScenarioGame
from shipped import shipped_program

from mercator.interpreter.engine.nodes import Chance, Decision, Terminal
from mercator.interpreter.engine.program import Program


GOODS = ("cloth", "iron", "wine", "food", "silk", "salt")
WAGONS = ("wagon1", "wagon2", "wagon3")
CITIES = ("paris", "koeln", "genua", "city4", "city5", "city6")
RED = ("kurier", "express_kurier", "kontor", "grosses_kontor",
       "wagnerei", "grosse_wagnerei", "guenstiger_einkauf", "lagerverkauf")

BID = "bid (or pass)"
TAKE_RED = "take a red card at its minimum price"
BUY = "buy a barrel (or stop)"
SEALED = "sealed bid (or pass)"
OWN_LOAD = "load up to 3 barrels of one good (or pass)"
GUEST_LOAD = "ask to load up to 2 barrels of other goods (or pass)"
FREE_LOAD = "play Kostenlose Zuladung to load for free?"
FEE = "name the fee for loading"
ACCEPT = "pay the fee and load?"
AXLE = "play Achsenbruch on a wagon (or pass)"
MENU = "your turn: what next?"
MOVE = "move a wagon: tile, wagon and route"
WAGNEREI = "Wagnerei: move a wagon (or pass)"
KURIER = "Kurier: move the courier (or pass)"
DIAL = "price wheel: the goods your two pointers raise (none: both on your arms)"
KONTOR = "Kontor: move one price one step (or pass)"
LAGER = "Lagerverkauf: sell a barrel at the buy price (or stop)"
SONDER = "Sonder-Verkauf: sell one barrel for 800 (or pass)"
BONUS_CARD = "play Verkauf mit Bonus on this sale?"
LOAN = "take a loan of 2000 (repay 2500)?"
CLIMB = "climb the social ladder"

# what a player does when a test does not say: pass, stop, decline, end his turn, stay
DEFAULT_ANSWER = {
    BID: "pass", TAKE_RED: 0, BUY: "pass", SEALED: "pass", OWN_LOAD: "pass", GUEST_LOAD: "pass",
    FREE_LOAD: "no", FEE: "0", ACCEPT: "no", AXLE: "pass", KONTOR: "pass", LAGER: "pass",
    SONDER: "pass", BONUS_CARD: "no", LOAN: "no", CLIMB: "{levels: 0, with_card: false}",
    DIAL: "[]", WAGNEREI: "pass", KURIER: "pass",
}


@pytest.fixture(scope="module")
def prog() -> Program:
    return shipped_program("die_haendler")


class Game(ScenarioGame):
    """One Die Händler game with explicit chance, driven decision by decision."""

    def __init__(self, prog: Program, n: int = 2, auction: bool = True):
        self.prog = prog
        self.n = n
        self.s = prog.new_game(n, seed=0, narrate=True, explicit_chance=True)
        self.asked: list[tuple[int, str, str]] = []      # (player, prompt, answer)
        if auction:
            self.default_red_auction()

    # ---------------------------------------------------------------- names <-> values
    def nm(self, enum: str, value: int) -> str:
        return self.prog.rb.enums[enum].members[value]

    def money(self, p: Optional[int] = None) -> Any:
        if p is None:
            return [self.get("money", q) for q in range(self.n)]
        return self.get("money", p)

    def bag(self, b: dict, enum: str = "Good") -> dict:
        """A bag as {name: count}."""
        return {self.nm(enum, k): v for k, v in sorted(b.items())}

    def warehouse(self, p: int, city: str) -> dict:
        return self.bag(self.get("warehouse", p)[self.m(city)])

    def cargo(self, p: int, wagon: str) -> dict:
        return self.bag(self.get("cargo", p)[self.m(wagon)])

    def step(self) -> dict:
        return {g: self.get("step")[self.m(g)] for g in GOODS}

    def bonus(self) -> dict:
        return {c: self.get("bonus")[self.m(c)] for c in CITIES}

    def wagon_at(self, w: str) -> str:
        return self.nm("Place", self.get("wagon_at")[self.m(w)])

    def red(self, p: int) -> list[str]:
        return [self.nm("Red", v) for v in self.get("red", p)]

    def influence(self, p: int) -> dict:
        return self.bag(self.get("influence", p), "Influence")

    @property
    def round(self) -> int:
        return self.s.round

    # ---------------------------------------------------------------- preparing a position
    def prepare(self, **fields: Any) -> None:
        """Set table fields (name=value) and player fields (name={player: value}), then
        recompute the pending decision.  Names of goods, places, wagons and cards are turned
        into their values."""
        for name, value in fields.items():
            if name in PLAYER_FIELDS:
                for p, v in value.items():
                    self.prog.set(self.s, name, self.encode(name, v), player=p)
            else:
                self.prog.set(self.s, name, self.encode(name, value))
        # keep the books: the bank holds what the players do not; the supply holds the goods
        # nobody has (unless the test set it)
        if "money" in fields:
            self.prog.set(self.s, "bank", 1_000_000 - sum(self.money()))
        if ("warehouse" in fields or "cargo" in fields) and "supply" not in fields:
            held = {g: 0 for g in range(len(GOODS))}
            for p in range(self.n):
                for b in list(self.get("warehouse", p).values()) + \
                        list(self.get("cargo", p).values()):
                    for g, c in b.items():
                        held[g] += c
            self.prog.set(self.s, "supply", {g: 9 - c for g, c in held.items() if c < 9})
        self.prog.resume(self.s)

    def encode(self, field: str, v: Any) -> Any:
        if field in ("warehouse", "cargo"):
            keys = CITIES if field == "warehouse" else WAGONS
            out: dict = {self.m(k): {} for k in keys}
            for k, goods in v.items():
                out[self.m(k)] = {self.m(g): c for g, c in goods.items() if c}
            return out
        if field in ("supply", "influence", "influence_deck", "influence_discard"):
            return {self.m(g): c for g, c in v.items() if c}
        if field in ("step", "bonus", "wagon_at", "wagon_prev", "arrived", "broken", "carded",
                     "wagon_owner"):
            full = dict(self.get(field))
            for k, x in v.items():
                full[self.m(k)] = self.m(x) if isinstance(x, str) else x
            return full
        if field in ("red", "red_box", "red_queue"):
            return [self.m(r) for r in v]
        if field == "courier":
            return self.m(v)
        return v

    def red_cards(self, hands: dict[int, list[str]]) -> None:
        """Give each player exactly these red cards; all others go back to the box."""
        held = {r for cards in hands.values() for r in cards}
        self.prepare(red={p: hands.get(p, []) for p in range(self.n)},
                     red_box=[r for r in RED if r not in held])

    # ---------------------------------------------------------------- acting
    def asked_entry(self, node: Decision, label: Any) -> tuple:
        return (node.player, node.prompt, str(label))

    def after_decision(self) -> None:
        self.check()

    def default(self) -> None:
        """Answer the pending decision the default way (DEFAULT_ANSWER; a menu ends the turn if
        it can, else moves with the first tile move)."""
        node = self.s.pending
        assert isinstance(node, Decision), node
        if node.prompt == MENU:
            ans: Any = "end_turn" if "end_turn" in self.labels() else "move_with_tile"
        elif node.prompt == MOVE:
            ans = 0
        else:
            ans = DEFAULT_ANSWER[node.prompt]
        self.decide(node.player, ans)

    def until(self, prompt: str, player: Optional[int] = None) -> None:
        """Answer every decision the default way until `prompt` (for `player`) is pending."""
        for _ in range(2000):
            node = self.s.pending
            assert not isinstance(node, Terminal), f"the game ended before {prompt!r}"
            if isinstance(node, Decision) and node.prompt == prompt and \
                    (player is None or node.player == player):
                return
            if isinstance(node, Chance):
                self.chance(node.options[0].label)
            else:
                self.default()
        raise AssertionError(f"{prompt!r} never came")

    def finish_round(self) -> None:
        """Default answers until the next round's first decision (or the end)."""
        rn = self.round
        for _ in range(2000):
            if isinstance(self.s.pending, Terminal) or self.round > rn:
                return
            if isinstance(self.s.pending, Chance):
                self.chance(self.s.pending.options[0].label)
            else:
                self.default()
        raise AssertionError("the round never ended")

    def default_red_auction(self) -> None:
        """The setup auction: the front card goes to seat (cards sold) mod n, who bids its
        minimum while the others pass; a sole remaining buyer takes the front card."""
        while True:
            node = self.s.pending
            if not isinstance(node, Decision) or node.prompt not in (BID, TAKE_RED):
                return
            sold = sum(len(self.get("red", q)) for q in range(self.n))
            if node.prompt == TAKE_RED:
                self.decide(node.player, 0)
            elif node.player == sold % self.n and self.get("auction_leader") is None:
                self.decide(node.player, self.labels()[1])       # the minimum
            else:
                self.decide(node.player, "pass")

    def no_red_cards(self) -> None:
        """Everybody's red cards back to the box (a position without abilities)."""
        self.red_cards({})

    def check(self) -> None:
        """The rulebook's invariants hold."""
        assert self.prog.check_invariants(self.s) == []


INFLUENCE = ("kostenlose_zuladung", "achsenbruch", "sonder_verkauf", "verkauf_mit_bonus",
             "sozialer_aufstieg")
PLAYER_FIELDS = ("money", "level", "loans", "borrowed_this_round", "upkeep_paid", "tiles", "red", "influence",
                 "warehouse", "cargo")


# =====================================================================================
# Setup
# =====================================================================================

def test_setup_money_goods_prices_wagons_bonuses_cards(prog: Program) -> None:
    """seed 002 §準備事項: 將馬車放置在 Paris, Koln 及 Genua ... 放置一個木塊在 0 元的地方, 而起始時
    沒馬車的城市則將木塊放置在 200 元的位置 ... 將每一種貨物的一個木塊放在價格表上 ... 將一個灰色的
    木塊放在回合的狀態表最下方 ... 每位玩家也收到一組數字, 號碼是 1 - 4 ... 每位玩家收到 5,000 元現金.
    (Wagons in Paris, Köln, Genua; bonus 0 where a wagon stands, 200 elsewhere; one marker per good
    on the price table — the lowest row, rules-data "Board" [H1,H3,H4 | HIGH]; round marker at the
    bottom; tiles 1–4; 5,000 each; 15 green cards face down; 8 Kredit cards.)  The setup auction
    has not begun: P1, the start player (最年輕的玩家先當起始玩家, seat P1), bids first."""
    game = Game(prog, 3, auction=False)
    assert game.money() == [5000, 5000, 5000]
    assert game.get("bank") + sum(game.money()) == 1_000_000
    assert game.bag(game.get("supply")) == {g: 9 for g in GOODS}
    assert game.step() == {g: 0 for g in GOODS}
    assert {w: game.wagon_at(w) for w in WAGONS} == \
        {"wagon1": "paris", "wagon2": "koeln", "wagon3": "genua"}
    assert game.bonus() == {"paris": 0, "koeln": 0, "genua": 0,
                            "city4": 200, "city5": 200, "city6": 200}
    assert game.get("round_marker") == 0
    assert [game.get("tiles", p) for p in range(3)] == [[1, 2, 3, 4]] * 3
    assert [game.get("level", p) for p in range(3)] == [0, 0, 0]
    assert game.bag(game.get("influence_deck"), "Influence") == {k: 3 for k in INFLUENCE}
    assert game.get("loan_cards") == 8
    assert game.nm("Place", game.get("courier")) == "r24"
    node = game.pending
    assert node.player == 0 and node.prompt == BID
    assert game.labels()[:3] == ["pass", "500", "600"]
    assert "auction of the red card kurier from 500" in game.s.messages
    game.check()
    for bad in (1, 5):
        with pytest.raises(ValueError):
            prog.new_game(bad, seed=0)


def test_red_card_auction_unsold_card_to_the_back_last_card_at_its_minimum(prog: Program) -> None:
    """seed 002 §特殊卡: 每張卡片的底價均在下方, 每位玩家僅可以購買二張, 出價最高的得標, 若都沒人喊價
    時則將這張卡片移到最後再進行拍賣, 最後一張卡則以底價賣給最後一位玩家.  (Minimum prices; each
    player buys exactly two; the highest bid wins; a card nobody bids on goes to the back; the last
    card goes to the last player at its minimum.)  rules-data: minimum 500 each (PLACEHOLDER);
    choice 2: an open auction from the start player in steps of 100."""
    game = Game(prog, 4, auction=False)
    # kurier: P1 500, P2 600, P3 pass, P4 pass, P1 700, P2 pass -> P1 for 700
    game.decide(0, "500", BID)
    game.decide(1, "600", BID)
    game.decide(2, "pass", BID)
    game.decide(3, "pass", BID)
    assert game.labels()[:2] == ["pass", "700"]              # every bid beats the high bid
    game.decide(0, "700", BID)
    game.decide(1, "pass", BID)
    assert game.red(0) == ["kurier"] and game.money(0) == 4300
    # express_kurier: nobody bids -> to the back of the queue
    for p in range(4):
        game.decide(p, "pass", BID)
    assert [game.nm("Red", r) for r in game.get("red_queue")] == [
        "kontor", "grosses_kontor", "wagnerei", "grosse_wagnerei", "guenstiger_einkauf",
        "lagerverkauf", "express_kurier"]
    assert "nobody bids for express_kurier so it goes to the back" in game.s.messages
    # kontor P2, grosses_kontor P3, wagnerei P4, grosse_wagnerei P1 (his second: he is full),
    # guenstiger_einkauf P2, lagerverkauf P3 — each for 500
    full_at = 0
    for card, buyer in [("kontor", 1), ("grosses_kontor", 2), ("wagnerei", 3),
                        ("grosse_wagnerei", 0), ("guenstiger_einkauf", 1), ("lagerverkauf", 2)]:
        while game.pending.player != buyer:
            game.decide(game.pending.player, "pass", BID)
        game.decide(buyer, "500", BID)
        while isinstance(game.pending, Decision) and game.pending.prompt == BID and \
                card in [game.nm("Red", r) for r in game.get("red_queue")]:
            game.decide(game.pending.player, "pass", BID)
        if card == "grosse_wagnerei":
            full_at = len(game.asked)
    # P1 is full after grosse_wagnerei: he is not asked for the later cards
    later = [p for p, prompt, _ in game.asked[full_at:] if prompt == BID]
    assert later and 0 not in later
    # the last card, express_kurier, goes to P4 at its minimum without a decision
    assert game.pending.prompt == BUY
    assert [game.red(p) for p in range(4)] == [
        ["kurier", "grosse_wagnerei"], ["kontor", "guenstiger_einkauf"],
        ["grosses_kontor", "lagerverkauf"], ["wagnerei", "express_kurier"]]
    assert game.money() == [5000 - 700 - 500, 4000, 4000, 4000]
    assert game.get("red_queue") == [] and game.get("red_box") == []
    assert "P4 buys express_kurier for 500" in game.s.messages
    game.check()


def test_red_card_auction_two_players_sole_buyer_picks_rest_go_to_the_box(prog: Program) -> None:
    """seed 002 §特殊卡: 每位玩家僅可以購買二張 ... 最後一張卡則以底價賣給最後一位玩家.  With two
    players four cards are sold; once only one player still needs cards he takes them at their
    minimum price, choosing which (choice 3); the four others go back to the box."""
    game = Game(prog, 2, auction=False)
    game.decide(0, "500", BID)                              # kurier
    game.decide(1, "1000", BID)
    game.decide(0, "pass", BID)
    assert game.red(1) == ["kurier"] and game.money(1) == 4000
    game.decide(0, "500", BID)                              # express_kurier
    game.decide(1, "pass", BID)
    game.decide(0, "pass", BID)                             # kontor: P2's turn to bid
    game.decide(1, "800", BID)
    # P2 is full; P1 needs one more: he picks one of the 5 remaining at its minimum
    assert game.pending.player == 0 and game.pending.prompt == TAKE_RED
    assert game.labels() == ["grosses_kontor", "wagnerei", "grosse_wagnerei",
                             "guenstiger_einkauf", "lagerverkauf"]
    game.decide(0, "lagerverkauf", TAKE_RED)
    assert game.red(0) == ["express_kurier", "lagerverkauf"]
    assert game.red(1) == ["kurier", "kontor"]
    assert game.money() == [5000 - 500 - 500, 5000 - 1000 - 800]
    assert [game.nm("Red", r) for r in game.get("red_box")] == [
        "grosses_kontor", "wagnerei", "grosse_wagnerei", "guenstiger_einkauf"]
    assert game.pending.prompt == BUY
    game.check()


def test_red_card_bid_keeps_the_minimum_for_the_second_card(prog: Program) -> None:
    """seed 002 §特殊卡 (每位玩家僅可以購買二張; the last card is sold at its minimum) with
    choice 4: a bid never exceeds the bidder's cash less the minimum price of the cards he must
    still buy, so the last player can always pay.  P1 (5,000, needs 2) may bid up to 4,500."""
    game = Game(prog, 2, auction=False)
    assert game.labels()[-1] == "4500"
    assert game.get("auction_max_bid") == {0: 4500, 1: 4500}
    game.decide(0, "4500", BID)
    game.decide(1, "pass", BID)
    assert game.money(0) == 500
    # express_kurier: P1 (500 left, needs 1 more) may bid exactly 500
    assert game.labels() == ["pass", "500"]
    game.check()


def test_red_card_auction_ends_when_every_card_is_passed(prog: Program) -> None:
    """PLACEHOLDER (no source; rules-data "Turn structure" 0, H1: "if nobody bids, the auctioneer
    takes it at its printed price"): when every remaining card has been passed in a row, the
    first player clockwise from the start player who still needs a card takes the front card at
    its minimum — so the auction always ends."""
    game = Game(prog, 2, auction=False)
    for _ in range(8):                                      # all eight cards passed once
        game.decide(0, "pass", BID)
        game.decide(1, "pass", BID)
    assert game.red(0) == ["kurier"] and game.money(0) == 4500
    assert "P1 buys kurier for 500" in game.s.messages
    assert game.pending.player == 0 and game.pending.prompt == BID   # express_kurier next
    game.check()


# =====================================================================================
# Phase 1 — buying goods
# =====================================================================================

ALL_PURCHASES = [
    "{good: cloth, city: paris}", "{good: cloth, city: genua}", "{good: cloth, city: city5}",
    "{good: iron, city: koeln}", "{good: iron, city: city4}", "{good: iron, city: city5}",
    "{good: wine, city: paris}", "{good: wine, city: koeln}", "{good: wine, city: city6}",
    "{good: food, city: paris}", "{good: food, city: city4}", "{good: food, city: city6}",
    "{good: silk, city: genua}", "{good: silk, city: city4}", "{good: silk, city: city6}",
    "{good: salt, city: koeln}", "{good: salt, city: genua}", "{good: salt, city: city5}",
]


def test_buying_up_to_three_twice_in_round_1_once_later(prog: Program) -> None:
    """seed 002 §Phase 1: 由起始玩家開始, 每位玩家可以買 0 - 3 桶貨物, 買到的貨物均放在倉庫中, 買的
    時候的價錢依照價格表左邊的買價來買, 將錢付給銀行 ... 注意: 第一回合時可以購買二次貨物, 其餘每次
    僅可以購買一次貨物.  rules-data "Turn structure" 1: into his warehouse in a city that produces
    that good [H1,H5,H10 | HIGH].  (From the start player, 0–3 barrels each at the buy price into
    a warehouse of a producing city; twice in round 1.)  Prices at the lowest row: 100."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(money={0: 5000, 1: 5000})
    assert game.pending.player == 0 and game.labels() == ["pass"] + ALL_PURCHASES
    game.decide(0, "{good: wine, city: koeln}", BUY)
    game.decide(0, "{good: wine, city: koeln}", BUY)
    game.decide(0, "{good: iron, city: city4}", BUY)
    # three bought: P1 is not asked again in this purchase round
    assert game.pending.player == 1 and game.pending.prompt == BUY
    game.decide(1, "{good: salt, city: genua}", BUY)
    game.decide(1, "pass", BUY)
    # round 1: a second purchase round, again from the start player
    game.decide(0, "{good: cloth, city: paris}", BUY)
    game.decide(0, "pass", BUY)
    game.decide(1, "pass", BUY)
    assert game.pending.prompt == SEALED
    assert game.money() == [4600, 4900]
    assert game.get("bank") + sum(game.money()) == 1_000_000
    assert game.warehouse(0, "koeln") == {"wine": 2}
    assert game.warehouse(0, "city4") == {"iron": 1}
    assert game.warehouse(0, "paris") == {"cloth": 1}
    assert game.warehouse(1, "genua") == {"salt": 1}
    assert game.bag(game.get("supply")) == {"cloth": 8, "iron": 8, "wine": 7, "food": 9,
                                            "silk": 9, "salt": 8}
    assert "P1 buys wine in koeln for 100" in game.s.messages
    # round 2: P2 is the start player; one purchase round only
    game.finish_round()
    assert game.round == 2
    buyers = []
    while game.pending.prompt == BUY:
        buyers.append(game.pending.player)
        game.decide(game.pending.player, "pass", BUY)
    assert buyers == [1, 0]
    assert game.pending.prompt == SEALED


def test_buy_price_is_the_price_table_row_and_supply_is_limited(prog: Program) -> None:
    """seed 002 §Phase 1: 買的時候的價錢依照價格表左邊的買價來買 (the buy price, the left column of the
    price table); rules-data "Board" [H12 | MED]: "Der Einkaufspreis wird in der linken Spalte
    (100 - 100 - 200 - 300 - 400) der Preistafel angezeigt"; rules-data "Components": 9 barrels
    of each good (PLACEHOLDER) — none left, none offered.  Wine on step 3 costs 300, silk on
    step 4 400, cloth on step 1 100 (as on step 0); one wine is left; P1 has 500."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(money={0: 500}, step={"cloth": 1, "wine": 3, "silk": 4},
                 warehouse={1: {"paris": {"wine": 8}}})
    assert "{good: silk, city: genua}" in game.labels()     # 400 <= 500
    game.decide(0, "{good: wine, city: city6}", BUY)
    assert game.money(0) == 200 and game.warehouse(0, "city6") == {"wine": 1}
    labels = game.labels()
    assert not any("silk" in lb for lb in labels)           # 400: more than he has now
    assert not any("wine" in lb for lb in labels)           # none left
    game.decide(0, "{good: cloth, city: paris}", BUY)
    assert game.money(0) == 500 - 300 - 100 and game.warehouse(0, "paris") == {"cloth": 1}
    assert "P1 buys cloth in paris for 100" in game.s.messages
    game.check()


def test_guenstiger_einkauf_buys_every_good_at_100(prog: Program) -> None:
    """seed 002 §Phase 1 特殊能力: Gunstiger Einkauf, 擁有這張卡片的玩家可以不受現行買價的影響,
    所有貨物買的價格均 100 元 (every barrel at 100 whatever the price table says).  rules-data
    says "3 goods for 100 total" [H1]; the seed stands (docs: disagreement 3)."""
    game = Game(prog, 2)
    game.red_cards({0: ["guenstiger_einkauf"]})
    game.prepare(money={0: 1000, 1: 1000}, step={"silk": 4})
    for _ in range(3):
        game.decide(0, "{good: silk, city: genua}", BUY)
    assert game.money(0) == 700
    game.decide(1, "{good: silk, city: genua}", BUY)
    assert game.money(1) == 600                             # 400 without the card


# =====================================================================================
# Phase 2 — wagon auctions and loading
# =====================================================================================

def ladder(lo: int, hi: int) -> list[str]:
    return [str(b) for b in range(lo, hi + 1, 100)]


def test_sealed_bids_ties_go_to_the_start_player_then_seat_order(prog: Program) -> None:
    """seed 002 §Phase 2: 所有在城市中的馬車均開始拍賣, 如果是多輛馬車時, 則由一號馬車依序拍賣, 每位
    玩家秘密地拿出想要喊的價錢, 然後一同翻開, (玩的時候底標為 1,000 元), 標到馬車的玩家將錢交給銀行,
    若出價一樣時, 由起始玩家或順位玩家為優先, 若都沒玩家標價時, 則由起始玩家免費當車主, 每位玩家可以
    標好幾台車.  (Every wagon in a city, in number order; secret bids revealed together, minimum
    1,000; the winner pays the bank; ties: the start player, then seat order; no bids: the start
    player gets it free; one player may win several.)  Round 1: P1 is the start player."""
    game = Game(prog, 3)
    game.no_red_cards()
    game.prepare(money={0: 3000, 1: 3000, 2: 3000})
    game.until(SEALED)
    assert game.pending.player == 0 and game.labels() == ["pass"] + ladder(1000, 3000)
    assert "auction of wagon1 in paris" in game.s.messages
    # wagon1: P1 1500, P2 1200, P3 1500 -> P1 (the start player) wins the tie
    game.decide(0, "1500", SEALED)
    game.decide(1, "1200", SEALED)
    assert not any(" bid " in msg for msg in game.s.messages)   # nothing revealed yet
    game.decide(2, "1500", SEALED)
    assert [m for m in game.s.messages if " bid " in m] == ["P1 bid 1500", "P2 bid 1200",
                                                             "P3 bid 1500"]
    assert game.money() == [1500, 3000, 3000]
    # wagon2 (koeln): P1 1000, P2 2000, P3 2000 -> P2, before P3 in seat order from P1
    game.decide(0, "1000", SEALED)
    game.decide(1, "2000", SEALED)
    game.decide(2, "2000", SEALED)
    assert game.money() == [1500, 1000, 3000]
    # wagon3 (genua): nobody bids -> P1, the start player, for free (his second wagon)
    game.decide(0, "pass", SEALED)
    game.decide(1, "pass", SEALED)
    game.decide(2, "pass", SEALED)
    assert {w: game.get("wagon_owner")[game.m(w)] for w in WAGONS} == \
        {"wagon1": 0, "wagon2": 1, "wagon3": 0}
    assert game.money() == [1500, 1000, 3000]
    assert game.get("bank") + sum(game.money()) == 1_000_000
    assert "nobody bids: P1 is the owner of wagon3 for free" in game.s.messages
    assert game.pending.prompt == MOVE                      # nobody had goods to load
    game.check()


def test_bids_never_exceed_cash(prog: Program) -> None:
    """seed 002 §Phase 2 (a bid is money the winner hands to the bank: 標到馬車的玩家將錢交給銀行),
    with the issue's requirement that bids never exceed cash: P1's bids run from 1,000 up to his
    4,000; P2 (999) cannot bid the minimum: he is asked like everyone (who can bid is not
    announced: money is hidden) and can only pass.  A loan repaid at any time (§Phase 6
    他可以在任何時候還錢 ... 2,500 元) while bidding lowers the limit at once."""
    game = Game(prog, 3)
    game.no_red_cards()
    game.prepare(money={0: 4000, 1: 999, 2: 1250}, loans={0: 1})
    game.prepare(loan_cards=7)
    game.until(SEALED)
    assert game.labels() == ["pass"] + ladder(1000, 4000)
    assert [o.label for o in game.pending.options][-1] == "repay_loan"
    game.decide(0, "repay_loan", SEALED)
    assert game.money(0) == 1500 and game.get("loans", 0) == 0 and game.get("loan_cards") == 8
    assert game.labels() == ["pass"] + ladder(1000, 1500)
    assert game.get("auction_max_bid") == {0: 1500, 1: 999, 2: 1250}
    game.decide(0, "pass", SEALED)
    assert game.pending.player == 1 and game.labels() == ["pass"]   # P2 can only pass
    game.decide(1, "pass", SEALED)
    assert game.pending.player == 2
    assert game.labels() == ["pass", "1000", "1100", "1200"]
    game.decide(2, "1200", SEALED)
    assert game.money() == [1500, 999, 50]
    game.check()


def own_wagons_free(game: Game) -> None:
    """Nobody bids for wagon1: P1, the start player, owns it for free."""
    game.until(SEALED)
    for p in range(game.n):
        game.decide(p, "pass", SEALED)


def test_loading_limits_owner_three_of_one_good_guests_two_of_other_goods(prog: Program) -> None:
    """seed 002 §Phase 2: 車主可以將同一種貨物三桶放上馬車, 其他的玩家僅可以放置與車主不同顏色的
    貨物二桶.  (The owner loads up to 3 barrels of one good; every other player up to 2 barrels of
    goods other than the owner's.)  Choice 5: from the loader's warehouse in the wagon's city; a
    guest's two barrels may be of two goods.  P1 owns wagon1 in Paris."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(money={0: 4000, 1: 1000},
                 warehouse={0: {"paris": {"cloth": 4, "wine": 2, "food": 1},
                                "koeln": {"iron": 3}},
                            1: {"paris": {"cloth": 2, "wine": 2, "food": 1}}})
    own_wagons_free(game)
    assert game.pending.player == 0 and game.pending.prompt == OWN_LOAD
    assert game.labels() == ["pass", "{good: cloth, count: 1}", "{good: cloth, count: 2}",
                             "{good: cloth, count: 3}", "{good: wine, count: 1}",
                             "{good: wine, count: 2}", "{good: food, count: 1}"]
    game.decide(0, "{good: cloth, count: 3}", OWN_LOAD)
    assert game.cargo(0, "wagon1") == {"cloth": 3}
    assert game.warehouse(0, "paris") == {"cloth": 1, "wine": 2, "food": 1}
    # P2: no cloth (the owner's good); singles, then pairs
    assert game.pending.player == 1 and game.pending.prompt == GUEST_LOAD
    assert game.labels() == ["pass", "[wine]", "[food]", "[wine, wine]", "[wine, food]"]
    game.decide(1, "[wine, food]", GUEST_LOAD)
    game.decide(0, "0", FEE)
    game.decide(1, "yes", ACCEPT)
    assert game.cargo(1, "wagon1") == {"wine": 1, "food": 1}
    # wagon2 in Köln: P1 loads his 3 iron (P2 has nothing there: not asked)
    game.until(OWN_LOAD)
    assert game.labels() == ["pass", "{good: iron, count: 1}", "{good: iron, count: 2}",
                             "{good: iron, count: 3}"]
    game.check()


def test_loading_a_wagon_that_still_carries_goods(prog: Program) -> None:
    """seed 002 §Phase 2 (3 barrels of one good for the owner, 2 for each other player) on a wagon
    that did not leave Paris and is auctioned again (所有在城市中的馬車均開始拍賣), kept by its owner:
    rules-data "Turn structure" 2: "Goods can also be added in later rounds" [H1,H7,H10 | HIGH];
    choice 23: its goods stay.  P1 owned wagon1 and loaded 2 cloth, P2 2 iron; nobody bids, so
    P1, the start player, owns it again: he tops up his row with the same good, up to 3; P2,
    with 2 barrels on it already, is not asked."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(wagon_owner={"wagon1": 0},
                 warehouse={0: {"paris": {"cloth": 2, "wine": 3}},
                            1: {"paris": {"wine": 2}}},
                 cargo={0: {"wagon1": {"cloth": 2}}, 1: {"wagon1": {"iron": 2}}})
    own_wagons_free(game)
    assert game.cargo(0, "wagon1") == {"cloth": 2} and game.cargo(1, "wagon1") == {"iron": 2}
    assert game.labels() == ["pass", "{good: cloth, count: 1}"]
    game.decide(0, "{good: cloth, count: 1}", OWN_LOAD)
    assert game.cargo(0, "wagon1") == {"cloth": 3}
    assert game.pending.prompt == SEALED                    # P2's row is full: not asked
    game.check()


def test_the_owner_of_a_wagon_kept_loads_no_good_of_a_guests_colour(prog: Program) -> None:
    """seed 002 §Phase 2: 其他的玩家僅可以放置與車主不同顏色的貨物二桶 (the others' goods are of a
    colour other than the owner's).  Wagon1 stayed in Paris and P1 owns it again (nobody bids;
    choice 23: its goods stay).  Last round P1 loaded nothing and P2 loaded 2 wine: P1 may not
    make wine his good now, though he has 2 wine in Paris."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(wagon_owner={"wagon1": 0},
                 warehouse={0: {"paris": {"wine": 2, "cloth": 1}}},
                 cargo={1: {"wagon1": {"wine": 2}}})
    own_wagons_free(game)
    assert game.pending.player == 0 and game.pending.prompt == OWN_LOAD
    assert game.labels() == ["pass", "{good: cloth, count: 1}"]
    game.decide(0, "{good: cloth, count: 1}", OWN_LOAD)
    assert game.cargo(0, "wagon1") == {"cloth": 1} and game.cargo(1, "wagon1") == {"wine": 2}
    assert game.warehouse(0, "paris") == {"wine": 2}
    game.check()


def test_a_wagon_that_did_not_leave_goes_empty_to_a_new_owner(prog: Program) -> None:
    """seed 002 §Phase 2: 所有在城市中的馬車均開始拍賣 ... 車主可以將同一種貨物三桶放上馬車, 其他的
    玩家僅可以放置與車主不同顏色的貨物二桶.  The seed says nothing of the goods on a wagon that did
    not leave its city.  Choice 23: when another player becomes its owner, every barrel on it
    goes back to its loader's warehouse in that city, and the new owner loads as the seed says.
    Wagon1 stayed in Paris with P1's 3 cloth (its owner) and P2's 1 wine; P2 wins it for 1,000:
    both take their barrels back; P2 may load cloth (no longer on the wagon), and P1, a guest
    now, may not load cloth though he has 3 in Paris."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(money={0: 3000, 1: 3000}, wagon_owner={"wagon1": 0},
                 warehouse={0: {"paris": {"wine": 1}}, 1: {"paris": {"cloth": 1}}},
                 cargo={0: {"wagon1": {"cloth": 3}}, 1: {"wagon1": {"wine": 1}}})
    game.until(SEALED)
    game.decide(0, "pass", SEALED)
    game.decide(1, "1000", SEALED)
    assert game.get("wagon_owner")[game.m("wagon1")] == 1 and game.money() == [3000, 2000]
    assert game.cargo(0, "wagon1") == {} and game.cargo(1, "wagon1") == {}
    assert game.warehouse(0, "paris") == {"cloth": 3, "wine": 1}
    assert game.warehouse(1, "paris") == {"cloth": 1, "wine": 1}
    assert "P1 takes cloth back from wagon1 into his warehouse in paris" in game.s.messages
    assert game.pending.player == 1 and game.pending.prompt == OWN_LOAD
    assert game.labels() == ["pass", "{good: cloth, count: 1}", "{good: wine, count: 1}"]
    game.decide(1, "{good: cloth, count: 1}", OWN_LOAD)
    assert game.pending.player == 0 and game.labels() == ["pass", "[wine]"]
    game.decide(0, "[wine]", GUEST_LOAD)
    game.decide(1, "0", FEE)
    game.decide(0, "yes", ACCEPT)
    assert game.cargo(1, "wagon1") == {"cloth": 1} and game.cargo(0, "wagon1") == {"wine": 1}
    assert game.warehouse(0, "paris") == {"cloth": 3} and game.warehouse(1, "paris") == {"wine": 1}
    assert game.bag(game.get("supply")) == {"cloth": 5, "iron": 9, "wine": 7, "food": 9,
                                            "silk": 9, "salt": 9}
    game.check()


def test_loading_fee_accepted_and_declined(prog: Program) -> None:
    """seed 002 §Phase 2: 車主可以跟其他的玩家要上貨物上馬車的錢, 金額由車主決定.  (The owner may
    ask the other players for money to load; he decides the amount.)  Choice 7: the owner names
    a fee (0 up to 2,000 in 100s, whatever the guest's cash: the owner cannot see it); the guest
    pays it to the owner and loads, or declines and loads nothing.  P2 accepts 300; P3 declines
    500; a guest asked more than he has can only decline."""
    game = Game(prog, 3)
    game.no_red_cards()
    game.prepare(money={0: 2000, 1: 1000, 2: 2000},
                 warehouse={0: {"paris": {"cloth": 1}}, 1: {"paris": {"wine": 2}},
                            2: {"paris": {"food": 1}}})
    own_wagons_free(game)
    game.decide(0, "{good: cloth, count: 1}", OWN_LOAD)
    game.decide(1, "[wine, wine]", GUEST_LOAD)
    assert game.pending.player == 0 and game.labels() == ladder(0, 2000)
    game.decide(0, "300", FEE)
    assert game.pending.player == 1 and game.labels() == ["yes", "no"]
    game.decide(1, "yes", ACCEPT)
    assert game.money() == [2300, 700, 2000]
    assert game.cargo(1, "wagon1") == {"wine": 2} and game.warehouse(1, "paris") == {}
    game.decide(2, "[food]", GUEST_LOAD)
    assert game.labels() == ladder(0, 2000)      # the same menu for a guest with 2,000
    game.decide(0, "500", FEE)
    game.decide(2, "no", ACCEPT)
    assert game.money() == [2300, 700, 2000]
    assert game.cargo(2, "wagon1") == {} and game.warehouse(2, "paris") == {"food": 1}
    assert "P3 declines" in game.s.messages
    game.check()


def test_kostenlose_zuladung_loads_two_barrels_free(prog: Program) -> None:
    """seed 002 §影響力卡: Kostenlose Zudalung, 免費上貨: 在第二個階段時, 你可以不付錢給車主而免費
    上二桶貨物, 而不管車主喜歡或不喜歡, 他必須接受你的貨物.  (Load two barrels without paying; the
    owner must accept.)  The owner is not asked for a fee; the card is spent."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(money={0: 2000, 1: 1000}, warehouse={1: {"paris": {"wine": 2}}},
                 influence={1: {"kostenlose_zuladung": 1}},
                 influence_deck={"kostenlose_zuladung": 2, "achsenbruch": 3, "sonder_verkauf": 3,
                                 "verkauf_mit_bonus": 3, "sozialer_aufstieg": 3})
    own_wagons_free(game)
    game.decide(1, "[wine, wine]", GUEST_LOAD)
    game.decide(1, "yes", FREE_LOAD)
    assert game.cargo(1, "wagon1") == {"wine": 2}
    assert game.money() == [2000, 1000]
    assert game.influence(1) == {}
    assert game.bag(game.get("influence_discard"), "Influence") == {"kostenlose_zuladung": 1}
    assert all(prompt != FEE for _, prompt, _ in game.asked)
    game.check()


# =====================================================================================
# Phase 3 — movement
# =====================================================================================

def to_movement(game: Game) -> None:
    """Nobody bids, nobody loads: on to the first tile move of round 1."""
    game.until(MOVE)


def mv(tile: int, wagon: str, *route: str) -> str:
    return f"{{tile: {tile}, wagon: {wagon}, route: [{', '.join(route)}]}}"


def test_fork_the_mover_chooses_the_way(prog: Program) -> None:
    """seed 002 §Phase 3: 馬車移動時只能向前而不能向後移動, 若遇到叉路時, 則由目前正在移動的玩家決定
    要移動到那個方向.  (Wagons move forward only; at a fork the mover chooses the way.)  Wagon1 in
    Paris may leave by either road (choice 8); with tile 3 towards Köln it reaches the fork at r2
    and goes on to r3 or turns onto the cross-road (r23).  From r23 it can only go on (r24)."""
    game = Game(prog, 2)
    game.no_red_cards()
    to_movement(game)
    labels = game.labels()
    assert [lb for lb in labels if lb.startswith("{tile: 3, wagon: wagon1")] == [
        mv(3, "wagon1", "r1", "r2", "r3"), mv(3, "wagon1", "r1", "r2", "r23"),
        mv(3, "wagon1", "r22", "r21", "r20")]
    assert [lb for lb in labels if lb.startswith("{tile: 1,")] == [
        mv(1, "wagon1", "r1"), mv(1, "wagon1", "r22"), mv(1, "wagon2", "r3"),
        mv(1, "wagon2", "r4"), mv(1, "wagon3", "r10"), mv(1, "wagon3", "r11")]
    game.decide(0, mv(3, "wagon1", "r1", "r2", "r23"), MOVE)
    assert game.wagon_at("wagon1") == "r23" and game.get("tiles", 0) == [1, 2, 4]
    assert [lb for lb in game.labels() if "wagon1" in lb] == [
        mv(1, "wagon1", "r24"), mv(2, "wagon1", "r24", "r25"), mv(3, "wagon1", "r24", "r25", "r13"),
        mv(4, "wagon1", "r24", "r25", "r13", "r12"), mv(4, "wagon1", "r24", "r25", "r13", "r14")]
    game.check()


def test_two_wagons_never_stop_on_one_space_nor_enter_one_city(prog: Program) -> None:
    """seed 002 §Phase 3: 移動時馬車可以相互經過, 但不可以停在同一格中, 也不可以同時進入同一個城市.
    (Wagons may pass each other but not stop on one space, nor enter the same city in one round:
    choice 19.)  rules-data: occupied spaces count; entering a city ends the move [H1].
    Wagon3 stands on r2 heading for Köln, wagon2 on r4 heading for Köln."""
    game = Game(prog, 2)
    game.no_red_cards()
    to_movement(game)
    game.prepare(wagon_at={"wagon2": "r4", "wagon3": "r2"},
                 wagon_prev={"wagon2": "r5", "wagon3": "r1"})
    labels = game.labels()
    assert mv(2, "wagon1", "r1", "r2") not in labels            # r2 is taken
    assert mv(3, "wagon1", "r1", "r2", "r3") in labels          # passing it is fine
    assert mv(1, "wagon2", "koeln") in labels
    # a wagon entering a city stops there: tile 4 from r2 takes wagon3 into Köln (r3, koeln)
    assert [lb for lb in labels if "wagon3" in lb and lb.startswith("{tile: 4")] == [
        mv(4, "wagon3", "r3", "koeln"), mv(4, "wagon3", "r23", "r24", "r25", "r13")]
    game.decide(0, mv(4, "wagon3", "r3", "koeln"), MOVE)
    assert game.get("arrived")[game.m("wagon3")] is True
    assert "wagon3 enters koeln" in game.s.messages
    # P2: wagon2 may not enter Köln now (wagon3 entered it this round), and wagon3 has arrived
    labels = game.labels()
    assert not any("wagon2" in lb for lb in labels)
    assert not any("wagon3" in lb for lb in labels)
    assert labels and all("wagon1" in lb for lb in labels)
    game.check()


def test_movement_tiles_return_when_all_four_are_used(prog: Program) -> None:
    """seed 002 §Phase 3: 每一位玩家有四張的移動卡, 由起始玩家開始, 每一個玩家選擇一張的移動卡片,
    及移動一輛馬車走想要移動的步數, 然後將移動卡面朝下, 當所有四張移動卡均使用後, 則四張再翻開來重新
    使用.  P1 has only tile 4 left; after playing it all four are face up again."""
    game = Game(prog, 2)
    game.no_red_cards()
    to_movement(game)
    game.prepare(tiles={0: [4], 1: [1, 3]})
    assert {lb.split(",")[0] for lb in game.labels()} == {"{tile: 4"}
    game.decide(0, mv(4, "wagon1", "r1", "r2", "r3", "koeln"), MOVE)
    assert game.get("tiles", 0) == [1, 2, 3, 4]
    assert {lb.split(",")[0] for lb in game.labels()} == {"{tile: 1", "{tile: 3"}
    game.decide(1, mv(3, "wagon3", "r10", "r9", "r8"), MOVE)
    assert game.get("tiles", 1) == [1]
    game.check()


def test_no_legal_move_no_tile_played(prog: Program) -> None:
    """seed 002 §Phase 3 (a tile moves a wagon; a wagon may not stop where the rules forbid) —
    choice 11: a player who cannot move any wagon plays no tile and keeps his tiles.  Here P1
    breaks every wagon's axle with three Achsenbruch cards (§影響力卡: 這輛馬車這回合不得移動)."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(influence={0: {"achsenbruch": 3}},
                 influence_deck={"kostenlose_zuladung": 3, "sonder_verkauf": 3,
                                 "verkauf_mit_bonus": 3, "sozialer_aufstieg": 3})
    game.until(AXLE)
    for w in WAGONS:
        game.decide(0, w, AXLE)
    assert game.pending.prompt == DIAL                      # both turns passed without a decision
    assert [game.get("tiles", p) for p in range(2)] == [[1, 2, 3, 4]] * 2
    game.check()


def test_achsenbruch_stops_a_wagon_for_the_round(prog: Program) -> None:
    """seed 002 §影響力卡: Achsenbruch, 車軸毀壞: 在第三階段移動馬車前使用, 使用這張卡片的玩家選擇
    一輛馬車, 這輛馬車這回合不得移動.  (Played at the start of phase 3, before any wagon moves:
    choice 9.)  P2 breaks wagon1's axle; nobody may move it this round."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(influence={1: {"achsenbruch": 1}},
                 influence_deck={"kostenlose_zuladung": 3, "achsenbruch": 2, "sonder_verkauf": 3,
                                 "verkauf_mit_bonus": 3, "sozialer_aufstieg": 3})
    game.until(AXLE)
    assert game.pending.player == 1
    assert game.labels() == ["pass", "wagon1", "wagon2", "wagon3"]
    game.decide(1, "wagon1", AXLE)
    assert game.influence(1) == {}
    assert not any("wagon1" in lb for lb in game.labels())
    game.decide(0, 0, MOVE)
    assert not any("wagon1" in lb for lb in game.labels())
    assert game.wagon_at("wagon1") == "paris"
    game.check()


def test_wagnerei_and_kurier_on_the_players_turn(prog: Program) -> None:
    """seed 002 §特殊卡: Kurier 移動快遞馬一格; Express-Kurier 移動快遞馬二格; Wagnerei 移動馬車一格;
    Grosses Wagnerei 移動馬車二格; §Phase 3: Wagnerei and Grosse Wagnerei, 玩家可以在他的回合移動任一
    輛馬車一格或二格(僅可以向前) ... Kurier and Express-Kurier, 玩家可以在他的回合移動快遞馬一格或二格,
    向前或向後, 快遞馬不能進入城市, 且這個能力是選擇的選項.  (On his turn, optionally, in any order
    with his tile move: choice 10.)  P1 holds Große Wagnerei and Express-Kurier; the courier is
    on r24."""
    game = Game(prog, 2)
    game.red_cards({0: ["grosse_wagnerei", "express_kurier"], 1: ["kurier"]})
    game.until(MENU)
    assert game.pending.player == 0
    assert game.labels() == ["move_with_tile", "use_grosse_wagnerei", "use_express_kurier"]
    game.decide(0, "use_grosse_wagnerei", MENU)
    assert game.labels()[:3] == ["pass", "{wagon: wagon1, route: [r1, r2]}",
                                 "{wagon: wagon1, route: [r22, r21]}"]
    game.decide(0, "{wagon: wagon1, route: [r1, r2]}", WAGNEREI)
    assert game.wagon_at("wagon1") == "r2"
    assert game.labels() == ["move_with_tile", "use_express_kurier"]
    game.decide(0, "use_express_kurier", MENU)
    assert game.labels() == ["pass", "r2", "r13"]           # two spaces either way from r24
    game.decide(0, "r13", KURIER)
    assert game.nm("Place", game.get("courier")) == "r13"
    # only the tile move is left: no menu, and no ending the turn before it
    game.decide(0, mv(1, "wagon1", "r3"), MOVE)
    assert game.pending.player == 1                          # nothing left: his turn is over
    # P2's Kurier: one space, never into a city
    game.prepare(courier="r15")
    game.decide(1, "use_kurier", MENU)
    assert game.labels() == ["pass", "r14"]                  # city5 is next to r15
    game.check()


def test_courier_gives_one_card_per_wagon_per_round(prog: Program) -> None:
    """seed 002 §Phase 3 抽一張影響力卡: 當馬車經過與快遞馬同一格時, 玩家可以抽一張綠色的影響力卡
    或是當快遞馬移動到與馬車同一格時也可以抽一張卡, 但同一輛馬車一個回合僅發一張影響力卡片.  (The
    mover draws a green card when a wagon passes or reaches the courier's space, or the courier
    reaches a wagon — one card per wagon per round.)  The courier is on r1."""
    game = Game(prog, 2)
    game.red_cards({1: ["kurier"]})
    to_movement(game)
    game.prepare(courier="r1")
    game.decide(0, mv(2, "wagon1", "r1", "r2"), MOVE)       # passes the courier
    node = game.pending
    assert isinstance(node, Chance) and node.what == "draw"
    # the 15 green cards, 3 of each kind: one outcome per kind, each with weight 3 (1/5)
    assert [o.label for o in node.options] == ["kostenlose_zuladung", "achsenbruch",
                                               "sonder_verkauf", "verkauf_mit_bonus",
                                               "sozialer_aufstieg"]
    assert node.weights == [3] * 5
    game.chance("sonder_verkauf")
    assert game.influence(0) == {"sonder_verkauf": 1}
    assert game.get("carded")[game.m("wagon1")] is True
    # P2's Kurier takes the courier onto wagon1 (r2): wagon1 gave its card this round
    game.decide(1, "use_kurier", MENU)
    game.decide(1, "r2", KURIER)
    assert game.influence(1) == {} and isinstance(game.pending, Decision)
    # wagon2 passing the courier (r2) still gives P2 a card
    game.decide(1, mv(3, "wagon2", "r3", "r2", "r1"), MOVE)
    game.chance("achsenbruch")
    assert game.influence(1) == {"achsenbruch": 1}
    assert game.bag(game.get("influence_deck"), "Influence") == {
        "kostenlose_zuladung": 3, "achsenbruch": 2, "sonder_verkauf": 2,
        "verkauf_mit_bonus": 3, "sozialer_aufstieg": 3}
    game.check()
    # next round wagon1 gives a card again: P2 (start player) lands the courier on it
    game.finish_round()
    game.prepare(courier="r3", wagon_at={"wagon1": "r2", "wagon2": "r4"},
                 wagon_prev={"wagon1": "r1", "wagon2": "koeln"})
    game.until(MENU, 1)
    game.decide(1, "use_kurier", MENU)
    game.decide(1, "r2", KURIER)
    game.chance("verkauf_mit_bonus")
    assert game.influence(1) == {"achsenbruch": 1, "verkauf_mit_bonus": 1}
    game.check()


# =====================================================================================
# Phase 4 — prices
# =====================================================================================

def dial_all(game: Game, *settings: str) -> None:
    """Every player sets his dial, in seat order (a simultaneous decision)."""
    for p, setting in enumerate(settings):
        game.decide(p, setting, DIAL)


def test_price_wheel_is_secret_and_both_pointers_on_one_good_raise_it_two_steps(
        prog: Program) -> None:
    """seed 002 §Phase 4: 每位玩家拿起他的調價盤, 秘密地調整貨物價格上升, 他可以調整二個貨物或是一種
    貨物, 當所有的玩家均選擇完畢後則同時翻開, 然後調整貨物在價格表的價錢; rules-data "Board" → Price
    change [H12 | MED]: "Man kann auch beide Zeiger auf eine Warensorte drehen, dann erhöht sich der
    Preis dieser Warensorte um zwei Stufen" (both pointers on one good: two steps).  Nothing is
    revealed before the last wheel is set.  Iron goes 0 → 2 (buy 200, sell 800); food and salt
    one step each (buy 100, sell 700)."""
    game = Game(prog, 3)
    game.no_red_cards()
    game.until(DIAL)
    # [] both pointers on the arms, [g] one of them, then the 21 pairs
    assert len(game.labels()) == 28
    assert game.labels()[:9] == ["[]", "[cloth]", "[iron]", "[wine]", "[food]", "[silk]",
                                 "[salt]", "[cloth, cloth]", "[cloth, iron]"]
    game.decide(0, "[iron, iron]", DIAL)
    game.decide(1, "[food, salt]", DIAL)
    assert game.step()["iron"] == 0 and not any("dials" in m for m in game.s.messages)
    game.decide(2, "[]", DIAL)
    assert game.step() == {"cloth": 0, "iron": 2, "wine": 0, "food": 1, "silk": 0, "salt": 1}
    assert [m for m in game.s.messages if "dials" in m] == [
        "P1 dials [iron, iron]", "P2 dials [food, salt]", "P3 dials []"]
    game.check()


def test_price_wheel_pointer_on_own_coat_of_arms_raises_nothing(prog: Program) -> None:
    """rules-data "Board" → Price change [H12 | MED]: "Wer nur einen oder keine Preise erhöhen
    möchte, dreht die Zeiger auf sein Wappen" (a pointer on one's own coat of arms raises
    nothing); seed 002 §Phase 4 他可以調整二個貨物或是一種貨物 (two goods or one).  P1 turns both
    pointers to his arms, P2 one: only wine rises, one step (step 2 → 3: buy 300, sell 900)."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.until(DIAL)
    game.prepare(step={"wine": 2})
    dial_all(game, "[]", "[wine]")
    assert game.step() == {"cloth": 0, "iron": 0, "wine": 3, "food": 0, "silk": 0, "salt": 0}
    game.check()


def test_price_wheel_from_the_top_row_a_good_drops_back_to_the_bottom(prog: Program) -> None:
    """seed 002 §Phase 4: 若一種貨物的價格己經在最上端時, 若再繼續上升時, 則調到最下方的價錢;
    rules-data "Board" → Price change [H12 | MED]: "Hat ein Warenstein die oberste Zeile
    (400/1.000) erreicht, springt er bei einer weiteren Erhöhung auf die unterste Stufe zurück
    (100/600)".  Each pointer is one raise (choice 12).  Wine and silk stand on the top row
    (step 4); cloth one below.  P1: [wine] (4 → 0); P2: [silk, silk] (4 → 0 → 1); P3: [cloth,
    cloth] (3 → 4 → 0).  Lagerverkauf then sells P1's wine at 100, not 400."""
    game = Game(prog, 3)
    game.red_cards({0: ["lagerverkauf"]})
    game.until(DIAL)
    game.prepare(money={0: 0}, step={"wine": 4, "silk": 4, "cloth": 3},
                 warehouse={0: {"paris": {"wine": 1}}})
    dial_all(game, "[wine]", "[silk, silk]", "[cloth, cloth]")
    assert game.step() == {"cloth": 0, "iron": 0, "wine": 0, "food": 0, "silk": 1, "salt": 0}
    game.decide(0, "{good: wine, city: paris}", LAGER)
    assert game.money(0) == 100
    game.check()


def test_kontor_one_step_up_or_down_grosses_kontor_may_wrap(prog: Program) -> None:
    """seed 002 §Phase 4 特殊能力: Kontor and Grosse-Kontor 當玩家擁有這二種能力時, 當所有玩家均調價
    完畢後, 再進行調整一個貨物上升或下降, 擁有特殊調價的玩家可以將價格由最上調整到最下或由最下調整到
    最上; §特殊卡: Kontor 調整一種貨物一格(上或下); Grosses Kontor ... (也可以最上到最下或最下到最上).
    (After the dials, one good one step up or down; only Großes Kontor goes round the ends.)
    Cloth is on the top row, iron on the bottom one."""
    game = Game(prog, 2)
    game.red_cards({0: ["kontor"], 1: ["grosses_kontor"]})
    game.until(DIAL)
    game.prepare(step={"cloth": 4, "iron": 0, "wine": 3})
    dial_all(game, "[food, food]", "[]")
    assert game.step()["food"] == 2
    assert game.pending.player == 0 and game.pending.prompt == KONTOR
    labels = game.labels()
    assert "{good: cloth, steps: 1}" not in labels and "{good: iron, steps: -1}" not in labels
    # not up from the top (cloth), not down from the bottom (iron, silk, salt)
    assert labels == ["pass", "{good: cloth, steps: -1}", "{good: iron, steps: 1}",
                      "{good: wine, steps: 1}", "{good: wine, steps: -1}",
                      "{good: food, steps: 1}", "{good: food, steps: -1}",
                      "{good: silk, steps: 1}", "{good: salt, steps: 1}"]
    game.decide(0, "{good: wine, steps: -1}", KONTOR)
    assert game.step()["wine"] == 2
    assert game.pending.player == 1 and len(game.labels()) == 1 + 12
    game.decide(1, "{good: cloth, steps: 1}", KONTOR)          # top -> bottom
    assert game.step() == {"cloth": 0, "iron": 0, "wine": 2, "food": 2, "silk": 0, "salt": 0}
    game.check()


def test_grosses_kontor_from_the_bottom_to_the_top(prog: Program) -> None:
    """seed 002 §Phase 4: 擁有特殊調價的玩家可以將價格 ... 由最下調整到最上 (Großes Kontor: bottom to
    top)."""
    game = Game(prog, 2)
    game.red_cards({1: ["grosses_kontor"]})
    game.until(DIAL)
    dial_all(game, "[food, food]", "[food, food]")
    game.decide(1, "{good: iron, steps: -1}", KONTOR)
    assert game.step()["iron"] == 4


def test_lagerverkauf_sells_three_barrels_at_the_buy_price(prog: Program) -> None:
    """seed 002 §Phase 4: 在所有貨物的價格均調整完畢後, 擁有 Lagerverkauf 特殊能力的玩家開始使用;
    特殊能力: Lagerverkauf, 玩家可以以現在的買價將倉庫的三桶貨物直接賣給銀行.  (After all price
    changes, up to three barrels from his warehouses at the current buy price: choice 15.)
    Price table (rules-data "Board" [H12]): after the wheels cloth is on step 3 (buy 300, sell
    900), iron on step 1 (buy 100, sell 700): two cloth and one iron bring 300 + 300 + 100."""
    game = Game(prog, 2)
    game.red_cards({0: ["lagerverkauf"]})
    game.until(DIAL)
    game.prepare(money={0: 0, 1: 0}, step={"cloth": 2},
                 warehouse={0: {"paris": {"cloth": 2}, "city4": {"iron": 2}}})
    dial_all(game, "[cloth, iron]", "[food, salt]")
    assert game.step()["cloth"] == 3 and game.step()["iron"] == 1
    assert game.pending.prompt == LAGER
    assert game.labels() == ["pass", "{good: cloth, city: paris}", "{good: iron, city: city4}"]
    game.decide(0, "{good: cloth, city: paris}", LAGER)
    game.decide(0, "{good: cloth, city: paris}", LAGER)
    game.decide(0, "{good: iron, city: city4}", LAGER)
    assert game.money() == [300 + 300 + 100, 0]
    assert "P1 sells cloth from paris for 300" in game.s.messages
    assert game.warehouse(0, "paris") == {} and game.warehouse(0, "city4") == {"iron": 1}
    assert game.bag(game.get("supply"))["cloth"] == 9
    assert game.pending.prompt != LAGER                      # three barrels at most
    game.check()


def test_sonder_verkauf_sells_one_barrel_for_800(prog: Program) -> None:
    """seed 002 §影響力卡: Sonder-Verkauf, 特別拍賣: 在第四階段時, 玩家可以直接將在倉庫的一桶貨物以
    一桶 800 元的價格賣給銀行.  (In phase 4, one barrel from a warehouse to the bank for 800.)"""
    game = Game(prog, 2)
    game.no_red_cards()
    game.until(DIAL)
    game.prepare(money={0: 0, 1: 0}, warehouse={1: {"genua": {"salt": 2}}},
                 influence={1: {"sonder_verkauf": 1}},
                 influence_deck={"kostenlose_zuladung": 3, "achsenbruch": 3, "sonder_verkauf": 2,
                                 "verkauf_mit_bonus": 3, "sozialer_aufstieg": 3})
    dial_all(game, "[food, food]", "[food, food]")
    assert game.pending.player == 1 and game.labels() == ["pass", "{good: salt, city: genua}"]
    game.decide(1, "{good: salt, city: genua}", SONDER)
    assert game.money() == [0, 800] and game.warehouse(1, "genua") == {"salt": 1}
    assert game.influence(1) == {}
    assert game.pending.prompt != SONDER                     # one card, one barrel
    game.check()


# =====================================================================================
# Phase 5 — selling
# =====================================================================================

def test_city_bonus_paid_reset_and_capped(prog: Program) -> None:
    """seed 002 §Phase 5: 當有一輛馬車進入城市時, 移動回合狀態表的 Marker 一格 ... 銀行將要以價格表中
    的賣價購買馬車所運進城中的貨物.  當馬車所運的貨物是這個城市所沒生產, 除了依價格表的賣價給予玩家
    貨物的金額外, 另外再給予這個城市的額外獎金, 賣掉的貨物交回銀行儲存, 空的馬車調頭 ... 當本回合
    有馬車到達城市, 將城市的獎金移回到 0 元, 而這回合沒有馬車到達的城市則將提升 100 元, 每個城市的
    獎金最高是 500 元.  (Goods sell at the sell price, plus the city bonus — per barrel, choice 16 —
    where the city does not produce them; the bonus of a city reached goes back to 0; the others
    rise by 100, at most 500.)  City4 produces iron, food, silk (PLACEHOLDER table); its bonus
    is 200 (setup).  Wine on step 2 (sell 800), iron on step 1 (sell 700)."""
    game = Game(prog, 2)
    game.no_red_cards()
    to_movement(game)
    game.prepare(money={0: 0, 1: 0}, step={"wine": 2, "iron": 1},
                 bonus={"city5": 500, "city6": 400},
                 wagon_at={"wagon1": "r7"}, wagon_prev={"wagon1": "r6"},
                 cargo={0: {"wagon1": {"wine": 2}}, 1: {"wagon1": {"iron": 1}}})
    game.decide(0, mv(1, "wagon1", "city4"), MOVE)
    game.decide(1, mv(1, "wagon2", "r3"), MOVE)
    dial_all(game, "[salt, salt]", "[salt, salt]")
    assert game.get("round_marker") == 1
    assert game.money() == [2 * (800 + 200), 700]
    assert game.cargo(0, "wagon1") == {} and game.cargo(1, "wagon1") == {}
    assert game.bag(game.get("supply")) == {g: 9 for g in GOODS}
    assert game.bonus() == {"paris": 100, "koeln": 100, "genua": 100,
                            "city4": 0, "city5": 500, "city6": 500}
    assert game.get("wagon_prev")[game.m("wagon1")] is None      # turned round
    assert "P1 sells wine in city4 for 1000" in game.s.messages
    game.check()


def test_arrival_sells_at_the_sell_price_after_the_wheels(prog: Program) -> None:
    """seed 002 §Phase 5: 現在銀行將要以價格表中的賣價購買馬車所運進城中的貨物 (the bank buys the
    goods at the sell price of the price table); rules-data "Board" [H12 | MED]: "der
    Verkaufspreis in der rechten Spalte (600 - 700 - 800 - 900 - 1000)"; rules-data "Turn
    structure" 5: goods sold at the new price [H4,H9 | MED] (phase 4 comes first).  Wagon1
    enters city4 (it produces iron and food: no bonus) with P1's 1 iron (step 4: sell 1,000,
    buy 400) and P2's 2 food (step 0, raised by P2's wheel to step 1: sell 700, buy 100)."""
    game = Game(prog, 2)
    game.no_red_cards()
    to_movement(game)
    game.prepare(money={0: 0, 1: 0}, step={"iron": 4},
                 wagon_at={"wagon1": "r7"}, wagon_prev={"wagon1": "r6"},
                 cargo={0: {"wagon1": {"iron": 1}}, 1: {"wagon1": {"food": 2}}})
    game.decide(0, mv(1, "wagon1", "city4"), MOVE)
    game.decide(1, mv(1, "wagon2", "r3"), MOVE)
    dial_all(game, "[]", "[food]")
    assert game.money() == [1000, 2 * 700]
    assert "P1 sells iron in city4 for 1000" in game.s.messages
    assert "P2 sells food in city4 for 700" in game.s.messages
    assert game.cargo(0, "wagon1") == {} and game.cargo(1, "wagon1") == {}
    game.check()


def test_round_marker_moves_once_however_many_wagons_arrive(prog: Program) -> None:
    """seed 002 §Phase 5: 當有一輛馬車進入城市時, 移動回合狀態表的 Marker 一格, 而不管有多少馬車
    在這個回合進入城市.  Two wagons arrive in round 1: the marker moves once; round 2 has no arrival:
    it stays.  An empty wagon arriving turns round and may leave by the road it came (choice 8)."""
    game = Game(prog, 2)
    game.no_red_cards()
    to_movement(game)
    game.prepare(wagon_at={"wagon1": "r7", "wagon2": "r8"},
                 wagon_prev={"wagon1": "r6", "wagon2": "r9"})
    game.decide(0, mv(1, "wagon1", "city4"), MOVE)
    assert mv(1, "wagon2", "city4") not in game.labels()    # one arrival per city and round
    game.decide(1, mv(2, "wagon3", "r11", "r12"), MOVE)
    game.prepare(wagon_at={"wagon2": "r10"}, wagon_prev={"wagon2": "r9"})
    game.finish_round()
    assert game.get("round_marker") == 1
    game.until(MOVE)
    assert mv(1, "wagon1", "r7") in game.labels()           # back the way it came
    game.prepare(wagon_at={"wagon1": "city4", "wagon2": "r8", "wagon3": "r12"},
                 wagon_prev={"wagon1": None, "wagon2": "r9", "wagon3": "r11"})
    game.finish_round()
    assert game.get("round_marker") == 1


def test_verkauf_mit_bonus_pays_the_bonus_on_goods_the_city_produces(prog: Program) -> None:
    """seed 002 §影響力卡: Verkauf mit Bonus 買賣有額外獎金: 在第五階段時, 你所賣的貨物均有額外的城市
    獎金, 甚至你所賣的貨物是這個城市所不需要的.  (All your goods sold get the city bonus, even those
    the city produces.)  P1 sells iron (city4 produces it; step 1, sell 700) with the card:
    700 + 200."""
    game = Game(prog, 2)
    game.no_red_cards()
    to_movement(game)
    game.prepare(money={0: 0, 1: 0}, step={"iron": 1},
                 wagon_at={"wagon1": "r7"}, wagon_prev={"wagon1": "r6"},
                 cargo={0: {"wagon1": {"iron": 1}}},
                 influence={0: {"verkauf_mit_bonus": 1}},
                 influence_deck={"kostenlose_zuladung": 3, "achsenbruch": 3, "sonder_verkauf": 3,
                                 "verkauf_mit_bonus": 2, "sozialer_aufstieg": 3})
    game.decide(0, mv(1, "wagon1", "city4"), MOVE)
    game.decide(1, mv(1, "wagon2", "r3"), MOVE)
    dial_all(game, "[salt, salt]", "[salt, salt]")
    game.decide(0, "yes", BONUS_CARD)
    assert game.money() == [700 + 200, 0] and game.influence(0) == {}
    game.check()


# =====================================================================================
# Phase 6 — the social ladder
# =====================================================================================

def to_phase_6(game: Game, **position: Any) -> None:
    """Play round 1 up to the dials without any arrival, prepare `position`, set the dials."""
    game.until(DIAL)
    game.prepare(**position)
    dial_all(game, *["[salt, salt]"] * game.n)


def test_upkeep_paid_or_fall_to_the_bottom(prog: Program) -> None:
    """seed 002 §Phase 6: 每位玩家注意他在狀態表的位置, 他必須付給銀行現行位置的數值, 以維持目前的
    地位, 若玩家沒有錢維持時, 則需將狀態表的位置移到最下方 0 的位置.  (Pay your level's upkeep or
    fall to 0.)  Upkeep of level 3: 400, level 2: 300 (PLACEHOLDER).  P2 cannot pay 400: he is
    offered a loan (choice 17), declines and falls."""
    game = Game(prog, 3)
    game.no_red_cards()
    to_phase_6(game, money={0: 1000, 1: 300, 2: 300}, level={0: 3, 1: 3, 2: 2})
    assert game.pending.player == 1 and game.pending.prompt == LOAN
    game.decide(1, "no", LOAN)
    assert [game.get("level", p) for p in range(3)] == [3, 0, 2]
    assert game.money() == [600, 300, 0]
    assert "P2 cannot pay the upkeep of 400 and falls to the bottom" in game.s.messages
    game.check()


def test_climbing_one_or_two_levels_two_cost_double(prog: Program) -> None:
    """seed 002 §Phase 6: 當所有人付完維持費用後, 玩家可以提升自己的聲望, 他可以付比現回合表灰色
    指標下一階的錢給銀行, 每個回合玩家可以提升 1 - 2 階, 若提升二階則必須付二倍的錢給銀行.
    (After all upkeep, climb one or two levels; the price of a level is on the round track at the
    position after the marker — PLACEHOLDER costs; two levels cost double.)  Marker at 3: a level
    costs 1,800."""
    game = Game(prog, 2)
    game.no_red_cards()
    to_phase_6(game, money={0: 4000, 1: 2000}, round_marker=3)
    assert game.pending.player == 0 and game.pending.prompt == CLIMB
    assert game.labels() == ["{levels: 0, with_card: false}", "{levels: 1, with_card: false}",
                             "{levels: 2, with_card: false}"]
    game.decide(0, "{levels: 2, with_card: false}", CLIMB)
    assert game.labels() == ["{levels: 0, with_card: false}", "{levels: 1, with_card: false}"]
    game.decide(1, "{levels: 1, with_card: false}", CLIMB)
    assert [game.get("level", p) for p in range(2)] == [2, 1]
    assert game.money() == [4000 - 3600, 2000 - 1800]
    game.check()


def test_sozialer_aufstieg_first_level_for_1200(prog: Program) -> None:
    """seed 002 §影響力卡: Sozialer Aufstieg 特別晉升, 在第六階段, 你可以晉升一階級花費 1,200 元, 若你
    要晉升第二階時, 則需正常的費用.  (One level for 1,200; a second one at the normal price.)  Marker
    at 3: a level costs 1,800; P1 has 3,000 and the card; P2 is on level 6 of 0–7 (one more)."""
    game = Game(prog, 2)
    game.no_red_cards()
    to_phase_6(game, money={0: 3000, 1: 9000}, level={1: 6}, round_marker=3,
               influence={0: {"sozialer_aufstieg": 1}},
               influence_deck={"kostenlose_zuladung": 3, "achsenbruch": 3, "sonder_verkauf": 3,
                               "verkauf_mit_bonus": 3, "sozialer_aufstieg": 2})
    assert game.labels() == ["{levels: 0, with_card: false}", "{levels: 1, with_card: false}",
                             "{levels: 1, with_card: true}", "{levels: 2, with_card: true}"]
    game.decide(0, "{levels: 2, with_card: true}", CLIMB)
    assert game.money(0) == 0 and game.get("level", 0) == 2 and game.influence(0) == {}
    assert game.money(1) == 9000 - 800                      # upkeep of level 6
    assert game.labels() == ["{levels: 0, with_card: false}", "{levels: 1, with_card: false}"]
    game.check()


def test_loan_pays_the_upkeep_blocks_climbing_and_is_repaid_at_any_time(prog: Program) -> None:
    """seed 002 §Phase 6 借款: 若玩家要避開突然的聲望下跌, 他可以在這個階段借款, 他可以向銀行拿一個
    灰色的 "Kredit" 卡及 2,000 元, 一個玩家一個回合僅可以借一次, 而他可以在任何時候還錢, 還錢時必須
    還 2,500 元及灰色的借據卡.  注意: 當玩家擁有借據卡時, 則不能提升聲望.  (A loan of 2,000, one per
    round, repaid with 2,500 at any time; with a loan a player may not climb.)"""
    game = Game(prog, 2)
    game.no_red_cards()
    to_phase_6(game, money={0: 100, 1: 0}, level={0: 3})
    game.decide(0, "yes", LOAN)
    assert game.money(0) == 2100 - 400 and game.get("loans", 0) == 1
    assert game.get("loan_cards") == 7 and game.get("level", 0) == 3
    # no climb for P1 (a loan, and not enough to repay it): round 2 begins
    assert game.round == 2
    game.prepare(money={0: 4000})
    game.until(SEALED)
    assert "repay_loan" in [o.label for o in game.pending.options]
    game.until(CLIMB, 0)
    assert game.labels() == ["{levels: 0, with_card: false}"]   # the loan blocks climbing
    game.decide(0, "repay_loan", CLIMB)
    assert game.get("loans", 0) == 0 and game.get("loan_cards") == 8
    assert game.money(0) == 4000 - 400 - 2500
    assert game.labels() == ["{levels: 0, with_card: false}"]   # 1,100 < 1,200
    game.check()


# =====================================================================================
# The end
# =====================================================================================

@pytest.mark.parametrize("n, end", [(2, 6), (3, 7), (4, 8)])
def test_the_game_ends_after_phase_6_when_the_marker_reaches_6_7_8(prog: Program, n: int,
                                                                    end: int) -> None:
    """seed 002 §遊戲結束: 當回合狀態表的灰色指標器到達適當的位置時, 遊戲結束, 二個人玩時是在位置
    6, 三個人玩時是位置 7, 四個人玩時是位置 8, 當灰色的指標到達時, 完成第六階段後遊戲即結束; 當玩家
    在狀態表的聲望最高的獲勝, 若平手時則比手中的錢.  (The end at 6 / 7 / 8 for 2 / 3 / 4 players,
    after phase 6; highest status wins, money breaks ties.)"""
    game = Game(prog, n)
    game.no_red_cards()
    to_movement(game)
    money = {p: 5000 + 1000 * p for p in range(n)}
    game.prepare(round_marker=end - 2, money=money, level={p: 1 for p in range(n)},
                 wagon_at={"wagon1": "r7"}, wagon_prev={"wagon1": "r6"})
    game.decide(0, mv(1, "wagon1", "city4"), MOVE)
    game.finish_round()                                      # marker end - 1: not yet
    assert game.get("round_marker") == end - 1 and not isinstance(game.pending, Terminal)
    game.until(MOVE)                                         # round 2: P2 moves first
    assert game.pending.player == 1
    game.prepare(wagon_at={"wagon1": "r6"}, wagon_prev={"wagon1": "r5"})
    game.decide(1, mv(2, "wagon1", "r7", "city4"), MOVE)
    game.until(CLIMB)                                        # phase 6 of the last round is played
    game.decide(game.pending.player, "{levels: 1, with_card: false}", CLIMB)
    climber = game.asked[-1][0]
    game.finish_round()
    res = game.pending
    assert isinstance(res, Terminal)
    assert game.get("round_marker") == end
    assert res.scores == tuple(2 if p == climber else 1 for p in range(n))
    assert res.winners == (climber,)


def test_ties_on_status_go_to_the_most_money(prog: Program) -> None:
    """seed 002 §遊戲結束: 若平手時則比手中的錢, 錢多的玩家獲勝 (equal status: most money wins)."""
    game = Game(prog, 2)
    game.no_red_cards()
    to_movement(game)
    game.prepare(round_marker=5, money={0: 700, 1: 600}, level={0: 2, 1: 2},
                 wagon_at={"wagon1": "r7"}, wagon_prev={"wagon1": "r6"})
    game.decide(0, mv(1, "wagon1", "city4"), MOVE)
    game.finish_round()
    res = game.pending
    assert isinstance(res, Terminal)
    assert res.scores == (2, 2) and res.winners == (0,)


def test_a_loan_blocks_victory(prog: Program) -> None:
    """seed 002 §Phase 6 注意: 在回合結束時, 若手中還擁有借據時, 則不管玩家的聲望如何, 均不能獲勝.
    (Whoever still holds a loan at the end cannot win, whatever his status.)  Choice 18: he is not
    eligible to win; if every player holds a loan, nobody wins.  P1: level 5 and a loan; P2:
    level 1."""
    game = Game(prog, 2)
    game.no_red_cards()
    to_movement(game)
    game.prepare(round_marker=5, money={0: 9000, 1: 0}, level={0: 5, 1: 1}, loans={0: 1},
                 wagon_at={"wagon1": "r7"}, wagon_prev={"wagon1": "r6"})
    game.prepare(loan_cards=7)
    game.decide(0, mv(1, "wagon1", "city4"), MOVE)
    game.finish_round()
    res = game.pending
    assert isinstance(res, Terminal)
    assert game.get("loans", 0) == 1 and game.get("level", 0) == 5
    assert res.scores[0] == 5 and res.scores[0] > res.scores[1] and res.winners == (1,)


# =====================================================================================
# The bots' position estimate (not a rule)
# =====================================================================================

def test_estimate_counts_levels_money_barrels_loans_and_upkeep(prog: Program) -> None:
    """Not a rule: the rulebook's `estimate` (docs/language.md §2.19b), what a searching bot
    judges a cut-off position by, in Taler.  Two players: the end is at marker 6, so a level is
    worth 3/2 × climb_cost[7] = 3/2 × 2,400 = 3,600, and 6 arrivals are still to come.  Cloth on
    the top row (buy 400; a raise drops it to the bottom: expected sale (1,000 + 600) / 2 =
    800), the rest on the bottom row (buy 100, expected sale one row up: 700).  The money a
    round's trade needs, counted twice: 1,000 (a wagon) + 3 × 100 (barrels) + the level's upkeep.
    P1 buys 3 cloth in Genua (1,200) and a wine in Paris (100), owns the three wagons free,
    keeps the wine in his warehouse, loads the cloth onto wagon3 and drives it into city4
    (bonus 200; city4 does not produce cloth), and takes 300 from P2 for loading: money
    5,000 − 1,300 + 300 = 4,000, and 1,300 of it again; the cloth 3 × (800 + 200) = 3,000; the
    wine, where wagon1 stands, (100 + 700) / 2 = 400: estimate 8,700, level 0.
    P2 (level 1, one loan) buys 2 iron in Köln (200) and a food in city6 (100), and loads the
    iron onto wagon2 for 300: money 4,400, and 1,300 + 200 of it again; the iron 2 × 700 = 1,400
    (wagon2 has not arrived: no bonus); the food, where no wagon stands, 100 / 2 = 50; the
    level 3,600; the loan −2,500; the upkeep of level 1, 200 × 6 = −1,200: estimate 7,250.
    The score sees only the levels, 0 and 1."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(money={0: 5000, 1: 5000}, step={"cloth": 4}, level={1: 1}, loans={1: 1})
    game.prepare(loan_cards=7)
    for _ in range(3):
        game.decide(0, "{good: cloth, city: genua}", BUY)
    game.decide(1, "{good: iron, city: koeln}", BUY)
    game.decide(1, "{good: iron, city: koeln}", BUY)
    game.decide(1, "{good: food, city: city6}", BUY)
    game.decide(0, "{good: wine, city: paris}", BUY)
    game.decide(0, "pass", BUY)
    game.decide(1, "pass", BUY)
    own_wagons_free(game)                                     # wagon1, in Paris
    game.decide(0, "pass", OWN_LOAD)                          # the wine stays in the warehouse
    own_wagons_free(game)                                     # wagon2, in Köln
    game.decide(1, "[iron, iron]", GUEST_LOAD)
    game.decide(0, "300", FEE)
    game.decide(1, "yes", ACCEPT)
    own_wagons_free(game)                                     # wagon3, in Genua
    game.decide(0, "{good: cloth, count: 3}", OWN_LOAD)
    game.decide(0, mv(4, "wagon3", "r10", "r9", "r8", "city4"), MOVE)
    assert game.pending.player == 1 and game.pending.prompt == MOVE
    assert game.money() == [4000, 4400]
    assert game.cargo(0, "wagon3") == {"cloth": 3} and game.cargo(1, "wagon2") == {"iron": 2}
    assert game.warehouse(0, "paris") == {"wine": 1} and game.warehouse(1, "city6") == {"food": 1}
    assert game.get("arrived")[game.m("wagon3")] and game.bonus()["city4"] == 200
    est = prog.estimated(game.s)
    assert est.scores == (8700, 7250)
    assert est.winners == (0,)
    assert prog.result(game.s).scores == (0, 1)


def test_estimate_does_not_count_borrowed_money_twice(prog: Program) -> None:
    """Not a rule: the estimate counts up to a round's trade needs (here 1,000 + 3 × 100 +
    upkeep 0 = 1,300) of a player's money twice, but not money he borrowed: P1 with 500 and no
    loan is worth 500 + 500 = 1,000; P2, the same player after a loan of 2,000, has 2,500 and
    owes 2,500, and only 2,500 − 2,000 = 500 of his money counts twice: 2,500 + 500 − 2,500 =
    500 — the loan's 500 less, not 1,500 more (seed 002 §Phase 6 還 2,500 元)."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(money={0: 500, 1: 2500}, loans={1: 1})
    assert prog.estimated(game.s).scores == (1000, 500)


def test_estimate_drops_the_levels_of_a_loan_holder_once_no_arrival_is_to_come(
        prog: Program) -> None:
    """Not a rule: once the round marker stands at the end (2 players: 6; no arrival to come,
    seed 002 §遊戲結束), a player still holding a loan cannot win (§Phase 6 注意), so the
    estimate counts his levels for nothing (a level is worth 3/2 × 2,400 = 3,600): P1 (level 3,
    3,000, no loan) is worth 3 × 3,600 + 3,000 = 13,800; P2 (level 4, 3,000, one loan) 3,000 −
    2,500 = 500, not 14,900. One arrival earlier (marker 5) his levels still count: 4 × 3,600 +
    3,000 + 1,000 (his money beyond the loan's 2,000, counted again for a round's trade) −
    2,500 − upkeep 500 = 15,400, and P1's 10,800 + 3,000 + 1,700 (1,000 + 3 × 100 + upkeep 400)
    − 400 = 15,100. Repaid at the end, P2 has 500 and level 4: 4 × 3,600 + 500 = 14,900."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(money={0: 3000, 1: 3000}, level={0: 3, 1: 4}, loans={1: 1}, round_marker=6)
    assert prog.estimated(game.s).scores == (13800, 500)
    game.prepare(round_marker=5)
    assert prog.estimated(game.s).scores == (15100, 15400)
    game.prepare(round_marker=6, money={0: 3000, 1: 500}, loans={1: 0})
    assert prog.estimated(game.s).scores == (13800, 14900)


def test_estimate_drops_the_levels_of_a_player_who_cannot_pay_the_last_upkeep(
        prog: Program) -> None:
    """Not a rule: from the round of the last arrival (2 players: marker 5 of 6) until his
    upkeep is paid, a player whose money (and the cargo of his wagons that entered a city this
    round) cannot pay his level's upkeep will fall to the bottom, or borrow and not win (seed
    002 §Phase 6), so the estimate counts his levels for nothing. Level 2's upkeep is 300; a
    level is worth 3,600. P1 (level 2, 250 Taler) is worth 250 + 250 (his money again, for a
    round's trade) − 300 (the upkeep of the one arrival to come) = 200; P2 (level 2, 300) 2 ×
    3,600 + 300 + 300 − 300 = 7,500. Once P1's upkeep is paid (upkeep_paid), his levels count
    again: 7,400."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(money={0: 250, 1: 300}, level={0: 2, 1: 2}, round_marker=5)
    assert prog.estimated(game.s).scores == (200, 7500)
    game.prepare(upkeep_paid={0: True})
    assert prog.estimated(game.s).scores == (7400, 7500)
    game.prepare(upkeep_paid={0: False}, round_marker=4)    # two arrivals to come: a loan saves it
    assert prog.estimated(game.s).scores[0] == 2 * 3600 + 250 + 250 - 2 * 300


def test_estimate_counts_no_barrels_once_no_arrival_is_to_come(prog: Program) -> None:
    """Not a rule: after the last arrival nothing is sold (seed 002 §遊戲結束: the score is
    the level, then the money), so barrels in a warehouse and on a wagon count nothing: P1
    (level 1, 1,000 Taler, 3 cloth in Paris and 2 wine on wagon1, his upkeep paid) is worth
    3,600 + 1,000 = 4,600 at marker 6; one arrival earlier the same barrels count (more)."""
    game = Game(prog, 2)
    game.no_red_cards()
    game.prepare(money={0: 1000, 1: 1000}, level={0: 1}, upkeep_paid={0: True},
                 warehouse={0: {"paris": {"cloth": 3}}}, cargo={0: {"wagon1": {"wine": 2}}},
                 round_marker=6)
    assert prog.estimated(game.s).scores[0] == 4600
    game.prepare(round_marker=5)
    assert prog.estimated(game.s).scores[0] > 4600 + 1000
