"""Seconds per decision of a searching bot at the start, middle and end of a game: does a
decision cost more as the history grows? (issue 36: "Worlds without replaying the game".)

Plays whole games of a rulebook at P players through the engine, every seat played by
`--agent` (one spec for all seats, or one per seat, comma-separated, as `--seats` takes them:
`ismcts:200,random,random` searches at seat 1 only), and times every decision a searching seat
makes (CPU seconds of this process, `time.process_time`, which other work on the machine sways
far less than the clock). Each searcher's time is split into preparing the decision's worlds
(`agent.prepare`: extending the trace of the game and carrying the last decision's worlds
through the steps since), drawing fresh worlds during the iterations (`agent.world` where it
has to replay the game: a world that could not be carried) and the rest, the iterations
themselves. The timed decisions of all games are cut into thirds by their position in their
game (the step they were made at over the game's length; in a game cut short by
`--max-decisions`, their order among its timed decisions): start, middle and end, each with the
mean and 95th percentile of a decision, and the parts. `end/start` is the ratio of the mean
seconds per decision of the last third to the first: flat is about 1.

  .venv/bin/python benchmarks/bench_decision_phases.py rulebooks/manila.rules --players 5
  .venv/bin/python benchmarks/bench_decision_phases.py rulebooks/genoa.rules --players 5 \\
      --max-decisions 300

`--max-decisions N` stops a game once N decisions have been timed (the thirds are then of the
part played, and the first line says how many games went to their end). `MERCATOR_CODE` names another checkout of the project to
time instead of this one (as benchmarks/bench_decision.py).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from typing import Any, Optional

CODE = os.environ.get("MERCATOR_CODE") or \
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, CODE)
PKG = "mercator." if os.path.isdir(os.path.join(CODE, "mercator")) else ""


def _imported(module: str, *names: str) -> list:
    m = importlib.import_module(PKG + module)
    return [getattr(m, n) for n in names]


[load] = _imported("dsl.loader", "load")
agent_seed, resolve_chance = _imported("interpreter.agents.base", "agent_seed", "resolve_chance")
make_agent, parse_seats = _imported("interpreter.agents.spec", "make_agent", "parse_seats")
try:            # a rulebook's own search settings, `bots { ... }` (an older checkout has none)
    [for_rulebook] = _imported("interpreter.agents.spec", "for_rulebook")
except AttributeError:
    def for_rulebook(spec: Any, bots: Any) -> Any:
        return spec
[compile_program] = _imported("interpreter.compiler", "compile_program")
[Chance] = _imported("interpreter.engine.nodes", "Chance")

PHASES = ("start", "middle", "end")


class _Timed:
    """Wraps one searcher's `prepare` and `world` (instance attributes, the class untouched)
    to add up the CPU seconds they take in the current decision."""

    def __init__(self, agent: Any):
        self.agent = agent
        self.prepare = 0.0
        self.fresh = 0.0
        prepare, world = agent.prepare, agent.world

        def timed_prepare(*a: Any) -> Any:
            t = time.process_time()
            try:
                return prepare(*a)
            finally:
                self.prepare += time.process_time() - t

        def timed_world(*a: Any) -> Any:
            drawn = getattr(agent, "_drawn", None)
            before = len(drawn) if drawn is not None else 0
            t = time.process_time()
            w = world(*a)
            dt = time.process_time() - t
            drawn = getattr(agent, "_drawn", None)
            if drawn is not None and len(drawn) > before:
                self.fresh += dt          # a world drawn afresh (a replay of the game)
            return w

        agent.prepare = timed_prepare
        agent.world = timed_world


def one_game(prog: Any, players: int, seed: int, seats: str,
             cap: Optional[int]) -> tuple[list[tuple[int, float, float, float]], int, bool]:
    """The timed decisions of the game of `seed` — (step, seconds, prepare, fresh worlds) —,
    the game's length in steps, and whether it was played to its end."""
    specs = parse_seats(seats, players)
    bots = getattr(prog, "bot_settings", {})
    agents = [make_agent(for_rulebook(sp, bots), agent_seed(seed, p)) for p, sp in enumerate(specs)]
    timers = [_Timed(a) if sp.kind in ("mcts", "ismcts") else None
              for a, sp in zip(agents, specs)]
    state = prog.new_game(players, seed, narrate=True, explicit_chance=True)
    out: list[tuple[int, float, float, float]] = []
    while not state.over and (cap is None or len(out) < cap):
        node = state.pending
        if isinstance(node, Chance):
            i = resolve_chance(state)
        else:
            tm = timers[node.player]
            if tm is not None and node.count > 1:
                tm.prepare = tm.fresh = 0.0
                t = time.process_time()
                i = agents[node.player].choose(prog, state)
                dt = time.process_time() - t
                out.append((len(state.history), dt, tm.prepare, tm.fresh))
            else:
                i = agents[node.player].choose(prog, state)
        prog.apply(state, i)
    return out, len(state.history), state.over


def _p95(xs: list[float]) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(round(0.95 * (len(ys) - 1))))] if ys else 0.0


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rulebook")
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--agent", default="ismcts:200",
                    help="the seats' players: one spec for all, or one per seat "
                         "(comma-separated); default ismcts:200")
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0, help="the first game's seed")
    ap.add_argument("--max-decisions", type=int, default=None,
                    help="stop each game once this many decisions have been timed")
    a = ap.parse_args(argv)
    prog = compile_program(load(a.rulebook).rulebook)
    buckets: list[list[tuple[float, float, float]]] = [[], [], []]
    lengths, finished, total = [], 0, 0
    for g in range(a.games):
        timed, length, over = one_game(prog, a.players, a.seed + g, a.agent, a.max_decisions)
        lengths.append(length)
        finished += over
        total += len(timed)
        for j, (step, secs, prep, fresh) in enumerate(timed):
            # by the step it was made at in a finished game; by its order among the timed
            # decisions in a game cut short (the steps of a game's setup would fill no third)
            k = 3 * step // max(1, length) if over else 3 * j // max(1, len(timed))
            buckets[min(2, k)].append((secs, prep, fresh))
    code = os.environ.get("MERCATOR_CODE") or "this checkout"
    print(f"{os.path.basename(a.rulebook)} {a.players}p  {a.agent}  seed {a.seed}  "
          f"games {a.games} ({finished} to the end)  steps/game "
          f"{sum(lengths) / max(1, len(lengths)):.0f}  decisions timed {total}  "
          f"({os.path.basename(code.rstrip('/'))})")
    print(f"{'third':>7} {'decisions':>9} {'mean s':>8} {'p95 s':>8} {'prepare':>8} "
          f"{'fresh':>8} {'iterate':>8}")
    means = []
    for name, b in zip(PHASES, buckets):
        n = len(b)
        mean = sum(x[0] for x in b) / n if n else 0.0
        prep = sum(x[1] for x in b) / n if n else 0.0
        fresh = sum(x[2] for x in b) / n if n else 0.0
        means.append(mean)
        print(f"{name:>7} {n:>9} {mean:>8.3f} {_p95([x[0] for x in b]):>8.3f} {prep:>8.3f} "
              f"{fresh:>8.3f} {mean - prep - fresh:>8.3f}")
    ratio = means[2] / means[0] if means[0] else float("nan")
    print(f"end/start {ratio:.2f}   (prepare: extend the trace, carry the worlds; fresh: worlds "
          f"drawn by a replay during the iterations; iterate: the rest; s per decision)")


if __name__ == "__main__":
    main()
