"""What one game did, recorded for the balance measures (tools/balance.py) when asked
(`play_one(..., detail=True)`): each seat's standing as the game went, how many times each rule
ran, and which option each seat took at each decision.

The standing is what the engine offers for an unfinished position: `Program.estimates`, the
rulebook's `estimate` where it declares one (docs/language.md §2.19b), else its `score`
expression evaluated on the current state. It is taken at the start (after setup) and after
every decision of a seat; a point is kept only where some seat's value changed, so a game's
trajectory is a short list of (moves so far, round, values).

The rules run are counted by the mechanism `mercator check --explore` measures rule coverage
with (`Program.coverage`: every op run is reported as (body, pc)): a body is entered when its
first op runs, and only while the game itself runs — a searching seat's look-ahead runs with
the tracing off (and at full speed).

Everything kept is small and plain (tuples of ints and strings): a GameDetail travels back from
worker processes with its Outcome."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import attrs

from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.state import State


@attrs.frozen
class GameDetail:
    """One game's detail (see the module's doc).

    trajectory: (moves made so far, round, each seat's value) at the start and wherever a value
    changed, the round being the one the last move was made in (the standing at the end of
    round r is the last point of a round <= r); `sign` 1 when the highest value leads, -1 when
    the lowest does (`lowest wins`); `by` "estimate" or "score" (what the values are). fired:
    (rule, times it ran), for the rules that ran. chosen: (seat, decision, option label, times
    taken); offered: (seat, decision, times the seat made that decision) — both only over
    decisions with two options or more. moves: the decisions the seats made (chance not
    counted)."""

    moves: int
    sign: int = 1
    by: str = "score"
    trajectory: tuple[tuple[int, int, tuple[Any, ...]], ...] = ()
    fired: tuple[tuple[str, int], ...] = ()
    chosen: tuple[tuple[int, str, str, int], ...] = ()
    offered: tuple[tuple[int, str, int], ...] = ()


def detail_to_json(d: GameDetail) -> dict[str, Any]:
    """A game's detail as a results file keeps it (tools/results.py; lists for tuples)."""
    return {"moves": d.moves, "sign": d.sign, "by": d.by,
            "trajectory": [[m, r, list(v)] for m, r, v in d.trajectory],
            "fired": [list(x) for x in d.fired], "chosen": [list(x) for x in d.chosen],
            "offered": [list(x) for x in d.offered]}


def detail_from_json(obj: Any) -> GameDetail:
    """detail_to_json's dict back; TypeError or KeyError for what is not one."""
    if not isinstance(obj, dict):
        raise TypeError("a game's detail that is not an object")
    return GameDetail(int(obj["moves"]), int(obj["sign"]), str(obj["by"]),
                      tuple((int(m), int(r), tuple(v)) for m, r, v in obj["trajectory"]),
                      tuple((str(n), int(k)) for n, k in obj["fired"]),
                      tuple((int(p), str(key), str(lab), int(k))
                            for p, key, lab, k in obj["chosen"]),
                      tuple((int(p), str(key), int(k)) for p, key, k in obj["offered"]))


def rule_names(prog: Program) -> list[str]:
    """Every rule a game can be counted running: each setup, phase, procedure, trigger and
    any-time action ("phase bid", "trigger lucky"), not the main loop."""
    return list(prog.body_names[1:])


def decision_key(node: Any) -> str:
    """What a decision is known by across games: its prompt, or where it is written."""
    prompt = getattr(node, "prompt", "") or ""
    if prompt:
        return prompt
    span = getattr(node, "span", None)
    line = getattr(span, "line", 0) if span is not None else 0
    return f"choice at line {line}"


class _Fired(set):  # type: ignore[type-arg]
    """Program.coverage counting body entries instead of collecting (body, pc): an entry is a
    run of the body's first op, but for the op a decision or a chance step suspended at, which
    runs again as the game resumes there: at once (the op just run, `last`), or after an
    any-time action the seat took at that decision (`resume`: where the game stood when the
    seat was asked). A procedure whose first op calls itself counts as entered once: its
    frames' first ops run one after the other, and the key tells no frame from another."""

    def __init__(self, bodies: int):
        super().__init__()
        self.counts = [0] * bodies
        self.last: Optional[tuple[int, int]] = None
        self.resume: Optional[tuple[int, int]] = None

    def add(self, key: tuple[int, int]) -> None:
        if key[1] == 0 and key != self.last and key != self.resume:
            self.counts[key[0]] += 1
        if key == self.resume:
            self.resume = None
        self.last = key


class _Quiet:
    """A seat's agent, choosing with the rule counting off (its search is not the game)."""

    def __init__(self, agent: Any, recorder: "Recorder"):
        self.agent = agent
        self.recorder = recorder

    def choose(self, program: Any, state: State) -> int:
        prog = self.recorder.prog
        if state.stack:              # the frame asking: it resumes at this op
            self.recorder.fired.resume = (state.stack[-1][0], state.stack[-1][1])
        saved, prog.coverage = prog.coverage, None
        try:
            return int(self.agent.choose(program, state))
        finally:
            prog.coverage = saved


class Recorder:
    """Records a GameDetail while a game is played: `start()` before new_game, `begin(state)`
    after it, `agents(...)` and `step` to play_out, `stop()` always (it restores the program's
    coverage), `detail()` at the end."""

    def __init__(self, prog: Program):
        self.prog = prog
        self.fired = _Fired(len(prog.body_names))
        self.saved: Any = None
        self.moves = 0
        self.round = 0                 # the round of the next decision
        self.points: list[tuple[int, int, tuple[Any, ...]]] = []
        self.chosen: dict[tuple[int, str, str], int] = {}
        self.offered: dict[tuple[int, str], int] = {}

    def start(self) -> None:
        self.saved, self.prog.coverage = self.prog.coverage, self.fired

    def stop(self) -> None:
        self.prog.coverage = self.saved

    def agents(self, agents: Sequence[Any]) -> list[Any]:
        return [_Quiet(a, self) for a in agents]

    def _point(self, state: State, round_: int) -> None:
        saved, self.prog.coverage = self.prog.coverage, None
        try:
            values = tuple(self.prog.estimates(state))
        except RuleError:              # a value not computable here: the last one stands
            return
        finally:
            self.prog.coverage = saved
        if not self.points or self.points[-1][2] != values:
            if self.points and self.points[-1][0] == self.moves:
                self.points[-1] = (self.moves, round_, values)
            else:
                self.points.append((self.moves, round_, values))

    def begin(self, state: State) -> None:
        self.round = state.round
        self._point(state, state.round)

    def step(self, state: State, node: Any, index: int, label: str) -> None:
        """play_out's on_step: after every choice (a chance outcome included)."""
        if node.player >= 0:
            self.moves += 1
            if node.count >= 2:
                key = decision_key(node)
                seat = node.player
                self.offered[(seat, key)] = self.offered.get((seat, key), 0) + 1
                self.chosen[(seat, key, label)] = self.chosen.get((seat, key, label), 0) + 1
        made_in, self.round = self.round, state.round
        self._point(state, made_in)

    def detail(self) -> GameDetail:
        names = self.prog.body_names
        return GameDetail(
            self.moves, self.prog.key_signs[0] if self.prog.key_signs else 1,
            "estimate" if self.prog.estimate_f is not None else "score",
            tuple(self.points),
            tuple((names[b], c) for b, c in enumerate(self.fired.counts) if b and c),
            tuple((s, k, lab, c) for (s, k, lab), c in sorted(self.chosen.items())),
            tuple((s, k, c) for (s, k), c in sorted(self.offered.items())))
