"""`mercator check`: check rulebooks, print 'PATH: OK' or each file's diagnostics, then a summary.

An editor runs it on every change, so it is quick (issue 37): `mercator check FILE...` with no
other option than --verbose or --no-cache is answered here from entry.py, before the full
command line and the engine are imported; each file's outcome is kept in the per-user cache
(check_cache.py), so an unchanged file is answered by reading the files it looked at, and only
a changed one is parsed, checked and compiled again (and only then are the language and, for a
game without errors, the compiler imported).
"""
from __future__ import annotations

import os
import sys
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Optional, Union

from mercator.dsl.errors import MercatorError
from mercator.interpreter.cli import check_cache
from mercator.interpreter.cli.output import (EXIT_INTERRUPTED, EXIT_OK, EXIT_RULES, EXIT_USAGE,
                                             _err_raw, color_ok, err, out, plural)

if TYPE_CHECKING:
    import argparse

QUICK_FLAGS = ("--verbose", "--no-cache")
WATCH_POLL = 0.1          # seconds between two looks at the watched files


def quick(argv: list[str]) -> Optional[int]:
    """The exit code of `mercator check ARGV` when ARGV is files that exist and at most the
    flags QUICK_FLAGS; None when the full command line must read it (--help, --explore, a
    shipped rulebook's short name, a missing file, ...)."""
    paths = [a for a in argv if a not in QUICK_FLAGS]
    if not paths or any(p.startswith("-") or "\0" in p or not os.path.exists(p) for p in paths):
        return None
    args = SimpleNamespace(paths=paths, verbose="--verbose" in argv,
                           no_cache="--no-cache" in argv, explore=0, save_failure=None)
    try:
        return cmd_check(args)
    except KeyboardInterrupt:
        err("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:               # Mercator's own mistake, as main.py reports it
        if os.environ.get("MERCATOR_DEBUG"):
            raise
        err(f"mercator check: internal error: {type(exc).__name__}: {exc} "
            "(set MERCATOR_DEBUG=1 for a traceback)")
        return EXIT_RULES


def outcome(res: Any) -> dict[str, Any]:
    """What checking a loaded file printed, as check_cache keeps it: its diagnostics in the
    order printed as [severity, text, text in colour], whether it is a game, and for a game
    without errors whether it compiles (None) or the located error that stops it."""
    from mercator.interpreter.cli.output import render_safe, sorted_diagnostics
    diags = [[d.severity, *(render_safe(d, res.sources.get(d.span.path), c) for c in (False, True))]
             for d in sorted_diagnostics(res.diagnostics)]
    problem = None
    if res.rulebook is not None and not any(d.is_error for d in res.diagnostics):
        from mercator.interpreter.cli.common import compile_problem
        problem = compile_problem(res)
    return {"diags": diags, "game": res.rulebook is not None, "compile": problem}


class LoadFailed(MercatorError):
    """The loader raised (Mercator's own mistake): its exception's name and message."""


def afresh(path: str, root: Optional[str], looked: Optional[list[Any]] = None,
           kept: bool = False) -> tuple[dict[str, Any], Any]:
    """(outcome, the loaded file) of checking `path` afresh, the outcome kept in the per-user
    cache `root` (if not None). With `looked` (--watch), every look the loader made at the
    disk is added to it; with `looked` or `kept` (--watch, a check server), the parse is kept
    in this process only, so that the next edit is parsed here in its changed declarations."""
    from mercator.dsl.loader import asts_in_process_only, load, looks_again, recording_reads
    try:
        with recording_reads() as looks:
            if looked is None and not kept:
                res = load(path)
            else:
                with asts_in_process_only():
                    res = load(path)
    except Exception as exc:  # noqa: BLE001 - reported by the caller, located at the file
        raise LoadFailed(f"{type(exc).__name__}: {exc}") from exc
    got = outcome(res)
    if looked is not None:
        looked.extend(looks)
    check_cache.put(root, path, [p for _, p, _ in looks], lambda: looks_again(looks), got)
    return got, res


def server(args: Union["argparse.Namespace", SimpleNamespace]) -> int:
    """`check --server`: serve the checks of later `mercator check` commands (check_server.py)
    until idle for --idle minutes."""
    from mercator.interpreter.cli.check_server import log_line, serve
    root = check_cache.cache_dir()
    return serve(root, args.idle, lambda path: afresh(path, root, kept=True)[0], log_line)


def watch(args: Union["argparse.Namespace", SimpleNamespace]) -> int:
    """`check --watch`: check the files, then again each time a file those checks looked at
    (the files, what they use, a variant's base, a file that could not be read) changes, until
    interrupted; each round ends with a line on stderr saying how long the check took."""
    import time
    from mercator.dsl.loader import Looks, looks_again
    try:
        while True:
            looks: Looks = []
            started = time.perf_counter()
            cmd_check(args, looks)
            took = time.perf_counter() - started
            files = sorted({p for _, p, _ in looks} | set(args.paths))
            states = [check_cache.state_of(p) for p in files]
            if not looks_again(looks):            # changed while it was checked: again
                continue
            err(f"checked in {took * 1000:.0f} ms; watching {plural(len(files), 'file')} "
                "(Ctrl-C stops)")
            while [check_cache.state_of(p) for p in files] == states:
                time.sleep(WATCH_POLL)
            err("── changed: checking again")
    except KeyboardInterrupt:
        return EXIT_OK


def cmd_check(args: Union["argparse.Namespace", SimpleNamespace],
              looked: Optional[list[Any]] = None) -> int:
    """Check rulebooks; print 'PATH: OK' or the diagnostics, then a summary (args: the check
    command's arguments, parsed by main.py or made by quick). With `looked`, every look the
    loader made at the disk is added to it and the per-user cache is left alone (--watch)."""
    if getattr(args, "server", False) or getattr(args, "idle", None) is not None:
        from mercator.interpreter.cli.common import UsageError
        if not getattr(args, "server", False):
            raise UsageError("--idle goes with --server", "mercator check --server --idle 60")
        others = [f for f, on in (("PATH", args.paths), ("--watch", args.watch),
                                  ("--explore", args.explore), ("--no-cache", args.no_cache),
                                  ("--verbose", args.verbose)) if on]
        if others:
            raise UsageError(f"--server takes no {others[0]}: it checks the files later "
                             "`mercator check` commands name",
                             "mercator check --server &   (then: mercator check FILE)")
        if args.idle is None:
            from mercator.interpreter.cli.check_server import IDLE_MINUTES
            args.idle = IDLE_MINUTES
        return server(args)
    if not args.paths:
        from mercator.interpreter.cli.common import UsageError
        raise UsageError("check needs at least one PATH", "mercator check rulebooks/manila.rules")
    if getattr(args, "watch", False) and looked is None:
        if args.explore:
            from mercator.interpreter.cli.common import UsageError
            raise UsageError("--watch and --explore cannot go together",
                             "explore once, then watch the checks")
        return watch(args)
    n_ok = n_bad = n_missing = errors = warnings = ok_warnings = 0
    if args.explore and args.save_failure:
        from mercator.interpreter.cli.common import writable_target
        writable_target(args.save_failure, "--save-failure")
    cached = not (args.explore or getattr(args, "no_cache", False) or looked is not None)
    root = check_cache.cache_dir() if cached else None
    color = color_ok(sys.stderr)
    for path in args.paths:
        if "\0" in path or not os.path.exists(path):
            err(f"{path}: error: no such file")
            n_missing += 1
            continue
        got, res = check_cache.get(root, path), None
        if got is None and root is not None:     # a check server's answer (check_server.py)
            from mercator.interpreter.cli.check_server import ask
            got = ask(root, path)
        if got is None:
            try:
                got, res = afresh(path, root, looked)
            except LoadFailed as exc:  # the checker must never show a traceback for any input
                err(f"{path}: error: the checker failed on this file ({exc}); please report it")
                n_bad += 1
                errors += 1
                continue
        diags = [d for d in got["diags"] if args.verbose or d[0] != "info"]
        e = sum(d[0] == "error" for d in diags)
        w = sum(d[0] == "warning" for d in diags)
        for d in diags:
            _err_raw(d[2] if color else d[1])
        if got["compile"] is not None:   # a constant that runs away, code too deep to compile
            _err_raw(got["compile"][color])
            e = 1
        if e:
            n_bad += 1
            errors += e
            warnings += w
        else:
            notes = ([] if got["game"] else ["library"]) + ([plural(w, "warning")] if w else [])
            out(f"{path}: OK" + (f" ({', '.join(notes)})" if notes else ""))
            n_ok += 1
            ok_warnings += w
            if args.explore and res is not None and res.rulebook is not None:
                import argparse
                from mercator.interpreter.cli.design import explore_rulebook
                assert isinstance(args, argparse.Namespace)    # (quick never explores)
                if not explore_rulebook(path, res, args):
                    n_ok -= 1
                    n_bad += 1
                    errors += 1
    parts = []
    if n_ok or not (n_bad or n_missing):
        parts.append(f"{plural(n_ok, 'file')} OK" +
                     (f" ({plural(ok_warnings, 'warning')})" if ok_warnings else ""))
    if n_bad:
        parts.append(f"{plural(n_bad, 'file')} with {plural(errors, 'error')}" +
                     (f" and {plural(warnings, 'warning')}" if warnings else ""))
    if n_missing:
        parts.append(f"{plural(n_missing, 'file')} not found")
    if len(args.paths) > 1 or n_bad or ok_warnings:
        out(", ".join(parts))
    if n_missing:
        return EXIT_USAGE
    return EXIT_RULES if n_bad else EXIT_OK
