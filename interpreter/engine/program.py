"""A compiled rulebook at run time: creates games and runs them (the VM whose position is state data).

The compiler (interpreter/compiler/) fills a Program with op lists per body, compiled
expressions and tables; nothing here knows how they were made.
"""
from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Optional, Protocol, Union

from mercator.dsl import ast as A
from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.types import Type
from mercator.interpreter.engine import limits
from mercator.interpreter.engine.builtins import BuiltinError
from mercator.interpreter.engine.chance import weighted_index
from mercator.interpreter.engine.deals import DRAFT
from mercator.interpreter.engine.exprs import RuleError, failure_message, rule_failure
from mercator.interpreter.engine.memory import Memo
from mercator.interpreter.engine.nodes import Chance, Decision, Option, Terminal, no_deal_index
from mercator.interpreter.engine.resample import DEFAULT_TRIES, resample
from mercator.interpreter.engine.seen import Unfolded, observe_position, record
from mercator.interpreter.engine.state import State, StateUnusable
from mercator.interpreter.engine.values import deep_copy
from mercator.interpreter.engine.declared_view import ViewSpec
from mercator.interpreter.engine.view import compile_position_view
from mercator.interpreter.engine.view_bytes import ViewBytes, compile_view_bytes
from mercator.dsl.errors import MercatorError

Node = Union[Decision, Chance, Terminal]
DEFAULT_STEP_BUDGET = 2_000_000
COMPILED_ROLLOUT = True   # playout() runs the compiler's rollout (compiler/rollout.py) if there is one
Op = Callable[[State, list], Any]
# what may be raised while a rule's ops run: a rule's failure becomes a located RuleError; a
# Python error that the rulebook's code did not raise is Mercator's bug (exprs.rule_failure)
RUN_FAILURES = (RuleError, BuiltinError, TypeError, KeyError, IndexError, ValueError,
                AttributeError, ZeroDivisionError, RecursionError, MemoryError, OverflowError)

# the former name of a located RuleError (kept for older callers)
MercatorRuntimeError = RuleError


class PlayerCountError(MercatorError, ValueError):
    """new_game was asked for a number of players the rulebook does not allow."""


class IllegalChoice(MercatorError):
    """apply() was given a choice that is not among the legal options; the state is unchanged."""

class CompiledActions(Protocol):
    """The any-time actions as the compiler made them."""

    def allowed(self, s: State, who: int) -> list:
        """(label, body id, args) of each action `who` may take now."""

    def announce(self, who: int, bid: int, args: list) -> tuple[str, str, Any]:
        """(name, arguments as text, who may see them) of an action being taken."""

    def none_allowed_publicly(self, s: State, who: int) -> bool:
        """Can every seat tell that `who` may take no any-time action now?"""


class FusedOps(Protocol):
    """What the run loop needs from the fused ops."""

    keep_state: set

    def relocate(self, tb: Any, s: Optional[State] = None) -> None:
        """Point a traceback from generated code at the rulebook line (s: the state whose top
        frame ran the op, for code compiled by Cython)."""


class CompiledRollout(Protocol):
    """Every body compiled into one function that picks its choices itself (compiler/rollout.py)."""

    def play(self, s: State, rng: Any, limit: int, seat_rngs: Optional[list] = None,
             anytime: bool = True, deals: bool = True) -> int:
        """Play on at random until the end or `limit` decisions (-1: no limit); how many."""

    def start(self, s: State) -> None:
        """Run a new game up to its first decision, as run does."""

    def relocate(self, tb: Any, s: Optional[State] = None) -> None:
        """Point the frames an error passed through at the failing statement (s: the state,
        whose top frame code compiled by Cython ran)."""


class Program:
    """A rulebook compiled once (by interpreter.compiler.compile_program); creates games and
    runs them."""

    def __init__(self, rb: CheckedRulebook, step_budget: int = DEFAULT_STEP_BUDGET):
        self.rb = rb
        self.name = rb.game.name
        self.min_players = rb.game.min_players
        self.max_players = rb.game.max_players
        self.step_budget = step_budget
        self.coverage: Optional[set[tuple[int, int]]] = None   # (body, pc) of every op run, if set
        self._start: Optional[tuple[list, list]] = None
        self._traced: Optional[list[list]] = None
        # filled by the compiler
        self.consts: dict[str, Any] = {}
        self.codes: list[list[Op]] = []            # ops one by one, per body (coverage tracing)
        self.fast: list[list[Op]] = []             # what run() executes: runs of ops fused
        self.spans: list[list[A.Span]] = []
        self.nslots: list[int] = []
        self.body_names: list[str] = []
        self.body_id: dict[tuple[str, str], int] = {}
        self.proc_id: dict[str, int] = {}
        self.triggers_by_event: dict[str, list[tuple[int, Any, int]]] = {}
        self.stat_names: list[str] = []
        self.stat_events: list[str] = []      # the event each stat counts
        self.event_names: frozenset[str] = frozenset()
        # event -> (stat index, its condition, slots, its amount: None counts 1)
        self.stats_by_event: dict[str, list[tuple[int, Any, int, Any]]] = {}
        self.pf_types: list[Type] = []
        self.tf_types: list[Type] = []
        self.score_f: Optional[Callable] = None
        self.score_slots = 1
        self.tiebreak_fs: list[tuple[Callable, int]] = []
        # the winning direction of the score, then of each tiebreak: 1 highest wins, -1 lowest
        self.key_signs: tuple[int, ...] = (1,)
        self.eligible_f: Optional[tuple[Callable, int]] = None
        self.estimate_f: Optional[tuple[Callable, int]] = None   # `estimate p: ...`, if declared
        # `prefer v: T ...`: by each decision's (path, line, col), the compiled preference, its
        # local slots, whether the chooser is local 1, and where it is declared
        self.prefer_fs: dict[tuple[str, int, int], tuple[Callable, int, bool, A.Span]] = {}
        # `bots { ... }`: the search settings a searching seat takes where its spec names none
        # (agents/spec.py, for_rulebook), as the spec holds them
        self.bot_settings: dict[str, Any] = {}
        self.invariants: list[tuple[str, Callable, int, A.Span]] = []
        self.view: Optional[ViewSpec] = None       # the declared view (engine/declared_view.py)
        self._pview: Optional[Callable[[State, int], Any]] = None  # position_view, compiled
        self._pviews: Optional[ViewBytes] = None  # its bytes for many seats (view_bytes.py)
        # functions written for this program elsewhere (engine/seat_tensors.py), by a key of
        # their writer's: written once a process, not once an environment
        self.written: dict[tuple, Callable] = {}
        # set while a compiled rollout that makes no deals runs: a deal window's op may then
        # answer a turn the seat passes at by a nodes.QuickPass instead of a Decision
        self.quick_pass = [False]
        # each deal's bundle, by the bundle's name: its parts as offers show them (views)
        self.bundle_parts: dict[str, list] = {}
        self.start_values: Callable[[], tuple[list, list]] = lambda: ([], [])
        self.actions: CompiledActions
        self.fused: FusedOps
        self.ex: Any = None     # the compiler's code generator; run() reads its memo tables
        self.memo: Optional[Memo] = None   # run()'s memory of fns' values (one table per fn)
        self._pref_memo: Optional[Memo] = None   # _remembering's (preferences, estimates)
        # makes the compiled rollout playout() runs (built on the first playout)
        self.make_rollout: Optional[Callable[[], "CompiledRollout"]] = None
        self._rollout: Optional["CompiledRollout"] = None

    def actions_for(self, s: State, who: int) -> list:
        """The any-time actions player `who` may take now: (label, body_id, args). None are
        offered at the decisions made inside an any-time action (no nesting)."""
        return self.actions.allowed(s, who)

    # ------------------------------------------------------------ games
    def new_game(self, players: int, seed: int = 0, narrate: bool = False,
                 explicit_chance: bool = False, watch: Optional[int] = None) -> State:
        """A fresh game for `players` seats, run up to the first decision. With narration,
        `watch` (a seat) keeps that seat's record only (engine/resample.py)."""
        if not self.min_players <= players <= self.max_players:
            raise PlayerCountError(f"{self.name} is for {self.min_players}–{self.max_players} "
                                   f"players, not {players}")
        if self._start is None:            # the fields' starting values, computed once
            self._start = self.start_values()
        table, one = self._start
        s = State(deep_copy(table), [deep_copy(one) for _ in range(players)], seed)
        s.stats = [0] * len(self.stat_names)
        s.narrate = narrate
        s.explicit_chance = explicit_chance
        s.stack = [[0, 0, [None] * 4, -1]]
        if narrate:
            s.seen = [""] * players
            if watch is not None:
                s.watch = watch
                s.seen = [None] * players
                s.seen[watch] = ""
            else:
                s.unfolded = Unfolded(0)
        if self._rollout is not None and COMPILED_ROLLOUT and not narrate and \
                not explicit_chance and self.coverage is None:
            self._start_by_rollout(s)      # the same state, by the compiled bodies
        else:
            s.pending = self.run(s)
        if narrate:
            if s.unfolded is not None:
                # the game's first position, kept to replay the decision log on when the
                # digests are first read (seen.Unfolded); observed by that replay
                s.unfolded.base = s.clone()
                s.unfolded.prog = self
            else:
                observe_position(s, self._pviews or self._position_views())
        return s

    def _start_by_rollout(self, s: State) -> None:
        """new_game's run to the first decision by the compiled rollout, once one is built
        (it does not count s.steps); a rule error located as run locates it."""
        ro = self._rollout
        assert ro is not None
        try:
            ro.start(s)
        except RUN_FAILURES as exc:
            if not (isinstance(exc, RuleError) and exc.located):
                ro.relocate(exc.__traceback__, s)
            raise self._failure(s, exc) from None
        finally:
            self.ex.memo_on[0] = None
            limits.start(self.step_budget)

    def resample(self, s: State, seat: int, rng: Any, tries: int = DEFAULT_TRIES) -> State:
        """A full state with the same information state and legal options for `seat`, what
        it has not seen drawn anew (engine/resample.py); needs a game started with
        narrate=True and explicit_chance=True. ResampleFailed if none is found."""
        return resample(self, s, seat, rng, tries)

    def position_view(self, s: State, seat: int) -> Any:
        """What `seat` sees of the position, as compact data (engine/view.position_view): what
        its information state is made of."""
        return (self._pview or self._position_view())(s, seat)

    def _position_view(self) -> Callable[[State, int], Any]:
        """position_view for this rulebook, as one function written for its fields (built on
        first use; engine/view.compile_position_view gives the same data)."""
        self._pview = compile_position_view(self)
        return self._pview

    def _position_views(self) -> ViewBytes:
        """The marshalled position_view of many seats at once (engine/view_bytes.py: what every
        seat sees alike marshalled once), for the digests of a narrated step (built on first
        use)."""
        self._pviews = compile_view_bytes(self)
        return self._pviews

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
        if node.__class__ is Decision and choice.__class__ is int and 0 <= choice < node.count:
            idx = choice           # (most often: _picked and resolve_choice written out)
            i = idx - 1 if node.allow_pass else idx
            if i < 0:
                value, action = None, None
            elif i < len(node.values):
                value, action = node.values[i], None
            else:
                _, bid, args = node.actions[i - len(node.values)]
                value, action = None, (bid, args)
        else:
            if isinstance(node, Terminal) or node is None:
                raise IllegalChoice("the game is over; no choice can be applied")
            idx = self.resolve_choice(node, choice)
            value, action = _picked(node, idx)
        if s.narrate:
            self._announce(s, node, idx, value, action)
        s.history.append(idx)
        try:
            if action is not None:
                bid, args = action
                L = [node.player, *args] + [None] * (self.nslots[bid] - 1 - len(args))
                s.stack.append([bid, 0, L, -1])
            else:
                try:
                    node.commit(s, value)
                except RuleError as exc:
                    raise exc if exc.located else self._located(s, exc.message) from None
            s.pending = self.run(s)
            if s.narrate:
                observe_position(s, self._pviews or self._position_views())
        except RuleError as exc:
            # the rule failed half-way: the state cannot be trusted any more (a fork made before
            # this apply, or a replay of the decision log without the failing choice, can)
            s.history.pop()
            self._unusable(s, exc)
            raise
        except Exception as exc:       # Mercator's own bug: raised as itself, the state spoilt
            s.history.pop()
            s.failed = (f"an earlier apply failed with an internal error ({type(exc).__name__}: "
                        f"{exc}); this state cannot be used. Replay its decision log "
                        f"{s.history} or use a fork made before that apply")
            raise
        return s.pending

    def _announce(self, s: State, node: Union[Decision, Chance], idx: int, value: Any,
                  action: Optional[tuple]) -> None:
        """Put the choice about to be applied into the record, with who may see what (`value`,
        `action`: option idx's, as _picked gives them; its label made as node.option(idx)
        makes it, without the Option)."""
        if node.__class__ is Chance:
            assert isinstance(node, Chance)
            record(s, ["chance", node.what, node.labeller(node.values[idx]), node.vis])
        elif action is not None:
            name, args, vis = self.actions.announce(node.player, *action)
            record(s, ["action", node.player, name, args, vis, idx])
        else:
            assert isinstance(node, Decision)
            label = "pass" if node.allow_pass and idx == 0 else node.labeller(value)
            if node.private is not None and node.private(value):
                # a step only the chooser sees (building a deal's offer): the others see nothing
                record(s, ["choice", node.player, node.parts(), label,
                           [node.player], idx, node.simultaneous, 1])
            else:
                record(s, ["choice", node.player, node.parts(), label, node.vis,
                           idx, node.simultaneous])

    def resolve_choice(self, node: Union[Decision, Chance], choice: Any) -> int:
        """The index of a choice given as an int, a label or an Option; IllegalChoice if none."""
        if choice.__class__ is int and 0 <= choice < node.count:   # (most often; not a bool)
            return choice
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
        # fns' values are remembered only during ops that keep the state (interpreter/memo.py),
        # in one memory for the program (runs never nest), emptied as each run begins
        memo = self.memo
        if memo is not None and memo.touched:
            memo.clear()
        keep, memo_on = self.fused.keep_state, self.ex.memo_on
        n = 0
        on = False                 # is the memory switched on (memo_on[0] is memo)?
        meter = limits.METER       # steps left, shared with the generated code's loops
        meter[0] = limits.BUDGET[0] = budget        # (limits.start, written out)
        try:
            while True:
                fr = stack[-1]
                op = codes[fr[0]][fr[1]]
                if memo is None:
                    r = op(s, fr)
                elif op in keep:           # the memory stays on across a run of such ops
                    if not on:
                        memo_on[0], on = memo, True
                    r = op(s, fr)
                else:
                    if on:             # (values are remembered only while it is on)
                        memo_on[0], on = None, False
                        if memo.touched:
                            memo.clear()
                    r = op(s, fr)
                if r is not None:
                    s.steps += n
                    return r
                n += 1
                if n > meter[0]:
                    raise RuleError(limits.BUDGET_MESSAGE.format(budget))
        except RUN_FAILURES as exc:
            raise self._failure(s, exc) from None
        finally:
            memo_on[0] = None
            # what runs outside (scores, invariants) has a budget too (limits.start)
            meter[0] = limits.BUDGET[0] = budget

    def _failure(self, s: State, exc: BaseException) -> RuleError:
        """The located RuleError for an exception raised while ops ran; an exception that is
        not the rule's failure (Mercator's own bug: exprs.rule_failure) is raised again as
        itself."""
        if isinstance(exc, RuleError) and exc.located:
            return exc
        if not rule_failure(exc):
            raise exc
        self.fused.relocate(exc.__traceback__, s)
        return self._located(s, failure_message(exc))

    def _unusable(self, s: State, exc: RuleError) -> None:
        """Mark s unusable after a rule failed half-way through a choice."""
        s.failed = (f"an earlier apply failed with a rule error ({exc.span}: {exc.message}); "
                    f"this state is half-changed and cannot be used. Replay its decision log "
                    f"{s.history} or use a fork made before that apply")

    def playout(self, s: State, rng: Any, max_decisions: Optional[int] = None,
                seat_rngs: Optional[list] = None, anytime: bool = True,
                deals: bool = True) -> int:
        """Play s on with uniformly random choices (rng.randrange over each decision's options;
        an explicit chance node by its weights, with the state's own generator) until the end or
        max_decisions more decisions; returns how many were made. The same game, choice for
        choice, as `while not s.over: apply(s, rng.randrange(s.pending.count))` (a Chance
        resolved as agents.resolve_chance does), but without option labels, narration or a return
        to the caller between decisions: the rollout of a search. With seat_rngs (one
        generator per seat), seat p's decisions are drawn from seat_rngs[p] and rng is unused:
        the game random bots with their own generators play (agents.RandomAgent). With
        anytime=False no any-time action is ever taken (each decision's draw is among its
        other options only): the rollout policy of the search agents, whose random playouts
        would otherwise be dominated by mortgages and redemptions. With deals=False no seat
        makes a deal: at a step of a deal window it passes where it may and cancels a draft
        it has (nodes.no_deal_index; no number is drawn for such a step), and draws only where
        the rules leave neither (an acceptance they force): the search's rollouts, which
        random negotiation would otherwise fill (nine in ten of a random Genoa game's
        decisions are steps of its window)."""
        if s.failed:
            raise StateUnusable(s.failed)
        if seat_rngs is not None and len(seat_rngs) != len(s.players):
            raise ValueError(f"{len(seat_rngs)} generators for {len(s.players)} seats")
        if s.narrate or self.coverage is not None:
            return self._playout_by_apply(s, rng, max_decisions, seat_rngs, anytime, deals)
        node = s.pending
        if node is None or node.__class__ is Terminal:
            return 0
        limit = -1 if max_decisions is None else max_decisions
        if COMPILED_ROLLOUT and self.make_rollout is not None:
            return self._compiled_playout(s, rng, limit, seat_rngs, anytime, deals)
        return self._vm_playout(s, node, rng, limit, seat_rngs, anytime, deals)

    def _vm_playout(self, s: State, node: Node, rng: Any, limit: int,
                    seat_rngs: Optional[list], anytime: bool = True,
                    deals: bool = True) -> int:
        """playout() by the VM's own loop: each choice drawn and committed, then run() on to
        the next node (what apply does, without labels, checks or narration)."""
        made = 0
        stack, hist, nslots = s.stack, s.history, self.nslots
        seat_draws = None if seat_rngs is None else [r.randrange for r in seat_rngs]
        randrange: Callable[[int], int] = rng.randrange if seat_draws is None else seat_draws[0]
        try:
            while made != limit:
                if node.__class__ is Decision:
                    assert isinstance(node, Decision)
                    vals, acts = node.values, node.actions if anytime else ()
                    if seat_draws is not None:
                        randrange = seat_draws[node.player]
                    i = -1 if deals else no_deal_index(node)
                    if i < 0:
                        i = randrange(len(vals) + len(acts) + node.allow_pass)
                    hist.append(i)
                    j = i - node.allow_pass
                    if j < len(vals):
                        node.commit(s, vals[j] if j >= 0 else None)
                    else:
                        _, bid, args = acts[j - len(vals)]
                        stack.append([bid, 0, [node.player, *args]
                                      + [None] * (nslots[bid] - 1 - len(args)), -1])
                else:
                    assert isinstance(node, Chance)
                    w = node.weights
                    i = weighted_index(w, s.randbelow(sum(w)))
                    hist.append(i)
                    node.commit(s, node.values[i])
                made += 1
                node = s.pending = self.run(s)
                if node.__class__ is Terminal:
                    break
        except RUN_FAILURES as exc:
            located = self._failure(s, exc)
            hist.pop()
            self._unusable(s, located)
            raise located from None
        return made

    def _compiled_playout(self, s: State, rng: Any, limit: int,
                          seat_rngs: Optional[list], anytime: bool = True,
                          deals: bool = True) -> int:
        """playout() by the compiled rollout: the same game (it does not count s.steps)."""
        ro = self._rollout
        if ro is None:
            ro = self._rollout = self.make_rollout()  # type: ignore[misc]
        try:
            return ro.play(s, rng, limit, seat_rngs, anytime, deals)
        except RUN_FAILURES as exc:
            if not (isinstance(exc, RuleError) and exc.located):
                ro.relocate(exc.__traceback__, s)
            located = self._failure(s, exc)
            s.history.pop()
            self._unusable(s, located)
            raise located from None
        finally:
            self.ex.memo_on[0] = None
            limits.start(self.step_budget)

    def _playout_by_apply(self, s: State, rng: Any, max_decisions: Optional[int],
                          seat_rngs: Optional[list] = None, anytime: bool = True,
                          deals: bool = True) -> int:
        """playout() through apply (narration or coverage on: every step is recorded)."""
        made = 0
        while not s.over and made != max_decisions:
            node = s.pending
            if isinstance(node, Chance):
                w = node.weights
                self.apply(s, weighted_index(w, s.randbelow(sum(w))))
            else:
                assert isinstance(node, Decision)
                i = -1 if deals else no_deal_index(node)
                if i < 0:
                    r = rng if seat_rngs is None else seat_rngs[node.player]
                    i = r.randrange(node.count if anytime else node.count - len(node.actions))
                self.apply(s, i)
            made += 1
        return made

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

    def _located(self, s: State, msg: str) -> RuleError:
        span = A.NOSPAN
        if s.stack:
            fr = s.stack[-1]
            sp = self.spans[fr[0]]
            if 0 <= fr[1] < len(sp):
                span = sp[fr[1]]
        return RuleError(msg, span, s.history)

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
        score_span = self.rb.score.span if self.rb.score is not None else A.NOSPAN
        scores = tuple(self._scored(s, self.score_f, p, self.score_slots, score_span, "score")
                       if self.score_f else 0 for p in range(n))
        tbs = tuple(tuple(self._scored(s, f, p, k, b.span, "tie-break")
                          for (f, k), b in zip(self.tiebreak_fs, self.rb.tiebreaks))
                    for p in range(n))
        signs = self.key_signs + (1,) * (1 + len(self.tiebreak_fs) - len(self.key_signs))
        # what ranks: the true values, negated where the lowest wins (Terminal keeps them true)
        keys = [tuple(sg * v for sg, v in zip(signs, (scores[p],) + tbs[p])) for p in range(n)]
        may = self.may_win(s)
        can_win = [p for p, ok in enumerate(may) if ok]
        best = max((keys[p] for p in can_win), default=None)
        winners = tuple(p for p in can_win if keys[p] == best)
        ranking = tuple(sorted(range(n), key=lambda p: tuple(-x for x in keys[p]) + (p,)))
        return Terminal(scores, tbs, winners, ranking, tuple(p for p in range(n) if not may[p]))

    def may_win(self, s: State) -> tuple[bool, ...]:
        """For each seat, whether the rulebook's `eligible` lets it win in s (all, without one)."""
        n = len(s.players)
        if self.eligible_f is None:
            return (True,) * n
        f, k = self.eligible_f
        where = self.rb.eligible.span if self.rb.eligible is not None else A.NOSPAN
        return tuple(bool(self._scored(s, f, p, k, where, "eligibility")) for p in range(n))

    def estimated(self, s: State) -> Terminal:
        """The position judged by the rulebook's `estimate` (docs/language.md §2.19b), for a
        search's cut-off: each seat's estimate in place of its score, the winners those best by
        it in the score's direction (no tie-breaks, no eligibility: the estimate says all). A
        rulebook without an estimate is judged by its score as if the game ended (`result`)."""
        if self.estimate_f is None:
            return self.result(s)
        values = self.estimates(s)
        n = len(s.players)
        sign = self.key_signs[0] if self.key_signs else 1
        best = max(sign * v for v in values)
        winners = tuple(p for p in range(n) if sign * values[p] == best)
        ranking = tuple(sorted(range(n), key=lambda p: (-sign * values[p], p)))
        return Terminal(values, tuple(() for _ in range(n)), winners, ranking)

    def estimates(self, s: State) -> tuple:
        """Each seat's value of the rulebook's `estimate` in s (its score where it declares
        none), nothing else: what a rollout policy compares option by option."""
        if self.estimate_f is None:
            if not self.score_f:
                return (0,) * len(s.players)
            f, k = self.score_f, self.score_slots
            where = self.rb.score.span if self.rb.score is not None else A.NOSPAN
            what = "score"
        else:
            f, k = self.estimate_f
            where = self.rb.estimate.span if self.rb.estimate is not None else A.NOSPAN
            what = "estimate"
        with self._remembering():   # the state is fixed while every seat's value is computed
            return tuple(self._scored(s, f, p, k, where, what) for p in range(len(s.players)))

    @contextlib.contextmanager
    def _remembering(self) -> Iterator[None]:
        """While the state cannot change (every seat's estimate, every option's preference):
        the fns called are remembered across the values computed (interpreter/compiler/memo.py),
        then forgotten — unless the memory is already on (a caller that keeps it)."""
        memo_on = self.ex.memo_on
        if not self.ex.memo or memo_on[0] is not None:
            yield
            return
        # one memory kept for this, emptied after each use (a searcher asks for every option's
        # preference at every step of its rollouts: a new memory each time, one table a
        # remembered fn, was 2% of Die Händler's search)
        memo = self._pref_memo
        if memo is None:
            memo = self._pref_memo = Memo(len(self.ex.memo))
        memo_on[0] = memo
        try:
            yield
        finally:
            memo_on[0] = None
            memo.clear()

    def preferences(self, s: State, m: int) -> Optional[list[Any]]:
        """The rulebook's preference (docs/language.md §2.19c) for each of the first m
        options of the decision pending in s — the pass 0 — or None where it declares none for
        this decision."""
        pend = s.pending
        span = getattr(pend, "span", None)
        if not self.prefer_fs or span is None:
            return None
        spec = self.prefer_fs.get((span.path, span.line, span.col))
        if spec is None:
            return None
        f, k, chooser, where = spec
        player = pend.player if chooser else None
        out: list[Any] = []
        values = pend.values
        lo = 1 if pend.allow_pass else 0
        if lo:
            out.append(0)
        pad = [None] * (k - 2)
        vtype = getattr(pend, "vtype", None)
        try:
            with self._remembering():       # the state is fixed while the options are valued
                if isinstance(vtype, tuple) and vtype[0] == "deal":
                    # a preference over the table's offers: the casual trader of its window
                    deal = vtype[1]
                    L = s.stack[-1][2]
                    return deal.casual(s, L, L[deal.wslot],
                                       lambda o: f(s, [o, player, *pad]))[:m]
                for j in range(lo, m):
                    out.append(f(s, [values[j - lo], player, *pad]))
        except RUN_FAILURES as exc:
            if not rule_failure(exc):
                raise
            raise RuleError(f"the preference of P{pend.player + 1} cannot be computed ({exc})",
                            where, s.history) from None
        return out

    def draft_step(self, s: State) -> int:
        """Where the decision pending in s is a step of an offer being drafted in a deal window
        whose offers the rulebook's preference covers (docs/language.md §2.19c): the casual
        trader's step (DealSpec.casual, deterministic); else -1."""
        pend = s.pending
        vtype = getattr(pend, "vtype", None)
        if not self.prefer_fs or not isinstance(vtype, tuple) or vtype[0] != "deal" \
                or pend.allow_pass:
            return -1
        deal = vtype[1]
        if s.stack[-1][2][deal.wslot][DRAFT] is None:
            return -1                       # (a forced acceptance, not a draft)
        prefs = self.preferences(s, pend.count - len(pend.actions))
        if prefs is None:
            return -1
        return prefs.index(max(prefs))

    def preferred(self, s: State, m: int, rng: Any) -> int:
        """The index of the most preferred of the first m options of the decision pending in s
        (ties at random by rng; in a window of offers the casual trader passes where nothing
        is liked above the pass), or -1 where the rulebook declares no preference for it."""
        prefs = self.preferences(s, m)
        if prefs is None:
            return -1
        top = max(prefs)
        best = [j for j, v in enumerate(prefs) if v == top]
        if len(best) > 1 and best[0] == 0 and s.pending.allow_pass:
            vtype = getattr(s.pending, "vtype", None)
            if isinstance(vtype, tuple) and vtype[0] == "deal":
                return 0
        return best[0] if len(best) == 1 else best[rng.randrange(len(best))]

    def _scored(self, s: State, f: Callable, p: int, nslots: int, span: A.Span,
                what: str) -> Any:
        """f (a score, tie-break or eligibility expression) for player p; a rule error in it
        is located at its declaration, not at the statement that ended the game."""
        try:
            return f(s, [p] + [None] * (nslots - 1))
        except RUN_FAILURES as exc:
            if not rule_failure(exc):
                raise
            raise RuleError(f"the {what} of P{p + 1} cannot be computed ({exc})",
                            span, s.history) from None

    def check_invariants(self, s: State) -> list[str]:
        """The texts of the invariants that do not hold in s."""
        bad = []
        for text, f, nslots, span in self.invariants:
            try:
                ok = f(s, [None] * max(nslots, 1))
            except (RuleError, TypeError, KeyError, IndexError) as exc:
                if not rule_failure(exc):
                    raise
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
        if s.unfolded is not None and s.unfolded.base is not None:
            # a narrated game's digests not yet read are made by replaying its decision log
            # from its first position (seen.Unfolded), which cannot make a position set by
            # hand: they are folded up to here, and at once from now on
            s.seen
        if player is None:
            s.table[self._tindex(name)] = value
        else:
            s.players[player][self._pindex(name)] = value


def _picked(node: Union[Decision, Chance], i: int) -> tuple[Any, Optional[tuple]]:
    """(value, any-time action) of option i, as node.option(i) without making its label."""
    if node.__class__ is Decision:
        if node.allow_pass:
            if i == 0:
                return None, None
            i -= 1
        if i < len(node.values):
            return node.values[i], None
        _, bid, args = node.actions[i - len(node.values)]
        return None, (bid, args)
    return node.values[i], None
