"""The types of expressions: names, literals, operators, fields and indices, and calls of
functions, procedures and built-ins (collections: dsl/checker_collections.py).

`expr` records each expression's type by node (`types`) and what each name refers to (`refs`).
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl import ast as A
from mercator.dsl.builtins import BUILTINS, builtin_arg_want, builtin_type
from mercator.dsl.checker_base import CheckerBase, Scope
from mercator.dsl.diagnostics import did_you_mean
from mercator.dsl.limits import MAX_COLLECTION, literal_range_size
from mercator.dsl.types import (ANY, BOOL, INT, NONE, PLAYER, STR, Type, assignable, bag_of, converts,
                       is_collection, iter_elem, join, list_of, strip_opt)


class ExprChecker(CheckerBase):
    """Types expressions (one e_KIND method per AST class)."""


    def expr(self, e: Any, sc: Scope, want: Optional[Type]) -> Type:
        """The type of an expression (dispatched to e_KIND by its class), recorded by node."""
        self.at = e.span
        m = getattr(self, "e_" + type(e).__name__, None)
        if m is None:
            self.err("E108", "a decision, chance or procedure call cannot be part of an expression",
                     e.span, "give it its own 'let' first")
            return ANY
        t: Type = m(e, sc, want)
        self.types[id(e)] = t
        if want is not None and converts(t, want) and assignable(t, want):
            self.refs[("convert", id(e))] = (t, want)   # stored as a bag (§3.6): converted
        else:
            self.refs.pop(("convert", id(e)), None)
        return t

    def e_IntLit(self, e: A.IntLit, sc: Scope, want: Optional[Type]) -> Type:
        """An integer literal."""
        return INT

    def e_StrLit(self, e: A.StrLit, sc: Scope, want: Optional[Type]) -> Type:
        """A string literal."""
        return STR

    def e_BoolLit(self, e: A.BoolLit, sc: Scope, want: Optional[Type]) -> Type:
        """true or false."""
        return BOOL

    def e_NoneLit(self, e: A.NoneLit, sc: Scope, want: Optional[Type]) -> Type:
        """none."""
        return NONE

    def e_Name(self, e: A.Name, sc: Scope, want: Optional[Type]) -> Type:
        """A name: a local, a table field, a constant, an enum member or enum, a built-in name."""
        loc = sc.lookup(e.name)
        if loc is not None:
            self.refs[id(e)] = ("local", loc[0])
            return loc[1]
        if e.name in self.table_fields:
            self.reads.add(("table", e.name))
            if not sc.state:
                self.err("E119", f"table field '{e.name}' is game state; a constant or default cannot "
                         "depend on it", e.span)
            self.refs[id(e)] = ("table", list(self.table_fields).index(e.name))
            return self.table_fields[e.name].type
        if e.name in self.const_types:
            self.refs[id(e)] = ("const", e.name)
            return self.const_types[e.name]
        if e.name in self.member_of:
            t, i = self.member_of[e.name]
            self.refs[id(e)] = ("member", i)
            return t
        if e.name in self.enums:
            self.refs[id(e)] = ("enum", e.name)
            return list_of(self.enums[e.name])
        if e.name in ("players", "player_count", "round_number"):
            if not sc.state:
                self.err("E119", f"'{e.name}' depends on the game being played; a constant or "
                         "default cannot use it", e.span, "compute it in setup instead")
            self.refs[id(e)] = ("builtin", e.name)
            return list_of(PLAYER) if e.name == "players" else INT
        if e.name in self.const_names or e.name in self.globals:
            self.err("E100", f"'{e.name}' has no value here", e.span,
                     "constants that use each other in a cycle have no value")
            return ANY
        known = (sc.names() + list(self.table_fields) + list(self.const_types) + list(self.member_of)
                 + list(self.enums) + ["players", "player_count", "round_number"])
        hint = did_you_mean(e.name, known)
        if hint is None and e.name in self.player_fields:
            hint = f"'{e.name}' is a player field: write p.{e.name} for a player p"
        self.err("E100", f"unknown name '{e.name}'", e.span, hint)
        return ANY

    def e_IfExpr(self, e: A.IfExpr, sc: Scope, want: Optional[Type]) -> Type:
        """if COND then A else B: the join of both branches' types."""
        self.expect(self.expr(e.cond, sc, BOOL), BOOL, e.cond.span, "condition")
        a = self.expr(e.then, sc, want)
        b = self.expr(e.else_, sc, want)
        j = join(a, b)
        if j is None:
            self.err("E104", f"the branches disagree: {a} and {b}", e.span)
            return ANY
        return j

    def _bools(self, e: Any, sc: Scope) -> Type:
        self.expect(self.expr(e.left, sc, BOOL), BOOL, e.left.span, "operand")
        self.expect(self.expr(e.right, sc, BOOL), BOOL, e.right.span, "operand")
        return BOOL

    def e_Or(self, e: A.Or, sc: Scope, want: Optional[Type]) -> Type:
        """A or B."""
        return self._bools(e, sc)

    def e_And(self, e: A.And, sc: Scope, want: Optional[Type]) -> Type:
        """A and B."""
        return self._bools(e, sc)

    def e_Not(self, e: A.Not, sc: Scope, want: Optional[Type]) -> Type:
        """not A."""
        self.expect(self.expr(e.operand, sc, BOOL), BOOL, e.operand.span, "operand of 'not'")
        return BOOL

    def e_Compare(self, e: A.Compare, sc: Scope, want: Optional[Type]) -> Type:
        """A == / != / < / <= / > / >= B."""
        a = self.expr(e.left, sc, None)
        b = self.expr(e.right, sc, a if a.kind not in ("none", "any") else None)
        if e.op in ("==", "!="):
            if not (assignable(a, b) or assignable(b, a) or a.kind == "none" or b.kind == "none"):
                self.err("E117", f"cannot compare {a} with {b}", e.span)
        else:
            for t, x in ((a, e.left), (b, e.right)):
                if strip_opt(t).kind not in ("int", "any"):
                    self.err("E117", f"'{e.op}' compares numbers, got {t}", x.span)
        return BOOL

    def e_In(self, e: A.In, sc: Scope, want: Optional[Type]) -> Type:
        """ITEM in / not in COLLECTION."""
        c = strip_opt(self.expr(e.coll, sc, None))
        if not is_collection(c) and c.kind != "any":
            self.err("E117", f"'in' needs a list, bag or map on its right, got {c}", e.coll.span)
        it = self.expr(e.item, sc, iter_elem(c))
        if c.kind != "any" and not assignable(it, iter_elem(c)):
            self.err("E117", f"a {it} is never in a collection of {iter_elem(c)}", e.span)
        return BOOL

    def e_Range(self, e: A.Range, sc: Scope, want: Optional[Type]) -> Type:
        """LO..HI: a list of ints (E143 when literal ends hold too many)."""
        self.expect(self.expr(e.lo, sc, INT), INT, e.lo.span, "range start")
        self.expect(self.expr(e.hi, sc, INT), INT, e.hi.span, "range end")
        n = literal_range_size(e)
        if n is not None and n > MAX_COLLECTION:
            self.err("E143", f"this range holds {n:,} items, more than the {MAX_COLLECTION:,} a "
                     "collection may hold", e.span, "a game never needs so many: use a smaller "
                     "range, or count with arithmetic")
        return list_of(INT)

    def e_BinOp(self, e: A.BinOp, sc: Scope, want: Optional[Type]) -> Type:
        """A + - * / % B: ints, or '+' joining lists and bags and '-' removing from a bag."""
        a = strip_opt(self.expr(e.left, sc, None))
        b = strip_opt(self.expr(e.right, sc, a if a.kind == "bag" else None))
        if a.kind in ("any",) or b.kind in ("any",):
            return a if b.kind == "any" else b
        if a == INT and b == INT:
            return INT
        if e.op in ("+", "-") and a.kind in ("list", "bag") and b.kind in ("list", "bag"):
            if a.kind == "bag" or b.kind == "bag":
                if assignable(a.elem, b.elem) or assignable(b.elem, a.elem):
                    self.refs[id(e)] = ("bagop",)
                    return bag_of(a.elem)
            elif e.op == "+" and (assignable(a.elem, b.elem) or assignable(b.elem, a.elem)):
                self.refs[id(e)] = ("listop",)
                return list_of(a.elem if a.elem.kind != "any" else b.elem)
        self.err("E117", f"'{e.op}' cannot combine {a} and {b}", e.span,
                 "arithmetic is on ints; '+' joins lists and bags, '-' removes from a bag")
        return ANY

    def e_Neg(self, e: A.Neg, sc: Scope, want: Optional[Type]) -> Type:
        """-A."""
        self.expect(self.expr(e.operand, sc, INT), INT, e.operand.span, "operand of '-'")
        return INT

    def e_Field(self, e: A.Field, sc: Scope, want: Optional[Type]) -> Type:
        """OBJ.NAME: a player's field or a record's."""
        t = self.expr(e.obj, sc, None)
        if strip_opt(t) == PLAYER:
            self.reads.add(("player", e.name))
        return self._field_type(t, e.name, e.name_span if e.name_span.line else e.span)

    def e_Index(self, e: A.Index, sc: Scope, want: Optional[Type]) -> Type:
        """OBJ[KEY]: a list item, a map value or a bag count."""
        t = self.expr(e.obj, sc, None)
        return self._index_type(t, e.key, sc, e.span)

    def _field_type(self, t: Type, name: str, span: A.Span) -> Type:
        t = strip_opt(t)
        if t.kind == "any":
            return ANY
        if t == PLAYER:
            if name in self.player_fields:
                return self.player_fields[name].type
            self.err("E103", f"unknown field '{name}' of player", span,
                     did_you_mean(name, self.player_fields))
            return ANY
        if t.kind == "record":
            ft = t.field(name)
            if ft is not None:
                return ft
            self.err("E103", f"unknown field '{name}' of {t.name}", span, did_you_mean(name, t.members))
            return ANY
        self.err("E103", f"a value of type {t} has no fields", span)
        return ANY

    def _index_type(self, t: Type, key: A.Expr, sc: Scope, span: A.Span) -> Type:
        t = strip_opt(t)
        if t.kind == "list":
            self.expect(self.expr(key, sc, INT), INT, key.span, "list index")
            return t.elem
        if t.kind == "map":
            self.expect(self.expr(key, sc, t.elem), t.elem, key.span, "map key")
            return t.value
        if t.kind == "bag":
            self.expect(self.expr(key, sc, t.elem), t.elem, key.span, "bag item")
            return INT
        if t.kind != "any":
            self.err("E104", f"a value of type {t} cannot be indexed", span)
        self.expr(key, sc, None)
        return ANY

    def e_Call(self, e: A.Call, sc: Scope, want: Optional[Type]) -> Type:
        """NAME(args) in an expression: a function or a built-in, not a procedure."""
        if e.name in self.proc_decls:
            self.err("E108", f"procedure '{e.name}' cannot be called inside an expression", e.span,
                     f"give it its own line: let x = {e.name}(...)")
            for a in e.args:
                self.expr(a, sc, None)
            return ANY
        return self.call_proc_or_fn(e.name, e.args, e, sc, statement=False, expected=want)

    def call_proc_or_fn(self, name: str, args: tuple[A.Expr, ...], node: Any, sc: Scope,
                        statement: bool, expected: Optional[Type] = None) -> Type:
        """The result type of calling a procedure, function or built-in by name (`expected`, the
        type the call's place expects, is passed on to the argument of a built-in that returns
        a list built from it, so a record literal inside takes its type: see builtin_arg_want)."""
        if name in self.proc_decls:
            self.called.add(name)
            self.calls.setdefault(sc.owner, set()).add(name)
            if sc.kind in ("fn", "expr", "const"):
                self.err("E108", f"procedure '{name}' cannot be called from a pure expression",
                         node.span, "procedures may suspend the game; call them from a block")
            d = self.proc_decls[name]
            want = tuple(self.resolve_type(p.type) for p in d.params)
            self._args(args, want, sc, node.span, f"procedure '{name}'")
            self.refs[id(node)] = ("proc", name)
            return self.resolve_type(d.result) if d.result is not None else NONE
        if name in self.fn_decls:
            d2 = self.fn_decls[name]
            if not sc.state and self._reads_state(d2.body):
                self.err("E119", f"function '{name}' reads game state; a constant or default "
                         "cannot call it", node.span, "compute the value in setup instead")
            want = tuple(self.resolve_type(p.type) for p in d2.params)
            self._args(args, want, sc, node.span, f"function '{name}'")
            self.refs[id(node)] = ("fn", name)
            return self.resolve_type(d2.result)
        if name in BUILTINS:
            aw = builtin_arg_want(name, expected) if len(args) == 1 else None
            ts = [self.expr(a, sc, aw) for a in args]
            for a in args:      # a built-in's argument is not stored: its result is converted
                self.refs.pop(("convert", id(a)), None)
            self.refs[id(node)] = ("builtin", name)
            return self._builtin(name, ts, node)
        known = list(self.proc_decls) + list(self.fn_decls) + list(BUILTINS)
        self.err("E106", f"unknown procedure or function '{name}'", node.span,
                 did_you_mean(name, known))
        for a in args:
            self.expr(a, sc, None)
        return ANY

    def _args(self, args: tuple[A.Expr, ...], want: tuple[Type, ...], sc: Scope, span: A.Span,
              what: str) -> None:
        if len(args) != len(want):
            self.err("E105", f"{what} takes {len(want)} argument(s), got {len(args)}", span)
        for a, w in zip(args, want):
            self.expect(self.expr(a, sc, w), w, a.span, f"argument of {what}")
        for a in args[len(want):]:
            self.expr(a, sc, None)

    def _builtin(self, name: str, ts: list[Type], node: Any) -> Type:
        res = builtin_type(name, ts)
        if isinstance(res, str):
            self.err("E104", f"{name}(): {res}", node.span)
            return ANY
        return res

