"""The Die Händler heuristic anchor (benchmarks/heuristic_die_haendler.py, issue 36): it plays
whole legal games at 2, 3 and 4 players, sees only what its seat may see (its choice is the same
in every world its seat cannot tell from the real one), and makes the obviously right choice
where there is one (docs/agents.md, "Heuristic anchors")."""
from __future__ import annotations

import random
from typing import Any

import pytest
from bench_module import bench_agents

from shipped import shipped_program
from test_die_haendler_scenarios import CLIMB, DIAL, MOVE, Game

from mercator.interpreter.agents.base import RandomAgent, agent_seed, play_out, resolve_chance
from mercator.interpreter.engine.nodes import Chance, Decision

B = bench_agents()


@pytest.fixture(scope="module")
def dh() -> Any:
    return shipped_program("die_haendler")


def _heuristic(prog: Any) -> Any:
    return B.heuristic_for(prog)(0)


def test_the_harness_finds_it_by_the_rulebooks_game_name(dh: Any) -> None:
    cls = B.heuristic_for(dh)
    assert cls.__module__ == "heuristic_die_haendler" and cls.__name__ == "DieHaendlerHeuristic"
    variant = shipped_program("die_haendler_fixed_pairs")
    assert B.heuristic_for(variant) is cls                  # a variant: its game's anchor


# ----------------------------------------------------------------------------- whole games
@pytest.mark.parametrize("players", [2, 3, 4])
def test_it_plays_whole_legal_games(dh: Any, players: int) -> None:
    """Every choice goes through apply (which refuses an illegal one), to the end, with the
    rulebook's invariants checked after every decision; it also plays all seats at once, and
    wins against random play."""
    wins = 0.0
    for seed in (players,):
        me = seed % players
        bots = [_heuristic(dh) if p == me else RandomAgent(agent_seed(seed, p))
                for p in range(players)]
        s = dh.new_game(players, seed)

        def check(state: Any, node: Any, i: int, label: str) -> None:
            assert dh.check_invariants(state) == []
        play_out(dh, s, bots, on_step=check, max_decisions=5000)
        assert s.over
        wins += me in s.pending.winners
    assert wins == 1
    s = play_out(dh, dh.new_game(players, 9), [_heuristic(dh) for _ in range(players)],
                 max_decisions=5000)
    assert s.over and max(s.pending.scores) > 0


# ----------------------------------------------------------------------------- information
def test_its_choice_is_the_same_in_every_world_its_seat_cannot_tell_apart(dh: Any) -> None:
    """resample(state, seat, rng) draws a full state with the seat's information state (the
    other seats' money and influence cards, the deck's order drawn anew): the heuristic must
    choose the same there, so it reads nothing its seat may not see. The worlds do differ in
    what it cannot see."""
    me, rng = 1, random.Random(3)
    hidden_differs = asked = 0
    seed = 2
    s = dh.new_game(3, seed, narrate=True, explicit_chance=True)
    others = [RandomAgent(agent_seed(seed, p)) for p in range(3)]
    bot = _heuristic(dh)
    while not s.over and len(s.history) < 400:
        node = s.pending
        if isinstance(node, Chance):
            dh.apply(s, resolve_chance(s))
            continue
        if node.player == me:
            choice = bot.choose(dh, s)
            if asked % 5 == 0:
                world = dh.resample(s, me, rng)
                assert isinstance(world.pending, Decision) and world.pending.player == me
                assert bot.choose(dh, world) == choice, node.prompt
                hidden_differs += any(
                    dh.get(world, f, player=p) != dh.get(s, f, player=p)
                    for p in range(3) if p != me for f in ("money", "influence"))
            asked += 1
        else:
            choice = others[node.player].choose(dh, s)
        dh.apply(s, choice)
    assert asked > 40 and hidden_differs >= 3


# ----------------------------------------------------------------------------- scenarios
def _choice(game: Game) -> str:
    """The label the heuristic chooses at the pending decision."""
    node = game.s.pending
    return node.option(_heuristic(game.prog).choose(game.prog, game.s)).label


def test_it_drives_its_barrels_into_the_city_with_the_smallest_tile(dh: Any) -> None:
    """seed 002 §Phase 3 (a wagon moves exactly its tile's count; entering a city ends the move:
    rules-data "Turn structure" 3), §Phase 5 (the bank pays the sell price, plus the city's
    bonus for a good the city does not produce). P1's three silk barrels are on wagon1, one
    space before Köln (which produces no silk, its bonus 500): it enters Köln now, with its
    1 tile, keeping the larger ones."""
    game = Game(dh, 3)
    game.no_red_cards()
    game.until(MOVE, 0)
    game.prepare(wagon_at={"wagon1": "r3"}, wagon_prev={"wagon1": "r2"},
                 bonus={"koeln": 500}, cargo={0: {"wagon1": {"silk": 3}}})
    assert _choice(game).startswith("{tile: 1, wagon: wagon1, route: [koeln]}")


def test_its_price_wheel_raises_what_it_sells_and_never_over_the_top(dh: Any) -> None:
    """seed 002 §Phase 4 (each pointer raises its good one step; from the top row a raise drops
    the good to the bottom), §Phase 5 (the goods of a wagon that entered a city sell at the
    price after the wheels). P1's three iron barrels arrived in city6 this round: iron on row 1
    is raised by both pointers (700 → 900 a barrel); iron on row 3 by one only (900 → 1,000:
    a second pointer would drop it to 600)."""
    for row, dial in ((1, "[iron, iron]"), (3, "[iron]")):
        game = Game(dh, 3)
        game.no_red_cards()
        game.until(DIAL, 0)
        game.prepare(wagon_at={"wagon1": "city6"}, arrived={"wagon1": True},
                     step={"iron": row}, cargo={0: {"wagon1": {"iron": 3}}})
        assert _choice(game) == dial


def test_in_the_last_round_it_climbs_as_far_as_its_money_goes(dh: Any) -> None:
    """seed 002 §遊戲結束 (the game ends after phase 6 once the round marker reaches 7 with three
    players; the highest status wins), §Phase 6 (one or two levels, two at double the price):
    with the marker on 7 a level costs 2,600 (table climb_cost); with 6,000 it climbs two, with
    4,000 one."""
    for money, climb in ((6000, "{levels: 2, with_card: false}"),
                         (4000, "{levels: 1, with_card: false}")):
        game = Game(dh, 3)
        game.no_red_cards()
        game.until(CLIMB, 0)
        game.prepare(round_marker=7, money={0: money}, level={0: 2})
        assert _choice(game) == climb


def test_with_narration_it_bids_for_the_wagons_it_can_load(dh: Any) -> None:
    """The anchor learns which wagon is under the hammer from its seat's log ("auction of
    wagon1 in paris"): the engine's observation keeps the log as the rules wrote it. With the
    log rewritten in a person's words ("wagon 1") it read no wagon and passed in every wagon
    auction (session 23), which made the searcher look strong. Three anchors, narrated as the
    benchmark plays them: they bid in a good share of the wagon auctions."""
    bots = [_heuristic(dh) for _ in range(3)]
    s = dh.new_game(3, 4, narrate=True, explicit_chance=True)
    asked = bid = 0

    def count(state: Any, node: Any, i: int, label: str) -> None:
        nonlocal asked, bid
        if isinstance(node, Decision) and node.prompt.startswith("sealed bid"):
            asked += 1
            bid += label != "pass"
    play_out(dh, s, bots, on_step=count, max_decisions=5000)
    assert s.over and asked > 20
    assert bid >= asked // 5, (bid, asked)
