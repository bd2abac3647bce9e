"""A person at the terminal: the input rule (what a typed line means), the commands, and the
agent that asks until it gets a legal choice. How the view is drawn is a Screen's business: the
plain one here writes text lines; the CLI hands in a richer one (interpreter/cli/terminal.py).

The input rule, in order:
  1. a word that is an option's label (any case) picks that option;
  2. a command word (help, ?, options, view, log, rules, undo, quit) runs the command; ':word' always
     runs the command, even when an option has the same label;
  3. '#N' picks option N of the menu (1-based), at every prompt;
  4. a bare number is a value: it picks the option labelled with that number, and is refused
     (with a hint to type #N) where no option is;
  5. otherwise the start of one label only (a unique prefix) picks that option.
"""
from __future__ import annotations

import re
import shutil
from typing import Any, Callable, Optional, Protocol, Sequence

from mercator.interpreter.agents.bundles import bundle_steps, step_index
from mercator.interpreter.agents.typed_offer import offer_steps
from mercator.interpreter.engine.nodes import Decision, Option
from mercator.interpreter.engine.seen import readable_log
from mercator.interpreter.engine.state import State
from mercator.interpreter.engine.declared_view import (declared_view, describe_view, option_notes,
                                                       option_words)
from mercator.interpreter.engine.people import People, people
from mercator.interpreter.engine.view_summary import view_changes
from mercator.interpreter.engine.view import printable


# UndoRequest and QuitGame are not MercatorErrors: they are control flow (a person's request
# travelling from the prompt up to the game loop), never an error a caller should catch.
class UndoRequest(Exception):
    """The human at `seat` asked to take back their last decision (and the bots' after it);
    the caller rebuilds the game without them (interpreter/cli/main.py)."""

    def __init__(self, seat: int):
        super().__init__(f"P{seat + 1} takes back their last decision")
        self.seat = seat


class QuitGame(Exception):
    """The human stopped the game (end of input or 'quit'); the game can be saved as it is."""

    def __init__(self, message: str, requested: bool = False):
        super().__init__(message)
        self.requested = requested   # True when the player typed 'quit', False at end of input


MAX_NUMBER_DIGITS = 30       # longer digit strings are never option numbers or menu values
_NUMBER = re.compile(r"-?[0-9]{1,%d}" % MAX_NUMBER_DIGITS)
_DIGITS = re.compile(r"-?[0-9]+")
COMMANDS = ("help", "?", "options", "view", "log", "rules", "undo", "quit", "exit")
RECENT_LINES = 15            # log lines shown before a decision; `log` shows them all


def _is_number(text: str) -> bool:
    """An ASCII whole number of at most MAX_NUMBER_DIGITS digits (not '²', not 5,000 nines)."""
    return _NUMBER.fullmatch(text) is not None


def is_numeric_menu(options: Sequence[Option]) -> bool:
    """Is this a choice of numbers (a bid, a price): does some option's label read as one?"""
    return any(_is_number(o.label) for o in options)


def _short(t: str, n: int = 12) -> str:
    return t[:n] + ("…" if len(t) > n else "")


def command_of(text: str, options: Sequence[Option]) -> Optional[str]:
    """The command a typed line names ('help', 'options', ..., 'quit'), or None: a command
    word that is not also an option's label, or any command word after ':'."""
    t = text.strip().lower()
    if t.startswith(":") and t[1:].strip() in COMMANDS:
        word = t[1:].strip()
    elif t in COMMANDS and t not in [o.label.lower() for o in options]:
        word = t
    else:
        return None
    return {"?": "help", "exit": "quit"}.get(word, word)


def match_choice(text: str, options: Sequence[Option],
                 words: Optional[Sequence[str]] = None) -> tuple[Optional[int], str]:
    """Resolve typed text to an option index by the input rule (see the module's docstring):
    (index, "") or (None, why it does not match, with what to type instead). `words`: each
    option as the person is shown it ('move the silk boat 1 space forward'); typed in full or
    by a start that only one option has, they name the option as its label does."""
    idx, why = _match_label(text, options)
    if idx is not None or not words or text.strip().startswith("#"):
        return idx, why
    low = " ".join(text.lower().split())
    said = [w.lower() for w in words]
    same = [i for i, w in enumerate(said) if w == low]
    if len(same) == 1:
        return same[0], ""
    hits = same or [i for i, w in enumerate(said) if low and w.startswith(low)]
    if len(hits) == 1:
        return hits[0], ""
    if hits:
        shown = ", ".join(words[i] for i in hits[:6]) + (", …" if len(hits) > 6 else "")
        return None, f"'{_short(text.strip(), 40)}' could be any of: {shown}"
    return idx, why


def _match_label(text: str, options: Sequence[Option]) -> tuple[Optional[int], str]:
    """match_choice by the options' labels alone."""
    t = text.strip()
    n = len(options)
    if not t:
        return None, "type an option's label, #N for option N, or 'help'"
    if len(t) > 40:
        shown_t = t[:37] + "..."
        if not t.startswith("#") and not _DIGITS.fullmatch(t):
            if t.lower() not in [o.label.lower() for o in options]:
                return None, f"'{shown_t}' matches no option"
    low = t.lower()
    labels = [o.label.lower() for o in options]
    if low in labels:
        same = [i for i, lb in enumerate(labels) if lb == low]
        if len(same) > 1:
            nums = " or ".join(f"#{i + 1}" for i in same[:6])
            return None, f"'{t}' names {len(same)} options: type {nums}"
        return same[0], ""
    if t.startswith("#"):
        num = t[1:].strip()
        if not _is_number(num):
            if _DIGITS.fullmatch(num):
                return None, f"there is no option {_short(num)}: choose #1–#{n}"
            return None, (f"'{_short(t)}' is not an option number "
                          "(type # and digits 0–9, e.g. #1)")
        k = int(num)
        if 1 <= k <= n:
            return k - 1, ""
        return None, f"there is no option {k}: choose #1–#{n}" if n > 1 else \
            "there is only option #1"
    if _DIGITS.fullmatch(t):
        if not is_numeric_menu(options):
            return None, (f"{_short(t)} is a number, and this choice is not of numbers: "
                          f"type #N to pick option N (#1–#{n}), or an option's label")
        return None, (f"{_short(t)} is not one of the values offered "
                      "(type #N to pick option number N)")
    hits = [i for i, lb in enumerate(labels) if lb.startswith(low)]
    if len(hits) == 1:
        return hits[0], ""
    if hits:
        shown = ", ".join(options[i].label for i in hits[:6]) + (", …" if len(hits) > 6 else "")
        return None, f"'{t}' could be any of: {shown}"
    return None, f"'{t}' matches no option"


def option_runs(options: Sequence[Option],
                notes: Optional[Sequence[Optional[str]]] = None) -> list[tuple[int, int]]:
    """Split option indices into [start, end) runs; labels that count up by one form one run
    (options with a note, what the view's label says they do, are listed one by one)."""
    runs: list[tuple[int, int]] = []
    i = 0

    def bare(k: int) -> bool:
        return _is_number(options[k].label) and (notes is None or not notes[k])
    while i < len(options):
        j = i + 1
        if bare(i):
            while j < len(options) and bare(j) and \
                    int(options[j].label) == int(options[j - 1].label) + 1:
                j += 1
        if j - i < 4:   # short runs are listed one by one
            j = i + 1
        runs.append((i, j))
        i = j
    return runs


def menu_rows(options: Sequence[Option], notes: Optional[Sequence[Optional[str]]] = None,
              words: Optional[Sequence[str]] = None) -> list[tuple[str, str, str]]:
    """The menu as (number, words, note) cells: '#3', 'silk boat', 'seat 2 · 4 pesos' (the
    words: the option as a person is shown it, engine/people.py, else its label; the note:
    what the view's `label` says the option does, or ""); a long run of numbers as one cell,
    '#2–#11', '1 to 10'."""
    cells = []
    for i, j in option_runs(options, notes):
        if j - i == 1:
            cells.append((f"#{i + 1}", words[i] if words else options[i].label,
                          (notes[i] or "") if notes else ""))
        else:
            cells.append((f"#{i + 1}–#{j}", f"{options[i].label} to {options[j - 1].label}",
                          ""))
    return cells


def menu_cells(options: Sequence[Option]) -> list[tuple[str, str]]:
    """The menu as (number, label) cells: '#3', 'silk'; a long run of numbers as one cell,
    '#2–#11', '1 to 10'."""
    return [(num, label) for num, label, _ in menu_rows(options)]


def format_menu(options: Sequence[Option], width: int = 80,
                notes: Optional[Sequence[Optional[str]]] = None,
                words: Optional[Sequence[str]] = None) -> str:
    """The options numbered from #1 in columns; long runs of numbers shown as one range; an
    option with a note (what it does) on a line of its own, 'words — note'."""
    rows_ = menu_rows(options, notes, words)
    if any(note for _, _, note in rows_):
        return "\n".join(f"  {num:>3} {label}" + (f" — {note}" if note else "")
                         for num, label, note in rows_)
    cells = [f"{num:>3} {label}" for num, label, _ in rows_]
    cw = max(len(c) for c in cells) + 3 if cells else 1
    per = max(1, min(len(cells), width // cw)) if len(cells) > 8 else 1
    rows = []
    for r in range(0, len(cells), per):
        rows.append("  " + "".join(c.ljust(cw) for c in cells[r:r + per]).rstrip())
    return "\n".join(rows)


def input_hint(options: Sequence[Option]) -> str:
    """One line under the menu: what to type at this prompt."""
    if is_numeric_menu(options):
        return "type a value (a bare number is the value), a label, or #N for option N; " \
               "'help' for the commands"
    return "type an option's label (or its start) or #N for option N; 'help' for the commands"


def help_lines(options: Sequence[Option]) -> list[str]:
    """What `help` explains: how to choose, and every command."""
    numeric = is_numeric_menu(options)
    return _choosing_lines(numeric) + _offer_lines(options) + _command_lines()


def _offer_lines(options: Sequence[Option]) -> list[str]:
    """How to type a whole offer, where a deal's offer may be posted (interpreter/agents/
    typed_offer.py)."""
    if not any(o.label == "post an offer" or o.label.startswith("about ") for o in options):
        return []
    return [
        "Offers:",
        "  25 + silk for X   posts an offer in one line: what you give, 'for', and what it",
        "             is about by its name's words or one word of it ('for Villa Colini',",
        "             'for colini'); end with 'to P3' to say whom, where you are asked",
    ]


def _choosing_lines(numeric: bool) -> list[str]:
    return [
        "Choosing:",
        "  #N         picks option N of the menu (#1 is the first), at every prompt",
        "  a number   is a value: at a choice of numbers (a bid, a price), 7 picks the",
        "             option labelled 7; at any other choice a bare number is refused",
        "             (type #N instead)"
        + ("; this prompt is a choice of numbers" if numeric else ""),
        "  a label    picks that option, in any case; so does the start of a label",
        "             when no other label starts the same way",
    ]


def _command_lines() -> list[str]:
    return [
        "Commands:",
        "  help, ?    this help",
        "  options    the options again",
        "  view       what you see of the game, again",
        "  log        everything you have seen happen so far",
        "  rules      the rules in brief: rounds and phases, the end, the score",
        "  undo       take back your last decision (and the bots' after it); not once",
        "             another person has decided after it: their move stands",
        "  quit       stop (with --save FILE the game is saved; --resume FILE goes on)",
        "  :WORD      the command WORD even where an option has that label (:quit)",
    ]


class Screen(Protocol):
    """How a human's decision is drawn: the view, the recent log, the options, messages."""

    def turn(self, program: Any, state: State, node: Decision, recent: list[str],
             earlier: int) -> None:
        """The seat's view, what happened since its last decision, the prompt and options."""
        ...

    def options(self, node: Decision) -> None:
        """The prompt and the options again."""
        ...

    def view(self, program: Any, state: State, seat: int) -> None:
        """The seat's view again."""
        ...

    def lines(self, title: str, lines: list[str]) -> None:
        """A block of text under a title (help, the log, the rules)."""
        ...

    def say(self, text: str) -> None:
        """A short message (a refused input, with its hint)."""
        ...

    def ask(self, prompt: str, input_fn: Callable[[str], str]) -> str:
        """Read one line after showing `prompt`."""
        ...

    def handover(self, seat: int, input_fn: Callable[[str], str]) -> None:
        """Hot-seat: another human is to decide; hide the last one's screen if it can."""
        ...


def prompt_line(node: Decision) -> str:
    """'P1, bid (or pass):', with the secrecy of a simultaneous choice said."""
    what = node.prompt or "choose"
    secret = " (secret: the others choose without seeing it)" if node.simultaneous else ""
    return f"P{node.player + 1}, {what}{secret}:"


class PlainScreen:
    """Text lines through one output function, control characters escaped."""

    def __init__(self, output_fn: Callable[[str], None] = print, show_view: bool = True):
        self.output_fn = output_fn
        self.show_view = show_view
        # (decision, its notes, its options in words)
        self.notes: tuple[Any, list[Optional[str]], list[str]] = (None, [], [])
        self.changes: list[str] = []      # what changed in the view since the last decision

    def set_changes(self, lines: list[str]) -> None:
        """What changed in the seat's view since its last decision, shown with the next turn."""
        self.changes = lines

    def _out(self, text: str) -> None:
        self.output_fn(printable(text))

    def turn(self, program: Any, state: State, node: Decision, recent: list[str],
             earlier: int) -> None:
        """The recent log, the view, then the options."""
        if recent:
            more = f" ({earlier} earlier: type 'log')" if earlier else ""
            self._out(f"since your last decision{more}:")
            for line in recent:
                self._out(f"  {line}")
        if self.changes:
            self._out("what changed:")
            for line in self.changes:
                self._out(f"  {line}")
        if self.show_view:
            self._out(describe_view(program, state, node.player))
        self.notes = (node, option_notes(program, state, node, node.player),
                      option_words(program, state, node))
        self.options(node)

    def options(self, node: Decision) -> None:
        """The prompt, the menu (with what each option does, where the view says) and the
        input hint."""
        self._out(prompt_line(node))
        if node.draft:                      # the offer he is building (engine/deals.py)
            self._out(f"  {People().label(node.draft)}")
        notes, words = (self.notes[1], self.notes[2]) if self.notes[0] is node else (None, None)
        self._out(format_menu(node.options, shutil.get_terminal_size((80, 24)).columns, notes,
                              words))
        self._out(f"  ({input_hint(node.options)})")

    def view(self, program: Any, state: State, seat: int) -> None:
        """The seat's view as text (declared, or the generic one)."""
        self._out(describe_view(program, state, seat))

    def lines(self, title: str, lines: list[str]) -> None:
        """The title, then the lines."""
        self._out(title)
        for line in lines:
            self._out(line)

    def say(self, text: str) -> None:
        """One indented line."""
        self._out(f"  {text}")

    def ask(self, prompt: str, input_fn: Callable[[str], str]) -> str:
        """input_fn(prompt)."""
        return input_fn(prompt)

    def handover(self, seat: int, input_fn: Callable[[str], str]) -> None:
        """A line saying whose turn it is (text lines cannot be taken back)."""
        self._out(f"── P{seat + 1}'s turn ──")


class HumanAgent:
    """A player at the terminal: sees their own view and what happened since their last
    decision, picks by the input rule, is asked again after a refused input."""

    def __init__(self, input_fn: Optional[Callable[[str], str]] = None,
                 output_fn: Callable[[str], None] = print, show_view: bool = True,
                 screen: Optional[Screen] = None, rules: Optional[list[str]] = None,
                 log_from: int = 0, handover: bool = False,
                 undo: Optional[Callable[[int], Optional[str]]] = None):
        self.input_fn = input_fn      # None: the built-in input(), looked up when asking
        self.screen: Screen = screen if screen is not None else PlainScreen(output_fn, show_view)
        self.rules = rules            # the lines `rules` shows (None: no summary available)
        self.log_from = log_from      # record entries before this were shown already
        self.seen: dict[int, int] = {}    # seat -> length of the record at its last decision
        self.handover = handover      # hot-seat: several humans at one screen
        self.last_seat: Optional[int] = None
        self.queue: list[str] = []    # the steps of a bundle typed at once, still to answer
        self.views: dict[int, Any] = {}   # seat -> its declared view at its last decision
        self.undo = undo              # seat -> why it may not undo now (None: it may); None: no undo

    def taken_back(self, record_length: int) -> None:
        """The game went back (an undo) to a record of this length: what each seat was shown
        after it is shown again."""
        self.seen = {s: min(n, record_length) for s, n in self.seen.items()}
        self.queue = []

    def _log(self, program: Any, state: State, seat: int, start: int) -> list[str]:
        if not state.narrate:
            return []
        return readable_log(state.record[start:], seat, people(program, state).label)

    def choose(self, program: Any, state: State) -> int:
        """Ask the human until they give a legal choice; QuitGame on end of input or 'quit'."""
        node = state.pending
        if not isinstance(node, Decision):
            raise TypeError("a human only answers decisions")
        seat = node.player
        if self.queue:
            step = self.queue.pop(0)
            idx = step_index(step, node.options)
            if idx is not None:        # (the game's narration shows the step taken)
                return idx
            self.queue = []
            self.screen.say(f"the bundle stops at '{step}': that is not an option now")
        ask = self.input_fn if self.input_fn is not None else input
        if self.handover and self.last_seat is not None and seat != self.last_seat:
            try:
                self.screen.handover(seat, ask)
            except EOFError:
                raise QuitGame("input ended before the game did") from None
        self.last_seat = seat
        recent = self._log(program, state, seat, self.seen.get(seat, self.log_from))
        earlier = max(0, len(recent) - RECENT_LINES)
        self.seen[seat] = len(state.record) if state.narrate else 0
        now = declared_view(program, state, seat)
        changes = view_changes(self.views.get(seat), now, seat)
        self.views[seat] = now
        tell = getattr(self.screen, "set_changes", None)
        if tell is not None:
            tell(changes)
        options = node.options
        self.screen.turn(program, state, node, recent[earlier:], earlier)
        while True:
            try:
                text = self.screen.ask(f"P{seat + 1}> ", ask)
            except EOFError:
                raise QuitGame("input ended before the game did") from None
            if not isinstance(text, str):
                text = str(text)
            command = command_of(text, options)
            if command == "quit":
                raise QuitGame("quit at the player's request", requested=True)
            if command == "undo":
                why = "undo is not available in this game" if self.undo is None \
                    else self.undo(seat)
                if why is None:
                    raise UndoRequest(seat)
                self.screen.say(f"cannot undo: {why}")
                continue
            if command == "help":
                self.screen.lines("help", help_lines(options))
            elif command == "options":
                self.screen.options(node)
            elif command == "view":
                self.screen.view(program, state, seat)
            elif command == "log":
                self.screen.lines(f"what P{seat + 1} has seen",
                                  self._log(program, state, seat, 0) or ["(nothing yet)"])
            elif command == "rules":
                self.screen.lines("the rules in brief", self.rules or
                                  ["no summary of this rulebook is available"])
            else:
                steps, why = offer_steps(text, program, state)   # 'BUNDLE for SUBJECT'
                if steps is None and not why:
                    steps, why = bundle_steps(text, options)
                if steps is not None:  # a whole bundle: its first step now, the rest queued
                    idx = step_index(steps[0], options)
                    if idx is not None:
                        self.queue = steps[1:]
                        return idx
                    why = f"'{steps[0]}' is not an option now"
                elif not why:
                    idx, why = match_choice(text, options,
                                            option_words(program, state, node))
                    if idx is not None:
                        return idx
                self.screen.say(f"{why} — try again ('help' explains what to type)")
