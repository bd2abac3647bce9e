"""The types of collection expressions: list and map literals (a bag or a record value where one
is expected), comprehensions, and the built-ins that take a generator (sum(x for x in ...)).
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl import ast as A
from mercator.dsl.builtins import GEN_BUILTINS, gen_builtin_type
from mercator.dsl.checker_base import Scope
from mercator.dsl.checker_exprs import ExprChecker
from mercator.dsl.diagnostics import did_you_mean
from mercator.dsl.types import (ANY, BOOL, INT, Type, assignable, bag_of, is_collection, iter_elem, join,
                       list_of, map_of, strip_opt)


class CollectionChecker(ExprChecker):
    """Types list and map literals, comprehensions and generator calls."""

    def e_ListLit(self, e: A.ListLit, sc: Scope, want: Optional[Type]) -> Type:
        """[a, b, ...] (a bag where a bag is expected)."""
        w = strip_opt(want) if want is not None else None
        if w is not None and w.kind == "bag":       # a list literal where a bag is expected
            for it in e.items:
                self.expect(self.expr(it, sc, w.elem), w.elem, it.span, "bag item")
            self.refs[id(e)] = ("tobag",)
            return w
        el = w.elem if w is not None and w.kind in ("list", "bag") else None
        t: Optional[Type] = el
        for it in e.items:
            got = self.expr(it, sc, el)
            if t is None or t.kind == "any":
                t = got
            else:
                j = join(t, got)
                if j is None:
                    self.err("E104", f"list items disagree: {t} and {got}", it.span)
                else:
                    t = j
        return list_of(t or ANY)

    def e_ListComp(self, e: A.ListComp, sc: Scope, want: Optional[Type]) -> Type:
        """[ELEM for VAR in COLLECTION if COND] (a bag where a bag is expected)."""
        self._gen_head(e, sc)
        w = strip_opt(want) if want is not None else None
        t = self.expr(e.elem, sc, w.elem if w is not None and w.kind in ("list", "bag") else None)
        sc.pop()
        if w is not None and w.kind == "bag":
            self.types[id(e.elem)] = t
            self.refs[("tobag", id(e))] = True
            return bag_of(t)
        return list_of(t)

    def _gen_head(self, e: Any, sc: Scope) -> Type:
        it = self.expr(e.iter, sc, None)
        if not is_collection(strip_opt(it)) and it.kind != "any":
            self.err("E104", f"cannot go through a value of type {it}", e.iter.span)
        sc.push()
        self._no_shadow(e.var, e.span)
        self._no_shadow_local(e.var, e.span, sc)
        self.refs[id(e)] = sc.declare(e.var, iter_elem(it))
        if e.cond is not None:
            self.expect(self.expr(e.cond, sc, BOOL), BOOL, e.cond.span, "filter")
        return iter_elem(it)

    def e_MapComp(self, e: A.MapComp, sc: Scope, want: Optional[Type]) -> Type:
        """{KEY: VALUE for VAR in COLLECTION if COND} (a bag where a bag is expected)."""
        self._gen_head(e, sc)
        w = strip_opt(want) if want is not None else None
        kw = w.elem if w is not None and w.kind in ("map", "bag") else None
        vw = w.value if w is not None and w.kind == "map" else (INT if w is not None and
                                                                  w.kind == "bag" else None)
        k = self.expr(e.key, sc, kw)
        v = self.expr(e.value, sc, vw)
        sc.pop()
        if k.kind not in ("enum", "int", "player", "bool", "str", "any"):
            self.err("E104", f"map keys must be an enum, int, bool or player, not {k}", e.key.span)
        if w is not None and w.kind == "bag":
            self.expect(v, INT, e.value.span, "count of a bag item")
            self.refs[("tobag", id(e))] = True
            return bag_of(k)
        return map_of(k, v)

    def e_MapLit(self, e: A.MapLit, sc: Scope, want: Optional[Type]) -> Type:
        """{k: v, ...}: a map, a bag or, where a record is expected, a record value."""
        w = strip_opt(want) if want is not None else None
        if w is not None and w.kind == "record":
            given = set()
            for en in e.entries:
                if not isinstance(en.key, A.Name) or w.field(en.key.name) is None:
                    self.err("E103", f"{w.name} has no field "
                             f"'{en.key.name if isinstance(en.key, A.Name) else '?'}'", en.key.span,
                             did_you_mean(en.key.name, w.members) if isinstance(en.key, A.Name)
                             else None)
                    self.expr(en.value, sc, None)
                    continue
                given.add(en.key.name)
                ft = w.field(en.key.name) or ANY
                self.expect(self.expr(en.value, sc, ft), ft, en.value.span,
                            f"field '{en.key.name}'")
            decl = self.record_decls.get(w.name)
            if decl is not None:
                for f in decl.fields:
                    if f.name not in given and f.default is None:
                        self.err("E104", f"{w.name} value is missing field '{f.name}'", e.span,
                                 "give it a value or a default in the record declaration")
            self.refs[id(e)] = ("record", w.name)
            return w
        kt: Optional[Type] = None
        vt: Optional[Type] = None
        if w is not None and w.kind == "map":
            kt, vt = w.elem, w.value
        elif w is not None and w.kind == "bag":
            kt, vt = w.elem, INT
        k0: Optional[Type] = kt
        v0: Optional[Type] = vt
        for en in e.entries:
            kg = self.expr(en.key, sc, kt)
            vg = self.expr(en.value, sc, vt)
            if k0 is None or k0.kind == "any":
                k0 = kg
            elif not assignable(kg, k0):
                self.err("E104", f"map keys disagree: {k0} and {kg}", en.key.span)
            if v0 is None or v0.kind == "any":
                v0 = vg
            else:
                j = join(v0, vg)
                if j is None:
                    self.err("E104", f"map values disagree: {v0} and {vg}", en.value.span)
                else:
                    v0 = j
        if w is not None and w.kind == "bag":
            self.refs[id(e)] = ("bag",)
            return w
        self.refs[id(e)] = ("map",)
        return map_of(k0 or ANY, v0 or ANY)

    def e_GenCall(self, e: A.GenCall, sc: Scope, want: Optional[Type]) -> Type:
        """NAME(ELEM for VAR in COLLECTION if COND) for the built-ins that take a generator."""
        if e.name not in GEN_BUILTINS:
            self.err("E106", f"'{e.name}' cannot take a generator", e.span,
                     did_you_mean(e.name, GEN_BUILTINS) or
                     f"generators work with {', '.join(sorted(GEN_BUILTINS))}")
        item = self._gen_head(e, sc)
        t = self.expr(e.elem, sc, None)
        sc.pop()
        if e.name not in GEN_BUILTINS:
            return ANY
        res = gen_builtin_type(e.name, t, item)
        if isinstance(res, str):
            self.err("E104", f"{e.name}(): {res}", e.span)
            return ANY
        return res
