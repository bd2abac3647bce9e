"""The meaning of the statements that never suspend, written once, as generated Python source.

Such a statement (an assignment, a let, a log, a move, an add, a remove, an emit nothing listens
to, a call of a fn) is written here only: its op in interpreter/stmts.py is the function written
for it alone (`Fused.singles`: `def R(s, fr): L = fr[2]; <the statement>; fr[1] = <next pc>`),
which coverage tracing runs one by one. The fast op list of a body is a copy of the ops in which
the first op of every maximal run of such statements (and of the ifs and for-loops made only of
these) is replaced by one function doing the whole run, written by the same methods; it then
runs the op after the run too, saving a dispatch. Each generated line records the pc of the op
it stands for, so a runtime error inside is located at the same rulebook line as the op would be
(`Fused.relocate`).
"""
from __future__ import annotations

import re
from types import CodeType, TracebackType
from typing import TYPE_CHECKING, Any, Callable, Optional

from mercator.dsl import ast as A
from mercator.dsl.types import Type, strip_opt
from mercator.interpreter.compiler.codegen import (_LITERAL, TOO_DEEP, BuildError, copier,
                                                    hoist_state, is_shared)
from mercator.interpreter.compiler.control import PUSHING, Control
from mercator.interpreter.engine.exprs import RuleError, put_item, take_item
from mercator.interpreter.engine.limits import MAX_FRAMES, too_deep
from mercator.interpreter.engine.seen import label_of, record, vis_fn
from mercator.interpreter.engine.values import fmt, plain_text, player_text
from mercator.interpreter.compiler.memo import blocks_of, scalar

if TYPE_CHECKING:
    from mercator.interpreter.engine.program import Program
    from mercator.interpreter.engine.state import State
    from mercator.interpreter.compiler.stmts import BodyCompiler

# not A.Shuffle: with explicit chance it suspends, once per position (interpreter/chance.py)
SIMPLE = (A.Let, A.Assign, A.Move, A.Add, A.Remove, A.Log, A.Emit, A.CallStmt)


def _item(c: Any, k: Any) -> Any:
    try:
        return c[k]
    except (IndexError, KeyError):
        raise RuleError(f"no item at {k!r}") from None


_LOCALS = re.compile(r"\bL\b")       # source that reads or writes the frame's locals


def _bare_return(st: Any) -> bool:
    """True if st is the control op of a `return` without a value, or of a body's end."""
    return isinstance(st, tuple) and st[0] == "return" and (st[1] is None or st[1].value is None)


def native_pc(prog: "Program", tables: list[dict], tb: TracebackType) -> Optional[int]:
    """The pc the line of tb stands for when its frame is a function Cython compiled
    (compiler/native.py), or None: its line is the module's (its piece begins at
    link.starts[name]), read in the first of `tables` (code -> (first line, pcs)) that holds
    the Python function of its name."""
    link = getattr(prog.ex, "native", None)
    name = tb.tb_frame.f_code.co_name.rsplit(".", 1)[-1]
    start = link.starts.get(name) if link is not None else None
    code = getattr(prog.ex.ns.get(name), "__code__", None)
    table = next((t[code] for t in tables if code in t), None) if start is not None else None
    if table is None:
        return None
    i = tb.tb_lineno - start + 1 - table[0]  # type: ignore[operator]
    return table[1][i] if 0 <= i < len(table[1]) else None  # type: ignore[no-any-return]


def _stub(ops: list, pc: int, write: Callable[[], None]) -> Callable:
    """The op at pc of ops until write() puts the op it stands for there (the functions of a
    body's simple statements, see Fused.singles; a rollout's resume point): it calls write,
    then runs the op now at pc."""
    def op(s: Any, fr: list) -> Any:
        write()
        return ops[pc](s, fr)
    return op


class Fused:
    """The generated functions of a program and the line-to-pc tables that locate their errors."""

    def __init__(self, prog: "Program"):
        self.prog = prog
        self.lines: dict[CodeType, tuple[int, list[int]]] = {}
        self.count = 0
        self.sources: dict[str, str] = {}      # name -> generated source, for reading
        self.keep_state: set[Callable] = set()  # fast ops that cannot change the state
        self.later: dict[int, Callable[[], None]] = {}   # id of a body compiler -> see singles
        prog.ex.ns.update(_item=_item, _take=take_item, _put=put_item, _record=record, _fmt=fmt,
                          _text=plain_text, _ptext=player_text, _finish=prog.finish,
                          _MAXF=MAX_FRAMES, _toodeep=too_deep)

    def relocate(self, tb: Optional[TracebackType], s: Optional["State"] = None) -> None:
        """If an error passed through a fused function, set its frame's pc to the failing op's:
        the frame it ran, or, for one compiled by Cython (compiler/native.py: its frame has no
        locals), the frame on top of the stack (the VM's loop runs the top frame's op)."""
        tb = tb.tb_next if tb is not None else None
        if tb is None:
            return
        table = self.lines.get(tb.tb_frame.f_code)
        if table is not None:
            fr = tb.tb_frame.f_locals.get("fr")
            if isinstance(fr, list):
                fr[1] = table[1][tb.tb_lineno - table[0]]
        elif s is not None and s.stack:
            pc = native_pc(self.prog, [self.lines], tb)
            fr = s.stack[-1]
            if pc is not None and 0 <= pc < len(self.prog.spans[fr[0]]):
                fr[1] = pc

    def fast_ops(self, bc: "BodyCompiler", ops: list, changing: set[int]) -> list:
        """A copy of ops with one fused function at the start of every run (see the module);
        records in keep_state those that run no op whose pc is in `changing`."""
        runs = _BodyFuser(self.prog, bc).find_runs(bc.top, [])
        starts = {a for a, _, _ in runs}
        fast = list(ops)
        self.keep_state.update(op for pc, op in enumerate(ops) if pc not in changing)
        for a, end, stmts in runs:
            then = None if end in starts else ops[end]
            try:
                fast[a] = self._make(bc, a, end, stmts, then)
            except TOO_DEEP:           # nested beyond what Python compiles: ops one by one
                if id(bc) in self.later:                # (written now, not while a game runs)
                    self.later[id(bc)]()
                continue
            if not changing.intersection(range(a, end + (then is not None))):
                self.keep_state.add(fast[a])
        return fast

    def singles(self, jobs: list[tuple["BodyCompiler", list[tuple[int, Any, Optional[str]]]]]
                ) -> None:
        """For each (bc, todo) of jobs, set bc's op at each (pc, statement, value) of todo to
        the function for that statement alone: a run of one (`value`: the source of the value
        a `let` or an assignment stores when ops before it computed that value, a decision's,
        into a hidden slot), or, the statement a tuple (kind, statement, to), to the function
        of a control form's op (control.py's `op`). Those with a value and those outside every
        fused run (the VM runs them) are written now, all the bodies' as one module. The others
        run only one by one (coverage) or where a run was refused as too deep, every other way
        runs them inside a fused run: they are written, all of the body's at once, when one of
        them first runs (or when fast_ops finds a run refused); until then each op is a stub
        that writes them."""
        now = []
        for bc, todo in jobs:
            runs = _BodyFuser(self.prog, bc).find_runs(bc.top, [])
            fused = {pc for a, end, _ in runs for pc in range(a, end)}
            now += [(bc, *t) for t in todo if t[2] is not None or t[0] not in fused]
            later = [(bc, *t) for t in todo if t[2] is None and t[0] in fused]
            if later:
                self._later(bc, later)
        # a return without a value (a body's end too) cannot fail: one function for all alike
        firsts: dict[bool, tuple] = {}
        alike = [t for t in now if _bare_return(t[2])]
        for t in alike:
            firsts.setdefault(t[0].body.result is not None, t)
        self._write_singles([t for t in now if not _bare_return(t[2])] + list(firsts.values()))
        for bc, pc, _, _ in alike:
            first = firsts[bc.body.result is not None]
            bc.ops[pc] = first[0].ops[first[1]]

    def _later(self, bc: "BodyCompiler", later: list) -> None:
        """Stubs at the pcs of `later` that write their functions when one first runs."""
        ops = bc.ops

        def write() -> None:
            if self.later.pop(id(bc), None) is not None:    # (once)
                self._write_singles(later)
        self.later[id(bc)] = write
        for _, pc, _, _ in later:
            ops[pc] = _stub(ops, pc, write)

    def _write_singles(self, todo: list[tuple["BodyCompiler", int, Any, Optional[str]]]
                       ) -> None:
        """Write the functions of singles (bc, pc, statement, value), as one module; should
        Python refuse it, each on its own, and the one refused is a BuildError at its
        statement."""
        if not todo:
            return
        names = [f"R{self.count + i}" for i in range(1, len(todo) + 1)]
        self.count += len(todo)
        writers: dict[int, _BodyFuser] = {}
        pcs: list[int] = []

        def source(items: list) -> str:
            lines: list[str] = []
            pcs.clear()
            out = []
            for name, (bc, pc, st, value) in items:
                w = writers.setdefault(id(bc), _BodyFuser(self.prog, bc))
                w.lines, w.pcs = lines, pcs
                out.append(self._write(w, name, pc, pc + 1, [st], None, value))
            return "".join(out)
        items = list(zip(names, todo))
        ns = self.prog.ex.ns
        body = todo[0][0].body
        where = f"<{body.kind} {body.name}>" if all(t[0].body is body for t in todo) else "<ops>"
        try:
            exec(self.prog.ex.build(lambda: source(items), where, "exec"), ns)
        except TOO_DEEP:
            for item in items:
                try:
                    exec(self.prog.ex.build(lambda: source([item]), f"<fused {item[0]}>",
                                            "exec"), ns)
                except TOO_DEEP:
                    raise BuildError("this statement is nested too deeply to be run (write it "
                                     "in smaller parts, with 'let' or fns)",
                                     item[1][0].spans[item[1][1]]) from None
                self._found(item, list(pcs))
            return
        for item in items:
            self._found(item, pcs)

    def _found(self, item: tuple, pcs: list[int]) -> None:
        """Put the function just written for a statement alone in its place among its body's
        ops (item: its name, then (body compiler, pc, statement, value))."""
        f = self.prog.ex.ns[item[0]]
        self.lines[f.__code__] = (1, pcs)
        item[1][0].ops[item[1][1]] = f
        if isinstance(item[1][2], tuple) and item[1][2][0] in PUSHING:
            setattr(f, "pushes", True)      # it pushes frames (compiler/rollout.py)

    def reader(self, bc: "BodyCompiler", lv: A.LValue) -> Callable:
        """A function (state, locals) -> the list, bag or map at the place lv itself (not a
        copy), read as the statements read it."""
        self.count += 1
        name = f"C{self.count}"
        w = _BodyFuser(self.prog, bc, name)
        try:
            code = self.prog.ex.build(lambda: f"def {name}(s, L):\n" + "".join(
                f"    {text}\n" for text in w.collection(lv, "_d")) + "    return _d\n",
                f"<place {name}>", "exec")
        except TOO_DEEP:
            raise BuildError("this place is nested too deeply to be run (write it in smaller "
                             "parts, with 'let' or fns)", lv.span) from None
        exec(code, w.ns)
        return w.ns[name]  # type: ignore[no-any-return]

    def _make(self, bc: "BodyCompiler", start: int, end: int, stmts: list,
              then: Optional[Callable]) -> Callable:
        self.count += 1
        name = f"R{self.count}"
        w = _BodyFuser(self.prog, bc)

        def source() -> str:
            w.lines, w.pcs = [], []
            return self._write(w, name, start, end, stmts, then)
        exec(self.prog.ex.build(source, f"<fused {name}>", "exec"), w.ns)
        f = w.ns[name]
        self.lines[f.__code__] = (1, w.pcs)
        return f  # type: ignore[no-any-return]

    def _write(self, w: "_BodyFuser", name: str, start: int, end: int, stmts: list,
               then: Optional[Callable], value: Optional[str] = None) -> str:
        """The source of `def NAME(s, fr):` doing stmts (the ops from pc start to end), then
        setting the pc to end (and running `then`, the op there), or, stmts one control op
        (kind, statement, to), that op (control.py); its lines are added to w's."""
        n = len(w.lines)
        w.given = None if value is None else (start, value)
        w.depth = 0
        w.line(start, f"def {name}(s, fr):")
        w.depth = 1
        w.line(start, "L = fr[2]")
        if isinstance(stmts[0], tuple):         # an op of a control form: it sets the pc
            w.op(start, *stmts[0])
        else:
            for st in stmts:
                w.stmt(st)
            w.line(end, f"fr[1] = {end}")
        if then is not None:
            w.ns[f"{name}_then"] = then
            w.line(end, f"return {name}_then(s, fr)")
        if not any(_LOCALS.search(text) for text in w.lines[n + 2:]):
            del w.lines[n + 1], w.pcs[n + 1]        # (no local read or written)
        src = self.sources[name] = hoist_state("\n".join(w.lines[n:]) + "\n")
        return src


class _BodyFuser(Control):
    """Writes the Python source of the statements of one body."""

    # (pc, value source) of a let or assignment whose value ops before it computed
    given: Optional[tuple[int, str]] = None

    # -- which statements fuse
    def fusable(self, st: Any) -> bool:
        """True if st never suspends, pushes a frame, jumps out or loops without a bound."""
        if isinstance(st, (A.Let, A.Assign)):
            return not self.bc.suspending(st.rhs)
        if isinstance(st, A.Emit):
            return not self.p.triggers_by_event.get(st.event)
        if isinstance(st, A.CallStmt):
            return self.rb.refs[id(st)][0] != "proc"
        if isinstance(st, SIMPLE):
            return True
        if isinstance(st, (A.If, A.For)):
            return all(self.fusable(s) for b in blocks_of(st) for s in b.stmts)
        return False

    def find_runs(self, b: A.Block, out: list) -> list[tuple[int, int, list]]:
        """Append (first pc, pc after, statements) for each maximal run of fusable statements
        to out; out."""
        run: list = []
        for st in b.stmts:
            if self.fusable(st):
                run.append(st)
                continue
            if run:
                out.append((self.bc.pc_of[id(run[0])], self.bc.pc_of[id(st)], run))
                run = []
            for sub in blocks_of(st):
                self.find_runs(sub, out)
        if run:
            out.append((self.bc.pc_of[id(run[0])], self.bc.block_end[id(b)], run))
        return out

    # -- writing source
    def value(self, e: Any) -> str:
        """Source of an expression whose value is stored: copied if the state may share it."""
        code = self.ex.gen(e)
        t = self.ex.type_of(e)
        return f"{copier(t)}({code})" if is_shared(e, t) else code

    def stored(self, st: Any) -> tuple[int, str]:
        """(pc, source of the value) a let or an assignment stores."""
        if self.given is not None:
            return self.given
        return self.bc.pc_of[id(st)], self.value(st.rhs)

    def w_Let(self, st: A.Let) -> None:
        pc, val = self.stored(st)
        self.line(pc, f"L[{self.rb.refs[id(st)]}] = {val}")

    def w_Log(self, st: A.Log) -> None:
        """With narration only: each part's text and who may see it (by its information-flow
        label; with `log public:` or `log to P:` the line says who sees it), the message,
        then the line of the record."""
        pc = self.bc.pc_of[id(st)]
        audience = getattr(st, "audience", None)
        parts = []
        for p in st.parts:
            t = self.ex.type_of(p)
            if isinstance(p, A.StrLit):
                text = repr(fmt(p.value, t))
            elif t.kind in ("int", "str"):        # (what fmt does for these, without looking)
                text = f"_text({self.ex.gen(p)})"
            elif t.kind == "player":
                text = f"_ptext({self.ex.gen(p)})"
            else:
                text = f"_fmt({self.ex.gen(p)}, {self.ex.const(t)})"
            vis = vis_fn(label_of(self.rb, p)) if audience is None else None
            parts.append(f"[{text}, {'None' if vis is None else self.ex.const(vis) + '(s, L)'}]")
        self.line(pc, "if s.narrate:")
        self.line(pc, f"    _sh = [{', '.join(parts)}]")
        self.line(pc, "    s.messages.append(' '.join([_p[0] for _p in _sh]))")
        if audience in (None, "public"):
            self.line(pc, "    _record(s, ['log', None, _sh])")
            return
        self.line(pc, f"    _w = {self.ex.gen(audience)}")
        self.line(pc, "    _record(s, ['log', [] if _w is None else [_w], _sh])")

    def w_Emit(self, st: A.Emit) -> None:
        """An emit that starts no trigger, written out: the stats that count it."""
        self.stats(self.bc.pc_of[id(st)], st, False)

    def stats(self, pc: int, st: A.Emit, every: bool) -> None:
        """An emit's arguments evaluated in order into `_ea<j>` (with `every`, each, as the
        value it stores; else only if a stat reads them), then each stat that counts it, its
        condition and amount read from those values."""
        stats = self.p.stats_by_event.get(st.event, [])
        decls = [self.rb.stats[i] for i, _, _, _ in stats]
        names: dict[int, str] = {}
        if every or any(d.cond is not None or d.expr is not None for d in decls):
            for j, a in enumerate(st.args):
                names[j] = f"_ea{j}"
                self.line(pc, f"_ea{j} = {self.value(a) if every else self.ex.gen(a)}")
        for (i, _, _, _), d in zip(stats, decls):
            add = "1" if d.expr is None else self.ex.source(d.expr, names)
            guard = f"if {self.ex.source(d.cond, names)}: " if d.cond is not None else ""
            self.line(pc, f"{guard}s.stats[{i}] += {add}")

    def emits(self, pc: int, st: A.Emit, drain: bool) -> None:
        """An emit that starts triggers (the VM's op; the rollout's, with `drain`): the
        arguments and the stats, each trigger's locals (the arguments, then empty slots) and
        condition, all before any runs; the depth checked; the pc on; the frames of those that
        run pushed, the first on top; with `drain`, each then run by its compiled body."""
        self.stats(pc, st, True)
        n = len(st.args)
        args = "[" + ", ".join(f"_ea{j}" for j in range(n)) + "]"
        trig = self.p.triggers_by_event[st.event]
        conds = []
        for k, (_, cond, nslots) in enumerate(trig):
            self.line(pc, f"_t{k} = {args}" + (f" + [None] * {nslots - n}" if nslots > n else ""))
            if cond is not None:
                conds.append(f"_g{k}")
                self.line(pc, f"_g{k} = {self.ex.const(cond)}(s, _t{k})")
        some = f"({' or '.join(conds)}) and " if len(conds) == len(trig) else ""
        self.line(pc, f"if {some}len(s.stack) >= _MAXF: _toodeep()")
        self.line(pc, f"fr[1] = {pc + 1}")
        if drain:
            self.line(pc, "_n0 = len(s.stack)")
        for k in reversed(range(len(trig))):
            push = f"s.stack.append([{trig[k][0]}, 0, _t{k}, -1])"
            self.line(pc, f"if _g{k}: {push}" if trig[k][1] is not None else push)
        if drain:
            self.line(pc, "if len(s.stack) > _n0: _drain(s, _n0)")

    def w_CallStmt(self, st: A.CallStmt) -> None:
        self.line(self.bc.pc_of[id(st)], self.ex.gen(self.bc.call_of[id(st)]))

    def w_Assign(self, st: A.Assign) -> None:
        pc, val = self.stored(st)
        pre, c, k, is_bag = self.place(st.target)
        if st.op == "=" and not is_bag:
            if pre and not _LITERAL.fullmatch(val):   # (a literal is the same value later)
                self.line(pc, f"_v = {val}")
                val = "_v"
            self.line(pc, *pre)
            self.line(pc, f"{c}[{k}] = {val}")
            return
        self.line(pc, *pre)
        if st.op == "=":
            self.line(pc, f"_v = {val}")
            self.line(pc, f"if _v > 0: {c}[{k}] = _v")
            self.line(pc, f"else: {c}.pop({k}, None)")
            return
        sign = 1 if st.op == "+=" else -1
        if is_bag:
            self.line(pc, f"_t = {c}.get({k}, 0) + {sign} * ({val})")
            self.line(pc, f"if _t > 0: {c}[{k}] = _t")
            self.line(pc, f"elif _t == 0: {c}.pop({k}, None)")
            self.line(pc, "else: raise RuleError('a bag cannot hold fewer than 0 of an item')")
            return
        self.line(pc, f"_t = {c}[{k}]")
        self.line(pc, "if _t is None: raise RuleError('arithmetic on a none value')")
        self.line(pc, f"{c}[{k}] = _t {'+' if sign > 0 else '-'} ({val})")

    def collection(self, lv: A.LValue, var: str) -> list[str]:
        """Lines setting `var` to the list, bag or map at lv itself (not a copy)."""
        pre, c, k, _ = self.place(lv)
        return pre + [f"{var} = {c}[{k}]"]

    def kind(self, lv: A.LValue) -> str:
        """The kind of the value at the place lv, as the checker typed it."""
        return strip_opt(self.rb.types.get(id(lv), Type("any"))).kind

    def put(self, pc: int, lv: A.LValue, item: str, t: Type) -> None:
        """put_item written out: a bag's count of the item (in `_x`) up by one, or the item
        appended to the list in `_d` (a container deep-copied, as put_item does); put_item
        itself where the checker did not say which."""
        kind = self.kind(lv)
        if kind == "bag":
            self.line(pc, f"_x = {item}")
            self.line(pc, "_d[_x] = _d.get(_x, 0) + 1")
        elif kind != "list":
            self.line(pc, f"_put(_d, {item})")
        elif scalar(t):
            self.line(pc, f"_d.append({item})")
        else:
            self.line(pc, f"_d.append(_dc({item}))")

    def w_Add(self, st: A.Add) -> None:
        """`add x to place`: the collection, then the item (copied if the state may share it),
        then put_item written out."""
        pc = self.bc.pc_of[id(st)]
        self.line(pc, *self.collection(st.dest, "_d"))
        t = self.ex.type_of(st.item)
        item = self.ex.gen(st.item)
        self.put(pc, st.dest, f"{copier(t)}({item})" if is_shared(st.item, t) else item, t)

    def w_Remove(self, st: A.Remove) -> None:
        """`remove x from place`: the collection, then the item, then take_item (a list or a
        bag) or the key deleted (a map)."""
        pc = self.bc.pc_of[id(st)]
        self.line(pc, *self.collection(st.source, "_d"))
        if self.kind(st.source) != "map":
            self.line(pc, f"_take(_d, {self.ex.gen(st.item)})")
            return
        self.line(pc, f"_k = {self.ex.gen(st.item)}")
        self.line(pc, "if _k not in _d: raise RuleError('the key to remove is not in the map')")
        self.line(pc, "del _d[_k]")

    def w_Move(self, st: A.Move) -> None:
        """`move x from a to b`: the item, a's collection, take_item, b's collection, then
        put_item written out (the item as the op puts it: not copied before put_item)."""
        pc = self.bc.pc_of[id(st)]
        src, dst = self.collection(st.source, "_d"), self.collection(st.dest, "_d")
        self.line(pc, f"_m = {self.ex.gen(st.item)}")
        self.line(pc, *src)
        self.line(pc, "_take(_d, _m)")
        self.line(pc, *dst)
        self.put(pc, st.dest, "_m", self.ex.type_of(st.item))

    def place(self, lv: A.LValue) -> tuple[list[str], str, str, bool]:
        """(lines computing the place, container, key, is a bag count) of an assignment target:
        the root, each step read in turn, the last step's container, then its key."""
        ref = self.rb.refs[id(lv)]
        if ref[0] == "call":
            assert lv.steps and lv.call is not None    # (the grammar's `f(x).step...`)
            get = self.ex.gen(lv.call)
        elif ref[0] == "local":
            if not lv.steps:
                return [], "L", str(ref[1]), False
            get = f"L[{ref[1]}]"
        else:
            if not lv.steps:
                return [], "s.table", str(ref[1]), False
            get = f"s.table[{ref[1]}]"
        for step in lv.steps[:-1]:
            get = self.read_step(get, step)
        last = lv.steps[-1]
        t = strip_opt(self.rb.types[id(last)])
        if isinstance(last, A.LvField):
            if t.kind == "player":
                msg = f"'.{last.name}' of none (no player)"
                return ([f"_p = {get}", f"if _p is None: raise RuleError({msg!r})",
                         "_c = s.players[_p]"], "_c", str(self.ex.pfield[last.name]), False)
            return [f"_c = {get}"], "_c", str(t.members.index(last.name)), False
        key = self.ex.gen(last.key)
        pre = [f"_c = {get}", f"_k = {key}"]
        if t.kind == "list":
            pre += [f"_n = len({get})", "if not 0 <= _k < _n: raise RuleError("
                    "f'list index {_k} is out of range (the list has {_n} items)')"]
        return pre, "_c", "_k", t.kind == "bag"

    def read_step(self, get: str, step: Any) -> str:
        """Source reading one step of a place: a player's field, a record's, an item of a list
        or map (an error if there is none), or a bag's count."""
        t = strip_opt(self.rb.types[id(step)])
        if isinstance(step, A.LvField):
            if t.kind == "player":
                return f"s.players[{get}][{self.ex.pfield[step.name]}]"
            return f"{get}[{t.members.index(step.name)}]"
        key = self.ex.gen(step.key)
        if t.kind == "bag":
            return f"{get}.get({key}, 0)"
        return f"_item({get}, {key})"

