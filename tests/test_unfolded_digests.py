"""A narrated state folds what its seats observed into their digests only when the digests are
first read (engine/seen.py, `Unfolded`; from then on at once): a game from new_game keeps its
first position and the fold replays its decision log on it, folding at once; a state loaded from
JSON keeps the position each step left, and the fold makes the views and hashes it would have
made at once. A resampled world
(new_game(..., watch=seat)) always folds at once, so the same game replayed with each seat
watched gives the digests the all-seat state must show, step by step: read at any step, in a
fork made before steps it did not see, or through a JSON round trip (which starts a state
unread again). A difference would be a seat shown another information state than what it
observed (a leak, or a resampled world that no longer fits)."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mercator.interpreter.engine.seen import record
from mercator.interpreter.engine.state import State
from mercator.interpreter.research.common import program_for

PROPS = settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
STEPS = 300


def _choices(prog, players: int, seed: int, steps: int) -> list[int]:
    """A random game's option indices (decisions and chance outcomes alike), up to `steps`."""
    s, rng = prog.new_game(players, seed, explicit_chance=True), random.Random(seed)
    out: list[int] = []
    while len(out) < steps and not s.over:
        out.append(rng.randrange(s.pending.count))
        prog.apply(s, out[-1])
    return out


def _watched_digests(prog, players: int, seed: int, choices: list[int]) -> list[list[str]]:
    """Every seat's digest after each step (the start first), each seat's from a game that
    watches it alone and so folds at once."""
    per_seat = []
    for v in range(players):
        s = prog.new_game(players, seed, narrate=True, explicit_chance=True, watch=v)
        assert s.unfolded is None
        digests = [s.seen[v]]
        for c in choices:
            prog.apply(s, c)
            digests.append(s.seen[v])
        per_seat.append(digests)
    return [list(at) for at in zip(*per_seat)]


@pytest.mark.parametrize("name", ["manila", "die_haendler", "felinia", "genoa"])
@PROPS
@given(seed=st.integers(0, 2**20), players=st.integers(2, 5),
       steps=st.integers(0, STEPS), reads=st.sets(st.integers(0, STEPS)),
       forks=st.sets(st.integers(0, STEPS)), saves=st.sets(st.integers(0, STEPS)))
def test_digests_read_late_are_those_folded_at_once(name: str, seed: int, players: int,
                                                    steps: int, reads: set[int],
                                                    forks: set[int], saves: set[int]) -> None:
    prog = program_for(name)
    players = min(max(players, prog.min_players), prog.max_players)
    choices = _choices(prog, players, seed, steps)
    want = _watched_digests(prog, players, seed, choices)
    s = prog.new_game(players, seed, narrate=True, explicit_chance=True)
    forked = []                      # (step, a fork made then and not read since)
    for k, c in enumerate(choices):
        if k in forks:
            forked.append((k, s.clone()))
        if k in saves:               # to_json reads the digests: the copy starts folded
            s = State.from_json(json.loads(json.dumps(s.to_json())))
            prog.resume(s)
        if k in reads:
            assert s.seen == want[k], k
        prog.apply(s, c)
    assert s.seen == want[-1]
    for k, fork in forked:
        assert fork.seen == want[k], k


def test_nothing_is_folded_until_a_digest_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The views of the position are made when a digest is read, not at every step."""
    prog = program_for("manila")
    choices = _choices(prog, 4, 5, 60)
    want = _watched_digests(prog, 4, 5, choices)[-1]
    views = prog._pviews or prog._position_views()
    made: list[int] = []

    def counted(state, seats):
        made.append(len(seats))
        return views(state, seats)
    monkeypatch.setattr(prog, "_pviews", counted)
    s = prog.new_game(4, 5, narrate=True, explicit_chance=True)
    for c in choices:
        prog.apply(s, c)
    assert made == [] and s.unfolded.base is not None and s.unfolded.steps == []
    fork = s.clone()
    assert s.seen == want and made == [4] * (len(choices) + 1)   # each step's, all seats at once
    assert s.unfolded is None and fork.unfolded.base is not None
    assert fork.seen == want
    prog.apply(s, 0)                  # read once, read again: folded at once from now on
    assert s.unfolded is None and made[-1] == 4


def test_an_entry_recorded_after_a_steps_end_is_in_a_digest_read_then() -> None:
    """The digests read between two steps take in the whole record, an entry made since the
    last step's position included, as folding at once did."""
    prog = program_for("manila")
    choices = _choices(prog, 3, 2, 20)
    line = ["log", [1], [["a line for P2 alone", None]]]
    s = prog.new_game(3, 2, narrate=True, explicit_chance=True)
    for c in choices:
        prog.apply(s, c)
    before = s.clone()
    record(s, line)
    for v in range(3):
        w = prog.new_game(3, 2, narrate=True, explicit_chance=True, watch=v)
        for c in choices:
            prog.apply(w, c)
        record(w, line)
        assert s.seen[v] == w.seen[v]
    assert [a == b for a, b in zip(before.seen, s.seen)] == [True, False, True]


def test_a_state_loaded_from_json_keeps_each_steps_position() -> None:
    """A state from State.from_json has no program to replay its decision log with: it keeps
    the position each step left, and its digests read late are those folded at once."""
    prog = program_for("felinia")
    choices = _choices(prog, 3, 7, 80)
    want = _watched_digests(prog, 3, 7, choices)
    s = prog.new_game(3, 7, narrate=True, explicit_chance=True)
    for c in choices[:30]:
        prog.apply(s, c)
    s = State.from_json(json.loads(json.dumps(s.to_json())))
    prog.resume(s)
    for c in choices[30:]:
        prog.apply(s, c)
    assert s.unfolded.base is None and len(s.unfolded.steps) == len(choices) - 30
    assert s.seen == want[-1]


def test_a_decision_log_that_does_not_replay_is_refused() -> None:
    """A narrated game changed other than by apply (its decision log edited) cannot have its
    digests replayed: reading them raises, and leaves them unread, rather than show a seat
    what it did not observe."""
    prog = program_for("manila")
    choices = _choices(prog, 3, 4, 40)
    s = prog.new_game(3, 4, narrate=True, explicit_chance=True)
    for c in choices:
        prog.apply(s, c)
    s.history[5] = (s.history[5] + 1) % 2
    with pytest.raises(RuntimeError, match="does not replay"):
        s.seen
    assert s.unfolded is not None and s._seen == [""] * 3


def test_a_position_set_by_hand_is_folded_as_it_was_observed() -> None:
    """Program.set (tests and tools setting up a position) changes a narrated game other than
    by apply, which a replay of its decision log cannot make: the digests are folded up to the
    set, then at once, and equal those of games watched seat by seat with the same set."""
    prog, rng = program_for("manila"), random.Random(9)
    s = prog.new_game(3, 9, narrate=True, explicit_chance=True)
    worlds = [prog.new_game(3, 9, narrate=True, explicit_chance=True, watch=v) for v in range(3)]
    for k in range(30):
        if k == 10:
            for t in [s] + worlds:
                prog.set(t, "pesos", 99, player=1)
        c = rng.randrange(s.pending.count)
        for t in [s] + worlds:
            prog.apply(t, c)
    assert s.unfolded is None
    assert s.seen == [w.seen[v] for v, w in enumerate(worlds)]
