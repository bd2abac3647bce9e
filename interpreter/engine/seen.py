"""What each seat has seen: the game's record (log lines and announcements of choices and chance)
with a visibility on every part, and a running digest per seat of everything it observed
(brought up to date when first read: `Unfolded`).

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
  ["round", n, name]                                  round n of the game begins, a round of the
                                                      stage `name` (a heading of the readable
                                                      log; no seat's line: digests skip it)

The viewer of a rendering is a seat (0-based), ``None`` for a spectator (public parts only), or
``ALL`` for the designer's view of everything.
"""
from __future__ import annotations

import hashlib
import re
import marshal
from typing import Any, Callable, Optional, Sequence

from mercator.interpreter.engine.people import name_words

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
    return None          # a "round" entry: a heading of the readable log only (readable_log)


def log_for(entries: Sequence[list], viewer: Viewer) -> list[str]:
    """The lines of a record as `viewer` sees them."""
    out = []
    for e in entries:
        line = render(e, viewer)
        if line is not None:
            out.append(line)
    return out


def readable_log(entries: Sequence[list], viewer: Viewer,
                 words: Optional[Callable[[str], str]] = None) -> list[str]:
    """The lines of a record as a person at seat `viewer` reads them (the terminal, the
    browser): as log_for renders them, less what only repeats. A choice or an any-time action
    the viewer sees and the rules narrate themselves — a line the viewer sees, before the next
    step, that begins with the chooser ("P2 …", or "you …" in a line to him) and names what
    was chosen ("P2 places an accomplice on silk_boat" after "P2 chooses silk_boat", "P2
    passes" after "P2 chooses pass", "P1 mortgages a silk share" after "P1 chooses
    mortgage(silk)"; for a pass, any line of his: "P1 places no more accomplices this voyage")
    — is told once, in the rules' words (the chooser's own steps in between passed over: a
    placement paid for by a forced mortgage is told after the mortgage); a choice hidden from
    the viewer keeps its "has chosen (…)" line (one space before the prompt: log_for keeps two)
    unless the chooser's next line tells it with the prompt's first word ("P3 mortgages a
    share" after "P3 has chosen (mortgage a share …)"); a step of a
    shuffle the viewer cannot see is left out (the
    view shows the pile); a line repeated at once is written once with its count ("the die
    shows 6 (×2)"). log_for stays what a seat has seen, entry by entry (its digest, the bots'
    information state). `words` rewrites each line in the words a person reads
    (engine/people.py: `silk_boat` as 'silk boat', a record without braces)."""
    lines: list[str] = []
    counts: list[int] = []
    n = len(entries)
    for i, e in enumerate(entries):
        kind = e[0]
        if kind == "round":                # a new round: a heading, for every seat
            lines.append(f"— {name_words(e[2]) if len(e) > 2 else 'round'} {e[1]} —")
            counts.append(1)
            continue
        if kind == "chance" and e[1] == "shuffle" and not sees(e[3], viewer):
            continue
        line = render(e, viewer)
        if line is not None and kind in ("choice", "action") and \
                _narrated(entries, i, e[1], _chosen(e, line), viewer, n,
                          _verb(e, viewer) if kind == "choice" else None):
            continue
        if line is None:
            continue
        if kind == "choice":
            line = line.replace("  (", " (", 1)       # "P2 has chosen (bid)"
        if lines and lines[-1] == line:
            counts[-1] += 1
            continue
        lines.append(line)
        counts.append(1)
    if words is not None:
        lines = [words(line) for line in lines]
    return [line if k == 1 else f"{line} (×{k})" for line, k in zip(lines, counts)]


_WORDS = re.compile(r"-?\w+")


def _chosen(entry: list, line: str) -> Optional[list[str]]:
    """The words of what the line says was chosen (a record's field names left out), or None
    when the viewer is not told what (a hidden or secret choice)."""
    head = f"P{entry[1] + 1} chooses "
    if not line.startswith(head):
        return None
    label = line[len(head):].split("  (")[0]
    keys = set(re.findall(r"(\w+):", label))
    return [w.lower() for w in _WORDS.findall(label) if w not in keys]


def _verb(entry: list, viewer: Viewer) -> Optional[str]:
    """The first word of a choice's prompt as `viewer` sees it ("mortgage" in "mortgage a share
    to raise the money"), lower case; None without one."""
    words = _WORDS.findall(parts_text(entry[2], viewer))
    return words[0].lower() if words else None


def _narrated(entries: Sequence[list], i: int, seat: int, chosen: Optional[list[str]],
              viewer: Viewer, n: int, verb: Optional[str] = None) -> bool:
    """Do the rules narrate the step at entries[i] — in a line `viewer` sees, before another
    seat's step or a chance step (the chooser's own steps in between are passed over: a
    placement paid for by a forced mortgage is told after the mortgage), that begins with the
    chooser and names every word of what was chosen (a word of three letters or more may end
    differently: 'pass', 'passes')? A choice hidden from the viewer (`chosen` None) counts as
    narrated by the chooser's next line before any other step if that line has the prompt's
    first word, `verb` ("P3 mortgages a share" after "P3 has chosen (mortgage a share …)"; not
    "P1 keeps" after "P1 has chosen (pick a card face down)")."""
    heads = (f"P{seat + 1} ", "you ")
    if chosen is None:
        if verb is None or len(verb) < 3:
            return False
        for e in entries[i + 1:n]:
            if e[0] == "round":
                continue
            if e[0] != "log":
                return False
            line = render(e, viewer)
            if line is not None and line.startswith(heads):
                return any(w.lower().startswith(verb) for w in _WORDS.findall(line))
        return False
    if not chosen:
        return False
    for e in entries[i + 1:n]:
        if e[0] == "round":
            continue
        if e[0] != "log":
            if e[0] in ("choice", "forced", "action") and e[1] == seat:
                continue         # his own next step within this one
            return False
        line = render(e, viewer)
        if line is None or not line.startswith(heads):
            continue
        if chosen == ["pass"]:
            return True          # a pass has no words of its own: the rules' line tells it
        words = [w.lower() for w in _WORDS.findall(line)]
        if all(any(w == c or (len(c) >= 3 and w.startswith(c)) for w in words) for c in chosen):
            return True
    return False


_blake2b = hashlib.blake2b
_dumps = marshal.dumps
_loads = marshal.loads


def _mix(old: str, data: Any) -> str:
    # marshal format 2: no back-references, so the bytes do not depend on which parts of the
    # data are one object shared (format 3 and later mark a repeated object as a reference,
    # and two views a seat cannot tell apart then gave two information states)
    return _blake2b(old.encode() + _dumps(data, 2), digest_size=16).hexdigest()


def _public(parts: Sequence[list]) -> bool:
    """Is every part of [[text, vis], ...] seen by every viewer?"""
    for _, v in parts:
        if v is not None:
            return False
    return True


def _alike(entry: list) -> Optional[str]:
    """The line every seat sees of an entry when it is the same for all (nothing in it hidden
    from anyone: render gives every viewer this very text), else None."""
    kind = entry[0]
    if kind == "log":
        if entry[1] is None and _public(entry[2]):
            return " ".join([t for t, _ in entry[2] if t != ""])
        return None
    if kind == "chance":
        return f"chance ({entry[1]}): {entry[2]}" if entry[3] is None else None
    if kind == "choice":
        if len(entry) > 7 or entry[4] is not None or entry[6] or not _public(entry[2]):
            return None
        p = " ".join([t for t, _ in entry[2] if t != ""])
        return f"P{entry[1] + 1} chooses {entry[3]}  ({p})" if p else \
            f"P{entry[1] + 1} chooses {entry[3]}"
    return None


def _fold_entry(seen: list, entry: list, seats: Sequence[int]) -> None:
    """Fold what each of `seats` sees of a record entry into its digest (a seat's own choice
    with its option index: labels may repeat)."""
    own = entry[1] if entry[0] in ("choice", "action") else -1
    same = _alike(entry)
    if same is not None:              # one line for all: its bytes made once
        m = _dumps(same, 2)
        for v in seats:
            seen[v] = _mix(seen[v], (same, entry[5])) if v == own else \
                _blake2b(seen[v].encode() + m, digest_size=16).hexdigest()
        return
    for v in seats:
        line = render(entry, v)
        if line is None:
            continue
        seen[v] = _mix(seen[v], (line, entry[5]) if v == own else line)


def _fold_views(seen: list, position: Any, views: Callable[[Any, Sequence[int]], list],
                seats: Sequence[int]) -> None:
    """Fold each of `seats`' view of `position` (anything with the state's table, players,
    round and pending) into its digest."""
    for v, b in zip(seats, views(position, seats)):
        seen[v] = _blake2b(seen[v].encode() + b, digest_size=16).hexdigest()


def record(st: Any, entry: list) -> None:
    """Append an entry to the state's record. The seats' digests take it in when they are first
    read (`Unfolded`); a state without one (a resampled world, a state whose digests were read)
    folds it in at once."""
    st.record.append(entry)
    if st.unfolded is None:
        _fold_entry(st._seen, entry, _watched(st))


def observe_position(st: Any, views: Callable[[Any, Sequence[int]], list]) -> None:
    """At the end of a step, the seats observe the position: each one's view (`views(state,
    seats)`: each seat's view as marshal.dumps(view, 2), engine/view_bytes.py) is folded into
    its digest after the step's entries — kept for when the digests are first read
    (`Unfolded`), or folded at once in a state without one."""
    u = st.unfolded
    if u is not None:
        if u.base is None:          # (a game from new_game keeps nothing: it is replayed)
            u.steps.append((len(st.record), _dumps((st.table, st.players), 2), st.round,
                            st.pending, views))
        return
    _fold_views(st._seen, st, views, _observers(_watched(st), st.record, len(st.record)))


def _observers(seats: Sequence[int], entries: list, end: int) -> Sequence[int]:
    """Those of `seats` who observe the position a step left, its entries ending at `end`:
    after a step only its chooser saw (the last entry: a private choice, which changes nothing
    the others may see), he alone — their information state is what they could observe."""
    k = end - 1
    while k >= 0 and entries[k][0] == "round":      # a heading is nobody's step
        k -= 1
    if k >= 0 and len(entries[k]) > 7 and entries[k][0] == "choice":
        return [v for v in seats if v == entries[k][1]]
    return seats


def _watched(st: Any) -> range:
    """The seats whose digests are kept: all, or the one seat a resampled world watches
    (engine/resample.py; the others' digests are then None)."""
    w = st.watch
    return range(len(st._seen)) if w is None else range(w, w + 1)


class _Position:
    """A position as a step left it, for the view of it folded later: what views read."""

    __slots__ = ("table", "players", "round", "pending")

    def __init__(self, table: list, players: list, round_: int, pending: Any):
        self.table = table
        self.players = players
        self.round = round_
        self.pending = pending


class Unfolded:
    """What the seats of a narrated game have observed and their digests have not yet taken in
    (State.seen folds it when first read, and the state folds at once from then on).

    Folding is most of what narration costs: after every step a view of the position for every
    seat, and a hash per seat of each entry and each view. Many narrated games never have their
    digests read (random games, a game told as it is played), so until they are the state
    keeps what the fold needs to make the same views and hashes, in the same order, as folding
    at once would have made:

    - a game started by Program.new_game keeps only `base`, a fork of itself as it stood at
      its first position (before that position was observed), and `prog`; the fold replays
      the state's decision log (`history`: its choices and chance outcomes) on a fork of
      `base` that folds at once, and checks that the replay made the same decision log and
      record (Program.set, which changes the position otherwise, reads the digests first; a
      replay that does not give the same record raises RuntimeError). Nothing is kept per
      step: marshalling the position after every step, which the replay replaces, was the
      largest part of what an unread narrated step cost (6 of the 14 µs narration added to a
      decision in Felinia 4p);
    - a state loaded by State.from_json (which has no program to replay with) keeps, per
      step, the length of the record at its end, the position it left (the table and rows
      marshalled, as they change in place; the round; the pending node, never changed once
      made) and the views function, and the fold makes each view from those.

    A resampled world (State.watch) has none: its digest is compared after every step."""

    __slots__ = ("folded", "steps", "base", "prog")

    def __init__(self, folded: int, base: Any = None, prog: Any = None):
        self.folded = folded       # the record's entries already in the digests
        self.steps: list[tuple] = []
        self.base = base           # the state at its first position, never changed (a fork)
        self.prog = prog           # the Program whose apply replays on `base`

    def copy(self) -> "Unfolded":
        """An independent copy (for a forked state: `base` and the positions' bytes are
        shared; neither is ever changed)."""
        u = Unfolded(self.folded, self.base, self.prog)
        u.steps = list(self.steps)
        return u

    def fold(self, st: Any) -> None:
        """Bring every seat's digest of the state `st` (st._seen) up to the end of its record
        (once: the state then folds at once)."""
        if self.base is not None:
            self._replay(st)
            return
        entries, seen = st.record, st._seen
        seats = range(len(seen))
        at = self.folded
        for end, position, round_, pending, views in self.steps:
            for i in range(at, end):
                _fold_entry(seen, entries[i], seats)
            at = end
            observers = _observers(seats, entries, end)
            if observers:
                table, players = _loads(position)
                _fold_views(seen, _Position(table, players, round_, pending), views, observers)
        for i in range(at, len(entries)):
            _fold_entry(seen, entries[i], seats)

    def _replay(self, st: Any) -> None:
        """The fold of a state from new_game: its decision log replayed on a fork of `base`
        that folds at once into st's digests (the same entries and views, in the same order),
        then the entries recorded since its last step (a step that failed half-way)."""
        prog, seen = self.prog, list(st._seen)     # (st's own only once all is folded)
        w = self.base.clone()
        w.unfolded = None
        w._seen = seen                 # the replay folds into these digests
        seats = range(len(seen))
        entries = w.record
        for i in range(self.folded, len(entries)):      # the first position's entries
            _fold_entry(seen, entries[i], seats)
        observers = _observers(seats, entries, len(entries))
        if observers:
            _fold_views(seen, w, prog._pviews or prog._position_views(), observers)
        hist = st.history
        # only Program.apply (and Program.set, which reads the digests first) changes a
        # narrated game; another change would give digests that are not what the seats
        # observed, so a replay that does not give the same decision log and record is refused
        refused = "a narrated state's decision log does not replay to its record: it was " \
                  "changed other than by Program.apply"
        try:
            for idx in hist[len(w.history):]:
                prog.apply(w, idx)
        except Exception as exc:
            raise RuntimeError(refused) from exc
        n = len(w.record)
        if w.history != hist or w.record != st.record[:n]:
            raise RuntimeError(refused)
        for i in range(n, len(st.record)):
            _fold_entry(seen, st.record[i], seats)
        st._seen[:] = seen
