"""Observation tensors kept between steps (interpreter/engine/seat_tensors.py): rewritten only
where a seat's view changed, and always the tensor Observer.fill writes for the same state —
whichever state, seat or branch was asked for before."""
from __future__ import annotations

import random

import numpy as np
import pytest

from mercator.interpreter.engine.observation import Observer
from mercator.interpreter.engine.seat_tensors import SeatTensors
from mercator.interpreter.research.common import program_for


@pytest.mark.parametrize("name, players", [("manila", 4), ("die_haendler", 3), ("felinia", 2),
                                           ("genoa", 3)])
def test_kept_tensors_are_the_tensors_of_each_state(name: str, players: int) -> None:
    prog = program_for(name)
    ob = Observer(prog, players)
    kept = SeatTensors(ob)
    rng = random.Random(players)
    s = prog.new_game(players, 5)
    saved = [s.clone()]
    steps = 0
    while not s.over and steps < 300:
        if rng.random() < 0.05:              # jump to an earlier branch and play on from there
            s = rng.choice(saved).clone()
        for seat in rng.sample(range(players), rng.randint(1, players)):
            want = np.zeros(ob.total, np.float32)
            ob.fill(want, s, seat)
            assert np.array_equal(kept.tensor(s, seat), want), (name, steps, seat)
        prog.apply(s, rng.randrange(s.pending.count))
        steps += 1
        if steps % 25 == 0:
            saved.append(s.clone())
    assert steps >= 100


def test_only_the_fields_that_changed_are_written_again(monkeypatch) -> None:
    prog = program_for("manila")
    ob = Observer(prog, 3)
    kept = SeatTensors(ob)
    s = prog.new_game(3, 1)
    kept.tensor(s, 0)
    written: list[str] = []
    real = ob._field
    monkeypatch.setattr(ob, "_field", lambda f, v, out, at: (written.append(f.name),
                                                             real(f, v, out, at))[1])
    kept.tensor(s, 0)
    assert written == []                      # the same view: nothing written
    rng = random.Random(1)
    for _ in range(40):
        prog.apply(s, rng.randrange(s.pending.count))
        kept.tensor(s, 0)
    assert 0 < len(written) < 40 * len(ob.segments) // 4     # few fields change a step
