"""PettingZoo: every rulebook an AEC environment (the optional extra `mercator[pettingzoo]`).

    from mercator.interpreter.research.pettingzoo import env
    e = env(rulebook="manila", players=4)
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else \\
            e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are `player_0` .. `player_{n-1}`, one per seat. Actions are the ids of
interpreter/engine/encoding.py (a `Discrete` space of the vocabulary's size): a decision whose
options are compound values is taken one id at a time by the same agent. An observation is a
dict: `observation`, the seat's tensor (engine/observation.py: what its view shows, laid out by
the fields' types) followed by the ids it has taken so far of the decision it is making (each
id + 1), and `action_mask`, 1 for each legal id (all zero for an agent that is not to move).
The observation space is a Box with the range of every cell (engine/observation_bounds.py: a
flag 0..1, a number within the rulebook's `bounds { values LO..HI }`, an id taken
0..vocabulary size); the cells are the game's own numbers (Die Händler's money in Taler, in
the thousands) unless `normalize=True`, which scales every cell by its range into 0..1. Chance is not an
agent: the game's own seeded generator draws it, so `reset(seed=S)` plays the same game for the
same actions. Rewards come at the end: 1 shared among the winners (utility "win", the default)
or the final scores (utility "score"). `render_mode="ansi"` returns the view of the agent to
move as text; "human" prints it.
"""
from __future__ import annotations

import random
from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from mercator.interpreter.engine.encoding import ActionCodec
from mercator.interpreter.engine.menu import Menu
from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.observation import Observer
from mercator.interpreter.engine.observation_bounds import cell_bounds
from mercator.interpreter.engine.seat_tensors import SeatTensors
from mercator.interpreter.engine.view import describe
from mercator.interpreter.research.common import ResearchError, program_for

MASKS_KEPT = 4096              # action masks of menus remembered per environment


def env(rulebook: str = "manila", players: Optional[int] = None, utility: str = "win",
        render_mode: Optional[str] = None, normalize: bool = False) -> "MercatorEnv":
    """The AEC environment of a rulebook (a shipped one's short name, or a path)."""
    return MercatorEnv(rulebook, players, utility, render_mode, normalize)


class MercatorEnv(AECEnv):
    """One rulebook at one player count as a PettingZoo AEC environment."""

    RENDER_MODES = ("ansi", "human")
    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "name": "mercator_v0",
                                "is_parallelizable": False}

    def __init__(self, rulebook: str = "manila", players: Optional[int] = None,
                 utility: str = "win", render_mode: Optional[str] = None,
                 normalize: bool = False):
        super().__init__()
        self.prog = prog = program_for(rulebook)
        g = prog.rb.game
        n = players or g.min_players
        if not g.min_players <= n <= g.max_players:
            raise ResearchError(f"{g.name} is for {g.min_players}–{g.max_players} players, "
                                f"not {n}")
        if utility not in ("win", "score"):
            raise ResearchError(f"utility '{utility}': use 'win' or 'score'")
        if render_mode is not None and render_mode not in self.RENDER_MODES:
            raise ResearchError(f"render_mode '{render_mode}': use 'ansi' or 'human'")
        self.players, self.utility, self.render_mode = n, utility, render_mode
        self.codec = ActionCodec(prog, n)
        self.observer = Observer(prog, n)
        steps = self.codec.max_steps()
        if steps is None:
            raise ResearchError(f"{g.name}: the observation holds the ids taken of a decision: "
                                "declare bounds { lists N } (docs/language.md §2.20b)")
        self.steps = steps
        # each seat's tensor kept with room for the ids taken (0) after it: an observation is
        # a copy of it
        self.seat_tensors = SeatTensors(self.observer, steps)
        self.metadata = dict(self.metadata, name=f"mercator_{g.name}_v0")
        self.possible_agents = [f"player_{p}" for p in range(n)]
        self._seat_of = {a: p for p, a in enumerate(self.possible_agents)}
        self.agents = self.possible_agents[:]
        size = self.observer.total + steps
        self._size = size
        low, high = cell_bounds(self.observer)          # the view's cells, then the ids taken
        low = np.concatenate([low, np.zeros(steps, np.float32)])
        high = np.concatenate([high, np.full(steps, self.codec.size, np.float32)])
        self.normalize = normalize
        if normalize:                    # every cell scaled by its range into 0..1
            if not np.isfinite(high - low).all():
                raise ResearchError(f"{g.name}: normalize needs the range of every number "
                                    "the observation shows: declare bounds { values LO..HI }")
            self._low, self._scale = low, (high - low)
            low, high = np.zeros(size, np.float32), np.ones(size, np.float32)
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(low, high, shape=(size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(self.codec.size,), dtype=np.int8)})
        self._act_space = spaces.Discrete(self.codec.size)
        self._s: Any = None
        self._taken: tuple[int, ...] = ()
        self._m: Optional[Menu] = None           # the menu of the decision to make
        self._legal_now: Optional[list[int]] = None
        self._cleared = False                    # rewards zeroed since the reset
        # the game's moves so far (reset and apply count one each), and per seat the move
        # count at its last look and its kept tensor then: within a decision taken id by id
        # nothing the tensor shows changes, so it is not looked at again
        self._moves = 0
        self._seen: list[tuple[int, Any]] = [(-1, None)] * n
        # the action mask of a menu with nothing taken, by the menu (copied for each
        # observation; the menu kept beside so that its id stays its own)
        self._masks: dict[int, tuple[Menu, np.ndarray]] = {}

    # -- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._act_space

    # -- the game
    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        game_seed = seed if seed is not None else random.randrange(2 ** 31)
        self._s = self.prog.new_game(self.players, game_seed)
        self._moves += 1
        self._taken, self._m, self._legal_now = (), None, None
        self._cleared = False
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        node = self._s.pending
        if isinstance(node, Decision):
            self.agent_selection = self.possible_agents[node.player]
        if self._s.over:
            end = self.prog.result(self._s)
            if self.utility == "score":
                got = [float(x) for x in end.scores]
            else:
                share = 1.0 / len(end.winners) if end.winners else 0.0
                got = [share if p in end.winners else 0.0 for p in range(self.players)]
            for p, a in enumerate(self.possible_agents):
                self.rewards[a] = got[p]
                self.terminations[a] = True

    def _menu(self) -> Menu:
        if self._m is None:
            self._m = self.codec.menu(self._s, self._s.pending)
        return self._m

    def _legal(self) -> list[int]:
        """The ids legal now (the menu's own list: read it, never change it)."""
        if self._legal_now is None:
            self._legal_now = self._menu().legal(self._taken)
        return self._legal_now

    def _mask(self) -> np.ndarray:
        """A new action mask of the ids legal now (the first mask of a menu the codec
        remembers made once)."""
        m = self._menu()
        if self._taken or not m.remembered:
            return self._new_mask(self._legal())
        known = self._masks.get(id(m))
        if known is None or known[0] is not m:
            if len(self._masks) >= MASKS_KEPT:
                self._masks.clear()
            known = self._masks[id(m)] = (m, self._new_mask(m.first))
        return known[1].copy()

    def _new_mask(self, ids: list[int]) -> np.ndarray:
        """The action mask of ids: its bytes set one by one, then seen as an int8 array (for
        a dozen ids 0.9 µs against numpy's 1.8 for np.zeros and `mask[ids] = 1`)."""
        b = bytearray(self.codec.size)
        for a in ids:
            b[a] = 1
        return np.frombuffer(b, np.int8)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = int(action)
        legal = self._legal()
        if a not in legal:
            raise ResearchError(f"action {a} ({self._name(a)}) is not legal for {agent} now; "
                                f"legal: {legal[:12]}{' ...' if len(legal) > 12 else ''} "
                                "(use the observation's action_mask)")
        self._cumulative_rewards[agent] = 0.0
        if not self._cleared:            # rewards come only at the end: zeroed once a game
            self._clear_rewards()
            self._cleared = True
        taken, i = self._menu().take(self._taken, a)
        self._legal_now = None
        if i is None:
            self._taken = taken
        else:
            self.prog.apply(self._s, i)
            self._moves += 1
            self._taken, self._m = (), None
            self._select()
            if self._s.over:
                self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _name(self, a: int) -> str:
        return self.codec.names[a] if 0 <= a < self.codec.size else "no such id"

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation: new arrays, the caller's to keep."""
        seat = self._seat_of[agent]
        seen = self._seen[seat]
        if seen[0] != self._moves:
            seen = self._seen[seat] = (self._moves, self.seat_tensors.tensor(self._s, seat))
        obs = seen[1].copy()             # (the view's cells, then `steps` cells of 0)
        if agent == self.agent_selection and not self._s.over:
            total = self.observer.total
            for k, a in enumerate(self._taken):
                obs[total + k] = a + 1
            mask = self._mask()
        else:
            mask = np.zeros(self.codec.size, dtype=np.int8)
        if self.normalize:
            obs = ((obs - self._low) / self._scale).astype(np.float32)
        return {"observation": obs, "action_mask": mask}

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            return None
        seat = self.possible_agents.index(self.agent_selection)
        text = describe(self.prog, self._s, seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
