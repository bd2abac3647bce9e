"""The `mercator` command's entry point: `mercator --version` is answered here, without
loading the language, the compiler and the engine (they take a quarter of a second to import);
every other command line goes to cli/main.py."""
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
    from mercator.interpreter.cli.main import main as run
    return run(argv)
