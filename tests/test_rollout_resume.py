"""A rollout begun in the middle of a game (compiler/rollout.py): the frames open when it
begins run on compiled, from the first statement or loop head each comes to, by a function
written for that pc (`RB<body>_at<pc>`), and the main frame by `RB0`. The game must be the
VM's own, choice for choice, wherever the rollout begins: inside an `if` inside a `for` inside
a `while`, after a `break`, before a `return`, in a `repeat`, over a list of lists.
"""
from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game_driver import program_text
from test_playout import by_apply, same

from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.state import State

NESTED = """
game "Nested" players 2..3

player {
  gold: int = 0
  kept: list<list<int>>
}

table {
  piles: list<list<int>>
  turns: int = 0
}

proc pick_pile(p: player) -> int {
  let n = 0
  for pile in piles where len(pile) > 0 {
    n += 1
    if pile[0] > 2 {
      let take = choose p one of [true, false] prompt "take this pile?"
      if take {
        add pile to p.kept
        return n
      }
    } else {
      p.gold += 1
    }
  }
  return 0
}

round r limit 4 {
  phase deal {
    piles = [[1, 2], [3, 4], [5], [2, 6], [4]]
  }
  phase play {
    let going = true
    let rounds = 0
    while going limit 6 {
      rounds += 1
      turns += 1
      for p in players {
        let got = pick_pile(p)
        if got == 0 {
          let more = choose p one of [1, 2, 3] with pass prompt "more?"
          if more == none {
            going = false
            break
          }
          p.gold += some(more)
        } else {
          repeat got {
            let b = choose p one of [0, 1] prompt "bonus"
            p.gold += b
            if b == 1 {
              break
            }
          }
        }
      }
      if rounds > 3 {
        break
      }
    }
    for pile in piles {
      turns += len(pile)
    }
  }
}

score p: p.gold + len(p.kept) + turns
"""

PROPS = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def nested() -> Program:
    return program_text(NESTED)


def resumed_names(prog: Program) -> set[str]:
    ro = prog._rollout
    assert ro is not None
    return {name for name in ro.sources if "_at" in name}


@PROPS
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 3),
       cuts=st.lists(st.integers(1, 7), min_size=1, max_size=8))
def test_a_rollout_begun_anywhere_plays_the_vms_game(nested: Program, seed: int, players: int,
                                                     cuts: list[int]) -> None:
    """Stopped after some decisions and begun again from that state (its frames inside the
    loops and arms above), again and again, the rollout makes the choices and reaches the
    states the VM's apply does."""
    a, b = nested.new_game(players, seed), nested.new_game(players, seed)
    ra, rb = random.Random(seed), random.Random(seed)
    for k in cuts:            # (no JSON round trip: the rollout goes on from the frames)
        assert nested.playout(a, ra, max_decisions=k) == by_apply(nested, b, rb, k)
        same(a, b)
        if a.over:
            break
    nested.playout(a, ra)
    by_apply(nested, b, rb)
    same(a, b)


def test_the_frames_open_at_the_start_run_on_compiled(nested: Program) -> None:
    """Begun one decision into the game (a frame of pick_pile inside its `for` and `if`, the
    phase's inside its `while` and `for`), the rollout writes resuming functions for the pcs
    those frames come to, and plays on without the VM loop running any other op."""
    s = nested.new_game(2, 3)
    nested.playout(s, random.Random(4), max_decisions=1)
    ro = nested._rollout
    assert ro is not None and not s.over
    ran: list[str] = []
    run_ops = ro.run_ops

    def counting(state: State, codes: list, fr: object, end: int, depth: int) -> None:
        ran.append("loop")
        run_ops(state, codes, fr, end, depth)
    ro.run_ops = counting                  # type: ignore[method-assign]
    try:
        nested.playout(s, random.Random(5))
    finally:
        del ro.run_ops
    assert s.over
    names = resumed_names(nested)
    # the proc's frame resumed after its choose (the `if take` statement), the phase's frame
    # at the statement after the call, inside the for inside the while
    assert any(n.startswith(f"RB{ro.prog.body_id[('proc', 'pick_pile')]}_at") for n in names)
    assert any(n.startswith(f"RB{ro.prog.body_id[('phase', 'play')]}_at") for n in names)
    assert ran == ["loop"]                 # one VM loop (vm), no statement left to it


def test_a_resumed_for_walks_the_rest_of_its_list(nested: Program) -> None:
    """The source resuming the phase's frame at its inner `for` head walks the items not yet
    walked (the list kept in the frame), inside one pass of the `while` round, then the
    `while` from its head."""
    s = nested.new_game(3, 11)
    for k in range(1, 30):
        nested.playout(s, random.Random(k), max_decisions=1)
        if s.over:
            break
    ro = nested._rollout
    assert ro is not None
    play = ro.prog.body_id[("phase", "play")]
    srcs = [src for name, src in ro.sources.items() if name.startswith(f"RB{play}_at")]
    assert srcs
    assert any("for _ in _ONCE:" in src and re.search(r"while L\[(\d+)\] < len\(L\[\d+\]\):", src)
               for src in srcs)


FAILS_LATER = """
game "Fails later" players 2..2
player { gold: int = 0 }
table { seen: list<int> }
round r limit 3 {
  phase main {
    for p in players {
      let x = choose p one of [1, 2, 3] prompt "x"
      add x to seen
      if len(seen) > 3 {
        p.gold += seen[len(seen)]
      }
    }
  }
}
score p: p.gold
"""


@pytest.mark.parametrize("cut", [1, 2, 3])
def test_a_rule_error_in_a_resumed_frame_is_located_as_the_vm_locates_it(cut: int) -> None:
    """Begun after `cut` decisions (its frames inside the phase's `for`), the rollout fails at
    the list index as the VM does: same line, message and decision log."""
    from mercator.interpreter.engine.program import MercatorRuntimeError
    prog = program_text(FAILS_LATER)
    s = prog.new_game(2, 0)
    prog.playout(s, random.Random(0), max_decisions=cut)
    with pytest.raises(MercatorRuntimeError) as err:
        prog.playout(s, random.Random(1))
    assert err.value.span.line == 11 and "out of range" in err.value.message
    t = prog.new_game(2, 0)
    rng = random.Random(0)
    by_apply(prog, t, rng, cut)
    with pytest.raises(MercatorRuntimeError) as err2:
        by_apply(prog, t, random.Random(1))
    assert (err2.value.span, err2.value.message, err2.value.history) == \
        (err.value.span, err.value.message, err.value.history)


TIPS = """
game "Tips" players 2..2
player { gold: int = 6  tips: int = 0 }
anytime tip(p: player) when p.gold >= 2 {
  p.gold -= 2
  let k = choose p one of [1, 2] prompt "how much"
  p.tips += k
}
round r limit 4 {
  phase a {
    for p in players {
      let x = choose p one of [0, 1, 2] prompt "gain"
      p.gold += x
    }
  }
}
score p: p.gold + p.tips
"""


@pytest.mark.parametrize("seed", range(6))
def test_a_rollout_begun_inside_an_anytime_action_offers_them_again_once_it_ends(
        seed: int) -> None:
    """docs/language.md: an any-time action is offered at a player's decisions, but not at
    those made inside an any-time action (no nesting). A rollout begun at a decision inside
    one (here 'how much' of `tip`) offers none until that action is over, then offers them
    again as apply does: the same draws, the same game. (Found by the differential harness,
    tests/test_differential.py: the rollout offered none for the rest of the game.)"""
    prog = program_text(TIPS)
    a = prog.new_game(2, seed)
    a_rng = random.Random(seed)
    while "tip" not in [o.label for o in a.pending.options]:
        prog.apply(a, a_rng.randrange(a.pending.count))
    prog.apply(a, "tip")
    assert a.pending.prompt == "how much"
    b = a.clone()
    prog.playout(a, random.Random(seed))
    by_apply(prog, b, random.Random(seed))
    same(a, b)
