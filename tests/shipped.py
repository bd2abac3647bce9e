"""The shipped rulebooks by short name ("manila", "manila_pirates", "bazaar"), each loaded and
compiled once per test process (tests/conftest.py offers them as the `shipped` fixture too).

A compiled Program is shared by every test that asks for the same rulebook, so a test must not
change it: no monkeypatching of its attributes, no `step_budget` of its own (compile its own copy
with game_driver.program for that). The engine's own per-program caches (start values, the
compiled rollout, memo tables of pure functions, explore's coverage, which explore resets) are
made the same way whoever fills them first. States are never shared: each test makes its own
with `new_game`. Import this module as `shipped` (never `tests.shipped`): one cache."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from mercator.dsl.loader import LoadResult, load
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.program import Program

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = ROOT / "rulebooks"
# where a short name is looked for, in this order
_FOLDERS = (RULEBOOKS, RULEBOOKS / "variants", RULEBOOKS / "examples")
GAMES = ("manila", "die_haendler", "felinia", "genoa")


def rulebook_path(name: str) -> Path:
    """The file of a shipped rulebook by its short name (its file's stem)."""
    for folder in _FOLDERS:
        path = folder / f"{name}.rules"
        if path.is_file():
            return path
    raise KeyError(f"no shipped rulebook named {name!r} in {[str(f) for f in _FOLDERS]}")


@lru_cache(maxsize=None)
def loaded(name: str) -> LoadResult:
    """The load result (checked rulebook, diagnostics, sources) of a shipped rulebook, which
    must check without an error. Shared: do not change it."""
    res = load(str(rulebook_path(name)))
    assert res.ok and res.rulebook is not None, [str(d) for d in res.diagnostics]
    return res


@lru_cache(maxsize=None)
def shipped_program(name: str) -> Program:
    """The compiled program of a shipped rulebook, compiled once per test process. Shared: make
    states from it, never change it."""
    res = loaded(name)
    assert res.rulebook is not None
    return compile_program(res.rulebook)
