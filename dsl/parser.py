"""The parser: rulebook text -> Mercator AST, with syntax errors as diagnostics.

Lark stays inside the parser (this module, and dsl/parse_actions.py, its reduce actions); callers
see only ``dsl.ast`` nodes and ``Diagnostic`` values.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.resources
import os
import re
import stat
import sys
import threading
from typing import Any, Optional, cast

import attrs
import lark

from mercator.dsl import ast as A
from mercator.dsl import parse_chunks
from mercator.dsl.ast_builder import AstBuilder
from mercator.dsl.diagnostics import Diagnostic, did_you_mean, error
from mercator.dsl.limits import PausedGC, depth_errors
from mercator.dsl.parse_actions import Actions, Node, nullable_rules
from mercator.dsl.parse_cache import cache_dir

KEYWORDS = frozenset("""variant replace extend before stat counts trigger eligible
game players use enum const table record player event setup round phase
proc fn on as when anytime invariant end after score tiebreak estimate prefer public owner secret let if elif else for limit
in where repeat while move from to add remove shuffle emit return break log choose one of subset size
with pass openly prompt simultaneous roll random draw then or and not true false none game
lowest highest wins""".split())

SUSPENDING = frozenset({"choose", "roll", "random", "draw", "simultaneous"})
# terminals that only start a value, and that only go on a value before them: which of the two
# an unexpected word stands in place of (a name, or a part of an expression)
_OPERAND_START = frozenset({"INT", "STRING", "LPAR", "TRUE", "FALSE", "NONE", "PLAYERS"})
_OPERATORS = frozenset({"PLUS", "STAR", "SLASH", "PERCENT", "AND", "OR"})

# Terminal names -> words for "expected ..." messages.
_TOKEN_WORDS = {
    "NAME": "a name", "INT": "a number", "STRING": "a string", "LBRACE": "'{'", "RBRACE": "'}'",
    "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COMMA": "','", "COLON": "':'",
    "SEMICOLON": "';'", "DOT": "'.'", "EQUAL": "'='", "ASSIGN_OP": "'=', '+=' or '-='",
    "COMP_OP": "a comparison", "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '/' or '%'", "MINUS": "'-'",
    "QMARK": "'?'", "LESSTHAN": "'<'", "MORETHAN": "'>'", "$END": "end of file", "__ANON_0": "'..'",
}


_OPTIONS: dict[str, Any] = {"parser": "lalr", "lexer": "basic", "maybe_placeholders": True}


@functools.lru_cache(maxsize=1)
def _lark() -> lark.Lark:
    """The LALR parser built from the grammar in this process (Hypothesis's `from_lark` reads
    its grammar)."""
    return lark.Lark(grammar_text(), **_OPTIONS)


@functools.lru_cache(maxsize=1)
def _parser() -> lark.Lark:
    """The parser `parse` uses, once per process: read from the per-user cache when it holds
    one for this grammar (building the LALR tables is most of the cost of a first parse), else
    built and written there; its reduce actions build the AST (dsl/parse_actions.py)."""
    where = cache_file()
    parser = None
    if where is not None:
        try:
            parser = lark.Lark(grammar_text(), cache=where, **_OPTIONS)
        except Exception:  # noqa: BLE001 - an unusable cache is only slower
            parser = None
    parser = parser or _lark()
    table = parser.parser.parser.parser      # frontend -> LALR_Parser -> _Parser (lark 1.3: pyproject.toml pins it, as this reaches inside)
    rules = [r for r in table.callbacks if not isinstance(r, str)]
    table.callbacks = _ACTIONS.callbacks(rules, nullable_rules(parser.rules))
    return parser


def cache_file() -> Optional[str]:
    """Where the built parser is kept between processes: in parse_cache.cache_dir() (the
    per-user cache directory, None when there is no private one), one file per grammar, lark
    and Python version; None when that file is a link or another user's."""
    root = cache_dir()
    if root is None:
        return None
    key = hashlib.sha256(f"{grammar_text()}{lark.__version__}{sys.version}".encode()).hexdigest()
    path = os.path.join(root, f"grammar-{key[:20]}.lark-cache")
    try:
        if os.path.lexists(path):
            st = os.lstat(path)
            if st.st_uid != os.getuid() or stat.S_ISLNK(st.st_mode):
                return None
    except OSError:
        return None
    return path


_ACTIONS = Actions(AstBuilder())
_PARSING = threading.Lock()     # the actions hold the path of the file being parsed


def grammar_text() -> str:
    """The text of the grammar file (the language reference)."""
    here = importlib.resources.files(__package__ or "mercator.dsl")
    return here.joinpath("grammar.lark").read_text(encoding="utf-8")


def _token_word(name: str, parser: lark.Lark) -> str:
    if name in _TOKEN_WORDS:
        return _TOKEN_WORDS[name]
    for term in parser.terminals:
        if term.name == name:
            pat = term.pattern
            if isinstance(pat, lark.lexer.PatternStr):
                return f"'{pat.value}'"
    return name.lower()


def _expected_words(expected: set[str], parser: lark.Lark) -> str:
    words = sorted({_token_word(n, parser) for n in expected})
    if len(words) > 8:
        words = words[:8] + ["..."]
    return ", ".join(words)


def parse(text: str, path: str = "<string>") -> tuple[Optional[A.Rulebook], list[Diagnostic]]:
    """Parse rulebook text; return (AST or None, syntax diagnostics). A text parsed before at
    the same path in this process is parsed again only in its changed declarations
    (dsl/parse_chunks.py); the result is parse_whole's."""
    parser = _parser()
    if text.startswith("\ufeff"):      # a UTF-8 byte order mark, as some editors write
        text = text[1:]
    starts = split_pattern() if parse_chunks.known(path) else None
    if starts is not None:
        with _PARSING, PausedGC():
            try:
                items = parse_chunks.parse_changed(
                    text, path, starts, lambda padded: _parse_alone(parser, padded, path))
            except RecursionError:
                items = None
        if items is not None:
            return A.Rulebook(items, path=path), []
    rb, diags = parse_whole(text, path)
    if rb is not None:
        parse_chunks.remember(text, path, rb.items)
    return rb, diags


def parsed_before(path: str) -> bool:
    """Does this process keep a parse of path that `parse` may reuse in part?"""
    return parse_chunks.known(path)


def remember_parse(text: str, path: str, rb: A.Rulebook) -> None:
    """Take rb as the parse of text at path (one kept in the per-user cache: the same code
    made it from that text) for `parse` to reuse the declarations of unchanged chunks."""
    if text.startswith("\ufeff"):
        text = text[1:]
    parse_chunks.remember(text, path, rb.items)


def parse_whole(text: str, path: str = "<string>"
                ) -> tuple[Optional[A.Rulebook], list[Diagnostic]]:
    """Parse all of rulebook text at once; return (AST or None, syntax diagnostics)."""
    parser = _parser()
    if text.startswith("\ufeff"):
        text = text[1:]
    with _PARSING, PausedGC():
        _ACTIONS.reset(path)
        try:
            top = cast(Node, parser.parse(text))
        except lark.exceptions.UnexpectedInput as exc:
            return None, [_syntax_diagnostic(exc, text, path, parser)]
        finally:
            failed, _ACTIONS.first_error = _ACTIONS.first_error, None
    if failed is not None:               # a literal out of range, for example
        cause, pos = failed
        span = A.Span(path, *pos) if pos is not None else A.Span(path, 1, 1, 1, 2)
        return None, [error("E005", str(cause), span, getattr(cause, "hint", None))]
    rb: A.Rulebook = top.value
    deep = depth_errors(rb, path)
    return (None, deep) if deep else (rb, [])


def _parse_alone(parser: lark.Lark, text: str, path: str) -> Optional[tuple[Any, ...]]:
    """The declarations of text (one chunk of a file: dsl/parse_chunks.py), None when it has a
    syntax error, a literal out of range or a declaration nested too deeply (the whole file is
    then parsed, for the full parse's diagnostics)."""
    _ACTIONS.reset(path)
    try:
        top = cast(Node, parser.parse(text))
    except lark.exceptions.LarkError:
        return None
    finally:
        failed, _ACTIONS.first_error = _ACTIONS.first_error, None
    if failed is not None or depth_errors(top.value, path):
        return None
    return cast(A.Rulebook, top.value).items


@functools.lru_cache(maxsize=1)
def split_pattern() -> Optional["re.Pattern[str]"]:
    """The lines a file is cut into chunks before (dsl/parse_chunks.py): those starting, in
    column 0, with one of split_words; None when there is none."""
    words = split_words(_parser())
    if not words:
        return None
    return re.compile(r"^(?:%s)(?![A-Za-z0-9_])" % "|".join(sorted(words)), re.M)


def split_words(parser: lark.Lark) -> set[str]:
    """The keywords before which a file can be cut, proven from the LALR tables: each is shifted
    to the same state at the start of a file as after a declaration (so a chunk is parsed alone
    as it is in the file), and in every other state it is acted on exactly as the end of the
    text is (so the declaration before it ends as it would at the end of the text)."""
    from lark.parsers.lalr_analysis import Shift
    table = parser.parser.parser.parser.parse_table
    first = table.start_states["start"]
    repeat = [r.expansion[0].name for r in parser.rules
              if r.origin.name == "start" and len(r.expansion) == 1]
    if len(repeat) != 1 or repeat[0] not in table.states[first]:
        return set()
    top = table.states[first][repeat[0]][1]          # the state after one or more declarations
    words = set()
    for term in parser.terminals:
        pat = term.pattern
        if not isinstance(pat, lark.lexer.PatternStr) or not pat.value.isidentifier():
            continue
        name = term.name
        at_start = table.states[first].get(name)
        if at_start is None or at_start[0] is not Shift or \
                table.states[top].get(name) != at_start:
            continue
        if all(s in (first, top) or "$END" not in acts or acts.get(name) == acts["$END"]
               for s, acts in table.states.items()):
            words.add(pat.value)
    return words


@attrs.frozen
class Comment:
    """A comment of a rulebook file: where it starts (1-based line and column), its text from
    the '#' (trailing spaces removed), and whether it stands alone on its line (else it ends a
    line of rules). The grammar ignores comments; ``mercator fmt`` and ``diff`` keep them."""

    line: int
    col: int
    text: str
    own_line: bool


def comments(text: str) -> tuple[Comment, ...]:
    """The comments of rulebook text, in order, read by the parser's own lexer (so a '#' in a
    string is not one). Meant for text that parses; a text the lexer stops on gives the
    comments before that point."""
    if text.startswith("\ufeff"):      # as `parse` does, so lines and columns agree with spans
        text = text[1:]
    found: list[Comment] = []
    code_line = 0                       # the last line a token of the rules ends on
    try:
        for tok in _parser().lex(text, dont_ignore=True):
            line, col = tok.line or 1, tok.column or 1     # always set by the basic lexer
            if tok.type == "COMMENT":
                found.append(Comment(line, col, str(tok).rstrip(), line != code_line))
            elif tok.type != "WS":
                code_line = tok.end_line or line
    except lark.exceptions.UnexpectedInput:
        pass
    return tuple(found)


def _previous_word(text: str, line: int, col: int) -> Optional[tuple[str, int]]:
    """The identifier just before (line, col) on the same line, with its column."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return None
    before = lines[line - 1][: col - 1].rstrip()
    j = len(before)
    while j > 0 and (before[j - 1].isalnum() or before[j - 1] == "_"):
        j -= 1
    word = before[j:]
    return (word, j + 1) if word.isidentifier() else None


def _in_if_expression(text: str, pos: Optional[int]) -> bool:
    """Is an 'if ... then' open before pos, in the statement or declaration it stands in?"""
    if pos is None:
        return False
    start = max(text.rfind("{", 0, pos), text.rfind("}", 0, pos), text.rfind(";", 0, pos)) + 1
    return re.search(r"\bif\b.*\bthen\b", text[start:pos], flags=re.S) is not None


def _syntax_diagnostic(exc: lark.exceptions.UnexpectedInput, text: str, path: str,
                       parser: lark.Lark) -> Diagnostic:
    line = getattr(exc, "line", 1) or 1
    col = getattr(exc, "column", 1) or 1
    if isinstance(exc, lark.exceptions.UnexpectedToken) and exc.token.type == "$END":
        lines = text.splitlines() or [""]
        line = len(lines)
        col = len(lines[-1]) + 1
        exp = _expected_words(set(exc.expected), parser)
        return error("E003", "unexpected end of file", A.Span(path, line, col, line, col + 1),
                     f"expected {exp}; is a '}}' missing?")
    if isinstance(exc, lark.exceptions.UnexpectedToken):
        tok = exc.token
        width = max(len(str(tok)), 1)
        span = A.Span(path, line, col, line, col + width)
        expected = set(exc.expected)
        hint = None
        prev = _previous_word(text, line, col)
        if prev is not None and prev[0] not in KEYWORDS:
            near = did_you_mean(prev[0], KEYWORDS)
            if near is not None:
                pcol = prev[1]
                return error("E004", f"unknown word '{prev[0]}'",
                             A.Span(path, line, pcol, line, pcol + len(prev[0])), near)
        if tok.type == "NAME" and str(tok) not in KEYWORDS:
            keywords = [str(_token_word(n, parser)).strip("'") for n in expected]
            hint = did_you_mean(str(tok), [k for k in keywords if k.isidentifier()])
        if tok.type != "NAME" and str(tok) in KEYWORDS:
            pass
        if hint is None:
            hint = f"expected {_expected_words(expected, parser)}"
        operand = bool(expected & _OPERAND_START)     # a value may stand here
        after_value = bool(expected & _OPERATORS)     # an expression may go on here
        if str(tok) in SUSPENDING and operand:
            return error("E108", f"'{tok}' can only be the whole right-hand side of 'let' or an "
                         "assignment", span, f"give it its own line first: let x = {tok} ...")
        if str(tok) == "elif" and "ELSE" in expected and after_value and \
                _in_if_expression(text, getattr(exc, "pos_in_stream", None)):
            return error("E001", "unexpected 'elif': an 'if ... then ... else ...' expression has "
                         "no 'elif'", span, "put the next test in its 'else': "
                         "if A then X else if B then Y else Z (or use an 'if' statement)")
        what = f"'{tok}'" if tok.type != "NAME" or str(tok) in KEYWORDS else f"name '{tok}'"
        pos = getattr(exc, "pos_in_stream", None)
        last = re.search(r"([A-Za-z_]\w*)\s*$", text[:pos]) if pos else None
        if last is not None and last.group(1) == "as" and "NAME" in expected:
            hint = ("'as' is followed by a name (a trigger's handle) or, in a stat, the amount "
                    "each emit adds (e.g. stat pips counts rolled(p, k) as k)")
        elif str(tok) in KEYWORDS and operand:
            hint = f"expected a value here; '{tok}' is a reserved word, not a name"
        elif str(tok) in KEYWORDS and "NAME" in expected and not after_value:
            hint = f"'{tok}' is a reserved word and cannot be used as a name"
        elif str(tok) in ("lowest", "highest", "wins"):
            hint = "'lowest wins' or 'highest wins' can only end a 'score' or 'tiebreak' declaration"
        elif str(tok) in KEYWORDS and after_value:
            hint = f"'{tok}' cannot go on the expression before it; expected an operator, or a " \
                   "new statement or declaration"
        return error("E001", f"unexpected {what}", span, hint)
    if isinstance(exc, lark.exceptions.UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        ch = text[pos] if pos < len(text) else "?"
        hint = "strings use double quotes" if ch == "'" else None
        if ch == '"':
            hint = "this string is not closed on its line"
        return error("E002", f"unexpected character {ch!r}", A.Span(path, line, col, line, col + 1),
                     hint)
    return error("E001", "syntax error", A.Span(path, line, col, line, col + 1))
