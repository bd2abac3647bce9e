"""Plain Manila: the rules of rulebooks/manila.rules written as a careful Python programmer would
write them for fast random playouts, to measure the rulebook engine against (issue 13).

Usage: python benchmarks/plain_manila.py [--games 500] [--players 4] [--seed 0] [--loans both]

Design
- One `Manila` object with `__slots__` holds the whole game in plain lists and ints.  Where the
  game is lives in an explicit `phase` field (plus a few counters: whose turn in the auction, the
  leg and seat of the placement rounds, the pirate or boat being asked about, the payment being
  raised and what comes after it), never in a generator or a call stack.
- `legal_count()` says how many options the player who must decide (`player`) has; `apply(i)`
  decodes option i directly from the state.  Option lists are built only where a decision's
  options are irregular (placement spaces, pilot moves, shares to buy, boats to board, shares to
  mortgage), once per decision, and cached until the next `apply`; bids, goods, start spaces
  and destinations are plain arithmetic.  `options()` builds readable labels only when asked
  (the rulebook's labels, in the rulebook's order: pass first, then the values, then the
  any-time actions), for tests and people.
- `play_random(players, seed)` plays one game choosing uniformly among the legal options with
  one `random.Random(seed)` (which also deals the shares and rolls the dice).

Loans (a choice, see issue 13).  The rulebook has two kinds:
- the forced mortgage of `proc pay`: while a payment exceeds a player's cash he must mortgage a
  share of his choice (only those options) until he can pay or has none left.  Always here.
- the any-time actions `mortgage` (any unmortgaged good) and `redeem` (any mortgaged good, with
  15 pesos in hand), which the rulebook offers at every decision of that player except inside a
  forced payment.  They are rules of the game (seed 003 §信用貸款: 可以在任何時候), and a uniformly
  random player takes them often, so they change how long random games last and how they score.
  `Manila(..., anytime_loans=True)`, the default, offers them exactly as the rulebook does, so
  that the games (and the decisions/s and games/s ratios) are comparable with the rulebook's.
  `anytime_loans=False` gives "mortgages only when a payment needs them", the variant issue 13
  measured; it is a different, shorter game under random play.  `--loans` picks which the
  benchmark runs (default: both, one line each).

Rules, as rulebooks/manila.rules and rulebooks/lib/auction.rules encode them (see there for the
seed citations): english auction clockwise from the last harbour master (P1 in voyage 1), bids
up to cash + 12 per unmortgaged share, a pass is final, the winner pays the bank (nobody bids:
the old master stays, or P1 for free in voyage 1); the master may buy one share at max(5,
value), leaves one good ashore, and starts the three boats on 0..5 summing to 9; placement
rounds clockwise from the master (two before the first roll with 3 players), pass = no more
this voyage, blind passengers pay all their cash for any free paid space; one die per boat at
sea; after roll 2 the pirates (captain first) may board a boat on 13 with a free seat; the small
then the large pilot move boats before roll 3; after roll 3 pirates plunder every boat on 13 and
the captain sends each to harbour or shipyard (no pirate on the ship: each takes the next
harbour space); payouts to crews, pirates, harbour offices, shipyard offices and the insurer's
claims; prices of boats in Manila rise; the game ends after the voyage in which a price reaches
30.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Optional

GOOD_NAMES = ("nutmeg", "silk", "ginseng", "jade")
PRICE_TRACK = (0, 5, 10, 20, 30)
MAX_STEP = 4
MIN_SHARE_PRICE = 5
SHARES_PER_GOOD = 5
DEALT_PER_GOOD = 3
SHARES_DEALT_EACH = 2
START_PESOS = 30
LOAN_VALUE = 12
REDEEM_COST = 15
MIN_BID = 1
TRACK_END = 13
SEAT_COSTS = ((2, 3, 4), (3, 4, 5), (1, 2, 3), (3, 4, 5, 5))
SEATS = tuple(len(c) for c in SEAT_COSTS)
PROFIT = (24, 30, 18, 36)
ACCOMPLICES_EACH = {3: 4, 4: 3, 5: 3}
ROUNDS_BEFORE_FIRST_ROLL = {3: 2, 4: 1, 5: 1}
MAX_VOYAGES = 100                     # the rulebook's safety net (round voyage limit 100)

# Spaces, in the rulebook's `enum Space` order: 0..3 the boat of that good, then the offices.
HARBOUR_A, SHIPYARD_A, PIRATE, SMALL_PILOT, LARGE_PILOT, INSURANCE = 4, 7, 10, 11, 12, 13
SPACE_NAMES = ("nutmeg_boat", "silk_boat", "ginseng_boat", "jade_boat",
               "harbour_a", "harbour_b", "harbour_c", "shipyard_a", "shipyard_b", "shipyard_c",
               "pirate", "small_pilot", "large_pilot", "insurance")
SPACE_COST = (0, 0, 0, 0, 4, 3, 2, 4, 3, 2, 5, 2, 5, 0)     # boats: see SEAT_COSTS
PAID_OFFICES = tuple((s, SPACE_COST[s]) for s in range(4, 13))   # harbour .. large pilot
OFFICE_PAY = (6, 8, 15)               # slot A, B, C of the harbour and of the shipyard
PIRATE_SEATS = 2
INSURANCE_BONUS = 10
SMALL_STEPS = (1, -1)
LARGE_STEPS = (2, -2, 1, -1)
# start spaces (first, second, third loaded boat) in the rulebook's order: k = first * 6 + second
START_OPTIONS = tuple((a, b, 9 - a - b) for a in range(6) for b in range(6) if 0 <= 9 - a - b <= 5)
N_START = len(START_OPTIONS)

# phases (what the pending decision is)
(BID, BUY, ASHORE, LAUNCH, PLACE, SMALL, LARGE, LARGE_2, BOARD, PLUNDER, MORTGAGE,
 OVER) = range(12)
# what follows a forced payment
AFTER_AUCTION, AFTER_BUY, AFTER_PLACE, AFTER_CLAIMS = range(4)
# where a loaded boat is
AT_SEA, IN_HARBOUR, IN_SHIPYARD, ASHORE_ = 0, 1, 2, 3


class Manila:
    """A game of Manila: the state and the rules that move it on."""

    __slots__ = ("n", "anytime", "rng", "pesos", "shares", "mortgaged", "supply", "step",
                 "master", "voyage", "loaded", "position", "where", "crew", "office", "pirates",
                 "harbour_boats", "shipyard_boats", "plundered", "plunderers", "accomplices",
                 "passed", "phase", "player", "active", "leader", "high", "leg", "rounds_left",
                 "seat", "targets", "queue", "turn", "first_boat", "pay_amount", "pay_next",
                 "pay_arg", "_own", "_blind")
    n: int
    anytime: bool
    rng: random.Random
    pesos: list[int]
    shares: list[list[int]]           # per player, per good: unmortgaged shares
    mortgaged: list[list[int]]
    supply: list[int]
    step: list[int]                   # price step of each good
    master: int                       # harbour master (-1: none yet)
    voyage: int
    loaded: list[int]                 # the three goods at sea this voyage, in Good order
    position: list[int]
    where: list[int]                  # AT_SEA, IN_HARBOUR, IN_SHIPYARD or ASHORE_
    crew: list[list[int]]             # per boat, in seat order
    office: list[int]                 # per space: its holder (-1: free); boats and pirate unused
    pirates: list[int]                # [captain, second pirate]
    harbour_boats: list[int]
    shipyard_boats: list[int]
    plundered: list[int]
    plunderers: list[int]
    accomplices: list[int]
    passed: list[bool]
    phase: int                        # BID .. OVER: what the pending decision is
    player: int                       # who decides (-1 at the end)
    active: list[bool]                # auction: still bidding
    leader: int                       # auction: high bidder (-1: none)
    high: int                         # auction: high bid
    leg: int                          # 1..3: placement rounds before roll `leg`
    rounds_left: int
    seat: int                         # next seat (0 = the master) of this placement round
    targets: list[int]                # boats on 13 (boarding or plunder)
    queue: list[int]                  # the pirates asked to board, in order
    turn: int                         # index into queue (boarding) or targets (plunder)
    first_boat: int                   # the large pilot's first boat
    pay_amount: int                   # a forced payment: how much,
    pay_next: int                     # what follows it (AFTER_*),
    pay_arg: int                      # and its argument (a good or a space)
    _own: Optional[list]
    _blind: bool

    def __init__(self, players: int, seed: int = 0, anytime_loans: bool = True,
                 rng: Optional[random.Random] = None) -> None:
        if players not in ACCOMPLICES_EACH:
            raise ValueError(f"Manila is for 3-5 players, not {players}")
        self.n = players
        self.anytime = anytime_loans
        self.rng = rng if rng is not None else random.Random(seed)
        self.pesos = [START_PESOS] * players
        self.shares = [[0, 0, 0, 0] for _ in range(players)]     # unmortgaged
        self.mortgaged = [[0, 0, 0, 0] for _ in range(players)]
        deck = [g for g in range(4) for _ in range(DEALT_PER_GOOD)]
        self.rng.shuffle(deck)
        for p in range(players):
            for g in deck[p * SHARES_DEALT_EACH:(p + 1) * SHARES_DEALT_EACH]:
                self.shares[p][g] += 1
        self.supply = [SHARES_PER_GOOD - sum(self.shares[p][g] for p in range(players))
                       for g in range(4)]
        self.step = [0, 0, 0, 0]
        self.master = -1
        self.voyage = 0
        self._own: Optional[list] = None
        self._blind = False
        self._new_voyage()

    # ------------------------------------------------------------------ interface
    @property
    def over(self) -> bool:
        """The game has ended."""
        return self.phase == OVER

    def legal_count(self) -> int:
        """The number of legal options of the pending decision (0 when the game is over)."""
        ph = self.phase
        if ph == OVER:
            return 0
        n = self._own_count()
        if self.anytime and ph != MORTGAGE:
            n += self._anytime_count(self.player)
        return n

    def _own_count(self) -> int:
        """The number of the pending decision's own options (pass included, actions not)."""
        ph = self.phase
        if ph == BID:
            p = self.player
            k = self.pesos[p] + LOAN_VALUE * sum(self.shares[p]) - self.high
            return 1 + k if k > 0 else 1
        if ph == ASHORE:
            return 4
        if ph == LAUNCH:
            return N_START
        if ph == PLUNDER:
            return 2
        if ph == MORTGAGE:
            return len(self._own_options())
        return 1 + len(self._own_options())

    def apply(self, i: int) -> None:
        """Play option i of the pending decision (0 <= i < legal_count())."""
        ph = self.phase
        p = self.player
        if i < 0 or ph == OVER:
            raise ValueError(f"no option {i}")
        own = self._own_options()
        k = self._own_count()
        self._own = None
        if i >= k:
            if ph == MORTGAGE or not self.anytime:
                raise ValueError(f"no option {i}")
            self._anytime(p, i - k)
            return
        if ph == PLACE:
            self._place(p, own[i - 1] if i else -1)
        elif ph == BID:
            if i == 0:
                self.active[p] = False
            else:
                self.high += i
                self.leader = p
            self._next_bidder(p)
        elif ph == MORTGAGE:
            g = own[i]
            self._mortgage(p, g)
            if self.pesos[p] >= self.pay_amount or not any(self.shares[p]):
                self._settle(p)
        elif ph == SMALL:
            if i:
                g, d = own[i - 1]
                self._sail(g, d)
            self._large_pilot()
        elif ph == LARGE:
            if i:
                g, d = own[i - 1]
                self._sail(g, d)
                if d == 1 or d == -1:
                    self.first_boat = g
                    self.phase = LARGE_2
                    return
            self._third_roll()
        elif ph == LARGE_2:
            if i:
                g, d = own[i - 1]
                self._sail(g, d)
            self._third_roll()
        elif ph == BUY:
            if i == 0:
                self.phase = ASHORE
            else:
                g = own[i - 1]
                self._pay(p, max(MIN_SHARE_PRICE, PRICE_TRACK[self.step[g]]), AFTER_BUY, g)
        elif ph == ASHORE:
            self.loaded = [g for g in range(4) if g != i]
            self.where[i] = ASHORE_
            self.phase = LAUNCH
        elif ph == LAUNCH:
            for g, start in zip(self.loaded, START_OPTIONS[i]):
                self.position[g] = start
            self._start_leg(1)
        elif ph == BOARD:
            if i:
                g = own[i - 1]
                self.pirates.remove(p)
                self.crew[g].append(p)
            self.turn += 1
            self._next_boarder()
        else:                          # PLUNDER: 0 harbour, 1 shipyard
            g = self.targets[self.turn]
            if i == 0:
                self.where[g] = IN_HARBOUR
                self.harbour_boats.append(g)
            else:
                self.where[g] = IN_SHIPYARD
                self.shipyard_boats.append(g)
            self.turn += 1
            self._next_plunder()

    def options(self) -> list[str]:
        """The labels of the legal options, in option order (built only when asked)."""
        ph = self.phase
        p = self.player
        names = GOOD_NAMES
        if ph == OVER:
            return []
        if ph == BID:
            top = self.pesos[p] + LOAN_VALUE * sum(self.shares[p])
            out = ["pass"] + [str(b) for b in range(self.high + 1, top + 1)]
        elif ph == ASHORE:
            out = list(names)
        elif ph == LAUNCH:
            out = ["{" + ", ".join(f"{names[g]}: {v}" for g, v in zip(self.loaded, starts)) + "}"
                   for starts in START_OPTIONS]
        elif ph == PLUNDER:
            out = ["harbour", "shipyard"]
        elif ph == MORTGAGE:
            return [names[g] for g in self._own_options()]
        elif ph == PLACE:
            out = ["pass"] + [SPACE_NAMES[s] for s in self._own_options()]
        elif ph in (SMALL, LARGE, LARGE_2):
            out = ["pass"] + [f"{{boat: {names[g]}, steps: {d}}}" for g, d in self._own_options()]
        else:                          # BUY, BOARD
            out = ["pass"] + [names[g] for g in self._own_options()]
        if self.anytime:
            out += [f"mortgage({names[g]})" for g in range(4) if self.shares[p][g]]
            if self.pesos[p] >= REDEEM_COST:
                out += [f"redeem({names[g]})" for g in range(4) if self.mortgaged[p][g]]
        return out

    def scores(self) -> list[int]:
        """Each player's wealth: pesos + the value of all his shares - 15 per mortgaged share."""
        values = [PRICE_TRACK[s] for s in self.step]
        return [self.pesos[p] - REDEEM_COST * sum(mo)
                + sum((sh[g] + mo[g]) * values[g] for g in range(4))
                for p, (sh, mo) in enumerate(zip(self.shares, self.mortgaged))]

    # ------------------------------------------------------------------ options
    def _own_options(self) -> list:
        """The pending decision's own options without pass and any-time actions (cached)."""
        own = self._own
        if own is not None:
            return own
        ph = self.phase
        p = self.player
        if ph == PLACE:
            own = self._placeable(p)
        elif ph == SMALL:
            own = self._pilot_moves(SMALL_STEPS, -1)
        elif ph == LARGE:
            own = self._pilot_moves(LARGE_STEPS, -1)
        elif ph == LARGE_2:
            own = self._pilot_moves(SMALL_STEPS, self.first_boat)
        elif ph == BUY:
            budget = self.pesos[p] + LOAN_VALUE * sum(self.shares[p])
            own = [g for g in range(4) if self.supply[g]
                   and max(MIN_SHARE_PRICE, PRICE_TRACK[self.step[g]]) <= budget]
        elif ph == BOARD:
            crew = self.crew
            own = [g for g in self.targets if len(crew[g]) < SEATS[g]]
        elif ph == MORTGAGE:
            sh = self.shares[p]
            own = [g for g in range(4) if sh[g]]
        else:
            own = []
        self._own = own
        return own

    def _placeable(self, p: int) -> list[int]:
        """The spaces p may place on: every free space he can pay for (cash + mortgages), or,
        for a blind passenger, every free space but insurance (sets `_blind`)."""
        crew = self.crew
        office = self.office
        budget = self.pesos[p] + LOAN_VALUE * sum(self.shares[p])
        free = []                      # every free paid space, in Space order
        own = []                       # those p can pay for
        cheapest = 99
        for g in self.loaded:
            c = len(crew[g])
            if c < SEATS[g]:
                cost = SEAT_COSTS[g][c]
                free.append(g)
                if cost < cheapest:
                    cheapest = cost
                if cost <= budget:
                    own.append(g)
        for s, cost in PAID_OFFICES:
            if office[s] < 0 if s != PIRATE else len(self.pirates) < PIRATE_SEATS:
                free.append(s)
                if cost < cheapest:
                    cheapest = cost
                if cost <= budget:
                    own.append(s)
        if budget < cheapest and free:
            self._blind = True
            return free
        self._blind = False
        if office[INSURANCE] < 0:
            own.append(INSURANCE)
        return own

    def _pilot_moves(self, steps: tuple, exclude: int) -> list[tuple[int, int]]:
        """(boat, steps) moves on boats at sea, not behind space 0, not on `exclude`."""
        where = self.where
        pos = self.position
        return [(g, d) for g in self.loaded if where[g] == AT_SEA and g != exclude
                for d in steps if pos[g] + d >= 0]

    def _anytime_count(self, p: int) -> int:
        n = 4 - self.shares[p].count(0)
        if self.pesos[p] >= REDEEM_COST:
            n += 4 - self.mortgaged[p].count(0)
        return n

    def _anytime(self, p: int, j: int) -> None:
        """Any-time action j of p: mortgage (goods held) then redeem (goods mortgaged)."""
        sh = self.shares[p]
        for g in range(4):
            if sh[g]:
                if j == 0:
                    self._mortgage(p, g)
                    return
                j -= 1
        mo = self.mortgaged[p]
        if self.pesos[p] >= REDEEM_COST:
            for g in range(4):
                if mo[g]:
                    if j == 0:
                        mo[g] -= 1
                        sh[g] += 1
                        self.pesos[p] -= REDEEM_COST
                        return
                    j -= 1
        raise ValueError("no such option")

    # ------------------------------------------------------------------ money
    def _mortgage(self, p: int, g: int) -> None:
        self.shares[p][g] -= 1
        self.mortgaged[p][g] += 1
        self.pesos[p] += LOAN_VALUE

    def _pay(self, p: int, amount: int, then: int, arg: int = -1) -> None:
        """Pay the bank, mortgaging (the player's choice) while short; then go on with `then`."""
        self.pay_amount = amount
        self.pay_next = then
        self.pay_arg = arg
        if self.pesos[p] >= amount or not any(self.shares[p]):
            self._settle(p)
        else:
            self.phase = MORTGAGE
            self.player = p

    def _settle(self, p: int) -> None:
        """Pay what can be paid (the bank covers an insurer's shortfall) and go on."""
        pesos = self.pesos[p]
        amount = self.pay_amount
        self.pesos[p] = pesos - amount if pesos >= amount else 0
        then = self.pay_next
        if then == AFTER_PLACE:
            self._placed(p, self.pay_arg)
        elif then == AFTER_AUCTION:
            self._duties()
        elif then == AFTER_BUY:
            g = self.pay_arg
            self.supply[g] -= 1
            self.shares[p][g] += 1
            self.phase = ASHORE
            self.player = p
        else:
            self._end_voyage()

    # ------------------------------------------------------------------ the voyage
    def _new_voyage(self) -> None:
        self.voyage += 1
        if self.voyage > MAX_VOYAGES:
            raise RuntimeError(f"no end after {MAX_VOYAGES} voyages")
        n = self.n
        self.loaded = []
        self.position = [0, 0, 0, 0]
        self.where = [AT_SEA] * 4
        self.crew = [[], [], [], []]
        self.office = [-1] * 14
        self.pirates = []
        self.harbour_boats = []
        self.shipyard_boats = []
        self.plundered = []
        self.plunderers = []
        self.accomplices = [ACCOMPLICES_EACH[n]] * n
        self.passed = [False] * n
        self.active = [True] * n
        self.leader = -1
        self.high = MIN_BID - 1
        self.phase = BID
        self.player = self.master if self.master >= 0 else 0

    def _next_bidder(self, p: int) -> None:
        """The next active bidder clockwise who is not the high bidder; or the auction ends."""
        n = self.n
        active = self.active
        leader = self.leader
        for k in range(1, n + 1):
            q = (p + k) % n
            if active[q] and q != leader:
                self.player = q
                return
        if leader >= 0:
            self.master = leader
            self._pay(leader, self.high, AFTER_AUCTION)
        else:
            if self.master < 0:
                self.master = 0        # nobody bid in voyage 1: P1 for free (PLACEHOLDER)
            self._duties()

    def _duties(self) -> None:
        self.phase = BUY
        self.player = self.master

    def _start_leg(self, leg: int) -> None:
        self.leg = leg
        self.rounds_left = ROUNDS_BEFORE_FIRST_ROLL[self.n] if leg == 1 else 1
        self.seat = 0
        self._next_placer()

    def _next_placer(self) -> None:
        """The next player of this placement round who still places; or the leg goes on."""
        n = self.n
        passed = self.passed
        accomplices = self.accomplices
        while True:
            while self.seat < n:
                q = (self.master + self.seat) % n
                self.seat += 1
                if not passed[q] and accomplices[q] > 0:
                    self.phase = PLACE
                    self.player = q
                    return
            self.rounds_left -= 1
            if self.rounds_left <= 0:
                break
            self.seat = 0
        leg = self.leg
        if leg == 1:
            self._roll()
            self._start_leg(2)
        elif leg == 2:
            self._roll()
            self.targets = self._on_13()
            if self.targets and self.pirates:
                self.queue = list(self.pirates)
                self.turn = 0
                self._next_boarder()
            else:
                self._start_leg(3)
        elif self.office[SMALL_PILOT] >= 0:
            self.phase = SMALL
            self.player = self.office[SMALL_PILOT]
        else:
            self._large_pilot()

    def _place(self, p: int, s: int) -> None:
        """p places on space s (s < 0: passes, places no more this voyage)."""
        if s < 0:
            self.passed[p] = True
            self._next_placer()
        elif s == INSURANCE:
            self.pesos[p] += INSURANCE_BONUS
            self._placed(p, s)
        elif self._blind:
            self.pesos[p] = 0          # a blind passenger pays all his cash
            self._placed(p, s)
        else:
            cost = SEAT_COSTS[s][len(self.crew[s])] if s < 4 else SPACE_COST[s]
            self._pay(p, cost, AFTER_PLACE, s)

    def _placed(self, p: int, s: int) -> None:
        self.accomplices[p] -= 1
        if s < 4:
            self.crew[s].append(p)
        elif s == PIRATE:
            self.pirates.append(p)
        else:
            self.office[s] = p
        self._next_placer()

    def _die(self) -> int:
        """One die roll (a method, so a test can load the dice)."""
        return int(self.rng.random() * 6) + 1

    def _roll(self) -> None:
        for g in self.loaded:
            if self.where[g] == AT_SEA:
                self._sail(g, self._die())

    def _sail(self, g: int, steps: int) -> None:
        pos = self.position[g] + steps
        self.position[g] = pos
        if pos > TRACK_END:
            self.where[g] = IN_HARBOUR
            self.harbour_boats.append(g)

    def _on_13(self) -> list[int]:
        where = self.where
        pos = self.position
        return [g for g in self.loaded if where[g] == AT_SEA and pos[g] == TRACK_END]

    def _next_boarder(self) -> None:
        if self.turn < len(self.queue):
            self.phase = BOARD
            self.player = self.queue[self.turn]
        else:
            self._start_leg(3)

    def _large_pilot(self) -> None:
        holder = self.office[LARGE_PILOT]
        if holder >= 0:
            self.phase = LARGE
            self.player = holder
        else:
            self._third_roll()

    def _third_roll(self) -> None:
        self._roll()
        self.targets = self._on_13()
        if self.targets and self.pirates:
            self.plunderers = list(self.pirates)
            self.turn = 0
            self._next_plunder()
        else:
            # seed 003 §劫掠船隻: no pirate on the ship: a boat on 13 takes the next harbour space
            for g in self.targets:
                self.where[g] = IN_HARBOUR
                self.harbour_boats.append(g)
            self._landing()

    def _next_plunder(self) -> None:
        if self.turn < len(self.targets):
            g = self.targets[self.turn]
            self.plundered.append(g)
            self.crew[g] = []          # the crew goes home unpaid
            self.phase = PLUNDER
            self.player = self.pirates[0]
        else:
            self._landing()

    def _landing(self) -> None:
        """Boats still at sea go to the shipyard; then the payouts and the insurer's claims."""
        where = self.where
        for g in self.loaded:
            if where[g] == AT_SEA:
                where[g] = IN_SHIPYARD
                self.shipyard_boats.append(g)
        pesos = self.pesos
        for g in self.harbour_boats:
            crew = self.crew[g]
            if crew:
                cut = PROFIT[g] // len(crew)
                for p in crew:
                    pesos[p] += cut
        for g in self.plundered:
            cut = PROFIT[g] // len(self.plunderers)
            for p in self.plunderers:
                pesos[p] += cut
        office = self.office
        for slot in range(len(self.harbour_boats)):
            holder = office[HARBOUR_A + slot]
            if holder >= 0:
                pesos[holder] += OFFICE_PAY[slot]
        claims = 0
        for slot in range(len(self.shipyard_boats)):
            holder = office[SHIPYARD_A + slot]
            if holder >= 0:
                pesos[holder] += OFFICE_PAY[slot]
            claims += OFFICE_PAY[slot]
        insurer = office[INSURANCE]
        if insurer >= 0 and claims > 0:
            self._pay(insurer, claims, AFTER_CLAIMS)
        else:
            self._end_voyage()

    def _end_voyage(self) -> None:
        step = self.step
        for g in self.harbour_boats:
            if step[g] < MAX_STEP:
                step[g] += 1
        if MAX_STEP in step:
            self.phase = OVER
            self.player = -1
        else:
            self._new_voyage()


def play_random(players: int, seed: int, anytime_loans: bool = True) -> tuple[int, list[int]]:
    """Play one game choosing uniformly among the legal options with random.Random(seed) (which
    also deals and rolls); return (number of decisions, scores)."""
    rng = random.Random(seed)
    game = Manila(players, anytime_loans=anytime_loans, rng=rng)
    count = game.legal_count
    apply = game.apply
    pick = rng.randrange
    decisions = 0
    while game.phase != OVER:
        apply(pick(count()))
        decisions += 1
    return decisions, game.scores()


def run(games: int, players: int, seed: int, anytime_loans: bool) -> tuple[int, float]:
    """Play `games` random games (seeds seed, seed + 1, ...); return (decisions, seconds)."""
    total = 0
    t0 = time.perf_counter()
    for i in range(games):
        total += play_random(players, seed + i, anytime_loans)[0]
    return total, time.perf_counter() - t0


def main(argv: Optional[list[str]] = None) -> None:
    """Print games/s and decisions/s of random playouts."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] + "\n\n" +
                                 __doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--players", type=int, default=4, choices=(3, 4, 5))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--loans", choices=("anytime", "forced", "both"), default="both",
                    help="anytime: mortgage/redeem offered at every decision, as the rulebook; "
                         "forced: mortgages only when a payment needs them")
    args = ap.parse_args(argv)
    modes = {"anytime": [True], "forced": [False], "both": [True, False]}[args.loans]
    for anytime in modes:
        dec, sec = run(args.games, args.players, args.seed, anytime)
        name = "plain" if anytime else "plain-forced"
        print(f"{name:12s} games {args.games}  decisions/game {dec / args.games:7.1f}  "
              f"decisions/s {dec / sec:10,.0f}  playouts/s {args.games / sec:8.1f}")
    print(f"(python {sys.version.split()[0]}, {args.players} players; plain = any-time loans as "
          f"the rulebook, plain-forced = mortgages only when a payment needs them)")


if __name__ == "__main__":
    main()
