"""The engine's own cost per decision: benchmarks/rulebooks/floor.rules (each decision picks 1,
2 or 3 and adds it) played by the compiled rollout (`prog.playout`) and by the apply loop,
beside the same game written as plain Python (a loop over rounds and players drawing from the
same random numbers), in one run. The ratio plain / rulebook is the per-decision overhead that
no rulebook can avoid; a real rulebook's decisions cost more by the work of its rules.

  .venv/bin/python benchmarks/bench_floor.py --games 20 --players 4
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from mercator.dsl.loader import load  # noqa: E402
from mercator.interpreter.compiler import compile_program  # noqa: E402

RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rulebooks", "floor.rules")
ROUNDS = 500


def plain(players: int, rng: random.Random) -> int:
    """The same game by hand: the number of decisions made."""
    pts = [0] * players
    made = 0
    for _ in range(ROUNDS):
        for p in range(players):
            pts[p] += (1, 2, 3)[rng.randrange(3)]
            made += 1
    return made


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--players", type=int, default=4)
    a = ap.parse_args(argv)
    prog = compile_program(load(RULES).rulebook)
    rates = {}
    for name in ("playout", "apply", "plain"):
        made, t0 = 0, time.perf_counter()
        for g in range(a.games):
            rng = random.Random(g)
            if name == "plain":
                made += plain(a.players, rng)
                continue
            s = prog.new_game(a.players, g)
            if name == "playout":
                made += prog.playout(s, rng)
            else:
                while not s.over:
                    prog.apply(s, rng.randrange(s.pending.count))
                    made += 1
        rates[name] = made / (time.perf_counter() - t0)
    for name, r in rates.items():
        print(f"{name:8s} {r:12,.0f} decisions/s  {1e6 / r:7.2f} µs/decision")
    print(f"plain / playout {rates['plain'] / rates['playout']:.1f}x   "
          f"plain / apply {rates['plain'] / rates['apply']:.1f}x")


if __name__ == "__main__":
    main()
