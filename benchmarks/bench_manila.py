"""Manila under uniform random play: the rulebook engine beside two hand-written Manilas.

    .venv/bin/python benchmarks/bench_manila.py [--games 200] [--players 4] [--seed 0]

Lines (decisions/game, decisions/s, playouts/s), games seed .. seed + games - 1:
- rulebook          rulebooks/manila.rules, the normal loop `while not s.over: prog.apply(s,
                    rng.randrange(s.pending.count))`, rng = Random(seed + i + 1000003);
- rulebook-playout  the same games through `prog.playout(s, rng)` (same seeds; every game's
                    decision count and history must match); "-" when the engine has no
                    playout (an older checkout);
- lockstep          benchmarks/baseline_manila.py, a generator per decision (random_playout);
- plain             benchmarks/plain_manila.py play_random(players, seed): no generator, options
                    built only when asked, any-time loans offered as the rulebook does;
- plain-forced      the same with anytime_loans=False: mortgages only when a payment needs them
                    (a different, shorter game under random play: compare its decisions/s).
Then the ratios baseline / rulebook for both rulebook paths, and the compile time.

Old checkouts: PYTHONPATH=<old checkout> .venv/bin/python benchmarks/bench_manila.py measures
that checkout's engine and manila.rules (the header names it); the two hand-written baselines
are always the ones beside this script, loaded by file path.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import subprocess
import sys
import time
from types import ModuleType
from typing import Any, Callable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)  # bench_common beside this script (not an engine path)
from bench_common import import_engine, describe  # noqa: E402


def beside(name: str) -> ModuleType:
    """benchmarks/<name>.py next to this script, by file path (an old checkout on PYTHONPATH
    may have no such file, or an older one)."""
    spec = importlib.util.spec_from_file_location(f"_bench_{name}",
                                                  os.path.join(HERE, f"{name}.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod          # dataclasses and the like look their module up
    spec.loader.exec_module(mod)
    return mod


def run_rulebook(prog: Any, games: int, players: int, seed: int,
                 seen: list[int]) -> tuple[list[int], float]:
    """Play `games` random games through apply; return (decisions of each, seconds) and append
    a hash of each game's choices to seen."""
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
        seen.append(hash(tuple(s.history)))
    return counts, time.perf_counter() - t0


def run_playout(prog: Any, games: int, players: int, seed: int,
                seen: list[int]) -> tuple[list[int], float]:
    """The same games through prog.playout; return (decisions of each, seconds) and append a
    hash of each game's choices to seen."""
    counts = []
    t0 = time.perf_counter()
    for i in range(games):
        s = prog.new_game(players, seed + i)
        counts.append(prog.playout(s, random.Random(seed + i + 1_000_003)))
        seen.append(hash(tuple(s.history)))
    return counts, time.perf_counter() - t0


def run_lockstep(lockstep: ModuleType, games: int, players: int, seed: int) -> tuple[int, float]:
    """Play `games` random games of baseline_manila.py; return (decisions, seconds)."""
    total = 0
    t0 = time.perf_counter()
    for i in range(games):
        n, _ = lockstep.random_playout(players, seed + i, seed + i + 1_000_003)
        total += n
    return total, time.perf_counter() - t0


def run_plain(plain: ModuleType, games: int, players: int, seed: int,
              anytime_loans: bool) -> tuple[int, float]:
    """Play `games` random games of plain_manila.py; return (decisions, seconds)."""
    total = 0
    play = plain.play_random
    t0 = time.perf_counter()
    for i in range(games):
        total += play(players, seed + i, anytime_loans)[0]
    return total, time.perf_counter() - t0


def main() -> None:
    """Run all and print the comparison."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  .venv/bin/python benchmarks/bench_manila.py --games 500\n"
               "  PYTHONPATH=../old-checkout .venv/bin/python benchmarks/bench_manila.py "
               "--games 500")
    ap.add_argument("--games", type=int, default=200, help="games of each (default: 200)")
    ap.add_argument("--players", type=int, default=4, choices=(3, 4, 5),
                    help="players (default: 4)")
    ap.add_argument("--seed", type=int, default=0, help="first game seed (default: 0)")
    args = ap.parse_args()
    load, compile_program, checkout, api = import_engine()
    lockstep, plain = beside("baseline_manila"), beside("plain_manila")
    path = os.path.join(checkout, "rulebooks", "manila.rules")
    res = load(path)
    if not res.ok or res.rulebook is None:
        sys.exit("rulebooks/manila.rules does not check; "
                 "run 'mercator check rulebooks/manila.rules'")
    t0 = time.perf_counter()
    prog = compile_program(res.rulebook)
    compile_s = time.perf_counter() - t0
    print(f"engine: {describe(checkout)} ({api}); python {sys.version.split()[0]}; "
          f"{args.players} players, {args.games} games, seeds from {args.seed}", flush=True)

    rows: dict[str, Optional[tuple[int, float]]] = {}

    def show(name: str, row: Optional[tuple[int, float]]) -> None:
        rows[name] = row
        if row is None:
            print(f"{name:16s} games {args.games}  decisions/game {'-':>7s}  decisions/s {'-':>10s}"
                  f"  playouts/s {'-':>8s}  (this engine has no prog.playout)", flush=True)
            return
        dec, sec = row
        print(f"{name:16s} games {args.games}  decisions/game {dec / args.games:7.1f}  "
              f"decisions/s {dec / sec:10,.0f}  playouts/s {args.games / sec:8.1f}", flush=True)

    seen: list[int] = []
    counts, sec = run_rulebook(prog, args.games, args.players, args.seed, seen)
    show("rulebook", (sum(counts), sec))
    same = ""
    if hasattr(prog, "playout"):
        pseen: list[int] = []
        pcounts, psec = run_playout(prog, args.games, args.players, args.seed, pseen)
        if pseen != seen:
            sys.exit("playout and apply made different choices: not the same games")
        if pcounts != counts:
            bad = next(i for i, (a, b) in enumerate(zip(counts, pcounts)) if a != b)
            sys.exit(f"game {bad}: {counts[bad]} decisions through apply, {pcounts[bad]} through "
                     f"playout: not the same games")
        same = ("rulebook-playout played the same games "
                "(every game's decision count and history matched)")
        show("rulebook-playout", (sum(pcounts), psec))
    else:
        show("rulebook-playout", None)
    show("lockstep", run_lockstep(lockstep, args.games, args.players, args.seed))
    show("plain", run_plain(plain, args.games, args.players, args.seed, True))
    show("plain-forced", run_plain(plain, args.games, args.players, args.seed, False))

    print("ratios (baseline / rulebook path): decisions/s, playouts/s")
    for base in ("lockstep", "plain", "plain-forced"):
        b = rows[base]
        assert b is not None
        parts = []
        for path_name in ("rulebook", "rulebook-playout"):
            r = rows[path_name]
            if r is None:
                parts.append(f"vs {path_name}: -")
                continue
            parts.append(f"vs {path_name}: {(b[0] / b[1]) / (r[0] / r[1]):5.2f}x "
                         f"{(args.games / b[1]) / (args.games / r[1]):5.2f}x")
        print(f"  {base:13s} " + "   ".join(parts))
    if same:
        print(same)
    print(f"compiling manila.rules (after checking): {compile_s * 1000:.0f} ms")


if __name__ == "__main__":
    main()
