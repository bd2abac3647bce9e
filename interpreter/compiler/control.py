"""The meaning of the control forms, written once, as generated Python source: the tests of an
`if`, the loops `for` (with `where`), `repeat` and `while` (with its limit of rounds), `break`,
`return`, `end game` and a call of a proc (an emit that starts triggers: fuse.py's `emits`).

`Control` is the base of fuse.py's writer of statements, and so of the rollout's (it keeps the
lines written, each with the pc of the op it stands for, and their depth): an `if` and a loop
written whole (`w_*`), a loop from its head (`from_head`: where the rollout resumes a frame
inside it). The VM's ops of these forms, laid out by stmts.py, are functions written by
the same methods (`op`, through Fused.singles): a loop's head op is the loop from its head
whose round goes on to the body's first op; a call's op pushes the callee's frame for the VM's
loop. A loop's slots (a `for`'s list and index, a `repeat`'s or a `while`'s rounds) are the
frame's locals in every way, so a frame stopped inside a loop resumes in any of them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from mercator.dsl import ast as A
from mercator.dsl.types import iter_elem, strip_opt
from mercator.interpreter.compiler.codegen import is_container
from mercator.interpreter.compiler.decisions import write_choice

if TYPE_CHECKING:
    from mercator.interpreter.compiler.codegen import CodeGen
    from mercator.interpreter.compiler.stmts import BodyCompiler
    from mercator.interpreter.engine.program import Program

SHORT_PAD = 8       # a new frame's empty slots written as a list display up to this many
# the kinds of VM op that push frames (the rollout runs them by compiled bodies: its _wrap)
PUSHING = ("call", "emit")
LOOPS = (A.For, A.While, A.Repeat)
WHOLE = (A.If, *LOOPS, A.Break, A.Return, A.EndGame)     # the statements Control writes whole


def jump(target: int) -> Callable[[Any, list], None]:
    """The VM's op of a jump to the pc `target` (an arm's end, a loop's way back to its head,
    a `break`)."""
    def op(s: Any, fr: list) -> None:
        fr[1] = target
    return op


class Control:
    """Writes the lines of source of one body's statements (`NAME`, when it is a function's),
    and the control forms among them (see the module); the writer built on it gives the
    others (`w_*`), `value` and `emits`."""

    value: Callable[[Any], str]             # an expression's value, copied where stored
    emits: Callable[[int, A.Emit, bool], None]   # an emit that starts triggers (fuse.py)

    def __init__(self, prog: "Program", bc: "BodyCompiler", name: str = ""):
        self.p = prog
        self.bc = bc
        self.rb = prog.rb
        self.ex: "CodeGen" = prog.ex
        self.ns = prog.ex.ns
        self.name = name
        self.lines: list[str] = []
        self.pcs: list[int] = []
        self.depth = 0

    def line(self, pc: int, *texts: str) -> None:
        """Lines of source at the current depth, each standing for the op at pc."""
        for text in texts:
            self.lines.append("    " * self.depth + text)
            self.pcs.append(pc)

    def block(self, b: A.Block) -> None:
        """The statements of b, one level deeper."""
        self.indented(self.bc.block_end[id(b)], lambda: self.stmts(b))

    def indented(self, pc: int, write: Callable[[], None]) -> None:
        """The lines write() adds, one level deeper (`pass`, standing for the op at pc, if
        it adds none)."""
        self.depth += 1
        n = len(self.lines)
        write()
        if len(self.lines) == n:
            self.line(pc, "pass")
        self.depth -= 1

    def stmts(self, b: A.Block) -> None:
        for st in b.stmts:
            self.stmt(st)

    def stmt(self, st: Any) -> None:
        """The source of one statement that is written whole."""
        getattr(self, "w_" + type(st).__name__)(st)

    # -- the VM's ops
    def op(self, pc: int, kind: str, st: Any, to: int) -> None:
        """The lines of the VM's op at pc, after `L = fr[2]` (a jump's op is `jump`): the
        `test` of an arm whose condition is st (to `to` when false); a loop's `start`; a loop's
        `head` (to `to`, its end, when no round is left); a `return` (st None: a body's end);
        `end` game; a `call` of a proc (st: its name and arguments; `to`: the caller's slot
        for its result, or -1); a `choose` (st: its decisions.Choice); an `emit` that starts
        triggers."""
        if kind == "test":
            self.line(pc, f"fr[1] = {pc + 1} if {self.ex.gen(st)} else {to}")
        elif kind == "start":
            self.start(st)
            self.line(pc, f"fr[1] = {pc + 1}")
        elif kind == "head":
            self.from_head(st, pc + 1)
            self.line(pc, f"fr[1] = {to}")
        elif kind == "return":
            self.returns(pc, st)
        elif kind == "end":
            self.line(pc, "return _finish(s)")
        elif kind == "call":
            self.line(pc, "if len(s.stack) >= _MAXF: _toodeep()")
            self.push(pc, st, to, True)
        elif kind == "choose":
            write_choice(self, pc, st, None)
        else:
            self.emits(pc, st, False)

    # -- if
    def w_If(self, st: A.If) -> None:
        arms = [(st.cond, st.then)] + [(e.cond, e.body) for e in st.elifs]
        for j, ((cond, body), pc) in enumerate(zip(arms, self.bc.arm_pcs[id(st)])):
            self.line(pc, f"{'elif' if j else 'if'} {self.ex.gen(cond)}:")
            self.block(body)
        if st.else_ is not None:
            self.line(self.bc.pc_of[id(st)], "else:")
            self.block(st.else_)

    # -- loops: the start (at the statement's pc), then the loop from its head (at the pc after)
    def w_For(self, st: A.For) -> None:
        self.start(st)
        pc = self.bc.pc_of[id(st)]
        i = self.bc.for_slots[id(st)][1]
        self.charge(pc, f"len(_x{pc})")
        self.line(pc + 1, f"for L[{i}], L[{self.rb.refs[id(st)]}] in enumerate(_x{pc}, 1):")
        self.for_round(st, None)

    def w_While(self, st: Any) -> None:
        self.start(st)
        self.from_head(st, None)

    w_Repeat = w_While

    def start(self, st: Any) -> None:
        """A loop's start: a `for`'s list (a snapshot of its values; a bag's items with
        repeats, a map's keys in order) in its slot, in `_x<pc>` too, and its index 0; a
        `repeat`'s count of rounds; a `while`'s rounds run, 0."""
        pc = self.bc.pc_of[id(st)]
        if not isinstance(st, A.For):
            n = self.ex.gen(st.count) if isinstance(st, A.Repeat) else "0"
            self.line(pc, f"L[{self.bc.loop_slot[id(st)]}] = {n}")
            return
        lst, i = self.bc.for_slots[id(st)]
        t = self.ex.type_of(st.iter)
        kind = strip_opt(t).kind
        walk = "_bag_items" if kind == "bag" else "sorted" if kind == "map" else "list"
        src, xs = f"_s{pc}", f"_x{pc}"
        self.line(pc, f"{src} = {self.ex.gen(st.iter)}")
        self.line(pc, f"{xs} = [] if {src} is None else {walk}({src})")
        if is_container(iter_elem(t)):
            self.line(pc, f"{xs} = _dc({xs})")
        self.line(pc, f"L[{lst}] = {xs}")
        self.line(pc, f"L[{i}] = 0")

    def charge(self, pc: int, steps: str) -> None:
        """A loop written whole takes one step of the budget a round, a `for`'s all up front
        (the VM's loop takes one an op)."""
        self.line(pc, f"_BUD[0] -= {steps}")
        self.line(pc, "if _BUD[0] < 0: _exh()")

    def from_head(self, st: Any, enter: Optional[int]) -> None:
        """The loop from its head, its slots as the rounds before left them: with `enter`, the
        VM's head op (a round to run goes on to the body's op at pc `enter`), else whole."""
        pc = self.bc.pc_of[id(st)]
        if isinstance(st, A.For):
            lst, i = self.bc.for_slots[id(st)]
            if enter is None:
                self.charge(pc + 1, f"len(L[{lst}]) - L[{i}]")
            self.line(pc + 1, f"while L[{i}] < len(L[{lst}]):")
            self.line(pc + 1, f"    L[{self.rb.refs[id(st)]}] = L[{lst}][L[{i}]]")
            self.line(pc + 1, f"    L[{i}] += 1")
            self.for_round(st, enter)
            return
        n = self.bc.loop_slot[id(st)]
        if isinstance(st, A.Repeat):
            head = [f"if L[{n}] <= 0: break", f"L[{n}] -= 1"]
        else:
            head = [f"if not ({self.ex.gen(st.cond)}): break", f"L[{n}] += 1"]
            if st.max is not None:
                msg = f"'while' ran more than its limit of {st.max} times"
                head.append(f"if L[{n}] > {st.max}: raise RuleError({msg!r})")
        self.line(pc + 1, "while True:")
        self.depth += 1
        self.line(pc + 1, *head)
        if enter is None:
            self.charge(pc + 1, "1")
        self.depth -= 1
        self.body(st, enter)

    def for_round(self, st: A.For, enter: Optional[int]) -> None:
        """A `for`'s round, once its head has put the next item in the loop variable and its
        number in the loop's index: skipped unless the item passes `where`; and the list's slot
        emptied once every item is walked (not after a `break`)."""
        pc = self.bc.pc_of[id(st)]
        if st.where is not None:
            self.line(pc + 1, f"    if not ({self.ex.gen(st.where)}): continue")
        self.body(st, enter)
        self.line(pc + 1, "else:")
        self.line(pc + 1, f"    L[{self.bc.for_slots[id(st)][0]}] = None")

    def body(self, st: Any, enter: Optional[int]) -> None:
        """A loop's body: its statements, or (the VM's head op) on to its first op."""
        if enter is None:
            self.block(st.body)
            return
        self.line(enter - 1, f"    fr[1] = {enter}")
        self.line(enter - 1, "    return")

    def w_Break(self, st: A.Break) -> None:
        self.line(self.bc.pc_of[id(st)], "break")

    # -- return
    def w_Return(self, st: A.Return) -> None:
        pc = self.bc.pc_of[id(st)]
        self.returns(pc, st)
        self.line(pc, "return")

    def returns(self, pc: int, st: Optional[A.Return]) -> None:
        """The frame popped and its value (a `return`'s, or none at the body's end) stored in
        the caller's slot for it, if any."""
        val = "None"
        if st is not None and st.value is not None:
            self.line(pc, f"_v = {self.value(st.value)}")
            val = "_v"
        self.line(pc, "s.stack.pop()")
        if self.bc.body.result is not None:    # (a proc without a result is never let-bound)
            self.line(pc, f"if fr[3] >= 0: s.stack[-1][2][fr[3]] = {val}")

    def w_EndGame(self, st: A.EndGame) -> None:
        """The game's end (Program.finish), the frame left at the statement (the VM's op returns
        the end; a compiled body stops the rollout with it)."""
        pc = self.bc.pc_of[id(st)]
        self.line(pc, f"fr[1] = {pc}")
        self.line(pc, "_node(s, _finish(s))")

    # -- a call of a proc
    def push(self, pc: int, call: Any, ret: int, pc_on: bool) -> int:
        """A call of a proc (`call`: its name and arguments): the callee's frame, in `_nf`,
        pushed on the stack (its body, pc 0, the arguments' values then its other slots
        empty, `ret`: the caller's slot for its result, or -1), with `pc_on` the caller's pc
        past the call first; the callee's body id."""
        bid = self.p.proc_id[call.name]
        pad = self.p.nslots[bid] - len(call.args)
        vals = [self.value(a) for a in call.args]
        slots = f"[{', '.join(vals + ['None'] * pad)}]" if pad <= SHORT_PAD else \
            f"[{', '.join(vals)}] + [None] * {pad}"
        self.line(pc, f"_nf = [{bid}, 0, {slots}, {ret}]")
        if pc_on:
            self.line(pc, f"fr[1] = {pc + 1}")
        self.line(pc, "s.stack.append(_nf)")
        return bid
