"""What the research adapters share: games loaded through the front door (tools/game.py) by
rulebook name, and their error."""
from __future__ import annotations

from typing import Any

from mercator.dsl.diagnostics import RulebookError
from mercator.dsl.errors import MercatorError
from mercator.interpreter.tools.game import load_game


class ResearchError(MercatorError, ValueError):
    """A rulebook or a parameter an adapter cannot use, said so that the user can fix it."""


def program_for(name: str) -> Any:
    """The compiled program of a rulebook (a shipped one's short name, or a path): the
    program of mercator.load_game(name), compiled once per process for the same files;
    ResearchError naming its first error when it does not check."""
    try:
        return load_game(name).program
    except RulebookError as exc:
        first = next(iter(exc.errors), None)
        path = next(iter(exc.sources), name)
        raise ResearchError(f"{path} does not check"
                            + (f": {first.span}: {first.message}" if first else "")) from None
