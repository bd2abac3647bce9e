"""Property tests of Felinia (rulebooks/felinia.rules) over seeds, player counts 2–4 and random
decision sequences.

Two kinds of random players: `uniform` picks any legal option (the "at any time" conversions
included), `eager` mostly picks among the decision's own options and prefers buying, boarding
and walking, so that ships fill, merchants land, tokens are revealed and taken and the storage
limit bites (uniform players rarely manage to board a ship).
"""
from __future__ import annotations

import random
from typing import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shipped import shipped_program

from mercator.interpreter.engine.nodes import Decision, Terminal
from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.state import State

MAX_DECISIONS = 5000
PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GOODS_EACH = 12                       # rulebook table all_goods (PLACEHOLDER: 12 of each kind)
Agent = Callable[[random.Random, Decision], int]


@pytest.fixture(scope="module")
def prog() -> Program:
    return shipped_program("felinia")


def uniform(rng: random.Random, d: Decision) -> int:
    return rng.randrange(d.count)


def eager(rng: random.Random, d: Decision) -> int:
    own = [i for i, o in enumerate(d.options) if o.action is None]
    if rng.random() < 0.05 or not own:
        return rng.randrange(d.count)
    labels = [d.options[i].label for i in own]
    if d.prompt.startswith(("board", "buy", "trade")) and labels[0] == "pass" and len(own) > 1:
        return rng.choice(own[1:]) if rng.random() < 0.9 else own[0]
    if d.prompt.startswith("merchant") and len(own) > 1 and rng.random() < 0.8:
        return rng.choice(own[1:])
    return rng.choice(own)


def play(prog: Program, n: int, seed: int, agent_seed: int, agent: Agent,
         check: Callable[[State], None] | None = None) -> State:
    """A random game to the end; `check(state)` runs after every decision."""
    s = prog.new_game(n, seed)
    rng = random.Random(agent_seed)
    for _ in range(MAX_DECISIONS):
        if s.over:
            return s
        prog.apply(s, agent(rng, s.pending))
        if check is not None:
            check(s)
    raise AssertionError(f"game did not end within {MAX_DECISIONS} decisions")


def goods_everywhere(prog: Program, s: State) -> dict[int, int]:
    """Every goods tile counted where it is: the bag, the market rows, the players' boards."""
    total: dict[int, int] = {}
    places = [prog.get(s, "bag")] + list(prog.get(s, "market").values()) + \
        [prog.get(s, "goods", player=p) for p in range(len(s.players))]
    for bag in places:
        for g, k in bag.items():
            assert k > 0
            total[g] = total.get(g, 0) + k
    return total


seeds = st.integers(min_value=0, max_value=2**32 - 1)
counts = st.integers(min_value=2, max_value=4)
agents = st.sampled_from([uniform, eager])


@PROPS
@given(seed=seeds, agent_seed=seeds, n=counts, agent=agents)
def test_every_game_ends_with_invariants_goods_and_money_kept(prog: Program, seed: int,
                                                              agent_seed: int, n: int,
                                                              agent: Agent) -> None:
    """Every random game ends by one of the seed's two end conditions (seed 004 §遊戲流程: a
    player boarded his last merchant, or the ship tiles ran out), never by the round limit; after
    every decision the rulebook's invariants hold, every one of the 60 goods is in the bag, a
    market row or with a player (12 of each kind), and every player's money is within 0..6
    silver (§起始設置 8c, §遊戲回合 1) a.)."""
    def check(s: State) -> None:
        assert prog.check_invariants(s) == []
        assert goods_everywhere(prog, s) == {g: GOODS_EACH for g in range(5)}
        assert all(0 <= prog.get(s, "silver", player=p) <= 6 for p in range(n))

    s = play(prog, n, seed, agent_seed, agent, check)
    res = s.pending
    assert isinstance(res, Terminal) and len(res.scores) == n and res.winners
    assert prog.get(s, "last_merchant_boarded") or prog.get(s, "fleet_exhausted")
    assert s.round <= 17                 # 16 tiles after setup, at least one ship a day


@PROPS
@given(seed=seeds, agent_seed=seeds, n=counts)
def test_merchants_tokens_and_scores_add_up(prog: Program, seed: int, agent_seed: int,
                                            n: int) -> None:
    """After an eager random game: every merchant is in its owner's supply, on a ship or on
    the island (12 each, seed 004 §起始設置 8d); a merchant stays only where its owner took a
    token; every score is at least the points of gold, goods and merchants on the island (each
    merchant is worth at least 1, §遊戲結束 1, 3, 4)."""
    s = play(prog, n, seed, agent_seed, eager)
    occupant = prog.get(s, "occupant")
    ships = prog.get(s, "ships")
    for p in range(n):
        aboard = sum(seat == p for ship in ships for seat in ship[1])
        on_island = [r for r, q in occupant.items() if q == p]
        assert prog.get(s, "merchants", player=p) + aboard + len(on_island) == 12
        taken = {t[2] for t in prog.get(s, "tokens", player=p)}
        assert set(on_island) <= taken
        floor = prog.get(s, "gold", player=p) + sum(prog.get(s, "goods", player=p).values()) \
            + len(on_island)
        assert s.pending.scores[p] >= floor
    assert prog.get(s, "walker") is None


@PROPS
@given(seed=seeds, agent_seed=seeds, n=counts)
def test_replay_gives_the_same_game(prog: Program, seed: int, agent_seed: int, n: int) -> None:
    """(rulebook, players, seed, decisions) determines the game: replaying the decision log gives
    the same final state."""
    s = play(prog, n, seed, agent_seed, eager)
    r = prog.new_game(n, seed)
    for idx in s.history:
        prog.apply(r, idx)
    assert r.over and r.digest() == s.digest() and r.pending == s.pending
