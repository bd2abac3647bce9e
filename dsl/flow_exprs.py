"""Expressions to information-flow formulas, and the summaries of the pure functions.

An expression's formula is a constant taint (the hidden fields it reads directly) joined with the
labels of the locals it reads. A `fn` call applies the function's summary: its body's formula
over the function's parameters, with their owners and labels replaced by the caller's arguments.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import attrs

from mercator.dsl import ast as A
from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.flow_taint import NOTHING, Formula, Taint
from mercator.dsl.graphs import strongly_connected
from mercator.dsl.infoflow import is_owner_map
from mercator.dsl.types import ANY, strip_opt

SIZE_BUILTINS = frozenset({"len", "count"})     # the size of a field is in every view


def local_slot(refs: dict[Any, Any], e: Any) -> Optional[int]:
    """The slot of a local name (also inside `some(...)`), or None for any other expression."""
    while isinstance(e, A.Call) and e.name == "some" and len(e.args) == 1:
        e = e.args[0]
    if isinstance(e, A.Name):
        ref = refs.get(id(e))
        if isinstance(ref, tuple) and len(ref) == 2 and ref[0] == "local":
            return int(ref[1])
    return None


_CHILDREN: dict[type, tuple[str, ...]] = {}


def _child_fields(t: type) -> tuple[str, ...]:
    got = _CHILDREN.get(t)
    if got is None:
        got = tuple(f.name for f in attrs.fields(t) if f.name not in ("span", "name_span"))
        _CHILDREN[t] = got
    return got


class ExprFlow:
    """Compiles the expressions of one frame (a body or a fn) into formulas."""

    def __init__(self, rb: CheckedRulebook, summaries: dict[str, Formula], fielded: bool):
        self.refs = rb.refs
        self.types = rb.types
        self.player_vis = {f.name: f.visibility for f in rb.player_fields}
        self.table_vis = {f.name: f.visibility for f in rb.table_fields}
        # owner-only `map<player, T>` table fields: entry m[p] is seen by player p only
        self.owner_maps = frozenset(f.name for f in rb.table_fields
                                    if is_owner_map(f.type, f.visibility))
        self.summaries = summaries
        self.fielded = fielded            # track a local record's fields one by one (bodies)
        self.comp: dict[int, Formula] = {}   # comprehension variables in scope -> their formula
        self._by_type: dict[type, Callable[[Any], Formula]] = {
            A.Name: self._name, A.Field: self._field, A.Call: self._call, A.GenCall: self._comp,
            A.ListComp: self._comp, A.MapComp: self._comp, A.IntLit: self._clear,
            A.StrLit: self._clear, A.BoolLit: self._clear, A.NoneLit: self._clear,
            A.Index: self._index, A.In: self._in,
        }

    def slot(self, e: Any) -> Optional[int]:
        """The local slot an expression names (see local_slot)."""
        return local_slot(self.refs, e)

    def expr(self, e: Any) -> Formula:
        """The formula of an expression."""
        m = self._by_type.get(type(e))
        if m is not None:
            return m(e)
        out = NOTHING
        for name in _child_fields(type(e)):
            v = getattr(e, name)
            if isinstance(v, tuple):
                for x in v:
                    if attrs.has(type(x)):
                        out = out.join(self.expr(x))
            elif attrs.has(type(v)):
                out = out.join(self.expr(v))
        return out

    def exprs(self, es: Any) -> Formula:
        """The join of the formulas of several expressions (None entries skipped)."""
        out = NOTHING
        for e in es:
            if e is not None:
                out = out.join(self.expr(e))
        return out

    def _clear(self, e: Any) -> Formula:
        return NOTHING

    def _name(self, e: A.Name) -> Formula:
        ref = self.refs.get(id(e))
        if not isinstance(ref, tuple) or not ref:
            return NOTHING
        if ref[0] == "local":
            slot = int(ref[1])
            got = self.comp.get(slot)
            return got if got is not None else Formula(deps=frozenset({slot}))
        if ref[0] == "table":
            vis = self.table_vis.get(e.name, "public")
            if vis == "public":
                return NOTHING
            if vis == "secret":
                return Formula(Taint(hidden=frozenset({e.name})))
            return Formula(Taint(owned=frozenset({e.name}), unnamed=True))
        return NOTHING

    def owner_map(self, e: Any) -> Optional[str]:
        """The name of the owner-only player map a `Name` reads, or None."""
        if isinstance(e, A.Name) and e.name in self.owner_maps:
            ref = self.refs.get(id(e))
            if isinstance(ref, tuple) and ref and ref[0] == "table":
                return e.name
        return None

    def entry(self, name: str, key: Any) -> Taint:
        """The taint of the entry `name[key]` of an owner-only player map: owned by the key's
        slot when a local names the key, else no one player's (secret)."""
        s = self.slot(key)
        if s is None:
            return Taint(owned=frozenset({name}), unnamed=True)
        return Taint(owners=frozenset({s}), owned=frozenset({name}))

    def _index(self, e: A.Index) -> Formula:
        name = self.owner_map(e.obj)
        if name is None:
            return self.expr(e.obj).join(self.expr(e.key))
        return self.expr(e.key).plus(self.entry(name, e.key))

    def _in(self, e: A.In) -> Formula:
        """`k in m` of an owner-only player map: which players have an entry is in every view."""
        if self.owner_map(e.coll) is not None:
            return self.expr(e.item)
        return self.expr(e.item).join(self.expr(e.coll))

    def _field(self, e: A.Field) -> Formula:
        t = strip_opt(self.types.get(id(e.obj), ANY))
        if t.kind == "record" and self.fielded:
            s = self.slot(e.obj)
            if s is not None and s not in self.comp:
                return Formula(deps=frozenset({(s, e.name)}))
        obj = self.expr(e.obj)
        if t.kind != "player":
            return obj
        vis = self.player_vis.get(e.name, "public")
        if vis == "public":
            return obj
        if vis == "secret":
            return obj.plus(Taint(hidden=frozenset({e.name})))
        s = self.slot(e.obj)
        if s is None:
            return obj.plus(Taint(owned=frozenset({e.name}), unnamed=True))
        return obj.plus(Taint(owners=frozenset({s}), owned=frozenset({e.name})))

    def size_of(self, e: Any) -> Optional[Formula]:
        """The formula of the size of `e` when `e` reads a whole state field (views show sizes)."""
        if isinstance(e, A.Name):
            ref = self.refs.get(id(e))
            if isinstance(ref, tuple) and ref and ref[0] == "table":
                return NOTHING
        if isinstance(e, A.Field) and strip_opt(self.types.get(id(e.obj), ANY)).kind == "player":
            return self.expr(e.obj)
        return None

    def _call(self, e: A.Call) -> Formula:
        ref = self.refs.get(id(e))
        kind = ref[0] if isinstance(ref, tuple) and ref else ""
        if kind == "builtin" and e.name in SIZE_BUILTINS and len(e.args) == 1:
            size = self.size_of(e.args[0])
            if size is not None:
                return size
        if kind == "fn":
            return self.apply(self.summaries.get(e.name, NOTHING), e.args)
        return self.exprs(e.args)

    def apply(self, summary: Formula, args: tuple[Any, ...]) -> Formula:
        """A fn summary applied to call arguments: its owners (parameter slots) become the
        arguments' local slots, its parameter dependencies the arguments' formulas."""
        const = summary.const
        if const.owners:
            def where(o: int) -> Optional[int]:
                return self.slot(args[o]) if o < len(args) else None
            const = const.remap(where)
        out = Formula(const)
        for d in summary.deps:
            if isinstance(d, int) and d < len(args):
                out = out.join(self.expr(args[d]))
        return out

    def _comp(self, e: Any) -> Formula:
        """A comprehension or generator: its variable ranges over many values, so the owner data
        of the variable itself is no one player's and becomes secret in the result."""
        it = self.expr(e.iter)
        slot = self.refs.get(id(e))
        if not isinstance(slot, int):
            return it.join(self.exprs(_comp_parts(e)))
        self.comp[slot] = it
        out = it.join(self.exprs(_comp_parts(e)))
        del self.comp[slot]
        if slot in out.const.owners:
            out = Formula(out.const.remap(lambda o: None if o == slot else o), out.deps)
        return out


def _comp_parts(e: Any) -> tuple[Any, ...]:
    if isinstance(e, A.MapComp):
        return (e.key, e.value, e.cond)
    return (e.elem, e.cond)


# ------------------------------------------------------------------ fn summaries
def _fn_callees(rb: CheckedRulebook, body: Any) -> set[str]:
    return {n.name for n in A.walk(body) if isinstance(n, A.Call)
            and rb.refs.get(id(n), ("",))[0] == "fn"}


def fn_summaries(rb: CheckedRulebook) -> dict[str, Formula]:
    """The formula of every fn's body over its parameters (dependencies: parameter slots only),
    the functions a fn calls first; a recursive group until its summaries stop changing. Worked
    out once per checked rulebook (four analyses ask for them): read them, never change them."""
    got = rb.derived.get("fn_summaries")
    if got is None:
        got = rb.derived["fn_summaries"] = _fn_summaries(rb)
    return got  # type: ignore[no-any-return]


def _fn_summaries(rb: CheckedRulebook) -> dict[str, Formula]:
    bodies = {n: b.expr for n, b in rb.fns.items() if b.expr is not None}
    calls = {n: _fn_callees(rb, e) & set(bodies) for n, e in bodies.items()}
    summaries: dict[str, Formula] = {}
    flow = ExprFlow(rb, summaries, fielded=False)

    def summarise(name: str) -> bool:
        f = flow.expr(bodies[name])
        nparams = len(rb.fns[name].params)
        f = Formula(f.const.remap(lambda o: o if o < nparams else None),
                    frozenset(d for d in f.deps if isinstance(d, int) and d < nparams))
        changed = summaries.get(name) != f
        summaries[name] = f
        return changed

    for group in strongly_connected(calls):
        recursive = len(group) > 1 or group[0] in calls[group[0]]
        for n in group:
            summaries[n] = NOTHING
        for _ in range(100):     # a monotone iteration over a finite lattice: ends long before
            changed = [summarise(n) for n in group]
            if not recursive or not any(changed):
                break
    return summaries


