"""The rulebook's `view` compiled: each row's expression into a function (engine/declared_view.py)."""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl.checked import CheckedRulebook, ViewLine
from mercator.interpreter.engine.declared_view import LabelSpec, ViewRowSpec, ViewSpec


def compile_view(ex: Any, rb: CheckedRulebook) -> Optional[ViewSpec]:
    """The compiled view of a checked rulebook, or None when it declares none."""
    v = rb.view
    if v is None:
        return None
    index = {("table", f.name): ("table", i) for i, f in enumerate(rb.table_fields)}
    index.update({("player", f.name): ("player", i) for i, f in enumerate(rb.player_fields)})

    def row(r: ViewLine) -> ViewRowSpec:
        return ViewRowSpec(r.kind, r.label, r.unit, r.type, ex.compile(r.expr), r.nslots,
                           index[r.field] if r.field is not None else None, r.shown,
                           ex.compile(r.extra) if r.extra is not None else None, r.extra_type,
                           r.owned, ex.compile(r.on) if r.on is not None else None, r.on_type)

    def parts(ps: Any) -> list:
        return [(ex.compile(e), t) for e, t in ps]

    omit = frozenset(v.bookkeeping) | frozenset(name for _, name in v.covered)
    labels: dict[Any, LabelSpec] = {
        site: LabelSpec(parts(lab.parts), lab.nslots, lab.chooser, lab.shown)
        for lab in v.labels for site in lab.sites}
    # an any-time action's label, by ("action", name): its arguments are its locals
    labels.update({("action", lab.action): LabelSpec(parts(lab.parts), lab.nslots, True, lab.shown)
                   for lab in v.labels if lab.action is not None})
    texts = {t.type.name: (parts(t.parts), t.nslots) for t in v.texts}
    return ViewSpec([(title, [row(r) for r in rows]) for title, rows in v.sections],
                    [row(r) for r in v.panel], omit, labels, [row(r) for r in v.scoring],
                    v.revealed, list(v.tiebreaks), texts)
