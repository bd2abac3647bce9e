"""Run-time helpers shared by generated expression code and statement ops."""
from __future__ import annotations

from typing import Any


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
