"""The rollout: each body compiled into one Python function with real loops and calls, for
`Program.playout` (random play to the end, the inner loop of a search).

The VM (engine/program.py) runs ops one at a time from a dispatch loop, and every decision
returns to that loop. A rollout needs neither: it picks each choice itself. So here every body
(setup, phases, procs, triggers, actions) becomes one generated function `RB<id>(s, fr)`:
statements that never suspend are written as Python source exactly as fuse.py writes them,
and the control forms as control.py writes them (the same methods write their VM ops):
`if`, `for`, `while` and `repeat` become Python's own; a proc call is a Python call; an emit
that starts triggers runs their functions; a `choose`, and a simultaneous choice, is
written inline by the writer of its VM op (decisions.write_choice), its tail the random draw
and the commit; a roll or a draw calls the helpers its op draws with (decisions.roll_die,
draw_item); other chance and shuffles are the statement's op run alone by the VM loop
(`Rollout.suspend`), which picks at each node it returns (`Rollout.pick`).

The functions keep the VM's frames exactly: each body call pushes the frame
`[body, pc, locals, return slot]` the VM would push, the locals (a loop's hidden slots too)
are kept in that frame's list, and the pc is set before each statement that can suspend. So
when `max_decisions` stops a rollout at a decision, the state is the VM's own at that
decision (apply, clone and JSON go on from it as usual). The frames open when the rollout
starts run on compiled too: the main frame (setup, rounds, phases, the finish) by `RB0`, any
other from the first statement or loop head it comes to by a function written for that pc
(`RB<id>_at<pc>`: the rest of the body from there, each loop around it resumed), until then
by the VM loop. The rollout
plays the same game as the VM for the same generator (tests/test_playout.py); it does not
count `state.steps` (the ops run), and it charges the step budget per loop round and per op
of the VM loops rather than per op.

Fns' values are remembered throughout (memo.py): after a statement that changes the state,
the values of the fns that read what it wrote are forgotten (`memo.fn_reads`); the VM loops
here switch the memory per op as the VM does.

Bodies nested deeper than MAX_NEST frames run in the VM loop instead (Python's own stack is
limited; the rulebook's is not), as does a body Python cannot compile.
"""
from __future__ import annotations

import random
from functools import partial
from types import CodeType, TracebackType
from typing import TYPE_CHECKING, Any, Callable, Optional, cast

from mercator.dsl import ast as A
from mercator.dsl.types import strip_opt
from mercator.interpreter.compiler.actions import Actions
from mercator.interpreter.compiler.codegen import TOO_DEEP, hoist_fields, hoist_state
from mercator.interpreter.compiler.control import LOOPS, WHOLE
from mercator.interpreter.compiler.decisions import draw_item, roll_die, write_choice
from mercator.interpreter.compiler.fuse import Fused, _BodyFuser, _stub, native_pc
from mercator.interpreter.compiler.memo import blocks_of, fn_reads, scalar, state_changing_pcs
from mercator.interpreter.engine.memory import Memo
from mercator.interpreter.engine import limits
from mercator.interpreter.engine.chance import weighted_index
from mercator.interpreter.engine.nodes import Decision, QuickPass, Terminal, no_deal_index
from mercator.interpreter.engine.program import RUN_FAILURES

if TYPE_CHECKING:
    from mercator.interpreter.compiler.stmts import BodyCompiler
    from mercator.interpreter.engine.program import Program
    from mercator.interpreter.engine.state import State

MAX_NEST = 60      # frames on the state's stack beyond which bodies run in the VM loop


class Stop(Exception):
    """max_decisions reached: the state is stopped at a decision (s.pending)."""


class Over(Exception):
    """The game ended (s.pending is the result)."""


_STOP, _OVER = Stop(), Over()


def _proc_call(rb: Any, st: Any) -> Optional[str]:
    """The proc st calls, if it is a call of one: `proc(...)` or `let x = proc(...)`."""
    if isinstance(st, A.CallStmt):
        return st.name if rb.refs[id(st)][0] == "proc" else None
    if isinstance(st, A.Let) and isinstance(st.rhs, A.Call) and \
            rb.refs.get(id(st.rhs), ("",))[0] == "proc":
        return st.rhs.name
    return None


def _drawer(rng: Any) -> Callable[[int], int]:
    """rng.randrange for a count n > 0: random.Random's own _randbelow, which randrange(n)
    calls after checking its arguments (the same numbers), or the object's randrange."""
    return getattr(rng, "_randbelow") if type(rng) is random.Random else rng.randrange  # type: ignore[no-any-return]


# Rollout.drain: run the frames pushed above the first n of the stack, each by its compiled body
# (with the fns' memory on: a body does not switch it on itself; its callers in compiled code
# have it on, and a helper that switches it off switches it on again when it returns).
# Rollout.act: run the any-time action (label, body, args) that `who` took at a decision (none
# is offered while it runs: actions do not nest).
_RUNNERS = """
def _drain(s, n):
    stack = s.stack
    while len(stack) > n:
        top = stack[-1]
        f = _BODIES[top[0]]
        if f is None or len(stack) > _MAXNEST:
            _deep(s, top)
        else:
            if _M is not None:
                _MEMO[0] = _M
            f(s, top)

def _act(s, who, action):
    _, bid, args = action
    stack = s.stack
    stack.append([bid, 0, [who, *args] + [None] * (_NSLOTS[bid] - 1 - len(args)), -1])
    _C[5] = True
    _drain(s, len(stack) - 1)
    _C[5] = False
"""

_ENTRY_NUMBERS = 100_000     # the native path's resume points number their temporaries from here


class Rollout:
    """The compiled bodies of a program and the loops that run a random playout with them."""

    def __init__(self, prog: "Program", compilers: list["BodyCompiler"]):
        self.prog = prog
        self.lines: dict[CodeType, tuple[int, list[int]]] = {}
        self.sources: dict[str, str] = {}
        # randrange, history, decisions made, limit, the step budget between decisions, is an
        # any-time action running, the function offering the any-time actions, who decides,
        # do the players make no deals (playout(..., deals=False)), the getrandbits of rng when
        # it is a random.Random (the inline choices draw as its _randbelow does) else None
        self.ctx: list[Any] = [None, None, 0, -1, prog.step_budget, False, None, 0, False, None]
        # the memory of fns' values (one table per fn), and the ops that keep the state
        self.memo: Optional[Memo] = Memo(len(prog.ex.memo)) if prog.ex.memo else None
        self.memo_on: list = prog.ex.memo_on
        self.keep: set = prog.fused.keep_state  # type: ignore[attr-defined]
        self.bodies: list[Optional[Callable]] = [None]
        ns = self.ns = prog.ex.ns
        ns.update(_vm=self.vm_until, _node=self.node, _deep=self.deep, _susp=self.suspend,
                  _drawn=draw_item, _C=self.ctx, _BUDG=limits.BUDGET, _roll=roll_die,
                  _stop=self.stop, _RUNF=RUN_FAILURES, _afail=self.action_failed, _M=self.memo,
                  _BODIES=self.bodies, _NSLOTS=prog.nslots, _MAXNEST=MAX_NEST, _ONCE=(None,))
        # drain and act, written as generated code (compiled with it on the native path)
        exec(prog.ex.build(lambda: _RUNNERS, "<rollout runners>", "exec"), ns)
        self.drain: Callable[["State", int], None] = ns["_drain"]
        self.act: Callable[["State", int, tuple], None] = ns["_act"]
        for i, table in enumerate(self.memo or ()):
            ns[f"_M{i}"] = table       # (each fn's table, for the lines forgetting it)
        self.reads = fn_reads(prog.rb)
        # the VM's ops, with every op that pushes frames followed by running them compiled
        self.codes: list[list[Callable]] = [[self._wrap(op) for op in prog.codes[0]]]
        for bc, ops in zip(compilers, prog.codes[1:]):
            wrapped = [self._wrap(op) for op in ops]
            self.codes.append(cast(Fused, prog.fused).fast_ops(bc, wrapped,
                                                                state_changing_pcs(bc)))
        for bid, bc in enumerate(compilers, 1):
            w = _Writer(prog, bc, f"RB{bid}", self)
            self.bodies.append(self._define(w, bid, w.source))
            if self.bodies[bid] is None:       # the VM loop runs this body
                self.ns[w.name] = self.deep
        main = self._compile_main()
        if main is not None:           # the main frame, at whatever pc, runs on compiled
            self.codes[0] = [main] * len(self.codes[0])
        # what the VM loop of `vm` runs: a frame open when the rollout began runs on compiled
        # from the first statement it comes to that it can resume at (see _entry_points), by
        # a function written for that pc when a frame first comes to it
        self.entry_codes: list[list[Callable]] = [list(ops) for ops in self.codes]
        for bid, bc in enumerate(compilers, 1):
            if self.bodies[bid] is not None:
                codes = self.entry_codes[bid]
                for pc, (path, head) in self._entry_points(bc).items():
                    codes[pc] = _stub(codes, pc, partial(self._entry, bid, bc, pc, path, head))

    # -- building
    def _wrap(self, op: Callable) -> Callable:
        if not getattr(op, "pushes", False):
            return op
        drain = self.drain

        def pushing(s: "State", fr: list) -> None:
            n = len(s.stack)
            op(s, fr)
            drain(s, n)
        return pushing

    def _define(self, w: "_Writer", bid: int, source: Callable[[], str]) -> Optional[Callable]:
        """The function w writes (source(): `def <w.name>(s, fr): ...`) of body bid, compiled
        into the namespace with its table of lines (for relocate); None if Python refuses it."""
        try:
            code = self.prog.ex.build(lambda: hoist_state(source()),
                                      f"<rollout {self.prog.body_names[bid]}>", "exec")
        except TOO_DEEP:
            return None
        exec(code, self.ns)
        f = self.ns[w.name]
        self.lines[f.__code__] = (1, w.pcs)
        self.sources[w.name] = "\n".join(w.lines) + "\n"
        return f  # type: ignore[no-any-return]

    def _entry_points(self, bc: "BodyCompiler") -> dict[int, tuple[list, bool]]:
        """pc -> (path to the statement, at its loop's head?) for each pc a frame of bc's body
        can be resumed at by a function of its own: the start of a statement whose op is done
        in one go (it never suspends, or it is an `if`, a loop or a proc call: a frame there
        has not begun it), and the head of each loop."""
        w = _Writer(self.prog, bc, "", self)
        out: dict[int, tuple[list, bool]] = {}

        def walk(b: A.Block, path: list) -> None:
            for i, st in enumerate(b.stmts):
                here = path + [(b, i)]
                pc = bc.pc_of[id(st)]
                if isinstance(st, (A.If, *LOOPS)) or w.fusable(st) or \
                        _proc_call(self.prog.rb, st) is not None:
                    out[pc] = (here, False)
                if isinstance(st, LOOPS):
                    out[pc + 1] = (here, True)
                for sub in blocks_of(st):
                    walk(sub, here)
        walk(bc.top, [])
        return out

    def _entry(self, bid: int, bc: "BodyCompiler", pc: int, path: list, head: bool) -> None:
        """Put at (bid, pc) in entry_codes the function running a frame of body bid on from pc
        (the VM's op, if Python cannot compile it); until a frame first comes there, the op
        there is a stub (fuse._stub) that calls this."""
        w = _Writer(self.prog, bc, f"RB{bid}_at{pc}", self)
        ex = self.prog.ex
        saved = (ex._nbind, ex._ncells, ex._nvars)
        if ex.native is not None:      # the same text whatever was written before it (the
            # native path finds a piece by its text): its temporaries, local to it, numbered
            # from a number of their own
            ex._nbind = ex._ncells = ex._nvars = _ENTRY_NUMBERS
        try:
            f = self._define(w, bid, lambda: w.source(path, head))
        finally:                       # (and what is written later numbered as without it)
            if ex.native is not None:
                ex._nbind, ex._ncells, ex._nvars = saved
        self.entry_codes[bid][pc] = self.codes[bid][pc] if f is None else f

    def _compile_main(self) -> Optional[Callable]:
        """Body 0 (setup, the stages' rounds of phases, the finish: build._build_main) as one
        function `RB0(s, fr)` that runs the main frame on from its pc to the end of the game,
        op by op as the VM loop would (a step of the budget each; the fns' memory off and
        forgotten for each op but a call, which changes no state and whose body switches the
        memory on), with each call of a setup or phase written as a call of its compiled
        body. An op that returns a node
        (the finish's Terminal) ends the rollout as run_ops does."""
        ops = self.prog.codes[0]
        memo = self.memo is not None
        lines = ["def RB0(s, fr):", "    while True:"]
        for pc, op in enumerate(ops):
            ln = lines.append
            ln(f"        if fr[1] == {pc}:")
            ln("            _BUD[0] -= 1")
            ln("            if _BUD[0] < 0: _exh()")
            calls = getattr(op, "calls", None)
            written = getattr(op, "written", None)
            if memo and calls is None:
                ln("            _MEMO[0] = None")
                ln("            _M.clear()")
            if calls is not None:
                bid, nslots = calls
                if memo:
                    ln("            _MEMO[0] = _M")
                ln(f"            fr[1] = {pc + 1}")
                ln(f"            _nf = [{bid}, 0, [None] * {nslots}, -1]")
                ln("            s.stack.append(_nf)")
                ln(f"            if len(s.stack) > {MAX_NEST}: _deep(s, _nf)")
                ln(f"            else: RB{bid}(s, _nf)")
            elif written is not None:
                ln(f"            {written}")
                ln(f"            fr[1] = {pc + 1}")
            else:
                key = f"RB0_op{pc}"
                self.ns[key] = op
                ln(f"            _r = {key}(s, fr)")
                ln("            if _r is not None: _node(s, _r)")
        src = "\n".join(lines) + "\n"
        try:
            exec(self.prog.ex.build(lambda: src, "<rollout game>", "exec"), self.ns)
        except TOO_DEEP:
            return None
        self.sources["RB0"] = src
        return self.ns["RB0"]  # type: ignore[no-any-return]

    def node(self, s: "State", r: Any) -> None:
        """A node an op of a VM frame returned: the end of the game (or `end game` in a
        compiled body) ends the rollout; any other is picked at."""
        if r.__class__ is Terminal:
            s.pending = r
            raise _OVER
        self.pick(s, r)

    # -- running
    def play(self, s: "State", rng: Any, limit: int, seat_rngs: Optional[list] = None,
             anytime: bool = True, deals: bool = True) -> int:
        """Play s on from its pending node; the number of decisions made. With seat_rngs, the
        decisions of seat p are drawn from seat_rngs[p] (each bot its own generator). With
        anytime False no any-time action is offered (ctx[5], "none may be offered now", is
        then set throughout). With deals False a seat at a step of a deal window passes or
        cancels its draft (nodes.no_deal_index) instead of drawing (ctx[8])."""
        ctx = self.ctx
        if seat_rngs is None:
            draw = _drawer(rng)
            ctx[9] = rng.getrandbits if type(rng) is random.Random else None
        else:
            ctx[9] = None
            draws = [_drawer(r) for r in seat_rngs]

            def draw(n: int) -> int:
                return draws[ctx[7]](n)
        # begun inside an any-time action (at a decision of its body): none is offered until
        # that action's frame (at `inside` on the stack) has returned, then they are again
        inside = next((k for k, fr in enumerate(s.stack)
                       if fr[0] in cast(Actions, self.prog.actions).ids), -1) if anytime else -1
        ctx[5] = not anytime or inside >= 0
        ctx[8] = not deals
        quick = self.prog.quick_pass
        quick[0] = not deals

        def run() -> None:
            self.pick(s, s.pending)
            if inside >= 0:
                self.run_ops(s, self.entry_codes, None, 0, inside + 1)
                ctx[5] = False
            self.run_ops(s, self.entry_codes, None, 0, 0)
        try:
            self._run(s, draw, limit, run)
        finally:
            quick[0] = False
        return int(ctx[2])

    def start(self, s: "State") -> None:
        """Run a new game's frames up to its first decision (or its end), leaving the VM's
        own state there, as Program.run does: the rollout with a limit of no decisions, so
        that it stops where the first decision is asked (Program.new_game, once the rollout
        is built, for a game without narration or explicit chance nodes)."""
        self.ctx[5], self.ctx[8], self.ctx[9] = False, False, None
        self._run(s, None, 0, lambda: self.run_ops(s, self.entry_codes, None, 0, 0))

    def _run(self, s: "State", draw: Any, limit: int, run: Callable[[], None]) -> None:
        """run() (the frames on the stack, from those open when the rollout began) with the
        context set for s (draw: what draws a decision's choice; limit: of decisions made),
        the step budget full and the fns' memory empty, until the game ends or it stops."""
        ctx = self.ctx
        ctx[0], ctx[1], ctx[2], ctx[3], ctx[4] = draw, s.history, 0, limit, self.prog.step_budget
        ctx[6] = cast(Actions, self.prog.actions).offer_for(len(s.players))
        limits.start(self.prog.step_budget)
        if self.memo is not None:
            self.memo.clear()
        try:
            run()
        except (Stop, Over) as e:
            # the two exceptions are made once and raised again and again: each raise adds its
            # frames to the traceback it already holds, so a kept traceback would keep every
            # frame (and every state) of every rollout alive
            e.__traceback__ = None

    def pick(self, s: "State", node: Any) -> None:
        """Choose at random at a decision (or by the weights at a chance node), as
        Program.playout does, and apply it: commit the value, or run the any-time action."""
        ctx = self.ctx
        if ctx[2] == ctx[3]:
            s.pending = node.full() if node.__class__ is QuickPass else node
            raise _STOP
        cls = node.__class__
        if cls is Decision or cls is QuickPass:
            ctx[7] = node.player
        if cls is Decision:
            vals, acts = node.values, () if ctx[5] else node.actions
            # no deals (ctx[8]): a deal window's pass (0) or cancel, where there is one
            i = no_deal_index(node) if ctx[8] and node.vtype.__class__ is tuple else -1
            if i < 0:
                i = ctx[0](len(vals) + len(acts) + node.allow_pass)
        elif cls is QuickPass:              # a deal window's turn, passed (ctx[8])
            i = 0
        else:
            i = weighted_index(node.weights, s.randbelow(sum(node.weights)))
        ctx[1].append(i)
        ctx[2] += 1
        limits.start(self.prog.step_budget)
        if cls is Decision:
            j = i - node.allow_pass         # (-1: pass)
            if j < 0:
                node.commit(s, None)
            elif j < len(vals):
                node.commit(s, vals[j])
            else:
                self.act(s, node.player, acts[j - len(vals)])
        elif cls is QuickPass:
            node.commit(s, None)
        elif self.memo is not None:         # a draw takes its item from the state
            self.memo_on[0] = None
            self.memo.clear()
            node.commit(s, node.values[i])
            self.memo_on[0] = self.memo
        else:
            node.commit(s, node.values[i])

    def vm_until(self, s: "State", fr: list, end: int) -> None:
        """Run the ops of frame fr from its pc up to pc `end` (one statement written as its
        ops), with whatever frames they push, picking at every node."""
        self.run_ops(s, self.codes, fr, end, 0)

    def suspend(self, s: "State", fr: list) -> None:
        """Run the op at fr's pc alone (a statement that may suspend: chance, a shuffle) in
        the VM loop, picking at each node it returns, until it is done."""
        self.run_ops(s, self.codes, fr, fr[1] + 1, 0)

    def deep(self, s: "State", fr: list) -> None:
        """Run frame fr (on top of the stack) in the VM loop, with the VM's own ops (no
        compiled calls: Python's stack does not grow), until it returns."""
        self.run_ops(s, self.prog.fast, None, 0, len(s.stack))

    def run_ops(self, s: "State", codes: list, fr: Optional[list], end: int, depth: int) -> None:
        """The VM's loop: run the op of the frame on top, picking at every node, until frame
        fr is at pc `end` or the stack is shallower than `depth` (the end of the game ends the
        rollout). Fns' memory is switched per op as the VM does, and left on."""
        stack, meter = s.stack, limits.METER
        memo, on, keep = self.memo, self.memo_on, self.keep
        while len(stack) >= depth:
            top: list = stack[-1]
            if top is fr and top[1] >= end:
                break
            meter[0] -= 1
            if meter[0] < 0:
                limits.exhausted()
            op = codes[top[0]][top[1]]
            if memo is not None:
                if op in keep:
                    on[0] = memo
                else:
                    on[0] = None
                    memo.clear()
            r = op(s, top)
            if r is not None:
                self.node(s, r)
        on[0] = memo

    def stop(self, s: "State", fr: list, op: Callable) -> None:
        """The rollout stops at this decision: the VM's node for it (op recomputes it)."""
        s.pending = op(s, fr)
        raise _STOP

    def action_failed(self, s: "State", who: int, exc: Exception) -> None:
        """An any-time action's condition failed at an inline choice (which offers the actions
        as Actions.allowed does, without its walk over the stack: the rollout knows whether an
        action is running): the error Actions.allowed raises."""
        raise cast(Actions, self.prog.actions)._failing_condition(s, who, exc) from None

    def relocate(self, tb: Optional[TracebackType], s: Optional["State"] = None) -> None:
        """Set the pc of each frame an error passed through (compiled bodies and fused runs) to
        the statement that failed, so Program._located finds its rulebook line. The VM loops
        set the pc themselves before each op. Code compiled by Cython (compiler/native.py)
        has frames without locals: the innermost of its bodies and fused runs ran the frame on
        top of s's stack, the one Program._located reads."""
        fused = self.prog.fused.lines  # type: ignore[attr-defined]
        last: dict[int, tuple[list, Optional[int]]] = {}
        native: Optional[tuple[list, int]] = None
        while tb is not None:
            code = tb.tb_frame.f_code
            pc = native_pc(self.prog, [self.lines, fused], tb) if s is not None and s.stack \
                else None
            if pc is not None:
                native = (s.stack[-1], pc)  # type: ignore[union-attr]
            table = self.lines.get(code) or fused.get(code)
            if table is not None:
                fr = tb.tb_frame.f_locals.get("fr")
                if isinstance(fr, list):
                    first, pcs = table
                    last[id(fr)] = (fr, pcs[tb.tb_lineno - first])
            elif code is self.run_ops.__code__:
                top = tb.tb_frame.f_locals.get("top")
                if isinstance(top, list):
                    last[id(top)] = (top, None)
            tb = tb.tb_next
        for fr, pc in last.values():
            if pc is not None:
                fr[1] = pc
        if native is not None and all(pc is None for _, pc in last.values()) and \
                0 <= native[1] < len(self.prog.spans[native[0][0]]):
            native[0][1] = native[1]


class _Writer(_BodyFuser):
    """Writes one body as a Python function of (state, frame)."""

    def __init__(self, prog: "Program", bc: "BodyCompiler", name: str, ro: Rollout):
        super().__init__(prog, bc, name)
        self.ro = ro
        self.changing = state_changing_pcs(bc)

    def source(self, path: Optional[list] = None, at_head: bool = False) -> str:
        """The source of `def NAME(s, fr):` running a frame of this body to its end: from its
        start, or (path given) from a statement (path: (block, index) of each statement it
        lies in, from the body's block in), or from the head of the loop it is (at_head).
        From a statement, each loop the path passes through is written as the round it is
        in, as one pass a `break` leaves (`for _ in _ONCE:`), then (`else:`, no break) as the
        loop from its head; an `if` the path passes through as the arm it is in."""
        self.lines, self.pcs, self.depth = [], [], 0
        self.line(0, f"def {self.name}(s, fr):")
        self.depth = 1
        self.line(0, "L = fr[2]")
        if self.ro.memo is not None and path is not None:
            self.line(0, "_MEMO[0] = _M")   # (a body is called with the memory on: see drain)
        if path is None:
            self.stmts(self.bc.top)
        else:
            self.resume(path, 0, at_head)
        self.returns(self.bc.block_end[id(self.bc.top)], None)
        return "\n".join(self.lines) + "\n"

    def resume(self, path: list, j: int, at_head: bool) -> None:
        b, i = path[j]
        st = b.stmts[i]
        if j + 1 < len(path):
            if isinstance(st, A.If):
                self.resume(path, j + 1, at_head)
            else:
                pc = self.bc.pc_of[id(st)]
                self.line(pc + 1, "for _ in _ONCE:")
                self.indented(pc + 1, lambda: self.resume(path, j + 1, at_head))
                self.line(pc + 1, "else:")
                self.indented(pc + 1, lambda: self.from_head(st, None))
            self.stmts(b, i + 1)
        elif at_head:
            self.from_head(st, None)
            self.stmts(b, i + 1)
        else:
            self.stmts(b, i)

    def stmts(self, b: A.Block, first: int = 0) -> None:
        """The statements of b from its first-th on. The fns' memory is on throughout (the
        function switches it on; the helpers it calls switch it on again when they return);
        after a statement changes the state, the values of the fns that read what it changed
        are forgotten."""
        for j in range(first, len(b.stmts)):
            st = b.stmts[j]
            pc = self.bc.pc_of[id(st)]
            after = self.bc.pc_of[id(b.stmts[j + 1])] if j + 1 < len(b.stmts) \
                else self.bc.block_end[id(b)]
            self.stmt_upto(st, after)
            if self.ro.memo is not None and self.fusable(st) and \
                    not isinstance(st, (A.If, A.For, A.Log)) and \
                    self.changing.intersection(range(pc, after)):
                self.forget_writes(self.writes(st), pc)

    def forget_writes(self, w: Optional[set], pc: int) -> None:
        """The line forgetting what fns remembered that read what w (as `writes` tells) holds."""
        memo = self.ex.memo
        gone = [i for i, f in enumerate(memo)
                if w is None or self.ro.reads.get(f) is None or w & self.ro.reads[f]]  # type: ignore[operator]
        if gone and len(gone) == len(memo):
            self.line(pc, "_M.clear()")
        elif gone:
            self.line(pc, "; ".join(f"_M{i} and _M{i}.clear()" for i in gone))

    def writes(self, st: Any) -> Optional[set]:
        """What st may change: ("t", index), ("p", name); None when not known."""
        if isinstance(st, A.Assign):
            return self.place_writes(st.target)
        if isinstance(st, A.Move):
            a, b = self.place_writes(st.source), self.place_writes(st.dest)
            return None if a is None or b is None else a | b
        if isinstance(st, A.Add):
            return self.place_writes(st.dest)
        if isinstance(st, A.Remove):
            return self.place_writes(st.source)
        if isinstance(st, A.Emit):     # (one that starts no trigger) counts stats: no fn reads them
            return set()
        return None

    def place_writes(self, lv: A.LValue) -> Optional[set]:
        for step in lv.steps:      # the first field of a player is what changes
            if isinstance(step, A.LvField) and \
                    strip_opt(self.rb.types[id(step)]).kind == "player":
                return {("p", step.name)}
        ref = self.rb.refs[id(lv)]
        if ref[0] == "table":
            return {("t", ref[1])}
        if ref[0] == "local":
            return set()           # a local variable's value (never shared with the state)
        return None

    def stmt_upto(self, st: Any, after: int) -> None:
        """One statement; `after` is the pc of the op after its ops."""
        if isinstance(st, WHOLE) or self.fusable(st):
            self.stmt(st)
        elif self.call(st):
            pass
        else:                            # it suspends or pushes frames: its ops, as the VM
            pc = self.bc.pc_of[id(st)]   # runs them
            self.line(pc, f"fr[1] = {pc}")
            key = f"{self.name}_o{pc}"
            # a choice (a simultaneous one too) is written inline by the writer of its op
            # (decisions.write_choice), which makes the VM's node where the rollout stops
            ctl = self.bc.controls.get(pc)
            choice = ctl[1] if ctl is not None and ctl[0] == "choose" else None
            if choice is not None and (after == pc + 1 and isinstance(st, A.Let) or after ==
                                       pc + 2 and isinstance(st, A.Assign) and not choice.simul):
                self.ns[key] = self.bc.ops[pc]
                write_choice(self, pc, choice, key)
                if after == pc + 2:            # the choice, then the assignment
                    self.ns[key + "a"] = self.bc.ops[pc + 1]
                    self.line(pc + 1, f"{key}a(s, fr)")
                    if self.ro.memo is not None and self.changing.intersection(range(pc, after)):
                        self.forget_writes(self.writes(st), pc + 1)
            elif after == pc + 1 and isinstance(st, A.Let) and isinstance(st.rhs, A.Roll):
                self.roll(st, st.rhs, pc)
            elif after == pc + 1 and isinstance(st, A.Let) and isinstance(st.rhs, A.Draw) and \
                    st.rhs.count is None:
                self.draw(st, st.rhs, pc)
            elif after == pc + 1 and isinstance(st, A.Emit):
                self.emits(pc, st, True)
            elif after == pc + 1 and isinstance(st, (A.Let, A.Shuffle)):
                self.line(pc, "_susp(s, fr)")
            else:
                self.line(pc, f"_vm(s, fr, {after})")

    def roll(self, st: A.Let, r: A.Roll, pc: int) -> None:
        """`let x = roll n` drawn as the roll's op draws it (decisions.roll_die) when the
        state has no explicit chance nodes (the die from the state's generator; a picked
        roll is no decision); with them, the op, picking at its node."""
        self.unless_explicit(pc, lambda: self.line(
            pc, f"L[{self.rb.refs[id(st)]}] = _roll(s, {self.ex.gen(r.sides)})"))

    def unless_explicit(self, pc: int, write: Callable[[], None]) -> None:
        """With explicit chance nodes, the statement's op run by the VM loop, picking at its
        nodes; without them, the lines write() adds."""
        self.line(pc, "if s.explicit_chance:")
        self.line(pc, "    _susp(s, fr)")
        self.line(pc, "else:")
        self.indented(pc, write)

    def draw(self, st: A.Let, r: A.Draw, pc: int) -> None:
        """`let x = draw from place` written out as its op draws (decisions.draw_item) when
        the state has no explicit chance nodes (with them, the op, picking at its node), then
        the fns that read the place forgotten (the op runs with the memory off and cleared)."""
        lines = self.collection(r.source, "_d")
        item = "_drawn(s, _d)" if scalar(self.ex.type_of(r)) else "_dc(_drawn(s, _d))"

        def write() -> None:
            self.line(pc, *lines, f"L[{self.rb.refs[id(st)]}] = {item}")
            if self.ro.memo is not None:
                self.forget_writes(self.place_writes(r.source), pc)
        self.unless_explicit(pc, write)

    def call(self, st: Any) -> bool:
        """Write a call of a proc as a call of its compiled body (pushing the VM's frame), if
        st is one: `proc(...)` or `let x = proc(...)`."""
        if _proc_call(self.rb, st) is None or isinstance(st, A.Let) and \
                ("convert", id(st.rhs)) in self.rb.refs:      # (its ops convert the value)
            return False
        call, ret = (st, -1) if isinstance(st, A.CallStmt) else (st.rhs, self.rb.refs[id(st)])
        pc = self.bc.pc_of[id(st)]
        bid = self.push(pc, call, ret, True)
        self.line(pc, f"if len(s.stack) > {MAX_NEST}: _deep(s, _nf)")
        self.line(pc, f"else: RB{bid}(s, _nf)")
        return True

    def w_Log(self, st: A.Log) -> None:
        """Nothing: a rollout narrates nothing."""
