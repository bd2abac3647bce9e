"""compile_program: a checked rulebook → a Program (interpreter.engine) ready to create games.

Every body (setup, phases, procs, triggers, actions) becomes a list of ops (stmts.py,
decisions.py) whose runs of non-suspending statements are fused into generated Python
(fuse.py); expressions and fns become generated Python (codegen.py); the main body runs
setup, then the rounds and their phases, then the end.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Optional

from mercator.dsl import ast as A
from mercator.dsl.checked import Body, CheckedRulebook
from mercator.interpreter.compiler.actions import Actions
from mercator.interpreter.compiler.codegen import BuildError, CodeGen
from mercator.interpreter.compiler.defaults import start_values
from mercator.interpreter.compiler.fuse import Fused
from mercator.interpreter.compiler.inline import bodies_of
from mercator.interpreter.compiler.memo import state_changing_pcs
from mercator.interpreter.compiler.rollout import Rollout
from mercator.interpreter.compiler.stmts import BodyCompiler
from mercator.interpreter.compiler.views import compile_view
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.memory import Memo
from mercator.interpreter.engine.program import DEFAULT_STEP_BUDGET, Program
from mercator.interpreter.engine.seen import record
from mercator.interpreter.engine.state import State


def compile_program(rb: CheckedRulebook, step_budget: int = DEFAULT_STEP_BUDGET,
                    native: Optional[bool] = None) -> Program:
    """Compile a checked rulebook once; a build failure is a RuleError at the rule. With
    `native` (default: $MERCATOR_NATIVE is 1) the generated code is compiled by Cython
    (compiler/native.py), where Cython and a C compiler are found; else, or should that fail,
    it runs as Python (one warning line says why)."""
    if native is None:
        native = os.environ.get("MERCATOR_NATIVE", "") == "1"
    if native:
        from mercator.interpreter.compiler.native import native_program
        fast = native_program(rb, step_budget, lambda prog, link: _build(prog, rb, link))
        if fast is not None:
            return fast
    prog = Program(rb, step_budget)
    try:
        _build(prog, rb)
    except BuildError as exc:   # located at the rule, with no decisions made yet
        raise RuleError(exc.message, exc.span, []) from None
    return prog


def _build(prog: Program, rb: CheckedRulebook, native: Any = None) -> None:
    ex = prog.ex = CodeGen(rb, native=native)
    early = ex.const_fns()
    if early:             # first with constants looked up by name: constants may call fns
        ex.define_fns(early)
    ex.define_consts()
    prog.consts = ex.consts
    ex.define_fns()       # again, with the constants' values known
    bodies = bodies_of(rb)             # body ids: 0 main, then these
    prog.body_id = {(b.kind, b.name): i + 1 for i, b in enumerate(bodies)}
    prog.proc_id = {n: prog.body_id[("proc", n)] for n in rb.procs}
    for b in rb.triggers:
        prog.triggers_by_event.setdefault(b.event or "", [])
    prog.stat_names = [b.name for b in rb.stats]
    prog.stat_events = [b.event or "" for b in rb.stats]
    prog.event_names = frozenset(rb.events)
    for i, b in enumerate(rb.stats):
        cond = ex.compile(b.cond) if b.cond is not None else None
        amount = ex.compile(b.expr) if b.expr is not None else None
        prog.stats_by_event.setdefault(b.event or "", []).append((i, cond, b.nslots, amount))
    prog.codes.append([])
    prog.spans.append([])
    prog.nslots.append(4)
    prog.body_names.append("game")
    # the generated functions: each simple statement's op, and (below) the fused runs
    fused = prog.fused = Fused(prog)
    compilers = []
    for b in bodies:
        bc = BodyCompiler(prog, b, fused)
        compilers.append(bc)
        ops, spans, n = bc.compile()
        prog.codes.append(ops)
        prog.spans.append(spans)
        prog.nslots.append(n)
        prog.body_names.append(f"{b.kind} {b.name}")
    for b in rb.triggers:
        cond = ex.compile(b.cond) if b.cond is not None else None
        tid = prog.body_id[("trigger", b.name)]
        prog.triggers_by_event[b.event or ""].append((tid, cond, prog.nslots[tid]))
    fused.singles([(bc, bc.written()) for bc in compilers])
    _build_main(prog, rb, ex)
    prog.actions = Actions(prog)
    # what run() executes: the ops with runs of non-suspending statements fused (codes
    # keeps the ops one by one, for coverage tracing)
    prog.fast = [prog.codes[0]] + [fused.fast_ops(bc, ops, state_changing_pcs(bc))
                                   for bc, ops in zip(compilers, prog.codes[1:])]

    def adopt_helpers() -> None:          # the engine's helpers compiled with the generated code
        if native is not None:
            from mercator.interpreter.compiler.native import adopt, helpers
            adopt(ex, helpers())

    def make_rollout() -> Rollout:
        ro = Rollout(prog, compilers)
        adopt_helpers()                   # (the helpers it names, compiled too)
        return ro
    prog.make_rollout = make_rollout
    prog.make_rollout.compilers = compilers  # type: ignore[attr-defined]  # (native.py)
    prog.memo = Memo(len(ex.memo)) if ex.memo else None
    prog.pf_types = [f.type for f in rb.player_fields]
    prog.tf_types = [f.type for f in rb.table_fields]
    prog.score_f = ex.compile(rb.score.expr) if rb.score is not None else None
    prog.score_slots = rb.score.nslots if rb.score is not None else 1
    prog.key_signs = tuple(-1 if b is not None and b.decl.wins == "lowest" else 1
                           for b in [rb.score, *rb.tiebreaks])

    def compiled(d: Any) -> Any:          # an expression declared with its local slots
        return (ex.compile(d.expr), d.nslots) if d is not None else None
    prog.tiebreak_fs = [compiled(t) for t in rb.tiebreaks]
    prog.estimate_f, prog.eligible_f = compiled(rb.estimate), compiled(rb.eligible)
    # each decision's preference, by its choose's (path, line, col): (f, slots, chooser, span)
    prog.prefer_fs = {site: (ex.compile(pr.expr), max(pr.nslots, 2), pr.chooser, pr.span)
                      for pr in rb.prefers for site in pr.sites}
    prog.invariants = [(b.name, ex.compile(b.expr), b.nslots, b.span) for b in rb.invariants]
    prog.bot_settings = dict(rb.bots)
    prog.view = compile_view(ex, rb)
    prog.start_values = lambda: (start_values(prog, rb.table_fields),
                                 start_values(prog, rb.player_fields))
    adopt_helpers()


def _build_main(prog: Program, rb: CheckedRulebook, ex: CodeGen) -> None:
    """Body 0: setup, then each stage (round declaration) in order: rounds of its phases until
    its end condition or its round limit; after the last stage, the finish.

    The main frame's local 0 holds the round number at which the current stage began (the
    first stage begins at 0 and never sets it, so a one-round game's state is as it always was):
    a stage's `limit` counts its own rounds, `s.round` counts the rounds of the whole game."""
    ops: list = []
    spans: list[A.Span] = []
    if rb.setup is not None:
        sid = prog.body_id[("setup", "setup")]
        ops.append(call_op(sid, prog.nslots[sid]))
        spans.append(rb.setup.span)
    for i, st in enumerate(rb.stages):
        last = i == len(rb.stages) - 1
        here = st.decl.span
        if i > 0:
            ops.append(_enter_stage)
            spans.append(here)
        head = len(ops)
        limit = st.decl.max_rounds
        if isinstance(limit, str):
            limit = prog.consts[limit]
        ops.append(_new_round(st.name))
        spans.append(here)
        for ph in st.phases:
            pid = prog.body_id[("phase", ph.name)]
            ops.append(call_op(pid, prog.nslots[pid]))
            spans.append(ph.span)
        ops.append(_check_end(ex, st.end, limit, head, len(ops) + 1, i > 0, last))
        spans.append(st.end.span if st.end is not None else here)
    ops.append(lambda s, fr: prog.finish(s))
    spans.append(rb.stages[-1].decl.span if rb.stages else A.NOSPAN)
    prog.codes[0] = ops
    prog.spans[0] = spans


def _new_round(name: str) -> Callable[[State, list], None]:
    """The op that begins a round of the stage `name` (`round voyage { ... }`): the round
    count on, and with narration a heading of the log a person reads ("— voyage 2 —":
    engine/seen.py; no seat's line, so no digest changes)."""
    def op(s: State, fr: list) -> None:
        s.round += 1
        if s.narrate:
            record(s, ["round", s.round, name])
        fr[1] += 1
    # the op's effect as the rollout writes it out (a rollout narrates nothing)
    setattr(op, "written", "s.round += 1")
    return op


def _enter_stage(s: State, fr: list) -> None:
    fr[2][0] = s.round
    fr[1] += 1


# the op's effect as the rollout writes it out (before it sets the pc on)
setattr(_enter_stage, "written", "fr[2][0] = s.round")


def _check_end(ex: CodeGen, end: Optional[Body], limit: Optional[int], head: int, after: int,
               counted: bool, last: bool) -> Callable[[State, list], None]:
    """The op at the end of a stage's round: back to `head` for the stage's next round, or (its
    end condition holds, or its limit is reached) on to `after`: the next stage, or the finish.
    `counted`: the stage began at the round number in the main frame's local 0 (not at 0)."""
    end_f = ex.compile(end.expr) if end is not None else None
    end_slots = end.nslots if end is not None else 0

    def check_end(s: State, fr: list) -> None:
        why = "end" if end_f is not None and end_f(s, [None] * end_slots) else "limit" \
            if limit is not None and s.round - (fr[2][0] if counted else 0) >= limit else None
        if why is not None and last:
            s.ended_by = why
        fr[1] = head if why is None else after
    return check_end


def call_op(bid: int, nslots: int) -> Callable[[State, list], None]:
    """The op that calls body `bid` (a new frame of nslots locals) and returns after it."""
    def call(s: State, fr: list) -> None:
        fr[1] += 1
        s.stack.append([bid, 0, [None] * nslots, -1])
    setattr(call, "pushes", True)            # it pushes a frame (compiler/rollout.py)
    setattr(call, "calls", (bid, nslots))    # (the rollout writes the call out)
    return call
