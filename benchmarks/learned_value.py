"""The learned evaluation (issue 36's moonshot): a value of a seat's position learned from its
observation tensor (engine/observation.py) and the rulebook's estimate — a linear model
(ridge) or a small network (numpy, no other library) —, fitted to the final score margin of
games played by the game's anchors, then used by the searcher in place of the estimate where a
rollout is cut off (docs/agents.md, "A linear value over the observation" and "A small
network over the observation"). What is reusable lives in the engine: interpreter/agents/
learned.py (the features, the records, the fits, the model file), the searcher's `value=FILE`
and `mercator learn` (docs/agents.md, "A learned evaluation as a setting"); this script keeps
the research around them: the anchors' games, varied, positions kept to a file, the network's
widths, judging recorded positions.

    .venv/bin/python benchmarks/learned_value.py fit rulebooks/manila.rules --games 400 --out m.npz
    .venv/bin/python benchmarks/learned_value.py fit rulebooks/die_haendler.rules --games 300 \\
        --vary 0.05 --model mlp --out dh.npz
    .venv/bin/python benchmarks/learned_value.py judge rulebooks/die_haendler.rules --model dh.npz \\
        --file benchmarks/results/s32/dh_purchases_every_option.jsonl --prompt kaufen
    .venv/bin/python benchmarks/learned_value.py play rulebooks/manila.rules --model m.npz \\
        --agent ismcts:300:cores=1 --seeds 0-40 --out learned.jsonl

`fit` records, at the first decision of every step of the rulebook's top level (search.top_step),
each seat's observation cells — turned to the seat (its own player's cells first, then the next
seats' in turn order: one model serves every seat) — with every seat's estimate (the seat's own
first) and its estimate's lead over the best other seat (where the rulebook declares one), then
the seat's final margin (its score less the best other's). With `--vary P` each decision of the anchors' games is, with chance P, a
random option (Die Händler's deterministic anchors play nearly one game whatever the seed). It
prints how well the estimate alone, the linear model and (`--model mlp`) the network predict
that margin on the games held out (every fifth), and saves the model chosen, fitted on the
others, as a model file a searcher's `value=FILE` takes. `judge` asks a file of benchmarks/decision_values.py whose every option was valued how
the model, K steps after each option, orders the options against the file's endings (as that
script's --rejudge asks the rulebook's estimate). `play` seats the searcher against two anchors
as benchmarks/anchor_answers.py does (the same seeds, seats and agent seeds: compare seed by seed
with its `--anchor-answers none` games), its cut-offs judged by the model (the spec's
`value=FILE`): each seat's predicted margin stands for its estimate, and a rollout that reached
the end by its final margins.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_agents import _program, heuristic_for  # noqa: E402

from mercator.interpreter.agents import learned as L  # noqa: E402
from mercator.interpreter.agents.base import agent_seed, play_out  # noqa: E402
from mercator.interpreter.agents.spec import make_agent, parse_spec  # noqa: E402

PLAYERS = 3
# the reusable parts live in the engine (interpreter/agents/learned.py, `mercator learn` and the
# searcher's value=FILE); the names below keep this script's research subcommands and its tests
lead, turned, ridge, predict = L.lead, L.turned, L.ridge, L.predict
mlp_fit, mlp_predict = L.mlp_fit, L.mlp_predict


class Features(L.Features):
    """The engine's features of three seats (a caller may replace `estimates`: judge does)."""

    def __init__(self, prog: Any, players: int = PLAYERS) -> None:
        super().__init__(prog, players)


def positions(prog: Any, games: int, vary: float = 0.0, first: int = 0, keep: float = 1.0):
    """Rows (the seat's features, its final margin, the game) from games of three anchors,
    seeds first..first+games-1 (learned.record: `vary`, `keep`)."""
    anchor = heuristic_for(prog)
    return L.record(prog, PLAYERS, range(first, first + games),
                    lambda g: [anchor(agent_seed(g, p)) for p in range(PLAYERS)],
                    vary=vary, keep=keep)


def load(path: str):
    """A saved model: a function from feature rows to predicted margins (a model file of
    `mercator learn` or of `fit` below)."""
    return L.load_model(path).predict


def fit(a) -> None:
    prog = _program(a.rulebook)
    fx = Features(prog)
    t0 = time.time()
    loaded = bool(a.data) and Path(a.data).exists()
    if loaded:
        d = np.load(a.data)
        x, y, g = d["x"], d["y"], d["g"]
    else:
        x, y, g = positions(prog, a.games, a.vary, keep=a.keep)
        if a.data:
            np.savez(a.data, x=x, y=y, g=g)
    whence = f"the positions of {a.data}" if loaded else \
        f"{a.games} games of three anchors (vary {a.vary})"
    print(f"{whence}: {len(y)} rows of {x.shape[1]} features ({time.time() - t0:.0f} s)",
          flush=True)
    test = g % 5 == 0
    val = g % 5 == 1
    train = ~test & ~val

    def r2(pred: np.ndarray) -> str:
        err = float(((pred - y[test]) ** 2).mean())
        return f"held-out mean squared error {err:8.3f}  R2 {1 - err / y[test].var():.3f}"
    if fx.estimate:
        lin = ridge(x[train][:, -1:], y[train])
        print(f"  the estimate's lead alone            {r2(predict(lin, x[test][:, -1:]))}")
    lin = ridge(x[train], y[train])
    print(f"  linear, every feature                {r2(predict(lin, x[test]))}", flush=True)
    if a.model == "mlp":
        hidden = tuple(int(h) for h in a.hidden.split(","))
        arrays = mlp_fit(x[train], y[train], x[val], y[val], hidden=hidden, epochs=a.epochs,
                         l2=a.l2, log=print if a.verbose else None,
                         lead_col=x.shape[1] - 1 if fx.estimate else None)
        print(f"  network {a.hidden:28s} {r2(mlp_predict(arrays, x[test]))}")
    else:
        mu, sd, w = ridge(x[~test], y[~test])
        arrays = {"mu": mu, "sd": sd, "w": w}
    # a model file as `mercator learn` writes it: a searcher's value=FILE takes it
    L.Model(a.model, arrays, L.rulebook_sha256(prog), prog.name, PLAYERS, fx.names(),
            a.out).save(a.out)
    print(f"saved {a.out}")


def _values(fx: Features, f, s: Any) -> tuple:
    """Each seat's predicted margin in s (in the score's direction of the rulebook)."""
    return tuple(float(v) * fx.sign for v in f(fx.rows(s)))


def judge(a) -> int:
    import decision_values as dv
    prog = _program(a.rulebook)
    fx = Features(prog)
    f = load(a.model)
    prog.estimates = lambda s: _values(fx, f, s)        # what --rejudge's estimate reads
    ns = argparse.Namespace(rulebook=a.rulebook, rejudge=a.file, estimate_after=a.after,
                            cut="step", estimate_rollouts=a.rollouts, prompt=a.prompt,
                            out=a.out)
    return dv.rejudge(ns)


def play(a) -> None:
    prog = _program(a.rulebook)
    anchor = heuristic_for(prog)
    agent = a.agent if ":value=" in a.agent else f"{a.agent}:value={a.model}"   # (the setting)
    lo, hi = (int(v) for v in a.seeds.split("-"))
    for seed in range(lo, hi):
        me = seed % PLAYERS
        seats = [anchor(agent_seed(seed, p)) for p in range(PLAYERS)]
        seats[me] = make_agent(parse_spec(agent), agent_seed(seed, me))
        state = prog.new_game(PLAYERS, seed, narrate=True, explicit_chance=True)
        t0 = time.time()
        play_out(prog, state, seats, max_decisions=20000)
        scores = list(state.pending.scores)
        line = {"seed": seed, "seat": me, "agent": agent, "model": a.model,
                "scores": scores, "margin": lead(scores, me),
                "won": me in state.pending.winners, "seconds": round(time.time() - t0)}
        print(json.dumps(line), flush=True)
        with open(a.out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit", help="fit the model to games of the anchors")
    f.add_argument("rulebook")
    f.add_argument("--games", type=int, default=400)
    f.add_argument("--vary", type=float, default=0.0, metavar="P",
                   help="each decision of the anchors' games a random option with chance P")
    f.add_argument("--data", metavar="FILE",
                   help="the positions: read from FILE (.npz) where it exists, else played and "
                        "written there (to fit other models to the same games)")
    f.add_argument("--keep", type=float, default=1.0, metavar="F",
                   help="keep each step's positions with chance F (default 1: all)")
    f.add_argument("--model", choices=("linear", "mlp"), default="linear",
                   help="ridge regression (default) or a small network")
    f.add_argument("--hidden", default="64,32", help="the network's layer widths")
    f.add_argument("--l2", type=float, default=1e-3, help="the network's weight decay")
    f.add_argument("--epochs", type=int, default=60, help="the network's most passes")
    f.add_argument("--verbose", action="store_true", help="the network's error epoch by epoch")
    f.add_argument("--out", required=True, help="the model (.npz)")
    j = sub.add_parser("judge", help="how the model orders the options of an every-option "
                                     "file of benchmarks/decision_values.py")
    j.add_argument("rulebook")
    j.add_argument("--model", required=True)
    j.add_argument("--file", required=True, help="the decision_values.py file (--all-options)")
    j.add_argument("--prompt", action="append", default=[],
                   help="the --prompt texts the file was written with")
    j.add_argument("--after", type=int, default=0, metavar="K",
                   help="judge each option K steps of the top level after it (default 0: at "
                        "once)")
    j.add_argument("--rollouts", type=int, default=1, metavar="N",
                   help="with --after K > 0: the mean over N draws of dice")
    j.add_argument("--out", help="the file's positions with the model's values")
    p = sub.add_parser("play", help="the searcher with the model against two anchors")
    p.add_argument("rulebook")
    p.add_argument("--model", required=True)
    p.add_argument("--agent", default="ismcts:300:cores=1")
    p.add_argument("--seeds", default="0-40", help="A-B, B excluded")
    p.add_argument("--out", required=True, help="a JSON-lines file the games are added to")
    a = ap.parse_args(argv)
    if a.cmd == "fit":
        if not 0 <= a.vary <= 1:
            ap.error("--vary must be a chance, from 0 to 1")
        fit(a)
        return 0
    if a.cmd == "judge":
        return judge(a)
    play(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
