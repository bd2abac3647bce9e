"""A heuristic Genoa player: a measuring stick for the bots (issue 36), written as a good casual
player plays, in plain Python.

What it knows: the printed game (the rulebook's constants: the board and its neighbours, what
each building gives, the cards' goods and buildings, the payouts, read from `program.consts`)
and, of the position, only what its seat sees: `observe(program, state, seat)`
(interpreter/engine/view.py, derived from the rulebook's visibility declarations: the tower, its
path and discs, the open table of offers, the supply, the owners, every player's goods, tiles
and markers, its own ducats and cards) and the options it is offered. The other players' ducats
and cards are secret, and it never looks at `state` otherwise (tests/test_heuristic_genoa.py
checks that its choice is the same in every world its seat cannot tell from the real one). Its
only memory is the offer it is building (the window asks for it one step at a time).

How it plays (seed 000 and rules-data for the rules; docs/agents.md, "Heuristic anchors"):
- **Worth** is in ducats (the score): its holding is worth its ducats, each order by the chance
  of delivering it (more with its goods in hand, less as the rounds run out), messages a little,
  its contracts by their groups of adjacent buildings (exactly as they score), tiles and markers
  in the supply a fixed amount. An action is worth what it adds to that holding (a small order
  delivered with it, a large order at its villa), less 5 when another player owns the building
  (his 10 ducats of income) and the extra-action tile it costs when it has acted already.
- **As the tower player** it prices every way the tower can still go (up to 4 moves): the best
  action it can take on the way, the messages it completes, a street beside a free building
  when it has markers to place. It accepts the offer whose worth (what it is given and
  promised, less what it gives) plus what is left of its own plan beats what it would do
  itself by 5 ducats; otherwise it lets the window close and moves the tower along its best
  path, taking the action where it is worth most.
- **As a bidder** it offers for the action where the tower stands, or one step away, worth it
  at least 12 ducats: 30% of that worth in ducats (at least 5), raising by 5 over a rival's
  ducats up to 45%, never more than it holds; it passes otherwise. A counter-offer made to it
  it accepts when the action and what it is given beat what it pays.
- **Otherwise**: it always delivers an order it can; uses a commodity or trade tile for a good
  an order needs, a building-action tile on its own building worth most; places markers on the
  free buildings beside a street with a disc (another's only with markers to spare); places the
  tower with a starting-space tile where its plan is worth most.
"""
from __future__ import annotations

import os
import sys
from collections import Counter
from typing import Any, Optional

from mercator.interpreter.engine.view import observe

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))   # anchor_tools beside it
from anchor_tools import argmax as _argmax, first_plain as _first_plain  # noqa: E402
from anchor_tools import seat_index as _seat  # noqa: E402

GAME = "Genoa"

# what things are worth to it, in ducats (a ducat is a point of the final score)
P_LARGE = (0.1, 0.2, 0.4, 0.65)    # a large order delivered, by its goods in hand (0..3)
P_SMALL = (0.25, 0.6)              # a small order delivered, without / with its good
P_MESSAGE = 0.3                    # a message paid
SPARE_GOOD = 3.0                   # a good no order of its asks for
TILE = {"extra_action": 14.0, "commodity": 10.0, "trade": 6.0, "building_action": 6.0,
        "starting_space": 7.0}
MARKER = 9.0                       # a marker in its supply (10 on a building, if it gets there)
OWNED = 14.0                       # a marker on a free building: 10 at the end, and income
OTHER_OWNER = 5.0                  # the 10 ducats another owner gets when it acts there
STREET = 6.0                       # a street with a disc beside a free building, with markers
BID_SHARE, BID_CAP, BID_MIN = 0.3, 0.45, 12.0
ACCEPT_MARGIN = 5.0
STEP_DISCOUNT = 0.97


# ----------------------------------------------------------------------------- what the seat sees
class Seen:
    """The seat's observation, as plain names and numbers, with the printed game."""

    def __init__(self, program: Any, state: Any, seat: int):
        obs = observe(program, state, seat)
        c = program.consts
        en = program.rb.enums
        sp, gd, tl, kd, cd = (en[x].members for x in ("Space", "Good", "Tile", "CardKind", "Card"))
        self.spaces, self.goods_enum, self.tiles_enum, self.kinds = sp, gd, tl, kd
        self.cards_enum, self.wares = cd, en["Ware"].members
        self.buildings = {sp[x] for x in c["buildings"]}
        self.villas = {sp[x] for x in c["villas"]}
        self.streets = {sp[x] for x in c["streets"]}
        self.nb = {sp[k]: [sp[x] for x in v] for k, v in c["space_neighbours"].items()}
        self.tile_of = {sp[k]: tl[v] for k, v in c["tile_of"].items()}
        self.wh_goods = {sp[k]: [gd[x] for x in v] for k, v in c["warehouse_goods"].items()}
        self.card_of = {sp[k]: kd[v] for k, v in c["card_of"].items()}
        self.drawn_at = {sp[k]: v for k, v in c["cards_drawn_at"].items()}
        self.kind = {cd[k]: kd[v] for k, v in c["card_kind"].items()}
        self.place = {cd[k]: sp[v] for k, v in c["card_place"].items()}
        self.place2 = {cd[k]: sp[v] for k, v in c["card_place2"].items()}
        self.need = {cd[k]: Counter({gd[g]: n for g, n in v.items()})
                     for k, v in c["card_goods"].items()}
        self.decks = {kd[k]: [cd[x] for x in v] for k, v in c["full_decks"].items()}
        self.group_values: dict[int, int] = c["contract_group_value"]
        self.beyond: int = c["contract_beyond_four"]
        self.unit: int = c["money_unit"]

        t = obs["table"]
        self.me = seat
        self.n = len(obs["players"])
        self.rounds: int = c["rounds_for"][self.n]
        self.round_marker: int = t["round_marker"]
        left = self.rounds - self.round_marker
        self.life = min(1.0, max(0.05, (left - 0.5) / 3.0))    # time left to use a card
        self.supply: dict[str, int] = t["goods_supply"]
        self.tile_supply: dict[str, int] = t["tile_supply"]
        self.deck_left: dict[str, int] = t["deck_left"]
        self.discards: dict[str, list[str]] = t["discards"]
        self.owners = {b: _seat(p) for b, p in t["owners"].items()}
        self.merchant = _seat(t["merchant"])
        self.tower: Optional[str] = t["tower"]
        self.path: list[str] = list(t["path"])
        self.moves_left: int = t["moves_left"]
        self.here_open: bool = bool(t["here_open"])
        self.taken: list[str] = t["taken"]
        self.voided: list[str] = t["voided"]
        self.bids: list[dict] = t["bids"]
        self.players = obs["players"]
        mine = self.players[seat]
        self.ducats: int = mine["ducats"]
        self.goods = Counter({g: k for g, k in mine["goods"].items() if k})
        self.cards: list[str] = list(mine["cards"])
        self.tiles = Counter({x: k for x, k in mine["tiles"].items() if k})
        self.markers: int = mine["markers"]
        self.acted: int = mine["acted"]
        self._draw: dict[str, float] = {}
        self._v: Optional[dict[str, float]] = None

    # --- the rules' helpers (rulebooks/genoa.rules, fns of the same names)
    def action_open(self, x: str) -> bool:
        return x in self.buildings and x not in self.taken and x not in self.voided

    def can_act(self) -> bool:
        return self.acted == 0 or self.tiles["extra_action"] > 0

    def legal_steps(self) -> list[str]:
        if self.tower is None or self.moves_left <= 0:
            return []
        return [x for x in self.nb[self.tower] if x not in self.path]

    def storage(self) -> int:
        return 7 - self.markers - sum(1 for p in self.owners.values() if p == self.me)

    def offer(self, oid: int) -> dict:
        return next(o for o in self.bids if o["id"] == oid)

    # --- worth
    def contract_score(self, buildings: set) -> int:
        """Its contracts' score at the end: groups of adjacent buildings (rules-data §Cards)."""
        left, total = set(buildings), 0
        while left:
            group, todo = set(), [left.pop()]
            while todo:
                x = todo.pop()
                group.add(x)
                for y in self.nb[x]:
                    if y in left:
                        left.discard(y)
                        todo.append(y)
            k = len(group)
            total += self.group_values[k] if k <= 4 else self.group_values[4] + self.beyond * (k - 4)
        return total

    def holding(self, ducats: float, goods: Counter, cards: list, tiles: Counter,
                markers: int) -> float:
        """What a holding is worth to it, in ducats (see the module's docstring)."""
        lf = self.life
        total = float(ducats)
        left = Counter(goods)
        large = [c for c in cards if self.kind[c] == "large_order"]
        large.sort(key=lambda c: -sum(min(left[g], k) for g, k in self.need[c].items()))
        for c in large:
            k = 0
            for g in self.need[c]:
                if left[g] > 0:
                    left[g] -= 1
                    k += 1
            total += 110 * P_LARGE[k] * lf
        for c in cards:
            kind = self.kind[c]
            if kind == "small_order":
                g = next(iter(self.need[c]))
                has = left[g] > 0
                if has:
                    left[g] -= 1
                total += 40 * P_SMALL[has] * lf
            elif kind == "message":
                total += 30 * P_MESSAGE * lf
        total += self.contract_score({self.place[c] for c in cards if self.kind[c] == "contract"})
        total += SPARE_GOOD * sum(left.values()) * lf
        total += sum(TILE[x] * k for x, k in tiles.items()) * lf
        total += MARKER * markers * (1.0 if lf > 0.1 else 0.3)
        return total

    def worth_now(self) -> float:
        return self.holding(self.ducats, self.goods, self.cards, self.tiles, self.markers)

    def draw_worth(self, kind: str, n: int) -> float:
        """What n cards drawn blind from a pile are worth to it (over the cards it cannot see)."""
        key = f"{kind}:{n}"
        if key not in self._draw:
            seen = set(self.cards) | set(self.discards.get(kind, []))
            pool = [c for c in self.decks[kind] if c not in seen] or self.decks[kind]
            base = self.worth_now()
            avg = sum(self.holding(self.ducats, self.goods, self.cards + [c], self.tiles,
                                   self.markers) - base for c in pool) / len(pool)
            k = min(n, self.deck_left.get(kind, 0) + len(self.discards.get(kind, [])))
            self._draw[key] = avg * k
        return self._draw[key]

    def action_values(self) -> dict[str, float]:
        """What taking each open building's action now adds to its holding (before any price)."""
        if self._v is None:
            self._v = {b: self.action_value(b) for b in self.buildings if self.action_open(b)}
        return self._v

    def action_value(self, b: str) -> float:
        """What taking the action of building b adds to its holding (rules-data §Building
        actions, §Cards: a small order delivered with it; a large order instead of a contract)."""
        base = self.worth_now()
        ducats, goods, cards = float(self.ducats), Counter(self.goods), list(self.cards)
        tiles, markers = Counter(self.tiles), self.markers
        extra = 0.0
        if self.acted > 0:
            tiles["extra_action"] -= 1
        if b in self.villas:
            ready = [c for c in cards if self.kind[c] == "large_order" and self.place[c] == b
                     and all(goods[g] >= k for g, k in self.need[c].items())]
            contract = self.draw_worth("contract", 1)
            if ready:
                c = ready[0]
                after = goods - self.need[c]
                rest = [x for x in cards if x != c]
                best_tile = max((TILE[x] for x, k in self.tile_supply.items() if k), default=0)
                worth = self.holding(ducats + 100, after, rest, tiles, markers) \
                    + best_tile * self.life - base
                return max(worth, contract) - self._owner_cost(b)
            return contract + self.holding(ducats, goods, cards, tiles, markers) - base \
                - self._owner_cost(b)
        if b in self.wh_goods:
            for g in self.wh_goods[b]:
                if self.supply.get(g, 0) > 0:
                    goods[g] += 1
        elif b in self.card_of:
            extra += self.draw_worth(self.card_of[b], self.drawn_at[b])
        elif b == "cathedral":
            markers += min(2, self.storage())
        elif b in self.tile_of:
            t = self.tile_of[b]
            if self.tile_supply.get(t, 0) > 0 and not (t == "extra_action" and self.acted > 0):
                tiles[t] += 1
        ready = [c for c in cards if self.kind[c] == "small_order" and self.place[c] == b
                 and all(goods[g] >= k for g, k in self.need[c].items())]
        if ready:
            c = ready[0]
            goods = goods - self.need[c]
            cards = [x for x in cards if x != c]
            ducats += 40
        return self.holding(ducats, goods, cards, tiles, markers) + extra - base \
            - self._owner_cost(b)

    def _owner_cost(self, b: str) -> float:
        owner = self.owners.get(b)
        return OTHER_OWNER if owner is not None and owner != self.me else 0.0

    def payment_worth(self, bundle: dict, sign: int = 1) -> float:
        """What a bundle of an offer adds to its holding (sign -1: what giving it takes)."""
        goods = Counter(self.goods)
        tiles = Counter(self.tiles)
        cards = list(self.cards)
        for g, k in bundle["goods"].items():
            goods[g] += sign * k
        for x, k in bundle["tiles"].items():
            tiles[x] += sign * k
        if sign > 0:
            cards += list(bundle["cards"])
        else:
            cards = [c for c in cards if c not in bundle["cards"]]
        worth = self.holding(self.ducats + sign * bundle["ducats"], +goods, cards, +tiles,
                             self.markers + sign * bundle["markers"]) - self.worth_now()
        for kind, k in bundle.get("new_cards", {}).items():
            worth += sign * self.draw_worth(kind, k)
        return worth

    # --- the tower's path
    def plan(self, at: str, moves: int, path: list[str], can_act: bool,
             closed: set) -> float:
        """The most the tower player's own plan is worth from `at` with `moves` moves left: the
        best action it may take on the way (once), the messages it completes, a street beside
        a free building when it has markers."""
        values = self.action_values() if can_act else {}
        mine = [c for c in self.cards if self.kind[c] == "message"]
        best = 0.0
        street_ok = self.markers > 0

        def walk(x: str, left: int, visited: list, act: float, extra: float,
                 street: float, depth: int) -> None:
            nonlocal best
            best = max(best, act + extra + street)
            if left == 0:
                return
            for y in self.nb[x]:
                if y in visited:
                    continue
                a = act
                if y in values and y not in closed:
                    a = max(a, values[y] * STEP_DISCOUNT ** depth)
                e = extra + sum(30.0 for c in mine
                                if (self.place[c] == y and self.place2[c] in visited)
                                or (self.place2[c] == y and self.place[c] in visited))
                s = street
                if street_ok and y in self.streets and any(
                        z in self.buildings and z not in self.owners for z in self.nb[y]):
                    s = STREET
                walk(y, left - 1, visited + [y], a, e, s, depth + 1)
        walk(at, moves, list(path), 0.0, 0.0, 0.0, 0)
        return best


# ----------------------------------------------------------------------------- the player
class GenoaHeuristic:
    """Plays Genoa as a good casual player: prices every action by what it adds to its holding,
    sells the tower's moves for what beats its own plan, bids a fair share of an action's worth
    (see the module's docstring)."""

    name = "heuristic"

    def __init__(self, seed: Any = 0):
        self.seed = seed                # deterministic: the seed is kept for the harness only
        self._draft: list[str] = []     # the labels of the offer it is building, in order

    def choose(self, program: Any, state: Any) -> int:
        """The index of the option chosen at the decision pending in `state`."""
        node = state.pending
        seat = node.player
        v = Seen(program, state, seat)
        values = [o.value for o in node.options]
        labels = [o.label for o in node.options]
        prompt = node.prompt_for(seat)
        for key, how in _HANDLERS:
            if prompt.startswith(key):
                return how(self, v, values, labels)
        return _first_plain(values)

    # --- the window of offers (docs/language.md §4.17)
    def deal_turn(self, v: Seen, values: list, labels: list) -> int:
        self._draft = []
        if v.merchant == v.me:
            return self._as_tower_player(v, values, must=False)
        return self._as_bidder(v, values, labels)

    def must_accept(self, v: Seen, values: list, labels: list) -> int:
        return self._as_tower_player(v, values, must=True)

    def _outcome_of(self, v: Seen, o: dict) -> float:
        """Its plan's worth after accepting offer o (the buyer acts on its space)."""
        here = v.here_open and o["subject"] == v.tower
        if here:
            return v.plan(v.tower, v.moves_left, v.path, v.can_act(), {v.tower})
        s = o["subject"]
        return v.plan(s, v.moves_left - 1, v.path + [s], v.can_act(), {s})

    def _no_deal(self, v: Seen) -> float:
        """Its plan's worth if it lets the window close with no deal."""
        vals = v.action_values() if v.can_act() else {}
        if v.here_open and v.tower is not None:
            rest = v.plan(v.tower, v.moves_left, v.path, v.can_act(), {v.tower})
            if v.tower not in vals:
                return rest
            acted = vals[v.tower] + v.plan(v.tower, v.moves_left, v.path, False, {v.tower})
            standing = any(o["subject"] == v.tower and _seat(o["taker"]) == v.me
                           for o in v.bids)
            return acted if standing else max(acted, rest)
        return v.plan(v.tower, v.moves_left, v.path, v.can_act(), set()) if v.tower else 0.0

    def _as_tower_player(self, v: Seen, values: list, must: bool) -> int:
        base = self._no_deal(v)
        best, pick = None, None
        for i, x in enumerate(values):
            if not (isinstance(x, tuple) and x[0] == "accept"):
                continue
            o = v.offer(x[1])
            worth = v.payment_worth(o["give"]) + v.payment_worth(o["promise"]) \
                + v.payment_worth(o["get"], -1)
            gain = worth + self._outcome_of(v, o) - base
            if best is None or gain > best:
                best, pick = gain, i
        if pick is not None and (must or best >= ACCEPT_MARGIN):
            return pick
        return values.index(None) if None in values else 0

    def _bid_targets(self, v: Seen) -> list[tuple[float, str]]:
        """(worth, building) of the actions it could buy now: the one where the tower stands,
        or one a step away (a hint while the action here is open)."""
        if not v.can_act() or v.tower is None:
            return []
        vals = v.action_values()
        out = []
        if v.here_open and v.tower in vals:
            out.append((vals[v.tower], v.tower))
        for s in v.legal_steps():
            if s in vals:
                out.append((vals[s] * (0.5 if v.here_open else 1.0), s))
        if v.acted > 0:
            out = [(w - TILE["extra_action"] * v.life, s) for w, s in out]
        return sorted(out, reverse=True)

    def _as_bidder(self, v: Seen, values: list, labels: list) -> int:
        # a counter-offer from the tower player: the action, and what it is given, less paid
        for i, x in enumerate(values):
            if isinstance(x, tuple) and x[0] == "accept":
                o = v.offer(x[1])
                s = o["subject"]
                act = v.action_values().get(s, 0.0) if v.can_act() else 0.0
                worth = act + v.payment_worth(o["give"]) + v.payment_worth(o["get"], -1)
                if worth > ACCEPT_MARGIN:
                    return i
        mine = {o["subject"]: o for o in v.bids if _seat(o["maker"]) == v.me}
        for worth, s in self._bid_targets(v):
            if worth < BID_MIN:
                break
            rival = max((o["give"]["ducats"] for o in v.bids
                         if o["subject"] == s and _seat(o["maker"]) != v.me), default=0)
            price = max(v.unit, _units(v, BID_SHARE * worth))
            if rival >= price:
                price = rival + v.unit
            price = min(price, _units(v, BID_CAP * worth), _units(v, v.ducats))
            if price < v.unit or price <= rival:
                continue
            if s in mine:
                o = mine[s]
                if o["give"]["ducats"] >= price or o["give"]["ducats"] > rival:
                    return values.index(None)
                start = ("replace", o["id"])
                if start not in values:
                    continue
                self._draft = [f"about {s}"] + ["add 5 ducats"] * (price // v.unit)
                return values.index(start)
            if ("post",) in values:
                self._draft = [f"about {s}"] + ["add 5 ducats"] * (price // v.unit)
                return values.index(("post",))
        return values.index(None) if None in values else 0

    def draft_step(self, v: Seen, values: list, labels: list) -> int:
        """The next step of the offer it is building: its subject, its ducats, then done."""
        while self._draft:
            want = self._draft[0]
            if want in labels:
                self._draft.pop(0)
                return labels.index(want)
            if want.startswith("add") and ("done",) in values:
                break                   # cannot add more: post what it has
            self._draft = []
            break
        if ("done",) in values and not self._draft:
            return values.index(("done",))
        self._draft = []
        return values.index(("cancel",)) if ("cancel",) in values else 0

    # --- the tower
    def move_tower(self, v: Seen, values: list, labels: list) -> int:
        """Move the tower along its best path (always on while a step is left)."""
        def score(x: Any) -> float:
            s = v.spaces[x]
            now = v.action_values().get(s, 0.0) if v.can_act() else 0.0
            rest = v.plan(s, v.moves_left - 1, v.path + [s], v.can_act(), set())
            msg = sum(30.0 for c in v.cards if v.kind[c] == "message" and (
                (v.place[c] == s and v.place2[c] in v.path)
                or (v.place2[c] == s and v.place[c] in v.path)))
            return max(now, rest) + msg + (0.5 if s in v.buildings else 0.0)
        return _argmax(values, score)

    def act_here(self, v: Seen, values: list, labels: list) -> int:
        """Take the action here when it beats what its plan offers later."""
        here = v.tower
        vals = v.action_values()
        now = vals.get(here, 0.0) if here else 0.0
        later = v.plan(here, v.moves_left, v.path, True, {here}) if here else 0.0
        if here and now > 3.0 and now + v.plan(here, v.moves_left, v.path, False, {here}) \
                >= later:
            return _argmax(values, lambda x: 1.0)
        return values.index(None)

    def start_space(self, v: Seen, values: list, labels: list) -> int:
        """A starting-space tile: the building whose action and path are worth most (never the
        market, which costs the game a round), if worth the tile; else roll."""
        vals = v.action_values()
        best, pick = TILE["starting_space"] * v.life + 10.0, values.index(None)
        for i, x in enumerate(values):
            if x is None:
                continue
            s = v.spaces[x]
            if s not in vals:
                continue
            worth = vals[s] + v.plan(s, 4, [s], False, {s})
            if worth > best:
                best, pick = worth, i
        return pick

    # --- cards and tiles
    def deliver(self, v: Seen, values: list, labels: list) -> int:
        """An order it can deliver it always delivers (40 or 100 ducats)."""
        return next((i for i, x in enumerate(values) if x is not None), 0)

    def large_tile(self, v: Seen, values: list, labels: list) -> int:
        return _argmax(values, lambda x: TILE[v.tiles_enum[x]])

    def _good_gain(self, v: Seen, g: str) -> float:
        more = Counter(v.goods)
        more[g] += 1
        return v.holding(v.ducats, more, v.cards, v.tiles, v.markers) - v.worth_now()

    def _spare(self, v: Seen) -> Optional[str]:
        """Its good that least lowers its holding when given away, if one is only spare."""
        best, pick = None, None
        for g in v.goods:
            less = Counter(v.goods)
            less[g] -= 1
            loss = v.worth_now() - v.holding(v.ducats, +less, v.cards, v.tiles, v.markers)
            if best is None or loss < best:
                best, pick = loss, g
        return pick if best is not None and best <= SPARE_GOOD + 0.5 else None

    def goods_tile(self, v: Seen, values: list, labels: list) -> int:
        """A commodity or trade tile for a good an order needs (worth more than the tile)."""
        gains = [self._good_gain(v, g) for g in v.goods_enum if v.supply.get(g, 0) > 0]
        best = max(gains, default=0.0)
        for i, x in enumerate(values):
            if x is None:
                continue
            t = v.tiles_enum[x]
            if t == "commodity" and best > TILE["commodity"] * v.life:
                return i
            if t == "trade" and best > TILE["trade"] * v.life + SPARE_GOOD \
                    and self._spare(v) is not None:
                return i
        return values.index(None)

    def take_good(self, v: Seen, values: list, labels: list) -> int:
        return _argmax(values, lambda x: self._good_gain(v, v.goods_enum[x]))

    def trade_give(self, v: Seen, values: list, labels: list) -> int:
        """Give a spare good; else the card, tile or marker it misses least."""
        order = ["one_commodity"] if self._spare(v) is not None else []
        order += ["one_card", "one_special_tile", "one_marker", "one_commodity"]
        names = [v.wares[x] for x in values]
        for w in order:
            if w in names:
                return names.index(w)
        return 0

    def trade_give_good(self, v: Seen, values: list, labels: list) -> int:
        spare = self._spare(v)
        return _argmax(values, lambda x: 1.0 if v.goods_enum[x] == spare else
                       -self._good_gain(v, v.goods_enum[x]))

    def trade_give_card(self, v: Seen, values: list, labels: list) -> int:
        def loss(x: Any) -> float:
            c = v.cards_enum[x]
            rest = [y for y in v.cards if y != c]
            return v.worth_now() - v.holding(v.ducats, v.goods, rest, v.tiles, v.markers)
        return _argmax(values, lambda x: -loss(x))

    def trade_give_tile(self, v: Seen, values: list, labels: list) -> int:
        return _argmax(values, lambda x: -TILE[v.tiles_enum[x]])

    def trade_take(self, v: Seen, values: list, labels: list) -> int:
        names = [v.wares[x] for x in values]
        for w in ("one_commodity", "one_special_tile", "one_card", "one_marker"):
            if w in names:
                return names.index(w)
        return 0

    def trade_take_tile(self, v: Seen, values: list, labels: list) -> int:
        return _argmax(values, lambda x: TILE[v.tiles_enum[x]])

    def trade_take_pile(self, v: Seen, values: list, labels: list) -> int:
        return _argmax(values, lambda x: v.draw_worth(v.kinds[x], 1))

    def building_tile(self, v: Seen, values: list, labels: list) -> int:
        """A building-action tile on its own building worth most, when worth 5 or more."""
        vals = {b: v.action_value(b) + (TILE["extra_action"] * v.life if v.acted else 0.0)
                for b in v.buildings if v.action_open(b)}
        best, pick = 5.0, values.index(None)
        for i, x in enumerate(values):
            if x is not None and vals.get(v.spaces[x], 0.0) > best:
                best, pick = vals[v.spaces[x]], i
        return pick

    # --- acquiring buildings (rules-data §Turn 3)
    def _marker_worth(self, v: Seen, b: str, spare: int) -> float:
        if b not in v.owners:
            return OWNED
        if v.owners[b] == v.me or spare < 3:
            return -1.0
        return OWNED + 10.0 - MARKER    # another's: it sacrifices a marker, he loses 10

    def acquire(self, v: Seen, values: list, labels: list) -> int:
        best, pick = MARKER, values.index(None)
        for i, x in enumerate(values):
            if x is None:
                continue
            ws = sorted((self._marker_worth(v, b, v.markers) for b in v.nb[v.spaces[x]]
                         if b in v.buildings), reverse=True)
            worth = sum(w for w in ws[:min(2, v.markers)] if w > 0)
            if worth > best:
                best, pick = worth, i
        return pick

    def marker(self, v: Seen, values: list, labels: list) -> int:
        def worth(x: Any) -> float:
            b = v.spaces[x]
            return self._marker_worth(v, b, v.markers) + 0.1 * (b in v.wh_goods)
        i = _argmax(values, worth)
        if None in values and worth(values[i]) <= MARKER:
            return values.index(None)
        return i


def _units(v: Seen, amount: float) -> int:
    """An amount of ducats rounded down to the unit of an offer (seed 000 erratum 09: 5)."""
    return int(amount) // v.unit * v.unit


# the decisions by their prompts in rulebooks/genoa.rules (first match wins)
_HANDLERS: list[tuple[str, Any]] = [
    ("bids: your turn to deal", GenoaHeuristic.deal_turn),
    ("bids: you must accept", GenoaHeuristic.must_accept),
    ("bids: ", GenoaHeuristic.draft_step),
    ("move the tower", GenoaHeuristic.move_tower),
    ("take the action here yourself", GenoaHeuristic.act_here),
    ("starting-space tile", GenoaHeuristic.start_space),
    ("deliver", GenoaHeuristic.deliver),
    ("large order: take a special tile", GenoaHeuristic.large_tile),
    ("use a goods tile", GenoaHeuristic.goods_tile),
    ("commodity tile: take a good", GenoaHeuristic.take_good),
    ("trade tile: give which commodity", GenoaHeuristic.trade_give_good),
    ("trade tile: give which card", GenoaHeuristic.trade_give_card),
    ("trade tile: give which special tile", GenoaHeuristic.trade_give_tile),
    ("trade tile: give", GenoaHeuristic.trade_give),
    ("trade tile: take which commodity", GenoaHeuristic.take_good),
    ("trade tile: take which special tile", GenoaHeuristic.trade_take_tile),
    ("trade tile: take the top card", GenoaHeuristic.trade_take_pile),
    ("trade tile: take", GenoaHeuristic.trade_take),
    ("building-action tile", GenoaHeuristic.building_tile),
    ("acquire buildings", GenoaHeuristic.acquire),
    ("put an ownership marker on", GenoaHeuristic.marker),
    ("put a second ownership marker", GenoaHeuristic.marker),
]

AGENT = GenoaHeuristic
