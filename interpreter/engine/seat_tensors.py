"""Observation tensors kept between steps: each seat's tensor (engine/observation.py) is written
once, then only where its view changed — what the research adapters ask for at every step.

A step of a game changes few fields (a bid, a boat's position, whose turn it is), so the last
view is kept field by field (a copy: the view shares the state's own lists) and a field's
cells are cleared and written again only when its value differs from the last one seen. What
every seat sees alike (a public field, the size of a secret one) is kept once for all seats,
so that seats observing in turn write a change once; what only its owner sees, per seat. The tensor is the same as Observer.fill's for the same state (tests/test_encoding.py
compares them over random games), whatever state was asked for before: a search that jumps
between branches only finds more fields changed.
"""
from __future__ import annotations

import marshal
from itertools import compress
from operator import ne
from typing import Any

import numpy as np

from mercator.dsl.infoflow import is_owner_map
from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.observation import Observer

_UNSEEN = object()           # a field never written for this seat


def _copy(v: Any) -> Any:
    """A copy of a view value that later steps of the game cannot change."""
    if v is None or isinstance(v, (int, str)):
        return v
    return marshal.loads(marshal.dumps(v))


class SeatTensors:
    """The observation tensor of each seat of one (program, player count), kept and updated.

    What every seat sees alike (a public field, the size of a secret one) is kept once, in a
    shared tensor, and copied into a seat's when it changed since the seat's last look; what
    each seat sees of its own (an owner-only field, its entry of an owner-only map) is kept
    per seat."""

    def __init__(self, observer: Observer):
        self.observer = observer
        rb = observer.prog.rb
        self.view = observer.prog.position_view
        table_fields, player_fields = list(rb.table_fields), list(rb.player_fields)
        self.players = observer.players
        fields = table_fields + [f for _ in range(self.players) for f in player_fields]
        own = [is_owner_map(f.type, f.visibility) for f in table_fields] + \
            [f.visibility == "owner" for _ in range(self.players) for f in player_fields]
        # per segment of a field: its writer, first cell, cells, and is it an owner-only map
        self.spans = [(observer.field_writer(f), g.offset, g.size, k < len(table_fields) and
                       own[k]) for k, (f, g) in enumerate(zip(fields, observer.segments))]
        self.shared = [k for k in range(len(fields)) if not own[k]]
        self.mine = [k for k in range(len(fields)) if own[k]]
        mask = np.zeros(observer.total, np.bool_)
        for k in self.shared:
            _, at, n, _ = self.spans[k]
            mask[at:at + n] = True
        self.shared_cells = mask
        self.tail = observer.total - 2 - 2 * self.players     # the round's cell
        self._pub = np.zeros(observer.total, np.float32)
        self._pub_last: list[Any] = [_UNSEEN] * len(fields)
        self._version = 0                     # bumped when a shared field is written
        self._cells: dict[int, np.ndarray] = {}
        self._synced: dict[int, int] = {}     # per seat: the version its shared cells are of
        self._last: dict[int, list[Any]] = {}

    def tensor(self, s: Any, seat: int) -> np.ndarray:
        """Seat `seat`'s observation of s: the array kept for the seat (read it, copy it; do
        not write into it)."""
        table, rows, rnd, _ = self.view(s, seat)
        values = list(table)
        for row in rows:
            values += row
        if self._write(self.shared, values, self._pub_last, self._pub):
            self._version += 1
        out = self._cells.get(seat)
        if out is None:
            out = self._cells[seat] = np.zeros(self.observer.total, np.float32)
            self._last[seat] = [_UNSEEN] * len(values)
            self._synced[seat] = -1
        if self._synced[seat] != self._version:
            np.copyto(out, self._pub, where=self.shared_cells)
            self._synced[seat] = self._version
        self._write(self.mine, values, self._last[seat], out)
        at = self.tail
        out[at:] = 0.0
        out[at] = float(rnd)
        out[at + 1 + seat] = 1.0
        node = s.pending
        who = node.player if isinstance(node, Decision) else self.players
        out[at + 1 + self.players + who] = 1.0
        return out

    def _write(self, ks: list[int], values: list, last: list, out: np.ndarray) -> bool:
        """Write again the cells of the fields ks whose value is not the last one written
        there (`last`, copies, updated); did any change?"""
        changed = False
        spans = self.spans
        # the fields whose value differs from the last one (never written: _UNSEEN differs
        # from every value), found without a Python-level loop over the unchanged ones
        for k in compress(ks, map(ne, map(values.__getitem__, ks), map(last.__getitem__, ks))):
            v = values[k]
            w, at, n, own = spans[k]
            if n == 1:
                out[at] = 0.0
            else:
                out[at:at + n] = 0.0
            if own and isinstance(v, list) and len(v) == 2 and isinstance(v[0], dict):
                w(v[0], out, at)              # an owner-only map: the viewer's own entry
            else:
                w(v, out, at)
            last[k] = _copy(v)
            changed = True
        return changed
