"""A heuristic Manila player: a measuring stick for the bots (issue 36), written as a good casual
player plays, in plain Python.

What it knows: the printed board (the rulebook's constants: seat costs, payouts, the price track,
read from `program.consts`) and, of the position, only what its seat sees: `observe(program,
state, seat)` (interpreter/engine/view.py, derived from the rulebook's visibility declarations:
its own shares, the others' share counts, cash, boats, crews, offices) and the options it is
offered. It never looks at `state` otherwise (tests/test_heuristic_bots.py checks that its choice
is the same in every world its seat cannot tell from the real one).

How it plays (seed 003 for the rules; docs/agents.md, "Heuristic anchors"):
- It prices every voyage outcome from the dice odds: for each boat, from its space and the rolls
  left, the chance that it passes space 13, that it ends a roll on 13 (pirates), or that it is
  wrecked; boats are independent, so the number of arrivals and of wrecks follows from them.
- **Placement**: the space whose expected payoff less its cost is best — a boat seat pays the
  boat's profit shared by the crew it will likely have (the seats still free, filled at the
  rate the other players' accomplices left can fill them), harbour and shipyard offices pay by
  the chance of enough arrivals or wrecks, the insurer earns 10 now less the expected claims,
  a pilot is worth the best move it could make for its holder, the pirate the boarding and
  plunder it can expect. A space that needs a mortgage counts 4 pesos more per mortgage. It
  passes only when nothing is worth its cost.
- **Auction**: the harbour master's office is worth a few pesos (first pick of the spaces,
  steering the boats) plus the best share purchase; it bids the minimum over the high bid while
  that is below this worth and its cash, and passes above it (it never mortgages to bid).
- **Harbour master**: buys the share whose expected final value beats its price most (goods it
  already holds are favoured), keeping cash to place; leaves ashore the good it has least
  interest in and the others most; starts its own goods' boats ahead.
- **Pilots**: the move (or pair of moves) that raises its own expected payoff most, its shares'
  rise included; none if none helps. **Pirates**: board when a seat is worth more than staying;
  a plundered boat goes where its holdings and offices gain most.
- **Money**: never mortgages or redeems at will; a forced mortgage gives up its least valuable
  share.
"""
from __future__ import annotations

import functools
import os
import sys
from typing import Any, Optional

from mercator.interpreter.engine.view import observe

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # anchor_tools beside it
# _ACTION marks an any-time action (mortgage, redeem): never taken at will
from anchor_tools import ACTION as _ACTION  # noqa: E402
from anchor_tools import argmax as _argmax, first_plain as _first_plain  # noqa: E402
from anchor_tools import seat_index as _seat  # noqa: E402

GAME = "Manila"


# ----------------------------------------------------------------------------- the dice odds
@functools.lru_cache(maxsize=None)
def boat_odds(pos: int, rolls: int, end: int = 13, sides: int = 6) -> tuple[float, float, float]:
    """For a boat on space `pos` with `rolls` dice still to be rolled for it: the chance that it
    passes space `end` (reaches Manila), that it stands exactly on `end` after the last roll,
    and that it stands on `end` after the next-to-last roll (when the pirates may board)."""
    dist = {pos: 1.0}
    arrived = 0.0
    on_end_before_last = 0.0
    for r in range(rolls):
        nxt: dict[int, float] = {}
        for p, q in dist.items():
            for d in range(1, sides + 1):
                if p + d > end:
                    arrived += q / sides
                else:
                    nxt[p + d] = nxt.get(p + d, 0.0) + q / sides
        dist = nxt
        if r == rolls - 2:
            on_end_before_last = dist.get(end, 0.0)
    return arrived, dist.get(end, 0.0), on_end_before_last


def at_least(probs: list[float]) -> list[float]:
    """P(at least k of independent events happen) for k = 0..len(probs)."""
    dist = [1.0]
    for p in probs:
        new = [0.0] * (len(dist) + 1)
        for k, q in enumerate(dist):
            new[k] += q * (1 - p)
            new[k + 1] += q * p
        dist = new
    tail = [0.0] * (len(dist) + 1)
    for k in range(len(dist) - 1, -1, -1):
        tail[k] = tail[k + 1] + dist[k]
    return tail


# ----------------------------------------------------------------------------- what the seat sees
class Seen:
    """The seat's observation, as plain names and numbers, with the printed board."""

    def __init__(self, program: Any, state: Any, seat: int):
        obs = observe(program, state, seat)
        c = program.consts
        enums = program.rb.enums
        self.goods: tuple[str, ...] = enums["Good"].members
        self.spaces: tuple[str, ...] = enums["Space"].members
        self.dests: tuple[str, ...] = enums["Destination"].members
        g, sp = self.goods, self.spaces
        self.track: list[int] = list(c["price_track"])
        self.max_step: int = c["max_step"]
        self.min_price: int = c["min_share_price"]
        self.loan: int = c["loan_value"]
        self.end: int = c["track_end"]
        self.sides: int = c["die_sides"]
        self.seat_costs = {g[k]: list(v) for k, v in c["seat_costs"].items()}
        self.profit = {g[k]: v for k, v in c["profit"].items()}
        self.space_good = {sp[k]: g[v] for k, v in c["space_good"].items()}
        self.harbours = [sp[k] for k in c["harbour_offices"]]
        self.shipyards = [sp[k] for k in c["shipyard_offices"]]
        self.fixed_cost = {sp[k]: v for k, v in c["fixed_space_cost"].items()}
        self.office_pay = {sp[k]: v for k, v in c["office_pay"].items()}
        self.bonus: int = c["insurance_bonus"]
        self.pirate_seats: int = c["pirate_seats"]
        self.n = len(obs["players"])
        self.each: int = c["accomplices_each"][self.n]
        self.early_rounds: int = c["placement_rounds_before_first_roll"][self.n]

        t = obs["table"]
        self.me = seat
        self.step: dict[str, int] = t["step"]
        self.supply: dict[str, int] = t["supply"]
        self.master = _seat(t["harbour_master"])
        self.high_bid: int = t["auction_high_bid"]
        self.loaded: list[str] = t["loaded"]
        self.position: dict[str, int] = t["position"]
        self.crew = {k: [_seat(x) for x in v] for k, v in t["crew"].items()}
        self.office = {k: _seat(v) for k, v in t["office"].items()}
        self.pirates = [_seat(x) for x in t["pirates"]]
        self.harbour_boats: list[str] = t["harbour_boats"]
        self.shipyard_boats: list[str] = t["shipyard_boats"]
        self.players = obs["players"]
        mine = self.players[seat]
        self.pesos: int = mine["pesos"]
        self.shares: dict[str, int] = mine["shares"]
        self.mortgaged: dict[str, int] = mine["mortgaged"]
        self.accomplices: int = mine["accomplices"]

    # --- shares
    def held(self, good: str) -> int:
        """Shares of `good` the seat holds, mortgaged or not (both count at the end)."""
        return self.shares.get(good, 0) + self.mortgaged.get(good, 0)

    def others_hold(self, good: str) -> int:
        """Shares of `good` in the other seats' hands (all five less the supply and mine)."""
        return max(0, 5 - self.supply.get(good, 0) - self.held(good))

    def rise(self, good: str) -> int:
        """What one share of `good` gains if its boat reaches Manila."""
        s = self.step[good]
        return self.track[min(self.max_step, s + 1)] - self.track[s]

    def voyages_left(self) -> float:
        """A rough count of the voyages still to come, this one included (the game ends once a
        price reaches the top; the leading good rises about every other voyage)."""
        lead = max(self.step.values())
        return max(1.0, 1.0 + 1.7 * (self.max_step - 1 - lead))

    def final_value(self, good: str) -> float:
        """A share's expected worth at the end: its price moved up by the rises to come."""
        s = self.step[good] + min(self.max_step - self.step[good], 0.4 * self.voyages_left())
        lo = int(s)
        if lo >= self.max_step:
            return float(self.track[self.max_step])
        return self.track[lo] + (s - lo) * (self.track[lo + 1] - self.track[lo])

    def share_price(self, good: str) -> int:
        return max(self.min_price, self.track[self.step[good]])

    def interest(self, good: str) -> float:
        """How much the seat wants `good`'s boat in Manila beyond any crew: its shares' rise."""
        return self.held(good) * self.rise(good)

    # --- money
    def credit(self) -> int:
        return self.loan * sum(self.shares.values())

    def mortgage_penalty(self, cost: int) -> float:
        """What paying `cost` costs beyond itself: 4 pesos per share it forces into mortgage."""
        short = cost - self.pesos
        if short <= 0:
            return 0.0
        return 4.0 * -(-short // self.loan)

    # --- the voyage
    def rolls_left_to_place(self) -> int:
        """Rolls still to come after this placement round (3, 2 or 1), from the seat's own
        accomplices: it places one per round."""
        r = self.each - self.accomplices + 1
        return 3 if r <= self.early_rounds else max(1, 3 - (r - self.early_rounds))

    def at_sea(self, good: str) -> bool:
        return good in self.loaded and good not in self.harbour_boats \
            and good not in self.shipyard_boats

    def fill_rate(self) -> float:
        """The share of free boat seats the others are likely to fill before the voyage sails:
        the accomplices they still hold over the free spaces."""
        others = sum(p["accomplices"] for k, p in enumerate(self.players)
                     if k != self.me and not p["passed"])
        free = sum(len(self.seat_costs[g]) - len(self.crew[g]) for g in self.loaded)
        free += sum(1 for s, h in self.office.items() if h is None)
        free += self.pirate_seats - len(self.pirates)
        return min(0.9, others / max(1, free))


# ----------------------------------------------------------------------------- a voyage's worth
class Board:
    """The part of a voyage that changes a seat's payoff, to price hypothetical moves."""

    def __init__(self, v: Seen):
        self.v = v
        self.position = dict(v.position)
        self.crew = {g: list(c) for g, c in v.crew.items()}
        self.office = dict(v.office)
        self.pirates = list(v.pirates)

    def copy(self) -> "Board":
        b = Board.__new__(Board)
        b.v, b.position = self.v, dict(self.position)
        b.crew = {g: list(c) for g, c in self.crew.items()}
        b.office, b.pirates = dict(self.office), list(self.pirates)
        return b

    def worth(self, rolls: int, fill: float) -> float:
        """The seat's expected payoff from this voyage with `rolls` dice still to come, the
        others filling `fill` of each boat's free seats: crews, offices, the insurer's claims,
        pirates, and its shares' rise."""
        v, me = self.v, self.v.me
        arrive: dict[str, float] = {}
        plunder: dict[str, float] = {}
        board: dict[str, float] = {}
        for g in v.loaded:
            if g in v.harbour_boats:
                arrive[g], plunder[g], board[g] = 1.0, 0.0, 0.0
            elif g in v.shipyard_boats:
                arrive[g], plunder[g], board[g] = 0.0, 0.0, 0.0
            else:
                a, last, before = boat_odds(max(0, self.position[g]), rolls, v.end, v.sides)
                if self.pirates:
                    arrive[g], plunder[g] = a, last
                else:           # nobody on the pirate ship: a boat on 13 docks
                    arrive[g], plunder[g] = a + last, 0.0
                board[g] = before
        total = 0.0
        for g in v.loaded:
            crew = self.crew[g]
            seats = len(v.seat_costs[g])
            mine = crew.count(me)
            if mine:
                size = len(crew) + fill * (seats - len(crew))
                total += arrive[g] * v.profit[g] * mine / size
            total += arrive[g] * v.interest(g)
        n_arrive = at_least([arrive[g] for g in v.loaded])
        # a plundered boat goes to the harbour or the shipyard: counted half a wreck
        n_wreck = at_least([1 - arrive[g] - 0.5 * plunder[g] for g in v.loaded])
        for k, s in enumerate(v.harbours):
            if self.office.get(s) == me:
                total += v.office_pay[s] * n_arrive[k + 1]
        claims = 0.0
        for k, s in enumerate(v.shipyards):
            claims += v.office_pay[s] * n_wreck[k + 1]
            if self.office.get(s) == me:
                total += v.office_pay[s] * n_wreck[k + 1]
        if self.office.get("insurance") == me:
            total -= claims
        if me in self.pirates:
            cut = self.pirates.count(me) / max(1, len(self.pirates))
            for g in v.loaded:
                total += plunder[g] * v.profit[g] * cut
                if rolls >= 2 and len(self.crew[g]) < len(v.seat_costs[g]):
                    total += 0.5 * board[g] * v.profit[g] / (len(self.crew[g]) + 1) * cut
        return total

    def best_pilot_gain(self, steps: tuple[int, ...], pairs: bool, rolls: int,
                        exclude: Optional[str] = None) -> float:
        """How much the seat's payoff rises from the best pilot move now (one boat, not
        `exclude`, by one of `steps`, or, if `pairs`, also two boats by one each)."""
        base = self.worth(rolls, 0.0)
        best = 0.0
        boats = [g for g in self.v.loaded if self.v.at_sea(g) and g != exclude]
        for g in boats:
            for d in steps:
                if self.position[g] + d < 0:
                    continue
                b = self.copy()
                b.position[g] += d
                best = max(best, b.worth(rolls, 0.0) - base)
                if pairs and abs(d) == 1:
                    for h in boats:
                        if h == g:
                            continue
                        for e in (1, -1):
                            if b.position[h] + e < 0:
                                continue
                            c = b.copy()
                            c.position[h] += e
                            best = max(best, c.worth(rolls, 0.0) - base)
        return best


# ----------------------------------------------------------------------------- the player
class ManilaHeuristic:
    """Plays Manila as a good casual player: expected values from the dice odds, minimum bids
    while the office is cheap, no pointless moves (see the module's docstring)."""

    name = "heuristic"

    def __init__(self, seed: Any = 0):
        self.seed = seed            # deterministic: the seed is kept for the harness only

    def choose(self, program: Any, state: Any) -> int:
        """The index of the option chosen at the decision pending in `state`."""
        node = state.pending
        seat = node.player
        v = Seen(program, state, seat)
        options = node.options
        values = [o.value if o.action is None else _ACTION for o in options]
        prompt = node.prompt_for(seat)
        for key, how in _HANDLERS:
            if key in prompt:
                return how(self, v, values)
        return _first_plain(values)

    # --- auction
    def bid(self, v: Seen, values: list) -> int:
        worth = 3.0 + 0.25 * sum(v.interest(g) for g in v.goods)
        buys = [v.final_value(g) - v.share_price(g) + 1.5 * v.held(g)
                for g in v.goods if v.supply.get(g, 0) > 0]
        worth += max([0.0] + buys)
        worth = min(worth, v.pesos - 4)
        want = v.high_bid + 1
        if want <= worth and want in values:
            return values.index(want)
        return values.index(None)

    def buy(self, v: Seen, values: list) -> int:
        best, pick = 0.0, values.index(None)
        reserve = 8 if v.voyages_left() > 1.5 else 0
        for i, x in enumerate(values):
            if x is None or x is _ACTION:
                continue
            g = v.goods[x]
            price = v.share_price(g)
            if price > v.pesos - reserve:
                continue
            gain = v.final_value(g) - price + 1.5 * v.held(g)
            if gain > best:
                best, pick = gain, i
        return pick

    def ashore(self, v: Seen, values: list) -> int:
        def keep(g: str) -> float:
            return 3 * v.held(g) * max(1, v.rise(g)) - v.others_hold(g) * v.rise(g) \
                + v.profit[g] / 10
        return _argmax(values, lambda x: -keep(v.goods[x]))

    def launch(self, v: Seen, values: list) -> int:
        def score(start: dict) -> float:
            return sum(pos * (v.interest(v.goods[g]) + v.profit[v.goods[g]] / 12
                              - 0.3 * v.others_hold(v.goods[g]) * v.rise(v.goods[g]))
                       for g, pos in start.items())
        return _argmax(values, score)

    # --- placement
    def place(self, v: Seen, values: list) -> int:
        rolls = v.rolls_left_to_place()
        fill = v.fill_rate() if rolls > 1 or v.accomplices > 1 else 0.5 * v.fill_rate()
        board = Board(v)
        base = board.worth(rolls, fill)
        free_paid = [x for x in values if x is not None and x is not _ACTION
                     and v.spaces[x] != "insurance"]
        budget = v.pesos + v.credit()
        blind = bool(free_paid) and all(self._cost(v, board, v.spaces[x]) > budget
                                        for x in free_paid)
        best, pick = 0.5, values.index(None) if None in values else 0
        for i, x in enumerate(values):
            if x is None or x is _ACTION:
                continue
            s = v.spaces[x]
            cost = v.pesos if blind else self._cost(v, board, s)
            gain = self._space_gain(v, board, s, rolls, fill, base) - cost \
                - (0.0 if blind else v.mortgage_penalty(cost))
            if gain > best:
                best, pick = gain, i
        return pick

    @staticmethod
    def _cost(v: Seen, board: Board, s: str) -> int:
        if s in v.space_good:
            g = v.space_good[s]
            return v.seat_costs[g][len(board.crew[g])]
        return v.fixed_cost[s]

    @staticmethod
    def _space_gain(v: Seen, board: Board, s: str, rolls: int, fill: float,
                    base: float) -> float:
        b = board.copy()
        if s in v.space_good:
            b.crew[v.space_good[s]].append(v.me)
        elif s == "pirate":
            b.pirates.append(v.me)
        else:
            b.office[s] = v.me
        gain = b.worth(rolls, fill) - base
        if s == "insurance":
            gain += v.bonus
        elif s == "small_pilot":
            gain += b.best_pilot_gain((1, -1), False, 1 if rolls == 1 else rolls - 1)
        elif s == "large_pilot":
            gain += b.best_pilot_gain((2, -2, 1, -1), True, 1 if rolls == 1 else rolls - 1)
        return gain

    # --- pilots, pirates, money
    def pilot(self, v: Seen, values: list, pairs: bool = False) -> int:
        """The move that raises the seat's payoff most before the last roll (with `pairs`, a
        first move of one space counts the best second move after it); pass if none helps."""
        board = Board(v)
        base = board.worth(1, 0.0)
        best, pick = 0.01, values.index(None)
        for i, x in enumerate(values):
            if x is None or x is _ACTION:
                continue
            g, d = v.goods[x[0]], x[1]
            b = board.copy()
            b.position[g] += d
            gain = b.worth(1, 0.0) - base
            if pairs and abs(d) == 1:
                gain += b.best_pilot_gain((1, -1), False, 1, exclude=g)
            if gain > best:
                best, pick = gain, i
        return pick

    def large_pilot(self, v: Seen, values: list) -> int:
        return self.pilot(v, values, pairs=True)

    def board_boat(self, v: Seen, values: list) -> int:
        stay = Board(v).worth(1, 0.0)
        best, pick = stay, values.index(None)
        for i, x in enumerate(values):
            if x is None or x is _ACTION:
                continue
            b = Board(v)
            g = v.goods[x]
            b.pirates.remove(v.me)
            b.crew[g].append(v.me)
            w = b.worth(1, 0.0)
            if w > best:
                best, pick = w, i
        return pick

    def destination(self, v: Seen, values: list) -> int:
        g = next((x for x in v.loaded if x not in v.harbour_boats
                  and x not in v.shipyard_boats and v.position[x] == v.end), None)
        harbour_slot = v.harbours[min(len(v.harbour_boats), len(v.harbours) - 1)]
        yard_slot = v.shipyards[min(len(v.shipyard_boats), len(v.shipyards) - 1)]
        to_harbour = (v.interest(g) if g else 0) \
            + (v.office_pay[harbour_slot] if v.office.get(harbour_slot) == v.me else 0)
        to_yard = (v.office_pay[yard_slot] if v.office.get(yard_slot) == v.me else 0) \
            - (v.office_pay[yard_slot] if v.office.get("insurance") == v.me else 0)
        want = "shipyard" if to_yard > to_harbour else "harbour"
        return _argmax(values, lambda x: 1.0 if v.dests[x] == want else 0.0)

    def forced_mortgage(self, v: Seen, values: list) -> int:
        return _argmax(values, lambda x: -(v.final_value(v.goods[x]) + 0.1 * v.held(v.goods[x])))


# the decisions by their prompts in rulebooks/manila.rules (first match wins)
_HANDLERS: list[tuple[str, Any]] = [
    ("bid (or pass)", ManilaHeuristic.bid),
    ("buy one share", ManilaHeuristic.buy),
    ("stays ashore", ManilaHeuristic.ashore),
    ("start spaces", ManilaHeuristic.launch),
    ("place an accomplice", ManilaHeuristic.place),
    ("small pilot", ManilaHeuristic.pilot),
    ("large pilot: move another", ManilaHeuristic.pilot),
    ("large pilot", ManilaHeuristic.large_pilot),
    ("board a boat", ManilaHeuristic.board_boat),
    ("plundered boat", ManilaHeuristic.destination),
    ("mortgage a share", ManilaHeuristic.forced_mortgage),
]

AGENT = ManilaHeuristic
