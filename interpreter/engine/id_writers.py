"""The ids of a value written by a function made once per type (interpreter/engine/encoding.py
ActionCodec.sequences): a one-id type (an int in the options' range, an enum member, a seat, a
bool) by arithmetic, a record, collection or optional value of them by composed functions —
the same ids as ActionCodec.write, with its checks (a value it refuses is handed to write, which
says why), without looking at the type of every value (tests/test_encoding.py compares them
over random games of every shipped rulebook)."""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl.types import Type


class IdWriters:
    """The writers of ActionCodec (a mixin: they read its vocabulary's bases)."""

    PASS: int
    END: int
    NONE: int
    FALSE: int
    TRUE: int
    players: int
    player_base: int
    enum_base: dict[str, int]
    int_base: int
    int_range: Optional[tuple[int, int]]
    max_list: Optional[int]

    def write(self, v: Any, t: Any, out: list[int], s: Any = None) -> None:
        raise NotImplementedError

    def _length(self, n: int) -> None:
        raise NotImplementedError

    def _offset(self, t: Type) -> Optional[tuple[int, int, int]]:
        """(b, lo, hi) when a value v of type t in lo..hi has the id b + v (an int in the
        options' range, an enum member, a seat); None for another type."""
        k = t.kind
        if k == "int" and self.int_range is not None:
            lo, hi = self.int_range
            return self.int_base - lo, lo, hi
        if k == "enum":
            return self.enum_base[t.name], 0, len(t.members) - 1
        if k == "player":
            return self.player_base, 0, self.players - 1
        return None

    def _atom(self, t: Type) -> Optional[Any]:
        """For a type written as one id (bool, player, enum, int), the function from a value
        to its id (the checks of `write` kept); None for another type. Remembered per type."""
        cache = self.__dict__.setdefault("_atoms", {})
        key = id(t)
        if key in cache:
            return cache[key][1]
        k = t.kind
        fn: Optional[Any] = None
        if k == "bool":
            fn = lambda v: self.NONE if v is None else self.TRUE if v else self.FALSE  # noqa
        elif k == "enum":
            base = self.enum_base[t.name]
            fn = lambda v: self.NONE if v is None else base + v  # noqa: E731
        elif k == "player":
            n, base = self.players, self.player_base

            def fn(v: Any) -> int:
                if v is None:
                    return self.NONE
                if not 0 <= v < n:
                    self.write(v, t, [])      # refused, saying so (EncodeError)
                return base + v
        elif k == "int":
            def fn(v: Any) -> int:
                ids: list[int] = []
                self.write(v, t, ids)
                return ids[0]
            if k == "int" and self.int_range is not None:
                lo, hi = self.int_range
                base, slow = self.int_base - lo, fn

                def fn(v: Any) -> int:
                    return base + v if v is not None and lo <= v <= hi else slow(v)
        cache[key] = (t, fn)                  # the type kept: its id stays its own
        return fn

    def _writer(self, t: Type) -> Optional[Any]:
        """For a record, collection or optional type built of the one-id types, a function
        from a value to the list of its ids (what `write` appends, with its checks); None for
        another type. Remembered per type."""
        cache = self.__dict__.setdefault("_writers", {})
        key = id(t)
        if key in cache:
            return cache[key][1]
        cache[key] = (t, None)                # (a type that contains itself: no writer)
        fn = self._make_writer(t)
        cache[key] = (t, fn)
        return fn

    def _make_writer(self, t: Type) -> Optional[Any]:
        k = t.kind
        one = self._atom(t)
        if one is not None:
            return lambda v: [one(v)]
        slow = self._composed(t)
        if slow is None:
            return None
        return self._by_offsets(t, slow) or slow

    def _by_offsets(self, t: Type, slow: Any) -> Optional[Any]:
        """For a record of values with an id by arithmetic (ints in the options' range, enum
        members, seats: `_offset`), or a list, bag or map of them, a function that writes a
        value's ids with no call per item (the composed writer calls two functions an id:
        Manila's loadings of the boats, maps of three goods to a number of steps, 25 a
        decision, were most of the time of the menus written anew); a value it cannot write
        so (None, out of range, of another shape) is handed to `slow`, the composed writer,
        which writes it or says why not."""
        k = t.kind
        if k == "record":
            offs = [self._offset(ft) for ft in t.field_types]
            if not offs or any(o is None for o in offs):
                return None
            none, n = self.NONE, len(offs)
            plan = [o for o in offs if o is not None]     # (all of them: for the checker)

            def record(v: Any) -> list[int]:
                if v is None:
                    return [none]
                if len(v) == n:
                    try:
                        out = [b + x for x, (b, lo, hi) in zip(v, plan) if lo <= x <= hi]
                    except TypeError:             # None among the fields
                        return slow(v)
                    if len(out) == n:
                        return out
                return slow(v)
            return record
        if k not in ("list", "bag", "map"):
            return None
        item = self._offset(t.elem)
        value = self._offset(t.value) if k == "map" else (0, 0, 0)
        if item is None or value is None:
            return None
        (ib, ilo, ihi), (vb, vlo, vhi) = item, value
        end, most = self.END, self.max_list

        def many(v: Any) -> list[int]:
            if k == "map":
                if type(v) is not dict or (most is not None and len(v) > most):
                    return slow(v)
                out: list[int] = []
                try:
                    for x in sorted(v):
                        y = v[x]
                        if not (ilo <= x <= ihi and vlo <= y <= vhi):
                            return slow(v)
                        out.append(ib + x)
                        out.append(vb + y)
                except TypeError:                 # None as a key or a value
                    return slow(v)
                out.append(end)
                return out
            if k == "list":
                items = v
            elif isinstance(v, dict):
                items = sorted(x for x, c in v.items() for _ in range(c))
            else:
                items = sorted(v)
            if most is not None and len(items) > most:
                return slow(v)
            try:
                out = [ib + x for x in items if ilo <= x <= ihi]
            except TypeError:
                return slow(v)
            if len(out) != len(items):
                return slow(v)
            out.append(end)
            return out
        return many

    def _composed(self, t: Type) -> Optional[Any]:
        """The writer of a record, collection or optional type composed of its parts'
        writers; None for another type."""
        k = t.kind
        if k == "opt":
            inner = self._writer(t.args[0])
            none = self.NONE
            return None if inner is None else (lambda v: [none] if v is None else inner(v))
        if k == "record":
            found = [self._writer(ft) for ft in t.field_types]
            parts: list[Any] = [w for w in found if w is not None]
            if len(parts) != len(found):
                return None

            def record(v: Any) -> list[int]:
                if v is None:
                    return [self.NONE]
                out: list[int] = []
                for x, w in zip(v, parts):
                    out += w(x)
                return out
            return record
        if k in ("list", "bag", "map"):
            item = self._writer(t.elem)
            value = self._writer(t.value) if k == "map" else None
            if item is None or (k == "map" and value is None):
                return None
            end, length = self.END, self._length

            def many(v: Any) -> list[int]:
                if k == "list":
                    items = v
                elif isinstance(v, dict):
                    items = sorted(x for x, n in v.items() for _ in range(n)) if k == "bag" \
                        else sorted(v)
                else:
                    items = sorted(v)
                length(len(items))
                out: list[int] = []
                for x in items:
                    out += item(x)
                    if value is not None:
                        out += value(v[x])
                out.append(end)
                return out
            return many
        return None

