"""Parsing an edited file again in a kept process: only its changed top-level declarations.

A text is cut into chunks at the lines that start, in column 0, with a word that can only begin
a declaration (the parser proves which words those are from its LALR tables: `parser.
split_words`); the comments and blank lines before such a line belong to its chunk. A chunk
whose text was in the last parse of the same path is not parsed again: its declarations are
reused, their spans moved by the lines the chunk moved. Any other chunk is parsed alone; when
one fails to (a syntax error, a literal out of range, nesting too deep), the whole text is
parsed as before, so that a broken file gets exactly the diagnostics of a full parse. The
first parse of a path is a whole parse (as quick as before); its declarations are kept, and cut
into chunks when the path is parsed again.

Why the result is the full parse's, spans included: no token of the grammar spans a line
break (a string, a comment and a name end on their line), so the tokens of the text are the
tokens of its chunks one after the other, each on its own lines and columns; and the words that
cut chunks (`split_words`) are, in every state of the LALR tables, either shifted only where a
declaration begins or acted on exactly as the end of the text is. So a chunk that parses alone
ends, in the full parse, exactly as it ends alone, and the next chunk starts from the state a
file starts from. tests/test_parse_chunks.py compares both parses on random edits of every
shipped rulebook.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Optional, Union

from mercator.dsl import ast as A
from mercator.dsl.load_cache import LRU

# (the 0-based line a chunk starts on, its declarations) for each chunk text of a path's last parse
Chunks = dict[str, tuple[int, tuple[Any, ...]]]
ParseOne = Callable[[str], Optional[tuple[Any, ...]]]

# each path's last parse: by chunk, or (text, declarations) of a whole parse not yet cut
_LAST: LRU[str, Union[Chunks, tuple[str, tuple[Any, ...]]]] = LRU(32)


def split(text: str, starts: "re.Pattern[str]") -> list[tuple[int, str]]:
    """The chunks of text: (0-based first line, text) each, cut before every line `starts`
    matches at its beginning, a line's comments and blank lines before it included; joined
    they are the text."""
    cuts = [m.start() for m in starts.finditer(text)]
    bounds: list[int] = []
    for cut in cuts:
        if cut == 0:
            continue
        start = cut
        while True:              # take the comment and blank lines just above along
            prev = text.rfind("\n", 0, start - 1) + 1
            line = text[prev:start - 1].strip()
            if prev >= start or (line and not line.startswith("#")):
                break
            start = prev
            if start == 0:
                break
        if start > (bounds[-1] if bounds else 0):
            bounds.append(start)
    chunks = []
    first_line = 0
    begin = 0
    for end in bounds + [len(text)]:
        part = text[begin:end]
        chunks.append((first_line, part))
        first_line += part.count("\n")
        begin = end
    return chunks


def parse_changed(text: str, path: str, starts: "re.Pattern[str]",
                  parse_one: ParseOne) -> Optional[tuple[Any, ...]]:
    """The declarations of text, reusing those of the chunks unchanged since the last call for
    path, parsing the others with `parse_one(padded text)` (a chunk's text after as many line
    breaks as lines above it: its declarations, or None when it does not parse alone); None
    when a chunk does not (the caller parses the whole text)."""
    last = _LAST.get(path) or {}
    if isinstance(last, tuple):             # a whole parse, not yet cut
        last = _by_chunk(last[0], starts, last[1])
    now: Chunks = {}
    items: list[Any] = []
    for first_line, part in split(text, starts):
        got = now.get(part) or last.get(part)
        if got is None:
            parsed = parse_one("\n" * first_line + part)
            if parsed is None:
                return None
            got = (first_line, parsed)
        elif got[0] != first_line:
            got = (first_line, tuple(shifted(i, first_line - got[0]) for i in got[1]))
        now.setdefault(part, got)
        items.extend(got[1])
    _LAST.put(path, now)
    return tuple(items)


def known(path: str) -> bool:
    """Is a last parse of path kept (so that parse_changed may reuse some of it)?"""
    return _LAST.get(path) is not None


def remember(text: str, path: str, items: tuple[Any, ...]) -> None:
    """Keep the declarations of a whole parse of text for the next parse_changed of path (cut
    into chunks only then: a process that parses a path once never pays for it)."""
    _LAST.put(path, (text, items))


def _by_chunk(text: str, starts: "re.Pattern[str]", items: tuple[Any, ...]) -> Chunks:
    """The declarations of a whole parse of text by chunk: each chunk's are those whose lines
    are its lines (the same as it parses to alone, by the argument above); none when a
    declaration runs over a cut."""
    chunks = split(text, starts)
    now: Chunks = {}
    k = 0
    for i, (first_line, part) in enumerate(chunks):
        end = chunks[i + 1][0] if i + 1 < len(chunks) else len(text) + 1     # 0-based, excluded
        mine = []
        while k < len(items) and items[k].span.line - 1 < end:
            span = items[k].span
            if span.line - 1 < first_line or span.end_line > end:
                return {}
            mine.append(items[k])
            k += 1
        now.setdefault(part, (first_line, tuple(mine)))
    return now if k == len(items) else {}


def forget() -> None:
    """Forget every path's last parse (for tests and benchmarks of a first parse)."""
    _LAST.clear()


_NAMES: dict[type, Optional[tuple[str, ...]]] = {}
_setattr = object.__setattr__


def shifted(v: Any, lines: int) -> Any:
    """An AST value with every located span (line >= 1) moved down by `lines` lines."""
    cls = v.__class__
    if cls is tuple:
        return tuple([shifted(x, lines) for x in v])
    if cls is A.Span:
        if v.line < 1:
            return v
        return A.Span(v.path, v.line + lines, v.col, v.end_line + lines, v.end_col)
    names = _NAMES.get(cls, ())
    if names == ():
        names = _NAMES[cls] = _all_fields(cls)
    if names is None:
        return v
    new = cls.__new__(cls)
    for name in names:
        _setattr(new, name, shifted(getattr(v, name), lines))
    return new


def _all_fields(cls: type) -> Optional[tuple[str, ...]]:
    import attrs
    return tuple(f.name for f in attrs.fields(cls)) if attrs.has(cls) else None
