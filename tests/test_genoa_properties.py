"""Property tests of Genoa (rulebooks/genoa.rules) over seeds, player counts (2–5) and random play.

The rulebook's invariants state conservation (every ducat in a purse or paid by the bank; 5 of
each good; 60 cards; 27 tiles; 7 markers per player, none below zero) and are checked after
every decision.  The deal properties watch every offer the random players accept: it met its
bundle condition when accepted (seed 000 errata 01, 09: made to or by the tower player, money
in units of 5, what each side hands over was there), both sides handed over exactly what it
said (erratum 12), and a promise of proceeds was always paid (erratum 10).
"""
from __future__ import annotations

import copy
import random
import re
from typing import Any, Callable, Optional

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genoa_driver import genoa_program

from mercator.interpreter.engine.nodes import Decision, Terminal
from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.state import State

MAX_DECISIONS = 20_000
PROPS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])

seeds = st.integers(min_value=0, max_value=2**32 - 1)
counts = st.integers(min_value=2, max_value=5)

# the offer record and its bundles (docs/language.md §3.1; bundle Payment)
ID, MAKER, TAKER, SUBJECT, GIVE, GET, PROMISE = range(7)
DUCATS, GOODS, CARDS, TILES, MARKERS, NEW_CARDS = range(6)


@pytest.fixture(scope="module")
def prog() -> Program:
    return genoa_program()


Watch = Callable[[Any, State], None]


def keen(rng: random.Random, node: Any) -> int:
    """A random player keen on deals (uniform random bots rarely make one): he accepts an
    offer when he may, and half the time adds to a promise when he builds one."""
    labels = [o.label for o in node.options]
    accepts = [i for i, lb in enumerate(labels) if lb.startswith("accept")]
    adds = [i for i, lb in enumerate(labels) if lb.startswith("add")]
    if accepts:
        return rng.choice(accepts)
    if node.prompt == "bids: what you promise of the proceeds" and adds and rng.random() < 0.5:
        return rng.choice(adds)
    if "post an offer" in labels and rng.random() < 0.5:
        return labels.index("post an offer")
    return rng.randrange(node.count)


def greedy(rng: random.Random, node: Any) -> int:
    """A random player who promises all he can: he accepts any offer he may, posts often,
    fills the promise of every offer he builds (one 'add' after another until none is left),
    and sometimes asks for something; a search bot's rollouts found two promises the rulebook
    let be made but not paid this way (docs/games/genoa.md, readings 14 and 15)."""
    labels = [o.label for o in node.options]
    accepts = [i for i, lb in enumerate(labels) if lb.startswith("accept")]
    if accepts:
        return rng.choice(accepts)
    adds = [i for i, lb in enumerate(labels) if lb.startswith("add")]
    if adds and (node.prompt == "bids: what you promise of the proceeds"
                 or node.prompt == "bids: what you give" and rng.random() < 0.3
                 or node.prompt == "bids: what you ask for" and rng.random() < 0.5):
        return rng.choice(adds)
    if "post an offer" in labels and rng.random() < 0.7:
        return labels.index("post an offer")
    for step in ("post", "done"):
        if node.prompt.startswith("bids: what") and step in labels:
            return labels.index(step)
    return rng.randrange(node.count)


def play(prog: Program, n: int, seed: int, agent: int, watch: Optional[Watch] = None,
         snap: Optional[Callable[[State], Any]] = None, eager: bool = False) -> State:
    """A random game (with `eager`, of players keen on deals); watch(before, after) is called
    after every decision, `before` the state before it (or what snap(state) kept of it)."""
    s = prog.new_game(n, seed, narrate=True)
    rng = random.Random(agent)
    for _ in range(MAX_DECISIONS):
        if s.over:
            return s
        before = s if watch is None else snap(s) if snap is not None else s.clone()
        node = s.pending
        pick = keen(rng, node) if eager and isinstance(node, Decision) else \
            rng.randrange(node.count)
        prog.apply(s, pick)
        if watch is not None:
            watch(before, s)
    raise AssertionError(f"game did not end within {MAX_DECISIONS} decisions")


def covers(have: Any, want: Any) -> bool:
    """Does a holding (an amount, a bag or a list) hold a bundle part?"""
    if isinstance(want, int):
        return have >= want
    if isinstance(want, dict):
        return all(have.get(k, 0) >= v for k, v in want.items())
    rest = list(have)
    for x in want:
        if x not in rest:
            return False
        rest.remove(x)
    return True


class Snap:
    """What a deal property needs of the state before a decision: the table of offers, every
    player's holding, and how many lines were narrated."""

    def __init__(self, prog: Program, s: State):
        self.bids = copy.deepcopy(prog.get(s, "bids"))
        self.held = [holding(prog, s, p) for p in range(len(s.players))]
        self.said = len(s.messages)
        self.merchant = prog.get(s, "merchant")

    def accepted(self, s: State) -> list:
        """The offers accepted by the decision since (by the '#N' of 'accepts #N')."""
        ids = [int(m.split(" accepts #")[1].split()[0]) for m in s.messages[self.said:]
               if " accepts #" in m]
        return [o for o in self.bids if o[ID] in ids]


def holding(prog: Program, s: State, p: int) -> list:
    """What a player holds, part by part of the bundle (a copy)."""
    return [copy.deepcopy(prog.get(s, f, p)) for f in ("ducats", "goods", "cards", "tiles", "markers",
                                        "new_cards")]


@PROPS
@given(seed=seeds, agent=seeds, n=counts)
def test_every_game_ends_money_never_negative_and_invariants_hold(
        prog: Program, seed: int, agent: int, n: int) -> None:
    """Every random game ends, after the rounds of rules-data §Setup (fewer played when a start
    falls in the market); nobody's ducats ever go below 0; the conservation invariants hold
    after every decision; every decision has at least one option."""
    def check(before: Any, s: State) -> None:
        assert prog.check_invariants(s) == []
        assert all(prog.get(s, "ducats", p) >= 0 for p in range(n))
        assert s.over or s.pending.count > 0

    s = play(prog, n, seed, agent, check, lambda st: None)
    res = s.pending
    assert isinstance(res, Terminal) and len(res.scores) == n and res.winners
    assert prog.get(s, "round_marker") >= {2: 12, 3: 10, 4: 8, 5: 7}[n]


@PROPS
@given(seed=seeds, agent=seeds, n=counts)
def test_every_accepted_offer_met_its_bundle_condition(prog: Program, seed: int, agent: int,
                                                       n: int) -> None:
    """At every acceptance: the offer stood on the table; it was made to or by the tower player
    (erratum 01) and not to himself; its money goes by 5 (erratum 09), what it asks of the
    other's hidden ducats too, within ask_most (issue 38), and nobody asked for another's hidden
    cards; the maker held what he gave and the taker what he was asked, and the give and get
    parts changed hands."""
    seen = []

    def check(before: Snap, s: State) -> None:
        for d in before.accepted(s):
            mk, tk = d[MAKER], d[TAKER]
            assert mk != tk and before.merchant in (mk, tk)
            assert d[GIVE][DUCATS] % 5 == 0 and d[PROMISE][DUCATS] % 5 == 0
            assert d[GET][DUCATS] % 5 == 0 and 0 <= d[GET][DUCATS] <= 130
            assert d[GET][CARDS] == []
            assert all(covers(h, w) for h, w in zip(before.held[mk], d[GIVE]))
            assert all(covers(h, w) for h, w in zip(before.held[tk], d[GET]))
            seen.append(d[ID])

    s = play(prog, n, seed, agent, check, lambda st: Snap(prog, st), eager=True)
    assert len(seen) == sum(" accepts #" in m for m in s.messages) > 0


@PROPS
@given(seed=seeds, agent=seeds, n=counts)
def test_promises_are_always_paid(prog: Program, seed: int, agent: int, n: int) -> None:
    """erratum 10 / 12: every accepted offer with a promise is followed by its payment before
    anything else of the turn (the engine pays it right after the bought action), and the tower
    player then holds at least what he was given and promised."""
    pending: list = []
    paid: list = []

    def check(before: Snap, s: State) -> None:
        for m in s.messages[before.said:]:
            if " accepts #" in m:
                d = next(o for o in before.accepted(s)
                         if f" accepts #{o[ID]} " in m)
                if any(v for v in d[PROMISE]):
                    pending.append((d, before.held[d[TAKER]]))
            if " pays P" in m and " the promised " in m:
                d, was = pending.pop(0)
                now = holding(prog, s, d[TAKER])
                for part in (GOODS, TILES):
                    want = dict(was[part])
                    for k, v in list(d[GIVE][part].items()) + list(d[PROMISE][part].items()):
                        want[k] = want.get(k, 0) + v
                    for k, v in d[GET][part].items():
                        want[k] -= v
                    assert covers(now[part], {k: v for k, v in want.items() if v > 0})
                assert now[DUCATS] >= was[DUCATS] + d[GIVE][DUCATS] + d[PROMISE][DUCATS] \
                    - d[GET][DUCATS]
        if isinstance(s.pending, Decision) and s.pending.prompt.startswith("bids:"):
            assert pending == [], "a promise was not paid before the next window"

    s = play(prog, n, seed, agent, check, lambda st: Snap(prog, st), eager=True)
    assert pending == []
    paid.extend(m for m in s.messages if " pays P" in m and " the promised " in m)


def test_every_promise_a_greedy_promiser_makes_is_paid(prog: Program) -> None:
    """erratum 10: a promise names only what the bought action will leave its buyer — so it
    can always be paid.  48 games (2 to 5 players) of players who promise all they can; the
    rulebook before readings 14 and 15 fails this test with an unpaid promise (a rule error,
    checked against commit 03d82a6).  Some promises must be paid, or it proves nothing."""
    paid = 0
    for seed in range(48):
        n = 2 + seed % 4
        s = prog.new_game(n, seed, narrate=True)
        rng = random.Random(seed)
        for _ in range(MAX_DECISIONS):
            if s.over:
                break
            node = s.pending
            prog.apply(s, greedy(rng, node) if isinstance(node, Decision)
                       else rng.randrange(node.count))
        assert s.over
        paid += sum(" pays P" in m and " the promised " in m for m in s.messages)
    assert paid >= 48


@PROPS
@given(seed=seeds, agent=seeds, n=counts)
def test_closing_the_window_to_move_on_changes_no_holding(prog: Program, seed: int, agent: int,
                                                          n: int) -> None:
    """erratum 13: the tower player may refuse every offer — a fork in which he closes the window
    and moves on leaves every player's holdings exactly as they were, but for the messages the
    move delivers: 30 ducats for each, and the card gone (rules-data §Cards, G12: "as soon as
    there is one of the tower's discs on both buildings")."""
    def check(before: Any, s: State) -> None:
        node = s.pending
        if s.over or not isinstance(node, Decision) or not prog.get(s, "bids"):
            return
        moves = [o.label for o in node.options if o.label.startswith("close: ") and
                 o.label != "close: none" and o.label[7:] != _name(prog, s)]
        if not moves or prog.get(s, "here_open") or prog.get(s, "moves_left") < 2:
            return                  # (after the last move the turn ends: messages are paid)
        fork = s.clone()
        prog.apply(fork, moves[0])
        want = [holding(prog, s, p) for p in range(n)]
        for line in fork.messages[len(s.messages):]:
            m = re.fullmatch(r"P(\d+) delivers (\w+) for (\d+)", line)
            if m is not None:
                k, card = int(m.group(1)) - 1, prog.member(m.group(2))
                assert m.group(2).startswith("message_") and m.group(3) == "30", line
                want[k][0] += 30
                want[k][2].remove(card)
        assert [holding(prog, fork, p) for p in range(n)] == want

    play(prog, n, seed, agent, check, lambda st: None)


def _name(prog: Program, s: State) -> str:
    t = prog.get(s, "tower")
    space = next(t2 for _, (t2, _) in prog.rb.member_of.items() if t2.name == "Space")
    return "" if t is None else space.members[t]


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, agent=seeds, n=counts)
def test_replay_gives_the_same_game(prog: Program, seed: int, agent: int, n: int) -> None:
    """(rulebook, players, seed, decisions) determines the game, negotiations included."""
    s = play(prog, n, seed, agent)
    r = prog.new_game(n, seed, narrate=True)
    for idx in s.history:
        prog.apply(r, idx)
    assert r.over and r.digest() == s.digest() and r.pending == s.pending
