"""Mercator's static types and the assignability relation between them."""
from __future__ import annotations

from typing import Optional

import attrs


@attrs.frozen
class Type:
    """A static type. ``kind`` is one of: int bool str none player enum list map bag record opt any."""

    kind: str
    name: str = ""
    args: tuple["Type", ...] = ()
    members: tuple[str, ...] = ()            # enum members / record field names
    field_types: tuple["Type", ...] = ()     # record field types (same order as members)

    def __str__(self) -> str:
        if self.kind in ("enum", "record"):
            return self.name
        if self.kind in ("list", "bag", "map"):
            return f"{self.kind}<{', '.join(str(a) for a in self.args)}>"
        if self.kind == "opt":
            return f"{self.args[0]}?"
        if self.kind == "any":
            return "?"
        return self.kind

    @property
    def elem(self) -> "Type":
        """Element type of a list or bag; the key type of a map."""
        return self.args[0] if self.args else ANY

    @property
    def value(self) -> "Type":
        """Value type of a map."""
        return self.args[1] if len(self.args) > 1 else ANY

    def field(self, name: str) -> Optional["Type"]:
        """Type of a record field, or None."""
        if self.kind == "record" and name in self.members:
            return self.field_types[self.members.index(name)]
        return None


INT = Type("int")
BOOL = Type("bool")
STR = Type("str")
NONE = Type("none")
PLAYER = Type("player")
ANY = Type("any")


def list_of(t: Type) -> Type:
    """list<t>"""
    return Type("list", args=(t,))


def bag_of(t: Type) -> Type:
    """bag<t>"""
    return Type("bag", args=(t,))


def map_of(k: Type, v: Type) -> Type:
    """map<k, v>"""
    return Type("map", args=(k, v))


def opt(t: Type) -> Type:
    """t? (never nested)"""
    return t if t.kind in ("opt", "any", "none") else Type("opt", args=(t,))


def strip_opt(t: Type) -> Type:
    """The type inside an optional (or the type itself)."""
    return t.args[0] if t.kind == "opt" else t


def is_collection(t: Type) -> bool:
    """Lists, bags and maps can be iterated (a map yields its keys)."""
    return t.kind in ("list", "bag", "map")


def iter_elem(t: Type) -> Type:
    """What iterating over a value of type t yields."""
    t = strip_opt(t)
    if t.kind in ("list", "bag", "map"):
        return t.elem
    return ANY


def is_enumerable(t: Type) -> bool:
    """Types whose values can be listed: enums, bool, player (for action parameters)."""
    return t.kind in ("enum", "bool", "player")


def assignable(src: Type, dst: Type) -> bool:
    """Can a value of type src be stored where dst is expected?"""
    if src == dst or src.kind == "any" or dst.kind == "any":
        return True
    if dst.kind == "opt":
        return src.kind == "none" or assignable(strip_opt(src), dst.args[0])
    if src.kind == "opt":  # an optional used as its value: checked at run time
        return assignable(src.args[0], dst)
    if src.kind == dst.kind and src.kind in ("list", "bag", "map"):
        return all(assignable(a, b) for a, b in zip(src.args, dst.args))
    if dst.kind == "bag" and src.kind == "list":
        return assignable(src.elem, dst.elem)
    if dst.kind == "bag" and src.kind == "map":
        return assignable(src.elem, dst.elem) and assignable(src.value, INT)
    return False


def converts(src: Type, dst: Type) -> bool:
    """True if storing a value of type src where dst is expected (assignable(src, dst)) changes
    how it is held: a list or a map {T: int} becomes a bag (item -> count, no zeros), also inside
    a list or as a map's values (§3.6)."""
    s, d = strip_opt(src), strip_opt(dst)
    if d.kind == "bag":
        return s.kind in ("list", "map")
    if s.kind == d.kind and s.kind in ("list", "map") and len(s.args) == len(d.args) and s.args:
        return converts(s.args[-1], d.args[-1])
    return False


def join(a: Type, b: Type) -> Optional[Type]:
    """The common type of two branches, or None if they do not agree."""
    if assignable(a, b) and b.kind != "any":
        return b
    if assignable(b, a):
        return a
    if a.kind == "none":
        return opt(b)
    if b.kind == "none":
        return opt(a)
    return None
