"""Storing a value where another type is expected (docs/language.md §3.6): a `list<T>` or a map
`{T: int}` stored where a `bag<T>` is expected becomes a bag (item -> count, no zeros), also
inside a list or as a map's values. The checker marks each such right-hand side
(`refs[("convert", id(e))] = (its type, the expected type)`, dsl.types.converts); the compilers
wrap its value in the function `converter` returns."""
from __future__ import annotations

from typing import Any, Callable, Optional

from mercator.dsl.types import Type, converts, strip_opt
from mercator.interpreter.engine.exprs import to_bag

_MADE: dict[tuple[Type, Type], Callable[[Any], Any]] = {}


def converter(src: Type, dst: Type) -> Optional[Callable[[Any], Any]]:
    """The function turning a value of type src into the value stored where dst is expected,
    or None when it is stored as it is. `none` (an optional used as its value) stays none."""
    if not converts(src, dst):
        return None
    key = (src, dst)
    f = _MADE.get(key)
    if f is None:
        f = _MADE[key] = _make(strip_opt(src), strip_opt(dst))
    return f


def _make(s: Type, d: Type) -> Callable[[Any], Any]:
    if d.kind == "bag":
        return lambda v: None if v is None else to_bag(v)
    inner = converter(s.args[-1], d.args[-1])
    assert inner is not None
    if d.kind == "list":
        return lambda v: None if v is None else [inner(x) for x in v]
    return lambda v: None if v is None else {k: inner(x) for k, x in v.items()}
