"""Observation tensors kept between steps: each seat's tensor (engine/observation.py) is written
once, then only where its view changed — what the research adapters ask for at every step.

A step of a game changes few fields (a bid, a boat's position, whose turn it is), so each
seat's last view is kept field by field (a copy: the view shares the state's own lists) and a
field's cells are cleared and written again only when its value differs from the last one
seen. The tensor is the same as Observer.fill's for the same state (tests/test_encoding.py
compares them over random games), whatever state was asked for before: a search that jumps
between branches only finds more fields changed.
"""
from __future__ import annotations

import marshal
from typing import Any

import numpy as np

from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.observation import Observer

_UNSEEN = object()           # a field never written for this seat


def _copy(v: Any) -> Any:
    """A copy of a view value that later steps of the game cannot change."""
    if v is None or isinstance(v, (int, str)):
        return v
    return marshal.loads(marshal.dumps(v))


class SeatTensors:
    """The observation tensor of each seat of one (program, player count), kept and updated."""

    def __init__(self, observer: Observer):
        self.observer = observer
        rb = observer.prog.rb
        self.view = observer.prog.position_view
        self.table_fields = list(rb.table_fields)
        self.player_fields = list(rb.player_fields)
        writers = [observer.field_writer(f) for f in self.table_fields] + \
            [observer.field_writer(f) for _ in range(observer.players)
             for f in self.player_fields]
        owner_maps = [f.visibility == "owner" and f.type.kind == "map"
                      for f in self.table_fields] + \
            [False] * (observer.players * len(self.player_fields))
        # per segment: its writer, first cell, cells, and whether it is an owner-only map
        self.spans = [(w, g.offset, g.size, own) for w, g, own in
                      zip(writers, observer.segments, owner_maps)]
        self.players = observer.players
        self.tail = observer.total - 2 - 2 * self.players     # the round's cell
        self._cells: dict[int, np.ndarray] = {}
        self._last: dict[int, tuple[list[Any], list[Any]]] = {}

    def tensor(self, s: Any, seat: int) -> np.ndarray:
        """Seat `seat`'s observation of s: the array kept for the seat (read it, copy it; do
        not write into it)."""
        out = self._cells.get(seat)
        table, rows, rnd, _ = self.view(s, seat)
        if out is None:
            out = self._cells[seat] = np.zeros(self.observer.total, np.float32)
            last_table: list = [_UNSEEN] * len(table)
            last_rows: list = [[_UNSEEN] * len(r) for r in rows]
        else:
            last_table, last_rows = self._last[seat]
        k = 0
        if table != last_table:               # a field of the table changed: which?
            last_table = self._write(self.table_fields, table, last_table, out, 0, True)
        k = len(self.table_fields)
        width = len(self.player_fields)
        for p, row in enumerate(rows):
            if row != last_rows[p]:
                last_rows = last_rows[:]
                last_rows[p] = self._write(self.player_fields, row, last_rows[p], out, k, False)
            k += width
        self._last[seat] = (last_table, last_rows)
        at = self.tail
        out[at:] = 0.0
        out[at] = float(rnd)
        out[at + 1 + seat] = 1.0
        node = s.pending
        who = node.player if isinstance(node, Decision) else self.players
        out[at + 1 + self.players + who] = 1.0
        return out

    def _write(self, fields: list, values: list, last: list, out: np.ndarray, k: int,
               table: bool) -> list:
        """Write again the cells of the fields whose value is not the last one written (the
        segments from the k-th on); the new list of last values (copies)."""
        now = list(last)
        spans = self.spans
        for j, v in enumerate(values):
            if v == last[j] and last[j] is not _UNSEEN:
                continue
            w, at, n, own = spans[k + j]
            if n == 1:
                out[at] = 0.0
            else:
                out[at:at + n] = 0.0
            if own and isinstance(v, list) and len(v) == 2 and isinstance(v[0], dict):
                w(v[0], out, at)              # an owner-only map: the viewer's own entry
            else:
                w(v, out, at)
            now[j] = _copy(v)
        return now
