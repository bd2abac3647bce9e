"""Loading a rulebook from disk: read, parse, follow 'use' declarations, check."""
from __future__ import annotations

import os
from typing import Any, Optional

import attrs

from dsl import ast as A
from dsl.checked import CheckedRulebook
from dsl.checker import check_items
from dsl.diagnostics import Diagnostic, error
from dsl.parser import parse


@attrs.define
class LoadResult:
    """What loading a rulebook produced: the checked rulebook (None on error) and diagnostics."""

    rulebook: Optional[CheckedRulebook]
    diagnostics: list[Diagnostic]
    sources: dict[str, str]

    @property
    def library(self) -> bool:
        """True for a library file: declarations for games to 'use', no game of its own."""
        return self.rulebook is None and not any(d.is_error for d in self.diagnostics)

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings allowed)."""
        return self.rulebook is not None and not any(d.is_error for d in self.diagnostics)


def _read(path: str) -> tuple[Optional[str], Optional[str]]:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), None
    except UnicodeDecodeError:
        return None, "the file is not UTF-8 text"
    except IsADirectoryError:
        return None, "this is a directory, not a rulebook file"
    except OSError as exc:
        return None, exc.strerror or str(exc)


def load_text(text: str, path: str = "<string>") -> LoadResult:
    """Parse and check rulebook text (its 'use' paths are relative to the current directory)."""
    return _load(path, text)


def load(path: str) -> LoadResult:
    """Read, parse and check the rulebook at path."""
    text, problem = _read(path)
    if text is None:
        d = error("E000", f"cannot read rulebook: {problem}", A.Span(path, 1, 1, 1, 1))
        return LoadResult(None, [d], {})
    return _load(path, text)


def _load(path: str, text: str) -> LoadResult:
    sources: dict[str, str] = {path: text}
    diags: list[Diagnostic] = []
    items: list[Any] = []
    seen: set[str] = set()

    def visit(p: str, t: str, stack: tuple[str, ...]) -> None:
        rb, ds = parse(t, p)
        diags.extend(ds)
        if rb is None:
            return
        for it in rb.items:
            if not isinstance(it, A.UseDecl):
                continue
            base = os.path.dirname(p) if p != "<string>" else "."
            target = os.path.normpath(os.path.join(base, it.path))
            key = os.path.abspath(target)
            if key in stack:
                diags.append(error("E113", f"'use' cycle: {it.path} uses this file again", it.span))
                continue
            if key in seen:
                continue
            seen.add(key)
            sub, problem = _read(target)
            if sub is None:
                diags.append(error("E113", f"cannot use '{it.path}': {problem}", it.span,
                                   "the path is relative to the file that says 'use'"))
                continue
            sources[target] = sub
            visit(target, sub, stack + (key,))
        items.extend(i for i in rb.items if not isinstance(i, A.UseDecl))

    visit(path, text, (os.path.abspath(path),))
    if any(d.is_error for d in diags):
        return LoadResult(None, diags, sources)
    checked, cds = check_items(tuple(items), path, sources)
    diags.extend(cds)
    return LoadResult(checked, diags, sources)
