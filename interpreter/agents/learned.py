"""A learned evaluation (issue 36's moonshot): each seat's final score margin predicted from what
it sees of a position, fitted to games played by any seats, and used by a searcher in place of
the rulebook's `estimate` where its rollouts are cut off (the spec setting `value=FILE`,
agents/spec.py; the command `mercator learn`, cli/learn.py; docs/agents.md).

The features of a seat in a position: its observation cells (engine/observation.py) turned to
the seat — the table's cells, then the players' cells from the seat's own round the table, the
round, and who is to decide from the seat on — so that one model serves every seat; and, where
the rulebook declares an `estimate`, every seat's estimate from the seat's own on and its
estimate's lead over the best other seat (without one, the observation alone: the score as if
the game ended is not what a position is worth). The target: the seat's final margin, its score
less the best other seat's (search.score_margins, in the score's direction; a seat the
rulebook's `eligible` bars is below every other). A position is recorded at the first decision
of each step of the rulebook's top level (search.top_step), where the search's cut-offs are.

Two models: a line (ridge regression over standardised features), or `mlp`, a small network of
ReLU layers (numpy only, Adam) fitted to what a line through the estimate's lead (through
nothing where there is no estimate) leaves; its last layer starts at zero, so it starts as the
line, and the epoch best on the validation games is kept.

A model file (.npz, written by `save`) records what it was fitted to: the rulebook's content
hash (`rulebook_sha256`: every file the game is read from, by its text), the player count, the
feature layout and the kind; `Model.check` refuses a model of another rulebook or player count
with a message that names the file. numpy is imported only here, and only when a model is
fitted, loaded or used (the optional extra `mercator[learn]`).
"""
from __future__ import annotations

import hashlib
import os
import random
from typing import Any, Callable, Optional, Sequence

from mercator.dsl.errors import MercatorError
from mercator.interpreter.agents.outcome import score_margins, top_step
from mercator.interpreter.engine.nodes import Chance, Terminal

FORMAT = "mercator-value"     # what a model file says it is
VERSION = 1
KINDS = ("linear", "mlp")
RIDGE = 10.0                  # the line's penalty on standardised features
HIDDEN = (64, 32)             # the network's layers
L2 = 0.01                     # its weight decay (0.001 overfits: a game's positions are alike)
EPOCHS = 60
INSTALL = "install numpy: pip install 'mercator[learn]'"


class ModelError(MercatorError, ValueError):
    """A model file that cannot be used (missing, not a model, another rulebook's or player
    count's), or numpy missing; the message names the file, `hint` says what to do."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.hint = hint


def np_module() -> Any:
    """numpy, imported when first needed; a ModelError saying how to install it otherwise."""
    try:
        import numpy
    except ImportError:
        raise ModelError("a learned evaluation needs numpy, which is not installed",
                         INSTALL) from None
    return numpy


def rulebook_sha256(prog: Any) -> str:
    """The rulebook's content hash: its main file's text, then the text of every file it reads
    (a variant's base, a used library) in the order of their texts — not their paths, so a
    model made in one folder is accepted in another."""
    sources = prog.rb.sources
    main = sources.get(prog.rb.path)
    rest = sorted(t for p, t in sources.items() if p != prog.rb.path or main is None)
    h = hashlib.sha256()
    for text in ([main] if main is not None else []) + rest:
        data = text.encode("utf-8", "surrogatepass")
        h.update(f"{len(data)}\0".encode() + data)
    return h.hexdigest()


def lead(values: Sequence[float], p: int) -> float:
    """Seat p's value less the best other seat's."""
    return values[p] - max(v for q, v in enumerate(values) if q != p)


def turned(ob: Any, players: int) -> list[Any]:
    """For each seat, the order of the observation's cells as that seat sees its place: the
    table's cells, then the players' cells from the seat's own round the table, the round, and
    who is to decide from the seat on (its last cell: chance or the end). The viewer's own cells
    (always the seat itself, turned) are left out."""
    np = np_module()
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
        idx.append(by_name["round"].offset)
        d = by_name["to decide"]
        idx.extend(d.offset + (p + k) % players for k in range(players))
        idx.append(d.offset + players)
        out.append(np.array(idx))
    return out


class Features:
    """A seat's inputs to the model in a state: its turned cells, and where the rulebook
    declares an estimate every seat's estimate from its own on and its estimate's lead.
    ModelError where the rulebook has no observation tensor (a collection without bounds)."""

    def __init__(self, prog: Any, players: int) -> None:
        from mercator.interpreter.engine.encoding import EncodeError
        from mercator.interpreter.engine.observation import Observer
        np = np_module()
        self.np = np
        self.players = players
        try:
            self.ob = Observer(prog, players)
        except EncodeError as exc:
            raise ModelError(f"{prog.name} has no observation tensor for a learned evaluation: "
                             f"{exc}", getattr(exc, "hint", "") or "declare its bounds "
                             "(docs/language.md, bounds)") from None
        self.order = turned(self.ob, players)
        self.cells = np.zeros(self.ob.total)
        self.estimate = prog.estimate_f is not None
        self.estimates = prog.estimates       # (the rulebook's; read only where it declares one)
        self.sign = prog.key_signs[0] if prog.key_signs else 1
        self.cols = len(self.order[0])
        self.size = self.cols + (players + 1 if self.estimate else 0)

    def names(self) -> list[str]:
        """What each feature is, seat 0's view (the layout a model file records)."""
        names = {}
        for g in self.ob.segments:
            for k in range(g.size):
                names[g.offset + k] = f"{g.name}[{k}]" if g.size > 1 else g.name
        out = [names[int(i)] for i in self.order[0]]
        if self.estimate:
            out += [f"estimate +{k}" for k in range(self.players)] + ["estimate lead"]
        return out

    def rows(self, s: Any) -> Any:
        """One row per seat (players x size), each from that seat's observation of s."""
        np, n = self.np, self.players
        out = np.empty((n, self.size))
        e = [self.sign * v for v in self.estimates(s)] if self.estimate else []
        k = self.cols
        for p in range(n):
            self.cells[:] = 0.0
            self.ob.fill(self.cells, s, p)
            out[p, :k] = self.cells[self.order[p]]
            if e:
                out[p, k:k + n] = [e[(p + j) % n] for j in range(n)]
                out[p, -1] = lead(e, p)
        return out


def final_margins(prog: Any, end: Terminal, players: int) -> list[float]:
    """Each seat's final margin (its score less the best other seat's, in the score's
    direction; `eligible` respected as the search's rewards respect it)."""
    sign = prog.key_signs[0] if prog.key_signs else 1
    return score_margins(end, players, sign)


class GameTooLong(ModelError):
    """A game that did not end within the decisions allowed."""


def record(prog: Any, players: int, seeds: Sequence[int], seats: Callable[[int], list],
           vary: float = 0.0, keep: float = 1.0, narrate: bool = True,
           max_decisions: int = 100_000, on_game: Optional[Callable[[int], None]] = None,
           fx: Optional[Features] = None) -> tuple[Any, Any, Any]:
    """Rows (a seat's features, its final margin, the game's seed) from a game per seed, its
    seats `seats(seed)` (agents with `choose(prog, state)`); chance drawn by the seed. With
    vary > 0 each decision of more than one option is, with that chance, a uniformly random
    one (deterministic seats play nearly one game whatever the seed); with keep < 1 each step's
    rows are kept with that chance (the positions of one game are alike: more games, not more
    of each, teach the model). `on_game(k)` after the k-th game."""
    np = np_module()
    fx = fx or Features(prog, players)
    rows, margins, game_of = [], [], []
    for k, g in enumerate(seeds):
        agents = seats(g)
        s = prog.new_game(players, g, narrate=narrate, explicit_chance=True)
        rng = random.Random(g)
        other = random.Random(f"vary:{g}")
        kept = random.Random(f"keep:{g}")
        last, mine = None, []
        made = 0
        while s.pending.__class__ is not Terminal:
            pend = s.pending
            if pend.__class__ is Chance:
                prog.apply(s, rng.choices(range(len(pend.weights)), pend.weights)[0])
                continue
            made += 1
            if made > max_decisions:
                raise GameTooLong(f"the game of seed {g} took more than {max_decisions:,} "
                                  "decisions", "a rulebook that never ends?")
            step = top_step(s)
            if step != last:
                last = step
                if keep >= 1 or kept.random() < keep:
                    mine.append(fx.rows(s).astype(np.float32))
            i = agents[pend.player].choose(prog, s)
            m = pend.count - len(pend.actions)
            if vary > 0 and m > 1 and other.random() < vary:
                i = other.randrange(m)
            prog.apply(s, i)
        final = final_margins(prog, s.pending, players)
        for r in mine:
            for p in range(players):
                rows.append(r[p])
                margins.append(final[p])
                game_of.append(g)
        if on_game is not None:
            on_game(k + 1)
    size = fx.size
    x = np.array(rows, np.float32) if rows else np.zeros((0, size), np.float32)
    return x, np.array(margins, float), np.array(game_of, int)


# ------------------------------------------------------------------ the fits
def ridge(x: Any, y: Any, penalty: float = RIDGE) -> tuple[Any, Any, Any]:
    """Ridge regression over standardised columns: (mean, spread, weights with the intercept
    last)."""
    np = np_module()
    mu, sd = x.mean(0), x.std(0) + 1e-9
    z = np.hstack([(x - mu) / sd, np.ones((len(x), 1))])
    w = np.linalg.solve(z.T @ z + penalty * np.eye(z.shape[1]), z.T @ y)
    return mu, sd, w


def predict(model: tuple[Any, Any, Any], x: Any) -> Any:
    """A ridge model's values of rows x."""
    mu, sd, w = model
    return ((x - mu) / sd) @ w[:-1] + w[-1]


def mlp_fit(x: Any, y: Any, xv: Any, yv: Any, hidden: tuple[int, ...] = HIDDEN,
            epochs: int = EPOCHS, lr: float = 1e-3, batch: int = 256, l2: float = L2,
            seed: int = 0, patience: int = 6, log: Any = None,
            lead_col: Optional[int] = -1) -> dict:
    """What the estimate's lead (column `lead_col`; None: no such column) misses: a line through
    the lead (least squares; a constant without one), plus a network of ReLU layers over every
    feature fitted by Adam to the rest (inputs and target standardised; its last layer starts at
    zero, so it starts as the line); the weights of the epoch best on (xv, yv) kept. A dict of
    arrays."""
    np = np_module()
    rng = np.random.default_rng(seed)
    if lead_col is not None and len(x) > 1 and float(x[:, lead_col].std()) > 0:
        slope, cut = np.polyfit(x[:, lead_col].astype(float), y, 1)
    else:
        slope, cut, lead_col = 0.0, float(y.mean()) if len(y) else 0.0, None
    col = -1 if lead_col is None else lead_col

    def line(a: Any) -> Any:
        return slope * a[:, col] + cut if lead_col is not None else np.full(len(a), cut)
    y = y - line(x)
    yv = yv - line(xv)
    mu, sd = x.mean(0), x.std(0)
    sd[sd < 1e-6] = 1.0
    ym, ys = float(y.mean()), float(y.std() or 1.0)
    z, t = ((x - mu) / sd).astype(np.float32), ((y - ym) / ys).astype(np.float32)
    zv = ((xv - mu) / sd).astype(np.float32)
    sizes = (x.shape[1],) + tuple(hidden) + (1,)
    ws = [(rng.normal(0, np.sqrt(2.0 / a), (a, b))).astype(np.float32)
          for a, b in zip(sizes, sizes[1:])]
    ws[-1][:] = 0.0
    bs = [np.zeros(b, np.float32) for b in sizes[1:]]
    params = ws + bs
    m1 = [np.zeros_like(q) for q in params]
    m2 = [np.zeros_like(q) for q in params]
    b1, b2, eps, step = 0.9, 0.999, 1e-8, 0

    def forward(a: Any) -> tuple[Any, list[Any]]:
        acts = [a]
        for i in range(len(ws)):
            a = a @ ws[i] + bs[i]
            if i < len(ws) - 1:
                a = np.maximum(a, 0.0)
            acts.append(a)
        return a[:, 0], acts

    best = [q.copy() for q in params]
    best_err = float((((forward(zv)[0] * ys + ym) - yv) ** 2).mean()) if len(zv) else 0.0
    if log:
        log(f"    the line alone: held-out mean squared error {best_err:.3f}")
    bad = 0
    for epoch in range(epochs if len(zv) else 0):
        order = rng.permutation(len(z))
        for k in range(0, len(z), batch):
            j = order[k:k + batch]
            out, acts = forward(z[j])
            g = (2.0 / len(j)) * (out - t[j])[:, None]
            gw: list[Any] = [None] * len(ws)
            gb: list[Any] = [None] * len(ws)
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
    model = {"kind": np.array("mlp"), "mu": mu, "sd": sd, "ym": np.array(ym),
             "ys": np.array(ys), "layers": np.array(n), "line": np.array([slope, cut]),
             "lead_col": np.array(-1 if lead_col is None else lead_col)}
    for i in range(n):
        model[f"w{i}"], model[f"b{i}"] = best[i], best[n + i]
    return model


def mlp_predict(model: dict, x: Any) -> Any:
    """A network's values of rows x (mlp_fit's dict)."""
    np = np_module()
    a = (x - model["mu"]) / model["sd"]
    n = int(model["layers"])
    for i in range(n):
        a = a @ model[f"w{i}"] + model[f"b{i}"]
        if i < n - 1:
            a = np.maximum(a, 0.0)
    slope, cut = (float(v) for v in model["line"])
    col = int(model["lead_col"]) if "lead_col" in model else -1
    # (a network of the research script, before a rulebook without an estimate was possible,
    # has no lead_col: its line went through the last column)
    base = slope * x[..., col] + cut if slope else np.full(x.shape[:-1], cut)
    return a[..., 0] * float(model["ys"]) + float(model["ym"]) + base


# ------------------------------------------------------------------ a model and its file
class Model:
    """A fitted value with what it was fitted to (the rulebook's hash and name, the player
    count, the feature layout, the kind) and where it was read from."""

    def __init__(self, kind: str, arrays: dict, rulebook_sha256: str, game: str, players: int,
                 features: list[str], path: str = "") -> None:
        self.kind = kind
        self.arrays = arrays
        self.rulebook_sha256 = rulebook_sha256
        self.game = game
        self.players = players
        self.features = list(features)
        self.path = path

    def predict(self, x: Any) -> Any:
        """The predicted final margin of each row of features."""
        if self.kind == "mlp":
            return mlp_predict(self.arrays, x)
        a = self.arrays
        return predict((a["mu"], a["sd"], a["w"]), x)

    def save(self, path: str) -> None:
        """Write the model file (numpy's .npz, no pickled objects), exactly at `path`."""
        np = np_module()
        meta = {"format": np.array(FORMAT), "version": np.array(VERSION),
                "model_kind": np.array(self.kind),
                "rulebook_sha256": np.array(self.rulebook_sha256),
                "game": np.array(self.game), "players": np.array(self.players),
                "features": np.array(self.features, dtype=str)}
        with open(path, "wb") as f:            # (np.savez would add .npz to another name)
            np.savez(f, **meta, **{f"m_{k}": v for k, v in self.arrays.items()})

    def check(self, prog: Any, players: int) -> None:
        """ModelError unless the model was fitted to this rulebook and player count."""
        again = f"train one for it: mercator learn RULEBOOK --players {players} --out FILE"
        if self.rulebook_sha256 != rulebook_sha256(prog):
            other = "another rulebook" if self.game != prog.name else \
                "another version of the rulebook (its text has changed since)"
            raise ModelError(f"{self.path} is a model of {other} ({self.game}), not of "
                             f"{prog.name} as it is now", again)
        if self.players != players:
            raise ModelError(f"{self.path} is a model of {self.game} for {self.players} "
                             f"players, not {players}", again)


_LOADED: dict[tuple[str, float, int], Model] = {}


def load_model(path: str) -> Model:
    """The model in a file written by Model.save (read once a process while the file is
    unchanged); ModelError naming the file for a missing file, one that is not such a model,
    or numpy missing."""
    hint = "give the file mercator learn wrote (its --out), relative to the current directory"
    if not path or "\0" in path:
        raise ModelError(f"'{path}' is not a file name", hint)
    try:
        st = os.stat(path)
    except OSError:
        raise ModelError(f"{path}: no such file", hint) from None
    if not os.path.isfile(path):
        raise ModelError(f"{path} is not a file", hint)
    key = (os.path.abspath(path), st.st_mtime, st.st_size)
    kept = _LOADED.get(key)
    if kept is not None:
        return kept
    np = np_module()
    notone = f"{path} is not a model written by mercator learn"
    train = "train one: mercator learn RULEBOOK --players N --out FILE"
    try:
        with np.load(path, allow_pickle=False) as z:
            d = {k: z[k] for k in z.files}
    except Exception as exc:    # (numpy raises many kinds for a file that is not an archive)
        raise ModelError(f"{notone} (it cannot be read as one: {type(exc).__name__})",
                         train) from None
    if str(d.get("format", "")) != FORMAT:
        raise ModelError(f"{notone} (a NumPy archive of other arrays)", train)
    if int(d["version"]) > VERSION:
        raise ModelError(f"{path} is a model of a newer Mercator (format {int(d['version'])})",
                         "update Mercator, or train the model again with this one")
    kind = str(d["model_kind"])
    if kind not in KINDS:
        raise ModelError(f"{notone} (its kind '{kind}' is unknown)", train)
    arrays = {k[2:]: v for k, v in d.items() if k.startswith("m_")}
    m = Model(kind, arrays, str(d["rulebook_sha256"]), str(d["game"]), int(d["players"]),
              [str(f) for f in d["features"]], path)
    _LOADED[key] = m
    return m


def fit_model(x: Any, y: Any, g: Any, kind: str, estimate: bool,
              log: Any = None) -> tuple[dict, dict]:
    """The model's arrays fitted to rows (x, y) of games g, and how well it predicts: the games
    whose seed is 0 mod 5 are held out (`r2_model`, and where there is an estimate `r2_estimate`,
    a line through the estimate's lead alone), the line fitted on the others, the network on
    those whose seed is not 1 mod 5 either (those choose its epoch). R² is None where the
    held-out margins do not vary."""
    np = np_module()
    test = g % 5 == 0
    val = g % 5 == 1
    train = ~test & ~val
    yt = y[test]
    var = float(yt.var()) if len(yt) else 0.0

    def r2(pred: Any) -> Optional[float]:
        if var <= 1e-12:
            return None
        return 1.0 - float(((pred - yt) ** 2).mean()) / var
    report: dict[str, Any] = {"rows": int(len(y)), "features": int(x.shape[1]),
                              "held_out_rows": int(test.sum())}
    if estimate:
        lin = ridge(x[~test][:, -1:], y[~test])
        report["r2_estimate"] = r2(predict(lin, x[test][:, -1:]))
    if kind == "mlp":
        net = mlp_fit(x[train], y[train], x[val], y[val], log=log,
                      lead_col=x.shape[1] - 1 if estimate else None)
        report["r2_model"] = r2(mlp_predict(net, x[test]))
        return net, report
    mu, sd, w = ridge(x[~test], y[~test])
    report["r2_model"] = r2(predict((mu, sd, w), x[test]))
    return {"mu": mu, "sd": sd, "w": w}, report


# ------------------------------------------------------------------ in the search
class Judge:
    """A model at work in a searcher's game: each seat's predicted margin in a position, and
    the position as a cut-off's Terminal with those margins standing for the estimates. It
    reads each seat's observation of the state it is given — in ismcts a world drawn from what
    the searching seat may see, so what that seat may not see reaches the model only as the
    world's guess."""

    def __init__(self, model: Model, prog: Any, players: int) -> None:
        model.check(prog, players)
        self.fx = Features(prog, players)
        if self.fx.names() != model.features:
            raise ModelError(f"{model.path}: its features are not this engine's observation of "
                             f"{prog.name} (made by another version of Mercator?)",
                             f"train it again: mercator learn RULEBOOK --players {players}")
        self.model = model
        self.players = players
        self.sign = self.fx.sign

    def margins(self, s: Any) -> list[float]:
        """Each seat's predicted final margin in s."""
        return [float(v) for v in self.model.predict(self.fx.rows(s))]

    def cut_off(self, s: Any) -> Terminal:
        """s judged by the model, as Program.estimated judges it by the estimate: each seat's
        predicted margin in place of its score, the winners the best by it."""
        sign, n = self.sign, self.players
        m = self.margins(s)
        best = max(m)
        # (margins, not whole points: the search reads a Terminal's scores as any numbers)
        values: Any = tuple(sign * v for v in m)
        return Terminal(values, tuple(() for _ in range(n)),
                        tuple(p for p in range(n) if m[p] == best),
                        tuple(sorted(range(n), key=lambda p: (-m[p], p))))

    def at_end(self, end: Terminal) -> Terminal:
        """A finished rollout on the model's scale: the final margins the model predicts, in
        place of the scores."""
        sign = self.sign
        m = score_margins(end, self.players, sign)
        values: Any = tuple(sign * v for v in m)
        return Terminal(values, end.tiebreaks, end.winners, end.ranking,
                        end.barred)
