"""W251: statements, branches, triggers, actions and phases that can never run."""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl import ast as A
from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.diagnostics import Diagnostic, warning
from mercator.dsl.check_options import Analysis


def _leaves(b: Optional[A.Block], how: tuple[type, ...]) -> bool:
    """True when a block always ends with one of the statement kinds in `how`."""
    if b is None or not b.stmts:
        return False
    last = b.stmts[-1]
    if isinstance(last, how):
        return True
    if isinstance(last, A.If) and last.else_ is not None:
        return _leaves(last.then, how) and _leaves(last.else_, how) and \
            all(_leaves(e.body, how) for e in last.elifs)
    return False


def _const_bool(e: Any) -> Optional[bool]:
    """The value of a condition written with constants only (true, false, not, and, or)."""
    if isinstance(e, A.BoolLit):
        return e.value
    if isinstance(e, A.Not):
        v = _const_bool(e.operand)
        return None if v is None else not v
    if isinstance(e, (A.And, A.Or)):
        a, b = _const_bool(e.left), _const_bool(e.right)
        if isinstance(e, A.And):
            return False if False in (a, b) else (True if a is True and b is True else None)
        return True if True in (a, b) else (False if a is False and b is False else None)
    return None


class Reachability:
    """W251: statements, branches, triggers, actions and phases that can never run."""

    def __init__(self, rb: CheckedRulebook, an: Analysis):
        self.rb = rb
        self.an = an
        self.diags: list[Diagnostic] = []

    def never(self, span: A.Span, why: str, hint: str) -> None:
        """Report a W251 at span."""
        self.diags.append(warning("W251", f"this never runs: {why}", span, hint))

    def check(self) -> None:
        """Look at every body, and at the phases after one that always ends the game."""
        rb = self.rb
        for body in [rb.setup] + rb.phases + rb.triggers + rb.actions + list(rb.procs.values()):
            if body is None or body.block is None:
                continue
            if body.cond is not None and self._false(body.cond):
                self.never(body.span, f"the condition of {body.kind} '{body.name}' is always false",
                           "remove it, or correct the condition")
                continue
            self.block(body.block)
        ended = None
        for ph in rb.phases:
            if ended is not None:
                self.never(ph.span, f"phase '{ended}' before it always ends the game",
                           "make the 'end game' depend on a condition, or remove this phase")
                break
            if ph.block is not None and _leaves(ph.block, (A.EndGame,)):
                ended = ph.name

    def _false(self, cond: Any) -> bool:
        v = _const_bool(self.an.simplify(cond))
        return v is False

    def block(self, b: A.Block) -> None:
        """Report the first statement after one that always leaves; walk the others."""
        for i, s in enumerate(b.stmts):
            if i > 0 and _leaves(A.Block(b.stmts[i - 1:i]), (A.Return, A.Break, A.EndGame)) \
                    and not isinstance(s, A.Empty):
                self.never(s.span, "the statement before it always leaves (return, break or end "
                           "game)", "remove it, or make the leaving statement conditional")
                return
            self.stmt(s)

    def stmt(self, s: Any) -> None:
        """Report branches and loop bodies whose conditions rule them out."""
        if isinstance(s, A.If):
            arms = [(s.cond, s.then)] + [(e.cond, e.body) for e in s.elifs]
            for k, (cond, body) in enumerate(arms):
                if self._false(cond):
                    self.never(body.span, "its condition is always false",
                               "remove the branch, or correct the condition")
                    continue
                self.block(body)
                if _const_bool(self.an.simplify(cond)) is True:
                    rest = [b for _, b in arms[k + 1:]] + ([s.else_] if s.else_ else [])
                    if rest:
                        self.never(rest[0].span, "a condition before it is always true",
                                   "remove the branch, or correct the condition")
                    return
            if s.else_ is not None:
                self.block(s.else_)
        elif isinstance(s, A.Deal):
            for body in s.blocks():
                self.block(body)
        elif isinstance(s, A.While):
            if self._false(s.cond):
                self.never(s.body.span, "the loop condition is always false",
                           "remove the loop, or correct the condition")
            else:
                self.block(s.body)
        elif isinstance(s, A.For):
            if s.where is not None and self._false(s.where):
                self.never(s.body.span, "the 'where' filter is always false",
                           "remove the loop, or correct the filter")
            else:
                self.block(s.body)
        elif isinstance(s, A.Repeat):
            self.block(s.body)
