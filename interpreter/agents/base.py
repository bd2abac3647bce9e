"""Agents that make decisions (random bots, a terminal human) and a loop that plays a game out."""
from __future__ import annotations

import hashlib
import random
import re
import shutil
from typing import Any, Callable, Optional, Protocol, Sequence, cast

from interpreter.agents.bundles import bundle_steps, step_index
from interpreter.engine.chance import weighted_index
from interpreter.engine.nodes import Chance, Decision, Option
from interpreter.engine.state import State
from interpreter.engine.view import describe, printable


class Agent(Protocol):
    """Anything that picks an option index for the decision pending in a state."""

    def choose(self, program: Any, state: State) -> int:
        """The index of the chosen option of state.pending."""
        ...


class QuitGame(Exception):
    """The human stopped the game (end of input or 'quit'); the game can be saved as it is."""

    def __init__(self, message: str, requested: bool = False):
        super().__init__(message)
        self.requested = requested   # True when the player typed 'quit', False at end of input


def agent_seed(game_seed: int, seat: int) -> int:
    """A bot's seed derived from the game seed and its seat (stable across runs and machines)."""
    digest = hashlib.sha256(f"mercator-agent:{game_seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class GameTooLong(Exception):
    """A game went on for more decisions than allowed (a rulebook that may never end)."""


class RandomAgent:
    """Chooses uniformly among the legal options, with its own seeded generator."""

    def __init__(self, seed: Any = 0):
        self.rng = random.Random(seed)

    def choose(self, program: Any, state: State) -> int:
        """A uniformly random option index."""
        return self.rng.randrange(state.pending.count)


MAX_NUMBER_DIGITS = 30       # longer digit strings are never option numbers or menu values
_NUMBER = re.compile(r"-?[0-9]{1,%d}" % MAX_NUMBER_DIGITS)
_DIGITS = re.compile(r"-?[0-9]+")


def _is_number(text: str) -> bool:
    """An ASCII whole number of at most MAX_NUMBER_DIGITS digits (not '²', not 5,000 nines)."""
    return _NUMBER.fullmatch(text) is not None


def match_choice(text: str, options: Sequence[Option]) -> tuple[Optional[int], str]:
    """Resolve typed text to an option index: (index, "") or (None, why it does not match).

    Accepted: an exact label (any case), a unique label prefix, an option number (1-based), or
    '#N'. When labels are themselves numbers (bids), a bare number is read as a label.
    """
    t = text.strip()
    if not t:
        return None, "type an option number or label"
    if len(t) > 40:
        shown_t = t[:37] + "..."
        if not t.startswith("#") and not _DIGITS.fullmatch(t):
            low = t.lower()
            if low not in [o.label.lower() for o in options]:
                return None, f"'{shown_t}' matches no option"
    n = len(options)
    low = t.lower()
    labels = [o.label.lower() for o in options]
    numeric_menu = any(_is_number(lb) for lb in labels)
    if low in labels:
        same = [i for i, lb in enumerate(labels) if lb == low]
        if len(same) > 1:
            nums = " or ".join(f"#{i + 1}" for i in same[:6])
            return None, f"'{t}' names {len(same)} options: type {nums}"
        return same[0], ""
    if t.startswith("#") or (_is_number(t) and not numeric_menu):
        num = t[1:].strip() if t.startswith("#") else t
        if not _is_number(num):
            if _DIGITS.fullmatch(num):
                return None, f"there is no option {num[:12]}…: choose 1–{n}"
            return None, (f"'{t[:12]}{'…' if len(t) > 12 else ''}' is not an option number "
                          "(type # and digits 0–9, e.g. #1)")
        k = int(num)
        if 1 <= k <= n:
            return k - 1, ""
        return None, f"there is no option {k}: choose 1–{n}" if n > 1 else "there is only option 1"
    if _DIGITS.fullmatch(t):
        return None, (f"{t[:12]}{'…' if len(t) > 12 else ''} is not one of the values offered "
                      "(type #N to pick option number N)")
    hits = [i for i, lb in enumerate(labels) if lb.startswith(low)]
    if len(hits) == 1:
        return hits[0], ""
    if hits:
        shown = ", ".join(options[i].label for i in hits[:6]) + (", …" if len(hits) > 6 else "")
        return None, f"'{t}' could be any of: {shown}"
    return None, f"'{t}' matches no option"


def _runs(options: Sequence[Option]) -> list[tuple[int, int]]:
    """Split option indices into [start, end) runs; labels that count up by one form one run."""
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(options):
        j = i + 1
        if _is_number(options[i].label):
            while j < len(options) and _is_number(options[j].label) and \
                    int(options[j].label) == int(options[j - 1].label) + 1:
                j += 1
        if j - i < 4:   # short runs are listed one by one
            j = i + 1
        runs.append((i, j))
        i = j
    return runs


def format_menu(options: Sequence[Option], width: int = 80) -> str:
    """The options numbered from 1 in columns; long runs of numbers shown as one range."""
    cells = []
    for i, j in _runs(options):
        if j - i == 1:
            cells.append(f"{i + 1:>2}) {options[i].label}")
        else:
            cells.append(f"{i + 1:>2}–{j}) {options[i].label} to {options[j - 1].label}")
    cw = max(len(c) for c in cells) + 3 if cells else 1
    per = max(1, min(len(cells), width // cw)) if len(cells) > 8 else 1
    rows = []
    for r in range(0, len(cells), per):
        rows.append("  " + "".join(c.ljust(cw) for c in cells[r:r + per]).rstrip())
    return "\n".join(rows)


class HumanAgent:
    """A player at the terminal: sees their own view, picks by number or label, re-asked on errors."""

    def __init__(self, input_fn: Optional[Callable[[str], str]] = None,
                 output_fn: Callable[[str], None] = print, show_view: bool = True):
        self.input_fn = input_fn      # None: the built-in input(), looked up when asking
        self.output_fn = output_fn
        self.show_view = show_view
        self.queue: list[str] = []    # the steps of a bundle typed at once, still to answer

    def choose(self, program: Any, state: State) -> int:
        """Ask the human until they give a legal choice; QuitGame on end of input or 'quit'."""
        node = state.pending
        if not isinstance(node, Decision):
            raise TypeError("a human only answers decisions")
        def out(text: str) -> None:
            self.output_fn(printable(text))
        if self.queue:
            step = self.queue.pop(0)
            idx = step_index(step, node.options)
            if idx is not None:        # (the game's narration shows the step taken)
                return idx
            self.queue = []
            out(f"  the bundle stops at '{step}': that is not an option now")
        if self.show_view:
            out(describe(program, state, node.player))
        what = node.prompt or "choose"
        secret = " (secret: the others choose without seeing it)" if node.simultaneous else ""
        out(f"P{node.player + 1}, {what}{secret}:")
        options = node.options
        out(format_menu(options, shutil.get_terminal_size((80, 24)).columns))
        if any(_is_number(o.label) for o in options):
            out("  (type a value, a label, or #N for option N; 'quit' to stop)")
        while True:
            try:
                ask = self.input_fn if self.input_fn is not None else input
                text = ask(f"P{node.player + 1}> ")
            except EOFError:
                raise QuitGame("input ended before the game did") from None
            if text.strip().lower() in ("quit", "exit") and \
                    text.strip().lower() not in [o.label.lower() for o in options]:
                raise QuitGame("quit at the player's request", requested=True)
            if not isinstance(text, str):
                text = str(text)
            if text.strip() in ("?", "help"):
                out(format_menu(options))
                continue
            steps, why = bundle_steps(text, options)
            if steps is not None:      # a whole bundle: its first step now, the rest queued
                idx = step_index(steps[0], options)
                if idx is not None:
                    self.queue = steps[1:]
                    return idx
                why = f"'{steps[0]}' is not an option now"
            elif not why:
                idx, why = match_choice(text, options)
                if idx is not None:
                    return idx
            out(f"  {why} — try again ('?' lists the options)")


def resolve_chance(state: State) -> int:
    """Pick an outcome of an explicit chance node with the state's own generator, each with its
    probability (weight / total)."""
    weights = state.pending.weights
    return weighted_index(weights, state.randbelow(sum(weights)))


StepHook = Callable[[State, Any, int, str], None]


def play_out(program: Any, state: State, agents: Sequence[Agent],
             on_step: Optional[StepHook] = None, max_decisions: Optional[int] = None) -> State:
    """Play `state` to the end; on_step(state, node, index, label) runs after every choice."""
    if len(agents) != state.num_players:
        raise ValueError(f"{len(agents)} agents for {state.num_players} players")
    if on_step is None and all(type(a) is RandomAgent for a in agents) \
            and hasattr(program, "playout"):
        # random bots only, nothing to report between choices: the same game as the loop
        # below, played by the program's rollout (each bot drawing from its own generator)
        left = None if max_decisions is None else max_decisions - len(state.history)
        if left is None or left > 0:
            program.playout(state, None, left,
                            seat_rngs=[cast(RandomAgent, a).rng for a in agents])
        if not state.over:
            raise GameTooLong(f"the game did not end within {max_decisions} decisions")
        return state
    while not state.over:
        if max_decisions is not None and len(state.history) >= max_decisions:
            raise GameTooLong(f"the game did not end within {max_decisions} decisions")
        node = state.pending
        if isinstance(node, Chance):
            idx = resolve_chance(state)
        else:
            idx = agents[node.player].choose(program, state)
        label = node.option(idx).label if on_step is not None else ""
        program.apply(state, idx)
        if on_step is not None:
            on_step(state, node, idx, label)
    return state


def play_game(program: Any, players: int, seed: int, agents: Sequence[Agent],
              on_step: Optional[StepHook] = None, narrate: bool = False,
              max_decisions: Optional[int] = None) -> State:
    """A new game of `players` seats from `seed`, played to the end by `agents` (one per seat)."""
    state = program.new_game(players, seed, narrate=narrate)
    return play_out(program, state, agents, on_step, max_decisions)
