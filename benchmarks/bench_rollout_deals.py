"""What a search's rollout policy makes of a rulebook with a deal window: the share of a random
game's decisions that are steps of a window, and random playouts from the start with the
rollouts' policies (any-time actions never taken; with and without negotiation).

For each player count (default: the rulebook's smallest and largest) it plays --games games
new_game(players, seed + i) three ways, each with rng = Random(seed + i + 1000003):
- `apply`: the normal loop (a uniformly random option at every decision), counting the
  decisions that are steps of a deal window (Decision.vtype ("deal", spec));
- `deals`: prog.playout(s, rng, anytime=False): the rollouts of `deals=random`;
- `no deals`: prog.playout(s, rng, anytime=False, deals=False): the search's default
  rollouts (at a window its seats pass, or cancel a draft).
It prints decisions per game, the window's share (apply only) and games per second.

    .venv/bin/python benchmarks/bench_rollout_deals.py rulebooks/genoa.rules --games 20
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from mercator.dsl.loader import load  # noqa: E402
from mercator.interpreter.compiler import compile_program  # noqa: E402
from mercator.interpreter.engine.nodes import Chance  # noqa: E402


def by_apply(prog: Any, players: int, games: int, seed: int) -> tuple[int, int, float]:
    """(decisions, of them steps of a deal window, seconds) over the games by apply."""
    total = in_window = 0
    t0 = time.perf_counter()
    for i in range(games):
        s = prog.new_game(players, seed + i)
        rng = random.Random(seed + i + 1_000_003)
        while not s.over:
            node = s.pending
            if not isinstance(node, Chance) and isinstance(node.vtype, tuple):
                in_window += 1
            prog.apply(s, rng.randrange(node.count))
            total += 1
    return total, in_window, time.perf_counter() - t0


def by_playout(prog: Any, players: int, games: int, seed: int, deals: bool) -> tuple[int, float]:
    """(decisions, seconds) over the games by playout with the rollouts' policy."""
    total = 0
    t0 = time.perf_counter()
    for i in range(games):
        s = prog.new_game(players, seed + i)
        total += prog.playout(s, random.Random(seed + i + 1_000_003), anytime=False, deals=deals)
    return total, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rulebook")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--players", type=int, nargs="*")
    a = ap.parse_args()
    res = load(a.rulebook)
    if res.rulebook is None:
        sys.exit(f"{a.rulebook}: does not load; run `mercator check {a.rulebook}`")
    prog = compile_program(res.rulebook)
    counts = a.players or sorted({prog.min_players, prog.max_players})
    print(f"{os.path.basename(a.rulebook)}, {a.games} games each, seed {a.seed}")
    print(f"{'players':>7} {'way':>9} {'dec/game':>9} {'window':>7} {'games/s':>8}")
    for n in counts:
        by_playout(prog, n, 1, a.seed + 10 ** 6, False)    # (the compiled rollout is built)
        d, w, t = by_apply(prog, n, a.games, a.seed)
        print(f"{n:>7} {'apply':>9} {d / a.games:>9.1f} {100 * w / max(1, d):>6.1f}% "
              f"{a.games / t:>8.1f}")
        for deals in (True, False):
            d, t = by_playout(prog, n, a.games, a.seed, deals)
            print(f"{n:>7} {'deals' if deals else 'no deals':>9} {d / a.games:>9.1f} "
                  f"{'':>7} {a.games / t:>8.1f}")


if __name__ == "__main__":
    main()
