"""Where the tested seat's games went, round by round: each game of a results file of
benchmarks/bench_agents.py is replayed from its decision log, and at the start of each round
every seat's player fields named by `--field` are read (a number as it is, a truth value as 0
or 1, a bag or a map of numbers as the sum of its counts, a list by its length); the means are
printed per round, the tested seat's beside the other seats' (issue 36's tables of how a
searcher's games go differently from the anchors': money, levels and loans in Die Händler;
silver, goods, gold and spice in Felinia, docs/agents.md).

  .venv/bin/python benchmarks/positions_by_round.py benchmarks/results/s24_dh_level.jsonl \\
      --field money --field level --field loans
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from typing import Any, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_agents import _program                                     # noqa: E402
from decisions_by_seat import load_matches                           # noqa: E402
from mercator.dsl.errors import MercatorError                         # noqa: E402


def amount(v: Any) -> float:
    """A field's value as one number: a number itself, a truth value 0 or 1, a bag or a map of
    numbers the sum of its values, a list (or a map of other things) its length."""
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, dict):
        vals = list(v.values())
        if all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vals):
            return float(sum(vals))
        return float(sum(amount(x) for x in vals))
    if isinstance(v, (list, tuple)):
        return float(len(v))
    return 0.0


def tabulate(records: list[dict], fields: list[str]) -> tuple[int, dict[tuple[int, bool], list[float]]]:
    """(games replayed, {(round, tested): [sum of each field..., seats counted]}); a game the
    rulebook no longer replays (edited since) is left out."""
    acc: dict[tuple[int, bool], list[float]] = defaultdict(lambda: [0.0] * (len(fields) + 1))
    games = 0
    for r in records:
        cfg = r["config"]
        prog = _program(cfg["rulebook"])
        names = [f.name for f in prog.rb.player_fields]
        missing = [f for f in fields if f not in names]
        if missing:
            raise SystemExit(f"{cfg['rulebook']}: no player field {missing[0]!r}: it has "
                             f"{', '.join(names)}")
        ix = [names.index(f) for f in fields]
        s = prog.new_game(cfg["players"], r["seed"], narrate=True, explicit_chance=True)
        part: dict[tuple[int, bool], list[float]] = defaultdict(lambda: [0.0] * (len(fields) + 1))
        last: Optional[int] = None
        try:
            for i in r["history"]:
                if s.round != last:
                    last = s.round
                    for p, pl in enumerate(s.players):
                        row = part[(s.round, p == r["tested"])]
                        for k, j in enumerate(ix):
                            row[k] += amount(pl[j])
                        row[-1] += 1
                prog.apply(s, i)
        except MercatorError:
            continue
        games += 1
        for key, row in part.items():
            acc[key] = [a + b for a, b in zip(acc[key], row)]
    return games, acc


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", help="a results file of benchmarks/bench_agents.py (matches)")
    ap.add_argument("--field", action="append", required=True,
                    help="a player field to read at each round's start (repeatable)")
    ap.add_argument("--games", type=int, help="only the first N games")
    a = ap.parse_args(argv)
    try:
        records = [r for r in load_matches(a.results) if "history" in r]
    except (OSError, ValueError) as e:
        print(f"{a.results}: cannot read the results: {e}", file=sys.stderr)
        return 2
    records = records[:a.games] if a.games else records
    if not records:
        print(f"{a.results}: no match games with their decision logs", file=sys.stderr)
        return 1
    games, acc = tabulate(records, a.field)
    print(f"{games} games replayed; means at the start of each round, the tested seat's, then "
          "the other seats'")
    print("round  seat    " + "  ".join(f"{f:>10s}" for f in a.field))
    for (rnd, tested), row in sorted(acc.items(), key=lambda kv: (kv[0][0], not kv[0][1])):
        n = row[-1]
        print(f"{rnd:5d}  {'tested' if tested else 'others':6s}  "
              + "  ".join(f"{x / n:10.2f}" for x in row[:-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
