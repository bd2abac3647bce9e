"""A seat's declared view: the rulebook's `view` evaluated for one seat, as data.

The compiler turns each row into a function (`ViewSpec`); `declared_view` evaluates them for a
seat, with what it may see decided as the checker worked out (dsl/flow_views.py): a row showing a
whole field is shown as the generic view (engine/view.py) shows that field; a computed row is
shown to every seat ('public') or to the panel's own player only ('owner'), and is not even
evaluated for a seat that may not see it. A rulebook without a view gets None (callers fall back
to the generic view).
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import attrs

from mercator.dsl.errors import MercatorError
from mercator.dsl.infoflow import is_owner_map
from mercator.dsl.types import Type
from mercator.interpreter.engine.bundles import is_offer_table, offer_lines
from mercator.interpreter.engine.view import (describe, revealed_now, shown_as, size_of,
                                             typed_json, view_fields, visible)
from mercator.interpreter.engine.people import People, join_parts, people
from mercator.interpreter.engine.view_boards import (flag_names, grid_tokens, hand,
                                                   hidden_cards, pile_words, piles)

RowFn = Callable[[Any, list], Any]


@attrs.define
class ViewRowSpec:
    """One compiled row: label, unit, type, its function (state, locals) -> value, its locals,
    the field it shows whole (("table" | "player", index)) or who may see it (`shown`)."""

    kind: str
    label: str
    unit: Optional[str]
    type: Type
    fn: RowFn
    nslots: int
    field: Optional[tuple[str, int]]
    shown: str
    extra: Optional[RowFn] = None        # `with`: a graph's or grid's node -> what stands on it
    extra_type: Optional[Type] = None
    owned: frozenset[str] = frozenset()  # the owner-only fields a computed row reads
    on: Optional[RowFn] = None           # `on`: a track's spaces, a graph's node -> [x, y]
    on_type: Optional[Type] = None


@attrs.define
class LabelSpec:
    """A compiled option label: its parts, each (function (state, locals) -> value, type), the
    option itself in local 0 and, with `chooser`, the player choosing in local 1; `shown`
    'owner' when it reads the chooser's hidden fields (shown to him only)."""

    parts: list[tuple[RowFn, Type]]
    nslots: int
    chooser: bool = False
    shown: str = "public"


@attrs.define
class ViewSpec:
    """A compiled view: sections of rows, the panel's rows, the fields not to repeat after
    the view (bookkeeping, and those a row shows whole), by name, and the option labels by the
    (path, line, col) of the decision they describe."""

    sections: list[tuple[str, list[ViewRowSpec]]]
    panel: list[ViewRowSpec]
    omit: frozenset[str]
    # by the (path, line, col) of a decision, or ("action", NAME) for an any-time action
    labels: dict[tuple, LabelSpec] = attrs.field(factory=dict)
    scoring: list[ViewRowSpec] = attrs.field(factory=list)   # the score's parts, per player
    revealed: frozenset[str] = frozenset()   # hidden fields every seat sees once the game is over
    # who may see each tie-break's value: ("public" | "owner" | "secret", owner-only fields read)
    tiebreaks: list[tuple[str, frozenset[str]]] = attrs.field(factory=list)
    # `text v: T = ...` by the type's name: ([(function (state, locals) -> value, type)], locals)
    texts: dict[str, Any] = attrs.field(factory=dict)


def option_notes(program: Any, state: Any, decision: Any,
                 viewer: Optional[int]) -> list[Optional[str]]:
    """What each option of `decision` does, as seat `viewer` (None: a spectator) is shown it,
    in the order of its options, as the view's `label` for the options' type says (None: no
    label; pass and any-time actions have none). A label reads only public state, the option,
    and with `for p` the chooser's own fields (the checker makes sure: E161); one that reads
    the chooser's hidden fields is computed for the chooser only."""
    vt = getattr(decision, "vtype", None)
    if isinstance(vt, tuple) and vt and vt[0] == "deal":
        return [deal_note(o) for o in decision.options]
    spec: Optional[ViewSpec] = getattr(program, "view", None)
    span = getattr(decision, "span", None)
    if spec is None or span is None or not spec.labels:
        return [None] * len(decision.options)
    lab = spec.labels.get((span.path, span.line, span.col))
    if lab is not None and lab.shown == "owner" and viewer != decision.player:
        lab = None
    names = getattr(program, "body_names", [])
    w = people(program, state)
    out: list[Optional[str]] = []
    for o in decision.options:
        if o.action is not None:            # an any-time action: `label NAME(p, ...)`
            bid, args = o.action
            name = names[bid] if bid < len(names) else ""
            alab = spec.labels.get(("action", name[len("action "):])) \
                if name.startswith("action ") else None
            if alab is None or (alab.shown == "owner" and viewer != decision.player):
                out.append(None)
            else:
                L = [decision.player, *args]      # the player taking it, then its arguments
                out.append(_note(alab, state, L + [None] * max(alab.nslots - len(L), 0), w))
            continue
        if lab is None or (o.value is None and o.label == "pass"):
            out.append(None)
            continue
        out.append(_note(lab, state, [o.value, decision.player if lab.chooser else None] +
                         [None] * max(lab.nslots - 2, 0), w))
    return out


# what each step of a deal window does (docs/language.md §4.17): the same in every rulebook
DEAL_STEPS = {
    "post": "build an offer to another player, step by step; nobody sees it until it is posted",
    "accept": "take this offer: both sides hand over what it names at once, and it binds",
    "replace": "take your offer off the table and build a new one in its place",
    "withdraw": "take your offer off the table",
    "close": "end the bargaining here, with no deal",
    "cancel": "drop the offer being built; nobody learns of it",
}


def deal_note(o: Any) -> Optional[str]:
    """What a step of a deal window does, for its button (None: pass, an any-time action)."""
    v = o.value
    if o.action is not None or not isinstance(v, tuple) or not v:
        return "say nothing this turn" if o.label == "pass" and o.action is None else None
    if v[0] == "close" and len(v) > 1:
        return "end the bargaining here with no deal; the rules go on with this"
    if v[0] == "done":
        return "put the offer on the table: the other may accept it" if o.label == "post" \
            else "this part of the offer is complete: go on to the next"
    return DEAL_STEPS.get(v[0])


def option_words(program: Any, state: Any, decision: Any) -> list[str]:
    """Each option of `decision` as a person is shown it, in the order of its options: its
    value in words (the view's `text` for its type, else plain words: engine/people.py), a
    label the engine wrote (a step of a deal, an any-time action) with its names in words.
    The option's own label stays its name for saves, `#N` and bots."""
    w = people(program, state)
    vt = getattr(decision, "vtype", None)
    out = []
    for o in decision.options:
        if o.action is None and o.value is None and o.label == "pass":
            out.append("pass")
        elif o.action is None and isinstance(vt, Type):
            out.append(w.text(o.value, vt))
        else:
            out.append(w.label(o.label))
    return out


def option_targets(program: Any, state: Any, decision: Any) -> list[list[str]]:
    """Each option of `decision`: the named things its value is about, in words (People.atoms:
    enum members and players), sorted — what a page highlights in the view while the option
    is pointed at. A pass and an any-time action name nothing here."""
    w = people(program, state)
    vt = getattr(decision, "vtype", None)
    return [sorted(w.atoms(o.value, vt)) if o.action is None and isinstance(vt, Type) else []
            for o in decision.options]


def _note(lab: LabelSpec, state: Any, L: list, w: Optional[People] = None) -> Optional[str]:
    """A label's text with its locals L, or None when it fails (a label never stops a game:
    the option shows bare)."""
    w = w if w is not None else People(state=state)
    try:
        vals = [(f(state, L), t) for f, t in lab.parts]
    except Exception:    # noqa: BLE001
        return None
    # a part that is "" or none is left out (`if ... then "seat" else ""`)
    return join_parts([v if isinstance(v, str) else w.text(v, t)
                       for v, t in vals if v is not None and v != ""])


def _hidden_text(v: Any, t: Type) -> str:
    n = size_of(v, t)
    if n is None:
        return "(hidden)"
    return f"(hidden, {n} item{'s' if n != 1 else ''})"


def _with_unit(text: str, unit: Optional[str]) -> str:
    return f"{text} {unit}" if unit else text


def _cells(v: Any, t: Type, unit: Optional[str], w: People) -> list[list[str]]:
    """A track's entries: [key, value text] per entry (a list's keys count from 1)."""
    if t.kind == "opt":
        t = t.args[0]
    if v is None:
        return []
    if t.kind == "map":
        return [[w.text(k, t.args[0]), _with_unit(w.text(x, t.args[1]), unit)]
                for k, x in sorted(v.items())]
    if t.kind == "bag":
        return [[w.text(k, t.args[0]), _with_unit(str(n), unit)] for k, n in sorted(v.items())]
    if t.kind == "list":
        return [[str(i + 1), _with_unit(w.text(x, t.args[0]), unit)] for i, x in enumerate(v)]
    return []


def _lane(v: Any, t: Type, spaces: Any, st: Optional[Type], unit: Optional[str],
          w: People) -> dict[str, Any]:
    """A track drawn on a strip of spaces (`on`): each space's name ("spaces", without the
    unit), the entries' keys standing on each ("at": a list of key texts per space, in the
    entries' order), every entry's key in order ("lane_keys"), and the entries whose value is
    on no space ("off": [key, value text with the unit])."""
    t = t.args[0] if t.kind == "opt" else t
    spaces = list(spaces or [])
    sp_t = st.args[0] if st is not None and st.kind == "list" else Type("any")
    if v is None:
        entries: list[tuple[str, Any]] = []
    elif t.kind == "map":
        entries = [(w.text(k, t.args[0]), x) for k, x in sorted(v.items())]
    else:
        entries = [(str(i + 1), x) for i, x in enumerate(v)]
    vt = t.args[1] if t.kind == "map" else t.args[0] if t.args else Type("any")
    at: list[list[str]] = [[] for _ in spaces]
    off: list[list[str]] = []
    for key, x in entries:
        if x is None:
            continue
        if x in spaces:
            at[spaces.index(x)].append(key)
        else:
            off.append([key, _with_unit(w.text(x, vt), unit)])
    return {"spaces": [w.text(x, sp_t) for x in spaces], "at": at, "off": off,
            "lane_keys": [k for k, _ in entries]}


def _grid(v: Any, t: Type, unit: Optional[str], contents: Any = None,
          xt: Optional[Type] = None, words: Optional[People] = None) -> dict[str, Any]:
    """A grid's rows of cells as text, each row with its name (a list's rows count from 1):
    the cells in plain words, short (a `text` is for rows and options); with `with`, what
    stands on each square ("marks": a row of texts per row, "" where nothing stands), in the
    view's words, and as tokens for a drawing ("tokens": per square a list of {"seat"},
    {"flag"} or {"text"}, and "flags": the flags' names in order: engine/view_boards.py)."""
    w = People()
    t = t.args[0] if t.kind == "opt" else t
    if v is None or t.kind == "any":
        return {"keys": [], "rows": [], "columns": 0}
    items = sorted(v.items()) if t.kind == "map" else list(enumerate(v))
    kt = t.args[0] if t.kind == "map" else None
    rt = t.args[-1].args[0] if t.args[-1].kind == "opt" else t.args[-1]
    ct = rt.args[0]
    keys = [w.text(k, kt) if kt is not None else str(k + 1) for k, _ in items]
    rows = [[_with_unit(w.text(x, ct), unit) for x in (row or [])] for _, row in items]
    out: dict[str, Any] = {"keys": keys, "rows": rows,
                           "columns": max((len(r) for r in rows), default=0)}
    if contents is not None and xt is not None and xt.kind == "map":
        said = words if words is not None else w
        mt = xt.args[1]
        marks = {x: said.text(m, mt) for x, m in contents.items()}
        out["marks"] = [[marks.get(x, "") for x in (row or [])] for _, row in items]
        out["tokens"] = grid_tokens(contents, xt, items, said)
        out["flags"] = flag_names(mt)
    return out


def _graph(v: Any, t: Type, contents: Any, ct: Optional[Type], w: People,
           positions: Any = None) -> dict[str, Any]:
    """A graph's nodes (in order of first appearance), its edges (each once, as pairs of node
    names), what stands on each node (`with`) and, with `on`, where each node is drawn ("at":
    {node name: [x, y]} for the nodes that have a position; a position for a node that is not
    in the graph is left out)."""
    t = t.args[0] if t.kind == "opt" else t
    pairs: list[tuple[Any, Any]] = []
    nt: Type = Type("any")
    if v is not None and t.kind == "list":
        et = t.args[0].args[0] if t.args[0].kind == "opt" else t.args[0]
        if et.kind == "list":
            nt = et.args[0]
            for path in v:
                pairs.extend(zip(path, path[1:]))
        elif et.kind == "record":
            nt = et.field_types[0]
            pairs = [(e[0], e[1]) for e in v]
    elif v is not None and t.kind == "map":
        nt = t.args[0]
        pairs = [(a, b) for a, ns in sorted(v.items()) for b in ns]
    nodes: list[Any] = []
    seen_edges: set[frozenset] = set()
    edges: list[list[str]] = []
    for a, b in pairs:
        for n in (a, b):
            if n not in nodes:
                nodes.append(n)
        key = frozenset((a, b))
        if key not in seen_edges:
            seen_edges.add(key)
            edges.append([w.text(a, nt), w.text(b, nt)])
    on: dict[str, str] = {}
    if contents and ct is not None and ct.kind == "map":
        for n, x in sorted(contents.items()):
            if n not in nodes:
                nodes.append(n)
            xt = ct.args[1]
            on[w.text(n, nt)] = ", ".join(w.text(y, xt.args[0]) for y in x) \
                if xt.kind == "list" else w.text(x, xt)
    names = [w.text(n, nt) for n in nodes]
    near: dict[str, list[str]] = {n: [] for n in names}
    for a, b in edges:
        near[a].append(b)
        near[b].append(a)
    lines = [f"{n}{f' [{on[n]}]' if n in on else ''}: {', '.join(near[n]) or '(no road)'}"
             for n in names]
    out: dict[str, Any] = {"nodes": names, "edges": edges, "on": on, "lines": lines}
    if positions is not None:
        out["at"] = {w.text(n, nt): _position(positions[n], w.text(n, nt))
                     for n in nodes if n in positions}
    return out


class BadPosition(MercatorError, ValueError):
    """A graph's `on` gives a node something other than [x, y]."""


def _position(xy: Any, name: str) -> list[int]:
    """A node's position [x, y] from a graph's `on` map (BadPosition, naming the node,
    otherwise: the row then says it cannot be computed)."""
    if not isinstance(xy, (list, tuple)) or len(xy) != 2 or \
            not all(isinstance(c, int) and not isinstance(c, bool) for c in xy):
        raise BadPosition(f"the position of {name} is {xy!r}, not [x, y]")
    return [xy[0], xy[1]]


def _shown(r: ViewRowSpec, v: Any, extra: Any = None, w: Optional[People] = None,
           on: Any = None) -> dict[str, Any]:
    """A row whose value the seat may see, in words (`w`: the view's texts in this state;
    `extra`: the value of its `with`, `on`: of its `on`)."""
    w = w if w is not None else People()
    if r.kind == "grid":
        g = _grid(v, r.type, r.unit, extra, r.extra_type, w)
        marks = g.get("marks") or [[""] * len(row) for row in g["rows"]]
        text = "\n".join(f"{k}: " + " | ".join(c + (f" [{m}]" if m else "")
                                                 for c, m in zip(row, mk))
                         for k, row, mk in zip(g["keys"], g["rows"], marks))
        return {"label": r.label, "kind": "grid", "unit": r.unit, "hidden": False,
                "text": text or "none", **g}
    if r.kind == "graph":
        g = _graph(v, r.type, extra, r.extra_type, w, on if r.on is not None else None)
        return {"label": r.label, "kind": "graph", "unit": r.unit, "hidden": False,
                "text": "\n".join(g["lines"]) or "none", **g}
    if r.kind == "hand":
        h = hand(v, r.type, w)
        return {"label": r.label, "kind": "hand", "unit": r.unit, "hidden": False,
                "text": " · ".join(h["cards"]) or "none", **h}
    if r.kind == "pile":
        ps = piles(v, r.type, w)
        return {"label": r.label, "kind": "pile", "unit": r.unit, "hidden": False,
                "text": " · ".join(pile_words(p) for p in ps) or "none", "piles": ps}
    if r.kind == "track":
        cells = _cells(v, r.type, r.unit, w)
        out = {"label": r.label, "kind": "track", "unit": r.unit, "hidden": False, "cells": cells,
               "text": " · ".join(f"{k}: {x}" for k, x in cells) or "none"}
        if r.on is not None:
            out.update(_lane(v, r.type, on, r.on_type, r.unit, w))
        return out
    if is_offer_table(r.type):
        return _offers_row(r, v, w)
    return {"label": r.label, "kind": "row", "unit": r.unit, "hidden": False,
            "text": _with_unit(w.text(v, r.type), r.unit), "value": typed_json(v, r.type),
            "shown": typed_json(v, r.type, w.text)}      # the value in words, for a page


def _offers_row(r: ViewRowSpec, v: Any, w: People) -> dict[str, Any]:
    """A row of deal offers (a `list<offer<...>>`): one line per offer, as the generic view shows
    a deal's table ('#2 P3 to P1 about x: gives 10 coins + silk'), in "lines" and in "text",
    its names in words."""
    lines = [w.label(x) for x in offer_lines(v or [], r.type, bundle_parts=w.bundle_parts)]
    return {"label": r.label, "kind": "row", "unit": r.unit, "hidden": False,
            "text": "\n".join(lines) if lines else "(no offers)", "lines": lines,
            "value": typed_json(v, r.type)}


def _hidden(r: ViewRowSpec, text: str) -> dict[str, Any]:
    return {"label": r.label, "kind": r.kind, "unit": r.unit, "hidden": True, "text": text}


def row_for(program: Any, state: Any, r: ViewRowSpec, player: Optional[int],
            viewer: Optional[int]) -> dict[str, Any]:
    """Row r for the panel's `player` (None in a section) as seat `viewer` sees it."""
    rv = revealed_now(program, state)
    w = people(program, state)
    if r.field is not None:
        where, i = r.field
        if where == "table":
            f, v = program.rb.table_fields[i], state.table[i]
            if is_owner_map(f.type, shown_as(f, rv)):
                own = {viewer: v[viewer]} if viewer is not None and v and viewer in v else {}
                if not own:
                    return _hidden(r, _hidden_text(v, f.type))
                return {**_shown(r, own, None, w), "text": _with_unit(w.text(own, f.type), r.unit)}
            ok = visible(shown_as(f, rv), None, viewer)
        else:
            assert player is not None
            f, v = program.rb.player_fields[i], state.players[player][i]
            ok = visible(shown_as(f, rv), player, viewer)
        if ok:
            return _shown(r, v, None, w)
        out = _hidden(r, _hidden_text(v, f.type))
        if r.kind in ("hand", "pile") and hidden_cards(v, f.type) is not None:
            out["size"] = hidden_cards(v, f.type)        # drawn as that many backs
        return out
    if r.shown == "owner" and (viewer is None or viewer != player) and \
            not (r.owned and r.owned <= rv):
        return _hidden(r, "(hidden)")
    try:
        L = [player] + [None] * max(r.nslots - 1, 0)
        v = r.fn(state, L)
        extra = r.extra(state, L) if r.extra is not None else None
        on = r.on(state, L) if r.on is not None else None
    except Exception as exc:     # noqa: BLE001 - a view never stops a game; say what failed
        return _hidden(r, f"(cannot be computed: {exc})")
    try:
        return _shown(r, v, extra, w, on)
    except BadPosition as exc:
        return _hidden(r, f"(cannot be computed: {exc})")


SCORE_NOW = "score if the game ended now"


def _score_rows(program: Any, state: Any, player: int, viewer: Optional[int]) -> list[dict]:
    """The scoring parts of `player` as `viewer` sees them, then their sum (hidden when a part
    is); nothing without a `scoring`."""
    spec: ViewSpec = program.view
    if not spec.scoring:
        return []
    parts = [row_for(program, state, r, player, viewer) for r in spec.scoring]
    if any(r["hidden"] or not isinstance(r.get("value"), int) for r in parts):
        total = {"label": SCORE_NOW, "kind": "row", "unit": None, "hidden": True,
                 "text": "(hidden)"}
    else:
        n = sum(r["value"] for r in parts)
        total = {"label": SCORE_NOW, "kind": "row", "unit": None, "hidden": False,
                 "text": str(n), "value": n}
    return parts + [total]


def declared_view(program: Any, state: Any, viewer: Optional[int]) -> Optional[dict[str, Any]]:
    """The declared view of seat `viewer` (None: a spectator), or None for a rulebook without one:
    {"sections": [{"title", "rows"}], "panel": {"labels", "seats": [{"seat", "you", "rows"}]},
    "other": {"table": [[name, text]], "names": [...], "seats": [[text, ...]]},
    "omit": the field names not to show raw}; a row is
    {"label", "kind", "unit", "text" (the unit included), "hidden"} (a shown row also has
    "value", its JSON form as in engine/view.py's observe; a shown track "cells": [[key, text]])."""
    spec: Optional[ViewSpec] = getattr(program, "view", None)
    if spec is None:
        return None
    sections = [{"title": title,
                 "rows": [row_for(program, state, r, None, viewer) for r in rows]}
                for title, rows in spec.sections]
    panel = None
    if spec.panel or spec.scoring:
        # the scoring parts follow the panel's rows, but for one that a panel row of the same
        # label already shows (Manila's cash), then their sum
        mine = {r.label for r in spec.panel}
        extra = [i for i, r in enumerate(spec.scoring) if r.label not in mine]
        labels = [r.label for r in spec.panel]
        if spec.scoring:
            labels += [spec.scoring[i].label for i in extra] + [SCORE_NOW]
        columns: list[dict[str, Any]] = []
        for p in range(len(state.players)):
            parts = _score_rows(program, state, p, viewer)
            rows = [row_for(program, state, r, p, viewer) for r in spec.panel] + \
                [parts[i] for i in extra] + parts[-1:]
            columns.append({"seat": f"P{p + 1}", "you": p == viewer, "rows": rows})
        panel = {"labels": labels, "seats": columns}
    table, names, seats = view_fields(program, state, viewer)
    keep = [i for i, n in enumerate(names) if n not in spec.omit]
    other = {"table": [[n, text] for n, text in table if n not in spec.omit],
             "names": [names[i] for i in keep],
             "seats": [[values[i] for i in keep] for values in seats]}
    return {"sections": sections, "panel": panel, "other": other, "omit": sorted(spec.omit)}


def describe_view(program: Any, state: Any, viewer: Optional[int]) -> str:
    """A readable text of what `viewer` sees: the declared view (its sections, the panel with a
    line per player, then the other fields), or engine/view.py's describe() without one."""
    v = declared_view(program, state, viewer)
    if v is None:
        return describe(program, state, viewer)
    who = "spectator" if viewer is None else f"you are P{viewer + 1}"
    lines = [f"── {program.name} · round {state.round} · {who} ──"]
    for sec in v["sections"]:
        lines.append(f"  {sec['title']}")
        width = max((len(r["label"]) for r in sec["rows"]), default=0)
        for r in sec["rows"]:
            first, *rest = r["text"].split("\n")      # a grid's rows, a graph's nodes
            lines.append(f"    {r['label']:<{width}}  {first}")
            lines.extend(f"    {'':<{width}}  {line}" for line in rest)
    other = v["other"]
    for name, text in other["table"]:
        first, *rest = text.split("\n")        # a deal's table: one offer a line
        lines.append(f"  {name}  {first}".rstrip())
        lines.extend(f"    {line}" for line in rest)
    panel = v["panel"]
    for p in range(len(state.players)):
        parts = [f"{r['label']} {r['text']}" for r in panel["seats"][p]["rows"]] if panel else []
        parts += [f"{n} {t}" for n, t in zip(other["names"], other["seats"][p])]
        mark = "▶" if p == viewer else " "
        tag = " (you)" if p == viewer else ""
        lines.append(f"{mark} P{p + 1}{tag}: " + " · ".join(parts))
    return "\n".join(lines)
