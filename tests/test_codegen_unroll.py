"""`any`/`all` over a small enum are written out as an `or`/`and` chain (codegen.py,
`CodeGen._unrolled`, up to `codegen.UNROLL` members): the values and the errors (a chain
stops where the generator stops) must be those of the generator, which `UNROLL = 0` brings
back, and so must the steps charged, but for a walk whose parts call nothing that charges: one
expression of a fixed size, it is charged nothing."""
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
    (v_on, steps_on), (v_off, steps_off) = call(build(8), fn, *args, held=held), \
        call(build(0), fn, *args, held=held)
    assert v_on == v_off
    assert steps_on <= steps_off      # (a chain of fixed parts is not charged: see below)


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


# Comprehensions and sum/count/min/max over a small enum are written out too, and what each
# member makes known before the game is folded: `x in boats`, `kind[x]` and `x != tail` cost
# nothing at run time.
WALKS = """game "T" players 2..3
enum Color { red, green, blue, black }
enum Slot { a_boat, b_boat, office_1, office_2, tail }
const boats = [a_boat, b_boat]
const kind = {a_boat: red, b_boat: blue, office_1: red, office_2: green, tail: black}
const weight = {red: 1, green: 2, blue: 3, black: 4}
const nothing = 0
table { held: map<Color, int> = {red: 0, green: 2, blue: 0, black: 5}  n: int = 1
        taken: map<Slot, int> = {a_boat: 0, b_boat: 0, office_1: 0, office_2: 0, tail: 0} }
player { x: int = 0 }
fn open(x: Slot) -> bool = if x in boats then held[kind[x]] < 3 else taken[x] == 0
fn cost(x: Slot) -> int = if x in boats then weight[kind[x]] + held[kind[x]] else 2
fn budget() -> int = sum(held[c] for c in Color) + n
fn free() -> list<Slot> = [x for x in Slot if x != tail and open(x)]
fn affordable() -> list<Slot> = [x for x in Slot if open(x) and cost(x) <= budget()]
fn heavy(k: int) -> int = count(true for c in Color if held[c] > k)
fn weighed() -> int = sum(held[c] * weight[c] for c in Color if c != green)
fn cheapest() -> int = min(cost(x) for x in Slot if open(x) and x in boats)
fn dearest() -> int = max(weight[c] / n for c in Color)
fn risky() -> int = sum((if c == red then 10 / n else weight[c]) for c in Color)
fn spread() -> int = sum(sum([k for k in 0..held[c]]) for c in Color)
fn never() -> list<Color> = [c for c in Color if (if c == black then false else held[c] / nothing > 0)]
round r limit 3 { phase a {
  for p in players {
    let x = choose p one of affordable() with pass
    p.x += heavy(1) + weighed() + len(free())
    if x != none {
      held[kind[some(x)]] += 1
      taken[some(x)] += 1
    }
  }
} }
score p: p.x
"""

TAKEN = [None, {0: 1, 1: 0, 2: 1, 3: 0, 4: 0}, {0: 0, 1: 0, 2: 0, 3: 0, 4: 1}]


def walk_fns(prog: Program) -> set:
    return {fn for fn in ("free", "affordable", "heavy", "weighed", "cheapest", "dearest")
            if any(getattr(c, "co_name", "").startswith("<")
                   for c in prog.ex.ns["F_" + fn].__code__.co_consts)}


def test_walks_are_written_out_with_what_is_known_folded() -> None:
    on, off = build(16, WALKS), build(0, WALKS)
    assert walk_fns(on) == set() and walk_fns(off) == {
        "free", "affordable", "heavy", "weighed", "cheapest", "dearest"}
    src = on.ex._fn_source("free", on.ex.rb.fns["free"])
    assert " in K" not in src and "C_kind" not in src and "!=" not in src
    assert "s.table[0][0]" in src           # held[red] read directly for a_boat


@pytest.mark.parametrize("held", HELD)
@pytest.mark.parametrize("taken", TAKEN)
@pytest.mark.parametrize("fn", ["free", "affordable", "heavy", "weighed", "cheapest", "dearest",
                                "risky", "never"])
def test_written_out_walks_give_the_comprehension_s_values_errors_and_steps(
        fn: str, held: Any, taken: Any) -> None:
    def run(prog: Program, n: int) -> tuple[Any, int]:
        s = prog.new_game(2, 0)
        if taken is not None:
            prog.set(s, "taken", taken)
        if held is not None:
            prog.set(s, "held", held)
        prog.set(s, "n", n)
        limits.start(10 ** 6)
        args = (1,) if fn == "heavy" else ()
        try:
            v = prog.ex.ns["F_" + fn](s, *args)
        except Exception as exc:   # the error itself is what is compared
            v = f"{type(exc).__name__}: {exc}"
        return v, 10 ** 6 - limits.METER[0]
    on, off = build(16, WALKS), build(0, WALKS)
    for n in (1, 0):
        (v_on, steps_on), (v_off, steps_off) = run(on, n), run(off, n)
        assert v_on == v_off
        # a walk written out is charged as the comprehension is, or (its parts calling
        # nothing that charges: a fixed expression) not at all
        assert steps_on in (steps_off, 0)
    if fn in ("free", "affordable", "heavy", "cheapest"):   # (weighed multiplies: charged)
        assert steps_on == 0


def test_a_walk_written_out_is_charged_unless_its_parts_call_nothing_that_charges() -> None:
    """free()'s walk tests fields member by member (one expression of a fixed size): not
    charged; spread()'s walks a range per member, which charges, so it is charged as the
    comprehension is, step for step."""
    on, off = build(16, WALKS), build(0, WALKS)
    assert call(on, "free")[1] == 0 < call(off, "free")[1]
    held = {0: 2, 1: 0, 2: 3, 3: 1}
    assert call(on, "spread", held=held) == call(off, "spread", held=held)
    assert call(on, "spread", held=held)[0] == 6 + 4      # 0+1+2 + 0 + 0+1+2+3 + 0+1


def test_an_error_folding_meets_is_left_to_the_game() -> None:
    """held[c] / nothing cannot be computed before the game (nothing is 0): it is written as
    it stands and fails in the game, at the first member whose branch reaches it."""
    on = build(16, WALKS)
    s = on.new_game(2, 0)
    limits.start(10 ** 6)
    with pytest.raises(Exception, match="zero"):
        on.ex.ns["F_never"](s)


def test_a_walk_s_invariant_is_computed_once_and_a_member_s_part_per_member() -> None:
    """budget() reads no member: one cell for the walk; cost(x) differs per member and is
    not put in a cell (it is computed once per member anyway)."""
    on = build(16, WALKS)
    src = on.ex._fn_source("affordable", on.ex.rb.fns["affordable"])
    assert src.count(":= _NO") == 1 and src.count("_wh") >= 2


def test_games_with_written_out_walks_are_the_same() -> None:
    def games(prog: Program, least: int = 2) -> list:
        out = []
        for seed in range(10):
            s = prog.new_game(least + seed % 2, seed)
            rng = random.Random(seed)
            while not s.over:
                prog.apply(s, rng.randrange(s.pending.count))
            out.append((s.digest(), s.result))
        return out
    assert games(build(16, WALKS)) == games(build(0, WALKS))
    manila = os.path.join(ROOT, "rulebooks", "manila.rules")
    assert games(build(16, path=manila), 3) == games(build(0, path=manila), 3)


def test_some_of_a_member_written_out_compiles_without_a_warning() -> None:
    """`some(c)` with c a member of a walk written out becomes `some(2)`: a literal is never
    none, so it is written as the literal (Python warns of `2 is not None`, and a warning printed
    while a rulebook compiles reads like a fault of the rulebook)."""
    import warnings
    text = RULES.replace("fn has(c: Color)", """fn picked(k: Color?) -> int =
  sum(held[c] for c in Color if k == some(c))
fn has(c: Color)""")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        prog = build(codegen.UNROLL, text)
    s = prog.new_game(2, 0)
    assert prog.ex.ns["F_picked"](s, 3) == 5 and prog.ex.ns["F_picked"](s, None) == 0
