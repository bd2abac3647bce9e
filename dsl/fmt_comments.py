"""Comments kept by the canonical printer (dsl/fmt.py): its output lines, each with the source
lines it stands for, and the rulebook's comments woven back in by position; and the breaking
of a line longer than ``WIDTH`` (``wrap``).

Where a comment goes (``weave``):

* a comment alone on its line goes on a line of its own before the printed line that follows
  it in the source, at that line's depth (one deeper before a ``}``: the end of a block);
  after the last declaration it stays at the end of the file;
* a comment at the end of a line stays at the end of that line's printed counterpart (the
  last printed line that stands for it: ``if a { x = 1 }  # c`` keeps it after the ``}``);
* a comment inside a construct the printer puts on one line (a ``choose``, a multi-line
  condition) goes on a line of its own before it, unless it ends the construct's last line; a
  construct too long for one line is broken over several (``wrap``) after the comments are
  placed: those before it stay before its first line, one at its end goes after its last; a
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
from typing import TYPE_CHECKING, Any, Optional, Sequence

import attrs

if TYPE_CHECKING:
    from mercator.dsl.parser import Comment

INDENT = "  "

# ------------------------------------------------------------- line wrapping
# The printer builds each line's text with these markers (Unicode noncharacters, never in a
# printed line outside a string token, and the scanner below skips string tokens): a group
# of parts that breaks at all its break points at once (GROUP), one that breaks at each
# point only when the next part does not fit (FILL), an ``if``-chain whose ``else`` lines line
# up with its ``if`` when that starts the line (IFS), one part of a FILL that moves to the next
# line as a whole (CAT: no break points of its own, its inner groups still break), the end of
# a group (END), and a break point (BREAK: a space on one line, a new line when the group
# breaks).  The layout is a function of the text alone (not of the source's line breaks), so
# formatting stays idempotent; only whitespace between tokens changes, so the tree does not.
GROUP, FILL, IFS, CAT, END, BREAK = "\ufdd0", "\ufdd1", "\ufdd2", "\ufdd5", "\ufdd3", "\ufdd4"
_MARKS = GROUP + FILL + IFS + CAT + END + BREAK
_MARKSET = frozenset(_MARKS)
WIDTH = 100                  # the width fmt keeps its lines within (a long token may pass it)


def group(*parts: str, kind: str = GROUP) -> str:
    """Parts joined by break points, as one group of ``kind`` (a FILL's parts each whole)."""
    if kind == FILL:
        parts = tuple(cat(p) for p in parts)
    return kind + BREAK.join(parts) + END


def cat(text: str) -> str:
    """``text`` as one part of a FILL (which moves to the next line as a whole)."""
    return CAT + text + END if any(m in text for m in _MARKS) else text


def drop_comma(text: str) -> str:
    """``text`` (a FILL part ending with ``,``) without that ``,``."""
    if text.endswith("," + END):
        return text[:-2] + END
    return text[:-1] if text.endswith(",") else text


def flat(text: str) -> str:
    """A marked text on one line: the markers out, each break point a space."""
    if not any(m in text for m in _MARKS):
        return text
    return "".join(" " if t == BREAK else "" if t in _MARKSET else t for t in _scan(text))


def _scan(text: str) -> list[str]:
    """The text cut into marker characters and runs of other text (a string token whole)."""
    out: list[str] = []
    i, n, start = 0, len(text), 0
    while i < n:
        ch = text[i]
        if ch == '"':                                       # a STRING token: to its end
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif ch in _MARKS:
            if start < i:
                out.append(text[start:i])
            out.append(ch)
            i += 1
            start = i
        else:
            i += 1
    if start < n:
        out.append(text[start:n])
    return out


@attrs.frozen
class _Group:
    kind: str
    parts: list[Any]                 # str | _Break | _Group


class _Break:
    pass


_BR = _Break()
_FLAT, _BROKEN, _FILLING = 0, 1, 2


def _tree(text: str) -> _Group:
    stack = [_Group(FILL, [])]
    for tok in _scan(text):
        if tok in (GROUP, FILL, IFS, CAT):
            g = _Group(tok, [])
            stack[-1].parts.append(g)
            stack.append(g)
        elif tok == END:
            if len(stack) > 1:
                stack.pop()
        elif tok == BREAK:
            stack[-1].parts.append(_BR)
        else:
            stack[-1].parts.append(tok)
    return stack[0]


_Cmd = tuple[int, int, Any]          # (indent of its break points, mode, part or parts)


def _fits(first: _Cmd, rest: list[_Cmd], width: int) -> bool:
    """Whether ``first`` on one line and what follows it, up to the next possible break,
    take at most ``width`` columns."""
    todo, k = [first], len(rest)
    while width >= 0:
        if not todo:
            if k == 0:
                return True
            k -= 1
            todo.append(rest[k])
            continue
        ind, mode, d = todo.pop()
        if isinstance(d, str):
            width -= len(d)
        elif isinstance(d, _Break):
            if mode != _FLAT:
                return True
            width -= 1
        elif isinstance(d, _Group):
            todo.append((ind, mode, d.parts))
        else:                                           # a list of parts
            todo.extend((ind, _BROKEN if mode == _FILLING else mode, p) for p in reversed(d))
    return False


def wrap(text: str, indent: int, root: int, width: Optional[int] = None) -> list[str]:
    """A marked line as one or more lines within ``width`` (where it can): on one line if it
    fits, else broken at its outermost groups first. ``indent`` is the line's indentation,
    ``root`` that of a break point outside any group (a row of a literal); a group that breaks
    indents its continuation lines 2 more than the group it is in (than ``root`` at the top)."""
    width = WIDTH if width is None else width
    plain = flat(text)
    if indent + len(plain) <= width or not any(m in text for m in _MARKS):
        return [" " * indent + plain]
    lines = [" " * indent]
    stack: list[_Cmd] = [(root, _FILLING, _tree(text).parts)]
    while stack:
        ind, mode, d = stack.pop()
        pos = len(lines[-1])
        if isinstance(d, str):
            lines[-1] += d
        elif isinstance(d, _Break):
            if mode == _FLAT:
                lines[-1] += " "
            else:
                lines[-1] = lines[-1].rstrip()
                lines.append(" " * ind)
        elif isinstance(d, _Group):
            at_start = lines[-1].strip() == ""
            inner = ind if d.kind == CAT else pos if d.kind == IFS and at_start else ind + 2
            if mode == _FLAT or _fits((inner, _FLAT, d), stack, width - pos):
                stack.append((inner, _FLAT, d.parts))
            else:
                stack.append((inner, _FILLING if d.kind == FILL else _BROKEN, d.parts))
        elif mode == _FILLING:                              # a fill: its parts one by one
            if not d:
                continue
            if isinstance(d[0], _Break):
                nxt = d[1:2]
                stack.append((ind, _FILLING, d[2:]))
                fits = _fits((ind, _FLAT, [d[0], *nxt]), stack, width - pos)
                stack.extend((ind, _BROKEN, p) for p in nxt)
                stack.append((ind, _FLAT if fits else _BROKEN, d[0]))
            else:
                stack.append((ind, _FILLING, d[1:]))
                stack.append((ind, _BROKEN, d[0]))
        else:
            stack.extend((ind, mode, p) for p in reversed(d))
    return [ln.rstrip() for ln in lines]



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
            inner = drop_comma(BREAK.join(it.text for it in items))   # rows end with ','
            out.append(attrs.evolve(ln, text=f"{ln.text}{FILL}{inner}{END}{close.text}",
                                    last=close.last,
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


def weave(lines: list[Line], comments: Sequence["Comment"] = (), strict: bool = False,
          width: Optional[int] = None) -> list[str]:
    """The printed text, one string a line, with ``comments`` put back where they belong; the
    lines broken to keep within ``width`` (default ``WIDTH``)."""
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
        indent = len(INDENT) * ln.level
        texts = wrap(ln.text, indent, indent + (len(INDENT) if ln.opens else 0), width)
        if ln.after is not None:
            texts[-1] += f"  {ln.after.text}"
        out += texts
    if tail:
        if out:
            out.append("")
        out += _group(tail, 0, True, None)
    return out
