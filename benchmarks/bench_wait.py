"""How long a person waits for the bots: the wall-clock seconds of every move a bot makes in a
game played as `mercator play` plays it (issue 36: "a person never waits more than a few
seconds"; the measure: the 95th percentile of a bot's move in Genoa 3p, under 3 s).

Seat 1 stands in for the person: the game's heuristic anchor (benchmarks/heuristic_<game>.py),
or `--person random`; the other seats are `--bots` (default `bot`, the level a person gets
with `--seats human,bot,bot`: a searcher thinking 1 s a move on every core). The game keeps its
record and chance as steps, as `play` does with searching seats. Every bot decision with more
than one option is timed with the wall clock (what a person waits, the root-parallel workers'
start at a seat's first move included); the table gives the count, mean, median, 95th
percentile and the longest, and how many took over 3 and over 10 seconds.

  .venv/bin/python benchmarks/bench_wait.py rulebooks/genoa.rules --players 3 --games 2
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_agents import heuristic_for                               # noqa: E402
from mercator.interpreter.agents.base import RandomAgent, agent_seed, resolve_chance  # noqa: E402
from mercator.interpreter.agents.spec import for_rulebook, make_agent, parse_spec  # noqa: E402
from mercator.interpreter.engine.nodes import Chance                 # noqa: E402
from mercator.interpreter.tools.game import load_game                # noqa: E402


def one_game(prog: Any, players: int, seed: int, bots: str, person: str,
             cap: Optional[int] = None) -> list[float]:
    """The wall seconds of each bot move (more than one option) in the game of `seed`, up to
    `cap` moves (None: the whole game)."""
    spec = parse_spec(bots)
    agents: list[Any] = [make_agent(for_rulebook(spec, prog.bot_settings), agent_seed(seed, p))
                         for p in range(players)]
    agents[0] = heuristic_for(prog)(agent_seed(seed, 0)) if person == "heuristic" \
        else RandomAgent(agent_seed(seed, 0))
    state = prog.new_game(players, seed, narrate=True, explicit_chance=True)
    waits: list[float] = []
    try:
        while not state.over and (cap is None or len(waits) < cap):
            node = state.pending
            if isinstance(node, Chance):
                i = resolve_chance(state)
            elif node.player != 0 and node.count > 1:
                t = time.perf_counter()
                i = agents[node.player].choose(prog, state)
                waits.append(time.perf_counter() - t)
            else:
                i = agents[node.player].choose(prog, state)
            prog.apply(state, i)
    finally:
        for a in agents:
            close = getattr(a, "close", None)
            if close is not None:
                close()
    return waits


def _q(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    return ys[min(len(ys) - 1, int(round(q * (len(ys) - 1))))] if ys else 0.0


def main(argv: Optional[list[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rulebook")
    ap.add_argument("--players", type=int, required=True)
    ap.add_argument("--bots", default="bot", help="the bots' spec (default: bot, i.e. bot:medium)")
    ap.add_argument("--person", choices=("heuristic", "random"), default="heuristic",
                    help="who plays seat 1 in the person's place (default: the game's anchor)")
    ap.add_argument("--games", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0, help="the first game's seed")
    ap.add_argument("--max-moves", type=int, default=None,
                    help="stop each game after this many timed bot moves (a Genoa game with "
                         "its offers has thousands of decisions)")
    a = ap.parse_args(argv)
    prog = load_game(a.rulebook).program
    waits: list[float] = []
    for g in range(a.games):
        got = one_game(prog, a.players, a.seed + g, a.bots, a.person, a.max_moves)
        print(f"  game {g + 1} (seed {a.seed + g}): {len(got)} bot moves, longest {max(got):.2f} s",
              flush=True)
        waits += got
    cut = f" (at most {a.max_moves} moves each)" if a.max_moves is not None else ""
    print(f"{os.path.basename(a.rulebook)} {a.players}p  bots {a.bots}  person {a.person}  "
          f"games {a.games}{cut}  cores {os.cpu_count()}  load {os.getloadavg()[0]:.1f}")
    print(f"{'moves':>6} {'mean s':>7} {'median':>7} {'p95 s':>7} {'max s':>7} {'>3 s':>5} "
          f"{'>10 s':>5}")
    print(f"{len(waits):>6} {sum(waits) / max(1, len(waits)):>7.2f} {_q(waits, 0.5):>7.2f} "
          f"{_q(waits, 0.95):>7.2f} {max(waits, default=0):>7.2f} "
          f"{sum(1 for w in waits if w > 3):>5} {sum(1 for w in waits if w > 10):>5}")


if __name__ == "__main__":
    main()
