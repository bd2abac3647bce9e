"""Information-state tensors: what one seat knows of a game as a fixed number of cells, for
learners that want perfect recall (OpenSpiel's `information_state_tensor`; the design is in
docs/design/research.md, "Information-state tensors").

A seat's information state (State.information_state) is its record: its view of the position
at every decision and chance node, the log lines it was shown, and its own choices. The tensor
keeps the parts of that record that have a fixed size:

    observation   the seat's view of the position now (engine/observation.py, its layout)
    taken         the ids the seat has taken so far of the decision it is making (id + 1 each)
    history       one row per decision of the game so far, up to `bounds { decisions N }`:
                  who decided (one cell per seat, one-hot), then the ids of the option chosen
                  (id + 1 each, at most the most ids a decision takes) where the seat saw the
                  choice — its own, or another seat's that the rules show it (not a
                  simultaneous one before the reveal, nor one whose label is hidden)

Every decision appears in every seat's record ("P2 chooses …" or "P2 has chosen"), so the
row's decider is known to all; the ids only where the record shows the label. The exception is
a step only its chooser sees (building a deal's offer, engine/seen.py): it is a row of his
history alone — the others' rows skip it, as their records and digests do. Chance outcomes
and the log's text are not rows: they show in the tensor through the view they lead to. So the
tensor is a function of the information state (two worlds the seat cannot tell apart give the
same cells; tests/test_infostate.py) without being a complete record of it.

The rows are kept in a `DecisionLog`, an append-only store shared by the states of one game
(a clone shares it; the first branch to append writes in place, another copies the prefix), so
cloning stays cheap and a tensor is filled by a few array writes.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from mercator.interpreter.engine.encoding import ActionCodec, EncodeError
from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.observation import Observer
from mercator.interpreter.engine.seen import sees


class DecisionLog:
    """The decisions of one game so far, as rows: the decider, the ids of its option (id + 1,
    zero-padded), which seats saw them, and which know of them at all (all but for a private
    step). Rows 0 .. n - 1 are never changed once written;
    `n` is how many rows the longest branch sharing this log has written."""

    __slots__ = ("seats", "ids", "seen", "known", "n", "players", "width", "limit")

    def __init__(self, players: int, width: int, limit: int, capacity: int = 64):
        self.players = players
        self.width = width                 # cells of ids per row: the most ids a decision takes
        self.limit = limit                 # bounds { decisions N }
        cap = max(1, min(capacity, limit))
        self.seats = np.zeros(cap, np.int64)
        self.ids = np.zeros((cap, width), np.float32)
        self.seen = np.zeros((cap, players), np.bool_)
        self.known = np.zeros((cap, players), np.bool_)
        self.n = 0

    def _copy(self, n: int) -> "DecisionLog":
        new = DecisionLog(self.players, self.width, self.limit, max(64, 2 * n))
        new.seats[:n] = self.seats[:n]
        new.ids[:n] = self.ids[:n]
        new.seen[:n] = self.seen[:n]
        new.known[:n] = self.known[:n]
        new.n = n
        return new

    def _grow(self) -> None:
        cap = min(self.limit, 2 * len(self.seats))
        for name in ("seats", "ids", "seen", "known"):
            old = getattr(self, name)
            new = np.zeros((cap,) + old.shape[1:], old.dtype)
            new[:len(old)] = old
            setattr(self, name, new)

    def appended(self, n: int, seat: int, ids: Sequence[int], seen_by: Sequence[bool],
                 known_by: Optional[Sequence[bool]] = None) -> "DecisionLog":
        """The log of a branch that had `n` rows, with one more row: this log when the row
        can be written in place, else a copy of the first n rows with it. `known_by`: the
        seats whose history has the row (all by default)."""
        if n >= self.limit:
            raise EncodeError(f"a game takes more than bounds {{ decisions {self.limit} }}",
                              "raise the bound in the rulebook")
        if len(ids) > self.width:
            raise EncodeError(f"a decision took {len(ids)} ids, more than the {self.width} "
                              "its types allow", "report this as a bug")
        log = self if self.n == n else self._copy(n)
        if n >= len(log.seats):
            log._grow()
        log.seats[n] = seat
        row = log.ids[n]
        row[:] = 0.0
        row[:len(ids)] = np.asarray(ids, np.float32) + 1.0
        log.seen[n] = seen_by
        log.known[n] = True if known_by is None else known_by
        log.n = n + 1
        return log


def seen_by(entry: list, players: int) -> list[bool]:
    """Which seats the record shows the label of a decision to (engine/seen.py `render`): the
    decider always; the others when its visibility lets them and it is not simultaneous."""
    kind, seat = entry[0], entry[1]
    vis = entry[4]
    simultaneous = bool(entry[6]) if kind == "choice" else False
    return [v == seat or (not simultaneous and sees(vis, v)) for v in range(players)]


def known_by(entry: list, players: int) -> list[bool]:
    """Which seats' records have the announcement at all: every seat's, but a private step's
    (building a deal's offer) only its chooser's."""
    private = entry[0] == "choice" and len(entry) > 7
    return [not private or v == entry[1] for v in range(players)]


class InfoStateEncoder:
    """The layout of one (program, player count) and the information-state tensor of a seat."""

    def __init__(self, prog: Any, players: int, codec: Optional[ActionCodec] = None,
                 observer: Optional[Observer] = None):
        self.prog = prog
        self.players = players
        self.codec = codec or ActionCodec(prog, players)
        self.observer = observer or Observer(prog, players)
        spec = self.codec.spec()
        if spec.max_decisions is None or spec.max_steps_per_decision is None:
            raise EncodeError("an information-state tensor needs the longest game",
                              "declare bounds { decisions N  lists N } in the rulebook")
        self.decisions = spec.max_decisions
        self.steps = spec.max_steps_per_decision
        self.row = players + self.steps
        self.taken_at = self.observer.total
        self.history_at = self.taken_at + self.steps
        self.total = self.history_at + self.decisions * self.row

    # -- the static layout
    def layout(self) -> list[tuple[str, int, tuple[int, ...]]]:
        """(name, offset, shape) of every segment: the observation's, then `taken` and
        `history` (rows of: decider one-hot, then the ids of its option)."""
        out: list[tuple[str, int, tuple[int, ...]]] = [
            (name, off, (n,)) for name, off, n in self.observer.layout()]
        out.append(("taken", self.taken_at, (self.steps,)))
        out.append(("history", self.history_at, (self.decisions, self.row)))
        return out

    @property
    def shape(self) -> tuple[int]:
        """The tensor's shape: one flat vector."""
        return (self.total,)

    # -- the log of a game
    def new_log(self) -> DecisionLog:
        """An empty log (the start of a game)."""
        return DecisionLog(self.players, self.steps, self.decisions)

    def apply(self, s: Any, log: DecisionLog, n: int, index: int,
              seq: Optional[Sequence[int]] = None) -> tuple[DecisionLog, int]:
        """Apply option `index` at s (a game started with narrate=True) and return the log of
        the game after it: one row more when s waited at a decision. `seq`: the option's ids,
        when the caller has them."""
        node = s.pending
        if not isinstance(node, Decision):
            self.prog.apply(s, index)
            return log, n
        if seq is None:
            seq = self.codec.sequences(s, node)[index]
        at = len(s.record)
        self.prog.apply(s, index)
        entry = s.record[at]                 # the announcement of this choice (Program._announce)
        return log.appended(n, node.player, seq, seen_by(entry, self.players),
                            known_by(entry, self.players)), n + 1

    def replay(self, seed: int, history: Sequence[int],
               explicit_chance: bool = True) -> tuple[Any, DecisionLog, int]:
        """The game after `history` from the start (narrated), with its log."""
        s = self.prog.new_game(self.players, seed, narrate=True, explicit_chance=explicit_chance)
        log, n = self.new_log(), 0
        for i in history:
            log, n = self.apply(s, log, n, i)
        return s, log, n

    # -- the tensor
    def fill(self, out: np.ndarray, s: Any, viewer: int, log: DecisionLog, n: int,
             taken: Sequence[int] = (), view: Optional[np.ndarray] = None) -> None:
        """Write seat `viewer`'s tensor into `out` (an array of `total` zeros): its view of s
        (or `view`, the observation tensor already made), the ids `taken` of its current
        decision, and the first n rows of `log`."""
        if view is None:
            self.observer.fill(out, s, viewer)
        else:
            out[:self.taken_at] = view
        for k, a in enumerate(taken):
            out[self.taken_at + k] = a + 1
        if n:
            rows = out[self.history_at:self.total].reshape(self.decisions, self.row)
            known = log.known[:n, viewer]
            if known.all():
                rows[np.arange(n), log.seats[:n]] = 1.0
                mask = log.seen[:n, viewer]
                rows[:n, self.players:][mask] = log.ids[:n][mask]
            else:                          # the rows of the decisions the viewer knows of
                at = np.nonzero(known)[0]
                m = len(at)
                rows[np.arange(m), log.seats[at]] = 1.0
                mask = log.seen[at, viewer]
                rows[:m, self.players:][mask] = log.ids[at][mask]

    def tensor(self, s: Any, viewer: int, log: DecisionLog, n: int,
               taken: Sequence[int] = ()) -> np.ndarray:
        """Seat `viewer`'s tensor as a new float32 array."""
        out = np.zeros(self.total, np.float32)
        self.fill(out, s, viewer, log, n, taken)
        return out
