"""Observation tensors kept between steps: each seat's tensor (engine/observation.py) is written
once, then only where its view changed — what the research adapters ask for at every step.

A step of a game changes few fields (a bid, a boat's position, whose turn it is), so the last
view is kept field by field (a copy: the view shares the state's own lists) and a field's
cells are cleared and written again only when its value differs from the last one seen. What
every seat sees alike (a public field, the size of a secret one) is kept once for all seats,
so that seats observing in turn write a change once; what only its owner sees, per seat. The
comparisons and writes are one Python function written per rulebook, player count and seat
(`SeatTensors._update_function`), as the position view is. The tensor is the same as
Observer.fill's for the same state (tests/test_seat_tensors.py compares them over random
games), whatever state was asked for before: a search that jumps between branches only finds
more fields changed.
"""
from __future__ import annotations

import marshal
from itertools import compress
from operator import ne
from typing import Any, Callable, Optional

import numpy as np

from mercator.dsl.types import Type
from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.observation import Observer
from mercator.interpreter.engine.view import (is_owner_map, player_field_code, seen_alike,
                                              table_field_code, visible, written)

_UNSEEN = object()           # a field never written for this seat


def _copy(v: Any) -> Any:
    """A copy of a view value that later steps of the game cannot change."""
    if v is None or isinstance(v, (int, str)):
        return v
    return marshal.loads(marshal.dumps(v))


def _copy_list(v: Any) -> Any:
    """_copy of a list of unchangeable items (or of what stands in its place: a size)."""
    return v[:] if type(v) is list else _copy(v)


def _copy_dict(v: Any) -> Any:
    """_copy of a bag, or a map to unchangeable values (or of a size in its place)."""
    return v.copy() if type(v) is dict else _copy(v)


def _copy_dict_of_lists(v: Any) -> Any:
    """_copy of a map to lists of unchangeable items (or of a size in its place)."""
    if type(v) is not dict:
        return _copy(v)
    return {k: x[:] if type(x) is list else _copy(x) for k, x in v.items()}


def _unchangeable(t: Type) -> bool:
    """Is a value of type t never changed in place (a number, a member, a seat)?"""
    return t.kind in ("int", "bool", "str", "none", "enum", "player") or \
        t.kind == "opt" and _unchangeable(t.args[0])


def _copier(t: Type) -> Optional[Callable[[Any], Any]]:
    """How to keep a field's last value of type t (or the size shown in its place): None when
    it cannot change in place (kept as it is), a shallow copy when only its container can
    (a tenth of marshal's round trip: Manila's share bag 0.06 µs against 0.45, its offices
    0.08 against 1.25), else _copy."""
    if t.kind == "opt":
        return _copier(t.args[0])
    if _unchangeable(t):
        return None
    if t.kind == "list" and _unchangeable(t.elem):
        return _copy_list
    if t.kind == "bag" and _unchangeable(t.elem) or t.kind == "map" and _unchangeable(t.value):
        return _copy_dict
    if t.kind == "map" and t.value.kind == "list" and _unchangeable(t.value.elem):
        return _copy_dict_of_lists    # Manila's crews: 0.48 µs against marshal's 0.56-0.70
    return _copy


class SeatTensors:
    """The observation tensor of each seat of one (program, player count), kept and updated.

    What every seat sees alike (a public field, the size of a secret one) is kept once, in a
    shared tensor, and copied into a seat's when it changed since the seat's last look; what
    each seat sees of its own (an owner-only field, its entry of an owner-only map) is kept
    per seat. The values are read from the state by one function written for the rulebook's
    fields and this player count (`_values_function`): the position view's values, without
    building the view. With `extra`, each seat's tensor has that many cells more at its end,
    always 0 (room for what the caller puts after the view's cells in its copy)."""

    def __init__(self, observer: Observer, extra: int = 0):
        self.observer = observer
        self.size = observer.total + extra
        rb = observer.prog.rb
        self.view = observer.prog.position_view
        table_fields, player_fields = list(rb.table_fields), list(rb.player_fields)
        self.players = observer.players
        fields = table_fields + [f for _ in range(self.players) for f in player_fields]
        alike = [seen_alike(f, True) for f in table_fields] + \
            [seen_alike(f, False) for _ in range(self.players) for f in player_fields]
        # per segment of a field: its writer, first cell, cells, is it an owner-only map (shown
        # as [the viewer's own entry, size]), and how its last value is kept
        owner_map = [k < len(table_fields) and not alike[k] for k in range(len(fields))]
        # an owner-only map's [own entry, size] is made anew at each look (view._own_raw):
        # only the entry's values can be the state's own
        spans = [(observer.field_writer(f), g.offset, g.size, owner_map[k],
                  (None if _unchangeable(f.type.value) else _copy) if owner_map[k]
                  else _copier(f.type))
                 for k, (f, g) in enumerate(zip(fields, observer.segments))]
        self.shared = [k for k in range(len(fields)) if alike[k]]
        self.mine = [k for k in range(len(fields)) if not alike[k]]
        self.shared_spans = [spans[k] for k in self.shared]
        self.mine_spans = [spans[k] for k in self.mine]
        self.values = self._values_function()
        mask = np.zeros(self.size, np.bool_)
        for _, at, n, _, _ in self.shared_spans:
            mask[at:at + n] = True
        self.shared_cells = mask
        self.tail = observer.total - 2 - 2 * self.players     # the round's cell
        self._pub = np.zeros(self.size, np.float32)
        self._pubv = self._pub.data    # a memoryview (the updates write their cells through it)
        self._pub_last: list[Any] = [_UNSEEN] * len(self.shared)
        self._version = 0                     # bumped when a shared field is written
        # per seat: its tensor, the last values written in it, the version of its shared
        # cells, its update
        self._seats: dict[int, list] = {}
        # the seats' updates written now, not at their first look, where the first steps
        # of a game paid for them (Manila 4p: 16 ms, a tenth of 20 games through PettingZoo)
        for seat in range(self.players):
            self._update_of(seat)

    def _values_function(self) -> Callable[[Any, int], tuple[list, list]]:
        """values(s, seat): what the seat's position view shows of each field, as two lists —
        the fields every seat sees alike (self.shared's order), then the seat's own
        (self.mine's) — written as one Python function for this rulebook and player count; a
        state whose table or rows have another length than the rulebook's fields is read
        through the position view."""
        rb = self.observer.prog.rb
        nt, nr, n = len(rb.table_fields), len(rb.player_fields), self.players
        code = [table_field_code(f, f"t[{i}]", "v") for i, f in enumerate(rb.table_fields)]
        code += [player_field_code(f, f"r{p}[{j}]", str(p), "v")
                 for p in range(n) for j, f in enumerate(rb.player_fields)]
        rows = ", ".join(f"r{p}" for p in range(n))
        src = (f"def values(s, v):\n"
               f"    t = s.table\n"
               f"    P = s.players\n"
               f"    if len(t) != {nt} or len(P) != {n}:\n"
               f"        return _viewed(s, v)\n"
               f"    ({rows},) = P\n"
               f"    if {' or '.join(f'len(r{p}) != {nr}' for p in range(n))}:\n"
               f"        return _viewed(s, v)\n"
               f"    return [{', '.join(code[k] for k in self.shared)}], "
               f"[{', '.join(code[k] for k in self.mine)}]\n")
        name = self.observer.prog.name
        return written(src, f"<seat values of {name}, {n} players>", "values",
                       {"_viewed": self._viewed})

    def _viewed(self, s: Any, seat: int) -> tuple[list, list]:
        """What `values` gives, read from the position view (a state of another shape)."""
        table, rows, _, _ = self.view(s, seat)
        values = list(table)
        for row in rows:
            values += row
        return [values[k] for k in self.shared], [values[k] for k in self.mine]

    def _update_function(self, seat: int, inline: bool = True) -> Callable[..., Optional[bool]]:
        """update(s, v, L, o, M, out) for seat v = `seat`: what `values` reads, compared field
        by field with the last values written and the changed fields' cells written again —
        the fields seen alike into o (the shared tensor, their last values in L), the seat's
        own into out (its tensor, M), then the round's and the mover's cells of out (M's last
        two) — as one Python function for this rulebook, player count and seat; is a field
        seen alike changed? None for a state of another shape (nothing written: the caller
        reads it through the view). o and out are memoryviews of the float32 tensors: a cell
        written through one costs half what numpy's item assignment does, and a field's
        cells are cleared by copying a view of as many zeros (a quarter of `a[i:j] = 0.0`);
        every writer writes one cell at a time, so it writes through them alike.

        Written out because the generic loop (`_write`) cost more than the writes: a field's
        spans unpacked, its type's tests and a call to its writer, for the 2 or 3 fields of
        42 that change in a step of Manila 4p. Written per seat because what a seat sees of
        each seat's owner-only field is known here: the value for its own, the size for the
        others'. With `inline`, a one-cell number or truth, and a size shown in place of a
        hidden collection (always in the field's first cell: nothing else of it is ever
        written for this seat), are written in place; anything else by its field writer's code
        (Observer.field_writer_code; without `inline`, a call to the writer). The cells and last
        values are `_write`'s, so the tensor is the same."""
        rb = self.observer.prog.rb
        nt, nr, n = len(rb.table_fields), len(rb.player_fields), self.players
        code = [table_field_code(f, f"t[{i}]", str(seat)) for i, f in enumerate(rb.table_fields)]
        code += [player_field_code(f, f"r{p}[{j}]", str(p), str(seat))
                 for p in range(n) for j, f in enumerate(rb.player_fields)]
        fields = list(rb.table_fields) + [f for _ in range(n) for f in rb.player_fields]
        # does the seat see only a size (or None) of the field: hidden from it, not its entry
        sized = [not is_owner_map(f.type, f.visibility) and not visible(f.visibility, None, 0)
                 for f in rb.table_fields]
        sized += [not visible(f.visibility, p, seat) for p in range(n) for f in rb.player_fields]
        ns: dict[str, Any] = {"_Decision": Decision, "_UNSEEN": _UNSEEN}
        rows = ", ".join(f"r{p}" for p in range(n))
        lines = ["def update(s, v, L, o, M, out):",
                 "    t = s.table",
                 "    P = s.players",
                 f"    if len(t) != {nt} or len(P) != {n}:",
                 "        return None",
                 f"    ({rows},) = P",
                 f"    if {' or '.join(f'len(r{p}) != {nr}' for p in range(n))}:",
                 "        return None",
                 "    c = False"]

        def field(j: int, k: int, span: tuple, last: str, arr: str, shared: bool) -> None:
            w, at, size, own, keep = span
            f = fields[k]
            kind = f.type.kind
            lines.append(f"    x = {code[k]}")
            lines.append(f"    if x != {last}[{j}]:")
            if inline and sized[k] and (f.visibility == "secret" or
                                        kind in ("list", "bag", "map")):
                # the writers' own rule for a size: its number (0 for none) in the first cell
                lines.append(f"        {arr}[{at}] = float(x) if x else 0.0")
                keep = None                   # a size, or None: nothing to copy
            elif inline and sized[k] and kind == "opt" and \
                    f.type.args[0].kind in ("list", "bag", "map"):
                lines.append(f"        {arr}[{at}] = 1.0 if x is None else float(x)")
                keep = None
            elif inline and size == 1 and kind == "int" and f.visibility != "secret":
                lines.append(f"        {arr}[{at}] = float(x) if x else 0.0")
            elif inline and size == 1 and kind == "bool" and f.visibility != "secret":
                lines.append(f"        {arr}[{at}] = 1.0 if x else 0.0")
            else:
                name = f"_w{arr}{j}"
                ns[name] = w
                ns[f"_Z{size}"] = np.zeros(size, np.float32).data
                lines.append(f"        {arr}[{at}] = 0.0" if size == 1 else
                             f"        {arr}[{at}:{at + size}] = _Z{size}")
                if own:       # an owner-only map: the viewer's own entry
                    lines.append(f"        {name}(x[0] if isinstance(x, list) and len(x) == 2 "
                                 f"and isinstance(x[0], dict) else x, {arr}, {at})")
                elif inline:  # the writer's code, on a name of its own (x is kept below)
                    lines.append("        y = x")
                    lines.extend(self.observer.field_writer_code(f, "y", arr, at, " " * 8, ns))
                else:
                    lines.append(f"        {name}(x, {arr}, {at})")
            if keep is None:
                lines.append(f"        {last}[{j}] = x")
            else:
                ns[f"_k{arr}{j}"] = keep
                lines.append(f"        {last}[{j}] = _k{arr}{j}(x)")
            if shared:
                lines.append("        c = True")

        for j, (k, span) in enumerate(zip(self.shared, self.shared_spans)):
            field(j, k, span, "L", "o", True)
        for j, (k, span) in enumerate(zip(self.mine, self.mine_spans)):
            field(j, k, span, "M", "out", False)
        m, at = len(self.mine), self.tail
        lines += ["    x = s.round",
                  f"    if x != M[{m}]:",
                  f"        out[{at}] = float(x)",
                  f"        M[{m}] = x",
                  "    x = s.pending",
                  f"    x = x.player if isinstance(x, _Decision) else {n}",
                  f"    if x != M[{m + 1}]:",
                  f"        if M[{m + 1}] is not _UNSEEN:",
                  f"            out[{at + 1 + n} + M[{m + 1}]] = 0.0",
                  f"        out[{at + 1 + n} + x] = 1.0",
                  f"        M[{m + 1}] = x",
                  "    return c"]
        name = self.observer.prog.name
        return written("\n".join(lines) + "\n",
                       f"<seat tensor update of {name}, {n} players, seat {seat}>", "update", ns)

    def tensor(self, s: Any, seat: int) -> np.ndarray:
        """Seat `seat`'s observation of s: the array kept for the seat (read it, copy it; do
        not write into it)."""
        kept = self._seats.get(seat)
        if kept is None:
            kept = self._seats[seat] = self._new_seat(seat)
        out, last, synced, update, view = kept
        changed = update(s, seat, self._pub_last, self._pubv, last, view)
        if changed is None:                     # a state of another shape
            changed = self._slow(s, seat, last, out)
        if changed:
            self._version += 1
        if synced != self._version:
            np.copyto(out, self._pub, where=self.shared_cells)
            kept[2] = self._version
        return out

    def _new_seat(self, seat: int) -> list:
        """A seat's kept tensor (the seat's own cell of the last ones written once), the last
        values of its own fields, then of the round and the mover (never written), and the
        version of the shared cells in its tensor (none), its update, and a memoryview of the
        tensor (what the update writes through)."""
        out = np.zeros(self.size, np.float32)
        out[self.tail + 1 + seat] = 1.0
        return [out, [_UNSEEN] * (len(self.mine) + 2), -1, self._update_of(seat),
                out.data]

    def _update_of(self, seat: int) -> Callable[..., Optional[bool]]:
        """The seat's update (`_update_function`), written once a process for the program,
        player count and seat (2.5-2.9 ms each in Manila 4p)."""
        written = self.observer.prog.written
        key = ("seat tensor update", self.players, seat)
        update = written.get(key)
        if update is None:
            update = written[key] = self._update_function(seat)
        return update

    def _slow(self, s: Any, seat: int, last: list, out: np.ndarray) -> bool:
        """What a seat's update does, for a state of another shape: its values read through
        the view."""
        shared, mine = self._viewed(s, seat)
        changed = self._write(self.shared_spans, shared, self._pub_last, self._pub)
        m = len(mine)
        self._write(self.mine_spans, mine, last, out)
        at = self.tail
        if s.round != last[m]:
            out[at] = float(s.round)
            last[m] = s.round
        node = s.pending
        who = node.player if isinstance(node, Decision) else self.players
        if who != last[m + 1]:
            if last[m + 1] is not _UNSEEN:
                out[at + 1 + self.players + last[m + 1]] = 0.0
            out[at + 1 + self.players + who] = 1.0
            last[m + 1] = who
        return changed

    @staticmethod
    def _write(spans: list, values: list, last: list, out: np.ndarray) -> bool:
        """Write again the cells of the fields (spans, values: in the same order) whose value
        is not the last one written there (`last`, copies, updated); did any change?"""
        changed = False
        # the fields whose value differs from the last one (never written: _UNSEEN differs
        # from every value), found without a Python-level loop over the unchanged ones
        for k in compress(range(len(values)), map(ne, values, last)):
            v = values[k]
            w, at, n, own, keep = spans[k]
            if n == 1:
                out[at] = 0.0
            else:
                out[at:at + n] = 0.0
            if own and isinstance(v, list) and len(v) == 2 and isinstance(v[0], dict):
                w(v[0], out, at)              # an owner-only map: the viewer's own entry
            else:
                w(v, out, at)
            last[k] = v if keep is None else keep(v)
            changed = True
        return changed
