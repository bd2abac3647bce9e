"""A decision's cost must not grow with the length of the game (issue 36, "Worlds without
replaying the game"): from one decision of a seat to its next, the trace (Trace.extend) and the
worlds carried (Trace.carry) replay the steps since, never the game from its start.

Counted in replayed steps (calls of Trace._one), not seconds: the count is exact and the
machine's load does not move it. benchmarks/bench_decision_phases.py gives the seconds.
"""
from __future__ import annotations

import random

from shipped import shipped_program

from mercator.interpreter.agents.base import RandomAgent, agent_seed, resolve_chance
from mercator.interpreter.engine.nodes import Chance
from mercator.interpreter.engine.resample import Trace

WORLDS = 8


class CountingTrace(Trace):
    """A trace that notes the step of every step it replays (in a probe, a world drawn or a
    world carried)."""

    def __init__(self, *a, **k):
        self.replayed: list[int] = []
        super().__init__(*a, **k)

    def _one(self, s, t, *a):
        self.replayed.append(t)
        return super()._one(s, t, *a)


def test_a_later_decision_replays_only_the_steps_since() -> None:
    """A whole Manila 3p game of random seats; at each decision of P1 its trace is extended and
    8 worlds carried (fresh ones drawn for those that no longer fit). Extending and carrying
    replay only the steps since the last decision: none before it, at most a few per new step
    per world and probe — the same work early in the game and late."""
    prog = shipped_program("manila")
    seed, seat = 1, 0
    state = prog.new_game(3, seed, narrate=True, explicit_chance=True)
    bots = [RandomAgent(agent_seed(seed, p)) for p in range(3)]
    rng = random.Random(1)
    tr = None
    worlds: list = []
    per_step: list[float] = []
    while not state.over:
        node = state.pending
        if isinstance(node, Chance):
            prog.apply(state, resolve_chance(state))
            continue
        if node.player == seat and node.count > 1:
            if tr is None:
                tr = CountingTrace(prog, state, seat)
            else:
                n0 = len(tr.steps)
                new = len(state.history) - n0
                tr.replayed.clear()
                assert tr.extend(state)
                carried = [c for c in (tr.carry(w, rng) for w in worlds) if c is not None]
                assert len(carried) == len(worlds)       # Manila: every world still fits
                assert min(tr.replayed, default=n0) >= n0, "a step before the last decision " \
                    "was replayed"
                per_step.append(len(tr.replayed) / new)
                worlds = carried
            while len(worlds) < WORLDS:
                worlds.append(tr.sample(rng, 50))
        prog.apply(state, bots[node.player].choose(prog, state))
    assert len(per_step) > 20
    third = len(per_step) // 3
    early, late = per_step[:third], per_step[-third:]
    # each new step: once per carried world and per open probe, whatever the history's length
    assert max(per_step) <= 2 * WORLDS
    assert sum(late) / len(late) <= sum(early) / len(early) * 1.25
