"""OpenSpiel: every rulebook a pyspiel Python game (the optional extra `mercator[openspiel]`).

    import mercator.interpreter.research.openspiel          # registers the games
    game = pyspiel.load_game("mercator", {"rulebook": "manila", "players": 4})
    game = pyspiel.load_game("mercator_manila")    # the same, at its smallest player count

Importing this module registers one game `mercator` whose parameter `rulebook` is a shipped
rulebook's short name or a path, and one game `mercator_NAME` per shipped game and variant.
Parameters: `rulebook`, `players` (0: the rulebook's smallest count), `utility` ("win": 1
shared among the winners, 0 to the others; "score": the final scores), `seed` (the game's seed:
with chance as explicit chance nodes it only matters for what the rules draw without a node).

Actions are the ids of interpreter/engine/encoding.py: a decision whose options are compound
values (a boat and a number of steps) is taken one id at a time by the same player (the ids
all the options left agree on taken by the adapter, without an apply_action), and the ids
taken so far are part of the state (and of that player's information state: nobody else sees
them). Chance nodes are the rulebook's rolls, draws and shuffle steps, outcomes with their
probabilities. The game runs without narration (no label is formatted on the way); the record
of what each seat has seen is made when an information state is asked for, by replaying the
steps since it was last made (`_Told`). Information states are that record
(State.information_state), as strings (the lines the seat was shown, then the engine's digest
of its information state), and as tensors (engine/infostate.py: the view, the ids taken, and
the game's decisions as rows, each option's ids where the seat saw it); observations are its
view, as a string (engine/view.describe) and as a tensor (engine/observation.py, kept per seat
and rewritten where the view changed: engine/seat_tensors.py, then the ids the seat has taken
of the decision it is making). `resample_from_infostate` draws a world the player cannot tell
from the real one (Program.resample), for OpenSpiel's ISMCTS; `ismcts_bot` and `resampler`
make that bot's worlds come from its seed. Serialisation is OpenSpiel's own: the list of
actions from the start (the game is a function of them).
"""
from __future__ import annotations

import itertools
import random
from typing import Any, Optional

import numpy as np
import pyspiel

from mercator.interpreter.engine.encoding import ActionCodec
from mercator.interpreter.engine.infostate import DecisionLog, InfoStateEncoder
from mercator.interpreter.engine.menu import Menu
from mercator.interpreter.engine.nodes import Chance
from mercator.interpreter.engine.observation import Observer
from mercator.interpreter.engine.resample import Trace
from mercator.interpreter.engine.seat_tensors import SeatTensors
from mercator.interpreter.engine.seen import render
from mercator.interpreter.engine.view import describe
from mercator.interpreter.agents.search import hidden_information
from mercator.interpreter.research.common import ResearchError, program_for
from mercator.interpreter.research.openspiel_bots import (  # noqa: F401  (mercator.openspiel)
    RolloutEvaluator, ismcts_bot, resampler)
from mercator.interpreter.tools.rulebooks import games

DEFAULTS: dict[str, Any] = {"rulebook": "manila", "players": 0, "utility": "win", "seed": 0}


def _game_type(short_name: str, prog: Any, utility: str) -> Any:
    rb = prog.rb
    constant = utility == "win" and rb.eligible is None
    return pyspiel.GameType(
        short_name=short_name,
        long_name=f"Mercator: {rb.game.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION
        if hidden_information(prog) else pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM if constant
        else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=rb.game.max_players,
        min_num_players=rb.game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(DEFAULTS, rulebook=short_name[len("mercator_"):]
                                     if short_name != "mercator" else DEFAULTS["rulebook"]))


class _Setup:
    """What one (rulebook, players, utility, seed) needs at run time: kept here, not on the
    game object (OpenSpiel rebuilds a deserialised game from its parameters only)."""

    def __init__(self, short_name: str, params: dict):
        self.key = (short_name, dict(params))
        p = dict(DEFAULTS)
        if short_name != "mercator":
            p["rulebook"] = short_name[len("mercator_"):]
        p.update(params or {})
        self.rulebook_name = str(p["rulebook"])
        self.prog = prog = program_for(self.rulebook_name)
        g = prog.rb.game
        n = int(p["players"]) or g.min_players
        if not g.min_players <= n <= g.max_players:
            raise ResearchError(f"{g.name} is for {g.min_players}–{g.max_players} players, "
                                f"not {n}")
        utility = str(p["utility"])
        if utility not in ("win", "score"):
            raise ResearchError(f"utility '{utility}': use 'win' or 'score'")
        self.players, self.utility, self.seed = n, utility, int(p["seed"])
        self.codec = ActionCodec(prog, n)
        spec = self.codec.spec()
        if spec.max_game_length is None:
            raise ResearchError(f"{g.name}: OpenSpiel needs the longest game: declare "
                                "bounds { decisions N  lists N } in the rulebook "
                                "(docs/language.md §2.20b)")
        if utility == "score":
            if spec.score_bounds is None:
                raise ResearchError(f"{g.name}: utility 'score' needs bounds {{ score LO..HI }}")
            lo, hi = float(spec.score_bounds[0]), float(spec.score_bounds[1])
        else:
            lo, hi = 0.0, 1.0
        self.spec = spec
        self.params = p
        self.observer = Observer(prog, n)
        self.seat_tensors = SeatTensors(self.observer)     # observation tensors, kept per seat
        self.infostate = InfoStateEncoder(prog, n, self.codec, self.observer)
        self.start: Optional[Any] = None    # the first position, cloned for each new game
        self.told: Optional[Any] = None     # the same, narrated (the start of every record)
        steps = spec.max_steps_per_decision
        assert steps is not None            # max_game_length needs it
        self.steps = steps
        self.info = pyspiel.GameInfo(
            num_distinct_actions=spec.num_distinct_actions,
            max_chance_outcomes=spec.max_chance_outcomes,
            num_players=n, min_utility=lo, max_utility=hi,
            utility_sum=1.0 if utility == "win" and prog.rb.eligible is None else None,
            max_game_length=spec.max_game_length)
        self.game_type = _game_type(short_name, prog, utility)

    def __reduce__(self) -> tuple:
        return (_setup, self.key)          # a pickled state finds its setup again

    def __deepcopy__(self, memo: Any) -> "_Setup":
        return self                        # one per game's parameters (see _Position)

_SETUPS: dict[tuple, _Setup] = {}
_TERMINAL = pyspiel.PlayerId.TERMINAL
_CHANCE = pyspiel.PlayerId.CHANCE


def _setup(short_name: str, params: Optional[dict]) -> _Setup:
    key = (short_name, tuple(sorted((k, str(v)) for k, v in (params or {}).items())))
    su = _SETUPS.get(key)
    if su is None:
        su = _SETUPS[key] = _Setup(short_name, dict(params or {}))
    return su


class MercatorGame(pyspiel.Game):
    """One rulebook at one player count as an OpenSpiel game (`mercator`; a subclass per
    shipped rulebook is registered as `mercator_NAME`, its SHORT_NAME)."""

    SHORT_NAME = "mercator"

    def __init__(self, params: Optional[dict] = None):
        su = _setup(self.SHORT_NAME, params)
        super().__init__(su.game_type, su.info, su.params)

    @property
    def su(self) -> _Setup:
        """This game's setup, found again by its parameters (once per game object)."""
        su = self.__dict__.get("_su")
        if su is None:
            su = self.__dict__["_su"] = _setup(self.SHORT_NAME, self.get_parameters())
        return su

    def new_initial_state(self) -> "MercatorState":
        """The start of a game."""
        su = self.su
        if su.start is None:               # OpenSpiel asks for one per tensor-shape query
            su.start = su.prog.new_game(su.players, su.seed, explicit_chance=True)
        # a new game, with a number of its own: the worlds a search draws in it come from
        # this game's traces (_trace), never from those of a game played before
        return MercatorState(self, su.start.clone(), None, (), next(_GAME_IDS))

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: Any = None) -> "MercatorObserver":
        """Observations and information states, as strings and tensors."""
        return MercatorObserver(self.su, iig_obs_type, params)


_LAST: list = [None, None]     # the last position rebuilt: (key, history), State


def _replayed(rulebook: str, players: int, seed: int, history: list[int]) -> "_Position":
    """The position after `history` from the start (what a pickled position is rebuilt from).
    A history that extends the last one rebuilt goes on from a copy of it: deserialising the
    states of one game in order (as OpenSpiel's tests do) replays each step once."""
    prog = program_for(rulebook)
    key = (rulebook, players, seed)
    last, s0 = _LAST
    if last is not None and last[0] == key and history[:len(last[1])] == last[1]:
        s, done = s0.clone(), len(last[1])
    else:
        s, done = prog.new_game(players, seed, explicit_chance=True), 0
    for i in history[done:]:
        prog.apply(s, i)
    _LAST[0], _LAST[1] = (key, list(history)), s.clone()
    return _Position(rulebook, seed, s)


_TRACES: dict[tuple, Trace] = {}
TRACES_KEPT = 8
_GAME_IDS = itertools.count(1)      # each game new_initial_state starts (its clones share it)


def _trace(su: "_Setup", s: Any, seat: int, game: int) -> Trace:
    """The resampling trace of seat `seat` at position s of game number `game`. A search draws
    many worlds at one position (OpenSpiel's ISMCTS one per simulation) and then moves on in
    the same game: the trace is kept per game and seat, and brought up to a later position by
    replaying only the new steps (Trace.extend). The game's number keeps a trace of a game
    played before from ever serving a new one (a search's worlds would depend on what was
    searched before, not on its seed); the clones of a state keep its number (pyspiel's
    clone() makes a new initial state, then copies the attributes into it)."""
    key = (su.rulebook_name, su.players, su.seed, game, seat)
    t = _TRACES.get(key)
    if t is not None and t.extend(s):
        return t
    if t is None and len(_TRACES) >= TRACES_KEPT:
        _TRACES.pop(next(iter(_TRACES)))
    t = _TRACES[key] = Trace(su.prog, s, seat)
    return t


class _Position:
    """An engine State that pickles as its log of steps (OpenSpiel serialises a Python game's
    state by pickling it; the engine's state holds the compiled closures of the node it
    waits at)."""

    __slots__ = ("rulebook", "seed", "s")

    def __init__(self, rulebook: str, seed: int, s: Any):
        self.rulebook = rulebook
        self.seed = seed
        self.s = s

    def __reduce__(self) -> tuple:
        return (_replayed, (self.rulebook, len(self.s.players), self.seed,
                            list(self.s.history)))

    def __deepcopy__(self, memo: Any) -> "_Position":
        # pyspiel's State.clone() of a Python state makes a new initial state and gives it a
        # deep copy of each attribute of this one's: a position is copied by the engine's
        # clone, not rebuilt through __reduce__ by replaying the game (which it was until
        # session 44: 0.4 ms a clone in Manila, more than a whole simulation of OpenSpiel's
        # MCTS)
        return _Position(self.rulebook, self.seed, self.s.clone())


class _Told:
    """The narrated copy of a game (the engine's record of what each seat has seen, and the
    decisions as rows for the tensors) at some step of it: made only when an information state
    is asked for, and then brought up to the asking state by replaying its new steps. Shared
    by a state and its clones (`shared`): a shared copy is copied before it is advanced."""

    __slots__ = ("s", "log", "n", "shared", "lines")

    def __init__(self, s: Any, log: DecisionLog, n: int,
                 lines: Optional[dict[int, tuple[int, list[str]]]] = None):
        self.s = s
        self.log = log
        self.n = n
        self.shared = False
        # per seat: (record entries rendered, the lines the seat was shown of them)
        self.lines = {p: (k, list(ls)) for p, (k, ls) in (lines or {}).items()}

    def seen_by(self, seat: int) -> list[str]:
        """The lines of the record `seat` was shown (engine/seen.py render), up to now: the
        lines rendered before kept, only the entries since rendered."""
        k, lines = self.lines.get(seat, (0, []))
        rec = self.s.record
        for entry in rec[k:]:
            line = render(entry, seat)
            if line is not None:
                lines.append(line)
        self.lines[seat] = (len(rec), lines)
        return lines

    def __reduce__(self) -> tuple:
        return (_untold, ())        # a pickled state makes its record again when asked

    def __deepcopy__(self, memo: Any) -> "_Told":
        self.shared = True          # a clone shares it until one of them moves on
        return self


def _untold() -> None:
    return None


class MercatorState(pyspiel.State):
    """An engine State (run without narration: no labels are formatted on the way) plus the
    ids taken so far of the decision it waits at, and a `_Told`, the game's record up to some
    earlier step, brought up to date when an information state is asked for (None until
    then; the clones of a state share it until one of them moves on)."""

    def __init__(self, game: MercatorGame, s: Any, told: Optional[_Told],
                 taken: tuple[int, ...] = (), game_number: int = 0):
        super().__init__(game)
        self._game = game_number              # which game (new_initial_state's) it is of
        su = self._setup = game.su
        self._pos = _Position(su.rulebook_name, su.seed, s)
        self._told = told
        self._taken = taken
        self._m: Optional[Menu] = None        # the menu of the node it waits at
        # who is to move (pyspiel asks at every step, several times: kept, and made again
        # only when a decision or chance node is taken)
        self._who = self._mover()

    # -- the position
    @property
    def _su(self) -> _Setup:
        return self._setup

    @property
    def _s(self) -> Any:
        return self._pos.s

    def _record(self) -> _Told:
        """The game's record up to this state: the told copy this state holds, advanced by
        the steps taken since (a shared one copied first), or made from the start."""
        su = self._su
        t = self._told
        history = self._s.history
        if t is not None and len(t.s.history) == len(history):
            return t
        if t is None:
            if su.told is None:
                su.told = su.prog.new_game(su.players, su.seed, narrate=True,
                                           explicit_chance=True)
            t = _Told(su.told.clone(), su.infostate.new_log(), 0)
        elif t.shared:
            t = _Told(t.s.clone(), t.log, t.n, t.lines)
        for i in history[len(t.s.history):]:
            t.log, t.n = su.infostate.apply(t.s, t.log, t.n, i)
        self._told = t
        return t

    def _menu(self) -> Menu:
        if self._m is None:
            self._m = self._setup.codec.menu(self._pos.s, self._pos.s.pending)
        return self._m

    def current_player(self) -> int:
        return self._who

    def _mover(self) -> int:
        s = self._pos.s
        if s.over:
            return _TERMINAL
        node = s.pending
        if isinstance(node, Chance):
            return _CHANCE
        return node.player

    def _legal_actions(self, player: int) -> list[int]:
        return self._menu().legal(self._taken)   # pybind copies it into a vector

    # pyspiel's own legal_actions and is_chance_node call back into Python for each part of
    # the answer (legal_actions: is_terminal, current_player twice, then _legal_actions, its
    # list copied into a vector and back: 3.5 µs in Manila, against 0.3 here); a caller in
    # Python (OpenSpiel's Python algorithms, the benchmark) gets the same answers from these,
    # C++ code keeps its own path
    def legal_actions(self, player: Optional[int] = None) -> list[int]:
        """pyspiel's State.legal_actions: at a player's decision, that player's legal ids (a
        new list, the caller's); the rest (the end, chance, another seat) as pyspiel says."""
        who = self.current_player()
        if who >= 0 and (player is None or player == who):
            return self._menu().legal(self._taken)[:]
        return super().legal_actions() if player is None else super().legal_actions(player)

    def is_chance_node(self) -> bool:
        """pyspiel's State.is_chance_node, without the round trip through C++."""
        return self.current_player() == _CHANCE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        node = self._pos.s.pending
        assert isinstance(node, Chance)
        return self._menu().outcomes(node.weights, self._taken)

    def _apply_action(self, action: int) -> None:
        taken, i = self._menu().take(self._taken, int(action))
        if i is None:
            self._taken = taken
            return
        self._setup.prog.apply(self._pos.s, i)
        self._taken = ()
        self._m = None
        self._who = self._mover()

    def _action_to_string(self, player: int, action: int) -> str:
        return self._su.codec.names[action]

    def is_terminal(self) -> bool:
        return self._who == _TERMINAL

    def returns(self) -> list[float]:
        n = self._su.players
        if not self._s.over:
            return [0.0] * n
        end = self._su.prog.result(self._s)
        if self._su.utility == "score":
            return [float(x) for x in end.scores]
        share = 1.0 / len(end.winners) if end.winners else 0.0
        return [share if p in end.winners else 0.0 for p in range(n)]

    # -- what a player knows
    def _own_taken(self, player: int) -> str:
        return " ".join(map(str, self._taken)) if self.current_player() == player else ""

    def information_state_string(self, player: Optional[int] = None) -> str:
        """What `player` knows, as text: the lines of the game's record it was shown, in order
        (its own choices with their labels, the others' as far as it may see them), then the
        line `record DIGEST`, the engine's key of its information state
        (State.information_state: the lines, its own option indices and its view after every
        step), then `|` and the ids it has taken of the decision it is making. Two states give
        the same string exactly when the player cannot tell them apart."""
        if player is None:
            player = self.current_player()
        t = self._record()
        lines = t.seen_by(player)
        return "\n".join(lines + [f"record {t.s.information_state(player)[1]}"]) + \
            f"|{self._own_taken(player)}"

    def observation_string(self, player: Optional[int] = None) -> str:
        if player is None:
            player = self.current_player()
        return f"{describe(self._su.prog, self._s, player)}|{self._own_taken(player)}"

    def resample_from_infostate(self, player: int, sampler: Any) -> "MercatorState":
        """A world `player` cannot tell from this one (Program.resample), with every seat's
        record (the search keys other players' nodes by their information states too)."""
        prog = self._su.prog
        rng = random.Random(int(sampler() * 2 ** 31) if callable(sampler) else 0)
        world = _trace(self._su, self._record().s, player, self._game).sample(rng)
        full = prog.new_game(self._su.players, self._su.seed, explicit_chance=True)
        for i in world.history:
            prog.apply(full, i)
        return MercatorState(self.get_game(), full, None, self._taken, self._game)

    def _rows(self) -> tuple[DecisionLog, int]:
        """The log of this game's decisions (from its record)."""
        t = self._record()
        return t.log, t.n

    def __deepcopy__(self, memo: Any) -> "MercatorState":
        if self._told is not None:
            self._told.shared = True
        return MercatorState(self.get_game(), self._s.clone(), self._told, self._taken,
                             self._game)

    def __str__(self) -> str:
        return f"{self._s.digest()}|{' '.join(map(str, self._taken))}"


class MercatorObserver:
    """The PyObserver of OpenSpiel. Without perfect recall (observations): the seat's view as a
    string and as a tensor (engine/observation.py: the view laid out by the fields' types, then
    the ids the seat has taken of the decision it is making). With perfect recall (information
    states): the seat's whole record as a string, and as a tensor its view, the ids taken, and
    the game's decisions so far as rows (engine/infostate.py)."""

    def __init__(self, su: "_Setup", iig_obs_type: Any, params: Any):
        if params:
            raise ResearchError(f"observation parameters are not supported: {params}")
        self.su = su
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        if self.perfect_recall:
            layout = su.infostate.layout()
            size = su.infostate.total
        else:
            layout = [(name, off, (n,)) for name, off, n in su.observer.layout()]
            layout.append(("taken", su.observer.total, (su.steps,)))
            size = su.observer.total + su.steps
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, Any] = {}
        for name, offset, shape in layout:
            self.dict[name] = self.tensor[offset:offset + int(np.prod(shape))].reshape(shape)

    def set_from(self, state: "MercatorState", player: int) -> None:
        self.tensor.fill(0.0)
        taken = state._taken if state.current_player() == player else ()
        if self.perfect_recall:
            t = state._record()
            view = self.su.seat_tensors.tensor(t.s, player)
            self.su.infostate.fill(self.tensor, t.s, player, t.log, t.n, taken, view)
            return
        total = self.su.observer.total
        self.tensor[:total] = self.su.seat_tensors.tensor(state._s, player)
        for k, a in enumerate(taken):
            self.tensor[total + k] = a + 1

    def string_from(self, state: "MercatorState", player: int) -> str:
        return state.information_state_string(player) if self.perfect_recall \
            else state.observation_string(player)


def _register() -> None:
    base = program_for(DEFAULTS["rulebook"])
    pyspiel.register_game(_game_type("mercator", base, "win"), MercatorGame)
    for name in games():
        short = f"mercator_{name}"
        try:
            prog = program_for(name)
        except ResearchError:
            continue

        # a class, not a closure: OpenSpiel keeps what is registered until the process ends,
        # and a Python function kept there crashes the interpreter's shutdown
        game = type(f"MercatorGame_{name}", (MercatorGame,), {"SHORT_NAME": short})
        pyspiel.register_game(_game_type(short, prog, "win"), game)


_register()
