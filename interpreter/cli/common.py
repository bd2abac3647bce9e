"""What the CLI's commands share: exit codes, usage errors, output streams, diagnostics,
loading a rulebook into a program, player counts (progress bars: terminal.py)."""
from __future__ import annotations

import argparse
import hashlib
import os
import sys
from typing import Any, Optional, Sequence

from mercator.dsl import parse_cache
from mercator.dsl.diagnostics import RulebookError
from mercator.dsl.loader import LoadResult, load
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.values import NUMBER_DIGITS, number_text
from mercator.interpreter.tools.game import game_of, load_game
from mercator.interpreter.tools.rulebooks import games, shipped
from mercator.dsl.errors import MercatorError
from mercator.interpreter.cli.output import (EXIT_OK, EXIT_RULES, EXIT_USAGE,  # noqa: F401
                                             EXIT_INTERRUPTED, _err_raw, clean_diagnostic,
                                             color_ok, err, out, plural, print_diagnostics,
                                             print_rule_error, render_safe,
                                             rule_error_text)
from mercator.interpreter.cli.check_cache import code_digest


class UsageError(MercatorError):
    """Bad arguments: exit 2 with a message and a hint."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.hint = hint


class Failed(MercatorError):
    """The command failed after saying why on stderr; carries the exit code."""

    def __init__(self, code: int = EXIT_RULES):
        super().__init__(code)
        self.code = code


SCORE_DIGITS = NUMBER_DIGITS      # scores longer than this are shown in scientific form
score_text = number_text           # a score as text (engine/values.py)


MAX_REPORTED = 10 ** 150   # statistics square scores as floats, which end near 1.8e308


def too_large(values: Sequence[int]) -> bool:
    """True when some value is too large for mean and standard deviation (floats)."""
    return any(abs(v) >= MAX_REPORTED for v in values)


def require_file(path: str, what: str = "rulebook") -> None:
    """UsageError unless path names an existing file."""
    if "\0" in path:
        raise UsageError(f"not a valid path: {path!r}", "a path cannot hold a NUL character")
    if not os.path.exists(path):
        hint = "check the path (it is relative to the current directory)"
        if what == "rulebook":
            hint += "; or name a shipped rulebook: " + ", ".join(sorted(games()))
        raise UsageError(f"no such {what}: {path}", hint)


RULEBOOK_ARGS = {"check": ("paths",), "play": ("path",), "simulate": ("path",),
                 "serve": ("path",), "fmt": ("file",), "compare": ("a", "b"),
                 "diff": ("base", "variant"), "learn": ("path",)}


def name_rulebooks(args: Any) -> None:
    """Let a rulebook argument be a shipped rulebook's short name (`mercator play manila`):
    a name that is not a file but names a shipped rulebook becomes its path (relative to the
    current directory when it is below it). Anything else is left for the command to refuse."""
    for attr in RULEBOOK_ARGS.get(getattr(args, "command", ""), ()):
        v = getattr(args, attr, None)
        if isinstance(v, list):
            setattr(args, attr, [_named(x) for x in v])
        elif isinstance(v, str):
            setattr(args, attr, _named(v))


def _named(name: str) -> str:
    if os.path.exists(name) or "\0" in name:
        return name
    p = shipped().get(name)
    if p is None:
        return name
    rel = os.path.relpath(p)
    return rel if not rel.startswith("..") else str(p)


def load_program(path: str) -> tuple[Program, LoadResult]:
    """Load a game through the front door (mercator.load_game: checked, compiled once per
    process); on errors print the diagnostics and fail with exit 1."""
    require_file(path)
    try:
        game = load_game(path)
    except RulebookError as exc:
        print_diagnostics(exc.diagnostics, exc.sources)
        if not exc.errors:
            err(f"{path}: error: this is a library (declarations only, no 'game'); "
                "it can only be used by a game ('use \"...\"')")
        raise Failed(EXIT_RULES) from None
    except RuleError as exc:           # a rule failed while the game was compiled
        print_rule_error(exc.message, exc.span, load(path).sources)
        raise Failed(EXIT_RULES) from None
    if game.warnings:                  # (notes are not shown)
        err(f"{path}: {plural(len(game.warnings), 'warning')} (see: mercator check {path})")
    return game.program, game.loaded


def compiles(res: LoadResult) -> bool:
    """Does a checked game compile (its constants computed within their budget)? Prints the
    located error when not (see compile_problem)."""
    problem = compile_problem(res)
    if problem is not None:
        _err_raw(problem[color_ok(sys.stderr)])
    return problem is None


def compile_problem(res: LoadResult) -> Optional[list[str]]:
    """None when a checked game compiles (its constants computed within their budget, its code
    not nested too deeply); else its located rule error as printed, [without, with colour].
    A game whose every file is as it was when this code compiled it without an error is not
    compiled again: the outcome depends on nothing else, and a mark in the per-user cache
    (dsl/parse_cache.py) says so."""
    assert res.rulebook is not None
    root = parse_cache.cache_dir()
    key = _compile_key(res)
    if parse_cache.has_mark(root, key):
        return None
    try:
        _compile(res)
    except RuleError as exc:
        return [rule_error_text(exc.message, exc.span, res.sources, color)
                for color in (False, True)]
    parse_cache.set_mark(root, key)
    return None


def _compile(res: LoadResult) -> Program:
    return game_of(res).program


def _compile_key(res: LoadResult) -> str:
    """A digest of a checked game's files (path and text) and of the code that checks and
    compiles them (every module of dsl/ and interpreter/compiler/ and engine/, Python's
    version)."""
    h = hashlib.sha256(f"compiles\0{_code_digest()}".encode())
    for path, text in sorted(res.sources.items()):
        h.update(f"{path}\0{text}\0".encode())
    return h.hexdigest()


def _code_digest() -> str:
    return code_digest(("dsl", "compiler", "engine"))


def build_program(res: LoadResult) -> Program:
    """Compile a checked rulebook; a rule that fails while compiling (a constant that runs away,
    code nested too deeply) is reported as a located rule error and fails with exit 1."""
    assert res.rulebook is not None
    try:
        return _compile(res)
    except RuleError as exc:
        print_rule_error(exc.message, exc.span, res.sources)
        raise Failed(EXIT_RULES) from None


def player_count(prog: Program, n: Optional[int]) -> int:
    """The --players value checked against the rulebook's range (default: its minimum)."""
    lo, hi = prog.min_players, prog.max_players
    if n is None:
        return lo
    if not lo <= n <= hi:
        allowed = f"{lo}" if lo == hi else f"{lo} to {hi}"
        raise UsageError(f"{prog.name} is for {allowed} players, not {n}",
                         f"use --players with a value from {lo} to {hi}" if lo != hi
                         else f"use --players {lo}")
    return n


def runtime_failure(exc: RuleError, sources: dict[str, str], seed: Optional[int],
                    decisions: Sequence[int]) -> None:
    """Print a located rule error with the seed and decision log that reproduce it."""
    print_rule_error(exc.message, exc.span, sources)
    err(decision_log_line(seed, decisions))


LOG_ENDS = 10       # decisions shown at each end of a long decision log


def decision_log_line(seed: Optional[int], decisions: Sequence[int], whole: bool = False) -> str:
    """`  game seed S; decision log (option indices): [...]`: a long log (a game stopped by a
    `limit` may have made 100,000 decisions) as its first and last LOG_ENDS decisions and the
    count, since what reproduces the game is the command (or the save) printed with it; the
    whole log when nothing else keeps the game (whole)."""
    head = f"  {'' if seed is None else f'game seed {seed}; '}decision log (option indices): "
    n = len(decisions)
    if whole or n <= 3 * LOG_ENDS:
        return head + str(list(decisions))
    first = ", ".join(str(d) for d in decisions[:LOG_ENDS])
    last = ", ".join(str(d) for d in decisions[n - LOG_ENDS:])
    return (head + f"[{first}, … {n - 2 * LOG_ENDS:,} more …, {last}] ({n:,} decisions; "
            f"the first and last {LOG_ENDS} shown)")


def writable_target(path: str, flag: str) -> None:
    """UsageError unless a file can be written at path: a valid path, not a folder, in an
    existing folder we may write to (checked before a game or an exploration starts)."""
    if "\0" in path or not path:
        raise UsageError(f"{flag} {path!r}: not a valid file path", "give a file name, e.g. "
                         "game.json")
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise UsageError(f"cannot write {path}: it is a folder", "give a file name inside it, "
                         f"e.g. {os.path.join(path, 'game.json')}")
    if os.path.exists(path) and not os.path.isfile(path):
        raise UsageError(f"cannot write {path}: it is not a regular file", "save somewhere else")
    if not os.path.isdir(folder):
        raise UsageError(f"cannot write {path}: its folder does not exist",
                         "create the folder first, or save somewhere else")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UsageError(f"cannot write {path}: permission denied", "save somewhere else")


def int_arg(text: str) -> int:
    """argparse's type for a whole number, with the message a person reads."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'") from None


def at_least_one(text: str) -> int:
    """argparse's type for a count that must be 1 or more (`--max-decisions`: 0 or less would
    stop every game at once, and be reported as a rulebook that never ends)."""
    n = int_arg(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


def plot_target(path: Optional[str], flag: str = "--plot", what: str = "a plot",
                hint: str = "end it in .png (one picture of every panel) or .html (a report "
                            "with the figures and the numbers), e.g. --plot games.png") -> None:
    """Check `--plot FILE` (or sweep's `--report FILE`) before any game is played: a .png or
    .html name, matplotlib installed, and a file we may write; a UsageError (exit 2) with a
    hint otherwise."""
    if path is None:
        return
    from mercator.interpreter.tools.plots import INSTALL_HINT, PlotUnavailable, plot_kind, require_matplotlib
    if plot_kind(path) is None:
        raise UsageError(f"{flag} {path}: {what} is written as PNG or HTML, and this file name "
                         "ends in neither", hint)
    try:
        require_matplotlib()
    except PlotUnavailable as exc:
        raise UsageError(f"{flag} {path}: {exc}", INSTALL_HINT) from None
    writable_target(path, flag)


def write_plot_file(path: str, samples: Sequence[Any], title: str,
                    table: Sequence[Sequence[str]]) -> bool:
    """Write the plot (see plot_target); say where on stderr; False when it cannot be written."""
    from mercator.interpreter.tools.plots import write_plot
    try:
        write_plot(path, samples, title, table)
    except OSError as exc:
        err(f"cannot write the plot {path}: {exc.strerror or exc}")
        return False
    err(f"plot written to {path}")
    return True


def checked_save(path: str, res: LoadResult, args: Any, command: str, again: str,
                 leave_out: str) -> Any:
    """The save at `path` for `command` (play's --resume, serve's --resume or --replay),
    checked against the rulebook given and the --players and --seed flags: a located error
    (exit 1) for an unreadable save, a usage error with a hint for one of another rulebook
    (`again`: the command that would take it) or a flag that contradicts it (`leave_out`,
    formatted with the flag)."""
    from mercator.interpreter.tools.saves import SaveError, load_save, sha256_text
    try:
        data = load_save(path)
    except SaveError as exc:
        err(f"mercator {command}: {exc}")
        raise Failed(EXIT_RULES) from None
    if data.rulebook_sha256 != sha256_text(res.sources[args.path]):
        raise UsageError(f"{path} is a save of another rulebook ({data.rulebook})",
                         again.format(rulebook=data.rulebook, path=path))
    for flag, given, saved in (("--players", args.players, data.players),
                               ("--seed", args.seed, data.seed)):
        if given is not None and given != saved:
            raise UsageError(f"{flag} {given} contradicts the save ({flag} {saved})",
                             leave_out.format(flag=flag))
    return data
