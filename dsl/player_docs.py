"""The rules in words for players: the `##` comments of a rulebook (docs/language.md, "Words for
players").

A block of comment lines that begin with `##`, directly above a declaration (the game, a round,
a phase, an any-time action, the end, the score, a tie-break, eligibility), says in words what
that declaration does for the people who play it. `mercator play`'s `rules` shows them with the
rounds and phases in order; a declaration without one is named in words only. Plain `#`
comments stay the designer's (sources, readings) and are never shown.
"""
from __future__ import annotations

from typing import Any, Optional


def doc_above(sources: dict[str, str], span: Any) -> Optional[str]:
    """The `##` block directly above the line of `span` in its file (its lines joined with
    spaces), or None. Blank lines end a block; plain comments between the block and the
    declaration are passed over (a designer's source note may sit under the players' words)."""
    if span is None:
        return None
    text = sources.get(span.path)
    if text is None:
        return None
    lines = text.splitlines()
    k = span.line - 2                      # the line above the declaration (0-based)
    while k >= 0 and lines[k].strip().startswith("#") and \
            not lines[k].strip().startswith("##"):
        k -= 1
    block: list[str] = []
    while k >= 0 and lines[k].strip().startswith("##"):
        block.append(lines[k].strip()[2:].strip())
        k -= 1
    words = " ".join(x for x in reversed(block) if x)
    return words or None
