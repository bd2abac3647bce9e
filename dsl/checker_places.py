"""Places a statement changes (lvalues): what they may be (E107: not a constant, not the game's
own names, not in a pure expression) and the bookkeeping of which fields are read and changed.
"""
from __future__ import annotations

from mercator.dsl import ast as A
from mercator.dsl.checker_base import Scope, lv_text
from mercator.dsl.checker_collections import CollectionChecker
from mercator.dsl.diagnostics import did_you_mean
from mercator.dsl.types import ANY, PLAYER, Type, strip_opt


class PlaceChecker(CollectionChecker):
    """Types lvalues and records the fields they change and read."""

    def lvalue(self, lv: A.LValue, sc: Scope) -> Type:
        """The type of a place a statement changes (its root, then each .field and [key])."""
        t = self._lvalue(lv, sc)
        self.types[id(lv)] = t
        return t

    def _lvalue(self, lv: A.LValue, sc: Scope) -> Type:
        loc = sc.lookup(lv.root)
        if lv.call is None and loc is None and lv.root in ("players", "player_count",
                                                          "round_number"):
            self.err("E107", f"'{lv.root}' is kept by the game itself and cannot be changed",
                     lv.span)
            return ANY
        if lv.call is not None:
            t = self.expr(lv.call, sc, None)
            self.refs[id(lv)] = ("call",)
        elif loc is not None:
            self.refs[id(lv)] = ("local", loc[0])
            t = loc[1]
            if sc.kind in ("fn", "expr"):
                self.err("E107", "a pure expression cannot change anything", lv.span)
        elif lv.root in self.table_fields:
            self.writes.add(("table", lv.root))
            if self.cur_writes is not None:
                self.cur_writes.add(("table", lv.root))
            if lv.steps:
                self.reads.add(("table", lv.root))
            if not sc.state:
                self.err("E107", f"table field '{lv.root}' cannot be changed here", lv.span)
            self.refs[id(lv)] = ("table", list(self.table_fields).index(lv.root))
            t = self.table_fields[lv.root].type
        elif lv.root in self.const_types or lv.root in self.member_of or lv.root in self.enums:
            self.err("E107", f"'{lv.root}' is a constant and cannot be changed", lv.span,
                     "declare it in 'table { ... }' to make it state")
            return ANY
        else:
            hint = did_you_mean(lv.root, sc.names() + list(self.table_fields))
            if hint is None and lv.root in self.player_fields:
                hint = f"'{lv.root}' is a player field: write p.{lv.root} for a player p"
            self.err("E100", f"unknown name '{lv.root}'", lv.span, hint)
            return ANY
        for step in lv.steps:
            t = strip_opt(t)
            self.types[id(step)] = t
            if isinstance(step, A.LvField):
                if t == PLAYER:
                    self.writes.add(("player", step.name))
                    if self.cur_writes is not None:
                        self.cur_writes.add(("player", step.name))
                    if step is not lv.steps[-1]:
                        self.reads.add(("player", step.name))
                t = self._field_type(t, step.name, step.span)
            else:
                t = self._index_type(t, step.key, sc, step.span)
        return t

    def _container(self, lv: A.LValue, sc: Scope, what: str) -> Type:
        t = strip_opt(self.lvalue(lv, sc))
        if t.kind not in ("list", "bag", "any"):
            self.err("E104", f"{what} needs a list or bag, '{lv_text(lv)}' is {t}", lv.span)
            return ANY
        return t.elem if t.kind != "any" else ANY

    def _mark_read(self, lv: A.LValue) -> None:
        """A place used as a source (move/remove/draw from) is read, not only changed."""
        if lv.call is None and lv.root in self.table_fields:
            self.reads.add(("table", lv.root))
        for st in lv.steps:
            if isinstance(st, A.LvField) and self.types.get(id(st)) == PLAYER:
                self.reads.add(("player", st.name))
