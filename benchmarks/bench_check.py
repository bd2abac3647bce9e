"""How long `mercator check` takes on large generated rulebooks (it should grow linearly).

Generates rulebooks with N constants (each using another, declared last to first, so the
dependency order has work to do) and with N procedures (each unused, so each gets a W250
warning), for N in 1k, 5k and 10k, checks each in-process (dsl.loader.load_text, as
`mercator check` does) and prints the seconds per file and per 1,000 declarations.

    .venv/bin/python benchmarks/bench_check.py [--sizes 1000,5000,10000] [--repeat 1]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from dsl.loader import load_text  # noqa: E402

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
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = load_text(text, "bench.rules")
        best = min(best, time.perf_counter() - t0)
        assert not any(d.is_error for d in res.diagnostics), "the generated rulebook has errors"
    return best


def main() -> None:
    """Print one line per generated file: kind, declarations, seconds, seconds per 1,000."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,5000,10000")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    kinds: dict[str, Callable[[int], str]] = {"constants": constants, "procedures": procedures}
    print(f"{'file':<12} {'decls':>7} {'seconds':>9} {'s/1000':>8}")
    for kind, make in kinds.items():
        for n in (int(x) for x in args.sizes.split(",")):
            s = seconds(make(n), args.repeat)
            print(f"{kind:<12} {n:>7} {s:>9.2f} {s / n * 1000:>8.3f}", flush=True)


if __name__ == "__main__":
    main()
