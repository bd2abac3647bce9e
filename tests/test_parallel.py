"""Many games on several workers or on Ray (tools/parallel.py), and the agent specs of
--seats (agents/spec.py): the same outcomes however the games are split."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from game_driver import program

from mercator.dsl.loader import load
from mercator.interpreter.agents.search import UCT_C
from mercator.interpreter.agents.spec import (AgentSpec, SpecError, make_agent, parse_seats,
                                              parse_spec)
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.cli.main import main
from mercator.interpreter.tools.parallel import run_games

ROOT = Path(__file__).resolve().parent.parent
TINY = str(ROOT / "tests" / "fixtures" / "tiny.rules")
MANILA = str(ROOT / "rulebooks" / "manila.rules")


@pytest.mark.parametrize("text, spec", [
    ("random", AgentSpec("random")),
    ("Human", AgentSpec("human")),
    ("ismcts", AgentSpec("ismcts", iterations=200)),
    ("mcts:37", AgentSpec("mcts", iterations=37)),
    ("ismcts:2s", AgentSpec("ismcts", seconds=2.0)),
    ("ismcts:250ms", AgentSpec("ismcts", seconds=0.25)),
    (" mcts:1.5s ", AgentSpec("mcts", seconds=1.5)),
    ("ismcts:200:depth=40", AgentSpec("ismcts", iterations=200, depth=40)),
    ("ismcts:depth=40:worlds=8", AgentSpec("ismcts", iterations=200, depth=40, worlds=8)),
    ("MCTS:2s:c=1.25", AgentSpec("mcts", seconds=2.0, c=1.25)),
    ("ismcts:300ms:c=0.000001", AgentSpec("ismcts", seconds=0.3, c=0.000001)),
    ("mcts:50:deals=random", AgentSpec("mcts", iterations=50, deals="random")),
    ("ismcts:deals=none", AgentSpec("ismcts", iterations=200, deals="none")),
])
def test_a_spec_names_a_player_and_its_budget(text: str, spec: AgentSpec) -> None:
    assert parse_spec(text) == spec
    assert parse_spec(str(spec)) == spec          # printed as it can be typed again


@pytest.mark.parametrize("text, why", [
    ("robot", "unknown player 'robot'"),
    ("random:3", "only a searcher"),
    ("ismcts:", "empty budget"),
    ("ismcts:0", "iterations must be 1 to"),
    ("ismcts:0s", "above 0"),
    ("ismcts:2x", "a number of iterations"),
    ("mcts:-5", "a number of iterations"),
    ("ismcts:99999999999", "a number of iterations"),
    ("random:depth=3", "only a searcher"),
    ("mcts:200:worlds=3", "mcts has no setting 'worlds'"),
    ("ismcts:200:speed=3", "ismcts has no setting 'speed'"),
    ("ismcts:200:depth", "'depth' is not a setting"),
    ("ismcts:200:depth=0", "depth is the number of steps .or with cut=decision, decisions."),
    ("ismcts:200:worlds=x", "worlds is the number of worlds"),
    ("ismcts:200:c=0", "c is the exploration constant"),
    ("ismcts:200:c=1e3", "c is the exploration constant"),
    ("ismcts:200:depth=3:depth=4", "'depth' is given twice"),
    ("ismcts:200:deals=yes", "none .they pass and cancel a draft., random .* or judge .*default judge"),
])
def test_a_bad_spec_says_what_is_accepted(text: str, why: str) -> None:
    with pytest.raises(SpecError, match=why):
        parse_spec(text)


def test_a_specs_settings_reach_its_bot() -> None:
    """depth, c and worlds of a spec are the bot's: a rollout cut by decisions plays at most
    depth decisions (by steps, the default, at least one a step)."""
    bot = make_agent(parse_spec("ismcts:20:depth=3:c=1.5:worlds=5"), 7)
    assert (bot.depth, bot.c, bot.worlds, bot.iterations) == (3, 1.5, 5, 20)
    bot = make_agent(parse_spec("mcts:2s:cores=1"), 7)
    assert (bot.depth, bot.c, bot.seconds, bot.deals) == (None, UCT_C, 2.0, False)
    wide = make_agent(parse_spec("mcts:2s:cores=3:depth=4"), 7)       # root-parallel
    assert (wide.workers, wide.seconds, wide.settings["depth"]) == (3, 2.0, 4)
    assert make_agent(parse_spec("ismcts:2s"), 7, cores=1).seconds == 2.0    # a game's worker
    assert getattr(make_agent(parse_spec("ismcts:20"), 7), "workers", 1) == 1  # iterations: one
    assert make_agent(parse_spec("ismcts:2:deals=random"), 7).deals is True
    assert make_agent(parse_spec("ismcts:2:deals=none"), 7).deals is False
    prog = compile_program(load(MANILA).rulebook)
    s = prog.new_game(3, 1)
    bot = make_agent(parse_spec("mcts:5:depth=4:cut=decision"), 1)
    bot.choose(prog, s)
    assert 0 < bot.last_rollout_decisions <= 5 * 4
    steps = make_agent(parse_spec("mcts:5:depth=4"), 1)
    steps.choose(prog, s)
    assert steps.cut == "step" and steps.last_rollout_decisions >= 5 * 4


def test_seats_are_one_for_all_or_one_each() -> None:
    assert parse_seats("ismcts:50", 3) == [AgentSpec("ismcts", 50)] * 3
    assert [s.kind for s in parse_seats("human,mcts,random", 3)] == ["human", "mcts", "random"]
    with pytest.raises(SpecError, match="2 seats given for a game of 3"):
        parse_seats("random,random", 3)
    with pytest.raises(SpecError, match="empty seat"):
        parse_seats("random,,random", 3)


def outcomes(workers: int, specs: list[AgentSpec], games: int = 12) -> list:
    prog = program(MANILA)
    return run_games(MANILA, prog, 3, range(5, 5 + games), specs, 5_000, workers=workers)


def test_two_workers_play_the_games_one_plays() -> None:
    random3 = [AgentSpec("random")] * 3
    one, two = outcomes(1, random3), outcomes(2, random3)
    assert one == two
    assert [o.seed for o in two] == list(range(5, 17))
    assert len({o.scores for o in one}) > 1          # different games, not one repeated


def test_searching_bots_give_the_same_games_on_any_number_of_workers() -> None:
    specs = [AgentSpec("ismcts", 4), AgentSpec("mcts", 4), AgentSpec("random")]
    assert outcomes(1, specs, 2) == outcomes(2, specs, 2)


def test_simulate_reports_the_same_for_any_number_of_workers(capsys) -> None:
    reports = []
    for w in ("1", "2"):
        assert main(["simulate", MANILA, "--players", "3", "--games", "30", "--seed", "3",
                     "--workers", w, "--json"]) == 0
        r = json.loads(capsys.readouterr().out)
        r.pop("seconds"), r.pop("games_per_second")
        reports.append(r)
    assert reports[0] == reports[1] and reports[0]["seats"] == ["random"] * 3


def test_a_failing_game_is_reported_as_with_one_worker(capsys) -> None:
    errs = []
    for w in ("1", "2"):
        assert main(["simulate", TINY, "--games", "6", "--max-decisions", "3",
                     "--workers", w]) == 1
        errs.append(capsys.readouterr().err)
    assert errs[0] == errs[1]
    assert "did not end within 3 decisions" in errs[0] and "--seed 0" in errs[0]


def test_compare_takes_the_seats_and_workers(capsys) -> None:
    assert main(["compare", MANILA, MANILA, "--players", "3", "--games", "4", "--workers", "2",
                 "--seats", "ismcts:2,random,random", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert all(r["diff"] in (0, 0.0, None) for r in rows)     # the same rulebook: no difference


def test_the_ray_backend_plays_the_local_games() -> None:
    ray = pytest.importorskip("ray", reason="Ray is the optional extra mercator[ray]")
    specs = [AgentSpec("random")] * 3
    prog = program(MANILA)
    try:
        on_ray = run_games(MANILA, prog, 3, range(5, 13), specs, 5_000, backend="ray")
    finally:
        ray.shutdown()
    assert on_ray == outcomes(1, specs, 8)
