"""Mercator: a rules-as-data engine for board games.

The front door (docs/python.md): `mercator.load_game("manila")` (a shipped rulebook's short
name, or a path to a game or a variant file) is a Game; `game.new_game(players=4, seed=7)` a
GameState to play (`legal_options()`, `apply()`, `clone()`, `result`, `observe(seat)`). Every
error Mercator raises on purpose derives from `mercator.MercatorError`: a rulebook that does not
check is a `RulebookError` carrying its located diagnostics, a rule failing while a game runs a
located `RuleError`, a choice that is not legal an `IllegalChoice`.

The installed package: `mercator.dsl` (the rulebook language: parser, checker), `mercator.interpreter`
(compiler, engine, agents, tools, research adapters, web, command line), `mercator.rulebooks` (the
shipped games, variants, examples and libraries), and the research adapters by their short names,
`mercator.openspiel` and `mercator.pettingzoo`. In the repository the first three are the folders
dsl/, interpreter/ and rulebooks/ at its root: an installed wheel holds them inside mercator/
(pyproject.toml maps the folders), and a source tree run in place (a checkout on PYTHONPATH, an
editable install, an unpacked sdist) finds them beside this folder, through the search path set
below.

The names below are imported on first use, so that `import mercator.dsl.loader` (what `mercator
check` needs) does not load the compiler.
"""
from __future__ import annotations

import importlib
import os as _os
from typing import TYPE_CHECKING, Any

if __name__ != "mercator":
    raise ImportError(f"Mercator's package was imported a second time, as {__name__!r}; import it "
                      "as 'mercator' only (two copies of its modules would hold two copies of every "
                      "class, and their values would never compare equal)")


def _source_tree_path(here: str) -> list[str]:
    """The folders in which mercator's subpackages are found besides this one: in a source tree
    (dsl/ beside mercator/ rather than inside it) the tree's root."""
    root = _os.path.dirname(here)
    if not _os.path.isdir(_os.path.join(here, "dsl")) and \
            _os.path.isfile(_os.path.join(root, "dsl", "grammar.lark")):
        return [root]
    return []


__path__ += _source_tree_path(_os.path.dirname(_os.path.abspath(__file__)))  # noqa: F821

if TYPE_CHECKING:
    from mercator.dsl.diagnostics import Diagnostic, RulebookError
    from mercator.dsl.errors import MercatorError
    from mercator.interpreter.engine.exprs import RuleError
    from mercator.interpreter.engine.nodes import Chance, Decision, Option, Terminal
    from mercator.interpreter.engine.program import IllegalChoice, PlayerCountError
    from mercator.interpreter.engine.state import StateUnusable
    from mercator.interpreter.tools.game import Game, GameSpec, GameState, load_game
    from mercator.interpreter.tools.rulebooks import UnknownRulebook

# name -> the module that defines it
_EXPORTS = {
    "load_game": "mercator.interpreter.tools.game",
    "Game": "mercator.interpreter.tools.game",
    "GameSpec": "mercator.interpreter.tools.game",
    "GameState": "mercator.interpreter.tools.game",
    "Option": "mercator.interpreter.engine.nodes",
    "Decision": "mercator.interpreter.engine.nodes",
    "Chance": "mercator.interpreter.engine.nodes",
    "Terminal": "mercator.interpreter.engine.nodes",
    "Diagnostic": "mercator.dsl.diagnostics",
    "MercatorError": "mercator.dsl.errors",
    "RulebookError": "mercator.dsl.diagnostics",
    "RuleError": "mercator.interpreter.engine.exprs",
    "IllegalChoice": "mercator.interpreter.engine.program",
    "PlayerCountError": "mercator.interpreter.engine.program",
    "StateUnusable": "mercator.interpreter.engine.state",
    "UnknownRulebook": "mercator.interpreter.tools.rulebooks",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """The front door's names, imported on first use."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'mercator' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
