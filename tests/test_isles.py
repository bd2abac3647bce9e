"""Isles (rulebooks/examples/isles.rules, docs/games/isles.md): trades of hidden hands both ways
with the active player, several trades a turn, the bank and building — and that nobody learns
another's hand from a trade before it is accepted.

Each scenario starts a 3-player game at its first decision (P1's turn to trade: the window asks
P1, P2, P3 in turn, P1 the dealer), sets the hands (owner-only) and lands as the test needs,
and plays it one decision at a time. The rule quoted is the rulebook's own comment (Isles is not
a published game).
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mercator.interpreter.engine.nodes import Decision, Terminal
from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.view import observe
from tests.game_driver import program

ISLES = Path(__file__).resolve().parent.parent / "rulebooks" / "examples" / "isles.rules"
TURN = "offers: your turn to deal (or pass)"
CLOSING = "offers: the window is closing: accept an offer made to you, or pass (the offers lapse)"
RES = ("brick", "lumber", "wool", "grain", "ore")


@pytest.fixture(scope="module")
def prog() -> Program:
    return program(ISLES)


class Isles:
    """A 3-player game at P1's first turn to trade, with the hands set as a test needs."""

    def __init__(self, prog: Program, hands: list[dict[str, int]], seed: int = 5):
        self.prog = prog
        self.s = prog.new_game(players=3, seed=seed, narrate=True)
        for p, h in enumerate(hands):
            prog.set(self.s, "hand", self.bag(h), player=p)
        prog.resume(self.s)
        assert self.s.pending.prompt == TURN and self.s.pending.player == 0

    def bag(self, b: dict[str, int]) -> dict[int, int]:
        return {self.prog.member(r): n for r, n in b.items() if n}

    def hand(self, p: int) -> dict[str, int]:
        return {RES[r]: n for r, n in sorted(self.prog.get(self.s, "hand", player=p).items())}

    def labels(self) -> list[str]:
        return [o.label for o in self.s.pending.options]

    def accepts(self) -> list[str]:
        return [lb for lb in self.labels() if lb.startswith("accept")]

    def do(self, player: int, *labels: str) -> None:
        for label in labels:
            node = self.s.pending
            assert node.player == player, (node.player, node.prompt, label)
            self.prog.apply(self.s, label)

    def offer(self, maker: int, give: list[str], get: list[str], to: int = -1) -> None:
        """`maker` posts a trade: to P`to+1` when he is the dealer (P1), cards one by one."""
        self.do(maker, "post an offer")
        if to >= 0:
            self.do(maker, f"to P{to + 1}")
        for r in give:
            self.do(maker, f"add {r}")
        self.do(maker, "done")
        for r in get:
            self.do(maker, f"add {r}")
        self.do(maker, "post")


# ------------------------------------------------------------------ trades both ways
def test_the_active_player_asks_another_for_cards_of_his_hidden_hand(prog: Program) -> None:
    """Rule: he may offer cards of his hand and ask for cards of theirs. P1 offers P2 two bricks
    for an ore of P2's hidden hand; P2 holds one and accepts: exactly those cards change hands."""
    g = Isles(prog, [{"brick": 3}, {"ore": 1, "wool": 2}, {}])
    g.offer(0, ["brick", "brick"], ["ore"], to=1)
    assert g.prog.get(g.s, "offers")[0][3:5] == [[g.bag({"brick": 2})], [g.bag({"ore": 1})]]
    assert g.accepts() == ["accept #1 P1 to P2: gives brick×2; gets ore"]
    g.do(1, g.accepts()[0])
    assert g.hand(0) == {"brick": 1, "ore": 1}
    assert g.hand(1) == {"brick": 2, "wool": 2}


def test_another_player_asks_the_active_player_for_his_cards(prog: Program) -> None:
    """Rule: they may offer him theirs and ask for his. P2 offers a wool for P1's grain; P1,
    holding two grain, accepts in his next turn."""
    g = Isles(prog, [{"grain": 2}, {"wool": 1}, {}])
    g.do(0, "pass")
    g.offer(1, ["wool"], ["grain"])
    g.do(2, "pass")
    g.do(0, "accept #1 P2 to P1: gives wool; gets grain")
    assert g.hand(0) == {"grain": 1, "wool": 1} and g.hand(1) == {"grain": 1}


def test_what_may_be_asked_is_bounded_by_the_rulebook_not_by_the_hand(prog: Program) -> None:
    """asks(o) = most_asked(): 2 of each resource, whatever the other holds (P2 holds nothing):
    after two ores no more ore may be asked."""
    g = Isles(prog, [{"brick": 1}, {}, {}])
    g.do(0, "post an offer", "to P2", "add brick", "done")
    assert g.labels() == ["add brick", "add lumber", "add wool", "add grain", "add ore",
                          "cancel"]
    g.do(0, "add ore", "add ore")
    assert "add ore" not in g.labels() and "post" in g.labels()


def test_a_seat_that_lacks_the_asked_cards_cannot_accept_and_the_offer_stands(
        prog: Program) -> None:
    """P1 asks P2 for an ore P2 does not hold: P2 is offered no acceptance (his secret), the
    offer is not void and stays on the table after P2's turn."""
    g = Isles(prog, [{"brick": 1}, {"wool": 1}, {}])
    g.offer(0, ["brick"], ["ore"], to=1)
    assert g.s.pending.player == 1 and g.accepts() == []
    g.do(1, "pass")
    assert len(g.prog.get(g.s, "offers")) == 1


# ------------------------------------------------------------------ several trades a turn
def test_up_to_three_trades_in_one_turn_then_the_window_closes(prog: Program) -> None:
    """Rule: up to three accepted trades in the turn (accepts = trades_per_turn). P1 trades a
    brick for a wool with P2, then with P3, then with P2 again; after the third the window
    closes (the bank's question comes) although P1 still holds a brick."""
    g = Isles(prog, [{"brick": 4}, {"wool": 2}, {"wool": 1}])
    for k, taker in enumerate((1, 2, 1), start=1):
        assert g.s.pending.player == 0 and g.s.pending.prompt == TURN
        g.offer(0, ["brick"], ["wool"], to=taker)
        while g.s.pending.player != taker:
            g.do(g.s.pending.player, "pass")
        g.do(taker, f"accept #1 P1 to P{taker + 1}: gives brick; gets wool")
        assert g.prog.get(g.s, "turn_trades") == k
        if k < 3:
            # the window goes on: the next seat after the acceptor, back round to P1
            while g.s.pending.player != 0:
                g.do(g.s.pending.player, "pass")
    assert g.hand(0) == {"brick": 1, "wool": 3}
    assert g.hand(1) == {"brick": 2} and g.hand(2) == {"brick": 1}
    assert g.s.pending.prompt != TURN                        # the window closed after three


def test_an_offer_in_the_last_turn_gets_its_last_answer(prog: Program) -> None:
    """The window has no limit of its own: the engine's safety bound (DEAL_PASSES full passes)
    closes it, and P1, to whom P3 replaced his offer in the very last turn, answers it then."""
    from mercator.interpreter.engine.limits import DEAL_PASSES
    g = Isles(prog, [{"grain": 1}, {"wool": 1}, {"ore": 5}])
    for _ in range(3 * DEAL_PASSES):
        who = g.s.pending.player
        assert g.s.pending.prompt == TURN
        if who == 2:                                         # P3 keeps changing the table
            if g.prog.get(g.s, "offers"):
                g.do(2, "replace #1", "add ore", "done", "add grain", "post")
            else:
                g.offer(2, ["ore"], ["grain"])
        else:
            g.do(who, "pass")
    assert g.s.pending.prompt == CLOSING and g.s.pending.player == 0
    assert g.labels() == ["pass", "accept #1 P3 to P1: gives ore; gets grain"]
    g.do(0, "accept #1 P3 to P1: gives ore; gets grain")
    assert g.hand(0) == {"ore": 1} and g.hand(2) == {"grain": 1, "ore": 4}


def test_two_last_answers_at_the_bound_make_two_trades(prog: Program) -> None:
    """At the safety bound both P1 and P2 are owed an answer (P3 replaced his offer in the very
    last turn, after P1 had posted one to P2): each gets his last answer in turn, and as the
    window accepts up to three trades, both acceptances are trades."""
    from mercator.interpreter.engine.limits import DEAL_PASSES
    g = Isles(prog, [{"grain": 1, "brick": 1}, {"wool": 1}, {"ore": 5}])
    for turn in range(3 * DEAL_PASSES):
        who = g.s.pending.player
        mine = [o[0] for o in g.prog.get(g.s, "offers") if o[1] == 2]
        if who == 2 and mine:
            g.do(2, f"replace #{mine[0]}", "add ore", "done", "add grain", "post")
        elif who == 2:
            g.offer(2, ["ore"], ["grain"])
        elif who == 0 and turn == 3 * DEAL_PASSES - 3:       # the last pass: P1 offers P2
            g.offer(0, ["brick"], ["wool"], to=1)
        else:
            g.do(who, "pass")
    assert g.s.pending.prompt == CLOSING and g.s.pending.player == 0
    g.do(0, "accept #3 P3 to P1: gives ore; gets grain")
    assert g.s.pending.prompt == CLOSING and g.s.pending.player == 1
    g.do(1, "accept #2 P1 to P2: gives brick; gets wool")
    assert g.prog.get(g.s, "turn_trades") == 2
    assert g.hand(0) == {"wool": 1, "ore": 1} and g.hand(1) == {"brick": 1}
    assert g.hand(2) == {"grain": 1, "ore": 4}


# ------------------------------------------------------------------ the bank and building
def test_three_alike_to_the_bank_for_one_then_a_village(prog: Program) -> None:
    """Rule: 3 alike to the bank for 1 of his choice; a village costs brick, lumber, wool and
    grain, scores 2 and gives a new land of his choice."""
    g = Isles(prog, [{"ore": 3, "brick": 1, "lumber": 1, "wool": 1}, {}, {}])
    g.do(0, "pass")                                          # P1, P2, P3 pass: quiet
    g.do(1, "pass")
    g.do(2, "pass")
    assert g.s.pending.prompt == "give 3 alike to the bank (or pass)"
    g.do(0, "ore", "grain")
    assert g.hand(0) == {"brick": 1, "lumber": 1, "wool": 1, "grain": 1}
    assert g.labels() == ["pass", "road", "village"]
    g.do(0, "village", "ore")
    assert int(g.prog.get(g.s, "points", player=0)) == 2
    assert g.prog.get(g.s, "lands", player=0) == g.bag({"brick": 1, "grain": 1, "ore": 1})
    # then P2's turn began: his roll gave P1 a card if it named one of P1's lands
    roll = next(m for m in reversed(g.s.messages) if m.startswith("P2 rolls"))
    rolled = roll.split()[-1]
    assert g.hand(0) == ({rolled: 1} if rolled in ("brick", "grain", "ore") else {})


# ------------------------------------------------------------------ hidden hands
def test_no_other_seat_learns_the_hand_asked_of_before_the_trade_is_accepted(
        prog: Program) -> None:
    """Item 4 of issue 38, the hidden-information property: P1 asks P2 for an ore. In one game
    P2 holds it, in the other he does not (a wool instead: the same number of cards). Up to P2's
    answer, P1 and P3 have observed the same in both games: their views, logs and information
    states, and P1's and P3's options when they decide; only P2's options differ (he alone may
    accept). When he accepts, everyone sees the ore change hands."""
    games = [Isles(prog, [{"brick": 1}, hand, {}]) for hand in ({"ore": 1}, {"wool": 1})]
    for g in games:
        g.offer(0, ["brick"], ["ore"], to=1)
    has, lacks = games
    for seat in (0, 2):
        assert has.s.information_state(seat) == lacks.s.information_state(seat)
        assert observe(prog, has.s, seat) == observe(prog, lacks.s, seat)
    assert has.accepts() == ["accept #1 P1 to P2: gives brick; gets ore"]
    assert lacks.accepts() == []
    has.do(1, "pass")
    lacks.do(1, "pass")
    assert has.labels() == lacks.labels()                    # P3's options, the same
    for seat in (0, 2):
        assert has.s.information_state(seat) == lacks.s.information_state(seat)
    has.do(2, "pass")
    has.do(0, "pass")
    has.do(1, "accept #1 P1 to P2: gives brick; gets ore")
    assert "P2 accepts #1 P1 to P2: gives brick; gets ore" in has.s.messages


# ------------------------------------------------------------------ random play
PROPS = settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))


@PROPS
@given(seed=st.integers(0, 2**16), players=st.sampled_from([3, 4]))
def test_random_games_trade_exactly_what_was_offered(prog: Program, seed: int,
                                                     players: int) -> None:
    """Random games end; at every acceptance the maker held what he gave and the taker what
    he was asked, and exactly those cards changed hands; never more than three trades a turn
    (the rulebook's invariant, checked after every decision); nothing asked beyond 2 of a kind."""
    rng = random.Random(seed)
    s = prog.new_game(players, seed)
    at = {n: i for i, n in enumerate(("id", "maker", "taker", "give", "get"))}
    while not s.over:
        node = s.pending
        assert isinstance(node, Decision)
        before = {o[0]: o for o in prog.get(s, "offers")}
        hands = [dict(prog.get(s, "hand", player=p)) for p in range(players)]
        i = rng.randrange(node.count)
        label = node.options[i].label
        prog.apply(s, i)
        assert prog.check_invariants(s) == []
        if label.startswith("accept #"):
            o = before[int(label.split()[1][1:])]
            mk, tk = o[at["maker"]], o[at["taker"]]
            (give,), (get,) = o[at["give"]], o[at["get"]]
            assert all(n <= 2 for n in get.values())
            assert all(hands[mk].get(r, 0) >= n for r, n in give.items())
            assert all(hands[tk].get(r, 0) >= n for r, n in get.items())
            # (the next decision is in the same turn — the window's, or the bank's question,
            # always asked: its options rest on the hidden hand — so no card came in between)
            now = [dict(prog.get(s, "hand", player=p)) for p in (mk, tk)]
            for r in resource_ids(prog):
                moved = give.get(r, 0) - get.get(r, 0)
                assert now[0].get(r, 0) == hands[mk].get(r, 0) - moved
                assert now[1].get(r, 0) == hands[tk].get(r, 0) + moved
    assert isinstance(s.pending, Terminal)


def resource_ids(prog: Program) -> list[int]:
    return [prog.member(r) for r in RES]
