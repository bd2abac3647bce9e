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


def _counting(kept: SeatTensors, written: list) -> None:
    """Make kept's field writers note each value they write in `written` (its updates written
    again with them, every field through its writer: a one-cell number too)."""
    def note(w):
        return lambda v, out, at: (written.append(v), w(v, out, at))

    kept.shared_spans = [(note(w), *rest) for w, *rest in kept.shared_spans]
    kept.mine_spans = [(note(w), *rest) for w, *rest in kept.mine_spans]
    for seat, seen in kept._seats.items():
        seen[3] = kept._update_function(seat, inline=False)


def test_only_the_fields_that_changed_are_written_again() -> None:
    prog = program_for("manila")
    ob = Observer(prog, 3)
    kept = SeatTensors(ob)
    s = prog.new_game(3, 1)
    kept.tensor(s, 0)
    written: list = []
    _counting(kept, written)
    kept.tensor(s, 0)
    assert written == []                      # the same view: nothing written
    rng = random.Random(1)
    for _ in range(40):
        prog.apply(s, rng.randrange(s.pending.count))
        kept.tensor(s, 0)
    assert 0 < len(written) < 40 * len(ob.segments) // 4     # few fields change a step


def test_a_value_changed_in_place_is_written_again() -> None:
    """The last value of a field is kept as a copy where the state's own can change in place
    (Manila's share bags, the boats' positions, the crews' lists; not a number): a change
    made in place is seen at the next look."""
    prog = program_for("manila")
    ob = Observer(prog, 3)
    kept = SeatTensors(ob)
    s = prog.new_game(3, 1)
    names = [f.name for f in prog.rb.table_fields]
    kept.tensor(s, 0)
    position, crew = s.table[names.index("position")], s.table[names.index("crew")]
    some = next(iter(position))
    position[some] += 1                        # a map to numbers: its copy a new dict
    crew[some].append(1)                       # a map to lists: copied all the way down
    s.players[0][[f.name for f in prog.rb.player_fields].index("shares")][some] = 3
    want = np.zeros(ob.total, np.float32)
    ob.fill(want, s, 0)
    assert np.array_equal(kept.tensor(s, 0), want)


@pytest.mark.parametrize("name, players", [("manila", 4), ("die_haendler", 3), ("felinia", 2),
                                           ("genoa", 3)])
def test_the_written_reader_gives_what_the_position_view_shows(name: str, players: int) -> None:
    """SeatTensors.values, written for the rulebook's fields, gives what each seat's position
    view shows, split into the fields seen alike and the seat's own; a state of another shape
    is read through the view."""
    prog = program_for(name)
    kept = SeatTensors(Observer(prog, players))
    rng = random.Random(3)
    s = prog.new_game(players, 2)
    while not s.over:
        for seat in range(players):
            assert kept.values(s, seat) == kept._viewed(s, seat), (name, len(s.history), seat)
        prog.apply(s, rng.randrange(s.pending.count))
    odd = s.clone()
    odd.table = odd.table + [0]                # a field the rulebook does not declare
    assert kept.values(odd, 0) == kept._viewed(odd, 0)


def test_an_optional_seat_is_one_hot_after_its_none_cell() -> None:
    """Felinia `start_player: player? = none`: 1 in the first cell for none, else the seat's
    cell after it (an optional value's int was once written into the none cell, taken for the
    size of a hidden collection: seat 1 as 'none', seat 0 as nothing)."""
    prog = program_for("felinia")
    ob = Observer(prog, 3)
    seg = next(g for g in ob.segments if g.name == "table.start_player")
    at = [f.name for f in prog.rb.table_fields].index("start_player")
    seen = set()
    for seed in range(12):
        s = prog.new_game(3, seed)
        cells = ob.tensor(s, 0)[seg.offset:seg.offset + seg.size]
        holder = s.table[at]
        assert cells == [0.0] + [1.0 if p == holder else 0.0 for p in range(3)]
        seen.add(holder)
    assert len(seen) >= 2


@pytest.mark.parametrize("name, players", [("manila", 4), ("genoa", 3)])
def test_a_state_of_another_shape_between_the_others(name: str, players: int) -> None:
    """A state whose table has a field more than the rulebook's is read through the position
    view (SeatTensors._slow), not by the written update; the kept tensors stay right when such
    states come between the others, for every seat."""
    prog = program_for(name)
    ob = Observer(prog, players)
    kept = SeatTensors(ob)
    rng = random.Random(1)
    s = prog.new_game(players, 2)
    for step in range(120):
        if s.over:
            break
        odd = s.clone()
        odd.table = odd.table + [0]
        for x in (s, odd) if step % 3 else (odd, s):
            for seat in range(players):
                want = np.zeros(ob.total, np.float32)
                ob.fill(want, x, seat)
                assert np.array_equal(kept.tensor(x, seat), want), (name, step, seat)
        prog.apply(s, rng.randrange(s.pending.count))
