"""The PettingZoo adapter (interpreter/research/pettingzoo.py): every shipped game an AEC
environment that passes PettingZoo's own api_test, seed_test and render_test; full games with
action masks; observation tensors that hide what the seat may not see."""
from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo", reason="the pettingzoo extra: pip install -e '.[pettingzoo]'")
import numpy as np  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from mercator.interpreter.engine.observation import Observer  # noqa: E402
from mercator.interpreter.research.common import ResearchError, program_for  # noqa: E402
from mercator.interpreter.research.pettingzoo import env  # noqa: E402

GAMES = [("manila", 3), ("manila", 5), ("die_haendler", 2), ("die_haendler", 4),
         ("felinia", 2), ("felinia", 4), ("genoa", 2), ("genoa", 5)]


@pytest.mark.parametrize("name, players", GAMES)
def test_pettingzoos_own_tests_pass(name: str, players: int) -> None:
    api_test(env(name, players), num_cycles=300, verbose_progress=False)
    seed_test(lambda **kw: env(name, players, **kw), num_cycles=60)
    render_test(lambda render_mode=None: env(name, players, render_mode=render_mode))


@pytest.mark.parametrize("name, players", [("manila", 4), ("die_haendler", 3), ("felinia", 3)])
def test_a_whole_game_by_the_action_mask(name: str, players: int) -> None:
    e = env(name, players)
    e.reset(seed=11)
    rng = np.random.default_rng(11)
    steps = 0
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        assert obs["observation"].shape == e.observation_space(agent)["observation"].shape
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        # an agent that is not to move has an empty mask
        other = next(a for a in e.agents if a != agent)
        assert not e.observe(other)["action_mask"].any()
        e.step(int(rng.choice(legal)))
        steps += 1
    assert e.agents == [] and steps > 50
    rewards = e._cumulative_rewards
    assert sum(rewards.values()) == pytest.approx(1.0) or sum(rewards.values()) == 0.0


def test_an_illegal_action_is_refused_with_the_legal_ones() -> None:
    e = env("manila", 3)
    e.reset(seed=1)
    mask = e.observe(e.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=r"is not legal for player_0 now; legal: \["):
        e.step(bad)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ResearchError, match="Manila is for 3–5 players, not 2"):
        env("manila", 2)
    with pytest.raises(ResearchError, match="render_mode 'rgb_array'"):
        env("manila", 3, render_mode="rgb_array")


def test_the_tensor_hides_another_seats_shares() -> None:
    """Manila's shares are owner-only: P1's tensor is the same whichever shares P2 holds (of the
    same number), and P2's own tensor is not."""
    prog = program_for("manila")
    o = Observer(prog, 3)
    s = prog.new_game(3, 4)
    k = prog.rb.player_fields.index(next(f for f in prog.rb.player_fields if f.name == "shares"))
    other = s.clone()
    held = other.players[1][k]
    n = sum(held.values())
    goods = len(prog.rb.enums["Good"].members)
    swapped = {g: 0 for g in range(goods)}
    # the same number of shares, of other goods
    choice = [g for g in range(goods) if held.get(g, 0) == 0] + list(range(goods))
    for g in choice[:n]:
        swapped[g] = swapped.get(g, 0) + 1
    other.players[1][k] = {g: c for g, c in swapped.items() if c}
    assert other.players[1][k] != held
    assert o.tensor(s, 0) == o.tensor(other, 0)
    assert o.tensor(s, 2) == o.tensor(other, 2)
    assert o.tensor(s, 1) != o.tensor(other, 1)


def test_the_layout_names_every_cell() -> None:
    prog = program_for("felinia")
    o = Observer(prog, 2)
    lay = o.layout()
    assert lay[0][1] == 0 and sum(n for _, _, n in lay) == o.total
    assert all(a[1] + a[2] == b[1] for a, b in zip(lay, lay[1:]))
    # a secret field is one cell: its size
    assert dict((name, n) for name, _, n in lay)["table.ship_deck"] == 1
    # a list of records needs its length: ships holds the 4 berths
    names = [name for name, _, _ in lay]
    assert "table.ships" in names and "P2.tokens" in names


def test_a_collection_without_a_length_is_an_error_naming_the_bound(tmp_path) -> None:
    from mercator.interpreter.engine.encoding import EncodeError
    from game_driver import program_text
    prog = program_text('game "L" players 2..2\nrecord Card { v: int }\n'
                        'player { hand: list<Card> = [] }\n'
                        'round r limit 1 { phase a { for p in players { add {v: 1} to p.hand } } }\n'
                        'score p: len(p.hand)\n')
    with pytest.raises(EncodeError) as e:
        Observer(prog, 2)
    assert e.value.hint == "declare it: bounds { length hand N }"


def test_the_tensor_of_a_known_position() -> None:
    """Manila at the start: two shares dealt face down to each seat (每位玩家得到兩張, seed 003);
    P1 sees its own as counts per good, another seat's only as their number."""
    prog = program_for("manila")
    o = Observer(prog, 3)
    s = prog.new_game(3, 4)
    t = o.tensor(s, 0)
    seg = {name: t[off:off + n] for name, off, n in o.layout()}
    k = [f.name for f in prog.rb.player_fields].index("shares")
    own = s.players[0][k]
    assert seg["P1.shares"] == [2.0] + [float(own.get(g, 0)) for g in range(4)]
    assert seg["P2.shares"] == [2.0, 0.0, 0.0, 0.0, 0.0]
    assert seg["viewer"] == [1.0, 0.0, 0.0]
    assert seg["round"] == [1.0]
    assert seg["to decide"] == [1.0, 0.0, 0.0, 0.0]      # P1 bids first
    pesos = [f.name for f in prog.rb.player_fields].index("pesos")
    assert seg["P2.pesos"] == [float(s.players[1][pesos])]


@pytest.mark.parametrize("name, players", [("manila", 4), ("die_haendler", 2), ("felinia", 3),
                                           ("genoa", 3)])
def test_every_observation_lies_inside_the_declared_space(name: str, players: int) -> None:
    """The observation space is a Box with real bounds (a flag 0..1, a number within the
    rulebook's `bounds { values LO..HI }`, an id taken 0..the vocabulary's size), and every
    seat's observation at every step of random games lies inside it; with normalize=True
    every cell lies in 0..1."""
    raw, scaled = env(name, players), env(name, players, normalize=True)
    box = raw.observation_space("player_0")["observation"]
    assert np.isfinite(box.low).all() and np.isfinite(box.high).all()
    lo, hi = raw.prog.rb.bounds.values
    assert box.high.max() == max(hi, raw.codec.size) and box.low.min() == min(lo, 0)
    assert scaled.observation_space("player_0")["observation"].high.max() == 1.0
    steps = 0
    for seed in range(2):
        raw.reset(seed=seed)
        scaled.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for agent in raw.agent_iter(max_iter=600):
            for a in raw.possible_agents:
                obs = raw.observe(a)
                assert raw.observation_space(a).contains(obs), (seed, steps, a)
                assert scaled.observation_space(a).contains(scaled.observe(a))
                assert np.allclose(scaled.observe(a)["observation"],
                                   (obs["observation"] - box.low) / (box.high - box.low))
            obs, _, term, trunc, _ = raw.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            raw.step(action)
            scaled.step(action)
            steps += 1
    assert steps > 300


def test_a_number_outside_the_values_bound_is_named() -> None:
    from mercator.interpreter.engine.observation_bounds import outside
    e = env("manila", 3)
    e.reset(seed=0)
    cells = e.observe("player_0")["observation"][:e.observer.total].copy()
    assert outside(e.observer, cells) == []
    at = next(g for g in e.observer.segments if g.name == "P1.pesos").offset
    cells[at] = 501.0
    assert outside(e.observer, cells) == ["P1.pesos[0] = 501 not in 0..500"]
