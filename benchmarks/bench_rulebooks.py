"""Every rulebook under uniform random play: decisions/s and playouts/s.

Usage: python benchmarks/bench_rulebooks.py [--games 100] [--seed 0] [RULEBOOK ...]
Without arguments, measures every rulebooks/*.rules at its smallest and largest player count.
"""
from __future__ import annotations

import argparse
import glob
import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from dsl.loader import load  # noqa: E402
from interpreter.engine.program import Program  # noqa: E402
from interpreter.compiler import compile_program


def measure(prog: Program, players: int, games: int, seed: int) -> tuple[float, float, float]:
    """(decisions per game, decisions/s, playouts/s) over `games` random games."""
    total = 0
    t0 = time.perf_counter()
    for i in range(games):
        s = prog.new_game(players, seed + i)
        rng = random.Random(seed + i + 1_000_003)
        while not s.over:
            prog.apply(s, rng.randrange(s.pending.count))
            total += 1
    dt = time.perf_counter() - t0
    return total / games, total / dt, games / dt


def main() -> None:
    """Measure the given rulebooks (default: all) and print one line per player count."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("rulebooks", nargs="*")
    args = ap.parse_args()
    paths = args.rulebooks or sorted(glob.glob(os.path.join(ROOT, "rulebooks", "*.rules")))
    print(f"{'rulebook':24s} {'players':>7s} {'dec/game':>9s} {'decisions/s':>12s} {'playouts/s':>11s}")
    for path in paths:
        res = load(path)
        if not res.ok or res.rulebook is None:
            print(f"{os.path.basename(path):24s} does not check")
            continue
        prog = compile_program(res.rulebook)
        for n in sorted({prog.min_players, prog.max_players}):
            per, dps, pps = measure(prog, n, args.games, args.seed)
            print(f"{os.path.basename(path):24s} {n:7d} {per:9.1f} {dps:12,.0f} {pps:11.1f}")


if __name__ == "__main__":
    main()
