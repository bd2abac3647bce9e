"""Who may see each row of a declared view (E160 for a row no rule lets the seats see), and
that each option label reads only public state (E161).

A row that shows a whole state field (`supply`, `p.shares` in a panel) is shown exactly as the
generic view shows that field: in full to whoever may see it, to the others as hidden with its
size. Any other row is a computed value, labelled by the information-flow analysis: a public
value is shown to every seat; in a panel, a value that depends only on the owner-only fields of
the panel's own player is shown to that player and as hidden to the others; anything else
(a secret field, another player's owner-only fields) is refused here, since no seat could be
shown it.
"""
from __future__ import annotations

from typing import Any

from mercator.dsl.checked import CheckedRulebook, ViewLine
from mercator.dsl.diagnostics import Diagnostic, error
from mercator.dsl.flow_exprs import ExprFlow, fn_summaries
from mercator.dsl.flow_taint import names


def label_view(rb: CheckedRulebook) -> list[Diagnostic]:
    """Set `shown` on every computed row of rb.view; E160 for a row no seat may be shown."""
    view = rb.view
    if view is None:
        return []
    flow = ExprFlow(rb, fn_summaries(rb), fielded=False)
    out: list[Diagnostic] = []
    for title, rows in view.sections:
        for r in rows:
            out += _label(flow, r, None, f'section "{title}"')
    for r in view.panel:
        out += _label(flow, r, 0, f"panel {view.panel_var}")
    for r in view.scoring:
        out += _label(flow, r, 0, f"scoring {view.scoring_var}")
    # the tie-breaks' values, for the final screen: shown like a panel row of the tied player
    view.tiebreaks = []
    for b in rb.tiebreaks:
        assert b.expr is not None
        t = flow.expr(b.expr).const
        if t.secret or t.owners - {0}:
            view.tiebreaks.append(("secret", frozenset()))
        else:
            view.tiebreaks.append(("owner" if t.owners else "public", t.owned))
    for lab in view.labels + view.texts:
        for e, _ in lab.parts:
            t = flow.expr(e).const    # the option itself is a local: the chooser sees it
            slot = lab.chooser_slot
            if not t.secret and slot is not None and t.owners <= {slot}:
                if t.owners:
                    lab.shown = "owner"      # the chooser's own hidden fields: his eyes only
                continue
            if t.secret or t.owners:
                what = names(t.hidden | t.drawn) if t.hidden or t.drawn else names(t.owned)
                kind = "secret" if t.hidden or t.drawn else "owner-only"
                if lab.action is not None:
                    who = f"the acting player {lab.var}'s own fields"
                    out.append(error(
                        "E161", f"the label of {what_of(lab)} is computed from the {kind} "
                        f"{what}: it reads only what every seat may see and {who}", e.span,
                        f"compute it from public fields, the action's arguments and {who}"))
                    continue
                if lab.text:
                    out.append(error(
                        "E161", f"the text of values of type {lab.type} is computed from the "
                        f"{kind} {what}: a text reads only what every seat may see", e.span,
                        "compute it from public fields and the value itself"))
                    continue
                out.append(error(
                    "E161", f"the label of {what_of(lab)} is computed from the "
                    f"{kind} {what}: a label reads only what every seat may see, and with "
                    "'for p' what the chooser p may see", e.span,
                    "compute it from public fields, the option itself, and (with 'label x: T "
                    "for p') the chooser p's own fields"))
    return out


def what_of(lab: Any) -> str:
    """What a label describes, for its messages."""
    return f"the any-time action '{lab.action}'" if lab.action is not None else \
        f"options of type {lab.type}"


def _label(flow: ExprFlow, r: ViewLine, player_slot: int | None, where: str) -> list[Diagnostic]:
    if r.field is not None:
        return []
    t = flow.expr(r.expr).const       # a view's locals (the panel's player) are public values
    for more in (r.extra, r.on):       # what stands on the nodes, the spaces, the positions
        if more is not None:
            t = t.join(flow.expr(more).const)
    if not t.secret and not (t.owners - ({player_slot} if player_slot is not None else set())):
        r.shown = "owner" if t.owners else "public"
        r.owned = t.owned
        return []
    if t.hidden or t.drawn:
        why = f"the secret {names(t.hidden | t.drawn)}, which no player may see"
    elif player_slot is None:
        why = f"the owner-only {names(t.owned)}, which only its owner may see"
    else:
        why = f"the owner-only {names(t.owned)} of players other than the panel's"
    hint = ("show the field itself (the others see it as hidden, with its size), "
            "or compute the row from what every seat may see")
    if player_slot is None and not t.hidden and not t.drawn:
        hint = "move the row into the panel, where each player sees his own, or " + \
            "show the field itself (the others see it as hidden, with its size)"
    return [error("E160", f"row \"{r.label}\" of the {where} is computed from {why}", r.span, hint)]


def check_preferences(rb: CheckedRulebook) -> list[Diagnostic]:
    """E162 for a preference that reads what its chooser may not see: a bot plays by it in the
    real game (`prefer` agents) as well as in drawn worlds, so it reads public fields, the
    option, and (with `for p`) the chooser p's own owner-only fields — nothing else."""
    if not rb.prefers:
        return []
    flow = ExprFlow(rb, fn_summaries(rb), fielded=False)
    out: list[Diagnostic] = []
    for pref in rb.prefers:
        t = flow.expr(pref.expr).const
        slot = 1 if pref.chooser else None
        if not t.secret and (not t.owners or (slot is not None and t.owners <= {slot})):
            continue
        what = names(t.hidden | t.drawn) if t.hidden or t.drawn else names(t.owned)
        kind = "secret" if t.hidden or t.drawn else "owner-only"
        out.append(error(
            "E162", f"the preference for options of type {pref.type} reads the {kind} {what}: "
            "a preference reads only what the chooser may see", pref.expr.span,
            "compute it from public fields, the option itself, and (with 'prefer x: T for p') "
            "the chooser p's own fields"))
    return out
