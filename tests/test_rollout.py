"""The compiled rollout (interpreter/compiler/rollout.py): every body as one Python function that
picks its own choices. It must play the VM's game choice for choice, stop at any decision with
the VM's own state (frames, pcs, loop slots), locate a rule error at the VM's line, and run
bodies nested too deep for Python's stack.

tests/test_playout.py runs the shipped rulebooks both ways; this file covers the statement
kinds and the corners they do not: triggers several to an event, return and break inside
loops, repeat, while with a limit, any-time actions, explicit chance, a recursive proc.
"""
from __future__ import annotations

import gc
import random
import re
from pathlib import Path
from typing import Optional

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game_driver import program, program_text
from test_playout import by_apply

from mercator.interpreter.engine import program as program_module
from mercator.interpreter.engine.nodes import Chance, Terminal
from mercator.interpreter.engine.program import MercatorRuntimeError, Program
from mercator.interpreter.engine.state import State

EVERY_KIND = """
game "Every kind" players 2..3

enum Colour { red, green, blue }

player {
  gold: int = 0
  hand: list<int>
  marks: bag<Colour>
}

table {
  pool: list<int>
  bag_of: bag<Colour>
  steps: int = 0
  calls: int = 0
}

event gained(p: player, n: int)

fn best(p: player) -> int = max(p.gold, 0)

anytime tip(p: player, c: Colour) when p.gold >= 2 and c in p.marks {
  p.gold -= 2
  remove c from p.marks
}

setup {
  pool = [1, 2, 3, 4, 5, 6]
  shuffle pool
  for c in Colour { bag_of[c] = 2 }
}

proc depth(n: int) -> int {
  calls += 1
  if n == 0 {
    return 0
  }
  let k = depth(n - 1)
  return k + 1
}

proc take(p: player) -> int {
  for x in pool where x > 1 {
    let yes = choose p one of [true, false] prompt "take it?"
    if yes {
      remove x from pool
      add x to p.hand
      return x
    }
  }
  return 0
}

on gained(p, n) as double when n > 3 {
  let c = choose p one of [c for c in Colour] prompt "a mark"
  p.marks[c] += 1
}

on gained(p, n) as roll_on {
  let r = roll 3
  p.gold += r
}

round r limit 3 {
  phase main {
    for p in players {
      let got = take(p)
      p.gold += got
      emit gained(p, got)
      let d = depth(3)
      steps += d
    }
  }
  phase sealed {
    let bids = simultaneous p in players: choose p one of [0, 1, 2] with pass
    for p in players {
      if bids[p] != none {
        p.gold += some(bids[p])
      }
    }
    # options from a bag: its distinct items, sorted (decisions.write_choice)
    let shown = simultaneous p in players: choose p one of p.marks with pass
    for p in players {
      if shown[p] != none {
        p.gold += 1
      }
    }
  }
  phase extra {
    let left = 2
    while left > 0 limit 5 {
      left -= 1
      repeat 2 {
        let p = random one of players
        if len(bag_of) == 0 {
          break
        }
        let c = draw from bag_of
        p.marks[c] += 1
        let stop = choose p one of [1, 2] with pass prompt "go on?"
        if stop == 2 {
          break
        }
      }
    }
    if best(players[0]) > 8 {
      end game
    }
  }
}

score p: p.gold + count(p.marks) + len(p.hand) + steps + calls
"""

PROPS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def every() -> Program:
    return program_text(EVERY_KIND)


def test_the_rollout_is_what_playout_runs(every: Program) -> None:
    s = every.new_game(2, 1)
    every.playout(s, random.Random(1))
    assert every._rollout is not None and s.over
    # each body is one compiled function (none left to the VM loop)
    assert all(f is not None for f in every._rollout.bodies[1:])


@pytest.mark.parametrize("limit", [None, 3])
def test_a_finished_rollout_keeps_none_of_its_states_alive(every: Program,
                                                           limit: Optional[int]) -> None:
    """The rollout ends by raising one of two exceptions it makes once; a traceback kept on
    them would hold the frames, and so the states, of every rollout (a search agent's process
    grew by gigabytes in an hour). After a playout, ended or stopped, nothing holds its state."""
    def alive() -> int:
        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, State))
    before = alive()
    for seed in range(3):
        s = every.new_game(2, seed)
        every.playout(s, random.Random(seed), limit)
        del s
        assert alive() == before


@PROPS
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 3), explicit=st.booleans(),
       cuts=st.lists(st.integers(0, 12), min_size=1, max_size=6))
def test_stopped_anywhere_the_rollout_leaves_the_vms_state(every: Program, seed: int,
                                                           players: int, explicit: bool,
                                                           cuts: list[int]) -> None:
    """Stopped inside a trigger (with the next trigger's frame waiting below), a loop, a
    recursive proc or an any-time action, the state is the one apply reaches: same digest,
    and apply, JSON and the VM go on from it to the same end."""
    a = every.new_game(players, seed, explicit_chance=explicit)
    b = every.new_game(players, seed, explicit_chance=explicit)
    ra, rb = random.Random(seed), random.Random(seed)
    for k in cuts:
        assert every.playout(a, ra, max_decisions=k) == by_apply(every, b, rb, k)
        assert a.history == b.history and a.digest() == b.digest()
        if a.over:
            break
        a = State.from_json(a.to_json())
        every.resume(a)
    every.playout(a, ra)
    by_apply(every, b, rb)
    assert a.history == b.history and a.digest() == b.digest() and a.result == b.result


@PROPS
@given(seed=st.integers(0, 2**32 - 1))
def test_the_rollout_and_the_vm_loop_play_the_same_game(every: Program, seed: int) -> None:
    a, b = every.new_game(3, seed), every.new_game(3, seed)
    every.playout(a, random.Random(seed))
    try:
        program_module.COMPILED_ROLLOUT = False
        every.playout(b, random.Random(seed))
    finally:
        program_module.COMPILED_ROLLOUT = True
    assert a.history == b.history and a.digest() == b.digest() and a.result == b.result


DEEP = """
game "Deep" players 2..2
player { gold: int = 0 }
table { made: int = 0 }
proc down(p: player, n: int) {
  if n == 0 {
    let g = choose p one of [1, 2, 3] prompt "gold"
    p.gold += g
  } else {
    down(p, n - 1)
    made += 1
  }
}
round r limit 2 {
  phase main {
    for p in players { down(p, 300) }
  }
}
score p: p.gold
"""


def test_bodies_nested_deeper_than_pythons_stack_allows_run_in_the_vm_loop() -> None:
    prog = program_text(DEEP)
    a, b = prog.new_game(2, 4), prog.new_game(2, 4)
    assert prog.playout(a, random.Random(9)) == by_apply(prog, b, random.Random(9)) == 4
    assert a.digest() == b.digest() and a.result == b.result
    assert prog.get(a, "made") == 4 * 300
    c = prog.new_game(2, 4)          # stopped at the bottom of the recursion, 300 frames deep
    prog.playout(c, random.Random(9), max_decisions=1)
    assert len(c.stack) > 300
    d = State.from_json(c.to_json())
    prog.resume(d)
    by_apply(prog, d, random.Random(9))


FAILS = """
game "Fails inside" players 2..2
player { gold: int = 0 }
table { xs: list<int> }
proc pick(p: player, i: int) {
  let k = choose p one of [1, 2] prompt "k"
  xs = xs + [k]
  repeat 2 {
    if len(xs) == 5 {
      p.gold = xs[i + 7]
    }
  }
}
round r limit 4 {
  phase main {
    for p in players { pick(p, 1) }
  }
}
score p: p.gold
"""


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "vm"])
def test_a_rule_error_in_a_nested_proc_is_located_at_its_line(compiled: bool,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    monkeypatch.setattr(program_module, "COMPILED_ROLLOUT", compiled)
    prog = program_text(FAILS)
    s = prog.new_game(2, 0)
    with pytest.raises(MercatorRuntimeError) as err:
        prog.playout(s, random.Random(0))
    assert err.value.span.line == 10 and "out of range" in err.value.message
    t = prog.new_game(2, 0)
    with pytest.raises(MercatorRuntimeError) as err2:
        by_apply(prog, t, random.Random(0))
    assert (err2.value.span, err2.value.message, err2.value.history) == \
        (err.value.span, err.value.message, err.value.history)


ENDLESS = """
game "Endless" players 2..2
player { gold: int = 0 }
table { n: int = 0 }
round r limit 2 {
  phase main {
    let k = choose players[0] one of [1, 2] prompt "k"
    while true {
      n += k
    }
  }
}
score p: p.gold
"""


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "vm"])
def test_a_loop_without_end_spends_the_step_budget(compiled: bool,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(program_module, "COMPILED_ROLLOUT", compiled)
    prog = program_text(ENDLESS)
    prog.step_budget = 20_000
    s = prog.new_game(2, 0)
    with pytest.raises(MercatorRuntimeError) as err:
        prog.playout(s, random.Random(0))
    assert "step budget of 20000 steps exhausted" in err.value.message
    assert err.value.span.line in (8, 9)
    assert isinstance(s.pending, (Terminal, type(None))) or s.failed


def test_every_statement_of_the_common_kinds_is_compiled(every: Program) -> None:
    """Only statements written as several ops with a choice inside (a compound `choose` of a
    record) are left to the VM loop; calls, emits that start triggers, choices (simultaneous
    ones too), chance and shuffles are compiled (an emit whose triggers were not run compiled once
    left their frames to the wrong function)."""
    from pathlib import Path
    from game_driver import program
    root = Path(__file__).resolve().parent.parent / "rulebooks"
    for prog in (every, program(root / "manila.rules"), program(root / "die_haendler.rules")):
        s = prog.new_game(prog.min_players, 3)
        prog.playout(s, random.Random(3))
        assert prog._rollout is not None
        left = [name for name, src in prog._rollout.sources.items() if "_vm(" in src]
        assert left == [], left
    # and each way of writing a choice is exercised by the rulebook of this file
    src = "".join(every._rollout.sources.values())     # type: ignore[union-attr]
    assert "_stop(s, fr" in src and "_o = sorted(" in src and "while True:" in src
    assert re.search(r"for _tp in L\[\d+\]\[0\]:", src)      # a simultaneous choice's turns


BAD_WHEN = """
game "Bad when" players 2..2
player { gold: int = 0 }
table { xs: list<int> = [1, 2] }
anytime peek(p: player) when p.gold > 0 and xs[p.gold + 3] > 0 {
  p.gold += 1
}
round r limit 2 {
  phase main {
    for p in players {
      let k = choose p one of [1, 2] prompt "k"
      p.gold += k
    }
  }
}
score p: p.gold
"""


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "vm"])
def test_a_failing_anytime_condition_is_located_at_the_condition(compiled: bool,
                                                                 monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    monkeypatch.setattr(program_module, "COMPILED_ROLLOUT", compiled)
    prog = program_text(BAD_WHEN)
    s = prog.new_game(2, 0)            # no gold yet: the condition stops at its first part
    with pytest.raises(MercatorRuntimeError) as err:
        prog.playout(s, random.Random(0))
    assert len(err.value.history) >= 2   # it failed in the playout, at a later decision
    assert err.value.span.line == 5
    assert "the condition of the any-time action 'peek' cannot be evaluated" in err.value.message


BAD_DIE = """
game "Bad die" players 2..2
player { gold: int = 0 }
round r limit 3 {
  phase main {
    for p in players {
      let k = choose p one of [0, 1, 2, 6] prompt "sides"
      let pips = roll k
      p.gold += pips
    }
  }
}
score p: p.gold
"""


@pytest.mark.parametrize("seed", [9, 10, 11])     # (seed 11 rolls no 0-sided die)
def test_a_roll_written_out_draws_and_fails_as_the_rolls_op(seed: int) -> None:
    """The rollout writes `let x = roll n` out (no explicit chance): the same pips from the
    state's generator as the op, no decision for them, and a die of no sides fails at the
    roll's line with the op's message and decision log."""
    prog = program_text(BAD_DIE)
    a, b = prog.new_game(2, seed), prog.new_game(2, seed)
    try:
        prog.playout(a, random.Random(seed))
        failed = None
    except MercatorRuntimeError as e:
        failed = e
    try:
        by_apply(prog, b, random.Random(seed))
        assert failed is None
        assert a.history == b.history and a.digest() == b.digest() and a.result == b.result
    except MercatorRuntimeError as e:
        assert failed is not None
        assert (failed.span, failed.message, failed.history) == (e.span, e.message, e.history)
        assert failed.span.line == 8 and "cannot roll a die with 0 sides" in failed.message


EMPTY_BAG_CHOICE = """
game "Empty bag choice" players 2..2
enum Colour { red, green }
player { gold: int = 0
  marks: bag<Colour> }
round r limit 3 {
  phase main {
    for p in players {
      let c = choose p one of [x for x in Colour] prompt "a mark"
      p.marks[c] += 1
      let back = choose p one of p.marks prompt "give back"
      p.marks[back] -= 1
      let again = choose p one of p.marks prompt "again"
      p.gold += 1
    }
  }
}
score p: p.gold
"""


def test_a_choice_of_a_bags_items_is_inline_and_fails_as_its_op() -> None:
    """A `choose` of a bag's items is written inline in the rollout, its options listed as the
    op lists them (decisions.write_choice writes both): the same games as apply, and a choice
    with no options fails at its line with the op's message and decision log."""
    prog = program_text(EMPTY_BAG_CHOICE)
    a, b = prog.new_game(2, 4), prog.new_game(2, 4)
    with pytest.raises(MercatorRuntimeError) as err:
        prog.playout(a, random.Random(4))
    with pytest.raises(MercatorRuntimeError) as err2:
        by_apply(prog, b, random.Random(4))
    e, e2 = err.value, err2.value
    assert (e.span, e.message, e.history) == (e2.span, e2.message, e2.history)
    assert e.span.line == 13 and "a player must choose, but there are no options" in e.message
    assert prog._rollout is not None and "_o = sorted(" in "".join(prog._rollout.sources.values())


NOBODY_ASKED = """
game "Nobody asked" players 2..2
player { gold: int = 0 }
table { boss: player? }
proc ask(p: player) {
  let x = choose p one of [1, 2] prompt "x"
  p.gold += x
}
round r limit 1 {
  phase main {
    let y = choose players[0] one of [1, 2] prompt "y"
    ask(boss)
  }
}
score p: p.gold
"""


def test_a_choice_for_a_player_parameter_given_none_fails_as_the_vm_fails() -> None:
    """A `player?` may be passed for a `player` parameter: the rollout's inline choice checks
    its player for none as the VM's op does (it once asked a decision of nobody)."""
    prog = program_text(NOBODY_ASKED)
    with pytest.raises(MercatorRuntimeError) as err:
        prog.playout(prog.new_game(2, 0), random.Random(0))
    with pytest.raises(MercatorRuntimeError) as err2:
        by_apply(prog, prog.new_game(2, 0), random.Random(0))
    assert (err.value.span, err.value.message, err.value.history) == \
        (err2.value.span, err2.value.message, err2.value.history)
    assert err.value.span.line == 6 and "'choose' with no player (none)" in err.value.message


CALLS = """
game "Calls" players 2..2
player { gold: int = 0 }
proc leaf(p: player) {
  p.gold += 1
}
proc middle(p: player) {
  leaf(p)
  leaf(p)
}
proc asks(p: player) {
  let n = choose p one of [1, 2] prompt "n"
  p.gold += n
}
proc calls_asks(p: player) {
  middle(p)
  asks(p)
}
proc ends(p: player) {
  if p.gold > 100 {
    end game
  }
}
proc countdown(p: player, n: int) {
  if n > 0 {
    countdown(p, n - 1)
  }
}
round r limit 2 {
  phase main {
    for p in players {
      calls_asks(p)
      ends(p)
      countdown(p, 3)
    }
  }
}
score p: p.gold
"""


def test_calls_past_the_nesting_limit_run_in_the_vm_and_play_the_vms_game() -> None:
    """Every compiled call checks the stack's depth: a recursion deeper than MAX_NEST (here
    countdown 3 and 100 deep, asking a choice at the bottom and ending the game from a proc)
    goes on in the VM loop, Python's own stack untouched, and the game is the VM's, choice for
    choice, from the start and from every decision."""
    from test_playout import same
    from mercator.interpreter.compiler.rollout import MAX_NEST
    prog = program_text(CALLS.replace("countdown(p, 3)", "countdown(p, 3)\n      "
                                      "countdown(p, 100)\n      asks(p)"))
    assert 100 > MAX_NEST
    for seed in range(4):
        a, b = prog.new_game(2, seed), prog.new_game(2, seed)
        prog.playout(a, random.Random(seed))
        by_apply(prog, b, random.Random(seed))
        same(a, b)
        for k in range(len(b.history)):      # a rollout begun at each decision
            c = prog.new_game(2, seed)
            for i in b.history[:k]:
                prog.apply(c, i)
            prog.playout(c, random.Random(seed + k))
            d = prog.new_game(2, seed)
            for i in b.history[:k]:
                prog.apply(d, i)
            by_apply(prog, d, random.Random(seed + k))
            same(c, d)
    ro = prog._rollout
    assert ro is not None
    phase = ro.sources[f"RB{prog.body_id[('phase', 'main')]}"]
    assert phase.count(f"if len(s.stack) > {MAX_NEST}: _deep(s, _nf)") == 5


def test_the_memory_keeps_its_tables_so_the_forgetting_lines_clear_the_right_ones() -> None:
    """The rollout's lines forgetting a fn's values clear that fn's table through a name bound
    once (`_M<i>`); the memory's `clear` (at a draw, at the start) must empty the tables, not
    replace them."""
    from mercator.interpreter.engine.memory import Memo
    m = Memo(3)
    tables = list(m)
    for i, t in enumerate(tables):
        if not t:                  # as a fn's code stores a value (codegen._fn_source)
            m.touched.append(t)
        t[i] = i
    tables[0].clear()              # (as a forgetting line does: listed, already empty)
    tables[0][5] = 5
    m.clear()
    assert len(m) == 3 and all(a is b and not a for a, b in zip(m, tables))
    assert m.touched == []
    prog = program(Path(__file__).parent.parent / "rulebooks" / "manila.rules")  # (3 fns)
    prog.playout(prog.new_game(3, 0), random.Random(0))
    ro = prog._rollout
    assert ro is not None and ro.memo is not None
    assert all(ro.ns[f"_M{i}"] is t for i, t in enumerate(ro.memo))
