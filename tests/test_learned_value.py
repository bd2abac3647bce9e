"""benchmarks/learned_value.py: a linear value over a seat's observation and the estimate's lead,
fitted to the final margins of anchors' games (issue 36's first try at a learned evaluation)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from game_driver import program
from mercator.interpreter.engine.observation import Observer

ROOT = Path(__file__).resolve().parent.parent


def learned_value():
    from bench_module import script
    return script("learned_value")


def test_the_ridge_fit_finds_a_linear_rule_and_predicts_by_it() -> None:
    """y = 3·a - 2·b + 5 over 2,000 rows: the fit (ridge 10, standardised columns) predicts new
    rows within 0.12 of their value (4 and -8); a column that is always the same is no trouble."""
    L = learned_value()
    rng = np.random.default_rng(1)
    x = np.hstack([rng.normal(0, 4, (2000, 2)), np.ones((2000, 1))])
    y = 3 * x[:, 0] - 2 * x[:, 1] + 5
    model = L.ridge(x, y)
    new = np.array([[1.0, 2.0, 1.0], [-4.0, 0.5, 1.0]])
    assert np.allclose(L.predict(model, new), [4.0, -8.0], atol=0.01 * 12)
    assert L.lead([10, 4, 7], 0) == 3 and L.lead([10, 4, 7], 1) == -6


def test_positions_are_a_row_per_seat_at_each_step_with_its_final_margin() -> None:
    """Two Manila games of three anchors: every row is the seat's observation cells and its
    estimate's lead; the three rows of one position have margins that say who won (one seat
    ahead of the others, or a tie at 0)."""
    L = learned_value()
    prog = program(ROOT / "rulebooks" / "manila.rules")
    x, y, g = L.positions(prog, 2)
    assert x.shape[1] == Observer(prog, 3).total + 1
    assert len(x) == len(y) == len(g) and len(x) % 3 == 0 and set(g) == {0, 1}
    for k in range(0, len(y), 3):
        ms = sorted(y[k:k + 3])
        assert ms[2] >= 0 and ms[1] <= 0 and ms[0] < 0 and (ms[2] == -ms[1] or ms[2] == 0)
