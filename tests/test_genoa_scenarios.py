"""Scenario tests of Genoa (rulebooks/genoa.rules with rulebooks/lib/negotiation.rules).

One rule per test, quoting it, driven through the real decisions with explicit chance: every
die is chosen, so the tower starts where the test says.  The position is prepared only while
the first die of a turn is pending (before any rule has read it), and always by moving things
between their real places (the supply, the decks, the storage), so the rulebook's conservation
invariants hold throughout; `game.check()` asserts them.

Sources quoted in the docstrings:
  seed 000    shared/seeds/000_6ec685007ab10031.txt (Traditional Chinese; the authority):
              "erratum NN", and the situational rules by heading: §就交易塔所在的建築協商 (the
              building where the tower stands), §就交易塔相鄰的建築協商 (adjacent squares),
              §未相鄰的格子 (squares not adjacent)
  rules-data  shared/rules-data/genoa.md
  choice N    docs/games/genoa.md, "Choices where the rules are ambiguous"

The board is rules-data's  layout (row r = blue die, column c = red die):

     c1  c2  c3  c4  c5  c6  c7  c8
r1   VM  VM  HB  HB  PK  PK  VC  VC        VM villa Monetti, VC villa Colini, HB harbour,
r2   MW  VM  S   S   S   S   VC  FW        PK park, MW/FW/SW/DW metals/fabric/spice/drinks
r3   MW  S   S   TH  TH  S   S   FW        warehouse, TH city hall, CA cathedral, M market,
r4   CH  S   CA  M   M   PO  S   TV        PO post office, CH coach house, TV tavern,
r5   CH  S   CA  M   M   PO  S   TV        GH guild hall, VR/VZ villas Ricci/Zasteri,
r6   SW  S   S   GH  GH  S   S   DW        PL palace, IN inn, S street
r7   SW  VR  S   S   S   S   VZ  DW
r8   VR  VR  PL  PL  IN  IN  VZ  VZ

Unless a test says otherwise: 4 players, P1 (seat 0) is the tower player of the first turn and
the bidders are asked clockwise, P2, P3, P4.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional

import pytest

from game_driver import ScenarioGame

from mercator.dsl.loader import load
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal
from mercator.interpreter.engine.program import Program
from mercator.interpreter.compiler import compile_program


# prompts of the rulebook's decisions
ANSWER = "answer the offers"
PARTNER = "accept the offer of"
STANCE = "your offer stands: keep, change or withdraw it?"
HERE = "offer for the action here"
MOVE = "offer for the next move"
NO_DEAL = "move the tower (no deal) to"
DELIVER = "deliver a card here (pass = the building's own action)"
PROCEEDS = "hand over from the proceeds"
ACQUIRE = "place an ownership marker on a building next to this street (or pass)"
START_TILE = "starting-space tile: place the tower on (pass = roll the dice)"
GOODS_TILE = "use a goods tile before acting (or pass)"
COMMODITY = "commodity tile: take a good"
TRADE_GIVE = "trade tile: give a good"
TRADE_TAKE = "trade tile: take a good"
LARGE_TILE = "large order: take a special tile of your choice"
BUILDING_TILE = ("building-action tile: take the action of a building the tower visited "
                 "(or pass)")

OFFER_FIELDS = ["square", "money", "goods", "cards", "tiles", "markers", "share", "back_money",
                "back_goods"]
HERE_FIELDS = OFFER_FIELDS[1:]


@pytest.fixture(scope="module")
def prog() -> Program:
    res = load("rulebooks/genoa.rules")
    assert res.ok, [str(d) for d in res.diagnostics]
    return compile_program(res.rulebook)


class Game(ScenarioGame):
    """One Genoa game with explicit chance, driven decision by decision."""

    def __init__(self, prog: Program, n: int = 4, seed: int = 0):
        self.prog = prog
        self.n = n
        self.s = prog.new_game(n, seed=seed, narrate=True, explicit_chance=True)
        self.asked: list[tuple[int, str]] = []
        self.keep_order()            # the four decks: shuffled as they are listed

    # ---------------------------------------------------------------- names and values
    def name(self, enum: str, value: int) -> str:
        t = next(t for n, (t, v) in self.prog.rb.member_of.items() if t.name == enum)
        return t.members[value]

    def card(self, kind: str, place: str, place2: Optional[str] = None,
             goods: Iterable[str] = (), pay: int = 0) -> list:
        """A card value as the rulebook stores it (record Card: kind, place, place2, goods, pay)."""
        return [self.m(kind), self.m(place), None if place2 is None else self.m(place2),
                {self.m(g): 1 for g in goods}, pay]

    def ducats(self, p: Optional[int] = None) -> Any:
        if p is None:
            return [self.get("ducats", q) for q in range(self.n)]
        return self.get("ducats", p)

    def bag(self, name: str, player: Optional[int] = None, enum: str = "Good") -> dict:
        """A bag field as {member name: count}."""
        return {self.name(enum, k): v for k, v in sorted(self.get(name, player).items()) if v}

    def goods(self, p: int) -> dict:
        return self.bag("goods", p)

    def tiles(self, p: int) -> dict:
        return self.bag("tiles", p, "Tile")

    def tower(self) -> Optional[str]:
        t = self.get("tower")
        return None if t is None else self.name("Square", t)

    def path(self) -> list[str]:
        return [self.name("Square", x) for x in self.get("path")]

    def owners(self) -> dict:
        return {self.name("Place", b): p for b, p in self.get("owners").items()}

    # ---------------------------------------------------------------- preparing a position
    def _from_bag(self, field: str, p: int, names: Iterable[str], supply: str) -> None:
        have = dict(self.get(field, p))
        sup = dict(self.get(supply))
        for x in names:
            k = self.m(x)
            assert sup.get(k, 0) > 0, f"no {x} left in {supply}"
            sup[k] -= 1
            if sup[k] == 0:
                del sup[k]
            have[k] = have.get(k, 0) + 1
        self.set(field, have, p)
        self.set(supply, sup)

    def give_goods(self, p: int, *names: str) -> None:
        """p takes these goods from the supply."""
        self._from_bag("goods", p, names, "goods_supply")

    def give_tiles(self, p: int, *names: str) -> None:
        """p takes these special tiles from their stock."""
        self._from_bag("tiles", p, names, "tile_supply")

    def give_card(self, p: int, card: list) -> None:
        """p takes this card out of its deck (or out of another hand, which gets the top card
        of that deck instead)."""
        decks = self.get("decks")
        if card not in decks[card[0]]:
            q = next(q for q in range(self.n) if card in self.get("cards", q))
            self.get("cards", q).remove(card)
            self.get("cards", q).append(decks[card[0]].pop(0))
            decks[card[0]].append(card)
        decks[card[0]].remove(card)
        self.get("cards", p).append(card)

    def hand(self, p: int, *cards: list) -> None:
        """p's hand becomes exactly these cards: his dealt cards go back to their decks."""
        decks = self.get("decks")
        for c in self.get("cards", p):
            decks[c[0]].append(c)
        self.set("cards", [], p)
        for c in cards:
            self.give_card(p, c)

    def markers_in_supply(self, p: int, k: int) -> None:
        """p moves k of his ownership markers from the board storage to his supply."""
        self.set("stored_markers", self.get("stored_markers", p) - k, p)
        self.set("markers", self.get("markers", p) + k, p)

    def own(self, p: int, building: str) -> None:
        """p's marker (from his storage) on a building."""
        self.set("stored_markers", self.get("stored_markers", p) - 1, p)
        self.get("owners")[self.m(building)] = p

    # ---------------------------------------------------------------- acting
    def roll(self, red: int, blue: int) -> None:
        """The two dice of a tower placement: red = column, blue = row."""
        for pips in (red, blue):
            node = self.s.pending
            assert isinstance(node, Chance) and node.what == "roll", f"expected a die, got {node}"
            assert [o.label for o in node.options] == [str(i) for i in range(1, 9)]
            self.prog.apply(self.s, str(pips))

    def start(self, square: str) -> None:
        """Roll the dice that name this square (r<row>c<col>)."""
        row, col = int(square[1]), int(square[3])
        self.roll(col, row)

    def offer(self, p: int, kind: str = MOVE, square: Optional[str] = None, money: int = 0,
              goods: Iterable[str] = (), cards: Iterable[list] = (), tiles: Iterable[str] = (),
              markers: int = 0, share: int = 0, back_money: int = 0,
              back_goods: Iterable[str] = ()) -> None:
        """p makes an offer, field by field (`kind` MOVE names a square, HERE does not)."""
        fields = OFFER_FIELDS if kind == MOVE else HERE_FIELDS
        values = {"square": square, "money": str(money), "goods": self._set_label(goods, "Good"),
                  "cards": None if not cards else list(cards),
                  "tiles": self._set_label(tiles, "Tile"), "markers": str(markers),
                  "share": str(share), "back_money": str(back_money),
                  "back_goods": self._set_label(back_goods, "Good")}
        since = len(self.s.record)
        for f in fields:
            node = self.s.pending
            v = values[f]
            if not (isinstance(node, Decision) and node.prompt == f"{kind}: {f}"):
                # a field with one legal option is not asked: the engine made it (and said so)
                made = [m for m in self.made_without_asking(since) if m[1] == f"{kind}: {f}"]
                assert made and made[-1] == (p, f"{kind}: {f}", v), (f, made, node)
                continue
            assert isinstance(node, Decision) and node.player == p, node
            if f == "cards":
                idx = 0 if v is None else next(i for i, o in enumerate(node.options)
                                                if o.value == v)
                self.asked.append((p, node.prompt))
                self.prog.apply(self.s, idx)
            else:
                assert v is not None, f"the offer needs a {f}"
                self.decide(p, v)

    def _set_label(self, names: Iterable[str], enum: str) -> str:
        names = sorted(names, key=self.m)
        return "+".join(names) if names else "nothing"

    def no_offer(self, *players: int, kind: Optional[str] = None) -> None:
        """Each of these players, asked for an offer, makes none (erratum 14)."""
        for p in players:
            node = self.s.pending
            assert isinstance(node, Decision) and node.player == p, node
            if kind is not None:
                assert node.prompt.startswith(kind), node.prompt
            assert node.prompt in (f"{MOVE}: square", f"{HERE}: money"), node.prompt
            self.decide(p, "pass")

    def answer(self, dealer: int, reply: str, partner: Optional[int] = None) -> None:
        node = self.s.pending
        if isinstance(node, Decision) and node.prompt == ANSWER:
            self.decide(dealer, reply, ANSWER)
        if partner is not None and isinstance(self.s.pending, Decision) \
                and self.s.pending.prompt == PARTNER:
            self.decide(dealer, f"P{partner + 1}", PARTNER)

    def quiet_move(self, dealer: int, dest: str, bidders: Iterable[int]) -> None:
        """Nobody offers; the tower player moves (no deal) to dest."""
        self.no_offer(*bidders)
        self.decide(dealer, "refuse_all", ANSWER)
        self.decided(dealer, dest, NO_DEAL)      # not asked when dest is the only step

    def check(self) -> None:
        """The rulebook's invariants hold (conservation of money, goods, cards, tiles, markers)."""
        assert self.prog.check_invariants(self.s) == []


def others(dealer: int, n: int = 4) -> list[int]:
    return [(dealer + k) % n for k in range(1, n)]


# =====================================================================================
# Setup and the turn
# =====================================================================================

def test_setup_130_ducats_one_card_of_each_pile_goods_and_tiles_in_stock(prog: Program) -> None:
    """rules-data "Setup": Each player: 130 ducats (secret throughout), one card from EACH of
    the four piles (4 cards, secret).  Goods and special tiles on their storage spaces; each
    player's 7 ownership markers on the board storage.  "Components": 40 goods = 8 × 5; 60
    cards = 16 large order, 16 small order, 14 message, 14 contract; 27 special tiles."""
    game = Game(prog, 4)
    assert game.ducats() == [130] * 4
    for p in range(4):
        kinds = sorted(game.name("CardKind", c[0]) for c in game.get("cards", p))
        assert kinds == ["contract", "large_order", "message", "small_order"]
        assert game.get("stored_markers", p) == 7 and game.get("markers", p) == 0
        assert game.goods(p) == {} and game.tiles(p) == {}
    assert game.bag("goods_supply") == {g: 5 for g in
                                         ["pepper", "saffron", "silver", "copper", "linen",
                                          "silk", "ale", "wine"]}
    assert game.bag("tile_supply", enum="Tile") == {
        "starting_space": 5, "trade": 7, "commodity": 5, "building_action": 5, "extra_action": 5}
    decks = game.get("decks")
    assert [len(decks[game.m(k)]) for k in ("large_order", "small_order", "message", "contract")] \
        == [16 - 4, 16 - 4, 14 - 4, 14 - 4]
    assert isinstance(game.pending, Chance) and game.pending.what == "roll"
    game.check()
    with pytest.raises(ValueError):
        prog.new_game(6, seed=0)
    for n in (2, 5):
        assert prog.new_game(n, seed=0).pending is not None


def test_dice_place_the_tower_red_column_blue_row(prog: Program) -> None:
    """rules-data "Turn" 1: roll both d8 and place the 5-disc tower on the square they name.
    Axis mapping red = column (x), blue = row (y)."""
    game = Game(prog, 4)
    game.roll(6, 2)                                   # red 6, blue 2: row 2, column 6
    assert game.tower() == "r2c6" and game.path() == ["r2c6"]
    assert game.get("moves_left") == 4
    assert "the tower stands on r2c6 - street" in game.s.messages


def test_a_start_in_the_market_loses_a_round_and_the_dice_are_rolled_again(prog: Program) -> None:
    """rules-data "Turn" 1: If the start square is in the MARKET, the round marker is moved one
    extra space (the game loses a round).  What happens to the current turn then: NOT FOUND.
    : advance the round marker, then re-roll."""
    game = Game(prog, 4)
    game.start("r4c5")                                # the market
    assert game.get("round_marker") == 1
    assert isinstance(game.pending, Chance)           # rolled again
    game.start("r5c4")                                # the market again
    assert game.get("round_marker") == 2
    game.start("r2c3")
    assert game.tower() == "r2c3" and game.get("round_marker") == 2


def test_moves_orthogonal_one_disc_per_square_never_back_into_a_visited_building(prog: Program) -> None:
    """rules-data "Turn" 2: up to 4 orthogonal steps, leaving one disc on each square left ...
    Diagonal moves are not allowed.   (revisiting): each step must enter a
    building or street square not yet visited this turn; choice 3: the market may be entered
    (seed 000 erratum 03 names it as a target)."""
    game = Game(prog, 4)
    game.start("r3c3")                                # street, next to the city hall and cathedral
    game.no_offer(1, 2, 3)
    game.decide(0, "refuse_all", ANSWER)
    # orthogonal neighbours only: r2c3, r3c2, r3c4 (city hall), r4c3 (cathedral)
    assert sorted(game.labels()) == ["r2c3", "r3c2", "r3c4", "r4c3"]
    game.decide(0, "r3c4", NO_DEAL)                   # the city hall, no deal
    game.no_offer(1, 2, 3, kind=HERE)
    game.decide(0, "refuse_all", ANSWER)              # nobody offered: the action is lost
    game.no_offer(1, 2, 3)
    game.decide(0, "refuse_all", ANSWER)
    # not r3c5 (the city hall again), not r3c3 (a disc); r2c4 street, r4c4 market
    assert sorted(game.labels()) == ["r2c4", "r4c4"]
    game.decide(0, "r4c4", NO_DEAL)                   # into the market
    assert game.path() == ["r3c3", "r3c4", "r4c4"]
    game.no_offer(1, 2, 3)
    game.decide(0, "refuse_all", ANSWER)
    # from the market: the cathedral (never visited), two more market squares; not the city hall
    assert sorted(game.labels()) == ["r4c3", "r4c5", "r5c4"]
    game.check()


# =====================================================================================
# The errata 01–15 — seed 000 協商的一般規則
# =====================================================================================

def test_erratum_01_only_the_tower_player_and_one_other_player_deal(prog: Program) -> None:
    """seed 000 erratum 01: 協商必須是商人與另一位玩家間雙方直接交易，其他玩家間不能協商 (a deal
    is always between the tower player and one other player; the others cannot deal among
    themselves).  The tower player is never asked for an offer; an accepted deal moves things
    only between him and his partner."""
    game = Game(prog, 4)
    game.start("r2c3")                                # street next to the harbour
    game.offer(1, square="r1c3", money=10)            # P2 for the harbour
    game.offer(2, square="r1c3", money=20)            # P3 for the harbour
    game.no_offer(3)
    # never P1; the markers field is not asked (no marker in supply: 0 is the only option)
    assert [p for p, prompt in game.asked] == [1] * 8 + [2] * 8 + [3]
    assert [(p, prompt) for p, prompt, _ in game.made_without_asking()] == \
        [(1, f"{MOVE}: markers"), (2, f"{MOVE}: markers")]
    assert game.get("nego_binding") == [1, 2]
    game.answer(0, "accept_offer", partner=2)
    assert game.ducats() == [150, 130, 110, 130]      # P3 paid P1; P2 and P4 untouched
    assert game.tiles(2) == {"commodity": 1}          # P3 took the harbour's action
    game.check()


def test_erratum_02_an_offer_names_its_square_and_its_price(prog: Program) -> None:
    """seed 000 erratum 02: 出價的玩家，必須說明希望交易塔移動到何處，及願意支付何物作為回報 (the
    bidder says where the tower should go and what he pays for it): the offer's first field is
    the square, then the price, and the offer on the table shows both."""
    game = Game(prog, 4)
    game.start("r2c3")
    node = game.pending
    assert node.player == 1 and node.prompt == f"{MOVE}: square"
    game.offer(1, square="r1c3", money=15)
    # every field is asked but the markers: P2 has none in supply, so 0 is made without asking
    assert [prompt for _, prompt in game.asked] == [f"{MOVE}: {f}" for f in OFFER_FIELDS
                                                    if f != "markers"]
    assert game.made_without_asking() == [(1, f"{MOVE}: markers", "0")]
    o = game.get("offers")[1]
    assert game.name("Square", o[0]) == "r1c3" and o[1] == 15
    assert "P2 offers {square: r1c3, money: 15," in " ".join(game.s.messages)


def test_erratum_03_any_square_may_be_named_building_street_or_market(prog: Program) -> None:
    """seed 000 erratum 03: 可以出價要求將交易塔移動到任何格子，建築、街道、市場 (an offer may name
    any square: a building, a street or the market).  Choice 5: any square the tower can still
    reach this turn."""
    game = Game(prog, 4)
    game.start("r3c3")
    squares = game.labels()[1:]
    assert squares[0] != "pass" and game.labels()[0] == "pass"
    places = {game.name("Place", game.prog.consts["board"][game.m(sq)]) for sq in squares}
    assert {"street", "market", "city_hall", "cathedral", "harbour"} <= places
    assert "r4c4" in squares                          # the market, next to the city hall
    assert "r3c3" not in squares                      # where the tower stands (a disc)
    assert "r8c8" not in squares                      # 10 steps away: out of reach this turn


def test_erratum_04_a_street_gives_no_action_but_counts_for_acquiring_buildings(prog: Program) -> None:
    """seed 000 erratum 04: 將交易塔移動到街道，沒有行動可以讓玩家執行，但與下一階段的獲得建築有關
    係 (a street gives no action, but matters for acquiring buildings); rules-data "Turn" 3
    : for each street square the tower visited, the tower player may place one
    ownership marker from his supply on an unowned building orthogonally adjacent to it."""
    game = Game(prog, 4)
    game.markers_in_supply(0, 2)
    game.start("r1c3")                                # the harbour
    game.no_offer(1, 2, 3, kind=HERE)
    game.decide(0, "refuse_all", ANSWER)              # the harbour's action is lost
    game.offer(1, square="r2c3", money=5)             # P2 pays for the street below
    game.no_offer(2, 3)
    game.answer(0, "accept_offer")
    assert game.tower() == "r2c3"
    assert game.ducats() == [135, 125, 130, 130]
    assert game.get("acted", 1) == 0 and game.tiles(1) == {}   # no action on a street
    # P2 can still act, so he may still offer for buildings; P1 stops
    game.no_offer(1, 2, 3)
    game.decide(0, "end_negotiation", ANSWER)
    # acquisition: buildings next to r2c3 — the harbour (r1c3) and villa Monetti (r2c2)
    assert game.labels() == ["pass", "harbour", "villa_monetti"]
    game.decide(0, "harbour", ACQUIRE)
    assert game.owners() == {"harbour": 0} and game.get("markers", 0) == 1
    game.check()


def test_erratum_05_the_buyer_of_a_building_must_take_its_action(prog: Program) -> None:
    """seed 000 erratum 05: 如果達成協議將交易塔移動到建築，出價的玩家必須執行該建築的行動，不能不
    執行 (the buyer of a building must take its action): nobody asks him whether he wants to;
    the deal is followed at once by his action (here the metals warehouse: silver + copper)."""
    game = Game(prog, 4)
    game.start("r3c2")                                # street next to the metals warehouse (r3c1)
    game.offer(1, square="r3c1", money=10)
    game.no_offer(2, 3)
    game.answer(0, "accept_offer")
    assert game.goods(1) == {"silver": 1, "copper": 1}
    assert game.get("acted", 1) == 1
    assert game.pending.prompt == f"{MOVE}: square"   # the next move's negotiation
    assert not any(p == 1 and "action" in prompt for p, prompt in game.asked)
    game.check()


def test_erratum_06_a_player_who_cannot_act_offers_only_for_streets_and_the_market(prog: Program) -> None:
    """seed 000 erratum 06: 不能行動的玩家（已經行動過且沒有額外行動特權版塊），不能出價將交易塔移動
    到建築。玩家不論能否行動，都可以出價將交易塔移動到街道、市場 (a player who has acted and has no
    extra-action tile may not offer for a building, but anyone may offer for streets and the
    market).  He is not asked at all about the action of the building where the tower
    stands; with an extra-action tile he may offer for buildings.  (P2 and P3 have acted
    earlier this turn; P3 holds an extra-action tile.)"""
    game = Game(prog, 4)
    game.set("acted", 1, 1)
    game.set("acted", 1, 2)
    game.give_tiles(2, "extra_action")
    game.start("r3c2")                                # street next to the metals warehouse

    def places(labels: list[str]) -> set[str]:
        return {game.name("Place", game.prog.consts["board"][game.m(sq)]) for sq in labels}

    assert places(game.labels()[1:]) == {"street", "market"}          # P2: no building
    game.no_offer(1)
    assert "metals_warehouse" in places(game.labels()[1:])             # P3: with his tile
    game.no_offer(2)
    assert "metals_warehouse" in places(game.labels()[1:])             # P4: has not acted
    game.no_offer(3)
    game.decide(0, "refuse_all", ANSWER)
    game.decide(0, "r3c1", NO_DEAL)                   # the metals warehouse, no deal
    # the action here: P2 is not asked; P3 and P4 are
    game.no_offer(2, 3, kind=HERE)
    assert (1, f"{HERE}: money") not in game.asked
    game.check()


def test_erratum_06_an_extra_action_tile_paid_away_leaves_no_offer_for_a_building(prog: Program) -> None:
    """seed 000 erratum 06 with rules-data "Special tiles" (extra action: take a second action
    this turn): a bidder who has acted cannot pay for a building with the extra-action tile he
    needs to act there (erratum 05), so that tile is not among the tiles he may offer then."""
    game = Game(prog, 4)
    game.set("acted", 1, 1)
    game.give_tiles(1, "extra_action")
    game.start("r3c2")
    for f, label in (("square", "r3c1"), ("money", "0"), ("goods", "nothing"),
                     ("cards", "nothing")):
        game.decide(1, label, f"{MOVE}: {f}")
    assert game.labels() == ["nothing"]               # tiles: his one extra-action tile stays


def test_erratum_07_offers_may_change_until_one_is_accepted(prog: Program) -> None:
    """seed 000 erratum 07: 在協商階段，玩家可以自由討論，而且出價可以隨時改變 (offers may change at
    any time during the negotiation): the tower player may ask again; a bidder whose offer
    stands keeps, changes or withdraws it; the changed offer is the one that binds."""
    game = Game(prog, 4)
    game.start("r2c3")
    game.offer(1, square="r1c3", money=10)
    game.offer(2, square="r1c3", money=5)
    game.no_offer(3)
    assert game.labels() == ["accept_offer", "refuse_all", "end_negotiation", "ask_again"]
    game.decide(0, "ask_again", ANSWER)
    assert game.labels() == ["keep_offer", "change_offer", "withdraw_offer"]
    game.decide(1, "change_offer", STANCE)            # P2 raises to 25
    game.offer(1, square="r1c3", money=25)
    game.decide(2, "withdraw_offer", STANCE)          # P3 takes his back
    game.no_offer(3)                                  # P4 still makes none
    assert game.get("nego_standing") == [1] and game.get("offers")[2] is None
    assert "ask_again" not in game.labels()           # offer_rounds = 2
    game.answer(0, "accept_offer")
    assert game.ducats() == [155, 105, 130, 130]      # the changed offer: 25
    game.check()


def test_erratum_08_the_tower_player_may_give_too(prog: Program) -> None:
    """seed 000 erratum 08: 出價可以包含商人將金幣或物品給對方 (an offer may have the tower player
    give money or goods to the bidder): P2 pays 5 ducats for the harbour and asks 10 ducats and
    a silk from P1 in return; both sides are handed over when the deal is made."""
    game = Game(prog, 4)
    game.give_goods(0, "silk", "wine")
    game.start("r2c3")
    game.offer(1, square="r1c3", money=5, back_money=10, back_goods=["silk"])
    game.no_offer(2, 3)
    game.answer(0, "accept_offer")
    assert game.ducats() == [125, 135, 130, 130]
    assert game.goods(0) == {"wine": 1} and game.goods(1) == {"silk": 1}
    game.check()


def test_erratum_09_goods_cards_tiles_markers_money_in_units_of_5(prog: Program) -> None:
    """seed 000 erratum 09: 出價可以包含遊戲中可以得到的任意數量或組合的物品（貨物、卡片、特殊版塊、
    所有人指示物或金幣）；以金幣出價時，最小單位為5金幣。當所有人指示物被交易，出價的玩家將其指示物
    放回供應區，而另一方拿取自己顏色的所有人指示物，拿取數量等同對方放回去的數量 (goods, cards,
    special tiles, ownership markers or money, money in units of 5; traded markers: the bidder
    returns his to the storage and the other takes as many of his own colour)."""
    game = Game(prog, 4)
    card = game.card("message", "post_office", "park", pay=30)
    game.hand(1, card)
    game.set("ducats", 233, 0)                        # P2 paid P1 103 ducats in an earlier deal
    game.set("ducats", 27, 1)
    game.give_goods(1, "pepper", "pepper")
    game.give_tiles(1, "trade")
    game.markers_in_supply(1, 2)
    game.start("r2c3")
    assert game.labels()[0] == "pass"
    game.decide(1, "r1c3", f"{MOVE}: square")
    assert game.labels() == ["0", "5", "10", "15", "20", "25"]   # units of 5 up to his 27
    game.decide(1, "25", f"{MOVE}: money")
    assert game.labels() == ["nothing", "pepper"]     # one option per kind (offer_items_cap 1)
    game.decide(1, "pepper", f"{MOVE}: goods")
    node = game.pending
    assert [o.value for o in node.options] == [[], [card]]
    game.prog.apply(game.s, 1)                        # the message card
    game.decide(1, "trade", f"{MOVE}: tiles")
    assert game.labels() == ["0", "1"]                # offer_markers_cap 1
    game.decide(1, "1", f"{MOVE}: markers")
    for f in ("share", "back_money", "back_goods"):
        game.decide(1, game.labels()[0], f"{MOVE}: {f}")
    game.no_offer(2, 3)
    game.answer(0, "accept_offer")
    assert game.ducats(0) == 258 and game.ducats(1) == 2
    assert game.goods(0) == {"pepper": 1} and game.goods(1) == {"pepper": 1}
    assert card in game.get("cards", 0) and card not in game.get("cards", 1)
    assert game.tiles(0) == {"trade": 1} and game.tiles(1) == {"commodity": 1}  # + the harbour
    # markers: P2 puts one back in his storage; P1 takes one of his own from his storage
    assert (game.get("markers", 1), game.get("stored_markers", 1)) == (1, 6)
    assert (game.get("markers", 0), game.get("stored_markers", 0)) == (1, 6)
    game.check()


def test_erratum_10_a_share_of_the_proceeds_is_paid_right_after_the_action(prog: Program) -> None:
    """seed 000 erratum 10: 出價不可以包含對將來的行動作協議、對將來回合的承諾、放棄行動、放棄權利
    ...。但是，可以包含執行協商後的行動所能獲得的任何物品。在這種情況，玩家執行行動後立即支付商人物品
    (no promises about the future, but an offer may include what the bought action yields; it is
    handed over right after the action).  P2 buys the fabric warehouse (linen + silk) for 5 and
    one of its goods; he picks which.  The offer has no field for anything else."""
    game = Game(prog, 4)
    game.start("r3c7")                                # street next to the fabric warehouse (r3c8)
    game.decide(1, "r3c8", f"{MOVE}: square")
    for f in ("money", "goods", "cards", "tiles"):
        game.decide(1, "5" if f == "money" else game.labels()[0], f"{MOVE}: {f}")
    game.decided(1, "0", f"{MOVE}: markers")          # none in supply: not asked
    assert game.labels() == ["0", "1", "2"]           # a share of up to 2 items (offer_share_cap)
    game.decide(1, "1", f"{MOVE}: share")
    game.decide(1, "0", f"{MOVE}: back_money")
    game.decide(1, "nothing", f"{MOVE}: back_goods")
    game.no_offer(2, 3)
    game.answer(0, "accept_offer")
    assert game.pending.player == 1 and game.pending.prompt == PROCEEDS
    assert game.labels() == ["linen", "silk"]
    game.decide(1, "silk", PROCEEDS)
    assert game.goods(1) == {"linen": 1} and game.goods(0) == {"silk": 1}
    assert game.ducats()[:2] == [135, 125]
    assert "P2 hands over 1 of the proceeds to P1" in game.s.messages
    assert [p for p, _ in game.asked].count(1) == 8 + 1      # the offer's fields but markers
    game.check()


def test_erratum_10_no_share_is_offered_for_a_street(prog: Program) -> None:
    """seed 000 erratum 10 with erratum 04: a street yields nothing, so an offer for a street
    can promise no share of proceeds."""
    game = Game(prog, 4)
    game.start("r3c7")
    game.decide(1, "r3c6", f"{MOVE}: square")         # a street
    for f in ("money", "goods", "cards", "tiles"):
        game.decide(1, game.labels()[0], f"{MOVE}: {f}")
    # the share's only option is 0 (and the markers', with none in supply): neither is asked
    assert game.made_without_asking(game.mark) == [(1, f"{MOVE}: markers", "0"),
                                                   (1, f"{MOVE}: share", "0")]
    assert game.pending.player == 1 and game.pending.prompt == f"{MOVE}: back_money"


def test_erratum_11_the_tower_player_may_accept_any_offer(prog: Program) -> None:
    """seed 000 erratum 11: 商人可以自由選擇接受哪個出價，不必是最先或最好的出價 (the tower player
    accepts whichever offer he likes, not necessarily the first or the best): three offers for
    three different squares; he takes the lowest, the last one made."""
    game = Game(prog, 4)
    game.start("r3c3")
    game.offer(1, square="r3c4", money=30)            # the city hall
    game.offer(2, square="r4c3", money=20)            # the cathedral
    game.offer(3, square="r2c3", money=5)             # a street
    assert game.get("nego_binding") == [1, 2, 3]
    game.decide(0, "accept_offer", ANSWER)
    assert game.labels() == ["P2", "P3", "P4"]
    game.decide(0, "P4", PARTNER)
    assert game.tower() == "r2c3" and game.ducats() == [135, 130, 130, 125]
    game.check()


def test_erratum_12_an_accepted_offer_binds_both_sides(prog: Program) -> None:
    """seed 000 erratum 12: 一旦接受出價（建議雙方握手來結束協商），協議對雙方有拘束力 (once
    accepted, the deal binds both): between the acceptance and the end of the deal nobody is
    asked anything — no way to back out — and both sides have handed over (協商概述:
    玩家支付承諾的物品給商人，然後商人將交易塔移動到那1格 ... 出價的玩家立刻執行對應的行動)."""
    game = Game(prog, 4)
    game.give_goods(0, "ale")
    game.start("r2c3")
    game.offer(1, square="r1c3", money=20, back_goods=["ale"])
    game.no_offer(2, 3)
    asked = len(game.asked)
    game.answer(0, "accept_offer")
    assert len(game.asked) == asked + 1               # only the acceptance itself
    i = game.s.messages.index("P1 accepts the offer of P2")
    assert game.s.messages[i + 1:i + 3] == ["the tower moves to r1c3 - harbour",
                                            "P2 takes the action of the harbour"]
    assert game.ducats()[:2] == [150, 110] and game.goods(1) == {"ale": 1}
    assert game.get("nego_standing") == [] and game.get("offers")[1] is None
    game.check()


def test_erratum_13_the_tower_player_may_refuse_all_and_move_where_he_likes(prog: Program) -> None:
    """seed 000 erratum 13: 商人沒有義務接受任何出價，可以拒絕所有其他玩家的出價，並將交易塔移到
    自己選擇的格子 (he may refuse every offer and move the tower where he chooses) — even onto a
    square someone offered for: then nothing changes hands, and (§就交易塔相鄰的建築協商 注意)
    the building where the tower now stands is negotiated anew."""
    game = Game(prog, 4)
    game.start("r2c3")
    game.offer(1, square="r1c3", money=30)
    game.offer(2, square="r2c4", money=10)
    game.no_offer(3)
    before = (game.ducats(), [game.goods(p) for p in range(4)], [game.tiles(p) for p in range(4)])
    game.decide(0, "refuse_all", ANSWER)
    assert sorted(game.labels()) == ["r1c3", "r2c2", "r2c4", "r3c3"]   # any legal square
    after = (game.ducats(), [game.goods(p) for p in range(4)], [game.tiles(p) for p in range(4)])
    assert after == before                            # a refused offer changes nothing
    game.decide(0, "r1c3", NO_DEAL)
    assert game.tower() == "r1c3" and game.get("acted", 1) == 0
    assert game.pending.prompt == f"{HERE}: money"    # the harbour's action is offered anew
    assert game.get("offers")[1] is None              # P2's offer for it is gone
    game.check()


def test_erratum_14_players_may_offer_nothing(prog: Program) -> None:
    """seed 000 erratum 14: 玩家可以選擇不做出任何出價，而期待商人將交易塔移動到他們想要的建築
    (a player may make no offer at all, hoping the tower goes where he wants anyway): the
    offer decision starts with "pass"; with no offer on the table the tower player can only
    move on his own or stop."""
    game = Game(prog, 4)
    game.start("r2c3")
    for p in (1, 2, 3):
        assert game.labels()[0] == "pass"
        game.no_offer(p)
    assert game.labels() == ["refuse_all", "end_negotiation", "ask_again"]
    assert game.get("nego_standing") == []


def test_erratum_15_negotiation_ends_after_4_moves_or_when_the_tower_player_stops(prog: Program) -> None:
    """seed 000 erratum 15: 只要交易塔還可以移動，商人就可與其他玩家協商交易塔的下一步移動。一旦商人
    已經移動交易塔4次或決定結束移動交易塔，協商階段結束 (the negotiation goes on while the tower
    can move; it ends after 4 moves or when he stops).  Four moves along the streets, each
    negotiated; then no more offers are asked and the next player's turn begins."""
    game = Game(prog, 4)
    game.start("r2c3")
    for dest in ("r2c4", "r2c5", "r2c6"):
        game.quiet_move(0, dest, [1, 2, 3])
    game.quiet_move(0, "r3c6", [1, 2, 3])             # the 4th move: the last disc
    moves = [m for m in game.s.messages if m.startswith("the tower moves to")]
    assert len(moves) == 4
    # no more offers: the turn is over (P1 has no markers to place); P2's tower is rolled
    assert isinstance(game.pending, Chance) and game.tower() is None
    assert [prompt for _, prompt in game.asked].count(f"{MOVE}: square") == 4 * 3
    game2 = Game(prog, 4)
    game2.start("r2c3")
    game2.no_offer(1, 2, 3)
    game2.decide(0, "end_negotiation", ANSWER)        # he stops at once
    assert isinstance(game2.pending, Chance) and "P1 stops the tower" in game2.s.messages


# =====================================================================================
# The situational rules — seed 000 各別協商情況說明
# =====================================================================================

def test_here_jeffs_5_coins_for_the_harbour(prog: Program) -> None:
    """seed 000 §就交易塔所在的建築協商, the example: 尚未達成協議，商人就將交易塔移到港口。此時，
    Jeff出價用小小的5金幣來獲得建築的行動，其他玩家也沒有出價。因為商人想要執行Villa Monetti的行動，
    他必須接受這個出價。如果不接受，商人就必須自己執行港口的行動，而且這回合不能再執行行動 (the tower
    player moved to the harbour without a deal; Jeff offers a mere 5 coins for its action and
    nobody else offers.  Because the tower player wants Villa Monetti's action, he must accept:
    otherwise he must take the harbour's action himself and can take no other this turn).
    Jeff is P2; Villa Monetti (r1c2) is next to the harbour (r1c3)."""
    game = Game(prog, 4)
    game.start("r2c3")
    game.quiet_move(0, "r1c3", [1, 2, 3])             # to the harbour, no deal
    game.offer(1, HERE, money=5)                      # Jeff: 5 coins
    game.no_offer(2, 3, kind=HERE)
    # an offer was made: the action will be taken — he accepts or does it himself; no refusal
    assert game.labels() == ["accept_offer", "do_it_myself", "ask_again"]
    game.decide(0, "accept_offer", ANSWER)
    assert game.ducats()[:2] == [135, 125]
    assert game.tiles(1) == {"commodity": 1} and game.get("acted", 1) == 1   # Jeff acted
    assert game.get("acted", 0) == 0
    # on to Villa Monetti, no deal; nobody offers; the tower player takes it himself
    game.quiet_move(0, "r1c2", [1, 2, 3])
    game.no_offer(2, 3, kind=HERE)                    # Jeff has acted: not asked
    assert game.labels() == ["do_it_myself", "refuse_all", "ask_again"]
    game.decide(0, "do_it_myself", ANSWER)
    assert "P1 takes the action of the villa_monetti" in game.s.messages
    kinds = [game.name("CardKind", c[0]) for c in game.get("cards", 0)]
    assert kinds.count("contract") == 2               # the villa: draw a contract
    game.check()


def test_here_jeffs_offer_refused_the_tower_player_acts_and_can_act_no_more(prog: Program) -> None:
    """seed 000 §就交易塔所在的建築協商: 如果不接受，商人就必須自己執行港口的行動，而且這回合不能再
    執行行動 (if he does not accept Jeff's offer he must take the harbour's action himself, and
    can take no other action this turn): at Villa Monetti he can no longer do it himself."""
    game = Game(prog, 4)
    game.start("r2c3")
    game.quiet_move(0, "r1c3", [1, 2, 3])
    game.offer(1, HERE, money=5)
    game.no_offer(2, 3, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)
    assert game.tiles(0) == {"commodity": 1} and game.ducats()[:2] == [130, 130]
    game.quiet_move(0, "r1c2", [1, 2, 3])
    game.no_offer(1, 2, 3, kind=HERE)
    assert game.labels() == ["refuse_all", "ask_again"]       # no do_it_myself
    game.decide(0, "refuse_all", ANSWER)
    assert "nobody takes the action of the villa_monetti this turn" in game.s.messages
    game.check()


def test_here_an_offer_must_be_accepted_even_the_worst_if_he_cannot_act(prog: Program) -> None:
    """seed 000 §就交易塔所在的建築協商: 只要有玩家對該建築的行動出價，行動一定會執行 ... 如果商人
    不能或不想執行該建築的行動，就必須接受其他玩家的出價 ... 如果只有較差的出價，仍必須接受 (once
    anyone offers, the action is taken; a tower player who cannot act must accept an offer,
    even a poor one).  P1 has acted; at the park P3 offers 0 ducats."""
    game = Game(prog, 4)
    game.set("acted", 1, 0)
    game.start("r1c5")                                # the park
    game.no_offer(1, kind=HERE)
    game.offer(2, HERE, money=0)                      # nothing at all
    game.no_offer(3, kind=HERE)
    assert game.labels() == ["accept_offer", "ask_again"]
    game.decide(0, "ask_again", ANSWER)
    game.no_offer(1, kind=HERE)
    game.decide(2, "keep_offer", STANCE)
    game.no_offer(3, kind=HERE)
    # the last round: accepting P3's offer is all he may do — so nobody is asked
    assert "P1 accepts the offer of P3" in game.s.messages
    assert (0, ANSWER) not in game.asked[-3:]
    assert game.tiles(2) == {"extra_action": 1}       # P3 took the park's action
    game.check()


def test_here_no_offer_the_action_is_lost_this_turn(prog: Program) -> None:
    """seed 000 §就交易塔所在的建築協商: 當商人詢問有無玩家要出價執行該建築的行動，但沒有玩家出價時，
    商人不必自己執行該建築的行動，可以繼續移動交易塔 ... 在這種情況，該建築的行動終止，這回合不能再
    執行該建築的行動 (with no offer he need not take the action; he may move on, and the
    building's action is lost this turn — the tower never re-enters it)."""
    game = Game(prog, 4)
    game.start("r3c4")                                # the city hall, at the start
    game.no_offer(1, 2, 3, kind=HERE)
    assert game.labels() == ["do_it_myself", "refuse_all", "ask_again"]
    game.decide(0, "refuse_all", ANSWER)
    assert "nobody takes the action of the city_hall this turn" in game.s.messages
    # the next move: the other city-hall square (r3c5) cannot be entered, nor offered for
    squares = game.labels()[1:]
    assert "r3c5" not in squares and "r3c3" in squares
    game.check()


def test_adjacent_a_deal_binds_the_tower_moves_and_the_buyer_acts_at_once(prog: Program) -> None:
    """seed 000 §就交易塔相鄰的建築協商: 當商人和另一位玩家對出價達成協議時，協議是有拘束力的：另一位
    玩家支付商人協議的物品，商人將交易塔移動到協議的格子，另一位玩家立即執行該建築的行動。然後，如果
    交易塔還可以移動，商人可以就下一步移動進行協商 (the bidder pays, the tower moves to the agreed
    square, the bidder acts at once; then the next move is negotiated).  P3 buys the cathedral
    next to the street r3c3: two of his markers into his supply."""
    game = Game(prog, 4)
    game.start("r3c3")
    game.no_offer(1)
    game.offer(2, square="r4c3", money=15)
    game.no_offer(3)
    game.answer(0, "accept_offer")
    assert game.tower() == "r4c3" and game.get("moves_left") == 3
    assert game.ducats() == [145, 130, 115, 130]
    assert (game.get("markers", 2), game.get("stored_markers", 2)) == (2, 5)
    assert game.pending.prompt == f"{MOVE}: square"   # straight on to the next move
    game.check()


def test_adjacent_moving_to_a_building_without_a_deal_follows_the_rule_here(prog: Program) -> None:
    """seed 000 §就交易塔相鄰的建築協商 注意：當商人沒有接受出價而將交易塔移動到相鄰的建築時，須遵守
    就交易塔所在的建築協商的規則 (moving to an adjacent building without a deal: the rule of the
    building where the tower stands applies) — and the bidder who hoped for it may now pay
    less (因此，協商交易塔的移動有吹牛的成分)."""
    game = Game(prog, 4)
    game.start("r3c3")
    game.offer(1, square="r4c3", money=30)
    game.no_offer(2, 3)
    game.decide(0, "refuse_all", ANSWER)
    game.decide(0, "r4c3", NO_DEAL)
    game.offer(1, HERE, money=10)                     # now only 10
    game.no_offer(2, 3, kind=HERE)
    game.decide(0, "accept_offer", ANSWER)
    assert game.ducats()[:2] == [140, 120]
    assert game.get("markers", 1) == 2
    game.check()


def test_not_adjacent_a_hint_binds_later_if_the_bidder_stands_by_it(prog: Program) -> None:
    """seed 000 §未相鄰的格子: 玩家可以在任何時候出價商人將交易塔移到未相鄰的格子。這樣的出價不能
    接受或拒絕，但商人可以做為移動交易塔時的參考。之後在同一回合中，當交易塔與出價所說的格子相鄰時，
    商人可以接受先前的出價（如果對方仍然願意） (an offer for a square further away cannot be accepted
    or refused — it is a hint; later in the same turn, when the tower is next to that square,
    he may accept it if the bidder still stands by it).  P2 offers 20 for the city hall (r3c4),
    two steps from r2c3."""
    game = Game(prog, 4)
    game.start("r2c3")
    game.offer(1, square="r3c4", money=20)
    game.no_offer(2, 3)
    assert game.get("nego_standing") == [1] and game.get("nego_binding") == []
    assert game.labels() == ["refuse_all", "end_negotiation", "ask_again"]   # cannot accept
    game.decide(0, "refuse_all", ANSWER)
    game.decide(0, "r2c4", NO_DEAL)                   # now next to r3c4
    game.decide(1, "keep_offer", STANCE)              # P2 still stands by it
    game.no_offer(2, 3)
    assert game.get("nego_binding") == [1]
    game.answer(0, "accept_offer")
    assert game.tower() == "r3c4" and game.ducats()[:2] == [150, 110]
    assert len(game.get("cards", 1)) == 4 + 2         # the city hall: 2 small orders
    game.check()


def test_not_adjacent_a_hint_withdrawn_cannot_be_accepted(prog: Program) -> None:
    """seed 000 §未相鄰的格子: ...（如果對方仍然願意） — a bidder who no longer stands by his
    earlier offer withdraws it, and it cannot be accepted."""
    game = Game(prog, 4)
    game.start("r2c3")
    game.offer(1, square="r3c4", money=20)
    game.no_offer(2, 3)
    game.decide(0, "refuse_all", ANSWER)
    game.decide(0, "r2c4", NO_DEAL)
    game.decide(1, "withdraw_offer", STANCE)
    game.no_offer(2, 3)
    assert game.labels() == ["refuse_all", "end_negotiation", "ask_again"]
    assert game.ducats() == [130] * 4


# =====================================================================================
# Building actions — rules-data "Building actions"
# =====================================================================================

@pytest.mark.parametrize("square, building, goods, tiles, cards, markers", [
    ("r3c4", "city_hall", {}, {}, {"small_order": 2}, 0),
    ("r6c4", "guild_hall", {}, {}, {"large_order": 1}, 0),
    ("r4c6", "post_office", {}, {}, {"message": 2}, 0),
    ("r4c3", "cathedral", {}, {}, {}, 2),
    ("r1c7", "villa_colini", {}, {}, {"contract": 1}, 0),
    ("r1c3", "harbour", {}, {"commodity": 1}, {}, 0),
    ("r1c5", "park", {}, {"extra_action": 1}, {}, 0),
    ("r4c1", "coach_house", {}, {"starting_space": 1}, {}, 0),
    ("r4c8", "tavern", {}, {"trade": 1}, {}, 0),
    ("r8c5", "inn", {}, {"trade": 1}, {}, 0),
    ("r8c3", "palace", {}, {"building_action": 1}, {}, 0),
    ("r2c1", "metals_warehouse", {"silver": 1, "copper": 1}, {}, {}, 0),
    ("r2c8", "fabric_warehouse", {"linen": 1, "silk": 1}, {}, {}, 0),
    ("r6c1", "spice_warehouse", {"pepper": 1, "saffron": 1}, {}, {}, 0),
    ("r6c8", "drinks_warehouse", {"ale": 1, "wine": 1}, {}, {}, 0),
])
def test_building_actions(prog: Program, square: str, building: str, goods: dict, tiles: dict,
                          cards: dict, markers: int) -> None:
    """rules-data "Building actions": City Hall draw 2 Small order cards; Guild Hall draw 1
    Large order card; Post Office draw 2 Message cards; Cathedral take 2 of your ownership
    markers into your supply; Villas draw 1 Contract card; Harbor 1 "commodity of your choice"
    tile; Park 1 "extra action" tile; Coach House 1 "starting space" tile; Tavern and Inn 1
    "trade 1:1" tile; Palace the "building action" tile; Warehouses ONE of EACH of the two
    goods.  The tower player takes the action himself where the tower starts."""
    game = Game(prog, 4)
    game.hand(0)                                      # no card to deliver
    game.start(square)
    assert game.get("path_places") == [game.m(building)]
    game.no_offer(1, 2, 3, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)
    assert game.goods(0) == goods and game.tiles(0) == tiles
    held: dict = {}
    for c in game.get("cards", 0):
        k = game.name("CardKind", c[0])
        held[k] = held.get(k, 0) + 1
    assert held == cards
    assert game.get("markers", 0) == markers and game.get("acted", 0) == 1
    assert f"P1 takes the action of the {building}" in game.s.messages
    game.check()


def test_a_warehouse_short_of_a_good_gives_what_is_left(prog: Program) -> None:
    """rules-data "Building actions": take ONE of EACH of the two goods (never two of one kind);
    if stock is short take what is left.  "Supply shortage: take what is left (possibly
    nothing); the action still counts as taken."  All 5 silver are with P2."""
    game = Game(prog, 4)
    game.give_goods(1, *["silver"] * 5)
    game.start("r2c1")
    game.no_offer(1, 2, 3, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)
    assert game.goods(0) == {"copper": 1} and game.get("acted", 0) == 1
    game.check()


# =====================================================================================
# Cards: orders, messages, contracts — rules-data "Cards"
# =====================================================================================

def test_small_order_delivered_at_its_building(prog: Program) -> None:
    """rules-data "Cards": Small order: deliver goods to a building shown on the card; pays
    ducats.  PLACEHOLDER: 2 goods → 40 ducats.  The goods go back to the supply; the delivery
    is the action taken there (instead of the building's own)."""
    game = Game(prog, 4)
    order = game.card("small_order", "harbour", goods=["pepper", "linen"], pay=40)
    game.hand(0, order)
    game.give_goods(0, "pepper", "linen", "silk")
    game.start("r1c3")
    game.no_offer(1, 2, 3, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)
    assert game.labels()[0] == "pass" and len(game.labels()) == 2
    game.decide(0, game.labels()[1], DELIVER)
    assert game.ducats(0) == 170 and game.goods(0) == {"silk": 1}
    assert game.tiles(0) == {}                        # not the harbour's own action
    assert order in game.get("discards")[game.m("small_order")]
    game.check()


def test_small_order_without_its_goods_is_not_offered(prog: Program) -> None:
    """rules-data "Cards": an order is delivered with the goods it shows; a player without
    them takes the building's own action."""
    game = Game(prog, 4)
    game.hand(0, game.card("small_order", "harbour", goods=["pepper", "linen"], pay=40))
    game.give_goods(0, "pepper")
    game.start("r1c3")
    game.no_offer(1, 2, 3, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)
    assert game.tiles(0) == {"commodity": 1}          # no delivery decision at all


def test_large_order_delivered_at_its_villa_100_ducats_and_a_tile_of_choice(prog: Program) -> None:
    """rules-data "Building actions": Villas — EITHER draw 1 Contract card, OR deliver a Large
    order to this villa; "Cards": Large order: reward 100 ducats from the bank + 1 special tile
    of choice.  PLACEHOLDER: 3 different goods."""
    game = Game(prog, 4)
    order = game.card("large_order", "villa_monetti", goods=["saffron", "linen", "wine"], pay=100)
    game.hand(0, order)
    game.give_goods(0, "saffron", "linen", "wine")
    game.start("r1c2")                                # villa Monetti
    game.no_offer(1, 2, 3, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)
    game.decide(0, game.labels()[1], DELIVER)
    assert game.labels() == ["starting_space", "trade", "commodity", "building_action",
                             "extra_action"]
    game.decide(0, "extra_action", LARGE_TILE)
    assert game.ducats(0) == 230 and game.goods(0) == {} and game.tiles(0) == {"extra_action": 1}
    assert game.get("cards", 0) == []                 # no contract drawn
    game.check()


def test_message_delivered_when_the_tower_visited_both_buildings(prog: Program) -> None:
    """rules-data "Cards": Message: the tower must visit both buildings shown within one turn
    and the holder must take an action there.  PLACEHOLDER payout 30; choice 13: he delivers
    with the action he takes at one of them, once both have a disc this turn."""
    game = Game(prog, 4)
    message = game.card("message", "cathedral", "coach_house", pay=30)
    game.hand(0, message)
    game.start("r4c3")                                # the cathedral
    game.no_offer(1, 2, 3, kind=HERE)
    game.decide(0, "refuse_all", ANSWER)              # not here: only one of the two visited
    game.quiet_move(0, "r4c2", [1, 2, 3])
    game.quiet_move(0, "r4c1", [1, 2, 3])             # the coach house
    game.no_offer(1, 2, 3, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)
    assert game.labels()[0] == "pass"
    game.decide(0, game.labels()[1], DELIVER)
    assert game.ducats(0) == 160 and game.get("cards", 0) == []
    game.check()


def test_cards_reshuffled_when_a_pile_runs_out(prog: Program) -> None:
    """rules-data "Cards": played cards go face up under their pile; when a face-up card comes
    to the top, reshuffle that pile (here: an empty pile takes back its discards, shuffled).
    The small-order pile is down to 1 card with 1 played card under it."""
    game = Game(prog, 4)
    game.hand(0)
    decks, discards = game.get("decks"), game.get("discards")
    k = game.m("small_order")
    last, played = decks[k][0], decks[k][1]
    for c in decks[k][2:]:
        game.get("cards", 1).append(c)                # the rest are in P2's hand
    decks[k][:] = [last]
    discards[k][:] = [played]
    game.start("r3c4")                                # the city hall: 2 small orders
    game.no_offer(1, 2, 3, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)
    assert game.get("cards", 0) == [last, played]
    assert game.get("decks")[k] == [] and game.get("discards")[k] == []
    game.check()


def test_contracts_pay_20_for_each_owned_building_at_the_end(prog: Program) -> None:
    """rules-data "Cards": Privilege / Contract: value depends on owning the building shown.
    PLACEHOLDER: at game end, each contract whose building you own pays 20 ducats.  "End and
    scoring": most ducats wins."""
    game = Game(prog, 2)
    game.hand(0, game.card("contract", "harbour"), game.card("contract", "park"))
    game.hand(1)
    game.own(0, "harbour")
    game.own(1, "park")
    game.set("round_marker", 11)                      # the last of 12 rounds (2 players)
    for tp in (0, 1):
        game.start("r2c4")
        game.no_offer(1 - tp)
        game.decide(tp, "end_negotiation", ANSWER)
    res = game.pending
    assert isinstance(res, Terminal)
    assert res.scores == (130 + 20, 130)              # harbour owned: +20; park is P2's
    assert res.winners == (0,)


# =====================================================================================
# Special tiles — rules-data "Special tiles"
# =====================================================================================

def test_starting_space_tile_places_the_tower_anywhere(prog: Program) -> None:
    """rules-data "Turn" 1: A "starting space" tile lets the tower player choose the square
    instead (rules-data "Special tiles": place the tower on any square instead of rolling).
    The spent tile goes back to its stock (choice 11)."""
    game = Game(prog, 4)
    game.give_tiles(1, "starting_space")
    game.start("r2c4")
    game.no_offer(1, 2, 3)
    game.decide(0, "end_negotiation", ANSWER)
    assert game.pending.player == 1 and game.pending.prompt == START_TILE
    labels = game.labels()
    assert labels[0] == "pass" and len(labels) == 1 + 60 and "r4c4" not in labels
    game.decide(1, "r8c8", START_TILE)
    assert game.tower() == "r8c8" and game.tiles(1) == {}
    assert game.bag("tile_supply", enum="Tile")["starting_space"] == 5
    game.check()


def test_extra_action_tile_allows_a_second_action(prog: Program) -> None:
    """rules-data "Turn" 2: Each player may take at most ONE action per turn (unless he spends
    an "extra action" tile); "Special tiles": extra action — take a second action this turn."""
    game = Game(prog, 4)
    game.give_tiles(0, "extra_action")
    game.start("r1c3")                                # harbour
    game.no_offer(1, 2, 3, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)
    assert game.tiles(0) == {"commodity": 1, "extra_action": 1}
    game.quiet_move(0, "r1c2", [1, 2, 3])             # villa Monetti
    game.no_offer(1, 2, 3, kind=HERE)
    assert "do_it_myself" in game.labels()            # he can still act, with the tile
    game.decide(0, "do_it_myself", ANSWER)
    assert game.tiles(0) == {"commodity": 1} and game.get("acted", 0) == 2
    game.check()


def test_goods_tiles_commodity_and_trade_before_an_action(prog: Program) -> None:
    """rules-data "Special tiles": commodity of your choice — take any 1 good from the supply;
    trade 1:1 — swap 1 good you own for 1 good from the supply.  Choice 12: used before an
    action (here to complete a small order)."""
    game = Game(prog, 4)
    order = game.card("small_order", "harbour", goods=["pepper", "linen"], pay=40)
    game.hand(0, order)
    game.give_goods(0, "wine")
    game.give_tiles(0, "commodity", "trade")
    game.start("r1c3")
    game.no_offer(1, 2, 3, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)
    assert game.labels() == ["pass", "commodity", "trade"]
    game.decide(0, "commodity", GOODS_TILE)
    game.decide(0, "pepper", COMMODITY)
    game.decide(0, "trade", GOODS_TILE)
    game.decide(0, "wine", TRADE_GIVE)
    game.decide(0, "linen", TRADE_TAKE)
    game.decide(0, game.labels()[1], DELIVER)
    assert game.ducats(0) == 170 and game.goods(0) == {} and game.tiles(0) == {}
    game.check()


def test_building_action_tile_takes_a_visited_buildings_action_after_the_moves(prog: Program) -> None:
    """rules-data "Special tiles": building action — PLACEHOLDER: take the action of any one
    building the tower visited this turn, in addition to normal limits (offered after the
    tower stops, clockwise from the tower player)."""
    game = Game(prog, 4)
    game.give_tiles(2, "building_action")
    game.start("r1c3")                                # the harbour
    game.no_offer(1, 2, 3, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)
    game.no_offer(1, 2, 3)
    game.decide(0, "end_negotiation", ANSWER)
    assert game.pending.player == 2 and game.pending.prompt == BUILDING_TILE
    assert game.labels() == ["pass", "harbour"]
    game.decide(2, "harbour", BUILDING_TILE)
    assert game.tiles(2) == {"commodity": 1} and game.get("acted", 2) == 0
    game.check()


# =====================================================================================
# Ownership — rules-data "Turn" 3, "Cards" (ownership income)
# =====================================================================================

def test_ownership_income_5_when_another_player_acts_in_your_building(prog: Program) -> None:
    """rules-data "Cards", Ownership income — PLACEHOLDER: when another player takes the action
    of a building you own, you receive 5 ducats from the bank.  Not for your own action."""
    game = Game(prog, 4)
    game.own(3, "harbour")
    game.own(0, "park")
    game.start("r2c4")
    game.offer(1, square="r1c4", money=10)            # P2 buys the harbour (P4's)
    game.no_offer(2, 3)
    game.answer(0, "accept_offer")
    assert game.ducats() == [140, 120, 130, 135]      # P4 +5 from the bank
    assert game.get("bank_paid") == 5
    game.quiet_move(0, "r1c5", [1, 2, 3])             # the park: P1's own
    game.no_offer(2, 3, kind=HERE)
    game.decide(0, "do_it_myself", ANSWER)
    assert game.ducats(0) == 140                      # nothing for acting in his own
    game.check()


def test_acquiring_needs_markers_in_supply_and_a_free_building(prog: Program) -> None:
    """rules-data "Turn" 3 PLACEHOLDER: one marker per visited street square, on an unowned
    building next to it; "Setup": markers are gained into the supply via the Cathedral — with
    none in his supply the tower player acquires nothing."""
    game = Game(prog, 4)
    game.own(2, "harbour")
    game.markers_in_supply(0, 1)
    game.start("r2c4")                                # street below the harbour
    game.quiet_move(0, "r2c5", [1, 2, 3])             # street below the park
    game.no_offer(1, 2, 3)
    game.decide(0, "end_negotiation", ANSWER)
    assert game.labels() == ["pass", "city_hall"]     # r2c4: the harbour is P3's
    game.decide(0, "city_hall", ACQUIRE)
    assert game.owners() == {"harbour": 2, "city_hall": 0} and game.get("markers", 0) == 0
    assert isinstance(game.pending, Chance)           # no marker left: no more acquisitions
    game.check()


# =====================================================================================
# The end and scoring — rules-data "Setup", "End and scoring"
# =====================================================================================

@pytest.mark.parametrize("n, rounds", [(2, 12), (3, 10), (4, 8), (5, 7)])
def test_game_length_by_player_count(prog: Program, n: int, rounds: int) -> None:
    """rules-data "Setup": Game length 7–12 rounds depending on players ... PLACEHOLDER: 2p 12,
    3p 10, 4p 8, 5p 7.  Every player is tower player once per round, clockwise from P1."""
    game = Game(prog, n)
    towers = []
    while not isinstance(game.pending, Terminal):
        node = game.pending
        if isinstance(node, Chance):
            game.start("r2c4")
            continue
        assert node.prompt == f"{MOVE}: square"
        towers.append(game.get("nego_dealer"))
        for p in others(game.get("nego_dealer"), n):
            game.no_offer(p)
        game.decide(game.get("nego_dealer"), "end_negotiation", ANSWER)
    assert game.get("round_marker") == rounds
    assert towers == [p for _ in range(rounds) for p in range(n)]
    res = game.pending
    assert res.scores == (130,) * n and res.winners == tuple(range(n))   # a shared win


def test_a_market_start_shortens_the_game_by_a_round(prog: Program) -> None:
    """rules-data "Turn" 1: If the start square is in the MARKET, the round marker is moved one
    extra space (the game loses a round): 4 players play 7 rounds instead of 8."""
    game = Game(prog, 4)
    game.start("r4c4")                                # market: a round lost
    while not isinstance(game.pending, Terminal):
        if isinstance(game.pending, Chance):
            game.start("r2c4")
            continue
        dealer = game.get("nego_dealer")
        for p in others(dealer):
            game.no_offer(p)
        game.decide(dealer, "end_negotiation", ANSWER)
    assert game.get("round_marker") == 8
    assert game.s.messages.count("the dice name r4c4 in the market: the game loses a round") == 1
    assert sum(1 for m in game.s.messages if m.startswith("the tower stands on")) == 7 * 4


def test_most_ducats_wins(prog: Program) -> None:
    """rules-data "End and scoring": After the last round ... reveal money; most ducats wins.
    Goods, tiles and unfinished cards are worth nothing."""
    game = Game(prog, 2)
    game.set("round_marker", 11)
    game.give_goods(1, "silk", "silk")
    game.give_tiles(1, "trade")
    game.start("r2c3")
    game.offer(1, square="r1c3", money=5)
    game.decide(0, "accept_offer", ANSWER)
    game.decide(1, "pass", GOODS_TILE)                # P2 keeps his trade tile
    game.no_offer(1)
    game.decide(0, "end_negotiation", ANSWER)
    game.start("r2c4")
    game.no_offer(0)
    game.decide(1, "end_negotiation", ANSWER)
    res = game.pending
    assert isinstance(res, Terminal)
    assert res.scores == (135, 125) and res.winners == (0,)
