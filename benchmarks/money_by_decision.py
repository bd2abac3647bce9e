"""Where a seat's money goes: each game of a results file replayed, and every change of a player
field (Manila's `pesos`, Die Händler's `money`) put down to the decision being applied — the
seat's own (its bid, its placement, its purchase) or, where the field changed while another seat
decided or chance was drawn, to that (a payout, an auction's price paid when the last rival
passes) — per game, the tested seat beside an average other seat (docs/agents.md, "Where the
points go").

    .venv/bin/python benchmarks/money_by_decision.py benchmarks/results/s21_halving_manila.jsonl \\
        --field pesos

Reads the match games of benchmarks/bench_agents.py's results files (their `tested` seat) and
the lines of benchmarks/anchor_answers.py (their `seat`; `--rulebook` names the rulebook, which
those lines do not).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import defaultdict
from typing import Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_agents import _program, seat_spec                          # noqa: E402
from mercator.dsl.errors import MercatorError                         # noqa: E402
from mercator.interpreter.engine.nodes import Decision                # noqa: E402


def games(path: str, rulebook: Optional[str],
          players: int = 3) -> list[tuple[str, int, int, int, list[int], bool]]:
    """(rulebook, players, seed, tested seat, history, recorded) of each game in a results
    file; recorded: the game was narrated with its chance draws among its decisions (a seat
    that reads the log sat at it: bench_agents.one_game; anchor_answers.py's games always), so
    that a replay must be too."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            if "config" in r:
                if r["config"].get("kind") != "match":
                    continue
                out.append((r["config"]["rulebook"], r["config"]["players"], r["seed"],
                            r["tested"], r["history"],
                            "seats" not in r         # (a line without its seats: as recorded)
                            or any(seat_spec(x).needs_record for x in r["seats"])))
            elif "seat" in r and "history" in r:
                if rulebook is None:
                    raise SystemExit(f"{path}: lines of anchor_answers.py: say --rulebook")
                out.append((rulebook, players, r["seed"], r["seat"], r["history"], True))
    return out


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", help="results files (bench_agents.py or anchor_answers.py)")
    ap.add_argument("--field", required=True, help="a player field holding money, e.g. pesos")
    ap.add_argument("--rulebook", help="the rulebook of anchor_answers.py's lines")
    ap.add_argument("--players", type=int, default=3,
                    help="the players of anchor_answers.py's lines (3)")
    ap.add_argument("--width", type=int, default=40, help="characters of a prompt shown")
    ap.add_argument("--rounds", metavar="A-B",
                    help="only the changes made while the round counter is from A to B (e.g. "
                         "0-1: the setup and the first round); the field at the end is left out")
    a = ap.parse_args(argv)
    lo, hi = 0, None
    if a.rounds is not None:
        m = re.fullmatch(r"(\d{1,6})-(\d{1,6})", a.rounds.strip())
        if not m or int(m.group(1)) > int(m.group(2)):
            ap.error(f"--rounds {a.rounds!r}: give two round numbers A-B with A <= B, e.g. 0-1")
        lo, hi = int(m.group(1)), int(m.group(2))
    todo = [g for path in a.results for g in games(path, a.rulebook, a.players)]
    if not todo:
        print("no games with their history in the results", file=sys.stderr)
        return 1
    acc = {True: defaultdict(float), False: defaultdict(float)}
    others = played = 0             # the other seats counted, the games replayed
    for rulebook, players, seed, tested, history, recorded in todo:
        prog = _program(rulebook)
        names = [f.name for f in prog.rb.player_fields]
        if a.field not in names:
            raise SystemExit(f"{rulebook}: no player field {a.field!r}: it has {', '.join(names)}")
        k = names.index(a.field)
        s = prog.new_game(players, seed, narrate=False, explicit_chance=recorded)
        part = {True: defaultdict(float), False: defaultdict(float)}
        try:
            for i in history:
                if hi is not None and s.round > hi:
                    break
                counted = s.round >= lo
                pend = s.pending
                before = [pl[k] for pl in s.players]
                who = pend.player if isinstance(pend, Decision) else None
                prog.apply(s, i)
                for p, pl in enumerate(s.players):
                    d = pl[k] - before[p]
                    if d and counted:
                        what = pend.prompt.split(" (")[0][:a.width] if who is not None else ""
                        key = what if who == p else \
                            f"others' {what}" if who is not None else "chance and payouts"
                        part[p == tested][key] += d
        except MercatorError:
            continue                  # the rulebook no longer replays this game (edited since)
        played += 1
        if hi is None:
            for p, pl in enumerate(s.players):
                part[p == tested][f"{a.field} at the end"] += pl[k]
        others += players - 1
        for side in (True, False):
            for key, v in part[side].items():
                acc[side][key] += v
    during = "" if a.rounds is None else f", rounds {lo} to {hi}"
    print(f"{played} games; {a.field} a game{during}: the tested seat | an other seat")
    for key in sorted(set(acc[True]) | set(acc[False])):
        print(f"  {key:{a.width + 9}s} {acc[True][key] / played:10.1f} "
              f"{acc[False][key] / max(1, others):10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
