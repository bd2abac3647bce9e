"""A rulebook with some of its constants set otherwise: the program `mercator sweep` plays for
one setting, built in memory from the rulebook's declarations (no file is written).

An override is `(name, key, kind, value)`: the `const`/`table` NAME (or, with a key, the element
KEY of a table written as a list or map literal) takes the literal `value`, of `kind` "int",
"bool", "enum" (a member's name) or "str". The declaration's expression is replaced by that
literal — as `replace const NAME = VALUE` in a variant would (docs/language.md §2.21) — and the
whole rulebook is checked and compiled again, so a value the rules cannot take is a located
diagnostic, never a wrong game. Overrides are plain tuples: a worker process or a Ray task
rebuilds the same program from (path, overrides) (tools/parallel.py).
"""
from __future__ import annotations

import os
from typing import Any, Optional, Sequence, Union

import attrs

from mercator.dsl import ast as A
from mercator.dsl.diagnostics import Diagnostic
from mercator.dsl.errors import MercatorError
from mercator.dsl.load_cache import LRU
from mercator.dsl.loader import LoadResult, load
from mercator.interpreter.engine.program import Program

Key = Union[int, str, bool, None]
Override = tuple[str, Key, str, Any]          # (name, key or None, kind, value)


class OverrideError(MercatorError):
    """A setting the rulebook cannot take: the checker's diagnostics (or a message) say why."""

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic] = (),
                 sources: Optional[dict[str, str]] = None, hint: str = ""):
        super().__init__(message)
        self.diagnostics = list(diagnostics)
        self.sources = sources or {}
        self.hint = hint


def literal(kind: str, value: Any, span: A.Span) -> Any:
    """The expression of a literal value, located at `span` (where the replaced one was)."""
    if kind == "int":
        return A.IntLit(value, span=span) if value >= 0 else A.Neg(A.IntLit(-value, span=span),
                                                                      span=span)
    if kind == "bool":
        return A.BoolLit(bool(value), span=span)
    if kind == "enum":
        return A.Name(str(value), span=span)
    return A.StrLit(str(value), span=span)


def literal_key(e: Any) -> Key:
    """The key a literal map key or list index expression stands for (None if not a literal)."""
    if isinstance(e, A.IntLit):
        return e.value
    if isinstance(e, A.Neg) and isinstance(e.operand, A.IntLit):
        return -e.operand.value
    if isinstance(e, A.BoolLit):
        return e.value
    if isinstance(e, (A.Name, A.StrLit)):
        return e.name if isinstance(e, A.Name) else e.value
    return None


def const_decl(items: Sequence[Any], name: str) -> Optional[A.ConstDecl]:
    """The declaration of the const or table `name`, if the rulebook has one."""
    return next((d for d in items if isinstance(d, A.ConstDecl) and d.name == name), None)


def with_override(decl: A.ConstDecl, key: Key, kind: str, value: Any) -> A.ConstDecl:
    """The declaration with its value (or its element `key`) replaced by a literal; KeyError
    when the table is not written out as a literal or has no such key."""
    if key is None:
        return attrs.evolve(decl, value=literal(kind, value, decl.value.span))
    expr = decl.value
    if isinstance(expr, A.MapLit):
        entries = list(expr.entries)
        for i, en in enumerate(entries):
            if literal_key(en.key) == key and type(literal_key(en.key)) is type(key):
                entries[i] = attrs.evolve(en, value=literal(kind, value, en.value.span))
                return attrs.evolve(decl, value=attrs.evolve(expr, entries=tuple(entries)))
        raise KeyError(key)
    if isinstance(expr, A.ListLit) and isinstance(key, int) and not isinstance(key, bool):
        items = list(expr.items)
        if not 0 <= key < len(items):
            raise KeyError(key)
        items[key] = literal(kind, value, items[key].span)
        return attrs.evolve(decl, value=attrs.evolve(expr, items=tuple(items)))
    raise KeyError(key)


def overridden_items(items: Sequence[Any], overrides: Sequence[Override]) -> list[Any]:
    """The declarations with every override applied (KeyError as with_override)."""
    out = list(items)
    for name, key, kind, value in overrides:
        for i, d in enumerate(out):
            if isinstance(d, A.ConstDecl) and d.name == name:
                out[i] = with_override(d, key, kind, value)
                break
        else:
            raise KeyError(name)
    return out


def override_text(overrides: Sequence[Override]) -> str:
    """`start_money=4000, rounds_for[3]=9`: a setting as the command line writes it."""
    def one(o: Override) -> str:
        name, key, kind, value = o
        v = ("true" if value else "false") if kind == "bool" else \
            f'"{value}"' if kind == "str" else str(value)
        return f"{name}{'' if key is None else f'[{key}]'}={v}"
    return ", ".join(one(o) for o in overrides)


def check_overridden(res: LoadResult, overrides: Sequence[Override]) -> LoadResult:
    """The loaded rulebook checked again with the overrides; OverrideError with the checker's
    diagnostics when it no longer checks."""
    from mercator.dsl.checker import check_items
    assert res.rulebook is not None
    path = res.rulebook.path
    items = overridden_items(res.items, overrides)
    checked, diags = check_items(tuple(items), path, res.sources)
    if checked is None or any(d.is_error for d in diags):
        raise OverrideError(f"{path}: with {override_text(overrides)} the rulebook does not "
                            "check", [d for d in diags if d.is_error], res.sources,
                            "leave that value out of the sweep, or change the rules that "
                            "need it")
    return LoadResult(checked, diags, res.sources, items, res.base)


_PROGRAMS: LRU[tuple[str, tuple[Override, ...]], Program] = LRU(16)


def program_with(path: str, overrides: Sequence[Override]) -> Program:
    """The compiled program of the rulebook at `path` with `overrides` (kept per process for
    the same path and overrides; the rulebook read afresh when its files changed).
    OverrideError when it does not check; RuleError when a constant fails while compiling."""
    from mercator.interpreter.compiler import compile_program
    key = (os.path.abspath(path), tuple(overrides))
    prog = _PROGRAMS.get(key)
    if prog is not None:
        return prog
    res = load(path)
    if not res.ok:
        raise OverrideError(f"{path}: the rulebook does not check", res.diagnostics,
                            res.sources)
    checked = check_overridden(res, overrides)
    assert checked.rulebook is not None
    prog = compile_program(checked.rulebook)
    _PROGRAMS.put(key, prog)
    return prog
