"""Seconds per decision of a searching bot along the same games, for timing one version of the
code against another side by side.

Every seat is played by a random bot, so the games do not depend on the searcher; at each
decision of the watched seat (seat g mod N in game g) the searcher (`--agent`) is asked too,
and its answer is timed (CPU seconds of this process, less swayed by other work on the machine
than the clock) and thrown away. The searcher sees the game as it would in play: one
decision after the other of the same seat in the same game (an information-set search carries
its trace and worlds from one to the next). `MERCATOR_CODE` names another checkout of the
project to time instead of this one (the same games: they come from the seeds alone); one from
before the package was named mercator is imported by its top-level names (it needs the search
agents, interpreter/agents/, of issue 14).

  .venv/bin/python benchmarks/bench_decision.py rulebooks/manila.rules --players 3 --games 2
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Optional

import importlib  # noqa: E402

CODE = os.environ.get("MERCATOR_CODE") or \
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, CODE)
# the checkout's names: mercator.* since the package rename, the top-level packages before it
PKG = "mercator." if os.path.isdir(os.path.join(CODE, "mercator")) else ""


def _imported(module: str, *names: str) -> list:
    m = importlib.import_module(PKG + module)
    return [getattr(m, n) for n in names]


[load] = _imported("dsl.loader", "load")
RandomAgent, agent_seed, resolve_chance = _imported("interpreter.agents.base", "RandomAgent",
                                                    "agent_seed", "resolve_chance")
make_agent, parse_spec = _imported("interpreter.agents.spec", "make_agent", "parse_spec")
[compile_program] = _imported("interpreter.compiler", "compile_program")
[Chance] = _imported("interpreter.engine.nodes", "Chance")


def one_game(prog: Any, players: int, seed: int, agent_text: str,
             every: int, cap: Optional[int] = None) -> tuple[int, float]:
    """(decisions timed, seconds they took) in the game of `seed`."""
    me = seed % players
    spec = parse_spec(agent_text)
    searcher = make_agent(spec, agent_seed(seed, me))
    bots = [RandomAgent(agent_seed(seed, p)) for p in range(players)]
    state = prog.new_game(players, seed, narrate=True, explicit_chance=True)
    timed, secs, k = 0, 0.0, 0
    while not state.over and (cap is None or timed < cap):
        node = state.pending
        if isinstance(node, Chance):
            i = resolve_chance(state)
        else:
            if node.player == me and node.count > 1:
                if k % every == 0:
                    t = time.process_time()
                    searcher.choose(prog, state)
                    secs += time.process_time() - t
                    timed += 1
                k += 1
            i = bots[node.player].choose(prog, state)
        prog.apply(state, i)
    return timed, secs


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rulebook")
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--agent", default="ismcts:200")
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--every", type=int, default=1,
                    help="time every k-th decision of the seat only (the searcher still sees "
                         "the others' steps)")
    ap.add_argument("--max-decisions", type=int, default=None,
                    help="stop each game after the searcher has been timed this often")
    a = ap.parse_args(argv)
    prog = compile_program(load(a.rulebook).rulebook)
    dec, secs = 0, 0.0
    for g in range(a.games):
        d, s = one_game(prog, a.players, a.seed + g, a.agent, a.every, a.max_decisions)
        dec, secs = dec + d, secs + s
    code = os.environ.get("MERCATOR_CODE") or "this checkout"
    print(f"{os.path.basename(a.rulebook)} {a.players}p  {a.agent}  games {a.games}  "
          f"decisions {dec}  {secs / max(1, dec):.3f} s/decision  ({os.path.basename(code)})")


if __name__ == "__main__":
    main()
