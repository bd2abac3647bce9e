"""Run-time helpers shared by generated expression code and statement ops."""
from __future__ import annotations

from typing import Any

from mercator.interpreter.engine.values import deep_copy


class RuleError(Exception):
    """A rule failed at run time (the engine adds the location and the decision log)."""


def bag_add(a: dict, b: Any) -> dict:
    """Bag union with counts added (b may be a bag or a list)."""
    out = dict(a)
    items = b.items() if isinstance(b, dict) else ((x, 1) for x in b)
    for k, n in items:
        out[k] = out.get(k, 0) + n
    return out


def bag_sub(a: dict, b: Any) -> dict:
    """Bag difference (never below zero)."""
    out = dict(a)
    items = b.items() if isinstance(b, dict) else ((x, 1) for x in b)
    for k, n in items:
        left = out.get(k, 0) - n
        if left > 0:
            out[k] = left
        else:
            out.pop(k, None)
    return out


def to_bag(v: Any) -> dict:
    """A bag from a list of items or a map item -> count."""
    if isinstance(v, dict):
        return {k: n for k, n in v.items() if n > 0}
    out: dict = {}
    for x in v:
        out[x] = out.get(x, 0) + 1
    return out


def take_item(c: Any, x: Any) -> None:
    """Take one x out of a bag or a list (the first occurrence); an error if it is not there."""
    if isinstance(c, dict):
        n = c.get(x, 0)
        if n <= 0:
            raise RuleError("the item to take is not in the bag")
        if n == 1:
            del c[x]
        else:
            c[x] = n - 1
    else:
        try:
            c.remove(x)
        except ValueError:
            raise RuleError("the item to take is not in the list") from None


def put_item(c: Any, x: Any) -> None:
    """Put one x into a bag, or a copy of x at the end of a list."""
    if isinstance(c, dict):
        c[x] = c.get(x, 0) + 1
    else:
        c.append(deep_copy(x))
