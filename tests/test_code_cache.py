"""Python's code of a rulebook's generated texts, kept for the process (compiler/codegen.py,
`_CODES`): a rulebook compiled again after an edit (`mercator check --watch`, an editor's
process) compiles with Python only the texts the edit changed, and plays the same games as a
compile from nothing."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from mercator.dsl.loader import load_text
from mercator.interpreter.compiler import codegen, compile_program

ROOT = Path(__file__).resolve().parent.parent
PATH = str(ROOT / "rulebooks" / "manila.rules")


def _program(text: str):  # type: ignore[no-untyped-def]
    res = load_text(text, PATH)
    assert res.ok and res.rulebook is not None, res.diagnostics
    return compile_program(res.rulebook)


def _games(prog) -> list:  # type: ignore[no-untyped-def]
    out = []
    for seed in range(3):
        s = prog.new_game(3, seed)
        prog.playout(s, random.Random(seed))
        out.append((list(s.history), prog.result(s).scores))
    return out


def test_a_rulebook_compiled_again_compiles_only_what_an_edit_changed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = Path(PATH).read_text(encoding="utf-8")
    calls: list[str] = []
    real = compile

    def counting(source, name, mode):  # type: ignore[no-untyped-def]
        calls.append(name)
        return real(source, name, mode)
    monkeypatch.setattr(codegen, "_CODES", {})
    monkeypatch.setattr(codegen, "compile", counting, raising=False)
    first = _games(_program(text))
    whole = len(calls)
    assert whole > 300                        # every text of Manila, the rollout's too
    calls.clear()
    assert _games(_program(text + "\n# a comment added\n")) == first
    assert calls == []                        # nothing new to compile
    old = "fn others_hold(p: player, g: Good) -> int = max(0, shares_per_good - supply[g] - held(p, g))"
    assert old in text
    edited = text.replace(old, old.replace("max(0,", "max(1,"))
    calls.clear()
    changed = _games(_program(edited))
    assert 0 < len(calls) < whole // 4        # the texts that fn's change reaches
    monkeypatch.setattr(codegen, "_CODES", {})
    calls.clear()
    assert _games(_program(edited)) == changed      # as a compile from nothing plays
    assert len(calls) == whole
