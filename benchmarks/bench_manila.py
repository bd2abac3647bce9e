"""Manila under uniform random play: the rulebook engine beside two hand-written Manilas.

    .venv/bin/python benchmarks/bench_manila.py [--games 200] [--players 4] [--seed 0]

Lines (decisions/game, decisions/s, playouts/s), games seed .. seed + games - 1:
- rulebook          rulebooks/manila.rules, the normal loop `while not s.over: prog.apply(s,
                    rng.randrange(s.pending.count))`, rng = Random(seed + i + 1000003);
- rulebook-narrated the loop with narration and explicit chance (what a searcher's worlds
                    play: prog.new_game(..., narrate=True, explicit_chance=True)), a chance
                    node resolved by the state's own generator (agents.resolve_chance), a
                    decision by rng as above: other games (chance drawn otherwise); its
                    decisions/s counts the players' decisions, its chance steps are extra work;
- rulebook-playout  the same games through `prog.playout(s, rng)` (same seeds; every game's
                    decision count and history must match); "-" when the engine has no
                    playout (an older checkout);
- lockstep          benchmarks/baseline_manila.py, a generator per decision (random_playout);
- plain             benchmarks/plain_manila.py play_random(players, seed): no generator, options
                    built only when asked, any-time loans offered as the rulebook does;
- plain-forced      the same with anytime_loans=False: mortgages only when a payment needs them
                    (a different, shorter game under random play: compare its decisions/s).
Then the ratios baseline / rulebook for both rulebook paths, rulebook / rulebook-narrated
(issue 37: within 2x), and the compile time. --repeat N runs every line N times in turn and
prints the median rates (the machine's load moves between rounds).

--targets (implies --narrated) adds, after all that, one line per target of issue 37 that this
run measures, its ratio of decisions/s from the lines above and "met" or "not met":
- playout within 1.5x of plain:        plain / rulebook-playout <= 1.5 (the issue's "native
                                       playout" is the engine's own prog.playout);
- apply within 3x of plain:            plain / rulebook <= 3;
- narrated apply within 2x of apply:   rulebook / rulebook-narrated <= 2;
and with --native the first again for native-playout (the Cython path). A target whose line
this engine cannot play (no prog.playout) shows '-'.

Old checkouts: PYTHONPATH=<old checkout> .venv/bin/python benchmarks/bench_manila.py measures
that checkout's engine and manila.rules (the header names it); the two hand-written baselines
are always the ones beside this script, loaded by file path.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import subprocess
import sys
import time
from types import ModuleType
from typing import Any, Callable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)  # bench_common beside this script (not an engine path)
from bench_common import import_engine, describe, narrated_loop  # noqa: E402


clock: Callable[[], float] = time.perf_counter    # time.process_time with --cpu


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
    t0 = clock()
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
    return counts, clock() - t0


def run_narrated(prog: Any, games: int, players: int, seed: int) -> tuple[int, float, int]:
    """Play `games` random games through apply with narration and explicit chance; return
    (the players' decisions, seconds, chance steps)."""
    return narrated_loop(prog, games, players, seed, clock)


def run_playout(prog: Any, games: int, players: int, seed: int,
                seen: list[int]) -> tuple[list[int], float]:
    """The same games through prog.playout; return (decisions of each, seconds) and append a
    hash of each game's choices to seen."""
    counts = []
    t0 = clock()
    for i in range(games):
        s = prog.new_game(players, seed + i)
        counts.append(prog.playout(s, random.Random(seed + i + 1_000_003)))
        seen.append(hash(tuple(s.history)))
    return counts, clock() - t0


def run_lockstep(lockstep: ModuleType, games: int, players: int, seed: int) -> tuple[int, float]:
    """Play `games` random games of baseline_manila.py; return (decisions, seconds)."""
    total = 0
    t0 = clock()
    for i in range(games):
        n, _ = lockstep.random_playout(players, seed + i, seed + i + 1_000_003)
        total += n
    return total, clock() - t0


def run_plain(plain: ModuleType, games: int, players: int, seed: int,
              anytime_loans: bool) -> tuple[int, float]:
    """Play `games` random games of plain_manila.py; return (decisions, seconds)."""
    total = 0
    play = plain.play_random
    t0 = clock()
    for i in range(games):
        total += play(players, seed + i, anytime_loans)[0]
    return total, clock() - t0


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
    ap.add_argument("--repeat", type=int, default=1,
                    help="rounds of every line, in turn; the median rates are printed (default: 1)")
    ap.add_argument("--cpu", action="store_true",
                    help="time by the process's CPU seconds (time.process_time), not the wall "
                         "clock: steadier on a loaded machine")
    ap.add_argument("--narrated", action="store_true",
                    help="add the line rulebook-narrated (narration and explicit chance)")
    ap.add_argument("--native", action="store_true",
                    help="add the lines native, native-narrated (with --narrated) and "
                         "native-playout: the same rulebook compiled with its generated code "
                         "compiled by Cython (compile_program(..., native=True); needs Cython "
                         "and a C compiler), in the same rounds")
    ap.add_argument("--targets", action="store_true",
                    help="after the measurements, issue 37's targets this run measures, each "
                         "with its ratio and met or not met (implies --narrated)")
    args = ap.parse_args()
    if args.targets:
        args.narrated = True
    global clock
    if args.cpu:
        clock = time.process_time
    load, compile_program, checkout, api = import_engine()
    lockstep, plain = beside("baseline_manila"), beside("plain_manila")
    path = os.path.join(checkout, "rulebooks", "manila.rules")
    res = load(path)
    if not res.ok or res.rulebook is None:
        sys.exit("rulebooks/manila.rules does not check; "
                 "run 'mercator check rulebooks/manila.rules'")
    t0 = clock()
    prog = compile_program(res.rulebook)
    compile_s = clock() - t0
    nprog = None
    native_s = 0.0
    if args.native:
        t0 = time.perf_counter()
        nprog = compile_program(res.rulebook, native=True)
        native_s = time.perf_counter() - t0
        if getattr(nprog, "native", None) is None:
            sys.exit("--native: the native path is not available (see the warning above)")
    print(f"engine: {describe(checkout)} ({api}); python {sys.version.split()[0]}; "
          f"{args.players} players, {args.games} games, seeds from {args.seed}", flush=True)

    rows: dict[str, Optional[tuple[int, float]]] = {}
    times: dict[str, list[float]] = {}
    G, P, S = args.games, args.players, args.seed

    def note(name: str, row: Optional[tuple[int, float]]) -> None:
        """Keep a round's (decisions, seconds) of a line (the decisions are the same each round)."""
        if row is None:
            rows[name] = None
            return
        rows[name] = (row[0], 0.0)
        times.setdefault(name, []).append(row[1])

    def show(name: str) -> None:
        row = rows[name]
        if row is None:
            print(f"{name:17s} games {G}  decisions/game {'-':>7s}  decisions/s {'-':>10s}"
                  f"  playouts/s {'-':>8s}  (this engine has no prog.playout)", flush=True)
            return
        sec = statistics.median(times[name])
        dec = row[0]
        rows[name] = (dec, sec)
        extra = f"  + {chance_steps / G:.1f} chance steps/game" if name == "rulebook-narrated" \
            else ""
        print(f"{name:17s} games {G}  decisions/game {dec / G:7.1f}  "
              f"decisions/s {dec / sec:10,.0f}  playouts/s {G / sec:8.1f}{extra}", flush=True)

    same = ""
    chance_steps = 0
    for _ in range(args.repeat):
        seen: list[int] = []
        counts, sec = run_rulebook(prog, G, P, S, seen)
        note("rulebook", (sum(counts), sec))
        if args.narrated:
            dec, sec, chance_steps = run_narrated(prog, G, P, S)
            note("rulebook-narrated", (dec, sec))
        if hasattr(prog, "playout"):
            pseen: list[int] = []
            pcounts, psec = run_playout(prog, G, P, S, pseen)
            if pseen != seen:
                sys.exit("playout and apply made different choices: not the same games")
            if pcounts != counts:
                bad = next(i for i, (a, b) in enumerate(zip(counts, pcounts)) if a != b)
                sys.exit(f"game {bad}: {counts[bad]} decisions through apply, {pcounts[bad]} "
                         f"through playout: not the same games")
            same = ("rulebook-playout played the same games "
                    "(every game's decision count and history matched)")
            note("rulebook-playout", (sum(pcounts), psec))
        else:
            note("rulebook-playout", None)
        if nprog is not None:
            nseen: list[int] = []
            ncounts, nsec = run_rulebook(nprog, G, P, S, nseen)
            if nseen != seen or ncounts != counts:
                sys.exit("the native path made different choices: not the same games")
            note("native", (sum(ncounts), nsec))
            if args.narrated:
                dec, sec, _ = run_narrated(nprog, G, P, S)
                note("native-narrated", (dec, sec))
            nseen = []
            ncounts, nsec = run_playout(nprog, G, P, S, nseen)
            if nseen != seen or ncounts != counts:
                sys.exit("the native playout made different choices: not the same games")
            note("native-playout", (sum(ncounts), nsec))
            same += "; the native lines played the same games"
        note("lockstep", run_lockstep(lockstep, G, P, S))
        note("plain", run_plain(plain, G, P, S, True))
        note("plain-forced", run_plain(plain, G, P, S, False))
    if args.repeat > 1:
        print(f"median of {args.repeat} rounds, by {'CPU' if args.cpu else 'wall'} seconds")
    for name in ("rulebook", "rulebook-narrated", "rulebook-playout", "native",
                 "native-narrated", "native-playout", "lockstep", "plain", "plain-forced"):
        if name in rows:
            show(name)

    print("ratios (baseline / rulebook path): decisions/s, playouts/s")
    for base in ("lockstep", "plain", "plain-forced"):
        b = rows[base]
        assert b is not None
        parts = []
        for path_name in ("rulebook", "rulebook-playout") + \
                (("native", "native-playout") if nprog is not None else ()):
            r = rows[path_name]
            if r is None:
                parts.append(f"vs {path_name}: -")
                continue
            parts.append(f"vs {path_name}: {(b[0] / b[1]) / (r[0] / r[1]):5.2f}x "
                         f"{(args.games / b[1]) / (args.games / r[1]):5.2f}x")
        print(f"  {base:13s} " + "   ".join(parts))
    n = rows.get("rulebook-narrated")
    r = rows["rulebook"]
    if n is not None and r is not None:
        print(f"  rulebook / rulebook-narrated (decisions/s): "
              f"{(r[0] / r[1]) / (n[0] / n[1]):5.2f}x")
    if nprog is not None:
        for a, b in (("rulebook", "native"), ("rulebook-narrated", "native-narrated"),
                     ("rulebook-playout", "native-playout")):
            x, y = rows.get(a), rows.get(b)
            if x is not None and y is not None:
                print(f"  {b} / {a} (decisions/s): {(y[0] / y[1]) / (x[0] / x[1]):5.2f}x")
        nn = rows.get("native-narrated")
        pl = rows["plain"]
        if nn is not None and pl is not None:
            print(f"  plain / native-narrated (decisions/s): "
                  f"{(pl[0] / pl[1]) / (nn[0] / nn[1]):5.2f}x")
    if same:
        print(same)
    print(f"compiling manila.rules (after checking): {compile_s * 1000:.0f} ms")
    if nprog is not None:
        from mercator.interpreter.compiler import native
        print(f"compiling manila.rules natively (wall clock, Cython and the C compiler's "
              f"{native.last.get('compile_seconds', 0):.1f} s included, 0 when cached): "
              f"{native_s:.1f} s; {native.last.get('pieces')} pieces in the module; by the end "
              f"{nprog.native.hits} pieces bound to it, {nprog.native.misses} left to Python")
    if args.targets:
        print_targets(rows, nprog is not None)


TARGETS = (  # (label, numerator line, denominator line, at most): ratios of decisions/s
    ("playout within 1.5x of plain", "plain", "rulebook-playout", 1.5),
    ("apply within 3x of plain", "plain", "rulebook", 3.0),
    ("narrated apply within 2x of apply", "rulebook", "rulebook-narrated", 2.0),
)


def print_targets(rows: dict[str, Optional[tuple[int, float]]], native: bool) -> None:
    """Issue 37's targets: a line each, the ratio of the two lines' decisions/s against the
    target's bound, and whether it is met."""
    targets = list(TARGETS)
    if native:
        targets.append(("native playout (Cython) within 1.5x of plain", "plain",
                        "native-playout", 1.5))
    print("issue 37's targets (decisions/s of the lines above):")
    for label, top, bottom, most in targets:
        a, b = rows.get(top), rows.get(bottom)
        what = f"{top} / {bottom}"
        if a is None or b is None:
            print(f"  target {label:46s} {what:32s}     -  (not measured by this engine)")
            continue
        ratio = round((a[0] / a[1]) / (b[0] / b[1]), 2)      # judged as printed
        print(f"  target {label:46s} {what:32s} {ratio:5.2f}x (at most {most:g}x): "
              f"{'met' if ratio <= most else 'not met'}")


if __name__ == "__main__":
    main()
