"""Where the tested seat's games went, round by round: each game of a results file of
benchmarks/bench_agents.py (or of benchmarks/anchor_answers.py, with --rulebook) is replayed
from its decision log, and at the start of each round
every seat's player fields named by `--field` are read (a number as it is, a truth value as 0
or 1, a bag or a map of numbers as the sum of its counts, a list by its length); the means are
printed per round, the tested seat's beside the other seats' (with `--per-game`, each game's
tested seat, round by round and at the end, instead) (issue 36's tables of how a
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
from money_by_decision import games as game_lines                     # noqa: E402
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


def _field_index(prog: Any, rulebook: str, fields: list[str]) -> list[int]:
    names = [f.name for f in prog.rb.player_fields]
    missing = [f for f in fields if f not in names]
    if missing:
        raise SystemExit(f"{rulebook}: no player field {missing[0]!r}: it has "
                         f"{', '.join(names)}")
    return [names.index(f) for f in fields]


def replay(r: dict, fields: list[str]) -> Optional[tuple[list[tuple[int, list[list[float]]]],
                                                         list[list[float]]]]:
    """One game of a results file replayed: ([(round, each seat's fields at its start)...],
    each seat's fields after the log's last step); None where the rulebook no longer replays
    the game (edited since)."""
    cfg = r["config"]
    prog = _program(cfg["rulebook"])
    ix = _field_index(prog, cfg["rulebook"], fields)
    s = prog.new_game(cfg["players"], r["seed"], narrate=True,
                      explicit_chance=r.get("recorded", True))

    def read() -> list[list[float]]:
        return [[amount(pl[j]) for j in ix] for pl in s.players]
    rounds: list[tuple[int, list[list[float]]]] = []
    try:
        for i in r["history"]:
            if not rounds or s.round != rounds[-1][0]:
                rounds.append((s.round, read()))
            prog.apply(s, i)
    except MercatorError:
        return None
    return rounds, read()


def tabulate(records: list[dict], fields: list[str]) -> tuple[int, dict[tuple[int, bool], list[float]]]:
    """(games replayed, {(round, tested): [sum of each field..., seats counted]}); a game the
    rulebook no longer replays (edited since) is left out."""
    acc: dict[tuple[int, bool], list[float]] = defaultdict(lambda: [0.0] * (len(fields) + 1))
    games = 0
    for r in records:
        got = replay(r, fields)
        if got is None:
            continue
        games += 1
        for rnd, seats in got[0]:
            for p, values in enumerate(seats):
                row = acc[(rnd, p == r["tested"])]
                for k, x in enumerate(values):
                    row[k] += x
                row[-1] += 1
    return games, acc


def per_game(records: list[dict], fields: list[str]) -> list[str]:
    """One line per game and field: the tested seat's value at the start of each round, then
    after the log's last step (the end of the game) — to find the games where something
    happened, e.g. a level lost in the last round."""
    lines = []
    for r in records:
        got = replay(r, fields)
        if got is None:
            lines.append(f"seed {r['seed']}: no longer replays (the rulebook changed)")
            continue
        rounds, end = got
        t = r["tested"]
        for k, f in enumerate(fields):
            lines.append(f"seed {r['seed']:<5} seat {t} {f:>10s}: "
                         + " ".join(f"{seats[t][k]:g}" for _, seats in rounds)
                         + f" | end {end[t][k]:g}")
    return lines


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", help="a results file of benchmarks/bench_agents.py (matches) or "
                                    "benchmarks/anchor_answers.py")
    ap.add_argument("--rulebook", help="the rulebook of anchor_answers.py's lines")
    ap.add_argument("--players", type=int, default=3,
                    help="the players of anchor_answers.py's lines (3)")
    ap.add_argument("--field", action="append", required=True,
                    help="a player field to read at each round's start (repeatable)")
    ap.add_argument("--games", type=int, help="only the first N games")
    ap.add_argument("--per-game", action="store_true",
                    help="each game's tested seat instead: its fields at each round's start and "
                         "at the end")
    a = ap.parse_args(argv)
    try:
        records = [{"config": {"rulebook": rb, "players": n}, "seed": seed, "tested": seat,
                    "history": history, "recorded": recorded}
                   for rb, n, seed, seat, history, recorded
                   in game_lines(a.results, a.rulebook, a.players)]
    except (OSError, ValueError, KeyError) as e:
        print(f"{a.results}: cannot read the results: {e}", file=sys.stderr)
        return 2
    records = records[:a.games] if a.games else records
    if not records:
        print(f"{a.results}: no match games with their decision logs", file=sys.stderr)
        return 1
    if a.per_game:
        print("the tested seat's fields at the start of each round | at the end")
        print("\n".join(per_game(records, a.field)))
        return 0
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
