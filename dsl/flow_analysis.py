"""The information-flow analysis of a checked rulebook: labels for what the engine shows, and the
warnings about hidden information shown or made public.

W270  a log part no seat will ever see (it reads a secret field)
W271  options or a prompt that show the chooser what he may not see
W272  a field more seats may see than may see the value assigned to it
W273  a player's `estimate` that reads what that player may not see

Every body is compiled once into a small system (dsl/flow_bodies.py); the systems are solved
together until the labels passed between them (procedure parameters and results, event
arguments) stop changing. docs/language.md, "What each seat sees", states the rules.
"""
from __future__ import annotations

from collections import deque
from typing import Optional

from mercator.dsl import ast as A
from mercator.dsl.checked import Body, CheckedRulebook
from mercator.dsl.diagnostics import Diagnostic, warning
from mercator.dsl.flow_bodies import Fields, Site, Store, System, Value, compile_body
from mercator.dsl.flow_exprs import ExprFlow, fn_summaries
from mercator.dsl.flow_taint import CLEAR, Formula, Key, Taint, names
from mercator.dsl.infoflow import FlowInfo, Label

Solution = tuple[dict[int, Taint], dict[tuple[int, str], Taint]]


def _first(slots: tuple[Optional[int], ...], o: int) -> Optional[int]:
    for j, s in enumerate(slots):
        if s == o:
            return j
    return None


class Solver:
    """Solves every body's system, passing labels along calls, results and emits."""

    def __init__(self, rb: CheckedRulebook):
        self.rb = rb
        summaries = fn_summaries(rb)
        bodies: list[Body] = ([rb.setup] if rb.setup is not None else []) + rb.phases + \
            rb.triggers + rb.actions + list(rb.procs.values())
        self.systems = [compile_body(rb, summaries, b) for b in bodies]
        self.procs = {s.body.name: s for s in self.systems if s.body.kind == "proc"}
        self.params: dict[int, list[Taint]] = {id(s): [CLEAR] * s.nparams for s in self.systems}
        self.events: dict[str, list[Taint]] = {}
        self.rets: dict[str, Taint] = {}
        self.solutions: dict[int, Solution] = {}
        self.action_params: dict[str, tuple[Taint, ...]] = {}
        for s in self.systems:
            if s.body.kind == "action":
                self._action_inputs(s)

    def _action_inputs(self, s: System) -> None:
        """Each parameter after the player: the join of the `when` conjuncts that mention it,
        with the parameters themselves public."""
        got = [CLEAR] * s.nparams
        for f in s.when:
            for j in range(1, s.nparams):
                if j in f.deps:
                    got[j] = got[j].join(f.const)
        self.params[id(s)] = got
        self.action_params[s.body.name] = tuple(got[1:])

    # ------------------------------------------------------------ one body
    def _valid(self, s: System, o: int, target: int) -> bool:
        """May a local `target` keep owner slot `o`? Only a stable local (never reassigned)
        declared before it, or a parameter: later ones are gone or change meanwhile."""
        return o not in s.reassigned and (o < s.nparams or o < target)

    def _settle(self, s: System, t: Taint, target: int) -> Taint:
        if not t.owners:
            return t
        return t.remap(lambda o: o if self._valid(s, o, target) else None)

    def solve(self, s: System) -> Solution:
        """The label of every local of a body, given its inputs."""
        whole: dict[int, Taint] = {}
        part: dict[tuple[int, str], Taint] = {}
        for i, t in enumerate(self.params[id(s)]):
            if t is not CLEAR:
                whole[i] = self._settle(s, t, i)
        items: list[tuple[Key, Formula]] = list(s.assigns)
        items += [(key, Formula(self._result(site))) for key, site in s.results]
        sol = (whole, part)
        for _ in range(10_000):
            changed = False
            for key, f in items:
                v = self.value(f, sol)
                slot = key if isinstance(key, int) else key[0]
                v = self._settle(s, v, slot)
                if isinstance(key, int):
                    old = whole.get(key, CLEAR)
                    new = old.join(v)
                    if new != old:
                        whole[key] = new
                        changed = True
                else:
                    oldp = part.get(key, CLEAR)
                    newp = oldp.join(v)
                    if newp != oldp:
                        part[key] = newp
                        changed = True
            if not changed:
                break
        return sol

    def value(self, f: Formula, sol: Solution) -> Taint:
        """A formula's taint in a solution."""
        whole, part = sol
        out = f.const
        for d in f.deps:
            if isinstance(d, int):
                out = out.join(whole.get(d, CLEAR))
                if part:
                    for (s, _), t in part.items():
                        if s == d:
                            out = out.join(t)
            else:
                out = out.join(whole.get(d[0], CLEAR)).join(part.get(d, CLEAR))
        return out

    def _result(self, site: Site) -> Taint:
        """A procedure's result in the caller's frame."""
        t = self.rets.get(site.target, CLEAR)
        return t.remap(lambda j: site.slots[j] if j < len(site.slots) else None)

    def taint(self, v: Value, sol: Solution) -> Taint:
        """The taint of a right-hand side's value."""
        if isinstance(v, Site):
            return self._result(v)
        if isinstance(v, Fields):
            return self.value(v.whole, sol)
        return self.value(v, sol)

    # ------------------------------------------------------------ all bodies
    def run(self) -> None:
        """Solve until nothing passed between bodies changes."""
        triggers: dict[str, list[System]] = {}
        callers: dict[str, list[System]] = {}
        for s in self.systems:
            if s.body.kind == "trigger" and s.body.event is not None:
                triggers.setdefault(s.body.event, []).append(s)
            for _, site in s.results:
                callers.setdefault(site.target, []).append(s)
        queue = deque(self.systems)
        queued = {id(s) for s in self.systems}
        while queue:
            s = queue.popleft()
            queued.discard(id(s))
            sol = self.solve(s)
            self.solutions[id(s)] = sol
            woken: list[System] = []
            for site in s.calls:
                callee = self.procs.get(site.target)
                if callee is not None and self._pass(site, sol, self.params[id(callee)]):
                    woken.append(callee)
            for site in s.emits:
                got = self.events.setdefault(site.target, [CLEAR] * len(site.args))
                if self._pass(site, sol, got):
                    for tr in triggers.get(site.target, []):
                        self.params[id(tr)] = got[:tr.nparams] + [CLEAR] * (tr.nparams - len(got))
                        woken.append(tr)
            if s.body.kind == "proc":
                ret = CLEAR
                for f in s.returns:
                    t = self.value(f, sol)
                    ret = ret.join(t.remap(lambda o: o if o < s.nparams and o not in s.reassigned
                                           else None))
                if ret != self.rets.get(s.body.name, CLEAR):
                    self.rets[s.body.name] = ret
                    woken.extend(callers.get(s.body.name, []))
            for w in woken:
                if id(w) not in queued:
                    queued.add(id(w))
                    queue.append(w)

    def _pass(self, site: Site, sol: Solution, into: list[Taint]) -> bool:
        """Join a call's (or emit's) arguments into the callee's inputs; True if they grew.
        An owner the caller passes as an argument becomes that parameter; others are lost."""
        changed = False
        for j, f in enumerate(site.args):
            if j >= len(into):
                break
            t = self.value(f, sol).remap(lambda o: _first(site.slots, o))
            new = into[j].join(t)
            if new != into[j]:
                into[j] = new
                changed = True
        return changed

    # ------------------------------------------------------------ results
    def flow_info(self) -> FlowInfo:
        """The labels the engine uses."""
        labels: dict[int, Label] = {}
        for s in self.systems:
            sol = self.solutions.get(id(s), ({}, {}))
            for node_id, f in s.labels:
                labels[node_id] = self.value(f, sol).label()
        actions = {n: tuple(t.label() for t in ts) for n, ts in self.action_params.items()}
        return FlowInfo(labels, actions)

    def diagnostics(self) -> list[Diagnostic]:
        """W270, W271 and W272, each once."""
        out: dict[tuple[str, A.Span], Diagnostic] = {}
        for s in self.systems:
            sol = self.solutions.get(id(s), ({}, {}))
            for sh in s.shown:
                if sh.kind == "promise":
                    d = _promise_warning(sh.what, sh.node.span, self.value(sh.formula, sol))
                else:
                    d = _shown_warning(sh.kind, sh.node.span, self.value(sh.formula, sol),
                                       sh.who)
                if d is not None:
                    out.setdefault((d.code, d.span), d)
            for st in s.stores:
                t = self.taint(st.value, sol).join(self.value(st.keys, sol))
                d = _store_warning(st, t)
                if d is not None:
                    out.setdefault((d.code, d.span), d)
        return list(out.values())


def _fields(ns: frozenset[str]) -> str:
    return ("field " if len(ns) == 1 else "fields ") + names(ns)


def _shown_warning(kind: str, span: A.Span, t: Taint, who: Optional[int]) -> Optional[Diagnostic]:
    if kind == "log":
        hint = ("the engine cuts it from every seat's narration: log it once the rules reveal it, "
                "or write 'log public:' if the rules show it")
        if t.hidden:
            return warning("W270", f"no seat will ever see this log part: it reads the secret "
                           f"{_fields(t.hidden)}", span, hint)
        if t.unnamed:
            return warning("W270", f"no seat will see this log part: it depends on the owner-only "
                           f"{_fields(t.owned)} of players no local names", span,
                           hint + "; or name the player with a local (for p in ..., let p = ...)")
        if t.drawn:
            return warning("W270", f"no seat will see this log part: it is an item drawn from the "
                           f"secret {_fields(t.drawn)}, which no seat has been shown", span,
                           "the engine cuts it from every seat's narration: write 'log public:' "
                           "if the rules show the item (a card turned face up), 'log to p:' for "
                           "the player who drew it, or log it where the rules reveal it")
        return None
    what = "these options show" if kind == "options" else "this prompt shows"
    hint = "offer only what the chooser may see"
    if t.hidden:
        return warning("W271", f"{what} the secret {_fields(t.hidden)} to the one who chooses",
                       span, hint)
    others = t.owners - {who} if who is not None else t.owners
    if others or t.unnamed:
        return warning("W271", f"{what} the owner-only {_fields(t.owned)} of another player to "
                       "the one who chooses", span, hint)
    return None


def _promise_warning(what: str, span: A.Span, t: Taint) -> Optional[Diagnostic]:
    """W272 for a part of a deal's promise computed from hidden data: a posted offer is on the
    public table, so what it promises is seen by every seat."""
    if not t.leaky:
        return None
    table, part = what.split(": ", 1)
    src = (f"{names(t.hidden)}, which no player may see" if t.hidden else
           f"{names(t.owned)}, which only {'its' if len(t.owned) == 1 else 'their'} owner may see")
    return warning("W272", f"the promise of an offer on the public table '{table}' (its "
                   f"{part}) is computed from {src}", span,
                   "a posted offer shows what it promises to every seat: promise only what "
                   "every seat may see, mark the part 'openly' if it is an owner-only field the "
                   "offer shows, or '# allow W272: reason' if the printed game shows it")


def _store_warning(st: Store, t: Taint) -> Optional[Diagnostic]:
    if st.visibility == "secret" or not t.leaky:
        return None
    if st.visibility == "owner":
        others = t.owners - {st.player} if st.player is not None else t.owners
        if not (others or t.hidden or t.unnamed):
            return None
        if not st.owner_map:
            target = f"owner-only field '{st.field}' of one player"
        elif st.player is not None:
            target = f"the entry of one player in owner-only map '{st.field}'"
        else:
            target = f"owner-only map '{st.field}'"
    else:
        target = f"public field '{st.field}'"
    if t.hidden:
        src = f"{names(t.hidden)}, which no player may see"
    elif st.visibility == "owner" and st.owner_map and st.player is None:
        src = (f"{names(t.owned)}, which only {'its' if len(t.owned) == 1 else 'their'} owner "
               f"may see: assign it entry by entry, '{st.field}[p] = ...'")
    elif st.visibility == "owner":
        src = f"another player's {names(t.owned)}"
    else:
        src = f"{names(t.owned)}, which only {'its' if len(t.owned) == 1 else 'their'} owner may see"
    return warning("W272", f"{target} is computed from {src}", st.node.rhs.span,
                   "make the field owner-only or secret, or '# allow W272: reason' if the printed "
                   "game shows it")


def _estimate_warning(rb: CheckedRulebook) -> Optional[Diagnostic]:
    """W273: the estimate of player p (its variable, slot 0) may read what p may see — public
    fields and p's own owner-only ones — and nothing else. A searching seat judges drawn worlds
    by it, where the rest is a guess, and a person may be shown his own estimate."""
    b = rb.estimate
    if b is None or b.expr is None:
        return None
    t = ExprFlow(rb, fn_summaries(rb), fielded=False).expr(b.expr).const
    others = t.owners - {0}
    if not (t.hidden or others or t.unnamed):
        return None
    if t.hidden:
        src = f"the secret {names(t.hidden)}, which no player may see"
    else:
        src = f"another player's owner-only {names(t.owned)}"
    return warning("W273", f"the estimate of {b.params[0]} reads {src}", b.expr.span,
                   f"judge {b.params[0]}'s position by what {b.params[0]} may see: public "
                   f"fields and {b.params[0]}'s own owner-only ones, or '# allow "
                   "W273: reason'")


def analyse_flow(rb: CheckedRulebook) -> tuple[FlowInfo, list[Diagnostic]]:
    """The information-flow labels of a checked rulebook and its W270-W273 warnings."""
    solver = Solver(rb)
    solver.run()
    diags = solver.diagnostics()
    est = _estimate_warning(rb)
    if est is not None:
        diags.append(est)
    return solver.flow_info(), diags
