"""A `choose` is written once (interpreter/compiler/decisions.py, `write_choice`): the VM's op of
it and the compiled rollout's inline choice share the player, the options, their checks, the
any-time actions and the choice made without asking, and differ only in the tail (the VM's node;
the rollout's draw). So a choice that cannot be made fails alike through `apply` and through
`playout`: the same message, at the same rule line, after the same decisions."""
from __future__ import annotations

import random

import pytest

from game_driver import program_text
from test_playout import by_apply

from mercator.interpreter.compiler import decisions
from mercator.interpreter.engine.program import MercatorRuntimeError, Program

# Each rulebook asks one good decision first (so the failing choice is reached inside a playout,
# not while a new game starts), then fails at line 11 with the message given (at line 6, in the
# proc, for a player none).
HEAD = """game "Bad choice" players 2..2
player { gold: int = 0  hand: list<int>  marks: bag<int>  book: map<int, int>
  n: int = 200000  k: int = 40 }
table { boss: player? }
proc ask(p: player) {
  let x = choose p one of [1, 2] prompt "x"
  p.gold += x
}
round r limit 1 { phase main {
  let first = choose players[0] one of [1, 2] prompt "first"
"""
TAIL = """
  let w = players[0]
  w.gold += first
} }
score p: p.gold
"""

BAD = {
    "no player": ("ask(boss)", decisions.NO_PLAYER),
    "no options, a list": ('let c = choose players[1] one of players[1].hand prompt "c"',
                           decisions.NO_OPTIONS),
    "no options, a bag": ('let c = choose players[1] one of players[1].marks prompt "c"',
                          decisions.NO_OPTIONS),
    "no options, a map": ('let c = choose players[1] one of players[1].book prompt "c"',
                          decisions.NO_OPTIONS),
    "no options, a range": ('let c = choose players[1] one of 3..first prompt "c"',
                            decisions.NO_OPTIONS),
    "no options, a subset": ('let c = choose players[1] subset of players[1].hand size 1..2',
                             decisions.NO_OPTIONS),
    "too many options, a range": ('let c = choose players[1] one of 1..players[1].n',
                                  "a decision has too many options (more than the limit of "
                                  "100,000)"),
    "too many options, a list": ('let c = choose players[1] one of [i for i in 1..players[1].n]',
                                 "a decision has too many options"),
    "too many options, a subset": ('let c = choose players[1] subset of 1..players[1].k '
                                   'size 0..players[1].k',
                                   "a 'subset of' decision has too many options"),
    "too many options, simultaneous": (
        "let c = simultaneous q in players: choose q one of 1..players[1].n with pass",
        "a decision has too many options"),
}


def fails(prog: Program, play: str) -> MercatorRuntimeError:
    s = prog.new_game(2, 0)
    with pytest.raises(MercatorRuntimeError) as err:
        if play == "playout":
            prog.playout(s, random.Random(0))
        else:
            by_apply(prog, s, random.Random(0))
    assert s.failed
    return err.value


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_choice_fails_alike_through_apply_and_playout(case: str) -> None:
    stmt, message = BAD[case]
    prog = program_text(HEAD + "  " + stmt + TAIL)
    by_playout, by_op = fails(prog, "playout"), fails(prog, "apply")
    assert prog._rollout is not None        # the compiled rollout played (COMPILED_ROLLOUT)
    assert (by_playout.span, by_playout.message, by_playout.history) == \
        (by_op.span, by_op.message, by_op.history)
    line = 6 if case == "no player" else 11
    assert by_op.span.line == line and message in by_op.message, (by_op.span, by_op.message)
    assert len(by_op.history) == 1           # after the first decision


def test_both_ways_of_a_choice_come_from_its_one_writer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The errors of a choice are written once, by write_choice, into the VM's op and into the
    rollout's inline choice: changed there, both ways raise the new messages; and the VM's op
    of every choice is a function written by it (no closure of its own)."""
    monkeypatch.setattr(decisions, "NO_PLAYER", "marker: nobody chooses")
    monkeypatch.setattr(decisions, "NO_OPTIONS", "marker: nothing to choose")
    for stmt, marker in [(BAD["no player"][0], "marker: nobody chooses"),
                         (BAD["no options, a list"][0], "marker: nothing to choose")]:
        prog = program_text(HEAD + "  " + stmt + TAIL)
        for play in ("playout", "apply"):
            assert fails(prog, play).message.endswith(marker)
        assert prog._rollout is not None
        rollout = "".join(prog._rollout.sources.values())
        assert f"raise RuleError({marker!r})" in rollout and "_vm(" not in rollout
        vm = [t for t in prog.fused.sources.values() if f"raise RuleError({marker!r})" in t]
        assert vm and all(".node(s, L, _w, _o, _a)" in t for t in vm)   # the VM's op: its node
        assert not any("choose" in getattr(op, "__qualname__", "") for ops in prog.codes
                       for op in ops)
