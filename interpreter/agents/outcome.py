"""What the search (agents/search.py) and a learned value (agents/learned.py) share: where the
game stands at its top level, the steps at whose first decision a rollout is cut off and a
position is recorded (`top_step`), and each seat's margin at an outcome, what a margin reward
ranks and what a learned value predicts (`score_margins`). Here, below both, so that neither
imports the other to reach them."""
from __future__ import annotations

import marshal

from mercator.interpreter.engine.nodes import Terminal
from mercator.interpreter.engine.state import State


def score_margins(result: Terminal, n: int, sign: int, against: str = "best") -> list[float]:
    """Each seat's score less the best other seat's (sign -1: the lowest score wins, and the
    margin is taken the other way round); against="mean", less the mean of the others';
    against="none", its own score alone. A seat the rulebook's `eligible` bars from winning
    (`result.barred`) is no rival: the others' margins leave it out (one with no rival left
    wins by the table's spread and one more), and its own margin is below any other's (the
    lowest score less the highest, less one; with against="none", the lowest score less the
    spread)."""
    v = [sign * x for x in result.scores]
    barred = set(result.barred)
    spread = max(v) - min(v) + 1 if v else 1
    out = []
    for p in range(n):
        if p in barred:
            out.append(float(min(v) - spread if against == "none" else -spread))
            continue
        if against == "none":
            out.append(float(v[p]))
            continue
        rivals = [v[q] for q in range(n) if q != p and q not in barred]
        if not rivals:
            out.append(float(spread if barred else v[p]))
        elif against == "mean":
            out.append(v[p] - sum(rivals) / len(rivals))
        else:
            out.append(float(v[p] - max(rivals)))
    return out


def top_step(s: State) -> bytes:
    """Where the game stands at its top level: the round, and the position of the main frame and
    of the phase's (or setup's) frame, with their locals. It changes when a phase begins and
    with each pass of a loop written in a phase's body (a player's turn, a placement round), not
    within a procedure the phase calls (an auction, a trade, a turn's steps): a rollout cut where
    it changes is judged between steps of the game, not in the middle of one."""
    return marshal.dumps((s.round, [f[:3] for f in s.stack[:2]]))
