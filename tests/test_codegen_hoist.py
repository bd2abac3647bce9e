"""A table field that one expression reads FIELD_HOIST_AT times or more is read once, into a
local, at the start of the statement evaluating it (codegen.hoist_fields): in fns' bodies and
in the options of a rollout's inline choice. The games and values must be those of the code
reading the field every time (FIELD_HOIST_AT out of reach), also where the field changes
between two evaluations of the same fn or options."""
from __future__ import annotations

import random

import pytest

from mercator.dsl.loader import load_text
from mercator.interpreter.compiler import codegen, compile_program
from mercator.interpreter.engine.program import Program
from tests.test_playout import same

RULES = """game "T" players 2..3
enum Color { red, green, blue }
table { held: map<Color, int> = {red: 1, green: 2, blue: 0}  n: int = 3 }
player { x: int = 0 }
fn spread() -> int = held[red] * n + held[green] * n - held[blue] * n
fn open() -> list<Color> = [c for c in Color if held[c] < n]
round r limit 6 { phase a {
  for p in players {
    let c = choose p one of [c for c in Color if held[c] < n and held[c] + n > p.x]
              with pass
    if c != none {
      held[some(c)] += 1
      p.x += spread() + len(open())
    } else {
      n += 1
      p.x -= spread()
    }
  }
} }
score p: p.x
"""


def build(at: int) -> Program:
    old = codegen.FIELD_HOIST_AT
    codegen.FIELD_HOIST_AT = at
    try:
        res = load_text(RULES, "t.rules")
        assert res.ok and res.rulebook is not None, [str(d) for d in res.diagnostics]
        return compile_program(res.rulebook)
    finally:
        codegen.FIELD_HOIST_AT = old


def test_the_split_reads_the_field_once() -> None:
    pre, code = codegen.hoist_fields("(s.table[2][0] + s.table[2][1] * s.table[2][2]) > "
                                     "s.table[1] + s.table[1]")
    assert pre == "_TF2 = s.table[2]; "
    assert code == "(_TF2[0] + _TF2[1] * _TF2[2]) > s.table[1] + s.table[1]"
    assert codegen.hoist_fields("len(s.table[0])") == ("", "len(s.table[0])")


def test_a_fn_reading_a_field_thrice_reads_it_into_a_local() -> None:
    prog = build(codegen.FIELD_HOIST_AT)
    assert "_TF0" in prog.ex.ns["F_spread"].__code__.co_varnames
    assert "_TF0" not in build(10 ** 9).ex.ns["F_spread"].__code__.co_varnames
    s = prog.new_game(2, 0)
    assert prog.ex.ns["F_spread"](s) == 1 * 3 + 2 * 3 - 0
    prog.set(s, "held", {0: 4, 1: 0, 2: 1})
    assert prog.ex.ns["F_spread"](s) == 4 * 3 - 3     # read afresh on every call


@pytest.mark.parametrize("players", [2, 3])
def test_hoisted_reads_play_the_games_of_plain_reads(players: int) -> None:
    hoisted, plain = build(codegen.FIELD_HOIST_AT), build(10 ** 9)
    for seed in range(12):
        a, b = hoisted.new_game(players, seed), plain.new_game(players, seed)
        hoisted.playout(a, random.Random(seed))
        plain.playout(b, random.Random(seed))
        assert a.over and b.over
        same(a, b)
        assert [p[0] for p in a.players] != [0] * players     # the rules did something
