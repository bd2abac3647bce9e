"""Diagnostics: located messages about a rulebook, and their rendering with a caret."""
from __future__ import annotations

import difflib
import re
from typing import Any, Iterable, Optional, Sequence

import attrs

from mercator.dsl.ast import Span
from mercator.dsl.errors import MercatorError


@attrs.frozen
class Diagnostic:
    """One finding: code (E101...), severity ('error'|'warning'|'info'), message, where, hint."""

    code: str
    severity: str
    message: str
    span: Span
    hint: Optional[str] = None

    @property
    def is_error(self) -> bool:
        """True for errors, false for warnings."""
        return self.severity == "error"


def error(code: str, message: str, span: Span, hint: Optional[str] = None) -> Diagnostic:
    """Build an error diagnostic."""
    return Diagnostic(code, "error", message, span, hint)


def warning(code: str, message: str, span: Span, hint: Optional[str] = None) -> Diagnostic:
    """Build a warning diagnostic."""
    return Diagnostic(code, "warning", message, span, hint)


def info(code: str, message: str, span: Span, hint: Optional[str] = None) -> Diagnostic:
    """Build an informational note (shown by `mercator check --verbose`)."""
    return Diagnostic(code, "info", message, span, hint)


def did_you_mean(name: str, candidates: Iterable[str]) -> Optional[str]:
    """A 'did you mean' hint for a misspelt name, or None when nothing is close."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None


def render(diag: Diagnostic, source: Optional[str], color: bool = False) -> str:
    """Format a diagnostic as `file:line:col: severity[CODE]: message`, the line, a caret, the hint."""
    sev = diag.severity
    if color:
        col = "\x1b[31;1m" if diag.is_error else "\x1b[33;1m"
        sev = f"{col}{sev}\x1b[0m"
    head = f"{diag.span.path}:{diag.span.line}:{diag.span.col}: {sev}[{diag.code}]: {diag.message}"
    lines = [head]
    text_lines: Sequence[str] = source.splitlines() if source is not None else []
    if 1 <= diag.span.line <= len(text_lines):
        text = text_lines[diag.span.line - 1].expandtabs(1)
        num = str(diag.span.line)
        width = 1
        if diag.span.end_line == diag.span.line and diag.span.end_col > diag.span.col:
            width = diag.span.end_col - diag.span.col
        pad = " " * len(num)
        caret = " " * max(diag.span.col - 1, 0) + "^" * width
        lines.append(f" {num} | {text}")
        lines.append(f" {pad} | {caret}" + (f" {diag.hint}" if diag.hint else ""))
    elif diag.hint:
        lines.append(f"  hint: {diag.hint}")
    return "\n".join(lines)


_ALLOW = re.compile(r"#\s*allow\s+([WI]\d{3})\s*:\s*(\S.*)$")


def _allowance(code: str, span: Span, lines: Sequence[str]) -> Optional[tuple[int, str]]:
    """The line (0-based) and reason of an `# allow CODE: reason` comment on the warning's line
    or in the comment lines right above it, or None."""
    row = span.line - 1
    candidates = [row] if 0 <= row < len(lines) else []
    above = row - 1
    while 0 <= above < len(lines) and lines[above].lstrip().startswith("#"):
        candidates.append(above)
        above -= 1
    for r in candidates:
        m = _ALLOW.search(lines[r])
        if m and m.group(1) == code:
            return r, m.group(2).strip()
    return None


def apply_allows(diags: list[Diagnostic], sources: dict[str, str],
                 path: Optional[str] = None) -> list[Diagnostic]:
    """Warnings a designer has accepted with `# allow CODE: reason` become info notes. With a
    path, an allow comment in that file that accepts nothing is itself a warning (W221)."""
    split: dict[str, Sequence[str]] = {}
    used: set[tuple[str, int]] = set()
    out = []
    for d in diags:
        if d.severity == "warning" and d.span.path in sources:
            lines = split.get(d.span.path)
            if lines is None:
                lines = split[d.span.path] = sources[d.span.path].splitlines()
            found = _allowance(d.code, d.span, lines)
            if found is not None:
                used.add((d.span.path, found[0]))
                d = attrs.evolve(d, severity="info", message=f"{d.message} (allowed: {found[1]})")
        out.append(d)
    if path is not None and path in sources:
        for r, text in enumerate(sources[path].splitlines()):
            m = _ALLOW.search(text)
            if m and (path, r) not in used:
                col = m.start() + 1
                out.append(warning("W221", f"this comment allows {m.group(1)}, but no {m.group(1)} "
                                   "is reported here", Span(path, r + 1, col, r + 1, len(text) + 1),
                                   "remove it (the rule it excused has changed), or move it next "
                                   "to the line the warning points at"))
    return out


class RulebookError(MercatorError):
    """A rulebook that does not load (it cannot be read, does not parse or does not check, or
    is a library with no game): carries every diagnostic, each located by its span, and the
    sources they point into; str() shows them as `file:line:col: error[CODE]: message`, errors
    first."""

    def __init__(self, diagnostics: list[Diagnostic], sources: dict[str, str],
                 message: Optional[str] = None):
        self.diagnostics = list(diagnostics)
        self.sources = sources
        self.message = message
        shown = sorted(self.diagnostics, key=lambda d: (not d.is_error, d.span.path,
                                                         d.span.line, d.span.col))
        lines = [render(d, sources.get(d.span.path)) for d in shown]    # errors first
        super().__init__("\n".join(([message] if message else []) + lines))

    @property
    def errors(self) -> list[Diagnostic]:
        """The diagnostics that are errors (warnings and notes left out)."""
        return [d for d in self.diagnostics if d.is_error]

    def __reduce__(self) -> Any:
        return (type(self), (self.diagnostics, self.sources, self.message))
