"""The range of every cell of an observation tensor (engine/observation.py), from the fields'
types and the rulebook's `bounds { values LO..HI }` — what a learner's observation space says
(the PettingZoo adapter's Box).

A cell is a *flag* or a *number*. A flag (a one-hot cell of an enum member or a seat, a bool,
the "is none" cell of an optional value, the "present" cell of a map key or a slot) is 0 or 1.
A number (an integer field, the size of a collection, how many of a member a bag holds, the
round, the size of a hidden field) lies in `values LO..HI`, the range the rulebook declares
for every number a seat is shown; without that line a number's range is unbounded (-inf..inf).
A cell that may hold either (the first cell of a collection that is hidden from the seat holds
its size) is a number. `mercator check --explore` does not see tensors: tests/test_pettingzoo.py
plays random games of every shipped rulebook and checks each observation against its space.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from mercator.dsl.types import Type
from mercator.interpreter.engine.observation import Observer, _atomic

FLAG, NUMBER = 0, 1


def cell_kinds(ob: Observer) -> list[int]:
    """FLAG or NUMBER for every cell of the observer's layout, in order."""
    rb = ob.prog.rb
    out: list[int] = []
    fields = list(rb.table_fields) + [f for _ in range(ob.players) for f in rb.player_fields]
    for f in fields:
        out += [NUMBER] if f.visibility == "secret" else _kinds(ob, f.type, f.name)
    out += [NUMBER] + [FLAG] * ob.players + [FLAG] * (ob.players + 1)
    assert len(out) == ob.total
    return out


def _kinds(ob: Observer, t: Type, field: str) -> list[int]:
    k = t.kind
    if k == "int":
        return [NUMBER]
    if k in ("bool", "none"):
        return [FLAG]
    if k in ("enum", "player"):
        return [FLAG] * ob.size(t, field)
    if k == "opt":
        inner = t.args[0]
        first = NUMBER if inner.kind in ("list", "bag", "map") else FLAG
        return [first] + _kinds(ob, inner, field)
    if k == "record":
        return [c for ft in t.field_types for c in _kinds(ob, ft, field)]
    if k in ("list", "bag"):
        if _atomic(t.elem):
            return [NUMBER] * (1 + ob.size(t.elem, field))
        slot = [FLAG] + _kinds(ob, t.elem, field)
        return [NUMBER] + slot * ob._length(field, t)
    if k == "map":
        if _atomic(t.elem):
            n = len(t.elem.members) if t.elem.kind == "enum" else ob.players
            cells = ([FLAG] + _kinds(ob, t.value, field)) * n
            return [NUMBER] + cells[1:]          # a hidden map: its size in the first cell
        slot = [FLAG] + _kinds(ob, t.elem, field) + _kinds(ob, t.value, field)
        return [NUMBER] + slot * ob._length(field, t)
    raise AssertionError(f"no cells for {t}")     # Observer refused such a field already


def cell_bounds(ob: Observer) -> tuple[np.ndarray, np.ndarray]:
    """(low, high): float32 arrays of the observer's size, the range of every cell."""
    b = ob.prog.rb.bounds
    lo, hi = (b.values if b is not None and b.values is not None else (-math.inf, math.inf))
    kinds = np.array(cell_kinds(ob), np.int8)
    low = np.where(kinds == NUMBER, np.float32(lo), np.float32(0.0)).astype(np.float32)
    high = np.where(kinds == NUMBER, np.float32(hi), np.float32(1.0)).astype(np.float32)
    return low, high


def outside(ob: Observer, cells: Any) -> list[str]:
    """The segments of `cells` (an observation) with a cell outside its range: 'name[k] = v
    not in lo..hi' each (empty when every cell is inside)."""
    low, high = cell_bounds(ob)
    x = np.asarray(cells, np.float32)
    bad = np.nonzero((x < low) | (x > high))[0]
    out = []
    for i in bad:
        seg = next(g for g in ob.segments if g.offset <= i < g.offset + g.size)
        out.append(f"{seg.name}[{i - seg.offset}] = {x[i]:g} not in {low[i]:g}..{high[i]:g}")
    return out
