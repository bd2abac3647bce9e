"""What happened to each seat, by the game's own log: each game of a results file replayed, and
the log lines that match a pattern counted per game, the tested seat beside an average other
seat — how many barrels a seat sold and for how much, how many wagons it won (docs/agents.md,
"Die Händler: barrels bought and never loaded").

    .venv/bin/python benchmarks/log_lines.py benchmarks/results/s28_dh/default_300.jsonl \\
        --rulebook rulebooks/die_haendler.rules \\
        --line 'sold=^P(?P<seat>\\d) sells \\S+ (from|in) \\S+ for (?P<amount>\\d+)$' \\
        --line 'wagons won=^P(?P<seat>\\d) wins \\S+ for (?P<amount>\\d+)$'

A pattern is a regular expression over a log line as the rules wrote it (its parts joined by
spaces: "P2 sells salt in city4 for 700"), with a group named `seat` (the seat's number as the
log prints it, P1 = 1) and, optionally, one named `amount`, a whole number summed as well. Reads
the results files of benchmarks/bench_agents.py and the lines of anchor_answers.py
(`--rulebook`), as money_by_decision.py does.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections import defaultdict
from typing import Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_agents import _program                                     # noqa: E402
from money_by_decision import games                                   # noqa: E402


def log_texts(record: list) -> list[str]:
    """The log lines of a game's record, as the rules wrote them (every seat's and the
    table's: this is a replay's god view, not any seat's)."""
    return [" ".join(part[0] for part in e[2]) for e in record if e[0] == "log"]


def pattern(text: str) -> tuple[str, re.Pattern]:
    """NAME=REGEX, checked: the regex compiles and has a group named `seat`."""
    name, eq, rx = text.partition("=")
    if not eq or not name.strip():
        raise ValueError(f"{text!r}: give NAME=REGEX, e.g. 'sold=^P(?P<seat>\\d) sells'")
    try:
        compiled = re.compile(rx)
    except re.error as e:
        raise ValueError(f"{text!r}: not a regular expression ({e})") from None
    if "seat" not in compiled.groupindex:
        raise ValueError(f"{text!r}: the pattern needs a group named seat, e.g. P(?P<seat>\\d)")
    return name.strip(), compiled


def count(lines: list[str], tested: int, patterns: list[tuple[str, re.Pattern]],
          acc: dict) -> None:
    """Add one game's matches to acc[(name, is_tested)] = [lines, amount]."""
    for text in lines:
        for name, rx in patterns:
            m = rx.search(text)
            if m is None:
                continue
            slot = acc[(name, int(m.group("seat")) - 1 == tested)]
            slot[0] += 1
            if "amount" in rx.groupindex and m.group("amount") is not None:
                slot[1] += int(m.group("amount"))


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", help="results files (bench_agents.py or anchor_answers.py)")
    ap.add_argument("--line", action="append", required=True, metavar="NAME=REGEX",
                    help="log lines to count: a regex with a group named seat (and amount)")
    ap.add_argument("--rulebook", help="the rulebook of anchor_answers.py's lines")
    ap.add_argument("--players", type=int, default=3,
                    help="the players of anchor_answers.py's lines (3)")
    a = ap.parse_args(argv)
    try:
        patterns = [pattern(t) for t in a.line]
    except ValueError as e:
        ap.error(str(e))
    todo = [g for path in a.results for g in games(path, a.rulebook, a.players)]
    if not todo:
        print("no games with their history in the results", file=sys.stderr)
        return 1
    acc: dict = defaultdict(lambda: [0, 0])
    others = 0
    for rulebook, players, seed, tested, history, recorded in todo:
        prog = _program(rulebook)
        s = prog.new_game(players, seed, narrate=True, explicit_chance=recorded)
        for i in history:
            prog.apply(s, i)
        count(log_texts(s.record), tested, patterns, acc)
        others += players - 1
    n = len(todo)
    print(f"{n} games; a game: the tested seat | an other seat (lines, and the amounts summed)")
    for name, rx in patterns:
        me, other = acc[(name, True)], acc[(name, False)]
        row = f"  {name:24s} {me[0] / n:9.1f} {other[0] / others:9.1f}"
        if "amount" in rx.groupindex:
            row += f"   amount {me[1] / n:10.1f} {other[1] / others:10.1f}"
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
