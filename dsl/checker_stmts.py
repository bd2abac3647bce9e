"""Statements: each checked in its scope (one s_KIND method per AST class), with W291 (a payment
an invariant bounds, unguarded) and W260 (a while loop with no limit).
"""
from __future__ import annotations

from typing import Any, Callable

from mercator.dsl import ast as A
from mercator.dsl.checker_base import Scope, lv_text
from mercator.dsl.checker_decisions import DecisionChecker
from mercator.dsl.diagnostics import did_you_mean
from mercator.dsl.types import BOOL, INT, PLAYER, assignable, is_collection, iter_elem, strip_opt


class StmtChecker(DecisionChecker):
    """Checks blocks and statements."""

    def block(self, b: A.Block, sc: Scope) -> None:
        """Check the statements of a block, in a scope of its own."""
        sc.push()
        for s in b.stmts:
            self.stmt(s, sc)
        sc.pop()

    def stmt(self, s: Any, sc: Scope) -> None:
        """Check one statement (dispatched to s_KIND by its class)."""
        self.at = s.span
        m: Callable[[Any, Scope], None] = getattr(self, "s_" + type(s).__name__)
        m(s, sc)

    def s_Let(self, s: A.Let, sc: Scope) -> None:
        """let NAME [: TYPE] = RHS: a new local, of the declared type or the right-hand side's."""
        if isinstance(s.rhs, A.Choose) or (isinstance(s.rhs, A.Call) and s.rhs.name == "min"):
            sc.capped.add(s.name)
        if s.type is not None:
            want = self.resolve_type(s.type)
            self.expect(self.rhs(s.rhs, sc, want), want, s.span, f"value of '{s.name}'")
            self._no_shadow(s.name, s.span)
            self._no_shadow_local(s.name, s.span, sc)
            self.refs[id(s)] = sc.declare(s.name, want)
            return
        t = self.rhs(s.rhs, sc, None)
        if t.kind == "none":
            self.err("E104", f"cannot tell the type of '{s.name}' from 'none'", s.span,
                     "initialise it with a value of its type")
        self._no_shadow(s.name, s.span)
        self._no_shadow_local(s.name, s.span, sc)
        self.refs[id(s)] = sc.declare(s.name, t)

    def _check_payment(self, s: A.Assign, sc: Scope) -> None:
        """W291: `X.f -= amount` on a field an invariant bounds, with nothing that stops it
        from taking more than there is (no guard mentioning f, no min(...))."""
        if s.op != "-=" or not s.target.steps or not isinstance(s.target.steps[-1], A.LvField):
            return
        field = s.target.steps[-1].name
        if field not in self.bounded:
            return
        if isinstance(s.rhs, A.IntLit) and s.rhs.value <= 1:
            return        # counting down one piece (an accomplice, a merchant): bookkeeping
        if isinstance(s.rhs, A.Call) and s.rhs.name == "min":
            return
        if isinstance(s.rhs, A.Name) and (s.rhs.name in sc.param_names or
                                          s.rhs.name in sc.capped):
            return        # a payment helper (its callers decide), or an amount chosen / capped
        if any(field in self._field_names(g) for g in sc.guards):
            return
        self.warn("W291", f"this payment may take more '{field}' than there is", s.span,
                  f"an invariant bounds '{field}': guard it with an 'if', cap it with min(...), "
                  "or let the payer raise the money first")

    def s_Assign(self, s: A.Assign, sc: Scope) -> None:
        """PLACE = / += / -= RHS."""
        self._check_payment(s, sc)
        lt = self.lvalue(s.target, sc)
        if s.op == "=":
            rt = self.rhs(s.rhs, sc, lt)
            self.expect(rt, lt, s.span, f"assignment to '{lv_text(s.target)}'")
        else:
            if strip_opt(lt).kind not in ("int", "any"):
                self.err("E117", f"'{s.op}' needs an int place, '{lv_text(s.target)}' is {lt}",
                         s.target.span)
            rt = self.rhs(s.rhs, sc, INT)
            self.expect(rt, INT, s.span, f"'{s.op}'")

    def s_If(self, s: A.If, sc: Scope) -> None:
        """if / elif / else: each condition a bool; the arms guarded by the conditions."""
        self.expect(self.expr(s.cond, sc, BOOL), BOOL, s.cond.span, "condition")
        conds = [s.cond] + [e.cond for e in s.elifs]
        sc.guards.extend(conds)          # every arm (and else) is decided by these conditions
        self.block(s.then, sc)
        for e in s.elifs:
            self.expect(self.expr(e.cond, sc, BOOL), BOOL, e.cond.span, "condition")
            self.block(e.body, sc)
        if s.else_ is not None:
            self.block(s.else_, sc)
        del sc.guards[-len(conds):]

    def s_For(self, s: A.For, sc: Scope) -> None:
        """for VAR in COLLECTION [where COND] { ... }."""
        it = self.expr(s.iter, sc, None)
        if not is_collection(strip_opt(it)) and it.kind != "any":
            self.err("E104", f"'for' needs a list, bag or map to go through, got {it}", s.iter.span)
        sc.push()
        self._no_shadow(s.var, s.span)
        self._no_shadow_local(s.var, s.span, sc)
        self.refs[id(s)] = sc.declare(s.var, iter_elem(it))
        if s.where is not None:
            self.expect(self.expr(s.where, sc, BOOL), BOOL, s.where.span, "'where' filter")
        sc.guards.append(s.where if s.where is not None else A.BoolLit(True))
        sc.loops += 1
        self.block(s.body, sc)
        sc.loops -= 1
        sc.guards.pop()
        sc.pop()

    def s_Repeat(self, s: A.Repeat, sc: Scope) -> None:
        """repeat N { ... }."""
        self.expect(self.expr(s.count, sc, INT), INT, s.count.span, "repeat count")
        sc.loops += 1
        self.block(s.body, sc)
        sc.loops -= 1

    def s_While(self, s: A.While, sc: Scope) -> None:
        """while COND [limit N] { ... } (W260 without a limit)."""
        if s.max is None:
            self.warn("W260", "a 'while' loop with no limit", s.span,
                      "add 'limit N' (the most passes the rules allow); the step budget stops "
                      "a runaway loop only at run time")
        sc.guards.append(s.cond)
        self.expect(self.expr(s.cond, sc, BOOL), BOOL, s.cond.span, "condition")
        sc.loops += 1
        self.block(s.body, sc)
        sc.loops -= 1
        sc.guards.pop()

    def s_Move(self, s: A.Move, sc: Scope) -> None:
        """move ITEM from PLACE to PLACE: both collections of the item's type."""
        a = self._container(s.source, sc, "'move ... from'")
        self._mark_read(s.source)
        b = self._container(s.dest, sc, "'move ... to'")
        it = self.expr(s.item, sc, a)
        self.expect(it, a, s.item.span, "item moved")
        if not assignable(a, b):
            self.err("E104", f"cannot move items of {a} into a collection of {b}", s.span)

    def s_Add(self, s: A.Add, sc: Scope) -> None:
        """add ITEM to PLACE."""
        e = self._container(s.dest, sc, "'add ... to'")
        self.expect(self.expr(s.item, sc, e), e, s.item.span, "item added")

    def s_Remove(self, s: A.Remove, sc: Scope) -> None:
        """remove ITEM from PLACE (a key from a map, an item from a list or bag)."""
        mt = strip_opt(self.lvalue(s.source, sc))
        self._mark_read(s.source)
        if mt.kind == "map":         # remove KEY from MAP deletes the entry
            self.expect(self.expr(s.item, sc, mt.elem), mt.elem, s.item.span, "key removed")
            return
        e = self._container(s.source, sc, "'remove ... from'")
        self.expect(self.expr(s.item, sc, e), e, s.item.span, "item removed")

    def s_Shuffle(self, s: A.Shuffle, sc: Scope) -> None:
        """shuffle PLACE (a list)."""
        t = strip_opt(self.lvalue(s.target, sc))
        if t.kind not in ("list", "any"):
            self.err("E104", f"'shuffle' needs a list, '{lv_text(s.target)}' is {t}", s.target.span)

    def s_Emit(self, s: A.Emit, sc: Scope) -> None:
        """emit EVENT(args): a declared event, with arguments of its parameters' types."""
        self.emitted.add(s.event)
        if s.event not in self.events:
            self.err("E109", f"unknown event '{s.event}'", s.span,
                     did_you_mean(s.event, self.events) or f"declare it: event {s.event}(...)")
            for a in s.args:
                self.expr(a, sc, None)
            return
        self._args(s.args, self.events[s.event], sc, s.span, f"event '{s.event}'")

    def s_CallStmt(self, s: A.CallStmt, sc: Scope) -> None:
        """NAME(args) as a statement: a procedure, function or built-in."""
        self.call_proc_or_fn(s.name, s.args, s, sc, statement=True)

    def s_Return(self, s: A.Return, sc: Scope) -> None:
        """return [VALUE]: a value only in a procedure that declares a result."""
        if sc.kind not in ("proc",):
            if sc.kind in ("phase", "setup", "trigger", "action") and s.value is None:
                return
            self.err("E110", "'return' with a value outside a procedure", s.span)
            return
        if s.value is None:
            if sc.result is not None:
                self.err("E110", f"this procedure must return a value of type {sc.result}", s.span)
            return
        t = self.expr(s.value, sc, sc.result)
        if sc.result is None:
            self.err("E110", "this procedure declares no result", s.span,
                     "add '-> TYPE' after its parameters")
        else:
            self.expect(t, sc.result, s.value.span, "returned value")

    def s_Break(self, s: A.Break, sc: Scope) -> None:
        """break: only inside a loop."""
        if sc.loops == 0:
            self.err("E111", "'break' outside a loop", s.span)

    def s_EndGame(self, s: A.EndGame, sc: Scope) -> None:
        """end game: the game may end without an 'end after' declaration."""
        self.has_end_game = True

    def s_Log(self, s: A.Log, sc: Scope) -> None:
        """log [public: | to PLAYER:] parts."""
        if s.audience is not None and not isinstance(s.audience, str):
            who = self.expr(s.audience, sc, PLAYER)
            self.expect(who, PLAYER, s.audience.span, "'log to'")
        for p in s.parts:
            self.expr(p, sc, None)
