"""Run-time values: copying, iteration order, display, and a JSON encoding that round-trips.

Values are plain Python data: int (ints, enum members as their index, players as 0-based seats),
bool, str, None, list (lists and records), dict (maps, and bags as item -> count with no zeros).
"""
from __future__ import annotations

import marshal
import math
from typing import Any, Callable

from mercator.dsl.types import Type


def deep_copy(v: Any) -> Any:
    """An independent copy of a value (fast: marshal handles nested lists/dicts of scalars)."""
    if isinstance(v, (list, dict)):
        return marshal.loads(marshal.dumps(v))
    return v


def flat_copy(v: Any) -> Any:
    """An independent copy of a list or dict of scalars (or None): a shallow copy is one."""
    return v if v is None else v.copy()


def bag_items(b: dict) -> list:
    """A bag's items with repeats, in sorted order."""
    out: list = []
    for k in sorted(b):
        out.extend([k] * b[k])
    return out


def iterator_for(t: Type) -> Any:
    """A function giving the sequence that 'for x in v' walks for a value of static type t."""
    kind = t.args[0].kind if t.kind == "opt" else t.kind
    if kind == "bag":
        return bag_items
    if kind == "map":
        return sorted
    return list


def fmt(v: Any, t: Type) -> str:
    """Human-readable text of a value of static type t."""
    if t.kind == "opt":
        return "none" if v is None else fmt(v, t.args[0])
    if v is None:
        return "none"
    k = t.kind
    if k == "player":
        return f"P{v + 1}"
    if k == "enum":
        return t.members[v] if isinstance(v, int) and 0 <= v < len(t.members) else str(v)
    if k == "bool":
        return "true" if v else "false"
    if k == "list":
        return "[" + ", ".join(fmt(x, t.args[0]) for x in v) + "]"
    if k == "bag":
        parts = [fmt(x, t.args[0]) + (f"×{n}" if n != 1 else "") for x, n in sorted(v.items())]
        return "{" + ", ".join(parts) + "}"
    if k == "map":
        return "{" + ", ".join(f"{fmt(a, t.args[0])}: {fmt(b, t.args[1])}"
                               for a, b in sorted(v.items())) + "}"
    if k == "record":
        return "{" + ", ".join(f"{n}: {fmt(x, ft)}" for n, x, ft in
                               zip(t.members, v, t.field_types)) + "}"
    if k == "any":
        return str(v)
    return str(v)


def plain_text(v: Any) -> str:
    """fmt of an int or a str (or of a value of type any)."""
    return "none" if v is None else str(v)


def player_text(v: Any) -> str:
    """fmt of a player (a value typed `player` may still be none: a `player?` passed for it)."""
    return "none" if v is None else f"P{v + 1}"


def text_as(t: Type) -> Callable[[Any], str]:
    """fmt(v, t) as a function of v, written for t's kind: an option's or outcome's label, a
    part of a log line (narration makes one at every step; fmt itself looks at the type
    each time)."""
    k = t.kind
    if k in ("int", "str", "any"):
        return plain_text
    if k == "player":
        return player_text
    if k == "enum":
        members = t.members
        n = len(members)

        def enum_text(v: Any) -> str:
            if v is None:
                return "none"
            return members[v] if isinstance(v, int) and 0 <= v < n else str(v)
        return enum_text
    # a list, map, bag or record: its text kept by the value's marshal bytes (equal bytes, an
    # equal value): a search labels every option of every node it passes, the same few
    # values again and again (Die Händler's moves: 6% of its time was making their labels)
    cache: dict[bytes, str] = {}
    dumps = marshal.dumps

    def text(v: Any) -> str:
        try:
            key = dumps(v, 2)
        except ValueError:              # (a value marshal cannot write: made each time)
            return fmt(v, t)
        got = cache.get(key)
        if got is None:
            if len(cache) >= LABELS_KEPT:
                cache.clear()
            got = cache[key] = fmt(v, t)
        return got
    return text


LABELS_KEPT = 4096     # texts a text_as function keeps (then it starts again)


def to_json(v: Any, keep_order: bool = False) -> Any:
    """Encode a value as JSON data; dicts become {"@": [[key, value], ...]} so int keys survive,
    in the keys' order (one text for equal values: digests), or with keep_order in the order
    the dict has them (from_json then rebuilds the very dict: a seat's information state, a
    digest of its views marshalled, reads the same after a save: engine/seen.py)."""
    if isinstance(v, list):
        return [to_json(x, keep_order) for x in v]
    if isinstance(v, dict):
        items = v.items() if keep_order else sorted(v.items(), key=_key)
        return {"@": [[to_json(k, keep_order), to_json(x, keep_order)] for k, x in items]}
    return v


def from_json(v: Any) -> Any:
    """Decode what to_json produced."""
    if isinstance(v, list):
        return [from_json(x) for x in v]
    if isinstance(v, dict):
        pairs = v.get("@")
        if not isinstance(pairs, list) or len(v) != 1:
            raise ValueError("malformed map value")
        return {_hashable(from_json(k)): from_json(x) for k, x in pairs}
    if v is None or isinstance(v, (bool, int, str)):
        return v
    raise ValueError(f"unexpected value {v!r}")


def _hashable(k: Any) -> Any:
    if isinstance(k, list):
        raise ValueError("a map key cannot be a list")
    return k


def _key(kv: tuple) -> tuple:
    k = kv[0]
    return (type(k).__name__, k)


NUMBER_DIGITS = 30         # numbers longer than this are shown in scientific form


def number_text(n: Any) -> str:
    """A number as text; a huge one (Python cannot print ints of over 4300 digits) as
    1.234e+5000 (a score, a tie-break)."""
    if not isinstance(n, int) or abs(n) < 10 ** NUMBER_DIGITS:
        return str(n)
    e = int(math.log10(abs(n)))
    while 10 ** e > abs(n):
        e -= 1
    while 10 ** (e + 1) <= abs(n):
        e += 1
    lead = abs(n) // 10 ** (e - 3)
    head = str(lead)
    return f"{'-' if n < 0 else ''}{head[0]}.{head[1:4]}e+{e}"
