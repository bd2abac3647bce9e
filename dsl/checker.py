"""Name resolution and type checking of a parsed rulebook; collects every diagnostic.

The checker is one class put together from its parts, each a module of its own:

    dsl/checker_base.py         the tables it fills, diagnostics, type expressions, AST walks
    dsl/checker_exprs.py        the types of expressions and calls
    dsl/checker_collections.py  list and map literals, comprehensions, generator calls
    dsl/checker_places.py       places a statement changes (lvalues)
    dsl/checker_decisions.py    decisions, chance and procedure results (right-hand sides)
    dsl/checker_stmts.py        statements
    dsl/checker_bodies.py       procedures, functions, phases, triggers, actions and the rest
    dsl/checker_decls.py        the declaration passes: types, signatures, constants, defaults
    dsl/checker_usage.py        the parts a game must have; warnings about use
    dsl/checker_views.py        the view: sections, panel, rows, bookkeeping fields
    dsl/checker_bounds.py       the bounds: sizes the rules guarantee

`check_items` runs it, then the flow checks (dsl/analysis.py) and the information-flow analysis
(dsl/flow_analysis.py) on a rulebook without errors, and then decides who may see each row
of the view (dsl/flow_views.py).
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl import ast as A
from mercator.dsl.analysis import analyse
from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.checker_base import GENERICS, PRIMITIVES, Scope
from mercator.dsl.checker_bodies import BodyChecker
from mercator.dsl.checker_bounds import BoundsChecker
from mercator.dsl.checker_bots import BotsChecker
from mercator.dsl.checker_decls import DeclChecker
from mercator.dsl.checker_prefer import PreferChecker
from mercator.dsl.checker_usage import UsageChecker
from mercator.dsl.checker_views import ViewChecker
from mercator.dsl.diagnostics import Diagnostic, apply_allows, error
from mercator.dsl.flow_analysis import analyse_flow
from mercator.dsl.flow_views import check_preferences, label_view
from mercator.dsl.limits import DeepRecursion, PausedGC

__all__ = ["Checker", "Scope", "check_items", "PRIMITIVES", "GENERICS"]


class Checker(DeclChecker, BodyChecker, UsageChecker, ViewChecker, BoundsChecker, PreferChecker,
              BotsChecker):
    """Walks the declarations and bodies, fills the resolution/type tables, collects diagnostics."""

    def run(self) -> Optional[CheckedRulebook]:
        """Check the rulebook: the checked rulebook, or None (an error, or a library file)."""
        items = self.items
        games = [i for i in items if isinstance(i, A.GameDecl)]
        for extra in games[1:]:
            self.err("E102", "a second 'game' declaration", extra.span, "a rulebook describes one game")
        self.declare_types(items)
        self.declare_signatures(items)
        self.check_constants(items)
        self.check_defaults()
        self.check_bundle_parts()
        b = self.check_bodies(items)
        view = self.check_view(items)
        prefers = self.check_prefers(items)
        bounds = self.check_bounds(items)
        bots = self.check_bots(items)
        if not games and not b.stages and b.score is None and b.setup is None:
            if not items:   # a library (rulebooks/lib/): declarations only, used by games
                self.warn("W220", "this file declares nothing", self._top_span(),
                          'a rulebook starts with: game "Name" players 2..4')
            return None
        self.check_parts(games, b.stages, b.score, b.ends)
        self.usage_warnings()
        self.event_warnings(b.triggers, b.stats)
        if any(d.is_error for d in self.diags) or not games:
            return None
        return CheckedRulebook(
            path=self.path, sources=self.sources, items=items, game=games[0], enums=self.enums,
            member_of=self.member_of, records=self.records, record_decls=self.record_decls,
            consts=self.consts, const_types=self.const_types,
            player_fields=list(self.player_fields.values()),
            table_fields=list(self.table_fields.values()), events=self.events, procs=b.procs,
            fns=b.fns, setup=b.setup, stages=b.stages, phases=b.phases, triggers=b.triggers,
            actions=b.actions, invariants=b.invariants, score=b.score,
            tiebreaks=b.tiebreaks, stats=b.stats, eligible=b.eligible, estimate=b.estimate,
            prefers=prefers, bots=bots,
            types=self.types,
            refs=self.refs, keep=[items], view=view, bounds=bounds)


def check_items(items: tuple[Any, ...], path: str,
                sources: dict[str, str]) -> tuple[Optional[CheckedRulebook], list[Diagnostic]]:
    """Check parsed declarations; return (checked rulebook or None on error, diagnostics)."""
    c = Checker(items, path, sources)
    with DeepRecursion(), PausedGC():
        try:
            result = c.run()
            if result is not None:
                c.diags += analyse(result)
                result.flow, flow_diags = analyse_flow(result)
                c.diags += flow_diags
                view_diags = label_view(result) + check_preferences(result)
                c.diags += view_diags
                if view_diags:
                    result = None
        except RecursionError:      # the limits of dsl/limits.py should make this unreachable
            where = c.at if c.at.line >= 1 and c.at.col >= 1 else A.Span(path, 1, 1, 1, 2)
            return None, [error("E140", "this rulebook nests too deeply to be checked (here, or "
                                "in what this calls)", where, "split deep expressions with 'let' "
                                "and deep blocks into procedures")]
    allowed = apply_allows(c.diags, sources, path if result is not None else None)
    diags = sorted(allowed, key=lambda d: (d.span.path, d.span.line, d.span.col))
    return result, diags
