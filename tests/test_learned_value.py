"""benchmarks/learned_value.py: a value over a seat's observation and the estimates (a line, or a
small network over what the estimate's lead misses), fitted to the final margins of anchors'
games (issue 36's learned evaluation)."""
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
    """Two Manila games of three anchors: every row is the seat's observation cells turned to
    it, the three estimates and its estimate's lead; the three rows of one position have
    margins that say who won (one seat ahead of the others, or a tie at 0)."""
    L = learned_value()
    prog = program(ROOT / "rulebooks" / "manila.rules")
    x, y, g = L.positions(prog, 2)
    ob = Observer(prog, 3)
    assert x.shape[1] == ob.total - 3 + 3 + 1      # the viewer's cells left out
    assert len(x) == len(y) == len(g) and len(x) % 3 == 0 and set(g) == {0, 1}
    for k in range(0, len(y), 3):
        ms = sorted(y[k:k + 3])
        assert ms[2] >= 0 and ms[1] <= 0 and ms[0] < 0 and (ms[2] == -ms[1] or ms[2] == 0)
        # each seat's own estimate first, the lead its own less the best other
        for p in range(3):
            own, nxt, last = x[k + p, -4:-1]
            assert abs(x[k + p, -1] - (own - max(nxt, last))) < 1e-3
        assert abs(x[k, -4] - x[k + 1, -2]) < 1e-3   # seat 0's estimate is seat 1's last


def test_cells_are_turned_to_the_seat() -> None:
    """Seat p's row begins with the table, then seat p's own cells, then the next seat's: the
    pesos of P2 are where P1's own are, in seat 1's row (and P3's in seat 2's)."""
    L = learned_value()
    prog = program(ROOT / "rulebooks" / "manila.rules")
    ob = Observer(prog, 3)
    order = L.turned(ob, 3)
    seg = {g.name: g for g in ob.segments}
    first_player = min(g.offset for g in ob.segments if g.name.startswith("P1."))
    at = list(order[0]).index(seg["P1.pesos"].offset)
    assert order[1][at] == seg["P2.pesos"].offset and order[2][at] == seg["P3.pesos"].offset
    assert at == len([c for c in order[0] if c < first_player])   # the table's cells before
    assert sorted(order[0]) == sorted(order[1])
    assert len(order[0]) == ob.total - 3


def test_the_network_learns_what_the_line_misses() -> None:
    """y = |a| + 0.5·lead over 4,000 rows: the line through the lead leaves |a| unexplained
    (its error about var|a|), the network fitted on top brings the held-out error well under
    a third of that."""
    L = learned_value()
    rng = np.random.default_rng(2)
    x = rng.normal(0, 1, (5000, 3)).astype(np.float32)
    y = np.abs(x[:, 0]) + 0.5 * x[:, -1]
    net = L.mlp_fit(x[:4000], y[:4000], x[4000:4500], y[4000:4500], hidden=(16,), epochs=40,
                    l2=1e-4)
    test = slice(4500, 5000)
    slope, cut = np.polyfit(x[:4000, -1], y[:4000], 1)
    line_err = float((((slope * x[test, -1] + cut) - y[test]) ** 2).mean())
    net_err = float(((L.mlp_predict(net, x[test]) - y[test]) ** 2).mean())
    assert line_err > 0.25 and net_err < line_err / 3
