"""Compiling a `deal` statement into ops (the window's run time is interpreter/engine/deals.py).

The ops: the window (it suspends at each of its decisions and leaves the pc on itself; when it
closes it jumps past the deal, or, on an acceptance, hands both sides over and runs on), the
`accepted` block's own ops, then the settlement of what was promised out of the proceeds.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from mercator.dsl import ast as A
from mercator.dsl.types import strip_opt
from mercator.interpreter.compiler.memo import scalar
from mercator.interpreter.engine.memory import Memo
from mercator.interpreter.engine.bundles import Part
from mercator.interpreter.engine.deals import (ACCEPTED, CLOSED_WITH, DRAFT, ORDER, QUIET, TURN,
                                                DealSpec)
from mercator.interpreter.engine.nodes import Decision, QuickPass

if TYPE_CHECKING:
    from mercator.interpreter.compiler.stmts import BodyCompiler


def _parts(bc: "BodyCompiler", bundle: str) -> list[Part]:
    rb = bc.rb
    decl = next(it for it in rb.items if isinstance(it, A.BundleDecl) and it.name == bundle)
    pindex = {f.name: i for i, f in enumerate(rb.player_fields)}
    ptypes = {f.name: f.type for f in rb.player_fields}
    elems: list[Any] = [strip_opt(ptypes[p.field]).elem for p in decl.parts if p.kind == "items"]
    out = []
    for p in decl.parts:
        t = strip_opt(ptypes[p.field])
        unit = p.unit if isinstance(p.unit, int) else \
            bc.p.consts[p.unit] if isinstance(p.unit, str) else 1
        elem = t.elem if p.kind == "items" else None
        shared = p.kind == "items" and elems.count(elem) > 1
        where = f"{p.field} → {p.to}" if p.to is not None else p.field if shared else ""
        out.append(Part(p.name, p.kind, pindex[p.field], unit, elem, t.kind == "bag",
                        shared, p.openly, elem is not None and scalar(elem),
                        pindex[p.to] if p.to is not None else None, where))
    bc.p.bundle_parts[bundle] = out
    return out


def compile_deal(bc: "BodyCompiler", s: A.Deal) -> None:
    """Emit the ops of deal statement s."""
    rb, ex = bc.rb, bc.ex
    ti = next(i for i, f in enumerate(rb.table_fields) if f.name == s.table)
    ot = strip_opt(rb.table_fields[ti].type).elem
    give = ot.field("give")
    assert give is not None
    bundle = give.name
    rules = {c.kind: (rb.refs[id(c)], ex.compile(c.expr)) for c in s.clauses
             if isinstance(c, A.DealRule)}
    acc = s.clause("accepted")
    closed = s.clause("closed")
    wslot = bc.hidden()
    close = s.setting("close")
    close_type = strip_opt(bc.type_of(close)).elem if close is not None else None

    def opt(name: str) -> Any:
        e = s.setting(name)
        return ex.compile(e) if e is not None else None
    spec = DealSpec(
        s.table, ti, _parts(bc, bundle), list(ot.members), s.terms(), opt("among"),
        opt("dealer"), opt("about"), ot.field("subject"), opt("quiet"), opt("limit"),
        rules, wslot, rb.refs[id(acc)] if acc is not None else None, opt("closer"),
        opt("close"), close_type, opt("accepts"))
    prog = bc.p
    span = s.span
    end: list[int] = []             # the pc after the deal's ops (known once they are made)
    closed_at: list[int] = []       # the pc of the closed(x) block

    # fns' memory (interpreter/compiler/memo.py) is on from the moment the void offers have left
    # the table until the decision is made: the state is fixed then (one memory for the deal,
    # emptied each time: a turn is never made inside another)
    memo_on = prog.ex.memo_on if prog.ex.memo else None
    memo = Memo(len(prog.ex.memo))
    quick = prog.quick_pass         # a rollout that makes no deals is running (QuickPass)

    def remembered(f: Callable, *args: Any) -> Any:
        """f(*args) with the deal's memory on, emptied first."""
        assert memo_on is not None
        memo.clear()
        saved, memo_on[0] = memo_on[0], memo
        try:
            return f(*args)
        finally:
            memo_on[0] = saved

    def window(st: Any, fr: list) -> Any:
        L = fr[2]
        W = L[wslot]
        if W is None:
            W = L[wslot] = spec.start(st, L)
        while True:
            o = W[ACCEPTED]
            if o is not None:
                W[ACCEPTED] = [o, spec.carry_out(st, L, o)]
                if spec.accept_slot is not None:
                    L[spec.accept_slot] = o
                fr[1] += 1
                return None
            if W[DRAFT] is None and spec.drop_void(st, L) and not spec.answering(W):
                spec.owe_all(W)
            d = turn(st, fr, L, W) if memo_on is None else remembered(turn, st, fr, L, W)
            if d is not False:
                return d
            spec.commit(st, L, W, None)       # nothing but pass: the turn goes on

    def turn(st: Any, fr: list, L: list, W: list) -> Any:
        """The window's decision now; None if the window closed, False if there is nothing
        to decide (only pass)."""
        if W[DRAFT] is None and spec.closed(st, L, W):
            L[wslot] = None
            if closed_at and W[QUIET] == -1 and len(W) > CLOSED_WITH \
                    and W[CLOSED_WITH] is not None:
                L[rb.refs[id(closed)]] = W[CLOSED_WITH][0]
                fr[1] = closed_at[0]
            else:
                fr[1] = end[0]
            return None
        if quick[0] and W[DRAFT] is None and not spec.forced(W):
            who = spec.seat(W)
            if spec.answering(W) or spec.takers(st, L, W, who):   # a decision, passed
                return QuickPass(who, commit, lambda: full(st, L, W))
        return decision(st, L, W)

    def decision(st: Any, L: list, W: list) -> Any:
        """The window's decision (False: there is nothing to decide, only pass)."""
        who, vals, labeller, prompt = spec.options(st, L, W)
        if not vals and W[DRAFT] is None and not spec.answering(W) \
                and not spec.binding_to(st, L, who):
            return False
        d = Decision(who, vals, labeller, W[DRAFT] is None and not spec.forced(W), prompt,
                     prog.actions_for(st, who), False, commit, span)
        d.vtype = ("deal", spec)
        if st.narrate and W[DRAFT] is not None:
            # building an offer: the drafter alone sees its steps and their prompts (the other
            # seats see the posted offer, or the cancel, and nothing in between)
            d.prompt_parts = [[prompt, [who]]]
            d.private = spec.private_steps(W, labeller)
            d.draft = spec.draft_later(st, L, who, W[DRAFT])   # (written when first read)
        return d

    def full(st: Any, L: list, W: list) -> Decision:
        """The decision a QuickPass stands for, made as the window's turn makes it."""
        d = decision(st, L, W) if memo_on is None else remembered(decision, st, L, W)
        assert isinstance(d, Decision)
        return d

    def commit(st2: Any, v: Any) -> None:
        fr2 = st2.stack[-1]
        spec.commit(st2, fr2[2], fr2[2][wslot], v)

    def settle(st: Any, fr: list) -> None:
        L = fr[2]
        W = L[wslot]
        o, before = W[ACCEPTED]
        spec.settle(st, o, before)
        if spec.accept_slot is not None:
            L[spec.accept_slot] = None
        if spec.goes_on(st, L, W):
            fr[1] = window_at[0]        # several deals a window (`accepts`): the next turn
            return
        L[wslot] = None
        fr[1] = end[0]
    window_at = [bc.here()]
    bc.emit(window, span)
    if acc is not None:
        assert isinstance(acc, A.DealAccepted)
        bc.block(acc.body)
    bc.emit(settle, span)
    if closed is not None:
        assert isinstance(closed, A.DealAccepted)
        closed_at.append(bc.here())
        bc.block(closed.body)
    end.append(bc.here())
