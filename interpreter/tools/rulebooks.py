"""Rulebooks by short name: `manila` is rulebooks/manila.rules, `manila_pirates` the variant in
rulebooks/variants/, `bazaar` the example in rulebooks/examples/. A name that is a path to a
file is that file."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Optional
from mercator.dsl.errors import MercatorError

ROOT = Path(__file__).resolve().parent.parent.parent
FOLDERS = ("rulebooks", "rulebooks/variants", "rulebooks/examples")


class UnknownRulebook(MercatorError, ValueError):
    """A name that is neither a file nor a shipped rulebook; the message lists the names."""


def shipped() -> dict[str, Path]:
    """Every shipped rulebook (games, variants, examples) by short name."""
    out: dict[str, Path] = {}
    for folder in FOLDERS:
        d = ROOT / folder
        if d.is_dir():
            for p in sorted(d.glob("*.rules")):
                out.setdefault(p.stem, p)
    return out


def games() -> dict[str, Path]:
    """The shipped rulebooks that are games (not libraries): those with a `game` or `variant`
    line."""
    out = {}
    for name, p in shipped().items():
        text = p.read_text(encoding="utf-8")
        if any(line.startswith(("game ", "variant ")) for line in text.splitlines()):
            out[name] = p
    return out


def find_rulebook(name: str) -> Path:
    """The rulebook file a name stands for (a path, or a shipped rulebook's short name). Anything
    that exists at that path is taken as the path (a folder, a device or a pipe too: the loader
    refuses those with a located diagnostic, from os.stat alone)."""
    if os.path.lexists(name):
        return Path(name)
    p: Optional[Path] = shipped().get(name[:-6] if name.endswith(".rules") else name)
    if p is None:
        known = ", ".join(sorted(games()))
        raise UnknownRulebook(f"no rulebook '{name}': not a file, nor a shipped rulebook "
                              f"(those are: {known})")
    return p
