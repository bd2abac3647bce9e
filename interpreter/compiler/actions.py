"""Any-time actions: which of them a player may take at a decision, by one generated function.

For each player count, every action's `when` condition is written out once per value of its
non-player parameters (the player who decides is the first parameter), as Python source, in
the order the options are listed; calling that function at a decision evaluates them in turn.
"""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, Callable

from mercator.dsl.checked import Body
from mercator.dsl.infoflow import conjuncts
from mercator.interpreter.engine.program import RUN_FAILURES, MercatorRuntimeError
from mercator.interpreter.engine.seen import label_of, vis_fn
from mercator.interpreter.engine.values import fmt


def _param_labels(rb: Any, b: Body) -> list:
    """The information-flow labels of an action's parameters after the player."""
    return list(rb.flow.action_params[b.name])

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
            labels = _param_labels(self.prog.rb, b)
            fns = self._vis[bid] = [vis_fn(lb) for lb in labels]
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
        offer = self.offer_for(len(s.players))
        try:
            return offer(s, who)
        except RUN_FAILURES as exc:
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
        conditions one by one again: only when one has failed)."""
        for bid, b, combos in self.combos(len(s.players)):
            if b.cond is None:
                continue
            f = self.prog.ex.compile(b.cond)
            for _, args in combos:
                L = [who, *args] + [None] * (self.prog.nslots[bid] - 1 - len(args))
                try:
                    f(s, L)
                except RUN_FAILURES as inner:
                    return MercatorRuntimeError(
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
                for k, (label, args) in enumerate(combos):
                    item = f"{name}_{bid}_{k}"
                    ex.ns[item] = (label, bid, args)
                    if b.cond is None:
                        lines.append(f"    out.append({item})")
                        continue
                    names = {0: "who", **{i + 1: repr(a) for i, a in enumerate(args)}}
                    lines.append(f"    if {ex.source(b.cond, names)}: out.append({item})")
            lines.append("    return out")
            # the deciding player's fields are read once (who is always a seat)
            if any("s.players[who]" in ln for ln in lines[2:]):
                lines = lines[:2] + ["    _pw = s.players[who]"] + \
                    [ln.replace("s.players[who]", "_pw") for ln in lines[2:]]
            return "\n".join(lines) + "\n"
        exec(ex.build(source, f"<{name}>", "exec"), ex.ns)
        return ex.ns[name]  # type: ignore[no-any-return]
