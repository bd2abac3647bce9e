"""The heuristic anchors (benchmarks/heuristic_<game>.py, issue 36): plain-Python players written
as a good casual player plays, the measuring sticks of the bots (docs/agents.md, "Heuristic
anchors"). Each plays whole legal games, sees only what its seat may see (its choice is the same
in every world its seat cannot tell from the real one), and makes the obviously right choice
where there is one. benchmarks/bench_agents.py seats one by the spec `heuristic`."""
from __future__ import annotations

import random
from typing import Any

import pytest
from bench_module import bench_agents

from shipped import shipped_program

from mercator.interpreter.agents.base import RandomAgent, agent_seed, play_out, resolve_chance
from mercator.interpreter.engine.nodes import Chance, Decision

B = bench_agents()


@pytest.fixture(scope="module")
def manila() -> Any:
    return shipped_program("manila")


def _heuristic(prog: Any) -> Any:
    return B.heuristic_for(prog)(0)


# ----------------------------------------------------------------------------- the harness
def test_the_harness_finds_the_games_heuristic_by_its_rulebook(manila: Any) -> None:
    cls = B.heuristic_for(manila)
    assert cls.__module__ == "heuristic_manila" and cls.__name__ == "ManilaHeuristic"
    variant = shipped_program("manila_pirates")
    assert B.heuristic_for(variant) is cls                  # a variant: its game's anchor
    assert B.heuristic_file("Die Händler").endswith("benchmarks/heuristic_die_haendler.py")
    assert str(B.seat_spec("heuristic")) == "heuristic"
    assert B.seat_spec("heuristic").needs_record          # its log: narrated games
    assert str(B.seat_spec("ismcts:200")) == "ismcts:200"


def test_other_seats_take_a_list_in_both_orders() -> None:
    assert [str(x) for x in B.other_seats("random", 3, 0)] == ["random", "random"]
    assert [str(x) for x in B.other_seats("ismcts:200,random", 3, 0)] == ["ismcts:200", "random"]
    assert [str(x) for x in B.other_seats("ismcts:200,random", 3, 1)] == ["random", "ismcts:200"]
    with pytest.raises(SystemExit):
        B.other_seats("random,random,random", 3, 0)


def test_a_match_game_seats_the_heuristic_at_the_tested_seat() -> None:
    config = B.match("rulebooks/manila.rules", 3, "heuristic", "random")
    r = B.one_game((B.key_of(config), 4))
    assert r["seats"] == ["random", "heuristic", "random"] and r["tested"] == 1
    assert r["agent"]["decisions"] > 10 and r["winners"]


# ----------------------------------------------------------------------------- whole games
@pytest.mark.parametrize("players", [3, 4, 5])
def test_it_plays_whole_legal_games(manila: Any, players: int) -> None:
    """Every choice goes through apply (which refuses an illegal one), to the end, with the
    rulebook's invariants checked after every decision; it also plays all seats at once."""
    for seed in range(2):
        bots = [_heuristic(manila) if p == seed % players else RandomAgent(agent_seed(seed, p))
                for p in range(players)]
        s = manila.new_game(players, seed)

        def check(state: Any, node: Any, i: int, label: str) -> None:
            assert manila.check_invariants(state) == []
            if isinstance(node, Decision) and node.player == seed % players:
                # seed 003 §信用貸款: it never mortgages or redeems at will (a forced mortgage
                # is the decision's own option, not an any-time action)
                assert node.option(i).action is None, label
        play_out(manila, s, bots, on_step=check, max_decisions=5000)
        assert s.over
    s = play_out(manila, manila.new_game(players, 9), [_heuristic(manila)] * players,
                 max_decisions=5000)
    assert s.over


def test_it_beats_random_play(manila: Any) -> None:
    wins = 0.0
    for seed in range(6):
        me = seed % 3
        bots = [_heuristic(manila) if p == me else RandomAgent(agent_seed(seed, p))
                for p in range(3)]
        s = play_out(manila, manila.new_game(3, seed), bots, max_decisions=5000)
        wins += me in s.pending.winners
    assert wins >= 5


# ----------------------------------------------------------------------------- information
def test_its_choice_is_the_same_in_every_world_its_seat_cannot_tell_apart(manila: Any) -> None:
    """resample(state, seat, rng) draws a full state with the seat's information state (the
    other seats' dealt shares drawn anew): the heuristic must choose the same there, so it
    reads nothing its seat may not see. The worlds do differ in what it cannot see."""
    me, rng = 1, random.Random(3)
    hidden_differs = 0
    asked = 0
    for seed in (1,):
        s = manila.new_game(3, seed, narrate=True, explicit_chance=True)
        others = [RandomAgent(agent_seed(seed, p)) for p in range(3)]
        bot = _heuristic(manila)
        while not s.over and len(s.history) < 400:
            node = s.pending
            if isinstance(node, Chance):
                manila.apply(s, resolve_chance(s))
                continue
            if node.player == me:
                choice = bot.choose(manila, s)
                if asked % 3 == 0:
                    world = manila.resample(s, me, rng)
                    assert isinstance(world.pending, Decision) and world.pending.player == me
                    assert bot.choose(manila, world) == choice, node.prompt
                    hidden_differs += any(
                        manila.get(world, "shares", player=p) != manila.get(s, "shares", player=p)
                        for p in range(3) if p != me)
                asked += 1
            else:
                choice = others[node.player].choose(manila, s)
            manila.apply(s, choice)
    assert asked > 20 and hidden_differs >= 3


# ----------------------------------------------------------------------------- scenarios
GOODS = ("nutmeg", "silk", "ginseng", "jade")


class Scripted:
    """A 3-player Manila game with explicit chance, driven by labels: the dealt shares are
    chosen, the dice too."""

    def __init__(self, prog: Any, deal: list[str]):
        self.prog = prog
        self.s = prog.new_game(3, 0, narrate=True, explicit_chance=True)
        for g in deal:
            self.chance(g)

    def chance(self, label: str) -> None:
        node = self.s.pending
        assert isinstance(node, Chance), node
        self.prog.apply(self.s, [o.label for o in node.options].index(label))

    def decide(self, player: int, label: str) -> None:
        node = self.s.pending
        assert isinstance(node, Decision) and node.player == player, node
        self.prog.apply(self.s, [o.label for o in node.options].index(label))

    def heuristic(self) -> str:
        """The label the heuristic chooses at the pending decision."""
        node = self.s.pending
        return node.option(_heuristic(self.prog).choose(self.prog, self.s)).label


def test_it_bids_the_minimum_while_cheap_and_passes_when_dear(manila: Any) -> None:
    """lib/auction.rules, seed 003 §競標海港負責人的辦事處: each bid at least one over the
    high bid. At 1 the office is cheap: it bids 2; at 25 of its 30 pesos it passes."""
    game = Scripted(manila, ["silk", "jade", "nutmeg", "ginseng", "silk", "jade"])
    game.decide(0, "1")
    assert game.heuristic() == "2"
    game = Scripted(manila, ["silk", "jade", "nutmeg", "ginseng", "silk", "jade"])
    game.decide(0, "25")
    assert game.heuristic() == "pass"


def test_a_pilot_makes_its_own_boats_arrival_sure(manila: Any) -> None:
    """seed 003 §領航員如何執行任務 (a pilot moves a boat before the last roll): its jade boat
    on 11 is wrecked if the last die shows 1 (§船難); one space on, on 12, every die takes it
    to Manila or onto 13, where with no pirate aboard it docks (§劫掠船隻). The small pilot
    takes that move."""
    game = Scripted(manila, ["jade", "jade", "silk", "silk", "ginseng", "ginseng"])
    for p in range(3):
        game.decide(p, "pass")                      # nobody bids: P1 is harbour master for 0
    game.decide(0, "pass")                          # buys no share
    game.decide(0, "nutmeg")                        # nutmeg stays ashore
    game.decide(0, "{silk: 3, ginseng: 3, jade: 3}")
    game.decide(0, "jade_boat")
    game.decide(1, "silk_boat")
    game.decide(2, "ginseng_boat")
    game.decide(0, "small_pilot")
    for p in (1, 2):
        game.decide(p, "pass")
    for pip in ("2", "2", "5"):                     # silk 5, ginseng 5, jade 8
        game.chance(pip)
    game.decide(0, "pass")                          # no more accomplices this voyage
    for pip in ("2", "2", "3"):                     # silk 7, ginseng 7, jade 11
        game.chance(pip)
    assert game.s.pending.prompt.startswith("small pilot")
    assert game.heuristic() == "{boat: jade, steps: 1}"


def test_it_takes_a_seat_on_a_boat_sure_to_arrive(manila: Any) -> None:
    """seed 003 §成功的航程, §第三步驟: a boat on 13 before the last roll passes 13 with any
    die, and its crew shares its profit (jade: 36). In the last placement round, with that
    boat's first seat free at 3 pesos and nobody else left to place, the heuristic takes it."""
    game = Scripted(manila, ["jade", "jade", "silk", "silk", "ginseng", "ginseng"])
    for p in range(3):
        game.decide(p, "pass")                      # nobody bids: P1 is harbour master for 0
    game.decide(0, "pass")
    game.decide(0, "nutmeg")
    game.decide(0, "{silk: 0, ginseng: 4, jade: 5}")
    game.decide(0, "pass")                          # P1 and P3 place nothing this voyage
    game.decide(1, "ginseng_boat")
    game.decide(2, "pass")
    game.decide(1, "harbour_a")
    for pip in ("1", "1", "4"):                     # silk 1, ginseng 5, jade 9
        game.chance(pip)
    game.decide(1, "small_pilot")
    for pip in ("1", "1", "4"):                     # silk 2, ginseng 6, jade 13
        game.chance(pip)
    assert game.s.pending.player == 1 and game.s.pending.prompt.startswith("place")
    assert game.heuristic() == "jade_boat"
