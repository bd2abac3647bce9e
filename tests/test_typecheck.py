"""The house style: type hints everywhere, checked with mypy (configured in pyproject.toml).

mypy reads packages from folders and does not follow pyproject's package-dir mapping, so the test
lays out the installed shape, build/typecheck/mercator/ with links to dsl/, interpreter/ and the
package's own modules, and checks the package `mercator` there. (The links are made here, in the
ignored build/ folder, never committed: the repository has no symlinks.)
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def installed_shape(where: Path) -> Path:
    """A folder holding `mercator/` as a wheel lays it out, made of links into this tree."""
    pkg = where / "mercator"
    pkg.mkdir(parents=True, exist_ok=True)
    wanted = {p.name: p for p in (ROOT / "mercator").iterdir() if p.suffix == ".py"}
    wanted.update(dsl=ROOT / "dsl", interpreter=ROOT / "interpreter")
    for entry in pkg.iterdir():
        if entry.name not in wanted or not entry.is_symlink() or \
                entry.resolve() != wanted[entry.name].resolve():
            entry.unlink()
    for name, target in wanted.items():
        if not (pkg / name).is_symlink():
            os.symlink(target, pkg / name)
    return where


def test_mypy_finds_no_type_errors_in_dsl_and_interpreter() -> None:
    shape = installed_shape(ROOT / "build" / "typecheck")
    run = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                          "--cache-dir", str(ROOT / ".mypy_cache"), "-p", "mercator"],
                         cwd=shape, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    # the count of files mypy read shows that it followed the links (a check of mercator/ alone
    # would pass having read 3 files)
    assert "Success: no issues found in" in run.stdout, run.stdout
    checked = int(run.stdout.split("found in")[1].split()[0])
    assert checked >= len(list(ROOT.glob("dsl/*.py"))) + len(list(ROOT.glob("interpreter/*/*.py")))
