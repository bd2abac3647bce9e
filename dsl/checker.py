"""Name resolution and type checking of a parsed rulebook; collects every diagnostic."""
from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Optional

import attrs

from dsl import ast as A
from dsl.builtins import BUILTIN_NAMES, BUILTINS, GEN_BUILTINS, builtin_type
from dsl.analysis import analyse
from dsl.flow_analysis import analyse_flow
from dsl.graphs import strongly_connected
from dsl.infoflow import is_owner_map
from dsl.limits import (MAX_COLLECTION, MAX_DIE_SIDES, MAX_OPTIONS, DeepRecursion, PausedGC,
                        call_depth_error, literal_int, literal_range_size, subset_count)
from dsl.checked import Body, CheckedRulebook, FieldInfo
from dsl.diagnostics import Diagnostic, apply_allows, did_you_mean, error, info, warning
from dsl.types import (ANY, BOOL, INT, NONE, PLAYER, STR, Type, assignable, bag_of, is_collection,
                       is_enumerable, iter_elem, join, list_of, map_of, opt, strip_opt)

PRIMITIVES = {"int": INT, "bool": BOOL, "str": STR, "player": PLAYER}
GENERICS = {"list": 1, "bag": 1, "map": 2}


class Scope:
    """Block-structured locals of one body; slots are never reused."""

    def __init__(self, body_kind: str, result: Optional[Type] = None, state: bool = True):
        self.frames: list[dict[str, tuple[int, Type]]] = [{}]
        self.nslots = 0
        self.kind = body_kind
        self.result = result
        self.loops = 0
        self.state = state          # may read game state (false in consts)
        self.owner = ""             # the procedure being checked (for the call graph)
        self.guards: list[Any] = []  # conditions of the enclosing if / while / where / when
        self.param_names: set[str] = set()
        self.capped: set[str] = set()       # locals bound by a decision or by min(...)

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        self.frames.pop()

    def declare(self, name: str, t: Type) -> int:
        slot = self.nslots
        self.nslots += 1
        self.frames[-1][name] = (slot, t)
        return slot

    def lookup(self, name: str) -> Optional[tuple[int, Type]]:
        for fr in reversed(self.frames):
            if name in fr:
                return fr[name]
        return None

    def names(self) -> list[str]:
        return [n for fr in self.frames for n in fr]


class Checker:
    """Walks the declarations and bodies, fills the resolution/type tables, collects diagnostics."""

    def __init__(self, items: tuple[Any, ...], path: str, sources: dict[str, str]):
        self.items = items
        self.path = path
        self.sources = sources
        self.diags: list[Diagnostic] = []
        self.types: dict[int, Type] = {}
        self.refs: dict[Any, Any] = {}
        self.enums: dict[str, Type] = {}
        self.member_of: dict[str, tuple[Type, int]] = {}
        self.records: dict[str, Type] = {}
        self.record_decls: dict[str, A.RecordDecl] = {}
        self.consts: list[A.ConstDecl] = []
        self.const_decls: dict[str, A.ConstDecl] = {}
        self.const_types: dict[str, Type] = {}
        self.player_fields: dict[str, FieldInfo] = {}
        self.table_fields: dict[str, FieldInfo] = {}
        self.events: dict[str, tuple[Type, ...]] = {}
        self.event_decls: dict[str, A.EventDecl] = {}
        self.proc_decls: dict[str, A.ProcDecl] = {}
        self.fn_decls: dict[str, A.FnDecl] = {}
        self.emitted: set[str] = set()
        self.emitted_watch: set[str] = set()
        self.reads: set[tuple[str, str]] = set()      # ("table"|"player", field) read somewhere
        self.writes: set[tuple[str, str]] = set()     # ... and changed somewhere
        self.calls: dict[str, set[str]] = {}          # procedure -> procedures it calls
        self.trigger_writes: list[tuple[A.TriggerDecl, set[tuple[str, str]]]] = []
        self.cur_writes: Optional[set[tuple[str, str]]] = None   # the trigger being checked
        self.called: set[str] = set()
        self.bounded: set[str] = set()    # names that some invariant mentions
        self.const_names: set[str] = set()
        self.has_end_game = False
        self.globals: dict[str, A.Span] = {}
        self.at: A.Span = A.Span(path, 1, 1, 1, 2)   # the statement or expression being checked

    # ------------------------------------------------------------ helpers
    def err(self, code: str, msg: str, span: A.Span, hint: Optional[str] = None) -> None:
        self.diags.append(error(code, msg, span, hint))

    def warn(self, code: str, msg: str, span: A.Span, hint: Optional[str] = None) -> None:
        self.diags.append(warning(code, msg, span, hint))

    def claim(self, name: str, span: A.Span, what: str) -> bool:
        if name in self.globals or name in BUILTIN_NAMES:
            prev = self.globals.get(name)
            where = f" (first declared at {prev})" if prev else " (a built-in)"
            self.err("E102", f"{what} '{name}' is already declared{where}", span,
                     "rename one of them")
            return False
        self.globals[name] = span
        return True

    def resolve_type(self, t: Optional[A.TypeExpr]) -> Type:
        if t is None:
            return ANY
        if isinstance(t, A.OptionalType):
            return opt(self.resolve_type(t.inner))
        if isinstance(t, A.SimpleType):
            if t.name in PRIMITIVES:
                return PRIMITIVES[t.name]
            if t.name in self.enums:
                return self.enums[t.name]
            if t.name in self.records:
                return self.records[t.name]
            if t.name in GENERICS:
                self.err("E101", f"type '{t.name}' needs {GENERICS[t.name]} type argument(s)", t.span,
                         f"write {t.name}<...>")
                return ANY
            known = list(PRIMITIVES) + list(self.enums) + list(self.records) + list(GENERICS)
            self.err("E101", f"unknown type '{t.name}'", t.span, did_you_mean(t.name, known))
            return ANY
        args = tuple(self.resolve_type(a) for a in t.args)
        if t.name not in GENERICS:
            self.err("E101", f"unknown generic type '{t.name}'", t.span,
                     did_you_mean(t.name, GENERICS) or "use list<T>, bag<T> or map<K, V>")
            return ANY
        if len(args) != GENERICS[t.name]:
            self.err("E101", f"'{t.name}' takes {GENERICS[t.name]} type argument(s), got {len(args)}",
                     t.span)
            return ANY
        if t.name in ("bag", "map") and args[0].kind not in ("enum", "int", "player", "bool", "any",
                                                             "str"):
            self.err("E101", f"the keys of a {t.name} must be an enum, int, bool or player, not "
                     f"{args[0]}", t.span)
        return Type(t.name, args=args)

    def expect(self, got: Type, want: Type, span: A.Span, what: str) -> None:
        if not assignable(got, want):
            self.err("E104", f"{what}: expected {want}, got {got}", span)

    # ------------------------------------------------------------ entry
    def run(self) -> Optional[CheckedRulebook]:
        items = self.items
        games = [i for i in items if isinstance(i, A.GameDecl)]
        for extra in games[1:]:
            self.err("E102", "a second 'game' declaration", extra.span, "a rulebook describes one game")
        # 1. enums and records (names first, so records can refer to each other's types)
        for it in items:
            if isinstance(it, (A.EnumDecl, A.RecordDecl)) and (it.name in PRIMITIVES or
                                                               it.name in GENERICS):
                what = "an enum" if isinstance(it, A.EnumDecl) else "a record"
                self.err("E102", f"'{it.name}' is a built-in type; {what} cannot be named so",
                         it.span, f"rename it, e.g. '{it.name.capitalize()}Kind'")
            elif isinstance(it, A.EnumDecl) and self.claim(it.name, it.span, "enum"):
                t = Type("enum", name=it.name, members=it.members)
                self.enums[it.name] = t
                for i, m in enumerate(it.members):
                    sp = it.member_spans[i] if i < len(it.member_spans) else it.span
                    if m in self.member_of:
                        self.err("E102", f"enum member '{m}' is already a member of "
                                 f"{self.member_of[m][0].name}", sp, "member names are global")
                    elif self.claim(m, sp, "enum member"):
                        self.member_of[m] = (t, i)
            elif isinstance(it, A.RecordDecl) and self.claim(it.name, it.span, "record"):
                self.records[it.name] = Type("record", name=it.name,
                                             members=tuple(f.name for f in it.fields))
                self.record_decls[it.name] = it
        for name, rd in self.record_decls.items():
            ftypes = tuple(self.resolve_type(f.type) for f in rd.fields)
            self._dup_fields(rd.fields)
            self.records[name] = Type("record", name=name, members=tuple(f.name for f in rd.fields),
                                      field_types=ftypes)
        # the enums/records are final: re-resolve record field types that name other records
        for name, rd in self.record_decls.items():
            ftypes = tuple(self.resolve_type(f.type) for f in rd.fields)
            self.records[name] = Type("record", name=name, members=tuple(f.name for f in rd.fields),
                                      field_types=ftypes)
        # 2. signatures: events, procs, fns, state fields
        for it in items:
            if isinstance(it, A.EventDecl) and self.claim(it.name, it.span, "event"):
                self.events[it.name] = tuple(self.resolve_type(p.type) for p in it.params)
                self.event_decls[it.name] = it
            elif isinstance(it, A.ProcDecl) and self.claim(it.name, it.span, "procedure"):
                self.proc_decls[it.name] = it
            elif isinstance(it, A.FnDecl) and self.claim(it.name, it.span, "function"):
                self.fn_decls[it.name] = it
            elif isinstance(it, A.PlayerState):
                self._state_fields(it.fields, self.player_fields, "player")
            elif isinstance(it, A.TableState):
                self._state_fields(it.fields, self.table_fields, "table")
        # 3. constants, each after the constants it uses (so their order in the file is free)
        self.const_names = {it.name for it in items if isinstance(it, A.ConstDecl)}
        for it in self._const_order([i for i in items if isinstance(i, A.ConstDecl)]):
            if isinstance(it, A.ConstDecl):
                sc = Scope("const", state=False)
                want = self.resolve_type(it.type) if it.type is not None else None
                t = self.expr(it.value, sc, want)
                if want is not None:
                    self.expect(t, want, it.value.span, f"constant '{it.name}'")
                    t = want
                if self.claim(it.name, it.span, "constant"):
                    self.consts.append(it)
                    self.const_decls[it.name] = it
                    self.const_types[it.name] = t
        # 4. state defaults
        for f in list(self.player_fields.values()) + list(self.table_fields.values()):
            if f.default is not None:
                sc = Scope("const", state=False)
                t = self.expr(f.default, sc, f.type)
                self.expect(t, f.type, f.default.span, f"default of field '{f.name}'")
        # 5. bodies
        self.bounded = set()
        for it in items:
            if isinstance(it, A.InvariantDecl):
                self.bounded |= self._field_names(it.expr)
        procs = {n: self._proc(d) for n, d in self.proc_decls.items()}
        fns = {n: self._fn(d) for n, d in self.fn_decls.items()}
        too_long = call_depth_error(self._fn_calls(), {n: d.span for n, d in self.fn_decls.items()})
        if too_long is not None:
            self.diags.append(too_long)
        setup = None
        rnd: Optional[A.RoundDecl] = None
        phases: list[Body] = []
        triggers: list[Body] = []
        actions: list[Body] = []
        invariants: list[Body] = []
        end = score = None
        tiebreaks: list[Body] = []
        stats: list[Body] = []
        eligible: Optional[Body] = None
        action_names: set[str] = set()
        trigger_names: set[str] = set()
        for it in items:
            if isinstance(it, A.SetupDecl):
                if setup is not None:
                    self.err("E102", "a second 'setup' block", it.span, "merge the two setup blocks")
                setup = self._block_body("setup", "setup", it, it.body)
            elif isinstance(it, A.RoundDecl):
                if rnd is not None:
                    self.err("E102", "a second 'round' declaration", it.span,
                             "a game has one round structure; use phases inside it")
                    continue
                rnd = it
                if isinstance(it.max_rounds, str) and self.const_types.get(it.max_rounds) != INT:
                    self.err("E100", f"the round limit '{it.max_rounds}' is not an int constant",
                             it.span, did_you_mean(it.max_rounds, self.const_types))
                seen: set[str] = set()
                for ph in it.phases:
                    if ph.name in seen:
                        self.err("E102", f"phase '{ph.name}' appears twice", ph.span)
                    seen.add(ph.name)
                    phases.append(self._block_body(ph.name, "phase", ph, ph.body))
            elif isinstance(it, A.TriggerDecl):
                b = self._trigger(it)
                if b is not None:
                    if b.name in trigger_names:
                        self.err("E102", f"trigger '{b.name}' is already declared", it.span,
                                 "name it with 'as NAME'")
                    trigger_names.add(b.name)
                    triggers.append(b)
            elif isinstance(it, A.ActionDecl):
                b = self._action(it)
                if b is not None:
                    if b.name in action_names:
                        self.err("E102", f"action '{b.name}' is already declared", it.span)
                    action_names.add(b.name)
                    actions.append(b)
            elif isinstance(it, A.EligibleDecl):
                sc = Scope("expr")
                sc.declare(it.var, PLAYER)
                self.expect(self.expr(it.expr, sc, BOOL), BOOL, it.expr.span, "eligible")
                if eligible is not None:
                    self.err("E102", "a second 'eligible' declaration", it.span,
                             "combine the conditions with 'and'")
                eligible = Body("eligible", "expr", (it.var,), (PLAYER,), BOOL, sc.nslots, it,
                                expr=it.expr, span=it.span)
            elif isinstance(it, A.StatDecl):
                b = self._stat(it)
                if any(x.name == b.name for x in stats):
                    self.err("E102", f"statistic '{it.name}' is already declared", it.span)
                stats.append(b)
            elif isinstance(it, A.InvariantDecl):
                sc = Scope("expr")
                self.expect(self.expr(it.expr, sc, BOOL), BOOL, it.expr.span, "invariant")
                invariants.append(Body(it.text, "expr", (), (), BOOL, sc.nslots, it, expr=it.expr,
                                       span=it.span))
            elif isinstance(it, A.EndDecl):
                if end is not None:
                    self.err("E102", "a second 'end' declaration", it.span,
                             "combine the conditions with 'or'")
                sc = Scope("expr")
                self.expect(self.expr(it.cond, sc, BOOL), BOOL, it.cond.span, "end condition")
                end = Body(it.round, "expr", (), (), BOOL, sc.nslots, it, expr=it.cond, span=it.span)
            elif isinstance(it, (A.ScoreDecl, A.TiebreakDecl)):
                sc = Scope("expr")
                sc.declare(it.var, PLAYER)
                what = "score" if isinstance(it, A.ScoreDecl) else "tiebreak"
                self.expect(self.expr(it.expr, sc, INT), INT, it.expr.span, what)
                b = Body(what, "expr", (it.var,), (PLAYER,), INT, sc.nslots, it, expr=it.expr,
                         span=it.span)
                if isinstance(it, A.ScoreDecl):
                    if score is not None:
                        self.err("E102", "a second 'score' declaration", it.span,
                                 "add a 'tiebreak' instead")
                    score = b
                else:
                    tiebreaks.append(b)
        library = not games and rnd is None and score is None and setup is None
        if library:   # a library (rulebooks/lib/): declarations only, used by games
            if not items:
                self.warn("W220", "this file declares nothing", self._top_span(),
                          'a rulebook starts with: game "Name" players 2..4')
            return None
        if not games:
            self.err("E114", "the rulebook has no 'game' declaration", self._top_span(),
                     'start with: game "Name" players 2..4')
        if rnd is None:
            self.err("E114", "the rulebook has no 'round' declaration", self._top_span(),
                     "add: round NAME { phase NAME { ... } }")
        if score is None:
            self.err("E114", "the rulebook has no 'score' declaration", self._top_span(),
                     "add: score p: p.money")
        if end is not None and rnd is not None and end.name != rnd.name:
            self.err("E115", f"'end after {end.name}' names no round", end.span,
                     did_you_mean(end.name, [rnd.name]) or f"the round is '{rnd.name}'")
        if end is None and rnd is not None and rnd.max_rounds is None and not self._has_end_game():
            self.err("E114", "the game can never end", rnd.span,
                     "add 'end after ROUND when COND', a 'limit' to the round, or an 'end game' statement")
        self._usage_warnings()
        handled = {tr.event for tr in triggers} | {st.event for st in stats}
        for name, ed in self.event_decls.items():
            if name in self.emitted and name not in handled and ed.span.path == self.path:
                self.diags.append(info("I230", f"event '{name}' is emitted but nothing reacts to it",
                                       ed.span, "fine for narration and replays; a trigger or a "
                                       "'stat' can use it"))
        for tr in triggers:
            if tr.event in self.events and tr.event not in self.emitted:
                self.warn("W210", f"trigger 'on {tr.event}' listens to an event nothing emits",
                          tr.span)
        if any(d.is_error for d in self.diags) or not games:
            return None
        return CheckedRulebook(
            path=self.path, sources=self.sources, items=items, game=games[0], enums=self.enums,
            member_of=self.member_of, records=self.records, record_decls=self.record_decls,
            consts=self.consts, const_types=self.const_types,
            player_fields=list(self.player_fields.values()),
            table_fields=list(self.table_fields.values()), events=self.events, procs=procs, fns=fns,
            setup=setup, round=rnd, phases=phases, triggers=triggers, actions=actions,
            invariants=invariants, end=end, score=score, tiebreaks=tiebreaks, stats=stats,
            eligible=eligible,
            types=self.types,
            refs=self.refs, keep=[items])

    def _usage_warnings(self) -> None:
        """Fields written but never read or never changed; procedures never called; recursion;
        triggers on one event that change the same field (their order decides the result)."""
        for i, (a, wa) in enumerate(self.trigger_writes):
            for b, wb in self.trigger_writes[i + 1:]:
                both = sorted(wa & wb)
                if a.event == b.event and both and b.span.path == self.path:
                    names = ", ".join(f"{w[0]} field '{w[1]}'" for w in both[:3])
                    self.warn("W280", f"this trigger and the one at line {a.span.line} both react "
                              f"to '{a.event}' and both change {names}", b.span,
                              "they run in declaration order; if the order matters, merge them "
                              "into one trigger so the rule says it")
        for where, fields in (("table", self.table_fields), ("player", self.player_fields)):
            for name, f in fields.items():
                if f.decl.span.path != self.path:
                    continue          # a library's field: the game may not need it
                if (where, name) in self.writes and (where, name) not in self.reads:
                    self.warn("W240", f"{where} field '{name}' is changed but never read",
                              f.decl.span, "remove it, or use it in a rule, the score or a log")
                elif (where, name) not in self.writes:
                    self.warn("W241", f"{where} field '{name}' is never changed", f.decl.span,
                              "declare it as a constant, or set it in a rule")
        for name, d in self.proc_decls.items():
            if name not in self.called and d.span.path == self.path:
                self.warn("W250", f"procedure '{name}' is never called", d.span,
                          "call it from a phase, a trigger or an action, or remove it")
        recursive = _recursive_names(self.calls)
        for name in sorted(self.calls):
            if name in recursive:
                rec = self.proc_decls.get(name)
                if rec is not None and rec.span.path == self.path:
                    self.warn("W261", f"procedure '{name}' can call itself again (recursion)",
                              rec.span, "make sure every recursive path ends; the step budget stops "
                              "one that does not")

    def _fn_calls(self) -> dict[str, set[str]]:
        """Function -> the functions its body calls."""
        return {n: {c.name for c in A.walk(d.body) if isinstance(c, A.Call) and c.name in
                    self.fn_decls} for n, d in self.fn_decls.items()}

    def _walk(self, root: Any, into_fns: bool = False, into_calls: bool = True) -> Iterator[Any]:
        """Every node under root; with into_fns, the bodies of the fns it calls too (each once)."""
        stack, seen_fns = [root], set()
        while stack:
            n = stack.pop()
            yield n
            if isinstance(n, A.Call):
                if into_fns and n.name in self.fn_decls and n.name not in seen_fns:
                    seen_fns.add(n.name)
                    stack.append(self.fn_decls[n.name].body)
                if not into_calls:
                    continue
            if isinstance(n, tuple):
                stack.extend(n)
            elif attrs.has(type(n)):
                stack.extend(getattr(n, f.name) for f in attrs.fields(type(n)) if f.name != "span")

    def _const_order(self, consts: list[A.ConstDecl]) -> list[A.ConstDecl]:
        """Constants sorted so that each comes after those it uses; a cycle is an error."""
        by_name = {c.name: c for c in consts}
        names = set(by_name)
        deps = {c.name: {n.name for n in self._walk(c.value, into_fns=True)
                         if isinstance(n, A.Name) and n.name in names} - {c.name} for c in consts}
        done: list[A.ConstDecl] = []
        state: dict[str, int] = {}      # 1 visiting, 2 done
        for first in consts:            # a depth-first visit, with its own stack
            if state.get(first.name):
                continue
            state[first.name] = 1
            chain: list[str] = [first.name]
            work: list[tuple[A.ConstDecl, Iterator[str]]] = [(first, iter(sorted(deps[first.name])))]
            while work:
                c, it = work[-1]
                d = next(it, None)
                if d is None:
                    work.pop()
                    chain.pop()
                    state[c.name] = 2
                    done.append(c)
                    continue
                if state.get(d) == 2:
                    continue
                if state.get(d) == 1:
                    cyc = " -> ".join(chain[chain.index(d):] + [d])
                    self.err("E100", f"constants depend on each other in a cycle: {cyc}",
                             by_name[d].span, "one of them must be computed without the others")
                    continue
                state[d] = 1
                chain.append(d)
                work.append((by_name[d], iter(sorted(deps[d]))))
        seen = {id(c) for c in done}
        return done + [c for c in consts if id(c) not in seen]

    def _reads_state(self, node: Any) -> bool:
        """Does an expression (through the functions it calls) read table or game state?"""
        state_names = set(self.table_fields) | {"players", "player_count", "round_number"}
        return any((isinstance(n, A.Name) and n.name in state_names) or isinstance(n, A.Field)
                   for n in self._walk(node, into_fns=True))   # a Field: a player's or state's

    def _top_span(self) -> A.Span:
        return A.Span(self.path, 1, 1, 1, 2)

    def _has_end_game(self) -> bool:
        return self.has_end_game

    def _dup_fields(self, fields: Iterable[A.FieldDecl]) -> None:
        seen: set[str] = set()
        for f in fields:
            if f.name in seen:
                self.err("E120", f"field '{f.name}' is declared twice", f.span)
            seen.add(f.name)

    def _state_fields(self, fields: tuple[A.FieldDecl, ...], into: dict[str, FieldInfo],
                      where: str) -> None:
        for f in fields:
            if f.name in into:
                self.err("E120", f"{where} field '{f.name}' is declared twice", f.span)
                continue
            if where == "table" and not self.claim(f.name, f.span, "table field"):
                continue
            if where == "player" and f.name in self.player_fields:
                continue
            t = self.resolve_type(f.type)
            if where == "table" and f.visibility == "owner" and not is_owner_map(t):
                self.err("E121", f"table field '{f.name}' cannot be 'owner': the table has no owner",
                         f.span, "use 'secret' or 'public', or a 'map<player, T> owner' whose "
                         "entry for each player only that player sees")
            into[f.name] = FieldInfo(f.name, t, f.default, f.visibility, f)

    # ------------------------------------------------------------ bodies
    def _params(self, params: tuple[A.Param, ...], sc: Scope) -> tuple[Type, ...]:
        out = []
        for p in params:
            t = self.resolve_type(p.type)
            if sc.lookup(p.name) is not None:
                self.err("E102", f"parameter '{p.name}' appears twice", p.span)
            self._no_shadow(p.name, p.span)
            sc.declare(p.name, t)
            out.append(t)
        return tuple(out)

    def _no_shadow(self, name: str, span: A.Span) -> None:
        if name in self.table_fields or name in self.const_types or name in self.member_of:
            self.err("E116", f"local name '{name}' hides a declaration of the same name", span,
                     "choose another name")

    def _proc(self, d: A.ProcDecl) -> Body:
        res = self.resolve_type(d.result) if d.result is not None else None
        sc = Scope("proc", result=res)
        sc.owner = d.name
        pts = self._params(d.params, sc)
        sc.param_names = {p.name for p in d.params}
        self.block(d.body, sc)
        return Body(d.name, "proc", tuple(p.name for p in d.params), pts, res, sc.nslots, d,
                    block=d.body, span=d.span)

    def _fn(self, d: A.FnDecl) -> Body:
        res = self.resolve_type(d.result)
        sc = Scope("fn", result=res)
        pts = self._params(d.params, sc)
        self.expect(self.expr(d.body, sc, res), res, d.body.span, f"result of '{d.name}'")
        return Body(d.name, "fn", tuple(p.name for p in d.params), pts, res, sc.nslots, d,
                    expr=d.body, span=d.span)

    def _block_body(self, name: str, kind: str, decl: Any, block: A.Block) -> Body:
        sc = Scope(kind)
        self.block(block, sc)
        return Body(name, kind, (), (), None, sc.nslots, decl, block=block, span=decl.span)

    def _trigger(self, d: A.TriggerDecl) -> Optional[Body]:
        sc = Scope("trigger")
        if d.event not in self.events:
            self.err("E109", f"unknown event '{d.event}'", d.span,
                     did_you_mean(d.event, self.events) or f"declare it: event {d.event}(...)")
            pts: tuple[Type, ...] = tuple(ANY for _ in d.names)
        else:
            pts = self.events[d.event]
            if len(pts) != len(d.names):
                self.err("E118", f"event '{d.event}' has {len(pts)} parameter(s), the trigger names "
                         f"{len(d.names)}", d.span)
                pts = tuple(list(pts) + [ANY] * len(d.names))[: len(d.names)]
        for n, t in zip(d.names, pts):
            self._no_shadow(n, d.span)
            sc.declare(n, t)
        if d.cond is not None:
            self.expect(self.expr(d.cond, sc, BOOL), BOOL, d.cond.span, "trigger condition")
            sc.guards.append(d.cond)
        self.cur_writes = set()
        self.block(d.body, sc)
        self.trigger_writes.append((d, self.cur_writes))
        self.cur_writes = None
        return Body(d.label or d.event, "trigger", d.names, pts, None, sc.nslots, d, block=d.body,
                    cond=d.cond, event=d.event, span=d.span)

    def _stat(self, d: A.StatDecl) -> Body:
        """stat NAME counts EVENT(names) when COND: a per-game count of an event."""
        sc = Scope("expr")
        pts: tuple[Type, ...] = self.events.get(d.event, ())
        if d.event not in self.events:
            self.err("E109", f"unknown event '{d.event}'", d.span,
                     did_you_mean(d.event, self.events) or f"declare it: event {d.event}(...)")
        elif len(d.names) > len(pts):
            self.err("E118", f"event '{d.event}' has {len(pts)} parameter(s), the statistic names "
                     f"{len(d.names)}", d.span)
        self.emitted_watch.add(d.event)
        for n, t in zip(d.names, list(pts) + [ANY] * len(d.names)):
            sc.declare(n, t)
        if d.cond is not None:
            self.expect(self.expr(d.cond, sc, BOOL), BOOL, d.cond.span, "statistic condition")
        return Body(d.name, "stat", d.names, pts[:len(d.names)], INT, max(sc.nslots, len(pts)), d,
                    cond=d.cond, event=d.event, span=d.span)

    def _action(self, d: A.ActionDecl) -> Optional[Body]:
        sc = Scope("action")
        pts = self._params(d.params, sc)
        if not pts or pts[0] != PLAYER:
            self.err("E112", f"action '{d.name}' must take the acting player as its first parameter",
                     d.span, f"write: anytime {d.name}(p: player, ...)")
        for p, t in zip(d.params[1:], pts[1:]):
            if not is_enumerable(t):
                self.err("E112", f"action parameter '{p.name}' has type {t}, which cannot be listed "
                         "as options", p.span, "use an enum, bool or player parameter")
        if d.cond is not None:
            self.expect(self.expr(d.cond, sc, BOOL), BOOL, d.cond.span, "action condition")
            sc.guards.append(d.cond)
        self.block(d.body, sc)
        return Body(d.name, "action", tuple(p.name for p in d.params), pts, None, sc.nslots, d,
                    block=d.body, cond=d.cond, span=d.span)

    # ------------------------------------------------------------ statements
    def block(self, b: A.Block, sc: Scope) -> None:
        sc.push()
        for s in b.stmts:
            self.stmt(s, sc)
        sc.pop()

    def stmt(self, s: Any, sc: Scope) -> None:
        self.at = s.span
        m: Callable[[Any, Scope], None] = getattr(self, "s_" + type(s).__name__)
        m(s, sc)

    def s_Let(self, s: A.Let, sc: Scope) -> None:
        if isinstance(s.rhs, A.Choose) or (isinstance(s.rhs, A.Call) and s.rhs.name == "min"):
            sc.capped.add(s.name)
        if s.type is not None:
            want = self.resolve_type(s.type)
            self.expect(self.rhs(s.rhs, sc, want), want, s.span, f"value of '{s.name}'")
            self._no_shadow(s.name, s.span)
            self.refs[id(s)] = sc.declare(s.name, want)
            return
        t = self.rhs(s.rhs, sc, None)
        if t.kind == "none":
            self.err("E104", f"cannot tell the type of '{s.name}' from 'none'", s.span,
                     "initialise it with a value of its type")
        self._no_shadow(s.name, s.span)
        self.refs[id(s)] = sc.declare(s.name, t)

    def _field_names(self, node: Any) -> set[str]:
        """Field and plain names an expression mentions."""
        return {n.name for n in self._walk(node) if isinstance(n, (A.Field, A.Name))}

    def _check_payment(self, s: A.Assign, sc: Scope) -> None:
        """W291: `X.f -= amount` on a field an invariant bounds, with nothing that stops it
        from taking more than there is (no guard mentioning f, no min(...))."""
        if s.op != "-=" or not s.target.steps or not isinstance(s.target.steps[-1], A.LvField):
            return
        field = s.target.steps[-1].name
        if field not in self.bounded:
            return
        if isinstance(s.rhs, A.IntLit) and s.rhs.value <= 1:
            return        # counting down one piece (an accomplice, a merchant): bookkeeping
        if isinstance(s.rhs, A.Call) and s.rhs.name == "min":
            return
        if isinstance(s.rhs, A.Name) and (s.rhs.name in sc.param_names or
                                          s.rhs.name in sc.capped):
            return        # a payment helper (its callers decide), or an amount chosen / capped
        if any(field in self._field_names(g) for g in sc.guards):
            return
        self.warn("W291", f"this payment may take more '{field}' than there is", s.span,
                  f"an invariant bounds '{field}': guard it with an 'if', cap it with min(...), "
                  "or let the payer raise the money first")

    def s_Assign(self, s: A.Assign, sc: Scope) -> None:
        self._check_payment(s, sc)
        lt = self.lvalue(s.target, sc)
        if s.op == "=":
            rt = self.rhs(s.rhs, sc, lt)
            self.expect(rt, lt, s.span, f"assignment to '{_lv_text(s.target)}'")
        else:
            if strip_opt(lt).kind not in ("int", "any"):
                self.err("E117", f"'{s.op}' needs an int place, '{_lv_text(s.target)}' is {lt}",
                         s.target.span)
            rt = self.rhs(s.rhs, sc, INT)
            self.expect(rt, INT, s.span, f"'{s.op}'")

    def s_If(self, s: A.If, sc: Scope) -> None:
        self.expect(self.expr(s.cond, sc, BOOL), BOOL, s.cond.span, "condition")
        conds = [s.cond] + [e.cond for e in s.elifs]
        sc.guards.extend(conds)          # every arm (and else) is decided by these conditions
        self.block(s.then, sc)
        for e in s.elifs:
            self.expect(self.expr(e.cond, sc, BOOL), BOOL, e.cond.span, "condition")
            self.block(e.body, sc)
        if s.else_ is not None:
            self.block(s.else_, sc)
        del sc.guards[-len(conds):]

    def s_For(self, s: A.For, sc: Scope) -> None:
        it = self.expr(s.iter, sc, None)
        if not is_collection(strip_opt(it)) and it.kind != "any":
            self.err("E104", f"'for' needs a list, bag or map to go through, got {it}", s.iter.span)
        sc.push()
        self._no_shadow(s.var, s.span)
        self.refs[id(s)] = sc.declare(s.var, iter_elem(it))
        if s.where is not None:
            self.expect(self.expr(s.where, sc, BOOL), BOOL, s.where.span, "'where' filter")
        sc.guards.append(s.where if s.where is not None else A.BoolLit(True))
        sc.loops += 1
        self.block(s.body, sc)
        sc.loops -= 1
        sc.guards.pop()
        sc.pop()

    def s_Repeat(self, s: A.Repeat, sc: Scope) -> None:
        self.expect(self.expr(s.count, sc, INT), INT, s.count.span, "repeat count")
        sc.loops += 1
        self.block(s.body, sc)
        sc.loops -= 1

    def s_While(self, s: A.While, sc: Scope) -> None:
        if s.max is None:
            self.warn("W260", "a 'while' loop with no limit", s.span,
                      "add 'limit N' (the most passes the rules allow); the step budget stops "
                      "a runaway loop only at run time")
        sc.guards.append(s.cond)
        self.expect(self.expr(s.cond, sc, BOOL), BOOL, s.cond.span, "condition")
        sc.loops += 1
        self.block(s.body, sc)
        sc.loops -= 1
        sc.guards.pop()

    def _container(self, lv: A.LValue, sc: Scope, what: str) -> Type:
        t = strip_opt(self.lvalue(lv, sc))
        if t.kind not in ("list", "bag", "any"):
            self.err("E104", f"{what} needs a list or bag, '{_lv_text(lv)}' is {t}", lv.span)
            return ANY
        return t.elem if t.kind != "any" else ANY

    def _mark_read(self, lv: A.LValue) -> None:
        """A place used as a source (move/remove/draw from) is read, not only changed."""
        if lv.call is None and lv.root in self.table_fields:
            self.reads.add(("table", lv.root))
        for st in lv.steps:
            if isinstance(st, A.LvField) and self.types.get(id(st)) == PLAYER:
                self.reads.add(("player", st.name))

    def s_Move(self, s: A.Move, sc: Scope) -> None:
        a = self._container(s.source, sc, "'move ... from'")
        self._mark_read(s.source)
        b = self._container(s.dest, sc, "'move ... to'")
        it = self.expr(s.item, sc, a)
        self.expect(it, a, s.item.span, "item moved")
        if not assignable(a, b):
            self.err("E104", f"cannot move items of {a} into a collection of {b}", s.span)

    def s_Add(self, s: A.Add, sc: Scope) -> None:
        e = self._container(s.dest, sc, "'add ... to'")
        self.expect(self.expr(s.item, sc, e), e, s.item.span, "item added")

    def s_Remove(self, s: A.Remove, sc: Scope) -> None:
        mt = strip_opt(self.lvalue(s.source, sc))
        self._mark_read(s.source)
        if mt.kind == "map":         # remove KEY from MAP deletes the entry
            self.expect(self.expr(s.item, sc, mt.elem), mt.elem, s.item.span, "key removed")
            return
        e = self._container(s.source, sc, "'remove ... from'")
        self.expect(self.expr(s.item, sc, e), e, s.item.span, "item removed")

    def s_Shuffle(self, s: A.Shuffle, sc: Scope) -> None:
        t = strip_opt(self.lvalue(s.target, sc))
        if t.kind not in ("list", "any"):
            self.err("E104", f"'shuffle' needs a list, '{_lv_text(s.target)}' is {t}", s.target.span)

    def s_Emit(self, s: A.Emit, sc: Scope) -> None:
        self.emitted.add(s.event)
        if s.event not in self.events:
            self.err("E109", f"unknown event '{s.event}'", s.span,
                     did_you_mean(s.event, self.events) or f"declare it: event {s.event}(...)")
            for a in s.args:
                self.expr(a, sc, None)
            return
        self._args(s.args, self.events[s.event], sc, s.span, f"event '{s.event}'")

    def _args(self, args: tuple[A.Expr, ...], want: tuple[Type, ...], sc: Scope, span: A.Span,
              what: str) -> None:
        if len(args) != len(want):
            self.err("E105", f"{what} takes {len(want)} argument(s), got {len(args)}", span)
        for a, w in zip(args, want):
            self.expect(self.expr(a, sc, w), w, a.span, f"argument of {what}")
        for a in args[len(want):]:
            self.expr(a, sc, None)

    def s_CallStmt(self, s: A.CallStmt, sc: Scope) -> None:
        self.call_proc_or_fn(s.name, s.args, s, sc, statement=True)

    def call_proc_or_fn(self, name: str, args: tuple[A.Expr, ...], node: Any, sc: Scope,
                        statement: bool) -> Type:
        if name in self.proc_decls:
            self.called.add(name)
            self.calls.setdefault(sc.owner, set()).add(name)
            if sc.kind in ("fn", "expr", "const"):
                self.err("E108", f"procedure '{name}' cannot be called from a pure expression",
                         node.span, "procedures may suspend the game; call them from a block")
            d = self.proc_decls[name]
            want = tuple(self.resolve_type(p.type) for p in d.params)
            self._args(args, want, sc, node.span, f"procedure '{name}'")
            self.refs[id(node)] = ("proc", name)
            return self.resolve_type(d.result) if d.result is not None else NONE
        if name in self.fn_decls:
            d2 = self.fn_decls[name]
            if not sc.state and self._reads_state(d2.body):
                self.err("E119", f"function '{name}' reads game state; a constant or default "
                         "cannot call it", node.span, "compute the value in setup instead")
            want = tuple(self.resolve_type(p.type) for p in d2.params)
            self._args(args, want, sc, node.span, f"function '{name}'")
            self.refs[id(node)] = ("fn", name)
            return self.resolve_type(d2.result)
        if name in BUILTINS:
            ts = [self.expr(a, sc, None) for a in args]
            self.refs[id(node)] = ("builtin", name)
            return self._builtin(name, ts, node)
        known = list(self.proc_decls) + list(self.fn_decls) + list(BUILTINS)
        self.err("E106", f"unknown procedure or function '{name}'", node.span,
                 did_you_mean(name, known))
        for a in args:
            self.expr(a, sc, None)
        return ANY

    def _builtin(self, name: str, ts: list[Type], node: Any) -> Type:
        res = builtin_type(name, ts)
        if isinstance(res, str):
            self.err("E104", f"{name}(): {res}", node.span)
            return ANY
        return res

    def s_Return(self, s: A.Return, sc: Scope) -> None:
        if sc.kind not in ("proc",):
            if sc.kind in ("phase", "setup", "trigger", "action") and s.value is None:
                return
            self.err("E110", "'return' with a value outside a procedure", s.span)
            return
        if s.value is None:
            if sc.result is not None:
                self.err("E110", f"this procedure must return a value of type {sc.result}", s.span)
            return
        t = self.expr(s.value, sc, sc.result)
        if sc.result is None:
            self.err("E110", "this procedure declares no result", s.span,
                     "add '-> TYPE' after its parameters")
        else:
            self.expect(t, sc.result, s.value.span, "returned value")

    def s_Break(self, s: A.Break, sc: Scope) -> None:
        if sc.loops == 0:
            self.err("E111", "'break' outside a loop", s.span)

    def s_EndGame(self, s: A.EndGame, sc: Scope) -> None:
        self.has_end_game = True

    def s_Log(self, s: A.Log, sc: Scope) -> None:
        if s.audience is not None and not isinstance(s.audience, str):
            who = self.expr(s.audience, sc, PLAYER)
            self.expect(who, PLAYER, s.audience.span, "'log to'")
        for p in s.parts:
            self.expr(p, sc, None)

    # ------------------------------------------------------------ right-hand sides
    def rhs(self, r: Any, sc: Scope, want: Optional[Type]) -> Type:
        t = self._rhs(r, sc, want)
        self.types[id(r)] = t
        return t

    def _rhs(self, r: Any, sc: Scope, want: Optional[Type]) -> Type:
        if isinstance(r, A.Choose):
            return self.choose(r, sc)
        if isinstance(r, A.Simultaneous):
            pt = self.expr(r.players, sc, list_of(PLAYER))
            self.expect(pt, list_of(PLAYER), r.players.span, "players of 'simultaneous'")
            sc.push()
            self.refs[id(r)] = sc.declare(r.var, PLAYER)
            if isinstance(r.choose.kind, A.ChoiceRecord):
                self.err("E122", "a compound (record) choice cannot be simultaneous", r.span,
                         "let each player choose the fields one by one, or choose one value")
            t = self.choose(r.choose, sc)
            sc.pop()
            return map_of(PLAYER, t)
        if isinstance(r, A.Roll):
            self._suspend_ok(r, sc)
            self.expect(self.expr(r.sides, sc, INT), INT, r.sides.span, "number of sides")
            sides = literal_int(r.sides)
            if sides is not None and sides > MAX_DIE_SIDES:
                self.err("E143", f"a die of {sides:,} sides: more than the {MAX_DIE_SIDES:,} a "
                         "die may have", r.sides.span, "roll a smaller die, or several")
            return INT
        if isinstance(r, A.RandomPick):
            self._suspend_ok(r, sc)
            t = self.expr(r.options, sc, None)
            if not is_collection(strip_opt(t)) and t.kind != "any":
                self.err("E104", f"'random one of' needs a collection, got {t}", r.options.span)
            return iter_elem(t)
        if isinstance(r, A.Draw):
            self._suspend_ok(r, sc)
            t = self._container(r.source, sc, "'draw from'")
            self._mark_read(r.source)
            return t
        if isinstance(r, A.Call) and (r.name in self.proc_decls):
            self._suspend_ok(r, sc)
            t = self.call_proc_or_fn(r.name, r.args, r, sc, statement=False)
            if t == NONE:
                self.err("E110", f"procedure '{r.name}' returns no value", r.span,
                         "call it as a statement")
            self.types[id(r)] = t
            return t
        return self.expr(r, sc, want)

    def _suspend_ok(self, r: Any, sc: Scope) -> None:
        if sc.kind in ("fn", "expr", "const"):
            self.err("E108", "decisions and chance cannot appear in a pure expression", r.span)

    def choose(self, c: A.Choose, sc: Scope) -> Type:
        self._suspend_ok(c, sc)
        for a in c.prompt_args:
            self.expr(a, sc, None)
        who = self.expr(c.who, sc, PLAYER)
        self.expect(who, PLAYER, c.who.span, "who chooses")
        if isinstance(c.kind, A.ChoiceRecord):
            res = self.choose_record(c.kind, sc)
            return opt(res) if c.allow_pass else res
        return self.choice_type(c.kind, c.allow_pass, sc)

    def choose_record(self, k: A.ChoiceRecord, sc: Scope) -> Type:
        """A compound decision: each listed field of the record chosen in turn."""
        rt = self.records.get(k.record)
        if rt is None:
            self.err("E101", f"unknown record type '{k.record}'", k.span,
                     did_you_mean(k.record, self.records) or "declare it: record NAME { ... }")
        seen: set[str] = set()
        sc.push()   # earlier fields are visible to later ones by name
        for f in k.fields:
            if isinstance(f.kind, A.ChoiceRecord):
                self.err("E122", "a record field cannot itself be a compound choice", f.span,
                         "choose the inner record in its own statement first")
                continue
            t = self.choice_type(f.kind, f.allow_pass, sc)
            ft = rt.field(f.name) if rt is not None else ANY
            if rt is not None and ft is None:
                self.err("E103", f"unknown field '{f.name}' of {rt.name}", f.span,
                         did_you_mean(f.name, rt.members))
                ft = ANY
            elif f.name in seen:
                self.err("E120", f"field '{f.name}' is chosen twice", f.span)
            else:
                self.expect(t, ft or ANY, f.span, f"field '{f.name}'")
            seen.add(f.name)
            self._no_shadow(f.name, f.span)
            self.refs[id(f)] = sc.declare(f.name, t)
        sc.pop()
        return rt if rt is not None else ANY

    def choice_type(self, kind: Any, allow_pass: bool, sc: Scope) -> Type:
        """The type chosen by 'one of' / 'subset of' (optional with pass)."""
        c = kind
        t = self.expr(c.options, sc, None)
        if not is_collection(strip_opt(t)) and t.kind != "any":
            self.err("E104", f"'choose' needs a collection of options, got {t}", c.options.span,
                     "write e.g. 'one of 1..6' or 'one of Good'")
        el = iter_elem(t)
        if isinstance(c, A.ChoiceSubset):
            self.expect(self.expr(c.lo, sc, INT), INT, c.lo.span, "subset size")
            self.expect(self.expr(c.hi, sc, INT), INT, c.hi.span, "subset size")
            n, lo, hi = literal_range_size(c.options), literal_int(c.lo), literal_int(c.hi)
            if n is not None and lo is not None and hi is not None and \
                    n <= MAX_COLLECTION and subset_count(n, lo, hi) > MAX_OPTIONS:
                self.err("E143", f"this decision offers more than {MAX_OPTIONS:,} subsets", c.span,
                         "choose fewer items, or one after another")
            res = list_of(el)
        else:
            res = el
        if allow_pass:
            self._no_pass_option(c.options)
        return opt(res) if allow_pass else res

    def _no_pass_option(self, options: A.Expr) -> None:
        """E142 for an option written as the string "pass" in a decision 'with pass' (its label
        would be the pass option's): in a list literal, or in the list literal of a constant."""
        e: Any = options
        if isinstance(e, A.Name) and e.name in self.const_decls:
            e = self.const_decls[e.name].value
        if not isinstance(e, A.ListLit):
            return
        for item in e.items:
            if isinstance(item, A.StrLit) and item.value == "pass":
                where = item.span if item.span.line >= 1 else options.span
                self.err("E142", 'an option is the string "pass", and this decision also has '
                         "the pass option 'with pass': both would be labelled 'pass'", where,
                         "rename the option, or drop 'with pass'")

    # ------------------------------------------------------------ lvalues
    def lvalue(self, lv: A.LValue, sc: Scope) -> Type:
        t = self._lvalue(lv, sc)
        self.types[id(lv)] = t
        return t

    def _lvalue(self, lv: A.LValue, sc: Scope) -> Type:
        loc = sc.lookup(lv.root)
        if lv.call is None and loc is None and lv.root in ("players", "player_count",
                                                          "round_number"):
            self.err("E107", f"'{lv.root}' is kept by the game itself and cannot be changed",
                     lv.span)
            return ANY
        if lv.call is not None:
            t = self.expr(lv.call, sc, None)
            self.refs[id(lv)] = ("call",)
        elif loc is not None:
            self.refs[id(lv)] = ("local", loc[0])
            t = loc[1]
            if sc.kind in ("fn", "expr"):
                self.err("E107", "a pure expression cannot change anything", lv.span)
        elif lv.root in self.table_fields:
            self.writes.add(("table", lv.root))
            if self.cur_writes is not None:
                self.cur_writes.add(("table", lv.root))
            if lv.steps:
                self.reads.add(("table", lv.root))
            if not sc.state:
                self.err("E107", f"table field '{lv.root}' cannot be changed here", lv.span)
            self.refs[id(lv)] = ("table", list(self.table_fields).index(lv.root))
            t = self.table_fields[lv.root].type
        elif lv.root in self.const_types or lv.root in self.member_of or lv.root in self.enums:
            self.err("E107", f"'{lv.root}' is a constant and cannot be changed", lv.span,
                     "declare it in 'table { ... }' to make it state")
            return ANY
        else:
            hint = did_you_mean(lv.root, sc.names() + list(self.table_fields))
            if hint is None and lv.root in self.player_fields:
                hint = f"'{lv.root}' is a player field: write p.{lv.root} for a player p"
            self.err("E100", f"unknown name '{lv.root}'", lv.span, hint)
            return ANY
        for step in lv.steps:
            t = strip_opt(t)
            self.types[id(step)] = t
            if isinstance(step, A.LvField):
                if t == PLAYER:
                    self.writes.add(("player", step.name))
                    if self.cur_writes is not None:
                        self.cur_writes.add(("player", step.name))
                    if step is not lv.steps[-1]:
                        self.reads.add(("player", step.name))
                t = self._field_type(t, step.name, step.span)
            else:
                t = self._index_type(t, step.key, sc, step.span)
        return t

    def _field_type(self, t: Type, name: str, span: A.Span) -> Type:
        t = strip_opt(t)
        if t.kind == "any":
            return ANY
        if t == PLAYER:
            if name in self.player_fields:
                return self.player_fields[name].type
            self.err("E103", f"unknown field '{name}' of player", span,
                     did_you_mean(name, self.player_fields))
            return ANY
        if t.kind == "record":
            ft = t.field(name)
            if ft is not None:
                return ft
            self.err("E103", f"unknown field '{name}' of {t.name}", span, did_you_mean(name, t.members))
            return ANY
        self.err("E103", f"a value of type {t} has no fields", span)
        return ANY

    def _index_type(self, t: Type, key: A.Expr, sc: Scope, span: A.Span) -> Type:
        t = strip_opt(t)
        if t.kind == "list":
            self.expect(self.expr(key, sc, INT), INT, key.span, "list index")
            return t.elem
        if t.kind == "map":
            self.expect(self.expr(key, sc, t.elem), t.elem, key.span, "map key")
            return t.value
        if t.kind == "bag":
            self.expect(self.expr(key, sc, t.elem), t.elem, key.span, "bag item")
            return INT
        if t.kind != "any":
            self.err("E104", f"a value of type {t} cannot be indexed", span)
        self.expr(key, sc, None)
        return ANY

    # ------------------------------------------------------------ expressions
    def expr(self, e: Any, sc: Scope, want: Optional[Type]) -> Type:
        self.at = e.span
        m = getattr(self, "e_" + type(e).__name__, None)
        if m is None:
            self.err("E108", "a decision, chance or procedure call cannot be part of an expression",
                     e.span, "give it its own 'let' first")
            return ANY
        t: Type = m(e, sc, want)
        self.types[id(e)] = t
        return t

    def e_IntLit(self, e: A.IntLit, sc: Scope, want: Optional[Type]) -> Type:
        return INT

    def e_StrLit(self, e: A.StrLit, sc: Scope, want: Optional[Type]) -> Type:
        return STR

    def e_BoolLit(self, e: A.BoolLit, sc: Scope, want: Optional[Type]) -> Type:
        return BOOL

    def e_NoneLit(self, e: A.NoneLit, sc: Scope, want: Optional[Type]) -> Type:
        return NONE

    def e_Name(self, e: A.Name, sc: Scope, want: Optional[Type]) -> Type:
        loc = sc.lookup(e.name)
        if loc is not None:
            self.refs[id(e)] = ("local", loc[0])
            return loc[1]
        if e.name in self.table_fields:
            self.reads.add(("table", e.name))
            if not sc.state:
                self.err("E119", f"table field '{e.name}' is game state; a constant or default cannot "
                         "depend on it", e.span)
            self.refs[id(e)] = ("table", list(self.table_fields).index(e.name))
            return self.table_fields[e.name].type
        if e.name in self.const_types:
            self.refs[id(e)] = ("const", e.name)
            return self.const_types[e.name]
        if e.name in self.member_of:
            t, i = self.member_of[e.name]
            self.refs[id(e)] = ("member", i)
            return t
        if e.name in self.enums:
            self.refs[id(e)] = ("enum", e.name)
            return list_of(self.enums[e.name])
        if e.name in ("players", "player_count", "round_number"):
            if not sc.state:
                self.err("E119", f"'{e.name}' depends on the game being played; a constant or "
                         "default cannot use it", e.span, "compute it in setup instead")
            self.refs[id(e)] = ("builtin", e.name)
            return list_of(PLAYER) if e.name == "players" else INT
        if e.name in self.const_names or e.name in self.globals:
            self.err("E100", f"'{e.name}' has no value here", e.span,
                     "constants that use each other in a cycle have no value")
            return ANY
        known = (sc.names() + list(self.table_fields) + list(self.const_types) + list(self.member_of)
                 + list(self.enums) + ["players", "player_count", "round_number"])
        hint = did_you_mean(e.name, known)
        if hint is None and e.name in self.player_fields:
            hint = f"'{e.name}' is a player field: write p.{e.name} for a player p"
        self.err("E100", f"unknown name '{e.name}'", e.span, hint)
        return ANY

    def e_ListLit(self, e: A.ListLit, sc: Scope, want: Optional[Type]) -> Type:
        w = strip_opt(want) if want is not None else None
        if w is not None and w.kind == "bag":       # a list literal where a bag is expected
            for it in e.items:
                self.expect(self.expr(it, sc, w.elem), w.elem, it.span, "bag item")
            self.refs[id(e)] = ("tobag",)
            return w
        el = w.elem if w is not None and w.kind in ("list", "bag") else None
        t: Optional[Type] = el
        for it in e.items:
            got = self.expr(it, sc, el)
            if t is None or t.kind == "any":
                t = got
            else:
                j = join(t, got)
                if j is None:
                    self.err("E104", f"list items disagree: {t} and {got}", it.span)
                else:
                    t = j
        return list_of(t or ANY)

    def e_ListComp(self, e: A.ListComp, sc: Scope, want: Optional[Type]) -> Type:
        self._gen_head(e, sc)
        w = strip_opt(want) if want is not None else None
        t = self.expr(e.elem, sc, w.elem if w is not None and w.kind in ("list", "bag") else None)
        sc.pop()
        if w is not None and w.kind == "bag":
            self.types[id(e.elem)] = t
            self.refs[("tobag", id(e))] = True
            return bag_of(t)
        return list_of(t)

    def _gen_head(self, e: Any, sc: Scope) -> Type:
        it = self.expr(e.iter, sc, None)
        if not is_collection(strip_opt(it)) and it.kind != "any":
            self.err("E104", f"cannot go through a value of type {it}", e.iter.span)
        sc.push()
        self._no_shadow(e.var, e.span)
        self.refs[id(e)] = sc.declare(e.var, iter_elem(it))
        if e.cond is not None:
            self.expect(self.expr(e.cond, sc, BOOL), BOOL, e.cond.span, "filter")
        return iter_elem(it)

    def e_MapComp(self, e: A.MapComp, sc: Scope, want: Optional[Type]) -> Type:
        self._gen_head(e, sc)
        w = strip_opt(want) if want is not None else None
        kw = w.elem if w is not None and w.kind in ("map", "bag") else None
        vw = w.value if w is not None and w.kind == "map" else (INT if w is not None and
                                                                  w.kind == "bag" else None)
        k = self.expr(e.key, sc, kw)
        v = self.expr(e.value, sc, vw)
        sc.pop()
        if k.kind not in ("enum", "int", "player", "bool", "str", "any"):
            self.err("E104", f"map keys must be an enum, int, bool or player, not {k}", e.key.span)
        if w is not None and w.kind == "bag":
            self.expect(v, INT, e.value.span, "count of a bag item")
            self.refs[("tobag", id(e))] = True
            return bag_of(k)
        return map_of(k, v)

    def e_MapLit(self, e: A.MapLit, sc: Scope, want: Optional[Type]) -> Type:
        w = strip_opt(want) if want is not None else None
        if w is not None and w.kind == "record":
            given = set()
            for en in e.entries:
                if not isinstance(en.key, A.Name) or w.field(en.key.name) is None:
                    self.err("E103", f"{w.name} has no field "
                             f"'{en.key.name if isinstance(en.key, A.Name) else '?'}'", en.key.span,
                             did_you_mean(en.key.name, w.members) if isinstance(en.key, A.Name)
                             else None)
                    self.expr(en.value, sc, None)
                    continue
                given.add(en.key.name)
                ft = w.field(en.key.name) or ANY
                self.expect(self.expr(en.value, sc, ft), ft, en.value.span,
                            f"field '{en.key.name}'")
            decl = self.record_decls.get(w.name)
            if decl is not None:
                for f in decl.fields:
                    if f.name not in given and f.default is None:
                        self.err("E104", f"{w.name} value is missing field '{f.name}'", e.span,
                                 "give it a value or a default in the record declaration")
            self.refs[id(e)] = ("record", w.name)
            return w
        kt: Optional[Type] = None
        vt: Optional[Type] = None
        if w is not None and w.kind == "map":
            kt, vt = w.elem, w.value
        elif w is not None and w.kind == "bag":
            kt, vt = w.elem, INT
        k0: Optional[Type] = kt
        v0: Optional[Type] = vt
        for en in e.entries:
            kg = self.expr(en.key, sc, kt)
            vg = self.expr(en.value, sc, vt)
            if k0 is None or k0.kind == "any":
                k0 = kg
            elif not assignable(kg, k0):
                self.err("E104", f"map keys disagree: {k0} and {kg}", en.key.span)
            if v0 is None or v0.kind == "any":
                v0 = vg
            else:
                j = join(v0, vg)
                if j is None:
                    self.err("E104", f"map values disagree: {v0} and {vg}", en.value.span)
                else:
                    v0 = j
        if w is not None and w.kind == "bag":
            self.refs[id(e)] = ("bag",)
            return w
        self.refs[id(e)] = ("map",)
        return map_of(k0 or ANY, v0 or ANY)

    def e_IfExpr(self, e: A.IfExpr, sc: Scope, want: Optional[Type]) -> Type:
        self.expect(self.expr(e.cond, sc, BOOL), BOOL, e.cond.span, "condition")
        a = self.expr(e.then, sc, want)
        b = self.expr(e.else_, sc, want)
        j = join(a, b)
        if j is None:
            self.err("E104", f"the branches disagree: {a} and {b}", e.span)
            return ANY
        return j

    def _bools(self, e: Any, sc: Scope) -> Type:
        self.expect(self.expr(e.left, sc, BOOL), BOOL, e.left.span, "operand")
        self.expect(self.expr(e.right, sc, BOOL), BOOL, e.right.span, "operand")
        return BOOL

    def e_Or(self, e: A.Or, sc: Scope, want: Optional[Type]) -> Type:
        return self._bools(e, sc)

    def e_And(self, e: A.And, sc: Scope, want: Optional[Type]) -> Type:
        return self._bools(e, sc)

    def e_Not(self, e: A.Not, sc: Scope, want: Optional[Type]) -> Type:
        self.expect(self.expr(e.operand, sc, BOOL), BOOL, e.operand.span, "operand of 'not'")
        return BOOL

    def e_Compare(self, e: A.Compare, sc: Scope, want: Optional[Type]) -> Type:
        a = self.expr(e.left, sc, None)
        b = self.expr(e.right, sc, a if a.kind not in ("none", "any") else None)
        if e.op in ("==", "!="):
            if not (assignable(a, b) or assignable(b, a) or a.kind == "none" or b.kind == "none"):
                self.err("E117", f"cannot compare {a} with {b}", e.span)
        else:
            for t, x in ((a, e.left), (b, e.right)):
                if strip_opt(t).kind not in ("int", "any"):
                    self.err("E117", f"'{e.op}' compares numbers, got {t}", x.span)
        return BOOL

    def e_In(self, e: A.In, sc: Scope, want: Optional[Type]) -> Type:
        c = strip_opt(self.expr(e.coll, sc, None))
        if not is_collection(c) and c.kind != "any":
            self.err("E117", f"'in' needs a list, bag or map on its right, got {c}", e.coll.span)
        it = self.expr(e.item, sc, iter_elem(c))
        if c.kind != "any" and not assignable(it, iter_elem(c)):
            self.err("E117", f"a {it} is never in a collection of {iter_elem(c)}", e.span)
        return BOOL

    def e_Range(self, e: A.Range, sc: Scope, want: Optional[Type]) -> Type:
        self.expect(self.expr(e.lo, sc, INT), INT, e.lo.span, "range start")
        self.expect(self.expr(e.hi, sc, INT), INT, e.hi.span, "range end")
        n = literal_range_size(e)
        if n is not None and n > MAX_COLLECTION:
            self.err("E143", f"this range holds {n:,} items, more than the {MAX_COLLECTION:,} a "
                     "collection may hold", e.span, "a game never needs so many: use a smaller "
                     "range, or count with arithmetic")
        return list_of(INT)

    def e_BinOp(self, e: A.BinOp, sc: Scope, want: Optional[Type]) -> Type:
        a = strip_opt(self.expr(e.left, sc, None))
        b = strip_opt(self.expr(e.right, sc, a if a.kind == "bag" else None))
        if a.kind in ("any",) or b.kind in ("any",):
            return a if b.kind == "any" else b
        if a == INT and b == INT:
            return INT
        if e.op in ("+", "-") and a.kind in ("list", "bag") and b.kind in ("list", "bag"):
            if a.kind == "bag" or b.kind == "bag":
                if assignable(a.elem, b.elem) or assignable(b.elem, a.elem):
                    self.refs[id(e)] = ("bagop",)
                    return bag_of(a.elem)
            elif e.op == "+" and (assignable(a.elem, b.elem) or assignable(b.elem, a.elem)):
                self.refs[id(e)] = ("listop",)
                return list_of(a.elem if a.elem.kind != "any" else b.elem)
        self.err("E117", f"'{e.op}' cannot combine {a} and {b}", e.span,
                 "arithmetic is on ints; '+' joins lists and bags, '-' removes from a bag")
        return ANY

    def e_Neg(self, e: A.Neg, sc: Scope, want: Optional[Type]) -> Type:
        self.expect(self.expr(e.operand, sc, INT), INT, e.operand.span, "operand of '-'")
        return INT

    def e_Field(self, e: A.Field, sc: Scope, want: Optional[Type]) -> Type:
        t = self.expr(e.obj, sc, None)
        if strip_opt(t) == PLAYER:
            self.reads.add(("player", e.name))
        return self._field_type(t, e.name, e.name_span if e.name_span.line else e.span)

    def e_Index(self, e: A.Index, sc: Scope, want: Optional[Type]) -> Type:
        t = self.expr(e.obj, sc, None)
        return self._index_type(t, e.key, sc, e.span)

    def e_Call(self, e: A.Call, sc: Scope, want: Optional[Type]) -> Type:
        if e.name in self.proc_decls:
            self.err("E108", f"procedure '{e.name}' cannot be called inside an expression", e.span,
                     f"give it its own line: let x = {e.name}(...)")
            for a in e.args:
                self.expr(a, sc, None)
            return ANY
        return self.call_proc_or_fn(e.name, e.args, e, sc, statement=False)

    def e_GenCall(self, e: A.GenCall, sc: Scope, want: Optional[Type]) -> Type:
        if e.name not in GEN_BUILTINS:
            self.err("E106", f"'{e.name}' cannot take a generator", e.span,
                     did_you_mean(e.name, GEN_BUILTINS) or
                     f"generators work with {', '.join(sorted(GEN_BUILTINS))}")
        self._gen_head(e, sc)
        t = self.expr(e.elem, sc, None)
        sc.pop()
        return self._builtin(e.name, [list_of(t)], e) if e.name in GEN_BUILTINS else ANY


def _recursive_names(calls: dict[str, set[str]]) -> set[str]:
    """The names that can reach themselves in the call graph: those in a strongly connected
    component of more than one, or calling themselves."""
    return {v for comp in strongly_connected(calls)
            if len(comp) > 1 or comp[0] in calls.get(comp[0], ()) for v in comp}


def _lv_text(lv: A.LValue) -> str:
    out = lv.root
    for s in lv.steps:
        out += f".{s.name}" if isinstance(s, A.LvField) else "[...]"
    return out


def check_items(items: tuple[Any, ...], path: str,
                sources: dict[str, str]) -> tuple[Optional[CheckedRulebook], list[Diagnostic]]:
    """Check parsed declarations; return (checked rulebook or None on error, diagnostics)."""
    c = Checker(items, path, sources)
    with DeepRecursion(), PausedGC():
        try:
            result = c.run()
            if result is not None:
                c.diags += analyse(result)
                result.flow, flow_diags = analyse_flow(result)
                c.diags += flow_diags
        except RecursionError:      # the limits of dsl/limits.py should make this unreachable
            where = c.at if c.at.line >= 1 and c.at.col >= 1 else A.Span(path, 1, 1, 1, 2)
            return None, [error("E140", "this rulebook nests too deeply to be checked (here, or "
                                "in what this calls)", where, "split deep expressions with 'let' "
                                "and deep blocks into procedures")]
    allowed = apply_allows(c.diags, sources, path if result is not None else None)
    diags = sorted(allowed, key=lambda d: (d.span.path, d.span.line, d.span.col))
    return result, diags

