"""Parsing and checking fast without changing what they give (issue 13), and the checker's layout.

- The parser's reduce actions (dsl/parse_actions.py) give every rule the span lark's own
  `propagate_positions` gives its tree node: compared rule by rule on every shipped rulebook and on
  texts where spans are delicate (parentheses, absent optional parts, an empty file).
- What a process keeps (parsed files, checked bases) is never served stale: a changed base is
  read again; a caller changing its result does not change what a later variant sees.
- The parser cache file is used only in a private directory of this user's.
- `import mercator.dsl.loader` imports neither lark nor the checker; the checker's modules stay small.
"""
from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import lark
import pytest

from mercator.dsl import ast as A
from mercator.dsl.ast_builder import PLAIN, AstBuilder
from mercator.dsl.loader import load, load_text
from mercator.dsl.parse_actions import Actions, nullable_rules
from mercator.dsl.parser import _OPTIONS, cache_file, grammar_text, parse
from tests.ast_digest import DIGEST_DEF

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "rulebooks").rglob("*.rules"))
TRICKY = [
    "",
    "# nothing but a comment\n",
    'game "G" players 2..2\nconst a = ((1 + 2)) * (3)\nconst b = -(-(4))\n'
    "const c = [(1), (2 + 3)]\nconst d = {x: (1)} \n",
    "fn f(x: int) -> int = (if (x > 0) then (x) else (-x))\n",
    "proc p() { let x = (first(players)).money\n first(players).money += (1) }\n",
    "event e()\non e() { log (1), (\"a\") }\nround r limit 1 { phase a { emit e() } }\n",
]


class Recorder(AstBuilder):
    """An AstBuilder that also notes (rule, span) for every rule given a span."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, tuple[int, int, int, int]]] = []

    def __getattribute__(self, name: str) -> Any:
        value = super().__getattribute__(name)
        if name.startswith("_") or name in PLAIN or not callable(value) or \
                name not in type(self).rules:
            return value
        seen = super().__getattribute__("seen")

        def noted(sp: A.Span, c: list[Any]) -> Any:
            seen.append((name, (sp.line, sp.col, sp.end_line, sp.end_col)))
            return value(sp, c)
        return noted

    rules: frozenset[str] = frozenset()


def lark_spans(text: str) -> list[tuple[str, tuple[int, int, int, int]]]:
    """(rule, span) of every tree node lark builds with propagate_positions, in the order its
    Transformer would meet them (post-order), for the rules with a spanned builder method."""
    tree = _with_positions().parse(text)
    rev, todo = [], [tree]
    while todo:                             # as lark's Transformer_NonRecursive orders them
        t = todo.pop()
        rev.append(t)
        if isinstance(t, lark.Tree):
            todo += t.children
    out = []
    for t in reversed(rev):                 # post-order, children left to right
        if isinstance(t, lark.Tree) and t.data in Recorder.rules:
            m = t.meta
            pos = (0, 0, 0, 0) if m.empty else (m.line, m.column, m.end_line, m.end_column)
            out.append((str(t.data), pos))
    return out


@functools.lru_cache(maxsize=1)
def _with_positions() -> lark.Lark:
    return lark.Lark(grammar_text(), propagate_positions=True, **_OPTIONS)


@functools.lru_cache(maxsize=1)
def _with_actions() -> tuple[lark.Lark, Actions, Recorder]:
    parser = lark.Lark(grammar_text(), **_OPTIONS)
    rec = Recorder()
    actions = Actions(rec)
    table = parser.parser.parser.parser
    table.callbacks = actions.callbacks([r for r in table.callbacks if not isinstance(r, str)],
                                        nullable_rules(parser.rules))
    return parser, actions, rec


def action_spans(text: str) -> list[tuple[str, tuple[int, int, int, int]]]:
    """The same, as the reduce actions give them to the builder."""
    parser, actions, rec = _with_actions()
    actions.reset("x.rules")
    rec.seen.clear()
    parser.parse(text)
    assert actions.first_error is None
    return list(rec.seen)


Recorder.rules = frozenset(n for n in dir(AstBuilder) if not n.startswith("_") and n not in PLAIN)


@pytest.mark.parametrize("text", [p.read_text(encoding="utf-8-sig") for p in SHIPPED] + TRICKY,
                         ids=[p.name for p in SHIPPED] + [f"tricky{i}" for i in range(len(TRICKY))])
def test_every_rule_gets_the_span_lark_would_give_it(text: str) -> None:
    expected = lark_spans(text)
    assert expected or not text.strip() or text.startswith("#")
    assert action_spans(text) == expected


def test_a_syntax_error_after_a_huge_number_is_the_error_reported() -> None:
    """As when the tree was built first: the parse must succeed before a value is refused."""
    big = "9" * 30
    _, ds = parse(f'game "G" players 2..2\nconst a = {big}\nconst b = = 1\n', "x.rules")
    assert [d.code for d in ds] == ["E001"] and ds[0].span.line == 3
    _, ds = parse(f'game "G" players 2..2\nconst a = {big}\nconst b = ({big})\n', "x.rules")
    assert [(d.code, d.span.line, d.span.col) for d in ds] == [("E005", 2, 11)]


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_changed_base_is_read_again(tmp_path: Path) -> None:
    tiny = (ROOT / "tests" / "fixtures" / "tiny.rules").read_text(encoding="utf-8")
    base = write(tmp_path / "base.rules", tiny)
    variant = write(tmp_path / "v.rules", 'variant "V" of "base.rules"\nconst extra = 1\n')
    assert load(base).ok and load(variant).ok
    write(tmp_path / "base.rules", tiny.replace("const start_money = 10", "const start_money = x"))
    res = load(variant)
    assert not res.ok and any(d.code == "E132" for d in res.diagnostics)
    assert any(d.code == "E100" and "'x'" in d.message for d in res.diagnostics)


def test_a_caller_changing_its_result_does_not_change_a_later_variant(tmp_path: Path) -> None:
    tiny = (ROOT / "tests" / "fixtures" / "tiny.rules").read_text(encoding="utf-8")
    base = write(tmp_path / "base.rules", tiny + "proc unused() { pot += 1 }\n")
    variant = write(tmp_path / "v.rules", 'variant "V" of "base.rules"\nconst extra = 1\n')
    first = load(base)
    assert any(d.code == "W250" for d in first.diagnostics)
    first.diagnostics.clear()           # the caller's own list
    first.sources.clear()
    res = load(variant)
    assert res.ok and res.base is not None
    assert not any(d.code == "W250" for d in res.diagnostics)   # reported with the base
    assert any(d.code == "W250" for d in res.base.diagnostics)
    assert set(res.sources) == {variant, os.path.normpath(base)}


def test_a_text_checked_twice_gives_the_same_diagnostics() -> None:
    text = (ROOT / "tests" / "fixtures" / "broken" / "e005_huge_number.rules").read_text()
    assert load_text(text, "x.rules").diagnostics == load_text(text, "x.rules").diagnostics


def test_the_parser_cache_lives_only_in_a_private_directory(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MERCATOR_CACHE_DIR", "")
    assert cache_file() is None
    monkeypatch.setenv("MERCATOR_CACHE_DIR", "relative/dir")
    assert cache_file() is None
    fresh = tmp_path / "cache"
    monkeypatch.setenv("MERCATOR_CACHE_DIR", str(fresh))
    got = cache_file()
    assert got is not None and Path(got).parent == fresh and fresh.stat().st_mode & 0o777 == 0o700
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("MERCATOR_CACHE_DIR", str(shared))
    assert cache_file() is None


def run(code: str, env: dict[str, str]) -> str:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, **env},
                          capture_output=True, text=True, check=True).stdout.strip()


def test_a_parser_read_from_the_cache_parses_the_same(tmp_path: Path) -> None:
    code = (DIGEST_DEF + "from mercator.dsl.parser import parse\n"
            "rb, _ = parse(open('rulebooks/genoa.rules', encoding='utf-8').read(), 'g.rules')\n"
            "print(digest(rb))\n")
    built = run(code, {"MERCATOR_CACHE_DIR": ""})
    env = {"MERCATOR_CACHE_DIR": str(tmp_path / "c")}
    first, second = run(code, env), run(code, env)
    assert list((tmp_path / "c").iterdir())      # the first run wrote the cache file
    assert built == first == second


def test_importing_the_loader_leaves_the_parser_and_checker_for_later() -> None:
    out = run("import sys, mercator.dsl.loader\nprint(sorted(m for m in ('lark', "
              "'mercator.dsl.parser', 'mercator.dsl.checker') if m in sys.modules))", {})
    assert out == "[]"


def test_the_checker_is_split_by_concern_into_small_modules() -> None:
    from mercator.dsl.checker import Checker, Scope, check_items  # the names other modules import
    parts = sorted((ROOT / "dsl").glob("checker*.py"))
    assert len(parts) >= 8 and callable(check_items) and Scope("proc").nslots == 0
    for p in parts:
        n = len(p.read_text(encoding="utf-8").splitlines())
        assert n <= 300, f"{p.name} has {n} lines"
    assert {c.__module__ for c in Checker.__mro__ if c.__module__.startswith("mercator.dsl.")} \
        == {f"mercator.dsl.{p.stem}" for p in parts}
