"""Observation tensors: what one seat sees of a position as a flat list of numbers, with a layout
(names, shapes, offsets) fixed per (rulebook, player count) and derived from the fields' types —
for the research adapters (docs/design/research.md).

The tensor is built from the seat's position view (engine/view.position_view: what the
visibility rules let it see, the sizes of what they hide), field by field in declaration order:
the table's fields, then each player's fields for seats 1..n, then the round, the viewer, and
who is to decide. A value is written by its type:

    int                     the number
    bool                    0 or 1
    enum, player            one-hot (a player: one cell per seat)
    T?                      1 if none, then T
    record                  its fields
    list/bag of enum/player its size, then how many of each member or seat it holds
    map from enum/player    for each key: 1 if present, then the value
    list/bag/map of other   its size, then `length FIELD N` slots of items (1 if present, then
                            the item; a map's item is the key, then the value)

A field the seat may not see keeps only its size (the first cell of a collection); the rest is
zero; a secret field (no seat sees it) is one cell, its size. A collection of other items needs
`bounds { length FIELD N }`, which bounds every collection inside the field too: without it
the layout is an error naming the field; a longer value in play is an error naming the bound.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import attrs

from mercator.dsl.types import Type
from mercator.interpreter.engine.encoding import EncodeError
from mercator.interpreter.engine.nodes import Decision


@attrs.frozen
class Segment:
    """One named part of the tensor: cells offset .. offset + size - 1."""

    name: str
    offset: int
    size: int


def _atomic(t: Type) -> bool:
    return t.kind in ("enum", "player")


class Observer:
    """The layout of one (program, player count) and the tensor of a seat's view."""

    def __init__(self, prog: Any, players: int):
        self.prog = prog
        self.players = players
        rb = prog.rb
        self.lengths = rb.bounds.lengths if rb.bounds is not None else {}
        self._sizes: dict[tuple[int, str], int] = {}
        self._writers: dict[tuple[int, str], Callable[[Any, Any, int], None]] = {}
        segs: list[Segment] = []
        at = 0

        def add(name: str, size: int) -> None:
            nonlocal at
            segs.append(Segment(name, at, size))
            at += size
        for f in rb.table_fields:
            add(f"table.{f.name}", self.field_size(f))
        for p in range(players):
            for f in rb.player_fields:
                add(f"P{p + 1}.{f.name}", self.field_size(f))
        add("round", 1)
        add("viewer", players)
        add("to decide", players + 1)         # a seat, or the last cell: chance or the end
        self.segments = segs
        self.total = at

    # -- sizes
    def field_size(self, f: Any) -> int:
        """Cells of a state field: a secret one (seen by no seat) is its size only."""
        return 1 if f.visibility == "secret" else self.size(f.type, f.name)

    def size(self, t: Type, field: str) -> int:
        """Cells of a value of type t in field `field` (remembered)."""
        key = (id(t), field)                  # (types live as long as their rulebook)
        n = self._sizes.get(key)
        if n is None:
            n = self._sizes[key] = self._size(t, field)
        return n

    def _size(self, t: Type, field: str) -> int:
        k = t.kind
        if k in ("int", "bool", "none"):
            return 1
        if k == "enum":
            return len(t.members)
        if k == "player":
            return self.players
        if k == "opt":
            return 1 + self.size(t.args[0], field)
        if k == "record":
            return sum(self.size(ft, field) for ft in t.field_types)
        if k in ("list", "bag"):
            if _atomic(t.elem):
                return 1 + self.size(t.elem, field)
            return 1 + self._length(field, t) * (1 + self.size(t.elem, field))
        if k == "map":
            if _atomic(t.elem):
                return self.size(t.elem, field) * (1 + self.size(t.value, field))
            return 1 + self._length(field, t) * (1 + self.size(t.elem, field)
                                                  + self.size(t.value, field))
        raise EncodeError(f"the field '{field}' holds a {t}, which has no tensor",
                          "observation tensors need fields of ints, bools, enums, players, "
                          "records and collections of them")

    def _length(self, field: str, t: Type) -> int:
        n = self.lengths.get(field)
        if n is None:
            raise EncodeError(f"the field '{field}' ({t}) needs a maximum length for a tensor",
                              f"declare it: bounds {{ length {field} N }}")
        return n

    # -- values
    def tensor(self, s: Any, viewer: int) -> list[float]:
        """The observation of seat `viewer` (0-based) as `total` numbers."""
        out = [0.0] * self.total
        self.fill(out, s, viewer)
        return out

    def fill(self, out: Any, s: Any, viewer: int) -> None:
        """Write the observation of seat `viewer` into `out` (a list or array of `total`
        zeros: only the cells that are not zero are written)."""
        rb = self.prog.rb
        table, players, rnd, _ = self.prog.position_view(s, viewer)
        at = 0
        for f, v in zip(rb.table_fields, table):
            if isinstance(v, list) and f.visibility == "owner" and f.type.kind == "map" \
                    and len(v) == 2 and isinstance(v[0], dict):
                v = v[0]                      # an owner-only map: the viewer's own entry
            at = self._field(f, v, out, at)
        for row in players:
            for f, v in zip(rb.player_fields, row):
                at = self._field(f, v, out, at)
        out[at] = float(rnd)
        at += 1
        out[at + viewer] = 1.0
        at += self.players
        node = s.pending
        who = node.player if isinstance(node, Decision) else self.players
        out[at + who] = 1.0
        assert at + self.players + 1 == self.total

    def _field(self, f: Any, v: Any, out: Any, at: int) -> int:
        if f.visibility == "secret":
            if isinstance(v, int) and not isinstance(v, bool):
                out[at] = float(v)
            return at + 1
        self._write(v, f.type, f.name, out, at)
        return at + self.size(f.type, f.name)

    def field_writer(self, f: Any) -> Callable[[Any, Any, int], None]:
        """The function writing a state field's value (as the view gives it) at a cell: what
        `_field` does, made once."""
        if f.visibility == "secret":
            def w_secret(v: Any, out: Any, at: int) -> None:
                if isinstance(v, int) and not isinstance(v, bool):
                    out[at] = float(v)
            return w_secret
        return self.writer(f.type, f.name)

    def field_writer_code(self, f: Any, x: str, out: str, at: int, pad: str,
                          names: dict[str, Any]) -> list[str]:
        """Python lines (each starting with `pad`) doing what field_writer(f)(x, out, at) does,
        for the value of the plain variable x and a constant cell: the type looked at here,
        not at every call. A type it does not write out is handed to its writer (a call,
        the function put in `names`)."""
        if f.visibility == "secret":
            return [f"{pad}if isinstance({x}, int) and not isinstance({x}, bool):",
                    f"{pad}    {out}[{at}] = float({x})"]
        return self._code(f.type, f.name, x, out, at, pad, names, 0)

    def _code(self, t: Type, field: str, x: str, out: str, at: int, pad: str,
              names: dict[str, Any], depth: int) -> list[str]:
        """writer(t, field)(x, out, at) as lines of Python (see field_writer_code)."""
        k = t.kind
        if k == "int":
            return [f"{pad}if {x}:", f"{pad}    {out}[{at}] = float({x})"]
        if k == "bool":
            return [f"{pad}if {x}:", f"{pad}    {out}[{at}] = 1.0"]
        if k in ("enum", "player"):
            n = self.size(t, field)
            return [f"{pad}if {x} is not None and 0 <= {x} < {n}:",
                    f"{pad}    {out}[{at} + {x}] = 1.0"]
        if k == "none":
            return [f"{pad}{out}[{at}] = 1.0"]
        hidden = [f"{pad}if isinstance({x}, int) and not isinstance({x}, bool):",
                  f"{pad}    {out}[{at}] = float({x})    # hidden: only its size is seen"]
        if k == "opt":
            inner_t = t.args[0]
            lines = [f"{pad}if {x} is None:", f"{pad}    {out}[{at}] = 1.0"]
            if inner_t.kind in ("list", "bag", "map"):    # hidden: its size in place
                lines += [f"{pad}elif isinstance({x}, int) and not isinstance({x}, bool):",
                          f"{pad}    {out}[{at}] = float({x})"]
            return lines + [f"{pad}else:"] + self._code(inner_t, field, x, out, at + 1,
                                                          pad + "    ", names, depth + 1)
        if k in ("list", "bag") and _atomic(t.elem):
            e = f"e{depth}"
            return hidden + [
                f"{pad}else:",
                f"{pad}    if isinstance({x}, dict):",
                f"{pad}        {x} = [{e} for {e}, m in {x}.items() for _ in range(m)]",
                f"{pad}    else:",
                f"{pad}        {x} = list({x} or [])",
                f"{pad}    {out}[{at}] = float(len({x}))",
                f"{pad}    for {e} in {x}:",
                f"{pad}        {out}[{at + 1} + {e}] += 1.0"]
        if k == "map" and _atomic(t.elem):
            n = len(t.elem.members) if t.elem.kind == "enum" else self.players
            each = 1 + self.size(t.value, field)
            y = f"y{depth}"
            lines = hidden + [f"{pad}else:", f"{pad}    {x} = {x} or {{}}"]
            for key in range(n):
                lines += [f"{pad}    if {key} in {x}:",
                          f"{pad}        {out}[{at + key * each}] = 1.0",
                          f"{pad}        {y} = {x}[{key}]"]
                lines += self._code(t.value, field, y, out, at + key * each + 1,
                                    pad + "        ", names, depth + 1)
            return lines
        name = f"_writer{len(names)}"
        names[name] = self.writer(t, field)
        return [f"{pad}{name}({x}, {out}, {at})"]

    def _write(self, v: Any, t: Type, field: str, out: Any, at: int) -> None:
        """Write value v of type t at cell `at` (its `size` cells start there, all zero)."""
        self.writer(t, field)(v, out, at)

    def writer(self, t: Type, field: str) -> Callable[[Any, Any, int], None]:
        """The function writing a value of type t in field `field` at a cell (made once per
        type and field: the type is looked at here, not at every value)."""
        key = (id(t), field)
        w = self._writers.get(key)
        if w is None:
            w = self._writers[key] = self._make_writer(t, field)
        return w

    def _make_writer(self, t: Type, field: str) -> Callable[[Any, Any, int], None]:
        k = t.kind
        if k == "int":
            def w_int(v: Any, out: Any, at: int) -> None:
                if v:
                    out[at] = float(v)
            return w_int
        if k == "bool":
            def w_bool(v: Any, out: Any, at: int) -> None:
                if v:
                    out[at] = 1.0
            return w_bool
        if k in ("enum", "player"):
            n = self.size(t, field)

            def w_one(v: Any, out: Any, at: int) -> None:
                if v is not None and 0 <= v < n:
                    out[at + v] = 1.0
            return w_one
        if k == "none":
            def w_none(v: Any, out: Any, at: int) -> None:
                out[at] = 1.0
            return w_none
        if k == "opt":
            inner_t = t.args[0]
            inner = self.writer(inner_t, field)
            sized = inner_t.kind in ("list", "bag", "map")   # hidden: its size in place

            def w_opt(v: Any, out: Any, at: int) -> None:
                if v is None:
                    out[at] = 1.0
                elif sized and isinstance(v, int) and not isinstance(v, bool):
                    out[at] = float(v)
                else:
                    inner(v, out, at + 1)
            return w_opt
        if k == "record":
            parts = []
            off = 0
            for ft in t.field_types:
                parts.append((self.writer(ft, field), off))
                off += self.size(ft, field)

            def w_record(v: Any, out: Any, at: int) -> None:
                if v is not None:
                    for x, (w, o) in zip(v, parts):
                        w(x, out, at + o)
            return w_record
        if k in ("list", "bag"):
            atomic = _atomic(t.elem)

            def w_many(v: Any, out: Any, at: int) -> None:
                if isinstance(v, int) and not isinstance(v, bool):
                    out[at] = float(v)        # hidden: only its size is seen
                    return
                if isinstance(v, dict):
                    items = [x for x, n in v.items() for _ in range(n)]
                else:
                    items = list(v or [])
                out[at] = float(len(items))
                if atomic:
                    for x in items:
                        out[at + 1 + x] += 1.0
                else:
                    self._slots(field, t, [[x] for x in items], [t.elem], out, at + 1)
            return w_many
        if k == "map":
            if _atomic(t.elem):
                n = len(t.elem.members) if t.elem.kind == "enum" else self.players
                each = 1 + self.size(t.value, field)
                value = self.writer(t.value, field)

                def w_keyed(v: Any, out: Any, at: int) -> None:
                    if isinstance(v, int) and not isinstance(v, bool):
                        out[at] = float(v)    # hidden: only its size is seen
                        return
                    v = v or {}
                    for key in range(n):
                        if key in v:
                            out[at + key * each] = 1.0
                            value(v[key], out, at + key * each + 1)
                return w_keyed

            def w_map(v: Any, out: Any, at: int) -> None:
                if isinstance(v, int) and not isinstance(v, bool):
                    out[at] = float(v)        # hidden: only its size is seen
                    return
                v = v or {}
                out[at] = float(len(v))
                self._slots(field, t, [[key, v[key]] for key in sorted(v)],
                            [t.elem, t.value], out, at + 1)
            return w_map
        raise EncodeError(f"the field '{field}' holds a {t}, which has no tensor",
                          "observation tensors need fields of ints, bools, enums, players, "
                          "records and collections of them")

    def _slots(self, field: str, t: Type, items: list[list], types: list[Type], out: Any,
               at: int) -> None:
        n = self._length(field, t)
        if len(items) > n:
            raise EncodeError(f"the field '{field}' holds {len(items)} items, more than "
                              f"bounds {{ length {field} {n} }}", "raise the bound")
        for item in items:
            out[at] = 1.0
            at += 1
            for x, xt in zip(item, types):
                self._write(x, xt, field, out, at)
                at += self.size(xt, field)

    def layout(self) -> list[tuple[str, int, int]]:
        """(name, offset, size) of every segment."""
        return [(g.name, g.offset, g.size) for g in self.segments]


def observer_for(prog: Any, players: int) -> Optional[Observer]:
    """The observer, or None when some field has no tensor (the error says which)."""
    try:
        return Observer(prog, players)
    except EncodeError:
        return None
