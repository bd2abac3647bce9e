"""Property tests of Manila (rulebooks/manila.rules) over seeds, player counts and decision sequences."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shipped import shipped_program

from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.state import State

MAX_DECISIONS = 5000
PROPS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def prog() -> Program:
    return shipped_program("manila")


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


