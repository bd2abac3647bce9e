"""check --explore --workers N (tools/explore.py, tools/parallel.run_parts): the games are
runs of a fixed size, each from its own seed, merged up to the first run that found a broken
rule, so the report is the same for one worker and for several."""
from __future__ import annotations

from pathlib import Path

import attrs

from game_driver import program

from mercator.interpreter.cli.main import main
from mercator.interpreter.tools import explore as X
from mercator.interpreter.tools.parallel import run_parts

ROOT = Path(__file__).resolve().parent.parent
LADDER = ROOT / "tests" / "fixtures" / "agents" / "ladder.rules"


def facts(report: X.Report) -> tuple:
    f = report.finding
    return (report.games, report.ops_run, report.ops_total, report.ended_at_limit,
            [attrs.astuple(u) for u in report.uncovered],
            [attrs.astuple(u) for u in report.unchosen],
            None if f is None else (f.kind, f.message, f.players, f.seed, f.decisions))


def test_hypothesis_exploration_is_the_same_on_two_workers(monkeypatch) -> None:
    monkeypatch.setattr(X, "SHARD_GAMES", 4)
    prog = program(ROOT / "rulebooks" / "die_haendler.rules")
    counted: list[int] = []
    one = X.explore(prog, 10, seed=3)
    two = X.explore(prog, 10, seed=3, workers=2, on_game=counted.append)
    assert facts(one) == facts(two) and one.games == 10
    assert counted == list(range(1, 11))      # progress from both workers, one by one
    # three runs (4 + 4 + 2 games), each from its own seed, the first from the exploration's
    assert X._parts(10, 4) == [(0, 4), (1, 4), (2, 2)]
    assert X.part_seed(3, 0) == 3 and len({X.part_seed(3, k) for k in range(3)}) == 3


def test_novelty_exploration_is_the_same_on_two_workers(monkeypatch) -> None:
    monkeypatch.setattr(X, "NOVELTY_SHARD_GAMES", 3)
    prog = program(LADDER)
    one = X.explore_novelty(prog, 8, seed=1)
    two = X.explore_novelty(prog, 8, seed=1, workers=2)
    assert facts(one) == facts(two) and one.games == 8


def test_a_broken_rule_stops_the_runs_after_it(tmp_path, monkeypatch) -> None:
    """The report is the first run's with a failure (the runs before it merged in), whatever
    later runs found or were still playing on another worker."""
    monkeypatch.setattr(X, "NOVELTY_SHARD_GAMES", 2)
    rules = tmp_path / "broken_ladder.rules"
    broken = LADDER.read_text().replace("rung = 3\n", "rung = 3\n        let x = [1][rung]\n")
    rules.write_text(broken)
    prog = program(rules)
    one = X.explore_novelty(prog, 40, seed=0)
    two = X.explore_novelty(prog, 40, seed=0, workers=2)
    assert one.finding is not None and one.finding.kind == "runtime error"
    assert facts(one) == facts(two) and one.games < 40


def _square(part: int, note) -> int:
    note("done", part)
    return part * part


def test_run_parts_keeps_the_order_and_stops_after_the_last() -> None:
    notes: list = []
    assert run_parts(_square, list(range(9)), 2, lambda *n: notes.append(n)) == \
        [k * k for k in range(9)]
    assert sorted(notes) == [("done", k) for k in range(9)]
    for workers in (1, 2):
        assert run_parts(_square, list(range(9)), workers, last=lambda r: r >= 16) == \
            [0, 1, 4, 9, 16]


def test_check_takes_workers(capsys) -> None:
    assert main(["check", str(LADDER), "--explore", "5", "--strategy", "novelty",
                 "--workers", "2"]) == 0
    assert "explored 5 games (seed 0, novelty search)" in capsys.readouterr().out
    assert main(["check", str(LADDER), "--explore", "5", "--workers", "0"]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err
