"""The differential harness (issue 37): one game — a rulebook, a number of players, a seed and
the seeded decisions drawn from it — played through every way the engine can run it, compared
at every decision and at the end.

The ways (`WAYS`): the `apply` loop (the reference; runs of statements fused, compiler/fuse.py),
with narration, with coverage on (the ops one by one: compiler/stmts.py and decisions.py), with
a clone at every decision, with a JSON round trip (text, `State.from_json`, `Program.resume`)
every few decisions, with another step budget, `Program.playout` one decision at a time by the
compiled rollout (compiler/rollout.py) and by the VM's own loop, `new_game` after the rollout
is built (the start run by the rollout), and a whole `playout` from the start and from the
middle of the game. Each is run with explicit chance off and on (chance nodes resolved with the
state's own generator, as `agents.resolve_chance` and `playout` do); `chance_modes_agree` also
compares the two modes for a rulebook without a `shuffle` (`without_shuffle`).

What is compared at a decision (`Step`): who decides, the prompt, every option's label, and
the state's digest; at a chance node its outcomes' labels and weights; at the end the scores,
tie-breaks, winners, ranking and how the game ended; a rule error by its location and message.
Every way must give the reference's steps exactly; `differences` names the first step where
one does not, with the decision log that leads there.
"""
from __future__ import annotations

import hashlib
import json
import random
from typing import Any, Callable, Optional

from mercator.dsl import ast as A
from mercator.dsl.checked import CheckedRulebook
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine import program as program_module
from mercator.interpreter.engine.chance import weighted_index
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal
from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.state import State

Step = tuple
RELOAD_EVERY = 16         # decisions between two JSON round trips (the "json" way)
BUDGET = 10 ** 9          # the step budget of the "budget" way


def position(s: State, normalise_chance: bool = False) -> str:
    """The state's digest; with normalise_chance the explicit-chance flag left out (the one
    difference two chance modes' states may have)."""
    if not normalise_chance:
        return s.digest()
    core = s.core()
    core["explicit_chance"] = False
    return hashlib.sha256(json.dumps(core, sort_keys=True, separators=(",", ":"))
                          .encode()).hexdigest()


def step_of(s: State, normalise_chance: bool = False) -> Step:
    """What is compared at the state's pending node (see the module)."""
    node = s.pending
    here = position(s, normalise_chance)
    if isinstance(node, Terminal):
        return ("end", node.scores, node.tiebreaks, node.winners, node.ranking, s.ended_by, here)
    if isinstance(node, Chance):
        return ("chance", [o.label for o in node.options], list(node.weights), here)
    assert isinstance(node, Decision), node
    return ("decision", node.player, node.prompt, [o.label for o in node.options], here)


def failure(exc: RuleError) -> Step:
    """A rule error as a step: where and what."""
    return ("rule error", str(exc.span), exc.message)


class Run:
    """One way's game: the steps seen, and the rng the seeded decisions are drawn from."""

    def __init__(self, seed: int):
        self.steps: list[Step] = []
        self.rng = random.Random(seed)

    def choose(self, s: State) -> int:
        """The next seeded choice at s: a decision's by the run's rng over all its options, a
        chance node's by its weights with the state's own generator."""
        node = s.pending
        if isinstance(node, Chance):
            return weighted_index(node.weights, s.randbelow(sum(node.weights)))
        return self.rng.randrange(node.count)


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


def by_playout(prog: Program, players: int, seed: int, explicit: bool,
               compiled: bool = True) -> list[Step]:
    """playout(max_decisions=1) over and over: the rollout (or the VM's loop) stopped at every
    decision, its steps read from the state it leaves."""
    run = Run(seed)
    was = program_module.COMPILED_ROLLOUT
    program_module.COMPILED_ROLLOUT = compiled
    try:
        s = prog.new_game(players, seed, explicit_chance=explicit)
        while True:
            run.steps.append(step_of(s))
            if s.over:
                return run.steps
            prog.playout(s, run.rng, max_decisions=1)
    except RuleError as exc:
        run.steps.append(failure(exc))
        return run.steps
    finally:
        program_module.COMPILED_ROLLOUT = was


def whole_playout(prog: Program, players: int, seed: int, explicit: bool,
                  before: int) -> tuple[int, Step]:
    """Apply `before` seeded decisions, then one playout to the end: (decisions made in all, the
    last step)."""
    run = Run(seed)
    try:
        s = prog.new_game(players, seed, explicit_chance=explicit)
        for _ in range(before):
            if s.over:
                break
            prog.apply(s, run.choose(s))
        prog.playout(s, run.rng)
        return len(s.history), step_of(s)
    except RuleError as exc:
        return -1, failure(exc)


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


Way = Callable[[CheckedRulebook, Program, int, int, bool], list[Step]]


def _covered(rb: CheckedRulebook, prog: Program, players: int, seed: int,
             explicit: bool) -> list[Step]:
    prog.coverage = set()
    try:
        return by_apply(prog, players, seed, explicit)
    finally:
        prog.coverage = None


def _budget(rb: CheckedRulebook, prog: Program, players: int, seed: int,
            explicit: bool) -> list[Step]:
    return by_apply(compile_program(rb, step_budget=BUDGET), players, seed, explicit)


# the ways in the order they run on one program: those that build the rollout come last, then
# the apply loop again, its new games started by the rollout
WAYS: dict[str, Way] = {
    "narrated": lambda rb, prog, n, seed, ex: by_apply(prog, n, seed, ex, narrate=True),
    "ops one by one": _covered,
    "clone at each decision": lambda rb, prog, n, seed, ex: by_apply(prog, n, seed, ex,
                                                                     between=cloned),
    "json round trips": lambda rb, prog, n, seed, ex: by_apply(prog, n, seed, ex, narrate=True,
                                                               between=reloaded),
    "another step budget": _budget,
    "playout by the VM": lambda rb, prog, n, seed, ex: by_playout(prog, n, seed, ex, False),
    "playout by the rollout": lambda rb, prog, n, seed, ex: by_playout(prog, n, seed, ex),
    "apply, started by the rollout": lambda rb, prog, n, seed, ex: by_apply(prog, n, seed, ex),
}


def differences(rb: CheckedRulebook, players: int, seed: int, explicit: bool,
                ways: Optional[list[str]] = None) -> list[str]:
    """Every way's game against the reference (the apply loop on a fresh program): one line per
    way that differs, naming its first differing step. Empty: all agree."""
    prog = compile_program(rb)
    ref = by_apply(prog, players, seed, explicit)
    where = f"{rb.game.name} {players}p seed {seed} explicit chance {'on' if explicit else 'off'}"
    out = []
    for name in ways or list(WAYS):
        got = WAYS[name](rb, prog, players, seed, explicit)
        diff = first_difference(ref, got)
        if diff:
            out.append(f"{where}: {name}: {diff}")
    # a whole playout, from the start and from the middle, ends where the reference ends
    decided = sum(1 for st in ref if st[0] in ("decision", "chance"))
    for before in (0, decided // 2):
        made, last = whole_playout(prog, players, seed, explicit, before)
        if last != ref[-1] or (last[0] == "end" and made != decided):
            out.append(f"{where}: playout to the end after {before} decisions: "
                       f"{made} decisions, {_short(last)}; the apply loop: {decided}, "
                       f"{_short(ref[-1])}")
    return out


def first_difference(ref: list[Step], got: list[Step]) -> str:
    """'' if the two games agree step for step; else the first step where they do not."""
    for i, (a, b) in enumerate(zip(ref, got)):
        if a != b:
            return f"step {i}: {_short(b)}; the apply loop: {_short(a)}"
    if len(ref) != len(got):
        return f"{len(got)} steps; the apply loop: {len(ref)} (it ends {_short(ref[-1])})"
    return ""


def _short(step: Step, width: int = 300) -> str:
    text = repr(step)
    return text if len(text) <= width else text[:width] + "..."


def without_shuffle(rb: CheckedRulebook) -> bool:
    """Has the rulebook no `shuffle`? A shuffle is drawn one way by the generator (Fisher–Yates)
    and another as chance nodes (position by position: engine/chance.py), so the two chance
    modes play different games; rolls, draws from a bag and picks among distinct values draw
    the same outcome either way."""
    bodies: list[Any] = [rb.setup, *rb.phases, *rb.procs.values(), *rb.triggers, *rb.actions]

    def walk(node: Any) -> bool:
        if isinstance(node, A.Shuffle):
            return False
        if isinstance(node, (list, tuple)):
            return all(walk(x) for x in node)
        fields = A.child_fields(type(node))
        return fields is None or all(walk(getattr(node, f)) for f in fields)
    return all(walk(b.block) for b in bodies if b is not None and b.block is not None)


def chance_modes_agree(rb: CheckedRulebook, players: int, seed: int) -> str:
    """'' if the game with explicit chance (its chance nodes resolved by the state's generator)
    makes the same decisions, reaching the same states (but for the explicit-chance flag), as
    the game without; else where not."""
    prog = compile_program(rb)
    off = by_apply(prog, players, seed, False, normalise_chance=True)
    on = by_apply(prog, players, seed, True, normalise_chance=True)
    return first_difference(off, [st for st in on if st[0] != "chance"])
