"""Every rulebook under uniform random play: speed through apply and through playout, and memory.

    .venv/bin/python benchmarks/bench_rulebooks.py [--games 100] [--seed 0] [--variants]
                                                   [--mem-games 10] [--clones 500] [--narrated]
                                                   [--cpu] [--against CHECKOUT [--repeat 3]]
                                                   [RULEBOOK ...]

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

Against an older checkout, side by side in one run (issue 37's "each of the other three games
at least 2x faster a decision than today"):
    .venv/bin/python benchmarks/bench_rulebooks.py --against ../before37 --games 20 --repeat 3 \
        --narrated rulebooks/manila.rules rulebooks/genoa.rules
runs this script (with --json: apply, playout and, with --narrated, narrated apply; no VM
column, no memory) in a fresh process on CHECKOUT (PYTHONPATH set to it, run in it) and in a
fresh process on this checkout, once each a round, for --repeat rounds (which goes first
alternates from round to round), all timed by CPU seconds (time.process_time: on a shared
machine other work is not counted); then prints per line and path the best round's
decisions/s of each checkout and new / old ("2.10x faster"). A relative RULEBOOK (or, without
RULEBOOK arguments, this checkout's rulebooks/*.rules) names a file inside each checkout, so
each engine plays its own checkout's version of the game (an old engine cannot read today's
sections: 60f61da's parser stops at Manila's `bots` block); an absolute RULEBOOK outside this
checkout is the same file for both. A line the old checkout cannot measure (no such file,
does not check, fails to compile or run) shows '-' with the reason; dec/game shows both
checkouts' mean decisions a game and whether every game's decision count was the same.

Old checkouts, one at a time: run it unchanged against another worktree with
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
from bench_common import (import_engine, engine_program, describe, narrated_loop,  # noqa: E402
                          checkout_error, run_fresh, faster)

clock: Callable[[], float] = time.perf_counter    # time.process_time with --cpu or --against


class NotTheSameGames(Exception):
    """playout (or the VM's loop) played other games than apply from the same seeds."""


def apply_loop(prog: Any, players: int, games: int, seed: int,
               games_seen: list[int]) -> tuple[list[int], float]:
    """Decisions of each game and seconds, through the normal apply loop; appends a hash of
    each game's choices to games_seen."""
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
        games_seen.append(hash(tuple(s.history)))
    return counts, clock() - t0


def playout_loop(prog: Any, players: int, games: int, seed: int,
                 games_seen: list[int]) -> tuple[list[int], float]:
    """Decisions of each game and seconds, through prog.playout (same seeds); appends a hash of
    each game's choices to games_seen."""
    counts = []
    t0 = clock()
    for i in range(games):
        s = prog.new_game(players, seed + i)
        rng = random.Random(seed + i + 1_000_003)
        counts.append(prog.playout(s, rng))
        games_seen.append(hash(tuple(s.history)))
    return counts, clock() - t0


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
        t0 = clock()
        for _ in range(clones):
            clone()
        seconds += clock() - t0
        n += clones
    k = max(1, len(sizes))
    return sum(sizes) / k, sum(cores) / k, seconds / max(1, n) * 1e6


def measure(prog: Any, n: int, games: int, seed: int, vm: bool) -> dict[str, Any]:
    """One line: the apply loop, then (if the engine has playout) the same games through
    playout and, with vm and an engine that compiles its rollout, through the VM's loop; each
    after one untimed game. Keys: counts (decisions of each game), sec (apply's seconds),
    psec (playout's) and vsec (the VM's), None where not measured. Raises NotTheSameGames."""
    apply_loop(prog, n, 1, seed, [])           # warm-up, not timed (what is built on
    if hasattr(prog, "playout"):               # first use, such as the rollout)
        playout_loop(prog, n, 1, seed, [])
    seen: list[int] = []
    counts, sec = apply_loop(prog, n, games, seed, seen)
    line: dict[str, Any] = {"counts": counts, "sec": sec, "psec": None, "vsec": None}
    if not hasattr(prog, "playout"):
        return line
    pseen: list[int] = []
    pcounts, psec = playout_loop(prog, n, games, seed, pseen)
    if pseen != seen:
        raise NotTheSameGames("playout and apply made different choices")
    if pcounts != counts:
        bad = next(i for i, (a, b) in enumerate(zip(counts, pcounts)) if a != b)
        raise NotTheSameGames(f"game {bad} took {counts[bad]} decisions through apply but "
                              f"{pcounts[bad]} through playout: not the same games")
    line["psec"] = psec
    mod = sys.modules[type(prog).__module__]
    if vm and hasattr(mod, "COMPILED_ROLLOUT"):
        mod.COMPILED_ROLLOUT = False
        try:
            vseen: list[int] = []
            vcounts, vsec = playout_loop(prog, n, games, seed, vseen)
        finally:
            mod.COMPILED_ROLLOUT = True
        if vseen != seen or vcounts != counts:
            raise NotTheSameGames("the VM's playout loop made different choices")
        line["vsec"] = vsec
    return line


def load_error(res: Any) -> str:
    """The first error of a load that did not check, in a line."""
    for d in getattr(res, "diagnostics", []) or []:
        if getattr(d, "severity", "error") == "error":
            line = getattr(getattr(d, "span", None), "line", None)
            where = f" line {line}" if line else ""
            return f"does not check: {getattr(d, 'code', '')}{where}: {getattr(d, 'message', d)}"
    return "does not check"


def emit_json(args: argparse.Namespace) -> None:
    """--json (what --against runs in each checkout): one JSON object a line, first the engine,
    then a line per rulebook and player count (or a rulebook's error), as `rulebook` names it
    on the command line."""
    load, compile_program, checkout, api = import_engine()
    print(json.dumps({"engine": describe(checkout), "api": api}), flush=True)
    for path in args.rulebooks:
        def fail(why: str, players: Any = None) -> None:
            print(json.dumps({"rulebook": path, "players": players, "error": why}), flush=True)
        if not os.path.isfile(path):
            fail(f"no such file in {os.path.basename(checkout)}")
            continue
        try:
            res = load(path)
        except Exception as exc:          # an old loader on newer syntax
            fail(f"fails to load: {type(exc).__name__}: {exc}".splitlines()[0])
            continue
        if not res.ok or res.rulebook is None:
            fail(load_error(res))
            continue
        try:
            prog = compile_program(res.rulebook)
        except Exception as exc:
            fail(f"fails to compile: {type(exc).__name__}: {exc}".splitlines()[0])
            continue
        for n in sorted({prog.min_players, prog.max_players}):
            try:
                line = measure(prog, n, args.games, args.seed, vm=False)
                total = sum(line["counts"])
                rec = {"rulebook": path, "players": n, "counts": line["counts"],
                       "apply": total / line["sec"],
                       "playout": total / line["psec"] if line["psec"] else None,
                       "narrated": None}
                if args.narrated:
                    ndec, nsec, _ = narrated_loop(prog, args.games, n, args.seed, clock)
                    rec["narrated"] = ndec / nsec
            except Exception as exc:
                fail(f"fails to run: {type(exc).__name__}: {exc}".splitlines()[0], n)
                continue
            print(json.dumps(rec), flush=True)


def against(args: argparse.Namespace, ap: argparse.ArgumentParser) -> None:
    """--against CHECKOUT: this script with --json in fresh processes of both checkouts,
    alternated for --repeat rounds; print each line's best rates and new / old."""
    if checkout_error(args.against):
        ap.error(f"--against {checkout_error(args.against)}")
    old_root = os.path.abspath(args.against)
    if old_root == ROOT:
        ap.error("--against names this checkout itself; give another one")
    given = args.rulebooks
    if not given:
        given = sorted(glob.glob(os.path.join(ROOT, "rulebooks", "*.rules")))
        if args.variants:
            given += sorted(glob.glob(os.path.join(ROOT, "rulebooks", "variants", "*.rules")))
    names = []
    for path in given:
        full = os.path.abspath(path)
        names.append(os.path.relpath(full, ROOT) if full.startswith(ROOT + os.sep) else full)
    argv = ["--json", "--games", str(args.games), "--seed", str(args.seed)] + \
        (["--narrated"] if args.narrated else []) + names
    sides = {"old": old_root, "new": ROOT}
    best: dict[str, dict[tuple[str, int], dict[str, Any]]] = {"old": {}, "new": {}}
    errors: dict[str, dict[tuple[str, Any], str]] = {"old": {}, "new": {}}
    engines: dict[str, str] = {}
    order: list[tuple[str, int]] = []
    paths = ("apply", "playout", "narrated")
    for r in range(args.repeat):
        for side in (("old", "new") if r % 2 == 0 else ("new", "old")):
            out = run_fresh(sides[side], __file__, argv)
            if out.returncode != 0:
                tail = "\n".join(out.stderr.strip().splitlines()[-5:])
                sys.exit(f"the run in {sides[side]} stopped (exit code {out.returncode}):\n{tail}")
            for text in out.stdout.splitlines():
                if not text.startswith("{"):
                    continue
                rec = json.loads(text)
                if "engine" in rec:
                    engines[side] = f"{rec['engine']} ({rec['api']})"
                    continue
                key = (rec["rulebook"], rec["players"])
                if "error" in rec:
                    errors[side][key] = rec["error"]
                    if side == "new" and key not in order:
                        order.append(key)
                    continue
                if side == "new" and key not in order:
                    order.append(key)
                have = best[side].setdefault(key, dict(rec))
                for p in paths:
                    if rec[p] is not None and (have[p] is None or rec[p] > have[p]):
                        have[p] = rec[p]
    print(f"old: {engines.get('old', '?')}\nnew: {engines.get('new', '?')}")
    print(f"{args.games} games per line, seeds from {args.seed}; each checkout a fresh process a "
          f"round, {args.repeat} round(s), which goes first alternating; decisions per CPU second "
          f"(time.process_time), each checkout's best round; a relative rulebook path is each "
          f"checkout's own file")
    print(f"{'rulebook':28s} {'pl':>3s}  {'path':9s} {'old d/s':>10s} {'new d/s':>10s}  "
          f"{'new / old':15s} dec/game old -> new", flush=True)
    for key in order:
        name, n = key
        label = os.path.relpath(name, "rulebooks") if not os.path.isabs(name) else name
        if n is None:                  # the rulebook itself failed in this checkout
            print(f"{label:28s} {'-':>3s}  {'-':9s} {'-':>10s} {'-':>10s}  -  "
                  f"(new: {errors['new'][key]})")
            continue
        new = best["new"].get(key)
        old = best["old"].get(key)
        why = errors["old"].get(key) or errors["old"].get((name, None)) or \
            "no such player count in the old checkout"
        for p in paths:
            if p == "narrated" and not args.narrated:
                continue
            nv = new.get(p) if new else None
            ov = old.get(p) if old else None
            ns = f"{nv:10,.0f}" if nv else f"{'-':>10s}"
            os_ = f"{ov:10,.0f}" if ov else f"{'-':>10s}"
            if new is None:
                ratio = f"-  (new: {errors['new'].get(key, '?')})"
            elif old is None:
                ratio = f"-  (old: {why})"
            elif nv and ov:
                ratio = f"{faster(nv, ov):15s}"
            else:
                ratio = f"{'-':15s}"
                if not ov:
                    ratio += " (old: no playout)" if p == "playout" else ""
            extra = ""
            if p == "apply" and new and old:
                a, b = old["counts"], new["counts"]
                extra = (f" {sum(a) / len(a):.1f} -> {sum(b) / len(b):.1f}"
                         f" ({'the same decision counts' if a == b else 'other games'})")
            print(f"{label:28s} {n:3d}  {p:9s} {os_} {ns}  {ratio}{extra}".rstrip(), flush=True)


def main() -> None:
    """Measure the given rulebooks (default: all) and print one line per player count."""
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  .venv/bin/python benchmarks/bench_rulebooks.py --games 40\n"
               "  PYTHONPATH=../old-checkout .venv/bin/python benchmarks/bench_rulebooks.py "
               "--games 40 --variants\n"
               "  .venv/bin/python benchmarks/bench_rulebooks.py --against ../old-checkout "
               "--games 20 --repeat 3 --narrated rulebooks/manila.rules")
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
    ap.add_argument("--cpu", action="store_true",
                    help="time by the process's CPU seconds (time.process_time), not the wall "
                         "clock (--against always does)")
    ap.add_argument("--against", metavar="CHECKOUT",
                    help="measure this checkout and CHECKOUT (another checkout of this project, "
                         "e.g. git worktree add ../before37 60f61da) in fresh processes, rounds "
                         "alternated, and print both rates and new / old per line and path")
    ap.add_argument("--repeat", type=int, default=None,
                    help="with --against: rounds, each checkout's best printed (default: 3)")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("rulebooks", nargs="*", metavar="RULEBOOK",
                    help="rulebook files (default: rulebooks/*.rules of the measured checkout)")
    args = ap.parse_args()
    global clock
    if args.cpu or args.json or args.against:
        clock = time.process_time
    if args.repeat is not None and not args.against:
        ap.error("--repeat is for --against")
    if args.repeat is None:
        args.repeat = 3
    if args.repeat < 1 or args.games < 1:
        ap.error("--repeat and --games must be at least 1")
    if args.against:
        against(args, ap)
        return
    if args.json:
        emit_json(args)
        return
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
            try:
                line = measure(prog, n, args.games, args.seed, vm=True)
            except NotTheSameGames as exc:
                sys.exit(f"{name} {n}p: {exc}")
            counts, sec, psec, vsec = line["counts"], line["sec"], line["psec"], line["vsec"]
            total = sum(counts)
            cols = f"{total / args.games:9.1f} {total / sec:10,.0f} {args.games / sec:8.1f}"
            if psec is not None:
                matched += 1
                cols += f" {total / psec:11,.0f} {args.games / psec:8.1f} {sec / psec:6.2f}x"
                cols += f" {total / vsec:9,.0f}" if vsec is not None else f" {'-':>9s}"
            else:
                cols += f" {'-':>11s} {'-':>8s} {'-':>7s} {'-':>9s}"
            size, core, clone_us = memory(prog, n, counts, args.seed, args.mem_games, args.clones)
            print(f"{name:40s} {n:3d} {cols} {size:9,.0f} {core:9,.0f} {clone_us:8.1f}", flush=True)
            if args.narrated:
                ndec, nsec, nchance = narrated_loop(prog, args.games, n, args.seed, clock)
                print(f"{'  narrated':40s} {n:3d} {ndec / args.games:9.1f} {ndec / nsec:10,.0f} "
                      f"{args.games / nsec:8.1f}  (+ {nchance / args.games:.1f} chance steps/game; "
                      f"apply d/s / narrated d/s {(total / sec) / (ndec / nsec):.2f}x)", flush=True)
    if matched:
        print(f"same games: in all {matched} lines every game made the same decisions (count and "
              f"history) through playout as through apply")


if __name__ == "__main__":
    main()
