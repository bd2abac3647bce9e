"""A first try at the learned evaluation (issue 36's moonshot): a linear model over a seat's
observation tensor (engine/observation.py) and the rulebook's estimate, fitted to the final
score margin of games played by the game's anchors, then used by the searcher in place of the
estimate where a rollout is cut off (docs/agents.md, "A linear value over the observation").

    .venv/bin/python benchmarks/learned_value.py fit rulebooks/manila.rules --games 400 --out m.npz
    .venv/bin/python benchmarks/learned_value.py play rulebooks/manila.rules --model m.npz \\
        --agent ismcts:300:cores=1 --seeds 0-40 --out learned.jsonl

`fit` records, at the first decision of every step of the rulebook's top level (search.top_step),
each seat's observation cells and its estimate's lead over the best other seat, then the
seat's final margin (its score less the best other's); it prints how well the estimate alone
and the linear model predict that margin on the games held out (every fifth), and saves the
model fitted on all of them. `play` seats the searcher against two anchors as
benchmarks/anchor_answers.py does (the same seeds, seats and agent seeds: compare seed by
seed with its `--anchor-answers none` games), its cut-offs judged by the model: each seat's
predicted margin stands for its estimate.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_agents import _program, heuristic_for  # noqa: E402

from mercator.interpreter.agents.base import agent_seed, play_out  # noqa: E402
from mercator.interpreter.agents.search import top_step  # noqa: E402
from mercator.interpreter.agents.spec import make_agent, parse_spec  # noqa: E402
from mercator.interpreter.engine.nodes import Terminal  # noqa: E402
from mercator.interpreter.engine.observation import Observer  # noqa: E402

PLAYERS = 3
RIDGE = 10.0


def lead(values, p: int) -> float:
    return values[p] - max(v for q, v in enumerate(values) if q != p)


def positions(prog, games: int):
    """Rows (game, cells + the estimate's lead, final margin) from games of three anchors."""
    anchor = heuristic_for(prog)
    ob = Observer(prog, PLAYERS)
    rows, margins, game_of = [], [], []
    for g in range(games):
        seats = [anchor(agent_seed(g, p)) for p in range(PLAYERS)]
        s = prog.new_game(PLAYERS, g, narrate=True, explicit_chance=True)
        rng = random.Random(g)
        last, mine = None, []
        while s.pending.__class__ is not Terminal:
            pend = s.pending
            if pend.__class__.__name__ == "Chance":
                prog.apply(s, rng.choices(range(len(pend.weights)), pend.weights)[0])
                continue
            step = top_step(s)
            if step != last:
                last = step
                e = prog.estimates(s)
                for p in range(PLAYERS):
                    cells = np.zeros(ob.total + 1)
                    ob.fill(cells, s, p)
                    cells[-1] = lead(e, p)
                    mine.append((p, cells))
            prog.apply(s, seats[pend.player].choose(prog, s))
        for p, cells in mine:
            rows.append(cells)
            margins.append(lead(s.pending.scores, p))
            game_of.append(g)
    return np.array(rows), np.array(margins, float), np.array(game_of)


def ridge(x: np.ndarray, y: np.ndarray):
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = np.hstack([(x - mu) / sd, np.ones((len(x), 1))])
    w = np.linalg.solve(z.T @ z + RIDGE * np.eye(z.shape[1]), z.T @ y)
    return mu, sd, w


def predict(model, x: np.ndarray) -> np.ndarray:
    mu, sd, w = model
    return ((x - mu) / sd) @ w[:-1] + w[-1]


def fit(a) -> None:
    prog = _program(a.rulebook)
    t0 = time.time()
    x, y, g = positions(prog, a.games)
    print(f"{a.games} games of three anchors, {len(y)} positions of {x.shape[1] - 1} cells "
          f"and the estimate's lead ({time.time() - t0:.0f} s)")
    test = g % 5 == 0
    for name, cols in (("the estimate's lead alone", slice(-1, None)),
                       ("observation + the estimate's lead", slice(None))):
        m = ridge(x[~test, cols], y[~test])
        err = ((predict(m, x[test, cols]) - y[test]) ** 2).mean()
        print(f"  {name:36s} held-out mean squared error {err:7.1f}  "
              f"R2 {1 - err / y[test].var():.3f}")
    mu, sd, w = ridge(x, y)
    np.savez(a.out, mu=mu, sd=sd, w=w)
    print(f"saved {a.out}")


def play(a) -> None:
    prog = _program(a.rulebook)
    anchor = heuristic_for(prog)
    m = np.load(a.model)
    model = (m["mu"], m["sd"], m["w"])
    ob = Observer(prog, PLAYERS)
    cells = np.zeros(ob.total + 1)

    def judged(s) -> Terminal:
        e = prog.estimates(s)
        vals = []
        for p in range(PLAYERS):
            ob.fill(cells, s, p)
            cells[-1] = lead(e, p)
            vals.append(float(predict(model, cells)))
        best = max(vals)
        return Terminal(tuple(vals), tuple(() for _ in vals),
                        tuple(p for p in range(PLAYERS) if vals[p] == best),
                        tuple(sorted(range(PLAYERS), key=lambda p: (-vals[p], p))))
    prog.estimated = judged                      # what the searcher judges a cut-off by
    lo, hi = (int(v) for v in a.seeds.split("-"))
    for seed in range(lo, hi):
        me = seed % PLAYERS
        seats = [anchor(agent_seed(seed, p)) for p in range(PLAYERS)]
        seats[me] = make_agent(parse_spec(a.agent), agent_seed(seed, me))
        state = prog.new_game(PLAYERS, seed, narrate=True, explicit_chance=True)
        t0 = time.time()
        play_out(prog, state, seats, max_decisions=20000)
        scores = list(state.pending.scores)
        line = {"seed": seed, "seat": me, "agent": a.agent, "model": a.model,
                "scores": scores, "margin": lead(scores, me),
                "won": me in state.pending.winners, "seconds": round(time.time() - t0)}
        print(json.dumps(line), flush=True)
        with open(a.out, "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="fit the model to games of the anchors")
    f.add_argument("rulebook")
    f.add_argument("--games", type=int, default=400)
    f.add_argument("--out", required=True, help="the model (.npz)")
    p = sub.add_parser("play", help="the searcher with the model against two anchors")
    p.add_argument("rulebook")
    p.add_argument("--model", required=True)
    p.add_argument("--agent", default="ismcts:300:cores=1")
    p.add_argument("--seeds", default="0-40", help="A-B, B excluded")
    p.add_argument("--out", required=True, help="a JSON-lines file the games are added to")
    a = ap.parse_args(argv)
    fit(a) if a.cmd == "fit" else play(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
