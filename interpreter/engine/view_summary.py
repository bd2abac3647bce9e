"""What a seat is told besides its view: what changed in it since the seat's last decision,
and the final score broken into the parts the view's `scoring` declares. Both are computed from
the seat's own declared views (engine/declared_view.py), so they tell it nothing the view hides.
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.interpreter.engine.declared_view import ViewSpec, row_for

def score_breakdown(program: Any, state: Any, viewer: Optional[int]) -> list[dict[str, Any]]:
    """The final score of each player, in ranking order, broken into the parts the view's
    `scoring` declares, as seat `viewer` may see them (the others' hidden parts hidden):
    [{"seat", "you", "winner", "score", "parts": [{"label", "text", "hidden"}], "rest"}].
    "rest" is what the parts leave out of the score (None when they add up, or when a part is
    hidden); without a `scoring`, no parts: the score alone. (Tie-break values are not shown:
    they may be hidden, as Die Händler's money is.)"""
    node = state.pending
    spec: Optional[ViewSpec] = getattr(program, "view", None)
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
                    "score": str(node.scores[p]),
                    "parts": [{"label": r["label"], "text": r["text"], "hidden": r["hidden"]}
                              for r in parts],
                    "rest": rest})
    return out


def score_lines(program: Any, state: Any, viewer: Optional[int]) -> list[str]:
    """The final score's parts as text lines, one a player in ranking order ('P2  58: cash 20
    pesos · shares are worth 38 pesos'), as `viewer` may see them; nothing when the view
    declares no `scoring`."""
    spec: Optional[ViewSpec] = getattr(program, "view", None)
    if spec is None or not spec.scoring:
        return []
    lines = []
    for row in score_breakdown(program, state, viewer):
        parts = [f"{p['label']} {p['text']}" for p in row["parts"]]
        if row["rest"] is not None:
            parts.append(f"the rest {row['rest']}")
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
        return [f"{label}: {n} cell{'s' if n != 1 else ''} changed"] if n else []
    if old["text"] != new["text"]:
        return [f"{label}: {old['text']} → {new['text']}"]
    return []


def view_changes(before: Optional[dict[str, Any]], after: Optional[dict[str, Any]],
                 viewer: Optional[int]) -> list[str]:
    """What changed between two declared views of the same seat (its view at its last
    decision and now): the seat's own column first ('you: cash: 17 → 56 pesos'), then the
    other players', then the table's rows. Both views are the seat's own, so this says nothing
    it may not see. At most MAX_CHANGES lines, then how many more."""
    if before is None or after is None:
        return []
    mine: list[str] = []
    others: list[str] = []
    table: list[str] = []
    if before["panel"] and after["panel"] and \
            before["panel"]["labels"] == after["panel"]["labels"]:
        for col_a, col_b in zip(before["panel"]["seats"], after["panel"]["seats"]):
            who = "you" if col_b["you"] else col_b["seat"]
            for ra, rb in zip(col_a["rows"], col_b["rows"]):
                lines = _row_changes(f"{who}: {rb['label']}", ra, rb)
                (mine if col_b["you"] else others).extend(lines)
    olds = {(s["title"], r["label"]): r for s in before["sections"] for r in s["rows"]}
    for sec in after["sections"]:
        for r in sec["rows"]:
            old = olds.get((sec["title"], r["label"]))
            if old is not None:
                table.extend(_row_changes(r["label"], old, r))
    out = list(dict.fromkeys(mine + others + table))     # a row in the panel and the scoring
    if len(out) > MAX_CHANGES:
        out = out[:MAX_CHANGES] + [f"… and {len(out) - MAX_CHANGES} more changes"]
    return out
