"""Agents that make decisions (random bots; the terminal human is in human.py) and a loop that
plays a game out."""
from __future__ import annotations

import hashlib
import random
from typing import Any, Callable, Optional, Protocol, Sequence, cast

from mercator.interpreter.engine.chance import weighted_index
from mercator.interpreter.agents.human import (HumanAgent, QuitGame, format_menu,  # noqa: F401
                                      match_choice)
from mercator.interpreter.engine.nodes import Chance, Decision, no_deal_index
from mercator.interpreter.engine.state import State
from mercator.dsl.errors import MercatorError

__all__ = ["Agent", "GameTooLong", "HumanAgent", "QuitGame", "RandomAgent", "agent_seed",
           "format_menu", "match_choice", "play_game", "play_out", "resolve_chance"]


class Agent(Protocol):
    """Anything that picks an option index for the decision pending in a state."""

    def choose(self, program: Any, state: State) -> int:
        """The index of the chosen option of state.pending."""
        ...


def agent_seed(game_seed: int, seat: int) -> int:
    """A bot's seed derived from the game seed and its seat (stable across runs and machines)."""
    digest = hashlib.sha256(f"mercator-agent:{game_seed}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


class GameTooLong(MercatorError):
    """A game went on for more decisions than allowed (a rulebook that may never end)."""


class RandomAgent:
    """Chooses uniformly among the legal options, with its own seeded generator."""

    def __init__(self, seed: Any = 0):
        self.rng = random.Random(seed)

    def choose(self, program: Any, state: State) -> int:
        """A uniformly random option index."""
        return self.rng.randrange(state.pending.count)


class PreferAgent(RandomAgent):
    """Plays the option the rulebook prefers most (`prefer`, docs/language.md; ties at random);
    uniformly at random where it declares no preference for the decision. A preference reads
    only what the chooser may see (the checker's E162), so this plays honestly."""

    def choose(self, program: Any, state: State) -> int:
        """The most preferred regular option (in a deal window whose offers a preference
        covers, the casual trader's step: DealSpec.casual); in another deal window, no deal (it
        posts nothing and accepts nothing); else a uniformly random option."""
        pend = state.pending
        preferred = getattr(program, "preferred", None)
        if preferred is not None and isinstance(pend, Decision):
            i = preferred(state, pend.count - len(pend.actions), self.rng)
            if i >= 0:
                return i
            i = no_deal_index(pend)
            if i >= 0:
                return i
        return self.rng.randrange(pend.count)


def resolve_chance(state: State) -> int:
    """Pick an outcome of an explicit chance node with the state's own generator, each with its
    probability (weight / total)."""
    weights = state.pending.weights
    return weighted_index(weights, state.randbelow(sum(weights)))


StepHook = Callable[[State, Any, int, str], None]


def play_out(program: Any, state: State, agents: Sequence[Agent],
             on_step: Optional[StepHook] = None, max_decisions: Optional[int] = None) -> State:
    """Play `state` to the end; on_step(state, node, index, label) runs after every choice."""
    if len(agents) != state.num_players:
        raise ValueError(f"{len(agents)} agents for {state.num_players} players")
    if on_step is None and all(type(a) is RandomAgent for a in agents) \
            and hasattr(program, "playout"):
        # random bots only, nothing to report between choices: the same game as the loop
        # below, played by the program's rollout (each bot drawing from its own generator)
        left = None if max_decisions is None else max_decisions - len(state.history)
        if left is None or left > 0:
            program.playout(state, None, left,
                            seat_rngs=[cast(RandomAgent, a).rng for a in agents])
        if not state.over:
            raise GameTooLong(f"the game did not end within {max_decisions} decisions")
        return state
    while not state.over:
        if max_decisions is not None and len(state.history) >= max_decisions:
            raise GameTooLong(f"the game did not end within {max_decisions} decisions")
        node = state.pending
        if isinstance(node, Chance):
            idx = resolve_chance(state)
        else:
            idx = agents[node.player].choose(program, state)
        label = node.option(idx).label if on_step is not None else ""
        program.apply(state, idx)
        if on_step is not None:
            on_step(state, node, idx, label)
    return state


def play_game(program: Any, players: int, seed: int, agents: Sequence[Agent],
              on_step: Optional[StepHook] = None, narrate: bool = False,
              max_decisions: Optional[int] = None) -> State:
    """A new game of `players` seats from `seed`, played to the end by `agents` (one per seat)."""
    state = program.new_game(players, seed, narrate=narrate)
    return play_out(program, state, agents, on_step, max_decisions)
