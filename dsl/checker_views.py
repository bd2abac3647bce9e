"""The `view` declaration: its words, its rows' expressions and types, and the bookkeeping fields
(E160). Who may see each row is decided after the information-flow analysis, by dsl/flow_views.py.
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl import ast as A
from mercator.dsl.checked import CheckedView, OptionLabel, ViewLine
from mercator.dsl.checker_base import Scope
from mercator.dsl.checker_view_drawings import DrawingChecker
from mercator.dsl.diagnostics import did_you_mean
from mercator.dsl.types import PLAYER, Type, strip_opt

ROW_WORDS = ("row", "track", "grid", "graph", "hand", "pile")
ITEM_WORDS = ("bookkeeping", "section", "panel", "scoring", "label", "reveal", "text")


def grid_cells(t: Type) -> Optional[Type]:
    """The cell type of a grid's rows: a list of lists, or a map row name -> list (None: not
    a grid)."""
    t = strip_opt(t)
    if t.kind == "any":
        return t
    if t.kind in ("list", "map") and strip_opt(t.args[-1]).kind == "list":
        return strip_opt(t.args[-1]).args[0]
    return None


def graph_node(t: Type) -> Optional[Type]:
    """The node type of a graph: a list of paths (list<list<N>>), a list of edges (records
    whose first two fields are N), or a map N -> list<N> (None: not a graph)."""
    t = strip_opt(t)
    if t.kind == "any":
        return t
    if t.kind == "list":
        e = strip_opt(t.args[0])
        if e.kind == "list":
            return strip_opt(e.args[0])
        if e.kind == "record" and len(e.field_types) >= 2 and \
                strip_opt(e.field_types[0]) == strip_opt(e.field_types[1]):
            return strip_opt(e.field_types[0])
    if t.kind == "map" and strip_opt(t.args[1]).kind == "list" and \
            strip_opt(strip_opt(t.args[1]).args[0]) == strip_opt(t.args[0]):
        return strip_opt(t.args[0])
    return None


class ViewChecker(DrawingChecker):
    """Checks the one `view { ... }` of a rulebook into a CheckedView."""

    def check_view(self, items: tuple[Any, ...]) -> Optional[CheckedView]:
        """The checked view, or None when the rulebook declares none (or it has errors)."""
        views = [it for it in items if isinstance(it, A.ViewDecl)]
        for extra in views[1:]:
            self.err("E160", "a second 'view' declaration", extra.span,
                     "a rulebook has one view: merge them (a variant writes 'replace view { ... }')")
        if not views:
            return None
        decl = views[0]
        errors = len([d for d in self.diags if d.is_error])
        sections: list[tuple[str, list[ViewLine]]] = []
        panel: list[ViewLine] = []
        panel_var = ""
        bookkeeping: set[str] = set()
        revealed: set[str] = set()
        panels = 0
        labels: list[OptionLabel] = []
        texts: list[OptionLabel] = []
        scoring: list[ViewLine] = []
        scoring_var = ""
        for it in decl.items:
            if isinstance(it, A.ViewLabel) and it.word == "text":
                txt = self._text(it, texts)
                if txt is not None:
                    texts.append(txt)
            elif isinstance(it, A.ViewLabel):
                if self._word(it.word, "label", it.span):
                    lab = self._label(it, labels)
                    if lab is not None:
                        labels.append(lab)
            elif isinstance(it, A.ViewActionLabel):
                if self._word(it.word, "label", it.span):
                    lab = self._action_label(it, labels, items)
                    if lab is not None:
                        labels.append(lab)
            elif isinstance(it, A.ViewBookkeeping):
                if self._word(it.word, "bookkeeping", it.span):
                    bookkeeping |= self._bookkeeping(it)
            elif isinstance(it, A.ViewReveal):
                if self._word(it.word, "reveal", it.span):
                    revealed |= self._reveal(it, revealed)
            elif isinstance(it, A.ViewSection):
                if self._word(it.word, "section", it.span):
                    if any(t == it.title for t, _ in sections):
                        self.err("E160", f"a second section \"{it.title}\"", it.span,
                                 "give each section its own title")
                    sections.append((it.title, self._rows(it.rows, None)))
            elif isinstance(it, A.ViewPanel) and it.word == "scoring":
                if scoring_var:
                    self.err("E160", "a second 'scoring'", it.span,
                             "the score has one list of parts: put them all in one 'scoring'")
                    continue
                self._no_shadow(it.var, it.span)
                scoring_var = it.var
                scoring = self._rows(it.rows, it.var)
                for r in scoring:
                    if r.kind != "row" or strip_opt(r.type).kind not in ("int", "any"):
                        self.err("E160", f"scoring part \"{r.label}\" is a {r.kind} of type "
                                 f"{r.type}, not a number", r.span,
                                 'a part of the score is a number: row "gold" = gold_points(p)')
            elif isinstance(it, A.ViewPanel) and self._word(it.word, "panel", it.span):
                panels += 1
                if panels > 1:
                    self.err("E160", "a second 'panel'", it.span,
                             "a view has one panel per player: put all its rows in one panel")
                    continue
                self._no_shadow(it.var, it.span)
                panel_var = it.var
                panel = self._rows(it.rows, it.var)
        # a label 'at "prompt"' describes its decisions; the type's plain label, the others
        for lab in labels:
            if lab.at is None and lab.action is None:
                lab.sites = lab.sites - frozenset(
                    s for x in labels if x.at is not None and x.type == lab.type for s in x.sites)
        for r in [r for _, rows in sections for r in rows] + panel + scoring:
            if r.field is not None and r.field[1] in bookkeeping:
                self.err("E160", f"row \"{r.label}\" shows the field '{r.field[1]}', which the view "
                         "calls bookkeeping", r.span,
                         f"bookkeeping is never shown: take '{r.field[1]}' off the bookkeeping "
                         "list, or remove the row")
        if len([d for d in self.diags if d.is_error]) > errors:
            return None
        covered: set[tuple[str, str]] = set()
        for r in [r for _, rows in sections for r in rows] + panel + scoring:
            covered |= self._reads(r.expr)
            for more in (r.extra, r.on):
                if more is not None:
                    covered |= self._reads(more)
        return CheckedView(sections, panel, panel_var, frozenset(bookkeeping), frozenset(covered),
                           decl, labels, scoring, scoring_var, frozenset(revealed),
                           texts=texts)

    def _reads(self, e: Any) -> set[tuple[str, str]]:
        """The state fields an expression reads, through the fns it calls: a view that shows
        them in some form does not show them again raw."""
        out: set[tuple[str, str]] = set()
        for n in self._walk(e, into_fns=True):
            if isinstance(n, A.Name) and n.name in self.table_fields:
                out.add(("table", n.name))
            elif isinstance(n, A.Field) and n.name in self.player_fields and \
                    strip_opt(self.types.get(id(n.obj), PLAYER)).kind == "player":
                out.add(("player", n.name))
        return out

    def _word(self, word: str, want: str, span: A.Span) -> bool:
        """Is `word` the soft keyword the item's shape needs? (E160 if not)"""
        if word == want:
            return True
        shape = {"bookkeeping": "bookkeeping FIELD, FIELD", "section": 'section "Title" { rows }',
                 "panel": "panel p { rows }",
                 "label": 'label v: Type = "text", expression, ...',
                 "scoring": 'scoring p { row "part" = expression }',
                 "reveal": "reveal at end: FIELD, FIELD"}[want]
        self.err("E160", f"unexpected '{word}' in a view", span,
                 (did_you_mean(word, ITEM_WORDS) or f"did you mean '{want}'?") + f" write: {shape}")
        return False

    def _field(self, n: str, span: A.Span, what: str) -> Any:
        """The player or table field named n (E160 with 'did you mean' if there is none)."""
        f = self.player_fields.get(n) or self.table_fields.get(n)
        if f is None:
            self.err("E160", f"'{n}' is not a state field: only player and table fields can {what}",
                     span, did_you_mean(n, set(self.player_fields) | set(self.table_fields))
                     or "name fields of 'player { }' or 'table { }'")
        return f

    def _bookkeeping(self, it: A.ViewBookkeeping) -> set[str]:
        for n in it.names:
            self._field(n, it.span, "be bookkeeping")
        return set(it.names)

    def _reveal(self, it: A.ViewReveal, done: set[str]) -> set[str]:
        """`reveal at end: f, g`: hidden (owner-only or secret) player or table fields."""
        if it.at != "at":
            self.err("E160", f"'reveal {it.at} end' is not a time a view knows", it.span,
                     "write: reveal at end: FIELD, FIELD (shown to every seat once the game "
                     "is over)")
            return set()
        for k, n in enumerate(it.names):
            f = self._field(n, it.span, "be revealed")
            if f is not None and f.visibility == "public":
                self.err("E160", f"'{n}' is public: every seat sees it already", it.span,
                         "reveal names owner-only and secret fields only; take it off the list")
            elif f is not None and (n in done or n in it.names[:k]):
                self.err("E160", f"'{n}' is revealed twice", it.span, "name it once")
        return set(it.names)

    def _rows(self, rows: tuple[A.ViewRow, ...], var: Optional[str]) -> list[ViewLine]:
        out: list[ViewLine] = []
        labels: set[str] = set()
        for r in rows:
            if r.kind not in ROW_WORDS:
                self.err("E160", f"unexpected '{r.kind}' in a view", r.span,
                         (did_you_mean(r.kind, ROW_WORDS) or
                          "a line of a view is a row, a track, a grid, a graph, a hand or a pile")
                         + ': row "label" [in unit] = expression')
                continue
            if r.label in labels:
                self.err("E160", f"a second row \"{r.label}\" here", r.span,
                         "give each row its own label")
            labels.add(r.label)
            sc = Scope("expr")
            if var is not None:
                sc.declare(var, PLAYER)
            t = strip_opt(self.expr(r.expr, sc, None))
            if r.kind == "track" and t.kind not in ("list", "map", "any"):
                self.err("E160", f"track \"{r.label}\" has type {t}, not a list or a map", r.expr.span,
                         "a track shows one cell per entry: use a list or a map, "
                         "or 'row' for one value")
            xt: Optional[Type] = None
            if r.kind == "grid" and grid_cells(t) is None:
                self.err("E160", f"grid \"{r.label}\" has type {t}, not rows of cells", r.expr.span,
                         "a grid is a list of rows (a list of lists) or a map row name -> list: "
                         "[[cell(r, c) for c in 1..8] for r in 1..8]")
            node = graph_node(t) if r.kind == "graph" else None
            if r.kind == "graph" and node is None:
                self.err("E160", f"graph \"{r.label}\" has type {t}, not edges", r.expr.span,
                         "a graph is a list of paths (lists of nodes), a list of records whose "
                         "first two fields are the ends of an edge, or a map node -> neighbours")
            if r.kind in ("hand", "pile"):
                self._cards(r, t)
            if r.extra is not None:
                xt = strip_opt(self.expr(r.extra, sc, None))
                cell = grid_cells(t) if r.kind == "grid" else None
                if r.kind not in ("graph", "grid"):
                    self.err("E160", f"'with' on a {r.kind}: only a graph or a grid has what stands "
                             "on its nodes or squares", r.extra.span,
                             "remove 'with ...', or make the line a graph or a grid")
                elif r.kind == "grid":
                    if cell is not None and not (xt.kind == "map" and strip_opt(cell) ==
                                                 xt.args[0]) and xt.kind != "any":
                        self.err("E160", f"grid \"{r.label}\": 'with' needs a map from its squares "
                                 f"({cell}) to what stands on them, got {xt}", r.extra.span,
                                 "e.g. with {x: marks(x) for x in Space if has_marks(x)}")
                elif node is not None and not (xt.kind == "map" and xt.args[0] == node) and \
                        xt.kind != "any":
                    self.err("E160", f"graph \"{r.label}\": 'with' needs a map from its nodes "
                             f"({node}) to what stands on them, got {xt}", r.extra.span,
                             "e.g. with {wagon_at[w]: w for w in Wagon}")
            ot: Optional[Type] = None
            if r.on is not None:
                ot = strip_opt(self.expr(r.on, sc, None))
                if r.kind == "graph":
                    self._positions(r, node, ot)
                else:
                    self._spaces(r, t, ot)
            out.append(ViewLine(r.kind, r.label, r.unit, r.expr, t, sc.nslots, r.span,
                                field=None if r.extra is not None or r.on is not None else
                                self._whole_field(r.expr, var), extra=r.extra, extra_type=xt,
                                on=r.on, on_type=ot))
        return out

    def _whole_field(self, e: Any, var: Optional[str]) -> Optional[tuple[str, str]]:
        """The state field a row shows whole: a table field by name, or `p.f` in a panel."""
        if isinstance(e, A.Name) and e.name in self.table_fields and \
                self.refs.get(id(e), ("",))[0] == "table":
            return ("table", e.name)
        if var is not None and isinstance(e, A.Field) and isinstance(e.obj, A.Name) and \
                e.obj.name == var and e.name in self.player_fields:
            return ("player", e.name)
        return None
