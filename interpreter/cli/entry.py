"""The `mercator` command's entry point: `mercator --version` is answered here, without
loading the language, the compiler and the engine (they take a quarter of a second to import),
and so is `mercator check FILE...` with at most --verbose or --no-cache (cli/check.py, which
imports them only for a file that changed); every other command line goes to cli/main.py."""
from __future__ import annotations

import sys
from typing import Optional, Sequence


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the mercator command line; return the exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        from mercator.interpreter.tools.version import engine_version
        print(f"mercator {engine_version()}")
        return 0
    if args[:1] == ["check"]:
        from mercator.interpreter.cli.check import quick
        code = quick(args[1:])
        if code is not None:
            return code
    from mercator.interpreter.cli.main import main as run
    return run(argv)
