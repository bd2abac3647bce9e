"""`mercator check`'s answers kept between processes (interpreter/cli/check_cache.py, issue 37):
an unchanged file is answered from the cache exactly as a fresh check answers it (every broken
fixture, file:line:col, message, caret and hint); a change to the file, to a library it uses, to
a variant's base, or a used file that appears, is checked afresh; an entry that is corrupt or
of another shape, a cache directory that cannot be used, a file edited while it is checked,
never make check wrong; and an unchanged file is answered without loading the language."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from mercator.dsl import loader
from mercator.interpreter.cli import check_cache
from mercator.interpreter.cli.entry import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
CHECKED = sorted((FIXTURES / "broken").glob("*.rules")) + \
    sorted((FIXTURES / "runaway").glob("*.rules")) + sorted((ROOT / "rulebooks").rglob("*.rules"))


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh per-user cache directory for `mercator check`."""
    where = tmp_path / "cache"
    monkeypatch.setenv("MERCATOR_CACHE_DIR", str(where))
    return where


def check(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `mercator check ARGV`, through the installed entry point."""
    code = main(["check", *argv])
    got = capsys.readouterr()
    return code, got.out, got.err


def entries(cache: Path) -> list[Path]:
    """The cache's entries of check answers."""
    return sorted(cache.glob("check-*.json"))


def refuse_to_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, a file the cache does not answer fails loudly (so an answer that matches
    came from the cache)."""
    def no_load(path: str, _stack: tuple[str, ...] = ()) -> loader.LoadResult:
        raise AssertionError(f"{path} was loaded, not answered from the cache")
    monkeypatch.setattr(loader, "load", no_load)


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "colour"])
def test_the_cache_answers_every_fixture_as_a_fresh_check_does(
        cache: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch,
        colour: bool) -> None:
    """Every broken fixture (its diagnostics at file:line:col with the source line, the caret
    and the hint), every runaway fixture (a located rule error from the compiler) and every
    shipped rulebook: the same output and exit code from the cache as from a fresh check."""
    from mercator.interpreter.cli import check as check_module
    monkeypatch.setattr(check_module, "color_ok", lambda stream: colour)
    paths = [os.path.relpath(p) for p in CHECKED]
    everything = check(capsys, "--no-cache", "--verbose", *paths)
    chunk, seen = 50, ""
    for start in range(0, len(paths), chunk):
        part = paths[start:start + chunk]
        fresh = check(capsys, "--no-cache", "--verbose", *part)
        assert not cache.exists() or not entries(cache) or start
        first = check(capsys, "--verbose", *part)                # checked, and kept
        with monkeypatch.context() as m:
            refuse_to_load(m)
            again = check(capsys, "--verbose", *part)            # answered from the cache
            quiet = check(capsys, *part)
        assert fresh == first == again
        assert quiet == check(capsys, "--no-cache", *part)       # (infos left out)
        assert fresh[0] == 1 and ("\x1b[" in fresh[2]) == colour
        seen += fresh[1] + fresh[2]
    with monkeypatch.context() as m:       # every answer is kept (more than 64 ASTs are)
        refuse_to_load(m)
        assert check(capsys, "--verbose", *paths) == everything and len(paths) > 64
    assert "[E103]: unknown field" in seen and "rule error" in seen and "^^^" in seen
    assert "rulebooks/manila.rules: OK" in seen and "auction.rules: OK (library)" in seen


@pytest.fixture
def books(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of rulebooks/ (games, libraries, variants), the current directory."""
    shutil.copytree(ROOT / "rulebooks", tmp_path / "rulebooks")
    monkeypatch.chdir(tmp_path / "rulebooks")
    return tmp_path / "rulebooks"


def test_editing_a_used_library_or_a_base_is_checked_afresh(
        cache: Path, books: Path, capsys: pytest.CaptureFixture) -> None:
    """Manila uses lib/auction.rules; the pirate variant builds on manila.rules. An edit to
    either file is seen by the next check of the files that depend on it, and undoing it
    gives the first answer back."""
    games = ["manila.rules", "variants/manila_pirates.rules", "die_haendler.rules"]
    ok = check(capsys, *games)
    assert ok[0] == 0 and check(capsys, *games) == ok and entries(cache)
    lib = books / "lib" / "auction.rules"
    text = lib.read_text(encoding="utf-8")
    lib.write_text(text + "\nconst broken = undeclared_name\n", encoding="utf-8")
    bad = check(capsys, *games)
    assert bad == check(capsys, "--no-cache", *games)
    assert bad[0] == 1 and "lib/auction.rules:" in bad[2] and "undeclared_name" in bad[2]
    assert bad[2].count("[E100]") >= 3             # each game reports its library's error
    lib.write_text(text, encoding="utf-8")
    assert check(capsys, *games) == ok
    base = books / "manila.rules"
    text = base.read_text(encoding="utf-8")
    base.write_text(text.replace("const ", "const 1", 1), encoding="utf-8")   # a syntax error
    bad = check(capsys, "variants/manila_pirates.rules")
    assert bad[0] == 1 and bad == check(capsys, "--no-cache", "variants/manila_pirates.rules")
    base.write_text(text, encoding="utf-8")
    assert check(capsys, "variants/manila_pirates.rules")[0] == 0


def test_a_used_file_that_appears_or_a_game_in_another_folder_is_checked_afresh(
        cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that could not be read is looked at again: once it exists, the error goes. And
    the same relative path from another folder is another file, with its own libraries."""
    tiny = (FIXTURES / "tiny.rules").read_text(encoding="utf-8")
    one, two = tmp_path / "one", tmp_path / "two"
    for folder in (one, two):
        folder.mkdir()
        (folder / "g.rules").write_text('use "extra.rules"\n' + tiny, encoding="utf-8")
    monkeypatch.chdir(one)
    missing = check(capsys, "g.rules")
    assert missing[0] == 1 and "[E113]: cannot use 'extra.rules'" in missing[2]
    assert check(capsys, "g.rules") == missing
    (one / "extra.rules").write_text("const extra = 1\n", encoding="utf-8")
    assert check(capsys, "g.rules") == (0, "g.rules: OK\n", "")
    (two / "extra.rules").write_text("const extra = nothing_here\n", encoding="utf-8")
    monkeypatch.chdir(two)
    other = check(capsys, "g.rules")
    assert other[0] == 1 and "nothing_here" in other[2]
    monkeypatch.chdir(one)
    assert check(capsys, "g.rules") == (0, "g.rules: OK\n", "")


@pytest.mark.parametrize("garbage", [b"not json", b"{}", b'{"path": 1}', b"[1, 2]", b"",
                                     b'"\\ud800"'])
def test_a_corrupt_entry_is_ignored_and_written_again(
        cache: Path, capsys: pytest.CaptureFixture, garbage: bytes) -> None:
    paths = [os.path.relpath(sorted((FIXTURES / "broken").glob("e103*.rules"))[0]),
             os.path.relpath(ROOT / "rulebooks" / "manila.rules")]
    fresh = check(capsys, *paths)
    for entry in entries(cache):
        entry.write_bytes(garbage)
    assert check(capsys, *paths) == fresh
    assert all(json.loads(e.read_text(encoding="utf-8"))["path"] in paths
               for e in entries(cache))                 # written again


def test_an_entry_that_names_other_files_or_another_outcome_shape_is_not_used(
        cache: Path, capsys: pytest.CaptureFixture) -> None:
    path = os.path.relpath(FIXTURES / "tiny.rules")
    fresh = check(capsys, path)
    (entry,) = entries(cache)
    kept = json.loads(entry.read_text(encoding="utf-8"))
    for change in ({"files": [["/nonexistent.rules", ["file", "/x", "0"]]] + kept["files"]},
                   {"outcome": {**kept["outcome"], "game": "yes"}},
                   {"outcome": {**kept["outcome"], "diags": [["error", "x"]]}},
                   {"path": "other.rules"}):
        entry.write_text(json.dumps({**kept, **change}), encoding="utf-8")
        assert check(capsys, path) == fresh


@pytest.mark.parametrize("where", ["a file", "shared", "relative", "empty"])
def test_a_cache_that_cannot_be_used_never_breaks_check(
        tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch,
        where: str) -> None:
    """A cache 'directory' that is a file, one others may write to, a relative path, or none
    ($MERCATOR_CACHE_DIR empty): every check is made afresh and answers the same."""
    target = tmp_path / "c"
    if where == "a file":
        target.write_text("not a directory", encoding="utf-8")
    elif where == "shared":
        target.mkdir()
        target.chmod(0o777)
    value = {"relative": "relative/dir", "empty": ""}.get(where, str(target))
    paths = [os.path.relpath(FIXTURES / "tiny.rules"),
             os.path.relpath(sorted((FIXTURES / "broken").glob("e1*.rules"))[0])]
    monkeypatch.setenv("MERCATOR_CACHE_DIR", str(tmp_path / "fresh"))
    expected = check(capsys, "--no-cache", *paths)
    monkeypatch.setenv("MERCATOR_CACHE_DIR", value)
    assert check(capsys, *paths) == expected == check(capsys, *paths)
    assert not list(tmp_path.rglob("check-*.json"))


def test_a_cache_that_cannot_be_written_never_breaks_check(
        cache: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    path = os.path.relpath(FIXTURES / "tiny.rules")
    expected = check(capsys, "--no-cache", path)

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(tempfile, "mkstemp", full)
    assert check(capsys, path) == expected == check(capsys, path)
    assert not entries(cache)


def test_the_cache_lives_under_xdg_cache_home(tmp_path: Path, capsys: pytest.CaptureFixture,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MERCATOR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert check(capsys, os.path.relpath(FIXTURES / "tiny.rules"))[0] == 0
    assert list((tmp_path / "xdg" / "mercator").glob("check-*.json"))


def test_a_file_edited_while_it_is_checked_is_not_kept(cache: Path, tmp_path: Path) -> None:
    """An answer is kept only when every file it looked at is in the same state before and
    after the loader's answers are confirmed: an edit in between keeps nothing."""
    game = tmp_path / "g.rules"
    game.write_text((FIXTURES / "tiny.rules").read_text(encoding="utf-8"), encoding="utf-8")
    outcome = {"diags": [], "game": True, "compile": None}
    check_cache.put(str(cache), str(game), [str(game)], lambda: False, outcome)
    assert not cache.exists() or not entries(cache)

    def edited() -> bool:
        game.write_text(game.read_text(encoding="utf-8") + "\n# typed\n", encoding="utf-8")
        return True
    cache.mkdir(mode=0o700, exist_ok=True)
    check_cache.put(str(cache), str(game), [str(game)], edited, outcome)
    assert not entries(cache)
    check_cache.put(str(cache), str(game), [str(game)], lambda: True, outcome)
    assert check_cache.get(str(cache), str(game)) == outcome
    game.write_text(game.read_text(encoding="utf-8") + "\n# typed\n", encoding="utf-8")
    assert check_cache.get(str(cache), str(game)) is None


def test_an_unchanged_file_is_answered_without_the_language_or_the_engine(
        cache: Path) -> None:
    """The second `mercator check` of an unchanged game imports neither lark, the AST, the
    checker, the compiler nor the engine: it reads the files the answer depends on."""
    code = ("import sys\nfrom mercator.interpreter.cli.entry import main\n"
            "code = main(['check', 'rulebooks/manila.rules'])\n"
            "heavy = sorted(m for m in sys.modules if m in ('lark', 'attrs') or m.startswith(("
            "'mercator.dsl.ast', 'mercator.dsl.checker', 'mercator.dsl.loader', "
            "'mercator.interpreter.compiler', 'mercator.interpreter.engine.program')))\n"
            "print(code, heavy)\n")
    env = {**os.environ, "MERCATOR_CACHE_DIR": str(cache)}
    runs = [subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=120) for _ in range(2)]
    first = runs[0].stdout.splitlines()
    assert first[0] == "rulebooks/manila.rules: OK" and "'mercator.dsl.loader'" in first[1]
    assert runs[1].stdout == "rulebooks/manila.rules: OK\n0 []\n", runs[1].stderr


def test_options_the_quick_path_does_not_read_go_to_the_full_command_line(
        cache: Path, capsys: pytest.CaptureFixture) -> None:
    """A shipped rulebook's short name, --help and a missing file are the full parser's."""
    assert check(capsys, "tiny-is-not-a-rulebook-name")[0] == 2
    assert main(["check", "--help"]) == 0 and "--no-cache" in capsys.readouterr().out
    code, out, _ = check(capsys, "manila")
    assert code == 0 and out.endswith("manila.rules: OK\n")


def test_watch_checks_again_when_a_used_file_changes(tmp_path: Path) -> None:
    """`mercator check --watch` answers, then answers again when a library the game uses is
    edited (a located error), and again when the edit is undone; Ctrl-C stops it (exit 0)."""
    import queue
    import signal
    import threading
    tiny = (FIXTURES / "tiny.rules").read_text(encoding="utf-8")
    (tmp_path / "g.rules").write_text('use "lib.rules"\n' + tiny, encoding="utf-8")
    lib = tmp_path / "lib.rules"
    lib.write_text("const extra = 1\n", encoding="utf-8")
    env = {**os.environ, "MERCATOR_CACHE_DIR": str(tmp_path / "cache")}
    # (Ctrl-C's handler set in the child: a job started in the background ignores SIGINT)
    code = ("import signal, sys\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "from mercator.interpreter.cli.entry import main\n"
            "sys.exit(main(['check', '--watch', 'g.rules']))\n")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout or ()], daemon=True).start()

    def one_round() -> str:
        got = []
        while not got or not got[-1].startswith("checked in "):
            got.append(lines.get(timeout=60))
        return "".join(got)
    try:
        assert one_round().startswith("g.rules: OK\nchecked in ")
        lib.write_text("const extra = nowhere\n", encoding="utf-8")
        broken = one_round()
        assert "lib.rules:1:15: error[E100]" in broken and "watching 2 files" in broken
        lib.write_text("const extra = 2\n", encoding="utf-8")
        assert "g.rules: OK\n" in one_round()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            stopped = proc.wait(timeout=60)
        finally:
            proc.kill()
    assert stopped == 0


def test_other_code_checks_afresh(cache: Path, capsys: pytest.CaptureFixture,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """An answer belongs to the code that gave it: with other code (another version, an edited
    checker) the file is checked again."""
    path = os.path.relpath(FIXTURES / "tiny.rules")
    fresh = check(capsys, path)
    with monkeypatch.context() as m:
        refuse_to_load(m)
        assert check(capsys, path) == fresh                      # from the cache
        m.setattr(check_cache, "code_digest", lambda folders: "another engine")
        code, _, err = check(capsys, path)                       # not: it is loaded
        assert code == 1 and "was loaded, not answered from the cache" in err
    assert check(capsys, path) == fresh


def test_a_failure_of_mercator_itself_is_reported_as_the_full_command_line_does(
        cache: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    from mercator.interpreter.cli import common
    from mercator.interpreter.cli.main import main as full

    def broken(res: object) -> None:
        raise ZeroDivisionError("a bug")
    monkeypatch.setattr(common, "compile_problem", broken)
    path = os.path.relpath(FIXTURES / "tiny.rules")
    quick = check(capsys, path)
    assert full(["check", path]) == quick[0] == 1
    assert capsys.readouterr().err == quick[2] == (
        "mercator check: internal error: ZeroDivisionError: a bug "
        "(set MERCATOR_DEBUG=1 for a traceback)\n")
    assert not entries(cache)


def test_edits_checked_in_a_kept_process_are_reported_as_a_fresh_check_reports_them(
        cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What `check --watch` prints after each edit of a game (its declarations parsed again
    only where they changed, dsl/parse_chunks.py) is what a fresh check of that text prints,
    every location included; and no edit's AST is written to the per-user cache."""
    from types import SimpleNamespace
    from mercator.dsl import parse_chunks
    from mercator.interpreter.cli.check import cmd_check
    shutil.copytree(ROOT / "rulebooks", tmp_path / "rulebooks")
    monkeypatch.chdir(tmp_path)
    game = Path("rulebooks/manila.rules")
    lines = game.read_text(encoding="utf-8").split("\n")
    mid = next(k for k in range(len(lines) // 2, len(lines)) if lines[k].startswith("proc "))
    top = ["", "# two lines above"]
    texts = ["\n".join(lines[:mid] + ["# a comment"] + lines[mid:]),
             "\n".join(lines[:mid] + ["const extra = nowhere"] + lines[mid:]),
             "\n".join(top + lines[:mid] + ["const extra = nowhere"] + lines[mid:]),
             "\n".join(top + lines[:mid] + ["const extra = 1 +"] + lines[mid:]),
             "\n".join(lines)]

    def run(no_cache: bool, looked: "list | None") -> str:
        args = SimpleNamespace(paths=[str(game)], verbose=True, no_cache=no_cache, explore=0,
                               save_failure=None)
        cmd_check(args, looked)
        got = capsys.readouterr()
        return got.out + got.err
    run(True, [])
    kept = []
    for text in texts:
        game.write_text(text, encoding="utf-8")
        kept.append(run(True, []))
    assert not list(cache.glob("ast-*"))
    assert f"manila.rules:{mid + 1}:15: error[E100]" in kept[1]
    assert f"manila.rules:{mid + 3}:15: error[E100]" in kept[2]      # moved down two lines
    assert f"manila.rules:{mid + 4}:1: error[E001]" in kept[3]
    assert "rulebooks/manila.rules: OK" in kept[0] and "rulebooks/manila.rules: OK" in kept[4]
    for text, said in zip(texts, kept):
        game.write_text(text, encoding="utf-8")
        loader._PARSED.clear()
        parse_chunks.forget()
        assert run(True, None) == said
