"""What OpenSpiel's search bots need of a Mercator game, beside the game itself
(interpreter/research/openspiel.py, which re-exports these names):

- `RolloutEvaluator`, an evaluator for OpenSpiel's MCTS and ISMCTS bots whose rollouts are the
  engine's own compiled playouts;
- `resampler(random_state)`, which makes an ISMCTSBot draw every world from its own random
  state (its default asks with a fresh pyspiel.UniformProbabilitySampler, seeded by the
  system, so that the same seed searched other worlds each run);
- `ismcts_bot(game, seed=...)`, OpenSpiel's ISMCTSBot with all of its chance from one seed.

They use a state only through its interface (`resample_from_infostate`, and the adapter's
engine state for the rollouts), not by importing the adapter.
"""
from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from mercator.interpreter.research.openspiel import MercatorState


class RolloutEvaluator:
    """An evaluator for OpenSpiel's MCTS and ISMCTS bots (the interface of
    open_spiel.python.algorithms.mcts.Evaluator) whose rollouts are the engine's own playouts
    (Program.playout: compiled, no labels, no narration, no any-time actions), many times faster
    than random play through pyspiel states. A decision that is partly taken is first completed
    by a random option consistent with the ids taken."""

    def __init__(self, n_rollouts: int = 1, seed: int = 0):
        self.n_rollouts = n_rollouts
        self.rng = random.Random(seed)

    def evaluate(self, state: "MercatorState") -> Any:
        su = state._su
        total = np.zeros(su.players)
        for _ in range(self.n_rollouts):
            s = state._s.clone()
            s.narrate = False
            if state._taken and not s.over:
                seqs = state._menu().seqs
                n = len(state._taken)
                fits = [i for i, q in enumerate(seqs) if q[:n] == state._taken]
                su.prog.apply(s, self.rng.choice(fits))
            if not s.over:
                su.prog.playout(s, self.rng, anytime=False)
            end = su.prog.result(s)
            if su.utility == "score":
                total += np.array(end.scores, dtype=float)
            elif end.winners:
                for w in end.winners:
                    total[w] += 1.0 / len(end.winners)
        return total / self.n_rollouts

    def prior(self, state: "MercatorState") -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def resampler(random_state: Any) -> Any:
    """A resampler for OpenSpiel's ISMCTSBot (`bot.set_resampler(resampler(rs))`) that draws
    each world from `random_state` (a numpy RandomState, the bot's own): the bot's default
    asks the state with a fresh pyspiel.UniformProbabilitySampler, seeded by the system, so
    that the same seed searched twice drew other worlds."""
    return lambda state, player: state.resample_from_infostate(player, random_state.uniform)


def ismcts_bot(game: Any, evaluator: Any = None, seed: int = 0, uct_c: float = 2.0,
               max_simulations: int = 100, **kwargs: Any) -> Any:
    """OpenSpiel's ISMCTSBot (open_spiel.python.algorithms.ismcts) for a Mercator game, all of
    whose chance is its `seed`: its random_state, the worlds it draws (`resampler`) and, by
    default, a RolloutEvaluator of the same seed. The same seed plays the same moves."""
    from open_spiel.python.algorithms import ismcts
    rs = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(game, evaluator if evaluator is not None else
                           RolloutEvaluator(seed=seed), uct_c, max_simulations,
                           random_state=rs, **kwargs)
    bot.set_resampler(resampler(rs))
    return bot
