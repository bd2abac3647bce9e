"""A rulebook's preferences, `prefer b: T for p at "prompt" = EXPR`: how much a casual player
likes each option of the decisions offering type T (the pass counts 0), for the bots' rollouts
(docs/language.md §2.19c). Checked here: one preference per type and prompt (E162), one that no
decision uses (W274: the type offered, the prompt); who may read what, by dsl/flow_views.py
(E162).
"""
from __future__ import annotations

from typing import Any

from mercator.dsl import ast as A
from mercator.dsl.checked import Preference
from mercator.dsl.checker_exprs import ExprChecker
from mercator.dsl.types import INT


class PreferChecker(ExprChecker):
    """The `prefer` declarations."""

    def check_prefers(self, items: tuple[Any, ...]) -> list[Preference]:
        """The checked preferences; a plain one (no `at`) keeps the decisions of its type that
        no preference `at` a prompt takes."""
        out: list[Preference] = []
        for it in items:
            if isinstance(it, A.PreferDecl):
                p = self._prefer(it, out)
                if p is not None:
                    out.append(p)
        for p in out:
            if p.at is None:
                p.sites = p.sites - frozenset(
                    s for x in out if x.at is not None and x.type == p.type for s in x.sites)
        return out

    def _unused(self, it: A.PreferDecl, msg: str, span: A.Span, hint: str | None) -> None:
        """W274: a preference no decision uses — harmless (it is not a rule), but likely a
        typo. Said of the file being checked only: a variant that removes a base's decisions
        inherits their preferences, unused, and says nothing of them."""
        if it.span.path == self.path:
            self.warn("W274", f"a preference no decision uses: {msg}", span, hint)

    def _prefer(self, it: A.PreferDecl, done: list[Preference]) -> Preference | None:
        t, sc = self.option_scope(it)
        self.expect(self.expr(it.expr, sc, INT), INT, it.expr.span, "preference")
        if t.kind == "any":
            return None
        if it.at is not None and it.at_word != "at":
            self.err("E162", f"'{it.at_word} \"{it.at}\"' in a preference", it.span,
                     'write: prefer v: Type at "the start of a prompt" = ...')
            return None
        if any(d.type == t and d.at == it.at for d in done):
            where = f' at "{it.at}"' if it.at is not None else ""
            self.err("E162", f"a second preference for options of type {t}{where}", it.span,
                     "each type has one preference (and one for each 'at \"prompt\"'): add "
                     "the two up in one expression")
            return None
        sites, why = self.decision_sites(t, it.at, "a preference ranks")
        if why is not None:
            msg, of_type, hint = why
            self._unused(it, msg, it.type.span if of_type else it.span, hint)
            return None
        return Preference(it.var, t, it.expr, sc.nslots, it.span, sites,
                          chooser=it.chooser is not None, at=it.at)
