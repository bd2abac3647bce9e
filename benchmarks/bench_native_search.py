"""What the native path (issue 37's moonshot, compiler/native.py) buys a searcher: iterations per
CPU second of the same searcher, on the same positions, with the rulebook's generated code
pure Python and compiled by Cython, side by side in one run.

Each game is played twice in lockstep, once by each Program (the pure one and the native one,
compile_program(rb, native=False / True)), every seat by a random bot (the same seeds, so the
same games: their histories are checked equal at every step). At each decision of the watched
seat (seat g mod N in game g) with more than one option, that seat's searcher of each path is
asked (`--agent`, default `ismcts:300:cores=1`: an iteration budget on one core, deterministic
given its seed), the two in turn, the order alternating from one decision to the next so that
the machine's load weighs on both alike; each answer is timed in CPU seconds of this process,
and the two answers must be the same option (the benchmark stops otherwise). As in
bench_decision.py, each searcher sees the game as in play, one decision after another of the
same seat.

  PYTHONPATH=. .venv/bin/python benchmarks/bench_native_search.py rulebooks/manila.rules \
      --players 3 --games 2 --max-decisions 10

Prints, per path: decisions, CPU seconds, iterations, iterations per CPU second; then the
ratio native / pure (of iterations per CPU second) and whether every answer was the same. The
native module is built on first use into the per-user cache (minutes for a big rulebook at the
default -O2; MERCATOR_NATIVE_CFLAGS sets the C flags) and loaded from it afterwards.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.append(ROOT)

from mercator.dsl.loader import load  # noqa: E402
from mercator.interpreter.agents.base import RandomAgent, agent_seed, resolve_chance  # noqa: E402
from mercator.interpreter.agents.spec import make_agent, parse_spec  # noqa: E402
from mercator.interpreter.compiler import compile_program  # noqa: E402
from mercator.interpreter.engine.nodes import Chance  # noqa: E402

PATHS = ("pure", "native")


class Tally:
    def __init__(self) -> None:
        self.decisions = 0
        self.seconds = 0.0
        self.iterations = 0

    def rate(self) -> float:
        return self.iterations / self.seconds if self.seconds > 0 else 0.0


def one_game(progs: dict, players: int, seed: int, agent_text: str, tally: dict,
             cap: Optional[int] = None) -> int:
    """Play the game of `seed` on both programs in lockstep; returns the answers compared."""
    me = seed % players
    spec = parse_spec(agent_text)
    searchers = {p: make_agent(spec, agent_seed(seed, me)) for p in PATHS}
    bots = {p: [RandomAgent(agent_seed(seed, q)) for q in range(players)] for p in PATHS}
    states = {p: progs[p].new_game(players, seed, narrate=True, explicit_chance=True)
              for p in PATHS}
    asked = 0
    while not states["pure"].over and (cap is None or asked < cap):
        nodes = {p: states[p].pending for p in PATHS}
        if isinstance(nodes["pure"], Chance):
            picks = {p: resolve_chance(states[p]) for p in PATHS}
        else:
            node = nodes["pure"]
            if node.player == me and node.count > 1:
                order = PATHS if tally["pure"].decisions % 2 == 0 else PATHS[::-1]
                answers = {}
                for p in order:
                    t = time.process_time()
                    answers[p] = searchers[p].choose(progs[p], states[p])
                    tally[p].seconds += time.process_time() - t
                    tally[p].decisions += 1
                    tally[p].iterations += int(getattr(searchers[p], "last_iterations", 0))
                if answers["pure"] != answers["native"]:
                    sys.exit(f"game {seed}, decision {asked + 1}: the pure path chose "
                             f"{answers['pure']}, the native path {answers['native']}: "
                             f"not the same search")
                asked += 1
            picks = {p: bots[p][nodes[p].player].choose(progs[p], states[p]) for p in PATHS}
        if picks["pure"] != picks["native"]:
            sys.exit(f"game {seed}: the two paths' games differ")
        for p in PATHS:
            progs[p].apply(states[p], picks[p])
        if list(states["pure"].history) != list(states["native"].history):
            sys.exit(f"game {seed}: the two paths' histories differ")
    return asked


def main(argv: Optional[list[str]] = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rulebook", help="a rulebook file")
    ap.add_argument("--players", type=int, required=True, help="players in each game")
    ap.add_argument("--agent", default="ismcts:300:cores=1",
                    help="the searcher asked on both paths (an iteration budget, one core)")
    ap.add_argument("--games", type=int, default=1, help="games played (random moves)")
    ap.add_argument("--seed", type=int, default=0, help="the first game's seed")
    ap.add_argument("--max-decisions", type=int, default=None,
                    help="stop each game after its searcher has been asked this often")
    a = ap.parse_args(argv)
    rb = load(a.rulebook).rulebook
    t0 = time.perf_counter()
    progs: dict[str, Any] = {"pure": compile_program(rb, native=False)}
    progs["native"] = compile_program(rb, native=True)
    built = time.perf_counter() - t0
    if getattr(progs["native"], "native", None) is None:
        sys.exit("the native path is not available (see the warning above)")
    tally = {p: Tally() for p in PATHS}
    compared = 0
    for g in range(a.games):
        compared += one_game(progs, a.players, a.seed + g, a.agent, tally, a.max_decisions)
    name = os.path.basename(a.rulebook)
    print(f"{name} {a.players}p  {a.agent}  games {a.games} (seeds {a.seed}..{a.seed + a.games - 1})"
          f"  both programs built in {built:.1f} s wall")
    for p in PATHS:
        t = tally[p]
        print(f"  {p:<7} decisions {t.decisions:4d}  CPU {t.seconds:8.2f} s  iterations "
              f"{t.iterations:7d}  {t.rate():8.1f} iterations/CPU s  "
              f"{t.seconds / max(1, t.decisions):.3f} s/decision")
    pure, nat = tally["pure"].rate(), tally["native"].rate()
    ratio = nat / pure if pure > 0 else 0.0
    print(f"  native / pure (iterations per CPU second): {ratio:.2f}x; the same option chosen "
          f"at all {compared} decisions")
    return {"ratio": ratio, "compared": compared,
            "tally": {p: vars(tally[p]) for p in PATHS}}


if __name__ == "__main__":
    main()
