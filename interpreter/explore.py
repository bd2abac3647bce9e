"""Guided exploration of a rulebook: Hypothesis plays many games over player counts, seeds and
decision sequences, checks the invariants after every decision, shrinks any failure to the
shortest game that shows it, and reports which rules no explored game reached."""
from __future__ import annotations

from typing import Any, Callable, Optional

import attrs
from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import seed as hyp_seed
from hypothesis import strategies as st

from dsl import ast as A
from interpreter.program import MercatorRuntimeError, Program
from interpreter.state import State


@attrs.define
class Finding:
    """A broken rule: what, where, and the (shrunk) game that shows it."""

    kind: str                 # invariant | runtime error | deadlock | never ends
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


@attrs.define
class UnchosenOptions:
    """A decision (by its rule line) and the options it offered that no explored game chose."""

    where: str
    prompt: str
    never: list[str]


@attrs.define
class Report:
    """What exploring found: the first failure (shrunk), coverage, and how much was played."""

    games: int
    finding: Optional[Finding]
    uncovered: list[Uncovered]
    ops_total: int
    ops_run: int
    unchosen: list[UnchosenOptions] = attrs.field(factory=list)


class _Broken(Exception):
    def __init__(self, finding: Finding):
        super().__init__(finding.message)
        self.finding = finding


MAX_OPTIONS_TRACKED = 16      # decisions with more options (bids, positions) are not listed


def _play(prog: Program, n: int, gseed: int, choose: Callable[[int], int], max_decisions: int,
          labels: list[str], options: Optional[dict] = None) -> State:
    """One game; raises _Broken on the first broken rule."""
    history: list[int] = []

    def broken(kind: str, msg: str, span: Optional[A.Span] = None) -> _Broken:
        return _Broken(Finding(kind, msg, n, gseed, list(history), list(labels), span))

    try:
        s = prog.new_game(n, gseed)
        while not s.over:
            node = s.pending
            if len(history) >= max_decisions:
                raise broken("never ends", f"no end after {max_decisions} decisions")
            i = choose(node.count)
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
        return s
    except MercatorRuntimeError as exc:
        kind = "deadlock" if "no options" in exc.message else "runtime error"
        raise broken(kind, exc.message, exc.span) from None


def explore(prog: Program, games: int, seed: int = 0, players: Optional[int] = None,
            max_decisions: int = 20_000, on_game: Optional[Callable[[int], None]] = None) -> Report:
    """Play `games` Hypothesis-chosen games; shrink the first failure; measure rule coverage."""
    prog.coverage = set()
    lo, hi = (players, players) if players else (prog.min_players, prog.max_players)
    found: list[Finding] = []
    played = [0]
    options: dict = {}

    @hyp_seed(seed)
    @settings(max_examples=games, database=None, deadline=None, derandomize=False,
              phases=[Phase.generate, Phase.target, Phase.shrink], report_multiple_bugs=False,
              suppress_health_check=list(HealthCheck))
    @given(n=st.integers(lo, hi), gseed=st.integers(0, 2**31 - 1), data=st.data())
    def game(n: int, gseed: int, data: Any) -> None:
        before = len(prog.coverage or ())
        labels: list[str] = []
        try:
            _play(prog, n, gseed, lambda k: data.draw(st.integers(0, k - 1)), max_decisions,
                  labels, options)
        except _Broken as exc:
            found.append(exc.finding)        # the last one recorded is the shrunk one
            raise
        played[0] += 1
        if on_game is not None:
            on_game(played[0])
        target(float(len(prog.coverage or ()) - before), label="new rule lines reached")

    try:
        game()
    except _Broken:
        pass
    finally:
        covered = prog.coverage or set()
        prog.coverage = None
    unchosen = [UnchosenOptions(where, prompt, sorted(offered - chosen))
                for (where, prompt), (offered, chosen) in sorted(options.items())
                if offered - chosen]
    return Report(played[0], found[-1] if found else None, _uncovered(prog, covered),
                  sum(len(c) for c in prog.codes), len(covered), unchosen)


def _uncovered(prog: Program, covered: set[tuple[int, int]]) -> list[Uncovered]:
    out = []
    for b, spans in enumerate(prog.spans):
        if b == 0:
            continue
        missed = sorted({sp.line for pc, sp in enumerate(spans)
                         if (b, pc) not in covered and sp.line > 0})
        ran = any((b, pc) in covered for pc in range(len(spans)))
        if missed:
            where = next((sp.path for sp in spans if sp.line > 0), "")
            out.append(Uncovered(f"{prog.body_names[b]} ({where})", missed, not ran))
    return out
