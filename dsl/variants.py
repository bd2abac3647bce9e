"""Variants: applying a variant file's replace / remove / add operations to its base's declarations.

Declarations are found by kind and name (``decl_key``); a replacement keeps the position of what
it replaces, additions go at the end (a new round: after the base's rounds), a new phase goes
before or after a named one, in that one's round.
"""
from __future__ import annotations

from typing import Any, Optional

import attrs

from mercator.dsl import ast as A
from mercator.dsl.diagnostics import Diagnostic, did_you_mean, error
from mercator.dsl.fmt import format_type

KIND_WORDS = {"game": "game", "const": "constant", "proc": "procedure", "fn": "function", "trigger": "trigger",
              "action": "any-time action", "phase": "phase", "record": "record",
              "setup": "setup", "score": "score", "end": "end condition", "round": "round",
              "invariant": "invariant", "event": "event", "enum": "enum", "stat": "statistic",
              "bundle": "bundle", "view": "view", "bounds": "bounds",
              "estimate": "estimate", "prefer": "preference",
              "bots": "search settings"}


def decl_key(d: Any) -> Optional[tuple[str, str]]:
    """(kind, name) by which a variant names a declaration; None for what cannot be named."""
    if isinstance(d, A.GameDecl):
        return ("game", "game")
    if isinstance(d, A.ConstDecl):
        return ("const", d.name)
    if isinstance(d, A.ProcDecl):
        return ("proc", d.name)
    if isinstance(d, A.FnDecl):
        return ("fn", d.name)
    if isinstance(d, A.TriggerDecl):
        return ("trigger", d.label or d.event)
    if isinstance(d, A.ActionDecl):
        return ("action", d.name)
    if isinstance(d, A.PhaseDecl):
        return ("phase", d.name)
    if isinstance(d, A.RecordDecl):
        return ("record", d.name)
    if isinstance(d, A.BundleDecl):
        return ("bundle", d.name)
    if isinstance(d, A.SetupDecl):
        return ("setup", "setup")
    if isinstance(d, A.ScoreDecl):
        return ("score", "score")
    if isinstance(d, A.EstimateDecl):
        return ("estimate", "estimate")
    if isinstance(d, A.PreferDecl):        # named as written: `b: int at "bid"`
        at = "" if d.at is None else f' at "{d.at}"'
        return ("prefer", f"{d.var}: {format_type(d.type)}{at}")
    if isinstance(d, A.EndDecl):
        return ("end", d.round)
    if isinstance(d, A.RoundDecl):
        return ("round", d.name)
    if isinstance(d, A.InvariantDecl):
        return ("invariant", d.text)
    if isinstance(d, A.EventDecl):
        return ("event", d.name)
    if isinstance(d, A.EnumDecl):
        return ("enum", d.name)
    if isinstance(d, A.StatDecl):
        return ("stat", d.name)
    if isinstance(d, A.ViewDecl):
        return ("view", "view")
    if isinstance(d, A.BoundsDecl):
        return ("bounds", "bounds")
    if isinstance(d, A.BotsDecl):
        return ("bots", "bots")
    return None


def _signature(d: Any) -> Optional[tuple]:
    if isinstance(d, (A.ProcDecl, A.FnDecl)):
        return (tuple(p.type for p in d.params), d.result)
    if isinstance(d, A.ActionDecl):
        return tuple(p.type for p in d.params)
    if isinstance(d, A.EventDecl):
        return tuple(p.type for p in d.params)
    if isinstance(d, A.TriggerDecl):
        return (d.event, len(d.names))
    return None


class Merger:
    """Applies one variant file's operations to a list of base declarations."""

    def __init__(self, items: list[Any]):
        self.items = list(items)
        self.diags: list[Diagnostic] = []

    def _phases(self) -> list[A.PhaseDecl]:
        """The phases of every round, in order."""
        return [ph for it in self.items if isinstance(it, A.RoundDecl) for ph in it.phases]

    def _round_of(self, phase: str) -> Optional[int]:
        """The index of the round that has the named phase."""
        for i, it in enumerate(self.items):
            if isinstance(it, A.RoundDecl) and any(ph.name == phase for ph in it.phases):
                return i
        return None

    def _set_phases(self, r: int, phases: list[A.PhaseDecl]) -> None:
        self.items[r] = attrs.evolve(self.items[r], phases=tuple(phases))

    def _find(self, key: tuple[str, str]) -> Optional[int]:
        for i, it in enumerate(self.items):
            if decl_key(it) == key:
                return i
        return None

    def _missing(self, key: tuple[str, str], span: A.Span, verb: str) -> None:
        keys = [decl_key(it) for it in self.items]
        names = [k[1] for k in keys if k is not None and k[0] == key[0]]
        if key[0] == "phase":
            names = [p.name for p in self._phases()]
        if key[0] == key[1]:        # one of a kind (view, bounds, setup, score, game)
            self.diags.append(error("E130", f"the base has no {KIND_WORDS.get(key[0], key[0])} "
                                    f"to {verb}", span, f"declare the variant's own "
                                    f"'{key[0]}' instead" if verb != "remove" else None))
            return
        self.diags.append(error("E130", f"the base has no {KIND_WORDS.get(key[0], key[0])} "
                                f"'{key[1]}' to {verb}", span,
                                did_you_mean(key[1], names) or
                                (f"it has: {', '.join(names[:8])}" if names else None)))

    def apply(self, op: Any) -> None:
        """Apply one declaration of the variant file."""
        if isinstance(op, A.ReplaceDecl):
            self.replace(op)
        elif isinstance(op, A.RemoveDecl):
            self.remove(op)
        elif isinstance(op, A.PhaseInsert):
            self.insert_phase(op)
        elif isinstance(op, A.ExtendDecl):
            self.extend(op)
        elif isinstance(op, A.VariantDecl):
            self.diags.append(error("E133", "a variant names its base once, in its first "
                                    "declaration", op.span))
        else:
            self.items.append(op)

    def replace(self, op: A.ReplaceDecl) -> None:
        new = op.decl
        key = decl_key(new)
        assert key is not None
        if key[0] == "phase":
            r = self._round_of(new.name)
            if r is None:
                self._missing(key, op.span, "replace")
                return
            self._set_phases(r, [new if ph.name == new.name else ph for ph in self.items[r].phases])
            return
        found = self._find(key)
        if found is None:
            self._missing(key, op.span, "replace")
            return
        i = found
        old = self.items[i]
        if _signature(old) != _signature(new):
            self.diags.append(error(
                "E131", f"the replacement {KIND_WORDS[key[0]]} '{key[1]}' has a different "
                "signature from the base's", op.span,
                "keep the parameters, their types and the result as in the base"))
            return
        if isinstance(new, A.ConstDecl) and new.type is None and old.type is not None:
            new = attrs.evolve(new, type=old.type)   # the new value is checked against the old type
        self.items[i] = new

    def remove(self, op: A.RemoveDecl) -> None:
        key = (op.kind, op.name)
        if op.kind == "prefer":        # `remove prefer`: every preference of the base
            kept = [it for it in self.items if not isinstance(it, A.PreferDecl)]
            if len(kept) == len(self.items):
                self._missing(("prefer", "prefer"), op.span, "remove")
            self.items = kept
            return
        if op.kind == "phase":
            r = self._round_of(op.name)
            if r is None:
                self._missing(key, op.span, "remove")
                return
            self._set_phases(r, [p for p in self.items[r].phases if p.name != op.name])
            return
        i = self._find(key)
        if i is None:
            self._missing(key, op.span, "remove")
            return
        del self.items[i]
        if op.kind == "round":     # and its end condition with it
            self.items = [it for it in self.items if decl_key(it) != ("end", op.name)]

    def extend(self, op: A.ExtendDecl) -> None:
        """Add members to a base enum, fields to a base record or rows to the base view, keeping its position."""
        new = op.decl
        key = decl_key(new)
        assert key is not None
        i = self._find(key)
        if i is None:
            self._missing(key, op.span, "extend")
            return
        old = self.items[i]
        if isinstance(new, A.ViewDecl):
            self.items[i] = self.extend_view(old, new)
            return
        if isinstance(new, A.EnumDecl):
            spans = new.member_spans or tuple(new.span for _ in new.members)
            members, member_spans = list(old.members), list(old.member_spans)
            for m, sp in zip(new.members, spans):
                if m in members:
                    self.diags.append(error("E102", f"enum {old.name} already has the member '{m}'",
                                            sp, "a variant adds only new members"))
                    continue
                members.append(m)
                member_spans.append(sp)
            self.items[i] = attrs.evolve(old, members=tuple(members),
                                         member_spans=tuple(member_spans))
            return
        fields = list(old.fields)
        for f in new.fields:
            if any(g.name == f.name for g in fields):
                self.diags.append(error("E120", f"record {old.name} already has the field "
                                        f"'{f.name}'", f.span,
                                        "a variant adds only new fields; 'replace record' changes one"))
                continue
            fields.append(f)
        self.items[i] = attrs.evolve(old, fields=tuple(fields))

    def extend_view(self, old: A.ViewDecl, new: A.ViewDecl) -> A.ViewDecl:
        """The base's view with the variant's items added: the rows of a section with a
        base section's title, of the panel and of `scoring` go after the base's rows there;
        a new section after the base's sections; bookkeeping names and labels are added. The
        merged view is then checked as a whole, so a row added here follows exactly the rules
        of who may see it that a row of the base follows."""
        items = list(old.items)
        for it in new.items:
            if isinstance(it, A.ViewSection):
                at = next((k for k, x in enumerate(items) if isinstance(x, A.ViewSection)
                           and x.title == it.title), None)
                if at is None:
                    last = max((k for k, x in enumerate(items) if isinstance(x, A.ViewSection)),
                               default=len(items) - 1)
                    items.insert(last + 1, it)
                else:
                    sec = items[at]
                    assert isinstance(sec, A.ViewSection)
                    items[at] = attrs.evolve(sec, rows=sec.rows + it.rows)
                continue
            if isinstance(it, A.ViewPanel):
                at = next((k for k, x in enumerate(items) if isinstance(x, A.ViewPanel)
                           and x.word == it.word), None)
                if at is None:
                    items.append(it)
                    continue
                base = items[at]
                assert isinstance(base, A.ViewPanel)
                if base.var != it.var:
                    self.diags.append(error(
                        "E134", f"the base's view writes '{base.word} {base.var}'; an extension "
                        f"of it names its player the same way", it.span,
                        f"write '{it.word} {base.var} {{ ... }}' and '{base.var}' in its rows"))
                    continue
                items[at] = attrs.evolve(base, rows=base.rows + it.rows)
                continue
            items.append(it)        # bookkeeping, labels: checked with the base's
        return attrs.evolve(old, items=tuple(items))

    def insert_phase(self, op: A.PhaseInsert) -> None:
        phases = self._phases()
        names = [p.name for p in phases]
        if op.phase.name in names:
            self.diags.append(error("E102", f"the base already has a phase '{op.phase.name}'",
                                    op.span, "use 'replace phase' to change it"))
            return
        r = self._round_of(op.anchor)
        if r is None:
            self._missing(("phase", op.anchor), op.span, f"put '{op.phase.name}' {op.where}")
            return
        phases = list(self.items[r].phases)
        at = [p.name for p in phases].index(op.anchor) + (1 if op.where == "after" else 0)
        phases.insert(at, op.phase)
        self._set_phases(r, phases)


def apply_variant(base_items: list[Any], ops: list[Any]) -> tuple[list[Any], list[Diagnostic]]:
    """The base's declarations changed by a variant's operations, and the variant's errors."""
    m = Merger(base_items)
    for op in ops:
        m.apply(op)
    return m.items, m.diags
