"""Resampling (engine/resample.py, issue 14) and the search agents (agents/search.py).

A resampled world must be indistinguishable for the seat — the same information state and the
same legal options — while what the seat has not seen is drawn anew with the right
distribution (a chi-square test on Manila's dealt shares); the search agents must find a
winning move where one exists.
"""
from __future__ import annotations

import collections
import itertools
import math
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game_driver import program
from shipped import shipped_program

from mercator.interpreter.agents.base import RandomAgent, play_out, resolve_chance
from mercator.interpreter.agents.search import ISMCTSAgent, MCTSAgent, hidden_information, option_keys
from mercator.dsl.ast import Span
from mercator.interpreter.engine.nodes import Chance, Decision
from mercator.interpreter.engine.resample import ResampleFailed, Trace
from mercator.interpreter.engine.state import State

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = sorted((ROOT / "rulebooks").glob("*.rules"))
NIM = ROOT / "tests" / "fixtures" / "agents" / "nim.rules"
PROPS = settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))


def advance(prog, s: State, rng: random.Random, steps: int) -> None:
    """Play `steps` random steps (chance by its weights)."""
    for _ in range(steps):
        if s.over:
            return
        node = s.pending
        prog.apply(s, resolve_chance(s) if isinstance(node, Chance) else rng.randrange(node.count))


def to_decision(prog, s: State) -> None:
    while isinstance(s.pending, Chance):
        prog.apply(s, resolve_chance(s))


def same_for_seat(prog, real: State, world: State, seat: int) -> None:
    assert world.information_state(seat) == real.information_state(seat)
    a, b = real.pending, world.pending
    assert type(a) is type(b)
    if isinstance(a, Decision) and a.player == seat:
        assert [o.label for o in b.options] == [o.label for o in a.options]


@pytest.mark.parametrize("path", RULEBOOKS, ids=lambda p: p.stem)
def test_a_world_at_the_first_decision_looks_the_same_to_the_seat(path: Path) -> None:
    prog = shipped_program(path.stem)
    for n in (prog.min_players, prog.max_players):
        s = prog.new_game(n, 5, narrate=True, explicit_chance=True)
        to_decision(prog, s)
        for seat in range(n):
            w = prog.resample(s, seat, random.Random(seat))
            same_for_seat(prog, s, w, seat)
            assert w.rng != s.rng                 # the future is drawn anew too


@pytest.mark.parametrize("path", RULEBOOKS, ids=lambda p: p.stem)
@PROPS
@given(seed=st.integers(0, 2**20), steps=st.integers(0, 90), players=st.integers(2, 5))
def test_a_world_anywhere_in_the_game_looks_the_same_to_the_seat(path: Path, seed: int,
                                                                 steps: int, players: int) -> None:
    prog = shipped_program(path.stem)
    n = max(prog.min_players, min(prog.max_players, players))
    s = prog.new_game(n, seed, narrate=True, explicit_chance=True)
    advance(prog, s, random.Random(seed), steps)
    to_decision(prog, s)
    if s.over:
        return
    seat = s.pending.player
    tr = Trace(prog, s, seat)
    for k in range(3):
        same_for_seat(prog, s, tr.sample(random.Random(k)), seat)


def test_a_shuffled_deck_is_dealt_anew_but_the_seats_own_cards_stay() -> None:
    """Genoa, 3 players, after the deal: each player holds one card of each of the four
    shuffled piles. The seat's four cards are found to be seen (each dealt position probed by
    swapping it with a face-down one) and kept; another seat's cards are drawn anew from the
    rest of each pile."""
    prog = shipped_program("genoa")
    s = prog.new_game(3, 4, narrate=True, explicit_chance=True)
    to_decision(prog, s)
    seat = s.pending.player
    other = (seat + 1) % 3
    tr = Trace(prog, s, seat)
    assert sum(st.kind == "forced" for st in tr.steps) == len(prog.get(s, "cards", player=seat))
    hands = collections.Counter()
    for k in range(40):
        w = tr.sample(random.Random(k))
        same_for_seat(prog, s, w, seat)
        assert prog.get(w, "cards", player=seat) == prog.get(s, "cards", player=seat)
        hands[repr(prog.get(w, "cards", player=other))] += 1
    assert len(hands) > 10             # not the real hand, nor a few


def test_resampling_needs_the_record_and_explicit_chance() -> None:
    prog = shipped_program("manila")
    with pytest.raises(ValueError, match="narrate=True"):
        prog.resample(prog.new_game(3, 1), 0, random.Random(0))
    with pytest.raises(ValueError, match="explicit_chance=True"):
        prog.resample(prog.new_game(3, 1, narrate=True), 0, random.Random(0))
    s = prog.new_game(3, 1, narrate=True, explicit_chance=True)
    with pytest.raises(ValueError, match="no seat 3"):
        prog.resample(s, 3, random.Random(0))
    w = prog.resample(s, 1, random.Random(0))
    with pytest.raises(ValueError, match="seat 1 only"):
        w.information_state(0)
    with pytest.raises(ValueError, match="not saved"):
        w.to_json()


def bag_items(bag: dict) -> tuple:
    return tuple(sorted(collections.Counter(bag).elements()))


# chi-square critical values at p = 0.001 by degrees of freedom (a test that fails by chance
# once in a thousand runs; the seeds are fixed, so it either passes or fails every time)
CHI2_999 = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46, 7: 24.32, 8: 26.12,
            9: 27.88}


@pytest.mark.parametrize("seed", [0, 1])
def test_another_seats_dealt_shares_follow_the_unseen_cards(seed: int) -> None:
    """Manila, 4 players, right after the deal, as the last seat sees it: it knows its own two
    shares and (from the public supply) which shares were dealt; another seat's pair must be
    two of the unseen dealt cards, drawn without replacement (hypergeometric)."""
    prog = shipped_program("manila")
    s = prog.new_game(4, seed, narrate=True, explicit_chance=True)
    to_decision(prog, s)
    seat, other = 3, 0
    own = collections.Counter(prog.get(s, "shares", player=seat))
    dealt: collections.Counter = collections.Counter()
    for p in range(4):
        dealt.update(prog.get(s, "shares", player=p))
    unseen = dealt - own
    tr = Trace(prog, s, seat)
    rng = random.Random(seed)
    samples = 300
    seen = collections.Counter(bag_items(prog.get(tr.sample(rng), "shares", player=other))
                               for _ in range(samples))
    total = math.comb(sum(unseen.values()), 2)
    chi2, cells = 0.0, 0
    for a, b in itertools.combinations_with_replacement(sorted(unseen), 2):
        p = math.comb(unseen[a], 2) / total if a == b else unseen[a] * unseen[b] / total
        if p == 0:
            assert seen[(a, b)] == 0
            continue
        expected = samples * p
        chi2 += (seen[(a, b)] - expected) ** 2 / expected
        cells += 1
    assert sum(seen.values()) == samples
    assert chi2 < CHI2_999[cells - 1], (chi2, seen)
    assert len(seen) > 1           # the real hand is not simply copied


def test_a_sealed_choice_is_redrawn_until_it_is_revealed() -> None:
    """Die Händler's price dials are set by every player in secret: a world drawn for a seat
    choosing after another has set his dial has that dial drawn anew (the seat may not see it),
    and every world agrees with the seat's information state."""
    prog = shipped_program("die_haendler")
    for seed in range(40):
        s = prog.new_game(3, seed, narrate=True, explicit_chance=True)
        rng = random.Random(seed)
        before = 0                      # options of the sealed choice just made (0: none)
        while not s.over:
            to_decision(prog, s)
            node = s.pending
            if isinstance(node, Decision) and node.simultaneous and before > 1:
                break
            before = node.count if isinstance(node, Decision) and node.simultaneous else 0
            prog.apply(s, rng.randrange(node.count))
        else:
            continue
        seat = s.pending.player
        tr = Trace(prog, s, seat)
        sealed = [t for t, stp in enumerate(tr.steps) if stp.kind == "hidden" and not stp.is_chance]
        assert sealed
        histories = set()
        for k in range(12):
            w = tr.sample(random.Random(k))
            same_for_seat(prog, s, w, seat)
            histories.add(tuple(w.history[t] for t in sealed))
        assert len(histories) > 1
        return
    pytest.fail("no sealed choice seen in 40 games")


def nim_first_move(agent_cls, iterations: int, seed: int) -> str:
    prog = program(NIM)
    s = prog.new_game(2, 0, narrate=True, explicit_chance=True)
    agent = agent_cls(iterations, seed=seed)
    return s.pending.option(agent.choose(prog, s)).label


@pytest.mark.parametrize("agent_cls", [MCTSAgent, ISMCTSAgent], ids=["mcts", "ismcts"])
def test_the_search_finds_the_winning_move(agent_cls) -> None:
    """From 10 sticks only taking 2 wins against best play; random play cannot tell."""
    found = [nim_first_move(agent_cls, 400, seed) for seed in range(8)]
    assert found.count("2") >= 7, found


def test_a_search_is_reproducible_from_its_seed() -> None:
    assert nim_first_move(MCTSAgent, 60, 3) == nim_first_move(MCTSAgent, 60, 3)


def test_hidden_information_is_known_per_rulebook() -> None:
    assert not hidden_information(program(NIM))
    for name in ("manila", "die_haendler", "genoa", "felinia"):
        assert hidden_information(shipped_program(name))


def test_repeated_labels_get_their_own_keys() -> None:
    """The keys are the options' labels (pass first, the values', the any-time actions'), the
    k-th repeat of a label with '#k' — the same whether or not the node's options were made."""
    def node() -> Decision:
        return Decision(0, ["a", "b", "A", "a"], str.lower, True, "?", [("a", 3, ()), ("m", 4, ())],
                        False, lambda s, v: None, Span("x.rules", 1, 1, 1, 2))
    want = ["pass", "a", "b", "a#1", "a#2", "a#3", "m"]
    fresh, made = node(), node()
    assert [o.label for o in made.options][:2] == ["pass", "a"]
    assert option_keys(fresh) == option_keys(made) == want
    assert fresh._options is None              # (the labels alone: no Option made)


def test_an_honest_searcher_plays_a_manila_game_to_the_end() -> None:
    prog = shipped_program("manila")
    s = prog.new_game(3, 2, narrate=True, explicit_chance=True)
    agents = [ISMCTSAgent(3, seed=1), RandomAgent(2), RandomAgent(3)]
    play_out(prog, s, agents, max_decisions=2000)
    assert s.over and agents[0].last_iterations == 3


def test_bad_search_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 1 iteration"):
        MCTSAgent(0)
    with pytest.raises(ValueError, match="positive time"):
        MCTSAgent(None, seconds=0)
    with pytest.raises(ValueError, match="depth"):
        MCTSAgent(10, depth=0)


def test_any_time_actions_are_searched_only_after_the_other_options() -> None:
    """Manila's first bid: 55 bids and passes, and 2 mortgages any time. With fewer visits
    than 2 per bid the search never tries a mortgage (progressive widening); with more, it
    does — and its rollouts never take one."""
    prog = shipped_program("manila")
    s = prog.new_game(3, 1)
    node = s.pending
    regular = node.count - len(node.actions)
    assert node.actions and regular > 40
    actions = {o.label for o in node.options if o.action is not None}
    few = MCTSAgent(regular, seed=2)
    few.choose(prog, s)
    assert few.last_root is not None and not actions & set(few.last_root.edges)
    many = MCTSAgent(4 * regular, seed=2)
    many.choose(prog, s)
    assert many.last_root is not None and actions <= set(many.last_root.edges)


@pytest.mark.parametrize("deals", [False, True])
def test_a_searchs_rollouts_make_no_deals_unless_told(deals: bool,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """At a deal window (Bazaar's swaps) the rollouts of a search are playouts without deals
    (spec setting deals=none; tests/test_playout.py shows such a playout makes
    none) and with deals=random ones with them."""
    prog = shipped_program("bazaar")
    s = prog.new_game(2, 3, narrate=True)
    while not (isinstance(s.pending, Decision) and isinstance(s.pending.vtype, tuple)):
        prog.apply(s, 0 if isinstance(s.pending, Decision) else resolve_chance(s))
    asked: list[tuple[bool, bool]] = []
    real = type(prog).playout

    def playout(self, st, rng, max_decisions=None, seat_rngs=None, anytime=True, deals=True):
        asked.append((anytime, deals))
        return real(self, st, rng, max_decisions, seat_rngs, anytime, deals)
    monkeypatch.setattr(type(prog), "playout", playout)
    MCTSAgent(30, seed=4, deals=deals).choose(prog, s)
    assert len(asked) > 0 and set(asked) == {(False, deals)}


def test_the_information_state_does_not_depend_on_shared_parts() -> None:
    """Two views equal in every value give the same information state, whichever of their
    parts are one object shared (marshal's format 3 wrote a shared list as a reference)."""
    from mercator.interpreter.engine.seen import _mix
    part = [1, 2]
    assert _mix("", [part, part]) == _mix("", [[1, 2], [1, 2]])
    assert _mix("", [part, part]) != _mix("", [[1, 2], [2, 1]])


@pytest.mark.parametrize("seed", [0, 3])
def test_a_face_down_card_seen_only_later_is_kept(seed: int) -> None:
    """Die Händler, 4 players: an influence card drawn face down shows only through what its
    holder does later. Each hidden draw is probed (swapped with another, or made another card):
    the ones the seat has seen through their consequences are kept, so a world is found at
    every decision (before the probe, three of these games had decisions with none)."""
    prog = shipped_program("die_haendler")
    s = prog.new_game(4, seed, narrate=True, explicit_chance=True)
    rng, k = random.Random(seed), 0
    while not s.over and len(s.history) < 400:
        node = s.pending
        if isinstance(node, Chance):
            prog.apply(s, resolve_chance(s))
            continue
        if k % 9 == 0:
            w = Trace(prog, s, node.player).sample(random.Random(k), 50)
            assert w.information_state(node.player) == s.information_state(node.player)
        k += 1
        prog.apply(s, rng.randrange(node.count))


def test_a_person_is_not_shown_the_hidden_steps_of_a_shuffle() -> None:
    """With a searching seat the game keeps its chance as steps, one per position of a
    shuffled pile; the human's log leaves those hidden steps out (the view shows the pile)."""
    from mercator.interpreter.agents.human import HumanAgent
    prog = shipped_program("genoa")
    s = prog.new_game(3, 4, narrate=True, explicit_chance=True)
    to_decision(prog, s)
    shuffles = [e for e in s.record if e[0] == "chance" and e[1] == "shuffle"]
    assert len(shuffles) > 20
    lines = HumanAgent()._log(prog, s, 0, 0)
    assert not [ln for ln in lines if ln.startswith("chance (shuffle)")]
    from mercator.interpreter.engine.people import people
    from mercator.interpreter.engine.seen import render
    words = people(prog, s).label          # the lines in words (issue 39: no snake_case)
    assert [ln for ln in lines if not ln.startswith("— game round")] == \
        [words(ln) for ln in (render(e, 0) for e in s.record)
         if ln is not None and not ln.startswith("chance (shuffle)")]


def trace_facts(tr: Trace) -> list:
    """What a trace decided per step: kind, label, reservations, the tail kept."""
    return [(stp.kind, stp.label, stp.key, stp.reserved, stp.tail) for stp in tr.steps]


@pytest.mark.parametrize("name,players,seed", [("manila", 3, 2), ("die_haendler", 2, 1),
                                               ("felinia", 2, 0)])
def test_an_extended_trace_is_the_trace_made_afresh(name: str, players: int, seed: int) -> None:
    """A trace extended decision by decision (the steps since, and the probes settled by
    carrying the worlds that answered them) decides every step as a trace made from the
    start does, so the same generator draws the same worlds from both."""
    prog = shipped_program(name)
    s = prog.new_game(players, seed, narrate=True, explicit_chance=True)
    rng = random.Random(seed)
    seat, tr, decisions, compared = 0, None, 0, 0
    while not s.over and compared < 3:
        node = s.pending
        if isinstance(node, Chance):
            prog.apply(s, resolve_chance(s))
            continue
        if node.player == seat:
            if tr is None:
                tr = Trace(prog, s, seat)
            else:
                assert tr.extend(s)
            decisions += 1
            if decisions % 6 == 0:
                fresh = Trace(prog, s, seat)
                assert tr.digests == fresh.digests
                assert trace_facts(tr) == trace_facts(fresh)
                a, b = tr.sample(random.Random(decisions)), fresh.sample(random.Random(decisions))
                assert a.history == b.history
                same_for_seat(prog, s, a, seat)
                compared += 1
        prog.apply(s, rng.randrange(node.count))
    assert compared == 3


def test_a_trace_extends_only_to_the_same_game() -> None:
    """A position of another game (a decision log that does not go on from the trace's) is
    refused, and the trace stays as it was."""
    prog = shipped_program("manila")
    a = prog.new_game(3, 0, narrate=True, explicit_chance=True)
    to_decision(prog, a)
    b = prog.new_game(3, 1, narrate=True, explicit_chance=True)
    to_decision(prog, b)
    assert a.history != b.history
    tr = Trace(prog, a, a.pending.player)
    steps = len(tr.steps)
    assert not tr.extend(b)
    assert len(tr.steps) == steps and tr.extend(a)
    assert not tr.extend(prog.new_game(3, 0))          # no record kept: nothing to extend


@pytest.mark.parametrize("seed", [0, 1])
def test_carried_worlds_still_follow_the_unseen_cards(seed: int) -> None:
    """Manila, 4 players, as the last seat sees it: worlds drawn right after the deal and
    carried to its next decision (the auction's bids and whatever came between replayed in
    each) still give another seat's pair of shares by the unseen cards (hypergeometric), and
    each looks to the seat like the real game."""
    prog = shipped_program("manila")
    s = prog.new_game(4, seed, narrate=True, explicit_chance=True)
    to_decision(prog, s)
    seat, other = 3, 0
    own = collections.Counter(prog.get(s, "shares", player=seat))
    dealt: collections.Counter = collections.Counter()
    for p in range(4):
        dealt.update(prog.get(s, "shares", player=p))
    unseen = dealt - own
    tr = Trace(prog, s, seat)
    rng = random.Random(seed)
    samples = 300
    worlds = [tr.sample(rng) for _ in range(samples)]
    moves = random.Random(seed)
    while True:                       # on to the seat's next decision
        prog.apply(s, moves.randrange(s.pending.count))
        to_decision(prog, s)
        if s.pending.player == seat:
            break
    assert tr.extend(s)
    carried = [tr.carry(w, rng) for w in worlds]
    assert all(w is not None for w in carried)
    for w in carried[:10]:
        same_for_seat(prog, s, w, seat)
    assert tr.carry(s, rng) is None            # a world watches its seat's record only
    seen = collections.Counter(bag_items(prog.get(w, "shares", player=other))
                               for w in carried if w is not None)
    total = math.comb(sum(unseen.values()), 2)
    chi2, cells = 0.0, 0
    for a, b in itertools.combinations_with_replacement(sorted(unseen), 2):
        p = math.comb(unseen[a], 2) / total if a == b else unseen[a] * unseen[b] / total
        if p == 0:
            assert seen[(a, b)] == 0
            continue
        expected = samples * p
        chi2 += (seen[(a, b)] - expected) ** 2 / expected
        cells += 1
    assert chi2 < CHI2_999[cells - 1], (chi2, seen)


def test_a_world_that_no_longer_fits_is_not_carried() -> None:
    """Die Händler: a sealed price dial is drawn anew in every world until its reveal; at the
    seat's first decision after the reveal, a world whose dial was not the real one cannot be
    carried (the seat saw the dial), one whose dial was is."""
    prog = shipped_program("die_haendler")
    for seed in range(40):
        s = prog.new_game(3, seed, narrate=True, explicit_chance=True)
        rng = random.Random(seed)
        before = 0
        while not s.over:
            to_decision(prog, s)
            node = s.pending
            if isinstance(node, Decision) and node.simultaneous and before > 1:
                break
            before = node.count if isinstance(node, Decision) and node.simultaneous else 0
            prog.apply(s, rng.randrange(node.count))
        else:
            continue
        seat = s.pending.player
        tr = Trace(prog, s, seat)
        sealed = [t for t, stp in enumerate(tr.steps) if stp.kind == "hidden" and not stp.is_chance]
        worlds = [tr.sample(random.Random(k)) for k in range(16)]
        while not any(e[0] == "revealed" for e in s.record[len(tr.steps):]) or \
                not isinstance(s.pending, Decision) or s.pending.player != seat:
            if s.over:
                break
            node = s.pending
            prog.apply(s, resolve_chance(s) if isinstance(node, Chance)
                       else rng.randrange(node.count))
        if s.over:
            continue
        assert tr.extend(s)
        if any(tr.steps[t].kind == "hidden" for t in sealed):
            continue                    # (the reveal did not show this seat those dials)
        real = tuple(s.history[t] for t in sealed)
        outcomes = {tuple(w.history[t] for t in sealed) == real: tr.carry(w, rng) is not None
                    for w in worlds}
        if len(outcomes) < 2:
            continue
        assert outcomes == {True: True, False: False}
        return
    pytest.fail("no sealed dial revealed in 40 games")


def test_the_searcher_carries_its_worlds_to_its_next_decision() -> None:
    """An information-set search at a later decision of the same seat in the same game extends
    its trace and carries the worlds it searched; in another game it starts afresh."""
    prog = shipped_program("manila")
    agent = ISMCTSAgent(30, seed=1, worlds=6)
    s = prog.new_game(3, 4, narrate=True, explicit_chance=True)
    rng = random.Random(4)
    decided = 0
    while decided < 3:
        to_decision(prog, s)
        node = s.pending
        if node.player == 0 and node.count > 1:
            i = agent.choose(prog, s)
            if decided:
                assert agent.carried == 6
            decided += 1
        else:
            i = rng.randrange(node.count)
        prog.apply(s, i)
    other = prog.new_game(3, 5, narrate=True, explicit_chance=True)
    while True:
        to_decision(prog, other)
        if other.pending.player == 0 and other.pending.count > 1:
            break
        prog.apply(other, rng.randrange(other.pending.count))
    agent.choose(prog, other)
    assert agent.carried == 0
    for w in agent._drawn:
        same_for_seat(prog, other, w, 0)
