"""Comments kept by the canonical printer (dsl/fmt.py): its output lines, each with the source
lines it stands for, and the rulebook's comments woven back in by position.

Where a comment goes (``weave``):

* a comment alone on its line goes on a line of its own before the printed line that follows
  it in the source, at that line's depth (one deeper before a ``}``: the end of a block);
  after the last declaration it stays at the end of the file;
* a comment at the end of a line stays at the end of that line's printed counterpart (the
  last printed line that stands for it: ``if a { x = 1 }  # c`` keeps it after the ``}``);
* a comment inside a construct the printer puts on one line (a long ``choose``, a multi-line
  condition) goes on a line of its own before it, unless it ends the construct's last line; a
  list or map literal of a ``const`` / ``table`` with a comment inside is printed one row a
  line instead (its elements as the source grouped them), and keeps its comments beside them;
* at the top level a comment group is separated from what follows it by a blank line when
  the source had one, and always from the declaration before it; inside a block the printer
  writes no blank lines.

An empty block prints as ``{}`` unless a comment sits inside it.  Weaving keeps the order of
the comments and is stable: a woven text weaves back to itself.
"""
from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Optional, Sequence

import attrs

if TYPE_CHECKING:
    from dsl.parser import Comment

INDENT = "  "


@attrs.define
class Line:
    """One printed line: its text (without indentation), its depth, and the first and last
    source line it stands for (0: not known, e.g. a tree built without spans)."""

    text: str
    level: int
    first: int = 0
    last: int = 0
    top: bool = False                  # the first line of a top-level declaration
    part: str = ""          # open | item | close: a literal that prints on one line if it can
    before: list["Comment"] = attrs.field(factory=list)    # own lines, above this one
    after: Optional["Comment"] = None                      # at the end of this line

    @property
    def opens(self) -> bool:
        """Whether a block opens at the end of this line (no expression prints a bare '{')."""
        return self.text.endswith("{")

    @property
    def closes(self) -> bool:
        """Whether a block or a literal closes at its start (nothing else starts with '}' or
        ']')."""
        return self.text[:1] in ("}", "]")


def _normalise(lines: list[Line]) -> None:
    """Give every line a known, non-decreasing source range (unknown ones: the line before's)."""
    prev = 0
    for ln in lines:
        if ln.first <= 0:
            ln.first = ln.last = prev
        ln.first = max(ln.first, prev)
        ln.last = max(ln.last, ln.first)
        prev = ln.last


def _place(lines: list[Line], comments: Sequence["Comment"], strict: bool) -> list["Comment"]:
    """Hang each comment on the line it belongs to; return those after the last line. With
    ``strict`` (one declaration out of its file) drop the comments that belong to source
    lines not printed: another field, a phase left out, text outside the declaration."""
    firsts = [ln.first for ln in lines]
    lasts = [ln.last for ln in lines]
    own_lines = {c.line for c in comments if c.own_line}
    tail: list["Comment"] = []
    for c in sorted(comments, key=lambda c: (c.line, c.col)):
        if not c.own_line:
            k = bisect.bisect_right(firsts, c.line) - 1      # the last line starting by it
            if k >= 0 and lasts[k] >= c.line:
                host = lines[k]
                if host.last == c.line and host.after is None:
                    host.after = c
                else:
                    host.before.append(c)      # inside a construct printed on one line
                continue
            if strict:
                continue
        k = bisect.bisect_left(lasts, c.line)            # the first line reaching past it
        if k == len(lines):
            if not strict:
                tail.append(c)
            continue
        host = lines[k]
        if strict and host.first > c.line and \
                any(n not in own_lines for n in range(c.line + 1, host.first)):
            continue                           # something not printed lies in between
        host.before.append(c)
    return tail


def _collapse_literals(lines: list[Line]) -> list[Line]:
    """A literal split one row a line (``open``, ``item``s, ``close``) back on one line,
    unless a comment sits inside it (one at the end of its last line is not inside)."""
    out: list[Line] = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.part != "open":
            out.append(ln)
            i += 1
            continue
        j = i + 1
        while lines[j].part != "close":
            j += 1
        items, close = lines[i + 1:j], lines[j]
        if ln.after is None and not close.before and not any(it.before or it.after
                                                             for it in items):
            inner = ", ".join(it.text[:-1] for it in items)      # each row ends with ','
            out.append(attrs.evolve(ln, text=f"{ln.text}{inner}{close.text}", last=close.last,
                                    after=close.after, part=""))
        else:
            out += lines[i:j + 1]
        i = j + 1
    return out


def _join_empty_blocks(lines: list[Line]) -> list[Line]:
    """``head {`` followed by ``}`` (or ``} else {``) with no comment between: one line."""
    out: list[Line] = []
    for ln in lines:
        prev = out[-1] if out else None
        if prev is not None and prev.opens and ln.closes and ln.level == prev.level \
                and not ln.before and (prev.after is None or ln.after is None):
            prev.text += ln.text
            prev.last = max(prev.last, ln.last)
            prev.after = prev.after or ln.after
            continue
        out.append(ln)
    return out


def _group(comments: list["Comment"], level: int, top: bool,
           next_line: Optional[int]) -> list[str]:
    """A run of own-line comments; at the top level, with the source's blank lines kept."""
    out: list[str] = []
    for i, c in enumerate(comments):
        if top and i > 0 and comments[i - 1].line + 1 < c.line and \
                (next_line is None or c.line < next_line):
            out.append("")
        out.append(INDENT * level + c.text)
    if top and comments and next_line is not None and comments[-1].line + 1 < next_line:
        out.append("")
    return out


def weave(lines: list[Line], comments: Sequence["Comment"] = (), strict: bool = False
          ) -> list[str]:
    """The printed text, one string a line, with ``comments`` put back where they belong."""
    _normalise(lines)
    tail = _place(lines, comments, strict) if comments else []
    lines = _join_empty_blocks(_collapse_literals(lines))
    out: list[str] = []
    for ln in lines:
        if ln.top and out:
            out.append("")                     # one blank line between declarations
        if ln.before:
            level = ln.level + 1 if ln.closes else ln.level
            out += _group(ln.before, level, ln.top, ln.first)
        text = INDENT * ln.level + ln.text
        out.append(text if ln.after is None else f"{text}  {ln.after.text}")
    if tail:
        if out:
            out.append("")
        out += _group(tail, 0, True, None)
    return out
