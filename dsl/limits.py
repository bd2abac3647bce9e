"""Limits on how deeply a rulebook may nest, checked without recursion (E140, E141).

Every later stage (the checker, the analyses, the formatter, the interpreter's compiler and the
Python code it generates) walks the tree recursively, and Python limits that: generated code
fails at about 200 nested parentheses and the interpreter at about 1,000 nested calls (it
writes deep expressions without inlining, so 190 levels still compile). The
shipped rulebooks nest expressions fewer than 15 levels deep and blocks fewer than 10, so the
limits below are far above what a rulebook needs and far below what breaks.

E143  a range, a die or a decision written with literal numbers beyond the run-time limits
      (MAX_COLLECTION, MAX_DIE_SIDES, MAX_OPTIONS below; checked by dsl/checker_exprs.py and
      dsl/checker_decisions.py)
E140  an expression or a block nested too deeply, or a chain of functions (or procedures) too
      long (this module, called by the parser and the checker); an integer literal larger than
      MAX_INT is E005 (dsl/ast_builder.py, reported by dsl/parser.py)
"""
from __future__ import annotations

import gc
import sys
from math import comb
from typing import Any, Iterator, Optional

import attrs

from mercator.dsl import ast as A
from mercator.dsl.diagnostics import Diagnostic, error
from mercator.dsl.graphs import post_order

MAX_EXPR_DEPTH = 190     # nested expression (and type) nodes inside one statement or declaration
MAX_BLOCK_DEPTH = 50     # nested blocks ({ ... }) inside one declaration
MAX_CALL_DEPTH = 100     # a chain of functions, each calling the next (not counting recursion)
MAX_PROC_DEPTH = 1000    # procedures (and triggers, actions) running one inside another: the
                         # checker refuses a longer chain of procedures, each calling the next;
                         # the engine stops a deeper call (recursion too) with a rule error
MAX_INT = 10 ** 18       # the largest integer literal
MAX_PLAYERS = 1000       # the most seats a game may have (`game "X" players 2..N`; E123)
RECURSION_LIMIT = 4000   # Python's recursion limit while a rulebook is checked (at least)
# sizes a running game may reach (interpreter/engine/limits.py enforces them at run time; the checker
# refuses, with E143, what is written with literal numbers beyond them)
MAX_COLLECTION = 1_000_000      # items in one range, list, or bag walked item by item
MAX_OPTIONS = 100_000           # options of one decision (and outcomes of one chance node)
MAX_DIE_SIDES = 1_000_000       # sides of one die


def subset_count(n: int, lo: int, hi: int) -> int:
    """How many subsets of lo..hi items n distinct items have (stops counting past MAX_OPTIONS)."""
    total = 0
    for k in range(max(lo, 0), min(hi, n) + 1):
        total += comb(n, k)
        if total > MAX_OPTIONS:
            break
    return total


def literal_int(e: Any) -> Optional[int]:
    """The value of an int expression written with literals only (+, -, *, unary -), or None."""
    if isinstance(e, A.IntLit):
        return e.value
    if isinstance(e, A.Neg):
        v = literal_int(e.operand)
        return None if v is None else -v
    if isinstance(e, A.BinOp) and e.op in ("+", "-", "*"):
        a, b = literal_int(e.left), literal_int(e.right)
        if a is None or b is None or abs(a) > MAX_INT or abs(b) > MAX_INT:
            return None
        return a + b if e.op == "+" else a - b if e.op == "-" else a * b
    return None


def literal_range_size(e: Any) -> Optional[int]:
    """How many items a range written with literal ends holds (None if not such a range)."""
    if not isinstance(e, A.Range):
        return None
    lo, hi = literal_int(e.lo), literal_int(e.hi)
    return None if lo is None or hi is None else max(0, hi - lo + 1)

_STATEMENTS = (A.Let, A.Assign, A.If, A.Elif, A.For, A.Repeat, A.While, A.Move, A.Add, A.Remove,
               A.Shuffle, A.Emit, A.CallStmt, A.Return, A.Break, A.EndGame, A.Log, A.Deal,
               A.Empty)


def _children(node: Any) -> Iterator[Any]:
    """The AST nodes directly under node (through tuples), spans skipped."""
    for name in A.child_fields(type(node)) or ():
        v = getattr(node, name)
        if isinstance(v, tuple):
            stack = list(reversed(v))
            while stack:
                x = stack.pop()
                if isinstance(x, tuple):
                    stack.extend(reversed(x))
                elif attrs.has(type(x)):
                    yield x
        elif attrs.has(type(v)) and not isinstance(v, A.Span):
            yield v


def _located(span: A.Span) -> bool:
    return span.line >= 1 and span.col >= 1


def depth_errors(root: Any, path: str) -> list[Diagnostic]:
    """E140 for each top-level declaration under root that nests too deeply (one per
    declaration, at the first node past the limit), found without recursion."""
    items = root.items if isinstance(root, A.Rulebook) else (root,)
    out: list[Diagnostic] = []
    for item in items:
        d = _item_depth_error(item, path)
        if d is not None:
            out.append(d)
    return out


def _item_depth_error(item: Any, path: str) -> Optional[Diagnostic]:
    top = getattr(item, "span", A.Span(path, 1, 1, 1, 2))
    if not _located(top):
        top = A.Span(path, 1, 1, 1, 2)
    # (node, expression depth, block depth, nearest located span)
    stack: list[tuple[Any, int, int, A.Span]] = [(item, 0, 0, top)]
    pop, push = stack.pop, stack.append
    while stack:
        node, ed, bd, where = pop()
        span = getattr(node, "span", None)
        if span.__class__ is A.Span and span.line >= 1 and span.col >= 1:
            where = span
        kind = _KIND.get(node.__class__)
        if kind is None:
            kind = _kind(node.__class__)
        if kind == 0:           # a block
            bd, ed = bd + 1, 0
            if bd > MAX_BLOCK_DEPTH:
                return error("E140", f"blocks nested too deeply (more than {MAX_BLOCK_DEPTH} "
                             "levels)", where, "move the inner blocks into a procedure and call it")
        elif kind == 1:         # a statement
            ed = 0
        elif node is not item:
            ed += 1
            if ed > MAX_EXPR_DEPTH:
                return error("E140", f"expression nested too deeply (more than {MAX_EXPR_DEPTH} "
                             "levels)", where, "split it: name its parts with 'let', a constant "
                             "or a function")
        for c in _children(node):
            push((c, ed, bd, where))
    return None


_KIND: dict[type, int] = {}


def _kind(t: type) -> int:
    """0 for a block, 1 for a statement, 2 for any other node (kept per class)."""
    k = 0 if issubclass(t, A.Block) else 1 if issubclass(t, _STATEMENTS) else 2
    _KIND[t] = k
    return k


def call_depth_error(calls: dict[str, set[str]], spans: dict[str, A.Span],
                     limit: int = MAX_CALL_DEPTH, what: str = "function") -> Optional[Diagnostic]:
    """E140 when some chain of functions (or of procedures: what, limit), each calling the next,
    is longer than limit (cycles are not counted: recursion is reported elsewhere). Linear,
    without recursion."""
    longest: dict[str, int] = {}
    graph = {n: sorted(c for c in cs if c in calls) for n, cs in calls.items()}
    for name, on_path in post_order(graph, sorted(calls)):
        longest[name] = 1 + max((longest.get(c, 0) for c in calls.get(name, ())
                                 if c not in on_path and c != name), default=0)
        if longest[name] > limit and name in spans and what == "function":
            return error("E140", f"function '{name}' starts a chain of more than "
                         f"{limit} functions, each calling the next",
                         spans[name], "compute some of the steps directly, or with "
                         "a procedure")
    # (procedures: the one heading the longest chain, the first declared among equals)
    over = [n for n in spans if longest.get(n, 0) > limit]
    if not over or what == "function":
        return None
    name = max(over, key=lambda n: (longest[n], -spans[n].line))
    return error("E140", f"{what} '{name}' starts a chain of {longest[name]:,} {what}s, each "
                 f"calling the next: more than the {limit:,} that may run one inside another",
                 spans[name], "do the steps one after another (a procedure that calls several "
                 "others in turn, or a loop) instead of each inside the one before")


class DeepRecursion:
    """A context raising Python's recursion limit to at least RECURSION_LIMIT, restoring it after."""

    def __enter__(self) -> "DeepRecursion":
        self.old = sys.getrecursionlimit()
        if self.old < RECURSION_LIMIT:
            sys.setrecursionlimit(RECURSION_LIMIT)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.setrecursionlimit(self.old)


class PausedGC:
    """A context pausing Python's cyclic garbage collector (restored after): parsing and checking
    create many objects and no garbage cycles, and the collector's full passes over a large
    rulebook's tree would make the time grow faster than the size."""

    def __enter__(self) -> "PausedGC":
        self.was = gc.isenabled()
        gc.disable()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.was:
            gc.enable()
