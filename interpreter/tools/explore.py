"""Guided exploration of a rulebook: Hypothesis plays many games over player counts, seeds and
decision sequences, checks the invariants after every decision, shrinks any failure to the
shortest game that shows it (within a time cap), and reports which rules no explored game
reached. A rulebook with `bounds` is also held to them: a game that offers an integer outside
them, takes more decisions, or ends with a score outside them is a finding like a broken
invariant."""
from __future__ import annotations

import hashlib
import time
import weakref
from typing import Any, Callable, Iterator, Optional

import attrs
from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import seed as hyp_seed
from hypothesis import strategies as st

from mercator.dsl import ast as A
from mercator.dsl.checked import Body
from mercator.interpreter.engine.encoding import ActionCodec, moves_out_of_bounds, \
    out_of_bounds, score_out_of_bounds
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.state import State


@attrs.define
class Finding:
    """A broken rule: what, where, and the (shrunk) game that shows it."""

    kind: str                 # invariant | runtime error | deadlock | never ends | out of bounds
    message: str
    players: int
    seed: int
    decisions: list[int]
    labels: list[str]
    span: Optional[A.Span] = None


@attrs.define
class Uncovered:
    """A body (procedure, phase, trigger, action, setup) with lines no explored game ran."""

    body: str
    lines: list[int]
    never: bool               # the body never ran at all
    called: bool = True       # False: no setup, phase, trigger or action can call it


@attrs.define
class UnchosenOptions:
    """A decision (by its rule line) and the options it offered that no explored game chose."""

    where: str
    prompt: str
    never: list[str]


@attrs.define
class Report:
    """What exploring found: the first failure (shrunk), coverage, and how much was played."""

    games: int                # games played up to and including the first failing one
    finding: Optional[Finding]
    uncovered: list[Uncovered]
    ops_total: int            # steps of the bodies the rulebook can run (see reachable_bodies)
    ops_run: int
    unchosen: list[UnchosenOptions] = attrs.field(factory=list)
    ended_at_limit: int = 0   # games that ended only because the round limit was reached
    round_limit: Optional[int] = None
    other_ending: bool = True  # the rulebook has an end condition or an 'end game' statement
    shrink_stopped: bool = False  # shrinking was cut short by the time cap


class _Broken(Exception):
    """A finding cutting a shrink replay short: internal control flow, caught in this module
    (so not a MercatorError)."""

    def __init__(self, finding: Finding):
        super().__init__(finding.message)
        self.finding = finding


class _ShrinkTimeUp(KeyboardInterrupt):
    """Raised in a game once the shrink time cap has passed, to stop Hypothesis; caught in
    explore(). Not an Exception: Hypothesis (6.170) takes an Exception for a failure of the
    game and keeps shrinking. And a KeyboardInterrupt, not any BaseException: on any other one
    Hypothesis first records the half-played game in its tree of choices, which can raise
    FlakyStrategyDefinition in place of ours; on a KeyboardInterrupt it stops at once, leaving
    everything as it was (conjecture/engine.py, ConjectureRunner.test_function)."""


MAX_OPTIONS_TRACKED = 16      # decisions with more options (bids, positions) are not listed


_CODECS: "weakref.WeakKeyDictionary[Program, dict[int, ActionCodec]]" = \
    weakref.WeakKeyDictionary()


def _codec(prog: Program, n: int) -> ActionCodec:
    """The action vocabulary of prog's n-player games, made once (it walks the rulebook; an
    exploration plays thousands of games, the shrinking of a finding hundreds)."""
    codecs = _CODECS.setdefault(prog, {})
    if n not in codecs:
        codecs[n] = ActionCodec(prog, n)
    return codecs[n]


def _play(prog: Program, n: int, gseed: int, choose: Callable[[int], int], max_decisions: int,
          labels: list[str], options: Optional[dict] = None,
          looking: Optional[Callable[[State], int]] = None) -> State:
    """One game; raises _Broken on the first broken rule. `looking`, if given, chooses from
    the state itself (the novelty search) instead of `choose` from the option count."""
    history: list[int] = []

    def broken(kind: str, msg: str, span: Optional[A.Span] = None) -> _Broken:
        return _Broken(Finding(kind, msg, n, gseed, list(history), list(labels), span))

    bounds = prog.rb.bounds
    codec = _codec(prog, n) if bounds is not None else None
    moves = 0                        # action ids the players took (bounds { moves N })
    try:
        s = prog.new_game(n, gseed)
        while not s.over:
            node = s.pending
            if len(history) >= max_decisions:
                raise broken("never ends", f"no end after {max_decisions} decisions")
            if codec is not None:
                out = out_of_bounds(codec, s, node, len(history))
                if out is not None:
                    raise broken("out of bounds", *out)
            i = choose(node.count) if looking is None else looking(s)
            if codec is not None and bounds is not None and bounds.moves is not None:
                moves += codec.moves(codec.sequences(s, node), i)
                out = moves_out_of_bounds(codec, moves)
                if out is not None:
                    raise broken("out of bounds", *out)
            labels.append(node.option(i).label)
            if options is not None and node.player >= 0 and node.count <= MAX_OPTIONS_TRACKED:
                key = (str(node.span), getattr(node, "prompt", ""))
                offered, chosen = options.setdefault(key, (set(), set()))
                offered.update(o.label for o in node.options
                               if o.action is None and not o.label.lstrip("-").isdigit())
                chosen.add(labels[-1])
            history.append(i)
            prog.apply(s, i)
            bad = prog.check_invariants(s)
            if bad:
                raise broken("invariant", f"invariant broken: {bad[0]}")
        if codec is not None:
            out = score_out_of_bounds(codec, prog.result(s).scores)
            if out is not None:
                raise broken("out of bounds", *out)
        return s
    except RuleError as exc:
        kind = "deadlock" if "no options" in exc.message else "runtime error"
        raise broken(kind, exc.message, exc.span) from None


SHARD_GAMES = 200     # games per Hypothesis run (--explore N plays ceil(N / 200) runs)
NOVELTY_SHARD_GAMES = 50


@attrs.define
class _Part:
    """What one run of games found (a part of an exploration, merged by `_merge`)."""

    played: int
    finding: Optional[Finding]
    covered: set
    options: dict
    at_limit: int
    stopped: bool = False


def part_seed(seed: int, k: int) -> int:
    """The seed of the k-th run of an exploration (the first run has the exploration's own)."""
    if k == 0:
        return seed
    digest = hashlib.sha256(f"mercator-explore:{seed}:{k}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def _parts(games: int, size: int) -> list[tuple[int, int]]:
    """(run number, games) of the runs that make up `games` games."""
    return [(k, min(size, games - g)) for k, g in enumerate(range(0, games, size))]


def _merge(prog: Program, parts: list[_Part], games: int) -> Report:
    """One report from the runs up to the first that found something."""
    covered: set = set()
    options: dict = {}
    for part in parts:
        covered |= part.covered
        for key, (offered, chosen) in part.options.items():
            o, c = options.setdefault(key, (set(), set()))
            o.update(offered)
            c.update(chosen)
    last = parts[-1] if parts else None
    return _report(prog, min(sum(p.played for p in parts), games),
                   last.finding if last is not None else None, covered, options,
                   sum(p.at_limit for p in parts), last is not None and last.stopped)


def _counting(on_game: Optional[Callable[[int], None]],
              on_shrink: Optional[Callable[[int, float], None]] = None) -> Callable[..., None]:
    """The notes of the runs (a game played, a shorter failing game found) as the callbacks
    of one exploration: games counted across the runs."""
    played = [0]

    def note(kind: str, *args: Any) -> None:
        if kind == "game":
            played[0] += 1
            if on_game is not None:
                on_game(played[0])
        elif kind == "shrink" and on_shrink is not None:
            on_shrink(*args)
    return note


def explore(prog: Program, games: int, seed: int = 0, players: Optional[int] = None,
            max_decisions: int = 20_000, on_game: Optional[Callable[[int], None]] = None,
            shrink_time: Optional[float] = None,
            on_shrink: Optional[Callable[[int, float], None]] = None,
            workers: int = 1) -> Report:
    """Play `games` Hypothesis-chosen games; shrink the first failure (for at most `shrink_time`
    seconds, then keep the shortest failing game so far); measure rule coverage.

    The games are Hypothesis runs of SHARD_GAMES games each (the k-th seeded by
    part_seed(seed, k)) on `workers` processes, merged up to the first run that found a
    failure: the report is the same for any number of workers. on_game(g) is called after
    each of the g games played so far (the failing one included); on_shrink(d, secs) whenever
    a failing game shorter than any before (d decisions) is found, secs after the first
    failure."""
    from mercator.interpreter.tools.parallel import run_parts

    def run(part: tuple[int, int], note: Callable[..., None]) -> _Part:
        k, n = part
        return _explore_part(prog, n, part_seed(seed, k), players, max_decisions,
                             shrink_time, note)
    parts = run_parts(run, _parts(games, SHARD_GAMES), workers,
                      _counting(on_game, on_shrink), last=lambda p: p.finding is not None)
    return _merge(prog, parts, games)


def _explore_part(prog: Program, games: int, seed: int, players: Optional[int],
                  max_decisions: int, shrink_time: Optional[float],
                  note: Callable[..., None]) -> _Part:
    """One Hypothesis run of `games` games (see explore); note("game") after each game,
    note("shrink", decisions, secs) at each shorter failing game."""
    prog.coverage = set()
    lo, hi = (players, players) if players else (prog.min_players, prog.max_players)
    best: list[Finding] = []            # the shortest failing game so far (at most one)
    failed_at = [0.0]                   # time.monotonic() of the first failure
    played = [0]
    at_limit = [0]
    options: dict = {}

    def time_up() -> bool:
        return shrink_time is not None and time.monotonic() - failed_at[0] > shrink_time

    def record(f: Finding) -> None:
        first = not best
        if first:
            failed_at[0] = time.monotonic()
        if first or len(f.decisions) <= len(best[0].decisions):
            # on a tie, the later game: Hypothesis shrinks toward simpler choices
            shorter = first or len(f.decisions) < len(best[0].decisions)
            best[:] = [f]
            if shorter:
                note("shrink", len(f.decisions), time.monotonic() - failed_at[0])

    @hyp_seed(seed)
    @settings(max_examples=games, database=None, deadline=None, derandomize=False,
              phases=[Phase.generate, Phase.target, Phase.shrink], report_multiple_bugs=False,
              suppress_health_check=list(HealthCheck))
    @given(n=st.integers(lo, hi), gseed=st.integers(0, 2**31 - 1), data=st.data())
    def game(n: int, gseed: int, data: Any) -> None:
        shrinking = bool(best)          # after the first failure, every game is a shrink replay
        if shrinking and time_up():
            raise _ShrinkTimeUp()

        def choose(k: int) -> int:
            if shrinking and time_up():
                raise _ShrinkTimeUp()
            return int(data.draw(st.integers(0, k - 1)))

        before = len(prog.coverage or ())
        labels: list[str] = []
        try:
            s = _play(prog, n, gseed, choose, max_decisions, labels, options)
        except _Broken as exc:
            if not shrinking:
                played[0] += 1
                note("game")
            record(exc.finding)
            raise
        if not shrinking:
            played[0] += 1
            if s.ended_by == "limit":
                at_limit[0] += 1
            note("game")
        target(float(len(prog.coverage or ()) - before), label="new rule lines reached")

    stopped = False
    try:
        game()
    except _Broken:
        pass
    except _ShrinkTimeUp:
        stopped = True
    finally:
        covered = prog.coverage or set()
        prog.coverage = None
    return _Part(min(played[0], games), best[0] if best else None, covered, options,
                 at_limit[0], stopped)


def _report(prog: Program, games: int, finding: Optional[Finding], covered: set,
            options: dict, at_limit: int, stopped: bool = False) -> Report:
    """The report of an exploration: the finding (located as played), the coverage of the
    reachable bodies, the options never chosen."""
    unchosen = [UnchosenOptions(where, prompt, sorted(offered - chosen))
                for (where, prompt), (offered, chosen) in sorted(options.items())
                if offered - chosen]
    if finding is not None and finding.kind in ("runtime error", "deadlock"):
        finding.span = _span_as_played(prog, finding) or finding.span
    reach = reachable_bodies(prog)
    # the steps: ops of the reachable bodies that run a rulebook line (not the jumps and
    # returns the compiler adds, which no report line could name)
    steps = {(b, pc) for b in reach for pc, sp in enumerate(prog.spans[b]) if sp.line > 0}
    return Report(games, finding, _uncovered(prog, covered, reach), len(steps),
                  len(steps & covered), unchosen, ended_at_limit=at_limit,
                  round_limit=round_limit(prog),
                  other_ending=prog.rb.stages[-1].end is not None or _can_end_game(prog, reach),
                  shrink_stopped=stopped)


LOOKAHEAD = 24        # options tried per decision by the novelty search (a random few of more)


def explore_novelty(prog: Program, games: int, seed: int = 0, players: Optional[int] = None,
                    max_decisions: int = 20_000,
                    on_game: Optional[Callable[[int], None]] = None,
                    workers: int = 1) -> Report:
    """Play `games` games steered toward rules not yet run: at every decision each option (up
    to LOOKAHEAD of them) is tried on a fork, and the option whose consequences — up to the
    next decision — run the most rule steps no game of its run has run yet is taken (ties, and
    decisions where nothing new is in reach, at random). A broken rule is reported as found
    (not shrunk: these games are not Hypothesis's to shrink). The games are runs of
    NOVELTY_SHARD_GAMES games (the k-th from part_seed(seed, k)) on `workers` processes,
    merged up to the first run that found a broken rule: the same report for any number of
    workers."""
    from mercator.interpreter.tools.parallel import run_parts

    def run(part: tuple[int, int], note: Callable[..., None]) -> _Part:
        k, n = part
        return _novelty_part(prog, n, part_seed(seed, k), players, max_decisions, note)
    parts = run_parts(run, _parts(games, NOVELTY_SHARD_GAMES), workers, _counting(on_game),
                      last=lambda p: p.finding is not None)
    return _merge(prog, parts, games)


def _novelty_part(prog: Program, games: int, seed: int, players: Optional[int],
                  max_decisions: int, note: Callable[..., None]) -> _Part:
    """One run of the novelty search (see explore_novelty); note("game") after each game."""
    import random
    rng = random.Random(seed)
    covered: set = set()
    prog.coverage = covered
    lo, hi = (players, players) if players else (prog.min_players, prog.max_players)
    options: dict = {}
    finding: Optional[Finding] = None
    played = at_limit = 0

    def looking(s: State) -> int:
        node = s.pending
        n = node.count
        if n == 1:
            return 0
        tried = list(range(n)) if n <= LOOKAHEAD else rng.sample(range(n), LOOKAHEAD)
        best: list[int] = []
        most = 0
        for i in tried:
            fork = s.clone()
            prog.coverage = set()
            try:
                prog.apply(fork, i)
                gain = len(prog.coverage - covered)
            except RuleError:
                gain = len(prog.coverage - covered) + 1      # a failure is worth finding
            if gain > most:
                best, most = [i], gain
            elif gain == most and gain > 0:
                best.append(i)
        prog.coverage = covered
        return rng.choice(best) if best else rng.randrange(n)

    try:
        for _ in range(games):
            n, gseed = rng.randint(lo, hi), rng.randrange(2**31)
            try:
                s = _play(prog, n, gseed, rng.randrange, max_decisions, [], options, looking)
            except _Broken as exc:
                played += 1
                finding = exc.finding
                note("game")
                break
            played += 1
            at_limit += s.ended_by == "limit"
            note("game")
    finally:
        prog.coverage = None
    return _Part(played, finding, covered, options, at_limit)


def _span_as_played(prog: Program, f: Finding) -> Optional[A.Span]:
    """Where the failing game's error is when it is played as `play` and `replay` play it
    (without the coverage tracing that runs the ops one by one, which can stop a runaway loop
    at another op), so every command names the same place."""
    try:
        s = prog.new_game(f.players, f.seed)
        for i in f.decisions:
            prog.apply(s, i)
    except RuleError as exc:
        return exc.span
    return None


def round_limit(prog: Program) -> Optional[int]:
    """The last round's `limit` (a number, or the value of the constant it names), if it has one:
    the limit at which a game ends (an earlier round's limit moves on to the next round)."""
    limit = prog.rb.stages[-1].decl.max_rounds
    return int(prog.consts[limit]) if isinstance(limit, str) else limit


def _body_nodes(b: Body) -> Iterator[Any]:
    for part in (b.block, b.expr, b.cond):
        if part is not None:
            yield from A.walk(part)


def _bodies(prog: Program) -> dict[int, Body]:
    """Every body of the compiled rulebook, by its id in the program."""
    rb = prog.rb
    every = ([rb.setup] if rb.setup is not None else []) + list(rb.phases) + \
        list(rb.procs.values()) + list(rb.triggers) + list(rb.actions)
    return {prog.body_id[(b.kind, b.name)]: b for b in every}


def reachable_bodies(prog: Program) -> set[int]:
    """Ids of the bodies a game can run: the main loop, setup, phases, triggers and any-time
    actions, and every procedure they call, directly or through other procedures."""
    rb = prog.rb
    bodies = _bodies(prog)
    roots = [i for i, b in bodies.items() if b.kind != "proc"]
    seen = {0, *roots}
    todo = list(roots)
    while todo:
        for n in _body_nodes(bodies[todo.pop()]):
            if isinstance(n, (A.Call, A.CallStmt)) and n.name in rb.procs \
                    and rb.refs.get(id(n), ("proc",))[0] == "proc":
                bid = prog.proc_id[n.name]
                if bid not in seen:
                    seen.add(bid)
                    todo.append(bid)
    return seen


def _can_end_game(prog: Program, reach: set[int]) -> bool:
    """Whether a body the game can run has an 'end game' statement."""
    return any(isinstance(n, A.EndGame) for i, b in _bodies(prog).items() if i in reach
               for n in _body_nodes(b))


def _uncovered(prog: Program, covered: set[tuple[int, int]], reach: set[int]) -> list[Uncovered]:
    """The bodies with lines no game ran. A body no rule can call is listed only when it is in
    the rulebook's own files (the checked file, or the base of a variant): a used library's
    procedures that the game does not call are not the game's rules."""
    own = {prog.rb.path, prog.rb.game.span.path}
    out = []
    for b, spans in enumerate(prog.spans):
        if b == 0:
            continue
        where = next((sp.path for sp in spans if sp.line > 0), "")
        if b not in reach and where not in own:
            continue
        missed = sorted({sp.line for pc, sp in enumerate(spans)
                         if (b, pc) not in covered and sp.line > 0})
        ran = any((b, pc) in covered for pc in range(len(spans)))
        if missed:
            out.append(Uncovered(f"{prog.body_names[b]} ({where})", missed, not ran, b in reach))
    return out
