"""`let x = draw from place` is written out in a compiled rollout (rollout.py, _Writer.draw:
decisions.draw_item) when the state has no explicit chance: the item drawn from a bag (weighted
by count, by the state's generator) or a list (its first), taken out of the place, and the fns
that read the place forgotten. Games, values and errors must be the VM's."""
from __future__ import annotations

import random

import pytest

from game_driver import program_text

from mercator.interpreter.engine import program as program_module
from mercator.interpreter.engine.program import MercatorRuntimeError, Program
from tests.test_playout import by_apply, same

DRAWS = """game "Draws" players 2..3
enum Gem { ruby, jade, opal, onyx }
table {
  pouch: bag<Gem> = {ruby: 3, jade: 1, opal: 2}
  queue: list<list<int>> = [[1, 2], [3], [4, 5, 6], [7], [8, 9]]
}
player { gems: bag<Gem> = {}  got: list<int> = []  points: int = 0 }
fn rubies_left() -> int = count(true for g in pouch if g == ruby)
round r limit 4 { phase take {
  for p in players {
    let k = choose p one of 0..2
    if k > 0 and count(pouch) > 0 {
      let seen_before = rubies_left()
      let g = draw from pouch
      add g to p.gems
      if g == ruby { p.points += 10 * seen_before - rubies_left() }
      add g to pouch
      add g to pouch
    }
    if k == 2 and len(queue) > 0 {
      let xs = draw from queue
      p.got = p.got + xs
      xs = xs + [0]
      p.points += sum(x for x in xs)
    }
  }
} }
score p: p.points + count(p.gems) + len(p.got)
"""

EMPTY = """game "Empty" players 2..2
enum Gem { ruby, jade }
table { pouch: bag<Gem> = {ruby: 1} }
player { gems: bag<Gem> = {} }
round r limit 3 { phase take {
  for p in players {
    let k = choose p one of 0..1
    let g = draw from pouch
    add g to p.gems
  }
} }
score p: count(p.gems)
"""


@pytest.fixture(scope="module")
def draws() -> Program:
    return program_text(DRAWS)


def test_the_draws_are_written_out(draws: Program) -> None:
    s = draws.new_game(2, 0)
    draws.playout(s, random.Random(0))
    bodies = [f for f in draws._rollout.bodies if f is not None]   # type: ignore[union-attr]
    assert any("_drawn" in f.__code__.co_names for f in bodies)


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize("explicit", [False, True])
def test_a_written_out_draw_plays_the_vms_game(draws: Program, players: int, explicit: bool,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    rubies = set()
    for seed in range(25):
        a = draws.new_game(players, seed, explicit_chance=explicit)
        draws.playout(a, random.Random(seed))
        monkeypatch.setattr(program_module, "COMPILED_ROLLOUT", False)
        b = draws.new_game(players, seed, explicit_chance=explicit)
        by_apply(draws, b, random.Random(seed))
        monkeypatch.setattr(program_module, "COMPILED_ROLLOUT", True)
        same(a, b)
        rubies.add(a.table[0].get(0, 0))
    assert len(rubies) > 3                  # the draws differed from game to game


def test_a_draw_from_an_empty_bag_fails_where_the_vm_fails(
        monkeypatch: pytest.MonkeyPatch) -> None:
    prog = program_text(EMPTY)
    s = prog.new_game(2, 0)
    with pytest.raises(MercatorRuntimeError) as err:
        prog.playout(s, random.Random(0))
    monkeypatch.setattr(program_module, "COMPILED_ROLLOUT", False)
    t = prog.new_game(2, 0)
    with pytest.raises(MercatorRuntimeError) as err2:
        by_apply(prog, t, random.Random(0))
    assert err.value.span.line == 8 and "draw from nothing" in err.value.message
    assert (err2.value.span, err2.value.message, err2.value.history) == \
        (err.value.span, err.value.message, err.value.history)
