"""benchmarks/bench_instructions.py counts the instructions of random playouts under valgrind.
Its child plays exactly the seeded games the other benchmarks play (so its count is of the same
work), and without valgrind, or with a bad flag, it says so instead of failing inside."""
from __future__ import annotations

import importlib.util
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from mercator.dsl.loader import load
from mercator.interpreter.compiler import compile_program

ROOT = Path(__file__).resolve().parent.parent
MANILA = str(ROOT / "rulebooks" / "manila.rules")


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_instructions",
                                                  ROOT / "benchmarks" / "bench_instructions.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_child_plays_the_seeded_games_and_counts_their_decisions(capsys: Any) -> None:
    _bench().child(MANILA, 3, 2, 5)
    out = capsys.readouterr().out.split()
    prog = compile_program(load(MANILA).rulebook)
    expected = 0
    for i in range(2):                     # the apply loop, which playout must follow
        s = prog.new_game(3, 5 + i)
        rng = random.Random(5 + i + 1_000_003)
        while not s.over:
            prog.apply(s, rng.randrange(s.pending.count))
            expected += 1
    assert out == ["decisions", str(expected)]
    assert expected > 100                  # two whole games of Manila, not a stub


def test_without_valgrind_it_says_how_to_install_it(monkeypatch: Any) -> None:
    mod = _bench()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(SystemExit) as exc:
        mod.main([MANILA])
    assert "apt-get install valgrind" in str(exc.value)


def test_a_missing_rulebook_and_a_bad_against_are_named(monkeypatch: Any, tmp_path: Path) -> None:
    mod = _bench()
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/valgrind")
    with pytest.raises(SystemExit) as exc:
        mod.main(["--against", str(tmp_path), MANILA])
    assert "not a checkout" in str(exc.value)
    with pytest.raises(SystemExit) as exc:
        mod.main(["--games", "0", MANILA])
    assert "--games" in str(exc.value)
