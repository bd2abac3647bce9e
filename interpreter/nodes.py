"""What ``pending`` returns: a Decision, a Chance node, or the Terminal result."""
from __future__ import annotations

from typing import Any, Callable, Optional

import attrs

from dsl.ast import Span


@attrs.frozen
class Option:
    """One legal choice: a readable label and the value it stands for."""

    label: str
    value: Any
    action: Optional[tuple] = None   # (body_id, args) for an "at any time" action


class Decision:
    """A player must choose among options (pass first, then values, then any-time actions)."""

    __slots__ = ("player", "values", "labeller", "allow_pass", "prompt", "actions", "simultaneous",
                 "commit", "span", "_options")

    def __init__(self, player: int, values: list, labeller: Callable[[Any], str], allow_pass: bool,
                 prompt: str, actions: list, simultaneous: bool,
                 commit: Callable[[Any, Any], None], span: Span):
        self.player = player
        self.values = values
        self.labeller = labeller
        self.allow_pass = allow_pass
        self.prompt = prompt
        self.actions = actions            # list of (label, body_id, args)
        self.simultaneous = simultaneous
        self.commit = commit
        self.span = span
        self._options: Optional[list[Option]] = None

    @property
    def count(self) -> int:
        """Number of legal options."""
        return len(self.values) + len(self.actions) + (1 if self.allow_pass else 0)

    @property
    def options(self) -> list[Option]:
        """The legal options in their stable order, with labels."""
        if self._options is None:
            out = [Option("pass", None)] if self.allow_pass else []
            out.extend(Option(self.labeller(v), v) for v in self.values)
            out.extend(Option(lbl, None, (bid, args)) for lbl, bid, args in self.actions)
            self._options = out
        return self._options

    def option(self, i: int) -> Option:
        """The i-th option (no labels computed for the others)."""
        if self.allow_pass:
            if i == 0:
                return Option("pass", None)
            i -= 1
        if i < len(self.values):
            v = self.values[i]
            return Option(self.labeller(v), v)
        lbl, bid, args = self.actions[i - len(self.values)]
        return Option(lbl, None, (bid, args))

    def __repr__(self) -> str:
        return f"<Decision P{self.player + 1} {self.prompt!r} {self.count} options>"


class Chance:
    """Chance must pick an outcome (only when explicit chance is on; otherwise the state's seeded
    generator picks)."""

    __slots__ = ("values", "labeller", "what", "commit", "span", "player")

    def __init__(self, values: list, labeller: Callable[[Any], str], what: str,
                 commit: Callable[[Any, Any], None], span: Span):
        self.values = values
        self.labeller = labeller
        self.what = what
        self.commit = commit
        self.span = span
        self.player = -1

    @property
    def count(self) -> int:
        """Number of outcomes."""
        return len(self.values)

    @property
    def options(self) -> list[Option]:
        """Outcomes with labels, in order; each has probability 1/count."""
        return [Option(self.labeller(v), v) for v in self.values]

    def option(self, i: int) -> Option:
        """The i-th outcome."""
        v = self.values[i]
        return Option(self.labeller(v), v)

    @property
    def probabilities(self) -> list[float]:
        """Uniform probabilities, one per outcome."""
        return [1.0 / len(self.values)] * len(self.values)

    def __repr__(self) -> str:
        return f"<Chance {self.what} {self.count} outcomes>"


@attrs.frozen
class Terminal:
    """The game is over: scores, tie-break values, and the winners (several on a shared win)."""

    scores: tuple[int, ...]
    tiebreaks: tuple[tuple[int, ...], ...]
    winners: tuple[int, ...]
    ranking: tuple[int, ...]

    @property
    def player(self) -> int:
        """No one decides at a terminal node."""
        return -1
