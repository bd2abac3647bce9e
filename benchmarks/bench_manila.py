"""Manila under uniform random play: the rulebook interpreter beside the hand-written baseline.

Usage: python benchmarks/bench_manila.py [--games 200] [--players 4] [--seed 0]
Prints decisions/s and playouts/s of each and the ratio (baseline / rulebook).
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from baseline_manila import random_playout  # noqa: E402

from dsl.loader import load  # noqa: E402
from interpreter.engine.program import Program  # noqa: E402
from interpreter.compiler import compile_program


def run_rulebook(prog: Program, games: int, players: int, seed: int) -> tuple[int, float]:
    """Play `games` random games; return (total decisions, seconds)."""
    total = 0
    t0 = time.perf_counter()
    for i in range(games):
        s = prog.new_game(players, seed + i)
        rng = random.Random(seed + i + 1_000_003)
        apply = prog.apply
        while not s.over:
            apply(s, rng.randrange(s.pending.count))
            total += 1
    return total, time.perf_counter() - t0


def run_baseline(games: int, players: int, seed: int) -> tuple[int, float]:
    """Play `games` random games of the hand-written Manila; return (decisions, seconds)."""
    total = 0
    t0 = time.perf_counter()
    for i in range(games):
        n, _ = random_playout(players, seed + i, seed + i + 1_000_003)
        total += n
    return total, time.perf_counter() - t0


def main() -> None:
    """Run both and print the comparison."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    path = os.path.join(os.path.dirname(HERE), "rulebooks", "manila.rules")
    res = load(path)
    if not res.ok or res.rulebook is None:
        sys.exit(f"{path} does not check; run 'mercator check {path}'")
    t0 = time.perf_counter()
    prog = compile_program(res.rulebook)
    compile_s = time.perf_counter() - t0
    rows = []
    for name, (dec, sec) in (("rulebook", run_rulebook(prog, args.games, args.players, args.seed)),
                             ("baseline", run_baseline(args.games, args.players, args.seed))):
        rows.append((name, dec, sec))
        print(f"{name:9s} games {args.games}  decisions/game {dec / args.games:7.1f}  "
              f"decisions/s {dec / sec:10,.0f}  playouts/s {args.games / sec:8.1f}")
    (_, d1, s1), (_, d2, s2) = rows
    print(f"ratio (baseline/rulebook): decisions/s {(d2 / s2) / (d1 / s1):.2f}x  "
          f"playouts/s {(args.games / s2) / (args.games / s1):.2f}x")
    print(f"compiling manila.rules (after checking): {compile_s * 1000:.0f} ms "
          f"(python {sys.version.split()[0]}, {args.players} players)")


if __name__ == "__main__":
    main()
