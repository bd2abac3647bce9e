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
        offsets = [g.offset for g in observer.segments]
        sizes = [g.size for g in observer.segments]
        self.spans = list(zip(offsets, sizes))
        self.players = observer.players
        self.tail = observer.total - 2 - 2 * self.players     # the round's cell
        self._cells: dict[int, np.ndarray] = {}
        self._last: dict[int, list[Any]] = {}

    def tensor(self, s: Any, seat: int) -> np.ndarray:
        """Seat `seat`'s observation of s: the array kept for the seat (read it, copy it; do
        not write into it)."""
        ob = self.observer
        out = self._cells.get(seat)
        if out is None:
            out = self._cells[seat] = np.zeros(ob.total, np.float32)
            self._last[seat] = [_UNSEEN] * len(self.spans)
        last = self._last[seat]
        table, rows, rnd, _ = self.view(s, seat)
        k = 0
        spans = self.spans
        for f, v in zip(self.table_fields, table):
            if isinstance(v, list) and f.visibility == "owner" and f.type.kind == "map" \
                    and len(v) == 2 and isinstance(v[0], dict):
                v = v[0]                      # an owner-only map: the viewer's own entry
            if last[k] is _UNSEEN or v != last[k]:
                at, n = spans[k]
                out[at:at + n] = 0.0
                ob._field(f, v, out, at)
                last[k] = _copy(v)
            k += 1
        for row in rows:
            for f, v in zip(self.player_fields, row):
                if last[k] is _UNSEEN or v != last[k]:
                    at, n = spans[k]
                    out[at:at + n] = 0.0
                    ob._field(f, v, out, at)
                    last[k] = _copy(v)
                k += 1
        at = self.tail
        out[at:] = 0.0
        out[at] = float(rnd)
        out[at + 1 + seat] = 1.0
        node = s.pending
        who = node.player if isinstance(node, Decision) else self.players
        out[at + 1 + self.players + who] = 1.0
        return out
