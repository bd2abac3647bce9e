"""What each seat has seen: the game's record (log lines and announcements of choices and chance)
with a visibility on every part, and a running digest per seat of everything it observed.

A *visibility* is ``None`` (every seat sees it) or a list of the seats that may (``[]``: none).
It is worked out at run time from the static labels of dsl/infoflow.py: a value that depends on
the owner-only data of the players in some local slots is seen by a seat equal to all of them;
a secret value by no seat. A rendered line drops the parts its viewer may not see ("P3
mortgages a share" for "P3 mortgages a silk share"); a line meant for one player is missing
from the others' logs altogether.

Entries are JSON data (lists), so a state carrying its record still round-trips:
  ["log", audience, [[text, vis], ...]]               a 'log' statement (audience: vis of the line)
  ["choice", seat, [[text, vis], ...], label, vis, index, simultaneous]
  ["choice", seat, [[text, vis], ...], label, [seat], index, simultaneous, 1]
                                                      a step only its chooser sees (building a
                                                      deal's offer): the others see nothing of it,
                                                      not even that it was taken
  ["action", seat, name, args_text, vis, index]       an any-time action taken
  ["forced", seat, [[text, vis], ...], label, vis]   a decision with one option, not asked
  ["chance", what, label, vis]                        an explicit chance outcome
  ["revealed", [[seat, label, vis], ...]]             a simultaneous choice, once all have chosen

The viewer of a rendering is a seat (0-based), ``None`` for a spectator (public parts only), or
``ALL`` for the designer's view of everything.
"""
from __future__ import annotations

import hashlib
import marshal
from typing import Any, Callable, Optional, Sequence

ALL = "all"
Vis = Optional[list]
VisFn = Callable[[Any, list], Vis]
Viewer = Any   # int | None | "all"


def sees(vis: Vis, viewer: Viewer) -> bool:
    """May `viewer` see a part with visibility `vis`?"""
    return vis is None or viewer == ALL or (viewer is not None and viewer in vis)


def label_of(rb: Any, node: Any) -> Any:
    """The information-flow label dsl/infoflow.py worked out for an AST node."""
    return rb.flow.label(node)


def vis_fn(label: Any) -> Optional[VisFn]:
    """The run-time visibility of a static label (None: public, no function needed)."""
    if label is None:
        return None
    secret = bool(getattr(label, "secret", False))
    owners = tuple(sorted(getattr(label, "owners", ())))
    if secret:
        return lambda st, L: []
    if not owners:
        return None
    if len(owners) == 1:
        slot = owners[0]

        def one(st: Any, L: list) -> Vis:
            p = L[slot]
            return [p] if isinstance(p, int) and not isinstance(p, bool) else []
        return one

    def many(st: Any, L: list) -> Vis:
        ps = {L[s] for s in owners}
        if len(ps) != 1:
            return []
        p = ps.pop()
        return [p] if isinstance(p, int) and not isinstance(p, bool) else []
    return many


def parts_text(parts: Sequence[list], viewer: Viewer) -> str:
    """The text of [[text, vis], ...] as `viewer` sees it (hidden parts left out)."""
    return " ".join(t for t, v in parts if sees(v, viewer) and t != "")


def render(entry: list, viewer: Viewer) -> Optional[str]:
    """One record entry as `viewer` sees it, or None when the viewer sees nothing of it."""
    kind = entry[0]
    if kind == "log":
        if not sees(entry[1], viewer):
            return None
        return parts_text(entry[2], viewer)
    if kind == "choice":
        if len(entry) > 7 and viewer != entry[1] and viewer != ALL:
            return None                 # a private step (see the module docstring)
        _, seat, prompt, label, vis, _, simul = entry[:7]
        p = parts_text(prompt, viewer)
        p = f"  ({p})" if p else ""
        if viewer == seat or (sees(vis, viewer) and not simul):
            return f"P{seat + 1} chooses {label}{p}"
        return f"P{seat + 1} has chosen{p}"
    if kind == "forced":
        _, seat, prompt, label, vis = entry
        p = parts_text(prompt, viewer)
        p = f": {p}" if p else ""
        if viewer != seat and not sees(vis, viewer):
            return f"P{seat + 1} has chosen (the only option{p})"
        if label == "pass":
            return f"P{seat + 1} passes (the only option{p})"
        return f"P{seat + 1} chooses {label} (the only option{p})"
    if kind == "action":
        _, seat, name, args, vis, _ = entry
        shown = f"{name}({args})" if args and (viewer == seat or sees(vis, viewer)) else name
        return f"P{seat + 1} chooses {shown}"
    if kind == "chance":
        _, what, label, vis = entry
        return f"chance ({what}): {label}" if sees(vis, viewer) else f"chance ({what})"
    if kind == "revealed":
        shown = [f"P{seat + 1} chose {label}" for seat, label, vis in entry[1]
                 if viewer == seat or sees(vis, viewer)]
        return "revealed: " + "; ".join(shown) if shown else None
    return None


def log_for(entries: Sequence[list], viewer: Viewer) -> list[str]:
    """The lines of a record as `viewer` sees them."""
    out = []
    for e in entries:
        line = render(e, viewer)
        if line is not None:
            out.append(line)
    return out


def _mix(old: str, data: Any) -> str:
    # marshal format 2: no back-references, so the bytes do not depend on which parts of the
    # data are one object shared (format 3 and later mark a repeated object as a reference,
    # and two views a seat cannot tell apart then gave two information states)
    return hashlib.blake2b(old.encode() + marshal.dumps(data, 2), digest_size=16).hexdigest()


def record(st: Any, entry: list) -> None:
    """Append an entry to the state's record and fold what each seat sees of it into that
    seat's digest (a seat's own choice with its option index: labels may repeat)."""
    st.record.append(entry)
    seen = st.seen
    own = entry[1] if entry[0] in ("choice", "action") else -1
    for v in _watched(st):
        line = render(entry, v)
        if line is None:
            continue
        seen[v] = _mix(seen[v], (line, entry[5]) if v == own else line)


def observe_position(st: Any, view: Callable[[Any, int], Any]) -> None:
    """Fold each seat's view of the position (given by `view(state, seat)`) into its digest —
    after a step only its chooser saw (the last entry: a private choice, which changes nothing
    the others may see), his alone: their information state is what they could observe."""
    seen = st.seen
    rec = st.record
    only = rec[-1][1] if rec and len(rec[-1]) > 7 and rec[-1][0] == "choice" else None
    for v in _watched(st):
        if only is None or v == only:
            seen[v] = _mix(seen[v], view(st, v))


def _watched(st: Any) -> range:
    """The seats whose digests are kept: all, or the one seat a resampled world watches
    (engine/resample.py; the others' digests are then None)."""
    w = st.watch
    return range(len(st.seen)) if w is None else range(w, w + 1)
