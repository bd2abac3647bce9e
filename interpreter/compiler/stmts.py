"""Compiling a body's statements into a flat list of ops with jumps.

An op is ``op(state, frame) -> None | node``; it sets ``frame[1]`` (the pc) itself. A frame is
``[body_id, pc, locals, return_slot]``. Ops that suspend (decisions, explicit chance) return the
node and leave the pc on themselves, so re-running the op after a reload recomputes the node
(those ops are made in interpreter/decisions.py, a choice's written by its `write_choice`; a
shuffle's, which suspends once per position with explicit chance, in interpreter/chance.py). The op of a statement that never suspends is
the function compiler/fuse.py writes for it (`simple`), and each op of a control form (an
`if`'s tests and jumps, a loop's start, head and jumps, `break`, `return`, `end game`, a proc
call, an emit that starts triggers) the function compiler/control.py writes for it (`control`):
their meaning is written there only; here, where each op goes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from mercator.dsl import ast as A
from mercator.dsl.checked import Body
from mercator.dsl.types import Type, strip_opt
from mercator.interpreter.engine.chance import shuffle_op
from mercator.interpreter.compiler.control import jump
from mercator.interpreter.compiler.deals import compile_deal
from mercator.interpreter.compiler.decisions import Op, suspend
from mercator.interpreter.engine.values import text_as
from mercator.interpreter.engine.convert import converter

if TYPE_CHECKING:
    from mercator.interpreter.compiler.fuse import Fused
    from mercator.interpreter.engine.program import Program

SYNTHETIC = A.NOSPAN      # jumps and implicit returns: no rule line of their own (coverage skips)


class BodyCompiler:
    """Compiles one body (proc, phase, setup, trigger or action) into ops."""

    def __init__(self, prog: "Program", body: Body, fused: "Fused"):
        self.p = prog
        self.fused = fused          # writes the ops of fuse.py and control.py (`written`)
        self.simples: list[tuple[int, Any, Optional[str]]] = []   # (pc, statement, value)
        self.rb = prog.rb
        self.ex = prog.ex
        self.body = body
        assert body.block is not None
        self.top: A.Block = body.block      # its statements
        self.ops: list[Optional[Op]] = []
        self.spans: list[A.Span] = []
        self.nslots = body.nslots
        self.loops: list[list[int]] = []   # per open loop: indices of 'break' jumps to patch
        # for interpreter/fuse.py, by id of the node: where a statement's ops start, where a
        # block's end, the pc of each 'if' arm's test, a 'for' loop's hidden slots (list,
        # index), and the call expression of a statement that calls a fn or built-in
        self.pc_of: dict[int, int] = {}
        self.block_end: dict[int, int] = {}
        self.arm_pcs: dict[int, list[int]] = {}
        self.for_slots: dict[int, tuple[int, int]] = {}
        self.call_of: dict[int, A.Call] = {}
        self.loop_slot: dict[int, int] = {}   # a 'repeat's count left, a 'while's rounds run
        self.controls: dict[int, list] = {}   # pc -> [kind, statement, to] (see control)

    def compile(self) -> tuple[list, list, int]:
        """(ops, spans, number of local slots); the ops written by fuse.py and control.py are
        None until Fused.singles puts them in (see `written`)."""
        self.block(self.top)
        self.control(SYNTHETIC, "return")
        return self.ops, self.spans, self.nslots

    def written(self) -> list[tuple[int, Any, Optional[str]]]:
        """The ops fuse.py and control.py write, for Fused.singles (once every body is
        compiled and the triggers of each event are known)."""
        return self.simples + [(pc, tuple(c), None) for pc, c in self.controls.items()
                               if c[0] != "jump"]

    # -- helpers
    def emit(self, op: Optional[Op], span: A.Span) -> int:
        self.ops.append(op)
        self.spans.append(span)
        return len(self.ops) - 1

    def hidden(self) -> int:
        self.nslots += 1
        return self.nslots - 1

    def here(self) -> int:
        return len(self.ops)

    def block(self, b: A.Block) -> None:
        for s in b.stmts:
            self.pc_of[id(s)] = self.here()
            getattr(self, "s_" + type(s).__name__)(s)
        self.block_end[id(b)] = self.here()

    def type_of(self, e: Any) -> Type:
        return self.ex.type_of(e)

    # -- statements
    def simple(self, s: Any, value: Optional[str] = None) -> None:
        """The op of a statement that never suspends: the function compiler/fuse.py writes
        for it alone once the body is compiled (`value`: see Fused.singles)."""
        self.simples.append((self.emit(None, s.span), s, value))

    def s_Let(self, s: Any) -> None:
        """A `let` or an assignment: a simple statement, unless its right-hand side suspends:
        then that side's ops, storing its value in the let's slot, or in a hidden slot which
        the statement then stores (an assignment's, or a `let b: bag<T> = <a list>`'s
        converted, §3.6)."""
        if not self.suspending(s.rhs):
            self.simple(s)
            return
        how = self.rb.refs.get(("convert", id(s.rhs)))    # its value converted where stored
        conv = None if how is None else converter(*how)
        if isinstance(s, A.Let) and conv is None:
            suspend(self, s.rhs, self.rb.refs[id(s)])
            return
        h = self.hidden()
        suspend(self, s.rhs, h)
        self.simple(s, f"L[{h}]" if conv is None else f"{self.ex.const(conv)}(L[{h}])")

    def suspending(self, r: Any) -> bool:
        return isinstance(r, (A.Choose, A.Simultaneous, A.Roll, A.RandomPick, A.Draw)) or (
            isinstance(r, A.Call) and self.rb.refs.get(id(r), ("",))[0] == "proc")

    s_Assign = s_Let

    def collection(self, lv: A.LValue) -> Callable:
        """A reader returning the list, bag or map at lv itself (not a copy)."""
        return self.fused.reader(self, lv)

    def control(self, span: A.Span, kind: str, st: Any = None, to: int = -1) -> int:
        """An op of a control form, written by control.py's `op` (kind, st, to: see there)
        once the body is compiled; `point` sets where it goes."""
        at = self.emit(None, span)
        self.controls[at] = [kind, st, to]
        return at

    def point(self, at: int, target: int) -> None:
        """Set the pc the control op at `at` goes to (a jump's, a false test's, a loop's end)."""
        self.controls[at][2] = target
        if self.controls[at][0] == "jump":
            self.ops[at] = jump(target)

    def s_If(self, s: A.If) -> None:
        ends: list[int] = []
        arms = [(s.cond, s.then)] + [(e.cond, e.body) for e in s.elifs]
        for cond, body in arms:
            at = self.control(cond.span, "test", cond)
            self.arm_pcs.setdefault(id(s), []).append(at)
            self.block(body)
            ends.append(self.control(SYNTHETIC, "jump"))
            self.point(at, self.here())
        if s.else_ is not None:
            self.block(s.else_)
        for e in ends:
            self.point(e, self.here())

    def loop(self, s: Any) -> None:
        """A loop's hidden slots (a `for`'s list and index, a `repeat`'s rounds left, a
        `while`'s rounds run), then its ops: its start, its head, its body, the jump back to
        the head; the head and each 'break' go to the op after."""
        if isinstance(s, A.For):
            self.for_slots[id(s)] = (self.hidden(), self.hidden())
        else:
            self.loop_slot[id(s)] = self.hidden()
        self.control(s.span, "start", s)
        head = self.control(s.span, "head", s)
        self.loops.append([])
        self.block(s.body)
        self.point(self.control(SYNTHETIC, "jump"), head)
        for at in [head, *self.loops.pop()]:
            self.point(at, self.here())

    def s_Break(self, s: A.Break) -> None:
        self.loops[-1].append(self.control(s.span, "jump"))

    s_For = s_Repeat = s_While = loop
    s_Move = s_Add = s_Remove = s_Log = simple

    def s_Shuffle(self, s: A.Shuffle) -> None:
        t = strip_opt(self.rb.types.get(id(s.target), Type("any")))
        et = t.args[0] if t.kind == "list" and t.args else Type("any")
        self.emit(shuffle_op(self.collection(s.target), text_as(et), self.hidden(), s.span, et),
                  s.span)

    def s_Emit(self, s: A.Emit) -> None:
        """An emit that may start triggers (their list is filled after every body; the op is
        written once it is: `write`); one that starts none is a simple statement."""
        if s.event not in self.p.triggers_by_event:
            self.simple(s)
            return
        self.control(s.span, "emit", s)

    def s_CallStmt(self, s: A.CallStmt) -> None:
        ref = self.rb.refs[id(s)]
        if ref[0] == "proc":
            self.control(s.span, "call", s)
            return
        call = A.Call(s.name, s.args, span=s.span)
        self.rb.refs[id(call)] = ref
        self.rb.keep.append(call)
        self.call_of[id(s)] = call
        self.simple(s)

    def s_Return(self, s: A.Return) -> None:
        self.control(s.span, "return", s)

    def s_EndGame(self, s: A.EndGame) -> None:
        self.control(s.span, "end", s)

    def s_Deal(self, s: A.Deal) -> None:
        compile_deal(self, s)
