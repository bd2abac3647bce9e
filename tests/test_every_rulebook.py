"""The engine's contract, checked on every shipped rulebook and variant (in the spirit of
OpenSpiel's generic random-simulation test): at any point of a random game a state forks
independently and survives a JSON round trip with the same options; an illegal choice is refused
and changes nothing; (rulebook, players, seed, decisions) determines the game.

Game-specific properties (conservation, scores, phases reached) stay in each game's
``test_<game>_properties.py``.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shipped import shipped_program

from mercator.interpreter.engine.program import IllegalChoice, Program
from mercator.interpreter.engine.state import State

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = sorted((ROOT / "rulebooks").glob("*.rules")) + \
    sorted((ROOT / "rulebooks" / "variants").glob("*.rules")) + \
    [ROOT / "rulebooks" / "examples" / "bazaar.rules",     # deals (docs/games/bazaar.md)
     ROOT / "rulebooks" / "examples" / "isles.rules"]      # trades of hidden hands (isles.md)
MAX_DECISIONS = 20_000
PROPS = settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))

seeds = st.integers(min_value=0, max_value=2**32 - 1)
cuts = st.integers(min_value=0, max_value=600)


@pytest.fixture(scope="module", params=RULEBOOKS, ids=lambda p: p.stem)
def prog(request: pytest.FixtureRequest) -> Program:
    return shipped_program(request.param.stem)


def start(prog: Program, data: st.DataObject, seed: int, agent: int, cut: int) -> State:
    """A game of a drawn player count, played at random for `cut` decisions (or to its end)."""
    n = data.draw(st.integers(prog.min_players, prog.max_players), label="players")
    s = prog.new_game(n, seed)
    rng = random.Random(agent)
    for _ in range(cut):
        if s.over:
            break
        prog.apply(s, rng.randrange(s.pending.count))
    return s


def finish(prog: Program, s: State, agent: int) -> State:
    rng = random.Random(agent)
    for _ in range(MAX_DECISIONS):
        if s.over:
            return s
        prog.apply(s, rng.randrange(s.pending.count))
    raise AssertionError(f"no end within {MAX_DECISIONS} decisions")


@PROPS
@given(data=st.data(), seed=seeds, agent=seeds, cut=cuts)
def test_fork_and_json_round_trip_mid_game(prog: Program, data: st.DataObject, seed: int,
                                           agent: int, cut: int) -> None:
    """A fork is independent of its original; a JSON round trip gives an equal state (same hash,
    same digest, same options); the copy and the original continue identically."""
    s = start(prog, data, seed, agent, cut)
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
    for _ in range(MAX_DECISIONS):
        if s.over:
            break
        i = cont.randrange(s.pending.count)
        prog.apply(s, i)
        prog.apply(back, i)
    assert back.over and s.over and back.digest() == s.digest()


@PROPS
@given(data=st.data(), seed=seeds, agent=seeds, cut=cuts,
       bad=st.one_of(st.integers(min_value=-5, max_value=-1), st.just("no such option"),
                     st.just(True), st.just(1.5), st.integers(min_value=10_000, max_value=10**6)))
def test_illegal_choices_are_refused_without_change(prog: Program, data: st.DataObject, seed: int,
                                                    agent: int, cut: int, bad: object) -> None:
    """An illegal choice raises IllegalChoice and leaves the state exactly as it was."""
    s = start(prog, data, seed, agent, cut)
    before, hist = s.digest(), list(s.history)
    with pytest.raises(IllegalChoice):
        prog.apply(s, bad)
    if not s.over:
        with pytest.raises(IllegalChoice):
            prog.apply(s, s.pending.count)
    assert s.digest() == before and s.history == hist


@PROPS
@given(data=st.data(), seed=seeds, agent=seeds)
def test_seed_and_decisions_determine_the_game(prog: Program, data: st.DataObject, seed: int,
                                               agent: int) -> None:
    """Replaying the decision log from the same seed gives the same final state and result."""
    s = finish(prog, start(prog, data, seed, agent, 0), agent)
    r = prog.new_game(len(s.players), seed)
    for idx in s.history:
        prog.apply(r, idx)
    assert r.over and r.digest() == s.digest() and r.pending == s.pending
