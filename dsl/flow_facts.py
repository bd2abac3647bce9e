"""What the rules as written say at a statement: conditions that hold, let-bound locals, and
the reading of conditions that make a collection non-empty (used by the flow checks)."""
from __future__ import annotations

from typing import Any, Iterator, Optional

import attrs

from mercator.dsl import ast as A

MAX_DEPTH = 6                  # how far a proof follows functions, lets and callers


def children(n: Any) -> Iterator[Any]:
    """The child nodes of an AST node (spans left out)."""
    if isinstance(n, tuple):
        yield from n
    elif attrs.has(type(n)):
        for f in attrs.fields(type(n)):
            if f.name not in ("span", "name_span", "member_spans"):
                yield getattr(n, f.name)


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


def exits(b: Optional[A.Block]) -> bool:
    """True when a block always leaves (return, break, end game) as its last step."""
    if b is None or not b.stmts:
        return False
    last = b.stmts[-1]
    if isinstance(last, (A.Return, A.Break, A.EndGame)):
        return True
    if isinstance(last, A.If) and last.else_ is not None:
        return exits(last.then) and exits(last.else_) and all(exits(e.body) for e in last.elifs)
    return False


def match(pattern: Any, var: str, target: Any) -> bool:
    """Is target the pattern with one expression put for every Name(var) (the same one each
    time)? How `all(p.money >= 0 for p in players)` is read as a fact about any player."""
    bound: list[Any] = []

    def go(p: Any, t: Any) -> bool:
        if isinstance(p, A.Name) and p.name == var:
            if bound:
                return bool(bound[0] == t)
            bound.append(t)
            return True
        if isinstance(p, tuple):
            return isinstance(t, tuple) and len(p) == len(t) and all(map(go, p, t))
        if not attrs.has(type(p)) or isinstance(p, A.Span):
            return bool(p == t)
        if type(p) is not type(t):
            return False
        return all(go(a, b) for a, b in zip(children(p), children(t)))

    return go(pattern, target)


def negate(e: Any) -> Any:
    """The condition that holds when e does not."""
    return e.operand if isinstance(e, A.Not) else A.Not(e, span=e.span)


def split(facts: tuple[Any, ...]) -> list[Any]:
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
            todo += [negate(f.operand.left), negate(f.operand.right)]
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
        """This context with more conditions known."""
        return Ctx(self.facts + tuple(f for f in facts if f is not None), self.binds)

    def bind(self, name: str, value: Any) -> "Ctx":
        """This context with a local bound to its expression."""
        return Ctx(self.facts, tuple((k, v) for k, v in self.binds if k != name) + ((name, value),))

    def unbind(self, name: str) -> "Ctx":
        """This context without what it knew of a local (it was reassigned)."""
        return Ctx(self.facts, tuple((k, v) for k, v in self.binds if k != name))

    def lookup(self, name: str) -> Optional[Any]:
        """The expression a local was bound to, or None."""
        for k, v in reversed(self.binds):
            if k == name:
                return v
        return None




def summands(e: Any) -> list[Any]:
    """The parts of a sum A + B + ..."""
    if isinstance(e, A.BinOp) and e.op == "+":
        return summands(e.left) + summands(e.right)
    return [e]


def measured(e: Any) -> Any:
    """X for count(X) / len(X); the comprehension a counting generator stands for."""
    if isinstance(e, A.Call) and e.name in ("count", "len") and len(e.args) == 1:
        return e.args[0]
    if isinstance(e, A.GenCall) and e.name == "count":
        cond = e.elem if e.cond is None else A.And(e.cond, e.elem)
        return A.ListComp(A.Name(e.var), e.var, e.iter, cond)
    return None


def held_in(var: str, cond: Any) -> Any:
    """B when `cond` is `var in B` or `B[var] > 0` (a bag's count of var)."""
    if isinstance(cond, A.In) and not cond.negated and cond.item == A.Name(var):
        return cond.coll
    if isinstance(cond, A.Compare) and cond.op == ">" and cond.right == A.IntLit(0) and \
            isinstance(cond.left, A.Index) and cond.left.key == A.Name(var):
        return cond.left.obj
    return None


def lv_expr(lv: A.LValue) -> Any:
    """The expression that reads the place an lvalue names (None when it starts with a call)."""
    if lv.call is not None:
        return None
    e: Any = A.Name(lv.root)
    for st in lv.steps:
        e = A.Field(e, st.name) if isinstance(st, A.LvField) else A.Index(e, st.key)
    return e


def same_filter(gen_var: str, gen_cond: Any, comp: Any) -> bool:
    """Does the comprehension keep exactly the items the generator's condition holds for?"""
    if not isinstance(comp, A.ListComp) or comp.cond is None:
        return False
    renamed = subst(gen_cond, {gen_var: A.Name(comp.var)})
    return renamed == comp.cond


def establishes(f: Any, e: Any) -> bool:
    """Does the condition `f`, when true, make the collection `e` non-empty?"""
    if isinstance(f, A.In) and not f.negated:
        return f.coll == e or (isinstance(e, A.ListComp) and e.cond is None and f.coll == e.iter)
    if isinstance(f, A.GenCall) and f.name == "any" and isinstance(e, A.ListComp):
        cond = f.elem if f.cond is None else A.And(f.cond, f.elem)
        return f.iter == e.iter and same_filter(f.var, cond, e)
    if not isinstance(f, A.Compare):
        return False
    left, right, op = f.left, f.right, f.op
    if op in ("<", "<="):                 # read 'k < count(X)' as 'count(X) > k'
        left, right, op = right, left, {"<": ">", "<=": ">="}[op]
    if op == "!=" and (left == A.ListLit(()) or right == A.ListLit(())):
        other = right if left == A.ListLit(()) else left
        return other == e
    m = measured(left)
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
        m.cond is not None and same_filter(m.var, m.cond, e)

