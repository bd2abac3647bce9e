"""Property tests of Manila (rulebooks/manila.rules) over seeds, player counts and decision sequences."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsl.loader import load
from interpreter.program import IllegalChoice, Program
from interpreter.state import State

MAX_DECISIONS = 5000
PROPS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def prog() -> Program:
    res = load("rulebooks/manila.rules")
    assert res.ok, [str(d) for d in res.diagnostics]
    return Program(res.rulebook)


def play(prog: Program, players: int, seed: int, agent_seed: int, check=None) -> State:
    """A random game to the end; `check(state)` runs after every decision."""
    s = prog.new_game(players, seed)
    rng = random.Random(agent_seed)
    for _ in range(MAX_DECISIONS):
        if s.over:
            return s
        prog.apply(s, rng.randrange(s.pending.count))
        if check is not None:
            check(s)
    raise AssertionError(f"game did not end within {MAX_DECISIONS} decisions")


seeds = st.integers(min_value=0, max_value=2**32 - 1)
counts = st.integers(min_value=3, max_value=5)


@PROPS
@given(seed=seeds, agent=seeds, n=counts)
def test_every_game_ends_and_invariants_hold(prog: Program, seed: int, agent: int, n: int) -> None:
    """Every random game ends; the rulebook's invariants (no debt, 20 shares, prices on the track,
    accomplices) hold after every decision; prices only rise."""
    last_steps = {}

    def check(s: State) -> None:
        assert prog.check_invariants(s) == []
        step = prog.get(s, "step")
        for g, v in step.items():
            assert v >= last_steps.get(g, 0), "a price went down"
            last_steps[g] = v
        assert all(p[prog._pindex("accomplices")] >= 0 for p in s.players)

    s = play(prog, n, seed, agent, check)
    res = s.pending
    assert len(res.scores) == n and res.winners
    assert max(prog.get(s, "step").values()) == 4     # rules-data: ends when a good reaches 30


@PROPS
@given(seed=seeds, agent=seeds, n=counts)
def test_replay_gives_the_same_state(prog: Program, seed: int, agent: int, n: int) -> None:
    """(rulebook, players, seed, decisions) determines the game: replaying the log gives the
    same digest at the end."""
    s = play(prog, n, seed, agent)
    r = prog.new_game(n, seed)
    for idx in s.history:
        prog.apply(r, idx)
    assert r.over and r.digest() == s.digest() and r.pending == s.pending


@PROPS
@given(seed=seeds, agent=seeds, n=counts, cut=st.integers(min_value=0, max_value=400))
def test_fork_and_json_round_trip_mid_game(prog: Program, seed: int, agent: int, n: int,
                                           cut: int) -> None:
    """At any point a fork is independent of its original, and a JSON round trip gives an equal
    state with the same options; both continue identically."""
    s = prog.new_game(n, seed)
    rng = random.Random(agent)
    for _ in range(cut):
        if s.over:
            break
        prog.apply(s, rng.randrange(s.pending.count))
    before = s.digest()
    fork = s.clone()
    if not fork.over:
        prog.apply(fork, fork.pending.count - 1)
    assert s.digest() == before, "applying to the fork changed the original"
    back = State.from_json(json.loads(json.dumps(s.to_json())))
    prog.resume(back)
    assert back == s and hash(back) == hash(s) and back.digest() == before
    if not s.over:
        assert [o.label for o in back.pending.options] == [o.label for o in s.pending.options]
    cont = random.Random(agent + 1)
    while not s.over:
        i = cont.randrange(s.pending.count)
        prog.apply(s, i)
        prog.apply(back, i)
    assert back.over and back.digest() == s.digest()


@PROPS
@given(seed=seeds, agent=seeds, n=counts, cut=st.integers(min_value=0, max_value=300),
       bad=st.one_of(st.integers(min_value=-5, max_value=-1), st.just("no such option"),
                     st.just(True), st.just(1.5), st.integers(min_value=10_000, max_value=10**6)))
def test_illegal_choices_are_refused_without_change(prog: Program, seed: int, agent: int, n: int,
                                                    cut: int, bad: object) -> None:
    """An illegal choice raises IllegalChoice and leaves the state exactly as it was."""
    s = prog.new_game(n, seed)
    rng = random.Random(agent)
    for _ in range(cut):
        if s.over:
            break
        prog.apply(s, rng.randrange(s.pending.count))
    before, hist = s.digest(), list(s.history)
    with pytest.raises(IllegalChoice):
        prog.apply(s, bad)
    if not s.over:
        with pytest.raises(IllegalChoice):
            prog.apply(s, s.pending.count)
    assert s.digest() == before and s.history == hist
