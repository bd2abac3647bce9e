"""Tests for the hand-written Manila baseline (benchmarks/baseline_manila.py)."""
from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "baseline_manila.py"
_spec = importlib.util.spec_from_file_location("baseline_manila", _PATH)
assert _spec is not None and _spec.loader is not None
baseline_manila = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(baseline_manila)

ManilaGame = baseline_manila.ManilaGame
random_playout = baseline_manila.random_playout


def _check_invariants(game) -> None:
    for g in range(4):
        total = game.supply[g] + sum(game.held[p][g] for p in range(game.n))
        assert total == 5
        assert game.supply[g] >= 0
        for p in range(game.n):
            assert 0 <= game.mortgaged[p][g] <= game.held[p][g]
    assert sum(game.supply) + sum(sum(h) for h in game.held) == 20
    assert all(c >= 0 for c in game.cash)
    assert all(0 <= s <= 4 for s in game.step)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_random_playouts_end_with_invariants(num_players: int) -> None:
    for seed in range(25):
        game = ManilaGame(num_players, seed)
        agent = random.Random(1000 + seed)
        _check_invariants(game)
        decisions = 0
        while not game.is_over():
            actions = game.legal_actions()
            assert actions, "a live game must offer at least one action"
            assert len(set(actions)) == len(actions)
            assert 0 <= game.current_player() < num_players
            game.apply(agent.choice(actions))
            _check_invariants(game)
            decisions += 1
            assert decisions < 100_000
        assert max(game.step) == 4
        assert game.legal_actions() == []
        assert len(game.scores()) == num_players


def test_setup() -> None:
    for n in (3, 4, 5):
        game = ManilaGame(n, 7)
        assert game.cash == [30] * n
        assert all(sum(h) == 2 for h in game.held)
        assert sum(game.supply) == 20 - 2 * n
        assert game.accomplices_each == (4 if n == 3 else 3)
        # voyage 1 auction is opened by seat 0: pass or bid 1..cash+credit
        assert game.current_player() == 0
        actions = game.legal_actions()
        assert actions[0] == ("pass",)
        bids = [a[1] for a in actions if a[0] == "bid"]
        assert bids == list(range(1, 30 + 12 * 2 + 1))


def test_same_seeds_same_result() -> None:
    for n in (3, 4, 5):
        assert random_playout(n, 11, 22) == random_playout(n, 11, 22)
    results = {tuple(random_playout(4, s, s)[1]) for s in range(10)}
    assert len(results) > 1


def test_illegal_action_rejected() -> None:
    game = ManilaGame(4, 0)
    with pytest.raises(ValueError):
        game.apply(("bid", 10_000))
