"""The learned evaluation (issue 36's moonshot): a value of a seat's position learned from its
observation tensor (engine/observation.py) and the rulebook's estimate — a linear model
(ridge) or a small network (numpy, no other library) —, fitted to the final score margin of
games played by the game's anchors, then used by the searcher in place of the estimate where a
rollout is cut off (docs/agents.md, "A linear value over the observation" and "A small
network over the observation").

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
first) and its estimate's lead over the best other seat, then the seat's final margin (its score
less the best other's). With `--vary P` each decision of the anchors' games is, with chance P, a
random option (Die Händler's deterministic anchors play nearly one game whatever the seed). It
prints how well the estimate alone, the linear model and (`--model mlp`) the network predict
that margin on the games held out (every fifth), and saves the model chosen, fitted on the
others. `judge` asks a file of benchmarks/decision_values.py whose every option was valued how
the model, K steps after each option, orders the options against the file's endings (as that
script's --rejudge asks the rulebook's estimate). `play` seats the searcher against two anchors
as benchmarks/anchor_answers.py does (the same seeds, seats and agent seeds: compare seed by seed
with its `--anchor-answers none` games), its cut-offs judged by the model: each seat's predicted
margin stands for its estimate, and a rollout that reached the end by its score.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

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


def turned(ob: Observer, players: int) -> list[np.ndarray]:
    """For each seat, the order of the observation's cells as that seat sees its place: the
    table's cells, then the players' cells from the seat's own round the table, the round, and
    who is to decide from the seat on (its last cell: chance or the end). The viewer's own cells
    (always the seat itself, turned) are left out."""
    by_name = {g.name: g for g in ob.segments}
    out = []
    for p in range(players):
        idx: list[int] = []
        for g in ob.segments:
            if g.name.startswith("table."):
                idx.extend(range(g.offset, g.offset + g.size))
        for k in range(players):
            q = (p + k) % players
            for g in ob.segments:
                if g.name.startswith(f"P{q + 1}."):
                    idx.extend(range(g.offset, g.offset + g.size))
        r = by_name["round"]
        idx.append(r.offset)
        d = by_name["to decide"]
        idx.extend(d.offset + (p + k) % players for k in range(players))
        idx.append(d.offset + players)
        out.append(np.array(idx))
    return out


class Features:
    """A seat's inputs to the model in a state: its turned cells, every seat's estimate from its
    own on, and its estimate's lead."""

    def __init__(self, prog: Any, players: int = PLAYERS) -> None:
        self.players = players
        self.ob = Observer(prog, players)
        self.order = turned(self.ob, players)
        self.cells = np.zeros(self.ob.total)
        self.size = len(self.order[0]) + players + 1
        self.sign = prog.key_signs[0] if prog.key_signs else 1
        self.estimates = prog.estimates         # the rulebook's (a caller may replace prog's)

    def rows(self, s: Any) -> np.ndarray:
        """One row per seat (players x size)."""
        n = self.players
        e = [self.sign * v for v in self.estimates(s)]
        out = np.empty((n, self.size))
        for p in range(n):
            self.cells[:] = 0.0
            self.ob.fill(self.cells, s, p)
            k = len(self.order[p])
            out[p, :k] = self.cells[self.order[p]]
            out[p, k:k + n] = [e[(p + j) % n] for j in range(n)]
            out[p, -1] = lead(e, p)
        return out


def positions(prog: Any, games: int, vary: float = 0.0, first: int = 0, keep: float = 1.0):
    """Rows (the seat's features, its final margin, the game) from games of three anchors,
    seeds first..first+games-1; with keep < 1, each step's rows kept with that chance (the
    positions of one game are alike: more games, not more of each, teach the model)."""
    anchor = heuristic_for(prog)
    fx = Features(prog)
    rows, margins, game_of = [], [], []
    for g in range(first, first + games):
        seats = [anchor(agent_seed(g, p)) for p in range(PLAYERS)]
        s = prog.new_game(PLAYERS, g, narrate=True, explicit_chance=True)
        rng = random.Random(g)
        other = random.Random(f"vary:{g}")
        kept = random.Random(f"keep:{g}")
        last, mine = None, []
        while s.pending.__class__ is not Terminal:
            pend = s.pending
            if pend.__class__.__name__ == "Chance":
                prog.apply(s, rng.choices(range(len(pend.weights)), pend.weights)[0])
                continue
            step = top_step(s)
            if step != last:
                last = step
                if keep >= 1 or kept.random() < keep:
                        mine.append(fx.rows(s).astype(np.float32))
            i = seats[pend.player].choose(prog, s)
            m = pend.count - len(pend.actions)
            if vary > 0 and m > 1 and other.random() < vary:
                i = other.randrange(m)
            prog.apply(s, i)
        sign = fx.sign
        final = [sign * v for v in s.pending.scores]
        for r in mine:
            for p in range(PLAYERS):
                rows.append(r[p])
                margins.append(lead(final, p))
                game_of.append(g)
    return np.array(rows, np.float32), np.array(margins, float), np.array(game_of)


def ridge(x: np.ndarray, y: np.ndarray):
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = np.hstack([(x - mu) / sd, np.ones((len(x), 1))])
    w = np.linalg.solve(z.T @ z + RIDGE * np.eye(z.shape[1]), z.T @ y)
    return mu, sd, w


def predict(model, x: np.ndarray) -> np.ndarray:
    mu, sd, w = model
    return ((x - mu) / sd) @ w[:-1] + w[-1]


def mlp_fit(x: np.ndarray, y: np.ndarray, xv: np.ndarray, yv: np.ndarray,
            hidden: tuple[int, ...] = (64, 32), epochs: int = 60, lr: float = 1e-3,
            batch: int = 256, l2: float = 1e-3, seed: int = 0, patience: int = 6,
            log: Any = None) -> dict:
    """What the estimate's lead misses: a line through the lead (the last feature, least
    squares), plus a network of ReLU layers over every feature fitted by Adam to the rest
    (inputs and target standardised; its last layer starts at zero, so it starts as the line);
    the weights of the epoch best on (xv, yv) kept. A dict of arrays."""
    rng = np.random.default_rng(seed)
    slope, cut = np.polyfit(x[:, -1].astype(float), y, 1)
    y = y - (slope * x[:, -1] + cut)
    yv = yv - (slope * xv[:, -1] + cut)
    mu, sd = x.mean(0), x.std(0)
    sd[sd < 1e-6] = 1.0
    ym, ys = float(y.mean()), float(y.std() or 1.0)
    z, t = ((x - mu) / sd).astype(np.float32), ((y - ym) / ys).astype(np.float32)
    zv = ((xv - mu) / sd).astype(np.float32)
    sizes = (x.shape[1],) + hidden + (1,)
    ws = [(rng.normal(0, np.sqrt(2.0 / a), (a, b))).astype(np.float32)
          for a, b in zip(sizes, sizes[1:])]
    ws[-1][:] = 0.0
    bs = [np.zeros(b, np.float32) for b in sizes[1:]]
    params = ws + bs
    m1 = [np.zeros_like(q) for q in params]
    m2 = [np.zeros_like(q) for q in params]
    b1, b2, eps, step = 0.9, 0.999, 1e-8, 0

    def forward(a: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        acts = [a]
        for i in range(len(ws)):
            a = a @ ws[i] + bs[i]
            if i < len(ws) - 1:
                a = np.maximum(a, 0.0)
            acts.append(a)
        return a[:, 0], acts

    best = [q.copy() for q in params]
    best_err = float((((forward(zv)[0] * ys + ym) - yv) ** 2).mean())
    if log:
        log(f"    the line alone: held-out mean squared error {best_err:.3f}")
    bad = 0
    for epoch in range(epochs):
        order = rng.permutation(len(z))
        for k in range(0, len(z), batch):
            j = order[k:k + batch]
            out, acts = forward(z[j])
            g = (2.0 / len(j)) * (out - t[j])[:, None]
            gw, gb = [None] * len(ws), [None] * len(ws)
            for i in range(len(ws) - 1, -1, -1):
                gw[i] = acts[i].T @ g + l2 * ws[i]
                gb[i] = g.sum(0)
                if i:
                    g = (g @ ws[i].T) * (acts[i] > 0)
            step += 1
            for q, (p_, d) in enumerate(zip(params, gw + gb)):
                m1[q] = b1 * m1[q] + (1 - b1) * d
                m2[q] = b2 * m2[q] + (1 - b2) * d * d
                p_ -= lr * (m1[q] / (1 - b1 ** step)) / (np.sqrt(m2[q] / (1 - b2 ** step)) + eps)
        err = float((((forward(zv)[0] * ys + ym) - yv) ** 2).mean())
        if log:
            log(f"    epoch {epoch + 1}: held-out mean squared error {err:.3f}")
        if err < best_err - 1e-4:
            best_err, bad = err, 0
            best = [q.copy() for q in params]
        else:
            bad += 1
            if bad >= patience:
                break
    n = len(ws)
    model = {"kind": np.array("mlp"), "mu": mu, "sd": sd, "ym": np.array(ym), "ys": np.array(ys),
             "layers": np.array(n), "line": np.array([slope, cut])}
    for i in range(n):
        model[f"w{i}"], model[f"b{i}"] = best[i], best[n + i]
    return model


def mlp_predict(model: dict, x: np.ndarray) -> np.ndarray:
    a = (x - model["mu"]) / model["sd"]
    n = int(model["layers"])
    for i in range(n):
        a = a @ model[f"w{i}"] + model[f"b{i}"]
        if i < n - 1:
            a = np.maximum(a, 0.0)
    slope, cut = model["line"]
    return a[..., 0] * float(model["ys"]) + float(model["ym"]) + slope * x[..., -1] + cut


def load(path: str):
    """A saved model: a function from feature rows to predicted margins."""
    m = dict(np.load(path))
    if "kind" in m and str(m["kind"]) == "mlp":
        return lambda x: mlp_predict(m, x)
    model = (m["mu"], m["sd"], m["w"])
    return lambda x: predict(model, x)


def fit(a) -> None:
    prog = _program(a.rulebook)
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
    lin = ridge(x[train][:, -1:], y[train])
    print(f"  the estimate's lead alone            {r2(predict(lin, x[test][:, -1:]))}")
    lin = ridge(x[train], y[train])
    print(f"  linear, every feature                {r2(predict(lin, x[test]))}", flush=True)
    if a.model == "mlp":
        hidden = tuple(int(h) for h in a.hidden.split(","))
        net = mlp_fit(x[train], y[train], x[val], y[val], hidden=hidden, epochs=a.epochs,
                      l2=a.l2, log=print if a.verbose else None)
        print(f"  network {a.hidden:28s} {r2(mlp_predict(net, x[test]))}")
        np.savez(a.out, **net)
    else:
        mu, sd, w = ridge(x[~test], y[~test])
        np.savez(a.out, mu=mu, sd=sd, w=w)
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
    fx = Features(prog)
    f = load(a.model)

    def judged(s) -> Terminal:
        if s.pending.__class__ is Terminal:
            return s.pending                    # the model is in the score's units
        vals = _values(fx, f, s)
        sign = fx.sign
        best = max(sign * v for v in vals)
        return Terminal(vals, tuple(() for _ in vals),
                        tuple(p for p in range(PLAYERS) if sign * vals[p] == best),
                        tuple(sorted(range(PLAYERS), key=lambda p: (-sign * vals[p], p))))
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
