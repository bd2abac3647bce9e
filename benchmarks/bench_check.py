"""How long checking takes: the shipped rulebooks one by one, `import dsl.loader`, and large
generated rulebooks (checking should grow linearly).

1. Rulebooks: in a fresh process, parse + check every shipped rulebook, variant and library
   (dsl.loader.load, in the order `mercator check rulebooks/*.rules rulebooks/variants/*.rules
   rulebooks/lib/*.rules` takes them), printing the milliseconds of each and the total. The first
   file pays for what a process does once: importing the parser and the checker and making the
   parser (read from the per-user cache, or built when --no-cache). A variant's base, loaded just
   before, is not checked again. Each number is the median of --runs fresh processes.
2. `import dsl.loader` in a fresh process, median of --runs.
3. Large files: rulebooks with N constants (each using another, declared last to first, so the
   dependency order has work to do) and with N procedures (each unused, so each gets a W250
   warning), for N in --sizes, checked in-process with dsl.loader.load_text; seconds per file
   and per 1,000 declarations.

    .venv/bin/python benchmarks/bench_check.py [--runs 5] [--no-cache] [--sizes 1000,5000,10000]
                                               [--repeat 1] [--skip-large]
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

HEAD = 'game "Bench" players 2..2\nplayer { gold: int }\n'


def constants(n: int) -> str:
    """A rulebook with n constants, c_i = c_(i/2) + 1, declared last to first."""
    lines = [f"const c{i} = c{i // 2} + 1" for i in range(n - 1, 0, -1)] + ["const c0 = 1"]
    return (HEAD + "\n".join(lines) + "\n"
            + f"round r limit 1 {{ phase main {{ first(players).gold += c{n - 1} }} }}\n"
            + "score p: p.gold\n")


def procedures(n: int) -> str:
    """A rulebook with n procedures, none called (each one is a W250 warning)."""
    lines = [f"proc p{i}(x: int) {{ if x > {i} {{ first(players).gold += x }} }}" for i in range(n)]
    return (HEAD + "\n".join(lines) + "\n"
            + "round r limit 1 { phase main { first(players).gold += 1 } }\nscore p: p.gold\n")


def seconds(text: str, repeat: int) -> float:
    """The fastest of `repeat` checks of the text, in seconds."""
    from mercator.dsl.loader import load_text
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = load_text(text, "bench.rules")
        best = min(best, time.perf_counter() - t0)
        assert not any(d.is_error for d in res.diagnostics), "the generated rulebook has errors"
    return best


def shipped() -> list[str]:
    """The shipped rulebooks, variants and libraries, relative to the project, in check order."""
    return [os.path.relpath(p, ROOT) for pattern in ("*.rules", "variants/*.rules", "lib/*.rules")
            for p in sorted(glob.glob(os.path.join(ROOT, "rulebooks", pattern)))]


def rulebook_times() -> dict[str, float]:
    """Milliseconds of dsl.loader.load for each shipped file, in this (fresh) process."""
    from mercator.dsl.loader import load
    out = {}
    for path in shipped():
        t0 = time.perf_counter()
        res = load(path)
        out[path] = (time.perf_counter() - t0) * 1000
        assert not any(d.is_error for d in res.diagnostics), f"{path} has errors"
    return out


def fresh(args: list[str], no_cache: bool) -> str:
    """The output of this script run with args in a new process, from the project's folder."""
    env = dict(os.environ)
    if no_cache:
        env["MERCATOR_CACHE_DIR"] = ""
    done = subprocess.run([sys.executable, os.path.abspath(__file__), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True)
    return done.stdout


def report_rulebooks(runs: int, no_cache: bool) -> None:
    """Print the median milliseconds of each shipped file and of the total over fresh processes."""
    samples = [json.loads(fresh(["--one-process"], no_cache)) for _ in range(runs)]
    print(f"parse + check in one process (median of {runs} processes; parser "
          f"{'built in the process' if no_cache else 'from the per-user cache'})")
    print(f"{'file':<52} {'ms':>8}")
    for path in samples[0]:
        print(f"{path:<52} {statistics.median(s[path] for s in samples):>8.1f}")
    totals = [sum(s.values()) for s in samples]
    print(f"{'total':<52} {statistics.median(totals):>8.1f}   "
          f"(min {min(totals):.1f}, max {max(totals):.1f})")
    imports = [float(fresh(["--import-time"], no_cache)) for _ in range(runs)]
    print(f"{'import dsl.loader':<52} {statistics.median(imports):>8.1f}", flush=True)


def report_large(sizes: str, repeat: int) -> None:
    """Print one line per generated file: kind, declarations, seconds, seconds per 1,000."""
    kinds: dict[str, Callable[[int], str]] = {"constants": constants, "procedures": procedures}
    print(f"{'file':<12} {'decls':>7} {'seconds':>9} {'s/1000':>8}")
    for kind, make in kinds.items():
        for n in (int(x) for x in sizes.split(",")):
            s = seconds(make(n), repeat)
            print(f"{kind:<12} {n:>7} {s:>9.2f} {s / n * 1000:>8.3f}", flush=True)


def main() -> None:
    """Print the rulebook timings, the import time and the large-file timings."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="fresh processes per rulebook number")
    ap.add_argument("--no-cache", action="store_true",
                    help="build the parser in each process (MERCATOR_CACHE_DIR='')")
    ap.add_argument("--sizes", default="1000,5000,10000")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--skip-large", action="store_true", help="only the shipped rulebooks")
    ap.add_argument("--one-process", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--import-time", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.import_time:
        t0 = time.perf_counter()
        import mercator.dsl.loader  # noqa: F401
        print((time.perf_counter() - t0) * 1000)
        return
    if args.one_process:
        print(json.dumps(rulebook_times()))
        return
    report_rulebooks(args.runs, args.no_cache)
    if not args.skip_large:
        print()
        report_large(args.sizes, args.repeat)


if __name__ == "__main__":
    main()
