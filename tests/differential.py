"""The differential harness (issue 37): one game — a rulebook, a number of players, a seed and
the seeded decisions drawn from it — played through every way the engine can run it, compared
at every decision and at the end.

The ways (`WAYS`): the `apply` loop (the reference; runs of statements fused, compiler/fuse.py),
with coverage on (the ops one by one: compiler/stmts.py and decisions.py), with another step
budget, `Program.playout` one decision at a time by the compiled rollout (compiler/rollout.py)
and by the VM's own loop and in pieces of several sizes (`PIECES`), `new_game` once the rollout
is built (the start run by the rollout); the apply loop with narration on (the narrated
reference: narration changes nothing but what it records); and, compared with the narrated
reference — every seat's information state and the log lines too — the ops one by one, a clone
at every decision and a JSON round trip (as text, `State.from_json`, `Program.resume`) every
few decisions, all narrated. Then `playout` to the end from the start and from the
middle of the game; and the rollout's own policies (`Policy`: a generator per seat, and
`anytime=False`, `deals=False` where the rulebook has actions or deals) by the rollout and by
the VM's loop against playout through `apply` (narration on). Each game is played with
explicit chance off or on (chance nodes resolved by their weights with the state's own
generator, as `agents.resolve_chance` and `playout` do); `chance_modes_agree` compares the two
modes for a rulebook without a `shuffle`.

What is compared at a decision (`Step`): who decides, the prompt, every option's label and the
position (the state's data, compared as its digest compares it); at a chance node its outcomes'
labels and weights; at the end the scores, tie-breaks, winners, ranking and how the game ended;
a rule error by its location and message. `differences` names, for each way that differs from
the reference, its first differing step.
"""
from __future__ import annotations

import hashlib
import json
import marshal
import random
from typing import Any, Callable, NamedTuple, Optional

from mercator.dsl import ast as A
from mercator.dsl.checked import CheckedRulebook
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine import program as program_module
from mercator.interpreter.engine.chance import weighted_index
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal, no_deal_index
from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.state import State
from mercator.interpreter.engine.values import to_json

Step = tuple
RELOAD_EVERY = 16         # decisions between two JSON round trips
BUDGET = 10 ** 9          # the step budget of "another step budget"
PIECES = (3, 1, 4, 1, 5, 9, 2, 6)   # the sizes of the pieces a playout is played in, in turn


class Position:
    """A state's position as data (what State.core() holds), compared by value: == ignores the
    order of a map's keys, as the state's digest does (cheaper than digests at every step);
    shown by its digest."""

    __slots__ = ("data",)

    def __init__(self, s: State, normalise_chance: bool):
        # one marshal round trip: a copy of the data, whatever the game does next
        self.data = marshal.loads(marshal.dumps(
            (s.table, s.players, s.stack, s.rng, s.round, s.over, s.stats,
             False if normalise_chance else s.explicit_chance)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.data == other.data

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        text = json.dumps(to_json(list(self.data)), sort_keys=True, separators=(",", ":"))
        return f"<position {hashlib.sha256(text.encode()).hexdigest()[:16]}>"


def position(s: State, normalise_chance: bool = False) -> Position:
    """The state's position; with normalise_chance the explicit-chance flag left out (the one
    difference two chance modes' states may have)."""
    return Position(s, normalise_chance)


def step_of(s: State, normalise_chance: bool = False) -> Step:
    """What is compared at the state's pending node (see the module); with narration on, also
    what each seat has seen and the log lines."""
    node = s.pending
    here: tuple = (position(s, normalise_chance),)
    if s.narrate:
        here += (tuple(s.seen), hashlib.sha256("\n".join(s.messages).encode()).hexdigest())
    if isinstance(node, Terminal):
        return ("end", node.scores, node.tiebreaks, node.winners, node.ranking, s.ended_by) + here
    if isinstance(node, Chance):
        return ("chance", [o.label for o in node.options], list(node.weights)) + here
    assert isinstance(node, Decision), node
    return ("decision", node.player, node.prompt, [o.label for o in node.options]) + here


def failure(exc: RuleError) -> Step:
    """A rule error as a step: where and what."""
    return ("rule error", str(exc.span), exc.message)


class Policy(NamedTuple):
    """How playout draws (Program.playout's options): any-time actions offered or not, deals
    made or not, and one generator for all seats or one per seat (seat_rngs)."""

    anytime: bool = True
    deals: bool = True
    seats: bool = False

    def __str__(self) -> str:
        parts = ([] if self.anytime else ["without any-time actions"]) + \
            ([] if self.deals else ["without deals"]) + (["seat by seat"] if self.seats else [])
        return ", ".join(parts) or "as apply"


ANY = Policy()


class Run:
    """One way's game: the steps seen, and the generators the seeded decisions are drawn from
    (one for all seats, and one per seat for Policy.seats)."""

    def __init__(self, seed: int, players: int = 0):
        self.steps: list[Step] = []
        self.rng = random.Random(seed)
        self.seat_rngs = [random.Random(seed * 1009 + p) for p in range(players)]

    def playout(self, policy: Policy) -> dict[str, Any]:
        """Program.playout's options for the policy."""
        return {"anytime": policy.anytime, "deals": policy.deals,
                "seat_rngs": self.seat_rngs if policy.seats else None}

    def choose(self, s: State, policy: Policy = ANY) -> int:
        """The next seeded choice at s, as playout draws it: a decision's by the run's rng (or
        the seat's) over its options (without the any-time actions if not anytime; a deal
        window's pass or cancel if not deals), a chance node's by its weights with the state's
        generator."""
        node = s.pending
        if isinstance(node, Chance):
            return weighted_index(node.weights, s.randbelow(sum(node.weights)))
        i = -1 if policy.deals else no_deal_index(node)
        if i >= 0:
            return i
        rng = self.seat_rngs[node.player] if policy.seats else self.rng
        return rng.randrange(node.count if policy.anytime else node.count - len(node.actions))


def by_apply(prog: Program, players: int, seed: int, explicit: bool, narrate: bool = False,
             between: Optional[Callable[[Program, State, int], State]] = None,
             normalise_chance: bool = False) -> list[Step]:
    """The apply loop's steps; `between(prog, s, n)` may replace the state before decision n."""
    run = Run(seed)
    try:
        s = prog.new_game(players, seed, narrate=narrate, explicit_chance=explicit)
        n = 0
        while True:
            run.steps.append(step_of(s, normalise_chance))
            if s.over:
                return run.steps
            if between is not None:
                s = between(prog, s, n)
            prog.apply(s, run.choose(s))
            n += 1
    except RuleError as exc:
        run.steps.append(failure(exc))
        return run.steps


def by_playout(prog: Program, players: int, seed: int, explicit: bool, compiled: bool = True,
               pieces: tuple[int, ...] = (1,), narrate: bool = False,
               policy: Policy = ANY) -> list[Step]:
    """playout(max_decisions=k) over and over, k going round `pieces`: the rollout (or the VM's
    loop; with narration, apply) stopped after each piece, its steps read from the state it
    leaves (the steps in between left as None)."""
    run = Run(seed, players)
    was = program_module.COMPILED_ROLLOUT
    program_module.COMPILED_ROLLOUT = compiled
    s: Optional[State] = None
    try:
        s = prog.new_game(players, seed, narrate=narrate, explicit_chance=explicit)
        k = 0
        while True:
            run.steps.append(step_of(s))
            if s.over:
                return run.steps
            size = pieces[k % len(pieces)]
            k += 1
            made = prog.playout(s, run.rng, max_decisions=size, **run.playout(policy))
            assert made > 0, "a playout of an unfinished game made no decision"
            run.steps += [None] * (made - 1)
    except RuleError as exc:
        # the failing decision is not in the log: the error is the step after the last made
        made_all = len(s.history) if s is not None else -1
        run.steps += [None] * (made_all + 1 - len(run.steps))
        run.steps.append(failure(exc))
        return run.steps
    finally:
        program_module.COMPILED_ROLLOUT = was


def whole_playout(prog: Program, players: int, seed: int, explicit: bool, before: int,
                  compiled: bool = True, narrate: bool = False,
                  policy: Policy = ANY) -> tuple[list[int], Step]:
    """`before` seeded decisions by apply (as playout draws them), then one playout to the
    end: (the decision log, the last step)."""
    run = Run(seed, players)
    was = program_module.COMPILED_ROLLOUT
    program_module.COMPILED_ROLLOUT = compiled
    s: Optional[State] = None
    try:        # (the game's start may fail too: setup, or a trigger of it, that never ends)
        s = prog.new_game(players, seed, narrate=narrate, explicit_chance=explicit)
        for _ in range(before):
            if s.over:
                break
            prog.apply(s, run.choose(s, policy))
        prog.playout(s, run.rng, **run.playout(policy))
        return s.history, step_of(s)
    except RuleError as exc:
        return (s.history if s is not None else []), failure(exc)
    finally:
        program_module.COMPILED_ROLLOUT = was


def cloned(prog: Program, s: State, n: int) -> State:
    """A clone of s: the game goes on on the copy."""
    return s.clone()


def reloaded(prog: Program, s: State, n: int) -> State:
    """Every RELOAD_EVERY decisions, s written to JSON text and read back (narration and all)."""
    if n % RELOAD_EVERY:
        return s
    r = State.from_json(json.loads(json.dumps(s.to_json())))
    r.messages = list(s.messages)
    prog.resume(r)
    return r


# a way: (is it narrated, what it plays); its steps are compared with the reference's with
# narration as it has it
Way = Callable[[CheckedRulebook, Program, int, int, bool], list[Step]]


def _covered(narrate: bool) -> Way:
    def way(rb: CheckedRulebook, prog: Program, n: int, seed: int, ex: bool) -> list[Step]:
        prog.coverage = set()
        try:
            return by_apply(prog, n, seed, ex, narrate=narrate)
        finally:
            prog.coverage = None
    return way


def _applied(narrate: bool, between: Optional[Callable] = None) -> Way:
    return lambda rb, prog, n, seed, ex: by_apply(prog, n, seed, ex, narrate, between)


# in the order they run on one program: those that build the rollout come last, then the
# apply loop again, its new games started by the rollout
WAYS: dict[str, tuple[bool, Way]] = {
    "ops one by one": (False, _covered(False)),
    "ops one by one, narrated": (True, _covered(True)),
    # (narrated: a clone and a JSON round trip carry the record and the position alike)
    "clone at each decision, narrated": (True, _applied(True, cloned)),
    "json round trips, narrated": (True, _applied(True, reloaded)),
    "another step budget": (False, lambda rb, prog, n, seed, ex: by_apply(
        compile_program(rb, step_budget=BUDGET), n, seed, ex)),
    "playout by the VM": (False, lambda rb, prog, n, seed, ex: by_playout(prog, n, seed, ex,
                                                                          False)),
    "playout by the rollout": (False, lambda rb, prog, n, seed, ex: by_playout(prog, n, seed, ex)),
    "playout by the rollout in pieces": (False, lambda rb, prog, n, seed, ex: by_playout(
        prog, n, seed, ex, pieces=PIECES)),
    "apply, started by the rollout": (False, _applied(False)),
}


def differences(rb: CheckedRulebook, players: int, seed: int, explicit: bool,
                ways: Optional[list[str]] = None) -> list[str]:
    """Every way's game against the reference (the apply loop on a fresh program, narrated for
    a narrated way), then the whole playouts and the rollout's policies (see the module): one
    line per way that differs, naming its first differing step. Empty: all agree."""
    prog = compile_program(rb)
    ref = {False: by_apply(prog, players, seed, explicit),
           True: by_apply(prog, players, seed, explicit, narrate=True)}
    where = f"{rb.game.name} {players}p seed {seed} explicit chance {'on' if explicit else 'off'}"
    out = []
    # narration records what each seat sees and changes nothing else: the same game
    diff = first_difference(ref[False], [_plain(st) for st in ref[True]])
    if diff:
        out.append(f"{where}: narrated: {diff}")
    for name in ways or list(WAYS):
        narrated, way = WAYS[name]
        diff = first_difference(ref[narrated], way(rb, prog, players, seed, explicit))
        if diff:
            out.append(f"{where}: {name}: {diff}")
    # a whole playout, from the start and from the middle, ends where the apply loop ends
    plain = ref[False]
    decided = len(plain) - 1 if plain[-1][0] == "end" else -1
    for before in (0, max(decided, 0) // 2):
        hist, last = whole_playout(prog, players, seed, explicit, before)
        if last != plain[-1] or (decided >= 0 and len(hist) != decided):
            out.append(f"{where}: playout to the end after {before} decisions: "
                       f"{len(hist)} decisions, {_short(last)}; the apply loop: {decided}, "
                       f"{_short(plain[-1])}")
    out += [f"{where}: {d}" for d in policies_agree(prog, players, seed, explicit)]
    return out


def policies_agree(prog: Program, players: int, seed: int, explicit: bool) -> list[str]:
    """The rollout's policies (no any-time actions, no deals, a generator per seat): playout by
    the rollout and by the VM's loop, one decision at a time and to the end from the start and
    from the middle, against playout through apply (with narration on, playout goes through
    apply)."""
    out = []
    # (a policy that changes nothing in this rulebook plays the games compared above)
    policies = [Policy(seats=True)] + [Policy(anytime=False)] * bool(prog.rb.actions) + \
        [Policy(deals=False, seats=True)] * _holds(prog.rb, A.Deal)
    for policy in policies:
        ref = [_plain(st) for st in by_playout(prog, players, seed, explicit, narrate=True,
                                               policy=policy)]
        for compiled in (True, False):
            by = "the rollout" if compiled else "the VM"
            diff = first_difference(ref, by_playout(prog, players, seed, explicit, compiled,
                                                    policy=policy))
            if diff:
                out.append(f"playout {policy} by {by}, one decision at a time: {diff}")
        for before in (0, (len(ref) - 1) // 2):
            hist, last = whole_playout(prog, players, seed, explicit, before, narrate=True,
                                       policy=policy)
            want = (hist, _plain(last))
            for compiled in (True, False):
                got = whole_playout(prog, players, seed, explicit, before, compiled,
                                    policy=policy)
                if got != want:
                    out.append(f"playout {policy} by {'the rollout' if compiled else 'the VM'} "
                               f"to the end after {before} decisions: {len(got[0])} decisions, "
                               f"{_short(got[1])}; through apply: {len(want[0])}, "
                               f"{_short(want[1])}")
    return out


def _plain(step: Step) -> Step:
    """A narrated step without what only narration records."""
    return step[:-2] if step[0] != "rule error" else step


def first_difference(ref: list[Step], got: list[Step]) -> str:
    """'' if the two games agree step for step (a None in got: a step not seen); else the first
    step where they do not."""
    for i, (a, b) in enumerate(zip(ref, got)):
        if b is not None and a != b:
            return f"step {i}: {_short(b)}; the apply loop: {_short(a)}"
    if len(ref) != len(got):
        return f"{len(got)} steps; the apply loop: {len(ref)} (it ends {_short(ref[-1])})"
    return ""


def _short(step: Step, width: int = 300) -> str:
    text = repr(step)
    return text if len(text) <= width else text[:width] + "..."


def _holds(rb: CheckedRulebook, kind: type) -> bool:
    """Does a statement of the rulebook (or one inside it) have this AST class?"""
    bodies: list[Any] = [rb.setup, *rb.phases, *rb.procs.values(), *rb.triggers, *rb.actions]

    def walk(node: Any) -> bool:
        if isinstance(node, kind):
            return True
        if isinstance(node, (list, tuple)):
            return any(walk(x) for x in node)
        fields = A.child_fields(type(node))
        return fields is not None and any(walk(getattr(node, f)) for f in fields)
    return any(walk(b.block) for b in bodies if b is not None and b.block is not None)


def without_shuffle(rb: CheckedRulebook) -> bool:
    """Has the rulebook no `shuffle`? A shuffle is drawn one way by the generator (Fisher–Yates)
    and another as chance nodes (position by position: engine/chance.py), so the two chance
    modes play different games; rolls, draws from a bag and picks among distinct values draw
    the same outcome either way."""
    return not _holds(rb, A.Shuffle)


def chance_modes_agree(rb: CheckedRulebook, players: int, seed: int) -> str:
    """'' if the game with explicit chance (its chance nodes resolved by the state's generator)
    makes the same decisions, reaching the same states (but for the explicit-chance flag), as
    the game without; else where not."""
    prog = compile_program(rb)
    off = by_apply(prog, players, seed, False, normalise_chance=True)
    on = by_apply(prog, players, seed, True, normalise_chance=True)
    return first_difference(off, [st for st in on if st[0] != "chance"])
