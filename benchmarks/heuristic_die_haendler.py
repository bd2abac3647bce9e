"""A heuristic Die Händler player: a measuring stick for the bots (issue 36), written as a good
casual player plays, in plain Python.

What it knows: the printed board and tables (the rulebook's constants: roads, what each city
produces, the price table, upkeep and climbing costs, read from `program.consts`) and, of the
position, only what its seat sees: `observe(program, state, seat)` (interpreter/engine/view.py,
derived from the rulebook's visibility declarations: its own money and influence cards, every
warehouse, cargo, wagon, price and level) and the options it is offered. It never looks at
`state` otherwise (tests/test_heuristic_die_haendler.py checks that its choice is the same in
every world its seat cannot tell from the real one). One thing it remembers between decisions:
which sealed wagon auctions of the round it has already been asked (its seat hears each
auction announced; the observation does not say which wagon is under the hammer).

How it plays (seed 002 for the rules; docs/agents.md, "Heuristic anchors"):
- **Money is the engine, the ladder is the score.** A barrel bought at 100–400 sells at
  600–1,000 plus a city bonus; the levels bought in phase 6 are what wins.
- **Red cards**: it values each card (the Kontors, which move its own selling price, and the
  Wagnereien, which bring its wagons in, most) and bids the minimum step while the price is
  below that worth; the rest it takes at the minimum when they come round.
- **Buying (phase 1)**: for a wagon standing in a city (they are auctioned next), three
  barrels of the good that city produces with the best expected margin (the sell price a
  raise from now, less its buy price, plus the best bonus of a city the wagon can reach that
  does not produce it) when it can pay a bid too, and two barrels of another good beside
  another wagon, to ride as a guest. It never spends on trade the upkeep of this round (and
  of the next, once the game may end within two arrivals): who cannot pay falls to 0.
- **Wagon auctions**: where it holds barrels it can load, it bids a little over the minimum
  (more for three barrels); elsewhere it passes. Loading: as owner, its most valuable full
  load; as guest, its best two barrels; as owner it asks a guest a third of what the guest's
  barrels will fetch, and as guest pays up to 40% of what its barrels will fetch.
- **Moving**: the tile move (and Wagnerei move) that most raises the value of its own
  barrels on the wagons — each wagon priced at its best reachable city, discounted by the
  distance still to go — less half the gain it gives the others; the smaller tile among
  equals; the courier where it meets a wagon (an influence card). Achsenbruch stops the wagon
  that would pay the others most.
- **Prices (phase 4)**: the price wheel and the Kontors raise the goods it sells this round
  (never over the top of the table, which drops a good to the bottom) and drop the others'
  (a good on the top row raised again falls to the bottom); Sonder-Verkauf sells the least
  valuable stored barrel for 800; Lagerverkauf sells only in the last round.
- **Ladder (phase 6)**: in the last round it climbs as far as its money goes; before, one or
  two levels while it keeps 1,300 for the next round's trade besides that upkeep. It borrows
  only to keep a level of 2 or more, and repays a loan as soon as it can.
"""
from __future__ import annotations

import os
import re
import sys
from collections import deque
from typing import Any, Optional

from mercator.interpreter.engine.view import observe

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # anchor_tools beside it
# _ACTION marks an any-time action (repaying a loan): taken only by choose()
from anchor_tools import ACTION as _ACTION  # noqa: E402
from anchor_tools import argmax as _argmax, first_plain as _first_plain  # noqa: E402
from anchor_tools import seat_index as _seat  # noqa: E402

GAME = "Die Händler"

# worth of each red card to it, in Taler (the printed minimum is 500): seed 002 §特殊卡
RED_WORTH = {
    "grosses_kontor": 900, "grosse_wagnerei": 800, "kontor": 700, "wagnerei": 700,
    "express_kurier": 600, "guenstiger_einkauf": 600, "kurier": 500, "lagerverkauf": 400,
}
OTHERS_WEIGHT = 0.5         # what a Taler the others gain is worth to it
TRADE = 1300                # kept after climbing for the next round's barrels and wagon bid


# ----------------------------------------------------------------------------- what the seat sees
class Seen:
    """The seat's observation, as names and numbers, with the printed board."""

    def __init__(self, program: Any, state: Any, seat: int):
        obs = observe(program, state, seat)
        c = program.consts
        enums = program.rb.enums
        self.goods: tuple[str, ...] = enums["Good"].members
        self.places: tuple[str, ...] = enums["Place"].members
        self.wagons: tuple[str, ...] = enums["Wagon"].members
        self.reds: tuple[str, ...] = enums["Red"].members
        self.steps_enum: tuple[str, ...] = enums["TurnStep"].members
        self.replies: tuple[str, ...] = enums["Reply"].members
        pl, g = self.places, self.goods
        self.cities = [pl[x] for x in c["cities"]]
        self.adjacency = {pl[k]: [pl[x] for x in nb] for k, nb in enumerate(c["adjacency"])}
        self.produces = {pl[k]: {g[x] for x in v} for k, v in c["produces"].items()}
        self.buy_price: list[int] = list(c["buy_price"])
        self.sell_price: list[int] = list(c["sell_price"])
        self.top_step: int = c["top_step"]
        self.upkeep: list[int] = list(c["upkeep"])
        self.climb_cost: list[int] = list(c["climb_cost"])
        self.top_level: int = c["top_level"]
        self.card_climb_price: int = c["card_climb_price"]
        self.loan_repayment: int = c["loan_repayment"]
        self.cheap: int = c["cheap_purchase_price"]
        self.min_wagon_bid: int = c["min_wagon_bid"]
        self.step100: int = c["money_step"]
        self.special_sale: int = c["special_sale_price"]

        t = obs["table"]
        self.me = seat
        self.n = len(obs["players"])
        self.end_marker: int = c["end_marker"][self.n]
        self.round: int = obs["round"]
        self.table = t
        self.step: dict[str, int] = t["step"]
        self.bonus: dict[str, int] = t["bonus"]
        self.marker: int = t["round_marker"]
        self.wagon_at: dict[str, str] = t["wagon_at"]
        self.wagon_prev: dict[str, Optional[str]] = t["wagon_prev"]
        self.owner = {w: _seat(x) for w, x in t["wagon_owner"].items()}
        self.arrived: dict[str, bool] = t["arrived"]
        self.broken: dict[str, bool] = t["broken"]
        self.carded: dict[str, bool] = t["carded"]
        self.courier: str = t["courier"]
        self.deck_left: int = t["influence_deck"]["size"]
        self.red_queue: list[str] = t["red_queue"]
        self.players = obs["players"]
        mine = self.players[seat]
        self.money: int = mine["money"]
        self.level: int = mine["level"]
        self.loans: int = mine["loans"]
        self.red: list[str] = mine["red"]
        self.influence: dict[str, int] = mine["influence"]
        self.tiles: list[int] = mine["tiles"]
        self._obs = obs
        self.log: Optional[list[str]] = obs.get("log")     # with narration only

    def key(self) -> Any:
        """Everything the seat sees now, hashable (to tell one sealed auction from the next)."""
        return _freeze({k: v for k, v in self._obs.items() if k != "pending"})

    def last_log(self, pattern: str) -> Optional[re.Match]:
        """The last line of the seat's log matching `pattern` (None without narration)."""
        for line in reversed(self.log or []):
            m = re.search(pattern, line)
            if m:
                return m
        return None

    # --- prices
    def sell(self, good: str, step: Optional[int] = None) -> int:
        return self.sell_price[self.step[good] if step is None else step]

    def buy_cost(self, good: str) -> int:
        if "guenstiger_einkauf" in self.red:
            return self.cheap
        return self.buy_price[self.step[good]]

    def sell_later(self, good: str) -> float:
        """What a barrel of `good` is likely to fetch when it arrives: its price one raise on
        (a good on the top row may be raised over the top: half a chance of the bottom)."""
        s = self.step[good]
        if s >= self.top_step:
            return (self.sell_price[s] + self.sell_price[0]) / 2
        return float(self.sell_price[s + 1])

    def bonus_for(self, city: str, good: str) -> int:
        return 0 if good in self.produces[city] else self.bonus[city]

    # --- the round
    def start_player(self) -> int:
        return (max(self.round, 1) - 1) % self.n

    def last_round(self, after_arrivals: bool) -> bool:
        """Does the game end after this round's phase 6? (the marker moves in phase 5 when a
        wagon entered a city this round: seed 002 §遊戲結束; `after_arrivals`: asked in phase
        5 or 6, when it has moved)"""
        if after_arrivals:
            return self.marker >= self.end_marker
        return self.marker + (1 if any(self.arrived.values()) else 0) >= self.end_marker

    def keep(self, level: Optional[int] = None) -> int:
        """The money never spent on trade: this round's upkeep, and once the next arrival may
        end the game the next round's too (a round with no arrival brings nothing in, and who
        cannot pay falls to 0: seed 002 §Phase 6)."""
        upkeep = self.upkeep[self.level if level is None else level]
        return upkeep * (2 if self.marker >= self.end_marker - 2 else 1)

    def level_cost(self) -> int:
        return self.climb_cost[min(self.marker + 1, len(self.climb_cost) - 1)]

    # --- the board
    def cargo(self, p: int, w: str) -> dict[str, int]:
        return self.players[p]["cargo"][w]

    def warehouse(self, p: int, city: str) -> dict[str, int]:
        return self.players[p]["warehouse"][city]

    def city_entered(self, city: str, at: dict[str, str], arrived: dict[str, bool]) -> bool:
        return any(arrived[w] and at[w] == city for w in self.wagons)


def _freeze(x: Any) -> Any:
    if isinstance(x, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in x.items()))
    if isinstance(x, list):
        return tuple(_freeze(v) for v in x)
    return x


def city_distances(v: Seen, at: str, prev: Optional[str]) -> dict[str, int]:
    """The fewest spaces a wagon on `at`, come from `prev`, needs to enter each city (forward
    only; a city ends a move: seed 002 §Phase 3)."""
    out: dict[str, int] = {}
    seen = {(at, prev)}
    queue = deque([(at, prev, 0)])
    while queue:
        x, p, d = queue.popleft()
        for y in v.adjacency[x]:
            if y == p:
                continue
            if y in v.cities:
                if y not in out or d + 1 < out[y]:
                    out[y] = d + 1
                continue
            if (y, x) not in seen:
                seen.add((y, x))
                queue.append((y, x, d + 1))
    return out


# ----------------------------------------------------------------------------- wagons' worth
class Roads:
    """Where the wagons stand, to price hypothetical moves."""

    def __init__(self, v: Seen):
        self.v = v
        self.at = dict(v.wagon_at)
        self.prev = dict(v.wagon_prev)
        self.arrived = dict(v.arrived)

    def moved(self, w: str, route: list[str]) -> "Roads":
        r = Roads.__new__(Roads)
        r.v, r.at, r.prev, r.arrived = self.v, dict(self.at), dict(self.prev), dict(self.arrived)
        r.prev[w] = route[-2] if len(route) > 1 else self.at[w]
        r.at[w] = route[-1]
        if route[-1] in self.v.cities:
            r.arrived[w] = True
        return r

    def prospect(self, w: str, p: int) -> float:
        """What player p's barrels on wagon w are likely worth to him: the best city the wagon
        can reach, discounted by the spaces still to go (now, in a city: sold this round)."""
        v = self.v
        cargo = v.cargo(p, w)
        if not cargo:
            return 0.0
        if self.arrived[w]:
            city = self.at[w]
            return float(sum(n * (v.sell(g) + v.bonus_for(city, g)) for g, n in cargo.items()))
        best = 0.0
        for city, d in city_distances(v, self.at[w], self.prev[w]).items():
            worth = sum(n * (v.sell(g) + v.bonus_for(city, g)) for g, n in cargo.items())
            disc = max(0.3, 0.9 - 0.07 * d)
            if v.city_entered(city, self.at, self.arrived):
                disc -= 0.15          # entered already this round: not before the next
            best = max(best, worth * disc)
        return best

    def worth(self) -> float:
        """The seat's stake in the wagons less the others' (weighted)."""
        v = self.v
        total = 0.0
        for w in v.wagons:
            for p in range(v.n):
                x = self.prospect(w, p)
                total += x if p == v.me else -OTHERS_WEIGHT * x
        return total


# ----------------------------------------------------------------------------- the player
class DieHaendlerHeuristic:
    """Plays Die Händler as a good casual player: margins from the price table, bids a step
    over the minimum where it can load, moves its own wagons to the best city, climbs with
    what it can spare (see the module's docstring)."""

    name = "heuristic"

    def __init__(self, seed: Any = 0):
        self.seed = seed            # deterministic: the seed is kept for the harness only
        self._auctions: dict[int, list] = {}     # round -> the sealed auctions asked so far

    def choose(self, program: Any, state: Any) -> int:
        """The index of the option chosen at the decision pending in `state`."""
        node = state.pending
        seat = node.player
        v = Seen(program, state, seat)
        options = node.options
        values = [o.value if o.action is None else _ACTION for o in options]
        # a loan is repaid as soon as the money is there (seed 002 §Phase 6: a loan blocks
        # climbing and winning)
        if _ACTION in values and v.loans > 0 and v.money >= v.loan_repayment:
            return values.index(_ACTION)
        prompt = node.prompt_for(seat)
        for key, how in _HANDLERS:
            if key in prompt:
                return how(self, v, values)
        return _first_plain(values)

    # --- setup: the red cards (seed 002 §特殊卡)
    def red_bid(self, v: Seen, values: list) -> int:
        card = v.red_queue[0]
        worth = RED_WORTH.get(card, 500)
        want = min(x for x in values if x is not None and x is not _ACTION) \
            if any(x is not None and x is not _ACTION for x in values) else None
        if want is not None and want <= worth:
            return values.index(want)
        return values.index(None)

    def red_pick(self, v: Seen, values: list) -> int:
        return _argmax(values, lambda x: RED_WORTH.get(v.reds[x], 500))

    # --- phase 1: buying
    def margin(self, v: Seen, good: str, city: str) -> float:
        """A barrel's expected margin bought now for a wagon leaving `city`."""
        dists = city_distances(v, city, None)
        bonus = max([v.bonus_for(c, good) + 100 for c, d in dists.items() if d <= 6] + [0])
        return v.sell_later(good) + 0.7 * bonus - v.buy_cost(good)

    def plan(self, v: Seen) -> list[tuple[str, str, int]]:
        """The barrels it wants in the warehouses now: (city, good, how many) — a full load
        for the wagon it will bid for (if it can pay the bid too), then a pair beside another
        wagon, to ride as a guest."""
        cities = [v.wagon_at[w] for w in v.wagons if v.wagon_at[w] in v.cities]
        if not cities:
            return []
        best: list[tuple[float, str, str]] = []
        for city in dict.fromkeys(cities):
            for good in sorted(v.produces[city]):
                best.append((self.margin(v, good, city), city, good))
        best.sort(reverse=True)
        _, city, good = best[0]
        spare = v.money - v.keep()
        want = []
        if spare >= v.min_wagon_bid + 3 * v.buy_cost(good):
            want.append((city, good, 3))
        for _, c2, g2 in best[1 if want else 0:]:
            if (c2, g2) != (city, good) or not want:
                if not want or c2 != city:
                    want.append((c2, g2, 2))
                    break
        return want

    def buy(self, v: Seen, values: list) -> int:
        bidding = any(n == 3 for _, _, n in self.plan(v))
        reserve = v.keep() + (v.min_wagon_bid if bidding else 0)
        for city, good, count in self.plan(v):
            if v.warehouse(v.me, city).get(good, 0) >= count:
                continue
            if v.money - v.buy_cost(good) < reserve:
                break
            for i, x in enumerate(values):
                if x is not None and x is not _ACTION \
                        and (v.goods[x[0]], v.places[x[1]]) == (good, city):
                    return i
        return values.index(None)

    # --- phase 2: the wagons
    def auctioned_wagon(self, v: Seen) -> Optional[str]:
        """The wagon under the hammer: announced in the seat's log ("auction of wagon2 in
        koeln"); without narration, the k-th wagon standing in a city, in number order, at the
        k-th sealed auction of the round it is asked (seed 002 §Phase 2: 由一號馬車依序拍賣)."""
        m = v.last_log(r"auction of (\w+) in")
        if v.log is not None:
            return m.group(1) if m else None
        seen = self._auctions.setdefault(v.round, [])
        key = v.key()
        if key not in seen:
            seen.append(key)
        k = seen.index(key)
        in_city = [w for w in v.wagons if v.wagon_at[w] in v.cities]
        return in_city[k] if k < len(in_city) else None

    def loadable(self, v: Seen, w: str) -> list[int]:
        """How many barrels of each good it could load on w as its owner."""
        city = v.wagon_at[w]
        out = []
        for good, n in v.warehouse(v.me, city).items():
            if n and not any(p != v.me and v.cargo(p, w).get(good) for p in range(v.n)):
                out.append(min(3, n + v.cargo(v.me, w).get(good, 0)))
        return out

    def wagon_bid(self, v: Seen, values: list) -> int:
        w = self.auctioned_wagon(v)
        if w is None:
            return values.index(None)
        load = max(self.loadable(v, w) + [0])
        if load < 2:
            return values.index(None)
        bid = v.min_wagon_bid + (200 if load >= 3 else 0)
        if v.start_player() == v.me:
            bid -= 100              # ties go to the start player
        bid = max(v.min_wagon_bid, bid)
        bid = min(bid, v.money - v.keep())
        bid -= bid % v.step100
        if bid in values:
            return values.index(bid)
        return values.index(None)

    def own_load(self, v: Seen, values: list) -> int:
        return _argmax(values, lambda x: x[1] * v.sell_later(v.goods[x[0]]))

    def guest_ask(self, v: Seen, values: list) -> int:
        return _argmax(values, lambda x: sum(v.sell_later(v.goods[g]) for g in x))

    def name_fee(self, v: Seen, values: list) -> int:
        """A third of what the guest's barrels will fetch (the barrels he asked to load, read
        from the log; a pair of middling barrels without narration)."""
        m = v.last_log(r"chooses \[([a-z, ]*)\]\s+\(ask to load")
        goods = [g.strip() for g in m.group(1).split(",")] if m else ["", ""]
        worth = sum(v.sell_later(g) + 100 if g in v.step else 900.0 for g in goods if g != "")
        return _argmax(values, lambda x: -abs(x - worth / 3))

    def accept_fee(self, v: Seen, values: list) -> int:
        """Pays up to 40% of what its barrels will fetch (the fee from the log; without
        narration it cannot see the fee, and pays it while it has 1,000 to spare)."""
        yes, no = v.replies.index("yes"), v.replies.index("no")
        if yes not in values:
            return values.index(no)
        fee = v.last_log(r"asks (\d+) of P%d" % (v.me + 1))
        ask = v.last_log(r"P%d chooses \[([a-z, ]*)\]" % (v.me + 1))
        if fee is None or ask is None:
            return values.index(yes if v.money >= v.keep() + 1000 else no)
        goods = [g.strip() for g in ask.group(1).split(",") if g.strip()]
        worth = sum(v.sell_later(g) + 100 for g in goods)
        price = int(fee.group(1))
        return values.index(yes if price <= 0.4 * worth and v.money - price >= v.keep() else no)

    # --- phase 3: moving
    def turn(self, v: Seen, values: list) -> int:
        menu = {v.steps_enum[x]: i for i, x in enumerate(values) if x is not _ACTION}
        if "move_with_tile" in menu:
            return menu["move_with_tile"]
        roads = Roads(v)
        for ability, n in (("use_grosse_wagnerei", 2), ("use_wagnerei", 1)):
            if ability in menu and self._best_drive(v, roads, n)[1] > 1.0:
                return menu[ability]
        for ability in ("use_express_kurier", "use_kurier"):
            if ability in menu and v.deck_left > 0:
                return menu[ability]
        return menu.get("end_turn", 0)

    def _best_drive(self, v: Seen, roads: Roads, n: int) -> tuple[Optional[tuple], float]:
        base = roads.worth()
        best: tuple[Optional[tuple], float] = (None, 0.0)
        for w in v.wagons:
            if roads.arrived[w] or v.broken[w]:
                continue
            for route in _routes(v, roads, w, n):
                gain = roads.moved(w, route).worth() - base
                if gain > best[1]:
                    best = ((w, route), gain)
        return best

    def tile_move(self, v: Seen, values: list) -> int:
        roads = Roads(v)
        base = roads.worth()

        def score(x: Any) -> float:
            tile, w, route = x[0], v.wagons[x[1]], [v.places[y] for y in x[2]]
            gain = roads.moved(w, route).worth() - base
            if v.courier in route and not v.carded[w] and v.deck_left > 0:
                gain += 250
            return gain - 20 * tile
        return _argmax(values, score)

    def drive(self, v: Seen, values: list) -> int:
        roads = Roads(v)
        base = roads.worth()
        best, pick = 1.0, values.index(None)
        for i, x in enumerate(values):
            if x is None or x is _ACTION:
                continue
            gain = roads.moved(v.wagons[x[0]], [v.places[y] for y in x[1]]).worth() - base
            if gain > best:
                best, pick = gain, i
        return pick

    def courier(self, v: Seen, values: list) -> int:
        for i, x in enumerate(values):
            if x is None or x is _ACTION:
                continue
            place = v.places[x]
            if v.deck_left > 0 and any(v.wagon_at[w] == place and not v.carded[w]
                                       for w in v.wagons):
                return i
        return values.index(None)

    def axle(self, v: Seen, values: list) -> int:
        roads = Roads(v)
        best, pick = 400.0, values.index(None)
        for i, x in enumerate(values):
            if x is None or x is _ACTION:
                continue
            w = v.wagons[x]
            harm = sum(roads.prospect(w, p) for p in range(v.n) if p != v.me) \
                - 2 * roads.prospect(w, v.me)
            if harm > best:
                best, pick = harm, i
        return pick

    # --- phase 4: prices
    def price_worth(self, v: Seen, steps: dict[str, int]) -> float:
        """Its barrels' worth less the others' at these price rows: those selling this round in
        full, those on the road or in a warehouse a little."""
        total = 0.0
        for p in range(v.n):
            weight = 1.0 if p == v.me else -OTHERS_WEIGHT
            for w in v.wagons:
                now = 1.0 if v.arrived[w] else 0.2
                for g, n in v.cargo(p, w).items():
                    total += weight * now * n * v.sell_price[steps[g]]
        return total

    def dial(self, v: Seen, values: list) -> int:
        def score(x: Any) -> float:
            steps = dict(v.step)
            for k in x:
                g = v.goods[k]
                steps[g] = 0 if steps[g] >= v.top_step else steps[g] + 1
            return self.price_worth(v, steps) - 0.01 * len(x)
        return _argmax(values, score)

    def kontor(self, v: Seen, values: list) -> int:
        base = self.price_worth(v, v.step)
        best, pick = 1.0, values.index(None)
        for i, x in enumerate(values):
            if x is None or x is _ACTION:
                continue
            steps = dict(v.step)
            g = v.goods[x[0]]
            steps[g] = (steps[g] + x[1]) % (v.top_step + 1)
            gain = self.price_worth(v, steps) - base
            if gain > best:
                best, pick = gain, i
        return pick

    def warehouse_sale(self, v: Seen, values: list) -> int:
        if not v.last_round(after_arrivals=False):
            return values.index(None)
        return _argmax(values, lambda x: v.buy_price[v.step[v.goods[x[0]]]])

    def special_sale(self, v: Seen, values: list) -> int:
        return _argmax(values, lambda x: -v.sell(v.goods[x[0]]))

    # --- phases 5 and 6
    def yes(self, v: Seen, values: list) -> int:
        return values.index(v.replies.index("yes"))

    def loan(self, v: Seen, values: list) -> int:
        take = v.level >= 2 and not v.last_round(after_arrivals=True)
        return values.index(v.replies.index("yes" if take else "no"))

    def climb(self, v: Seen, values: list) -> int:
        cost = v.level_cost()
        last = v.last_round(after_arrivals=True)

        def price(x: Any) -> int:
            levels, card = x[0], x[1]
            if levels == 0:
                return 0
            return (v.card_climb_price + (levels - 1) * cost) if card else levels * cost

        def score(x: Any) -> float:
            levels, p = x[0], price(x)
            if last:
                return levels * 100000 - p
            keep = TRADE + v.keep(min(v.top_level, v.level + levels))
            if levels and v.money - p < keep:
                return -1e9
            return levels * 100000 - p
        return _argmax(values, score, plain_only=False)


def _routes(v: Seen, roads: Roads, w: str, n: int) -> list[list[str]]:
    """Every route of n spaces for wagon w (a city ends a move; no stopping where a wagon
    stands or in a city entered this round)."""
    out: list[list[str]] = []

    def walk(x: str, prev: Optional[str], left: int, path: list[str]) -> None:
        if left == 0 or (path and x in v.cities):
            last = path[-1]
            if last in v.cities:
                if not v.city_entered(last, roads.at, roads.arrived):
                    out.append(path)
            elif not any(roads.at[u] == last for u in v.wagons):
                out.append(path)
            return
        for y in v.adjacency[x]:
            if y != prev:
                walk(y, x, left - 1, path + [y])
    walk(roads.at[w], roads.prev[w], n, [])
    return out


# the decisions by their prompts in rulebooks/die_haendler.rules and lib/auction.rules
_HANDLERS: list[tuple[str, Any]] = [
    ("take a red card", DieHaendlerHeuristic.red_pick),
    ("sealed bid", DieHaendlerHeuristic.wagon_bid),
    ("bid (or pass)", DieHaendlerHeuristic.red_bid),
    ("buy a barrel", DieHaendlerHeuristic.buy),
    ("load up to 3 barrels", DieHaendlerHeuristic.own_load),
    ("ask to load", DieHaendlerHeuristic.guest_ask),
    ("Kostenlose Zuladung", DieHaendlerHeuristic.yes),
    ("name the fee", DieHaendlerHeuristic.name_fee),
    ("pay the fee", DieHaendlerHeuristic.accept_fee),
    ("Achsenbruch", DieHaendlerHeuristic.axle),
    ("your turn", DieHaendlerHeuristic.turn),
    ("move a wagon: tile", DieHaendlerHeuristic.tile_move),
    ("Wagnerei", DieHaendlerHeuristic.drive),
    ("Kurier", DieHaendlerHeuristic.courier),
    ("price wheel", DieHaendlerHeuristic.dial),
    ("Kontor", DieHaendlerHeuristic.kontor),
    ("Lagerverkauf", DieHaendlerHeuristic.warehouse_sale),
    ("Sonder-Verkauf", DieHaendlerHeuristic.special_sale),
    ("Verkauf mit Bonus", DieHaendlerHeuristic.yes),
    ("take a loan", DieHaendlerHeuristic.loan),
    ("climb", DieHaendlerHeuristic.climb),
]

AGENT = DieHaendlerHeuristic
