"""What the tested seat chose, beside what the other seats chose, over the games of a results
file of benchmarks/bench_agents.py (issue 36's tables of how a searcher plays differently from
the anchors: loans taken, levels climbed, barrels bought).

Each game is replayed from its decision log; every decision of more than one option is
counted by its prompt (its first `--width` characters) and the label of the option taken
(`--width` characters too). The tested seat's count is a total over the games; the others'
is per other seat (their total divided by players - 1), so the two columns compare one seat
with one seat.

  .venv/bin/python benchmarks/decisions_by_seat.py benchmarks/results/measure_1s_groups.jsonl \\
      --prompt loan --prompt climb

With `--by-prompt` the options are not told apart: the decisions of each prompt, the tested
seat's and another's, most first (what a searcher spends its time on: Genoa's deal drafts,
docs/agents.md, session 37).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from typing import Any, Iterable, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_agents import _program                                     # noqa: E402
from mercator.interpreter.engine.nodes import Decision                # noqa: E402


def tabulate(records: Iterable[dict], width: int = 30,
             program: Optional[Any] = None, by_prompt: bool = False
             ) -> tuple[int, Counter, Counter]:
    """(games, the tested seat's counts, the other seats' counts) by (prompt, label), or by
    (prompt, "") with `by_prompt`."""
    mine: Counter = Counter()
    others: Counter = Counter()
    games = 0
    progs: dict[str, Any] = {}
    for r in records:
        cfg = r["config"]
        prog = program or progs.setdefault(cfg["rulebook"], _program(cfg["rulebook"]))
        s = prog.new_game(cfg["players"], r["seed"], narrate=True, explicit_chance=True)
        for i in r["history"]:
            p = s.pending
            if isinstance(p, Decision) and p.count > 1:
                key = (p.prompt[:width], "" if by_prompt else p.options[i].label[:width])
                (mine if p.player == r["tested"] else others)[key] += 1
            prog.apply(s, i)
        games += 1
    return games, mine, others


def load_matches(path: str, agent: Optional[str] = None) -> list[dict]:
    """The match games of a results file (of `agent`'s tested spec, if given); OSError or
    ValueError when the file cannot be read."""
    with open(path, encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    return [r for r in records if r.get("config", {}).get("kind") == "match"
            and (agent is None or r["config"].get("agent") == agent)]


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", help="a results file of benchmarks/bench_agents.py (matches)")
    ap.add_argument("--agent", help="only the games of this tested spec")
    ap.add_argument("--prompt", action="append", default=[],
                    help="only decisions whose prompt contains this (repeatable)")
    ap.add_argument("--width", type=int, default=30, help="characters of a prompt and a label")
    ap.add_argument("--by-prompt", action="store_true",
                    help="count the decisions by prompt alone, most first")
    a = ap.parse_args(argv)
    try:
        records = load_matches(a.results, a.agent)
    except (OSError, ValueError) as e:
        print(f"{a.results}: cannot read the results: {e}", file=sys.stderr)
        return 2
    if not records:
        print(f"{a.results}: no match games{' of ' + a.agent if a.agent else ''}",
              file=sys.stderr)
        return 1
    games, mine, others = tabulate(records, a.width, by_prompt=a.by_prompt)
    per = records[0]["config"]["players"] - 1
    print(f"{games} games; the tested seat's decisions in all, each other seat's")
    keys = sorted(set(mine) | set(others))
    if a.by_prompt:
        keys.sort(key=lambda k: -mine[k])
    for key in keys:
        if a.prompt and not any(x in key[0] for x in a.prompt):
            continue
        label = "" if a.by_prompt else f"{key[1]:{a.width}s}  "
        print(f"{key[0]:{a.width}s}  {label}{mine[key]:7d}  {others[key] / per:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
