"""Hand-written Manila (3-5 players, base rules, no pirate variant).

This is the performance baseline for the rulebook interpreter: the same rules and
the same decision points, written as plain Python. The game flow is one ordinary
generator (`_play`): every decision is a `yield (player, options)`, and `apply`
sends the chosen option back in. No caching, no clever data structures.

Rules: shared/seeds/003_b49210f41d9164aa.txt (authority) and
shared/rules-data/manila.md (numbers).

Action encoding (all tuples, hashable):
  ("pass",) ("bid", n)                      auction
  ("none",) ("buy", g)                      harbour master buys a share
  ("leave_out", g)                          good not loaded
  ("start", a, b, c)                        start positions of the loaded goods (enum order)
  ("place", kind, arg)                      kind: boat(g) harbour(slot) shipyard(slot)
                                            pirate(None) pilot("small"/"large") insurance(None)
  ("stay",) ("board", g)                    pirate boarding after roll 2
  ("none",) ("pilot", g, delta)             pilots before roll 3
  ("plunder_to", g, "harbour"/"shipyard")   pirate captain after roll 3
  ("mortgage", g) ("redeem", g)             "at any time" loans; ("mortgage", g) is also
                                            the forced choice when a payment exceeds cash
Goods g are ints: 0 nutmeg, 1 silk, 2 ginseng, 3 jade.
"""
from __future__ import annotations

import random
import sys
import time
from typing import Callable, Generator, Optional

NUTMEG, SILK, GINSENG, JADE = 0, 1, 2, 3
GOODS = (NUTMEG, SILK, GINSENG, JADE)
GOOD_NAMES = ("nutmeg", "silk", "ginseng", "jade")

PRICE_TRACK = (0, 5, 10, 20, 30)
MAX_STEP = 4
MIN_SHARE_PRICE = 5
SHARES_PER_GOOD = 5
DEALT_PER_GOOD = 3          # 3 of each good are shuffled into the starting deck
SHARES_DEALT_EACH = 2
START_CASH = 30
LOAN_AMOUNT = 12
REDEEM_COST = 15

SEAT_COSTS = ((2, 3, 4), (3, 4, 5), (1, 2, 3), (3, 4, 5, 5))
PROFIT = (24, 30, 18, 36)

SLOTS = ("A", "B", "C")
OFFICE_COST = {"A": 4, "B": 3, "C": 2}      # harbour and shipyard offices
OFFICE_PAY = {"A": 6, "B": 8, "C": 15}
PIRATE_COST = 5
PILOT_COST = {"small": 2, "large": 5}
INSURANCE_BONUS = 10

TRACK_END = 13              # a punt at position > 13 has arrived
START_SUM = 9
MAX_START = 5

START_OPTIONS = [("start", a, b, START_SUM - a - b)
                 for a in range(MAX_START + 1) for b in range(MAX_START + 1)
                 if 0 <= START_SUM - a - b <= MAX_START]

Action = tuple
Decision = tuple[int, list]                  # (player, options)
Flow = Generator[Decision, Action, None]


class ManilaGame:
    def __init__(self, num_players: int, seed: int) -> None:
        if not 3 <= num_players <= 5:
            raise ValueError("Manila is for 3-5 players")
        self.n = num_players
        self.rng = random.Random(seed)
        self.cash = [START_CASH] * num_players
        self.held = [[0] * 4 for _ in range(num_players)]       # shares held (incl. mortgaged)
        self.mortgaged = [[0] * 4 for _ in range(num_players)]
        deck = [g for g in GOODS for _ in range(DEALT_PER_GOOD)]
        self.rng.shuffle(deck)
        for p in range(num_players):
            for g in deck[p * SHARES_DEALT_EACH:(p + 1) * SHARES_DEALT_EACH]:
                self.held[p][g] += 1
        self.supply = [SHARES_PER_GOOD - sum(self.held[p][g] for p in range(num_players))
                       for g in GOODS]
        self.step = [0] * 4
        self.master: Optional[int] = None
        self.voyage = 0
        self.accomplices_each = 4 if num_players == 3 else 3
        self._reset_voyage()
        self._flow: Flow = self._play()
        self._pending: Optional[Decision] = next(self._flow)

    # ------------------------------------------------------------------ interface
    def is_over(self) -> bool:
        return self._pending is None

    def current_player(self) -> int:
        return -1 if self._pending is None else self._pending[0]

    def legal_actions(self) -> list:
        return [] if self._pending is None else list(self._pending[1])

    def apply(self, action) -> None:
        if self._pending is None:
            raise ValueError("game is over")
        if action not in self._pending[1]:
            raise ValueError(f"illegal action {action!r}")
        try:
            self._pending = self._flow.send(action)
        except StopIteration:
            self._pending = None

    def scores(self) -> list[int]:
        result = []
        for p in range(self.n):
            value = sum(self.held[p][g] * PRICE_TRACK[self.step[g]] for g in GOODS)
            result.append(self.cash[p] + value - REDEEM_COST * sum(self.mortgaged[p]))
        return result

    # ------------------------------------------------------------------ helpers
    def _reset_voyage(self) -> None:
        self.loaded: list[int] = []
        self.pos = [0] * 4
        self.where: list[Optional[str]] = [None] * 4        # None = at sea
        self.crew: list[list[int]] = [[] for _ in GOODS]
        self.harbour_boats: list[int] = []
        self.shipyard_boats: list[int] = []
        self.harbour_office: dict[str, Optional[int]] = {s: None for s in SLOTS}
        self.shipyard_office: dict[str, Optional[int]] = {s: None for s in SLOTS}
        self.pirates: list[int] = []                        # [captain, second]
        self.pilot: dict[str, Optional[int]] = {"small": None, "large": None}
        self.insurer: Optional[int] = None
        self.plundered: list[int] = []
        self.plunderers: list[int] = []
        self.passed = [False] * self.n
        self.accomplices = [self.accomplices_each] * self.n

    def unmortgaged(self, p: int, g: int) -> int:
        return self.held[p][g] - self.mortgaged[p][g]

    def credit(self, p: int) -> int:
        return LOAN_AMOUNT * sum(self.unmortgaged(p, g) for g in GOODS)

    def share_price(self, g: int) -> int:
        return max(MIN_SHARE_PRICE, PRICE_TRACK[self.step[g]])

    def _loan_options(self, p: int) -> list:
        opts: list = [("mortgage", g) for g in GOODS if self.unmortgaged(p, g) > 0]
        if self.cash[p] >= REDEEM_COST:
            opts += [("redeem", g) for g in GOODS if self.mortgaged[p][g] > 0]
        return opts

    def _ask(self, p: int, make_options: Callable[[], list]) -> Generator[Decision, Action, Action]:
        """Ask player p; "at any time" mortgage/redeem actions are handled here and the
        same decision is asked again afterwards."""
        while True:
            action = yield (p, make_options() + self._loan_options(p))
            if action[0] == "mortgage":
                self.mortgaged[p][action[1]] += 1
                self.cash[p] += LOAN_AMOUNT
            elif action[0] == "redeem":
                self.mortgaged[p][action[1]] -= 1
                self.cash[p] -= REDEEM_COST
            else:
                return action

    def _pay(self, p: int, amount: int) -> Generator[Decision, Action, None]:
        """Pay the bank. If cash is short the player must mortgage shares (his choice which)
        until it suffices or none are left; whatever is still missing is not paid
        (only possible for the insurer, where the bank covers it)."""
        while self.cash[p] < amount and self.credit(p) > 0:
            action = yield (p, [("mortgage", g) for g in GOODS if self.unmortgaged(p, g) > 0])
            self.mortgaged[p][action[1]] += 1
            self.cash[p] += LOAN_AMOUNT
        self.cash[p] -= min(self.cash[p], amount)

    def _move(self, g: int, delta: int) -> None:
        self.pos[g] += delta
        if self.pos[g] > TRACK_END:
            self.where[g] = "harbour"
            self.harbour_boats.append(g)

    def _at_sea(self) -> list[int]:
        return [g for g in self.loaded if self.where[g] is None]

    # ------------------------------------------------------------------ game flow
    def _play(self) -> Flow:
        while True:
            self.voyage += 1
            self._reset_voyage()
            yield from self._auction()
            yield from self._harbour_master()
            # rounds of placement before each of the three rolls
            rounds_before_roll = (2, 1, 1) if self.n == 3 else (1, 1, 1)
            for roll, rounds in enumerate(rounds_before_roll, start=1):
                for _ in range(rounds):
                    yield from self._placement_round()
                if roll == 3:
                    yield from self._pilots()
                self._roll()
                if roll == 2:
                    yield from self._boarding()
            yield from self._end_of_movement()
            yield from self._payout()
            for g in self.harbour_boats:
                self.step[g] = min(MAX_STEP, self.step[g] + 1)
            if max(self.step) >= MAX_STEP:
                return

    def _auction(self) -> Flow:
        opener = 0 if self.master is None else self.master
        active = [True] * self.n
        high, leader = 0, None
        p = opener
        while True:
            n_active = sum(active)
            if n_active == 0 or (n_active == 1 and leader is not None):
                break
            if active[p]:
                action = yield from self._ask(p, lambda: self._bid_options(p, high))
                if action[0] == "pass":
                    active[p] = False
                else:
                    high, leader = action[1], p
            p = (p + 1) % self.n
        if leader is None:
            if self.master is None:
                self.master = 0     # voyage 1, nobody bid: PLACEHOLDER, seat 0 for free
        else:
            self.master = leader
            yield from self._pay(leader, high)

    def _bid_options(self, p: int, high: int) -> list:
        limit = self.cash[p] + self.credit(p)
        return [("pass",)] + [("bid", b) for b in range(high + 1, limit + 1)]

    def _harbour_master(self) -> Flow:
        m = self.master
        assert m is not None
        action = yield from self._ask(m, lambda: self._buy_options(m))
        if action[0] == "buy":
            g = action[1]
            yield from self._pay(m, self.share_price(g))
            self.supply[g] -= 1
            self.held[m][g] += 1
        action = yield from self._ask(m, lambda: [("leave_out", g) for g in GOODS])
        self.loaded = [g for g in GOODS if g != action[1]]
        action = yield from self._ask(m, lambda: START_OPTIONS)
        for g, start in zip(self.loaded, action[1:]):
            self.pos[g] = start

    def _buy_options(self, m: int) -> list:
        budget = self.cash[m] + self.credit(m)
        return [("none",)] + [("buy", g) for g in GOODS
                              if self.supply[g] > 0 and self.share_price(g) <= budget]

    def _free_spaces(self) -> list[tuple[str, object, int]]:
        """(kind, arg, cost) for every free accomplice space, in stable order."""
        spaces: list[tuple[str, object, int]] = []
        for g in self.loaded:
            if len(self.crew[g]) < len(SEAT_COSTS[g]):
                spaces.append(("boat", g, SEAT_COSTS[g][len(self.crew[g])]))
        for s in SLOTS:
            if self.harbour_office[s] is None:
                spaces.append(("harbour", s, OFFICE_COST[s]))
        for s in SLOTS:
            if self.shipyard_office[s] is None:
                spaces.append(("shipyard", s, OFFICE_COST[s]))
        if len(self.pirates) < 2:
            spaces.append(("pirate", None, PIRATE_COST))
        for size in ("small", "large"):
            if self.pilot[size] is None:
                spaces.append(("pilot", size, PILOT_COST[size]))
        if self.insurer is None:
            spaces.append(("insurance", None, 0))
        return spaces

    def _is_blind(self, p: int, spaces: list[tuple[str, object, int]]) -> bool:
        paid = [cost for kind, _, cost in spaces if kind != "insurance"]
        return bool(paid) and self.cash[p] + self.credit(p) < min(paid)

    def _placement_options(self, p: int) -> list:
        spaces = self._free_spaces()
        budget = self.cash[p] + self.credit(p)
        blind = self._is_blind(p, spaces)
        return [("pass",)] + [("place", kind, arg) for kind, arg, cost in spaces
                              if (kind != "insurance" if blind else cost <= budget)]

    def _placement_round(self) -> Flow:
        assert self.master is not None
        for i in range(self.n):
            p = (self.master + i) % self.n
            if self.passed[p] or self.accomplices[p] == 0:
                continue
            action = yield from self._ask(p, lambda: self._placement_options(p))
            if action[0] == "pass":
                self.passed[p] = True
                continue
            yield from self._place(p, action[1], action[2])

    def _place(self, p: int, kind: str, arg) -> Flow:
        spaces = self._free_spaces()
        cost = next(c for k, a, c in spaces if k == kind and a == arg)
        if kind == "insurance":
            self.cash[p] += INSURANCE_BONUS
        elif self._is_blind(p, spaces):
            self.cash[p] = 0            # blind passenger: pays all his cash
        else:
            yield from self._pay(p, cost)
        self.accomplices[p] -= 1
        if kind == "boat":
            self.crew[arg].append(p)
        elif kind == "harbour":
            self.harbour_office[arg] = p
        elif kind == "shipyard":
            self.shipyard_office[arg] = p
        elif kind == "pirate":
            self.pirates.append(p)
        elif kind == "pilot":
            self.pilot[arg] = p
        else:
            self.insurer = p

    def _roll(self) -> None:
        for g in self.loaded:
            die = self.rng.randint(1, 6)
            if self.where[g] is None:
                self._move(g, die)

    def _boarding(self) -> Flow:
        on13 = [g for g in self._at_sea() if self.pos[g] == TRACK_END]
        if not on13 or not self.pirates:
            return
        for p in list(self.pirates):        # captain first, then the second pirate
            action = yield from self._ask(p, lambda: [("stay",)] + [
                ("board", g) for g in on13 if len(self.crew[g]) < len(SEAT_COSTS[g])])
            if action[0] == "board":
                self.pirates.remove(p)      # first occurrence = the current captain
                self.crew[action[1]].append(p)

    def _pilot_moves(self, distances: tuple[int, ...], exclude: Optional[int] = None) -> list:
        moves = []
        for g in self._at_sea():
            if g == exclude:
                continue
            for d in distances:
                for delta in (d, -d):
                    if self.pos[g] + delta >= 0:
                        moves.append(("pilot", g, delta))
        return moves

    def _pilots(self) -> Flow:
        small = self.pilot["small"]
        if small is not None:
            action = yield from self._ask(small, lambda: [("none",)] + self._pilot_moves((1,)))
            if action[0] == "pilot":
                self._move(action[1], action[2])
        large = self.pilot["large"]
        if large is not None:
            action = yield from self._ask(large, lambda: [("none",)] + self._pilot_moves((2, 1)))
            if action[0] == "pilot":
                self._move(action[1], action[2])
                if abs(action[2]) == 1:     # second +-1 move, on another punt, may be skipped
                    first = action[1]
                    action = yield from self._ask(
                        large, lambda: [("none",)] + self._pilot_moves((1,), exclude=first))
                    if action[0] == "pilot":
                        self._move(action[1], action[2])

    def _end_of_movement(self) -> Flow:
        on13 = [g for g in self._at_sea() if self.pos[g] == TRACK_END]
        if on13 and self.pirates:
            self.plunderers = list(self.pirates)
            for g in on13:
                self.plundered.append(g)
                self.crew[g] = []           # crew goes home unpaid
                action = yield from self._ask(self.pirates[0], lambda: [
                    ("plunder_to", g, "harbour"), ("plunder_to", g, "shipyard")])
                self.where[g] = action[2]
                (self.harbour_boats if action[2] == "harbour" else self.shipyard_boats).append(g)
        elif on13:
            # seed 003 §劫掠船隻: 海盜船上沒有海盜，這艘船停留在下一個港口空間 — no pirate on the
            # ship: a punt on 13 takes the next harbour space (docs/games/manila.md, choice 11)
            for g in on13:
                self.where[g] = "harbour"
                self.harbour_boats.append(g)
        for g in self._at_sea():            # punts short of 13
            self.where[g] = "shipyard"
            self.shipyard_boats.append(g)

    def _payout(self) -> Flow:
        income = [0] * self.n
        for g in self.harbour_boats:
            if self.crew[g]:
                share = PROFIT[g] // len(self.crew[g])
                for p in self.crew[g]:
                    income[p] += share
        for g in self.plundered:
            share = PROFIT[g] // len(self.plunderers)
            for p in self.plunderers:
                income[p] += share
        for i, s in enumerate(SLOTS):
            holder = self.harbour_office[s]
            if holder is not None and len(self.harbour_boats) > i:
                income[holder] += OFFICE_PAY[s]
        claims = 0
        for i, s in enumerate(SLOTS):
            if len(self.shipyard_boats) > i:
                holder = self.shipyard_office[s]
                if holder is not None:
                    income[holder] += OFFICE_PAY[s]   # from the insurer, bank covers shortfall
                claims += OFFICE_PAY[s]               # insurer pays holder or bank
        for p in range(self.n):
            self.cash[p] += income[p]
        if self.insurer is not None and claims > 0:
            yield from self._pay(self.insurer, claims)


def random_playout(num_players: int, seed: int, agent_seed: int) -> tuple[int, list[int]]:
    """Play one game with a uniform-random agent (random.Random(agent_seed).choice over
    legal_actions()); return (number_of_decisions, scores)."""
    game = ManilaGame(num_players, seed)
    agent = random.Random(agent_seed)
    decisions = 0
    while not game.is_over():
        game.apply(agent.choice(game.legal_actions()))
        decisions += 1
    return decisions, game.scores()


if __name__ == "__main__":
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    players = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    start = time.perf_counter()
    total = 0
    for i in range(games):
        n_decisions, _ = random_playout(players, seed=i, agent_seed=10_000 + i)
        total += n_decisions
    elapsed = time.perf_counter() - start
    print(f"{games} random {players}-player games, {total} decisions in {elapsed:.3f}s")
    print(f"decisions/game: {total / games:.1f}")
    print(f"decisions/s:    {total / elapsed:,.0f}")
    print(f"playouts/s:     {games / elapsed:,.1f}")
