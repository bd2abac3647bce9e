"""`mercator check --explore`: Hypothesis-driven play finds a broken invariant, shrinks the game,
saves it for replay, and reports the rules no game reached."""
from __future__ import annotations

from pathlib import Path

import pytest

from dsl.loader import load
from interpreter.cli import main
from interpreter.explore import explore
from interpreter.program import Program

BUGGY = """game "Counter" players 2..3
player { coins: int = 3 }
table { turns: int }
proc never_called() { turns = 0 }
invariant "no debt": all(p.coins >= 0 for p in players)
round r limit 12 {
  phase spend {
    for p in players {
      let k = choose p one of 0..2 prompt "spend"
      if k == 2 and turns >= 5 { p.coins -= 5 }     # the bug: a debt, only late in the game
      elif k <= p.coins { p.coins -= k }
      turns += 1
    }
  }
}
score p: p.coins
"""


def test_explore_finds_and_shrinks_a_deep_invariant_breach(tmp_path: Path) -> None:
    path = tmp_path / "counter.rules"
    path.write_text(BUGGY, encoding="utf-8")
    prog = Program(load(str(path)).rulebook)
    report = explore(prog, games=200, seed=1)
    f = report.finding
    assert f is not None and f.kind == "invariant" and "no debt" in f.message
    # the shortest breach: five decisions to reach turns == 5, then one 'spend 2'
    assert len(f.decisions) == 6 and f.labels[-1] == "2"
    replay = prog.new_game(f.players, f.seed)
    for i in f.decisions:
        prog.apply(replay, i)
    assert prog.check_invariants(replay) == ["no debt"]
    assert any("never_called" in u.body and u.never for u in report.uncovered)


def test_explore_command_saves_a_replayable_failure(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "counter.rules"
    path.write_text(BUGGY, encoding="utf-8")
    save = tmp_path / "fail.json"
    assert main(["check", str(path), "--explore", "100", "--seed", "2",
                 "--save-failure", str(save)]) == 1
    captured = capsys.readouterr()
    assert "invariant" in captured.err and save.exists()
    assert main(["replay", str(save)]) == 0


def test_manila_explores_clean() -> None:
    prog = Program(load("rulebooks/manila.rules").rulebook)
    report = explore(prog, games=30, seed=5)
    assert report.finding is None and report.games == 30
    manila = [u for u in report.uncovered if "manila.rules" in u.body]
    assert report.ops_run > 0.5 * report.ops_total and len(manila) < 10


def test_explore_lists_options_no_game_chose(tmp_path: Path) -> None:
    """Rule coverage of decisions: with one game of two decisions among three dishes, at least
    one dish is offered and never chosen, and the report names exactly the ones not chosen."""
    path = tmp_path / "menu.rules"
    path.write_text('''game "Menu" players 2..2
enum Dish { soup, fish, cake }
player { had: int }
round r limit 1 { phase eat { for p in players {
  let d = choose p one of Dish prompt "order"
  p.had += 1
} } }
score p: p.had
''', encoding="utf-8")
    prog = Program(load(str(path)).rulebook)
    report = explore(prog, games=1, seed=0)
    assert report.finding is None and len(report.unchosen) == 1
    u = report.unchosen[0]
    assert u.prompt == "order" and 1 <= len(u.never) <= 2
    assert set(u.never) < {"soup", "fish", "cake"}
