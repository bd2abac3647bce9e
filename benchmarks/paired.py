"""Two ways of playing compared seed by seed: results files of benchmarks/anchor_answers.py or
benchmarks/bench_agents.py (matches), a base and one or more others, on the seeds each shares
with the base. A game of the same seed is the same table (the same seats, the same dice until
the tested seat's play differs), so the difference of the tested seat's margin, seed by seed,
has a far smaller spread than either margin: the way issue 36's estimates and settings are
judged (docs/agents.md, "seed by seed").

    .venv/bin/python benchmarks/paired.py base.jsonl other.jsonl [more.jsonl ...]
    .venv/bin/python benchmarks/paired.py base_a.jsonl,base_b.jsonl other_a.jsonl,other_b.jsonl

(files joined by a comma are read as one: a run split over several files).

For each other file: the seeds in common, the games the tested seat won in each (a shared win
counts as won) and those won in one file only, the mean margin in each (the tested seat's score
less the best other seat's), and the mean difference (other less base) with its normal 95%
interval (1.96 standard deviations of the differences over the square root of their number).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Optional

Z95 = 1.96


def load(path: str) -> dict[int, tuple[float, bool]]:
    """{seed: (margin, won)} of the tested seat in each game of a results file; a seed played
    twice keeps its last game. Lines of anchor_answers.py carry their margin; a match of
    bench_agents.py gives it by its scores (the best other seat's score taken off)."""
    out: dict[int, tuple[float, bool]] = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                if "config" in r:
                    if r["config"].get("kind") != "match":
                        continue
                    me, scores = r["tested"], r["scores"]
                    margin = scores[me] - max(x for p, x in enumerate(scores) if p != me)
                    out[r["seed"]] = (float(margin), me in r.get("winners", []))
                else:
                    out[r["seed"]] = (float(r["margin"]), bool(r["won"]))
            except (ValueError, KeyError, TypeError, IndexError) as e:
                raise SystemExit(f"{path}:{n}: not a game of anchor_answers.py or a match of "
                                 f"bench_agents.py ({type(e).__name__}: {e})") from None
    return out


def load_all(paths: str) -> dict[int, tuple[float, bool]]:
    """The games of comma-separated results files, as one (a later file's seed wins)."""
    out: dict[int, tuple[float, bool]] = {}
    for path in paths.split(","):
        out.update(load(path))
    return out


def compare(base: dict[int, tuple[float, bool]],
            other: dict[int, tuple[float, bool]]) -> Optional[dict]:
    """The seed-by-seed comparison of `other` with `base` (None with fewer than 2 common seeds)."""
    seeds = sorted(set(base) & set(other))
    n = len(seeds)
    if n < 2:
        return None
    d = [other[s][0] - base[s][0] for s in seeds]
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    return {"n": n, "won": (sum(base[s][1] for s in seeds), sum(other[s][1] for s in seeds)),
            "only": (sum(base[s][1] and not other[s][1] for s in seeds),
                     sum(other[s][1] and not base[s][1] for s in seeds)),
            "margin": (sum(base[s][0] for s in seeds) / n, sum(other[s][0] for s in seeds) / n),
            "diff": mean, "half": Z95 * sd / math.sqrt(n)}


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base", help="the results file compared against")
    ap.add_argument("others", nargs="+", help="results files compared with the base")
    a = ap.parse_args(argv)
    try:
        base = load_all(a.base)
        others = [(p, load_all(p)) for p in a.others]
    except OSError as e:
        print(f"paired.py: cannot read {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    print(f"against {a.base} ({len(base)} games)")
    worst = 0
    for path, other in others:
        c = compare(base, other)
        if c is None:
            print(f"{path}: fewer than 2 seeds in common with the base")
            worst = 1
            continue
        print(f"{path}: {c['n']} seeds; won {c['won'][0]} | {c['won'][1]} "
              f"(only {c['only'][0]} | {c['only'][1]}); margin {c['margin'][0]:+.2f} | "
              f"{c['margin'][1]:+.2f}; difference {c['diff']:+.2f} ± {c['half']:.2f}")
    return worst


if __name__ == "__main__":
    sys.exit(main())
