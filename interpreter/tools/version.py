"""The installed Mercator version, with nothing else imported (the command line answers
`mercator --version` from it without loading the language or the engine)."""
from __future__ import annotations


def engine_version() -> str:
    """The installed Mercator version."""
    try:
        from importlib.metadata import version
        return version("mercator")
    except Exception:  # not installed (running from a source tree)
        return "0.1.0"
