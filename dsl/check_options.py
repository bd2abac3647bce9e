"""W292: a decision (`choose ... one of` / `subset of ... size N..M` with N > 0) whose options may
be empty and that has no `with pass`: the rules do not say what happens then."""
from __future__ import annotations

from typing import Any, Optional, TypeGuard

import attrs

from mercator.dsl import ast as A
from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.diagnostics import Diagnostic, warning
from mercator.dsl.flow_facts import (MAX_DEPTH, Ctx, establishes, exits, held_in, lv_expr, match, measured,
                            negate, split, summands, subst)


@attrs.define
class ChoiceSite:
    """A decision without a pass option, and what is known where it is asked."""

    body: str                # the procedure (or other body) the decision is in
    options: Any
    lo: Any                  # None for 'one of'; the lower size bound of 'subset of'
    ctx: Ctx


@attrs.define
class CallSite:
    """A call of a procedure, and what is known where it is made."""

    caller: str
    args: tuple[Any, ...]
    ctx: Ctx


# ------------------------------------------------------------------ the walk
class Analysis:
    """Walks every body once, remembering decisions, calls and state changes with their context."""

    def __init__(self, rb: CheckedRulebook):
        self.rb = rb
        self.fns = {n: b.decl for n, b in rb.fns.items()}
        self.procs = {n: b.decl for n, b in rb.procs.items()}
        self.consts = {c.name: c.value for c in rb.consts}
        self.choices: list[ChoiceSite] = []
        self.calls: dict[str, list[CallSite]] = {}
        self.diags: list[Diagnostic] = []
        # what the invariants say holds at every decision (all(...) kept whole, to be matched)
        self.invariant_facts = split(tuple(b.expr for b in rb.invariants if b.expr is not None))
        for body in self._bodies():
            facts = (body.cond,) if body.cond is not None else ()
            if body.block is not None:
                self.block(body.block, Ctx(facts), body.name if body.kind == "proc" else "")

    def _bodies(self) -> list[Any]:
        rb = self.rb
        out = [rb.setup] if rb.setup is not None else []
        return out + rb.phases + rb.triggers + rb.actions + list(rb.procs.values())

    def block(self, b: A.Block, ctx: Ctx, where: str) -> None:
        """Walk a block, carrying what each statement tells the ones after it."""
        for s in b.stmts:
            self.stmt(s, ctx, where)
            if isinstance(s, A.Let) and not isinstance(s.rhs, (A.Choose, A.Simultaneous)):
                ctx = ctx.bind(s.name, s.rhs)
            elif isinstance(s, A.Let):
                ctx = ctx.unbind(s.name)
                r = s.rhs
                if isinstance(r, A.Choose) and isinstance(r.kind, A.ChoiceOne):
                    # the answer is one of the options (inside some(..) when it may pass)
                    got: Any = A.Name(s.name)
                    if r.allow_pass:
                        got = A.Call("some", (got,))
                    ctx = ctx.plus(A.In(got, r.kind.options, False, span=s.span))
            elif isinstance(s, A.Assign) and not s.target.steps:
                ctx = ctx.unbind(s.target.root)
            if isinstance(s, (A.Move, A.Add)):     # the item is now in the destination
                dest = lv_expr(s.dest)
                if dest is not None:
                    ctx = ctx.plus(A.In(s.item, dest, False, span=s.span))
            elif isinstance(s, A.If) and exits(s.then) and \
                    all(exits(e.body) for e in s.elifs) and s.else_ is None:
                ctx = ctx.plus(negate(s.cond), *(negate(e.cond) for e in s.elifs))

    def stmt(self, s: Any, ctx: Ctx, where: str) -> None:
        """Walk one statement, with what its branches and loops make known inside them."""
        if isinstance(s, (A.Let, A.Assign)):
            self.rhs(s.rhs, ctx, where)
        elif isinstance(s, A.CallStmt):
            self._call(s.name, s.args, ctx, where)
        elif isinstance(s, A.If):
            done: list[Any] = []
            for cond, body in [(s.cond, s.then)] + [(e.cond, e.body) for e in s.elifs]:
                self.block(body, ctx.plus(*(negate(d) for d in done), cond), where)
                done.append(cond)
            if s.else_ is not None:
                self.block(s.else_, ctx.plus(*(negate(d) for d in done)), where)
        elif isinstance(s, A.For):
            inner = ctx.unbind(s.var).plus(A.In(A.Name(s.var), s.iter, False, span=s.span), s.where)
            self.block(s.body, inner, where)
        elif isinstance(s, A.Deal):
            for body in s.blocks():
                self.block(body, ctx, where)
        elif isinstance(s, A.While):
            self.block(s.body, ctx.plus(s.cond), where)
        elif isinstance(s, A.Repeat):
            self.block(s.body, ctx, where)

    def rhs(self, r: Any, ctx: Ctx, where: str) -> None:
        """Remember a decision or a procedure call on the right-hand side."""
        if isinstance(r, A.Simultaneous):
            r = r.choose
        if isinstance(r, A.Choose):
            kinds = [(r.kind, r.allow_pass)]
            if isinstance(r.kind, A.ChoiceRecord):
                kinds = [(f.kind, f.allow_pass or r.allow_pass) for f in r.kind.fields]
            for kind, allow_pass in kinds:
                if allow_pass:
                    continue
                if isinstance(kind, A.ChoiceOne):
                    self.choices.append(ChoiceSite(where, kind.options, None, ctx))
                elif isinstance(kind, A.ChoiceSubset) and \
                        not (isinstance(kind.lo, A.IntLit) and kind.lo.value <= 0):
                    self.choices.append(ChoiceSite(where, kind.options, kind.lo, ctx))
        elif isinstance(r, A.Call) and r.name in self.procs:
            self._call(r.name, r.args, ctx, where)

    def _call(self, name: str, args: tuple[Any, ...], ctx: Ctx, where: str) -> None:
        self.calls.setdefault(name, []).append(CallSite(where, args, ctx))

    # ------------------------------------------------------------------ W292
    def check_choices(self) -> None:
        """Warn (W292) at each decision whose options the rules do not show to be non-empty."""
        for site in self.choices:
            if not self._site_ok(site.options, site.lo, site.ctx, site.body, 0):
                self.diags.append(warning(
                    "W292", "the options of this decision may be empty, and it has no 'with pass'",
                    site.options.span,
                    "with no option the game cannot go on; add 'with pass', or put the decision "
                    "under a condition that says there is one (if OPTIONS != [] / if any(...))"))

    def _site_ok(self, options: Any, lo: Any, ctx: Ctx, body: str, depth: int) -> bool:
        if self._enough(options, lo, ctx, 0):
            return True
        if not body or depth >= 3:
            return False
        sites = self.calls.get(body, [])
        if not sites:
            return True        # never called: W250 says so; nothing here can be empty
        params = [p.name for p in self.procs[body].params]
        for cs in sites:
            mapping = dict(zip(params, cs.args))
            inner = Ctx(cs.ctx.facts + tuple(subst(f, mapping) for f in ctx.facts),
                        cs.ctx.binds + tuple((k, subst(v, mapping)) for k, v in ctx.binds))
            if not self._site_ok(subst(options, mapping), subst(lo, mapping) if lo else None,
                                 inner, cs.caller, depth + 1):
                return False
        return True

    def _enough(self, options: Any, lo: Any, ctx: Ctx, depth: int) -> bool:
        if lo is None or (isinstance(lo, A.IntLit) and lo.value == 1):
            return self.nonempty(options, ctx, depth)
        if self._at_most_size(lo, options, ctx, depth):
            return True
        binds = dict(ctx.binds)
        for f in split(ctx.facts):     # count(X) >= lo, count(X) > lo (or lo < count(X) ...)
            for g in (f, subst(f, binds)):
                if isinstance(g, A.Compare) and g.op in (">=", "<=", ">", "<"):
                    big, small = (g.left, g.right) if g.op in (">=", ">") else (g.right, g.left)
                    if small == lo and measured(big) == options:
                        return True
        return False

    def _at_most_size(self, lo: Any, options: Any, ctx: Ctx, depth: int) -> bool:
        """Is `lo` written as min(..., count(options))?"""
        if depth > MAX_DEPTH:
            return False
        if isinstance(lo, A.Name) and ctx.lookup(lo.name) is not None:
            return self._at_most_size(ctx.lookup(lo.name), options, ctx.unbind(lo.name), depth + 1)
        if isinstance(lo, A.Call) and lo.name == "min":
            return any(measured(a) == options for a in lo.args) or \
                any(self._at_most_size(a, options, ctx, depth + 1) for a in lo.args)
        if isinstance(lo, A.Call) and lo.name in self.fns:
            fn = self.fns[lo.name]
            body = subst(fn.body, {p.name: a for p, a in zip(fn.params, lo.args)})
            return self._at_most_size(body, options, ctx, depth + 1)
        return False

    def nonempty(self, e: Any, ctx: Ctx, depth: int) -> bool:
        """True when the rules, as written, make `e` a non-empty collection here."""
        if depth > MAX_DEPTH:
            return False
        binds = dict(ctx.binds)
        for f in self.facts(ctx):
            if establishes(f, e) or (binds and establishes(subst(f, binds), e)):
                return True
        d = depth + 1
        if isinstance(e, A.Name):
            ref = self.rb.refs.get(id(e))
            bound = ctx.lookup(e.name)
            if bound is not None:
                return self.nonempty(bound, ctx.unbind(e.name), d)
            if ref is None:
                return False
            if ref[0] == "enum" or ref == ("builtin", "players"):
                return True
            if ref[0] == "const" and e.name in self.consts:
                return self.nonempty(self.consts[e.name], Ctx(), d)
            return False
        if isinstance(e, A.ListLit):
            return bool(e.items)
        if isinstance(e, A.MapLit):
            return bool(e.entries)
        if isinstance(e, A.Range):
            lo, hi = self.const_int(e.lo), self.const_int(e.hi)
            if lo is not None and hi is not None:
                return lo <= hi
            if lo is not None and lo <= 0 and self.nonneg(e.hi, ctx, d):
                return True
            return any(isinstance(f, A.Compare) and f.op in (">=", "<=") and
                       (f.left, f.right) == ((e.hi, e.lo) if f.op == ">=" else (e.lo, e.hi))
                       for f in self.facts(ctx))
        if isinstance(e, A.BinOp) and e.op == "+":
            return self.nonempty(e.left, ctx, d) or self.nonempty(e.right, ctx, d)
        if isinstance(e, A.IfExpr):
            return self.nonempty(e.then, ctx.plus(e.cond), d) and \
                self.nonempty(e.else_, ctx.plus(negate(e.cond)), d)
        if isinstance(e, (A.ListComp, A.MapComp)) and e.cond is None:
            return self.nonempty(e.iter, ctx, d)
        if isinstance(e, A.ListComp) and isinstance(e.iter, A.Name) and \
                self.rb.refs.get(id(e.iter), ("",))[0] == "enum":
            held = held_in(e.var, e.cond)     # [v for v in Enum if v in B] is B's distinct items
            if held is not None:
                return self.nonempty(held, ctx, d)
        if isinstance(e, A.Call):
            if e.name == "clockwise_from":
                return True
            if e.name in ("distinct", "items", "keys", "values", "sort", "reverse") and e.args:
                return self.nonempty(e.args[0], ctx, d)
            fn = self.fns.get(e.name)
            if fn is not None:
                body = subst(fn.body, {p.name: a for p, a in zip(fn.params, e.args)})
                return self.nonempty(body, ctx, d)
        return False

    # --- what membership in a list of options says
    def facts(self, ctx: Ctx) -> list[Any]:
        """The known conditions, plus what each known `x in OPTIONS` implies about x."""
        base = split(ctx.facts)
        out = list(base)
        for f in base:
            if isinstance(f, A.In) and not f.negated:
                out += self.member_facts(f.item, f.coll, base, ctx, 0)
        return out

    def _member_value(self, x: Any, facts: list[Any]) -> Optional[A.Name]:
        """The enum member x is known to be (x itself, or a fact x == m), if any."""
        if self._is_member(x):
            return x
        for f in facts:
            if isinstance(f, A.Compare) and f.op == "==":
                for a, b in ((f.left, f.right), (f.right, f.left)):
                    if a == x and self._is_member(b):
                        return b
        return None

    def _excluded(self, x: Any, facts: list[Any]) -> set[str]:
        return {b.name for f in facts if isinstance(f, A.Compare) and f.op == "!="
                for a, b in ((f.left, f.right), (f.right, f.left)) if a == x and self._is_member(b)}

    def _is_member(self, e: Any) -> TypeGuard[A.Name]:
        return isinstance(e, A.Name) and self.rb.refs.get(id(e), ("",))[0] == "member"

    def _cannot_hold(self, coll: Any, m: Optional[str]) -> bool:
        """Is it plain that the list `coll` does not contain member m?"""
        if m is None:
            return False
        if isinstance(coll, A.ListLit):
            return all(self._is_member(i) and i.name != m for i in coll.items)
        if isinstance(coll, A.IfExpr):
            return self._cannot_hold(coll.then, m) and self._cannot_hold(coll.else_, m)
        return False

    def member_facts(self, x: Any, coll: Any, facts: list[Any], ctx: Ctx, depth: int) -> list[Any]:
        """Conditions that must hold for x to be an item of coll."""
        if depth > MAX_DEPTH:
            return []
        d = depth + 1
        known = self._member_value(x, facts)
        m = known.name if known is not None else None
        if isinstance(coll, A.Name) and ctx.lookup(coll.name) is not None:
            return self.member_facts(x, ctx.lookup(coll.name), facts, ctx.unbind(coll.name), d)
        if isinstance(coll, A.Call) and coll.name in self.fns:
            fn = self.fns[coll.name]
            body = subst(fn.body, {p.name: a for p, a in zip(fn.params, coll.args)})
            return self.member_facts(x, body, facts, ctx, d)
        if isinstance(coll, A.BinOp) and coll.op == "+":
            parts = [p for p in summands(coll) if not self._cannot_hold(p, m)]
            return self.member_facts(x, parts[0], facts, ctx, d) if len(parts) == 1 else []
        if isinstance(coll, A.IfExpr):
            if self._cannot_hold(coll.else_, m):
                return split((coll.cond,)) + self.member_facts(x, coll.then, facts, ctx, d)
            if self._cannot_hold(coll.then, m):
                return split((negate(coll.cond),)) + \
                    self.member_facts(x, coll.else_, facts, ctx, d)
            return []
        if isinstance(coll, A.ListComp) and coll.elem == A.Name(coll.var) and coll.cond is not None:
            value = known if known is not None else x
            if m is None:        # one member left once the excluded ones are taken out
                pool = self._members_of(coll.iter)
                left = [n for n in pool if n.name not in self._excluded(x, facts)]
                if pool and len(left) == 1:
                    value, m = left[0], left[0].name
            cond = self.simplify(subst(coll.cond, {coll.var: value}))
            return split((cond,))
        return []

    def _members_of(self, e: Any) -> list[Any]:
        if isinstance(e, A.ListLit) and all(self._is_member(i) for i in e.items):
            return list(e.items)
        return []

    def simplify(self, e: Any) -> Any:
        """Decide comparisons between enum members and what depends on them."""
        if isinstance(e, A.Compare) and e.op in ("==", "!=") and self._is_member(e.left) and \
                self._is_member(e.right):
            return A.BoolLit((e.left.name == e.right.name) == (e.op == "=="))
        if isinstance(e, A.IfExpr):
            c = self.simplify(e.cond)
            if isinstance(c, A.BoolLit):
                return self.simplify(e.then if c.value else e.else_)
            return e
        if isinstance(e, (A.And, A.Or)):
            a, b = self.simplify(e.left), self.simplify(e.right)
            stop = isinstance(e, A.Or)          # the value that decides: true for or
            for x, y in ((a, b), (b, a)):
                if isinstance(x, A.BoolLit):
                    return x if x.value == stop else y
            return attrs.evolve(e, left=a, right=b)
        return e

    def nonneg(self, e: Any, ctx: Ctx, depth: int) -> bool:
        """Do the rules as written make the int `e` at least 0 here?"""
        if depth > MAX_DEPTH:
            return False
        d = depth + 1
        v = self.const_int(e)
        if v is not None:
            return v >= 0
        if isinstance(e, A.Call) and e.name in ("count", "len", "abs"):
            return True
        if isinstance(e, A.GenCall) and e.name == "count":
            return True
        if isinstance(e, A.Call) and e.name in ("min", "max") and len(e.args) == 2:
            parts = [self.nonneg(a, ctx, d) for a in e.args]
            return all(parts) if e.name == "min" else any(parts)
        if isinstance(e, A.BinOp) and e.op in ("+", "*", "/"):
            return self.nonneg(e.left, ctx, d) and self.nonneg(e.right, ctx, d)
        if isinstance(e, A.Name) and ctx.lookup(e.name) is not None:
            return self.nonneg(ctx.lookup(e.name), ctx.unbind(e.name), d)
        want = A.Compare(">=", e, A.IntLit(0))
        for f in self.facts(ctx) + self.invariant_facts:
            if f == want or (isinstance(f, A.Compare) and f.left == e and
                             isinstance(f.right, A.IntLit) and
                             ((f.op == ">=" and f.right.value >= 0) or
                              (f.op == ">" and f.right.value >= -1))):
                return True
            if isinstance(f, A.GenCall) and f.name == "all" and f.cond is None and \
                    any(match(g, f.var, want) for g in split((f.elem,))):
                return True
        return False

    def const_int(self, e: Any, depth: int = 0) -> Optional[int]:
        """The value of a constant int expression, when it is one."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(e, A.IntLit):
            return e.value
        if isinstance(e, A.Neg):
            v = self.const_int(e.operand, depth + 1)
            return None if v is None else -v
        if isinstance(e, A.Name) and e.name in self.consts and \
                self.rb.refs.get(id(e), ("const",))[0] == "const":
            return self.const_int(self.consts[e.name], depth + 1)
        if isinstance(e, A.BinOp) and e.op in ("+", "-", "*"):
            a, b = self.const_int(e.left, depth + 1), self.const_int(e.right, depth + 1)
            if a is None or b is None:
                return None
            return a + b if e.op == "+" else a - b if e.op == "-" else a * b
        return None
