"""Scenario tests of Manila (rulebooks/manila.rules): one rule per test, with exact numbers.

Every test drives the rulebook through its real decisions, with explicit chance: the starting
shares are dealt by choosing the draw outcomes and every die is chosen, so each scenario is the
smallest position that shows its rule. `prog.set` only prepares a position (cash, mortgaged
shares, prices) before the first decision; it never does what the rule under test should do.

Sources quoted in the docstrings:
  seed 003    shared/seeds/003_b49210f41d9164aa.txt (Traditional Chinese; the authority)
  rules-data  shared/rules-data/manila.md
  choice N    docs/games/manila.md, "Choices where the rules are ambiguous"

Unless a test says otherwise: 4 players, P1 = seat 0; the default deal gives P1 and P3 nutmeg +
silk and P2 and P4 ginseng + jade; nobody bids in voyage 1, so P1 is harbour master for 0; he
buys nothing, leaves the nutmeg ashore and starts silk on 0, ginseng on 4 and jade on 5.
Dice are listed per roll in Good order of the boats still at sea (silk, ginseng, jade).
"""
from __future__ import annotations

import itertools
import random
from typing import Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game_driver import ScenarioGame
from shipped import shipped_program

from mercator.interpreter.engine.nodes import Chance, Decision, Terminal
from mercator.interpreter.engine.program import Program


GOODS = ("nutmeg", "silk", "ginseng", "jade")
DEFAULT_STARTS = "{silk: 0, ginseng: 4, jade: 5}"

BID = "bid (or pass)"
BUY = "buy one share (or pass)"
ASHORE = "which good stays ashore this voyage?"
STARTS = "start spaces of the three boats (sum 9)"
PLACE = "place an accomplice (pass = no more this voyage)"
RAISE = "mortgage a share to raise the money"
BOARD = "board a boat on space 13 (or stay on the pirate ship)"
PLUNDER = "send the plundered boat to"
SMALL_PILOT = "small pilot: move a boat 1 space (or pass)"
LARGE_PILOT = "large pilot: move one boat 2 spaces, or a first boat 1 space (or pass)"
LARGE_PILOT_2 = "large pilot: move another boat 1 space (or pass)"

# dice for 0, 1, 2 or 3 boats reaching Manila with the default starts (silk 0, ginseng 4,
# jade 5); no boat ever ends a roll on 13.  3 arrivals: jade and ginseng after roll 2 (17, 16),
# silk after roll 3 (18).
ARRIVALS_DICE = {
    0: [(1, 1, 1), (1, 1, 1), (1, 1, 1)],      # 3, 7, 8: all three to the shipyard
    1: [(1, 1, 6), (1, 1, 6), (1, 1)],         # jade arrives (harbour A)
    2: [(1, 6, 6), (1, 6, 6), (1,)],           # ginseng and jade arrive
    3: [(6, 6, 6), (6, 6, 6), (6,)],           # all three arrive
}


@pytest.fixture(scope="module")
def prog() -> Program:
    return shipped_program("manila")


def default_deal(n: int) -> list[tuple[str, str]]:
    return [(GOODS[(2 * i) % 4], GOODS[(2 * i + 1) % 4]) for i in range(n)]


class Game(ScenarioGame):
    """One Manila game with explicit chance, driven decision by decision.

    The constructor deals the starting shares by choosing the draws (`deal`: two goods per
    player) and, while the last draw is pending (setup done but for that card, the auction not
    yet begun), adjusts the position: `pesos` {player: cash}, `mortgaged` {player: [goods]}
    (turned from his shares; not for the last player, whose second card is still to come),
    `step` {good: price step}.
    """

    def __init__(self, prog: Program, n: int = 4, deal=None, pesos=None, mortgaged=None,
                 step=None):
        self.prog = prog
        self.n = n
        self.s = prog.new_game(n, seed=0, narrate=True, explicit_chance=True)
        self.asked: list[tuple[int, str]] = []        # (player, prompt) of every decision made
        cards = [g for hand in (deal or default_deal(n)) for g in hand]
        assert len(cards) == 2 * n
        for i, g in enumerate(cards):
            node = self.s.pending
            assert isinstance(node, Chance) and node.what == "draw", node
            if i == len(cards) - 1:
                self._adjust(pesos or {}, mortgaged or {}, step or {})
            prog.apply(self.s, g)

    def _adjust(self, pesos: dict, mortgaged: dict, step: dict) -> None:
        for p, v in pesos.items():
            self.prog.set(self.s, "pesos", v, player=p)
        for p, goods in mortgaged.items():
            assert p < self.n - 1, "the last player's second share is not dealt yet"
            sh = dict(self.get("shares", p))
            mo = dict(self.get("mortgaged", p))
            for g in goods:
                k = self.g(g)
                sh[k] -= 1
                if sh[k] == 0:
                    del sh[k]
                mo[k] = mo.get(k, 0) + 1
            self.prog.set(self.s, "shares", sh, player=p)
            self.prog.set(self.s, "mortgaged", mo, player=p)
        if step:
            steps = dict(self.get("step"))
            for g, v in step.items():
                steps[self.g(g)] = v
            self.prog.set(self.s, "step", steps)

    # ---------------------------------------------------------------- reading the state
    def g(self, name: str) -> int:
        return self.prog.member(name)

    def pesos(self, p: Optional[int] = None):
        if p is None:
            return [self.get("pesos", q) for q in range(self.n)]
        return self.get("pesos", p)

    def by_good(self, m: dict) -> dict:
        """A map or bag keyed by Good, re-keyed by good name."""
        return {name: m[self.g(name)] for name in GOODS if self.g(name) in m}

    def goods(self, xs) -> list[str]:
        """A list of Good values as names."""
        return [GOODS[[self.g(n) for n in GOODS].index(x)] for x in xs]

    # ---------------------------------------------------------------- acting
    def bid(self, player: int, amount) -> None:
        self.decide(player, "pass" if amount is None else str(amount), BID)

    def place(self, player: int, space: str) -> None:
        self.decide(player, space, PLACE)

    def passes(self, *players: int) -> None:
        for p in players:
            self.place(p, "pass")

    def roll(self, *pips: int) -> None:
        for pip in pips:
            node = self.s.pending
            assert isinstance(node, Chance) and node.what == "roll", f"expected a die, got {node}"
            assert [o.label for o in node.options] == ["1", "2", "3", "4", "5", "6"]
            self.prog.apply(self.s, str(pip))

    def begin_voyage_1(self, ashore: str = "nutmeg", starts: str = DEFAULT_STARTS) -> None:
        """Nobody bids (P1 becomes harbour master for 0); he buys nothing, leaves `ashore`
        ashore and launches the boats on `starts`."""
        for p in range(self.n):
            self.bid(p, None)
        self.duties(0, ashore, starts)

    def duties(self, master: int, ashore: str = "nutmeg", starts: str = DEFAULT_STARTS) -> None:
        self.decide(master, "pass", BUY)
        self.decide(master, ashore, ASHORE)
        self.decide(master, starts, STARTS)

    def pass_placements(self) -> None:
        """Every player asked to place in this round passes."""
        while isinstance(self.s.pending, Decision) and self.s.pending.prompt == PLACE:
            self.place(self.s.pending.player, "pass")

    def check(self) -> None:
        """The rulebook's invariants hold (no negative cash, 20 shares, ...)."""
        assert self.prog.check_invariants(self.s) == []
        assert all(v >= 0 for v in self.pesos())


# =====================================================================================
# Setup
# =====================================================================================

def test_setup_thirty_pesos_two_secret_shares_rest_in_supply(prog: Program) -> None:
    """seed 003 §遊戲準備: 每位玩家得到３０元披索 ... 從２０份股份中，每種各拿出三張，將這些股份卡片
    牌面向下洗牌。每位玩家得到兩張 ... 將所有剩下的卡片 ... 放在遊戲板旁 ... 將四個價值指示標誌放在
    黑市價格表的最下方空間.  (30 pesos each; 3 shares of each good shuffled, 2 dealt to each
    player; all other cards by the board; price markers at the bottom.)  rules-data
    "Components / setup": players 3–5."""
    game = Game(prog, 4)
    assert game.pesos() == [30, 30, 30, 30]
    assert [game.by_good(game.get("shares", p)) for p in range(4)] == [
        {"nutmeg": 1, "silk": 1}, {"ginseng": 1, "jade": 1}] * 2
    # each good: 5 shares, 2 dealt, 3 in the supply (2 never dealt + 1 undealt)
    assert game.by_good(game.get("supply")) == {g: 3 for g in GOODS}
    assert game.get("share_deck") == {}
    assert game.by_good(game.get("step")) == {g: 0 for g in GOODS}
    assert isinstance(game.pending, Decision) and game.pending.prompt == BID
    for bad in (2, 6):
        with pytest.raises(ValueError):
            prog.new_game(bad, seed=0)


# =====================================================================================
# 1. The harbour master — auction and duties
# =====================================================================================

def test_auction_voyage_1_opened_by_p1_pass_is_final_winner_pays_the_bank(prog: Program) -> None:
    """seed 003 §競標海港負責人的辦事處: 在第一段航程中，最老的玩家開始競標，起標價最低為１元披索
    （或是ｐａｓｓ）... 當一位玩家在一個航程中的競標中ｐａｓｓ後，他不能在往後的過程中重新進入競標。
    競標過程在除了其中一位玩家之外的所有玩家ｐａｓｓ之後結束。這位玩家贏得競標。他將得標價交給海港的
    錢箱，成為新的港口負責人.  (Voyage 1: the oldest player (P1, choice 1) opens, first bid ≥ 1;
    a pass is final; the last bidder left wins, pays the bank and becomes harbour master.)"""
    game = Game(prog, 4)
    assert game.labels()[:3] == ["pass", "1", "2"]          # P1 opens; the first bid is ≥ 1
    game.bid(0, 1)
    game.bid(1, None)                                       # P2 is out for this voyage
    game.bid(2, 2)
    assert game.labels()[1] == "3"                          # every bid beats the high bid
    game.bid(3, 3)
    game.bid(0, 4)
    game.bid(2, None)                                       # P2 is skipped: passed before
    game.bid(3, 5)
    game.bid(0, None)                                       # only P4 is left: he wins
    assert [p for p, prompt in game.asked if prompt == BID] == [0, 1, 2, 3, 0, 2, 3, 0]
    assert game.get("harbour_master") == 3
    assert game.pesos() == [30, 30, 30, 25]                  # the winner paid 5 to the bank
    assert game.pending.player == 3 and game.pending.prompt == BUY
    assert "P4 is harbour master for 5" in game.s.messages
    game.check()


def test_auction_later_voyage_opened_by_previous_master_no_bids_keeps_him(prog: Program) -> None:
    """seed 003 §競標海港負責人的辦事處: 在接下來的航程中，由前一個回合擁有海港負責人的玩家開始競標
    ... 如果沒有玩家參與競標，上一段航程的港口負責人仍為這個航程的負責人.  (Later voyages: the
    previous harbour master opens; if nobody bids he stays harbour master, paying nothing.)"""
    game = Game(prog, 4)
    game.bid(0, None)
    game.bid(1, None)
    game.bid(2, 3)                                          # P3 wins voyage 1 for 3
    game.bid(3, None)
    game.duties(2)
    game.pass_placements()                                  # a quiet voyage: nobody places,
    game.roll(1, 1, 1)                                      # no boat arrives
    game.roll(1, 1, 1)
    game.roll(1, 1, 1)
    assert game.pesos() == [30, 30, 27, 30]
    # voyage 2: P3, the previous master, opens; clockwise P4, P1, P2
    for p in (2, 3, 0, 1):
        game.bid(p, None)
    assert [p for p, prompt in game.asked if prompt == BID][-4:] == [2, 3, 0, 1]
    assert game.get("harbour_master") == 2
    assert game.pesos() == [30, 30, 27, 30]                  # nothing paid
    assert game.pending.player == 2 and game.pending.prompt == BUY
    game.check()


def test_auction_voyage_1_no_bids_p1_is_master_for_0(prog: Program) -> None:
    """PLACEHOLDER (rules-data "Voyage sequence" 1: "For voyage 1 no source covers it →
    PLACEHOLDER: the player who bid first becomes harbour master for 0"); seed 003 only says
    the previous master stays (如果沒有玩家參與競標，上一段航程的港口負責人仍為這個航程的負責人)."""
    game = Game(prog, 4)
    for p in range(4):
        game.bid(p, None)
    assert game.get("harbour_master") == 0
    assert game.pesos() == [30, 30, 30, 30]
    assert game.pending.player == 0 and game.pending.prompt == BUY
    assert "P1 is harbour master for 0" in game.s.messages


def test_bid_limit_is_cash_plus_12_per_unmortgaged_share(prog: Program) -> None:
    """seed 003 §信用貸款: 他不能以高過他的現金與尚未抵押的股份的總和的金額競標海港負責人的辦事處;
    §競標海港負責人的辦事處: 玩家的競標價不能超過他所能付出的價格。玩家可以將他的股份拿去抵押貸款
    (a bid may not exceed cash + 12 per unmortgaged share).  Choice 3: the limit follows his means
    during the auction — redeeming a share (15) lowers it at once."""
    # P2: 20 pesos, ginseng unmortgaged, jade mortgaged; P3: 0 pesos, both shares mortgaged
    game = Game(prog, 4, pesos={1: 20, 2: 0}, mortgaged={1: ["jade"], 2: ["nutmeg", "silk"]})
    assert game.get("bid_limit") == {0: 54, 1: 32, 2: 0, 3: 54}
    assert game.labels()[-1] == "54"                        # P1: 30 + 12 × 2
    assert game.labels() == ["pass"] + [str(b) for b in range(1, 55)]
    game.bid(0, 1)
    assert game.labels() == ["pass"] + [str(b) for b in range(2, 33)]   # P2: 20 + 12 × 1
    labels = [o.label for o in game.pending.options]
    assert "redeem(jade)" in labels and "mortgage(ginseng)" in labels
    game.decide(1, "redeem(jade)", BID)                     # 5 pesos, 2 unmortgaged shares
    assert game.pesos(1) == 5
    assert game.labels()[-1] == "29"                        # 5 + 12 × 2 = 32 − 3
    game.decide(1, "mortgage(ginseng)", BID)                # a mortgage raises cash, not the limit
    assert game.pesos(1) == 17 and game.labels()[-1] == "29"
    game.bid(1, None)
    assert game.labels() == ["pass"]                        # P3: 0 + 12 × 0
    game.check()


@pytest.mark.parametrize("step, price", [(0, 5), (1, 5), (2, 10), (3, 20)])
def test_share_purchase_costs_max_5_and_value(prog: Program, step: int, price: int) -> None:
    """seed 003 §購買一份股份: 股份的成本由該種類的貨物目前在黑市的價格決定。然而，股份的最低價格
    永遠為５元披索。只有海港負責人可以買進股份 (the harbour master may buy one share at the good's
    current black-market value, never less than 5).  rules-data: max(5, current value)."""
    game = Game(prog, 4, step={"silk": step})
    for p in range(4):
        game.bid(p, None)
    assert game.labels() == ["pass", "nutmeg", "silk", "ginseng", "jade"]
    supply = game.by_good(game.get("supply"))["silk"]
    game.decide(0, "silk", BUY)
    assert game.pesos(0) == 30 - price
    assert game.by_good(game.get("shares", 0)) == {"nutmeg": 1, "silk": 2}
    assert game.by_good(game.get("supply"))["silk"] == supply - 1
    assert game.pending.prompt == ASHORE                    # one share only
    game.check()


def test_share_purchase_only_what_the_master_can_pay(prog: Program) -> None:
    """seed 003 §購買一份股份 (ｂｕｙ at max(5, value)) with §信用貸款 (he can pay with cash and
    mortgages): choice 4 — only goods whose price he can pay are offered.  P1 has 19 pesos and
    no unmortgaged share; jade is at step 3 (20), the others at 0 (5)."""
    game = Game(prog, 4, pesos={0: 19}, mortgaged={0: ["nutmeg", "silk"]}, step={"jade": 3})
    for p in range(4):
        game.bid(p, None)
    assert game.labels() == ["pass", "nutmeg", "silk", "ginseng"]


def test_loading_and_start_positions_sum_to_9(prog: Program) -> None:
    """seed 003 §裝載貨物: 他決定哪一種貨物不裝載; §將平底船放入海中: 海港負責人將每艘平底船放入其中
    一條航道，但是兩艘平底船不能在相同的航道 ... 數字０到５中的任何一個起始位置。然而，這三艘平底船的
    起始位置的和必須剛好是９.  (He leaves one good ashore; each boat in its own lane on a start
    space 0–5; the three starts sum to exactly 9.)  Choice 5: one decision among all such maps."""
    game = Game(prog, 4)
    for p in range(4):
        game.bid(p, None)
    game.decide(0, "pass", BUY)
    assert game.labels() == list(GOODS)
    game.decide(0, "nutmeg", ASHORE)
    assert game.goods(game.get("loaded")) == ["silk", "ginseng", "jade"]
    triples = [t for t in itertools.product(range(6), repeat=3) if sum(t) == 9]
    assert len(triples) == 25
    expected = [f"{{silk: {a}, ginseng: {b}, jade: {c}}}" for a, b, c in triples]
    assert game.labels() == expected
    game.decide(0, "{silk: 0, ginseng: 4, jade: 5}", STARTS)
    assert game.by_good(game.get("position")) == {"nutmeg": 0, "silk": 0, "ginseng": 4, "jade": 5}
    assert game.pending.player == 0 and game.pending.prompt == PLACE
    assert "the jade boat starts on space 5" in game.s.messages


# =====================================================================================
# 2. Accomplices, boats, pirates, pilots
# =====================================================================================

@pytest.mark.parametrize("n, each, before_roll", [(3, 4, 6), (4, 3, 4), (5, 3, 5)])
def test_placement_schedule_by_player_count(prog: Program, n: int, each: int,
                                            before_roll: int) -> None:
    """seed 003 §遊戲準備: 每位玩家得到 ... 三個同夥。如果只有三位玩家進行遊戲，每位玩家得到四個同夥;
    §第二步驟: 這個階段有三個同夥放置回合，每個同夥放置回合後有一個平底船移動回合 ... 在三人遊戲中，
    有四個同夥放置回合與三個平底船移動回合：在第一個同夥放置回合之後，執行第二個同夥放置回合。接著開始
    第一個平底船移動回合.  (3 accomplices each, 4 with 3 players; 3 placement rounds each followed
    by a roll; with 3 players two placement rounds come before the first roll.)"""
    game = Game(prog, n)
    for p in range(n):
        game.bid(p, None)
    game.duties(0)
    assert [game.get("accomplices", p) for p in range(n)] == [each] * n
    legs = []
    for leg in range(3):
        count = 0
        while isinstance(game.pending, Decision):
            assert game.pending.prompt == PLACE
            game.place(game.pending.player, game.labels()[1])   # the first free space
            count += 1
        legs.append(count)
        game.roll(*[1] * 3)                                  # nobody reaches Manila
    assert legs == [before_roll, n, n]
    placers = [p for p, prompt in game.asked if prompt == PLACE]
    assert placers[:before_roll] == [p % n for p in range(before_roll)]   # clockwise from P1
    assert len(placers) == n * each
    # the voyage is over: the next begins with the auction, every accomplice back in hand
    assert game.pending.prompt == BID
    assert [game.get("accomplices", p) for p in range(n)] == [each] * n
    game.check()


@pytest.mark.parametrize("crew", [1, 2, 3, 4])
def test_jade_crew_share_36_and_seats_cost_3_4_5_5(prog: Program, crew: int) -> None:
    """rules-data "Punt seats": jade | 4 seats | seat costs (in fill order) 3, 4, 5, 5 | profit 36
    shared equally by seated accomplices if the punt arrives; seed 003 §貨倉: 他應該選擇該貨倉中最低價
    的空的空格; §第三步驟: 每個貨倉上有可分配的利潤，由同夥均分.  (A seat costs the cheapest free
    seat's price; the crew of an arriving boat share its profit: 36, 18, 12, 9.)"""
    game = Game(prog, 4)
    game.begin_voyage_1()
    costs = [3, 4, 5, 5]
    for p in range(4):
        if p < crew:
            game.place(p, "jade_boat")
            assert game.pesos(p) == 30 - costs[p]
        else:
            game.place(p, "pass")
    assert game.get("crew")[game.g("jade")] == list(range(crew))
    game.roll(1, 1, 6)                                       # jade 11
    game.passes(*range(crew))
    game.roll(1, 1, 6)                                       # jade 17: in Manila
    game.roll(1, 1)                                          # silk 3, ginseng 7: shipyard
    expected = [30 - costs[p] + 36 // crew if p < crew else 30 for p in range(4)]
    assert game.pesos() == expected
    assert 36 // crew == {1: 36, 2: 18, 3: 12, 4: 9}[crew]
    assert game.by_good(game.get("step")) == {"nutmeg": 0, "silk": 0, "ginseng": 0, "jade": 1}
    assert game.pending.player == 0 and game.pending.prompt == BID     # voyage 2
    game.check()


def test_a_full_boat_is_not_offered(prog: Program) -> None:
    """seed 003 §貨倉: 對人蔘，絲綢，以及肉荳蔻，船上有三個同夥空格，而對於玉，船上有四個同夥空格
    ... 只要船上還有可供放置的空間 (3 seats on ginseng, silk, nutmeg, 4 on jade; only while a seat
    is free).  The ginseng seats cost 1, 2, 3 (rules-data "Punt seats")."""
    game = Game(prog, 3)
    for p in range(3):
        game.bid(p, None)
    game.duties(0)
    for p in range(3):
        game.place(p, "ginseng_boat")
    assert game.pesos() == [29, 28, 27]
    assert "ginseng_boat" not in game.labels()
    assert game.labels()[:3] == ["pass", "silk_boat", "jade_boat"]


@pytest.mark.parametrize("arrivals", [0, 1, 2, 3])
def test_harbour_offices_pay_with_1_2_3_arrivals(prog: Program, arrivals: int) -> None:
    """rules-data "Harbour (wharf) and shipyard offices": Harbour A | 4 | ≥1 punt in harbour | 6;
    Harbour B | 3 | ≥2 | 8; Harbour C | 2 | 3 punts | 15.  seed 003 §第三步驟: 港口／修船場的同夥只有
    在平底船抵達他們被部署的港口 ... 港口的利潤由港口的錢箱分配 (harbour offices are paid by the
    bank, only if a boat arrived in their slot); §成功的航程: 第一艘 ... Ａ，第二艘 ... Ｂ ... Ｃ."""
    game = Game(prog, 4)
    game.begin_voyage_1()
    game.place(0, "harbour_a")
    game.place(1, "harbour_b")
    game.place(2, "harbour_c")
    game.place(3, "pass")
    assert game.pesos() == [26, 27, 28, 30]
    first, second, third = ARRIVALS_DICE[arrivals]
    game.roll(*first)
    game.passes(0, 1, 2)
    game.roll(*second)
    game.roll(*third)
    assert game.pesos() == [26 + 6 * (arrivals >= 1), 27 + 8 * (arrivals >= 2),
                            28 + 15 * (arrivals >= 3), 30]
    arrived = {0: [], 1: ["jade"], 2: ["ginseng", "jade"], 3: ["silk", "ginseng", "jade"]}
    assert game.by_good(game.get("step")) == {g: int(g in arrived[arrivals]) for g in GOODS}
    game.check()


@pytest.mark.parametrize("wrecked", [0, 1, 2, 3])
def test_shipyard_paid_by_the_insurer_6_14_29(prog: Program, wrecked: int) -> None:
    """seed 003 §保險: 玩家可以將他的同夥放在這裡，不用負擔任何費用，但是立即從港口的錢箱得到１０元披索;
    §第三步驟: 修船場的利潤由保險仲介者發出; §保險理賠: 保險仲介者必須理賠給同夥所屬玩家.  rules-data
    "Insurance": 0 | +10 from bank on placement | pays A=6, B=8, C=15 (cumulative 6 / 14 / 29 for
    1/2/3 punts).  (Insurance is free and pays 10 at once; the insurer pays every shipyard office
    whose slot a wrecked boat took.)"""
    game = Game(prog, 4)
    game.begin_voyage_1()
    game.place(0, "insurance")
    assert game.pesos(0) == 40                               # +10 at once
    game.place(1, "shipyard_a")
    game.place(2, "shipyard_b")
    game.place(3, "shipyard_c")
    assert game.get("office")[game.g("insurance")] == 0
    stats = dict(zip(prog.stat_names, game.s.stats))
    assert stats["insurances"] == 1                          # compare's count of insurers
    first, second, third = ARRIVALS_DICE[3 - wrecked]
    game.roll(*first)
    game.passes(0, 1, 2, 3)
    game.roll(*second)
    game.roll(*third)
    claims = [0, 6, 14, 29][wrecked]
    assert game.pesos() == [40 - claims, 26 + 6 * (wrecked >= 1), 27 + 8 * (wrecked >= 2),
                            28 + 15 * (wrecked >= 3)]
    game.check()


def test_insurer_pays_the_bank_for_shipyard_slots_without_holder(prog: Program) -> None:
    """seed 003 §保險理賠: 如果平底船停泊的修船場空格有部署同夥，保險仲介者必須理賠給同夥所屬玩家；
    如果平底船停泊的修船場空格沒有部署同夥，則付給海港的錢箱 (the insurer pays the slot's holder,
    or the bank when the slot is empty).  Two boats wrecked: 6 + 8 = 14."""
    game = Game(prog, 4)
    game.begin_voyage_1()
    game.place(0, "insurance")
    game.passes(1, 2, 3)
    first, second, third = ARRIVALS_DICE[1]
    game.roll(*first)
    game.passes(0)
    game.roll(*second)
    game.roll(*third)
    assert game.pesos() == [40 - 14, 30, 30, 30]
    game.check()


def test_insurer_short_of_cash_mortgages_shares_of_his_choice(prog: Program) -> None:
    """seed 003 §保險理賠: 保險仲介者的玩家在付出平底船修理費用之前，首先在航程中得到利潤。如果他沒有
    足夠的現金付出理賠，他必須要貸款以補足差額 (he gets his income first; if his cash is short he
    must take loans).  §信用貸款 + choice 16: he chooses which share, one at a time, and is
    offered nothing else.  P1 (0 pesos, nutmeg + silk) insures; three boats wreck: 29 owed."""
    game = Game(prog, 4, pesos={0: 0})
    game.begin_voyage_1()
    game.place(0, "insurance")
    game.place(1, "shipyard_a")
    game.place(2, "shipyard_b")
    game.place(3, "shipyard_c")
    assert game.pesos() == [10, 26, 27, 28]
    game.roll(1, 1, 1)
    game.passes(0, 1, 2, 3)
    game.roll(1, 1, 1)
    game.roll(1, 1, 1)
    node = game.pending
    assert node.player == 0 and node.prompt == RAISE
    assert [o.label for o in node.options] == ["nutmeg", "silk"]   # no pass, no other action
    game.decide(0, "silk", RAISE)                            # 22 < 29: again
    assert [o.label for o in game.pending.options] == ["nutmeg"]
    game.decide(0, "nutmeg", RAISE)                          # 34 − 29
    assert game.pesos() == [5, 32, 35, 43]
    assert game.by_good(game.get("mortgaged", 0)) == {"nutmeg": 1, "silk": 1}
    assert game.get("shares", 0) == {}
    assert game.pending.prompt == BID
    game.check()


def test_insurer_who_cannot_pay_the_bank_covers_the_rest(prog: Program) -> None:
    """seed 003 §保險理賠: 如果他即使貸款之後仍無法付出理賠金，他付出他能負擔的所有金額，剩下的由
    海港的錢箱負擔。這位玩家不需將海港錢箱付出的金額歸還 (he pays all he can, the bank covers the
    rest, and he owes nothing).  rules-data "Insurance": any remainder is covered by the bank and
    forgiven.  P1: 0 pesos, silk unmortgaged, nutmeg already mortgaged; 29 owed."""
    game = Game(prog, 4, pesos={0: 0}, mortgaged={0: ["nutmeg"]})
    game.begin_voyage_1()
    game.place(0, "insurance")
    game.place(1, "shipyard_a")
    game.place(2, "shipyard_b")
    game.place(3, "shipyard_c")
    game.roll(1, 1, 1)
    game.passes(0, 1, 2, 3)
    game.roll(1, 1, 1)
    game.roll(1, 1, 1)
    assert [o.label for o in game.pending.options] == ["silk"]
    game.decide(0, "silk", RAISE)                            # 10 + 12 = 22 < 29: all of it
    assert game.pesos() == [0, 32, 35, 43]                   # holders paid in full
    assert game.by_good(game.get("mortgaged", 0)) == {"nutmeg": 1, "silk": 1}
    assert game.pending.player == 0 and game.pending.prompt == BID
    assert game.labels() == ["pass"]                         # nothing left to bid with
    game.check()


def test_pirates_board_a_boat_on_13_after_roll_2(prog: Program) -> None:
    """seed 003 §海盜登船: 如果選擇登船，玩家將他的海盜移至平底船上的空格。如果平底船上沒有空格，
    海盜無法登船。海盜船長（在海盜船前面的那位）可以先登船。在船長登船（或選擇不登船）之後，第二位海盜
    可以登船 ... 當海盜船長登上平底船，第二位海盜立刻成為海盜船長.  §海盜空格: 第一個使用海盜空格的
    同夥佔據第一格，成為海盜船的船長.  rules-data "Pirates": board into a FREE seat (becoming crew;
    pays nothing more).  (After roll 2, the captain then the second pirate may board a boat
    exactly on 13 with a free seat; a boarder shares that boat's profit like crew.)"""
    game = Game(prog, 4)
    game.begin_voyage_1()
    game.place(0, "pirate")                                  # captain
    game.place(1, "pirate")
    game.place(2, "ginseng_boat")
    game.place(3, "ginseng_boat")
    assert game.get("pirates") == [0, 1]
    game.roll(1, 4, 4)                                       # silk 1, ginseng 8, jade 9
    game.place(0, "ginseng_boat")                            # ginseng full
    game.place(1, "pass")
    game.place(2, "jade_boat")
    game.place(3, "pass")
    assert game.pesos() == [22, 25, 26, 28]
    game.roll(1, 5, 4)                                       # silk 2, ginseng 13, jade 13
    node = game.pending
    assert node.player == 0 and node.prompt == BOARD         # the captain first
    assert game.labels() == ["pass", "jade"]                 # ginseng has no free seat
    game.decide(0, "jade", BOARD)
    assert game.get("crew")[game.g("jade")] == [2, 0]
    assert game.get("pirates") == [1]                        # P2 is captain now
    assert game.pesos(0) == 22                               # the seat is free
    assert game.pending.player == 1 and game.labels() == ["pass", "jade"]
    game.decide(1, "pass", BOARD)
    game.passes(0, 2)
    game.roll(1, 6, 6)                                       # ginseng and jade reach Manila
    # ginseng 18 / 3 crew (P3, P4, P1); jade 36 / 2 crew (P3, P1 the boarder)
    assert game.pesos() == [22 + 6 + 18, 25, 26 + 6 + 18, 28 + 6]
    game.check()


@pytest.mark.parametrize("pirates", [1, 2])
@pytest.mark.parametrize("destination", ["harbour", "shipyard"])
def test_pirates_plunder_a_boat_on_13_after_roll_3(prog: Program, pirates: int,
                                                   destination: str) -> None:
    """seed 003 §劫掠船隻: 所有在平底船上的同夥被移出船隻，交還給他們的玩家。海盜從海港的錢箱中得到
    每艘被劫掠的船的收入 ... 海盜船長個別決定每艘平底船停在港口或是修船場。如果他決定將平底船停在港口，
    被劫掠的貨物提升價值.  §第三步驟: 海盜 ... 平均分配利潤。如果海盜船上只有一位海盜，他得到所有 ...
    利潤。所有在被劫掠的平底船上的同夥則空手而回.  (The crew go home unpaid; the pirates split the
    profit (one pirate gets all); the captain sends the boat to the harbour — its good rises and
    it counts for the harbour offices — or to the shipyard.)"""
    game = Game(prog, 4)
    game.begin_voyage_1()
    game.place(0, "pirate")
    game.place(1, "pirate" if pirates == 2 else "pass")
    game.place(2, "jade_boat")
    game.place(3, "jade_boat")
    game.roll(1, 6, 2)                                       # silk 1, ginseng 10, jade 7
    if pirates == 2:
        game.passes(0, 1)
    else:
        game.passes(0)                                       # P2 passed in round 1
    game.place(2, "harbour_b")
    game.place(3, "pass")
    game.roll(1, 6, 2)                                       # ginseng 16: harbour A; jade 9
    game.passes(2)
    game.roll(1, 4)                                          # silk 3; jade on 13
    node = game.pending
    assert node.player == 0 and node.prompt == PLUNDER
    assert game.labels() == ["harbour", "shipyard"]
    assert game.get("crew")[game.g("jade")] == []            # crew sent home
    game.decide(0, destination, PLUNDER)
    cut = 36 // pirates
    harbour_b = 8 if destination == "harbour" else 0         # 2 boats in Manila
    assert game.pesos() == [25 + cut, 25 + cut if pirates == 2 else 30, 24 + harbour_b, 26]
    assert game.by_good(game.get("step")) == {
        "nutmeg": 0, "silk": 0, "ginseng": 1, "jade": int(destination == "harbour")}
    game.check()


def test_pilots_push_past_13_and_onto_13(prog: Program) -> None:
    """seed 003 §領航員如何執行任務: 小領航員 ... 先執行。他可以將一艘平底船向前或向後移動一格。接著，
    輪到大領航員 ... 他可以將其中一艘平底船移動兩格或是將兩艘平底船各移動一格 ... 領航員無法影響已經
    抵達馬尼拉的平底船 ... 當領航員將船移動通過第１３個空格，平底船抵達目的地港口，他將平底船放置於下
    一個港口空格。當領航員將船移動至第１３個空格，沒有事情發生（海盜只在移動回合結束時進行攻擊）.
    (Small pilot first (±1), then the large (±2, or ±1 on two boats); boats in Manila are out of
    reach; past 13 = arrival at the next harbour slot; onto 13 = nothing, pirates act only after
    a roll.)"""
    game = Game(prog, 4)
    game.begin_voyage_1()
    game.place(0, "large_pilot")
    game.place(1, "small_pilot")
    game.place(2, "pirate")
    game.place(3, "harbour_b")
    assert game.pesos() == [25, 28, 25, 27]
    game.roll(5, 4, 6)                                       # silk 5, ginseng 8, jade 11
    game.passes(0, 1, 2, 3)
    game.roll(5, 4, 6)                                       # silk 10, ginseng 12, jade 17
    assert game.goods(game.get("harbour_boats")) == ["jade"]
    node = game.pending
    assert node.player == 1 and node.prompt == SMALL_PILOT   # the small pilot first
    assert game.labels() == ["pass", "{boat: silk, steps: 1}", "{boat: silk, steps: -1}",
                             "{boat: ginseng, steps: 1}", "{boat: ginseng, steps: -1}"]
    game.decide(1, "{boat: ginseng, steps: 1}", SMALL_PILOT)
    assert game.by_good(game.get("position"))["ginseng"] == 13
    node = game.pending                                      # no pirate is asked
    assert node.player == 0 and node.prompt == LARGE_PILOT
    game.decide(0, "{boat: ginseng, steps: 1}", LARGE_PILOT)  # 14: past 13
    assert game.goods(game.get("harbour_boats")) == ["jade", "ginseng"]   # harbour B
    assert game.labels() == ["pass", "{boat: silk, steps: 1}", "{boat: silk, steps: -1}"]
    game.decide(0, "{boat: silk, steps: -1}", LARGE_PILOT_2)
    assert game.by_good(game.get("position"))["silk"] == 9
    game.roll(3)                                             # only silk is at sea: 12
    # the pirate (P3) was only ever asked to bid and to place: no boarding, no plunder
    assert [pr for p, pr in game.asked if p == 2 and pr != BID] == [PLACE, PLACE]
    assert all(prompt not in (BOARD, PLUNDER) for _, prompt in game.asked)
    assert game.pesos() == [25, 28, 25, 27 + 8]              # harbour B: 2 boats arrived
    assert game.by_good(game.get("step")) == {"nutmeg": 0, "silk": 0, "ginseng": 1, "jade": 1}
    game.check()


DOCKS = "no pirate is on the pirate ship: the jade boat on space 13 takes the next harbour space"


def landings(game: Game) -> list[str]:
    """Where the boats went this game, in order: harbour spaces A, B, C are taken in the order
    of the "reaches Manila" lines, shipyard spaces in the order of the "shipyard" lines (the
    board is cleared when the next voyage begins, so the narration is what remains)."""
    return [m for m in game.s.messages if m.endswith(("reaches Manila", "goes to the shipyard"))]


@pytest.mark.parametrize("ahead", [0, 1])
def test_boat_on_13_after_roll_3_with_no_pirate_aboard_takes_the_next_harbour_space(
        prog: Program, ahead: int) -> None:
    """seed 003 §劫掠船隻: 當平底船在第三次移動回合結束時停留在第１３格，且海盜船上沒有海盜，這艘船停留
    在下一個港口空間 (a boat on 13 after the third roll, with no pirate on the pirate ship, stays in
    the next harbour space).  Choice 11: it has arrived — §第三步驟 its crew share its profit
    (jade 36: 18 each for P1 and P3), the harbour office of its space pays (A 6, B 8: rules-data
    "Harbour (wharf) and shipyard offices"), §第四步驟 jade rises one step — and "next" is the
    next free space after every boat already in Manila, a boat that passed 13 on the same third
    roll included (ahead = 1: ginseng takes A, jade B).  The boats still short of 13 go to the
    shipyard (§船難)."""
    game = Game(prog, 4)
    game.begin_voyage_1()
    game.place(0, "jade_boat")                               # seat 3
    game.place(1, "harbour_a")                               # 4
    game.place(2, "jade_boat")                               # seat 4
    game.place(3, "harbour_b")                               # 3
    assert game.pesos() == [27, 26, 26, 27]
    game.roll(1, 2, 2)                                       # silk 1, ginseng 6, jade 7
    game.passes(0, 1, 2, 3)
    game.roll(1, 2, 2)                                       # silk 2, ginseng 8, jade 9
    game.roll(1, 6 if ahead else 1, 4)                       # silk 3; ginseng 14 or 9; jade 13
    assert all(prompt != PLUNDER for _, prompt in game.asked)
    assert landings(game) == {
        0: ["the jade boat reaches Manila",                  # harbour A
            "the silk boat goes to the shipyard", "the ginseng boat goes to the shipyard"],
        1: ["the ginseng boat reaches Manila",               # harbour A
            "the jade boat reaches Manila",                  # harbour B
            "the silk boat goes to the shipyard"],
    }[ahead]
    assert game.s.messages.index(DOCKS) == game.s.messages.index("the jade boat reaches Manila") - 1
    # P1, P3: 18 each from jade; P2: harbour A 6; P4: harbour B 8 only with a second boat in port
    assert game.pesos() == [27 + 18, 26 + 6, 26 + 18, 27 + 8 * ahead] \
        == [45, 32, 44, [27, 35][ahead]]
    assert game.by_good(game.get("step")) == {"nutmeg": 0, "silk": 0, "ginseng": ahead, "jade": 1}
    assert game.pending.player == 0 and game.pending.prompt == BID     # voyage 2
    game.check()


@pytest.mark.parametrize("destination", ["harbour", "shipyard"])
def test_boat_on_13_after_roll_3_with_a_pirate_aboard_is_plundered_not_docked(
        prog: Program, destination: str) -> None:
    """seed 003 §劫掠船隻: 每艘在第三回合結束時抵達空格１３的平底船，落入海盜之手：所有在平底船上的同夥
    被移出船隻 ... 海盜船長個別決定每艘平底船停在港口或是修船場 — the same position as the test
    above (ahead = 0) with P4 on the pirate ship (5) instead of harbour B: the jade boat is
    plundered, not docked.  The crew (P1, P3) go home unpaid, the lone pirate takes all 36
    (§第三步驟), and only if he sends the boat to the harbour does harbour A pay 6 and jade rise."""
    game = Game(prog, 4)
    game.begin_voyage_1()
    game.place(0, "jade_boat")
    game.place(1, "harbour_a")
    game.place(2, "jade_boat")
    game.place(3, "pirate")
    assert game.pesos() == [27, 26, 26, 25]
    game.roll(1, 2, 2)
    game.passes(0, 1, 2, 3)
    game.roll(1, 2, 2)
    game.roll(1, 1, 4)                                       # silk 3, ginseng 9, jade 13
    node = game.pending
    assert node.player == 3 and node.prompt == PLUNDER
    assert game.get("crew")[game.g("jade")] == []
    game.decide(3, destination, PLUNDER)
    assert DOCKS not in game.s.messages
    to_harbour = destination == "harbour"
    assert landings(game) == ["the jade boat reaches Manila" if to_harbour
                              else "the jade boat goes to the shipyard",
                              "the silk boat goes to the shipyard",
                              "the ginseng boat goes to the shipyard"]
    assert game.pesos() == [27, 26 + 6 * to_harbour, 26, 25 + 36]
    assert game.by_good(game.get("step"))["jade"] == int(to_harbour)
    game.check()


def test_pirates_who_boarded_leave_the_ship_empty_so_a_boat_on_13_docks(prog: Program) -> None:
    """seed 003 §劫掠船隻: ... 且海盜船上沒有海盜，這艘船停留在下一個港口空間; §海盜登船: 如果選擇登船，
    玩家將他的海盜移至平底船上的空格.  Choice 11: "no pirate on the pirate ship" is read at the end
    of the third roll, so a ship emptied by boarding after roll 2 counts as empty.  P4, the only
    pirate, boards ginseng on 13 after roll 2; after roll 3 ginseng (14) takes harbour A and jade
    (13) harbour B; P4 is paid as ginseng's crew (18), P1 and P3 as jade's (18 each)."""
    game = Game(prog, 4)
    game.begin_voyage_1()
    game.place(0, "jade_boat")
    game.place(1, "harbour_a")
    game.place(2, "jade_boat")
    game.place(3, "pirate")
    game.roll(1, 4, 2)                                       # silk 1, ginseng 8, jade 7
    game.passes(0, 1, 2, 3)
    game.roll(1, 5, 2)                                       # silk 2, ginseng 13, jade 9
    assert game.labels() == ["pass", "ginseng"]
    game.decide(3, "ginseng", BOARD)
    assert game.get("pirates") == [] and game.get("crew")[game.g("ginseng")] == [3]
    game.roll(1, 1, 4)                                       # silk 3, ginseng 14, jade 13
    assert all(prompt != PLUNDER for _, prompt in game.asked)
    assert DOCKS in game.s.messages
    assert landings(game) == ["the ginseng boat reaches Manila", "the jade boat reaches Manila",
                              "the silk boat goes to the shipyard"]
    assert game.pesos() == [27 + 18, 26 + 6, 26 + 18, 25 + 18] == [45, 32, 44, 43]
    assert game.by_good(game.get("step")) == {"nutmeg": 0, "silk": 0, "ginseng": 1, "jade": 1}
    game.check()


def test_blind_passenger_places_anywhere_paying_all_his_cash(prog: Program) -> None:
    """seed 003 §盲目的旅客: 當玩家沒有現金（也沒有可用來貸款的尚未抵押的股份），或是現金不足以放置
    同夥到最便宜的部署空間，他可以免費（或是以他所有的金額 ...）將同夥如同盲目的旅客般部署在任何有
    空位的空間（除了保險仲介者，不允許他擔任）.  (A player who cannot pay for the cheapest space may
    place on any free space for free, or for all his cash — but not as insurer.)  Choice 7: a
    blind passenger is never offered insurance.
    5 players, ginseng ashore (the cheapest paid space costs 2).  P2: 0 pesos, P3: 1 peso,
    P4: 3 pesos, all three with every share mortgaged."""
    game = Game(prog, 5, pesos={1: 0, 2: 1, 3: 3},
                mortgaged={1: ["ginseng", "jade"], 2: ["nutmeg", "silk"], 3: ["ginseng", "jade"]})
    for p in range(5):
        game.bid(p, None)
    game.duties(0, ashore="ginseng", starts="{nutmeg: 0, silk: 4, jade: 5}")
    game.place(0, "pass")
    everything = ["pass", "nutmeg_boat", "silk_boat", "jade_boat", "harbour_a", "harbour_b",
                  "harbour_c", "shipyard_a", "shipyard_b", "shipyard_c", "pirate", "small_pilot",
                  "large_pilot"]
    assert game.labels() == everything                       # P2: every free space but insurance
    game.place(1, "large_pilot")                             # printed cost 5
    assert game.pesos(1) == 0 and game.get("office")[game.g("large_pilot")] == 1
    assert "P2 travels as a blind passenger, paying 0" in game.s.messages
    assert game.labels() == [x for x in everything if x != "large_pilot"]   # P3, 1 peso
    game.place(2, "jade_boat")                               # seat cost 3: pays his 1 peso
    assert game.pesos(2) == 0 and game.get("crew")[game.g("jade")] == [2]
    # P4 (3 pesos) can pay for the cheapest space: no blind passenger, only what he can pay
    assert game.labels() == ["pass", "nutmeg_boat", "silk_boat", "harbour_b", "harbour_c",
                             "shipyard_b", "shipyard_c", "small_pilot", "insurance"]
    game.place(3, "harbour_c")
    assert game.pesos(3) == 1
    game.place(4, "pass")
    game.roll(1, 1, 1)
    assert "insurance" not in game.labels()                  # choice 7: still blind
    game.place(1, "small_pilot")
    assert game.pesos(1) == 0
    game.place(2, "pirate")                                  # blind again: free
    assert game.pesos(2) == 0 and game.get("pirates") == [2]
    game.check()


@pytest.mark.parametrize("case", ["winning bid", "placement"])
def test_forced_mortgage_when_a_payment_exceeds_cash(prog: Program, case: str) -> None:
    """seed 003 §信用貸款: 當玩家必須付錢而他沒有足夠的現金，他必須貸款，如此他才能解決他的承諾 ...
    對每一張股份，海港的錢箱借款１２元披索 (who must pay more than his cash must mortgage shares,
    12 each); §競標海港負責人的辦事處: 他將得標價交給海港的錢箱 ... 玩家可以將他的股份拿去抵押貸款.
    Choice 16: he chooses which share, and is offered nothing else until he can pay."""
    if case == "winning bid":
        game = Game(prog, 4)
        game.bid(0, 50)                                      # 30 pesos, nutmeg + silk
        for p in (1, 2, 3):
            game.bid(p, None)
        assert game.pending.player == 0 and game.pending.prompt == RAISE
        assert [o.label for o in game.pending.options] == ["nutmeg", "silk"]
        game.decide(0, "silk", RAISE)                        # 42 < 50
        assert [o.label for o in game.pending.options] == ["nutmeg"]
        game.decide(0, "nutmeg", RAISE)                      # 54 − 50
        assert game.pesos(0) == 4
        assert game.by_good(game.get("mortgaged", 0)) == {"nutmeg": 1, "silk": 1}
        assert game.get("harbour_master") == 0
        assert game.pending.prompt == BUY and game.labels() == ["pass"]   # 4 < 5
    else:
        game = Game(prog, 4, pesos={1: 2})
        game.begin_voyage_1()
        game.place(0, "pass")
        assert "large_pilot" in game.labels()                # 2 + 24 ≥ 5
        game.place(1, "large_pilot")
        assert game.pending.player == 1 and game.pending.prompt == RAISE
        assert [o.label for o in game.pending.options] == ["ginseng", "jade"]
        game.decide(1, "jade", RAISE)                        # 14 − 5
        assert game.pesos(1) == 9
        assert game.by_good(game.get("mortgaged", 1)) == {"jade": 1}
        assert game.by_good(game.get("shares", 1)) == {"ginseng": 1}
        assert game.pending.player == 2 and game.pending.prompt == PLACE
    game.check()


# =====================================================================================
# 4. The end and the score
# =====================================================================================

FINAL_DEAL = [("jade", "silk"), ("ginseng", "jade"), ("nutmeg", "silk"), ("ginseng", "jade")]


def test_game_ends_after_the_voyage_a_good_reaches_30_final_wealth(prog: Program) -> None:
    """seed 003 §第四步驟: 當至少一種貨物在黑市價格表的價格達到３０元，遊戲結束; §遊戲結束與勝利者:
    每位玩家統計他的現金（披索）並加上他的股份的價值 ... 在計算總和之後，每一張抵押的股份 ... 扣掉１５元
    披索.  rules-data "Loans": wealth = cash + value of shares held − 15 per unredeemed mortgage
    (M1: all shares counted, then 15 subtracted per loan).  Jade at 20 reaches Manila: 30, the
    game ends after this voyage.  Prices then: jade 30, silk 10, ginseng 5, nutmeg 0."""
    game = Game(prog, 4, deal=FINAL_DEAL, pesos={1: 42}, mortgaged={1: ["jade"]},
                step={"silk": 2, "ginseng": 1, "jade": 3})
    game.begin_voyage_1()
    game.pass_placements()
    game.roll(1, 1, 6)
    game.roll(1, 1, 6)                                       # jade in Manila
    game.roll(1, 1)
    result = game.pending
    assert isinstance(result, Terminal) and game.s.over
    assert game.by_good(game.get("step")) == {"nutmeg": 0, "silk": 2, "ginseng": 1, "jade": 4}
    assert result.scores == (
        30 + 30 + 10,                                        # P1: jade + silk
        42 + 5 + 30 - 15,                                    # P2: ginseng + mortgaged jade
        30 + 0 + 10,                                         # P3: nutmeg + silk
        30 + 5 + 30,                                         # P4: ginseng + jade
    ) == (70, 62, 40, 65)
    assert result.tiebreaks == ((30,), (42,), (30,), (30,))  # PLACEHOLDER tie-break: pesos
    assert result.winners == (0,)
    assert result.ranking == (0, 3, 1, 2)


def test_game_goes_on_while_no_good_reaches_30(prog: Program) -> None:
    """seed 003 §第四步驟: 當至少一種貨物在黑市價格表的價格達到３０元，遊戲結束 (only then).  Jade at
    20 does not reach Manila: the game goes on with voyage 2, opened by the harbour master."""
    game = Game(prog, 4, deal=FINAL_DEAL, step={"jade": 3})
    game.begin_voyage_1()
    game.pass_placements()
    game.roll(1, 1, 1)
    game.roll(1, 1, 1)
    game.roll(1, 1, 1)
    assert not game.s.over
    assert game.pending.player == 0 and game.pending.prompt == BID
    assert game.by_good(game.get("step"))["jade"] == 3


def test_ties_are_broken_by_pesos_then_shared(prog: Program) -> None:
    """PLACEHOLDER (rules-data "End / ties": "Tie-break: NOT stated in any source found.
    PLACEHOLDER: shared victory (or most cash)"); the rulebook: most pesos, then shared.
    P1 and P3 (nutmeg + silk, worth 0; 50 pesos) and P2 (jade 30 + ginseng 0; 20 pesos) all
    have 50: P1 and P3 have more pesos and share the victory."""
    game = Game(prog, 4, deal=[("nutmeg", "silk"), ("ginseng", "jade"), ("nutmeg", "silk"),
                              ("nutmeg", "silk")],
                pesos={0: 50, 1: 20, 2: 50, 3: 10}, step={"jade": 3})
    game.begin_voyage_1()
    game.pass_placements()
    game.roll(1, 1, 6)
    game.roll(1, 1, 6)                                       # jade reaches 30
    game.roll(1, 1)
    result = game.pending
    assert isinstance(result, Terminal)
    assert result.scores == (50, 50, 50, 10)
    assert result.tiebreaks == ((50,), (20,), (50,), (10,))
    assert result.winners == (0, 2)
    assert result.ranking == (0, 2, 1, 3)


# =====================================================================================
# The bots' estimate (manila.rules "The bots' position estimate"; docs/language.md §2.19b)
# =====================================================================================

def test_estimate_table_counts_the_dice(prog: Program) -> None:
    """dice_at_least[r][n] is the number of the 216 outcomes of three dice in which the first
    r of them sum to n or more (the chance in 216ths)."""
    table = prog.consts["dice_at_least"]
    for r in range(4):
        for n in range(20):
            ways = sum(1 for d in itertools.product(range(1, 7), repeat=r) if sum(d) >= n)
            assert table[r][n] == ways * 6 ** (3 - r), (r, n)


def placed_and_rolled(prog: Program, fourth: str) -> Game:
    """The first voyage: P1 on the silk boat, P2 on the jade boat, P3 on harbour A, P4 on
    `fourth`, then the first roll: silk, ginseng and jade boats 6, 1 and 1 on."""
    game = Game(prog)
    game.begin_voyage_1()
    placed = {0: "silk_boat", 1: "jade_boat", 2: "harbour_a", 3: fourth}
    while isinstance(game.s.pending, Decision) and game.s.pending.prompt == PLACE:
        p = game.s.pending.player
        game.place(p, placed[p])
    game.roll(6, 1, 1)
    return game


def test_estimate_adds_the_voyage_expected_by_the_dice(prog: Program) -> None:
    """After the first roll, silk on 6, ginseng on 5, jade on 6, two rolls left: silk passes 13
    with 90 of 216 chances (two dice of 8 or more) and ends on 13 with 36 (7 exactly), ginseng
    60 and 30, jade 90 and 36; nobody is on the pirate ship, so a boat on 13 docks: silk lands
    with 126 chances, ginseng 90, jade 126. A share is counted at its worth at the end: the first
    voyage under way, 10 + 17 x 3 - 10 = 51 tenths of a voyage after it, 0.4 of a step each: 20
    tenths of a step, so a share on step 0 is worth the track at 2.0, 10 pesos, and 20 once its
    good rises (the track at 3.0): a rise is worth 10. The other players (not P4, who passed)
    hold 4 accomplices for 18 free places (silk 2 seats, ginseng 3, jade 3, 8 offices, 2 pirate
    seats): a free seat is expected to fill 22 in 100.
    P1 (27 pesos after a silk seat for 3; shares nutmeg and silk, 10 each): the silk cargo 30
    shared by a crew of 1 + 2 x 0.22 = 1.44, 126 x 30 x 100 / 144 = 2625, and his silk share's
    rise 126 x 10 = 1260: 3885 / 216 = 17, estimate 27 + 20 + 17 = 64.
    P2 (27 pesos after a jade seat for 3; shares ginseng and jade): the jade cargo 36 for a crew
    of 1 + 3 x 0.22, 126 x 36 x 100 / 166 = 2732, his shares' rises (90 + 126) x 10 = 2160:
    4892 / 216 = 22, estimate 69, the best. P3 (26 pesos after harbour A for 4; nutmeg and silk):
    harbour A pays 6 when at least one boat passes 13, 216 - 126 x 156 x 126 / 216^2 = 163
    chances, 978, and his silk share's 1260: 2238 / 216 = 10, estimate 56. P4 (30 pesos, passed;
    ginseng and jade): 2160 / 216 = 10, estimate 60. The score sees none of it: 27, 27, 26,
    30."""
    game = placed_and_rolled(prog, "pass")
    assert isinstance(game.s.pending, Decision)
    assert game.pesos()[0] == 27 and game.pesos()[2] == 26
    assert prog.result(game.s).scores[0] == 27
    est = prog.estimated(game.s)
    assert est.scores == (64, 69, 56, 60)
    assert est.winners == (1,)
    assert est.ranking == (1, 0, 3, 2)
    assert prog.result(game.s).scores == (27, 27, 26, 30)


def test_estimate_counts_a_pilot_until_the_pilots_act(prog: Program) -> None:
    """Not a rule: the estimate's pilot (fn pilot_gain). As in the test above, but P4 takes the
    large pilot for 5 (seed 003 §領航員如何執行任務: 2 spaces): after the first roll, two rolls
    left, a space is worth one in six, 36 of 216 chances; his ginseng and jade shares would each
    gain 10 if that boat arrived, so the pilot adds 2 x 36 x 10 = 720 to his shares' 2160:
    2880 / 216 = 13 on his 25 pesos and 20 in shares, estimate 58. P4 still holds 2 accomplices,
    so the others' boats expect fuller crews (6 accomplices for 17 places, 35 in 100): P1 63,
    P2 67. When the pilot acts, before the third roll (everybody passed), the lift comes from the
    last die: jade on 6 + 3 = 9 needs 5 more, 72 of 216 chances, and ends on 13 with 36 more
    (it docks: nobody is a pirate); 2 spaces on it passes with 144: the pilot adds
    (144 - 72) x 10 = 720 to the jade share's 108 x 10: 1800 / 216 = 8, estimate 53. Once the
    pilots have acted and the last die is rolled (no boat arrives), nothing is under way: at the
    next auction the shares are worth the track at 2.4 (61 tenths of a voyage to come, the next
    one counted), 14 pesos each, beside the pesos."""
    game = placed_and_rolled(prog, "large_pilot")
    assert game.pesos()[3] == 25
    assert prog.estimated(game.s).scores == (63, 67, 56, 58)
    while isinstance(game.s.pending, Decision) and game.s.pending.prompt == PLACE:
        game.place(game.s.pending.player, "pass")
    game.roll(1, 1, 3)                        # silk 7, ginseng 6, jade 9: one roll left
    # everybody passed: no third placement round; the pilot acts before the last roll
    assert game.s.pending.player == 3 and "large pilot" in game.s.pending.prompt
    assert game.pesos()[3] == 25
    assert prog.estimated(game.s).scores[3] == 53
    game.decide(3, "pass")
    game.roll(1, 1, 1)
    assert game.s.pending.prompt.startswith("bid")          # the next voyage's auction
    assert prog.result(game.s).scores == (27, 27, 26, 25)
    assert prog.estimated(game.s).scores == (55, 55, 54, 53)  # 2 shares at 14, no pilot


def test_estimate_counts_a_pirates_plunder(prog: Program) -> None:
    """Not a rule: with P4 on the pirate ship (5 pesos), a boat that ends the last roll on 13
    is plundered, not docked (seed 003 §劫掠船隻): it lands only by passing 13, and the pirate
    expects its cargo by the chance that it ends on 13: silk 36, ginseng 30, jade 36 of 216,
    (36 x 30 + 30 x 18 + 36 x 36) = 2916, his alone as the only pirate. His shares now rise only
    by passing 13: (60 + 90) x 10 = 1500; (2916 + 1500) / 216 = 20, estimate 25 + 20 + 20 = 65."""
    game = placed_and_rolled(prog, "pirate")
    assert game.pesos()[3] == 25
    assert prog.estimated(game.s).scores[3] == 65


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.sampled_from([3, 4, 5]))
def test_estimate_is_the_score_once_the_game_has_ended(prog: Program, seed: int,
                                                        players: int) -> None:
    """Not a rule: at the end nothing is under way and no voyage is to come, so each share is
    worth its price on the track, as the score counts it (random play to the end)."""
    state = prog.new_game(players, seed)
    prog.playout(state, random.Random(seed))
    assert isinstance(state.pending, Terminal)
    assert prog.estimated(state).scores == state.pending.scores
