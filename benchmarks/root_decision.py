"""What a searcher thinks of one decision: its root's options, their visits and mean rewards,
and its move, beside the game's heuristic anchor's move (issue 36's traces: the bids of an
auction, a boarding, a walk).

Every seat is played by the game's anchor (benchmarks/heuristic_<game>.py; a game without one
by random players) until seat 1 faces
a decision of more than one option whose prompt contains `--prompt` (and with `--pass`, one
that offers a pass); there each `--agent` spec searches the position on one core, and the
table shows the most visited options (and the move groups' edges: the values as one, their
bins). The games come from the seeds alone, so a run is the same on any machine for iteration
budgets.

  .venv/bin/python benchmarks/root_decision.py rulebooks/die_haendler.rules --prompt bid \\
      --agent ismcts:1000:group=none --agent ismcts:1000:group=pass --agent ismcts:1000
"""
from __future__ import annotations

import argparse
import os
import random
import sys
from typing import Any, Optional

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_agents import _program, heuristic_for                     # noqa: E402
from mercator.interpreter.agents.base import RandomAgent, agent_seed  # noqa: E402
from mercator.interpreter.agents.spec import SpecError, for_rulebook, make_agent, parse_spec  # noqa: E402
from mercator.interpreter.engine.chance import weighted_index        # noqa: E402
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal  # noqa: E402


def position(prog: Any, players: int, seed: int, prompt: str, want_pass: bool,
             cap: int = 5000) -> Optional[tuple[Any, Any]]:
    """The game of `seed` played by anchors to seat 1's first decision that matches, and seat
    1's anchor; None if the game ends (or `cap` steps pass) first."""
    try:
        anchor: Any = heuristic_for(prog)
    except SystemExit:                  # a game without an anchor: random players
        anchor = RandomAgent
    agents = [anchor(agent_seed(seed, p)) for p in range(players)]
    s = prog.new_game(players, seed, narrate=True, explicit_chance=True)
    rng = random.Random(seed)
    for _ in range(cap):
        p = s.pending
        if isinstance(p, Terminal):
            return None
        if isinstance(p, Chance):
            prog.apply(s, weighted_index(p.weights, rng.randrange(sum(p.weights))))
            continue
        assert isinstance(p, Decision)
        if p.player == 0 and p.count > 1 and prompt in p.prompt \
                and (p.allow_pass or not want_pass):
            return s, agents[0]
        prog.apply(s, agents[p.player].choose(prog, s) if p.count > 1 else 0)
    return None


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rulebook")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0, help="the game's seed (default 0)")
    ap.add_argument("--prompt", default="", help="a part of the decision's prompt")
    ap.add_argument("--pass", dest="want_pass", action="store_true",
                    help="only a decision that offers a pass")
    ap.add_argument("--agent", action="append", default=[],
                    help="a searcher's spec (repeat for several; default ismcts:1000)")
    ap.add_argument("--top", type=int, default=6, help="options shown (default 6)")
    a = ap.parse_args(argv)
    try:
        specs = [parse_spec(x) for x in a.agent or ["ismcts:1000"]]
    except SpecError as exc:
        ap.error(str(exc))
    if any(sp.kind not in ("mcts", "ismcts") for sp in specs):
        ap.error("--agent names a searcher (mcts or ismcts)")
    prog = _program(a.rulebook)
    found = position(prog, a.players, a.seed, a.prompt, a.want_pass)
    if found is None:
        print(f"seat 1 never faces a decision matching {a.prompt!r} in seed {a.seed}")
        return 1
    s, anchor = found
    node = s.pending
    print(f"{os.path.basename(a.rulebook)} {a.players}p seed {a.seed}: {node.prompt!r}, "
          f"{node.count} options; the anchor: {node.options[anchor.choose(prog, s)].label}")
    for sp in specs:
        agent = make_agent(for_rulebook(sp, prog.bot_settings), 1, cores=1)
        move = node.options[agent.choose(prog, s)].label
        root = agent.last_root
        top = sorted(root.edges.items(), key=lambda kv: -kv[1].n)[:a.top]
        print(f"  {sp}  -> {move}  ({agent.last_iterations} iterations)")
        print("    " + ", ".join(f"{k[:28]} {e.n} ({e.w / e.n:.3f})" for k, e in top if e.n))
        if root.groups:
            print("    groups: " + ", ".join(
                f"{k if isinstance(k, str) else 'bin %d' % k[1]} {e.n} ({e.w / max(1, e.n):.3f})"
                for k, e in root.groups.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
