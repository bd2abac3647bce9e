"""Explorations that several tests read: each (file, games, seed) is explored once per test
process and its (program, report) kept, since explore is deterministic for a seed and a full
exploration with shrinking costs seconds. Callers must not change what they get."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from mercator.dsl.loader import load
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.tools.explore import explore


@lru_cache(maxsize=None)
def explored(path: str, games: int, seed: int) -> tuple[Any, Any, Any]:
    """(load result, program, explore report) of `explore(prog, games=games, seed=seed)`."""
    res = load(path)
    assert res.rulebook is not None, [str(d) for d in res.diagnostics]
    prog = compile_program(res.rulebook)
    return res, prog, explore(prog, games=games, seed=seed)
