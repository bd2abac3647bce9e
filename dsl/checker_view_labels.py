"""A view's words for options and values: `label v: T = ...` (what an option of type T does),
`label NAME(p, ...) = ...` (what an any-time action does) and `text v: T = ...` (how a value of
an enum or record type is written for people), each checked here (E161); who may see them, by
dsl/flow_views.py.
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl import ast as A
from mercator.dsl.checked import OptionLabel
from mercator.dsl.checker_base import Scope
from mercator.dsl.checker_exprs import ExprChecker
from mercator.dsl.diagnostics import did_you_mean
from mercator.dsl.types import PLAYER


class LabelChecker(ExprChecker):
    """The view's labels and texts."""

    def _label(self, it: A.ViewLabel, done: list[OptionLabel]) -> Optional[OptionLabel]:
        """`label v: T = parts`: the decisions offering options of type T (E161 if none)."""
        t, sc = self.option_scope(it)
        parts = [(e, self.expr(e, sc, None)) for e in it.parts]
        if t.kind == "any":
            return None
        if any(d.type == t and d.at == it.at for d in done):
            where = f' at "{it.at}"' if it.at is not None else ""
            self.err("E161", f"a second label for options of type {t}{where}", it.span,
                     "each type has one label (and one for each 'at \"prompt\"'): join the two "
                     "into one")
            return None
        if it.at is not None and it.at_word != "at":
            self.err("E161", f"'{it.at_word} \"{it.at}\"' in a label", it.span,
                     'write: label v: Type at "the start of a prompt" = ...')
            return None
        sites, why = self.decision_sites(t, it.at, "a label describes")
        if why is not None:
            msg, of_type, hint = why
            self.err("E161", msg, it.type.span if of_type else it.span, hint)
            return None
        return OptionLabel(it.var, t, parts, sc.nslots, it.span, sites, it.chooser is not None,
                           at=it.at)

    def _text(self, it: A.ViewLabel, done: list[OptionLabel]) -> Optional[OptionLabel]:
        """`text v: T = parts`: how a value of the enum or record type T is written for
        people, wherever the view shows one (E161: another type, `for p`, a second text)."""
        t = self.resolve_type(it.type)
        sc = Scope("expr")
        self._no_shadow(it.var, it.span)
        sc.declare(it.var, t)
        parts = [(e, self.expr(e, sc, None)) for e in it.parts]
        if t.kind == "any":
            return None
        if t.kind not in ("enum", "record"):
            self.err("E161", f"a text for values of type {t}", it.type.span,
                     "a text writes the values of an enum or a record type for people: "
                     "text v: Place = ...; numbers, players and collections are written as "
                     "their items are")
            return None
        if it.chooser is not None:
            self.err("E161", f"'for {it.chooser}' on the text of {t}", it.span,
                     "a text is shown to every seat alike: it reads what every seat may see "
                     "and the value; write it without 'for'")
            return None
        if any(d.type == t for d in done):
            self.err("E161", f"a second text for values of type {t}", it.span,
                     "each type has one text: join the two into one")
            return None
        return OptionLabel(it.var, t, parts, sc.nslots, it.span, frozenset(), text=True)

    def _action_label(self, it: A.ViewActionLabel, done: list[OptionLabel],
                      items: tuple[Any, ...]) -> Optional[OptionLabel]:
        """`label NAME(p, x) = parts`: what the any-time action NAME does; its parameters
        named as written, the first the player taking it (E161 for an unknown action, a
        different number of parameters or a second label)."""
        acts = {d.name: d for d in items if isinstance(d, A.ActionDecl)}
        d = acts.get(it.action)
        if d is None:
            self.err("E161", f"no any-time action '{it.action}' to label", it.span,
                     did_you_mean(it.action, sorted(acts)) or
                     ("the any-time actions: " + ", ".join(sorted(acts)) if acts else
                      "this rulebook declares no 'anytime' action"))
            return None
        if len(it.params) != len(d.params):
            self.err("E161", f"the any-time action '{d.name}' has {len(d.params)} parameter"
                     f"{'' if len(d.params) == 1 else 's'}, the label names {len(it.params)}",
                     it.span, f"write: label {d.name}({', '.join(p.name for p in d.params)}) = ...")
            return None
        sc = Scope("expr")
        for name, p in zip(it.params, d.params):
            self._no_shadow(name, it.span)
            sc.declare(name, self.resolve_type(p.type))
        parts = [(e, self.expr(e, sc, None)) for e in it.parts]
        if any(x.action == d.name for x in done):
            self.err("E161", f"a second label for the any-time action '{d.name}'", it.span,
                     "each action has one label: join the two into one")
            return None
        return OptionLabel(it.params[0], PLAYER, parts, sc.nslots, it.span, frozenset(),
                           action=d.name)
