"""Flow checks on a rulebook that passed the type checker.

W292  a decision (``choose ... one of`` / ``subset of ... size N..M`` with N > 0) whose options may
      be empty and that has no ``with pass``: the rules do not say what happens then.
W251  a statement, branch, trigger, action or phase that can never run.
W293  a statement that changes the total of a conservation law (an ``invariant`` of the form
      ``A + B + ... == C``) with nothing in the same rule that changes it back the other way.

Both are deliberately "on the face of the rules": they look at conditions, guards and statements
as written, not at values. docs/diagnostics.md says what each proof accepts.
"""
from __future__ import annotations

from typing import Any, Iterator, Optional, TypeGuard

import attrs

from dsl import ast as A
from dsl.checked import CheckedRulebook
from dsl.diagnostics import Diagnostic, warning
from dsl.types import ANY, PLAYER, strip_opt

MAX_DEPTH = 6                  # how far a proof follows functions, lets and callers


# ------------------------------------------------------------------ generic helpers
def _children(n: Any) -> Iterator[Any]:
    if isinstance(n, tuple):
        yield from n
    elif attrs.has(type(n)):
        for f in attrs.fields(type(n)):
            if f.name not in ("span", "name_span", "member_spans"):
                yield getattr(n, f.name)


def _nodes(n: Any) -> Iterator[Any]:
    stack = [n]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(_children(x))


def subst(node: Any, mapping: dict[str, Any]) -> Any:
    """`node` with every free Name in `mapping` replaced (comprehension variables shadow)."""
    if not mapping:
        return node
    if isinstance(node, A.Name):
        return mapping.get(node.name, node)
    if isinstance(node, tuple):
        items = tuple(subst(x, mapping) for x in node)
        return items if any(a is not b for a, b in zip(items, node)) else node
    if not attrs.has(type(node)) or isinstance(node, (A.Span, A.LvField)):
        return node
    inner = mapping
    var = getattr(node, "var", None)
    if isinstance(node, (A.ListComp, A.MapComp, A.GenCall)) and var in mapping:
        inner = {k: v for k, v in mapping.items() if k != var}
    changes = {}
    for f in attrs.fields(type(node)):
        if f.name in ("span", "name_span", "member_spans"):
            continue
        old = getattr(node, f.name)
        new = subst(old, mapping if f.name == "iter" else inner)
        if new is not old:
            changes[f.name] = new
    return attrs.evolve(node, **changes) if changes else node


def _exits(b: Optional[A.Block]) -> bool:
    """True when a block always leaves (return, break, end game) as its last step."""
    if b is None or not b.stmts:
        return False
    last = b.stmts[-1]
    if isinstance(last, (A.Return, A.Break, A.EndGame)):
        return True
    if isinstance(last, A.If) and last.else_ is not None:
        return _exits(last.then) and _exits(last.else_) and all(_exits(e.body) for e in last.elifs)
    return False


def _negate(e: Any) -> Any:
    return e.operand if isinstance(e, A.Not) else A.Not(e, span=e.span)


def _split(facts: tuple[Any, ...]) -> list[Any]:
    """Facts as simple conditions: conjunctions split, negations pushed inwards."""
    out: list[Any] = []
    todo = list(facts)
    while todo:
        f = todo.pop()
        if isinstance(f, A.And):
            todo += [f.left, f.right]
        elif isinstance(f, A.Not) and isinstance(f.operand, A.Not):
            todo.append(f.operand.operand)
        elif isinstance(f, A.Not) and isinstance(f.operand, A.Or):
            todo += [_negate(f.operand.left), _negate(f.operand.right)]
        elif isinstance(f, A.Not) and isinstance(f.operand, A.Compare):
            flip = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
            c = f.operand
            todo.append(A.Compare(flip[c.op], c.left, c.right, span=c.span))
        elif isinstance(f, A.Not) and isinstance(f.operand, A.In):
            i = f.operand
            todo.append(A.In(i.item, i.coll, not i.negated, span=i.span))
        else:
            out.append(f)
    return out


@attrs.frozen
class Ctx:
    """What is known at a statement: conditions that hold, and let-bound locals."""

    facts: tuple[Any, ...] = ()
    binds: tuple[tuple[str, Any], ...] = ()

    def plus(self, *facts: Any) -> "Ctx":
        return Ctx(self.facts + tuple(f for f in facts if f is not None), self.binds)

    def bind(self, name: str, value: Any) -> "Ctx":
        return Ctx(self.facts, tuple((k, v) for k, v in self.binds if k != name) + ((name, value),))

    def unbind(self, name: str) -> "Ctx":
        return Ctx(self.facts, tuple((k, v) for k, v in self.binds if k != name))

    def lookup(self, name: str) -> Optional[Any]:
        for k, v in reversed(self.binds):
            if k == name:
                return v
        return None


@attrs.define
class ChoiceSite:
    body: str                # the procedure (or other body) the decision is in
    options: Any
    lo: Any                  # None for 'one of'; the lower size bound of 'subset of'
    ctx: Ctx


@attrs.define
class CallSite:
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
        for body in self._bodies():
            facts = (body.cond,) if body.cond is not None else ()
            if body.block is not None:
                self.block(body.block, Ctx(facts), body.name if body.kind == "proc" else "")

    def _bodies(self) -> list[Any]:
        rb = self.rb
        out = [rb.setup] if rb.setup is not None else []
        return out + rb.phases + rb.triggers + rb.actions + list(rb.procs.values())

    def block(self, b: A.Block, ctx: Ctx, where: str) -> None:
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
                dest = _lv_expr(s.dest)
                if dest is not None:
                    ctx = ctx.plus(A.In(s.item, dest, False, span=s.span))
            elif isinstance(s, A.If) and _exits(s.then) and \
                    all(_exits(e.body) for e in s.elifs) and s.else_ is None:
                ctx = ctx.plus(_negate(s.cond), *(_negate(e.cond) for e in s.elifs))

    def stmt(self, s: Any, ctx: Ctx, where: str) -> None:
        if isinstance(s, (A.Let, A.Assign)):
            self.rhs(s.rhs, ctx, where)
        elif isinstance(s, A.CallStmt):
            self._call(s.name, s.args, ctx, where)
        elif isinstance(s, A.If):
            done: list[Any] = []
            for cond, body in [(s.cond, s.then)] + [(e.cond, e.body) for e in s.elifs]:
                self.block(body, ctx.plus(*(_negate(d) for d in done), cond), where)
                done.append(cond)
            if s.else_ is not None:
                self.block(s.else_, ctx.plus(*(_negate(d) for d in done)), where)
        elif isinstance(s, A.For):
            inner = ctx.unbind(s.var).plus(A.In(A.Name(s.var), s.iter, False, span=s.span), s.where)
            self.block(s.body, inner, where)
        elif isinstance(s, A.While):
            self.block(s.body, ctx.plus(s.cond), where)
        elif isinstance(s, A.Repeat):
            self.block(s.body, ctx, where)

    def rhs(self, r: Any, ctx: Ctx, where: str) -> None:
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
        for f in _split(ctx.facts):     # count(X) >= lo, count(X) > lo (or lo < count(X) ...)
            for g in (f, subst(f, binds)):
                if isinstance(g, A.Compare) and g.op in (">=", "<=", ">", "<"):
                    big, small = (g.left, g.right) if g.op in (">=", ">") else (g.right, g.left)
                    if small == lo and _measured(big) == options:
                        return True
        return False

    def _at_most_size(self, lo: Any, options: Any, ctx: Ctx, depth: int) -> bool:
        """Is `lo` written as min(..., count(options))?"""
        if depth > MAX_DEPTH:
            return False
        if isinstance(lo, A.Name) and ctx.lookup(lo.name) is not None:
            return self._at_most_size(ctx.lookup(lo.name), options, ctx.unbind(lo.name), depth + 1)
        if isinstance(lo, A.Call) and lo.name == "min":
            return any(_measured(a) == options for a in lo.args) or \
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
            if _establishes(f, e) or (binds and _establishes(subst(f, binds), e)):
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
            return lo is not None and hi is not None and lo <= hi
        if isinstance(e, A.BinOp) and e.op == "+":
            return self.nonempty(e.left, ctx, d) or self.nonempty(e.right, ctx, d)
        if isinstance(e, A.IfExpr):
            return self.nonempty(e.then, ctx.plus(e.cond), d) and \
                self.nonempty(e.else_, ctx.plus(_negate(e.cond)), d)
        if isinstance(e, (A.ListComp, A.MapComp)) and e.cond is None:
            return self.nonempty(e.iter, ctx, d)
        if isinstance(e, A.ListComp) and isinstance(e.iter, A.Name) and \
                self.rb.refs.get(id(e.iter), ("",))[0] == "enum":
            held = _held_in(e.var, e.cond)     # [v for v in Enum if v in B] is B's distinct items
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
        base = _split(ctx.facts)
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
            parts = [p for p in _summands(coll) if not self._cannot_hold(p, m)]
            return self.member_facts(x, parts[0], facts, ctx, d) if len(parts) == 1 else []
        if isinstance(coll, A.IfExpr):
            if self._cannot_hold(coll.else_, m):
                return _split((coll.cond,)) + self.member_facts(x, coll.then, facts, ctx, d)
            if self._cannot_hold(coll.then, m):
                return _split((_negate(coll.cond),)) + \
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
            return _split((cond,))
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


def _summands(e: Any) -> list[Any]:
    if isinstance(e, A.BinOp) and e.op == "+":
        return _summands(e.left) + _summands(e.right)
    return [e]


def _measured(e: Any) -> Any:
    """X for count(X) / len(X); the comprehension a counting generator stands for."""
    if isinstance(e, A.Call) and e.name in ("count", "len") and len(e.args) == 1:
        return e.args[0]
    if isinstance(e, A.GenCall) and e.name == "count":
        cond = e.elem if e.cond is None else A.And(e.cond, e.elem)
        return A.ListComp(A.Name(e.var), e.var, e.iter, cond)
    return None


def _held_in(var: str, cond: Any) -> Any:
    """B when `cond` is `var in B` or `B[var] > 0` (a bag's count of var)."""
    if isinstance(cond, A.In) and not cond.negated and cond.item == A.Name(var):
        return cond.coll
    if isinstance(cond, A.Compare) and cond.op == ">" and cond.right == A.IntLit(0) and \
            isinstance(cond.left, A.Index) and cond.left.key == A.Name(var):
        return cond.left.obj
    return None


def _lv_expr(lv: A.LValue) -> Any:
    """The expression that reads the place an lvalue names (None when it starts with a call)."""
    if lv.call is not None:
        return None
    e: Any = A.Name(lv.root)
    for st in lv.steps:
        e = A.Field(e, st.name) if isinstance(st, A.LvField) else A.Index(e, st.key)
    return e


def _same_filter(gen_var: str, gen_cond: Any, comp: Any) -> bool:
    """Does the comprehension keep exactly the items the generator's condition holds for?"""
    if not isinstance(comp, A.ListComp) or comp.cond is None:
        return False
    renamed = subst(gen_cond, {gen_var: A.Name(comp.var)})
    return renamed == comp.cond


def _establishes(f: Any, e: Any) -> bool:
    """Does the condition `f`, when true, make the collection `e` non-empty?"""
    if isinstance(f, A.In) and not f.negated:
        return f.coll == e or (isinstance(e, A.ListComp) and e.cond is None and f.coll == e.iter)
    if isinstance(f, A.GenCall) and f.name == "any" and isinstance(e, A.ListComp):
        cond = f.elem if f.cond is None else A.And(f.cond, f.elem)
        return f.iter == e.iter and _same_filter(f.var, cond, e)
    if not isinstance(f, A.Compare):
        return False
    left, right, op = f.left, f.right, f.op
    if op in ("<", "<="):                 # read 'k < count(X)' as 'count(X) > k'
        left, right, op = right, left, {"<": ">", "<=": ">="}[op]
    if op == "!=" and (left == A.ListLit(()) or right == A.ListLit(())):
        other = right if left == A.ListLit(()) else left
        return other == e
    m = _measured(left)
    if m is None:
        return False
    if isinstance(right, A.IntLit):
        positive = (op == ">" and right.value >= 0) or (op == ">=" and right.value >= 1) or \
            (op == "!=" and right.value == 0)
    else:       # 'count(X) > n': more than some number of things (numbers of things are >= 0)
        positive = op == ">" and not isinstance(right, A.Neg)
    if not positive:
        return False
    if m == e:
        return True
    # count(F for v in X) > 0 makes [.. for v in X if F] non-empty
    return isinstance(m, A.ListComp) and isinstance(e, A.ListComp) and m.iter == e.iter and \
        m.cond is not None and _same_filter(m.var, m.cond, e)


# ------------------------------------------------------------------ W293
Place = tuple[str, str]          # ("table", field) or ("player", field)


@attrs.define
class Law:
    """A conservation law: an invariant equation and the sign each place has in it."""

    text: str
    signs: dict[Place, int]


@attrs.define
class Effect:
    """A statement that changes a place: +1 gains, -1 loses, 0 sets it (direction unknown)."""

    place: Place
    sign: int
    span: A.Span


class Conservation:
    """W293: a rule that only adds to (or only takes from) what a conservation law counts."""

    def __init__(self, rb: CheckedRulebook):
        self.rb = rb
        self.laws = [law for inv in rb.invariants for law in self._laws(inv)]
        self.summaries: dict[tuple[str, str], list[Effect]] = {}
        self.busy: set[tuple[str, str]] = set()
        self.triggers: dict[str, list[Any]] = {}
        for t in rb.triggers:
            self.triggers.setdefault(t.event or "", []).append(t)
        self.diags: list[Diagnostic] = []

    # --- the laws
    def _laws(self, inv: Any) -> list[Law]:
        out = []
        for eq in self._equations(inv.expr):
            signs: dict[Place, int] = {}
            self._terms(eq.left, 1, signs)
            self._terms(eq.right, -1, signs)
            signs = {k: v for k, v in signs.items() if v != 0}
            if signs:
                out.append(Law(inv.name, signs))
        return out

    def _equations(self, e: Any) -> list[Any]:
        if isinstance(e, A.GenCall) and e.name == "all":
            return self._equations(e.elem)
        if isinstance(e, A.And):
            return self._equations(e.left) + self._equations(e.right)
        if isinstance(e, A.Compare) and e.op == "==":
            return [e]
        return []

    def _terms(self, e: Any, sign: int, signs: dict[Place, int]) -> None:
        if isinstance(e, A.BinOp) and e.op in ("+", "-"):
            self._terms(e.left, sign, signs)
            self._terms(e.right, sign if e.op == "+" else -sign, signs)
            return
        if isinstance(e, A.Neg):
            self._terms(e.operand, -sign, signs)
            return
        todo, seen = [e], set()
        while todo:                       # the places this term reads, through functions too
            for n in _nodes(todo.pop()):
                place = self._read_place(n)
                if place is not None:
                    old = signs.get(place)
                    signs[place] = sign if old in (None, sign) else 0
                if isinstance(n, A.Call) and n.name in self.rb.fns and n.name not in seen:
                    seen.add(n.name)
                    todo.append(self.rb.fns[n.name].expr)

    def _read_place(self, n: Any) -> Optional[Place]:
        if isinstance(n, A.Name) and self.rb.refs.get(id(n), ("",))[0] == "table":
            return ("table", n.name)
        if isinstance(n, A.Field) and strip_opt(self.rb.types.get(id(n.obj), ANY)) == PLAYER:
            return ("player", n.name)
        return None

    def _place(self, lv: A.LValue) -> Optional[Place]:
        """The state field a change lands in: the last player field on the way (owners[b].ducats
        changes that player's ducats, not the table 'owners'), else the table field it starts at."""
        for st in reversed(lv.steps):
            if isinstance(st, A.LvField) and strip_opt(self.rb.types.get(id(st), ANY)) == PLAYER:
                return ("player", st.name)
        ref = self.rb.refs.get(id(lv))
        if ref is not None and ref[0] == "table":
            return ("table", lv.root)
        return None

    # --- what a body changes
    def effects(self, kind: str, name: str, block: Optional[A.Block]) -> list[Effect]:
        """The changes a body makes, with procedures and triggers it runs folded in (each law
        balanced inside a called body contributes nothing)."""
        key = (kind, name)
        if key in self.summaries:
            return self.summaries[key]
        if key in self.busy or block is None:
            return []
        self.busy.add(key)
        raw: list[Effect] = []
        for n in _nodes(block):
            raw += self._stmt_effects(n)
        self.busy.discard(key)
        out = [e for e in raw if not any(self._balanced(law, raw) for law in self._laws_of(e))]
        self.summaries[key] = out
        return out

    def _laws_of(self, e: Effect) -> list[Law]:
        return [law for law in self.laws if e.place in law.signs]

    def _balanced(self, law: Law, effects: list[Effect]) -> bool:
        seen = {law.signs[e.place] * e.sign for e in effects if e.place in law.signs}
        return 0 in seen or (1 in seen and -1 in seen)

    def _stmt_effects(self, n: Any) -> list[Effect]:
        out: list[Effect] = []

        def put(lv: A.LValue, sign: int, span: A.Span) -> None:
            place = self._place(lv)
            if place is not None:
                out.append(Effect(place, sign, span))

        if isinstance(n, A.Assign):
            put(n.target, {"+=": 1, "-=": -1}.get(n.op, 0), n.span)
        if isinstance(n, A.Draw):
            put(n.source, -1, n.span)
        elif isinstance(n, A.Move):
            put(n.source, -1, n.span)
            put(n.dest, 1, n.span)
        elif isinstance(n, A.Add):
            put(n.dest, 1, n.span)
        elif isinstance(n, A.Remove):
            put(n.source, -1, n.span)
        elif isinstance(n, (A.CallStmt, A.Call)) and n.name in self.rb.procs:
            out += self.effects("proc", n.name, self.rb.procs[n.name].block)
        elif isinstance(n, A.Emit):
            for t in self.triggers.get(n.event, []):
                out += self.effects("trigger", t.name, t.block)
        return out

    def check(self) -> None:
        if not self.laws:
            return
        roots = [("phase", b) for b in self.rb.phases] + [("action", b) for b in self.rb.actions]
        reported: set[A.Span] = set()
        for kind, body in roots:
            for law in self.laws:
                effs = [e for e in self.effects(kind, body.name, body.block) if e.place in law.signs]
                if not effs or self._balanced(law, effs):
                    continue
                e = min(effs, key=lambda x: (x.span.path, x.span.line, x.span.col))
                if e.span in reported:
                    continue
                reported.add(e.span)
                way = "adds to" if law.signs[e.place] * e.sign > 0 else "takes from"
                self.diags.append(warning(
                    "W293", f"this {way} the total that the invariant \"{law.text}\" keeps "
                    f"constant, and nothing in {kind} '{body.name}' balances it", e.span,
                    f"{e.place[0]} field '{e.place[1]}' changes alone: move the amount from or to "
                    "another place the invariant counts in the same rule (or the invariant is wrong)"))


# ------------------------------------------------------------------ W251
def _leaves(b: Optional[A.Block], how: tuple[type, ...]) -> bool:
    """True when a block always ends with one of the statement kinds in `how`."""
    if b is None or not b.stmts:
        return False
    last = b.stmts[-1]
    if isinstance(last, how):
        return True
    if isinstance(last, A.If) and last.else_ is not None:
        return _leaves(last.then, how) and _leaves(last.else_, how) and \
            all(_leaves(e.body, how) for e in last.elifs)
    return False


def _const_bool(e: Any) -> Optional[bool]:
    """The value of a condition written with constants only (true, false, not, and, or)."""
    if isinstance(e, A.BoolLit):
        return e.value
    if isinstance(e, A.Not):
        v = _const_bool(e.operand)
        return None if v is None else not v
    if isinstance(e, (A.And, A.Or)):
        a, b = _const_bool(e.left), _const_bool(e.right)
        if isinstance(e, A.And):
            return False if False in (a, b) else (True if a is True and b is True else None)
        return True if True in (a, b) else (False if a is False and b is False else None)
    return None


class Reachability:
    """W251: statements, branches, triggers, actions and phases that can never run."""

    def __init__(self, rb: CheckedRulebook, an: Analysis):
        self.rb = rb
        self.an = an
        self.diags: list[Diagnostic] = []

    def never(self, span: A.Span, why: str, hint: str) -> None:
        self.diags.append(warning("W251", f"this never runs: {why}", span, hint))

    def check(self) -> None:
        rb = self.rb
        for body in [rb.setup] + rb.phases + rb.triggers + rb.actions + list(rb.procs.values()):
            if body is None or body.block is None:
                continue
            if body.cond is not None and self._false(body.cond):
                self.never(body.span, f"the condition of {body.kind} '{body.name}' is always false",
                           "remove it, or correct the condition")
                continue
            self.block(body.block)
        ended = None
        for ph in rb.phases:
            if ended is not None:
                self.never(ph.span, f"phase '{ended}' before it always ends the game",
                           "make the 'end game' depend on a condition, or remove this phase")
                break
            if ph.block is not None and _leaves(ph.block, (A.EndGame,)):
                ended = ph.name

    def _false(self, cond: Any) -> bool:
        v = _const_bool(self.an.simplify(cond))
        return v is False

    def block(self, b: A.Block) -> None:
        for i, s in enumerate(b.stmts):
            if i > 0 and _leaves(A.Block(b.stmts[i - 1:i]), (A.Return, A.Break, A.EndGame)) \
                    and not isinstance(s, A.Empty):
                self.never(s.span, "the statement before it always leaves (return, break or end "
                           "game)", "remove it, or make the leaving statement conditional")
                return
            self.stmt(s)

    def stmt(self, s: Any) -> None:
        if isinstance(s, A.If):
            arms = [(s.cond, s.then)] + [(e.cond, e.body) for e in s.elifs]
            for k, (cond, body) in enumerate(arms):
                if self._false(cond):
                    self.never(body.span, "its condition is always false",
                               "remove the branch, or correct the condition")
                    continue
                self.block(body)
                if _const_bool(self.an.simplify(cond)) is True:
                    rest = [b for _, b in arms[k + 1:]] + ([s.else_] if s.else_ else [])
                    if rest:
                        self.never(rest[0].span, "a condition before it is always true",
                                   "remove the branch, or correct the condition")
                    return
            if s.else_ is not None:
                self.block(s.else_)
        elif isinstance(s, A.While):
            if self._false(s.cond):
                self.never(s.body.span, "the loop condition is always false",
                           "remove the loop, or correct the condition")
            else:
                self.block(s.body)
        elif isinstance(s, A.For):
            if s.where is not None and self._false(s.where):
                self.never(s.body.span, "the 'where' filter is always false",
                           "remove the loop, or correct the filter")
            else:
                self.block(s.body)
        elif isinstance(s, A.Repeat):
            self.block(s.body)


def analyse(rb: CheckedRulebook) -> list[Diagnostic]:
    """The flow warnings of a checked rulebook."""
    an = Analysis(rb)
    an.check_choices()
    cons = Conservation(rb)
    cons.check()
    reach = Reachability(rb, an)
    reach.check()
    return an.diags + cons.diags + reach.diags

