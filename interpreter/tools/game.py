"""The front door: `load_game(name_or_path)` loads, checks and compiles a rulebook into a Game;
`Game.new_game(players, seed)` starts a GameState with the methods a caller needs (legal
options, apply, clone, result, observe as a seat). Python users (as mercator.load_game), the
CLI and the research adapters load games through it (docs/python.md).

A game is loaded and compiled once per process for the same files: loading it again reads its
files and returns the same Game while every text is unchanged.
"""
from __future__ import annotations

import os
from typing import Any, Optional, Union

import attrs

from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.diagnostics import Diagnostic, RulebookError
from mercator.dsl.load_cache import LRU
from mercator.dsl.loader import LoadResult, load, unchanged
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.nodes import Chance, Decision, Option, Terminal
from mercator.interpreter.engine.program import Node, PlayerCountError, Program
from mercator.interpreter.engine.state import State
from mercator.interpreter.engine.view import describe, observe
from mercator.interpreter.tools.rulebooks import find_rulebook

NameOrPath = Union[str, "os.PathLike[str]"]


@attrs.frozen
class GameSpec:
    """What a game is, before any is played: its name, file, and how many may play it."""

    name: str
    path: str
    min_players: int
    max_players: int
    variant_of: Optional[str] = None      # a variant's base rulebook file

    @property
    def player_counts(self) -> range:
        """Every number of players the rulebook allows."""
        return range(self.min_players, self.max_players + 1)


def load_game(name_or_path: NameOrPath) -> "Game":
    """The game a rulebook file describes: a shipped rulebook's short name ("manila",
    "manila_pirates") or a path (str or pathlib.Path) to a game or a variant file.
    UnknownRulebook for a name that is neither; RulebookError (with every located diagnostic)
    when the file cannot be read, does not check or is a library; RuleError when a rule fails
    while compiling (a constant that cannot be computed)."""
    path = str(find_rulebook(os.fspath(name_or_path)))
    key = (path, os.path.abspath(path))
    kept = _GAMES.get(key)
    if kept is not None and unchanged(kept.sources):
        return kept
    game = game_of(load(path))
    _GAMES.put(key, game)
    return game


def game_of(res: LoadResult) -> "Game":
    """The Game of a rulebook loaded by dsl.loader.load: RulebookError unless it checked
    (warnings allowed); the program compiled once per process for the same files."""
    if res.rulebook is None or not res.ok:
        if res.library:
            path = next(iter(res.sources), "")
            raise RulebookError(res.diagnostics, res.sources,
                                f"{path}: error: this is a library (declarations only, no "
                                "'game'); it can only be used by a game ('use \"...\"')")
        raise RulebookError(res.diagnostics, res.sources)
    key = tuple(sorted(res.sources.items()))
    prog = _PROGRAMS.get(key)
    if prog is None:
        prog = compile_program(res.rulebook)
        _PROGRAMS.put(key, prog)
    return Game(res, prog)


_PROGRAMS: LRU[tuple[tuple[str, str], ...], Program] = LRU(16)
_GAMES: LRU[tuple[str, str], "Game"] = LRU(16)     # by path, while its files read the same


class Game:
    """A rulebook loaded, checked and compiled: what it is (`spec`, `min_players`,
    `max_players`, `player_counts`) and a maker of games (`new_game`, `load_state`)."""

    def __init__(self, loaded: LoadResult, program: Program):
        assert loaded.rulebook is not None
        self.loaded = loaded
        self.program = program
        rb = loaded.rulebook
        base = loaded.base.rulebook.path if loaded.base and loaded.base.rulebook else None
        self.spec = GameSpec(program.name, rb.path, program.min_players, program.max_players,
                             base)

    @property
    def name(self) -> str:
        """The game's name as its rulebook gives it (a variant's with its own name added)."""
        return self.spec.name

    @property
    def path(self) -> str:
        """The rulebook file."""
        return self.spec.path

    @property
    def min_players(self) -> int:
        """The fewest players the rulebook allows."""
        return self.spec.min_players

    @property
    def max_players(self) -> int:
        """The most players the rulebook allows."""
        return self.spec.max_players

    @property
    def player_counts(self) -> range:
        """Every number of players the rulebook allows."""
        return self.spec.player_counts

    @property
    def rulebook(self) -> CheckedRulebook:
        """The checked rulebook (the language's view of the game)."""
        rb = self.loaded.rulebook
        assert rb is not None
        return rb

    @property
    def sources(self) -> dict[str, str]:
        """The text of every file the game was read from, by path."""
        return self.loaded.sources

    @property
    def warnings(self) -> list[Diagnostic]:
        """The checker's warnings (a game with warnings still loads)."""
        return [d for d in self.loaded.diagnostics if d.severity == "warning"]

    def new_game(self, players: Optional[int] = None, seed: int = 0, *, narrate: bool = False,
                 explicit_chance: bool = False) -> "GameState":
        """A fresh game for `players` seats (default: the fewest allowed) from `seed`, run up to
        its first decision. narrate=True keeps what each seat saw (observe's log, information
        states); explicit_chance=True makes every die roll and draw a Chance node the caller
        resolves. PlayerCountError for a number of players the rulebook does not allow."""
        n = self.min_players if players is None else players
        state = self.program.new_game(n, seed, narrate=narrate, explicit_chance=explicit_chance)
        return GameState(self, state)

    def load_state(self, data: dict[str, Any]) -> "GameState":
        """A game saved with GameState.to_json(), to play on from where it was."""
        state = State.from_json(data)
        self.program.resume(state)
        return GameState(self, state)

    def __repr__(self) -> str:
        return f"<Game {self.name!r} {self.min_players}-{self.max_players} players ({self.path})>"


class GameState:
    """One game being played: the engine's State (`state`, a value) and the Game it belongs to.
    Equal positions compare and hash equal."""

    __slots__ = ("game", "state")

    def __init__(self, game: Game, state: State):
        self.game = game
        self.state = state

    @property
    def over(self) -> bool:
        """Has the game ended?"""
        return self.state.over

    @property
    def pending(self) -> Node:
        """What happens next: a Decision (who decides among which options), a Chance node
        (only with explicit_chance) or, once the game is over, the Terminal result."""
        node = self.state.pending
        assert node is not None
        return node

    @property
    def current_player(self) -> int:
        """The seat (0-based) that must decide now; -1 at a Chance node or when over."""
        node = self.pending
        return node.player if isinstance(node, Decision) else -1

    @property
    def is_chance(self) -> bool:
        """Must chance pick the next outcome (explicit_chance only)?"""
        return isinstance(self.pending, Chance)

    def legal_options(self) -> list[Option]:
        """The legal options in their stable order, with readable labels (a Chance node's
        outcomes; none when the game is over). apply takes an index into this list."""
        node = self.pending
        return [] if isinstance(node, Terminal) else node.options

    def apply(self, choice: Union[int, str, Option]) -> Node:
        """Make the pending decision (or resolve the Chance node): an option's index, its label
        or the Option; returns what is pending next. IllegalChoice (the state unchanged) for a
        choice that is not legal; RuleError (located) when a rule fails while the game runs on."""
        return self.game.program.apply(self.state, choice)

    def clone(self) -> "GameState":
        """An independent copy (a fork: what happens to one does not touch the other)."""
        return GameState(self.game, self.state.clone())

    @property
    def result(self) -> Optional[Terminal]:
        """The result once the game is over (scores, tie-breaks, winners, ranking), else None."""
        node = self.state.pending
        return node if isinstance(node, Terminal) else None

    @property
    def history(self) -> list[int]:
        """The option index of every choice made so far (with the seed: the whole game)."""
        return list(self.state.history)

    @property
    def num_players(self) -> int:
        """How many seats play."""
        return self.state.num_players

    def observe(self, seat: Optional[int] = None) -> dict[str, Any]:
        """What `seat` (0-based; None: a spectator) sees, as JSON-able data: the fields its
        visibility declarations show it, what is pending as shown to it and, in a game started
        with narrate=True, the log of what it saw happen."""
        return observe(self.game.program, self.state, seat)

    def describe(self, seat: Optional[int] = None) -> str:
        """observe(seat) as text for a person."""
        return describe(self.game.program, self.state, seat)

    def information_state(self, seat: int) -> tuple[int, str]:
        """A hashable key of everything `seat` has observed (narrate=True games)."""
        return self.state.information_state(seat)

    def playout(self, rng: Any, max_decisions: Optional[int] = None) -> int:
        """Play on with uniformly random choices from rng (a random.Random) until the end or
        max_decisions more decisions; how many were made (Program.playout)."""
        return self.game.program.playout(self.state, rng, max_decisions)

    def to_json(self) -> dict[str, Any]:
        """The state as JSON-able data (Game.load_state reads it back)."""
        return self.state.to_json()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameState) and other.game.program is self.game.program and \
            other.state == self.state

    def __hash__(self) -> int:
        return hash(self.state)

    def __repr__(self) -> str:
        return f"<GameState of {self.game.name!r} {self.state!r}>"


__all__ = ["Game", "GameSpec", "GameState", "NameOrPath", "PlayerCountError", "game_of",
           "load_game"]
