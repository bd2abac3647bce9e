"""The rules in brief, in words, for a person at a prompt (`rules` in the terminal) or on the
page (the browser's "The rules in brief"): built from the rulebook's declarations and its `##`
words for players (dsl/player_docs.py), never from its source."""
from __future__ import annotations

import os
from typing import Any, Optional

from mercator.interpreter.engine.people import name_words


def rules_summary(program: Any, path: str) -> list[str]:
    """What `rules` shows at a prompt, in words, never the rulebook's source: the players, each
    round with its phases in order, the actions allowed at any time, when the game ends, how
    it is scored and ties broken — each with the rulebook's `##` words for players above its
    declaration (dsl/player_docs.py), else its name in words — and where the full rules are."""
    from mercator.dsl.player_docs import doc_above
    rb = program.rb
    src = getattr(rb, "sources", {}) or {}
    lo, hi = program.min_players, program.max_players
    lines = [f"{program.name}, for {lo if lo == hi else f'{lo} to {hi}'} players "
             f"(rulebook: {path})"]

    def doc(decl: Any) -> Optional[str]:
        return doc_above(src, getattr(decl, "span", None))

    game_doc = doc(getattr(rb.game, "decl", None) or rb.game)
    if game_doc:
        lines.append(f"  {game_doc}")
    for stage in rb.stages:
        said = doc(stage.decl)
        lines.append(f"each {name_words(stage.name)}"
                     + (f": {said}" if said else ":"))
        for k, b in enumerate(stage.phases, 1):
            said = doc(b.decl)
            lines.append(f"  {k}. {name_words(b.name)}" + (f" — {said}" if said else ""))
        if stage.end is not None and stage.end.decl is not None:
            lines.append("the end: " + (doc(stage.end.decl) or
                                        f"after a {name_words(stage.name)}, by the rules"))
    for act in rb.actions:
        if act.decl is not None:
            said = doc(act.decl)
            lines.append(f"at any of your decisions you may {name_words(act.name)}"
                         + (f": {said}" if said else ""))
    if rb.score is not None and rb.score.decl is not None:
        view = getattr(program, "view", None)
        parts = " + ".join(r.label for r in view.scoring) if view is not None and \
            view.scoring else ""
        lines.append("score: " + (doc(rb.score.decl) or parts or "see the end of the game"))
    for tb in rb.tiebreaks:
        if tb.decl is not None:
            lines.append("ties: " + (doc(tb.decl) or "broken as the end of the game shows"))
    if rb.eligible is not None and getattr(rb.eligible, "decl", None) is not None:
        said = doc(rb.eligible.decl)
        if said:
            lines.append(f"who may win: {said}")
    base = os.path.splitext(os.path.basename(path))[0]
    page = os.path.join(os.path.dirname(os.path.abspath(path)), os.pardir, "docs", "games",
                        f"{base}.md")
    if os.path.isfile(page):
        lines.append(f"the full rules, mapped to the rulebook: docs/games/{base}.md")
    return lines
