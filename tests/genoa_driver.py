"""The scenario driver of Genoa (rulebooks/genoa.rules): a game with explicit chance, a position
prepared by moving things between their real places, and the steps of the deal window
(docs/language.md §4.17) by their labels.

The board (row r = red die, column c = blue die; S = a street space street_r<r>c<c>):

     c1       c2      c3        c4        c5        c6        c7       c8
r1   colini   colini  tavern    tavern    harbour   harbour   monetti  monetti
r2   fabric   colini  S         S         S         S         monetti  drinks
r3   fabric   S       S         cityhall  cityhall  S         S        drinks
r4   park     S       cathedr.  market    market    postoff.  S        zasteri
r5   park     S       cathedr.  market    market    postoff.  S        zasteri
r6   ricci    S       S         guildh.   guildh.   S         S        zasteri
r7   ricci    metals  S         S         S         S         spice    spice
r8   metals   metals  palace    palace    coachh.   coachh.   inn      inn

With 4 players and P1 (seat 0) the tower player, a window's turns go P1, P2, P1, P3, P1, P4
(the tower player answers after each of the others), then again from P1.
"""
from __future__ import annotations

from typing import Iterable, Optional

from game_driver import ScenarioGame, program
from shipped import shipped_program

from mercator.interpreter.engine.nodes import Chance, Decision
from mercator.interpreter.engine.program import Program

GENOA = "rulebooks/genoa.rules"
TURN = "bids: your turn to deal (or pass)"
ABOUT = "bids: the offer is about"
TO = "bids: make the offer to"
GIVE = "bids: what you give"
GET = "bids: what you ask for"
PROMISE = "bids: what you promise of the proceeds"
MUST = "bids: you must accept one of these offers"
MOVE = "move the tower (no deal) to (pass = stop the tower)"
MYSELF = "take the action here yourself (pass = leave it void)"
ACQUIRE = "acquire buildings next to a street with a disc (or pass)"
MARKER = "put an ownership marker on"
MARKER2 = "put a second ownership marker on (or pass)"
SMALL = "deliver a small order here (or pass)"
LARGE = "deliver a large order here (pass = draw a contract)"
TILE = "building-action tile: take the action of a building you own (or pass)"
GOODS_TILE = "use a goods tile (or pass)"
START_TILE = "starting-space tile: place the tower on (pass = roll the dice)"


def genoa_program(path: str = GENOA) -> Program:
    """The compiled Genoa rulebook (or a variant of it); the shipped one is compiled once per
    test process and shared (tests/shipped.py): make states from it, never change it."""
    return shipped_program("genoa") if path == GENOA else program(path)


class Game(ScenarioGame):
    """One Genoa game with explicit chance, driven decision by decision."""

    def __init__(self, prog: Program, n: int = 4, seed: int = 0):
        self.prog = prog
        self.n = n
        self.s = prog.new_game(n, seed=seed, narrate=True, explicit_chance=True)
        self.asked: list[tuple[int, str]] = []
        self.keep_order()            # the four decks: shuffled as they are listed

    # ------------------------------------------------------------------ reading
    def name(self, enum: str, value: int) -> str:
        t = next(t for _, (t, _) in self.prog.rb.member_of.items() if t.name == enum)
        return t.members[value]

    def ducats(self, p: int) -> int:
        return int(self.get("ducats", p))

    def bag(self, name: str, player: Optional[int] = None, enum: str = "Good") -> dict:
        """A bag field as {member name: count}."""
        return {self.name(enum, k): v for k, v in sorted(self.get(name, player).items()) if v}

    def goods(self, p: int) -> dict:
        return self.bag("goods", p)

    def tiles(self, p: int) -> dict:
        return self.bag("tiles", p, "Tile")

    def cards(self, p: int) -> list[str]:
        return sorted(self.name("Card", c) for c in self.get("cards", p))

    def tower(self) -> Optional[str]:
        t = self.get("tower")
        return None if t is None else self.name("Space", t)

    def path(self) -> list[str]:
        return [self.name("Space", x) for x in self.get("path")]

    def owners(self) -> dict:
        return {self.name("Space", b): p for b, p in self.get("owners").items()}

    def offers(self) -> list[str]:
        """The offers on the table, as the accept option shows them."""
        from mercator.interpreter.engine.bundles import offer_lines
        t = next(f.type for f in self.prog.rb.table_fields if f.name == "bids")
        return offer_lines(self.get("bids"), t)

    def storage(self, p: int) -> int:
        owned = sum(1 for q in self.get("owners").values() if q == p)
        return 7 - int(self.get("markers", p)) - owned

    # ------------------------------------------------------------------ preparing a position
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

    def kinds(self) -> dict:
        return {self.m("large_order"): "large_", self.m("small_order"): "small_",
                self.m("message"): "message_", self.m("contract"): "contract_"}

    def deck_of(self, card: str) -> int:
        return next(k for k, v in self.kinds().items() if card.startswith(v))

    def give_card(self, p: int, card: str) -> None:
        """p takes this card out of its deck (or out of another hand, which gets the top card
        of that deck instead)."""
        decks = self.get("decks")
        c, k = self.m(card), self.deck_of(card)
        if c not in decks[k]:
            q = next(q for q in range(self.n) if c in self.get("cards", q))
            self.get("cards", q).remove(c)
            self.get("cards", q).append(decks[k].pop(0))
            decks[k].append(c)
        decks[k].remove(c)
        self.get("cards", p).append(c)

    def hand(self, p: int, *cards: str) -> None:
        """p's hand becomes exactly these cards: his dealt cards go back to their decks."""
        decks = self.get("decks")
        for c in self.get("cards", p):
            decks[self.deck_of(self.name("Card", c))].append(c)
        self.set("cards", [], p)
        for c in cards:
            self.give_card(p, c)

    def pay(self, p: int, q: int, amount: int) -> None:
        """p hands q ducats (to set up purses without changing the total)."""
        self.set("ducats", self.ducats(p) - amount, p)
        self.set("ducats", self.ducats(q) + amount, q)

    def markers_in_supply(self, p: int, k: int) -> None:
        """p moves k of his ownership markers from the board storage to his supply."""
        self.set("markers", int(self.get("markers", p)) + k, p)

    def own(self, p: int, building: str) -> None:
        """p's marker (from his storage) on a building."""
        self.get("owners")[self.m(building)] = p

    # ------------------------------------------------------------------ acting
    def roll(self, red: int, blue: int) -> None:
        """The two dice of a tower placement: red = row, blue = column (G12)."""
        for pips in (red, blue):
            node = self.s.pending
            assert isinstance(node, Chance) and node.what == "roll", f"expected a die, got {node}"
            self.prog.apply(self.s, str(pips))

    def start(self, square: str) -> None:
        """Roll the dice that name this square (r<row>c<col>)."""
        row, col = int(square[1]), int(square[3])
        self.roll(row, col)
        self.keep_order()

    def do(self, p: int, *labels: str) -> None:
        """Player p answers the next decisions with these labels, in order."""
        for label in labels:
            node = self.s.pending
            assert isinstance(node, Decision), f"expected a decision of P{p + 1}, got {node}"
            assert node.player == p, (f"P{node.player + 1} decides {node.prompt!r}", label)
            self.asked.append((p, node.prompt))
            self.prog.apply(self.s, label)
            self.keep_order()

    def post(self, p: int, about: str, give: Iterable[str] = (), get: Iterable[str] = (),
             promise: Iterable[str] = (), to: Optional[int] = None) -> None:
        """p posts an offer, built one step at a time ('add 5 ducats', 'add pepper', ...)."""
        self.do(p, "post an offer")
        if to is not None:
            self.do(p, f"to P{to + 1}")
        self.do(p, f"about {about}")
        get, promise = list(get), list(promise)
        for stage, items in ((GIVE, list(give)), (GET, get), (PROMISE, promise)):
            if self.s.pending.prompt != stage:
                assert not items, f"{stage} was skipped: nothing to add"
                continue
            for x in items:
                self.do(p, f"add {x}")
            last = "post" in self.labels()
            self.do(p, "post" if last else "done")
            if last:
                rest = get + promise if stage == GIVE else promise if stage == GET else []
                assert not rest, f"the offer was posted before {rest}"
                return

    def no_tiles(self, p: int) -> None:
        """p, asked whether to use a goods tile around his action, uses none."""
        while self.s.pending.prompt == GOODS_TILE and self.s.pending.player == p:
            self.do(p, "pass")

    def passes(self, *players: int) -> None:
        """Each of these players passes his turn of the window."""
        for p in players:
            self.do(p, "pass")

    def accept(self, p: int, start: str) -> None:
        """p accepts the offer whose label starts 'accept #N'."""
        labels = [lb for lb in self.labels() if lb.startswith(start)]
        assert len(labels) == 1, (start, self.labels())
        self.do(p, labels[0])

    def accepts(self) -> list[str]:
        return [lb for lb in self.labels() if lb.startswith("accept")]

    def close(self, p: int, where: str = "none") -> None:
        """The tower player closes the window (no deal), saying where the tower goes."""
        self.do(p, f"close: {where}")

    def check(self) -> None:
        """The rulebook's invariants hold (conservation of money, goods, cards, tiles, markers)."""
        assert self.prog.check_invariants(self.s) == []

    def until(self, prompt: str) -> None:
        """Assert that this decision is pending."""
        node = self.s.pending
        assert isinstance(node, Decision) and node.prompt == prompt, node
