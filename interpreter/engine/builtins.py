"""Run-time meaning of the built-in functions declared in dsl/builtins.py."""
from __future__ import annotations

from typing import Any, Callable, Iterable

from mercator.interpreter.engine.exprs import RuleError


class BuiltinError(RuleError):
    """A built-in was given something it cannot work with."""


def _extreme(fn: Callable, name: str) -> Callable:
    def run(s: Any, a: Any, b: Any = None) -> Any:
        if b is not None:
            return fn(a, b)
        if not a:
            raise BuiltinError(f"{name}() of an empty collection")
        return fn(a)
    return run


def _first(s: Any, xs: list) -> Any:
    if not xs:
        raise BuiltinError("first() of an empty list")
    return xs[0]


def _last(s: Any, xs: list) -> Any:
    if not xs:
        raise BuiltinError("last() of an empty list")
    return xs[-1]


def _index_of(s: Any, xs: list, x: Any) -> int:
    try:
        return xs.index(x)
    except ValueError:
        raise BuiltinError("index_of(): the item is not in the list") from None


def _some(s: Any, v: Any) -> Any:
    if v is None:
        raise BuiltinError("some() of none")
    return v


def _distinct(s: Any, xs: list) -> list:
    try:                          # scalars: by hashing, in order of first appearance
        return list(dict.fromkeys(xs))
    except TypeError:             # records and lists: by equality
        pass
    out: list = []
    for x in xs:
        if x not in out:          # equality, so records (lists) work too
            out.append(x)
    return out


def _first_of(s: Any, values: Iterable) -> Any:
    """first(e for x in xs if c): the first value, the rest never computed."""
    for v in values:
        return v
    raise BuiltinError("first() of a generator that gives nothing")


def _sort_by(s: Any, pairs: list) -> list:
    """sort_by(key for x in xs): the items by their keys, lowest first; equal keys in order."""
    return [x for _, x in sorted(pairs, key=lambda kx: kx[0])]


def _arg_extreme(better: Callable[[Any, Any], bool], name: str) -> Callable:
    def run(s: Any, pairs: list) -> Any:
        if not pairs:
            raise BuiltinError(f"{name}() of an empty collection")
        best_k, best = pairs[0]
        for k, x in pairs:
            if better(k, best_k):          # strictly: the first of equal keys stays
                best_k, best = k, x
        return best
    return run


def _rank(s: Any, pairs: list) -> dict:
    """rank(key for x in xs): item -> place, 1 for the largest key; equal keys share a place and
    the next place counts them all (keys 9, 7, 7, 3 -> places 1, 2, 2, 4)."""
    keys = sorted((k for k, _ in pairs), reverse=True)
    place: dict = {}
    for i, k in enumerate(keys):
        place.setdefault(k, i + 1)
    return {x: place[k] for k, x in pairs}


def _clockwise(s: Any, p: int) -> list:
    n = len(s.players)
    if 0 <= p < n:                   # (a seat always is: two C-level ranges)
        return list(range(p, n)) + list(range(p))
    return [(p + i) % n for i in range(n)]


RUNTIME_BUILTINS: dict[str, Callable[..., Any]] = {
    "len": lambda s, c: len(c),
    "count": lambda s, c: len(c),
    "sum": lambda s, c: sum(c),
    "max": _extreme(max, "max"),
    "min": _extreme(min, "min"),
    "sort": lambda s, c: sorted(c),
    "reverse": lambda s, c: list(reversed(c)),
    "any": lambda s, c: any(c),
    "all": lambda s, c: all(c),
    "abs": lambda s, x: abs(x),
    "keys": lambda s, m: sorted(m),
    "values": lambda s, m: [m[k] for k in sorted(m)],
    "items": lambda s, c: list(c),
    "distinct": _distinct,
    "clockwise_from": _clockwise,
    "next_player": lambda s, p: (p + 1) % len(s.players),
    "first": _first,
    "last": _last,
    "index_of": _index_of,
    "some": _some,
    "flatten": lambda s, xss: [x for xs in xss for x in xs],
    # generator forms: codegen passes the values (first) or the (key, item) pairs (the others)
    "first_of": _first_of,
    "sort_by": _sort_by,
    "argmax": _arg_extreme(lambda a, b: a > b, "argmax"),
    "argmin": _arg_extreme(lambda a, b: a < b, "argmin"),
    "rank": _rank,
}
