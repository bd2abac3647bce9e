"""Compiling checked expressions into Python source, then into functions ``f(state, locals)``.

Each expression becomes one Python lambda (no per-node closure calls); each pure ``fn`` becomes a
Python function of its parameters. Constants and helpers live in one shared namespace.
"""
from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from mercator.dsl import ast as A
from mercator.dsl.builtins import ITEM_GEN_BUILTINS
from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.types import Type, strip_opt
from mercator.interpreter.engine.builtins import RUNTIME_BUILTINS
from mercator.interpreter.engine.exprs import RuleError, bag_add, bag_sub, rule_failure, to_bag
from mercator.interpreter.compiler.inline import (calls_of, first_evaluated, fn_calls, inlinable,
                                                   operands, recursive, repeated, uses)
from mercator.interpreter.engine import limits
from mercator.interpreter.engine.memory import Memo
from mercator.interpreter.engine.program import RUN_FAILURES
from mercator.interpreter.compiler.memo import (FnCache, cached_fns, flat,
                                                 memo_fns, scalar, state_free_fns)
from mercator.interpreter.engine.values import deep_copy, flat_copy
from mercator.interpreter.engine.convert import converter
from mercator.dsl.errors import MercatorError

Fn = Callable[[Any, list], Any]


def _fdiv(a: int, b: int) -> int:
    if b == 0:
        raise RuleError("division by zero")
    return a // b


def _mod(a: int, b: int) -> int:
    if b == 0:
        raise RuleError("modulo by zero")
    return a % b


def _recharge(n: int, _m: list = limits.METER) -> bool:
    """Charge again the n steps a value read from a cell took to compute (CodeGen._shared)."""
    _m[0] -= n
    if _m[0] < 0:
        limits.exhausted()
    return True


def _where(e: Any) -> str:
    """The name generated code for e is compiled under: where e is in the rulebook (what a
    profiler or a traceback shows)."""
    sp = getattr(e, "span", None)
    if sp is None or sp is A.NOSPAN:
        return "<rulebook expression>"
    return f"<rulebook expression {os.path.basename(sp.path)}:{sp.line}>"


def _of_nothing(name: str) -> Callable[[], Any]:
    """What `min(xs or _nomin())` calls when xs is empty (or none): the built-in's error."""
    def fail() -> Any:
        raise RuleError(f"{name}() of nothing")
    return fail


def _extreme_of(name: str, xs: str) -> str:
    """The code of min/max of the collection code xs (a builtin call, no wrapper's frame)."""
    return f"{name}(({xs}) or _no{name}())"


INLINE_MAX_DEPTH = 6     # small fns are written inline up to this depth of fns in fns
CHECKED_READS = {"some": ("{} is not None", "{}"), "first": ("{}", "{}[0]"),
                 "last": ("{}", "{}[-1]")}   # name: (test that it can be read, the read)
TOO_DEEP = (SyntaxError, RecursionError, MemoryError)    # Python refusing generated code
SPLIT_DEPTH = 24         # last resort for deep expressions: a function per this many levels
SIMPLE_REFS = ("local", "const", "member", "table")
UNROLL = 16              # a walk over an enum of at most this many members written out
_LITERAL = re.compile(r"-?\d+|\(-\d+\)|None|True|False")   # code that is a literal
SMALL_INT = 1 << 16      # a product with an int below this in size needs no overflow check
FN_CACHE = True          # remember state-free fns' values for the Program's life (memo.py)
SHARE = True             # compute a loop-invariant fn call or aggregate once per loop (_Loop)
FRESH = (A.ListLit, A.MapLit, A.ListComp, A.Range, A.IntLit, A.StrLit, A.BoolLit, A.NoneLit)
FOLDABLE = (A.Name, A.Index, A.In, A.Compare, A.BinOp, A.Neg, A.Not, A.And, A.Or, A.IfExpr,
            A.Field, A.Call)           # nodes whose value a written-out walk may know (_folded)
FOLDABLE_CALLS = ("len", "abs", "min", "max")
WRITTEN_OUT_CALLS = ("any", "all", "sum", "count", "min", "max")   # over a small enum
_NOFOLD = object()
# Python's code objects of generated texts, by (text, name, mode), for the process: a rulebook
# compiled again after an edit (`mercator check --watch`, an editor's process, a variant beside
# its base) has most of its texts as before, and Python's compile() was a fifth of a Manila
# compile. A code object never changes; each Program binds its own functions to it.
_CODES: dict[tuple[str, str, str], Any] = {}
CODES_KEPT = 4096         # (about nine rulebooks: the shipped ones have 380-480 texts each)


def _int_leaves(v: Any, out: list[int]) -> bool:
    """Put the size of every int of constant v (an int, or a list or map of them, nested)
    into out; False if v holds anything else (or an empty collection)."""
    if type(v) is int:
        out.append(abs(v))
        return True
    if isinstance(v, dict):
        v = list(v.values())
    return isinstance(v, list) and bool(v) and all(_int_leaves(x, out) for x in v)


STATE_LISTS = (("s.table[", "_T[", "_T = s.table; "), ("s.players[", "_P[", "_P = s.players; "))
HOIST_AT = 3             # reads of s.table (s.players) from which a function reads it once
_COMPOUND = re.compile(r"(if|while|for|with|try)\b")    # a statement `_T = ...;` cannot precede


def hoist_state(src: str) -> str:
    """The source of one generated function `def NAME(s, ...):` with `s.table` and
    `s.players` read once, into locals, at the start of its first statement (on that line,
    so that line numbers keep their ops), where the body reads them at least HOIST_AT times.
    A state's lists are never replaced (State sets them once), so the local is the list."""
    head, sep, body = src.partition("\n")
    if not sep or not head.startswith("def ") or "(s" not in head:
        return src
    first, sep2, rest = body.partition("\n")
    if first.rstrip().endswith(":") or _COMPOUND.match(first.lstrip()):
        return src                     # (a compound statement takes no prefix)
    indent = first[:len(first) - len(first.lstrip())]
    prefix = ""
    for read, local, bind in STATE_LISTS:
        if body.count(read) >= HOIST_AT:
            body = body.replace(read, local)
            prefix += bind
    if not prefix:
        return src
    first, sep2, rest = body.partition("\n")
    return f"{head}\n{indent}{prefix}{first.lstrip()}{sep2}{rest}"


_TABLE_FIELD = re.compile(r"s\.table\[(\d+)\]")
FIELD_HOIST_AT = 3       # reads of one table field from which a statement reads it once


def hoist_fields(code: str) -> tuple[str, str]:
    """(prefix, code) for the code of an expression that one simple statement evaluates: each
    table field the code reads at least FIELD_HOIST_AT times read once, into a local `_TFn`,
    by the prefix (`_TF8 = s.table[8]; `), which goes before the statement on its line.
    Reading a table field cannot fail (the table holds every field) and an expression changes
    no state, so the field holds the same value everywhere in the code; reading it early
    changes nothing but the cost (a comprehension inside the code reads the local as a
    closure's)."""
    prefix = ""
    for n, k in Counter(_TABLE_FIELD.findall(code)).items():
        if k >= FIELD_HOIST_AT:
            code = code.replace(f"s.table[{n}]", f"_TF{n}")
            prefix += f"_TF{n} = s.table[{n}]; "
    return prefix, code


def copier(t: Type) -> str:
    """The generated code's copy function for a value of type t: "_cp" (shallow, enough when
    it holds only scalars) or "_dc" (deep)."""
    return "_cp" if flat(strip_opt(t)) else "_dc"


def is_container(t: Type) -> bool:
    """Values of these types are mutable Python lists/dicts at run time."""
    return strip_opt(t).kind in ("list", "map", "bag", "record", "any")


def is_shared(e: Any, t: Type) -> bool:
    """True when e's value may be a container that the state (or a constant) also holds: any
    container but a freshly built one, and a freshly built list or map whose items are
    containers read from elsewhere (`[p.hand]` must not share p.hand)."""
    if not is_container(t):
        return False
    if not isinstance(e, FRESH):
        return True
    return isinstance(e, (A.ListLit, A.MapLit, A.ListComp)) and _holds_containers(t)


def _holds_containers(t: Type) -> bool:
    t = strip_opt(t)
    if t.kind == "list":
        return is_container(t.elem)
    if t.kind == "map":
        return is_container(t.value)
    if t.kind == "record":
        return any(is_container(ft) for ft in (t.field_types or ()))
    return t.kind == "any"


def _bag_lit(d: dict) -> dict:
    return {k: n for k, n in d.items() if n > 0}


class BuildError(MercatorError):
    """A rule the program cannot be built from (too deeply nested, or a failing constant)."""

    def __init__(self, message: str, span: A.Span):
        self.message = message
        self.span = span
        super().__init__(f"{span}: {message}")


_CALL = re.compile(r"[\w\]]\(")                    # code that calls something
_CALLED = re.compile(r"([\w\]]+)\(")                # ... and what it calls
UNCHARGED_CALLS = ("len", "sum", "values", "abs", "min", "max", "get",   # never charge a step
                   "_nomin", "_nomax")
_NAMES = re.compile(r"\b(?:v\d+_\d+|_w\w*|_lc)\b")   # comprehension variables, temporaries
_BOUND_FOR = re.compile(r"\bfor (v\d+_\d+) in\b")    # ... bound by a comprehension in code
_BOUND_W = re.compile(r"\b(_w\w*|_lc) :=")            # ... bound by ':=' in code


@dataclass(slots=True, eq=False)
class _Loop:
    """A comprehension being written: its Python variable, whether Python allows ':=' where
    it stands (not inside another one's iterable), and the cells of the code it computes
    once (key -> cell variable; see CodeGen._shared)."""

    var: str
    can_init: bool
    cells: dict[Any, str] = field(default_factory=dict)


class CodeGen:
    """Generates and compiles Python code for expressions, using the checker's tables."""

    def __init__(self, rb: CheckedRulebook, fn_cache: Optional[bool] = None,
                 share: Optional[bool] = None, native: Any = None):
        self.rb = rb
        # compiler/native.py's link, when the generated code is compiled by Cython: it records
        # each piece's source (the first build) or hands out the compiled piece (the second)
        self.native = native
        self.share = SHARE if share is None else share
        self._bounding: set[str] = set()    # the fns _bound is reading (recursion)
        self._loops: list[_Loop] = []      # comprehensions being written, outermost first
        self._ncells = 0
        self.consts: dict[str, Any] = {}
        self.pfield = {f.name: i for i, f in enumerate(rb.player_fields)}
        self.ns: dict[str, Any] = {
            "RuleError": RuleError, "_fdiv": _fdiv, "_mod": _mod, "_bag_add": bag_add,
            "_bag_sub": bag_sub, "_to_bag": to_bag, "_dc": deep_copy,
            "_cp": flat_copy, "_bag_lit": _bag_lit,
            "_nomax": _of_nothing("max"), "_nomin": _of_nothing("min"),
            "_BUD": limits.METER, "_exh": limits.exhausted, "_ch": limits.charged,
            "_range": limits.int_range, "_cat": limits.concat, "_mul": limits.mul,
            "_cat_long": limits.concat_long,
            "_rech": _recharge, "_bag_items": limits.bag_walk,   # bag_items within the size limit
            "_lrange": limits.lazy_range, "_MAXOPT": limits.MAX_OPTIONS,
            "_chkopt": limits.check_options,
        }
        if native is not None and native.globals is not None:
            native.globals.update(self.ns)     # the compiled module's globals are the namespace
            self.ns = native.globals
        for name, impl in RUNTIME_BUILTINS.items():
            self.ns["B_" + name] = impl
        self._nconst = 0
        self._const_ids: dict[int, str] = {}
        self.vars: dict[int, str] = {}     # local slot -> Python variable (comprehensions, fns)
        self._nvars = 0                    # comprehension variables made so far (unique names)
        small = inlinable(rb)
        memo = memo_fns(rb, small, repeated(rb, small) if self.share else None)
        self._inlinable = small - set(memo)
        free = state_free_fns(rb) if (FN_CACHE if fn_cache is None else fn_cache) else set()
        self.cached = cached_fns(rb, small, memo, free)   # remembered for the Program's life
        self._inlinable -= set(self.cached)
        self.memo = [n for n in memo if n not in free]  # fns whose values are remembered ...
        self.fn_cache = FnCache()
        self.recursive = recursive(rb)     # fns whose calls are charged to the step budget
        self._split = False                # last resort: deep expressions split into functions
        self._gdepth = 0                   # nesting of gen() calls (for splitting)
        self._free = 0                     # uncharged comprehensions being written, one in another
        self._in_fn = False                # writing a fn's body (its comprehensions are charged)
        self._nsplit = 0
        self.memo_on: list[Optional[Memo]] = [None]  # ... in this Memo, while it is here
        self.ns["_MEMO"] = self.memo_on
        self.ns["_NO"] = object()
        self._depth = 0                    # fns being written inline, one in another
        self._in_iter = 0                  # > 0 while writing a comprehension's iterable
        self._bind: dict[int, str] = {}    # Name node -> ':=' binding its argument (inlining)
        self._nbind = 0
        self._unrolling = 0                # > 0 while writing a walk out member by member
        self._member_slots: set[int] = set()  # ... the local slots that hold its member there
        self._evaluating = 0               # > 0 while writing code only to evaluate it now

    # -- public interface
    def type_of(self, e: Any) -> Type:
        """Static type of an expression node."""
        return self.rb.types.get(id(e)) or Type("any")

    def define_consts(self) -> None:
        """Evaluate the rulebook's constants in declaration order, all of them together within
        limits.CONST_STEP_BUDGET steps; BuildError (at the constant) if one fails."""
        limits.start(limits.CONST_STEP_BUDGET)
        try:
            for c in self.rb.consts:
                f = self.compile(c.value)
                try:
                    v = limits.check_int(f(None, []))
                except RUN_FAILURES as exc:
                    if not rule_failure(exc):
                        raise
                    if isinstance(exc, RecursionError):
                        why = "fns call each other too deeply"
                    elif isinstance(exc, MemoryError):
                        why = "out of memory"
                    elif "budget" in str(exc):
                        why = (f"evaluating the constants takes more than the "
                               f"{limits.CONST_STEP_BUDGET:,} steps they may take")
                    else:
                        why = str(exc)
                    raise BuildError(f"constant '{c.name}' cannot be computed: {why}",
                                     c.span) from None
                self.consts[c.name] = v
                self.ns["C_" + c.name] = v
        finally:
            limits.start(limits.CONST_STEP_BUDGET)

    def const_fns(self) -> set[str]:
        """The fns the constants' values call, directly or through other fns (those that must
        be defined before the constants are computed)."""
        calls = fn_calls(self.rb)
        todo = [n.name for c in self.rb.consts for n in calls_of(self.rb, c.value)]
        out: set[str] = set()
        while todo:
            n = todo.pop()
            if n not in out and n in self.rb.fns:
                out.add(n)
                todo.extend(calls[n])
        return out

    def define_fns(self, only: Optional[set[str]] = None) -> None:
        """Compile every pure fn (or those in `only`) into a Python function F_<name>(s,
        *params)."""
        self.fn_cache = FnCache()      # (the values of a previous definition go with it)
        self.ns["_FCK"] = self.fn_cache.keep
        for name, b in self.rb.fns.items():
            if only is not None and name not in only:
                continue
            try:
                code = self.build(lambda: hoist_state(self._fn_source(name, b)), f"<fn {name}>",
                                  "exec")
            except TOO_DEEP:
                raise BuildError(f"fn '{name}' is nested too deeply to be run (write it in "
                                 "smaller parts)", b.span) from None
            exec(code, self.ns)

    def _fn_source(self, name: str, b: Any) -> str:
        params = [f"v{i}" for i in range(len(b.params))]
        self.vars = {i: p for i, p in enumerate(params)}
        self._in_fn, self._free = True, 0
        try:
            body = self.gen(b.expr)
        finally:
            self._in_fn = False
        self.vars = {}
        src = f"def F_{name}(s, {', '.join(params)}):\n"
        charge = "    _BUD[0] -= 1\n    if _BUD[0] < 0: _exh()\n" if name in self.recursive else ""
        if name in self.cached:
            return src + self._cached_source(b, params, charge, body)
        src += charge                  # each call of a recursive fn is a step
        pre, body = hoist_fields(body)
        if name in self.memo:          # see interpreter/memo.py: per fn, arguments -> value
            key = params[0] if len(params) == 1 else f"({''.join(p + ', ' for p in params)})"
            i = self.memo.index(name)
            return src + (f"    m = _MEMO[0]\n    if m is None:\n        {pre}return {body}\n"
                          f"    d = m[{i}]\n"
                          f"    r = d.get({key}, _NO)\n    if r is _NO:\n"
                          f"        if not d: m.touched.append(d)\n"
                          f"        {pre}r = d[{key}] = {body}\n    return r\n")
        return src + f"    {pre}return {body}\n"

    def _cached_source(self, b: Any, params: list[str], charge: str, body: str) -> str:
        """The body of a state-free fn remembered in self.fn_cache (see memo.py): a hit charges
        the steps the value took to compute and hands out the value kept (FnCache: as the
        per-op memory does, without a copy); a miss computes it, keeps it, and hands it out."""
        table = f"_FC{len(self.fn_cache.tables)}"
        self.ns[table] = self.fn_cache.table()
        flat = b.result is None or scalar(b.result)
        keys = [p if scalar(t) else f"tuple({p})" for p, t in zip(params, b.param_types)]
        return (f"    k = ({''.join(k + ', ' for k in keys)})\n    r = {table}.get(k)\n"
                f"    if r is not None:\n        _BUD[0] -= r[1]\n"
                f"        if _BUD[0] < 0: _exh()\n"
                f"        return r[0]\n"
                f"    b = _BUD[0]\n{charge}    r = {body}\n"
                f"    _FCK({table}, k, r, b - _BUD[0], {'False' if flat else 'True'})\n"
                f"    return r\n")

    def build(self, source: Callable[[], str], name: str, mode: str) -> Any:
        """Compile the code `source()` writes; should Python refuse it as nested too deeply,
        write it again with no fn written inline, then also with deep parts split off into
        functions of their own (TOO_DEEP again if that is refused too)."""
        saved, loops, depth = dict(self.vars), self._loops, self._depth
        self._loops = []               # (build runs inside gen for a constant collection)
        try:
            try:
                return self._code(source(), name, mode)
            except TOO_DEEP:
                pass
            self._depth, self.vars, self._loops = INLINE_MAX_DEPTH, dict(saved), []
            try:
                return self._code(source(), name, mode)
            except TOO_DEEP:
                self.vars, split, self._split, gdepth = dict(saved), self._split, True, self._gdepth
                self._gdepth, self._loops = 0, []
                try:
                    return self._code(source(), name, mode)
                finally:
                    self._split, self._gdepth = split, gdepth
        finally:
            self._loops, self._depth = loops, depth

    def _code(self, text: str, name: str, mode: str) -> Any:
        """The code object of the generated text (TOO_DEEP if Python refuses it); with the
        native link, the code binding the piece Cython compiled from the same text instead."""
        key = (text, name, mode)
        code = _CODES.get(key)
        if code is None:
            code = compile(text, name, mode)
            if len(_CODES) >= CODES_KEPT:
                _CODES.clear()
            _CODES[key] = code
        if self.native is not None:
            alias = self.native.piece(text, mode)
            if alias is not None:
                return compile(alias, name, mode)
        return code

    def compile(self, e: Any) -> Fn:
        """A function (state, locals) -> value computing e (BuildError, at e, if Python cannot
        compile it even split up)."""
        try:
            return eval(self.build(lambda: f"lambda s, L: {self.gen(e)}",  # type: ignore[no-any-return]
                                   _where(e), "eval"), self.ns)
        except TOO_DEEP:
            raise BuildError("this expression is nested too deeply to be run (write it in "
                             "smaller parts, with 'let' or fns)", e.span) from None

    def source(self, e: Any, names: dict[int, str]) -> str:
        """Python source of e with the local slots in `names` read from those Python names."""
        saved = self.vars
        self.vars = dict(names)
        try:
            return self.gen(e)
        finally:
            self.vars = saved

    # -- generation
    def const(self, v: Any) -> str:
        """A namespace name bound to the value v."""
        key = id(v)
        if key in self._const_ids and self.ns[self._const_ids[key]] is v:
            return self._const_ids[key]
        self._nconst += 1
        name = f"K{self._nconst}"
        self.ns[name] = v
        self._const_ids[key] = name
        return name

    def gen(self, e: Any) -> str:
        """Python source for expression e (converted where the checker marked it, §3.6)."""
        conv = self.rb.refs.get(("convert", id(e)))
        if conv is not None:
            return f"{self.const(converter(*conv))}({self._gen(e)})"
        return self._gen(e)

    def _gen(self, e: Any) -> str:
        if self._unrolling and not self._evaluating and isinstance(e, FOLDABLE) \
                and not isinstance(e, A.Name):
            v = self._folded(e)
            if v is not _NOFOLD:
                return self._literal(v)
        if self._split:
            return self._gen_split(e)
        code: str = getattr(self, "g_" + type(e).__name__)(e)
        return code

    # -- folding: what a walk written out member by member knows before the game starts
    def _folded(self, e: Any) -> Any:
        """The value of e if it can be known now, or _NOFOLD. Known are literals, constants,
        enum members, the member a written-out walk has put in for its variable (and a small
        fn's parameter given such a value), and what is computed from those alone by
        indexing, `in`, comparisons, arithmetic, `not`/`and`/`or`, `if` and len/abs/min/max
        of two: nothing that reads the state, calls a fn, walks a collection or charges a
        step. A value whose computing fails is not known (the error is left to the game, where
        the code would have raised it)."""
        if isinstance(e, (A.IntLit, A.StrLit, A.BoolLit)):
            return e.value
        if isinstance(e, A.NoneLit):
            return None
        if not isinstance(e, FOLDABLE) or ("convert", id(e)) in self.rb.refs:
            return _NOFOLD
        if isinstance(e, A.Name):
            if id(e) in self._bind:
                return _NOFOLD
            ref = self.rb.refs.get(id(e), ("",))
            if ref[0] == "local":
                code = self.local(ref[1])
                return eval(code) if _LITERAL.fullmatch(code) else _NOFOLD
            if ref[0] == "const" and ref[1] in self.consts:
                return self.consts[ref[1]]
            if ref[0] == "member":
                return ref[1]
            if ref[0] == "enum":
                return list(range(len(self.rb.enums[ref[1]].members)))
            return _NOFOLD
        if isinstance(e, A.IfExpr):
            c = self._folded(e.cond)
            if c is _NOFOLD:
                return _NOFOLD
            return self._folded(e.then if c else e.else_)
        if isinstance(e, (A.And, A.Or)):
            left = self._folded(e.left)
            if left is _NOFOLD:
                return _NOFOLD
            if (not left) if isinstance(e, A.And) else bool(left):
                return left
            return self._folded(e.right)
        if isinstance(e, A.Field) and strip_opt(self.type_of(e.obj)).kind != "record":
            return _NOFOLD
        if isinstance(e, A.Call) and (self.rb.refs.get(id(e), ("",))[0] != "builtin" or
                                      e.name not in FOLDABLE_CALLS or
                                      (e.name in ("min", "max") and len(e.args) != 2)):
            return _NOFOLD
        if isinstance(e, A.BinOp) and self.rb.refs.get(id(e)) in (("bagop",), ("listop",)):
            return _NOFOLD
        for child in operands(e):
            if self._folded(child) is _NOFOLD:
                return _NOFOLD
        self._evaluating += 1
        try:
            code = self.gen(e)
            return eval(code, self.ns, {"s": None, "L": None})
        except Exception:          # a rule error, or anything else: not known now
            return _NOFOLD
        finally:
            self._evaluating -= 1

    def _literal(self, v: Any) -> str:
        """Code for a value known before the game (a constant's part stays that constant)."""
        if v is None or type(v) in (bool, str):
            return repr(v)
        if type(v) is int:
            return f"({v})" if v < 0 else str(v)
        return self.const(v)

    def _gen_split(self, e: Any) -> str:
        """gen(e) in the last-resort mode: every SPLIT_DEPTH levels of nesting, the source of a
        subexpression becomes a function of its own, called with the Python locals in scope
        (not where ':=' bindings are involved, which must stay in one function)."""
        self._gdepth += 1
        try:
            code: str = getattr(self, "g_" + type(e).__name__)(e)
        finally:
            self._gdepth -= 1
        if self._gdepth % SPLIT_DEPTH or self._gdepth == 0 or "_w" in code:
            return code
        self._nsplit += 1
        name = f"X{self._nsplit}"
        params = ["s", "L"] + sorted(set(self.vars.values()))
        exec(compile(f"def {name}({', '.join(params)}):\n    return {code}\n", f"<{name}>",
                     "exec"), self.ns)
        return f"{name}({', '.join(params)})"

    def local(self, slot: int) -> str:
        return self.vars.get(slot, f"L[{slot}]")

    def g_IntLit(self, e: Any) -> str:
        return repr(e.value)

    g_StrLit = g_BoolLit = g_IntLit

    def g_NoneLit(self, e: A.NoneLit) -> str:
        return "None"

    def g_Name(self, e: A.Name) -> str:
        if id(e) in self._bind:
            return self._bind[id(e)]
        ref = self.rb.refs[id(e)]
        kind = ref[0]
        if kind == "local":
            return self.local(ref[1])
        if kind == "table":
            return f"s.table[{ref[1]}]"
        if kind == "const":
            v = self.consts.get(ref[1])
            return repr(v) if isinstance(v, (int, bool)) else f"C_{ref[1]}"
        if kind == "member":
            return str(ref[1])
        if kind == "enum":
            return self.const(list(range(len(self.rb.enums[ref[1]].members))))
        if ref[1] == "players":
            return "list(range(len(s.players)))"
        if ref[1] == "player_count":
            return "len(s.players)"
        return "s.round"

    def g_ListLit(self, e: A.ListLit) -> str:
        text = "[" + ", ".join(self.gen(x) for x in e.items) + "]"
        return f"_to_bag({text})" if self.rb.refs.get(id(e)) == ("tobag",) else text

    def g_MapLit(self, e: A.MapLit) -> str:
        ref = self.rb.refs.get(id(e), ("map",))
        if ref[0] == "record":
            decl = self.rb.record_decls[ref[1]]
            given = {en.key.name: en.value for en in e.entries}  # type: ignore[union-attr]
            parts = []
            for fd in decl.fields:
                if fd.name in given:
                    parts.append(self.gen(given[fd.name]))
                elif fd.default is not None:
                    parts.append(f"_dc({self.gen(fd.default)})")
                else:
                    parts.append("None")
            return "[" + ", ".join(parts) + "]"
        body = "{" + ", ".join(f"{self.gen(en.key)}: {self.gen(en.value)}" for en in e.entries) + "}"
        return f"_bag_lit({body})" if ref[0] == "bag" else body

    def _small_int(self, e: Any) -> bool:
        """True if e's value is known, when compiling, to be an int below SMALL_INT in size
        (`_bound`)."""
        b = self._bound(e)
        return b is not None and b < SMALL_INT

    def _bound(self, e: Any) -> Optional[int]:
        """A bound on the size of int expression e's value known when compiling, or None: a
        literal or constant; an item of a constant list or map (nested too) of ints, by any
        key (`profit[g]`); either arm of an `if`; a sum, difference, product, quotient or
        negation of bounded ones."""
        if isinstance(e, A.IntLit):
            return abs(e.value) if type(e.value) is int else None
        if isinstance(e, (A.Name, A.Index)):
            vals = self._const_items(e)
            return None if vals is None else max(vals)
        if isinstance(e, A.IfExpr):
            a, b = self._bound(e.then), self._bound(e.else_)
            return None if a is None or b is None else max(a, b)
        if isinstance(e, A.Neg):
            return self._bound(e.operand)
        if isinstance(e, A.Call) and self.rb.refs.get(id(e), ("",))[0] == "fn":
            body = getattr(self.rb.fns.get(e.name), "expr", None)   # its body's bound,
            if body is None or e.name in self._bounding:  # whatever the arguments (none for a
                return None                               # fn calling itself)
            self._bounding.add(e.name)
            try:
                return self._bound(body)
            finally:
                self._bounding.discard(e.name)
        if isinstance(e, A.BinOp) and e.op in ("+", "-", "*", "/", "%") \
                and self.rb.refs.get(id(e)) is None:
            a, b = self._bound(e.left), self._bound(e.right)
            if e.op == "/":
                return a
            if e.op == "%":
                return b
            if a is None or b is None:
                return None
            return a + b if e.op in ("+", "-") else a * b
        return None

    def _const_items(self, e: Any) -> Optional[list[int]]:
        """The sizes of every int e can be, where e is a constant or an item (by any key) of
        a constant collection, nested or not, all of whose leaves are ints; else None."""
        if isinstance(e, A.Name):
            ref: tuple = self.rb.refs.get(id(e), ("",))
            if ref[0] != "const" or ref[1] not in self.consts:
                return None
            leaves: list[int] = []
            return leaves if _int_leaves(self.consts[ref[1]], leaves) else None
        if isinstance(e, A.Index) and strip_opt(self.type_of(e.obj)).kind in ("list", "map"):
            return self._const_items(e.obj)       # (an item of it: within its leaves)
        return None

    def _small_iter(self, e: Any) -> bool:
        """True if e is statically a few items (an enum, the players, a short literal list or
        range, a short constant): a comprehension over it is not charged to the step budget,
        unless it is inside another uncharged one or in a fn's body (so the work left
        uncharged is at most SMALL_ITER times the work charged)."""
        if isinstance(e, A.Name):
            ref = self.rb.refs.get(id(e), ("",))
            if ref[0] == "enum" or ref == ("builtin", "players"):
                return True
            if ref[0] == "const":
                v = self.consts.get(ref[1])
                return isinstance(v, (list, dict)) and len(v) <= limits.SMALL_ITER
            return False
        if isinstance(e, A.ListLit):
            return len(e.items) <= limits.SMALL_ITER
        if isinstance(e, A.Range):
            return isinstance(e.lo, A.IntLit) and isinstance(e.hi, A.IntLit) and \
                e.hi.value - e.lo.value < limits.SMALL_ITER
        return False

    def _head(self, e: Any, free: list, with_cond: bool = True) -> tuple[str, str, str]:
        """(python var, source iterable, filter suffix) of a comprehension or generator;
        free[0] set True if it is not charged (then the caller ends that with _free -= 1).
        With with_cond False the filter is not written (a walk written out writes it per
        member)."""
        slot = self.rb.refs[id(e)]
        self._nvars += 1
        var = f"v{slot}_{self._nvars}"
        self._in_iter += 1
        try:
            src = self.gen(e.iter)
        finally:
            self._in_iter -= 1
        t = strip_opt(self.type_of(e.iter))
        if t.kind == "bag":
            src = f"_bag_items({src})"
        elif t.kind == "map":
            src = f"sorted({src})"
        if self._in_fn or self._free or not self._small_iter(e.iter):
            src = f"_ch({src})"            # one step per item walked
        else:
            self._free += 1                # uncharged: a few items (see _small_iter)
            free[0] = True
        self.vars[slot] = var
        self._loops.append(_Loop(var, self.share and not self._in_iter))
        cond = self.gen(e.cond) if e.cond is not None and with_cond else ""
        return var, src, cond

    def _close(self, text: str) -> str:
        """The comprehension `text` (its head opened by _head) with the cells of what it
        computes once (see _shared) set empty first: `((_wh1 := (_wh2 := _NO)) and text)`
        (`_NO` is true, so the value is text's)."""
        loop = self._loops.pop()
        if not loop.cells:
            return text
        init = "_NO"
        for c in loop.cells.values():
            init = f"({c} := {init})"
        return f"({init} and {text})"

    def _shared(self, e: Any, code: str, key: Any) -> str:
        """code (a fn call or an aggregate, e), computed once per run of the outermost
        comprehension being written in whose condition or element it does not vary.

        Why this keeps the semantics: an expression cannot change the state, and e is pure and
        reads no comprehension variable bound by that comprehension or one inside it (nor a
        ':=' temporary bound elsewhere), so every evaluation of e during one run of that
        comprehension has the same value or raises the same error. The code here is a lazy
        cell, emptied where that comprehension starts: e is still computed exactly where it was
        first computed before (never when the source is empty or a test short-circuits it
        away), and later evaluations read the cell, each charging again the steps computing e
        took (`_rech`, as FnCache does), so the step budget runs out exactly where it did
        without the cell (a runaway `sum(sum(1 for j in 1..n) for i in 1..n)` still stops):
        `(c if c is not _NO and (not n or _rech(n)) else ((b := _BUD[0]), (c := code),
        (n := b - _BUD[0]))[1])`. Only scalar values
        are shared (a list handed out twice would be one object in two places); equal keys
        (the same fn with the same argument code) share one cell. Never inside a
        comprehension's iterable, where Python allows no ':='."""
        loops = self._loops
        if not loops or self._in_iter or not scalar(self.type_of(e)) or \
                not _CALL.search(code):
            return code
        if self._unrolling and self._reads_member(e):
            return code            # written out: computed once per member anyway
        bound = set(_BOUND_FOR.findall(code)) | set(_BOUND_W.findall(code))
        free = set(_NAMES.findall(code)) - bound
        if any(n.startswith("_") for n in free) or \
                any(":=" in b and b in code for b in self._bind.values()):
            return code            # a temporary of the enclosing code (read or bound here)
        j = 0
        for i in range(len(loops) - 1, -1, -1):
            if loops[i].var in free:
                j = i + 1
                break
        home = next((lp for lp in loops[j:] if lp.can_init), None)
        if home is None:
            return code
        c = home.cells.get(key)
        if c is None:
            self._ncells += 1
            c = home.cells[key] = f"_wh{self._ncells}"
        if all(f in UNCHARGED_CALLS for f in _CALLED.findall(code)):
            return f"({c} if {c} is not _NO else ({c} := {code}))"    # no step to charge again
        n, b = "_wn" + c[3:], "_wb" + c[3:]
        return (f"({c} if {c} is not _NO and (not {n} or _rech({n})) else "
                f"(({b} := _BUD[0]), ({c} := {code}), ({n} := {b} - _BUD[0]))[1])")

    def g_MapComp(self, e: A.MapComp) -> str:
        head, _, (k, v) = self._comprehension(e, e.key, e.value)
        text = f"{{{k}: {v}{head}}}"
        return self._close(f"_bag_lit({text})" if self.rb.refs.get(("tobag", id(e))) else text)

    def _comprehension(self, e: Any, *parts: Any
                       ) -> tuple[str, tuple[str, str, str], list[str]]:
        """(" for VAR in SRC[ if COND]", (VAR, SRC, COND), the code of each part) of a
        comprehension or a generator call: its variable bound while the parts are written,
        and unbound after."""
        saved = dict(self.vars)
        free = [False]
        var, src, cond = self._head(e, free)
        code = [self.gen(x) for x in parts]
        self.vars = saved
        self._free -= free[0]
        return f" for {var} in {src}{' if ' + cond if cond else ''}", (var, src, cond), code

    def g_ListComp(self, e: A.ListComp) -> str:
        members = self._unrolled_members(e)
        if members is not None:
            src, each = self._written_out(e, members)
            text = self._charged_first(src, self._list_display(each))
        else:
            head, _, (el,) = self._comprehension(e, e.elem)
            text = f"[{el}{head}]"
        return self._close(f"_to_bag({text})" if self.rb.refs.get(("tobag", id(e))) else text)

    def _unrolled_members(self, e: Any) -> Optional[list[int]]:
        """The members of a small enum (at most UNROLL) that a comprehension or a generator
        call walks, when it is one written out member by member (_written_out), or None."""
        if isinstance(e, A.GenCall) and e.name not in WRITTEN_OUT_CALLS:
            return None
        if not isinstance(e.iter, A.Name):
            return None
        ref = self.rb.refs.get(id(e.iter), ("",))
        if ref[0] != "enum" or len(self.rb.enums[ref[1]].members) > UNROLL:
            return None
        return list(range(len(self.rb.enums[ref[1]].members)))

    def _written_out(self, e: Any, members: list[int]) -> tuple[str, list[tuple[str, str]]]:
        """(source, [(filter, element) per member]) of a walk over a small enum written out:
        each member's value put in for the variable, and what is then known folded (_folded),
        so that `s in boat_spaces` or `space_good[s]` cost nothing in the game. A filter
        known true is "" and a member whose filter is known false is left out. The walk's
        loop is open (self._close ends it), so that what does not vary is computed once, as
        in the comprehension (_shared). Where no member's part calls anything but what never
        charges a step (UNCHARGED_CALLS) or walks a collection, the walk is not charged: it
        is then one expression of a fixed size, as a written sum of terms would be."""
        saved, saved_members = dict(self.vars), self._member_slots
        free = [False]
        var, src, _ = self._head(e, free, with_cond=False)
        slot = self.rb.refs[id(e)]
        each = []
        self._unrolling += 1
        self._member_slots = saved_members | {slot}
        try:
            for m in members:
                self.vars[slot] = str(m)
                cond = self.gen(e.cond) if e.cond is not None else ""
                if cond == "False":
                    continue
                each.append(("" if cond == "True" else cond, self.gen(e.elem)))
        finally:
            self._unrolling -= 1
            self.vars, self._member_slots = saved, saved_members
            self._free -= free[0]
        if src.startswith("_ch(") and all(
                f in UNCHARGED_CALLS and " for " not in part
                for cond, el in each for part in (cond, el) for f in _CALLED.findall(part)):
            src = src[4:-1]       # a fixed expression: its parts call nothing that charges
        return src, each

    def _reads_member(self, e: Any) -> bool:
        """e reads the member a walk written out has put in for its variable (directly, or
        through a parameter of a fn written inline that was given it)."""
        refs = self.rb.refs
        return any(isinstance(n, A.Name) and refs.get(id(n), ("",))[0] == "local"
                   and refs[id(n)][1] in self._member_slots for n in A.walk(e))

    @staticmethod
    def _list_display(each: list[tuple[str, str]]) -> str:
        """The list of the elements whose filters hold, in order: `[e0, *((e1,) if f1 else
        ()), ...]` evaluates f0, e0, f1, e1 ... as the comprehension does."""
        return "[" + ", ".join(f"*(({el},) if {cond} else ())" if cond else el
                               for cond, el in each) + "]"

    @staticmethod
    def _charged_first(src: str, text: str) -> str:
        """text after charging the walk's steps, if the walk is charged (src is `_ch(...)`)."""
        return f"({src} is None or {text})" if src.startswith("_ch(") else text

    def _unrolled(self, e: A.GenCall, members: list[int]) -> str:
        """A generator call over a small enum written out (_written_out): `any(c for x in E
        if f)` as `(f0 and c0) or (f1 and c1) ...` (`all` with `and` and `not f or c`), the
        same values in the same order, stopping where the generator would, without a
        generator's frame; sum, count, min and max of the list display of the elements
        (_list_display). The walk is charged as the generator's is (`_ch`, in a fn)."""
        src, each = self._written_out(e, members)
        if e.name in ("any", "all"):
            any_ = e.name == "any"
            parts = [(f"({f} and {c})" if any_ else f"((not {f}) or {c})") if f else c
                     for f, c in each]
            text = f"({(' or ' if any_ else ' and ').join(parts)})" if parts else str(not any_)
        elif e.name == "count":
            text = f"len({self._list_display([(f'({f}) and ({c})' if f else c, '1') for f, c in each])})"
        elif e.name == "sum":
            text = f"sum({self._list_display(each)})"
        else:
            text = _extreme_of(e.name, self._list_display(each))
        text = self._close(self._charged_first(src, text))
        return self._shared(e, text, text)

    def g_GenCall(self, e: A.GenCall) -> str:
        members = self._unrolled_members(e)
        if members is not None:
            return self._unrolled(e, members)
        head, (var, src, cond), (el,) = self._comprehension(e, e.elem)
        gen = el + head
        # a list made and then added up (or counted) is faster than a generator's items
        # added one by one, at the sizes a rulebook walks (a Manila search called sum() 3
        # million times, most over generators)
        if e.name == "sum":
            text = f"sum([{gen}])"
        elif e.name == "count":
            test = f"({cond}) and ({el})" if cond else el
            text = f"len([1 for {var} in {src} if {test}])"
        elif e.name in ("any", "all"):
            text = f"{e.name}({gen})"
        elif e.name == "first":                   # lazily: stops at the first value
            text = f"B_first_of(s, ({gen}))"
        elif e.name in ITEM_GEN_BUILTINS:         # (key, item) pairs
            text = f"B_{e.name}(s, [({el}, {var}){head}])"
        else:
            text = _extreme_of(e.name, f"[{gen}]")
        text = self._close(text)
        return self._shared(e, text, text)

    def _known(self, e: Any) -> Any:
        """e's value if a walk written out knows it now (_folded), or _NOFOLD."""
        if self._unrolling and not self._evaluating:
            return self._folded(e)
        return _NOFOLD

    def g_IfExpr(self, e: A.IfExpr) -> str:
        c = self._known(e.cond)
        if c is not _NOFOLD:
            return self.gen(e.then if c else e.else_)
        return f"({self.gen(e.then)} if {self.gen(e.cond)} else {self.gen(e.else_)})"

    def g_Or(self, e: Any) -> str:
        """`or` and `and`: the right side alone where the left is known not to decide."""
        op = "or" if isinstance(e, A.Or) else "and"
        if self._known(e.left) is (op == "and"):
            return self.gen(e.right)
        return f"({self.gen(e.left)} {op} {self.gen(e.right)})"

    g_And = g_Or

    def g_Not(self, e: Any) -> str:
        return f"({'not ' if isinstance(e, A.Not) else '-'}{self.gen(e.operand)})"

    g_Neg = g_Not

    def g_Compare(self, e: A.Compare) -> str:
        op = e.op
        if op in ("==", "!=") and (isinstance(e.left, A.NoneLit) or isinstance(e.right, A.NoneLit)):
            op = "is" if op == "==" else "is not"     # no value equals none but none itself
        return f"({self.gen(e.left)} {op} {self.gen(e.right)})"

    def g_In(self, e: A.In) -> str:
        op = "not in" if e.negated else "in"
        ref = self.rb.refs.get(id(e.coll)) if isinstance(e.coll, A.Name) else None
        if ref is not None and (ref[0] == "enum" or (ref[0] == "const" and ref[1] in self.consts)):
            coll = self.compile(e.coll)(None, [])
            return f"({self.gen(e.item)} {op} {self.const(frozenset(coll))})"
        return f"({self.gen(e.item)} {op} {self.gen(e.coll)})"

    def g_Range(self, e: A.Range) -> str:
        lo, hi = self.gen(e.lo), self.gen(e.hi)
        if isinstance(e.lo, A.IntLit) and isinstance(e.hi, A.IntLit) \
                and e.hi.value - e.lo.value < 1000:
            return f"list(range({lo}, {hi} + 1))"        # small: nothing to limit
        return f"_range({lo}, {hi})"

    def g_BinOp(self, e: A.BinOp) -> str:
        a, b = self.gen(e.left), self.gen(e.right)
        ref = self.rb.refs.get(id(e))
        if ref == ("bagop",):
            if strip_opt(self.type_of(e.left)).kind != "bag":
                a = f"_to_bag({a})"
            return f"{'_bag_add' if e.op == '+' else '_bag_sub'}({a}, {b})"
        if e.op in ("/", "%") and b.isdigit() and int(b) != 0:
            return f"({a} {'//' if e.op == '/' else '%'} {b})"     # no division by zero to check
        if e.op == "/":
            return f"_fdiv({a}, {b})"
        if e.op == "%":
            return f"_mod({a}, {b})"
        if ref == ("listop",):
            if self._in_iter:
                return f"_cat({a}, {b})"
            # a short list is joined as it is; a long one is charged and its size checked
            return f"(_lc if len(_lc := {a} + {b}) < {limits.SHORT_LIST} else _cat_long(_lc))"
        if e.op == "*" and not (self._small_int(e.left) or self._small_int(e.right)):
            return f"_mul({a}, {b})"      # (by a small int an int grows only step by step)
        return f"({a} {e.op} {b})"

    def g_Field(self, e: A.Field) -> str:
        o = self.gen(e.obj)
        t = strip_opt(self.type_of(e.obj))
        if t.kind == "player":
            return f"s.players[{o}][{self.pfield[e.name]}]"
        return f"{o}[{t.members.index(e.name)}]"

    def g_Index(self, e: A.Index) -> str:
        o, k = self.gen(e.obj), self.gen(e.key)
        if strip_opt(self.type_of(e.obj)).kind == "bag":
            return f"{o}.get({k}, 0)"
        return f"{o}[{k}]"

    def g_Call(self, e: A.Call) -> str:
        ref = self.rb.refs[id(e)]
        args = [self.gen(a) for a in e.args]
        if ref[0] == "fn":
            code = self._inline(e, args) or f"F_{e.name}(s, {', '.join(args)})"
            return self._shared(e, code, (e.name, *args))
        name = e.name
        if name == "index_of" and isinstance(e.args[0], A.Name) and \
                self.rb.refs.get(id(e.args[0]), ("",))[0] == "enum":
            return args[1]            # an enum member's position is its run-time value
        t0 = strip_opt(self.type_of(e.args[0])) if e.args else Type("any")
        if t0.kind == "bag":
            if name in ("len", "count"):
                return f"sum({args[0]}.values())"
            if name in ("sum", "max", "min", "items", "distinct"):
                args[0] = f"_bag_items({args[0]})"
        if name in ("len", "count"):
            return f"len({args[0]})"
        if name == "abs":
            return f"abs({args[0]})"
        if name in ("max", "min") and len(args) == 2:
            return f"{name}({args[0]}, {args[1]})"
        if name in ("max", "min"):
            return _extreme_of(name, args[0])
        if name in CHECKED_READS and len(args) == 1:
            return self._checked_read(name, e.args[0], args[0])
        return f"B_{name}(s, {', '.join(args)})"

    def _checked_read(self, name: str, arg: Any, code: str) -> str:
        """some(x), first(xs), last(xs) written out, the built-in called only to raise its
        error; the argument evaluated once (bound with ':=' unless it is a plain name)."""
        if name == "some" and _LITERAL.fullmatch(code):
            return code            # a member written out by an unrolled loop: never none
        if ":=" in code or not isinstance(arg, A.Name) or \
                self.rb.refs[id(arg)][0] not in SIMPLE_REFS:
            if self._in_iter:
                return f"B_{name}(s, {code})"
            self._nbind += 1
            v = f"_w{self._nbind}"
            first = f"({v} := {code})"
        else:
            v = first = code
        test, value = CHECKED_READS[name]
        return f"({value.format(v)} if {test.format(first)} else B_{name}(s, {v}))"

    def _simple_ref(self, a: Any) -> bool:
        """a is a name of a local, constant, member or table field, or a field of a record
        held in such a name: reading it again cannot fail and costs one or two lookups."""
        if isinstance(a, A.Field) and self.type_of(a.obj).kind == "record":
            a = a.obj
        return isinstance(a, A.Name) and self.rb.refs[id(a)][0] in SIMPLE_REFS

    def _inline(self, e: A.Call, args: list[str]) -> Optional[str]:
        """The body of a small, non-recursive fn with its parameters replaced by the arguments'
        source, or None. Arguments that are names or literals (nothing to evaluate, nothing
        that can fail) are substituted wherever read; one other argument is allowed when its
        parameter is the first thing the body evaluates, bound there with ':=' (so it is still
        evaluated once, before anything else) and read from that binding elsewhere."""
        if e.name not in self._inlinable or self._depth >= INLINE_MAX_DEPTH:
            return None
        body = self.rb.fns[e.name].expr
        names = dict(enumerate(args))
        bind: Optional[tuple[int, str]] = None
        for i, a in enumerate(e.args):
            if ":=" not in args[i] and (isinstance(a, (A.IntLit, A.BoolLit, A.NoneLit, A.StrLit))
                                        or self._simple_ref(a) or _LITERAL.fullmatch(args[i])):
                continue
            first, in_iter = first_evaluated(body, self.rb.refs)
            if bind is not None or not isinstance(first, A.Name) \
                    or self.rb.refs.get(id(first)) != ("local", i):
                return None
            if (in_iter or self._in_iter) and (":=" in args[i] or uses(body, self.rb.refs, i) > 1):
                return None            # ':=' may not appear in a comprehension's iterable
            if uses(body, self.rb.refs, i) == 1:
                bind = (id(first), args[i])
            else:
                self._nbind += 1
                names[i] = f"_w{self._nbind}"
                bind = (id(first), f"({names[i]} := {args[i]})")
        saved, saved_members = self.vars, self._member_slots
        if self._unrolling:            # the parameters given a walk's member
            self._member_slots = {i for i, a in enumerate(e.args) if self._reads_member(a)}
        self.vars = names
        if bind is not None:
            self._bind[bind[0]] = bind[1]
        self._depth += 1
        try:
            return f"({self.gen(body)})"
        finally:
            self.vars, self._member_slots = saved, saved_members
            self._depth -= 1
            if bind is not None:
                del self._bind[bind[0]]
