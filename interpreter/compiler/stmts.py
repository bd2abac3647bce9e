"""Compiling a body's statements into a flat list of ops with jumps.

An op is ``op(state, frame) -> None | node``; it sets ``frame[1]`` (the pc) itself. A frame is
``[body_id, pc, locals, return_slot]``. Ops that suspend (decisions, explicit chance) return the
node and leave the pc on themselves, so re-running the op after a reload recomputes the node
(those ops are made in interpreter/decisions.py; a shuffle's, which suspends once per position
with explicit chance, in interpreter/chance.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

from mercator.dsl import ast as A
from mercator.dsl.checked import Body
from mercator.dsl.types import Type, iter_elem, strip_opt
from mercator.interpreter.engine.chance import shuffle_op
from mercator.interpreter.compiler.codegen import is_container
from mercator.interpreter.compiler.deals import compile_deal
from mercator.interpreter.compiler.decisions import suspend
from mercator.interpreter.engine.exprs import RuleError, failure_message, put_item, take_item
from mercator.interpreter.engine.convert import converter
from mercator.interpreter.engine.seen import label_of, record, vis_fn
from mercator.interpreter.engine.limits import MAX_FRAMES, bag_walk, too_deep
from mercator.interpreter.engine.values import bag_items, deep_copy, fmt, iterator_for

if TYPE_CHECKING:
    from mercator.interpreter.engine.program import Program

Op = Callable[[Any, list], Any]
SYNTHETIC = A.NOSPAN      # jumps and implicit returns: no rule line of their own (coverage skips)


def _advance(s: Any, fr: list) -> None:
    fr[1] += 1


class BodyCompiler:
    """Compiles one body (proc, phase, setup, trigger or action) into ops."""

    def __init__(self, prog: "Program", body: Body):
        self.p = prog
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
    def s_Let(self, s: A.Let) -> None:
        slot = self.rb.refs[id(s)]
        if self.suspending(s.rhs):
            conv = self.converter(s.rhs)
            if conv is None:
                suspend(self, s.rhs, slot)
                return
            h = self.hidden()                 # `let b: bag<T> = <a list>`: converted (§3.6)
            suspend(self, s.rhs, h)

            def let_converted(st: Any, fr: list) -> None:
                L = fr[2]
                L[slot] = conv(L[h])
                fr[1] += 1
            self.emit(let_converted, s.span)
            return
        f = self.ex.place_value(s.rhs)

        def let(st: Any, fr: list) -> None:
            L = fr[2]
            L[slot] = f(st, L)
            fr[1] += 1
        self.emit(let, s.span)

    def converter(self, r: Any) -> Optional[Callable[[Any], Any]]:
        """The conversion of a suspending right-hand side's value where it is stored (§3.6)."""
        conv = self.rb.refs.get(("convert", id(r)))
        return None if conv is None else converter(*conv)

    def suspending(self, r: Any) -> bool:
        return isinstance(r, (A.Choose, A.Simultaneous, A.Roll, A.RandomPick, A.Draw)) or (
            isinstance(r, A.Call) and self.rb.refs.get(id(r), ("",))[0] == "proc")

    def s_Assign(self, s: A.Assign) -> None:
        cont, key, is_bag = self.lvalue(s.target)
        if self.suspending(s.rhs):
            h = self.hidden()
            suspend(self, s.rhs, h)
            conv = self.converter(s.rhs)
            val: Callable = (lambda st, L: L[h]) if conv is None else \
                (lambda st, L: conv(L[h]))
        else:
            val = self.ex.place_value(s.rhs)
        op = s.op
        if op == "=":
            if is_bag:
                def put_bag(st: Any, fr: list) -> None:
                    L = fr[2]
                    c, k, v = cont(st, L), key(st, L), val(st, L)
                    if v > 0:
                        c[k] = v
                    else:
                        c.pop(k, None)
                    fr[1] += 1
                self.emit(put_bag, s.span)
                return

            def put(st: Any, fr: list) -> None:
                L = fr[2]
                cont(st, L)[key(st, L)] = val(st, L)
                fr[1] += 1
            self.emit(put, s.span)
            return
        sign = 1 if op == "+=" else -1
        if is_bag:
            def bump_bag(st: Any, fr: list) -> None:
                L = fr[2]
                c, k = cont(st, L), key(st, L)
                v = c.get(k, 0) + sign * val(st, L)
                if v > 0:
                    c[k] = v
                elif v == 0:
                    c.pop(k, None)
                else:
                    raise RuleError("a bag cannot hold fewer than 0 of an item")
                fr[1] += 1
            self.emit(bump_bag, s.span)
            return

        def bump(st: Any, fr: list) -> None:
            L = fr[2]
            c, k = cont(st, L), key(st, L)
            try:
                cur = c[k]
            except KeyError as exc:    # (said as the generated code's KeyError is)
                raise RuleError(failure_message(exc)) from None
            if cur is None:
                raise RuleError("arithmetic on a none value")
            c[k] = cur + sign * val(st, L)
            fr[1] += 1
        self.emit(bump, s.span)

    def lvalue(self, lv: A.LValue) -> tuple[Callable, Callable, bool]:
        """(container(s, L), key(s, L), is_bag_count) naming the place lv denotes."""
        ref = self.rb.refs[id(lv)]
        get: Callable
        cont0: Callable
        key0: Callable
        if ref[0] == "call":
            get = self.ex.compile(lv.call)
            cont0 = key0 = get
        elif ref[0] == "local":
            slot = ref[1]
            get = lambda s, L: L[slot]  # noqa: E731
            cont0 = lambda s, L: L  # noqa: E731
            key0 = lambda s, L: slot  # noqa: E731
        else:
            idx = ref[1]
            get = lambda s, L: s.table[idx]
            cont0 = lambda s, L: s.table
            key0 = lambda s, L: idx
        if not lv.steps:
            return cont0, key0, False
        for step in lv.steps[:-1]:
            get = self._step_reader(get, step)
        last = lv.steps[-1]
        t = strip_opt(self.rb.types[id(last)])
        if isinstance(last, A.LvField):
            if t.kind == "player":
                k = self.p.ex.pfield[last.name]
                g = get

                def pcont(s: Any, L: list) -> Any:
                    p = g(s, L)
                    if p is None:
                        raise RuleError(f"'.{last.name}' of none (no player)")
                    return s.players[p]
                return pcont, (lambda s, L: k), False
            k2 = t.members.index(last.name)
            return get, (lambda s, L: k2), False
        kf = self.ex.compile(last.key)
        if t.kind == "list":
            g2 = get

            def lkey(s: Any, L: list) -> Any:
                i = kf(s, L)
                n = len(g2(s, L))
                if not 0 <= i < n:
                    raise RuleError(f"list index {i} is out of range (the list has {n} items)")
                return i
            return get, lkey, False
        return get, kf, t.kind == "bag"

    def _step_reader(self, get: Callable, step: Any) -> Callable:
        t = strip_opt(self.rb.types[id(step)])
        if isinstance(step, A.LvField):
            if t.kind == "player":
                k = self.p.ex.pfield[step.name]
                return lambda s, L: s.players[get(s, L)][k]
            k2 = t.members.index(step.name)
            return lambda s, L: get(s, L)[k2]
        kf = self.ex.compile(step.key)
        if t.kind == "bag":
            return lambda s, L: get(s, L).get(kf(s, L), 0)

        def rd(s: Any, L: list) -> Any:
            c = get(s, L)
            k = kf(s, L)
            try:
                return c[k]
            except (IndexError, KeyError):
                raise RuleError(f"no item at {k!r}") from None
        return rd

    def _is_map_place(self, lv: A.LValue) -> bool:
        """Does the place lv name a map (from the checker's record of its type)?"""
        return strip_opt(self.rb.types.get(id(lv), Type("any"))).kind == "map"

    def collection(self, lv: A.LValue) -> Callable:
        """A reader returning the list/bag object at lv itself (not a copy)."""
        cont, key, _ = self.lvalue(lv)
        return lambda s, L: cont(s, L)[key(s, L)]

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
                raise RuleError(f"'while' ran more than its limit of {limit} times")
            fr[1] += 1
        self.ops[head] = check
        self._loop_end(end)

    def s_Break(self, s: A.Break) -> None:
        self.loops[-1].append(self.emit(None, s.span))

    def s_Move(self, s: A.Move) -> None:
        item = self.ex.compile(s.item)
        src, dst = self.collection(s.source), self.collection(s.dest)

        def move(st: Any, fr: list) -> None:
            L = fr[2]
            x = item(st, L)
            take_item(src(st, L), x)
            put_item(dst(st, L), x)
            fr[1] += 1
        self.emit(move, s.span)

    def s_Add(self, s: A.Add) -> None:
        item = self.ex.place_value(s.item)
        dst = self.collection(s.dest)

        def add(st: Any, fr: list) -> None:
            L = fr[2]
            put_item(dst(st, L), item(st, L))
            fr[1] += 1
        self.emit(add, s.span)

    def s_Remove(self, s: A.Remove) -> None:
        item = self.ex.compile(s.item)
        src = self.collection(s.source)
        if self._is_map_place(s.source):
            def delete(st: Any, fr: list) -> None:
                L = fr[2]
                m, k = src(st, L), item(st, L)
                if k not in m:
                    raise RuleError("the key to remove is not in the map")
                del m[k]
                fr[1] += 1
            self.emit(delete, s.span)
            return

        def remove(st: Any, fr: list) -> None:
            L = fr[2]
            take_item(src(st, L), item(st, L))
            fr[1] += 1
        self.emit(remove, s.span)

    def s_Shuffle(self, s: A.Shuffle) -> None:
        t = strip_opt(self.rb.types.get(id(s.target), Type("any")))
        et = t.args[0] if t.kind == "list" and t.args else Type("any")

        def labeller(v: Any) -> str:
            return fmt(v, et)
        self.emit(shuffle_op(self.collection(s.target), labeller, self.hidden(), s.span, et),
                  s.span)

    def s_Emit(self, s: A.Emit) -> None:
        args = [self.ex.place_value(a) for a in s.args]
        triggers = self.p.triggers_by_event.get(s.event, [])
        stats = self.p.stats_by_event.get(s.event, [])
        nargs = len(args)

        uncond = [i for i, cond, _, amount in stats if cond is None and amount is None]
        if s.event not in self.p.triggers_by_event and len(uncond) == len(stats):
            def count(st: Any, fr: list) -> None:     # only stats that count every emit
                fr[1] += 1
                c = st.stats
                for i in uncond:
                    c[i] += 1
            self.emit(count, s.span)
            return

        def emit(st: Any, fr: list) -> None:
            L = fr[2]
            fr[1] += 1
            if not triggers and not stats:
                return
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
                fr[1] -= 1                   # (located at the emit)
                too_deep()
            for f in reversed(run):
                st.stack.append(f)
        if s.event in self.p.triggers_by_event:   # (its list is filled after every body)
            setattr(emit, "pushes", True)    # it pushes frames (compiler/rollout.py)
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
        f = self.ex.compile(call)

        def do(st: Any, fr: list) -> None:
            f(st, fr[2])
            fr[1] += 1
        self.emit(do, s.span)

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

    def s_Log(self, s: A.Log) -> None:
        audience = getattr(s, "audience", None)
        # each part as (value fn, its formatter, vis fn): a text literal's value fn is None and
        # its formatter its text, written once here
        parts = [(*self._log_text(p),
                  vis_fn(label_of(self.rb, p)) if audience is None else None)
                 for p in s.parts]
        # (audience None: each part seen by whom its information-flow label allows; 'log
        # public:' or 'log to P:': the line says who sees it)
        to_f = self.ex.compile(audience) if audience not in (None, "public") else None

        def log(st: Any, fr: list) -> None:
            if st.narrate:
                L = fr[2]
                shown: list[list] = [[fm if f is None else fm(f(st, L)),
                                      v(st, L) if v is not None else None]
                                     for f, fm, v in parts]
                st.messages.append(" ".join([t for t, _ in shown]))
                if to_f is not None:
                    who = to_f(st, L)
                    record(st, ["log", [who] if who is not None else [], shown])
                else:
                    record(st, ["log", None, shown])
            fr[1] += 1
        self.emit(log, s.span)

    def _log_text(self, p: A.Expr) -> tuple[Optional[Callable], Any]:
        """A log part's value fn and formatter (values.fmt for its type), or (None, its text)
        for a text literal."""
        t = self.type_of(p)
        if isinstance(p, A.StrLit):
            return None, fmt(p.value, t)
        if t.kind in ("int", "str"):           # what fmt does for these, without looking
            return self.ex.compile(p), _plain_text
        return self.ex.compile(p), lambda v: fmt(v, t)


def _plain_text(v: Any) -> str:
    """values.fmt of an int or a str."""
    return "none" if v is None else str(v)


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
