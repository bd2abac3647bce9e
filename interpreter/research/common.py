"""What the research adapters share: compiled programs by rulebook name, and their error."""
from __future__ import annotations

from typing import Any

from mercator.dsl.loader import load
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.tools.rulebooks import find_rulebook

_PROGRAMS: dict[str, Any] = {}


class ResearchError(ValueError):
    """A rulebook or a parameter an adapter cannot use, said so that the user can fix it."""


def program_for(name: str) -> Any:
    """The compiled program of a rulebook (a shipped one's short name, or a path), compiled
    once per process."""
    path = str(find_rulebook(name))
    prog = _PROGRAMS.get(path)
    if prog is None:
        res = load(path)
        if not res.ok or res.rulebook is None:
            first = next((d for d in res.diagnostics if d.is_error), None)
            raise ResearchError(f"{path} does not check"
                                + (f": {first.span}: {first.message}" if first else ""))
        prog = _PROGRAMS[path] = compile_program(res.rulebook)
    return prog
