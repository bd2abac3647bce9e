"""Which fns the expression compiler writes inline, and what a body evaluates first."""
from __future__ import annotations

from collections import Counter
from typing import Any, Optional

from mercator.dsl import ast as A
from mercator.dsl.checked import Body, CheckedRulebook
from mercator.dsl.graphs import strongly_connected

INLINE_MAX_NODES = 40    # a fn whose body has at most this many nodes is written inline


def calls_of(rb: CheckedRulebook, e: Any) -> tuple[A.Call, ...]:
    """The calls of fns in expression e (none if e is None), worked out once per expression
    of the rulebook (the compile asks of each fn's body again and again: `repeated` follows
    the fns written inline into every body that calls them)."""
    if e is None:
        return ()
    known = rb.derived.get("calls_of")
    if known is None:
        known = rb.derived["calls_of"] = {}
    got = known.get(id(e))
    if got is None:
        refs = rb.refs
        got = known[id(e)] = tuple(n for n in A.walk(e) if isinstance(n, A.Call)
                                   and refs.get(id(n), ("",))[0] == "fn")
    return got


def fn_calls(rb: CheckedRulebook) -> dict[str, set[str]]:
    """The fns each fn's body calls (one table per rulebook: read it, never change it)."""
    got = rb.derived.get("fn_calls")
    if got is None:
        got = rb.derived["fn_calls"] = {name: {c.name for c in calls_of(rb, b.expr)}
                                        for name, b in rb.fns.items()}
    return got


def recursive(rb: CheckedRulebook) -> set[str]:
    """The fns that may call themselves, directly or through others: those on a cycle of
    calls."""
    calls = fn_calls(rb)
    return {f for comp in strongly_connected(calls) for f in comp
            if len(comp) > 1 or f in calls[f]}


def inlinable(rb: CheckedRulebook) -> set[str]:
    """The fns small enough to write inline that never call themselves, even indirectly."""
    rec = recursive(rb)
    return {f for f, b in rb.fns.items()
            if sum(1 for _ in A.walk(b.expr)) <= INLINE_MAX_NODES and f not in rec}


LOOPS = (A.ListComp, A.MapComp, A.GenCall)
EXPAND_DEPTH = 6         # how deep `repeated` follows fns written inline (as codegen writes them)


def walking_fns(rb: CheckedRulebook, small: set[str], kinds: tuple = LOOPS) -> set[str]:
    """The fns whose body walks a collection (a node of `kinds`: by default a comprehension
    or an aggregate), there or in a small fn it writes inline."""
    walks: dict[str, bool] = {}
    calls = fn_calls(rb)

    def walks_items(f: str) -> bool:
        if f not in walks:
            b = rb.fns[f].expr
            walks[f] = False               # (small fns never reach themselves)
            walks[f] = b is not None and (
                any(isinstance(n, kinds) for n in A.walk(b))
                or any(walks_items(g) for g in calls[f] if g in small))
        return walks[f]
    return {f for f in rb.fns if walks_items(f)}


def repeated(rb: CheckedRulebook, small: set[str]) -> set[str]:
    """The fns better remembered (memo.py) than written inline: their body walks a collection
    (a comprehension or an aggregate, there or in a fn it writes inline), and some fn's body,
    written out with the fns in `small` inline, calls them more than once with the same
    arguments (Manila's `is_blind_passenger` asks `free_paid_spaces()` twice, and
    `placeable_spaces` a third time). Written inline, each call walks the collection again;
    remembered, the calls made while the state cannot change walk it once. (Calls with other
    arguments would only fill the memory: f(pair[0]) and f(pair[1]) do not count.)"""
    worth = small & walking_fns(rb, small, LOOPS)     # (small fns that walk a collection)

    def arg_keys(c: A.Call, env: Optional[tuple[Any, ...]]) -> Optional[tuple[Any, ...]]:
        """c's arguments as comparable values: in f's own body the argument expressions, in a
        fn written inline its parameters replaced by the caller's arguments (None: unknown)."""
        if env is None:
            return tuple(c.args)
        out = []
        for a in c.args:
            ref: tuple[Any, ...] = rb.refs.get(id(a), ("",)) if isinstance(a, A.Name) else ("",)
            if isinstance(a, (A.IntLit, A.StrLit, A.BoolLit, A.NoneLit)):
                out.append(a)
            elif ref[0] == "local" and isinstance(ref[1], int) and ref[1] < len(env) \
                    and env[ref[1]] is not None:
                out.append(env[ref[1]])
            else:
                return None
        return tuple(out)

    def count(e: Any, env: Optional[tuple[Any, ...]], seen: Counter, depth: int) -> None:
        for c in calls_of(rb, e):
            keys = arg_keys(c, env)
            if keys is not None:
                seen[(c.name, keys)] += 1
            if c.name in small and depth < EXPAND_DEPTH:   # (small fns never reach themselves)
                count(rb.fns[c.name].expr, keys if keys is not None else (),
                      seen, depth + 1)

    out: set[str] = set()
    for b in rb.fns.values():
        seen: Counter = Counter()
        count(b.expr, None, seen, 0)
        out.update(g for (g, _), k in seen.items() if k > 1 and g in worth)
    # ... or the rules call it in more than one fn or body (Manila asks `is_blind_passenger(p)`
    # for the options of a placement and again when placing): the compiled rollout keeps the
    # memory across statements and decisions (rollout.py), so the second call is a hit
    sites: Counter = Counter()         # in how many fns and bodies it is called
    for root in [b.expr for b in rb.fns.values() if b.expr is not None] + [
            x for b in bodies_of(rb) for x in (b.block, getattr(b, "cond", None)) if x is not None]:
        found = calls_of(rb, root)
        sites.update({c.name for c in found})
        same = Counter((c.name, tuple(c.args)) for c in found)   # or twice alike in one body
        out.update(g for (g, _), k in same.items() if k > 1 and g in worth)
    out.update(g for g, k in sites.items() if k > 1 and g in worth)
    # ... or a preference calls it with arguments that are not its option (local 0): the
    # preference is evaluated once per option of a decision, the state fixed, so every call
    # after the first is a hit (Manila's `master_worth(p)` across a menu of 60 bids)
    for pr in rb.prefers:
        for c in calls_of(rb, pr.expr):
            if c.name in worth and not any(uses(a, rb.refs, 0) for a in c.args):
                out.add(c.name)
    return out


def bodies_of(rb: CheckedRulebook) -> list[Body]:
    """Every body, in the order of their ids (build.py, from 1): the setup, the phases, the
    procs, the triggers, the actions."""
    return [*([rb.setup] if rb.setup is not None else []), *rb.phases, *rb.procs.values(),
            *rb.triggers, *rb.actions]


def uses(e: Any, refs: dict, slot: int) -> int:
    """How many times expression e reads the local slot (a parameter of the fn e is part of)."""
    return sum(1 for n in A.walk(e) if isinstance(n, A.Name) and refs.get(id(n)) == ("local", slot))


def operands(e: Any) -> list[Any]:
    """The direct subexpressions of e, the one its generated code evaluates first first (of a
    comprehension or a generator call, only its iterable: the rest is evaluated per item);
    none for a leaf."""
    if isinstance(e, (A.ListComp, A.MapComp, A.GenCall)):
        return [e.iter]
    if isinstance(e, A.IfExpr):
        return [e.cond, e.then, e.else_]
    if isinstance(e, (A.Or, A.And, A.Compare, A.BinOp)):
        return [e.left, e.right]
    if isinstance(e, (A.Not, A.Neg)):
        return [e.operand]
    if isinstance(e, A.In):
        return [e.item, e.coll]
    if isinstance(e, A.Range):
        return [e.lo, e.hi]
    if isinstance(e, A.Field):
        return [e.obj]
    if isinstance(e, A.Index):
        return [e.obj, e.key]
    if isinstance(e, A.Call):
        return list(e.args)
    return list(e.items) if isinstance(e, A.ListLit) else []


def first_evaluated(e: Any, refs: dict) -> tuple[Optional[Any], bool]:
    """The leaf node that the generated code of e evaluates before anything else (or None), and
    whether it is inside a comprehension's iterable."""
    in_iter = False
    while not isinstance(e, (A.Name, A.IntLit, A.StrLit, A.BoolLit, A.NoneLit)):
        first = operands(e)
        if not first:
            return None, in_iter
        in_iter = in_iter or isinstance(e, (A.ListComp, A.MapComp, A.GenCall))
        if isinstance(e, A.Call) and e.name == "index_of" and isinstance(first[0], A.Name) \
                and refs.get(id(first[0]), ("",))[0] == "enum":
            e = e.args[1]              # written as its second argument alone
        else:
            e = first[0]
    return e, in_iter
