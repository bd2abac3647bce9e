"""The function that lists the any-time actions allowed at a decision (compiler/actions.py):
a condition that cannot fail is tested in two parts, what reads no parameter once and the rest
per value of the parameters; it must list exactly what the whole condition allows, in the same
order, and a condition that can fail is left whole (its error where it was)."""
from __future__ import annotations

import random
from typing import Any

import pytest

from mercator.dsl.loader import load_text
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.compiler.actions import cannot_fail
from mercator.interpreter.engine.program import MercatorRuntimeError, Program

RULES = """game "T" players 2..3
enum Good { tea, salt, iron }
player { cash: int = 3  held: bag<Good>  pawned: bag<Good>  busy: bool = false
         debt: int? = none }
anytime pawn(p: player, g: Good) when g in p.held and not p.busy { move g from p.held to p.pawned }
anytime redeem(p: player, g: Good) when g in p.pawned and p.cash >= 2 and not p.busy {
  move g from p.pawned to p.held
  p.cash -= 2
}
anytime rest(p: player) when not p.busy { p.busy = true }
anytime risky(p: player, g: Good) when g in p.held and 6 / p.cash > 1 { p.cash += 1 }
round r limit 6 { phase a {
  for p in players {
    let g = choose p one of [tea, salt, iron]
    add g to p.held
    p.cash += 1
    p.busy = false
  }
} }
score p: p.cash
"""


def program() -> Program:
    res = load_text(RULES, "t.rules")
    assert res.ok and res.rulebook is not None, [str(d) for d in res.diagnostics]
    return compile_program(res.rulebook)


def test_only_conditions_that_cannot_fail_are_split() -> None:
    prog = program()
    rb = prog.rb
    conds = {b.name: b.cond for b in rb.actions}
    assert cannot_fail(rb, conds["pawn"]) and cannot_fail(rb, conds["redeem"])
    assert not cannot_fail(rb, conds["risky"])     # 6 / p.cash divides


def expected(prog: Program, s: Any, who: int) -> list[str]:
    """The actions allowed, each condition evaluated whole by the expression compiler."""
    out = []
    for bid, b, combos in prog.actions.combos(len(s.players)):
        for label, args in combos:
            slots = [who, *args] + [None] * 8
            if b.cond is None or prog.ex.compile(b.cond)(s, slots):
                out.append(label)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_the_split_offer_lists_what_the_whole_conditions_allow(seed: int) -> None:
    prog = program()
    offer = prog.actions.offer_for(2)
    rng = random.Random(seed)
    s = prog.new_game(2, seed)
    for _ in range(40):
        for who in (0, 1):
            prog.set(s, "cash", rng.randrange(1, 5), player=who)
            prog.set(s, "busy", rng.random() < 0.3, player=who)
            prog.set(s, "held", {g: 1 for g in range(3) if rng.random() < 0.5}, player=who)
            prog.set(s, "pawned", {g: 1 for g in range(3) if rng.random() < 0.5}, player=who)
            assert [a[0] for a in offer(s, who)] == expected(prog, s, who)


def test_a_condition_that_can_fail_still_fails_where_it_did() -> None:
    prog = program()
    s = prog.new_game(2, 0)
    prog.set(s, "cash", 0, player=0)
    prog.set(s, "held", {0: 1}, player=0)
    with pytest.raises(MercatorRuntimeError, match="division by zero"):
        prog.actions.allowed(s, 0)
