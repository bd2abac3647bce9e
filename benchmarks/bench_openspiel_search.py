"""What OpenSpiel's own searchers pay through the adapter: a state's clone, and seconds a move.

    .venv/bin/python benchmarks/bench_openspiel_search.py [--rulebook manila] [--players 3]
        [--simulations 100] [--moves 6] [--repeat 3] [--against CHECKOUT]

Prints, CPU seconds (process_time), each the best of --repeat rounds:
- clone       pyspiel's `state.clone()` of the adapter's state, µs a clone, at the positions a
              seeded random game passes through (every 10th step to step 200), beside the
              engine's own `State.clone()` of the same positions: what OpenSpiel's MCTS pays at
              every simulation, and its Python algorithms wherever they copy a state;
- mcts        open_spiel.python.algorithms.mcts.MCTSBot with the adapter's RolloutEvaluator,
              --simulations a move, seconds a move over the first --moves moves of a seeded game
              (chance drawn by a seeded random.Random), and the moves it chose;
- ismcts      the adapter's `ismcts_bot` (OpenSpiel's ISMCTSBot drawing its worlds from its own
              seed) the same way;
- a step      µs of one step at a decision, each on its own clone of one position: pyspiel's
              apply_action (C++, which calls back into Python twice), the adapter's
              _apply_action called directly, and the engine's own apply of the same option.
With --against CHECKOUT the same is measured on another checkout in a fresh process and the
two are printed side by side (the moves too: the same moves say the same search).
Needs the openspiel extra.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import checkout_error, describe, run_fresh  # noqa: E402


def positions(game, steps: int = 200, every: int = 10) -> list:
    """Clones of a seeded random game's state every `every` steps (chance included)."""
    st = game.new_initial_state()
    rng = random.Random(1)
    out = []
    for k in range(steps):
        if st.is_terminal():
            break
        if k % every == 0:
            out.append(st.clone())
        st.apply_action(rng.choice(st.chance_outcomes())[0] if st.is_chance_node()
                        else rng.choice(st.legal_actions()))
    return out


def clone_us(states, engine: bool, n: int = 50) -> float:
    """µs a clone, over n clones of each state (pyspiel's clone, or the engine's)."""
    t = time.process_time()
    for st in states:
        if engine:
            s = st._s
            for _ in range(n):
                s.clone()
        else:
            for _ in range(n):
                st.clone()
    return (time.process_time() - t) / (n * len(states)) * 1e6


def step_us(game, n: int = 3000) -> tuple[float, float, float]:
    """µs of one step at a player's decision of a seeded game (its 31st step or the next
    decision after it), each on its own clone: pyspiel's `apply_action` (through C++, which
    asks `current_player` and then calls the adapter's `_apply_action` back in Python), the
    adapter's `_apply_action` called directly, and the engine's `Program.apply` of the option
    that id names — what the pybind round trip costs beside the adapter's own work."""
    st = game.new_initial_state()
    rng = random.Random(1)
    for _ in range(30):
        st.apply_action(rng.choice(st.chance_outcomes())[0] if st.is_chance_node()
                        else rng.choice(st.legal_actions()))
    while st.is_chance_node():
        st.apply_action(st.chance_outcomes()[0][0])
    a = st.legal_actions()[0]
    out = []
    for name in ("apply_action", "_apply_action"):
        copies = [st.clone() for _ in range(n)]
        t = time.process_time()
        for c in copies:
            getattr(c, name)(a)
        out.append((time.process_time() - t) / n * 1e6)
    i = st._menu().take((), a)[1]
    prog = game.su.prog
    states = [st._s.clone() for _ in range(n)]
    t = time.process_time()
    if i is not None:
        for s in states:
            prog.apply(s, i)
    out.append((time.process_time() - t) / n * 1e6)
    return out[0], out[1], out[2]


def search(game, kind: str, simulations: int, moves: int) -> tuple[float, list[int]]:
    """Seconds a move of OpenSpiel's MCTS or the adapter's ISMCTS, and the moves chosen."""
    import numpy as np
    from mercator.interpreter.research import openspiel as adapter
    from open_spiel.python.algorithms import mcts
    if kind == "mcts":
        bot = mcts.MCTSBot(game, 2.0, simulations, adapter.RolloutEvaluator(seed=3),
                           random_state=np.random.RandomState(3))
    else:
        bot = adapter.ismcts_bot(game, seed=3, max_simulations=simulations)
    st = game.new_initial_state()
    rng = random.Random(5)
    chosen: list[int] = []
    spent = 0.0
    while not st.is_terminal() and len(chosen) < moves:
        if st.is_chance_node():
            st.apply_action(rng.choice(st.chance_outcomes())[0])
            continue
        t = time.process_time()
        a = int(bot.step(st))
        spent += time.process_time() - t
        chosen.append(a)
        st.apply_action(a)
    return spent / max(1, len(chosen)), chosen


def measure(a: argparse.Namespace) -> dict:
    import pyspiel
    import mercator.interpreter.research.openspiel  # noqa: F401  (registers the games)
    game = pyspiel.load_game("mercator", {"rulebook": a.rulebook, "players": a.players})
    states = positions(game)
    out: dict = {"clone": [], "engine clone": [], "mcts": [], "ismcts": [], "moves": {},
                 "apply_action": [], "_apply_action": [], "engine apply": []}
    for _ in range(a.repeat):
        out["clone"].append(clone_us(states, False))
        out["engine clone"].append(clone_us(states, True))
        for k, v in zip(("apply_action", "_apply_action", "engine apply"), step_us(game)):
            out[k].append(v)
        for kind in ("mcts", "ismcts"):
            sec, chosen = search(game, kind, a.simulations, a.moves)
            out[kind].append(sec)
            out["moves"][kind] = chosen
    return {k: (min(v) if isinstance(v, list) else v) for k, v in out.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rulebook", default="manila", help="a shipped rulebook's name")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--simulations", type=int, default=100, help="a move's simulations")
    ap.add_argument("--moves", type=int, default=6, help="moves searched a round")
    ap.add_argument("--repeat", type=int, default=3, help="rounds (the best is printed)")
    ap.add_argument("--against", metavar="CHECKOUT", help="also measure another checkout")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("needs the openspiel extra: pip install -e '.[openspiel]'", file=sys.stderr)
        return 2
    if a.against and checkout_error(a.against):
        print(checkout_error(a.against), file=sys.stderr)
        return 2
    here = measure(a)
    if a.json:
        print(json.dumps(here))
        return 0
    rows = [("this checkout", describe(HERE), here)]
    if a.against:
        argv = [f"--rulebook={a.rulebook}", f"--players={a.players}",
                f"--simulations={a.simulations}", f"--moves={a.moves}",
                f"--repeat={a.repeat}", "--json"]
        done = run_fresh(a.against, __file__, argv)
        if done.returncode != 0:
            print(f"{a.against}: {done.stderr.strip()[-2000:]}", file=sys.stderr)
            return 1
        rows.append(("against", describe(a.against), json.loads(done.stdout)))
    print(f"{a.rulebook}, {a.players} players, {a.simulations} simulations a move, "
          f"{a.moves} moves, the best of {a.repeat} rounds (CPU time)")
    for name, where, r in rows:
        print(f"{name} ({where}):")
        print(f"  clone    pyspiel {r['clone']:9.1f} µs   engine {r['engine clone']:6.1f} µs")
        if "apply_action" in r:
            print(f"  a step   apply_action {r['apply_action']:.2f} µs   _apply_action "
                  f"{r['_apply_action']:.2f} µs   engine apply {r['engine apply']:.2f} µs")
        for kind in ("mcts", "ismcts"):
            print(f"  {kind:7s}  {r[kind]:.3f} s a move   moves {r['moves'][kind]}")
    if a.against:
        new, old = rows[0][2], rows[1][2]
        print("this checkout against the other: clone "
              f"{old['clone'] / new['clone']:.1f}x faster, mcts {old['mcts'] / new['mcts']:.2f}x, "
              f"ismcts {old['ismcts'] / new['ismcts']:.2f}x; the same moves: "
              f"{'yes' if new['moves'] == old['moves'] else 'no'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
