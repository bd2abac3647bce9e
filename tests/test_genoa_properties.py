"""Property tests of Genoa (rulebooks/genoa.rules) over seeds, player counts (2–5) and random play.

The rulebook's invariants state conservation (every ducat in a purse or paid by the bank; 5 of
each good; 60 cards; 27 tiles; 7 markers per player) and are checked after every decision.
The deal properties watch every deal the random players make: what the accepted offer said
was there before it was accepted, and nothing was created or lost by it.  A refused offer is
checked on a fork of the game at every answer of the tower player.
"""
from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mercator.dsl.loader import load
from mercator.interpreter.engine.nodes import Decision, Terminal
from mercator.interpreter.engine.program import Program
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.state import State

MAX_DECISIONS = 20_000
PROPS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])

seeds = st.integers(min_value=0, max_value=2**32 - 1)
counts = st.integers(min_value=2, max_value=5)


@pytest.fixture(scope="module")
def prog() -> Program:
    res = load("rulebooks/genoa.rules")
    assert res.ok, [str(d) for d in res.diagnostics]
    return compile_program(res.rulebook)


def holdings(prog: Program, s: State) -> list[tuple]:
    """Everything each player holds, as comparable values."""
    out = []
    for p in range(len(s.players)):
        out.append((prog.get(s, "ducats", p), dict(prog.get(s, "goods", p)),
                    sorted(map(repr, prog.get(s, "cards", p))), dict(prog.get(s, "tiles", p)),
                    prog.get(s, "markers", p), prog.get(s, "stored_markers", p)))
    return out


def totals(prog: Program, s: State) -> tuple:
    """Money in purses minus what the bank paid; goods, tiles and cards everywhere."""
    n = len(s.players)
    money = sum(prog.get(s, "ducats", p) for p in range(n)) - prog.get(s, "bank_paid")
    goods: dict = dict(prog.get(s, "goods_supply"))
    tiles: dict = dict(prog.get(s, "tile_supply"))
    for p in range(n):
        for g, k in prog.get(s, "goods", p).items():
            goods[g] = goods.get(g, 0) + k
        for t, k in prog.get(s, "tiles", p).items():
            tiles[t] = tiles.get(t, 0) + k
    cards = sum(len(v) for v in prog.get(s, "decks").values()) \
        + sum(len(v) for v in prog.get(s, "discards").values()) \
        + sum(len(prog.get(s, "cards", p)) for p in range(n))
    markers = [prog.get(s, "markers", p) + prog.get(s, "stored_markers", p)
               + sum(1 for o in prog.get(s, "owners").values() if o == p) for p in range(n)]
    return money, {g: k for g, k in goods.items() if k}, {t: k for t, k in tiles.items() if k}, \
        cards, markers


def has_bag(have: dict, want: dict) -> bool:
    return all(have.get(x, 0) >= k for x, k in want.items())


def has_list(have: list, want: list) -> bool:
    return all(have.count(c) >= want.count(c) for c in want)


# Offer record fields, in declaration order (record Offer in rulebooks/genoa.rules)
SQUARE, MONEY, GOODS, CARDS, TILES, MARKERS, SHARE, BACK_MONEY, BACK_GOODS = range(9)


def affordable(prog: Program, s: State, partner: int, dealer: int, o: list) -> bool:
    """Both sides hold what the offer says they hand over."""
    return (prog.get(s, "ducats", partner) >= o[MONEY]
            and has_bag(prog.get(s, "goods", partner), o[GOODS])
            and has_list(prog.get(s, "cards", partner), o[CARDS])
            and has_bag(prog.get(s, "tiles", partner), o[TILES])
            and prog.get(s, "markers", partner) >= o[MARKERS]
            and prog.get(s, "ducats", dealer) >= o[BACK_MONEY]
            and has_bag(prog.get(s, "goods", dealer), o[BACK_GOODS])
            and o[MONEY] % 5 == 0 and o[BACK_MONEY] % 5 == 0)


def play(prog: Program, n: int, seed: int, agent: int, watch: Any = None) -> State:
    """A random game to the end, narrated; watch(before, after) after every decision."""
    s = prog.new_game(n, seed, narrate=True)
    rng = random.Random(agent)
    for _ in range(MAX_DECISIONS):
        if s.over:
            return s
        before = s.clone() if watch is not None else None
        prog.apply(s, rng.randrange(s.pending.count))
        if watch is not None:
            watch(before, s)
    raise AssertionError(f"game did not end within {MAX_DECISIONS} decisions")


@PROPS
@given(seed=seeds, agent=seeds, n=counts)
def test_every_game_ends_and_invariants_hold(prog: Program, seed: int, agent: int, n: int) -> None:
    """Every random game ends, after the rounds of rules-data "Setup" (PLACEHOLDER 12/10/8/7,
    fewer when a start falls in the market); the rulebook's conservation invariants hold after
    every decision; every decision has at least one option."""
    def check(before: State, s: State) -> None:
        assert prog.check_invariants(s) == []
        assert s.over or s.pending.count > 0

    s = play(prog, n, seed, agent, check)
    res = s.pending
    assert isinstance(res, Terminal) and len(res.scores) == n and res.winners
    assert prog.get(s, "round_marker") >= {2: 12, 3: 10, 4: 8, 5: 7}[n]


@PROPS
@given(seed=seeds, agent=seeds, n=counts)
def test_deals_take_only_what_is_there_and_conserve_everything(prog: Program, seed: int,
                                                               agent: int, n: int) -> None:
    """No deal takes what a player does not have (the accepted offer was affordable, on both
    sides, when it was accepted; money in units of 5: seed 000 erratum 09), and money, goods,
    tiles, cards and markers are conserved across every deal (seed 000 erratum 12: both sides
    hand over, nothing else changes hands)."""
    deals = []

    def check(before: State, s: State) -> None:
        new = s.messages[len(before.messages):]
        accepted = [m for m in new if " accepts the offer of " in m]
        if not accepted:
            return
        assert len(accepted) == 1
        dealer_label, partner_label = accepted[0].split(" accepts the offer of ")
        dealer, partner = int(dealer_label[1:]) - 1, int(partner_label[1:]) - 1
        assert dealer != partner and prog.get(before, "nego_dealer") == dealer   # erratum 01
        deal = prog.get(s, "last_deal")              # record Deal: dealer, partner, offer
        assert deal is not None and deal[:2] == [dealer, partner]
        o = deal[2]
        # at most one deal per decision, and nothing changed hands between `before` and it
        assert affordable(prog, before, partner, dealer, o)
        assert totals(prog, before) == totals(prog, s)
        deals.append(o)

    s = play(prog, n, seed, agent, check)
    made = sum(1 for m in s.messages if " accepts the offer of " in m)
    assert len(deals) == made


@PROPS
@given(seed=seeds, agent=seeds, n=counts)
def test_a_refused_offer_changes_nothing(prog: Program, seed: int, agent: int, n: int) -> None:
    """seed 000 erratum 13: the tower player may refuse every offer — and a refused offer changes
    nothing: at every answer of his with offers on the table, a fork that refuses leaves every
    player's holdings exactly as they were (and the game goes on with a random choice)."""
    refusals = []

    def check(before: State, s: State) -> None:
        node = s.pending
        if s.over or not isinstance(node, Decision) or node.prompt != "answer the offers":
            return
        if not prog.get(s, "nego_standing"):
            return
        labels = [o.label for o in node.options]
        if "refuse_all" not in labels:
            return
        fork = s.clone()
        prog.apply(fork, "refuse_all")
        assert holdings(prog, fork) == holdings(prog, s)
        refusals.append(1)

    play(prog, n, seed, agent, check)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, agent=seeds, n=counts)
def test_replay_gives_the_same_game(prog: Program, seed: int, agent: int, n: int) -> None:
    """(rulebook, players, seed, decisions) determines the game, negotiations included."""
    s = play(prog, n, seed, agent)
    r = prog.new_game(n, seed, narrate=True)
    for idx in s.history:
        prog.apply(r, idx)
    assert r.over and r.digest() == s.digest() and r.pending == s.pending
