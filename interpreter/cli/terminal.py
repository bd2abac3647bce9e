"""The terminal, drawn with rich: consoles that colour only a terminal (never with NO_COLOR),
the human's screen (the seat's view, what happened since its last decision, the options as
tables and panels), progress bars on stderr, and the rules summary that `rules` shows.

Everything a rulebook wrote (labels, log lines, values, names) goes through view.printable and
into rich as plain Text, never as markup: a label '[red]x' prints as '[red]x'."""
from __future__ import annotations

import sys
from typing import Any, Callable, Optional, TextIO

from rich import box
from rich.columns import Columns
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.progress import (BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn,
                           TimeElapsedColumn)
from rich.table import Table
from rich.text import Text

from mercator.interpreter.agents.human import input_hint, menu_rows, prompt_line
from mercator.interpreter.cli.common import color_ok
from mercator.interpreter.engine.declared_view import declared_view, option_notes, option_words
from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.people import People
from mercator.interpreter.engine.state import State
from mercator.interpreter.engine.view import printable, view_fields
from mercator.interpreter.engine.view_boards import pile_words
from mercator.interpreter.tools.rules_text import rules_summary  # noqa: F401 (the terminal's `rules`)


def console_for(stream: TextIO) -> Console:
    """A rich console writing to `stream`: terminal features (redrawn progress bars, clearing
    the screen) only when the stream is a terminal, colour only then and never with NO_COLOR
    set; into a pipe plain text (box lines, no escape codes)."""
    tty = bool(getattr(stream, "isatty", lambda: False)())
    colour = color_ok(stream)
    return Console(file=stream, force_terminal=tty, no_color=not colour,
                   color_system="auto" if colour else None, highlight=False, markup=False,
                   emoji=False)


def _t(text: str, style: str = "") -> Text:
    """Rulebook text, escaped, as a plain rich Text (no markup read in it)."""
    return Text(printable(text), style=style)


def _table_fields(table: list) -> Table:
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False)
    t.add_column("table", style="bold")
    t.add_column("")
    for name, value in table:
        t.add_row(_t(name), _t(value))
    return t


def _player_table(seat: Optional[int], nseats: int, rows: list[tuple[str, list[Text]]]) -> Table:
    """One row per field or view row, one column per seat (the seat's own marked 'you')."""
    p = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    p.add_column("player", style="bold")
    for i in range(nseats):
        you = i == seat
        p.add_column(f"P{i + 1}" + (" (you)" if you else ""),
                     style="cyan" if you else "", header_style="bold cyan" if you else "bold")
    for name, cells in rows:
        p.add_row(_t(name), *cells)
    return p


def _view_value(row: dict[str, Any]) -> RenderableType:
    """A declared row's value: a track as its entries on a line ('key: value', the key in bold), a hidden
    value dimmed."""
    if row["hidden"]:
        return _t(row["text"], "dim")
    if row["kind"] == "track" and row["cells"]:
        out = Text()
        for i, (key, text) in enumerate(row["cells"]):
            if i:
                out.append(" · ", style="dim")
            out.append_text(_t(key + ":", "bold"))
            out.append(" ")
            out.append_text(_t(text))
        return out
    return _t(row["text"])


def _grid_table(row: dict[str, Any]) -> Table:
    """A grid as a table: a column per cell, each row headed by its name; what stands on a
    square (`with`) after its name, in brackets and green ("market [tower]")."""
    t = Table(box=box.SQUARE, show_header=True, pad_edge=False, show_lines=False)
    t.add_column("", style="bold")
    for c in range(row["columns"]):
        t.add_column(str(c + 1), header_style="bold", overflow="fold")
    marks = row.get("marks") or [[""] * len(cells) for cells in row["rows"]]

    def square(c: str, m: str) -> Text:
        out = _t(c)
        if m:
            out.append(" ")
            out.append_text(_t(f"[{m}]", "bold green"))
        return out
    for key, cells, mk in zip(row["keys"], row["rows"], marks):
        t.add_row(_t(key), *[square(c, m) for c, m in zip(cells, mk)])
    return t


def _lane_table(row: dict[str, Any]) -> Table:
    """A track on spaces (`on`) as a strip a line per entry: a column per space (its name on
    top), a dot where the entry stands; an entry on no space shows its value after the strip."""
    t = Table(box=box.SIMPLE_HEAD, show_header=True, pad_edge=False, show_lines=False,
              collapse_padding=True)
    t.add_column(row.get("unit") or "", style="bold", header_style="dim")
    for name in row["spaces"]:
        t.add_column(name, header_style="bold", justify="center")
    off = dict((k, x) for k, x in row["off"])
    if off:
        t.add_column("")
    for key in row["lane_keys"]:
        cells = [_t("●", "green") if key in on else _t("·", "dim") for on in row["at"]]
        t.add_row(_t(key), *cells, *([_t(off.get(key, ""))] if off else []))
    return t


def _graph_text(row: dict[str, Any]) -> Text:
    """A graph as its nodes, one a line, each with what stands on it and its neighbours."""
    near: dict[str, list[str]] = {n: [] for n in row["nodes"]}
    for a, b in row["edges"]:
        near[a].append(b)
        near[b].append(a)
    out = Text()
    for i, n in enumerate(row["nodes"]):
        if i:
            out.append("\n")
        out.append_text(_t(n, "bold"))
        if n in row["on"]:
            out.append(" ")
            out.append_text(_t(f"[{row['on'][n]}]", "green"))
        out.append(" — ", style="dim")
        out.append_text(_t(", ".join(near[n]) or "(no edge)"))
    return out


def _cards_text(row: dict[str, Any]) -> Text:
    """A hand as its cards, each in brackets ("[silk] [jade]"); a pile as its piles, one a line
    ("contract: 12 cards, top: ..."); hidden from the seat, as many backs as its size ("▮▮▮▮
    (hidden, 4 items)", at most 12 drawn)."""
    out = Text()
    if row["hidden"]:
        n = min(int(row.get("size") or 0), 12)
        if n:
            out.append("▮" * n + " ", style="blue")
        out.append_text(_t(row["text"], "dim"))
        return out
    if row["kind"] == "pile":
        for i, p in enumerate(row["piles"]):
            out.append("\n" if i else "")
            out.append_text(_t(pile_words(p)))
        return out
    for i, card in enumerate(row["cards"]):
        out.append(" " if i else "")
        out.append_text(_t(f"[{card}]", "bold"))
    return out if row["cards"] else _t("none", "dim")


def _row_value(row: dict[str, Any]) -> RenderableType:
    """A declared row's value, a grid as a table, a graph as its nodes, a track on spaces as a
    strip, a hand as its cards and a pile as its count and top card."""
    if row["kind"] in ("hand", "pile"):
        return _cards_text(row)
    if not row["hidden"] and row["kind"] == "grid":
        return _grid_table(row)
    if not row["hidden"] and row["kind"] == "graph":
        return _graph_text(row)
    if not row["hidden"] and row.get("spaces") is not None and row.get("lane_keys"):
        return _lane_table(row)
    return _view_value(row)


def _declared_parts(v: dict[str, Any], seat: Optional[int], nseats: int) -> list[RenderableType]:
    """The declared view (engine/declared_view.py): a table per section, the panel with the
    other player fields, then the other table fields."""
    parts: list[RenderableType] = []
    for sec in v["sections"]:
        t: Optional[Table] = None
        for k, row in enumerate(sec["rows"]):
            if row["kind"] == "grid" and not row["hidden"]:
                # a board takes the whole width under its label (beside it, its squares
                # were cut to a few letters each)
                if k == 0:
                    parts.append(_t(sec["title"], "bold underline"))
                parts.append(_t(row["label"], "bold"))
                parts.append(_grid_table(row))
                t = None
                continue
            if t is None:
                t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, expand=False,
                          show_header=k == 0)
                t.add_column(_t(sec["title"]), style="bold", header_style="bold underline")
                t.add_column("")
                parts.append(t)
            t.add_row(_t(row["label"]), _row_value(row))
    other = v["other"]
    if other["table"]:
        parts.append(_table_fields(other["table"]))
    rows: list[tuple[str, list[Text]]] = []
    if v["panel"]:
        for k, label in enumerate(v["panel"]["labels"]):
            cells = [col["rows"][k] for col in v["panel"]["seats"]]
            rows.append((label, [_cards_text(c) if c["kind"] in ("hand", "pile") else
                                 _t(c["text"], "dim" if c["hidden"] else "") for c in cells]))
    for k, name in enumerate(other["names"]):
        rows.append((name, [_t(values[k]) for values in other["seats"]]))
    if rows:
        parts.append(_player_table(seat, nseats, rows))
    return parts


def view_renderable(program: Any, state: State, seat: Optional[int]) -> RenderableType:
    """The seat's view: the rulebook's declared view when it has one (sections, tracks, the
    panel), otherwise the generic one of engine/view.py as two tables: the table's fields,
    and the players' fields with one column per seat (the seat's own column marked 'you')."""
    who = "spectator" if seat is None else f"you are P{seat + 1}"
    declared = declared_view(program, state, seat)
    parts: list[RenderableType]
    if declared is not None:
        parts = _declared_parts(declared, seat, len(state.players))
    else:
        table, names, seats = view_fields(program, state, seat)
        parts = [_table_fields(table)] if table else []
        if names:
            parts.append(_player_table(seat, len(seats), [
                (name, [_t(values[k]) for values in seats]) for k, name in enumerate(names)]))
    title = _t(f"{program.name} · round {state.round} · {who}", "bold")
    return Panel(Group(*parts) if parts else Text("(nothing to show)"), title=title,
                 title_align="left", box=box.ROUNDED)


def options_renderable(node: Decision, notes: Optional[list[Optional[str]]] = None,
                       words: Optional[list[str]] = None) -> RenderableType:
    """The prompt, the numbered options in words (in columns when there are many, one a line
    when the view says what they do: 'silk boat — seat 2 · 4 pesos') and the input hint."""
    rows = menu_rows(node.options, notes, words)
    cells = []
    for num, label, note in rows:
        cell = Text.assemble((num, "bold magenta"), " ", _t(label))
        if note:
            cell.append(" — ", style="dim")
            cell.append_text(_t(note, "green"))
        cells.append(cell)
    noted = any(note for _, _, note in rows)
    body: RenderableType = Columns(cells, padding=(0, 3)) if len(cells) > 8 and not noted \
        else Group(*cells)
    draft = [_t(People().label(node.draft), "cyan")] if node.draft else []   # his offer so far
    return Group(_t(prompt_line(node), "bold"), *draft,
                 Padding(body, (0, 0, 0, 2), expand=False),
                 _t(f"({input_hint(node.options)})", "dim"))


CLEAR_SCROLLBACK = "\x1b[3J"      # xterm's 'erase saved lines': the history scrolled off too


class RichScreen:
    """The human's screen on a rich console (a Screen of interpreter/agents/human.py)."""

    def __init__(self, console: Console):
        self.console = console
        # (decision, its notes, its options in words)
        self.notes: tuple[Any, list[Optional[str]], list[str]] = (None, [], [])
        self.changes: list[str] = []      # what changed in the view since the last decision

    def set_changes(self, lines: list[str]) -> None:
        """What changed in the seat's view since its last decision, shown with the next turn."""
        self.changes = lines

    def turn(self, program: Any, state: State, node: Decision, recent: list[str],
             earlier: int) -> None:
        """What happened since the seat's last decision, its view, then the options."""
        if recent:
            more = f"{earlier} earlier lines: type 'log'" if earlier else None
            self.console.print(Panel(Text("\n").join(_t(line) for line in recent),
                                     title=Text("since your last decision", style="bold"),
                                     title_align="left", subtitle=more, subtitle_align="right",
                                     box=box.ROUNDED))
        if self.changes:
            self.console.print(Panel(Text("\n").join(_t(line) for line in self.changes),
                                     title=Text("what changed since your last decision",
                                                style="bold"),
                                     title_align="left", box=box.ROUNDED))
        self.view(program, state, node.player)
        self.notes = (node, option_notes(program, state, node, node.player),
                      option_words(program, state, node))
        self.options(node)

    def options(self, node: Decision) -> None:
        """The prompt and the options in words (with what each does, where the view's labels
        say)."""
        mine = self.notes[0] is node
        self.console.print(options_renderable(
            node, self.notes[1] if mine else None, self.notes[2] if mine else None))

    def view(self, program: Any, state: State, seat: int) -> None:
        """The seat's view as tables."""
        self.console.print(view_renderable(program, state, seat))

    def lines(self, title: str, lines: list[str]) -> None:
        """A titled block (help, the log, the rules)."""
        self.console.print(_t(title, "bold underline"))
        for line in lines:
            self.console.print(_t(line))

    def say(self, text: str) -> None:
        """A refused input and its hint, in yellow on a terminal."""
        self.console.print(_t(f"  {text}", "yellow"))

    def ask(self, prompt: str, input_fn: Callable[[str], str]) -> str:
        """Flush what was drawn, then read a line."""
        self.console.file.flush()
        return input_fn(prompt)

    def handover(self, seat: int, input_fn: Callable[[str], str]) -> None:
        """Hot-seat on a terminal: clear the screen and its scrollback, so that the next human
        cannot scroll back to the last one's view, and wait for them; into a pipe only say
        whose turn it is (nothing to hide, and no line of the input is used up)."""
        if not self.console.is_terminal:
            self.console.print(_t(f"── P{seat + 1}'s turn ──", "bold"))
            return
        self.console.clear()
        self.console.file.write(CLEAR_SCROLLBACK)
        self.console.print(_t(f"Pass the keyboard to P{seat + 1}.", "bold"))
        self.console.file.flush()
        input_fn(f"P{seat + 1}, press Enter when only you can see the screen ")


class Progress:
    """A rich progress bar on stderr ('simulating ━━━━ 120/1000 games 0:00:04'), drawn only
    when stderr is a terminal; stdout is never touched. close() is safe to call twice."""

    def __init__(self, total: int, what: str = "simulating", unit: str = "games"):
        self.total = total
        self.live = bool(getattr(sys.stderr, "isatty", lambda: False)())
        self._bar: Optional[RichProgress] = None
        if self.live:
            self._bar = RichProgress(TextColumn(what), BarColumn(bar_width=24),
                                     MofNCompleteColumn(), TextColumn(unit), TimeElapsedColumn(),
                                     console=console_for(sys.stderr), transient=False,
                                     redirect_stdout=False, redirect_stderr=False)
            self._task = self._bar.add_task(what, total=max(total, 1))
            self._bar.start()

    def update(self, done: int, force: bool = False) -> None:
        """Move the bar to `done` (rich redraws it at most ten times a second)."""
        if self._bar is not None:
            self._bar.update(self._task, completed=done)
            if force:
                self._bar.refresh()

    def close(self, done: int) -> None:
        """Draw the final state and end the line."""
        if self._bar is not None:
            self.update(done, force=True)
            self._bar.stop()
            self._bar = None


class ThinkingBot:
    """A searching bot at a table with a person: while it decides (a second or more), the
    terminal shows who is thinking (a transient spinner, gone when it has chosen). Everything
    else is the bot's own."""

    def __init__(self, agent: Any, console: Console, who: str):
        self.agent = agent
        self.console = console
        self.who = who

    def choose(self, program: Any, state: State) -> int:
        """The bot's choice, with the spinner shown while it searches."""
        with self.console.status(Text(f"{self.who} is thinking…"), spinner="dots"):
            return int(self.agent.choose(program, state))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.agent, name)
