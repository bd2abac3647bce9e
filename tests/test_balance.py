"""The balance measures (interpreter/tools/balance.py, docs/balance.md "Measures") on small
rulebooks whose values are known: a game seat 1 always wins, leading from its first move; a
seesaw decided on its last move after a known number of lead changes; a rule that runs a
known number of times; an option a `prefer` seat always takes. And the detail they read
(play_one(..., detail=True)): off by default, the same game when on, and picklable."""
from __future__ import annotations

import pickle
from pathlib import Path

import attrs
import pytest

from game_driver import program, program_text

from mercator.interpreter.agents.spec import AgentSpec
from mercator.interpreter.tools import parallel
from mercator.interpreter.tools.balance import (Measure, decisiveness, lead_changes, measures,
                                                measure_definitions, midpoint_standing,
                                                per_game_table, standing_by_round)
from mercator.interpreter.tools.game_detail import GameDetail, rule_names
from mercator.interpreter.tools.parallel import Outcome, play_one, run_parts

MANILA = str(Path(__file__).resolve().parent.parent / "rulebooks" / "manila.rules")

# Seat 1 gains 2 a move, the others 1: seat 1 leads from its first move on and always wins.
# Each move calls `gain` and emits `picked`, whose trigger runs once a move: 3 rounds of N
# moves, so 3N runs of each per game.
SEAT_ONE = """
game "Seat one" players 2..4
player { points: int = 0 }
table { noted: int = 0 }
event picked(p: player, x: int)
proc gain(p: player) {
  p.points += if p == first(players) then 2 else 1
}
on picked(p, x) as note { noted += 1 }
round turn limit 3 {
  phase play {
    for p in players {
      let x = choose p one of 1..2 prompt "pick"
      gain(p)
      emit picked(p, x)
    }
  }
}
score p: p.points
prefer x: int at "pick" = x
stat picks counts picked
stat twos counts picked(p, x) when x == 2
stat picked_sum counts picked(p, x) as x
"""

# Two seats: seat 1 gains 1 on the first move, every other move gains 2: the lead passes from
# seat to seat at every move (5 changes in 6 moves) and seat 2 takes it for good on the last.
SEESAW = """
game "Seesaw" players 2..2
player { points: int = 0 }
table { made: int = 0 }
round turn limit 3 {
  phase play {
    for p in players {
      let x = choose p one of 1..2 prompt "pick"
      p.points += if made == 0 then 1 else 2
      made += 1
    }
  }
}
score p: p.points
"""

RANDOM, PREFER = AgentSpec("random"), AgentSpec("prefer")


def games(prog, players: int, seeds, specs, detail: bool = True) -> list[Outcome]:
    return [play_one(prog, players, s, specs, 1000, detail=detail) for s in seeds]


def by_name(ms: list[Measure]) -> dict[str, Measure]:
    return {m.name: m for m in ms}


@pytest.fixture(scope="module")
def seat_one():
    return program_text(SEAT_ONE)


@pytest.fixture(scope="module")
def seesaw():
    return program_text(SEESAW)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_seat_that_always_wins_has_the_whole_advantage(seat_one, n: int) -> None:
    out = games(seat_one, n, range(20), [RANDOM] * n)
    m = by_name(measures(out, n, seat_one.stat_names, rule_names(seat_one)))
    assert m["advantage seat 1"].value == pytest.approx(1 - 1 / n)
    for p in range(2, n + 1):
        assert m[f"advantage seat {p}"].value == pytest.approx(-1 / n)
    low, high = m["advantage seat 1"].low, m["advantage seat 1"].high
    assert low is not None and high is not None and low < 1 - 1 / n <= high + 1e-12
    assert m["balance"].value == pytest.approx(1.0)
    assert m["balance"].per_seat == (1.0,) + (0.0,) * (n - 1)
    assert m["drawishness"].value == 0.0
    assert m["moves per game"].value == 3 * n and m["rounds per game"].value == 3


def test_a_leader_from_the_first_move_makes_an_undecisive_game(seat_one) -> None:
    out = games(seat_one, 3, range(10), [RANDOM] * 3)
    assert {decisiveness(o) for o in out} == {1 / 9}      # seat 1 leads after move 1 of 9
    assert {lead_changes(o) for o in out} == {0}
    assert {midpoint_standing(o) for o in out} == {(False, False)}
    m = by_name(measures(out, 3))
    assert m["decisiveness"].value == pytest.approx(1 / 9)
    assert m["lead changes"].value == 0 and m["comebacks"].value == 0


def test_a_game_decided_on_its_last_move(seesaw) -> None:
    out = games(seesaw, 2, range(10), [RANDOM] * 2)
    o = out[0]
    assert o.winners == (1,) and o.scores == (5, 6)
    assert o.detail is not None and o.detail.moves == 6
    assert [vals for _, _, vals in o.detail.trajectory] == \
        [(0, 0), (1, 0), (1, 2), (3, 2), (3, 4), (5, 4), (5, 6)]
    assert [r for _, r, _ in o.detail.trajectory] == [1, 1, 1, 2, 2, 3, 3]
    assert standing_by_round(o.detail, o.rounds) == [(1, 2), (3, 4), (5, 6)]
    m = by_name(measures(out, 2))
    assert m["decisiveness"].value == 1.0
    assert m["lead changes"].value == 5
    # at the midpoint (3 moves: 3 to 2) the winner, seat 2, is last
    assert m["comebacks"].value == 1.0 and m["winner behind at midpoint"].value == 1.0
    assert m["advantage seat 2"].value == 0.5
    assert m["lead changes"].row() == ["lead changes", "5.000", "[5.000, 5.000]", "per game", ""]
    assert per_game_table(out)[0] == {"seed": 0, "winners": [1], "moves": 6,
                                      "decisiveness": 1.0, "lead_changes": 5}


def test_ties_for_the_lead_are_no_leader_and_a_shared_win_is_a_draw() -> None:
    prog = program_text(SEESAW.replace("if made == 0 then 1 else 2", "1"))
    out = games(prog, 2, range(4), [RANDOM] * 2)
    assert {o.winners for o in out} == {(0, 1)}
    assert {decisiveness(o) for o in out} == {None}        # no sole winner: not counted
    assert {lead_changes(o) for o in out} == {0}
    m = by_name(measures(out, 2))
    assert m["drawishness"].value == 1.0
    assert m["advantage seat 1"].value == 0.0             # half a win each: their share
    assert "decisiveness" not in m and "comebacks" not in m


def test_lowest_wins_leads_by_the_lowest_value(seesaw) -> None:
    prog = program_text(SEESAW.replace("score p: p.points", "score p: p.points lowest wins"))
    o = games(prog, 2, [0], [RANDOM] * 2)[0]
    assert o.winners == (0,) and o.detail is not None and o.detail.sign == -1
    assert lead_changes(o) == 5 and decisiveness(o) == 1.0


def test_each_rule_is_counted_as_often_as_it_runs(seat_one) -> None:
    out = games(seat_one, 3, range(5), [RANDOM] * 3)
    assert dict(out[0].detail.fired) == {"phase play": 3, "proc gain": 9, "trigger note": 9}
    m = by_name(measures(out, 3, rules=rule_names(seat_one)))
    assert m["rule proc gain per game"].value == 9
    assert m["rule trigger note per game"].low == m["rule trigger note per game"].high == 9


def test_a_phase_asking_at_its_first_step_is_counted_once_a_round() -> None:
    """tiny's dice phase asks at its first op (a simultaneous choice) and a seat may cash in
    (an any-time action) there: the phase resumes at that op, it is not run again."""
    prog = program(Path(__file__).resolve().parent / "fixtures" / "tiny.rules")
    out = games(prog, 2, range(8), [RANDOM] * 2)
    fired = [dict(o.detail.fired) for o in out if o.detail is not None]
    assert sum(f.get("action cash_in", 0) for f in fired) > 0
    assert [f["phase dice"] for f in fired] == [f["phase bid"] for f in fired] \
        == [o.rounds for o in out]


def test_a_rule_that_never_runs_is_listed(seat_one) -> None:
    prog = program_text(SEAT_ONE + "proc unused(p: player) { p.points += 1 }\n")
    m = by_name(measures(games(prog, 2, range(3), [RANDOM] * 2), 2, rules=rule_names(prog)))
    assert m["rule proc unused per game"].value == 0
    assert m["rule proc unused per game"].note == "never ran"


def test_a_searching_seat_s_look_ahead_is_not_counted(seat_one) -> None:
    out = games(seat_one, 2, range(2), [AgentSpec("mcts", iterations=20), RANDOM])
    assert {dict(o.detail.fired)["proc gain"] for o in out} == {6}
    assert seat_one.coverage is None                       # the program as it was


def test_an_option_the_prefer_seat_always_takes_is_dominant(seat_one) -> None:
    out = games(seat_one, 2, range(20), [PREFER, RANDOM])
    found = [m for m in measures(out, 2) if m.name.startswith("dominant option")]
    assert [m.name for m in found] == ["dominant option seat 1: pick -> 2"]
    assert found[0].value == 1.0 and found[0].games == 60
    # the random seat takes 2 about half the time: not listed, even at a lower bar
    assert not [m for m in measures(out, 2, dominant_share=0.75)
                if m.name.startswith("dominant option seat 2")]
    # too few decisions: nothing is called dominant
    assert not [m for m in measures(out[:5], 2) if m.name.startswith("dominant")]


def test_the_declared_stats(seat_one) -> None:
    out = games(seat_one, 2, range(10), [PREFER, PREFER])
    m = by_name(measures(out, 2, seat_one.stat_names))
    assert m["stat picks per game"].value == 6
    assert m["stat twos per game"].value == 6              # every prefer seat picks 2
    assert m["stat picked_sum per game"].value == 12
    assert m["stat picks per game"].low == m["stat picks per game"].high == 6


def test_detail_is_off_by_default_and_the_game_is_the_same_with_it(monkeypatch) -> None:
    prog = program(MANILA)
    for specs in ([RANDOM] * 3, [PREFER] * 3):
        plain = games(prog, 3, [3, 4], specs, detail=False)
        rich = games(prog, 3, [3, 4], specs)
        assert all(o.detail is None for o in plain)
        assert [attrs.evolve(o, detail=None) for o in rich] == plain
        assert all(isinstance(o.detail, GameDetail) and o.detail.by == "estimate"
                   for o in rich)
    assert prog.coverage is None
    # without detail nothing of it is made (so simulate and compare pay nothing)
    monkeypatch.setattr(parallel, "Recorder", None)
    assert games(prog, 3, [3], [PREFER] * 3, detail=False) == plain[:1]


def test_chance_steps_are_no_moves_and_the_game_is_the_same() -> None:
    """ismcts keeps chance as steps of the game (explicit chance): they are not moves."""
    prog = program(Path(__file__).resolve().parent / "fixtures" / "tiny.rules")
    specs = [AgentSpec("ismcts", iterations=10), RANDOM]
    plain, rich = games(prog, 2, [1], specs, detail=False), games(prog, 2, [1], specs)
    assert [attrs.evolve(o, detail=None) for o in rich] == plain
    d = rich[0].detail
    assert d is not None and 0 < d.moves < rich[0].decisions
    assert sum(c for _, _, c in d.offered) <= d.moves


def test_measures_without_detail_are_the_plain_ones(seat_one) -> None:
    out = games(seat_one, 2, range(4), [RANDOM] * 2, detail=False)
    names = [m.name for m in measures(out, 2, seat_one.stat_names)]
    assert names == ["advantage seat 1", "advantage seat 2", "balance", "drawishness",
                     "decisions per game", "rounds per game", "stat picks per game",
                     "stat twos per game", "stat picked_sum per game"]


def test_failed_games_are_left_out(seat_one) -> None:
    out = games(seat_one, 2, range(4), [RANDOM] * 2)
    out.append(Outcome(99, failure="long", message="too long"))
    m = by_name(measures(out, 2))
    assert m["advantage seat 1"].games == 4 and "1 failed" in m["advantage seat 1"].note


def _detailed(seed: int, note) -> Outcome:
    return play_one(program(MANILA), 3, seed, [PREFER] * 3, 5000, detail=True)


def test_detail_travels_from_worker_processes() -> None:
    prog = program(MANILA)
    here = games(prog, 3, [5, 6], [PREFER] * 3)
    assert pickle.loads(pickle.dumps(here)) == here
    assert run_parts(_detailed, [5, 6], workers=2) == here
    assert here[0].detail is not None and len(here[0].detail.trajectory) > 10


def test_every_measure_is_defined() -> None:
    names = [d.name for d in measure_definitions()]
    assert len(names) == len(set(names))
    assert all(d.formula and d.source and d.reading for d in measure_definitions())
