"""Python bytecode instructions a batch of seeded random playouts executes, per decision, in all
and by function and line: a profile the machine's load does not move.

    .venv/bin/python benchmarks/profile_opcodes.py [--games 30] [--players 4] [--seed 0]
                                                   [--top 25] [--lines] RULEBOOK

Python's tracer (sys.settrace with f_trace_opcodes) is told of every bytecode instruction the
interpreter runs; counting them per code object gives an exact profile of where a playout's
work is, the same on every run (PYTHONHASHSEED aside), which a timing profile on this shared
machine is not. A bytecode instruction is not a unit of time (a call costs more than a load, and
what runs in C is not counted: a builtin's inner loop counts as one instruction), so this says
where to look and how much of the Python-level work a change removed; bench_instructions.py
counts machine instructions, C included, for the overall figure.

The games are played as bench_instructions.py plays them (`prog.playout(s, Random(seed + i +
1000003))` after one untimed game); the engine is this checkout's, or an older checkout's on
PYTHONPATH (benchmarks/bench_common.py). It prints the total per decision, then the functions
(generated code by its name: `<rollout proc placement_round>`, `<fn free_paid_spaces>`, and the
engine's by file) with their share; with --lines, the lines too.
"""
from __future__ import annotations

import argparse
import collections
import os
import random
import sys
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    ap = argparse.ArgumentParser(
        description="Bytecode instructions per decision of seeded random playouts, by function "
                    "(exact, unlike a timing profile)",
        epilog="example: .venv/bin/python benchmarks/profile_opcodes.py --games 30 --players 4 "
               "rulebooks/manila.rules")
    ap.add_argument("rulebook")
    ap.add_argument("--games", type=int, default=30)
    ap.add_argument("--players", type=int, default=0, help="default: the rulebook's smallest")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--top", type=int, default=25, help="functions (and lines) to list")
    ap.add_argument("--lines", action="store_true", help="list the hottest lines too")
    args = ap.parse_args()
    if args.games < 1 or args.top < 0:
        ap.error("--games must be at least 1 and --top at least 0")
    if not os.path.isfile(args.rulebook):
        ap.error(f"{args.rulebook}: no such rulebook")
    sys.path.insert(0, HERE)
    from bench_common import describe, import_engine
    load, compile_program, checkout, _api = import_engine()
    if "mercator" in sys.modules:        # this layout: the checkout the package came from
        checkout = os.path.dirname(os.path.dirname(os.path.abspath(
            str(sys.modules["mercator"].__file__))))
    res = load(args.rulebook)
    if not res.ok or res.rulebook is None:
        sys.exit(f"{args.rulebook} does not check")
    prog = compile_program(res.rulebook)
    players = args.players or prog.min_players
    if not prog.min_players <= players <= prog.max_players:
        ap.error(f"{players} players: the rulebook is for {prog.min_players}..{prog.max_players}")

    def play(i: int) -> int:
        s = prog.new_game(players, args.seed + i)
        return int(prog.playout(s, random.Random(args.seed + i + 1_000_003)))
    play(-1)
    funcs: collections.Counter = collections.Counter()
    lines: collections.Counter = collections.Counter()

    def opcode(frame: Any, event: str, arg: Any) -> Any:
        if event == "opcode":
            code = frame.f_code
            funcs[(code.co_filename, code.co_name)] += 1
            lines[(code.co_filename, code.co_name, frame.f_lineno)] += 1
        return opcode

    def call(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        return opcode
    sys.settrace(call)
    try:
        n = sum(play(i) for i in range(args.games))
    finally:
        sys.settrace(None)
    total = sum(funcs.values())

    def where(path: str) -> str:
        return os.path.relpath(path, checkout) if os.path.isabs(path) else path
    print(f"engine: {describe(checkout)}")
    print(f"{args.rulebook}, {players} players, {args.games} games, seeds {args.seed}.."
          f"{args.seed + args.games - 1}: {n} decisions, {total:,} bytecode instructions, "
          f"{total / n:,.1f} a decision")
    print(f"{'per dec':>8s} {'share':>6s}  function")
    for (path, name), v in funcs.most_common(args.top):
        print(f"{v / n:8.1f} {100 * v / total:5.1f}%  {name}  {where(path)}")
    if args.lines:
        print(f"\n{'per dec':>8s} {'share':>6s}  line")
        for (path, name, line), v in lines.most_common(args.top):
            print(f"{v / n:8.1f} {100 * v / total:5.1f}%  {name}  {where(path)}:{line}")


if __name__ == "__main__":
    main()
