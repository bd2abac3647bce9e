"""The reduce actions of the LALR parser: each rule's AST node is built as the rule is reduced.

Lark's usual way (``propagate_positions=True``, a parse tree of ``Tree`` objects, then a
``Transformer`` over it) costs more than the parse itself; these actions give the same nodes and
the same spans in one step. They follow lark's own rules exactly (``lark/parse_tree_builder.py``):

- children are filtered as lark filters them: anonymous tokens dropped, the children of an
  internal ``_rule`` spliced in, a None for each absent ``[optional]`` (maybe_placeholders);
- a ``?rule`` with one child left is that child (``ExpandSingleChild``);
- positions as ``PropagatePositions``: a node spans from the start of its first child that has
  a position to the end of its last, each child counting with its *container* (a node inlined
  by a ``?rule`` inside parentheses has the parentheses as its container, not as its span).

A builder method that raises (an integer literal too large) does not stop the parse, so that a
syntax error later in the text is still the error reported, as with a tree built first; the
first failure, in the order lark's transformer would have met it, is kept in ``first_error``.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable, Optional

from mercator.dsl import ast as A
from mercator.dsl.ast_builder import PLAIN, AstBuilder

Pos = tuple[int, int, int, int]          # line, column, end line, end column
Callback = Callable[[list[Any]], Any]


class Node:
    """A value on the parser's stack: a rule's value, its own position and its container's."""

    __slots__ = ("value", "own", "cont", "children")

    def __init__(self, value: Any, own: Optional[Pos], children: Optional[list[Any]] = None):
        self.value = value
        self.own = own          # None: the rule matched no text (lark's `meta.empty`)
        self.cont = own
        self.children = children   # for an internal rule, spliced into its parent


class Actions:
    """The callbacks for one lark LALR parser, building AST nodes with an `AstBuilder`."""

    def __init__(self, builder: AstBuilder):
        self.builder = builder
        self.first_error: Optional[tuple[Exception, Optional[Pos]]] = None

    def reset(self, path: str) -> None:
        """Prepare for parsing the file at path."""
        self.builder.path = path
        self.first_error = None

    def callbacks(self, rules: list[Any], nullable: set[str]) -> dict[Any, Callback]:
        """One callback per lark rule (the keys of the parser's own callback table)."""
        return {rule: self._callback(rule, nullable) for rule in rules}

    def _callback(self, rule: Any, nullable: set[str]) -> Callback:
        exp = rule.expansion
        opts = rule.options
        keep_all = opts.keep_all_tokens
        inline = bool(opts.expand1) and not rule.alias
        plan, tail = _filter_plan(exp, keep_all, opts.empty_indices)
        name = rule.alias or opts.template_source or rule.origin.name
        kept = [i for i, _, _ in plan]
        splices = any(x for _, x, _ in plan)
        nones = sum(n for _, _, n in plan) + tail
        if inline and len(exp) == 1 and kept == [0] and not splices and not nones:
            return itemgetter(0)       # a ?rule with one child and nothing else: that child
        method = getattr(self.builder, name, None)
        internal = name.startswith("_")
        if method is None and not internal and not (inline and len(kept) + nones == 1
                                                    and not splices):
            raise RuntimeError(f"dsl/ast_builder.py has no method for the grammar rule {name!r}")
        if inline and len(exp) > 1 and any(not s.is_term and s.name in nullable for s in exp):
            raise RuntimeError(f"the ?rule {rule.origin.name!r} inlines a part that may be empty")
        spanned = name not in PLAIN
        filtered = _filterer(plan, tail, len(exp))
        actions = self
        builder = self.builder

        def callback(children: list[Any]) -> Any:
            first = last = None
            for c in children:
                if c.__class__ is Node:
                    if c.cont is not None:
                        first = c.cont
                        break
                elif c is not None:
                    first = (c.line, c.column, c.end_line, c.end_column)
                    break
            if first is not None:
                for c in reversed(children):
                    if c.__class__ is Node:
                        if c.cont is not None:
                            last = c.cont
                            break
                    elif c is not None:
                        last = (c.line, c.column, c.end_line, c.end_column)
                        break
            kids = filtered(children)
            if inline and len(kids) == 1:
                res = kids[0]
                if res.__class__ is Node and first is not None and last is not None:
                    if res.own is None:     # excluded when the actions are built
                        raise AssertionError("an empty node inlined with a position")
                    res.cont = (first[0], first[1], last[2], last[3])
                return res
            own = None if first is None or last is None else (first[0], first[1], last[2], last[3])
            if method is None:      # an internal rule (a repetition): its children, for the parent
                return Node(None, own, kids)
            vals = [k.value if k.__class__ is Node else k for k in kids]
            try:
                if spanned:
                    sp = A.Span(builder.path, *own) if own is not None else \
                        A.Span(builder.path, 0, 0, 0, 0)
                    value = method(sp, vals)
                else:
                    value = method(vals)
            except Exception as exc:   # noqa: BLE001 - reported as E005 when the parse succeeds
                if actions.first_error is None:
                    actions.first_error = (exc, own)
                value = None
            return Node(value, own)
        return callback


def _filter_plan(exp: Any, keep_all: bool, empty_indices: Any
                 ) -> tuple[list[tuple[int, bool, int]], int]:
    """lark's ``maybe_create_child_filter``: (index, splice?, Nones before) for each kept child,
    and the Nones after the last."""
    if empty_indices:
        s = "".join(str(int(b)) for b in empty_indices)
        empty = [len(ones) for ones in s.split("0")]
    else:
        empty = [0] * (len(exp) + 1)
    plan = []
    add = 0
    for i, sym in enumerate(exp):
        add += empty[i]
        if keep_all or not (sym.is_term and sym.filter_out):
            plan.append((i, not sym.is_term and sym.name.startswith("_"), add))
            add = 0
    return plan, add + empty[len(exp)]


def _filterer(plan: list[tuple[int, bool, int]], tail: int, size: int
              ) -> Callable[[list[Any]], list[Any]]:
    """The function giving a rule's filtered children from its raw ones."""
    if tail == 0 and len(plan) == size and not any(x or n for _, x, n in plan):
        return lambda children: children
    pads = [None] * tail

    def filtered(children: list[Any]) -> list[Any]:
        out: list[Any] = []
        for i, splice, add in plan:
            if add:
                out += [None] * add
            if splice:
                if out:
                    out += children[i].children
                else:       # as lark: take the list over (a repetition grows in place)
                    out = children[i].children
            else:
                out.append(children[i])
        if tail:
            out += pads
        return out
    return filtered


def nullable_rules(rules: list[Any]) -> set[str]:
    """The names of the rules that can match no text at all."""
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for r in rules:
            if r.origin.name not in found and all(not s.is_term and s.name in found
                                                   for s in r.expansion):
                found.add(r.origin.name)
                changed = True
    return found
