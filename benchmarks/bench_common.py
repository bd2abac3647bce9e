"""What the benchmark scripts share: finding the engine of the checkout they measure (this one,
or an older one on PYTHONPATH, whatever its API), and naming that checkout without a path."""
from __future__ import annotations

import os
import random
import subprocess
import sys
from typing import Any, Callable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _old_checkout() -> str:
    """The checkout on PYTHONPATH whose packages are the top-level dsl/ and interpreter/ (before
    the installed package was named mercator), or ''."""
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if entry and os.path.isdir(os.path.join(entry, "dsl")) and \
                os.path.isdir(os.path.join(entry, "interpreter")) and \
                not os.path.isdir(os.path.join(entry, "mercator")):
            return os.path.abspath(entry)
    return ""


def import_engine() -> tuple[Callable[[str], Any], Callable[[Any], Any], str, str]:
    """(load, compile_program, checkout directory, API name) of the engine to measure.

    An older checkout on PYTHONPATH (one whose packages are the top-level dsl/ and
    interpreter/) is measured with its own API; otherwise this checkout, as the package
    mercator. The API is chosen by what the imported package contains, not by try/except
    alone: an editable install of another checkout would otherwise supply a missing
    interpreter.compiler from that other checkout."""
    old = _old_checkout()
    if not old:
        if ROOT not in sys.path:
            sys.path.append(ROOT)
        from mercator.dsl.loader import load as new_load
        from mercator.interpreter.compiler import compile_program as new_compile
        import mercator.interpreter
        # the checkout the package came from: another one on PYTHONPATH (one with mercator/,
        # measured as it is), else this one
        where = os.path.dirname(os.path.abspath(list(mercator.interpreter.__path__)[0]))
        return new_load, new_compile, where, "mercator.interpreter.compiler.compile_program"
    sys.path.insert(0, old)
    import dsl.loader  # noqa: F401
    import interpreter
    from dsl.loader import load
    pkg = os.path.dirname(os.path.abspath(interpreter.__file__))
    checkout = os.path.dirname(pkg)
    dsl_file = str(sys.modules["dsl.loader"].__file__)
    dsl_checkout = os.path.dirname(os.path.dirname(os.path.abspath(dsl_file)))
    if dsl_checkout != checkout:
        sys.exit("dsl and interpreter come from different checkouts; set PYTHONPATH to one")
    if os.path.isfile(os.path.join(pkg, "compiler", "__init__.py")):
        from interpreter.compiler import compile_program
        api = "interpreter.compiler.compile_program"
    else:
        try:
            from interpreter.program import Program as compile_program  # type: ignore
        except ImportError:
            from interpreter.engine.program import Program as compile_program  # type: ignore
        api = "interpreter.program.Program"
    where = os.path.abspath(str(sys.modules[compile_program.__module__].__file__))
    if not where.startswith(pkg + os.sep):
        sys.exit(f"{api} was not imported from the checkout of interpreter/")
    return load, compile_program, checkout, api


def engine_program(checkout: str) -> type:
    """The engine's Program class (interpreter/engine/program.py, or interpreter/program.py
    before the layers), to see what it offers (playout) before compiling anything."""
    if os.path.isdir(os.path.join(checkout, "mercator")):
        from mercator.interpreter.engine.program import Program
    elif os.path.isfile(os.path.join(checkout, "interpreter", "engine", "program.py")):
        from interpreter.engine.program import Program  # type: ignore[no-redef]
    else:
        from interpreter.program import Program  # type: ignore
    return Program


def describe(checkout: str) -> str:
    """The checkout's directory name and commit (no absolute path), e.g. 'base13 @ dd9cbe3'."""
    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", "-C", checkout, *args], capture_output=True, text=True,
                                  timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    commit = git("rev-parse", "--short", "HEAD") or "?"
    dirty = "+uncommitted" if git("status", "--porcelain", "--untracked-files=no") else ""
    return f"{os.path.basename(checkout)} @ {commit}{dirty}"


def narrated_loop(prog: Any, games: int, players: int, seed: int,
                  clock: Callable[[], float]) -> tuple[int, float, int]:
    """Random games through apply with narration and explicit chance (what a searcher's worlds
    play), games new_game(players, seed + i, narrate=True, explicit_chance=True): a chance node
    resolved with the state's own generator as agents.resolve_chance does, a decision by
    Random(seed + i + 1000003) as the plain loops; return (the players' decisions, seconds by
    `clock`, chance steps)."""
    total = chance = 0
    t0 = clock()
    for i in range(games):
        s = prog.new_game(players, seed + i, narrate=True, explicit_chance=True)
        rng = random.Random(seed + i + 1_000_003)
        apply = prog.apply
        while not s.over:
            weights = getattr(s.pending, "weights", None)
            if weights is not None:        # a chance node
                r = s.randbelow(sum(weights))
                k = 0
                while r >= weights[k]:
                    r -= weights[k]
                    k += 1
                apply(s, k)
                chance += 1
            else:
                apply(s, rng.randrange(s.pending.count))
                total += 1
    return total, clock() - t0, chance


def checkout_error(path: str) -> str:
    """Why `path` is not a checkout of this project that a benchmark's --against can measure
    (a directory with dsl/grammar.lark and interpreter/), or '' when it is one."""
    if not os.path.isdir(path):
        return f"{path}: no such directory"
    if not (os.path.isfile(os.path.join(path, "dsl", "grammar.lark"))
            and os.path.isdir(os.path.join(path, "interpreter"))):
        return (f"{path}: not a checkout of this project (no dsl/grammar.lark and interpreter/ "
                "in it; make one with git worktree add DIR COMMIT, or git archive COMMIT | "
                "tar -x -C DIR)")
    return ""


def run_fresh(checkout: str, script: str, argv: list[str]) -> subprocess.CompletedProcess:
    """One fresh process of `script` (a file of this checkout's benchmarks/) measuring the
    engine of `checkout`: PYTHONPATH set to that checkout, run in its directory (so that a
    relative rulebook path names that checkout's file). Its output is captured, not checked:
    the caller reads returncode and stderr."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(checkout))
    return subprocess.run([sys.executable, os.path.abspath(script), *argv], env=env,
                          cwd=checkout, capture_output=True, text=True)


def faster(new: float, old: float) -> str:
    """new / old as the ratio column of --against: '2.10x faster', or '0.95x (slower)'."""
    ratio = round(new / old, 2)
    return f"{ratio:.2f}x faster" if ratio >= 1 else f"{ratio:.2f}x (slower)"
