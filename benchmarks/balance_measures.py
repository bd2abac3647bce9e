"""The balance measures (interpreter/tools/balance.py, docs/balance.md "Measures") of one
rulebook over games played with detail, printed as a table.

    .venv/bin/python benchmarks/balance_measures.py rulebooks/manila.rules \
        [--players 4] [--games 100] [--seats prefer] [--seed 0] [--rules]

Games seed .. seed + games - 1, one process; --seats one spec for every seat or one per seat
(comma-separated, as `mercator simulate --seats`). The rule rows (how often each rule ran) are
printed only with --rules, those that never ran always."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # the checkout

from mercator.interpreter.agents.spec import parse_seats  # noqa: E402
from mercator.interpreter.tools.balance import measures  # noqa: E402
from mercator.interpreter.tools.game import load_game  # noqa: E402
from mercator.interpreter.tools.game_detail import rule_names  # noqa: E402
from mercator.interpreter.tools.parallel import play_one  # noqa: E402


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rulebook")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seats", default="random")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-decisions", type=int, default=5000)
    ap.add_argument("--rules", action="store_true", help="print every rule's row")
    a = ap.parse_args(argv)
    prog = load_game(a.rulebook).program
    specs = parse_seats(a.seats, a.players)
    start = time.perf_counter()
    outs = [play_one(prog, a.players, s, specs, a.max_decisions, detail=True)
            for s in range(a.seed, a.seed + a.games)]
    took = time.perf_counter() - start
    print(f"{prog.name}, {a.players} players, seats {a.seats}, {a.games} games "
          f"(seeds {a.seed}..{a.seed + a.games - 1}) with detail in {took:.1f} s")
    rows = [m.row() for m in measures(outs, a.players, prog.stat_names, rule_names(prog))
            if a.rules or not m.name.startswith("rule ") or m.note]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
