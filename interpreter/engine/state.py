"""The generic game state: a value that can be forked, compared, hashed and written to JSON.

The position in the rulebook's flow is data: ``stack`` is a list of frames
``[body_id, pc, locals, return_slot]``; nothing lives in a Python call stack between decisions.
"""
from __future__ import annotations

import hashlib
import json
import marshal
from typing import Any, Optional

from mercator.interpreter.engine.seen import Unfolded
from mercator.interpreter.engine.values import from_json, to_json
from mercator.dsl.errors import MercatorError

MASK64 = (1 << 64) - 1
STATE_FORMAT = 1


def rng_next(x: int) -> tuple[int, int]:
    """splitmix64: (new generator state, 64-bit output)."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return x, z ^ (z >> 31)


def rng_below(st: "State", n: int) -> int:
    """A uniform int in [0, n) from st's own generator (rng_next, written out): State.randbelow
    (a function of its own too, for the helpers compiled natively: compiler/native.py)."""
    x = st.rng = (st.rng + 0x9E3779B97F4A7C15) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return (x ^ (x >> 31)) % n


class State:
    """One position of one game. Mutated in place by ``apply``; ``clone`` forks it."""

    __slots__ = ("table", "players", "stack", "rng", "round", "over", "history", "messages",
                 "narrate", "explicit_chance", "pending", "result", "steps", "stats", "ended_by",
                 "failed", "record", "_seen", "unfolded", "watch")

    def __init__(self, table: list, players: list, seed: int):
        self.table = table
        self.players = players
        self.stack: list = []
        self.rng = seed & MASK64
        self.round = 0
        self.over = False
        self.history: list[int] = []      # decision log: chosen option indices, enough to replay
        self.messages: list[str] = []     # narration from 'log' statements
        self.narrate = False
        self.explicit_chance = False
        self.pending: Any = None
        self.result: Any = None
        self.steps = 0
        self.stats: list[int] = []        # the rulebook's 'stat' counters, in declaration order
        self.ended_by = ""                # why the game ended: "end", "limit", "end game" ("" = not)
        self.failed = ""                  # why the state is unusable (a rule error in apply), or ""
        # with narration on: what happened, each part with who may see it (interpreter/seen.py),
        # and per seat a digest of everything that seat has observed (its information state)
        self.record: list[list] = []
        # per seat, its digest as folded so far (str; None: not kept, see `watch`), written by
        # engine/seen.py; `seen` reads them brought up to date with what they have yet to take
        # in (`unfolded`)
        self._seen: list[Any] = []
        self.unfolded: Optional[Unfolded] = None
        self.watch: Optional[int] = None  # only this seat's digest is kept (a resampled world)

    @property
    def seen(self) -> list[Any]:
        """Per seat, the digest of everything it has observed (State.information_state), up to
        this position. Digests read once are read again (a searching seat's trace at each of
        its decisions, an adapter's information state at every step): from then on the state
        folds each step at once, as a resampled world does."""
        u = self.unfolded
        if u is not None:
            u.fold(self)
            self.unfolded = None
        return self._seen

    @seen.setter
    def seen(self, digests: list[Any]) -> None:
        self._seen = digests

    @property
    def num_players(self) -> int:
        """How many players are in this game."""
        return len(self.players)

    randbelow = rng_below      # a uniform int in [0, n) from the state's own generator

    # -- forking, equality, JSON
    def clone(self) -> "State":
        """An independent copy (cheap: one marshal round trip of the game data)."""
        if self.failed:
            raise StateUnusable(self.failed)
        s = State.__new__(State)
        s.table, s.players, s.stack, s.history = marshal.loads(
            marshal.dumps((self.table, self.players, self.stack, self.history)))
        s.rng = self.rng
        s.stats = list(self.stats)
        s.round = self.round
        s.over = self.over
        s.messages = list(self.messages)
        s.record = list(self.record)      # entries are never changed once written
        s._seen = list(self._seen)
        s.unfolded = None if self.unfolded is None else self.unfolded.copy()
        s.watch = self.watch
        s.narrate = self.narrate
        s.explicit_chance = self.explicit_chance
        s.pending = self.pending
        s.result = self.result
        s.steps = self.steps
        s.ended_by = self.ended_by
        s.failed = ""
        return s

    def core(self, keep_order: bool = False) -> dict[str, Any]:
        """The data that defines the position (no history, narration or caches); with
        keep_order each map's items in the order the state has them (values.to_json)."""
        return {"table": to_json(self.table, keep_order),
                "players": to_json(self.players, keep_order),
                "stack": to_json(self.stack, keep_order), "rng": str(self.rng), "round": self.round,
                "over": self.over, "explicit_chance": self.explicit_chance,
                "stats": list(self.stats)}

    def to_json(self) -> dict[str, Any]:
        """Everything needed to resume this state in another process."""
        if self.failed:
            raise StateUnusable(self.failed)
        if self.watch is not None:
            raise ValueError("a resampled world (it keeps one seat's record only) is not saved")
        d = self.core(keep_order=True)
        d["format"] = STATE_FORMAT
        if self.ended_by:                 # not in core(): how it ended is not the position
            d["ended_by"] = self.ended_by
        d["history"] = list(self.history)
        if self.narrate:
            d["narrate"] = True
            d["record"] = self.record
            d["seen"] = list(self.seen)
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> "State":
        """Rebuild a state written by to_json (call Program.resume to recompute what is pending)."""
        if not isinstance(d, dict) or d.get("format") != STATE_FORMAT:
            raise ValueError("not a Mercator state (missing or unknown 'format')")
        s = State(from_json(d["table"]), from_json(d["players"]), int(d["rng"]))
        s.stack = from_json(d["stack"])
        s.round = int(d["round"])
        s.over = bool(d["over"])
        s.explicit_chance = bool(d.get("explicit_chance", False))
        s.stats = [int(x) for x in d.get("stats", [])]
        s.history = [int(h) for h in d.get("history", [])]
        s.ended_by = str(d.get("ended_by", ""))
        s.failed = ""
        if d.get("narrate"):
            s.narrate = True
            rec, seen = d.get("record", []), d.get("seen", [])
            if not isinstance(rec, list) or not all(isinstance(e, list) for e in rec) or \
                    not isinstance(seen, list) or not all(isinstance(x, str) for x in seen):
                raise ValueError("malformed record of what each seat has seen")
            s.record = json.loads(json.dumps(rec))
            s.seen = list(seen)
            s.unfolded = Unfolded(len(s.record))
        return s

    def information_state(self, seat: int) -> tuple[int, str]:
        """A hashable key of what `seat` knows: equal for two states exactly when that seat has
        observed the same things (its views at every decision and chance node, the log lines and
        announcements it was shown, and its own decisions). Needs a game started with
        narrate=True, which keeps that record."""
        if self.failed:
            raise StateUnusable(self.failed)
        if not self.narrate or len(self.seen) != len(self.players):
            raise ValueError("this state keeps no record of what each seat has seen: start the "
                             "game with new_game(..., narrate=True)")
        if not 0 <= seat < len(self.players):
            raise ValueError(f"no seat {seat} in a game of {len(self.players)} players")
        if self.seen[seat] is None:
            raise ValueError(f"this resampled world keeps the record of seat {self.watch} "
                             f"only, not of seat {seat}")
        return (seat, self.seen[seat])

    def digest(self) -> str:
        """A stable hash of the position (sha256 of the canonical JSON of core())."""
        text = json.dumps(self.core(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.core() == other.core()

    def __hash__(self) -> int:
        return hash(self.digest())

    def __repr__(self) -> str:
        return f"<State round={self.round} over={self.over} decisions={len(self.history)}>"


class StateUnusable(MercatorError):
    """The state was left half-changed by a rule error in an earlier apply(); it cannot go on."""


def current_frame(s: State) -> Optional[list]:
    """The innermost frame, or None when the game is over."""
    return s.stack[-1] if s.stack else None
