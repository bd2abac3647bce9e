"""Packaging (issue 35 §2): the repository has no symlinks; pyproject.toml maps the top-level
folders dsl/, interpreter/ and rulebooks/ into the package `mercator`; a wheel built from a copy of
the tree made without symlinks (as Git for Windows checks out) holds every module, the grammar,
every rulebook and the web templates, and runs a game from anywhere; importing a folder under
another name than mercator.* fails with a hint; the sdist holds its own tests and runs them."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIP = {".git", ".venv", "build", "dist", ".mypy_cache", ".pytest_cache", ".hypothesis",
        "__pycache__"}


def tracked_files() -> list[Path]:
    """The repository's files (git's list where there is a .git, else a walk of the tree)."""
    if (ROOT / ".git").exists() and shutil.which("git"):
        # tracked files and new ones not yet added (but not those .gitignore names)
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=ROOT, capture_output=True, check=True)
        return [Path(p) for p in out.stdout.decode().split("\0") if p and (ROOT / p).exists()]
    return [p.relative_to(ROOT) for p in ROOT.rglob("*")
            if p.is_file() and not SKIP & set(p.relative_to(ROOT).parts)
            and not p.name.endswith(".egg-info")]


def plain_copy(dest: Path) -> Path:
    """A copy of the tree's files as a checkout with core.symlinks=false makes it: regular files
    only (a link would become a file holding its target's path)."""
    for rel in tracked_files():
        src = ROOT / rel
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            target.write_text(os.readlink(src))
        else:
            shutil.copyfile(src, target)
    return dest


def build(kind: str, tree: Path, out: Path) -> Path:
    """Build a wheel or an sdist of `tree` with this interpreter's setuptools (no network)."""
    code = ("import sys; from setuptools import build_meta as b; "
            f"print(b.build_{kind}(sys.argv[1]))")
    run = subprocess.run([sys.executable, "-c", code, str(out)], cwd=tree, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    return out / run.stdout.strip().splitlines()[-1]


def expected_contents() -> set[str]:
    """What an installed mercator must hold, named as inside the wheel."""
    want = {f"mercator/{p.name}" for p in (ROOT / "mercator").glob("*.py")}
    for top in ("dsl", "interpreter"):
        want |= {f"mercator/{p.relative_to(ROOT).as_posix()}" for p in (ROOT / top).rglob("*.py")
                 if "__pycache__" not in p.parts}
    want.add("mercator/dsl/grammar.lark")
    want |= {f"mercator/{p.relative_to(ROOT).as_posix()}" for p in (ROOT / "rulebooks").rglob("*.rules")}
    want |= {f"mercator/{p.relative_to(ROOT).as_posix()}"
             for p in (ROOT / "interpreter" / "web" / "templates").glob("*")}
    return want


def test_the_repository_has_no_symlinks() -> None:
    links = [str(p) for p in tracked_files() if (ROOT / p).is_symlink()]
    assert links == []


def test_every_package_folder_is_listed_in_pyproject() -> None:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    mapped = conf["package-dir"]
    listed = set(conf["packages"])
    folders = {"mercator"} | {
        "mercator." + ".".join(p.parent.relative_to(ROOT).parts)
        for top in ("dsl", "interpreter") for p in (ROOT / top).rglob("__init__.py")}
    assert folders - listed == set(), "add these packages to pyproject.toml"
    assert mapped == {"mercator": "mercator", "mercator.dsl": "dsl",
                      "mercator.interpreter": "interpreter", "mercator.rulebooks": "rulebooks"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = plain_copy(tmp_path_factory.mktemp("plain") / "mercator-src")
    return build("wheel", tree, tmp_path_factory.mktemp("dist"))


def test_the_wheel_from_a_tree_without_symlinks_holds_everything(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    want = expected_contents()
    assert len(want) > 120          # every module, the grammar, 13 rulebooks, the templates
    assert want - names == set()
    # nothing outside the package, and no second top-level copy of the folders
    tops = {n.split("/")[0] for n in names}
    assert tops == {"mercator", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1]
                    + ".dist-info"}


def test_the_installed_wheel_plays_a_game_from_anywhere(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import random, mercator, "
            "mercator.dsl.ast as ast_; "
            "assert ast_.__file__.startswith(sys.argv[1]), ast_.__file__; "
            "from mercator.dsl.loader import load; "
            "from mercator.interpreter.compiler import compile_program; "
            "from mercator.interpreter.tools.rulebooks import find_rulebook; "
            "p = find_rulebook('genoa'); assert str(p).startswith(sys.argv[1]), p; "
            "prog = compile_program(load(str(p)).rulebook); s = prog.new_game(players=3, seed=4); "
            "prog.playout(s, random.Random(4)); print(s.over, len(mercator.__path__))")
    run = subprocess.run([sys.executable, "-c", code, str(site)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["True", "1"]     # one folder: the wheel's, no source tree


@pytest.mark.parametrize("module, proper", [("dsl.ast", "mercator.dsl"),
                                            ("interpreter.engine.state", "mercator.interpreter")])
def test_importing_a_second_copy_fails_with_a_hint(module: str, proper: str) -> None:
    code = f"import mercator.dsl.ast\nimport {module}\n"
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode != 0
    assert "ImportError" in run.stderr and f"import it as '{proper}'" in run.stderr, run.stderr


def test_the_source_tree_runs_in_place_as_one_copy() -> None:
    code = ("import mercator.dsl.ast as a, mercator.interpreter.engine.state as s, sys; "
            "print(a.__file__); print(s.__file__); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dsl', 'interpreter')))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    a, s, stray = run.stdout.splitlines()
    assert Path(a) == ROOT / "dsl" / "ast.py" and Path(s) == ROOT / "interpreter/engine/state.py"
    assert stray == "[]"


def test_the_sdist_holds_its_tests_and_runs_them(tmp_path: Path) -> None:
    tree = plain_copy(tmp_path / "plain")
    sdist = build("sdist", tree, tmp_path / "dist")
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    (src,) = (tmp_path / "unpacked").iterdir()
    held = {p.relative_to(src).as_posix() for p in src.rglob("*") if p.is_file()}
    needed = {p.as_posix() for p in tracked_files()
              if p.parts[0] in ("tests", "dsl", "interpreter", "rulebooks", "mercator", "docs",
                                "benchmarks")}
    assert len([n for n in needed if n.startswith("tests/fixtures/")]) > 150
    assert needed - held == set()
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "tests/test_broken_fixtures.py", "tests/test_architecture.py"],
                         cwd=src, capture_output=True, text=True, timeout=600,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert " passed" in run.stdout and " failed" not in run.stdout
    where = subprocess.run([sys.executable, "-c", "import mercator.dsl; print(mercator.dsl.__file__)"],
                           cwd=src, capture_output=True, text=True, timeout=60)
    assert Path(where.stdout.strip()) == src / "dsl" / "__init__.py"
