"""The example games of rulebooks/examples/: Parade (rulebooks/examples/parade.rules), the
two-stage game of issue 15 that needs stages, `lowest wins` and `rank` (docs/games/parade.md).

Scenario tests quote the rule they check from the rulebook's own comments (the published rules
as the rulebook states them).  Each starts a seeded game, then at the first decision lays out
the smallest position that shows the rule with `prog.set`: the hands, the parade, the piles and
the deck, with every other card of the 66 put in the discard so that the rulebook's invariants
("66 cards", "11 cards of each suit") hold throughout; it never does what the rule under test
should do.  Cards are written like the option labels, `("red", 7)` for {suit: red, value: 7}.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Optional

import pytest
from hypothesis import given, settings, strategies as st

from mercator.dsl.fmt import format_rulebook
from mercator.dsl.loader import load, load_text
from mercator.dsl.parser import comments, parse
from game_driver import ScenarioGame, program
from mercator.interpreter.engine.nodes import Decision, Terminal
from mercator.interpreter.engine.program import Program

PARADE = Path(__file__).resolve().parent.parent / "rulebooks" / "examples" / "parade.rules"
QUICK = PARADE.with_name("parade_variant.rules")
SUITS = ("red", "blue", "green", "yellow", "purple", "black")
PLAY = "play a card to the end of the parade"
KEEP = "add two cards of your hand to your pile"

Card = tuple[str, int]


@pytest.fixture(scope="module")
def prog() -> Program:
    return program(PARADE)


def label(c: Card) -> str:
    return f"{{suit: {c[0]}, value: {c[1]}}}"


class Parade(ScenarioGame):
    """A Parade game of `n` players, set up at P1's first turn."""

    def __init__(self, prog: Program, n: int, hands: list[list[Card]], parade: list[Card],
                 deck: list[Card], piles: Optional[list[list[Card]]] = None):
        self.prog = prog
        self.asked = []
        self.s = prog.new_game(n, seed=0)
        piles = piles or [[] for _ in range(n)]
        used = [c for h in hands for c in h] + parade + deck + [c for pl in piles for c in pl]
        assert len(set(used)) == len(used), "a card is laid out twice"
        rest = [(s, v) for s in SUITS for v in range(11) if (s, v) not in used]
        for i in range(n):
            self.set("hand", self.cards(hands[i]), player=i)
            self.set("pile", self.cards(piles[i]), player=i)
        self.set("parade", self.cards(parade))
        self.set("deck", self.cards(deck))
        self.set("discard", self.cards(rest))
        prog.resume(self.s)                     # P1's decision, asked afresh for this position
        self.check()

    def cards(self, cs: list[Card]) -> list:
        return [[self.m(s), v] for s, v in cs]

    def seen(self, name: str, player: Optional[int] = None) -> list[Card]:
        return [(SUITS[s], v) for s, v in self.get(name, player)]

    def play(self, player: int, c: Card) -> None:
        self.decide(player, label(c), prompt=PLAY)

    def keep(self, player: int, a: Card, b: Card) -> None:
        hand = self.seen("hand", player)
        pair = sorted((a, b), key=hand.index)
        self.decide(player, f"{label(pair[0])}+{label(pair[1])}", prompt=KEEP)

    def after_decision(self) -> None:
        self.check()


# A parade no played card of value 6..9 takes from while it is 6..9 cards long ("the card just
# played leaves its value's worth of cards at the end of the parade safe"), so the last round
# of the end-of-game scenarios changes only the hands.
QUIET = [("black", 1), ("black", 2), ("black", 3), ("purple", 1), ("purple", 2), ("purple", 3)]


# ------------------------------------------------------------------ the parade: cards taken
def test_the_cards_before_the_safe_ones_of_the_suit_or_of_lower_value_are_taken(prog) -> None:
    """Rule: "The card just played leaves its value's worth of cards at the end of the parade
    safe; of the cards before them, every card of its suit and every card of its value or lower
    leaves the parade for the player's pile."  red 3 keeps the last 3 safe; of red 5, blue 2,
    green 9 it takes red 5 (its suit) and blue 2 (2 <= 3), not green 9."""
    g = Parade(prog, 3, hands=[[("red", 3), ("blue", 10), ("green", 10), ("yellow", 10), ("black", 10)],
                               [("blue", 9)], [("green", 8)]],
               parade=[("red", 5), ("blue", 2), ("green", 9), ("red", 1), ("yellow", 3), ("black", 8)],
               deck=[("purple", 7), ("purple", 6)])
    g.play(0, ("red", 3))
    assert g.seen("pile", 0) == [("red", 5), ("blue", 2)]
    assert g.seen("parade") == [("green", 9), ("red", 1), ("yellow", 3), ("black", 8), ("red", 3)]
    # "then draw one": P1 draws the top card, and P2 is next
    assert g.seen("hand", 0) == [("blue", 10), ("green", 10), ("yellow", 10), ("black", 10), ("purple", 7)]
    assert g.seen("deck") == [("purple", 6)] and g.get("turn_player") == 1
    assert g.pending.player == 1 and g.labels() == [label(("blue", 9))]


def test_a_zero_leaves_nothing_safe_and_a_high_card_takes_nothing(prog) -> None:
    """Same rule at its ends: a 0 leaves no card safe, so it takes every card of its suit and
    every 0 in the parade (blue 7, green 0; not red 5); a 10 played to a parade of 7 cards
    leaves all of them safe and takes nothing."""
    g = Parade(prog, 2, hands=[[("blue", 0), ("red", 10), ("red", 9), ("red", 8), ("red", 7)],
                               [("yellow", 10), ("green", 8), ("green", 7), ("green", 6), ("green", 5)]],
               parade=[("red", 5), ("blue", 7), ("green", 0), ("black", 4), ("purple", 6), ("yellow", 2)],
               deck=[("black", 9), ("black", 8)])
    g.play(0, ("blue", 0))
    assert g.seen("pile", 0) == [("blue", 7), ("green", 0)]
    assert len(g.seen("parade")) == 5
    g.play(1, ("yellow", 10))
    assert g.seen("pile", 1) == [] and g.seen("parade")[-1] == ("yellow", 10)


# ------------------------------------------------------------------ the stages
def test_the_last_card_drawn_calls_the_last_round_which_the_caller_ends(prog) -> None:
    """Rules: "One round of this stage is one player's turn ... The last card drawn ... calls
    the last round" and "Everyone, the caller last, plays one more card without drawing; then
    each player secretly picks two of the four cards left in his hand".  With 3 cards in the
    deck P1, P2, P3 each play and draw (rounds 1-3 of the parade stage); P3 drew the last card,
    so the last round (round 4, the second stage's only round) goes P1, P2, P3."""
    hands = [[("yellow", 6), ("yellow", 9), ("red", 1), ("red", 2), ("red", 3)],
             [("yellow", 7), ("green", 1), ("green", 2), ("green", 3), ("green", 4)],
             [("yellow", 8), ("blue", 1), ("blue", 2), ("blue", 3), ("blue", 4)]]
    g = Parade(prog, 3, hands=hands, parade=QUIET,
               deck=[("red", 10), ("green", 10), ("blue", 10)])
    for seat, c in enumerate([("yellow", 6), ("yellow", 7), ("yellow", 8)]):
        assert g.s.round == seat + 1 and g.get("last_round_from") is None
        g.play(seat, c)
    assert g.get("last_round_from") == 2 and g.seen("deck") == []
    assert g.s.round == 4                                   # round_number counts across stages
    assert [len(g.get("hand", i)) for i in range(3)] == [5, 5, 5]
    g.play(0, ("yellow", 9))                                # to a parade of 9: takes nothing
    g.play(1, ("green", 4))
    g.play(2, ("blue", 4))
    assert [len(g.get("hand", i)) for i in range(3)] == [4, 4, 4]   # nobody drew
    assert g.seen("parade")[-3:] == [("yellow", 9), ("green", 4), ("blue", 4)]
    for seat in range(3):
        node = g.pending
        assert isinstance(node, Decision) and node.simultaneous and node.player == seat
        assert len(g.labels()) == 6                         # 2 of 4 cards: C(4, 2) choices
        g.keep(seat, *g.seen("hand", seat)[:2])
    assert isinstance(g.pending, Terminal) and g.s.round == 4 and g.s.ended_by == "limit"
    assert [g.asked[i] for i in range(7)] == \
        [(0, PLAY), (1, PLAY), (2, PLAY), (0, PLAY), (1, PLAY), (2, PLAY), (0, KEEP)]
    # 66 less the 15 + 6 + 3 cards laid out were put in the discard; 2 a player are thrown away
    assert len(g.get("discard")) == 66 - 15 - 6 - 3 + 3 * 2


def test_a_sixth_suit_in_the_pile_calls_the_last_round_with_cards_left(prog) -> None:
    """Rule: "... or a sixth suit in a player's pile, calls the last round."  P1 holds five
    suits; red 0 takes the red 9 at the head of the parade; P1 still draws (the deck is not
    empty), and the last round begins with P2 at round 2."""
    g = Parade(prog, 2,
               hands=[[("red", 0), ("red", 1), ("red", 2), ("red", 3), ("red", 4)],
                      [("yellow", 6), ("yellow", 7), ("yellow", 8), ("yellow", 9), ("yellow", 10)]],
               parade=[("red", 9)] + QUIET[1:],
               deck=[("green", 10), ("green", 9), ("green", 8)],
               piles=[[("blue", 5), ("green", 5), ("yellow", 5), ("purple", 5), ("black", 5)], []])
    g.play(0, ("red", 0))
    assert ("red", 9) in g.seen("pile", 0)
    assert g.get("last_round_from") == 0 and g.s.round == 2
    assert len(g.get("hand", 0)) == 5 and g.seen("deck") == [("green", 9), ("green", 8)]
    g.play(1, ("yellow", 6))                               # the caller's left neighbour first
    assert g.pending.player == 0 and g.pending.prompt == PLAY
    g.play(0, ("red", 4))
    assert g.seen("deck") == [("green", 9), ("green", 8)]  # nobody draws in the last round


# ------------------------------------------------------------------ scoring
def end_game(prog: Program, n: int, hands: list[list[Card]], piles: list[list[Card]],
             plays: list[Card], keeps: list[tuple[Card, Card]]) -> Parade:
    """P1 plays plays[0] and draws the last card (purple 10), then the last round: seats
    2..n, 1 play plays[1:], then everyone keeps keeps[seat]."""
    g = Parade(prog, n, hands=hands, parade=QUIET, deck=[("purple", 10)], piles=piles)
    g.play(0, plays[0])
    for seat, c in zip(list(range(1, n)) + [0], plays[1:]):
        g.play(seat, c)
    for seat in range(n):
        g.keep(seat, *keeps[seat])
    assert isinstance(g.pending, Terminal)
    return g


def test_tied_majorities_all_count_one_and_the_fewest_points_then_cards_win(prog) -> None:
    """Rules: "The most cards of a suit hold its majority; players tied for most all hold it"
    (the majority is place 1 of `rank`, where ties share); "A card of a suit the player holds
    the majority of ... counts 1; every other card counts its value"; `score ... lowest wins`,
    `tiebreak p: len(p.pile) lowest wins`.
    Final piles: P1 red 7, 8, 1 + blue 2; P2 red 5, 6, 2 + green 4; P3 blue 6, 5 + green 9,
    0, 2.  Red: P1 and P2 tie on 3, both hold it; blue: P3 (2 to 1); green: P3 (3 to 1).
    P1 = 1+1+1 + 2 = 5, P2 = 1+1+1 + 4 = 7, P3 = 1+1 + 1+1+1 = 5; P1 and P3 tie on 5 and P1
    wins with 4 cards to 5."""
    g = end_game(prog, 3,
                 hands=[[("yellow", 6), ("yellow", 9), ("red", 1), ("blue", 2), ("black", 10)],
                        [("yellow", 7), ("red", 2), ("green", 4), ("black", 9), ("purple", 9)],
                        [("yellow", 8), ("green", 0), ("green", 2), ("black", 8), ("purple", 8)]],
                 piles=[[("red", 7), ("red", 8)], [("red", 5), ("red", 6)],
                        [("blue", 6), ("blue", 5), ("green", 9)]],
                 plays=[("yellow", 6), ("yellow", 7), ("yellow", 8), ("yellow", 9)],
                 keeps=[(("red", 1), ("blue", 2)), (("red", 2), ("green", 4)),
                        (("green", 0), ("green", 2))])
    t = g.pending
    assert t.scores == (5, 7, 5) and t.tiebreaks == ((4,), (4,), (5,))
    assert t.winners == (0,) and t.ranking == (0, 2, 1)
    thrown = [("black", 10), ("purple", 10), ("black", 9), ("purple", 9), ("black", 8), ("purple", 8)]
    assert all(c in g.seen("discard") for c in thrown)     # the two cards not kept, and P1's
    assert len(g.seen("discard")) == 66 - 15 - 6 - 1 - 7 + 6   # draw (purple 10) among them


def test_with_two_players_a_majority_needs_two_cards_more(prog) -> None:
    """Rule: "With two players the majority needs two cards more than the other player."
    Final piles: P1 red 7, 8, 1 + blue 9, 2; P2 red 5, 2 + green 4.  Red 3 to 2 is no majority
    (face values), blue 2 to 0 is (1 each), green 1 to 0 is not.  P1 = 7+8+1 + 1+1 = 18,
    P2 = 5+2+4 = 11: P2 wins (with 3 or more players P1's reds would count 1 each)."""
    g = end_game(prog, 2,
                 hands=[[("yellow", 6), ("yellow", 9), ("red", 1), ("blue", 2), ("black", 10)],
                        [("yellow", 7), ("red", 2), ("green", 4), ("black", 9), ("purple", 9)]],
                 piles=[[("red", 7), ("red", 8), ("blue", 9)], [("red", 5)]],
                 plays=[("yellow", 6), ("yellow", 7), ("yellow", 9)],
                 keeps=[(("red", 1), ("blue", 2)), (("red", 2), ("green", 4))])
    assert g.pending.scores == (18, 11) and g.pending.winners == (1,)


def test_equal_points_and_cards_share_the_win(prog) -> None:
    """`score` and every `tiebreak` equal: the victory is shared.  P1 red 4 + blue 3, P2 green
    4 + yellow 3 (each holds his suits alone: 1 + 1 = 2 points, 2 cards)."""
    g = end_game(prog, 2,
                 hands=[[("yellow", 6), ("yellow", 9), ("red", 4), ("blue", 3), ("black", 10)],
                        [("yellow", 7), ("green", 4), ("yellow", 3), ("black", 9), ("purple", 9)]],
                 piles=[[], []],
                 plays=[("yellow", 6), ("yellow", 7), ("yellow", 9)],
                 keeps=[(("red", 4), ("blue", 3)), (("green", 4), ("yellow", 3))])
    # with 2 players 1 to 0 is no majority: face values 4 + 3 each
    assert g.pending.scores == (7, 7) and g.pending.tiebreaks == ((2,), (2,))
    assert g.pending.winners == (0, 1)


def test_a_variant_replaces_the_last_round_stage_by_name() -> None:
    """parade_variant.rules, "the quick finish": `replace round last_round` — when the last card
    is drawn nobody plays again, and each player keeps two of his five cards (C(5, 2) = 10
    choices).  The parade stage is the base's: P1's turn is round 1, the last round is round 2."""
    quick = program(QUICK)
    g = Parade(quick, 2, hands=[[("yellow", 6), ("red", 1), ("red", 2), ("red", 3), ("red", 4)],
                                [("yellow", 7), ("green", 1), ("green", 2), ("green", 3), ("green", 4)]],
               parade=QUIET, deck=[("blue", 10)])
    g.play(0, ("yellow", 6))
    assert g.get("last_round_from") == 0 and g.s.round == 2
    assert g.pending.prompt == KEEP and g.pending.player == 0 and len(g.labels()) == 10
    g.keep(0, ("red", 1), ("blue", 10))
    g.keep(1, ("green", 1), ("green", 2))
    t = g.pending
    assert isinstance(t, Terminal) and g.s.round == 2
    # 2 players: 1 red to 0, 1 blue to 0, 2 green to 0 (a majority by 2): 1 + 10 and 1 + 1
    assert t.scores == (11, 2) and t.winners == (1,)


# ------------------------------------------------------------------ properties
def python_score(piles: list[list[tuple[int, int]]], n: int) -> list[int]:
    """The published scoring, written again in Python: majorities, then 1 or the value."""
    out = []
    for p, pile in enumerate(piles):
        total = 0
        for s, v in pile:
            mine = sum(1 for c in pile if c[0] == s)
            others = [sum(1 for c in q if c[0] == s) for i, q in enumerate(piles) if i != p]
            held = mine >= max(others) + 2 if n == 2 else mine >= max(others)
            total += 1 if held else v
        out.append(total)
    return out


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 6))
def test_random_games_end_in_two_stages_and_score_as_the_rules_say(prog, seed: int, n: int) -> None:
    """Any game, random choices: both stages run (parade turns until the deck runs out or a sixth
    suit, then exactly one last round of n plays and n keeps), every invariant holds after every
    decision, hands end empty, 2 cards a player are discarded, the scores are the Python
    scoring's and the winners have the fewest points, then the fewest cards."""
    rng = random.Random(seed)
    s = prog.new_game(n, seed)
    prompts = []
    turns_before_call = None
    while isinstance(s.pending, Decision):
        prompts.append(s.pending.prompt)
        prog.apply(s, rng.randrange(len(s.pending.options)))
        assert prog.check_invariants(s) == []
        if turns_before_call is None and prog.get(s, "last_round_from") is not None:
            turns_before_call = len(prompts)
            assert s.round == turns_before_call + 1            # the last round has begun
    t = s.pending
    assert isinstance(t, Terminal) and turns_before_call is not None
    assert prompts == [PLAY] * (turns_before_call + n) + [KEEP] * n
    assert s.round == turns_before_call + 1                    # parade turns + 1 last round
    assert all(prog.get(s, "hand", player=i) == [] for i in range(n))
    assert len(prog.get(s, "discard")) == 2 * n
    piles = [prog.get(s, "pile", player=i) for i in range(n)]
    assert list(t.scores) == python_score(piles, n)
    best = min((t.scores[i], len(piles[i])) for i in range(n))
    assert t.winners == tuple(i for i in range(n) if (t.scores[i], len(piles[i])) == best)


# ------------------------------------------------------------------ the text
@pytest.mark.parametrize("path", [PARADE, QUICK], ids=["parade", "quick_finish"])
def test_the_rulebook_checks_without_warnings_and_fmt_round_trips(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    res = load(str(path))
    assert [str(d) for d in res.diagnostics] == [] and res.ok
    rb, diags = parse(text, "parade.rules")
    assert rb is not None and not diags
    out = format_rulebook(rb, comments(text))
    again, _ = parse(out, "parade.rules")
    assert again == rb                                          # same rules (spans ignored)
    assert format_rulebook(again, comments(out)) == out         # idempotent
    assert sum(line.count("#") for line in out.splitlines()) == \
        sum(line.count("#") for line in text.splitlines())      # every comment kept
    formatted = load_text(out, str(path))                       # (a variant finds its base by it)
    assert formatted.ok and formatted.diagnostics == []
