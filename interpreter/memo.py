"""Remembering what pure fns return while the state cannot change.

A rulebook often computes the same options twice in a row (``let menu = turn_menu(p)``, then
``choose p one of turn_menu(p)``). While the VM runs ops that only rebind local variables (lets,
tests, jumps, decisions, procedure calls and returns: the ops not in `state_changing_pcs`), the
state is fixed, so a fn called again with the same arguments returns the same value. Program.run
switches the memory on for those ops only and empties it before any other op.

Only fns whose value is a fresh value are remembered (built by the call itself, nothing in it
shared with the state, a constant or an argument): a remembered value is copied when it is
handed out again, which is then indistinguishable from computing it anew.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dsl import ast as A
from dsl.checked import CheckedRulebook
from dsl.types import ANY, Type, strip_opt

if TYPE_CHECKING:
    from interpreter.stmts import BodyCompiler

SCALAR = ("int", "bool", "str", "none", "player", "enum")
NEW_LIST_BUILTINS = ("sort", "reverse", "keys", "values", "items", "distinct", "clockwise_from",
                     "flatten")
CHANCE = (A.Roll, A.RandomPick, A.Draw)


def scalar(t: Type) -> bool:
    """Values of type t hold no list or dict."""
    return strip_opt(t).kind in SCALAR


def flat(t: Type) -> bool:
    """t is a list, bag, map or record of scalars."""
    t = strip_opt(t)
    if t.kind in ("list", "bag", "map"):
        return bool(t.args) and all(scalar(a) for a in t.args)
    return t.kind == "record" and all(scalar(f) for f in t.field_types)


def memo_fns(rb: CheckedRulebook, inlined: set[str]) -> list[str]:
    """The fns to remember: not written inline, scalar parameters, a fresh value."""
    chosen = {n for n, b in rb.fns.items() if n not in inlined and b.expr is not None
              and all(scalar(t) for t in b.param_types)}
    while True:
        keep = {n for n in chosen if _fresh(rb, rb.fns[n].expr, chosen)}
        if keep == chosen:
            return sorted(chosen)
        chosen = keep


def _fresh(rb: CheckedRulebook, e: Any, fns: set[str]) -> bool:
    """Is every list and dict in the value of e made by evaluating e?"""
    t = rb.types.get(id(e)) or ANY
    if isinstance(e, A.NoneLit) or scalar(t):
        return True
    if isinstance(e, A.ListLit):
        return all(_fresh(rb, x, fns) for x in e.items)
    if isinstance(e, A.MapLit):
        record = rb.refs.get(id(e), ("map",))[0] == "record"
        return all((record or _fresh(rb, en.key, fns)) and _fresh(rb, en.value, fns)
                   for en in e.entries)
    if isinstance(e, A.ListComp):
        return _fresh(rb, e.elem, fns)
    if isinstance(e, A.MapComp):
        return _fresh(rb, e.key, fns) and _fresh(rb, e.value, fns)
    if isinstance(e, A.Range):
        return True
    if isinstance(e, A.IfExpr):
        return _fresh(rb, e.then, fns) and _fresh(rb, e.else_, fns)
    if isinstance(e, A.BinOp):                 # list + list, bag + bag: a new one of scalars
        return flat(t)
    if isinstance(e, A.Call):
        if rb.refs.get(id(e), ("",))[0] == "fn":
            return e.name in fns
        return e.name in NEW_LIST_BUILTINS and flat(t)
    return False


def state_changing_pcs(bc: "BodyCompiler") -> set[int]:
    """The pcs of a body's ops that may change the state (or anything a fn can read)."""
    out: set[int] = set()

    def walk(b: A.Block) -> None:
        for j, st in enumerate(b.stmts):
            if isinstance(st, (A.If, A.For, A.Repeat, A.While)):
                for sub in _blocks_of(st):
                    walk(sub)
            elif _changes_state(bc, st):
                end = bc.pc_of[id(b.stmts[j + 1])] if j + 1 < len(b.stmts) \
                    else bc.block_end[id(b)]
                out.update(range(bc.pc_of[id(st)], end))
    assert bc.body.block is not None
    walk(bc.body.block)
    return out


def _changes_state(bc: "BodyCompiler", st: Any) -> bool:
    if isinstance(st, A.Let):
        return isinstance(st.rhs, CHANCE)
    if isinstance(st, A.Assign):
        return isinstance(st.rhs, CHANCE) or st.target.steps != () or \
            bc.rb.refs[id(st.target)][0] != "local"
    return not isinstance(st, (A.Log, A.Break, A.Return, A.CallStmt))


def _blocks_of(st: Any) -> list[A.Block]:
    if isinstance(st, A.If):
        return [st.then, *(e.body for e in st.elifs), *([st.else_] if st.else_ else [])]
    return [st.body]
