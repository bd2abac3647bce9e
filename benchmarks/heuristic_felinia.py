"""A heuristic Felinia player: a measuring stick for the bots (issue 36), written as a good casual
player plays, in plain Python.

What it knows: the printed game (the rulebook's constants: ship tiles, the island's roads and
yields, the trade tokens' printed maxima, the money rules, read from `program.consts`) and, of the
position, only what its seat sees: `observe(program, state, seat)` (interpreter/engine/view.py,
derived from the rulebook's visibility declarations: the markets, the discs, the ships in port,
the trade posts and where face-down tokens lie, every player's goods, cards, tokens and silver)
and the options it is offered. The face-down tokens' values and the order of the ship deck are
secret: it counts which values are still unseen (each colour's printed list less those turned up
or taken) and takes every face-down token of a colour as equally likely to be any of them. It
never looks at `state` otherwise (tests/test_heuristic_felinia.py checks that its choice is the
same in every world its seat cannot tell from the real one). Its only memory is how many of its
own moves a landing merchant has left (the rules do not show it; it counts its own moves).

How it plays (seed 004 for the rules; docs/agents.md, "Heuristic anchors"):
- **A landing** is worth what its best walk brings: it searches the merchant's up to 3 moves
  (walk a road, reveal 2 tokens of the country, stop) with the expected value of every reveal
  over the unseen token values, and scores where it stops: the region's yield (gold 1 point,
  spice half, silver, a good), and on a trade post the token (what it adds to its set of that
  colour, seed 004 §遊戲結束 5) and the merchant that stays (what it adds to its connected group,
  n × n, §遊戲結束 4). It never walks back into a harbour.
- **Ships**: a merchant aboard lands sooner or later (the earliest ship sails every day, and all
  sail at the end), so a boarding is worth its landing less its silver; it boards the best seat
  (the bow lands first) whenever that is worth it.
- **Goods** are worth what they bring a boarding nearer: for each ship in port with a free seat,
  its landing value discounted by how many of its goods are still missing; a good's value is
  what it adds to the best such ship (and a point at the end, as a casual player keeps 3).
- **Discs**: each goes where it gains most: the market row whose best good for it is worth more
  than its price (the discs already there plus one, paid in silver it values by how short it
  is), the guild (its least useful good swapped for the most useful one in the bag, plus a
  spice), or income (+1, +2, +3 silver for the 1st, 2nd, 3rd disc). It counts the silver its
  discs already commit today and never places where it could not pay.
- **Money**: it sells (gold, spice, a useless good) only to pay for a purchase, a trade or a
  boarding worth more than what it sells; it pays for a 4th good in storage when that good is
  worth more than the silver; it takes a bonus card when the set points it adds beat the gold
  and spice it costs.
"""
from __future__ import annotations

import itertools
import os
import sys
from collections import Counter
from typing import Any, Optional

from mercator.interpreter.engine.view import observe

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # anchor_tools beside it
# _ACTION marks an any-time sale: taken only to pay for something worth it
from anchor_tools import ACTION as _ACTION  # noqa: E402
from anchor_tools import argmax as _argmax, first_plain as _first_plain  # noqa: E402
from anchor_tools import seat_index as _seat  # noqa: E402

GAME = "Felinia"

# what things are worth to it, in points (a point is a point of the final score)
GOLD = 1.0
SPICE = 0.55                 # half a point, and the spice of a bonus card
GOOD_END = 0.45              # a good kept to the end is a point; it rarely keeps many
SILVER = 0.45                # a silver buys about half a good
SEAT_FIRST = 0.4             # landing before the others on the same ship
UNTAKEN_POST = 0.3           # a token it turns up and leaves to the others
MISSING = (1.0, 0.55, 0.3, 0.15, 0.07)   # a ship's worth, by the goods still missing


_DIST: dict[int, tuple[Any, dict]] = {}     # the island's distances, by program


# ----------------------------------------------------------------------------- what the seat sees
class Seen:
    """The seat's observation, as plain names and numbers, with the printed game."""

    def __init__(self, program: Any, state: Any, seat: int):
        obs = observe(program, state, seat)
        c = program.consts
        enums = program.rb.enums
        self.goods: tuple[str, ...] = enums["Good"].members
        self.colours: tuple[str, ...] = enums["Colour"].members
        self.spots: tuple[str, ...] = enums["Spot"].members
        self.regions: tuple[str, ...] = enums["Region"].members
        self.kinds: tuple[str, ...] = enums["MoveKind"].members
        yields = enums["Yield"].members
        gd, co, rg = self.goods, self.colours, self.regions
        self.tiles = [{"time": t[0], "dest": co[t[1]], "seats": t[2],
                       "goods": {gd[k]: n for k, n in t[3].items()}, "silver": t[4]}
                      for t in c["ship_tiles"]]
        self.nb: dict[str, list[str]] = {r: [] for r in rg}
        for a, b in c["roads"]:
            self.nb[rg[a]].append(rg[b])
            self.nb[rg[b]].append(rg[a])
        key = id(program)
        if key not in _DIST or _DIST[key][0] is not program:
            _DIST[key] = (program, self._distances(self.nb))
        self.dist = _DIST[key][1]
        self.harbour = {co[k]: rg[v] for k, v in c["harbour"].items()}
        self.harbours = set(self.harbour.values())
        self.colour_of: dict[str, str] = {h: col for col, h in self.harbour.items()}
        for k, rs in c["trade_spaces"].items():
            for r in rs:
                self.colour_of[rg[r]] = co[k]
        self.yields = {rg[k]: yields[v] for k, v in c["region_yield"].items()}
        self.caps = {co[k]: list(v) for k, v in c["token_caps"].items()}
        self.income: list[int] = list(c["income_by_disc"])
        self.max_silver: int = c["max_silver"]
        self.moves: int = c["moves_per_landing"]
        self.per_reveal: int = c["tokens_per_reveal"]
        self.free_storage: int = c["free_storage"]
        self.fee: int = c["storage_fee"]
        self.gold_value: int = c["gold_value"]
        self.card_spice: int = c["bonus_card_spice"]
        self.card_gold: int = c["bonus_card_gold"]
        self.spice_per_point: int = c["spices_per_point"]

        t = obs["table"]
        self.me = seat
        self.round: int = obs["round"]
        self.bag: dict[str, int] = t["bag"]
        self.market: dict[str, dict[str, int]] = t["market"]
        self.open_rows = [r for r in self.spots if r in self.market
                          and r not in _closed(c, self.spots, len(obs["players"]))]
        self.stacks = {k: [_seat(x) for x in v] for k, v in t["stacks"].items()}
        self.bonus_supply: dict[str, int] = t["bonus_supply"]
        self.deck: int = t["ship_deck"]["size"]
        self.ships = t["ships"]
        self.covered: list[str] = list(t["covered"])
        self.face_up: list[dict] = t["face_up"]
        self.occupant = {r: _seat(p) for r, p in t["occupant"].items()}
        self.walker = _seat(t["walker"])
        self.walker_at: Optional[str] = t["walker_at"]
        self.ending: bool = bool(t["last_merchant_boarded"] or t["fleet_exhausted"])
        self.players = obs["players"]
        mine = self.players[seat]
        self.silver: int = mine["silver"]
        self.my_goods: Counter = Counter({g: n for g, n in mine["goods"].items() if n})
        self.gold: int = mine["gold"]
        self.spice: int = mine["spice"]
        self.merchants: int = mine["merchants"]
        self.discs_used: int = mine["discs_used"]
        self.tokens: list[dict] = mine["tokens"]
        self.bonus: dict[str, int] = mine["bonus"]
        self._landing: dict[str, float] = {}
        self._stops: dict[tuple, float] = {}
        self._sets: dict[tuple, float] = {}
        self._groups: dict[str, float] = {}
        self._reach: dict[tuple, list[str]] = {}
        # the face-down tokens' values not yet seen, by colour
        seen_caps: dict[str, list[int]] = {col: [] for col in self.colours}
        for tok in self.face_up:
            seen_caps[tok["colour"]].append(tok["cap"])
        for p in self.players:
            for tok in p["tokens"]:
                seen_caps[tok["colour"]].append(tok["cap"])
        self.pool: dict[str, tuple[int, ...]] = {}
        for col in self.colours:
            left = Counter(self.caps[col])
            left.subtract(seen_caps[col])
            self.pool[col] = tuple(sorted(left.elements()))

    # --- the game's clock
    def last_day(self) -> bool:
        """Does the game end after this day (a last merchant boarded, or no ship tile left to
        refill a berth: seed 004 §遊戲流程)?"""
        return self.ending or self.deck == 0

    # --- ships
    def in_port(self, i: int) -> bool:
        """Is a ship on berth i (0-based) in the harbour this day?"""
        s = self.ships[i]
        return s["tile"] >= 0 and not s["departed"]

    def tile(self, i: int) -> dict:
        """The ship tile on berth i."""
        return self.tiles[self.ships[i]["tile"]]

    def open_ships(self) -> list[int]:
        """The berths whose ship is in port with a free seat."""
        return [i for i in range(len(self.ships))
                if self.in_port(i) and any(x is None for x in self.ships[i]["seats"])]

    # --- money
    def liquid(self, goods: Optional[Counter] = None) -> int:
        """The silver it could raise at once by selling everything (capped at 6)."""
        goods = self.my_goods if goods is None else goods
        return min(self.max_silver, self.silver + self.gold_value * self.gold + self.spice
                   + sum(goods.values()))

    # --- the island
    def may_stop(self, r: str) -> bool:
        """May a merchant end his walk on r (nobody stays there)?"""
        return r not in self.occupant

    def stop_within(self, r: str, k: int) -> bool:
        """A region where a merchant may stop lies within k steps of r (r included)."""
        frontier, seen = {r}, {r}
        for _ in range(k + 1):
            if any(self.may_stop(q) for q in frontier):
                return True
            nxt = {q for x in frontier for q in self.nb[x]} - seen
            seen |= nxt
            frontier = nxt
        return False

    def walkable(self, r: str, moves: int) -> list[str]:
        """Where one step from r may go with `moves` moves left (the rulebook's walkable)."""
        return [q for q in self.nb[r] if self.stop_within(q, moves - 1)]

    def distance(self, a: str, b: str) -> int:
        """Steps along the roads from a to b."""
        return self.dist[a][b]

    @staticmethod
    def _distances(nb: dict[str, list[str]]) -> dict[str, dict[str, int]]:
        return {a: {b: Seen._bfs(nb, a, b) for b in nb} for a in nb}

    @staticmethod
    def _bfs(nb: dict[str, list[str]], a: str, b: str) -> int:
        frontier, seen, d = {a}, {a}, 0
        while frontier:
            if b in frontier:
                return d
            frontier = {q for x in frontier for q in nb[x]} - seen
            seen |= frontier
            d += 1
        return 99

    # --- what the end of a walk is worth
    def yield_value(self, r: str) -> float:
        """What the region's yield is worth to it (seed 004 §遊戲回合 3))."""
        y = self.yields[r]
        if y == "gold":
            return GOLD
        if y == "spice":
            return SPICE
        if y == "silver":
            return SILVER if self.silver < self.max_silver else 0.0
        if y == "good":
            return GOOD_END + 0.2 if sum(self.bag.values()) else 0.0
        return 0.0

    def set_gain(self, colour: str, cap: Optional[int], extra: int = 1) -> float:
        """The set points (seed 004 §遊戲結束 5) a token of `colour` with maximum `cap` adds (or,
        with cap None, a bonus card of that colour)."""
        mine = [t["cap"] for t in self.tokens if t["colour"] == colour]
        m = len(mine) + self.bonus.get(colour, 0)
        before = sum(min(m, c) for c in mine)
        after = sum(min(m + extra, c) for c in mine) + (min(m + extra, cap) if cap else 0)
        return after - before

    def group_gain(self, r: str) -> float:
        """The merchant points (seed 004 §遊戲結束 4: a group of n scores n × n) a merchant of
        its own staying on r adds."""
        own = {q for q, p in self.occupant.items() if p == self.me}
        seen: set[str] = set()
        sizes = []
        for q in self.nb[r]:
            if q in own and q not in seen:
                group, todo = {q}, [q]
                while todo:
                    x = todo.pop()
                    for y in self.nb[x]:
                        if y in own and y not in group:
                            group.add(y)
                            todo.append(y)
                seen |= group
                sizes.append(len(group))
        n = 1 + sum(sizes)
        return n * n - sum(s * s for s in sizes)

    def post_at(self, r: str) -> Optional[int]:
        """The value of the face-up token on r, if one lies there."""
        for t in self.face_up:
            if t["at"] == r:
                return t["cap"]
        return None

    def stop_value(self, r: str, revealed: tuple) -> float:
        """What stopping on r is worth: its yield, and on a trade post the token and the
        merchant that stays; less a little for each token turned up and left to the others."""
        key = (r, revealed)
        if key in self._stops:
            return self._stops[key]
        v = self.yield_value(r)
        cap = self.post_at(r)
        if cap is None:
            cap = dict(revealed).get(r)
        if cap is not None and r not in self.occupant:
            col = self.colour_of[r]
            if (col, cap) not in self._sets:
                self._sets[col, cap] = self.set_gain(col, cap)
            if r not in self._groups:
                self._groups[r] = self.group_gain(r)
            v += self._sets[col, cap] + self._groups[r] + 0.3
        v -= UNTAKEN_POST * sum(1 for q, _ in revealed if q != r)
        self._stops[key] = v
        return v

    def reachable(self, r: str, moves: int) -> list[str]:
        """The regions where a merchant on r with `moves` moves may end his walk (r itself if
        he may stop there), never entering a harbour."""
        key = (r, moves)
        if key not in self._reach:
            seen, frontier = {r}, {r}
            for _ in range(moves):
                frontier = {q for x in frontier for q in self.nb[x]
                            if q not in self.harbours} - seen
                seen |= frontier
            self._reach[key] = sorted(q for q in seen if self.may_stop(q))
        return self._reach[key]

    def walk_value(self, r: str, moves: int, memo: Optional[dict] = None,
                   ) -> tuple[float, Any]:
        """The best expected value of the rest of a landing from region r with `moves` moves
        left, and the first action of that walk: ("stop",), ("walk", q) or ("reveal", regions).
        It turns tokens up at most once in a landing."""
        memo = {} if memo is None else memo
        key = (r, moves)
        if key in memo:
            return memo[key]
        best: tuple[float, Any] = (-1e9, ("stop",))
        if self.may_stop(r):
            best = (self.stop_value(r, ()), ("stop",))
        if moves > 0:
            for q in self.walkable(r, moves):
                if q in self.harbours:
                    continue
                v = self.walk_value(q, moves - 1, memo)[0]
                if v > best[0] + 1e-9:
                    best = (v, ("walk", q))
            col = self.colour_of[r]
            hidden = [q for q in self.covered if self.colour_of[q] == col]
            n = min(self.per_reveal, len(hidden))
            if n > 0 and self.stop_within(r, moves - 1):
                for subset in self.reveal_choices(r, moves - 1, hidden, n):
                    v = self.reveal_value(r, moves - 1, subset)
                    if v > best[0] + 1e-9:
                        best = (v, ("reveal", subset))
        memo[key] = best
        return best

    def reveal_choices(self, r: str, moves: int, hidden: list[str], n: int) -> list[tuple]:
        """The sets of face-down tokens worth turning up: those it could still reach, filled up
        with the farthest others (the least use to the next merchant to land)."""
        near = [q for q in hidden if self.distance(r, q) <= moves]
        far = sorted((q for q in hidden if q not in near),
                     key=lambda q: (-self.distance(self.harbour[self.colour_of[q]], q), q))
        if len(near) >= n:
            return [tuple(s) for s in itertools.combinations(near, n)]
        return [tuple(near + far[:n - len(near)])]

    def reveal_value(self, r: str, moves: int, subset: tuple) -> float:
        """The expected value of turning up the tokens on `subset` from r, `moves` moves left
        after it, over the values still unseen in that colour, then ending the walk where it
        is worth most."""
        pool = list(self.pool[self.colour_of[r]])
        draws = Counter(itertools.permutations(pool, len(subset)))
        total = sum(draws.values())
        if not total:
            return -1e9
        ends = self.reachable(r, moves)
        if not ends:
            return -1e9
        v = 0.0
        for caps, k in draws.items():
            rev = tuple(sorted(zip(subset, caps)))
            v += k * max(self.stop_value(q, rev) for q in ends)
        return v / total

    def landing(self, colour: str) -> float:
        """What a merchant landing now at the harbour of `colour` is worth (its best walk)."""
        if colour not in self._landing:
            self._landing[colour] = max(0.0, self.walk_value(self.harbour[colour], self.moves)[0])
        return self._landing[colour]

    # --- what goods are worth
    def ship_worth(self, i: int, seat: int) -> float:
        """What boarding berth i's ship on `seat` (0: the bow) is worth, its silver paid."""
        t = self.tile(i)
        v = self.landing(t["dest"]) + (SEAT_FIRST if seat == 0 else 0.0) - SILVER * t["silver"]
        return v

    def plan_value(self, goods: Counter, silver: Optional[int] = None) -> float:
        """What holding `goods` is worth: the best ship in port they bring nearer (its worth
        discounted by the goods still missing), and a little for each good kept to the end."""
        if self.merchants == 0:
            best = 0.0
        else:
            silver = self.silver if silver is None else silver
            best = 0.0
            for i in self.open_ships():
                t = self.tile(i)
                seat = self.ships[i]["seats"].index(None)
                missing = sum(max(0, n - goods.get(g, 0)) for g, n in t["goods"].items())
                missing += max(0, t["silver"] - silver) // 2
                w = self.ship_worth(i, seat) * MISSING[min(missing, len(MISSING) - 1)]
                best = max(best, w)
        end = GOOD_END * (2.0 if self.last_day() else 1.0)
        return best + end * min(sum(goods.values()), self.free_storage + 1)

    def good_gain(self, goods: Counter, g: str) -> float:
        """What one more good g adds to holding `goods`."""
        more = goods.copy()
        more[g] += 1
        return self.plan_value(more) - self.plan_value(goods)

    def silver_value(self) -> float:
        """A silver's worth: more when short (the 6-silver cap makes the last ones worth less),
        nothing on the last day once its purchases are paid."""
        return SILVER * (1.3 if self.silver <= 1 else 1.0 if self.silver <= 3 else 0.7)


def _closed(c: Any, spots: tuple, n: int) -> set:
    return {spots[k] for k in c["closed_rows"].get(n, [])}


# ----------------------------------------------------------------------------- the player
class FeliniaHeuristic:
    """Plays Felinia as a good casual player: boards whenever a landing is worth it, buys and
    trades the goods that bring a boarding nearer, walks its landed merchants to the best
    trade post by the odds of the unseen tokens (see the module's docstring)."""

    name = "heuristic"

    def __init__(self, seed: Any = 0):
        self.seed = seed            # deterministic: the seed is kept for the harness only
        self._moves: dict[tuple, int] = {}   # its own landing merchant's moves left, by position

    def choose(self, program: Any, state: Any) -> int:
        """The index of the option chosen at the decision pending in `state`."""
        node = state.pending
        seat = node.player
        v = Seen(program, state, seat)
        values = [o.value if o.action is None else _ACTION for o in node.options]
        actions = [o.label if o.action is not None else None for o in node.options]
        prompt = node.prompt_for(seat)
        for key, how in _HANDLERS:
            if key in prompt:
                return how(self, v, values, actions)
        return _first_plain(values)

    # --- selling to pay
    def _sell_for(self, v: Seen, actions: list, goods_kept: Counter) -> tuple[int, float]:
        """The any-time sale that loses least (index, points lost), or (-1, inf)."""
        best, pick = float("inf"), -1
        for i, a in enumerate(actions):
            if a is None:
                continue
            if a.startswith("sell_gold"):
                loss = GOLD / min(v.gold_value, v.max_silver - v.silver)
            elif a.startswith("sell_spice"):
                loss = 1.0 / v.spice_per_point if v.spice % v.spice_per_point == 0 else 0.05
            elif a.startswith("sell_good("):
                g = a[len("sell_good("):-1]
                if v.my_goods.get(g, 0) <= 0:
                    continue
                less = v.my_goods.copy()
                less[g] -= 1
                less = +less
                loss = v.plan_value(v.my_goods) - v.plan_value(less)
                loss = max(loss, 0.0)
                if goods_kept.get(g, 0) >= v.my_goods.get(g, 0):
                    loss = float("inf")     # it needs every one of these
            else:
                continue
            if loss < best:
                best, pick = loss, i
        return pick, best

    # --- 1) discs
    def place(self, v: Seen, values: list, actions: list) -> int:
        """Place a disc where it gains most: a market row, the guild or income."""
        goods = v.my_goods.copy()
        committed = 0
        mine_on = []
        for spot, stack in v.stacks.items():
            for k, p in enumerate(stack):
                if p == v.me:
                    committed += k + 1
                    mine_on.append(spot)
        # the goods its discs already placed today will probably bring
        for spot in mine_on:
            if spot in v.market and v.market[spot]:
                g = max(v.market[spot], key=lambda x: v.good_gain(goods, x))
                goods[g] += 1
        base = v.plan_value(goods)
        sv = v.silver_value()
        free = v.silver - committed
        liquid = v.liquid(goods) - committed
        best, pick = -1e9, 0
        for i, x in enumerate(values):
            if x is None or x is _ACTION:
                continue
            spot = v.spots[x]
            if spot == "income":
                gain = min(v.max_silver, v.silver + v.income[v.discs_used]) - v.silver
                value = gain * sv * (0.5 if v.last_day() and free >= 2 else 1.0)
            else:
                price = len(v.stacks.get(spot, [])) + 1
                if price > liquid:
                    continue
                short = max(0, price - max(0, free))
                if spot == "guild":
                    value = self._trade_gain(v, goods, base) - price * sv - short * 0.5
                else:
                    row = Counter(v.market.get(spot, {}))
                    taken_by_me = mine_on.count(spot)
                    left = sum(row.values()) - taken_by_me
                    if left <= 0:
                        continue
                    gains = sorted((v.plan_value(goods + Counter({g: 1})) - base for g in row
                                    if row[g] > 0), reverse=True)
                    value = gains[0] if gains else 0.0
                    if row.most_common(1)[0][1] < 2 and left < 3:
                        value *= 0.85       # someone placing above may take it first
                    value -= price * sv + short * 0.5
            if value > best:
                best, pick = value, i
        return pick

    def _trade_gain(self, v: Seen, goods: Counter, base: float) -> float:
        """The best guild trade's worth: a good it holds swapped for one in the bag, + a spice."""
        if not goods:
            return -1e9
        best = -1e9
        for g in goods:
            less = goods.copy()
            less[g] -= 1
            less = +less
            for t, n in v.bag.items():
                if n <= 0 or t == g:
                    continue
                best = max(best, v.plan_value(less + Counter({t: 1})) - base)
        return max(best, 0.0) + SPICE

    # --- 2) buying and trading
    def _current(self, v: Seen) -> tuple[str, int]:
        for row in v.open_rows + ["guild"]:
            if v.stacks.get(row):
                return row, len(v.stacks[row])
        return "guild", 1

    def buy(self, v: Seen, values: list, actions: list) -> int:
        """Buy the good worth most over its price, or pass; sell first if short of silver."""
        row, price = self._current(v)
        sv = v.silver_value()
        best, pick = 0.05, values.index(None)
        for i, x in enumerate(values):
            if x is None or x is _ACTION:
                continue
            gain = v.good_gain(v.my_goods, v.goods[x]) - price * sv
            if gain > best:
                best, pick = gain, i
        if v.silver < price:
            # it cannot pay yet: would a sale make a purchase worth it?
            cand = [(v.good_gain(v.my_goods, g), g) for g, n in v.market.get(row, {}).items()
                    if n > 0]
            if cand:
                gain, g = max(cand)
                sale, loss = self._sell_for(v, actions, Counter({g: 1}))
                if sale >= 0 and gain - price * sv - loss * (price - v.silver) > 0.3:
                    return sale
        return pick

    def give(self, v: Seen, values: list, actions: list) -> int:
        """Trade at the guild the good whose swap gains most (with the spice), or pass."""
        _, price = self._current(v)
        sv = v.silver_value()
        base = v.plan_value(v.my_goods)
        best, pick = 0.05, values.index(None)
        for g in list(v.my_goods):
            less = v.my_goods.copy()
            less[g] -= 1
            less = +less
            gain = max(v.plan_value(less + Counter({t: 1})) for t, n in v.bag.items()
                       if n > 0) - base + SPICE - price * sv
            if gain <= best:
                continue
            if v.silver < price:
                sale, loss = self._sell_for(v, actions, Counter({g: 1}))
                if sale >= 0 and gain - loss * (price - v.silver) > 0.3:
                    best, pick = gain, sale
                continue
            k = [i for i, x in enumerate(values) if x is not None and x is not _ACTION
                 and v.goods[x] == g]
            if k:
                best, pick = gain, k[0]
        return pick

    def take(self, v: Seen, values: list, actions: list) -> int:
        """Take from the bag the good worth most."""
        return _argmax(values, lambda x: v.good_gain(v.my_goods, v.goods[x]))

    def bonus_card(self, v: Seen, values: list, actions: list) -> int:
        """Take the bonus card whose set points beat the gold and spice it costs, or pass."""
        spice_loss = 1.0 if v.spice % v.spice_per_point == 0 else 0.0
        cost = GOLD * v.card_gold + spice_loss + 0.3
        best, pick = cost, values.index(None)
        for i, x in enumerate(values):
            if x is None or x is _ACTION:
                continue
            gain = v.set_gain(v.colours[x], None)
            if gain > best:
                best, pick = gain, i
        return pick

    def board(self, v: Seen, values: list, actions: list) -> int:
        """Board the best seat worth its price (the bow first), selling to pay if need be."""
        sv = v.silver_value()
        best, pick = 0.0, values.index(None)
        for i, x in enumerate(values):
            if x is None or x is _ACTION:
                continue
            ship, seat = x[0] - 1, x[1] - 1
            t = v.tile(ship)
            left = v.my_goods.copy()
            left.subtract(t["goods"])
            left = +left
            worth = v.landing(t["dest"]) + (SEAT_FIRST if seat == 0 else 0.0) \
                - sv * t["silver"] - 0.3 * t["time"] / 20
            if worth <= 0:
                continue
            gain = worth + v.plan_value(left, v.silver - t["silver"])
            if gain > best:
                best, pick = gain, i
        if pick == values.index(None):
            # a ship whose goods it holds but whose silver it lacks: sell to pay, if worth it
            for i in v.open_ships():
                t = v.tile(i)
                if all(v.my_goods.get(g, 0) >= n for g, n in t["goods"].items()) \
                        and v.silver < t["silver"]:
                    sale, loss = self._sell_for(v, actions, Counter(t["goods"]))
                    if sale >= 0 and v.landing(t["dest"]) - loss > 0.5:
                        return sale
        return pick

    # --- 3) on the island
    def _moves_left(self, v: Seen) -> int:
        at = v.walker_at
        assert at is not None
        key = self._key(v)
        if key in self._moves:
            return self._moves[key]
        if at in v.harbours:
            return v.moves
        home = v.harbour[v.colour_of[at]]
        return max(1, v.moves - v.distance(home, at))

    @staticmethod
    def _key(v: Seen, at: Optional[str] = None, covered: Optional[list] = None) -> tuple:
        return (v.round, at or v.walker_at, tuple(sorted(covered if covered is not None
                                                          else v.covered)),
                tuple(sorted(v.occupant.items())), v.merchants,
                tuple(tuple(s["seats"]) for s in v.ships))

    def _plan(self, v: Seen) -> tuple[int, Any]:
        moves = self._moves_left(v)
        self._moves[self._key(v)] = moves
        at = v.walker_at
        assert at is not None
        _, act = v.walk_value(at, moves)
        if moves > 1:
            if act[0] == "walk":
                self._moves[self._key(v, at=act[1])] = moves - 1
            elif act[0] == "reveal":
                rest = [q for q in v.covered if q not in act[1]]
                self._moves[self._key(v, covered=rest)] = moves - 1
        return moves, act

    def move(self, v: Seen, values: list, actions: list) -> int:
        """Stop, walk or reveal: the first action of the best walk."""
        _, act = self._plan(v)
        return _argmax(values, lambda x: 1.0 if v.kinds[x] == act[0] else 0.0)

    def walk_to(self, v: Seen, values: list, actions: list) -> int:
        """The region the best walk goes to."""
        moves, act = self._plan(v)
        if act[0] == "walk":
            want = act[1]
            return _argmax(values, lambda x: 1.0 if v.regions[x] == want else 0.0)
        memo: dict = {}
        return _argmax(values, lambda x: v.walk_value(v.regions[x], moves - 1, memo)[0])

    def reveal(self, v: Seen, values: list, actions: list) -> int:
        """The tokens the best walk turns up."""
        _, act = self._plan(v)
        want = set(act[1]) if act[0] == "reveal" else set()
        at = v.walker_at or ""

        def score(x: Any) -> float:
            regs = {v.regions[k] for k in x}
            return len(regs & want) - 0.01 * sum(
                v.distance(at, r) for r in regs if r not in want)
        return _argmax(values, score)

    # --- 4) end of the day
    def storage(self, v: Seen, values: list, actions: list) -> int:
        """Keep a 4th good when it is worth the 2 silver (always on the last day)."""
        ranked = sorted(v.my_goods.elements(),
                        key=lambda g: -self._keep_value(v, g))
        if 4 in values and len(ranked) >= 4 and v.silver >= v.fee:
            fourth = self._keep_value(v, ranked[3])
            cost = 0.0 if v.last_day() else v.fee * v.silver_value()
            if fourth > cost:
                return values.index(4)
        return values.index(3) if 3 in values else _first_plain(values)

    @staticmethod
    def _keep_value(v: Seen, g: str) -> float:
        less = v.my_goods.copy()
        less[g] -= 1
        return v.plan_value(v.my_goods) - v.plan_value(+less)

    def sell_over(self, v: Seen, values: list, actions: list) -> int:
        """Sell the good it needs least."""
        return _argmax(values, lambda x: -self._keep_value(v, v.goods[x]))


# the decisions by their prompts in rulebooks/felinia.rules (first match wins)
_HANDLERS: list[tuple[str, Any]] = [
    ("place an action disc", FeliniaHeuristic.place),
    ("buy one good", FeliniaHeuristic.buy),
    ("trade at the guild", FeliniaHeuristic.give),
    ("take which good", FeliniaHeuristic.take),
    ("bonus card", FeliniaHeuristic.bonus_card),
    ("board a ship", FeliniaHeuristic.board),
    ("merchant: stop here", FeliniaHeuristic.move),
    ("walk to which region", FeliniaHeuristic.walk_to),
    ("reveal which trade tokens", FeliniaHeuristic.reveal),
    ("keep how many goods", FeliniaHeuristic.storage),
    ("sell a good over the storage limit", FeliniaHeuristic.sell_over),
]

AGENT = FeliniaHeuristic
