"""What a seat is told besides its view: what changed in it since the seat's last decision,
and the final score broken into the parts the view's `scoring` declares. Both are computed from
the seat's own declared views (engine/declared_view.py), so they tell it nothing the view hides.
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.interpreter.engine.declared_view import ViewSpec, row_for
from mercator.dsl.fmt import format_expr
from mercator.interpreter.engine.values import number_text
from mercator.interpreter.engine.view import revealed_now

def score_breakdown(program: Any, state: Any, viewer: Optional[int]) -> list[dict[str, Any]]:
    """The final score of each player, in ranking order, broken into the parts the view's
    `scoring` declares, as seat `viewer` may see them (the others' hidden parts hidden):
    [{"seat", "you", "winner", "score", "parts": [{"label", "text", "hidden"}], "rest",
    "tiebreaks": [{"label", "text", "hidden"}], "may_win", "why_not"}].
    "rest" is what the parts leave out of the score (None when they add up, or when a part is
    hidden); without a `scoring`, no parts: the score alone. A tie-break's value is shown as a
    panel row would be (a value computed from the player's own hidden fields to him only,
    unless the view reveals them at the end); "may_win" is False for a seat the rulebook's
    `eligible` bars from winning, "why_not" then the condition it fails, as written."""
    node = state.pending
    spec: Optional[ViewSpec] = getattr(program, "view", None)
    may = program.may_win(state) if program.eligible_f is not None else None
    why = _eligible_text(program)
    rv = revealed_now(program, state)
    out = []
    for p in node.ranking:
        parts = []
        if spec is not None and spec.scoring:
            parts = [row_for(program, state, r, p, viewer) for r in spec.scoring]
        rest = None
        if parts and all(not r["hidden"] and isinstance(r.get("value"), int) for r in parts):
            left = node.scores[p] - sum(r["value"] for r in parts)
            rest = str(left) if left else None
        out.append({"seat": f"P{p + 1}", "you": p == viewer, "winner": p in node.winners,
                    "score": number_text(node.scores[p]),
                    "parts": [{"label": r["label"], "text": r["text"], "hidden": r["hidden"]}
                              for r in parts],
                    "rest": rest,
                    "tiebreaks": _tiebreaks(program, spec, node, p, viewer, rv),
                    "may_win": True if may is None else may[p],
                    "why_not": None if may is None or may[p] else why})
    return out


def _tiebreaks(program: Any, spec: Optional[ViewSpec], node: Any, p: int,
               viewer: Optional[int], rv: frozenset[str]) -> list[dict[str, Any]]:
    """Seat p's tie-break values as `viewer` may see them ('tie-break 1', ... or the
    expression's text as the label)."""
    out = []
    for i, b in enumerate(program.rb.tiebreaks):
        shown, owned = spec.tiebreaks[i] if spec is not None and i < len(spec.tiebreaks) \
            else ("secret", frozenset())
        ok = shown == "public" or (shown == "owner" and (viewer == p or bool(owned and owned <= rv)))
        label = f"tie-break: {_source(b.expr)}"
        value = node.tiebreaks[p][i] if i < len(node.tiebreaks[p]) else None
        out.append({"label": label, "text": number_text(value) if ok else "(hidden)",
                    "hidden": not ok})
    return out


def _source(e: Any) -> str:
    """An expression as the rulebook writes it, on one line (the formatter's text)."""
    try:
        return " ".join(format_expr(e).split())
    except Exception:        # noqa: BLE001 - a construct the formatter cannot show alone
        return "?"


def _eligible_text(program: Any) -> Optional[str]:
    """The `eligible` condition as written, for a seat it bars from winning."""
    el = getattr(program.rb, "eligible", None)
    if el is None or el.expr is None:
        return None
    return _source(el.expr)


def score_lines(program: Any, state: Any, viewer: Optional[int]) -> list[str]:
    """The final score's parts as text lines, one a player in ranking order ('P2  58: cash 20
    pesos · shares are worth 38 pesos'), as `viewer` may see them; nothing when the view
    declares no `scoring`."""
    rows = score_breakdown(program, state, viewer)
    if not any(any(not x["hidden"] for x in r["parts"] + r["tiebreaks"]) or r["why_not"]
               for r in rows):
        return []           # nothing the viewer may see beyond the scores
    lines = []
    for row in rows:
        parts = [f"{p['label']} {p['text']}" for p in row["parts"]]
        if row["rest"] is not None:
            parts.append(f"the rest {row['rest']}")
        parts += [f"{t['label']} {t['text']}" for t in row["tiebreaks"]]
        if row["why_not"]:
            parts.append(f"may not win ({row['why_not']} does not hold)")
        lines.append(f"{row['seat']:<3} {row['score']:>5}: " + " · ".join(parts))
    return lines


MAX_CHANGES = 14      # lines of "what changed" before a decision; the rest are counted


def _row_changes(label: str, old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """What changed in one row between two views of the same seat."""
    if old.get("kind") == "track" and new.get("kind") == "track" and \
            not old["hidden"] and not new["hidden"]:
        before, after = dict(old["cells"]), dict(new["cells"])
        out = [f"{label} {k}: {before.get(k, '—')} → {after.get(k, '—')}"
               for k in list(before) + [k for k in after if k not in before]
               if before.get(k) != after.get(k)]
        return out
    if old.get("kind") == "graph" and new.get("kind") == "graph" and \
            not old["hidden"] and not new["hidden"]:
        a, b = old["on"], new["on"]
        return [f"{label} {n}: {a.get(n, '—')} → {b.get(n, '—')}"
                for n in list(a) + [n for n in b if n not in a] if a.get(n) != b.get(n)]
    if old.get("kind") == "grid" and new.get("kind") == "grid" and \
            not old["hidden"] and not new["hidden"]:
        n = sum(x != y for ra, rb in zip(old["rows"], new["rows"]) for x, y in zip(ra, rb))
        out = [f"{label}: {n} cell{'s' if n != 1 else ''} changed"] if n else []
        # what stands on a square that kept its name: "the board market: tower → —"
        said: set[str] = set()
        for k, (ra, rb) in enumerate(zip(old["rows"], new["rows"])):
            ma = old["marks"][k] if old.get("marks") else [""] * len(ra)
            mb = new["marks"][k] if new.get("marks") else [""] * len(rb)
            for x, y, a, b in zip(ra, rb, ma, mb):
                if x == y and a != b and x not in said:
                    said.add(x)
                    out.append(f"{label} {x}: {a or '—'} → {b or '—'}")
        return out
    if old["text"] != new["text"]:
        return [f"{label}: {old['text']} → {new['text']}"]
    return []


def mark_key(where: str, label: str) -> str:
    """The key of a row in `changed_marks`: a section's title or a seat ("P2"), and the row's
    label."""
    return f"{where}\x1f{label}"


def _squares_changed(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """The names of a grid's squares (as now) whose name or what stands on them changed, each
    once, in the order of the grid."""
    blank: list[list[str]] = []
    out: list[str] = []
    for k, row in enumerate(new["rows"]):
        was = old["rows"][k] if k < len(old["rows"]) else []
        mk_new = (new.get("marks") or blank)[k] if new.get("marks") else [""] * len(row)
        mk_old = (old.get("marks") or blank)[k] if old.get("marks") and k < len(old["marks"]) \
            else [""] * len(was)
        for c, x in enumerate(row):
            before = (was[c], mk_old[c]) if c < len(was) else None
            if before != (x, mk_new[c]) and x not in out:
                out.append(x)
    return out


def changed_marks(before: Optional[dict[str, Any]], after: Optional[dict[str, Any]]
                  ) -> dict[str, list[str]]:
    """What changed in a seat's declared view since its last decision (`before`: its view then;
    `after`: now), for a page to highlight: for each row that changed (mark_key: its section's
    title, or the panel's seat, and its label), the keys of a track whose entry changed (a
    lane's markers that moved), the nodes of a graph or the squares of a grid where what
    stands changed; [] for any other row. Both views are the seat's own: nothing it may not see. The views themselves are
    left as the engine made them."""
    out: dict[str, list[str]] = {}
    if before is None or after is None:
        return out

    def mark(where: str, old: Optional[dict[str, Any]], new: dict[str, Any]) -> None:
        if old is None or old.get("kind") != new.get("kind") or old["text"] == new["text"] \
                and old.get("on") == new.get("on"):
            return
        moved: list[str] = []
        if not new["hidden"] and not old["hidden"]:
            if new["kind"] == "track":
                a, b = dict(old.get("cells") or []), dict(new.get("cells") or [])
                moved = [k for k in b if a.get(k) != b[k]]
            elif new["kind"] == "graph":
                a, b = old["on"], new["on"]
                moved = [n for n in new["nodes"] if a.get(n) != b.get(n)]
            elif new["kind"] == "grid":
                moved = _squares_changed(old, new)
        out[mark_key(where, new["label"])] = moved

    if before["panel"] and after["panel"] and \
            before["panel"]["labels"] == after["panel"]["labels"]:
        for col_a, col_b in zip(before["panel"]["seats"], after["panel"]["seats"]):
            for ra, rb in zip(col_a["rows"], col_b["rows"]):
                mark(col_b["seat"], ra, rb)
    olds = {(s["title"], r["label"]): r for s in before["sections"] for r in s["rows"]}
    for sec in after["sections"]:
        for r in sec["rows"]:
            mark(sec["title"], olds.get((sec["title"], r["label"])), r)
    return out


def view_changes(before: Optional[dict[str, Any]], after: Optional[dict[str, Any]],
                 viewer: Optional[int]) -> list[str]:
    """What changed between two declared views of the same seat (its view at its last
    decision and now): the seat's own column first ('you: cash: 17 → 56 pesos'), then the
    other players', then the table's rows. Both views are the seat's own, so this says nothing
    it may not see. A line a change; when there are more than MAX_CHANGES (a voyage's end, a
    round's sales), a line a player and a line a section, their changes joined by ' · ', so
    that nothing is cut."""
    if before is None or after is None:
        return []
    groups: dict[str, list[str]] = {}      # who or which section -> its changes, in order
    order: list[str] = []

    def add(group: str, lines: list[str]) -> None:
        if group not in groups:
            groups[group] = []
            order.append(group)
        groups[group].extend(x for x in lines if x not in groups[group])

    if before["panel"] and after["panel"] and \
            before["panel"]["labels"] == after["panel"]["labels"]:
        cols = list(zip(before["panel"]["seats"], after["panel"]["seats"]))
        for col_a, col_b in sorted(cols, key=lambda c: not c[1]["you"]):   # yours first
            who = "you" if col_b["you"] else col_b["seat"]
            for ra, rb in zip(col_a["rows"], col_b["rows"]):
                add(who, _row_changes(rb["label"], ra, rb))
    olds = {(s["title"], r["label"]): r for s in before["sections"] for r in s["rows"]}
    for sec in after["sections"]:
        for r in sec["rows"]:
            old = olds.get((sec["title"], r["label"]))
            if old is not None:
                add("\0" + sec["title"], _row_changes(r["label"], old, r))
    flat = [(f"{g}: {x}" if not g.startswith("\0") else x) for g in order for x in groups[g]]
    if len(flat) <= MAX_CHANGES:
        return flat
    return [f"{g[1:] if g.startswith(chr(0)) else g}: " + " · ".join(groups[g])
            for g in order if groups[g]]
