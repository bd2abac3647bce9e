"""A rule error is located at the rule that failed, even where the engine evaluates it outside a
statement: a score (evaluated when the game ends, after the flow is done) and an any-time
action's `when` (evaluated at every decision of its player)."""
from __future__ import annotations

import random

import pytest

from game_driver import program_text

from mercator.interpreter.engine.program import MercatorRuntimeError

BAD_SCORE = """game "Bad score" players 2..2
player { gold: int = 0 }
round r limit 1 { phase a { first(players).gold += 1 } }
score p: p.gold
tiebreak p: 10 / (p.gold - p.gold)
"""

BAD_WHEN = """game "Bad when" players 2..2
player { gold: int = 0 }
anytime boom(p: player) when 10 / (p.gold - 2) > 0 { p.gold += 5 }
round r limit 4 { phase a { for p in players { let x = choose p one of [1, 2]  p.gold += 1 } } }
score p: p.gold
"""


def test_a_failing_tie_break_is_located_at_its_declaration() -> None:
    prog = program_text(BAD_SCORE)
    with pytest.raises(MercatorRuntimeError) as err:
        prog.new_game(2, 0)
    assert (err.value.span.line, err.value.span.col) == (5, 1)
    assert "tie-break of P1" in err.value.message and "division by zero" in err.value.message


@pytest.mark.parametrize("how", ["apply", "playout"])
def test_a_failing_action_condition_is_located_at_its_when(how: str) -> None:
    """P1's gold is 2 at his third decision: the condition divides by zero there."""
    prog = program_text(BAD_WHEN)
    s = prog.new_game(2, 0)
    with pytest.raises(MercatorRuntimeError) as err:
        if how == "playout":
            prog.playout(s, random.Random(0))
        else:
            while not s.over:
                prog.apply(s, 0)
    assert len(err.value.history) == 4      # P1, P2, P1, P2 chose; P1's third decision fails
    assert (err.value.span.line, err.value.span.col) == (3, 30)
    assert "any-time action 'boom'" in err.value.message
