"""Any-time actions: which of them a player may take at a decision, by one generated function.

For each player count, every action's `when` condition is written out once per value of its
non-player parameters (the player who decides is the first parameter), as Python source, in
the order the options are listed; calling that function at a decision evaluates them in turn.
"""
from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Any, Callable

from mercator.dsl import ast as A
from mercator.dsl.checked import Body
from mercator.dsl.infoflow import conjuncts
from mercator.interpreter.engine.exprs import RuleError, rule_failure
from mercator.interpreter.engine.program import RUN_FAILURES
from mercator.interpreter.engine.seen import label_of, vis_fn
from mercator.interpreter.engine.values import fmt

_WHO_FIELD = re.compile(r"s\.players\[who\]\[(\d+)\]")   # a field of the deciding player


def cannot_fail(rb: Any, e: Any) -> bool:
    """Evaluating e can raise no error: literals, names, the deciding player's fields and a
    record's, `not`, `and`/`or`, `in` a collection, `==`/`!=`, and order comparisons of ints
    that cannot be none."""
    refs, types = rb.refs, rb.types

    def kind(x: Any) -> str:
        t = types.get(id(x))
        return t.kind if t is not None else "any"
    if isinstance(e, (A.IntLit, A.BoolLit, A.StrLit, A.NoneLit)):
        return True
    if isinstance(e, A.Name):
        return refs.get(id(e), ("",))[0] in ("local", "const", "member", "table")
    if isinstance(e, A.Field):
        if isinstance(e.obj, A.Name) and refs.get(id(e.obj)) == ("local", 0):
            return True                # the player deciding: always a seat
        return kind(e.obj) == "record" and cannot_fail(rb, e.obj)
    if isinstance(e, A.Not):
        return cannot_fail(rb, e.operand)
    if isinstance(e, (A.And, A.Or)):
        return cannot_fail(rb, e.left) and cannot_fail(rb, e.right)
    if isinstance(e, A.In):
        return kind(e.coll) in ("list", "bag", "map") and cannot_fail(rb, e.item) and \
            cannot_fail(rb, e.coll)
    if isinstance(e, A.Compare):
        if e.op not in ("==", "!=") and (kind(e.left) != "int" or kind(e.right) != "int"):
            return False
        return cannot_fail(rb, e.left) and cannot_fail(rb, e.right)
    return False


def _reads_params(rb: Any, e: Any) -> bool:
    """e reads a parameter of the action other than the player (a local slot above 0)."""
    return any(isinstance(n, A.Name) and rb.refs.get(id(n), ("",))[0] == "local"
               and rb.refs[id(n)][1] != 0 for n in A.walk(e))


if TYPE_CHECKING:
    from mercator.interpreter.engine.program import Program
    from mercator.interpreter.engine.state import State

Offer = Callable[["State", int], list]


class Actions:
    """The any-time actions of a program and the functions listing those allowed."""

    def __init__(self, prog: "Program"):
        self.prog = prog
        self.bodies: list[tuple[int, Body]] = [
            (prog.body_id[("action", b.name)], b) for b in prog.rb.actions]
        self.ids = frozenset(bid for bid, _ in self.bodies)
        self.by_id = {bid: b for bid, b in self.bodies}
        self._vis: dict[int, list] = {}
        self._combo_cache: dict[int, list] = {}
        self._offers: dict[int, Offer] = {}
        self._public_offs: dict[int, Callable[["State", int], bool]] = {}
        # for the VM's decision ops (decisions.write_choice)
        prog.ex.ns.update(_allowed=self.allowed, _pubnone=self.none_allowed_publicly)

    def combos(self, n: int) -> list:
        """Per action: (body id, body, [(label, args)] for every value of its non-player
        parameters) in a game of n players."""
        if n in self._combo_cache:
            return self._combo_cache[n]
        out = []
        for bid, b in self.bodies:
            domains: list[list[Any]] = []
            for t in b.param_types[1:]:
                if t.kind == "enum":
                    domains.append(list(range(len(t.members))))
                elif t.kind == "bool":
                    domains.append([False, True])
                else:
                    domains.append(list(range(n)))
            combos = []
            for args in itertools.product(*domains):
                text = ", ".join(fmt(a, t) for a, t in zip(args, b.param_types[1:]))
                combos.append((f"{b.name}({text})" if text else b.name, list(args)))
            out.append((bid, b, combos))
        self._combo_cache[n] = out
        return out

    def announce(self, who: int, bid: int, args: list) -> tuple[str, str, Any]:
        """(name, arguments as text, who may see the arguments) of an action being taken."""
        b = self.by_id[bid]
        text = ", ".join(fmt(a, t) for a, t in zip(args, b.param_types[1:]))
        vis = None
        fns = self._vis.get(bid)
        if fns is None:
            # (the information-flow labels of its parameters after the player)
            fns = self._vis[bid] = [vis_fn(lb) for lb in self.prog.rb.flow.action_params[b.name]]
        L = [who, *args]
        for f in fns:
            if f is not None:
                v = f(None, L)
                vis = v if vis is None else [x for x in vis if x in v]
        return b.name, text, vis

    def allowed(self, s: "State", who: int) -> list:
        """The any-time actions player `who` may take now: (label, body_id, args). None are
        offered at the decisions made inside an any-time action (no nesting)."""
        if not self.bodies:
            return []
        ids = self.ids
        for fr in s.stack:
            if fr[0] in ids:
                return []
        offer = self._offers.get(len(s.players)) or self.offer_for(len(s.players))
        try:
            return offer(s, who)
        except RUN_FAILURES as exc:
            if not rule_failure(exc):
                raise
            raise self._failing_condition(s, who, exc) from None

    def offer_for(self, n: int) -> Offer:
        """The generated function (state, who) -> the actions allowed, for n players (an
        error in a condition is not located: `allowed` does that)."""
        offer = self._offers.get(n)
        if offer is None:
            offer = self._offers[n] = self._generate(n)
        return offer

    def _failing_condition(self, s: "State", who: int, exc: Exception) -> Exception:
        """The error of an action's `when` located at that condition (found by evaluating the
        conditions one by one again: only when one has failed); exc itself when it is not
        the rule's failure (Mercator's own bug: engine.exprs.rule_failure)."""
        if not rule_failure(exc):
            return exc
        for bid, b, combos in self.combos(len(s.players)):
            if b.cond is None:
                continue
            f = self.prog.ex.compile(b.cond)
            for _, args in combos:
                L = [who, *args] + [None] * (self.prog.nslots[bid] - 1 - len(args))
                try:
                    f(s, L)
                except RUN_FAILURES as inner:
                    if not rule_failure(inner):
                        return inner
                    return RuleError(
                        f"the condition of the any-time action '{b.name}' cannot be evaluated "
                        f"({inner})", b.cond.span, s.history)
        return exc

    def none_allowed_publicly(self, s: "State", who: int) -> bool:
        """Can every seat tell that player `who` may take no any-time action now? Yes inside an
        action (no nesting) or when each action, for each value of its parameters, has a
        public `when` conjunct that is false; no when its being barred rests on something
        hidden (a condition reading an owner-only field of his)."""
        if not self.bodies:
            return True
        ids = self.ids
        for fr in s.stack:
            if fr[0] in ids:
                return True
        n = len(s.players)
        f = self._public_offs.get(n)
        if f is None:
            f = self._public_offs[n] = self._generate_public_off(n)
        return f(s, who)

    def _generate_public_off(self, n: int) -> Callable[["State", int], bool]:
        """The function (state, who) -> none_allowed_publicly, for games of n players."""
        ex = self.prog.ex
        rb = self.prog.rb
        name = f"PUBLIC_OFF_{n}"

        def source() -> str:
            lines = [f"def {name}(s, who):"]
            for _, b, combos in self.combos(n):
                public = [c for c in (conjuncts(b.cond) if b.cond is not None else [])
                          if vis_fn(label_of(rb, c)) is None]
                if not public:             # nothing public bars it: it may be allowed
                    lines.append("    return False")
                    break
                for _, args in combos:
                    names = {0: "who", **{i + 1: repr(a) for i, a in enumerate(args)}}
                    test = " and ".join(f"({ex.source(c, names)})" for c in public)
                    lines.append(f"    if {test}: return False")
            lines.append("    return True")
            return "\n".join(lines) + "\n"
        exec(ex.build(source, f"<{name}>", "exec"), ex.ns)
        return ex.ns[name]  # type: ignore[no-any-return]

    def _generate(self, n: int) -> Offer:
        """The function (state, who) -> allowed actions, for games of n players."""
        ex = self.prog.ex
        name = f"ACTIONS_{n}"

        def source() -> str:
            lines = [f"def {name}(s, who):", "    out = []"]
            for bid, b, combos in self.combos(n):
                # a condition that cannot fail tests what reads no parameter once, before
                # the values of the parameters (the same answer: its conjuncts commute)
                conj = conjuncts(b.cond) if b.cond is not None else []
                first: list = []
                if len(combos) > 1 and conj and all(cannot_fail(self.prog.rb, c) for c in conj):
                    first = [c for c in conj if not _reads_params(self.prog.rb, c)]
                rest = [c for c in conj if c not in first]
                indent = "    "
                if first:
                    test = " and ".join(f"({ex.source(c, {0: 'who'})})" for c in first)
                    lines.append(f"    if {test}:")
                    indent = "        "
                for k, (label, args) in enumerate(combos):
                    item = f"{name}_{bid}_{k}"
                    ex.ns[item] = (label, bid, args)
                    if b.cond is None or (first and not rest):
                        lines.append(f"{indent}out.append({item})")
                        continue
                    names = {0: "who", **{i + 1: repr(a) for i, a in enumerate(args)}}
                    test = ex.source(b.cond, names) if not first else \
                        " and ".join(f"({ex.source(c, names)})" for c in rest)
                    lines.append(f"{indent}if {test}: out.append({item})")
            lines.append("    return out")
            # the deciding player's fields are read once, at the start (who is always a seat,
            # so reading one cannot fail; no condition changes the state)
            fields = sorted({int(k) for ln in lines[2:] for k in _WHO_FIELD.findall(ln)})
            if fields:
                body = [_WHO_FIELD.sub(lambda m: f"_pw{m.group(1)}", ln) for ln in lines[2:]]
                lines = lines[:2] + ["    _pw = s.players[who]"] + \
                    [f"    _pw{k} = _pw[{k}]" for k in fields] + body
            return "\n".join(lines) + "\n"
        exec(ex.build(source, f"<{name}>", "exec"), ex.ns)
        return ex.ns[name]  # type: ignore[no-any-return]
