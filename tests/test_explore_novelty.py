"""check --explore --strategy novelty (tools/explore.py, explore_novelty): a search for rule
lines no game has run yet reaches rules that random decision sequences seldom do."""
from __future__ import annotations

from pathlib import Path

from game_driver import program

from mercator.interpreter.cli.main import main
from mercator.interpreter.tools.explore import explore, explore_novelty

ROOT = Path(__file__).resolve().parent.parent
LADDER = ROOT / "tests" / "fixtures" / "agents" / "ladder.rules"


def test_the_novelty_search_climbs_where_random_play_does_not() -> None:
    """Each rung of the ladder is a rule line reached only from the rung below (one option in
    six climbs): Hypothesis's random sequences stay near the ground, the search climbs."""
    prog = program(LADDER)
    random_play = explore(prog, 20, seed=0)
    search = explore_novelty(prog, 20, seed=0)
    assert random_play.ops_total == search.ops_total == 20
    assert search.ops_run >= 18 > 14 >= random_play.ops_run
    assert search.finding is None and search.games == 20
    lines = {ln for u in search.uncovered for ln in u.lines}
    assert not lines & {16, 17, 18, 19, 20, 21}       # every rung climbed for real


def test_the_novelty_search_reports_through_check(capsys) -> None:
    assert main(["check", str(LADDER), "--explore", "5", "--strategy", "novelty"]) == 0
    out = capsys.readouterr().out
    assert "explored 5 games (seed 0, novelty search); rule coverage" in out


def test_a_broken_rule_is_found_by_the_novelty_search_too(tmp_path) -> None:
    rules = tmp_path / "broken_ladder.rules"
    rules.write_text(LADDER.read_text().replace("rung = 3\n", "rung = 3\n        let x = [1][rung]\n"))
    prog = program(rules)
    report = explore_novelty(prog, 40, seed=0)
    assert report.finding is not None and report.finding.kind == "runtime error"
