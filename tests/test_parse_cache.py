"""Parsed rulebook files kept between processes (dsl/parse_cache.py): a file read back from the
cache has the AST its text parses to, a changed text is parsed afresh, an unreadable entry is
ignored, the cache keeps at most MAX_ENTRIES, and it lives only in a private directory."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mercator.dsl import parse_cache
from mercator.dsl.loader import load
from mercator.dsl.parser import parse
from tests.ast_digest import DIGEST_DEF

ROOT = Path(__file__).resolve().parent.parent

DUMP = (DIGEST_DEF + "import sys\nfrom mercator.dsl import loader\n"
        "res = loader.load(sys.argv[1])\n"
        "rb, _ = loader._PARSED.get((sys.argv[1], open(sys.argv[1], encoding='utf-8').read()))\n"
        "print(digest(rb), res.ok, 'lark' in sys.modules)\n")


def run(path: str, cache: str) -> list[str]:
    env = {**os.environ, "MERCATOR_CACHE_DIR": cache}
    return subprocess.run([sys.executable, "-c", DUMP, path], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True).stdout.split()


def test_a_file_read_back_from_the_cache_has_the_ast_of_its_text(tmp_path: Path) -> None:
    cache = tmp_path / "c"
    parsed = run("rulebooks/genoa.rules", "")                 # no cache: parsed
    first = run("rulebooks/genoa.rules", str(cache))          # parsed, then kept
    second = run("rulebooks/genoa.rules", str(cache))         # read back
    assert parsed[:2] == first[:2] == second[:2] == [parsed[0], "True"]
    assert [p.name for p in cache.iterdir() if p.name.startswith("ast-")]
    assert first[2] == "True" and second[2] == "False"        # the second never loaded lark


def test_a_changed_text_or_an_unreadable_entry_is_parsed_again(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    cache = tmp_path / "c"
    cache.mkdir(mode=0o700)
    text = (ROOT / "tests" / "fixtures" / "tiny.rules").read_text(encoding="utf-8")
    rb, diags = parse(text, "m.rules")
    assert rb is not None and not diags
    root = str(cache)
    assert parse_cache.get(root, text, "m.rules") is None
    parse_cache.put(root, text, "m.rules", rb)
    assert parse_cache.get(root, text, "m.rules") == rb
    assert parse_cache.get(root, text + "\n# more\n", "m.rules") is None   # another text
    assert parse_cache.get(root, text, "other.rules") is None              # another path
    (entry,) = [p for p in cache.iterdir() if p.name.startswith("ast-")]
    entry.write_bytes(b"not a pickle")
    assert parse_cache.get(root, text, "m.rules") is None
    # the loader parses such a file again and keeps it anew
    f = tmp_path / "m.rules"
    f.write_text(text, encoding="utf-8")
    monkeypatch.setenv("MERCATOR_CACHE_DIR", root)
    assert load(str(f)).ok
    assert parse_cache.get(root, text, str(f)) == parse(text, str(f))[0]


def test_the_cache_keeps_at_most_max_entries(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse_cache, "MAX_ENTRIES", 3)
    root = str(tmp_path)
    texts = [f'game "G{k}" players 2..2\nplayer {{ x: int = {k} }}\n'
             "round r limit 1 { phase a { for p in players { p.x += 1 } } }\nscore p: p.x\n"
             for k in range(5)]
    for k, text in enumerate(texts):
        rb, _ = parse(text, "g.rules")
        assert rb is not None
        parse_cache.put(root, text, "g.rules", rb)
        os.utime(parse_cache._entry(root, text, "g.rules"), (k, k))   # written in this order
    kept = [t for t in texts if parse_cache.get(root, t, "g.rules") is not None]
    assert kept == texts[2:]


def test_the_cache_lives_only_in_a_private_directory(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("MERCATOR_CACHE_DIR", str(shared))
    assert parse_cache.cache_dir() is None
    monkeypatch.setenv("MERCATOR_CACHE_DIR", "")
    assert parse_cache.cache_dir() is None
    own = tmp_path / "own"
    monkeypatch.setenv("MERCATOR_CACHE_DIR", str(own))
    assert parse_cache.cache_dir() == str(own) and own.stat().st_mode & 0o777 == 0o700


def test_check_compiles_a_game_again_only_when_a_file_or_the_code_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """`mercator check` compiles each game to report what only the compiler finds; a game it
    compiled without an error, every file unchanged, is marked and not compiled again. A game
    that fails to compile is never marked: the located error comes every time. (--no-cache:
    without it, check's own cache of answers, tests/test_check_cache.py, answers first.)"""
    from mercator.interpreter.cli import common
    from mercator.interpreter.cli.main import main
    monkeypatch.setenv("MERCATOR_CACHE_DIR", str(tmp_path / "c"))
    game = tmp_path / "tiny.rules"
    game.write_text((ROOT / "tests" / "fixtures" / "tiny.rules").read_text(encoding="utf-8"),
                    encoding="utf-8")
    built: list[str] = []
    real = common._compile

    def counting(res):                        # type: ignore[no-untyped-def]
        built.append(sorted(res.sources)[0])
        return real(res)
    monkeypatch.setattr(common, "_compile", counting)
    check = ["check", "--no-cache"]
    assert main(check + [str(game)]) == 0 and len(built) == 1
    assert main(check + [str(game)]) == 0 and len(built) == 1          # marked: not again
    game.write_text(game.read_text(encoding="utf-8") + "\n# an edit\n", encoding="utf-8")
    assert main(check + [str(game)]) == 0 and len(built) == 2          # changed: compiled
    monkeypatch.setattr(common, "_code_digest", lambda: "another engine")
    assert main(check + [str(game)]) == 0 and len(built) == 3          # other code: again
    slow = str(ROOT / "tests" / "fixtures" / "runaway" / "slow_constant.rules")
    for _ in range(2):
        assert main(check + [slow]) == 1
        assert "constant 'big' cannot be computed" in capsys.readouterr().err
    assert len(built) == 5


EDITED = (DIGEST_DEF + "import sys\nfrom mercator.dsl import loader, parser\n"
          "alone = []\n"
          "whole = parser.parse_whole\n"
          "parser.parse_whole = lambda *a: (alone.append('whole'), whole(*a))[1]\n"
          "one = parser._parse_alone\n"
          "parser._parse_alone = lambda *a: (alone.append('chunk'), one(*a))[1]\n"
          "res = loader.load(sys.argv[1])\n"
          "rb, _ = loader._PARSED.get((sys.argv[1], open(sys.argv[1], encoding='utf-8').read()))\n"
          "print(digest(rb), res.ok, ','.join(alone) or '-')\n")


def test_a_new_process_parses_only_what_an_edit_changed(tmp_path: Path) -> None:
    """The last text of a path whose AST was kept lets a new process parse an edited file as
    a process that parsed it before does: only the declarations the edit changed, the others
    taken from the kept AST with their lines moved (the AST equal to a whole parse's, spans
    included)."""
    cache = tmp_path / "c"
    f = tmp_path / "genoa.rules"
    lines = (ROOT / "rulebooks" / "genoa.rules").read_text(encoding="utf-8").split("\n")
    (tmp_path / "lib").symlink_to(ROOT / "rulebooks" / "lib")

    def child(env_cache: str) -> list[str]:
        env = {**os.environ, "MERCATOR_CACHE_DIR": env_cache}
        return subprocess.run([sys.executable, "-c", EDITED, str(f)], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=True).stdout.split()

    f.write_text("\n".join(lines), encoding="utf-8")
    assert child(str(cache))[1:] == ["True", "whole"]          # nothing kept: a whole parse
    mid = len(lines) // 2       # a fn right below another declaration (no comment above it:
    while not (lines[mid].startswith("fn ") and lines[mid - 1].strip()      # a comment above
               and not lines[mid - 1].startswith("#")):     # belongs to the chunk below it)
        mid += 1
    edited = lines[:mid] + ["# a comment the edit adds", "fn added_here() -> int = 4"] + \
        lines[mid:]
    f.write_text("\n".join(edited), encoding="utf-8")
    fresh = child("")                                          # no cache: a whole parse
    again = child(str(cache))
    assert fresh[1:] == ["True", "whole"]
    assert again[0] == fresh[0] and again[1:] == ["True", "chunk"]   # the new chunk alone
    broken = lines[:mid] + ["fn broken_here( -> int = 4"] + lines[mid:]
    f.write_text("\n".join(broken), encoding="utf-8")
    out = child(str(cache))                     # a chunk that does not parse: the whole file,
    assert out[1:] == ["False", "chunk,whole"]   # for its diagnostics
