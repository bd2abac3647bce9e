"""What ``pending`` returns: a Decision, a Chance node, or the Terminal result."""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Optional, Union

import attrs

from mercator.dsl.ast import Span


@attrs.frozen
class Option:
    """One legal choice: a readable label and the value it stands for."""

    label: str
    value: Any
    action: Optional[tuple] = None   # (body_id, args) for an "at any time" action


class Decision:
    """A player must choose among options (pass first, then values, then any-time actions)."""

    __slots__ = ("player", "values", "labeller", "allow_pass", "prompt", "actions", "simultaneous",
                 "commit", "span", "_options", "prompt_parts", "vis", "vtype", "private",
                 "_draft", "count")

    def __init__(self, player: int, values: list, labeller: Callable[[Any], str], allow_pass: bool,
                 prompt: str, actions: list, simultaneous: bool,
                 commit: Callable[[Any, Any], None], span: Span,
                 prompt_parts: Optional[list] = None, vis: Optional[list] = None):
        self.prompt_parts = prompt_parts  # [[text, visibility], ...] when a part is not public
        self.vis = vis                    # who may see the chosen value (None: every seat; set
                                          # only with narration, which records announcements)
        self.player = player
        self.values = values
        self.labeller = labeller
        self.allow_pass = allow_pass
        self.prompt = prompt
        self.actions = actions            # list of (label, body_id, args)
        # the number of legal options (a node's options never change: read at every apply)
        self.count = len(values) + len(actions) + (1 if allow_pass else 0)
        self.simultaneous = simultaneous
        self.commit = commit
        self.span = span
        self._options: Optional[list[Option]] = None
        # the static type of the values (dsl.types.Type), or ("deal", DealSpec) for a step of
        # a deal: what interpreter/engine/encoding.py turns into action ids
        self.vtype: Any = None
        # with narration: which chosen values are seen by the chooser alone, the other seats
        # seeing nothing of the step (a step of building a deal's offer, engine/deals.py);
        # None: every value is announced by `vis`
        self.private: Optional[Callable[[Any], bool]] = None
        # with narration, at a step of building a deal's offer: the offer so far, for the
        # chooser's eyes only (engine/deals.py, DealSpec.draft_later); set as a function of no
        # arguments, it is made when first read (most nodes' never is: a search's worlds)
        self._draft: Union[None, str, Callable[[], str]] = None

    @property
    def draft(self) -> Optional[str]:
        """With narration, at a step of building a deal's offer: the offer so far, for the
        chooser's eyes only; else None."""
        d = self._draft
        if d is not None and not isinstance(d, str):
            d = self._draft = d()
        return d

    @draft.setter
    def draft(self, text: Union[None, str, Callable[[], str]]) -> None:
        self._draft = text

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

    def prompt_for(self, viewer: Any) -> str:
        """The prompt as `viewer` (a seat, None for a spectator, "all") sees it: the chooser sees
        all of it, the others only its parts they may see."""
        if self.prompt_parts is None or viewer == self.player or viewer == "all":
            return self.prompt
        return " ".join(t for t, v in self.prompt_parts
                        if t and (v is None or (viewer is not None and viewer in v)))

    def parts(self) -> list:
        """The prompt as [[text, visibility], ...] (one public part when nothing is hidden)."""
        return self.prompt_parts if self.prompt_parts is not None else [[self.prompt, None]]

    def __repr__(self) -> str:
        return f"<Decision P{self.player + 1} {self.prompt!r} {self.count} options>"


class QuickPass:
    """What a deal window's op returns to a compiled rollout that makes no deals
    (Rollout.play(..., deals=False), while Program.quick_pass[0] is set) at a turn where the seat
    may pass and has something else to do: the decision the seat will pass at, without its
    options. `commit` is the window's (called with None: pass); `full()` makes the Decision the
    op would have returned (for a rollout that stops there: the state's pending node)."""

    __slots__ = ("player", "commit", "full")

    def __init__(self, player: int, commit: Callable[[Any, Any], None],
                 full: Callable[[], Decision]):
        self.player = player
        self.commit = commit
        self.full = full


def no_deal_index(node: Decision) -> int:
    """For the rollouts of a search that make no deals (playout(..., deals=False)): the option
    index a seat takes at a step of a deal window (node.vtype ("deal", spec)): pass (0) where
    it may, or the 'cancel' of an offer it is drafting; -1 where neither is there (an
    acceptance the rules force, or a draft's first step), and at any other decision: draw."""
    vt = node.vtype
    if vt.__class__ is not tuple or vt[0] != "deal":
        return -1
    if node.allow_pass:
        return 0
    vals = node.values
    if vals and vals[-1] == ("cancel",):
        return len(vals) - 1
    return -1


def move_key(node: Decision, i: int) -> Any:
    """A move as a searcher's move statistics know it (agents/search.py, MAST): the choose site
    and the value chosen (None for a pass), the same wherever the site offers it; None for an
    any-time action. What a seat's trace records of another seat's choice it saw
    (engine/resample.py), for a searcher's model of the other players."""
    j = i - node.allow_pass
    if j >= len(node.values):
        return None
    v = node.values[j] if j >= 0 else None
    try:
        hash(v)
    except TypeError:
        v = repr(v)
    return (node.span, v)


def option_keys(node: Decision) -> list[str]:
    """A key per option of a decision: its label, with '#k' added to the k-th repeat of a
    label — what a search's tree keys an option by wherever it stands in the menu, and what the
    seat's trace of the game records for a step it made or saw (engine/resample.py)."""
    if node._options is not None:
        labels = [o.label for o in node.options]
    else:                               # the labels alone (a search asks at every node it
        lab = node.labeller             # passes, in a world of its own: no Option is made)
        labels = ["pass"] if node.allow_pass else []
        labels += [lab(v) for v in node.values]
        labels += [a[0] for a in node.actions]
    if len(set(labels)) == len(labels):
        return labels
    seen: dict[str, int] = {}
    keys = []
    for label in labels:
        k = seen.get(label, 0)
        seen[label] = k + 1
        keys.append(label if k == 0 else f"{label}#{k}")
    return keys


class Chance:
    """Chance must pick an outcome (only when explicit chance is on; otherwise the state's seeded
    generator picks). The outcomes are distinct; outcome i happens with probability
    weights[i] / total."""

    __slots__ = ("values", "weights", "labeller", "what", "commit", "span", "player", "vis",
                 "pile", "at", "vtype")

    def __init__(self, values: list, labeller: Callable[[Any], str], what: str,
                 commit: Callable[[Any, Any], None], span: Span,
                 weights: Optional[list[int]] = None):
        self.values = values
        self.weights = weights if weights is not None else [1] * len(values)
        # who sees the outcome when it happens: a die roll is public; a draw, a random pick
        # or a shuffle step is seen by nobody (the rules then put the item where it is seen)
        self.vis: Optional[list] = None if what == "roll" else []
        self.labeller = labeller
        self.what = what
        self.commit = commit
        self.span = span
        self.player = -1
        self.pile: Optional[list] = None  # a shuffle's step: the list being shuffled ...
        self.at = -1                      # ... and the position this outcome fills
        self.vtype: Any = None            # the static type of the outcomes (encoding.py)

    @property
    def count(self) -> int:
        """Number of outcomes."""
        return len(self.values)

    @property
    def options(self) -> list[Option]:
        """Outcomes with labels, in order (their probabilities are in `probabilities`)."""
        return [Option(self.labeller(v), v) for v in self.values]

    def option(self, i: int) -> Option:
        """The i-th outcome."""
        v = self.values[i]
        return Option(self.labeller(v), v)

    @property
    def total(self) -> int:
        """The sum of the weights (the number of equally likely raw outcomes)."""
        return sum(self.weights)

    @property
    def probabilities(self) -> list[float]:
        """The probability of each outcome, weight / total."""
        total = self.total
        return [w / total for w in self.weights]

    @property
    def fractions(self) -> list[Fraction]:
        """The exact probability of each outcome, weight / total."""
        total = self.total
        return [Fraction(w, total) for w in self.weights]

    def __repr__(self) -> str:
        return f"<Chance {self.what} {self.count} outcomes>"


@attrs.frozen
class Terminal:
    """The game is over: scores, tie-break values, and the winners (several on a shared win)."""

    scores: tuple[int, ...]
    tiebreaks: tuple[tuple[int, ...], ...]
    winners: tuple[int, ...]
    ranking: tuple[int, ...]
    barred: tuple[int, ...] = ()        # the seats the rulebook's `eligible` bars from winning

    @property
    def player(self) -> int:
        """No one decides at a terminal node."""
        return -1
