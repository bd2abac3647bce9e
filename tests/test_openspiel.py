"""The OpenSpiel adapter (interpreter/research/openspiel.py): every shipped game a pyspiel game
that passes OpenSpiel's own random simulation test (with serialisation), plays with OpenSpiel's
own ISMCTS bot, and resamples worlds the player cannot tell from the real one."""
from __future__ import annotations

import inspect
import random
from typing import Optional

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra: pip install -e '.[openspiel]'")
import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts  # noqa: E402

import mercator.interpreter.research.openspiel as adapter  # noqa: E402,F401  (registers the games)
from mercator.interpreter.engine.seen import log_for  # noqa: E402
from mercator.interpreter.research.common import ResearchError  # noqa: E402

GAMES = [("manila", 3), ("manila", 5), ("die_haendler", 2), ("die_haendler", 4),
         ("felinia", 2), ("felinia", 4), ("genoa", 2), ("genoa", 5)]


def test_every_shipped_game_is_registered() -> None:
    names = set(pyspiel.registered_names())
    assert {"mercator", "mercator_manila", "mercator_die_haendler", "mercator_felinia",
            "mercator_manila_pirates"} <= names
    g = pyspiel.load_game("mercator_manila")
    assert g.num_players() == 3 and g.get_type().min_num_players == 3
    assert g.get_type().max_num_players == 5


def test_the_game_info_comes_from_the_rulebooks_bounds() -> None:
    g = pyspiel.load_game("mercator", {"rulebook": "manila", "players": 4})
    spec = g.su.spec
    assert g.num_distinct_actions() == spec.num_distinct_actions == len(spec.ids)
    # the longest game in moves is manila.rules' `bounds { moves 800 }` (random play reached
    # 402), not its 700 decisions times the 9 ids a start option takes
    assert g.max_game_length() == spec.max_game_length == 800
    assert (g.min_utility(), g.max_utility()) == (0.0, 1.0)
    assert g.get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert g.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    s = pyspiel.load_game("mercator", {"rulebook": "manila", "players": 4, "utility": "score"})
    assert (s.min_utility(), s.max_utility()) == (-200.0, 500.0)
    assert s.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    # Die Händler's eligibility rule (no loans) can leave nobody a winner: not constant-sum
    d = pyspiel.load_game("mercator", {"rulebook": "die_haendler", "players": 2})
    assert d.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM


def test_bad_parameters_are_refused_with_the_reason() -> None:
    with pytest.raises(ResearchError, match="Manila is for 3–5 players, not 7"):
        adapter.MercatorGame({"rulebook": "manila", "players": 7})
    with pytest.raises(ResearchError, match="use 'win' or 'score'"):
        adapter.MercatorGame({"rulebook": "manila", "utility": "points"})
    with pytest.raises(ValueError, match="no rulebook 'monopoly'"):
        adapter.MercatorGame({"rulebook": "monopoly"})


@pytest.mark.parametrize("name, players", GAMES)
def test_openspiels_random_simulation_test_passes(name: str, players: int) -> None:
    game = pyspiel.load_game("mercator", {"rulebook": name, "players": players, "seed": 3})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_a_compound_option_takes_one_id_at_a_time() -> None:
    """Manila's large pilot moves a boat some steps: the boat first, then the steps; until the
    choice is complete the same player is to move and nothing has happened in the game."""
    game = pyspiel.load_game("mercator", {"rulebook": "manila", "players": 3})
    rng = random.Random(5)
    for _ in range(40):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outs = state.chance_outcomes()
                assert abs(sum(p for _, p in outs) - 1.0) < 1e-9
                state.apply_action(rng.choice([a for a, _ in outs]))
                continue
            who = state.current_player()
            legal = state.legal_actions()
            assert legal == sorted(legal) and len(legal) == len(set(legal))
            first = rng.choice(legal)
            before = state._s.digest()
            state.apply_action(first)
            if not state.is_terminal() and state.current_player() == who and state._taken:
                # in the middle of a compound option: the game has not moved
                assert state._s.digest() == before
                while state._taken:                  # finish it: then the game moves on
                    state.apply_action(rng.choice(state.legal_actions()))
                assert state._s.digest() != before
                return
    pytest.fail("no compound option in 40 games")


def test_a_resampled_world_has_the_players_information_state() -> None:
    game = pyspiel.load_game("mercator", {"rulebook": "manila", "players": 3})
    rng = random.Random(2)
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal() and checked < 5:
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        p = state.current_player()
        world = state.resample_from_infostate(p, lambda: rng.random())
        assert world.information_state_string(p) == state.information_state_string(p)
        assert world.legal_actions() == state.legal_actions()
        # every seat's record is kept in the world (a search keys the others' nodes by them)
        for q in range(3):
            world.information_state_string(q)
        checked += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert checked == 5


# a whole game with the bot at the smallest player count; at the largest, its first 20 decisions
ISMCTS_GAMES = [("manila", 3, None), ("die_haendler", 2, None), ("felinia", 2, None),
                ("genoa", 2, None), ("manila", 5, 20), ("die_haendler", 4, 20), ("felinia", 4, 20),
                ("genoa", 5, 20)]


@pytest.mark.parametrize("name, players, limit", ISMCTS_GAMES)
def test_openspiels_ismcts_bot_plays_against_random(name: str, players: int,
                                                    limit: Optional[int]) -> None:
    """OpenSpiel's own ISMCTS bot (open_spiel.python.algorithms.ismcts) as seat 1 against
    random players: it asks the adapter for a world at every simulation (and asserts that the
    world's information state is the player's); rollouts by the engine's playouts."""
    game = pyspiel.load_game("mercator", {"rulebook": name, "players": players})
    bot = ismcts.ISMCTSBot(game, adapter.RolloutEvaluator(n_rollouts=1, seed=1), uct_c=2.0,
                           max_simulations=2, random_state=np.random.RandomState(1))
    rng = random.Random(1)
    state = game.new_initial_state()
    asked = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        elif state.current_player() == 0 and (limit is None or asked < limit):
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
            asked += 1
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert asked >= (limit or 20)
    returns = state.returns()
    assert len(returns) == players and sum(returns) in (0.0, pytest.approx(1.0))


def test_the_rollout_evaluator_plays_the_engines_own_playouts() -> None:
    game = pyspiel.load_game("mercator", {"rulebook": "manila", "players": 4})
    ev = adapter.RolloutEvaluator(n_rollouts=5, seed=3)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    before = str(state)
    values = ev.evaluate(state)
    assert str(state) == before                      # the state itself is not played on
    assert len(values) == 4 and abs(sum(values) - 1.0) < 1e-9   # win shares of 5 games
    assert all(0.0 <= v <= 1.0 for v in values)
    prior = ev.prior(state)
    assert [a for a, _ in prior] == state.legal_actions()
    assert sum(p for _, p in prior) == pytest.approx(1.0)


def test_the_record_is_made_only_when_asked_and_is_the_narrated_games() -> None:
    """Play runs without narration (no label is formatted); the record a seat's information
    state is made of is made when asked for, by replaying the steps since the last time it
    was: the same strings and tensors as a game narrated from the start, on every branch."""
    game = pyspiel.load_game("mercator", {"rulebook": "manila", "players": 3})
    enc = game.su.infostate
    rng = random.Random(9)
    state = game.new_initial_state()
    for _ in range(40):                     # play on, asking nothing: no record made
        state.apply_action(rng.choice(state.legal_actions() or
                                      [a for a, _ in state.chance_outcomes()]))
    assert state._told is None and not state._s.narrate
    branches = [state]
    for step in range(160):
        st = rng.choice(branches)
        if st.is_terminal():
            continue
        if rng.random() < 0.3:
            st = st.clone()
            branches.append(st)
        if rng.random() < 0.4:
            p = rng.randrange(3)
            told, log, n = enc.replay(0, st._s.history)
            text = st.information_state_string(p).split("|")[0].split("\n")
            assert text == log_for(told.record, p) + [f"record {told.information_state(p)[1]}"]
            assert np.array_equal(np.asarray(st.information_state_tensor(p), np.float32),
                                  enc.tensor(told, p, log, n, st._taken
                                             if p == st.current_player() else ()))
        st.apply_action(rng.choice(st.legal_actions() if not st.is_chance_node()
                                   else [a for a, _ in st.chance_outcomes()]))
    assert len(branches) > 10


def test_a_clone_is_the_engines_copy_not_a_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """pyspiel's clone() of a Python state makes a new initial state and deep-copies each
    attribute into it: the position is copied by the engine's clone (until session 44 it was
    rebuilt through pickling's __reduce__, replaying the game from the start — 0.4 ms a clone
    in Manila), the record made so far is shared, not made again, and the copy is of the same
    game (the worlds a search draws come from that game's traces)."""
    game = pyspiel.load_game("mercator", {"rulebook": "manila", "players": 3})
    rng = random.Random(3)
    state = game.new_initial_state()
    for _ in range(70):
        state.apply_action(rng.choice(state.legal_actions() or
                                      [a for a, _ in state.chance_outcomes()]))
    before = state.information_state_string(1)
    told = state._told

    def replayed(*args: object) -> None:
        raise AssertionError("a clone replayed the game")
    monkeypatch.setattr(adapter, "_replayed", replayed)
    copy = state.clone()
    assert copy._s is not state._s and copy._s.digest() == state._s.digest()
    assert copy.history() == state.history() and copy._game == state._game
    assert copy._told is told and copy.information_state_string(1) == before
    while len(copy._s.history) == len(state._s.history):   # the copy moves on, a step
        copy.apply_action(copy.chance_outcomes()[0][0] if copy.is_chance_node()
                          else copy.legal_actions()[-1])
    assert len(copy._s.history) > len(state._s.history)
    assert state.information_state_string(1) == before and state._told is told
    copy.information_state_string(1)    # (its record advanced on a copy of the shared one)
    assert copy._told is not told and state._told is told
    assert game.new_initial_state()._game not in (state._game, 0)   # a new game, a new number


def _bot_game(seed: int, bot_moves: int = 12) -> list[int]:
    game = pyspiel.load_game("mercator", {"rulebook": "manila", "players": 3})
    bot = adapter.ismcts_bot(game, seed=seed, max_simulations=8)
    rng = random.Random(4)                  # the other seats and chance: the same each time
    state = game.new_initial_state()
    asked = 0
    while not state.is_terminal() and asked < bot_moves:
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        elif state.current_player() == 0:
            state.apply_action(bot.step(state))
            asked += 1
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state.history()


def test_ismcts_through_the_adapter_is_reproducible_from_its_seed() -> None:
    """OpenSpiel's ISMCTS draws a world per simulation; with the adapter's resampler the draw
    comes from the bot's random_state (not a fresh system-seeded sampler), so the same seed
    plays the same game, in the same process, one game after another."""
    first = _bot_game(7)
    assert _bot_game(7) == first
    assert len(first) > 30
    worlds: list[int] = []
    game = pyspiel.load_game("mercator", {"rulebook": "manila", "players": 3})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    for _ in range(2):
        rs = np.random.RandomState(3)
        draw = adapter.resampler(rs)
        worlds.append(hash(tuple(draw(state, state.current_player())._s.history)))
    assert worlds[0] == worlds[1]


def test_the_information_state_string_reads_as_the_seats_record() -> None:
    """information_state_string is the lines of the record the seat was shown (another seat's
    hidden choice as 'has chosen', without what), the engine's digest of its information
    state on the last line, then | and the ids it has taken of its current decision."""
    game = pyspiel.load_game("mercator", {"rulebook": "manila", "players": 3})
    rng = random.Random(1)
    state = game.new_initial_state()
    hidden = False
    for _ in range(60):
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        text = state.information_state_string(0)
        lines, taken = text.rsplit("|", 1)
        *record, digest = lines.split("\n")
        assert digest == f"record {state._record().s.information_state(0)[1]}"
        assert all(not line.startswith("P1 has chosen") for line in record)   # his own: told
        hidden = hidden or any(line.startswith(("P2 has chosen", "P3 has chosen"))
                               for line in record)
        assert taken == (" ".join(map(str, state._taken))
                         if state.current_player() == 0 else "")
        state.apply_action(rng.choice(state.legal_actions()))
    assert hidden and len(record) > 20
    # another seat's string is its own record: the same game, other lines
    assert state.information_state_string(1) != state.information_state_string(0)


@pytest.mark.parametrize("name, players", [("manila", 3), ("genoa", 2)])
def test_legal_actions_and_chance_are_answered_in_python_as_pyspiel_answers(
        name: str, players: int, monkeypatch) -> None:
    """MercatorState.legal_actions and is_chance_node give what pyspiel.State's own give, at
    every kind of node and for every seat, a new list each time; at a decision without the
    round trip through C++ (pyspiel's asks current_player three times)."""
    game = pyspiel.load_game("mercator", {"rulebook": name, "players": players})
    st = game.new_initial_state()
    rng = random.Random(4)
    while True:
        assert st.is_chance_node() == pyspiel.State.is_chance_node(st)
        assert st.legal_actions() == pyspiel.State.legal_actions(st)
        for p in range(players):
            assert st.legal_actions(p) == pyspiel.State.legal_actions(st, p)
        mine = st.legal_actions()
        mine.append(-7)                        # the caller's own list
        assert st.legal_actions() == pyspiel.State.legal_actions(st)
        if st.is_terminal():
            break
        st.apply_action(rng.choice(pyspiel.State.legal_actions(st)))
    assert inspect.isfunction(adapter.MercatorState.is_chance_node)
    st = game.new_initial_state()
    while st.is_chance_node():
        st.apply_action(st.chance_outcomes()[0][0])
    asked: list = []
    real = adapter.MercatorState.current_player
    monkeypatch.setattr(adapter.MercatorState, "current_player",
                        lambda self: (asked.append(1), real(self))[1])
    st.legal_actions()
    assert len(asked) == 1
