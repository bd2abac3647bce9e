"""A game session over a compiled program, for any interface (the browser, later the terminal).

A session holds who sits where (`human` or a bot kind), the seed, and every position of the game
so far: ``steps[k]`` is the state after k decisions, ``steps[-1]`` the live one. Positions are
never changed once kept (a move applies to a clone), so stepping back through the game (the
timeline) and undo are list operations. A seat sees a position only through `view`: the engine's
observation for that seat (interpreter/engine/view.py) plus the options it is offered, nothing
else.

Undo (`undo`): a human seat may take back its own last decision, together with the bots'
decisions that followed it, as long as no other human has decided since. That covers a game
against bots (a training game: take back any of your moves, one after another) and a hot-seat
game (a player takes back a move before the next person has acted). A session started with
``undo=False`` refuses it, and so does a replay.
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Callable, Optional, Sequence

from mercator.interpreter.agents.base import Agent, agent_seed, resolve_chance
from mercator.interpreter.agents.spec import (KINDS, AgentSpec, SpecError, check_values,
                                              for_rulebook, make_agent, parse_seats, parse_spec)
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.program import IllegalChoice
from mercator.interpreter.engine.state import State
from mercator.interpreter.engine.people import people
from mercator.interpreter.tools.rules_text import rules_summary
from mercator.interpreter.engine.seen import readable_log
from mercator.interpreter.engine.declared_view import (declared_view, option_notes, option_targets,
                                                          option_words)
from mercator.interpreter.engine.view_summary import changed_marks, score_breakdown, view_changes
from mercator.interpreter.engine.view import observe
from mercator.interpreter.tools.saves import SaveData, load_save, replay, save
from mercator.dsl.errors import MercatorError

HUMAN = "human"
SEAT_KINDS = KINDS                  # each seat: a spec of agents/spec.py (human, random, ismcts:N, …)
MAX_BOT_DECISIONS = 1_000_000       # bots that never reach a human or the end: a runaway rulebook
MAX_LABEL_CHARS = 1_000             # a choice sent as a label longer than this names no option


class SessionError(MercatorError):
    """A request the session refuses: a message in the user's terms and a hint what to do."""

    def __init__(self, message: str, hint: str = "", status: int = 400):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.status = status        # the HTTP status an interface over the network would use


class RuleFailure(SessionError):
    """The rulebook failed while running (a rule error); the game cannot go on from there."""


def parse_seat_kinds(text: Optional[str], players: int) -> list[str]:
    """Seats from 'human,random,ismcts:200,...' (default: P1 human, the others random), each
    as its spec's text; SessionError for a spec that names no player or the wrong number of
    seats."""
    if text is None:
        return [HUMAN] + ["random"] * (players - 1)
    try:
        return [str(sp) for sp in parse_seats(text, players)]
    except SpecError as exc:
        raise SessionError(str(exc), "e.g. --seats " + ",".join([HUMAN] + ["random"] *
                                                                (players - 1))) from None


def _spec(kind: str) -> AgentSpec:
    try:
        return parse_spec(kind)
    except SpecError as exc:
        raise SessionError(str(exc), f"valid kinds: {', '.join(SEAT_KINDS)}") from None


def _bots(seats: Sequence[str], seed: int, program: Any) -> dict[int, Agent]:
    """The bots of the seats that are not a person's (a searcher with the rulebook's `bots`
    settings where its spec names none)."""
    specs = {i: _spec(k) for i, k in enumerate(seats) if k != HUMAN}
    try:                        # (a learned evaluation of another rulebook or player count)
        check_values(list(specs.values()), program, len(seats))
    except SpecError as exc:
        raise SessionError(str(exc), exc.hint) from None
    return {i: make_agent(for_rulebook(sp, program.bot_settings), agent_seed(seed, i))
            for i, sp in specs.items()}


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _number_or_label(text: str, offered: str) -> Any:
    """A choice sent as text: an option number (ASCII digits only: int() also reads '²' or
    Arabic-Indic digits, and refuses numbers of more than 4300 digits) or else a label."""
    number = text.strip()
    if re.fullmatch(r"-?[0-9]+", number, flags=re.ASCII):
        if len(number) > 18:
            raise SessionError(f"illegal move: option {number[:12]}… ({len(number)} digits) "
                               "is out of range", offered)
        return int(number)
    if len(text) > MAX_LABEL_CHARS:
        raise SessionError(f"illegal move: no option has a label of {len(text)} characters",
                           offered)
    return text


def undo_point(movers: Sequence[int], seat: int,
               human: Callable[[int], bool]) -> tuple[Optional[int], Optional[str]]:
    """Where an undo by `seat` goes back to: (the index of its last decision in `movers`, who
    made each decision, -1 for chance; None) or (None, why it may not). A seat takes back only
    its own last decision and the bots' and chance's after it: never another person's, so once
    another human has decided after it, it stands (the browser and the terminal alike)."""
    mine = next((k for k in range(len(movers) - 1, -1, -1) if movers[k] == seat), None)
    if mine is None:
        return None, f"P{seat + 1} has made no decision to take back"
    later = {m for m in movers[mine + 1:] if m >= 0 and human(m)}
    if later:
        names = ", ".join(f"P{m + 1}" for m in sorted(later))
        return None, f"{names} decided after P{seat + 1}'s last move: it can no longer be taken back"
    return mine, None


class GameSession:
    """One game being played, watched or replayed; see the module docstring."""

    def __init__(self, program: Any, players: int, seed: int, seats: Sequence[str],
                 rulebook_path: str = "", sources: Optional[dict[str, str]] = None,
                 undo: bool = True, explicit_chance: bool = False):
        if len(seats) != players:
            raise SessionError(f"{len(seats)} seat kinds for {players} players")
        specs = [_spec(k) for k in seats]
        explicit_chance = explicit_chance or any(sp.needs_record for sp in specs)
        self.program = program
        self.players = players
        self.seed = seed
        self.seats = list(seats)
        self.rulebook_path = rulebook_path
        self.sources = dict(sources or {})
        self.undo_allowed = undo
        self.replaying = False
        self.bots: dict[int, Agent] = _bots(seats, seed, program)
        self.steps: list[State] = [program.new_game(players, seed, narrate=True,
                                                    explicit_chance=explicit_chance)]
        self.movers: list[int] = []         # who made decision k (-1: chance)
        self.labels: list[str] = []         # the label of decision k's option
        self.save_path: Optional[str] = None
        self.advance_bots()

    # ------------------------------------------------------------ building
    @classmethod
    def from_save(cls, program: Any, data: SaveData, seats: Optional[Sequence[str]] = None,
                  sources: Optional[dict[str, str]] = None, replaying: bool = True) -> "GameSession":
        """A session holding every position of a saved game (checked by saves.replay): a replay to
        step through (`replaying`), or a game to go on with from where it was saved."""
        kinds = list(seats) if seats is not None else [HUMAN] * data.players
        self = cls.__new__(cls)
        self.program, self.players, self.seed = program, data.players, data.seed
        self.seats = kinds
        if len(kinds) != data.players:
            raise SessionError(f"the seats {','.join(kinds)} do not fit the saved "
                               f"{data.players}-player game")
        if any(_spec(k).needs_record for k in kinds) and not data.explicit_chance:
            raise SessionError("an ismcts seat needs a game that keeps its chance as steps, and "
                               "this save was not played so", "go on with random seats")
        self.rulebook_path, self.sources = data.rulebook, dict(sources or {})
        self.undo_allowed = not replaying
        self.replaying = replaying
        self.bots = _bots(kinds, data.seed, program)
        self.save_path = None
        final, _ = replay(program, data)
        self.steps, self.movers, self.labels = [], [], []
        state = program.new_game(data.players, data.seed, narrate=True,
                                 explicit_chance=data.explicit_chance)
        self.steps.append(state)
        for idx in final.history:
            node = state.pending
            state = state.clone()
            self.labels.append(node.option(idx).label)
            self.movers.append(node.player)
            program.apply(state, idx)
            self.steps.append(state)
        if not replaying:
            self.advance_bots()
        return self

    @classmethod
    def load(cls, program: Any, path: str, seats: Optional[Sequence[str]] = None,
             replaying: bool = True) -> "GameSession":
        """A session from a save file (saves.SaveError when it cannot be trusted)."""
        return cls.from_save(program, load_save(path), seats=seats, replaying=replaying)

    # ------------------------------------------------------------ the game
    @property
    def state(self) -> State:
        """The live position (do not change it: apply moves through `move`)."""
        return self.steps[-1]

    @property
    def decisions(self) -> list[int]:
        """The decision log so far (option indices), enough to replay the game."""
        return list(self.state.history)

    def to_decide(self) -> Optional[int]:
        """The seat that must decide now (0-based), or None (game over, or chance)."""
        node = self.state.pending
        return node.player if isinstance(node, Decision) else None

    def human(self, seat: int) -> bool:
        """Is this seat played by a person?"""
        return self.seats[seat] == HUMAN

    def _apply(self, idx: int, nxt: Optional[State] = None) -> None:
        """Apply option `idx` of the pending node to a clone of the live state (or to `nxt`, a
        clone made already) and keep it."""
        node = self.state.pending
        nxt = self.state.clone() if nxt is None else nxt
        label = node.option(idx).label
        try:
            self.program.apply(nxt, idx)
        except RuleError as exc:
            span = exc.span
            where = f"{span.path}:{span.line}:{span.col}: " if span is not None and span.line > 0 \
                else ""
            what = f"P{node.player + 1}'s choice" if isinstance(node, Decision) else "chance"
            log = exc.history or [*self.state.history, idx]
            raise RuleFailure(f"{where}rule error: {exc.message}",
                              f"the rulebook failed on {what} '{label}' (seed {self.seed}, "
                              f"decisions {log}); the game stays where it was", status=500) from None
        self.steps.append(nxt)
        self.movers.append(node.player if isinstance(node, Decision) else -1)
        self.labels.append(label)

    def advance_bots(self) -> int:
        """Let the bots (and explicit chance) decide until a human must, or the game ends; the
        number of decisions made."""
        made = 0
        while not self.state.over and made < MAX_BOT_DECISIONS:
            node = self.state.pending
            if isinstance(node, Chance):      # drawn from the state's own generator, as play_out
                nxt = self.state.clone()
                self._apply(resolve_chance(nxt), nxt)
            elif node.player in self.bots:
                self._apply(self.bots[node.player].choose(self.program, self.state))
            else:
                break
            made += 1
        self._autosave()
        return made

    def move(self, seat: int, choice: Any) -> str:
        """Seat `seat` chooses `choice` (an option index or label) at its decision; then the bots
        play on. The chosen option's label; SessionError (the game unchanged) if not legal."""
        if self.replaying:
            raise SessionError("this is a replay of a saved game: no move can be made",
                               "step through it with the timeline", status=409)
        if not 0 <= seat < self.players:
            raise SessionError(f"there is no seat P{seat + 1} in this {self.players}-player game",
                               status=404)
        if not self.human(seat):
            raise SessionError(f"P{seat + 1} is played by a bot ({self.seats[seat]})", status=403)
        node = self.state.pending
        if isinstance(node, Terminal) or self.state.over:
            raise SessionError("the game is over: no more moves", "start a new game", status=409)
        if not isinstance(node, Decision) or node.player != seat:
            who = f"P{node.player + 1}" if isinstance(node, Decision) else "chance"
            raise SessionError(f"it is not P{seat + 1}'s turn: {who} is to decide",
                               "wait for your turn (the page updates by itself)", status=409)
        offered = f"choose one of the options offered (0 to {node.count - 1}, or a label)"
        if isinstance(choice, str):
            choice = _number_or_label(choice, offered)
        try:
            idx = self.program.resolve_choice(node, choice)
        except IllegalChoice as exc:
            raise SessionError(f"illegal move: {exc}", offered) from None
        label = node.option(idx).label
        kept = len(self.steps)
        try:
            self._apply(idx)
            self.advance_bots()
        except RuleFailure as exc:     # a bot's or chance's step after this move failed:
            del self.steps[kept:], self.movers[kept - 1:], self.labels[kept - 1:]
            raise RuleFailure(exc.message, f"{exc.hint}, before P{seat + 1}'s move "
                              f"'{label}': choose again", status=500) from None
        return label

    # ------------------------------------------------------------ undo
    def undo_refusal(self, seat: Optional[int]) -> Optional[str]:
        """Why `seat` may not undo now (None: it may)."""
        if self.replaying:
            return "this is a replay: nothing to undo"
        if not self.undo_allowed:
            return "undo is off in this game"
        if seat is None or not 0 <= seat < self.players:
            return "a spectator cannot undo"
        if not self.human(seat):
            return f"P{seat + 1} is a bot"
        return undo_point(self.movers, seat, self.human)[1]

    def _last_decision_of(self, seat: int) -> Optional[int]:
        for k in range(len(self.movers) - 1, -1, -1):
            if self.movers[k] == seat:
                return k
        return None

    def undo(self, seat: int) -> int:
        """Take back seat's last decision and the bots' decisions after it; how many decisions
        were taken back. SessionError when not allowed (see undo_refusal)."""
        why = self.undo_refusal(seat)
        if why is not None:
            raise SessionError(f"cannot undo: {why}", "undo takes back only your own last move, "
                               "before another person has moved", status=409)
        k = self._last_decision_of(seat)
        assert k is not None
        gone = len(self.movers) - k
        del self.steps[k + 1:], self.movers[k:], self.labels[k:]
        self._autosave()
        return gone

    # ------------------------------------------------------------ what a seat sees
    def step_index(self, step: Optional[int]) -> int:
        """A timeline position (None: the live one; negative counts from the end)."""
        n = len(self.steps)
        if step is None:
            return n - 1
        k = step + n if step < 0 else step
        if not 0 <= k < n:
            raise SessionError(f"there is no step {step}: this game has steps 0 to {n - 1}",
                               "use a step from the timeline", status=404)
        return k

    def options(self, seat: Optional[int], step: Optional[int] = None) -> list[dict[str, Any]]:
        """The options `seat` may choose from now (empty unless it is that human's live turn)."""
        k = self.step_index(step)
        node = self.steps[k].pending
        if self.replaying or k != len(self.steps) - 1 or seat is None or \
                not isinstance(node, Decision) or node.player != seat or not self.human(seat):
            return []
        out = []
        notes = option_notes(self.program, self.steps[k], node, seat)
        words = option_words(self.program, self.steps[k], node)
        targets = option_targets(self.program, self.steps[k], node)
        for i, o in enumerate(node.options):
            kind = "action" if o.action is not None else "pass" if (i == 0 and node.allow_pass) \
                else "value"
            # label: the option's name (saves, '#N'); words: what a person is shown
            # targets: the named things it acts on, for the page to highlight in the view
            out.append({"index": i, "label": o.label, "words": words[i], "kind": kind,
                        "note": notes[i] or "", "targets": targets[i]})
        return out

    def _since_last_move(self, seat: Optional[int], k: int) -> int:
        """Where in `seat`'s log at step k the lines after its last decision begin (0: it has
        not decided yet, or a spectator: everything)."""
        if seat is None:
            return 0
        for j in range(k - 1, -1, -1):
            if self.movers[j] == seat:
                return len(readable_log(self.steps[j + 1].record, seat))
        return 0

    def _changes(self, seat: Optional[int], k: int, now: Any
                 ) -> tuple[list[str], dict[str, list[str]]]:
        """What changed in `seat`'s declared view between its last decision before step k and
        step k, in lines, and as marks for the page to highlight (view_summary.changed_marks);
        nothing for a spectator, or before the seat's first decision."""
        if seat is None or now is None:
            return [], {}
        for j in range(k - 1, -1, -1):
            if self.movers[j] == seat:
                before = declared_view(self.program, self.steps[j], seat)
                return view_changes(before, now, seat), changed_marks(before, now)
        return [], {}

    def log(self, seat: Optional[int], step: Optional[int] = None) -> list[str]:
        """The game's log up to a step as `seat` saw it (None: as a spectator)."""
        s = self.steps[self.step_index(step)]
        return readable_log(s.record, seat)

    def view(self, seat: Optional[int], step: Optional[int] = None) -> dict[str, Any]:
        """What `seat` (0-based; None = spectator) sees at a step: the engine's observation (and
        the rulebook's declared view, or None: engine/declared_view.py), the options offered, the seats' kinds, the timeline, whether it may undo, and a digest of
        all of it (changes exactly when the view does)."""
        k = self.step_index(step)
        obs = observe(self.program, self.steps[k], seat)
        if "log" in obs:                        # the page's log in words (engine/people.py)
            words = people(self.program, self.steps[k]).label
            obs["log_words"] = [words(line) for line in obs["log"]]
        obs["declared"] = declared_view(self.program, self.steps[k], seat)
        obs["rules"] = rules_summary(self.program, self.rulebook_path or "the rulebook")
        obs["seats"] = [{"seat": f"P{i + 1}", "kind": kind} for i, kind in enumerate(self.seats)]
        obs["step"] = k
        obs["steps"] = len(self.steps) - 1
        obs["live"] = k == len(self.steps) - 1 and not self.replaying
        obs["replay"] = self.replaying
        obs["options"] = self.options(seat, k)
        obs["can_undo"] = obs["live"] and self.undo_refusal(seat) is None
        obs["new_from"] = self._since_last_move(seat, k)
        obs["changes"], obs["marks"] = self._changes(seat, k, obs["declared"])
        obs["breakdown"] = score_breakdown(self.program, self.steps[k], seat) \
            if self.steps[k].over else None
        obs["digest"] = _digest(obs)
        return obs

    # ------------------------------------------------------------ saving
    def save(self, path: str) -> None:
        """Write the game so far to `path` (interpreter/tools/saves.py's format)."""
        save(path, self.rulebook_path, self.sources, self.players, self.seed, self.decisions,
             list(self.labels), self.state.explicit_chance)

    def _autosave(self) -> None:
        if self.save_path is not None and not self.replaying:
            self.save(self.save_path)
