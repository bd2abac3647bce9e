"""Machine instructions a random playout costs, counted by valgrind: a measure the machine's load
does not move.

    .venv/bin/python benchmarks/bench_instructions.py [--games 30] [--players N] [--seed 0]
                                                      [--against CHECKOUT] RULEBOOK ...

This machine is shared: two runs of a timed benchmark differ by up to a third, so a change worth
5% cannot be seen in seconds. Valgrind's cachegrind counts the instructions a process runs
(`--cache-sim=no`: counting only), and that count barely moves between runs (a few tenths of a
per cent, from Python's randomised hashing, fixed here by PYTHONHASHSEED=0). Instructions are
not seconds (a cache miss costs more than an add), but for two versions of the same Python code
doing the same work they go together, so the ratio of two counts is a noise-free estimate of a
speed-up.

For each rulebook and player count (default: its smallest and largest) the script runs a child
process under valgrind twice: once loading and compiling the rulebook and playing one untimed
game (what an engine builds on first use, such as its compiled rollout), once doing the same and
then playing --games seeded random games through `prog.playout(s, Random(seed + i + 1000003))`
(the apply loop for an engine without playout); the difference is the games' cost. It prints
instructions per decision and per game. With --against CHECKOUT it measures that checkout's
engine too (its own copy of each rulebook, by the same path relative to the checkout, so each
engine runs the rulebook it shipped with), and prints the ratio old / new: above 1 the new one
runs fewer instructions, per decision and per game. Each engine plays its own rulebook, so
the games may differ in length (a rule changed in between): the ratio per game is what a
playouts-per-second figure would show, the ratio per decision the cost of a decision.

Needs valgrind (Debian: `apt-get install valgrind`); it runs Python some 30-50 times slower, so
keep --games small (30 Manila games take about 15 s under valgrind here).
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def child(path: str, players: int, games: int, seed: int) -> None:
    """Load, compile, play one untimed game, then `games` games; print the decisions played."""
    sys.path.insert(0, HERE)
    from bench_common import import_engine
    load, compile_program, _checkout, _api = import_engine()
    res = load(path)
    if not res.ok or res.rulebook is None:
        sys.exit(f"{path} does not check")
    prog = compile_program(res.rulebook)
    fast = hasattr(prog, "playout")

    def play(i: int) -> int:
        s = prog.new_game(players, seed + i)
        rng = random.Random(seed + i + 1_000_003)
        if fast:
            return int(prog.playout(s, rng))
        n = 0
        while not s.over:
            prog.apply(s, rng.randrange(s.pending.count))
            n += 1
        return n
    play(-1)
    print("decisions", sum(play(i) for i in range(games)))


def count(checkout: Optional[str], path: str, players: int, games: int,
          seed: int) -> tuple[int, int]:
    """(instructions, decisions) of `games` games of path at `players`, by checkout's engine
    (on PYTHONPATH, this checkout's too, so that both import the engine the same way)."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    env.pop("PYTHONPATH", None)
    if checkout is not None:
        env["PYTHONPATH"] = checkout
    runs = []
    for n in (0, games):
        cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no",
               "--cachegrind-out-file=/dev/null", sys.executable, os.path.abspath(__file__),
               "--child", path, str(players), str(n), str(seed)]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        refs = [ln for ln in p.stderr.splitlines() if "I   refs" in ln or "I refs" in ln]
        out = [ln for ln in p.stdout.splitlines() if ln.startswith("decisions ")]
        if p.returncode != 0 or not refs or not out:
            tail = "\n".join((p.stdout + p.stderr).strip().splitlines()[-5:])
            sys.exit(f"the run under valgrind failed ({' '.join(cmd[5:])}):\n{tail}")
        runs.append((int(refs[-1].split()[-1].replace(",", "")), int(out[-1].split()[1])))
    return runs[1][0] - runs[0][0], runs[1][1]


def player_counts(path: str) -> list[int]:
    """The rulebook's smallest and largest player counts (this checkout's loader)."""
    sys.path.insert(0, ROOT)
    from mercator.dsl.loader import load
    from mercator.interpreter.compiler import compile_program
    res = load(path)
    if not res.ok or res.rulebook is None:
        sys.exit(f"{path} does not check (mercator check {path} says why)")
    prog: Any = compile_program(res.rulebook)
    return sorted({prog.min_players, prog.max_players})


def main(argv: Optional[list[str]] = None) -> None:
    if argv is None and len(sys.argv) > 1 and sys.argv[1] == "--child":
        a = sys.argv[2:]
        child(a[0], int(a[1]), int(a[2]), int(a[3]))
        return
    ap = argparse.ArgumentParser(
        description="Instructions per decision of random playouts, counted by valgrind "
                    "(optionally beside another checkout's engine).",
        epilog="example: benchmarks/bench_instructions.py --games 30 --against ../before "
               "rulebooks/manila.rules")
    ap.add_argument("rulebooks", nargs="+", metavar="RULEBOOK",
                    help="rulebook files (relative to this checkout)")
    ap.add_argument("--games", type=int, default=30, help="games counted (default 30)")
    ap.add_argument("--players", type=int, help="one player count (default: the smallest "
                    "and the largest)")
    ap.add_argument("--seed", type=int, default=0, help="first game's seed (default 0)")
    ap.add_argument("--against", metavar="CHECKOUT",
                    help="another checkout (a git worktree) whose engine to count beside")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    if args.games < 1:
        sys.exit("--games must be at least 1")
    if args.against is not None and not os.path.isdir(os.path.join(args.against, "rulebooks")):
        sys.exit(f"--against {args.against}: not a checkout of this project (no rulebooks/)")
    sys.path.insert(0, HERE)
    from bench_common import describe
    print(f"engine: {describe(ROOT)}" + (f"; against: {describe(args.against)}"
                                          if args.against else ""))
    print(f"{args.games} games each, seeds {args.seed}..{args.seed + args.games - 1}; "
          "instructions counted by valgrind (cachegrind), PYTHONHASHSEED=0")
    head = f"{'rulebook':34s} {'p':>2s} {'dec':>6s} {'instr/dec':>10s} {'instr/game':>12s}"
    if args.against:
        head += (f" {'old dec':>7s} {'old instr/dec':>13s} {'old/new per dec':>15s}"
                 f" {'per game':>9s}")
    print(head, flush=True)
    for path in args.rulebooks:
        if not os.path.isfile(path):
            sys.exit(f"{path}: no such rulebook")
        rel = os.path.relpath(os.path.abspath(path), ROOT)
        for n in ([args.players] if args.players else player_counts(path)):
            ins, dec = count(ROOT, os.path.abspath(path), n, args.games, args.seed)
            line = f"{rel:34s} {n:2d} {dec:6d} {ins / dec:10,.0f} {ins / args.games:12,.0f}"
            if args.against:
                old_path = os.path.join(os.path.abspath(args.against), rel)
                if not os.path.isfile(old_path):
                    line += f" {'-':>7s} (no {rel} in {args.against})"
                else:
                    oins, odec = count(os.path.abspath(args.against), old_path, n,
                                       args.games, args.seed)
                    line += (f" {odec:7d} {oins / odec:13,.0f} "
                             f"{(oins / odec) / (ins / dec):14.2f}x {oins / ins:8.2f}x")
            print(line, flush=True)


if __name__ == "__main__":
    main()
