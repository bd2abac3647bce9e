"""A compiled rulebook: flat op lists per body, run by a small VM whose position is state data."""
from __future__ import annotations

from typing import Any, Callable, Optional, Union

from dsl import ast as A
from dsl.checked import Body, CheckedRulebook
from dsl.types import Type
from interpreter.actions import Actions
from interpreter.builtins import BuiltinError
from interpreter import limits
from interpreter.codegen import BuildError, CodeGen
from interpreter.exprs import RuleError
from interpreter.fuse import Fused
from interpreter.memo import state_changing_pcs
from interpreter.nodes import Chance, Decision, Option, Terminal
from interpreter.seen import observe_position, record
from interpreter.state import State, StateUnusable
from interpreter.view import position_view
from interpreter.stmts import BodyCompiler
from interpreter.values import deep_copy

Node = Union[Decision, Chance, Terminal]
DEFAULT_STEP_BUDGET = 2_000_000


class MercatorRuntimeError(Exception):
    """A rule failed while running: where (rulebook line) and the decisions that led there."""

    def __init__(self, message: str, span: A.Span, history: list[int], seed: Optional[int] = None):
        self.message = message
        self.span = span
        self.history = list(history)
        self.seed = seed
        super().__init__(f"{span}: runtime error: {message}\n  decision log (option indices): "
                         f"{self.history}")


class IllegalChoice(Exception):
    """apply() was given a choice that is not among the legal options; the state is unchanged."""


class Program:
    """A rulebook compiled once; creates games and runs them."""

    def __init__(self, rb: CheckedRulebook, step_budget: int = DEFAULT_STEP_BUDGET):
        try:
            self._build(rb, step_budget)
        except BuildError as exc:   # located at the rule, with no decisions made yet
            raise MercatorRuntimeError(exc.message, exc.span, []) from None

    def _build(self, rb: CheckedRulebook, step_budget: int) -> None:
        self.rb = rb
        self.name = rb.game.name
        self.min_players = rb.game.min_players
        self.max_players = rb.game.max_players
        self.step_budget = step_budget
        self.coverage: Optional[set[tuple[int, int]]] = None   # (body, pc) of every op run, if set
        self._start: Optional[tuple[list, list]] = None
        self._traced: Optional[list[list]] = None
        self.ex = CodeGen(rb)
        self.ex.define_fns()       # first with constants looked up by name: constants may call fns
        self.ex.define_consts()
        self.consts = self.ex.consts
        self.ex.define_fns()       # again, with the constants' values known
        # body ids: 0 main, then setup, phases, procs, triggers, actions
        self.codes: list[list] = []
        self.spans: list[list[A.Span]] = []
        self.nslots: list[int] = []
        self.body_names: list[str] = []
        bodies: list[Body] = []
        if rb.setup is not None:
            bodies.append(rb.setup)
        bodies.extend(rb.phases)
        bodies.extend(rb.procs.values())
        bodies.extend(rb.triggers)
        bodies.extend(rb.actions)
        self.body_id = {(b.kind, b.name): i + 1 for i, b in enumerate(bodies)}
        self.proc_id = {n: self.body_id[("proc", n)] for n in rb.procs}
        self.triggers_by_event: dict[str, list[tuple[int, Any, int]]] = {}
        for b in rb.triggers:
            self.triggers_by_event.setdefault(b.event or "", [])
        self.stat_names = [b.name for b in rb.stats]
        self.stats_by_event: dict[str, list[tuple[int, Any, int]]] = {}
        for i, b in enumerate(rb.stats):
            cond = self.ex.compile(b.cond) if b.cond is not None else None
            self.stats_by_event.setdefault(b.event or "", []).append((i, cond, b.nslots))
        self.codes.append([])
        self.spans.append([])
        self.nslots.append(4)
        self.body_names.append("game")
        compilers = []
        for b in bodies:
            bc = BodyCompiler(self, b)
            compilers.append(bc)
            ops, spans, n = bc.compile()
            self.codes.append(ops)
            self.spans.append(spans)
            self.nslots.append(n)
            self.body_names.append(f"{b.kind} {b.name}")
        for b in rb.triggers:
            cond = self.ex.compile(b.cond) if b.cond is not None else None
            self.triggers_by_event[b.event or ""].append(
                (self.body_id[("trigger", b.name)], cond, self.nslots[self.body_id[("trigger", b.name)]]))
        self._build_main()
        self.actions = Actions(self)
        # what run() executes: the ops with runs of non-suspending statements fused (codes
        # keeps the ops one by one, for coverage tracing)
        self.fused = Fused(self)
        self.fast: list[list] = [self.codes[0]] + [
            self.fused.fast_ops(bc, ops, state_changing_pcs(bc))
            for bc, ops in zip(compilers, self.codes[1:])]
        self.pf_types = [f.type for f in rb.player_fields]
        self.tf_types = [f.type for f in rb.table_fields]
        self.score_f = self.ex.compile(rb.score.expr) if rb.score is not None else None
        self.score_slots = rb.score.nslots if rb.score is not None else 1
        self.tiebreak_fs = [(self.ex.compile(t.expr), t.nslots) for t in rb.tiebreaks]
        self.eligible_f = (self.ex.compile(rb.eligible.expr), rb.eligible.nslots) \
            if rb.eligible is not None else None
        self.invariants = [(b.name, self.ex.compile(b.expr), b.nslots, b.span) for b in rb.invariants]

    # ------------------------------------------------------------ building
    def _build_main(self) -> None:
        ops: list = []
        spans: list[A.Span] = []
        rnd = self.rb.round
        here = rnd.span if rnd is not None else A.NOSPAN
        if self.rb.setup is not None:
            sid = self.body_id[("setup", "setup")]
            ops.append(_call_op(sid, self.nslots[sid]))
            spans.append(self.rb.setup.span)
        head = len(ops)
        limit = rnd.max_rounds if rnd is not None else None
        if isinstance(limit, str):
            limit = self.consts[limit]

        def new_round(s: State, fr: list) -> None:
            s.round += 1
            fr[1] += 1
        ops.append(new_round)
        spans.append(here)
        for ph in self.rb.phases:
            pid = self.body_id[("phase", ph.name)]
            ops.append(_call_op(pid, self.nslots[pid]))
            spans.append(ph.span)
        end_f = self.ex.compile(self.rb.end.expr) if self.rb.end is not None else None
        end_slots = self.rb.end.nslots if self.rb.end is not None else 0
        finish_at = len(ops) + 1

        def check_end(s: State, fr: list) -> None:
            if end_f is not None and end_f(s, [None] * end_slots):
                s.ended_by = "end"
                fr[1] = finish_at
            elif limit is not None and s.round >= limit:
                s.ended_by = "limit"
                fr[1] = finish_at
            else:
                fr[1] = head
        ops.append(check_end)
        spans.append(self.rb.end.span if self.rb.end is not None else here)
        ops.append(lambda s, fr: self.finish(s))
        spans.append(here)
        self.codes[0] = ops
        self.spans[0] = spans

    def actions_for(self, s: State, who: int) -> list:
        """The any-time actions player `who` may take now: (label, body_id, args). None are
        offered at the decisions made inside an any-time action (no nesting)."""
        return self.actions.allowed(s, who)

    # ------------------------------------------------------------ games
    def zero(self, t: Type) -> Any:
        """The default value of a type when a field gives none."""
        k = t.kind
        if k in ("int",):
            return 0
        if k == "bool":
            return False
        if k in ("list",):
            return []
        if k in ("map", "bag"):
            return {}
        if k == "record":
            decl = self.rb.record_decls[t.name]
            return [self._default(f.default, ft) for f, ft in zip(decl.fields, t.field_types)]
        if k == "enum" or k == "player":
            return 0
        if k == "str":
            return ""
        return None

    def _default(self, e: Optional[A.Expr], t: Type) -> Any:
        if e is None:
            return self.zero(t)
        return deep_copy(self.ex.compile(e)(None, [None] * 64))

    def new_game(self, players: int, seed: int = 0, narrate: bool = False,
                 explicit_chance: bool = False) -> State:
        """A fresh game for `players` seats, run up to the first decision."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"{self.name} is for {self.min_players}–{self.max_players} players, "
                             f"not {players}")
        if self._start is None:            # the fields' starting values, computed once
            self._start = (self._defaults(self.rb.table_fields),
                           self._defaults(self.rb.player_fields))
        table, one = self._start
        s = State(deep_copy(table), [deep_copy(one) for _ in range(players)], seed)
        s.stats = [0] * len(self.stat_names)
        s.narrate = narrate
        s.explicit_chance = explicit_chance
        s.stack = [[0, 0, [None] * 4, -1]]
        if narrate:
            s.seen = [""] * players
        s.pending = self.run(s)
        if narrate:
            observe_position(s, self._view)
        return s

    def _defaults(self, fields: Any) -> list:
        """The starting values of fields, within the step budget; a located error if one fails."""
        out = []
        limits.start(self.step_budget)
        for f in fields:
            try:
                out.append(limits.check_int(self._default(f.default, f.type)))
            except (RuleError, BuiltinError, TypeError, KeyError, IndexError, ValueError,
                    ZeroDivisionError, RecursionError, MemoryError) as exc:
                raise MercatorRuntimeError(f"the starting value of '{f.name}' cannot be "
                                           f"computed ({exc})", f.span, []) from None
        return out

    def _view(self, s: State, seat: int) -> Any:
        return position_view(self, s, seat)

    def resume(self, s: State) -> Node:
        """Recompute what is pending (after loading a state from JSON)."""
        if s.over or not s.stack:
            s.over = True
            s.pending = s.result = self.result(s)
            return s.pending
        s.pending = self.run(s)
        return s.pending

    def pending(self, s: State) -> Node:
        """Who must decide now and among what, or the terminal result."""
        return s.pending

    def apply(self, s: State, choice: Any) -> Node:
        """Apply a choice (index, label or Option); refuse an illegal one leaving s unchanged."""
        if s.failed:
            raise StateUnusable(s.failed)
        node = s.pending
        if isinstance(node, Terminal) or node is None:
            raise IllegalChoice("the game is over; no choice can be applied")
        idx = self.resolve_choice(node, choice)
        value, action = _picked(node, idx)
        if s.narrate:
            self._announce(s, node, idx, action)
        s.history.append(idx)
        try:
            if action is not None:
                bid, args = action
                L = [node.player, *args] + [None] * (self.nslots[bid] - 1 - len(args))
                s.stack.append([bid, 0, L, -1])
            else:
                try:
                    node.commit(s, value)
                except (RuleError, BuiltinError) as exc:
                    raise self._located(s, str(exc)) from None
            s.pending = self.run(s)
            if s.narrate:
                observe_position(s, self._view)
        except MercatorRuntimeError as exc:
            # the rule failed half-way: the state cannot be trusted any more (a fork made before
            # this apply, or a replay of the decision log without the failing choice, can)
            s.history.pop()
            s.failed = (f"an earlier apply failed with a rule error ({exc.span}: {exc.message}); "
                        f"this state is half-changed and cannot be used. Replay its decision log "
                        f"{s.history} or use a fork made before that apply")
            raise
        return s.pending

    def _announce(self, s: State, node: Union[Decision, Chance], idx: int,
                  action: Optional[tuple]) -> None:
        """Put the choice about to be applied into the record, with who may see what."""
        if isinstance(node, Chance):
            vis = getattr(node, "vis", None)
            record(s, ["chance", node.what, node.option(idx).label, vis])
        elif action is not None:
            name, args, vis = self.actions.announce(node.player, *action)
            record(s, ["action", node.player, name, args, vis, idx])
        else:
            record(s, ["choice", node.player, node.parts(), node.option(idx).label, node.vis,
                       idx, node.simultaneous])

    def resolve_choice(self, node: Union[Decision, Chance], choice: Any) -> int:
        """The index of a choice given as an int, a label or an Option; IllegalChoice if none."""
        n = node.count
        if isinstance(choice, bool):
            raise IllegalChoice(f"a choice is an option number or label, not {choice!r}")
        if isinstance(choice, int):
            if 0 <= choice < n:
                return choice
            raise IllegalChoice(f"option {choice} is out of range: there are {n} options (0–{n - 1})")
        if isinstance(choice, Option):
            choice = choice.label
        if isinstance(choice, str):
            hits = [i for i, o in enumerate(node.options) if o.label == choice]
            if len(hits) == 1:
                return hits[0]
            if hits:
                raise IllegalChoice(f"'{choice}' names {len(hits)} options "
                                    f"({', '.join(map(str, hits))}); give the option's index")
            labels = [o.label for o in node.options]
            import difflib
            close = difflib.get_close_matches(choice, labels, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise IllegalChoice(f"'{choice}' is not a legal option{hint}")
        raise IllegalChoice(f"a choice is an option number or label, not {choice!r}")

    # ------------------------------------------------------------ the VM
    def run(self, s: State) -> Node:
        """Execute ops until a decision, a chance node (explicit mode) or the end."""
        codes = self.fast
        stack = s.stack
        budget = self.step_budget
        if self.coverage is not None:
            codes = self._traced_codes()
        # fns' values are remembered only during ops that keep the state (interpreter/memo.py)
        memo: Optional[dict] = {} if self.ex.memo else None
        keep, memo_on = self.fused.keep_state, self.ex.memo_on
        n = 0
        meter = limits.METER       # steps left, shared with the generated code's loops
        limits.start(budget)
        try:
            while True:
                fr = stack[-1]
                op = codes[fr[0]][fr[1]]
                if memo is None:
                    r = op(s, fr)
                elif op in keep:
                    memo_on[0] = memo
                    r = op(s, fr)
                    memo_on[0] = None
                else:
                    memo.clear()
                    r = op(s, fr)
                if r is not None:
                    s.steps += n
                    return r
                n += 1
                if n > meter[0]:
                    raise RuleError(limits.BUDGET_MESSAGE.format(budget))
        except (RuleError, BuiltinError) as exc:
            self.fused.relocate(exc.__traceback__)
            raise self._located(s, str(exc)) from None
        except MercatorRuntimeError:
            raise
        except (TypeError, KeyError, IndexError, ValueError, AttributeError, ZeroDivisionError,
                RecursionError, MemoryError, OverflowError) as exc:
            self.fused.relocate(exc.__traceback__)
            what = "a value was none or of the wrong kind" if isinstance(exc, TypeError) else \
                "a missing item" if isinstance(exc, (KeyError, IndexError)) else \
                "fns calling each other too deeply" if isinstance(exc, RecursionError) else \
                "out of memory" if isinstance(exc, MemoryError) else "a failure"
            raise self._located(s, f"{what} while running this rule ({exc})") from None
        finally:
            memo_on[0] = None
            limits.start(budget)   # what runs outside (scores, invariants) has a budget too

    def _traced_codes(self) -> list[list]:
        """The ops wrapped to record (body, pc) in self.coverage (built once, on demand)."""
        if self._traced is None:
            def wrap(op: Callable, key: tuple[int, int]) -> Callable:
                def traced(s: State, fr: list) -> Any:
                    cov = self.coverage
                    if cov is not None:
                        cov.add(key)
                    return op(s, fr)
                return traced
            self._traced = [[wrap(op, (b, pc)) for pc, op in enumerate(ops)]
                            for b, ops in enumerate(self.codes)]
        return self._traced

    def _located(self, s: State, msg: str) -> MercatorRuntimeError:
        span = A.NOSPAN
        if s.stack:
            fr = s.stack[-1]
            sp = self.spans[fr[0]]
            if 0 <= fr[1] < len(sp):
                span = sp[fr[1]]
        return MercatorRuntimeError(msg, span, s.history)

    def finish(self, s: State) -> Terminal:
        """End the game: score, rank, decide the winners."""
        if not s.ended_by:                 # not by the end condition or the round limit
            s.ended_by = "end game"
        s.stack.clear()
        s.over = True
        s.result = self.result(s)
        return s.result

    def result(self, s: State) -> Terminal:
        """The terminal result of a finished state."""
        n = len(s.players)
        scores = tuple(self.score_f(s, [p] + [None] * (self.score_slots - 1)) if self.score_f
                       else 0 for p in range(n))
        tbs = tuple(tuple(f(s, [p] + [None] * (k - 1)) for f, k in self.tiebreak_fs)
                    for p in range(n))
        keys = [(scores[p],) + tbs[p] for p in range(n)]
        can_win = list(range(n))
        if self.eligible_f is not None:
            f, k = self.eligible_f
            can_win = [p for p in range(n) if f(s, [p] + [None] * (k - 1))]
        best = max((keys[p] for p in can_win), default=None)
        winners = tuple(p for p in can_win if keys[p] == best)
        ranking = tuple(sorted(range(n), key=lambda p: tuple(-x for x in keys[p]) + (p,)))
        return Terminal(scores, tbs, winners, ranking)

    def check_invariants(self, s: State) -> list[str]:
        """The texts of the invariants that do not hold in s."""
        bad = []
        for text, f, nslots, span in self.invariants:
            try:
                ok = f(s, [None] * max(nslots, 1))
            except (RuleError, BuiltinError, TypeError, KeyError, IndexError) as exc:
                bad.append(f"{text} (could not be evaluated: {exc})")
                continue
            if not ok:
                bad.append(text)
        return bad

    # ------------------------------------------------------------ access by name (tests, tools)
    def field_types(self) -> tuple[list[Type], list[Type]]:
        """Static types of the table fields and of the player fields."""
        return self.tf_types, self.pf_types

    def _tindex(self, name: str) -> int:
        for i, f in enumerate(self.rb.table_fields):
            if f.name == name:
                return i
        raise KeyError(f"no table field '{name}'")

    def _pindex(self, name: str) -> int:
        for i, f in enumerate(self.rb.player_fields):
            if f.name == name:
                return i
        raise KeyError(f"no player field '{name}'")

    def member(self, name: str) -> int:
        """The run-time value of an enum member, by name."""
        return self.rb.member_of[name][1]

    def get(self, s: State, name: str, player: Optional[int] = None) -> Any:
        """A table field's value, or a player field's value when `player` is given."""
        if player is None:
            return s.table[self._tindex(name)]
        return s.players[player][self._pindex(name)]

    def set(self, s: State, name: str, value: Any, player: Optional[int] = None) -> None:
        """Overwrite a field (for tests and tools that set up a position)."""
        if player is None:
            s.table[self._tindex(name)] = value
        else:
            s.players[player][self._pindex(name)] = value


def _call_op(bid: int, nslots: int) -> Callable[[State, list], None]:
    def call(s: State, fr: list) -> None:
        fr[1] += 1
        s.stack.append([bid, 0, [None] * nslots, -1])
    return call


def _picked(node: Union[Decision, Chance], i: int) -> tuple[Any, Optional[tuple]]:
    """(value, any-time action) of option i, as node.option(i) without making its label."""
    if isinstance(node, Decision):
        if node.allow_pass:
            if i == 0:
                return None, None
            i -= 1
        if i < len(node.values):
            return node.values[i], None
        _, bid, args = node.actions[i - len(node.values)]
        return None, (bid, args)
    return node.values[i], None
