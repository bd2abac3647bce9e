"""OpenSpiel: importing this registers every shipped rulebook as a pyspiel game (the
`openspiel` extra); see mercator.interpreter.research.openspiel and docs/research.md."""
from mercator.interpreter.research.openspiel import (  # noqa: F401
    MercatorGame, MercatorState, RolloutEvaluator, ismcts_bot, resampler)
