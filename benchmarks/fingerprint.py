"""Behaviour fingerprint: seeded random games of every rulebook, one line per game.

Usage: python benchmarks/fingerprint.py [--games 20] [RULEBOOK ...] > before.txt
Plays every rulebooks/*.rules and rulebooks/variants/*.rules at every allowed player count with a
seeded random agent and prints, per game: decisions, final scores, a hash of the narration and the
final State digest. Along the way it round-trips the state through JSON and forks it with clone(),
and every fourth game runs with explicit chance nodes. Any change in behaviour changes a line:
diff the output before and after an interpreter change (it must be byte-identical).
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from mercator.dsl.loader import load  # noqa: E402
from mercator.interpreter.engine.program import MercatorRuntimeError, Program  # noqa: E402
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.state import State  # noqa: E402

RELOAD_AT = 37     # decision at which the game continues from a JSON round trip of its state
CLONE_AT = 11      # decision at which the game continues on a clone


def play(prog: Program, players: int, seed: int) -> str:
    """One seeded game; its fingerprint line (without the rulebook name)."""
    explicit = seed % 4 == 3
    s = prog.new_game(players, seed, narrate=True, explicit_chance=explicit)
    rng = random.Random(seed * 7919 + players)
    n = 0
    try:
        while not s.over:
            if n == CLONE_AT:
                s = s.clone()
            if n == RELOAD_AT:
                r = State.from_json(s.to_json())
                r.narrate, r.messages = True, s.messages
                prog.resume(r)
                s = r
            prog.apply(s, rng.randrange(s.pending.count))
            n += 1
    except MercatorRuntimeError as exc:
        return f"seed {seed} decisions {n} ERROR {exc.span} {exc.message}"
    narration = hashlib.sha256("\n".join(s.messages).encode()).hexdigest()[:16]
    return (f"seed {seed} decisions {n} scores {list(s.result.scores)} "
            f"winners {list(s.result.winners)} ended {s.ended_by} log {narration} "
            f"state {s.digest()[:24]}")


def main() -> None:
    """Print the fingerprint lines of the given rulebooks (default: all, variants included)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("rulebooks", nargs="*")
    args = ap.parse_args()
    paths = args.rulebooks or (sorted(glob.glob(os.path.join(ROOT, "rulebooks", "*.rules")))
                               + sorted(glob.glob(os.path.join(ROOT, "rulebooks", "variants",
                                                               "*.rules"))))
    for path in paths:
        name = os.path.relpath(path, ROOT)
        res = load(path)
        if not res.ok or res.rulebook is None:
            print(f"{name} does not check")
            continue
        prog = compile_program(res.rulebook)
        for n in range(prog.min_players, prog.max_players + 1):
            for seed in range(args.games):
                print(f"{name} p{n} {play(prog, n, seed)}", flush=True)


if __name__ == "__main__":
    main()
