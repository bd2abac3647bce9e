"""What the command line prints, with little imported (`mercator check` answers from its cache
with this module alone): exit codes, the result and diagnostic streams, colour, diagnostics and
located rule errors rendered with their source line. common.py re-exports every name."""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Optional, Sequence, TextIO

from mercator.interpreter.engine.printable import printable

if TYPE_CHECKING:
    from mercator.dsl.ast import Span
    from mercator.dsl.diagnostics import Diagnostic

EXIT_OK, EXIT_RULES, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def out(text: str = "") -> None:
    """A result line on stdout (control characters escaped: see engine/printable.py)."""
    print(printable(text), file=sys.stdout, flush=True)


def err(text: str = "") -> None:
    """A diagnostic or progress line on stderr (control characters escaped)."""
    print(printable(text), file=sys.stderr, flush=True)


def _err_raw(text: str) -> None:
    """A line on stderr whose parts were escaped already (it may hold colour codes)."""
    print(text, file=sys.stderr, flush=True)


def clean_diagnostic(d: "Diagnostic") -> "Diagnostic":
    """The diagnostic with its message, hint and path safe to print (control characters
    escaped), so that only render()'s own colour codes reach the terminal."""
    import attrs
    return attrs.evolve(d, message=printable(d.message),
                        hint=printable(d.hint) if d.hint is not None else None,
                        span=attrs.evolve(d.span, path=printable(d.span.path)))


def render_safe(d: "Diagnostic", source: Optional[str], color: bool) -> str:
    """render() on escaped text: the message, the path and the quoted source line."""
    from mercator.dsl.diagnostics import render
    src = None
    if source is not None and 1 <= d.span.line:
        lines = source.splitlines()
        if d.span.line <= len(lines):
            lines[d.span.line - 1] = printable(lines[d.span.line - 1])
            src = "\n".join(lines[:d.span.line])
    return render(clean_diagnostic(d), src, color=color)


def color_ok(stream: TextIO) -> bool:
    """Colour only on a terminal and never with NO_COLOR set."""
    return bool(getattr(stream, "isatty", lambda: False)()) and not os.environ.get("NO_COLOR")


def plural(n: int, word: str) -> str:
    """'1 file', '2 files'."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def sorted_diagnostics(diags: Sequence["Diagnostic"]) -> list["Diagnostic"]:
    """Diagnostics in the order they are printed: by file, line and column."""
    return sorted(diags, key=lambda d: (d.span.path, d.span.line, d.span.col))


def print_diagnostics(diags: Sequence["Diagnostic"], sources: dict[str, str]) -> None:
    """Render diagnostics on stderr, errors and warnings in source order."""
    color = color_ok(sys.stderr)
    for d in sorted_diagnostics(diags):
        _err_raw(render_safe(d, sources.get(d.span.path), color))


def _read_source(path: str) -> Optional[str]:
    """The text of a rulebook file, or None when it cannot be read."""
    from mercator.dsl.loader import refusal
    if refusal(path) is not None:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def rule_error_text(message: str, span: Optional["Span"], sources: dict[str, str],
                    color: bool) -> str:
    """A rule that failed while running, as print_rule_error prints it."""
    from mercator.dsl.diagnostics import Diagnostic
    label = "\x1b[31;1mrule error\x1b[0m" if color else "rule error"
    if span is None or span.line < 1 or not span.path or span.path.startswith("<"):
        where = printable(next(iter(sources), "") or "mercator")
        return f"{where}: {label}: {printable(message)}"
    src = sources.get(span.path)
    if src is None:
        src = _read_source(span.path)
    shown = render_safe(Diagnostic("runtime", "error", message, span), src, color=False)
    head = f"{printable(span.path)}:{span.line}:{span.col}: {label}: {printable(message)}"
    return "\n".join([head] + shown.splitlines()[1:])


def print_rule_error(message: str, span: Optional["Span"], sources: dict[str, str]) -> None:
    """A rule that failed while running, on stderr like a diagnostic: `file:line:col: rule
    error: message`, the source line and a caret. A rule error is the rulebook's mistake (an
    internal error is Mercator's). Without a location, the rulebook (sources' first file) is
    named."""
    _err_raw(rule_error_text(message, span, sources, color_ok(sys.stderr)))
