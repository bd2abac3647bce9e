"""The shipped rulebooks by short name ("manila", "manila_pirates", "bazaar"), each loaded and
compiled once per test process (tests/conftest.py offers them as the `shipped` fixture too).

They come through the front door, mercator.load_game (interpreter/tools/game.py), so a test and
the research adapters (which load every shipped game when they are imported) share one compiled
program per rulebook. A compiled Program is shared by every test that asks for the same
rulebook, so a test must not change it: no monkeypatching of its attributes, no `step_budget`
of its own (compile its own copy with game_driver.program for that). The engine's own
per-program caches (start values, the compiled rollout, memo tables of pure functions,
explore's coverage, which explore resets) are made the same way whoever fills them first.
States are never shared: each test makes its own with `new_game`. Import this module as
`shipped` (never `tests.shipped`): one cache."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from mercator.dsl.loader import LoadResult
from mercator.interpreter.engine.program import Program
from mercator.interpreter.tools.game import load_game
from mercator.interpreter.tools.rulebooks import find_rulebook

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("manila", "die_haendler", "felinia", "genoa")


def short_name(name: str) -> str:
    """A shipped rulebook's short name, given as one ("manila_pirates") or as its path under
    rulebooks/ without the suffix ("variants/manila_pirates")."""
    if "/" not in name:
        return name
    short = Path(name).name
    assert find_rulebook(short).resolve() == (ROOT / "rulebooks" / f"{name}.rules").resolve(), name
    return short


def rulebook_path(name: str) -> Path:
    """The file of a shipped rulebook by its short name (see short_name)."""
    return find_rulebook(short_name(name))


@lru_cache(maxsize=None)
def loaded(name: str) -> LoadResult:
    """The load result (checked rulebook, diagnostics, sources) of a shipped rulebook, which
    must check without an error. Shared: do not change it."""
    return load_game(short_name(name)).loaded


@lru_cache(maxsize=None)
def shipped_program(name: str) -> Program:
    """The compiled program of a shipped rulebook, compiled once per test process. Shared: make
    states from it, never change it."""
    return load_game(short_name(name)).program
