"""Compiling checked expressions into Python closures ``f(state, locals) -> value``."""
from __future__ import annotations

import operator
from typing import Any, Callable

from dsl import ast as A
from dsl.checked import CheckedRulebook
from dsl.types import Type, strip_opt
from interpreter.builtins import RUNTIME_BUILTINS
from interpreter.values import bag_items, deep_copy, iterator_for

Fn = Callable[[Any, list], Any]

_CMP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
        ">": operator.gt, ">=": operator.ge}


class RuleError(Exception):
    """A rule failed at run time (the engine adds the location and the decision log)."""


def _floordiv(a: int, b: int) -> int:
    if b == 0:
        raise RuleError("division by zero")
    return a // b


def _mod(a: int, b: int) -> int:
    if b == 0:
        raise RuleError("modulo by zero")
    return a % b


_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": _floordiv, "%": _mod}


def bag_add(a: dict, b: Any) -> dict:
    """Bag union with counts added (b may be a bag or a list)."""
    out = dict(a)
    items = b.items() if isinstance(b, dict) else ((x, 1) for x in b)
    for k, n in items:
        out[k] = out.get(k, 0) + n
    return out


def bag_sub(a: dict, b: Any) -> dict:
    """Bag difference (never below zero)."""
    out = dict(a)
    items = b.items() if isinstance(b, dict) else ((x, 1) for x in b)
    for k, n in items:
        left = out.get(k, 0) - n
        if left > 0:
            out[k] = left
        else:
            out.pop(k, None)
    return out


def to_bag(v: Any) -> dict:
    """A bag from a list of items or a map item -> count."""
    if isinstance(v, dict):
        return {k: n for k, n in v.items() if n > 0}
    out: dict = {}
    for x in v:
        out[x] = out.get(x, 0) + 1
    return out


class ExprCompiler:
    """Turns expression nodes into closures, using the checker's type and reference tables."""

    def __init__(self, rb: CheckedRulebook, consts: dict[str, Any], fn_table: dict[str, Any]):
        self.rb = rb
        self.consts = consts
        self.fn_table = fn_table      # name -> [closure, nslots] filled in by the program
        self.pfield = {f.name: i for i, f in enumerate(rb.player_fields)}

    def type_of(self, e: Any) -> Type:
        """Static type of an expression node."""
        return self.rb.types.get(id(e)) or Type("any")

    def compile(self, e: Any) -> Fn:
        """A closure computing e."""
        m = getattr(self, "c_" + type(e).__name__)
        f: Fn = m(e)
        return f

    def place_value(self, e: Any) -> Fn:
        """Like compile, but containers read from a place are copied (for 'let' and '=')."""
        f = self.compile(e)
        t = strip_opt(self.type_of(e))
        if t.kind in ("list", "map", "bag", "record") and isinstance(e, (A.Name, A.Field, A.Index)):
            return lambda s, L: deep_copy(f(s, L))
        return f

    # -- literals and names
    def c_IntLit(self, e: A.IntLit) -> Fn:
        v = e.value
        return lambda s, L: v

    def c_StrLit(self, e: A.StrLit) -> Fn:
        v = e.value
        return lambda s, L: v

    def c_BoolLit(self, e: A.BoolLit) -> Fn:
        v = e.value
        return lambda s, L: v

    def c_NoneLit(self, e: A.NoneLit) -> Fn:
        return lambda s, L: None

    def c_Name(self, e: A.Name) -> Fn:
        ref = self.rb.refs[id(e)]
        kind = ref[0]
        if kind == "local":
            i = ref[1]
            return lambda s, L: L[i]
        if kind == "table":
            i = ref[1]
            return lambda s, L: s.table[i]
        if kind == "const":
            v = self.consts[ref[1]]
            return lambda s, L: v
        if kind == "member":
            v = ref[1]
            return lambda s, L: v
        if kind == "enum":
            members = list(range(len(self.rb.enums[ref[1]].members)))
            return lambda s, L: members
        if ref[1] == "players":
            return lambda s, L: list(range(len(s.players)))
        if ref[1] == "player_count":
            return lambda s, L: len(s.players)
        return lambda s, L: s.round

    def c_ListLit(self, e: A.ListLit) -> Fn:
        fs = [self.compile(x) for x in e.items]
        return lambda s, L: [f(s, L) for f in fs]

    def c_MapLit(self, e: A.MapLit) -> Fn:
        ref = self.rb.refs.get(id(e), ("map",))
        if ref[0] == "record":
            rt = self.rb.records[ref[1]]
            decl = self.rb.record_decls[ref[1]]
            given = {en.key.name: self.compile(en.value) for en in e.entries}  # type: ignore
            parts: list[Fn] = []
            for fd in decl.fields:
                if fd.name in given:
                    parts.append(given[fd.name])
                else:
                    dv = self.compile(fd.default) if fd.default is not None else (lambda s, L: None)
                    parts.append(lambda s, L, dv=dv: deep_copy(dv(s, L)))
            del rt
            return lambda s, L: [f(s, L) for f in parts]
        pairs = [(self.compile(en.key), self.compile(en.value)) for en in e.entries]
        if ref[0] == "bag":
            return lambda s, L: {k: n for k, n in ((kf(s, L), vf(s, L)) for kf, vf in pairs) if n > 0}
        return lambda s, L: {kf(s, L): vf(s, L) for kf, vf in pairs}

    def c_ListComp(self, e: A.ListComp) -> Fn:
        src, slot, cond = self._gen(e)
        el = self.compile(e.elem)
        if cond is None:
            def f(s: Any, L: list) -> Any:
                out = []
                for x in src(s, L):
                    L[slot] = x
                    out.append(el(s, L))
                return out
            return f

        def g(s: Any, L: list) -> Any:
            out = []
            for x in src(s, L):
                L[slot] = x
                if cond(s, L):
                    out.append(el(s, L))
            return out
        return g

    def _gen(self, e: Any) -> tuple[Fn, int, Any]:
        it = self.compile(e.iter)
        walk = iterator_for(self.type_of(e.iter))
        slot = self.rb.refs[id(e)]
        cond = self.compile(e.cond) if e.cond is not None else None
        if walk is list:
            return it, slot, cond
        return (lambda s, L: walk(it(s, L))), slot, cond

    def c_GenCall(self, e: A.GenCall) -> Fn:
        src, slot, cond = self._gen(e)
        el = self.compile(e.elem)
        name = e.name

        def values(s: Any, L: list) -> list:
            out = []
            for x in src(s, L):
                L[slot] = x
                if cond is None or cond(s, L):
                    out.append(el(s, L))
            return out
        if name == "sum":
            return lambda s, L: sum(values(s, L))
        if name == "count":
            return lambda s, L: sum(1 for v in values(s, L) if v)
        if name == "any":
            return lambda s, L: any(values(s, L))
        if name == "all":
            return lambda s, L: all(values(s, L))
        fn = max if name == "max" else min

        def extreme(s: Any, L: list) -> Any:
            vs = values(s, L)
            if not vs:
                raise RuleError(f"{name}() of nothing")
            return fn(vs)
        return extreme

    # -- operators
    def c_IfExpr(self, e: A.IfExpr) -> Fn:
        c, a, b = self.compile(e.cond), self.compile(e.then), self.compile(e.else_)
        return lambda s, L: a(s, L) if c(s, L) else b(s, L)

    def c_Or(self, e: A.Or) -> Fn:
        a, b = self.compile(e.left), self.compile(e.right)
        return lambda s, L: a(s, L) or b(s, L)

    def c_And(self, e: A.And) -> Fn:
        a, b = self.compile(e.left), self.compile(e.right)
        return lambda s, L: a(s, L) and b(s, L)

    def c_Not(self, e: A.Not) -> Fn:
        a = self.compile(e.operand)
        return lambda s, L: not a(s, L)

    def c_Compare(self, e: A.Compare) -> Fn:
        a, b, op = self.compile(e.left), self.compile(e.right), _CMP[e.op]
        if e.op in ("==", "!="):
            return lambda s, L: op(a(s, L), b(s, L))

        def cmp(s: Any, L: list) -> bool:
            x, y = a(s, L), b(s, L)
            if x is None or y is None:
                raise RuleError(f"'{e.op}' on a none value")
            return op(x, y)
        return cmp

    def c_In(self, e: A.In) -> Fn:
        x, c = self.compile(e.item), self.compile(e.coll)
        if e.negated:
            return lambda s, L: x(s, L) not in c(s, L)
        return lambda s, L: x(s, L) in c(s, L)

    def c_Range(self, e: A.Range) -> Fn:
        lo, hi = self.compile(e.lo), self.compile(e.hi)
        return lambda s, L: list(range(lo(s, L), hi(s, L) + 1))

    def c_BinOp(self, e: A.BinOp) -> Fn:
        a, b = self.compile(e.left), self.compile(e.right)
        ref = self.rb.refs.get(id(e))
        if ref == ("bagop",):
            lt = strip_opt(self.type_of(e.left))
            conv = (lambda v: v) if lt.kind == "bag" else to_bag
            op2 = bag_add if e.op == "+" else bag_sub
            return lambda s, L: op2(conv(a(s, L)), b(s, L))
        if ref == ("listop",):
            return lambda s, L: a(s, L) + b(s, L)
        op = _ARITH[e.op]
        if e.op == "+":
            return lambda s, L: a(s, L) + b(s, L)
        if e.op == "-":
            return lambda s, L: a(s, L) - b(s, L)
        return lambda s, L: op(a(s, L), b(s, L))

    def c_Neg(self, e: A.Neg) -> Fn:
        a = self.compile(e.operand)
        return lambda s, L: -a(s, L)

    def c_Field(self, e: A.Field) -> Fn:
        o = self.compile(e.obj)
        t = strip_opt(self.type_of(e.obj))
        if t.kind == "player":
            k = self.pfield[e.name]

            def pf(s: Any, L: list) -> Any:
                p = o(s, L)
                if p is None:
                    raise RuleError(f"'.{e.name}' of none (no player)")
                return s.players[p][k]
            return pf
        k2 = t.members.index(e.name)

        def rf(s: Any, L: list) -> Any:
            r = o(s, L)
            if r is None:
                raise RuleError(f"'.{e.name}' of none")
            return r[k2]
        return rf

    def c_Index(self, e: A.Index) -> Fn:
        o, k = self.compile(e.obj), self.compile(e.key)
        t = strip_opt(self.type_of(e.obj))
        if t.kind == "bag":
            return lambda s, L: o(s, L).get(k(s, L), 0)

        def idx(s: Any, L: list) -> Any:
            c = o(s, L)
            key = k(s, L)
            try:
                return c[key]
            except (IndexError, KeyError, TypeError):
                raise RuleError(f"no item at {key!r} (the collection has {len(c)} items)") from None
        return idx

    def c_Call(self, e: A.Call) -> Fn:
        ref = self.rb.refs[id(e)]
        args = [self.compile(a) for a in e.args]
        if ref[0] == "fn":
            cell = self.fn_table[ref[1]]
            n = len(args)

            def call(s: Any, L: list) -> Any:
                body, nslots = cell
                frame = [a(s, L) for a in args] + [None] * (nslots - n)
                return body(s, frame)
            return call
        impl = RUNTIME_BUILTINS[e.name]
        if e.name in ("sum", "max", "min", "len", "count", "items", "distinct") and args:
            t = strip_opt(self.type_of(e.args[0]))
            if t.kind == "bag" and e.name != "len" and e.name != "count":
                a0 = args[0]
                rest = args[1:]
                return lambda s, L: impl(s, bag_items(a0(s, L)), *[a(s, L) for a in rest])
            if t.kind == "bag":
                a0 = args[0]
                return lambda s, L: sum(a0(s, L).values())
        if len(args) == 1:
            a1 = args[0]
            return lambda s, L: impl(s, a1(s, L))
        return lambda s, L: impl(s, *[a(s, L) for a in args])
