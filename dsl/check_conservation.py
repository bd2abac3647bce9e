"""W293: a rule that only adds to (or only takes from) what a conservation law counts (an
`invariant` of the form `A + B + ... == C`)."""
from __future__ import annotations

from typing import Any, Optional

import attrs

from mercator.dsl import ast as A
from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.diagnostics import Diagnostic, warning
from mercator.dsl.types import ANY, PLAYER, strip_opt

Place = tuple[str, str]          # ("table", field) or ("player", field)

# the nodes _stmt_effects finds a change in (any other gives none)
_CHANGES = (A.Assign, A.Draw, A.Move, A.Add, A.Remove, A.CallStmt, A.Call, A.Emit)


@attrs.define
class Law:
    """A conservation law: an invariant equation, the sign each place has in it, and the
    record fields its terms read (`f.n` in `sum(f.n for f in p.plots)`)."""

    text: str
    signs: dict[Place, int]
    members: set[str] = attrs.Factory(set)

    def counts(self, e: "Effect") -> bool:
        """Does the change e change what this law counts? Not when it changes a record field
        inside a counted place that the law never reads (`p.plots[i].b = c` where the law
        counts `f.n`): that leaves every total the same."""
        return e.place in self.signs and all(m in self.members for m in e.sub)


@attrs.define
class Effect:
    """A statement that changes a place: +1 gains, -1 loses, 0 sets it (direction unknown)."""

    place: Place
    sign: int
    span: A.Span
    sub: tuple[str, ...] = ()     # the record fields inside the place it changes (.plots[i].n: n)


class Conservation:
    """W293: a rule that only adds to (or only takes from) what a conservation law counts."""

    def __init__(self, rb: CheckedRulebook):
        self.rb = rb
        self.laws = [law for inv in rb.invariants for law in self._laws(inv)]
        self.summaries: dict[tuple[str, str], list[Effect]] = {}
        self.busy: set[tuple[str, str]] = set()
        self.triggers: dict[str, list[Any]] = {}
        for t in rb.triggers:
            self.triggers.setdefault(t.event or "", []).append(t)
        self.diags: list[Diagnostic] = []

    # --- the laws
    def _laws(self, inv: Any) -> list[Law]:
        out = []
        for eq in self._equations(inv.expr):
            signs: dict[Place, int] = {}
            members: set[str] = set()
            self._terms(eq.left, 1, signs, members)
            self._terms(eq.right, -1, signs, members)
            signs = {k: v for k, v in signs.items() if v != 0}
            if signs:
                out.append(Law(inv.name, signs, members))
        return out

    def _equations(self, e: Any) -> list[Any]:
        if isinstance(e, A.GenCall) and e.name == "all":
            return self._equations(e.elem)
        if isinstance(e, A.And):
            return self._equations(e.left) + self._equations(e.right)
        if isinstance(e, A.Compare) and e.op == "==":
            return [e]
        return []

    def _terms(self, e: Any, sign: int, signs: dict[Place, int], members: set[str]) -> None:
        if isinstance(e, A.BinOp) and e.op in ("+", "-"):
            self._terms(e.left, sign, signs, members)
            self._terms(e.right, sign if e.op == "+" else -sign, signs, members)
            return
        if isinstance(e, A.Neg):
            self._terms(e.operand, -sign, signs, members)
            return
        todo, seen = [e], set()
        while todo:                       # the places this term reads, through functions too
            for n in A.walk(todo.pop()):
                place = self._read_place(n)
                if place is not None:
                    old = signs.get(place)
                    signs[place] = sign if old in (None, sign) else 0
                if isinstance(n, A.Field) and \
                        strip_opt(self.rb.types.get(id(n.obj), ANY)).kind in ("record", "any"):
                    members.add(n.name)
                if isinstance(n, A.Call) and n.name in self.rb.fns and n.name not in seen:
                    seen.add(n.name)
                    todo.append(self.rb.fns[n.name].expr)

    def _read_place(self, n: Any) -> Optional[Place]:
        if isinstance(n, A.Name) and self.rb.refs.get(id(n), ("",))[0] == "table":
            return ("table", n.name)
        if isinstance(n, A.Field) and strip_opt(self.rb.types.get(id(n.obj), ANY)) == PLAYER:
            return ("player", n.name)
        return None

    def _place(self, lv: A.LValue) -> Optional[tuple[Place, tuple[str, ...]]]:
        """The state field a change lands in: the last player field on the way (owners[b].ducats
        changes that player's ducats, not the table 'owners'), else the table field it starts at;
        with the record fields inside it that the change is to (p.plots[i].n: ("n",))."""
        steps = lv.steps
        for k in range(len(steps) - 1, -1, -1):
            st = steps[k]
            if isinstance(st, A.LvField) and strip_opt(self.rb.types.get(id(st), ANY)) == PLAYER:
                return ("player", st.name), self._members(steps[k + 1:])
        ref = self.rb.refs.get(id(lv))
        if ref is not None and ref[0] == "table":
            return ("table", lv.root), self._members(steps)
        return None

    def _members(self, steps: Any) -> tuple[str, ...]:
        """The record fields a place's steps go into (a record's .field; not list or map keys)."""
        return tuple(st.name for st in steps if isinstance(st, A.LvField) and
                     strip_opt(self.rb.types.get(id(st), ANY)).kind == "record")

    # --- what a body changes
    def effects(self, kind: str, name: str, block: Optional[A.Block]) -> list[Effect]:
        """The changes a body makes, with procedures and triggers it runs folded in (each law
        balanced inside a called body contributes nothing)."""
        key = (kind, name)
        if key in self.summaries:
            return self.summaries[key]
        if key in self.busy or block is None:
            return []
        self.busy.add(key)
        raw: list[Effect] = []
        for n in A.walk(block):
            if isinstance(n, _CHANGES):
                raw += self._stmt_effects(n)
        self.busy.discard(key)
        out = [e for e in raw if not any(self._balanced(law, raw) for law in self._laws_of(e))]
        self.summaries[key] = out
        return out

    def _laws_of(self, e: Effect) -> list[Law]:
        return [law for law in self.laws if law.counts(e)]

    def _balanced(self, law: Law, effects: list[Effect]) -> bool:
        seen = {law.signs[e.place] * e.sign for e in effects if law.counts(e)}
        return 0 in seen or (1 in seen and -1 in seen)

    def _stmt_effects(self, n: Any) -> list[Effect]:
        out: list[Effect] = []

        def put(lv: A.LValue, sign: int, span: A.Span) -> None:
            """Record a change of the place an lvalue names."""
            where = self._place(lv)
            if where is not None:
                out.append(Effect(where[0], sign, span, where[1]))

        if isinstance(n, A.Assign):
            put(n.target, {"+=": 1, "-=": -1}.get(n.op, 0), n.span)
        if isinstance(n, A.Draw):
            put(n.source, -1, n.span)
        elif isinstance(n, A.Move):
            put(n.source, -1, n.span)
            put(n.dest, 1, n.span)
        elif isinstance(n, A.Add):
            put(n.dest, 1, n.span)
        elif isinstance(n, A.Remove):
            put(n.source, -1, n.span)
        elif isinstance(n, (A.CallStmt, A.Call)) and n.name in self.rb.procs:
            out += self.effects("proc", n.name, self.rb.procs[n.name].block)
        elif isinstance(n, A.Emit):
            for t in self.triggers.get(n.event, []):
                out += self.effects("trigger", t.name, t.block)
        return out

    def check(self) -> None:
        """Warn (W293) where a phase or action changes a conserved total on one side only."""
        if not self.laws:
            return
        roots = [("phase", b) for b in self.rb.phases] + [("action", b) for b in self.rb.actions]
        reported: set[A.Span] = set()
        for kind, body in roots:
            for law in self.laws:
                effs = [e for e in self.effects(kind, body.name, body.block) if law.counts(e)]
                if not effs or self._balanced(law, effs):
                    continue
                e = min(effs, key=lambda x: (x.span.path, x.span.line, x.span.col))
                if e.span in reported:
                    continue
                reported.add(e.span)
                way = "adds to" if law.signs[e.place] * e.sign > 0 else "takes from"
                part = f" (its .{'.'.join(e.sub)})" if e.sub else ""
                self.diags.append(warning(
                    "W293", f"this {way} the total that the invariant \"{law.text}\" keeps "
                    f"constant, and nothing in {kind} '{body.name}' balances it", e.span,
                    f"{e.place[0]} field '{e.place[1]}'{part} changes alone: move the amount from or to "
                    "another place the invariant counts in the same rule (or the invariant is wrong)"))
