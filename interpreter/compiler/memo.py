"""Remembering what pure fns return while the state cannot change.

A rulebook often computes the same options twice in a row (``let menu = turn_menu(p)``, then
``choose p one of turn_menu(p)``). While the VM runs ops that only rebind local variables (lets,
tests, jumps, decisions, procedure calls and returns: the ops not in `state_changing_pcs`), the
state is fixed, so a fn called again with the same arguments returns the same value. Program.run
switches the memory on for those ops only, and empties it as it switches it off before any
other op. The memory (engine/memory.py, `Memo`) keeps one table per remembered fn.

A remembered value is handed out again as it is, not copied: no expression changes a value in
place, and whatever keeps one (a local, a field, a decision's chosen option) keeps a copy, as
it does of any fn's value (codegen.is_shared). So a value that shares parts with a constant
or the state may be remembered too: a constant never changes, and the state's part changes
only by a statement that writes a field the fn reads, which forgets the value first (the
VM empties the memory before any such op).

The compiled rollout (rollout.py) keeps the memory on throughout and, after a statement that
changes the state, forgets only the values of fns that read what it changed (`fn_reads`).

Fns that read no state at all (`state_free_fns`: only their parameters, constants and other such
fns) are remembered for the whole life of the Program instead, across ops, decisions and games,
in a `FnCache` of bounded size: their values are then never in the per-op memory.
"""
from __future__ import annotations

import marshal
from typing import TYPE_CHECKING, Any

from mercator.dsl import ast as A
from mercator.dsl.builtins import ITEM_GEN_BUILTINS
from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.graphs import strongly_connected
from mercator.dsl.types import ANY, Type, strip_opt
from mercator.interpreter.compiler.inline import fn_calls, walking_fns
from mercator.interpreter.engine.builtins import RUNTIME_BUILTINS
from mercator.interpreter.engine.limits import MAX_COLLECTION

if TYPE_CHECKING:
    from mercator.interpreter.compiler.stmts import BodyCompiler

SCALAR = ("int", "bool", "str", "none", "player", "enum")
NEW_LIST_BUILTINS = ("sort", "reverse", "keys", "values", "items", "distinct", "clockwise_from",
                     "flatten")
CHANCE = (A.Roll, A.RandomPick, A.Draw)
WALKS = (A.ListComp, A.MapComp, A.GenCall, A.Range)      # nodes that walk a collection
SHARED = "shared"          # a value's part may be (in) the state or a constant
STATE_FREE_NODES = (A.IntLit, A.StrLit, A.BoolLit, A.NoneLit, A.Name, A.ListLit, A.ListComp,
                    A.MapComp, A.Entry, A.MapLit, A.IfExpr, A.Or, A.And, A.Not, A.Compare, A.In,
                    A.Range, A.BinOp, A.Neg, A.Field, A.Index, A.Call, A.GenCall)
STATE_FREE_REFS = ("local", "const", "member", "enum")     # names that are not the state
STATE_BUILTINS = ("clockwise_from", "next_player")         # built-ins that read the players
FN_CACHE_BYTES = 8 * MAX_COLLECTION   # all of a program's long-lived fn values (their size
                                      # marshalled)
FN_CACHE_ENTRY = 200                  # what one remembered value costs beyond its bytes


def scalar(t: Type) -> bool:
    """Values of type t hold no list or dict."""
    return strip_opt(t).kind in SCALAR


def flat(t: Type) -> bool:
    """t is a list, bag, map or record of scalars."""
    t = strip_opt(t)
    if t.kind in ("list", "bag", "map"):
        return bool(t.args) and all(scalar(a) for a in t.args)
    return t.kind == "record" and all(scalar(f) for f in t.field_types)


def memo_fns(rb: CheckedRulebook, small: set[str], again: "set[str] | None" = None) -> list[str]:
    """The fns to remember: scalar parameters, and either too big to write
    inline (not in `small`), or in `again` (small, but walking a collection and called more
    than once in one evaluation: inline.repeated), or calling such a fn (directly or through
    small ones)."""
    calls = fn_calls(rb)
    heavy: dict[str, bool] = {}

    def is_heavy(f: str) -> bool:
        if f not in heavy:
            heavy[f] = f not in small       # small fns never call themselves: this ends
            heavy[f] = heavy[f] or any(is_heavy(g) for g in calls[f])
        return heavy[f]
    return sorted(n for n, b in rb.fns.items() if b.expr is not None
                  and (is_heavy(n) or n in (again or ()))
                  and all(scalar(t) for t in b.param_types))


def cached_fns(rb: CheckedRulebook, small: set[str], memo: list[str],
               free: set[str]) -> list[str]:
    """The fns remembered for the Program's life (FnCache): the state-free ones among those
    remembered per op (`memo`), and every other state-free fn that walks a collection, small
    or not, whose parameters are scalars or lists of scalars (Manila's `start_options(loaded)`
    walks 36 pairs for the same three goods each voyage: written inline it walked them at
    every launch), unless it walks nothing but its arguments."""
    walking = walking_fns(rb, small, WALKS)
    parts = shared_parts(rb)

    def keyable(n: str) -> bool:
        """Its parameters can be a key (scalars, or lists of scalars keyed as tuples of their
        items), and its value holds no list given to it (the caller's list, kept in the cache,
        would share with whatever the caller does with it)."""
        types = rb.fns[n].param_types
        return all(scalar(t) or (t.kind == "list" and bool(t.args) and scalar(t.args[0]))
                   for t in types) and \
            not any(i in parts[n] for i, t in enumerate(types) if not scalar(t))

    def own_walks(n: str) -> bool:
        """n calls no fn and walks only its own arguments (Genoa's `completes(ms, y, seen)`):
        its key, their items as tuples, costs about what computing it does, and a search's
        calls seldom repeat one (keeping it made Genoa's search a tenth slower)."""
        b = rb.fns[n]
        nodes = list(A.walk(b.expr))
        walked = [rb.refs.get(id(getattr(x, "iter", None)), ("",)) for x in nodes
                  if isinstance(x, WALKS)]
        return all(r[0] == "local" and r[1] < len(b.params) for r in walked) and \
            not any(isinstance(x, A.Call) and rb.refs.get(id(x), ("",))[0] == "fn"
                    for x in nodes)
    return sorted({n for n in memo if n in free} |
                  {n for n in free & walking if rb.fns[n].expr is not None and keyable(n)
                   and not own_walks(n)})


def state_free_fns(rb: CheckedRulebook) -> set[str]:
    """The fns whose value depends on their arguments alone: their bodies, and those of every fn
    they call, read no table or player field, no `players`, `player_count` or `round_number`,
    no built-in that reads the players, and draw no chance (anything not known to be free of
    the state counts as reading it): those fn_reads finds reading nothing, not even SEATS."""
    return {n for n, r in fn_reads(rb).items() if r is not None and not r}


class FnCache:
    """The values of state-free fns, per fn a table (arguments) -> (value, steps), where steps
    is what computing the value charged to the step budget (charged again on each hit, so the
    budget runs out exactly where it would without the cache). A value is handed out as it is,
    as the per-op memory hands out its values (see the module's docstring: no expression
    changes a value in place, and whatever keeps one keeps a copy); tests/test_fn_cache.py
    checks that a rulebook changing its copy leaves the remembered value as it was, across
    games. All tables together hold at most `limit` bytes (FN_CACHE_ENTRY per entry plus the
    size of its value marshalled, and its strings); when a value does not fit, every table is
    emptied first (a value alone beyond the limit is not kept)."""

    def __init__(self, limit: int = FN_CACHE_BYTES):
        self.limit = limit
        self.left = limit
        self.tables: list[dict] = []

    def table(self) -> dict:
        """A new, empty table for one fn."""
        t: dict = {}
        self.tables.append(t)
        return t

    def keep(self, table: dict, key: tuple, value: Any, steps: int,
             container: bool = False) -> None:
        """Remember value under key in table, within the limit (a container counted by the size
        of its marshalled bytes)."""
        size = FN_CACHE_ENTRY + sum(len(k) if type(k) is str else 8 * len(k)
                                    for k in key if type(k) in (str, tuple))
        if container:
            size += len(DUMPS(value))
        elif type(value) is bytes:
            size += len(value)
        if size > self.left:
            if size > self.limit:
                return
            self.clear()
        self.left -= size
        table[key] = (value, steps)

    def clear(self) -> None:
        """Forget every value."""
        for t in self.tables:
            t.clear()
        self.left = self.limit

    def size(self) -> int:
        """How many values are remembered, in all tables."""
        return sum(len(t) for t in self.tables)


DUMPS = marshal.dumps   # (a container's size)


def shared_parts(rb: CheckedRulebook) -> dict[str, set]:
    """Per fn, where lists and dicts in its value may come from rather than being made by the
    call: parameter indices, and SHARED for the state or a constant (empty: a fresh value)."""
    deps: dict[str, set] = {n: set() for n in rb.fns}

    def of(e: Any, env: dict[int, set]) -> set:
        """The sources of e's containers, with env the sources of the local slots."""
        t = rb.types.get(id(e)) or ANY
        if isinstance(e, (A.NoneLit, A.IntLit, A.BoolLit, A.StrLit, A.Range)) or scalar(t):
            return set()
        if isinstance(e, A.Name):
            ref = rb.refs.get(id(e), ("",))
            if ref[0] == "local":
                return set(env.get(ref[1], {SHARED}))
            return set() if ref == ("builtin", "players") else {SHARED}
        if isinstance(e, A.Field):
            obj_t = strip_opt(rb.types.get(id(e.obj)) or ANY)
            return {SHARED} if obj_t.kind in ("player", "any") else of(e.obj, env)
        if isinstance(e, A.Index):
            return of(e.obj, env)
        if isinstance(e, A.ListLit):
            return set().union(*(of(x, env) for x in e.items))
        if isinstance(e, A.MapLit):
            return set().union(*(of(en.value, env) for en in e.entries))
        if isinstance(e, (A.ListComp, A.MapComp, A.GenCall)):
            inner = dict(env)
            inner[rb.refs[id(e)]] = of(e.iter, env)
            if isinstance(e, A.MapComp):
                return of(e.key, inner) | of(e.value, inner)
            if isinstance(e, A.GenCall) and e.name in ITEM_GEN_BUILTINS:
                return of(e.elem, inner) | inner[rb.refs[id(e)]]   # it hands out the items
            return of(e.elem, inner)
        if isinstance(e, A.IfExpr):
            return of(e.then, env) | of(e.else_, env)
        if isinstance(e, (A.BinOp, A.And, A.Or)):
            if isinstance(e, A.BinOp) and flat(t):
                return set()               # list + list, bag + bag: a new one of scalars
            return of(e.left, env) | of(e.right, env)
        if isinstance(e, A.Call):
            args = [of(a, env) for a in e.args]
            if rb.refs.get(id(e), ("",))[0] == "fn":
                return set().union(*(args[d] if isinstance(d, int) else {d}
                                     for d in deps[e.name]))
            if e.name in NEW_LIST_BUILTINS and flat(t):
                return set()
            if e.name in NEW_LIST_BUILTINS or e.name in ("first", "last", "some", "max", "min"):
                return set().union(*args)  # the elements of its arguments
        return {SHARED}
    changed = True
    while changed:                 # grows from "all fresh" until nothing changes (recursion)
        changed = False
        for n, b in rb.fns.items():
            if b.expr is None:
                continue
            found = of(b.expr, {i: {i} for i in range(len(b.params))})
            if found != deps[n]:
                deps[n] = found
                changed = True
    return deps


def state_changing_pcs(bc: "BodyCompiler") -> set[int]:
    """The pcs of a body's ops that may change the state (or anything a fn can read)."""
    out: set[int] = set()

    def walk(b: A.Block) -> None:
        for j, st in enumerate(b.stmts):
            if isinstance(st, (A.If, A.For, A.Repeat, A.While)):
                for sub in blocks_of(st):
                    walk(sub)
            elif _changes_state(bc, st):
                end = bc.pc_of[id(b.stmts[j + 1])] if j + 1 < len(b.stmts) \
                    else bc.block_end[id(b)]
                out.update(range(bc.pc_of[id(st)], end))
    walk(bc.top)
    return out


def _changes_state(bc: "BodyCompiler", st: Any) -> bool:
    if isinstance(st, A.Let):
        return isinstance(st.rhs, CHANCE)
    if isinstance(st, A.Assign):
        return isinstance(st.rhs, CHANCE) or st.target.steps != () or \
            bc.rb.refs[id(st.target)][0] != "local"
    return not isinstance(st, (A.Log, A.Break, A.Return, A.CallStmt))


def blocks_of(st: Any) -> list[A.Block]:
    """The statement lists directly inside a statement."""
    if isinstance(st, A.If):
        return [st.then, *(e.body for e in st.elifs), *([st.else_] if st.else_ else [])]
    if isinstance(st, (A.For, A.Repeat, A.While)):
        return [st.body]
    return []


SEATS = ("seats",)    # fn_reads: the fn reads what no statement changes, yet not a value alone


def fn_reads(rb: CheckedRulebook) -> "dict[str, frozenset | None]":
    """Per fn, the state it may read: ("t", index) for a table field, ("p", name) for a player
    field, through the fns it calls too; None (anything) when that is not known (a node
    outside STATE_FREE_NODES, a field of something neither a record nor a player). `players`,
    `player_count` and the built-ins reading the seats read nothing a rule can change;
    `round_number` changes only between rounds, where the memory is emptied anyway: they (and
    any name or call not known to be free of the state) are SEATS, which no statement writes,
    so that state_free_fns can tell them from reading nothing."""
    own = {n: _reads_of(rb, b.expr) if b.expr is not None else None for n, b in rb.fns.items()}
    out: dict[str, "frozenset | None"] = {}
    calls = {n: mine[1] if mine is not None else set() for n, mine in own.items()}
    for comp in strongly_connected(calls):      # callees before their callers
        mine = [own.get(n) for n in comp]       # (a cycle of calls reads what each part reads)
        called = [out[g] for m in mine if m is not None for g in m[1] if g not in comp]
        known = [m[0] for m in mine if m is not None] + [r for r in called if r is not None]
        out.update(dict.fromkeys(comp, frozenset().union(*known)
                                 if len(known) == len(mine) + len(called) else None))
    return {n: out[n] for n in rb.fns}


def _reads_of(rb: CheckedRulebook, e: Any) -> "tuple[set, set[str]] | None":
    """(state e reads itself, fns e calls), or None when e may read anything."""
    fields: set = set()
    calls: set[str] = set()
    nodes = list(A.walk(e))
    labels = {id(en.key) for n in nodes if isinstance(n, A.MapLit)
              and rb.refs.get(id(n), ("",))[0] == "record" for en in n.entries}
    for n in nodes:
        if not isinstance(n, STATE_FREE_NODES):
            return None
        ref = rb.refs.get(id(n), ("",))
        if isinstance(n, A.Name):
            if ref[0] == "table":
                fields.add(("t", ref[1]))
            elif ref[0] not in STATE_FREE_REFS and id(n) not in labels:
                fields.add(SEATS)
        elif isinstance(n, A.Field):
            kind = strip_opt(rb.types.get(id(n.obj)) or ANY).kind
            if kind == "player":
                fields.add(("p", n.name))
            elif kind != "record":
                return None
        elif isinstance(n, A.Call) and ref[0] == "fn":
            calls.add(n.name)
        elif isinstance(n, A.Call) and (ref[0] != "builtin" or n.name not in RUNTIME_BUILTINS
                                        or n.name in STATE_BUILTINS):
            fields.add(SEATS)
    return fields, calls
