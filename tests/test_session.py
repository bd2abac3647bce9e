"""The game session behind `mercator serve` (interpreter/tools/session.py): bots, moves refused
with a reason, undo (docs/web.md, "Undo"), saving, and the timeline of a saved game."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from mercator.dsl.loader import load
from game_driver import program
from mercator.interpreter.agents.base import RandomAgent, agent_seed, play_game
from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.view import observe
from mercator.interpreter.tools.saves import load_save, replay
from mercator.interpreter.tools.session import GameSession, SessionError, parse_seat_kinds

ROOT = Path(__file__).resolve().parent.parent
MANILA = str(ROOT / "rulebooks" / "manila.rules")
GENOA = str(ROOT / "rulebooks" / "genoa.rules")


@pytest.fixture(scope="module")
def manila():
    return program(MANILA)


def session(prog, seats, seed=5, **kw):
    return GameSession(prog, len(seats), seed, seats, MANILA, load(MANILA).sources, **kw)


def first_move(s, seat):
    """A move for `seat` that is not an any-time action (so the game goes on)."""
    opts = s.options(seat)
    assert opts, f"P{seat + 1} has no options"
    values = [o for o in opts if o["kind"] != "action"]
    return values[-1]["index"]


# ------------------------------------------------------------------ bots
def test_bots_play_until_a_human_must_decide(manila):
    s = session(manila, ["human", "random", "random"])
    assert s.to_decide() == 0 or s.state.over
    s.move(0, first_move(s, 0))
    node = s.state.pending
    assert s.state.over or (isinstance(node, Decision) and s.human(node.player))
    assert set(s.movers[:]) <= {0, 1, 2}
    assert 0 in s.movers


def test_a_game_of_bots_only_is_the_same_game_as_play(manila):
    """The same seats and seed give the same game as `mercator play --seats random,...`."""
    s = session(manila, ["random"] * 4, seed=11)
    assert s.state.over
    agents = [RandomAgent(agent_seed(11, i)) for i in range(4)]
    ref = play_game(manila, 4, 11, agents, on_step=lambda *a: None)
    assert s.decisions == ref.history
    assert s.state == ref
    assert len(s.steps) == len(ref.history) + 1


# ------------------------------------------------------------------ moves refused
def test_an_illegal_move_is_refused_and_changes_nothing(manila):
    s = session(manila, ["human", "random", "random"])
    before, n = s.state.digest(), len(s.steps)
    count = s.state.pending.count
    with pytest.raises(SessionError) as e:
        s.move(0, count)
    assert e.value.message == (f"illegal move: option {count} is out of range: there are "
                               f"{count} options (0–{count - 1})")
    assert e.value.status == 400 and "choose one of the options" in e.value.hint
    with pytest.raises(SessionError, match="illegal move: 'no such thing' is not a legal option"):
        s.move(0, "no such thing")
    assert s.state.digest() == before and len(s.steps) == n


def test_a_move_out_of_turn_or_for_a_bot_is_refused(manila):
    s = session(manila, ["human", "human", "random"])
    assert s.to_decide() == 0
    with pytest.raises(SessionError, match="it is not P2's turn: P1 is to decide") as e:
        s.move(1, 0)
    assert e.value.status == 409
    with pytest.raises(SessionError, match=r"P3 is played by a bot \(random\)"):
        s.move(2, 0)
    with pytest.raises(SessionError, match="there is no seat P4"):
        s.move(3, 0)


def test_a_move_after_the_end_is_refused(manila):
    s = session(manila, ["human", "random", "random"], seed=3)
    rng = random.Random(0)
    while not s.state.over:
        s.move(0, rng.randrange(s.state.pending.count))
    with pytest.raises(SessionError, match="the game is over"):
        s.move(0, 0)


def test_a_label_is_a_move_too(manila):
    s = session(manila, ["human", "random", "random"])
    label = s.state.pending.options[1].label
    assert s.move(0, label) == label
    assert s.labels[0] == label


# ------------------------------------------------------------------ undo
def test_undo_takes_back_the_move_and_the_bots_after_it(manila):
    s = session(manila, ["human", "random", "random"])
    before = s.state.clone()
    view_before = s.view(0)
    s.move(0, first_move(s, 0))
    assert len(s.steps) > 2 or s.to_decide() == 0
    gone = s.undo(0)
    assert gone >= 1
    assert s.state == before and s.state.history == before.history
    assert s.view(0) == view_before


def test_a_training_game_undoes_move_after_move(manila):
    s = session(manila, ["human", "random", "random"])
    start = s.state.clone()
    for _ in range(3):
        s.move(0, first_move(s, 0))
    for _ in range(3):
        s.undo(0)
    assert s.state == start and s.movers == []
    assert s.undo_refusal(0) == "P1 has made no decision to take back"
    with pytest.raises(SessionError, match="cannot undo: P1 has made no decision"):
        s.undo(0)


def test_hot_seat_undo_stops_once_another_person_has_moved(manila):
    s = session(manila, ["human", "human", "random"])
    s.move(0, first_move(s, 0))
    while s.to_decide() == 0:       # P1 may have more to decide before P2's turn
        s.move(0, first_move(s, 0))
    assert s.to_decide() == 1
    assert s.undo_refusal(0) is None            # P2 has not moved yet
    s.move(1, first_move(s, 1))
    assert s.undo_refusal(0) == ("P2 decided after P1's last move: it can no longer be taken "
                                 "back")
    with pytest.raises(SessionError, match="cannot undo: P2 decided after"):
        s.undo(0)
    assert s.undo_refusal(1) is None
    assert s.undo_refusal(2) == "P3 is a bot"
    assert s.undo_refusal(None) == "a spectator cannot undo"


def test_undo_can_be_switched_off(manila):
    s = session(manila, ["human", "random", "random"], undo=False)
    s.move(0, first_move(s, 0))
    assert s.undo_refusal(0) == "undo is off in this game"
    assert s.view(0)["can_undo"] is False


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), players=st.integers(3, 5),
       plan=st.lists(st.integers(0, 10), min_size=1, max_size=25))
def test_moves_and_undos_keep_the_game_a_replay_of_its_log(seed, players, plan):
    """Whatever the moves and undos, the live position is the replay of the session's decision
    log (determinism), every kept step is the replay of its prefix, and a human is to move."""
    prog = manila_program()
    s = GameSession(prog, players, seed, ["human"] + ["random"] * (players - 1))
    for x in plan:
        if s.state.over:
            break
        if x == 0 and s.undo_refusal(0) is None:
            s.undo(0)
        else:
            s.move(0, x % s.state.pending.count)
        assert s.state.over or s.to_decide() == 0
    ref = prog.new_game(players, seed, narrate=True)
    for k, idx in enumerate(s.decisions):
        assert s.steps[k] == ref
        prog.apply(ref, idx)
    assert ref == s.state and ref.record == s.state.record


_PROGRAMS: dict = {}


def manila_program():
    """Manila's program, compiled once for the property test (fixtures do not mix with @given)."""
    if MANILA not in _PROGRAMS:
        _PROGRAMS[MANILA] = program(MANILA)
    return _PROGRAMS[MANILA]


# ------------------------------------------------------------------ saves and the timeline
def test_a_saved_game_steps_through_its_timeline(manila, tmp_path):
    s = session(manila, ["human", "random", "random"], seed=8)
    rng = random.Random(4)
    for _ in range(12):
        s.move(0, rng.randrange(s.state.pending.count))
    path = str(tmp_path / "g.json")
    s.save(path)
    data = load_save(path)
    r = GameSession.from_save(manila, data)
    assert r.replaying and r.decisions == s.decisions
    assert len(r.steps) == len(s.decisions) + 1
    for k in (0, 1, len(s.decisions) // 2, len(s.decisions)):
        at_k, _ = replay(manila, data, stop=k)
        assert r.steps[k] == at_k
        for seat in (None, 0, 1):
            v = r.view(seat, k)
            assert {key: v[key] for key in observe(manila, at_k, seat)} == \
                observe(manila, at_k, seat)
            assert v["step"] == k and v["options"] == [] and v["can_undo"] is False
    assert r.view(0, -1) == r.view(0)
    with pytest.raises(SessionError, match="this is a replay of a saved game"):
        r.move(0, 0)
    n = len(s.decisions)
    with pytest.raises(SessionError, match=f"there is no step {n + 1}: this game has steps 0 to {n}"):
        r.view(None, n + 1)


def test_the_log_of_a_seat_is_the_views_log(manila, tmp_path):
    s = session(manila, ["human", "random", "random"], seed=8)
    s.move(0, first_move(s, 0))
    for seat in (None, 0, 1):
        assert s.log(seat) == s.view(seat)["log"] and s.log(seat, 0) == s.view(seat, 0)["log"]
    assert len(s.log(None, 0)) < len(s.log(None))
    path = str(tmp_path / "g.json")
    s.save(path)
    assert GameSession.load(manila, path).log(1) == s.log(1)


def test_the_view_marks_what_happened_since_the_seats_last_move(manila):
    s = session(manila, ["human", "random", "random"], seed=8)
    assert s.view(0)["new_from"] == 0                  # no move yet: nothing to mark
    for _ in range(3):
        label = s.move(0, first_move(s, 0))
        v = s.view(0)
        log, k = v["log"], v["new_from"]
        assert 0 < k <= len(log)
        # the seat's own move is before the mark, told by the rules ("P1 bids 3") or, where
        # they do not narrate it, as the choice
        assert any(line.startswith("P1 ") and label.split("(")[0] in line.lower()
                   or line.startswith(f"P1 chooses {label}") for line in log[:k])
        assert not any(line.startswith("P1 chooses") for line in log[k:])
    assert s.view(None)["new_from"] == 0


def test_a_saved_game_can_go_on(manila, tmp_path):
    s = session(manila, ["human", "random", "random"], seed=9)
    s.move(0, first_move(s, 0))
    path = str(tmp_path / "g.json")
    s.save(path)
    r = GameSession.from_save(manila, load_save(path), seats=["human", "random", "random"],
                              replaying=False)
    assert r.state == s.state and r.to_decide() == 0
    r.move(0, first_move(r, 0))
    assert len(r.decisions) > len(s.decisions)


def test_autosave_keeps_the_file_in_step(manila, tmp_path):
    path = str(tmp_path / "auto.json")
    s = session(manila, ["human", "random", "random"], seed=2)
    s.save_path = path
    s.move(0, first_move(s, 0))
    assert load_save(path).decisions == s.decisions
    s.undo(0)
    assert load_save(path).decisions == s.decisions


# ------------------------------------------------------------------ seats
@pytest.mark.parametrize("text, players, message", [
    ("human,robot", 2, "unknown player 'robot'"),
    ("human,random", 3, "2 seats given for a game of 3 players"),
    ("human,random:5", 2, "only a searcher"),
])
def test_bad_seat_kinds_are_refused(text, players, message):
    with pytest.raises(SessionError) as e:
        parse_seat_kinds(text, players)
    assert message in e.value.message and e.value.hint


def test_a_searching_bot_plays_in_a_session():
    """An ismcts seat: the session keeps chance as steps (the search resamples) and the bot
    answers between the human's decisions."""
    s = GameSession(program(MANILA), 3, 4, ["human", "ismcts:3", "random"])
    assert s.state.explicit_chance and s.seats == ["human", "ismcts:3", "random"]
    for _ in range(3):
        if s.state.over:
            break
        s.move(s.to_decide(), 0)
    assert s.decisions


def test_default_seats():
    assert parse_seat_kinds(None, 3) == ["human", "random", "random"]
    assert parse_seat_kinds(" Human , RANDOM", 2) == ["human", "random"]


def test_hidden_information_game_session_offers_options_only_to_the_seat_to_move():
    prog = program(GENOA)
    s = GameSession(prog, 3, 1, ["human", "human", "human"])
    seat = s.to_decide()
    assert seat is not None
    assert s.options(seat) and all(s.options(o) == [] for o in range(3) if o != seat)
    assert s.options(None) == []
