"""Bodies: procedures, functions, setup, phases, triggers, any-time actions, statistics, the
eligible / invariant / end / score / tiebreak expressions; each checked in its own scope, with
its parameters, into a `Body` of the checked rulebook.
"""
from __future__ import annotations

from typing import Any, Optional

import attrs

from mercator.dsl import ast as A
from mercator.dsl.checked import Body, Stage
from mercator.dsl.checker_base import Scope
from mercator.dsl.checker_deals import DealChecker
from mercator.dsl.diagnostics import did_you_mean
from mercator.dsl.limits import MAX_PROC_DEPTH, call_depth_error
from mercator.dsl.types import ANY, BOOL, INT, PLAYER, Type, is_enumerable


@attrs.define
class Bodies:
    """The bodies of a rulebook, as the checker found them."""

    procs: dict[str, Body] = attrs.field(factory=dict)
    fns: dict[str, Body] = attrs.field(factory=dict)
    setup: Optional[Body] = None
    stages: list[Stage] = attrs.field(factory=list)    # the round declarations, in order
    phases: list[Body] = attrs.field(factory=list)
    triggers: list[Body] = attrs.field(factory=list)
    actions: list[Body] = attrs.field(factory=list)
    invariants: list[Body] = attrs.field(factory=list)
    ends: list[Body] = attrs.field(factory=list)       # 'end after ROUND when ...', by round
    score: Optional[Body] = None
    tiebreaks: list[Body] = attrs.field(factory=list)
    stats: list[Body] = attrs.field(factory=list)
    eligible: Optional[Body] = None
    estimate: Optional[Body] = None


class BodyChecker(DealChecker):
    """Checks every body of a rulebook (after its declarations)."""

    def check_bodies(self, items: tuple[Any, ...]) -> Bodies:
        """Check the procedures and functions, then every other body in the order declared."""
        self.bounded = set()
        for it in items:
            if isinstance(it, A.InvariantDecl):
                self.bounded |= self._field_names(it.expr)
        out = Bodies()
        out.procs = {n: self._proc(d) for n, d in self.proc_decls.items()}
        out.fns = {n: self._fn(d) for n, d in self.fn_decls.items()}
        too_long = call_depth_error(self._fn_calls(), {n: d.span for n, d in self.fn_decls.items()})
        if too_long is not None:
            self.diags.append(too_long)
        procs = self.proc_decls
        too_deep = call_depth_error({n: {c for c in self.calls.get(n, ()) if c in procs}
                                     for n in procs}, {n: d.span for n, d in procs.items()},
                                    MAX_PROC_DEPTH, "procedure")
        if too_deep is not None:
            self.diags.append(too_deep)
        action_names: set[str] = set()
        trigger_names: set[str] = set()
        for it in items:
            if isinstance(it, A.SetupDecl):
                if out.setup is not None:
                    self.err("E102", "a second 'setup' block", it.span, "merge the two setup blocks")
                out.setup = self._block_body("setup", "setup", it, it.body)
            elif isinstance(it, A.RoundDecl):
                self._round(it, out)
            elif isinstance(it, A.TriggerDecl):
                b = self._trigger(it)
                if b is not None:
                    if b.name in trigger_names:
                        self.err("E102", f"trigger '{b.name}' is already declared", it.span,
                                 "name it with 'as NAME'")
                    trigger_names.add(b.name)
                    out.triggers.append(b)
            elif isinstance(it, A.ActionDecl):
                b = self._action(it)
                if b is not None:
                    if b.name in action_names:
                        self.err("E102", f"action '{b.name}' is already declared", it.span)
                    action_names.add(b.name)
                    out.actions.append(b)
            elif isinstance(it, A.StatDecl):
                b = self._stat(it)
                if any(x.name == b.name for x in out.stats):
                    self.err("E102", f"statistic '{it.name}' is already declared", it.span)
                out.stats.append(b)
            else:
                self._expression_body(it, out)
        by_name = {st.name: st for st in out.stages}
        for end in out.ends:
            if end.name in by_name:
                by_name[end.name].end = end
        return out

    def _round(self, it: A.RoundDecl, out: Bodies) -> None:
        """One stage: several round declarations run one after the other, in order."""
        if any(st.name == it.name for st in out.stages):
            self.err("E102", f"round '{it.name}' is already declared", it.span,
                     "the rounds of a game run in order; give each its own name")
            return
        if isinstance(it.max_rounds, str) and self.const_types.get(it.max_rounds) != INT:
            self.err("E100", f"the round limit '{it.max_rounds}' is not an int constant",
                     it.span, did_you_mean(it.max_rounds, self.const_types))
        stage = Stage(it.name, it, [])
        seen: set[str] = set()
        for ph in it.phases:
            if ph.name in seen:
                self.err("E102", f"phase '{ph.name}' appears twice", ph.span)
            else:
                other = next((st.name for st in out.stages
                              if any(p.name == ph.name for p in st.phases)), None)
                if other is not None:
                    self.err("E102", f"phase '{ph.name}' is already a phase of round '{other}'",
                             ph.span, "variants and reports name phases: give each its own name")
            seen.add(ph.name)
            b = self._block_body(ph.name, "phase", ph, ph.body)
            stage.phases.append(b)
            out.phases.append(b)
        out.stages.append(stage)

    def _expression_body(self, it: Any, out: Bodies) -> None:
        """eligible, invariant, end, score, tiebreak and estimate: one expression each."""
        if isinstance(it, A.EligibleDecl):
            sc = Scope("expr")
            sc.declare(it.var, PLAYER)
            self.expect(self.expr(it.expr, sc, BOOL), BOOL, it.expr.span, "eligible")
            if out.eligible is not None:
                self.err("E102", "a second 'eligible' declaration", it.span,
                         "combine the conditions with 'and'")
            out.eligible = Body("eligible", "expr", (it.var,), (PLAYER,), BOOL, sc.nslots, it,
                                expr=it.expr, span=it.span)
        elif isinstance(it, A.InvariantDecl):
            sc = Scope("expr")
            self.expect(self.expr(it.expr, sc, BOOL), BOOL, it.expr.span, "invariant")
            out.invariants.append(Body(it.text, "expr", (), (), BOOL, sc.nslots, it, expr=it.expr,
                                       span=it.span))
        elif isinstance(it, A.EndDecl):
            if any(e.name == it.round for e in out.ends):
                self.err("E102", f"a second 'end after {it.round}' declaration", it.span,
                         "combine the conditions with 'or'")
            sc = Scope("expr")
            self.expect(self.expr(it.cond, sc, BOOL), BOOL, it.cond.span, "end condition")
            out.ends.append(Body(it.round, "expr", (), (), BOOL, sc.nslots, it, expr=it.cond,
                                 span=it.span))
        elif isinstance(it, A.EstimateDecl):
            sc = Scope("expr")
            sc.declare(it.var, PLAYER)
            self.expect(self.expr(it.expr, sc, INT), INT, it.expr.span, "estimate")
            if out.estimate is not None:
                self.err("E102", "a second 'estimate' declaration", it.span,
                         "add the two estimates up in one expression")
            out.estimate = Body("estimate", "expr", (it.var,), (PLAYER,), INT, sc.nslots, it,
                                expr=it.expr, span=it.span)
        elif isinstance(it, (A.ScoreDecl, A.TiebreakDecl)):
            sc = Scope("expr")
            sc.declare(it.var, PLAYER)
            what = "score" if isinstance(it, A.ScoreDecl) else "tiebreak"
            self.expect(self.expr(it.expr, sc, INT), INT, it.expr.span, what)
            b = Body(what, "expr", (it.var,), (PLAYER,), INT, sc.nslots, it, expr=it.expr,
                     span=it.span)
            if isinstance(it, A.ScoreDecl):
                if out.score is not None:
                    self.err("E102", "a second 'score' declaration", it.span,
                             "add a 'tiebreak' instead")
                out.score = b
            else:
                out.tiebreaks.append(b)

    def _fn_calls(self) -> dict[str, set[str]]:
        """Function -> the functions its body calls."""
        return {n: {c.name for c in A.walk(d.body) if isinstance(c, A.Call) and c.name in
                    self.fn_decls} for n, d in self.fn_decls.items()}

    def _params(self, params: tuple[A.Param, ...], sc: Scope) -> tuple[Type, ...]:
        out = []
        for p in params:
            t = self.resolve_type(p.type)
            if sc.lookup(p.name) is not None:
                self.err("E102", f"parameter '{p.name}' appears twice", p.span)
            self._no_shadow(p.name, p.span)
            sc.declare(p.name, t)
            out.append(t)
        return tuple(out)

    def _proc(self, d: A.ProcDecl) -> Body:
        res = self.resolve_type(d.result) if d.result is not None else None
        sc = Scope("proc", result=res)
        sc.owner = d.name
        pts = self._params(d.params, sc)
        sc.param_names = {p.name for p in d.params}
        self.block(d.body, sc)
        return Body(d.name, "proc", tuple(p.name for p in d.params), pts, res, sc.nslots, d,
                    block=d.body, span=d.span)

    def _fn(self, d: A.FnDecl) -> Body:
        res = self.resolve_type(d.result)
        sc = Scope("fn", result=res)
        pts = self._params(d.params, sc)
        self.expect(self.expr(d.body, sc, res), res, d.body.span, f"result of '{d.name}'")
        return Body(d.name, "fn", tuple(p.name for p in d.params), pts, res, sc.nslots, d,
                    expr=d.body, span=d.span)

    def _block_body(self, name: str, kind: str, decl: Any, block: A.Block) -> Body:
        sc = Scope(kind)
        self.block(block, sc)
        return Body(name, kind, (), (), None, sc.nslots, decl, block=block, span=decl.span)

    def _trigger(self, d: A.TriggerDecl) -> Optional[Body]:
        sc = Scope("trigger")
        if d.event not in self.events:
            self.err("E109", f"unknown event '{d.event}'", d.span,
                     did_you_mean(d.event, self.events) or f"declare it: event {d.event}(...)")
            pts: tuple[Type, ...] = tuple(ANY for _ in d.names)
        else:
            pts = self.events[d.event]
            if len(pts) != len(d.names):
                self.err("E118", f"event '{d.event}' has {len(pts)} parameter(s), the trigger names "
                         f"{len(d.names)}", d.span)
                pts = tuple(list(pts) + [ANY] * len(d.names))[: len(d.names)]
        for n, t in zip(d.names, pts):
            self._no_shadow(n, d.span)
            sc.declare(n, t)
        if d.cond is not None:
            self.expect(self.expr(d.cond, sc, BOOL), BOOL, d.cond.span, "trigger condition")
            sc.guards.append(d.cond)
        self.cur_writes = set()
        self.block(d.body, sc)
        self.trigger_writes.append((d, self.cur_writes))
        self.cur_writes = None
        return Body(d.label or d.event, "trigger", d.names, pts, None, sc.nslots, d, block=d.body,
                    cond=d.cond, event=d.event, span=d.span)

    def _stat(self, d: A.StatDecl) -> Body:
        """stat NAME counts EVENT(names) [as AMOUNT] when COND: a per-game count of an event (or
        the sum of AMOUNT over its emits)."""
        sc = Scope("expr")
        pts: tuple[Type, ...] = self.events.get(d.event, ())
        if d.event not in self.events:
            self.err("E109", f"unknown event '{d.event}'", d.span,
                     did_you_mean(d.event, self.events) or f"declare it: event {d.event}(...)")
        elif len(d.names) > len(pts):
            self.err("E118", f"event '{d.event}' has {len(pts)} parameter(s), the statistic names "
                     f"{len(d.names)}", d.span)
        self.emitted_watch.add(d.event)
        for n, t in zip(d.names, list(pts) + [ANY] * len(d.names)):
            sc.declare(n, t)
        if d.cond is not None:
            self.expect(self.expr(d.cond, sc, BOOL), BOOL, d.cond.span, "statistic condition")
        if d.amount is not None:
            self.expect(self.expr(d.amount, sc, INT), INT, d.amount.span, "statistic amount")
        return Body(d.name, "stat", d.names, pts[:len(d.names)], INT, max(sc.nslots, len(pts)), d,
                    expr=d.amount, cond=d.cond, event=d.event, span=d.span)

    def _action(self, d: A.ActionDecl) -> Optional[Body]:
        sc = Scope("action")
        pts = self._params(d.params, sc)
        if not pts or pts[0] != PLAYER:
            self.err("E112", f"action '{d.name}' must take the acting player as its first parameter",
                     d.span, f"write: anytime {d.name}(p: player, ...)")
        for p, t in zip(d.params[1:], pts[1:]):
            if not is_enumerable(t):
                self.err("E112", f"action parameter '{p.name}' has type {t}, which cannot be listed "
                         "as options", p.span, "use an enum, bool or player parameter")
        if d.cond is not None:
            self.expect(self.expr(d.cond, sc, BOOL), BOOL, d.cond.span, "action condition")
            sc.guards.append(d.cond)
        self.block(d.body, sc)
        return Body(d.name, "action", tuple(p.name for p in d.params), pts, None, sc.nslots, d,
                    block=d.body, cond=d.cond, span=d.span)
