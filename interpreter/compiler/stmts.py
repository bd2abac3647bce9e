"""Compiling a body's statements into a flat list of ops with jumps.

An op is ``op(state, frame) -> None | node``; it sets ``frame[1]`` (the pc) itself. A frame is
``[body_id, pc, locals, return_slot]``. Ops that suspend (decisions, explicit chance) return the
node and leave the pc on themselves, so re-running the op after a reload recomputes the node
(those ops are made in interpreter/decisions.py; a shuffle's, which suspends once per position
with explicit chance, in interpreter/chance.py). The op of a statement that never suspends is
the function compiler/fuse.py writes for it (`simple`): its meaning is written there only.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, NoReturn, Optional

from mercator.dsl import ast as A
from mercator.dsl.checked import Body
from mercator.dsl.types import Type, iter_elem, strip_opt
from mercator.interpreter.engine.chance import shuffle_op
from mercator.interpreter.compiler.codegen import is_container
from mercator.interpreter.compiler.deals import compile_deal
from mercator.interpreter.compiler.decisions import suspend
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.convert import converter
from mercator.interpreter.engine.limits import MAX_FRAMES, bag_walk, too_deep
from mercator.interpreter.engine.values import bag_items, deep_copy, fmt, iterator_for

if TYPE_CHECKING:
    from mercator.interpreter.compiler.fuse import Fused
    from mercator.interpreter.engine.program import Program

Op = Callable[[Any, list], Any]
SYNTHETIC = A.NOSPAN      # jumps and implicit returns: no rule line of their own (coverage skips)


def over_limit(limit: int) -> NoReturn:
    """A `while` past its limit of rounds: its head op and the rollout's loop raise this."""
    raise RuleError(f"'while' ran more than its limit of {limit} times")


class BodyCompiler:
    """Compiles one body (proc, phase, setup, trigger or action) into ops."""

    def __init__(self, prog: "Program", body: Body, fused: "Fused"):
        self.p = prog
        self.fused = fused          # writes the ops of the statements that never suspend
        self.simples: list[tuple[int, Any, Optional[str]]] = []   # (pc, statement, value)
        self.rb = prog.rb
        self.ex = prog.ex
        self.body = body
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

    def compile(self) -> tuple[list, list, int]:
        """(ops, spans, number of local slots)."""
        assert self.body.block is not None
        self.block(self.body.block)
        self.emit(_return_op(None), SYNTHETIC)
        self.fused.singles(self, self.simples)
        return self.ops, self.spans, self.nslots

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

    def set_jump(self, at: int, target: int) -> None:
        self.ops[at] = _jump(target)

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

    def s_Let(self, s: A.Let) -> None:
        if not self.suspending(s.rhs):
            self.simple(s)
            return
        slot = self.rb.refs[id(s)]
        conv = self.converter(s.rhs)
        if conv is None:
            suspend(self, s.rhs, slot)
            return
        h = self.hidden()                     # `let b: bag<T> = <a list>`: converted (§3.6)
        suspend(self, s.rhs, h)
        self.simple(s, f"{self.ex.const(conv)}(L[{h}])")

    def converter(self, r: Any) -> Optional[Callable[[Any], Any]]:
        """The conversion of a suspending right-hand side's value where it is stored (§3.6)."""
        conv = self.rb.refs.get(("convert", id(r)))
        return None if conv is None else converter(*conv)

    def suspending(self, r: Any) -> bool:
        return isinstance(r, (A.Choose, A.Simultaneous, A.Roll, A.RandomPick, A.Draw)) or (
            isinstance(r, A.Call) and self.rb.refs.get(id(r), ("",))[0] == "proc")

    def s_Assign(self, s: A.Assign) -> None:
        if not self.suspending(s.rhs):
            self.simple(s)
            return
        h = self.hidden()
        suspend(self, s.rhs, h)
        conv = self.converter(s.rhs)
        self.simple(s, f"L[{h}]" if conv is None else f"{self.ex.const(conv)}(L[{h}])")

    def collection(self, lv: A.LValue) -> Callable:
        """A reader returning the list, bag or map at lv itself (not a copy)."""
        return self.fused.reader(self, lv)

    def s_If(self, s: A.If) -> None:
        ends: list[int] = []
        arms = [(s.cond, s.then)] + [(e.cond, e.body) for e in s.elifs]
        for cond, body in arms:
            c = self.ex.compile(cond)
            at = self.emit(None, cond.span)
            self.arm_pcs.setdefault(id(s), []).append(at)
            self.block(body)
            ends.append(self.emit(None, SYNTHETIC))
            self.ops[at] = _branch_false(c, self.here())
        if s.else_ is not None:
            self.block(s.else_)
        end = self.here()
        for e in ends:
            self.set_jump(e, end)

    def _loop_end(self, exit_at: int) -> None:
        """Point the innermost loop's 'break' jumps at its exit."""
        for b in self.loops.pop():
            self.set_jump(b, exit_at)

    def s_For(self, s: A.For) -> None:
        src = self.ex.compile(s.iter)
        walk = iterator_for(self.type_of(s.iter))
        if walk is bag_items:
            walk = bag_walk                # within the size limit
        var = self.rb.refs[id(s)]
        lst, i = self.hidden(), self.hidden()
        self.for_slots[id(s)] = (lst, i)

        copy = is_container(iter_elem(self.type_of(s.iter)))

        def start(st: Any, fr: list) -> None:
            L = fr[2]
            v = src(st, L)
            L[lst] = [] if v is None else walk(v) if walk is not list else list(v)
            if copy:
                L[lst] = deep_copy(L[lst])     # the loop walks a snapshot of values
            L[i] = 0
            fr[1] += 1
        self.emit(start, s.span)
        head = self.emit(None, s.span)
        where = self.ex.compile(s.where) if s.where is not None else None
        self.loops.append([])
        self.block(s.body)
        self.emit(_jump(head), SYNTHETIC)
        end = self.here()
        self.ops[head] = _for_head(lst, i, var, where, head, end)
        self._loop_end(end)

    def s_Repeat(self, s: A.Repeat) -> None:
        cnt = self.ex.compile(s.count)
        left = self.loop_slot[id(s)] = self.hidden()

        def start(st: Any, fr: list) -> None:
            fr[2][left] = cnt(st, fr[2])
            fr[1] += 1
        self.emit(start, s.span)
        head = self.emit(None, s.span)
        self.loops.append([])
        self.block(s.body)
        self.emit(_jump(head), SYNTHETIC)
        end = self.here()

        def check(st: Any, fr: list) -> None:
            L = fr[2]
            if L[left] <= 0:
                fr[1] = end
            else:
                L[left] -= 1
                fr[1] += 1
        self.ops[head] = check
        self._loop_end(end)

    def s_While(self, s: A.While) -> None:
        cond = self.ex.compile(s.cond)
        limit = s.max
        n = self.loop_slot[id(s)] = self.hidden()
        self.emit(_set_slot(n, 0), s.span)
        head = self.emit(None, s.span)
        self.loops.append([])
        self.block(s.body)
        self.emit(_jump(head), SYNTHETIC)
        end = self.here()

        def check(st: Any, fr: list) -> None:
            L = fr[2]
            if not cond(st, L):
                fr[1] = end
                return
            L[n] += 1
            if limit is not None and L[n] > limit:
                over_limit(limit)
            fr[1] += 1
        self.ops[head] = check
        self._loop_end(end)

    def s_Break(self, s: A.Break) -> None:
        self.loops[-1].append(self.emit(None, s.span))

    s_Move = s_Add = s_Remove = s_Log = simple

    def s_Shuffle(self, s: A.Shuffle) -> None:
        t = strip_opt(self.rb.types.get(id(s.target), Type("any")))
        et = t.args[0] if t.kind == "list" and t.args else Type("any")

        def labeller(v: Any) -> str:
            return fmt(v, et)
        self.emit(shuffle_op(self.collection(s.target), labeller, self.hidden(), s.span, et),
                  s.span)

    def s_Emit(self, s: A.Emit) -> None:
        """An emit that may start triggers (their list is filled after every body); one that
        starts none is a simple statement."""
        if s.event not in self.p.triggers_by_event:
            self.simple(s)
            return
        args = [self.ex.place_value(a) for a in s.args]
        triggers = self.p.triggers_by_event[s.event]
        stats = self.p.stats_by_event.get(s.event, [])
        nargs = len(args)

        def emit(st: Any, fr: list) -> None:      # (the pc on only before the pushes)
            L = fr[2]
            vals = [a(st, L) for a in args]
            for i, cond, nslots, amount in stats:
                SL = vals + [None] * (nslots - nargs)
                if cond is None or cond(st, SL):
                    st.stats[i] += 1 if amount is None else amount(st, SL)
            run = []
            for bid, cond, nslots in triggers:
                TL = vals + [None] * (nslots - nargs)
                if cond is None or cond(st, TL):
                    run.append([bid, 0, TL, -1])
            if run and len(st.stack) >= MAX_FRAMES:
                too_deep()
            fr[1] += 1
            for f in reversed(run):
                st.stack.append(f)
        setattr(emit, "pushes", True)        # it pushes frames (compiler/rollout.py)
        self.emit(emit, s.span)

    def s_CallStmt(self, s: A.CallStmt) -> None:
        ref = self.rb.refs[id(s)]
        if ref[0] == "proc":
            self.emit(self.call_op(s.name, s.args, -1), s.span)
            return
        call = A.Call(s.name, s.args, span=s.span)
        self.rb.refs[id(call)] = ref
        self.rb.keep.append(call)
        self.call_of[id(s)] = call
        self.simple(s)

    def call_op(self, name: str, args: tuple, ret: int) -> Op:
        bid = self.p.proc_id[name]
        values = self.ex.place_values(args)
        prog = self.p
        n = len(args)

        def call(st: Any, fr: list) -> None:
            if len(st.stack) >= MAX_FRAMES:
                too_deep()
            vals = values(st, fr[2])
            fr[1] += 1
            st.stack.append([bid, 0, vals + [None] * (prog.nslots[bid] - n), ret])
        setattr(call, "pushes", True)        # it pushes a frame (compiler/rollout.py)
        return call

    def s_Return(self, s: A.Return) -> None:
        f = self.ex.place_value(s.value) if s.value is not None else None
        self.emit(_return_op(f), s.span)

    def s_EndGame(self, s: A.EndGame) -> None:
        prog = self.p
        self.emit(lambda st, fr: prog.finish(st), s.span)

    def s_Deal(self, s: A.Deal) -> None:
        compile_deal(self, s)


# ---------------------------------------------------------------- op factories
def _jump(target: int) -> Op:
    def jump(s: Any, fr: list) -> None:
        fr[1] = target
    return jump


def _branch_false(cond: Callable, target: int) -> Op:
    def branch(s: Any, fr: list) -> None:
        if cond(s, fr[2]):
            fr[1] += 1
        else:
            fr[1] = target
    return branch


def _set_slot(slot: int, value: Any) -> Op:
    def put(s: Any, fr: list) -> None:
        fr[2][slot] = value
        fr[1] += 1
    return put


def _for_head(lst: int, i: int, var: int, where: Optional[Callable], head: int, end: int) -> Op:
    if where is None:
        def head_op(s: Any, fr: list) -> None:
            L = fr[2]
            xs = L[lst]
            if L[i] >= len(xs):
                L[lst] = None
                fr[1] = end
                return
            L[var] = xs[L[i]]
            L[i] += 1
            fr[1] += 1
        return head_op

    def head_where(s: Any, fr: list) -> None:
        L = fr[2]
        xs = L[lst]
        while L[i] < len(xs):
            L[var] = xs[L[i]]
            L[i] += 1
            if where(s, L):
                fr[1] += 1
                return
        L[lst] = None
        fr[1] = end
    return head_where


def _return_op(f: Optional[Callable]) -> Op:
    def ret(s: Any, fr: list) -> None:
        v = f(s, fr[2]) if f is not None else None
        stack = s.stack
        stack.pop()
        if fr[3] >= 0:
            stack[-1][2][fr[3]] = v
    return ret
