"""The Felinia heuristic anchor (benchmarks/heuristic_felinia.py, issue 36): it plays whole legal
games at every player count, beats random play, sees only what its seat may see (its choice is
the same in every world its seat cannot tell from the real one), and makes the obviously right
choice where there is one. benchmarks/bench_agents.py seats it by the spec `heuristic`.

Sources quoted in the docstrings: seed 004 (shared/seeds/004_*.txt, cited by section) and the
rulebook's PLACEHOLDER tables (ship tile t is ship_tiles[t - 1], docs/games/felinia.md)."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from bench_module import bench_agents

from shipped import shipped_program

from mercator.interpreter.agents.base import RandomAgent, agent_seed, play_out, resolve_chance
from mercator.interpreter.engine.nodes import Chance, Decision
from mercator.interpreter.engine.resample import Trace

ROOT = Path(__file__).resolve().parent.parent
B = bench_agents()

MOVE = "merchant: stop here, walk along a road, or reveal trade tokens"
WALK = "walk to which region"


@pytest.fixture(scope="module")
def felinia() -> Any:
    return shipped_program("felinia")


def _heuristic(prog: Any) -> Any:
    return B.heuristic_for(prog)(0)


def test_the_harness_finds_the_felinia_heuristic_by_its_rulebook(felinia: Any) -> None:
    cls = B.heuristic_for(felinia)
    assert cls.__module__ == "heuristic_felinia" and cls.__name__ == "FeliniaHeuristic"
    assert B.heuristic_for(shipped_program("felinia_advanced")) is cls   # a variant: its game's


# ----------------------------------------------------------------------------- whole games
@pytest.mark.parametrize("players", [2, 3, 4])
def test_it_plays_whole_legal_games_and_wins_them(felinia: Any, players: int) -> None:
    """Every choice goes through apply (which refuses an illegal one), to the end, with the
    rulebook's invariants checked after every decision; against random play it wins. It sells
    (an any-time action, seed 004 §遊戲回合 1) a.) only to pay: at a purchase, a trade or a
    boarding, when its silver is short."""
    me = 1
    bots = [_heuristic(felinia) if p == me else RandomAgent(agent_seed(players, p))
            for p in range(players)]
    s = felinia.new_game(players, players)
    sales = 0

    def check(state: Any, node: Any, i: int, label: str) -> None:
        nonlocal sales
        assert felinia.check_invariants(state) == []
        if isinstance(node, Decision) and node.player == me and node.option(i).action:
            sales += 1
            assert node.prompt.split(" ")[0] in ("buy", "trade", "board"), (node.prompt, label)
    play_out(felinia, s, bots, on_step=check, max_decisions=5000)
    assert s.over and list(s.pending.winners) == [me]
    assert s.pending.scores[me] >= 3 * max(s.pending.scores[p] for p in range(players) if p != me)
    assert sales <= 10


def test_it_plays_every_seat_at_once(felinia: Any) -> None:
    s = play_out(felinia, felinia.new_game(2, 5), [_heuristic(felinia) for _ in range(2)],
                 max_decisions=5000)
    assert s.over and max(s.pending.scores) > 20


# ----------------------------------------------------------------------------- information
def test_its_choice_is_the_same_in_every_world_its_seat_cannot_tell_apart(felinia: Any) -> None:
    """A world drawn from the seat's information state (the face-down trade tokens' values and
    the ship deck's order drawn anew: seed 004 §起始設置 4, 5) offers the same options; the
    heuristic must choose the same there, so it reads nothing its seat may not see. The worlds
    do differ in what it cannot see. (Trace.sample draws what resample draws, the trace kept
    from one check to the next.)"""
    me, rng = 1, random.Random(3)
    s = felinia.new_game(2, 1, narrate=True, explicit_chance=True)
    others = [RandomAgent(agent_seed(1, p)) for p in range(2)]
    bot = _heuristic(felinia)
    trace = None
    asked = checked = hidden_differs = 0
    prompts = set()
    while not s.over and asked < 80:
        node = s.pending
        if isinstance(node, Chance):
            felinia.apply(s, resolve_chance(s))
            continue
        if node.player == me:
            choice = bot.choose(felinia, s)
            if asked % 5 == 0:
                if trace is None:
                    trace = Trace(felinia, s, me)
                else:
                    assert trace.extend(s)
                world = trace.sample(rng)
                assert isinstance(world.pending, Decision) and world.pending.player == me
                assert bot.choose(felinia, world) == choice, node.prompt
                checked += 1
                prompts.add(node.prompt.split(":")[0])
                hidden_differs += felinia.get(world, "face_down") != felinia.get(s, "face_down")
            asked += 1
        else:
            choice = others[node.player].choose(felinia, s)
        felinia.apply(s, choice)
    assert checked >= 15 and hidden_differs >= checked - 2
    assert {"place an action disc", "merchant"} <= prompts


# ----------------------------------------------------------------------------- scenarios
class Scripted:
    """A 2-player Felinia game with explicit chance: P1 starts, setup's draws and shuffles take
    their first outcome; then the test lays out the position (fields set, the bag holding every
    good nobody holds, the invariants kept) and the decision is asked afresh."""

    def __init__(self, prog: Any):
        self.prog = prog
        self.s = prog.new_game(2, 0, narrate=True, explicit_chance=True)
        while isinstance(self.s.pending, Chance):
            prog.apply(self.s, 0)
        assert self.s.pending.player == 0
        self.m = prog.member
        for row in ("market_1", "market_3", "market_5"):
            self.prog.get(self.s, "market")[self.m(row)] = {}

    def goods(self, **goods: int) -> dict:
        return {self.m(g): n for g, n in goods.items()}

    def ships(self, berths: list) -> None:
        """(departure time, seats) per berth, top first; a seated merchant leaves its supply."""
        ships = []
        for time, seats in berths:
            ships.append([time - 1, list(seats), False])
            for p in seats:
                if p is not None:
                    self.prog.set(self.s, "merchants",
                                  self.prog.get(self.s, "merchants", player=p) - 1, player=p)
        self.prog.set(self.s, "ships", ships)

    def token(self, region: str) -> list:
        for t in self.prog.get(self.s, "face_down"):
            if t[2] == self.m(region):
                return t
        raise AssertionError(region)

    def settle(self, p: int, region: str, cap: int) -> None:
        """A merchant of p that stayed on `region` earlier, holding its token (value `cap`)."""
        t = self.token(region)
        t[1] = cap
        self.prog.get(self.s, "face_down").remove(t)
        self.prog.get(self.s, "covered").remove(self.m(region))
        self.prog.get(self.s, "tokens", player=p).append(t)
        self.prog.get(self.s, "occupant")[self.m(region)] = p
        self.prog.set(self.s, "merchants", self.prog.get(self.s, "merchants", player=p) - 1,
                      player=p)

    def reveal(self, region: str, cap: int) -> None:
        t = self.token(region)
        t[1] = cap
        self.prog.get(self.s, "face_down").remove(t)
        self.prog.get(self.s, "covered").remove(self.m(region))
        self.prog.get(self.s, "face_up").append(t)

    def ready(self) -> None:
        held: dict = {}
        for bag in list(self.prog.get(self.s, "market").values()) + \
                [self.prog.get(self.s, "goods", player=p) for p in range(2)]:
            for g, k in bag.items():
                held[g] = held.get(g, 0) + k
        self.prog.set(self.s, "bag", {self.m(g): 12 - held.get(self.m(g), 0)
                                      for g in ("books", "wine", "watches", "cloth", "glass")})
        self.prog.resume(self.s)
        assert self.prog.check_invariants(self.s) == []

    def decide(self, player: int, label: str) -> None:
        node = self.s.pending
        assert isinstance(node, Decision) and node.player == player, node
        self.prog.apply(self.s, [o.label for o in node.options].index(label))

    def heuristic(self, bot: Any) -> str:
        """The label the heuristic chooses at the pending decision, which it then makes."""
        node = self.s.pending
        label = node.option(bot.choose(self.prog, self.s)).label
        self.prog.apply(self.s, [o.label for o in node.options].index(label))
        return label


def test_it_buys_the_missing_good_and_boards_at_the_bow(felinia: Any) -> None:
    """seed 004 §遊戲回合 2): after a purchase a player holding a ship's goods may board it, on
    the landing seat of his choice; §遊戲回合 3): merchants land from the bow (seat 1) on.
    Holding glass and wine, with ship tile 5 (to purple) asking glass 2 + wine 1 and both its
    seats free, and the one glass in market row 1 at price 1: it buys the glass, then boards
    that ship at the bow."""
    game = Scripted(felinia)
    p = felinia
    p.get(game.s, "market")[game.m("market_1")] = game.goods(glass=1)
    p.set(game.s, "goods", game.goods(glass=1, wine=1), player=0)
    p.set(game.s, "silver", 2, player=0)
    p.set(game.s, "goods", {}, player=1)
    game.ships([(5, [None, None]), (12, [None]), (13, [None]), (14, [None])])
    game.ready()
    for spot in ("market_1", "income", "income", "income", "income", "income"):
        game.decide(game.s.pending.player, spot)
    bot = _heuristic(felinia)
    assert game.s.pending.prompt.startswith("buy one good")
    assert game.heuristic(bot) == "glass"
    assert game.s.pending.prompt.startswith("board a ship")
    assert game.heuristic(bot) == "{ship: 1, seat: 1}"


def test_a_landing_merchant_walks_to_the_trade_post_that_joins_its_group(felinia: Any) -> None:
    """seed 004 §遊戲回合 3): a landed merchant makes up to 3 moves along the roads and stays on a
    trade post (a revealed token), taking it; §遊戲結束 4: n connected merchants score n each;
    §遊戲結束 5: m tokens of a colour score up to m each. P1 holds red tokens on red_2 (value 4)
    and red_4 (3); P2 stays on red_5, red_6, red_7; the red token on red_3 (3) lies face up.
    P1's merchant on ship tile 1 (to red; no ship full, so the earliest sails) lands on red_1:
    it walks through its own red_2 to red_3 and stops there, joining red_2 and red_4 into a
    group of 3 (9 points, was 2) and making its red set 3 tokens — not walking on to a country
    where it would have to turn tokens up."""
    game = Scripted(felinia)
    p = felinia
    p.set(game.s, "goods", {}, player=0)
    p.set(game.s, "goods", {}, player=1)
    game.settle(0, "red_2", 4)
    game.settle(0, "red_4", 3)
    for region, cap in (("red_5", 1), ("red_6", 2), ("red_7", 2)):
        game.settle(1, region, cap)
    game.reveal("red_3", 3)
    game.ships([(1, [0, None]), (12, [None]), (13, [None]), (14, [None])])
    game.ready()
    for _ in range(6):
        game.decide(game.s.pending.player, "income")
    bot = _heuristic(felinia)
    chosen = []
    while isinstance(game.s.pending, Decision) and game.s.pending.prompt in (MOVE, WALK):
        assert game.s.pending.player == 0
        chosen.append(game.heuristic(bot))
    # on red_2, where its own merchant stays, it may only walk on: the engine does not ask
    assert chosen == ["walk", "red_2", "red_3", "stop"]
    assert p.get(game.s, "occupant")[game.m("red_3")] == 0
    assert [t[2] for t in p.get(game.s, "tokens", player=0)][-1] == game.m("red_3")
