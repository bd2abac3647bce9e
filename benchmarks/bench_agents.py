"""How well the search agents play: an agent's win rate (with its 95% Wilson interval) against
other bots, its time per decision and the rollout decisions per second inside its search.

The agent sits at seat g mod N in game g (every seat equally often), the others are `--vs`;
each game's randomness comes from its seed (as in `mercator simulate`), so a run is
reproducible for iteration budgets. Games run on `--workers` processes.

  .venv/bin/python benchmarks/bench_agents.py rulebooks/manila.rules --players 3 \\
      --agent ismcts:200 --vs random --games 100
"""
from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import sys
import time
from typing import Any, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from mercator.dsl.loader import load  # noqa: E402
from mercator.interpreter.agents.base import agent_seed, play_out  # noqa: E402
from mercator.interpreter.agents.spec import make_agent, parse_spec  # noqa: E402
from mercator.interpreter.compiler import compile_program  # noqa: E402

Z95 = 1.959963984540054
_PROG: dict[str, Any] = {}


def wilson(k: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion k/n."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + Z95 ** 2 / n
    c = (p + Z95 ** 2 / (2 * n)) / d
    h = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


class Timed:
    """Wraps an agent: counts its decisions, the seconds they took, its rollout decisions."""

    def __init__(self, agent: Any):
        self.agent = agent
        self.decisions = 0
        self.seconds = 0.0
        self.rollout = 0

    def choose(self, program: Any, state: Any) -> int:
        t = time.perf_counter()
        i = self.agent.choose(program, state)
        self.seconds += time.perf_counter() - t
        self.decisions += 1
        self.rollout += getattr(self.agent, "last_rollout_decisions", 0)
        return int(i)


def one_game(job: tuple) -> tuple[float, int, float, int, int]:
    path, players, seed, agent_text, vs_text = job
    prog = _PROG.get(path)
    if prog is None:
        prog = _PROG[path] = compile_program(load(path).rulebook)
    me = seed % players
    specs = [parse_spec(agent_text if p == me else vs_text) for p in range(players)]
    agents: list[Any] = [make_agent(sp, agent_seed(seed, p)) for p, sp in enumerate(specs)]
    agents[me] = timed = Timed(agents[me])
    record = any(sp.needs_record for sp in specs)
    state = prog.new_game(players, seed, narrate=record, explicit_chance=record)
    play_out(prog, state, agents, max_decisions=20_000)
    w = state.pending.winners
    share = 1.0 / len(w) if me in w else 0.0
    return share, timed.decisions, timed.seconds, timed.rollout, \
        getattr(timed.agent, "fallbacks", 0)


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rulebook")
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--agent", default="ismcts:200")
    ap.add_argument("--vs", default="random", help="the other seats' player (default: random)")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args(argv)
    jobs = [(a.rulebook, a.players, a.seed + g, a.agent, a.vs) for g in range(a.games)]
    t0 = time.perf_counter()
    res: list = []

    def progress(r: tuple) -> None:
        res.append(r)
        w = sum(x[0] for x in res)
        print(f"  {len(res)}/{a.games} games, agent's wins {w:g}", file=sys.stderr, flush=True)
    if a.workers > 1:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(a.workers) as pool:
            for r in pool.imap_unordered(one_game, jobs, chunksize=1):
                progress(r)
    else:
        for j in jobs:
            progress(one_game(j))
    wall = time.perf_counter() - t0
    wins = sum(r[0] for r in res)
    dec = sum(r[1] for r in res)
    secs = sum(r[2] for r in res)
    roll = sum(r[3] for r in res)
    falls = sum(r[4] for r in res)
    lo, hi = wilson(wins, a.games)
    name = os.path.basename(a.rulebook)
    print(f"{name} {a.players}p  {a.agent} vs {a.vs}  games {a.games}  "
          f"win rate {100 * wins / a.games:.1f}% [95% CI {100 * lo:.1f}, {100 * hi:.1f}]  "
          f"(fair share {100 / a.players:.1f}%)  "
          f"{secs / max(1, dec):.3f} s/decision  {roll / secs if secs else 0:,.0f} rollout "
          f"decisions/s  {falls} random fallbacks (no world found)  wall {wall:.0f} s")


if __name__ == "__main__":
    main()
