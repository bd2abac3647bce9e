"""Every seat's view of the position as the bytes a narrated step folds into its digest.

A narrated step folds each seat's `position_view` into that seat's digest as
``marshal.dumps(view, 2)`` (engine/seen.py). Format 2 has no back-references: the bytes of a
list are its header (``[`` and its length, four bytes little-endian) followed by the bytes of
each item, whichever objects are shared. So what every seat sees alike (the public table, each
row as a player who does not own it sees it, the round) is marshalled once, and a seat's bytes
are those pieces joined around what only it sees (its own row, its entries of an owner map,
the pending node's prompt as it reads it): the very bytes of ``marshal.dumps(view, 2)``
(tests/test_position_view.py compares them on every shipped rulebook).
"""
from __future__ import annotations

import marshal
from typing import Any, Callable, Sequence

from mercator.dsl.infoflow import is_owner_map
from mercator.interpreter.engine.view import (_own_raw, _pending_raw, _size_code, position_view,
                                              visible)

ViewBytes = Callable[[Any, Sequence[int]], list]


def _head(n: int) -> bytes:
    """The marshal (format 2) header of a list of n items."""
    return b"[" + n.to_bytes(4, "little", signed=True)


def compile_view_bytes(program: Any) -> ViewBytes:
    """views(state, seats): [marshal.dumps(position_view(program, state, v), 2) for v in
    seats], as one Python function written for this rulebook's fields."""
    rb = program.rb
    segments: list[list[str]] = [[]]       # the table's items between its owner maps
    owner_maps = []
    for i, f in enumerate(rb.table_fields):
        x = f"t[{i}]"
        if is_owner_map(f.type, f.visibility):
            owner_maps.append(i)
            segments.append([])
        elif visible(f.visibility, None, 0):
            segments[-1].append(x)
        else:
            segments[-1].append(_size_code(x, f.type))
    other, own, owned = [], [], False
    for j, f in enumerate(rb.player_fields):
        x = f"r[{j}]"
        if f.visibility == "public":
            other.append(x)
            own.append(x)
        elif f.visibility == "owner":
            other.append(_size_code(x, f.type))
            own.append(x)
            owned = True
        else:
            other.append(_size_code(x, f.type))
            own.append(_size_code(x, f.type))
    nt, nr = len(rb.table_fields), len(rb.player_fields)
    lines = ["def views(s, seats):",
             "    t = s.table",
             "    P = s.players",
             f"    if len(t) != {nt} or any(len(r) != {nr} for r in P):",
             "        return [_dumps(_slow(_prog, s, v), 2) for v in seats]",
             "    n = len(P)",
             f"    others = [_dumps([{', '.join(other)}], 2) for r in P]",
             "    rows_head = _head(n)",
             "    after = _dumps(s.round, 2)",
             "    pend = s.pending"]
    for k, seg in enumerate(segments):
        lines.append(f"    seg{k} = _dumps([{', '.join(seg)}], 2)[5:]")
    if not owned:
        lines.append("    rows = rows_head + b''.join(others)")
    lines += ["    out = []",
              "    for v in seats:"]
    if owned:
        lines += ["        if 0 <= v < n:",
                  "            r = P[v]",
                  f"            rows = b''.join([rows_head, *others[:v], _dumps([{', '.join(own)}], 2), "
                  "*others[v + 1:]])",
                  "        else:",
                  "            rows = rows_head + b''.join(others)"]
    pieces = ["_VIEW", "_TABLE", "seg0"]
    for k, i in enumerate(owner_maps):
        pieces += [f"_dumps(_own(t[{i}], v), 2)", f"seg{k + 1}"]
    pieces += ["rows", "after", "_dumps(_pend(pend, v), 2)"]
    lines.append(f"        out.append(b''.join([{', '.join(pieces)}]))")
    lines.append("    return out")
    ns: dict[str, Any] = {"_own": _own_raw, "_pend": _pending_raw, "_slow": position_view,
                          "_prog": program, "_dumps": marshal.dumps, "_head": _head,
                          "_VIEW": _head(4), "_TABLE": _head(nt)}
    exec(compile("\n".join(lines) + "\n", f"<position view bytes of {program.name}>", "exec"), ns)
    return ns["views"]
