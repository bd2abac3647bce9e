"""`any`/`all` over a small enum are written out as an `or`/`and` chain (codegen.py,
`CodeGen._unrolled`, up to `codegen.UNROLL` members): the values, the errors (a chain stops
where the generator stops) and the steps charged must be those of the generator, which
`UNROLL = 0` brings back."""
from __future__ import annotations

import os
import random
from typing import Any

import pytest

from mercator.dsl.loader import load, load_text
from mercator.interpreter.compiler import codegen, compile_program
from mercator.interpreter.engine import limits
from mercator.interpreter.engine.program import Program

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RULES = """game "T" players 2..3
enum Color { red, green, blue, black }
table { held: map<Color, int> = {red: 0, green: 2, blue: 0, black: 5}  n: int = 1 }
player { x: int = 0 }
fn has(c: Color) -> bool = held[c] > 0
fn any_held() -> bool = any(has(c) for c in Color)
fn any_big(k: int) -> bool = any(held[c] > k for c in Color if c != black)
fn all_held() -> bool = all(held[c] > 0 for c in Color)
fn all_but_red(k: int) -> bool = all(held[c] >= k for c in Color if c != red)
fn divides() -> bool = any(held[c] / n > 1 for c in Color)
fn nested() -> list<int> = [k for k in 0..6 if any(held[c] == k for c in Color)]
round r limit 3 { phase a {
  for p in players {
    let k = choose p one of nested()
    if any_big(k) or all_but_red(k) { p.x += k }
    if all_held() { p.x += 100 }
    held[Color[k % 4]] += 1
  }
} }
score p: p.x
"""


def build(unroll: int, text: str = RULES, path: str = "t.rules") -> Program:
    old = codegen.UNROLL
    codegen.UNROLL = unroll
    try:
        res = load_text(text, path) if path == "t.rules" else load(path)
        assert res.ok and res.rulebook is not None, [str(d) for d in res.diagnostics]
        return compile_program(res.rulebook)
    finally:
        codegen.UNROLL = old


def call(prog: Program, fn: str, *args: Any, held: Any = None, n: int = 1) -> tuple[Any, int]:
    """(value or the error's text, steps charged) of fn(*args) on a new game's state."""
    s = prog.new_game(2, 0)
    if held is not None:
        prog.set(s, "held", held)
    prog.set(s, "n", n)
    limits.start(10 ** 6)
    try:
        v = prog.ex.ns["F_" + fn](s, *args)
    except Exception as exc:       # the error itself is what is compared
        v = f"{type(exc).__name__}: {exc}"
    return v, 10 ** 6 - limits.METER[0]


def test_the_chain_has_no_generator_and_the_switch_brings_it_back() -> None:
    def has_generator(prog: Program, fn: str) -> bool:
        return any(getattr(c, "co_name", "") == "<genexpr>"
                   for c in prog.ex.ns["F_" + fn].__code__.co_consts)
    assert not has_generator(build(8), "any_big") and has_generator(build(0), "any_big")
    assert has_generator(build(3), "any_big")          # four members: more than UNROLL


HELD = [None, {0: 0, 1: 0, 2: 0, 3: 0}, {0: 3, 1: 0, 2: 0, 3: 0}, {0: 1, 1: 1, 2: 1, 3: 1},
        {0: 0, 1: 4, 2: 9, 3: 0}]


@pytest.mark.parametrize("held", HELD)
@pytest.mark.parametrize("fn,args", [("any_held", ()), ("any_big", (0,)), ("any_big", (3,)),
                                     ("all_held", ()), ("all_but_red", (1,)),
                                     ("all_but_red", (0,)), ("nested", ())])
def test_values_and_steps_are_the_generators(fn: str, args: tuple, held: Any) -> None:
    assert call(build(8), fn, *args, held=held) == call(build(0), fn, *args, held=held)


def test_an_error_comes_where_the_generator_stops() -> None:
    """held[c] / n with n = 0: the generator fails at the first member (division by zero) --
    the chain too, and with the same message."""
    on, off = call(build(8), "divides", n=0), call(build(0), "divides", n=0)
    assert on == off and "division by zero" in on[0]


def test_games_are_the_same_written_out_or_not() -> None:
    def games(prog: Program) -> list:
        out = []
        for seed in range(8):
            s = prog.new_game(2 + seed % 2, seed)
            rng = random.Random(seed)
            while not s.over:
                prog.apply(s, rng.randrange(s.pending.count))
            out.append((s.digest(), s.result))
        return out
    assert games(build(8)) == games(build(0))
    dh = os.path.join(ROOT, "rulebooks", "die_haendler.rules")
    assert games(build(8, path=dh)) == games(build(0, path=dh))
