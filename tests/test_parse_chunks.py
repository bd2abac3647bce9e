"""Parsing an edited file again only in its changed declarations (dsl/parse_chunks.py): after any
edit of a shipped rulebook, `parse` (which reuses the declarations of the last parse of the same
path) gives exactly what `parse_whole` gives: the same AST with every span (compared field by
field, spans included, which == ignores), or the same diagnostics for a broken text."""
from __future__ import annotations

import re
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mercator.dsl import parse_chunks
from mercator.dsl.parser import _parser, parse, parse_whole, split_pattern, split_words

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(str(p.relative_to(ROOT)) for pattern in
               ("rulebooks/*.rules", "rulebooks/variants/*.rules", "rulebooks/lib/*.rules")
               for p in ROOT.glob(pattern))

# lines an edit may insert: comments, blank lines, whole declarations, and lines that start a
# declaration in column 0 or break one (a brace, half a declaration, a literal out of range)
LINES = ["", "# a comment", "    # an indented comment", "const extra_k = 3",
         "table extra_t = [1, 2]", "enum Extra { a, b }", "proc extra_p() { log \"x\" }",
         "}", "{", "end", "player", "table", "on", "remove", "  x = 1", "const big = " + "9" * 30,
         "fn f() -> int = (((((1)))))", "const", "phase extra after setup { }", "'",
         "const s = \"unclosed"]
TOKENS = ["}", "{", ")", "(", ",", "const", "end", "player", "=", "#", "if", "\n", "\nend "]


def dump(v: object) -> str:
    """Every field of an AST value, spans and paths included."""
    if attrs.has(type(v)):
        return type(v).__name__ + "(" + ",".join(dump(getattr(v, f.name))
                                                 for f in attrs.fields(type(v))) + ")"
    if isinstance(v, (tuple, list)):
        return "[" + ",".join(dump(x) for x in v) + "]"
    return repr(v)


def same_as_whole(text: str, path: str) -> None:
    rb, diags = parse(text, path)
    whole_rb, whole_diags = parse_whole(text, path)
    assert diags == whole_diags
    assert dump(rb) == dump(whole_rb)


EDIT = st.one_of(
    st.tuples(st.just("insert"), st.integers(0, 10 ** 6), st.sampled_from(LINES)),
    st.tuples(st.just("delete"), st.integers(0, 10 ** 6), st.just("")),
    st.tuples(st.just("number"), st.integers(0, 10 ** 6), st.integers(0, 10 ** 20).map(str)),
    st.tuples(st.just("token"), st.integers(0, 10 ** 6), st.sampled_from(TOKENS)),
)


def edited(text: str, edit: tuple[str, int, str]) -> str:
    kind, at, what = edit
    lines = text.split("\n")
    if kind == "insert":
        k = at % (len(lines) + 1)
        return "\n".join(lines[:k] + [what] + lines[k:])
    if kind == "delete":
        k = at % len(lines)
        return "\n".join(lines[:k] + lines[k + 1:])
    if kind == "number":
        numbers = list(re.finditer(r"\d+", text))
        if not numbers:
            return text
        m = numbers[at % len(numbers)]
        return text[:m.start()] + what + text[m.end():]
    k = at % (len(text) + 1)
    return text[:k] + f" {what} " + text[k:]


@pytest.mark.parametrize("path", FILES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits=st.lists(EDIT, min_size=1, max_size=4))
def test_an_edited_rulebook_parses_as_a_whole_parse_does(path: str,
                                                         edits: list[tuple[str, int, str]]
                                                         ) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    parse_chunks.forget()
    same_as_whole(text, path)            # the first parse, whole; then each edit in turn
    for edit in edits:
        text = edited(text, edit)
        same_as_whole(text, path)


def test_every_word_that_starts_a_declaration_cuts_chunks() -> None:
    """The LALR tables prove every declaration's first word safe to cut before (if a grammar
    change made one unsafe, chunks would silently be longer: this says so)."""
    assert split_words(_parser()) == {
        "anytime", "bots", "bounds", "bundle", "const", "eligible", "end", "enum", "estimate", "event",
        "extend", "fn", "game", "invariant", "on", "phase", "player", "prefer", "proc", "record",
        "remove", "replace", "round", "score", "setup", "stat", "table", "tiebreak", "use",
        "variant", "view"}


def test_a_cut_inside_a_declaration_falls_back_to_the_whole_parse() -> None:
    """'player' in column 0 inside a record, and 'end' as a name's start or a statement's word:
    the chunk before such a cut does not parse alone, so the whole text is parsed."""
    text = ('game "G" players 2..2\nrecord Seat {\n  holder:\nplayer? = none\n}\n'
            "# the end\nproc p() {\n  log \"a\"\n}\nend after p when true\n")
    chunks = parse_chunks.split(text, split_pattern())
    assert [first for first, _ in chunks] == [0, 1, 3, 5, 9]
    assert "".join(part for _, part in chunks) == text
    parse_chunks.forget()
    same_as_whole(text, "cut.rules")
    same_as_whole(text, "cut.rules")          # the record runs over a cut: nothing reused
    same_as_whole(text.replace("  holder:\nplayer?", "  holder: player?"), "cut.rules")
    same_as_whole(text, "cut.rules")
    rb, diags = parse(text, "cut.rules")
    assert rb is not None and not diags and len(rb.items) == 4


def test_moved_declarations_keep_their_columns_and_move_their_lines() -> None:
    text = 'game "G" players 2..2\n\nconst a = 1 + 2\n\nconst b = [3]\n'
    parse_chunks.forget()
    first, _ = parse(text, "m.rules")             # a whole parse, kept by chunk
    assert parse_chunks.known("m.rules")
    moved, _ = parse("# two\n# lines\n" + text, "m.rules")
    assert first is not None and moved is not None
    assert [(i.span.line, i.span.col, i.span.end_line, i.span.end_col) for i in moved.items] \
        == [(3, 1, 3, 22), (5, 1, 5, 16), (7, 1, 7, 14)]
    assert moved.items[1].value.span.line == 5 and moved.items[1].value.span.col == 11
    assert dump(moved) == dump(parse_whole("# two\n# lines\n" + text, "m.rules")[0])
