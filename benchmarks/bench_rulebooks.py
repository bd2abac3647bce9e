"""Every rulebook under uniform random play: speed through apply and through playout, and memory.

    .venv/bin/python benchmarks/bench_rulebooks.py [--games 100] [--seed 0] [--variants]
                                                   [--mem-games 10] [--clones 500] [RULEBOOK ...]

Without RULEBOOK arguments it measures every rulebooks/*.rules (with --variants also
rulebooks/variants/*.rules) of the checkout whose engine it imports, each at its smallest and
largest player count. Per line:
- dec/game, dec/s, games/s: the normal loop, `while not s.over: prog.apply(s, rng.randrange(
  s.pending.count))`, over games new_game(players, seed + i) with rng = Random(seed + i + 1000003);
- the same through `prog.playout(s, rng)` with the same seeds, so the same games: the decision
  count and history of every game must match the normal loop's (the script stops if one does
  not; the last line says they matched); "-" when the engine has no playout (an older checkout);
- with an engine that compiles its rollout (COMPILED_ROLLOUT in interpreter/engine/program.py),
  also "VM d/s": prog.playout run by the VM's own loop instead (COMPILED_ROLLOUT off), the same
  games again ("-" for engines without the switch);
- every timed loop follows one untimed game through the same path (what an engine builds on
  first use, such as its compiled rollout, is not timed);
- memory at mid-game: the state after half of its game's decisions (floor(n / 2) of the n the
  game took), in the first --mem-games games: its size in bytes of
  json.dumps(state.to_json(), separators=(",", ":")) as UTF-8 (the whole saved state, its
  history of choices included), the same without the "history" entry, and the cost of one
  state.clone() in microseconds (timed over --clones clones of each of those states);
- with --narrated, a line more: the apply loop with narration and explicit chance
  (bench_common.narrated_loop: other games, chance drawn otherwise), its decisions/s (the
  players' decisions; its chance steps are extra work) and apply d/s / narrated d/s (issue 37:
  within 2x).

Old checkouts: run it unchanged against another worktree with
    PYTHONPATH=<old checkout> .venv/bin/python benchmarks/bench_rulebooks.py --games 40
It imports whatever `dsl` and `interpreter` PYTHONPATH (or an installed mercator) provides and
adds its own checkout only when there is none; the header names the checkout and commit it
measured. Before interpreter/compiler/ existed the API was interpreter.program.Program(rb).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import random
import subprocess
import sys
import time
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)  # bench_common beside this script (not an engine path)
from bench_common import import_engine, engine_program, describe, narrated_loop  # noqa: E402


def apply_loop(prog: Any, players: int, games: int, seed: int,
               games_seen: list[int]) -> tuple[list[int], float]:
    """Decisions of each game and seconds, through the normal apply loop; appends a hash of
    each game's choices to games_seen."""
    counts = []
    t0 = time.perf_counter()
    for i in range(games):
        s = prog.new_game(players, seed + i)
        rng = random.Random(seed + i + 1_000_003)
        apply = prog.apply
        n = 0
        while not s.over:
            apply(s, rng.randrange(s.pending.count))
            n += 1
        counts.append(n)
        games_seen.append(hash(tuple(s.history)))
    return counts, time.perf_counter() - t0


def playout_loop(prog: Any, players: int, games: int, seed: int,
                 games_seen: list[int]) -> tuple[list[int], float]:
    """Decisions of each game and seconds, through prog.playout (same seeds); appends a hash of
    each game's choices to games_seen."""
    counts = []
    t0 = time.perf_counter()
    for i in range(games):
        s = prog.new_game(players, seed + i)
        rng = random.Random(seed + i + 1_000_003)
        counts.append(prog.playout(s, rng))
        games_seen.append(hash(tuple(s.history)))
    return counts, time.perf_counter() - t0


def mid_game(prog: Any, players: int, i: int, seed: int, stop: int) -> Any:
    """Game i (same seeds as the loops) after `stop` decisions."""
    s = prog.new_game(players, seed + i)
    rng = random.Random(seed + i + 1_000_003)
    for _ in range(stop):
        prog.apply(s, rng.randrange(s.pending.count))
    return s


def memory(prog: Any, players: int, counts: list[int], seed: int, mem_games: int,
           clones: int) -> tuple[float, float, float]:
    """(mean JSON bytes, mean JSON bytes without history, µs per clone) at mid-game."""
    sizes, cores, seconds, n = [], [], 0.0, 0
    for i, total in enumerate(counts[:mem_games]):
        s = mid_game(prog, players, i, seed, total // 2)
        d = s.to_json()
        sizes.append(len(json.dumps(d, separators=(",", ":")).encode("utf-8")))
        d.pop("history", None)
        cores.append(len(json.dumps(d, separators=(",", ":")).encode("utf-8")))
        clone = s.clone
        t0 = time.perf_counter()
        for _ in range(clones):
            clone()
        seconds += time.perf_counter() - t0
        n += clones
    k = max(1, len(sizes))
    return sum(sizes) / k, sum(cores) / k, seconds / max(1, n) * 1e6


def main() -> None:
    """Measure the given rulebooks (default: all) and print one line per player count."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  .venv/bin/python benchmarks/bench_rulebooks.py --games 40\n"
               "  PYTHONPATH=../old-checkout .venv/bin/python benchmarks/bench_rulebooks.py "
               "--games 40 --variants")
    ap.add_argument("--games", type=int, default=100, help="games per rulebook and player count "
                    "(default: 100)")
    ap.add_argument("--seed", type=int, default=0, help="first game seed (default: 0)")
    ap.add_argument("--variants", action="store_true",
                    help="also measure rulebooks/variants/*.rules (when no RULEBOOK is given)")
    ap.add_argument("--mem-games", type=int, default=10,
                    help="games whose mid-game state is measured for size and clone cost "
                         "(default: 10)")
    ap.add_argument("--clones", type=int, default=500,
                    help="clones timed per mid-game state (default: 500)")
    ap.add_argument("--narrated", action="store_true",
                    help="also the apply loop with narration and explicit chance, and its ratio")
    ap.add_argument("rulebooks", nargs="*", metavar="RULEBOOK",
                    help="rulebook files (default: rulebooks/*.rules of the measured checkout)")
    args = ap.parse_args()
    load, compile_program, checkout, api = import_engine()
    paths = args.rulebooks
    if not paths:
        paths = sorted(glob.glob(os.path.join(checkout, "rulebooks", "*.rules")))
        if args.variants:
            paths += sorted(glob.glob(os.path.join(checkout, "rulebooks", "variants", "*.rules")))
    engine = engine_program(checkout)
    has_playout = hasattr(engine, "playout")
    print(f"engine: {describe(checkout)} ({api}); python {sys.version.split()[0]}; "
          f"{args.games} games per line, seeds from {args.seed}")
    print("apply: the normal loop; playout: prog.playout(s, rng), same seeds, so the same games "
          "(decision counts and histories checked); speedup = playout games/s / apply games/s"
          if has_playout else "playout: this engine has no prog.playout, shown as '-'")
    print(f"memory: mean over the first {args.mem_games} games of the state after half its game's "
          f"decisions; state B = len(json.dumps(s.to_json(), compact)) in UTF-8, no-hist B = the "
          f"same without its 'history'; clone = µs per s.clone(), {args.clones} clones a state")
    print(f"{'rulebook':40s} {'pl':>3s} {'dec/game':>9s} {'apply d/s':>10s} {'games/s':>8s} "
          f"{'playout d/s':>11s} {'games/s':>8s} {'speedup':>7s} {'VM d/s':>9s} {'state B':>9s} "
          f"{'no-hist B':>9s} "
          f"{'clone µs':>8s}", flush=True)
    matched = 0
    for path in paths:
        name = os.path.relpath(path, os.path.join(checkout, "rulebooks")) \
            if os.path.isabs(path) else os.path.basename(path)
        res = load(path)
        if not res.ok or res.rulebook is None:
            print(f"{name:40s} does not check", flush=True)
            continue
        prog = compile_program(res.rulebook)
        for n in sorted({prog.min_players, prog.max_players}):
            apply_loop(prog, n, 1, args.seed, [])     # warm-up, not timed (what is built on
            if hasattr(prog, "playout"):              # first use, such as the rollout)
                playout_loop(prog, n, 1, args.seed, [])
            seen: list[int] = []
            counts, sec = apply_loop(prog, n, args.games, args.seed, seen)
            total = sum(counts)
            cols = f"{total / args.games:9.1f} {total / sec:10,.0f} {args.games / sec:8.1f}"
            if hasattr(prog, "playout"):
                pseen: list[int] = []
                pcounts, psec = playout_loop(prog, n, args.games, args.seed, pseen)
                if pseen != seen:
                    sys.exit(f"{name} {n}p: playout and apply made different choices")
                if pcounts != counts:
                    bad = next(i for i, (a, b) in enumerate(zip(counts, pcounts)) if a != b)
                    sys.exit(f"{name} {n}p: game {bad} took {counts[bad]} decisions through apply "
                             f"but {pcounts[bad]} through playout: not the same games")
                matched += 1
                cols += f" {total / psec:11,.0f} {args.games / psec:8.1f} {sec / psec:6.2f}x"
                mod = sys.modules[type(prog).__module__]
                if hasattr(mod, "COMPILED_ROLLOUT"):
                    mod.COMPILED_ROLLOUT = False
                    try:
                        vseen: list[int] = []
                        vcounts, vsec = playout_loop(prog, n, args.games, args.seed, vseen)
                    finally:
                        mod.COMPILED_ROLLOUT = True
                    if vseen != seen or vcounts != counts:
                        sys.exit(f"{name} {n}p: the VM's playout loop made different choices")
                    cols += f" {total / vsec:9,.0f}"
                else:
                    cols += f" {'-':>9s}"
            else:
                cols += f" {'-':>11s} {'-':>8s} {'-':>7s} {'-':>9s}"
            size, core, clone_us = memory(prog, n, counts, args.seed, args.mem_games, args.clones)
            print(f"{name:40s} {n:3d} {cols} {size:9,.0f} {core:9,.0f} {clone_us:8.1f}", flush=True)
            if args.narrated:
                ndec, nsec, nchance = narrated_loop(prog, args.games, n, args.seed,
                                                    time.perf_counter)
                print(f"{'  narrated':40s} {n:3d} {ndec / args.games:9.1f} {ndec / nsec:10,.0f} "
                      f"{args.games / nsec:8.1f}  (+ {nchance / args.games:.1f} chance steps/game; "
                      f"apply d/s / narrated d/s {(total / sec) / (ndec / nsec):.2f}x)", flush=True)
    if matched:
        print(f"same games: in all {matched} lines every game made the same decisions (count and "
              f"history) through playout as through apply")

if __name__ == "__main__":
    main()
