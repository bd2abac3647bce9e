"""PettingZoo: `env(rulebook="manila", players=4)`, an AEC environment of any rulebook (the
`pettingzoo` extra); see mercator.interpreter.research.pettingzoo and docs/research.md."""
from mercator.interpreter.research.pettingzoo import MercatorEnv, env  # noqa: F401
