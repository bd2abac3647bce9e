"""Offers posted and accepted per game in a rulebook's deal windows, seat by seat, with searching
seats among the bots (issue 38: "bots negotiate in every deal window: measure offers posted and
accepted per game by searching seats").

It plays --games games new_game(players, seed + i) between the bots --seats names (the specs of
`mercator simulate --seats`, one per seat or one for all; default: an ISMCTS seat first, random
seats after it) and counts, for each seat, at every decision it makes in a deal window:
- posted: offers it posted (the last step of a draft, `post`);
- accepted: offers made to it that it accepted (`accept #...`);
- taken: offers it made that another seat accepted;
- last answers: decisions asked when a window reached its end (docs/language.md §4.17).
It prints them per game, with the games' seconds.

    .venv/bin/python benchmarks/deals_by_searchers.py rulebooks/genoa.rules --players 3 \\
        --games 4 --seats ismcts:50,random,random
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from mercator.dsl.loader import load  # noqa: E402
from mercator.interpreter.agents.base import agent_seed, play_out  # noqa: E402
from mercator.interpreter.agents.spec import for_rulebook, make_agent, parse_spec  # noqa: E402
from mercator.interpreter.compiler import compile_program  # noqa: E402
from mercator.interpreter.engine.exprs import RuleError  # noqa: E402

ACCEPT = re.compile(r"accept #\d+ P(\d+) to P(\d+)")
COUNTS = ("posted", "accepted", "taken", "last answers")


def play(prog: Any, players: int, seed: int, specs: list[Any]) -> list[dict[str, int]]:
    """One game; per seat, the counts of COUNTS."""
    agents = [make_agent(for_rulebook(sp, prog.bot_settings), agent_seed(seed, p), 1)
              for p, sp in enumerate(specs)]
    record = any(sp.needs_record for sp in specs)
    counts = [dict.fromkeys(COUNTS, 0) for _ in range(players)]

    def on_step(state: Any, node: Any, idx: int, label: str) -> None:
        vt = getattr(node, "vtype", None)
        if not (isinstance(vt, tuple) and vt[0] == "deal"):
            return
        seat = node.player
        if "the window is closing" in node.prompt:
            counts[seat]["last answers"] += 1
        if label == "post":
            counts[seat]["posted"] += 1
        m = ACCEPT.match(label)
        if m:
            counts[seat]["accepted"] += 1
            counts[int(m.group(1)) - 1]["taken"] += 1

    try:
        s = prog.new_game(players, seed, narrate=record, explicit_chance=record)
        play_out(prog, s, agents, on_step)
    finally:
        for a in agents:
            close = getattr(a, "close", None)
            if close is not None:
                close()
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rulebook")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--seats", default="", help="bot specs, comma-separated (default: "
                    "ismcts:50 then random)")
    a = ap.parse_args()
    res = load(a.rulebook)
    if res.rulebook is None:
        sys.exit(f"{a.rulebook}: does not load; run `mercator check {a.rulebook}`")
    prog = compile_program(res.rulebook)
    texts = a.seats.split(",") if a.seats else ["ismcts:50"] + ["random"] * (a.players - 1)
    if len(texts) == 1:
        texts = texts * a.players
    if len(texts) != a.players:
        sys.exit(f"{len(texts)} seat specs for {a.players} players")
    specs = [parse_spec(t) for t in texts]
    total = [dict.fromkeys(COUNTS, 0) for _ in range(a.players)]
    t0 = time.perf_counter()
    played = 0
    for i in range(a.games):
        try:
            counts = play(prog, a.players, a.seed + i, specs)
        except RuleError as exc:            # a rule error is a finding: say it, go on
            print(f"game {a.seed + i}: rule error: {exc.message}", file=sys.stderr)
            continue
        played += 1
        for seat, c in enumerate(counts):
            for k in COUNTS:
                total[seat][k] += c[k]
    secs = time.perf_counter() - t0
    if not played:
        sys.exit("no game ended")
    print(f"{os.path.basename(a.rulebook)} · {a.players} players · {played} games from seed "
          f"{a.seed} ({a.games - played} stopped by a rule error) · "
          f"{secs / a.games:.1f} s a game")
    print(f"{'seat':<6}{'bot':<14}" + "".join(f"{k + '/game':>18}" for k in COUNTS))
    for seat, (t, c) in enumerate(zip(texts, total)):
        print(f"P{seat + 1:<5}{t:<14}" + "".join(f"{c[k] / played:>18.2f}" for k in COUNTS))


if __name__ == "__main__":
    main()
