"""Search agents: Monte Carlo tree search through the engine's interface (clone, apply,
playout, result), for any rulebook.

`MCTSAgent` is UCT on the true state: each iteration forks the real position, so it sees
everything the state holds — other seats' hidden cards, the order of a face-down deck, the
sealed choices already made in a simultaneous decision. That is fair only in rulebooks without
hidden information (`hidden_information` says whether a rulebook has any); anywhere else it is
the "cheating" baseline that prices honesty. It does not see the future: each iteration gives
the fork a fresh chance generator, so dice and shuffles still to come are drawn anew.

The search is open-loop: a tree node stands for a sequence of choices, not for one state, so
the options found at a node may differ from one iteration to the next (after a die roll, or
in another sampled world); every option's statistics keep how often it was available, and
UCT uses that count in place of the parent's visits (the availability rule of
information-set MCTS). Options are told apart by label (with a number for repeated labels), so
the same option keeps its statistics wherever it stands in the list.

Any-time actions (mortgages, redemptions) are options like any other, but they would swallow
the budget and the rollouts: a node's actions are only searched once its other options have
had `widen` visits each on average (progressive widening), and the rollouts
(`Program.playout(..., anytime=False)`) never take one. Nor do the rollouts negotiate: at a
deal window their seats pass (`deals=False`; the tree still searches every step of a deal),
because random offers would fill them (nine in ten of a random Genoa game's decisions) and
say little about a position; `deals=True` (spec setting `deals=random`) restores them. With
`deals="judge"` a rollout carried by the search's own loop finishes an offer it finds in the
drafting (its draft posted as it stands, not cancelled) and a seat accepts a standing offer
where that raises its estimate (`_judged_deal_step`), so that what a draft gives away costs
the drafter in the rollouts too.

An iteration: descend by UCT (an unvisited option first, chosen at random), expand one node,
play on at random to the end (or `depth` decisions, then judge the position by the rulebook's
`estimate` — `evaluate="estimate"`, its score where it declares none — or by its score and
tie-breaks as if the game ended there, `evaluate="score"`), and credit every seat on the path
with its reward. With no `depth`, `estimate_depth` cuts the rollouts of a rulebook that
declares an estimate. What the depth counts (`cut`): decisions, or steps of the rulebook's top
level (`top_step`: a phase begins, or a loop written in a phase's body takes its next pass — a
turn, a placement round), so that a position is judged between steps of the game and not in
the middle of an auction, a trade or a turn, where what a step settles (a price paid, a prize
won) has not happened yet; or chance draws (`chance`): the iteration, in the tree as in the
rollout, goes no further than the `depth`-th draw of several outcomes (dice, a card) from the
decision searched, and the position before it is judged, so that the estimate takes the draw
in expectation (tests/fixtures/agents/venture.rules; worse in Manila: docs/agents.md). `rollout="auto"` plays MAST's rollouts where they are cut off and the
native playout where they run to the end.

A learned evaluation (`value`, agents/learned.py): a model of each seat's final margin over what
it sees of a position stands for the rulebook's estimate at a cut-off (`Judge.cut_off`), and a
rollout that reached the end is judged by its final margins (`Judge.at_end`), so that both are
on one scale; with it a rulebook without an estimate has its rollouts cut off after
`estimate_depth` steps too.

The reward (`reward`): `win` is each seat's share of the win (1 for a win, 1/k for a win shared
by k, 0 otherwise); `margin` ranks positions by the rulebook's score: a seat's score less the
best other seat's (the other way round where the lowest score wins), standardised by the mean
and spread of that seat's margins in this decision's search so far and squashed into [0, 1]
(0.5 + 0.5 tanh(z)), so that a rollout lost by little is worth more than one lost by much even
where every rollout is lost;
`rank` is the share of the other seats a seat outscores (ties count half). At a rollout
cut-off (`depth`) these compare the position's estimates (Program.estimated); with `margin`, a
rollout that reached the end is judged by the estimate too (one scale for all).

The rollout policy (`rollout`): `random` is the engine's native uniform playout; `mast`
(move-average sampling) keeps, per seat, the average reward of every move — a move is its
choose site in the rulebook and the value chosen, so "bid 17 in the auction" is one move
wherever it is offered — over every iteration's tree path and rollout, and draws the rollout's
moves by softmax(average / `tau`) (an untried move counts as an average of 1/2). Where a
decision offers a pass beside two or more values, the pass is one alternative and the values
together the other: the rollout passes with the weight of the pass against that of the best
value (one time in two while neither is known), else draws a value by the softmax — drawn
among all 57 options of Manila's first bid, a rollout's bidder would pass one time in 57 and
keep raising, and a searcher would learn that bidding high drives the others' price up. The averages
carry from one decision to the next, halved in weight at each new decision. No game knowledge:
only the rulebook's own sites and values.

Move groups (`group`): where a decision offers a pass beside two or more values, "pass" weighs
the pass against the values taken as one alternative before UCT picks a value, in the tree and
in MAST's rollouts (the pass against the values' mean average); "bins" also groups more than
BIN_MIN whole-number values in bins by their distance from the smallest (`partition`). The
move is taken level by level (`most_visited`). A time budget stops early once no option could
overtake the move in the time left (`settled`).

Any-time actions (`anytime`): searched at the root only by default ("root"); at every node
("all") a move that closes them for the rest of the search looks better than it is, because
below it no node spends visits on them (tests/fixtures/agents/stall.rules).

Progressive widening (`pw`): a menu of 56 bids gets three or four visits per bid from 200
iterations, so the most visited is close to a random one. With pw > 0 a tree node searches only
ceil(pw * sqrt(visits + 1)) of its regular options (at least 2): as that number grows it admits
the best of those not yet admitted by the seat's MAST averages (kept from the tree's moves even
with random rollouts, and carried from earlier decisions; untried moves count 0.5, ties in an
order drawn from the agent's seed, never the menu's), and tries them in the order admitted.
"""
from __future__ import annotations

import marshal
import math
import random
import time
import zlib
from typing import Any, Callable, Optional

import attrs

from mercator.dsl import ast as A
from mercator.interpreter.engine.chance import weighted_index
from mercator.interpreter.engine.deals import NEVER
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.nodes import (Chance, Decision, Terminal, move_key,
                                               no_deal_index, option_keys)
from mercator.interpreter.engine.resample import HIDDEN, SEEN, ResampleFailed, Trace
from mercator.interpreter.engine.state import State
# (defined beside what a learned value shares with the search; imported from here too)
from mercator.interpreter.agents.outcome import score_margins, top_step  # noqa: F401

DEFAULT_ITERATIONS = 200
UCT_C = 0.7          # exploration constant for rewards in [0, 1]
WIDEN = 2.0          # visits per other option before a node's any-time actions are searched
WORLDS = 24          # worlds an information-set search draws per decision
TRIES = 50           # replays a world may take before the search makes do with fewer worlds
REWARDS = ("win", "margin", "rank", "blend", "mean", "own")
# what a seat's score is taken against, by reward: the best other seat's, their mean, nothing
AGAINST = {"mean": "mean", "own": "none"}
DEALS = (False, True, "none", "random", "judge", "prefer")   # what rollouts do in a deal window
ROLLOUTS = ("random", "mast", "greedy", "auto")   # auto: mast for a rollout cut off, random to
# the end; greedy: MAST, but a small menu is answered by the rulebook's estimate one step on
GREEDY_MENU = 12     # rollout=greedy: menus of at most this many options are judged option by option
GREEDY_EPS = 0.2     # ... except this share of them, drawn by MAST as ever
EVALS = ("estimate", "score")
GROUPS = ("pass", "bins", "amounts", "none")   # move groups in the tree: a pass against the
# values as one; that, and whole-number values in bins by their distance from the smallest;
# that only where the values beside a pass are whole numbers (amounts); none
BIN_MIN = 8          # group=bins: whole-number values in bins only where there are more than this
ANYTIME = ("root", "all", "none")   # where the tree searches any-time actions: at the root
# only, or at every node (then a move that leaves fewer of them open below looks better than it
# is), or nowhere (the seat takes one only where the rules force it, as a casual player who
# never mortgages unless he must)
ROOTS = ("uct", "halving")   # how the root's options share the budget: UCT, or sequential
# halving (rounds of equal visits, the worse half dropped after each)
SEALED = ("tree", "shared")   # a simultaneous decision's later choosers: below the earlier
#                               choices in the tree, or their statistics shared (`_sealed_stats`)
HIDDENS = ("uniform", "mast")   # another seat's hidden choice in a drawn world: any of its
#                                 options alike, or as MAST's rollouts would choose (`belief`)
CLOCKS = ("wall", "cpu")   # what a time budget counts: seconds of the wall clock, or of this
#                             process's CPU (the same budget whatever else shares the machine)
CUTS = ("step", "phase", "decision", "chance")   # what a rollout's depth counts: steps of the
# top level, phases (a phase begins), decisions, or chance draws (the cut falls before the
# depth-th draw of more than one outcome, which the estimate then takes in expectation)
NST_MIN = 7          # nst: a pair of a seat's moves counts once it was played this many times
MODEL_MIN = 2        # model: another seat's choices at a site count once seen this many times
MIN_FRESH = 0.1      # reuse: a time budget searches at least this part of its time afresh
SETTLE_EVERY = 32   # a time budget asks every that many iterations whether the move is settled
STEP_CAP = 400       # decisions a rollout cut by steps plays at most (a top level that never steps)
PRIOR_WORLDS = 4     # the worlds the root's prior judges each option in
REPLY_MAX = 3        # reply: the decisions below the root judged by the prior have this many
#                      options at most (a yes or no, a pass beside one or two)
TAU = 0.1            # MAST's softmax temperature (rewards in [0, 1])


class _Edge:
    """One option at a tree node: visits, total reward, times available, the node below."""

    __slots__ = ("n", "w", "avail", "below", "w2")

    def __init__(self) -> None:
        self.n = 0
        self.w = 0.0
        self.w2 = 0.0
        self.avail = 0
        self.below: Optional[_Node] = None


class _Node:
    __slots__ = ("edges", "visits", "admitted", "rank", "groups", "amaf", "sealed")

    def __init__(self) -> None:
        self.edges: dict[str, _Edge] = {}
        self.visits = 0
        # where a simultaneous decision begins here: each later chooser's statistics, by seat,
        # shared whatever the earlier choosers chose (`_sealed_stats`)
        self.sealed: Optional[dict[int, _Node]] = None
        self.groups: dict[Any, _Edge] = {}     # move groups: "values", ("bin", b) -> their edge
        self.admitted: Optional[dict[str, None]] = None   # progressive widening's, in order
        self.rank: Optional[dict[str, float]] = None      # the root's prior: option -> value
        self.amaf: Optional[dict[Any, list[float]]] = None  # rave: move -> [reward sum, count]


def _take(program: Any, s: State, tree: _Node, stats: _Node, keys: list[str], i: int,
          key: Any, path: list, moves: Optional[list]) -> Optional[_Node]:
    """A descent's step by option i of the decision pending in s, chosen otherwise than by
    UCT (halving's option at the root, a modelled seat's draw): its edge in `stats` (the
    node's statistics: `tree`, or a simultaneous decision's shared ones) made available and
    put on the path, the move noted for MAST, the option applied; the node the descent goes on
    to, or None where the edge was never visited (expanded: the rollout takes over)."""
    e = stats.edges.get(keys[i])
    if e is None:
        e = stats.edges[keys[i]] = _Edge()
    e.avail += 1
    path.append((stats, e, s.pending.player))
    if moves is not None:
        moves.append((s.pending.player, key))
    program.apply(s, i)
    return None if e.n == 0 else _below(tree, e, keys[i])


def _below(tree: _Node, e: _Edge, key: str) -> _Node:
    """The node the descent goes on to after option `key` of `tree`, whose statistics are in
    `e` (an edge of `tree`, or of a simultaneous decision's shared statistics: then the tree's
    own edge only leads on)."""
    if tree.edges.get(key) is not e:
        lead = tree.edges.get(key)
        if lead is None:
            lead = tree.edges[key] = _Edge()
        e = lead
    if e.below is None:
        e.below = _Node()
    return e.below


def _pass_and_values(node: Decision) -> Optional[tuple[int, list[int], list[int]]]:
    """A decision's (pass, values, other regular options) where the pass stands beside two or
    more values, as option indices: the pass of a decision `with pass`; in the drafting of an
    offer (a step of a deal window, node.vtype ("deal", ...)), its 'done' — stop adding —
    beside the items it could add, 'cancel' among the others. None where there is none."""
    regular = node.count - len(node.actions)
    if node.allow_pass:
        return (0, list(range(1, regular)), []) if regular > 2 else None
    vt = node.vtype
    if vt.__class__ is not tuple or vt[0] != "deal":
        return None
    done, adds, others = -1, [], []
    for k, v in enumerate(node.values):
        kind = v[0] if v.__class__ is tuple and v else None
        if kind == "done":
            done = k
        elif kind == "add":
            adds.append(k)
        else:
            others.append(k)
    if done < 0 or len(adds) < 2:
        return None
    return done, adds, others


def _amounts(node: Decision) -> bool:
    """Whether a decision's values are whole numbers (a bid, an amount) by their type in the
    rulebook — not an enum's members (Manila's places), which run as whole numbers too."""
    vt = node.vtype
    kind = getattr(vt, "kind", None)
    if kind is not None:
        return kind == "int"
    return all(type(v) is int for v in node.values)


def amount_options(node: Decision) -> Optional[tuple[list[int], list[float]]]:
    """A decision's options that are whole-number values (a bid, a fee, an amount: `_amounts`),
    as (option indices, each value in steps of the menu — the gcd of the values' distances from
    the smallest); None where fewer than three."""
    if not node.values or not _amounts(node):
        return None
    first = 1 if node.allow_pass else 0
    idx = [first + k for k, v in enumerate(node.values) if type(v) is int]
    if len(idx) < 3:
        return None
    vs = [node.values[i - first] for i in idx]
    lo = min(vs)
    step = 0
    for v in vs:
        step = math.gcd(step, v - lo)
    return idx, [(v - lo) / (step or 1) for v in vs]


def kernel_means(amounts: tuple[list[int], list[float]], keys: list[str],
                 edges: dict[str, "_Edge"], width: float) -> dict[int, float]:
    """Kernel regression over a menu of amounts (`kernel`): each amount's mean reward pooled
    with its neighbours', a neighbour d steps away weighing exp(-d²/2w²) of a visit — the
    worth of a bid or a fee changes little from one step of the menu to the next, so where each
    amount has a few rollouts their neighbours' say as much again. {option: pooled mean} for the
    amounts any rollout near them tried."""
    idx, pos = amounts
    stats = []
    for i, x in zip(idx, pos):
        e = edges.get(keys[i])
        if e is not None and e.n:
            stats.append((x, e.n, e.w))
    out: dict[int, float] = {}
    if not stats:
        return out
    inv = -0.5 / (width * width)
    for i, x in zip(idx, pos):
        n = w = 0.0
        for y, m, r in stats:
            k = math.exp(inv * (x - y) * (x - y))
            n += k * m
            w += k * r
        if n > 1e-9:
            out[i] = w / n
    return out


def partition(node: Decision, group: Optional[str]) -> Optional[list]:
    """The move groups of a decision's regular options, or None where it has none: a list of
    the pass (`_pass_and_values`: a decision's pass, or the 'done' of an offer's drafting),
    ("values", [...]) and the other regular options — with group="bins" and more than BIN_MIN
    whole-number values, the values in bins ("bin", b), b the bit length of a value's distance
    from the smallest in steps of the menu (the gcd of those distances: Die Händler bids in
    hundreds): the smallest alone, the next, the next two, four, eight... — fine where the
    values are cheap, coarse where they are dear — each item an option's index or a
    (group key, [items]) pair."""
    if group is None:
        return None
    split = _pass_and_values(node)
    if split is None:
        return None
    pass_i, values_i, others = split
    values: list = list(values_i)
    if group == "amounts" and node.allow_pass and not _amounts(node):
        return None
    amounts = amount_options(node) if group != "pass" and len(values) > BIN_MIN \
        and node.allow_pass else None
    if amounts is not None:             # (the values, distinct whole numbers, in menu steps)
        bins: dict[int, list[int]] = {}
        for i, x in zip(*amounts):
            bins.setdefault(int(x).bit_length(), []).append(i)
        values = [(("bin", b), js) if len(js) > 1 else js[0]
                  for b, js in sorted(bins.items())]
    return [pass_i, ("values", values), *others]


def _tally(item: Any, keys: list[str], edges: dict[str, "_Edge"]) -> tuple[float, float]:
    """An option's (or a group's, summed over its options) visits and total reward."""
    if isinstance(item, int):
        e = edges.get(keys[item])
        return (e.n, e.w) if e is not None else (0, 0.0)
    n = w = 0.0
    for x in item[1]:
        a, b = _tally(x, keys, edges)
        n += a
        w += b
    return n, w


def _ranked_items(items: list, keys: list[str], edges: dict[str, "_Edge"]) -> list:
    """Items by visits, then mean reward, most first; ties in menu order; (item, visits)."""
    scored = []
    for k, x in enumerate(items):
        n, w = _tally(x, keys, edges)
        scored.append(((n, w / n if n else 0.0, -k), x, n))
    scored.sort(key=lambda t: t[0], reverse=True)
    return [(x, n) for _, x, n in scored]


def trusted(program: Any, state: State, node: Decision, root: "_Node", move: int,
            trust: float, rng: Any, best: Optional[int] = None,
            final: Optional[dict[str, tuple[float, int, float]]] = None,
            sure: float = 0.0) -> int:
    """`trust=D`: the option the rulebook prefers most at this decision (`prefer`; `best`
    where the search already drew it among equals) unless the search's answer `move` beat its
    mean reward at the root by more than D, and by more than `sure` standard errors of the
    difference of the two means besides — the search corrects the preference where it is sure,
    and a noisy search does not overturn it. `final` (sequential halving, given with `sure`):
    each option's (reward, visits, squared rewards) in the last round both were in; the rounds
    before chose the survivors by their means, which are therefore too high (a best of many),
    while the preferred option was kept without them. (A preference reads only what the
    chooser may see: it is judged on the game's own state.)"""
    m = node.count - len(node.actions)
    if move >= m:
        return move                         # an any-time action the search chose
    if best is None:
        best = program.preferred(state, m, rng)
    if best < 0 or best == move:
        return move
    keys = option_keys(node)
    if final is not None and keys[best] in final and keys[move] in final:
        (ew, en, ew2), (fw, fn, fw2) = final[keys[best]], final[keys[move]]
    else:
        e, f = root.edges.get(keys[best]), root.edges.get(keys[move])
        if e is None or e.n == 0 or f is None or f.n == 0:
            return move
        ew, en, ew2, fw, fn, fw2 = e.w, e.n, e.w2, f.w, f.n, f.w2
    if not en or not fn:
        return move
    me, mf = ew / en, fw / fn
    margin = trust
    if sure:
        ve, vf = max(0.0, ew2 / en - me * me), max(0.0, fw2 / fn - mf * mf)
        margin += sure * math.sqrt(ve / en + vf / fn)
    return best if me >= mf - margin else move


def unchanged_offers(program: Any, state: State) -> frozenset[int]:
    """`deals=prefer`, at a turn in a window of offers: the options to post or replace an offer
    that would change nothing — the casual trader's draft is an offer the seat has standing
    already (DealSpec.casual values them NEVER). A draft being the trader's, such a move only
    lets the window run on; the root does not search it."""
    pend = state.pending
    vtype = getattr(pend, "vtype", None)
    if not isinstance(vtype, tuple) or vtype[0] != "deal" or not pend.allow_pass:
        return frozenset()
    prefs = program.preferences(state, pend.count - len(pend.actions))
    if prefs is None:
        return frozenset()
    return frozenset(i for i, v in enumerate(prefs) if v == NEVER and i > 0
                     and pend.values[i - 1][0] in ("post", "replace"))


def preferred_outright(program: Any, state: State, node: Decision, trust: float,
                       rng: Any, actions: bool = True) -> int:
    """A trust of 1 or more (`bots { trust 1 }`): no option's mean reward, from 0 to 1, can beat
    the most preferred option's by more, so that where a preference covers the decision and it
    offers no any-time action the search would weigh (`trusted`; `actions`: False where the
    search weighs none, `anytime=none`) the answer is the preferred option, and searching for
    it would only spend the budget — a person waits for nothing. -1: search."""
    if trust < 1 or not program.prefer_fs or (node.actions and actions):
        return -1
    return program.preferred(state, node.count - len(node.actions), rng)


def most_visited(node: Decision, root: "_Node", group: Optional[str] = None) -> int:
    """The move: the index of the option most visited at the root (ties: the higher mean, then
    the first in the menu); 0 if none was searched. With move groups (`partition`) the most
    visited item is taken level by level: the pass against the values summed (and the any-time
    actions), then, if the values win, the most visited bin, then value."""
    keys = option_keys(node)
    edges = root.edges
    items = _top_items(node, group)
    while True:
        x, n = _ranked_items(items, keys, edges)[0]
        if isinstance(x, int):
            return x
        if n == 0:
            return 0
        items = x[1]


def settled(node: Decision, root: "_Node", group: Optional[str], more: float) -> bool:
    """Can `more` iterations no longer change the move (`most_visited`)? True where the most
    visited option leads the next by more visits than that — with move groups, at every level
    on the way to the move. A time budget stops there (the rest of its time could not change
    the move; a bot answers an obvious decision at once)."""
    keys = option_keys(node)
    edges = root.edges
    items = _top_items(node, group)
    while True:
        ranked = _ranked_items(items, keys, edges)
        if len(ranked) > 1 and ranked[0][1] - ranked[1][1] <= more:
            return False
        x = ranked[0][0]
        if isinstance(x, int):
            return True
        items = x[1]


def _options_in(items: list) -> list[int]:
    """The options in a list of items (options and groups), at any depth."""
    out: list[int] = []
    for x in items:
        out.extend([x] if type(x) is int else _options_in(x[1]))
    return out


def _top_items(node: Decision, group: Optional[str]) -> list:
    """The items a decision's move is chosen among first: its options, or with move groups the
    pass, the values as one and the any-time actions."""
    part = partition(node, group)
    if part is None:
        return list(range(node.count))
    return [*part, *range(node.count - len(node.actions), node.count)]


def win_shares(result: Terminal, n: int) -> list[float]:
    """Each seat's share of the win: 1/k for each of k winners, 0 for the others."""
    out = [0.0] * n
    if result.winners:
        share = 1.0 / len(result.winners)
        for p in result.winners:
            out[p] = share
    return out


def rank_rewards(result: Terminal, n: int, sign: int) -> list[float]:
    """Each seat's share of the other seats it outscores (a tie counts half); a seat the
    rulebook's `eligible` bars from winning is outscored by every other seat (by each barred
    one too: a tie among them)."""
    if n < 2:
        return [1.0] * n
    barred = set(result.barred)
    v = [(0, 0) if p in barred else (1, sign * x) for p, x in enumerate(result.scores)]
    return [(sum(1.0 for q in range(n) if v[q] < v[p])
             + 0.5 * sum(1 for q in range(n) if q != p and v[q] == v[p])) / (n - 1)
            for p in range(n)]


def hidden_information(program: Any) -> bool:
    """Does the rulebook hide anything from some seat (a secret or owner-only field, or a
    simultaneous choice)? If not, MCTS on the true state is honest."""
    rb = program.rb
    if any(f.visibility in ("secret", "owner") for f in rb.table_fields + rb.player_fields):
        return True
    return any(isinstance(x, A.Simultaneous) for x in A.walk(rb.items))


class MCTSAgent:
    """UCT on the true state (see the module docstring: it sees hidden information)."""

    kind = "mcts"
    sees_hidden = True

    def __init__(self, iterations: Optional[int] = DEFAULT_ITERATIONS,
                 seconds: Optional[float] = None, seed: Any = 0, c: float = UCT_C,
                 depth: Optional[int] = None, widen: float = WIDEN, deals: Any = False,
                 reward: str = "win", rollout: str = "random", tau: float = TAU,
                 pw: float = 0.0, evaluate: str = "estimate",
                 estimate_depth: Optional[int] = None, cut: str = "decision",
                 prior: float = 0.0, group: str = "none", rave: float = 0.0,
                 anytime: str = "all", root: str = "uct", pair: bool = False,
                 clock: str = "wall", sealed: str = "tree", nst: bool = False,
                 kernel: float = 0.0, reply: float = 0.0, thrift: float = 0.0,
                 prefer: float = 0.0, trust: float = 0.0, sure: float = 0.0,
                 value: Any = None):
        if iterations is None and seconds is None:
            iterations = DEFAULT_ITERATIONS
        if iterations is not None and iterations < 1:
            raise ValueError(f"a search needs at least 1 iteration, not {iterations}")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"a search needs a positive time, not {seconds}")
        if depth is not None and depth < 1:
            raise ValueError(f"the rollout depth must be at least 1, not {depth}")
        if estimate_depth is not None and estimate_depth < 1:
            raise ValueError(f"the rollout depth must be at least 1, not {estimate_depth}")
        if reward not in REWARDS:
            raise ValueError(f"the reward is one of {', '.join(REWARDS)}, not {reward!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"the rollout policy is one of {', '.join(ROLLOUTS)}, not "
                             f"{rollout!r}")
        if evaluate not in EVALS:
            raise ValueError(f"a cut-off is judged by one of {', '.join(EVALS)}, not "
                             f"{evaluate!r}")
        if cut not in CUTS:
            raise ValueError(f"a rollout's depth counts one of {', '.join(CUTS)}, not {cut!r}")
        if not tau > 0:
            raise ValueError(f"MAST's temperature must be positive, not {tau}")
        if pw < 0:
            raise ValueError(f"the progressive widening factor cannot be negative, not {pw}")
        if rave < 0:
            raise ValueError(f"RAVE's equivalence cannot be negative, not {rave}")
        if kernel < 0:
            raise ValueError(f"the kernel's width cannot be negative, not {kernel}")
        self.kernel = kernel            # > 0: halving ranks amounts by `kernel_means`, this wide
        if thrift < 0:
            raise ValueError(f"thrift cannot be negative, not {thrift}")
        self.thrift = thrift            # > 0: MAST's rollouts favour small amounts (_mast_weights)
        if not 0 <= prefer <= 1:
            raise ValueError(f"the share of rollout moves by the rulebook's preferences is "
                             f"from 0 to 1, not {prefer}")
        self.prefer = prefer            # > 0: this share of a rollout's moves, where the rulebook
                                        # declares a preference (`prefer`), its most preferred
        if not 0 <= trust <= 1:
            raise ValueError(f"trust in the rulebook's preference is from 0 to 1, not {trust}")
        self.trust = trust              # > 0: the answer is the most preferred option unless
                                        # another's mean reward beats its by more (`trusted`)
        if not 0 <= sure <= 10:
            raise ValueError(f"the standard errors trust asks of the search are from 0 to 10, "
                             f"not {sure}")
        self.sure = sure                # trust: and by more than this many standard errors
        self._kept = -1                 # trust: the preferred option halving kept to the end
        self._final: Optional[dict[str, tuple[float, int, float]]] = None   # trust: last round
        self.model = 0.0                # ismcts: > 0: the other seats drawn by what they were
                                        # seen to choose, this strongly (`_observe`)
        self._me = -1                   # the seat whose decision is being searched
        self._seen_moves: dict[Any, float] = {}     # (seat, move) -> times it was seen chosen
        self._seen_sites: dict[Any, list[float]] = {}  # (seat, site) -> [times, of them passes]
        if reply < 0:
            raise ValueError(f"the replies' prior cannot be negative, not {reply}")
        self.reply = reply              # > 0: small decisions below the root start with this
                                        # many visits of their one-step estimate (_seed_reply)
        self.rave = rave                # > 0: RAVE's equivalence parameter (the visits at which
                                        # a move's all-moves-as-first average weighs a third)
        if prior < 0:
            raise ValueError(f"the prior's weight cannot be negative, not {prior}")
        if group not in GROUPS:
            raise ValueError(f"the tree groups moves by one of {', '.join(GROUPS)}, not "
                             f"{group!r}")
        self.group = None if group == "none" else group    # the move groups (`partition`)
        if anytime not in ANYTIME:
            raise ValueError(f"any-time actions are searched at one of {', '.join(ANYTIME)}, "
                             f"not {anytime!r}")
        self.anytime_below = anytime == "all"   # any-time actions searched below the root too
        self.anytime_none = anytime == "none"   # ... or not even at the root (`_banned`)
        if root not in ROOTS:
            raise ValueError(f"the root's options share the budget by one of {', '.join(ROOTS)}, "
                             f"not {root!r}")
        self.root = root
        if clock not in CLOCKS:
            raise ValueError(f"a time budget is counted by one of {', '.join(CLOCKS)}, not "
                             f"{clock!r}")
        self.clock = clock              # a time budget counts the wall clock or this process's
        self._now = time.process_time if clock == "cpu" else time.perf_counter    # CPU time
        if sealed not in SEALED:
            raise ValueError(f"a simultaneous decision is searched by one of {', '.join(SEALED)}, "
                             f"not {sealed!r}")
        self.sealed = sealed == "shared"    # later choosers' statistics shared (_sealed_stats)
        self.pair = pair                # halving: a sweep's options on one world and its dice
        self._forced: Optional[int] = None   # halving: the root option this iteration takes
        self._banned: frozenset[int] = frozenset()  # root options not searched (unchanged_offers)
        self.prior = prior              # > 0: the root's options start with this many visits
        self.pw = pw                    # > 0: a node searches its best ceil(pw sqrt(visits + 1))
        self.salt = random.Random(seed).getrandbits(32)   # (self.rng's draws stay the same)
        self.reward = reward
        self.evaluate = evaluate        # a cut-off judged by the rulebook's estimate or score
        self.rollout = rollout
        self._rollout = "random" if rollout == "auto" else rollout    # this decision's policy
        self.tau = tau
        self.mast: dict[Any, list[float]] = {}      # (seat, move) -> [reward sum, count]
        self.nst = nst                  # MAST's averages for pairs of a seat's moves too (NST)
        self.mast2: dict[Any, list[float]] = {}     # (seat, its move before, move) -> the same
        self._margins: list[list[float]] = []       # per seat: this decision's margins' stats
        self.iterations = iterations
        self.seconds = seconds
        self.rng = random.Random(seed)
        self.c = c
        self.depth = depth
        # with no depth given: the depth of a rollout in a rulebook that declares an estimate
        # (to the end where it declares none)
        self.estimate_depth = estimate_depth
        self._depth = depth             # this decision's: depth, or estimate_depth if it applies
        self.cut = cut                  # the depth counts top-level steps, phases or decisions
        self.widen = widen
        if deals not in DEALS:
            raise ValueError(f"the rollouts' deals are one of False (none), True (random), "
                             f"'judge' or 'prefer', not {deals!r}")
        # do the rollouts negotiate at random in deal windows; or judge offers (see above); with
        # "prefer" besides, the steps of an offer being drafted are the rulebook's casual
        # trader's (Program.draft_step), at the root, in the tree and in the rollouts
        self.deals = deals in (True, "random")
        self.judge = deals in ("judge", "prefer")
        self.drafts = deals == "prefer"
        self.last_iterations = 0        # how many the last choice ran (for the benchmarks)
        self.fallbacks = 0              # decisions made at random: no world could be drawn
        self.planned = 0                # decisions answered from the last one's tree (`plan`)
        self.last_root: Optional[_Node] = None
        self.last_rollout_decisions = 0
        self.last_settled = False       # the last time-budget search stopped early (settled)
        self.reuse = False              # start from the last decision's tree where it goes on
        self.plan = 0                   # > 0: answer the seat's next decision from this tree
                                        # where it holds that many visits (`_planned`)
        self._last: Optional[tuple] = None   # (root, the move's key, where in the game) for it
        self.last_reused = 0            # visits the last decision's root started with (reuse)
        self._rate = 0.0                # iterations a second of the last time-budget search
        # a policy for the rollouts' decisions (Python API only; None: MAST or random): a function
        # of (program, state) that returns the index of a regular option of the decision pending
        # in that world — benchmarks/anchor_answers.py's `--rollouts anchor` seats the game's
        # anchors there; a step of a deal window, an answer out of the regular options or one
        # time in `policy_eps` falls back to the rollout's own policy
        self.policy: Optional[Callable[[Any, State], int]] = None
        self.policy_eps = 0.1
        # a learned evaluation (agents/learned.py; the spec's `value=FILE`): a model file's
        # path, or a learned.Model; it judges the cut-offs in place of the rulebook's estimate
        # once bound to the game's program and player count (`_judge`, at the first decision)
        self.value = value
        self._model: Any = None
        if value is not None:
            from mercator.interpreter.agents.learned import Model, load_model
            self._model = value if isinstance(value, Model) else load_model(str(value))
        self._judge: Any = None
        self._judged: tuple[Any, int] = (None, 0)       # the (program, players) it is bound to

    # -- what an iteration starts from
    def prepare(self, program: Any, state: State, seat: int) -> None:
        """Get ready to draw the worlds of one decision (nothing to do on the true state)."""

    def world(self, program: Any, state: State, seat: int) -> State:
        """The state an iteration searches: here a fork of the true one, with a fresh chance
        generator (so the future is not known) and no narration (nobody reads it)."""
        s = state.clone()
        s.narrate = False
        s.rng = self.rng.getrandbits(64)
        return s

    # -- choosing
    def choose(self, program: Any, state: State) -> int:
        """The index of the option the search found best (most visited) at state.pending."""
        node = state.pending
        if not isinstance(node, Decision):
            raise TypeError("a search agent answers decisions, not chance or the end")
        if node.count == 1:
            return 0
        outright = preferred_outright(program, state, node, self.trust, self.rng,
                                      not self.anytime_none)
        if outright < 0 and self.drafts:
            outright = program.draft_step(state)
        if outright >= 0:
            self.last_iterations = self.last_rollout_decisions = self.last_reused = 0
            self.last_settled = True
            self.last_root = _Node()
            self._last = None
            return outright
        root = _Node()
        seat = self._me = node.player
        started = self._now()
        deadline = None if self.seconds is None else started + self.seconds
        self.last_settled = False
        try:
            self.prepare(program, state, seat)
        except ResampleFailed:
            self.fallbacks += 1                       # no world found: an honest random move
            return self.rng.randrange(node.count - len(node.actions))
        done = 0
        credit = 0                      # the visits a reused root brings toward the budget
        carried = self._carried_root() if self.reuse or self.plan else None
        planned = self._planned(node, carried)
        if planned is not None:
            return planned
        if not self.reuse:
            carried = None
        self._last = None
        if carried is not None:
            root, exact = carried
            if exact:
                credit = root.visits
                if deadline is not None and self.seconds is not None and self._rate > 0:
                    deadline -= min(credit / self._rate, (1 - MIN_FRESH) * self.seconds)
        self.last_reused = root.visits
        if self._model is not None:
            self._bind(program, len(state.players))
        # with a learned value the rollouts are cut off (and judged by it) in a rulebook
        # without an estimate too, where they would otherwise run to the end
        self._depth = self.depth if self.depth is not None \
            or (program.estimate_f is None and self._judge is None) else self.estimate_depth
        if self.rollout == "auto":      # MAST's Python loop where rollouts are short, else the
            self._rollout = "mast" if self._depth is not None else "random"   # native playout
        self.last_rollout_decisions = 0
        if carried is None:             # (a reused tree's rewards keep their scale)
            self._margins = [[0, 0.0, 0.0] for _ in state.players]
        for table in (self.mast, self.mast2):         # older averages weigh half as much
            for st in table.values():
                st[0] *= 0.5
                st[1] *= 0.5
        if self.prior > 0 and node.count - len(node.actions) > 1 and carried is None:
            self._seed_root(program, state, seat, node, root)
        self._banned = unchanged_offers(program, state) if self.drafts else frozenset()
        if self.anytime_none and 0 < len(node.actions) < node.count:
            self._banned |= frozenset(range(node.count - len(node.actions), node.count))
        if self._banned and node.count - len(self._banned) == 1:
            self._banned = frozenset()
            self.last_iterations = 0
            self.last_root = root
            return 0                    # one option is left to weigh (the first, the pass of a
            #                             window of offers): nothing to search
        looped = self._now()                  # (the iterations' rate counts from here)
        halving = self.root == "halving" and node.count - len(self._banned) > 2
        if halving:
            done, move = self._halving(program, state, seat, node, root, credit, deadline)
        while not halving:
            self._iterate(program, self.world(program, state, seat), root)
            done += 1
            if self.iterations is not None and done >= self.iterations - credit:
                break
            if deadline is not None:
                now = self._now()
                if now >= deadline:
                    break
                if done % SETTLE_EVERY == 0 and settled(
                        node, root, self.group, done / (now - looped) * (deadline - now)):
                    self.last_settled = True
                    break
        self.last_iterations = done
        self.last_root = root           # (for tests and benchmarks: the tree searched)
        if deadline is not None and done:
            self._rate = done / max(self._now() - looped, 1e-6)
        if not halving:
            move = most_visited(node, root, self.group)
        if self.trust and program.prefer_fs:
            move = trusted(program, state, node, root, move, self.trust, self.rng,
                           self._kept if halving else None,
                           self._final if halving and self.sure else None, self.sure)
        if self.reuse or self.plan:
            where = self._mark()
            if where is not None:
                self._last = (root, option_keys(node)[move], where)
        return move

    def _planned(self, node: Decision, carried: Optional[tuple[_Node, bool]]) -> Optional[int]:
        """Plans (`plan`): the move the last decision's tree holds for this one, where the seat
        decides again with nothing between but its own moves and one-option steps (a run of its
        own decisions: the goods of an offer, the barrels of a purchase) and the tree reached this
        decision with at least `plan` visits; None: search it. The run's decisions then follow
        one line of play, the one the first search valued — searched afresh, each would pick
        among near-equal lines by the noise of its own rollouts, and the run could mix the steps
        of different plans (a barrel for one wagon, then a bid for another)."""
        if not self.plan or carried is None:
            return None
        root, exact = carried
        last = self._last
        if not exact or root.visits < self.plan or last is None \
                or not self._only_own_since(last[2], node.player):
            return None
        move = most_visited(node, root, self.group)
        e = root.edges.get(option_keys(node)[move])
        if e is None or e.n == 0:
            return None
        self.last_iterations = 0
        self.last_root = root
        self.planned += 1
        where = self._mark()
        self._last = None if where is None else (root, option_keys(node)[move], where)
        return move

    def _only_own_since(self, where: Any, seat: int) -> bool:
        """Has nobody but `seat` chosen since the decision at `where` (chance and steps of one
        option aside)?"""
        return False

    def _halving(self, program: Any, state: State, seat: int, node: Decision, root: "_Node",
                 credit: int, deadline: Optional[float]) -> tuple[int, int]:
        """Sequential halving at the root (`root=halving`): every option of the decision (any-time
        actions too) gets the same number of iterations in a round, the round's share of the
        budget; then the half with the lower mean reward is dropped, until one is left or the
        budget is spent; (the iterations, the move: the best mean among those left). Below the
        root the search is UCT as ever. A best-of-many choice by UCT's visits goes to an option
        that was lucky in its few rollouts; here the last rounds compare few options on many
        rollouts each. A round goes in sweeps, one iteration of every option left; with `pair`
        the options of a sweep are searched in one world with one chance generator (common
        random numbers): each is tried against the same hidden cards and the same dice, so
        that a sweep compares the options and not their luck. A time budget gives each round an
        equal share of the time left."""
        keys = option_keys(node)
        alive = [i for i in range(node.count) if i not in self._banned]
        rounds = max(1, math.ceil(math.log2(len(alive))))
        total = None if self.iterations is None else max(0, self.iterations - credit)
        done = 0
        edges = root.edges

        amounts = amount_options(node) if self.kernel else None
        pooled: dict[int, float] = {}
        # trust: the most preferred option stays to the last round, so that the answer is
        # weighed against it on as many iterations as the best (`trusted`)
        kept = self._kept = program.preferred(state, node.count - len(node.actions), self.rng) \
            if self.trust and program.prefer_fs else -1

        def mean(i: int) -> float:
            if i in pooled:
                return pooled[i]
            e = edges.get(keys[i])
            return e.w / e.n if e is not None and e.n else -1.0
        self._final = None
        try:
            for r in range(rounds):
                if len(alive) == 1:
                    break
                before = {keys[i]: (edges[keys[i]].w, edges[keys[i]].n, edges[keys[i]].w2)
                          if keys[i] in edges else (0.0, 0, 0.0) for i in alive}
                if total is not None:
                    share = (total - done) // (rounds - r)
                    each = max(1, share // len(alive))
                    stop_at = None
                else:
                    assert deadline is not None
                    each = None
                    now = self._now()
                    stop_at = now + (deadline - now) / (rounds - r)
                k = 0
                while True:
                    if each is not None and k >= each * len(alive):
                        break
                    if total is not None and done >= total:
                        break
                    if stop_at is not None and k % len(alive) == 0 and k and \
                            self._now() >= stop_at:
                        break
                    self._forced = alive[k % len(alive)]
                    if not self.pair:
                        self._iterate(program, self.world(program, state, seat), root)
                    else:
                        if k % len(alive) == 0:     # a sweep: every option, one world, one
                            sweep = self.world(program, state, seat)    # chance generator
                        self._iterate(program, sweep.clone(), root)
                    done += 1
                    k += 1
                if k < len(alive) and r > 0:        # not one more visit each: the budget is out
                    break
                self._final = {key: (edges[key].w - w0, edges[key].n - n0, edges[key].w2 - v0)
                               if key in edges else (0.0, 0, 0.0)
                               for key, (w0, n0, v0) in before.items()}
                if amounts is not None:
                    pooled = kernel_means(amounts, keys, edges, self.kernel)
                alive.sort(key=lambda i: (mean(i), edges[keys[i]].n if keys[i] in edges
                                          else 0), reverse=True)
                alive = alive[:max(1, (len(alive) + 1) // 2)]
                if kept >= 0 and kept not in alive:
                    alive.append(kept)
        finally:
            self._forced = None
        if amounts is not None:
            pooled = kernel_means(amounts, keys, edges, self.kernel)
        return done, max(alive, key=mean)

    # -- tree reuse: the last decision's tree, followed through the steps since
    def _mark(self) -> Any:
        """Where in the game this decision stands, for `_carried_root` to follow on from
        (None: no reuse; the plain search sees the true state and keeps no trace)."""
        return None

    def _steps_since(self, where: Any) -> Optional[list[tuple[bool, int, Optional[str]]]]:
        """The steps of the game since the decision at `where` — the seat's move first — as
        (chance?, options, the option's key, None where the seat did not see it); None where
        the game does not go on from there."""
        return None

    def _carried_root(self) -> Optional[tuple[_Node, bool]]:
        """Tree reuse (`reuse`): the node the last decision's tree reached by the seat's move
        and every step since that the seat saw (other seats' choices by their labels; chance
        and one-option steps make no node), as this decision's root, and whether its visits
        count toward the budget (no chance step of several outcomes since: the tree does not
        tell outcomes apart, so after a die roll its statistics are a prior, not a search of
        this position). None where the game does not go on from the last decision, a step
        since was hidden from the seat, or the tree never went there."""
        last = self._last
        if last is None:
            return None
        old, key, where = last
        steps = self._steps_since(where)
        if not steps:
            return None
        chance, _, first = steps[0]
        if chance or first != key:
            return None
        e = old.edges.get(key)
        node = e.below if e is not None else None
        exact = True
        for chance, count, option in steps[1:]:
            if node is None:
                return None
            if chance:
                exact = exact and count <= 1
                continue
            if count <= 1:
                continue
            if option is None or f"{option}#1" in node.edges:   # hidden, or not told apart
                return None
            e = node.edges.get(option)
            node = e.below if e is not None else None
        if node is None or node.visits == 0:
            return None
        return node, exact

    def _iterate(self, program: Any, s: State, root: _Node) -> None:
        rng = self.rng
        path: list[tuple[_Node, _Edge, int]] = []
        tree: Optional[_Node] = root
        n = len(s.players)
        moves: Optional[list[tuple[int, Any]]] = \
            [] if self._rollout in ("mast", "greedy") or self.pw or self.rave \
            or self.policy is not None or (self.prefer and program.prefer_fs) else None
        groups: list[tuple[_Edge, int]] = []     # the move groups' edges on the path
        # cut=chance: the iteration's horizon is the depth-th chance draw of several outcomes,
        # counted from the root, in the tree as in the rollout
        horizon = self._depth if self.cut == "chance" and self._depth is not None else 0
        drawn = 0
        under_way: Optional[tuple] = None   # the simultaneous decision under way (_sealed_stats)
        while tree is not None:
            pend = s.pending
            if pend.__class__ is Terminal:
                break
            if pend.__class__ is Chance:
                assert isinstance(pend, Chance)
                under_way = None
                w = pend.weights
                if horizon and len(w) > 1:
                    drawn += 1
                    if drawn >= horizon:
                        break
                program.apply(s, weighted_index(w, s.randbelow(sum(w))))
                continue
            assert isinstance(pend, Decision)
            if self.sealed and pend.simultaneous:
                stats, under_way = self._sealed_stats(tree, pend, under_way)
            else:
                stats, under_way = tree, None
            if pend.count == 1:
                program.apply(s, 0)
                continue
            if self.drafts and (i := program.draft_step(s)) >= 0:
                program.apply(s, i)             # a draft's step: the casual trader's
                continue
            keys = option_keys(pend)
            regular = pend.count - len(pend.actions)
            if tree is root and self._forced is not None:    # halving: the round's option
                i = self._forced
                tree = _take(program, s, tree, tree, keys, i, move_key(pend, i), path, moves)
                if tree is None:
                    break                   # expanded: the rollout takes over
                continue
            if self.model and pend.player != self._me and tree is not root \
                    and no_deal_index(pend) < 0:
                site = self._seen_sites.get((pend.player, pend.span))
                if site is not None and site[0] >= MODEL_MIN:
                    # another seat whose choices here were seen: drawn as the model says
                    # (`_modelled`), not by UCT — the tree then holds the replies it expects
                    i, key = self._mast_draw(pend, pend.player, regular)
                    tree = _take(program, s, tree, stats, keys, i, key, path, moves)
                    if tree is None:
                        break               # expanded: the rollout takes over
                    continue
            part = partition(pend, self.group) if self.group is not None else None
            if part is not None and tree is root and self._banned:
                part = [x for x in part if not (isinstance(x, int) and x in self._banned)]
            if part is not None:
                top = [*part, *(range(regular, pend.count)
                                if (tree is root or self.anytime_below)
                                and stats.visits >= self.widen * regular else ())]
                i, gs, fresh_i = self._select_in(stats, pend, keys, top, stats.visits)
                leaf = stats.edges[keys[i]]
                path.append((stats, leaf, pend.player))
                for g in gs:
                    groups.append((g, pend.player))
                if moves is not None:
                    moves.append((pend.player, move_key(pend, i)))
                program.apply(s, i)
                if fresh_i:
                    break                   # expanded: the rollout takes over
                tree = _below(tree, leaf, keys[i])
                continue
            cand: Any = range(regular)
            if self.pw:
                k = max(2, math.ceil(self.pw * math.sqrt(stats.visits + 1)))
                if k < regular:
                    cand = self._admitted(stats, pend, keys, range(regular), k)
            if (tree is root or self.anytime_below) \
                    and stats.visits >= self.widen * regular:   # (the whole menu's, with pw too)
                cand = [*cand, *range(regular, pend.count)]
            if tree is root and self._banned:
                cand = [i for i in cand if i not in self._banned]
            edges = stats.edges
            if self.reply and not edges and tree is not root and regular <= REPLY_MAX \
                    and len(cand) == regular and stats is tree:
                i = self._seed_reply(program, s, pend, keys, regular, edges)
                if i >= 0:                      # the node is expanded by its prior: a visit
                    e = edges[keys[i]]          # of the option the prior ranks first, then
                    path.append((stats, e, pend.player))        # the rollout
                    if moves is not None:
                        moves.append((pend.player, move_key(pend, i)))
                    program.apply(s, i)
                    tree = None
                    break
            fresh = []
            for i in cand:
                f = edges.get(keys[i])
                if f is None:
                    f = edges[keys[i]] = _Edge()
                f.avail += 1
                if f.n == 0:
                    fresh.append(i)
            if fresh:
                i = fresh[0] if self.pw else fresh[rng.randrange(len(fresh))]
                e = edges[keys[i]]
                path.append((stats, e, pend.player))
                if moves is not None:
                    moves.append((pend.player, move_key(pend, i)))
                program.apply(s, i)
                tree = None                  # expanded: the rollout takes over
                break
            c = self.c
            best_i, best_v = -1, -1.0
            am = stats.amaf if self.rave else None
            for i in cand:
                e = edges[keys[i]]
                q = e.w / e.n
                if am is not None:
                    q = self._blend(am, pend, i, e.n, q)
                v = q + c * math.sqrt(math.log(e.avail) / e.n)
                if v > best_v:
                    best_i, best_v = i, v
            e = edges[keys[best_i]]
            path.append((stats, e, pend.player))
            if moves is not None:
                moves.append((pend.player, move_key(pend, best_i)))
            program.apply(s, best_i)
            tree = _below(tree, e, keys[best_i])
        if horizon and drawn >= horizon:
            pass                            # at the horizon: judged where it stands
        elif s.pending.__class__ is not Terminal:
            if self._rollout in ("mast", "greedy") or self.policy is not None \
                    or (self.prefer and program.prefer_fs) \
                    or (self.cut != "decision" and self._depth is not None):
                self.last_rollout_decisions += self._stepped_playout(program, s, moves, drawn)
            else:
                self.last_rollout_decisions += program.playout(s, rng, self._depth,
                                                             anytime=False, deals=self.deals)
        judge = self._judge
        if s.pending.__class__ is Terminal:
            # a margin compares a rollout with the others: where cut-offs are judged by the
            # estimate, so is a rollout that reached the end (one scale: the estimate need not
            # be in the score's units, Die Händler's counts Taler where its score counts levels);
            # where they are judged by a learned value, by the final margins it predicts
            if self.reward not in ("margin", "blend", "mean", "own") \
                    or self.evaluate != "estimate":
                result = s.pending
            elif judge is not None:
                result = judge.at_end(s.pending)
            else:
                result = s.pending if program.estimate_f is None else program.estimated(s)
            won = s.pending.winners             # (reward=blend: the game's, not the estimate's)
        elif self.evaluate == "estimate":
            # (the score where the rulebook declares no estimate and no value is given)
            result = program.estimated(s) if judge is None else judge.cut_off(s)
            won = None
        else:
            result, won = program.result(s), None
        reward = self._rewards(program, result, n, won)
        for node, e, seat in path:
            node.visits += 1
            e.n += 1
            e.w += reward[seat]
        if path and path[0][0] is root:      # the root's options: their rewards' spread (trust)
            r0 = reward[path[0][2]]
            path[0][1].w2 += r0 * r0
        for e, seat in groups:
            e.n += 1
            e.w += reward[seat]
        if self.rave and moves:
            self._credit_amaf(path, moves, reward)
        if moves is not None:
            mast = self.mast
            for seat, key in moves:
                if key is None:
                    continue
                st = mast.get((seat, key))
                if st is None:
                    mast[(seat, key)] = [reward[seat], 1.0]
                else:
                    st[0] += reward[seat]
                    st[1] += 1.0
            if self.nst:
                self._credit_pairs(moves, reward)

    def _bind(self, program: Any, players: int) -> None:
        """The learned value at work in this program's games of this many players (a ModelError
        for a model of another rulebook or player count)."""
        if self._judged != (program, players):
            from mercator.interpreter.agents.learned import Judge
            self._judge = Judge(self._model, program, players)
            self._judged = (program, players)

    def _credit_pairs(self, moves: list[tuple[int, Any]], reward: list[float]) -> None:
        """NST: each move of the simulation credited to the pair it makes with the same seat's
        move before it in the simulation (any-time actions and moves before the decision being
        searched are not counted)."""
        table = self.mast2
        last: dict[int, Any] = {}
        for seat, key in moves:
            if key is None:
                continue
            before = last.get(seat)
            if before is not None:
                st = table.get((seat, before, key))
                if st is None:
                    table[(seat, before, key)] = [reward[seat], 1.0]
                else:
                    st[0] += reward[seat]
                    st[1] += 1.0
            last[seat] = key

    def _seed_root(self, program: Any, state: State, seat: int, node: Decision,
                   root: _Node) -> None:
        """The prior (`prior` > 0): each option of the root (any-time actions too) judged one
        step on — applied in PRIOR_WORLDS worlds the search draws, the seat's estimate less the
        best other seat's (Program.estimates) where the next step waits —, standardised over
        the options and squashed as a margin reward is; each option starts with `prior` visits
        of that reward, and progressive widening admits the options in its order. The search
        overturns it where its rollouts disagree."""
        count = node.count - (len(node.actions) if self.anytime_none else 0)   # (any-time
        keys = option_keys(node)                                 # actions too, where searched)
        sums = [0.0] * count
        sign = program.key_signs[0] if program.key_signs else 1
        for _ in range(PRIOR_WORLDS):
            w = self.world(program, state, seat)
            for i in range(count):
                c = w.clone()
                try:
                    program.apply(c, i)
                    v = [sign * x for x in program.estimates(c)]
                except RuleError:           # a rule error on this path: no opinion
                    continue
                sums[i] += v[seat] - max((v[q] for q in range(len(v)) if q != seat), default=0)
        mean = sum(sums) / count
        sd = math.sqrt(sum((x - mean) ** 2 for x in sums) / count)
        root.rank = {}
        for i in range(count):
            r = 0.5 + 0.5 * math.tanh((sums[i] - mean) / sd) if sd > 1e-9 else 0.5
            root.rank[keys[i]] = r
            e = root.edges[keys[i]] = _Edge()
            e.n = e.avail = int(self.prior)
            e.w = self.prior * r
        part = partition(node, self.group)
        stack = [] if part is None else [x for x in part if type(x) is not int]
        while stack:                              # a group: as good as its best option
            gkey, items = stack.pop()
            g = root.groups[gkey] = _Edge()
            g.n = g.avail = int(self.prior)
            g.w = self.prior * max(root.rank[keys[i]] for i in _options_in(items))
            stack.extend(x for x in items if type(x) is not int)

    def _seed_reply(self, program: Any, s: State, pend: Decision, keys: list[str],
                    regular: int, edges: dict[str, _Edge]) -> int:
        """Replies (`reply` > 0): a small decision below the root — a yes or no, take a fee or
        not — met for the first time starts each option with `reply` visits of what the
        rulebook's estimate says of it one step on, in this iteration's world, the chooser's
        margin squashed as a rollout's margin is. Unsearched, such a node answers at random
        for its first visits, so a searcher that names a price sees it taken half the time
        however high; with the prior the other seat answers as its estimate says until the
        rollouts say otherwise. The option the prior ranks first (-1: no option could be
        judged, the node is left to the search)."""
        seat = pend.player
        n = len(s.players)
        sign = program.key_signs[0] if program.key_signs else 1
        margins: list[Optional[float]] = []
        for i in range(regular):
            c = s.clone()
            try:
                program.apply(c, i)
                margins.append(score_margins(program.estimated(c), n, sign,
                                             AGAINST.get(self.reward, "best"))[seat])
            except RuleError:               # a rule error on this path: no opinion
                margins.append(None)
        if all(m is None for m in margins):
            return -1
        st = self._margins[seat]
        sd = math.sqrt(st[2] / st[0]) if st[0] > 1 else 0.0
        best, best_r = -1, -1.0
        for i, d in enumerate(margins):
            r = 0.5 if d is None or sd <= 1e-9 else 0.5 + 0.5 * math.tanh((d - st[1]) / sd)
            e = edges[keys[i]] = _Edge()
            e.n = e.avail = int(self.reply)
            e.w = self.reply * r
            if r > best_r:
                best, best_r = i, r
        return best

    def _sealed_stats(self, tree: _Node, pend: Decision, under_way: Optional[tuple]
                      ) -> tuple[_Node, Optional[tuple]]:
        """Where a simultaneous decision's statistics are kept (`sealed=shared`), and the
        simultaneous decision under way.
        The choosers of a simultaneous decision (`simultaneous p in ...: choose`) take their
        turns one after another, each unseen by the others; in a tree keyed by the moves made,
        a later chooser's node would lie below the earlier choices it cannot see, and the
        search would credit it with answering them (an opponent outbidding the searcher's
        sealed bid by exactly one step). So a later chooser's statistics are kept at the node
        where the decision began, one set per seat, shared whatever the earlier choosers chose
        (decoupled selection); the tree below still follows the moves made. A decision is in
        the same simultaneous decision as the one before while it is simultaneous, from the same
        `choose` and of a seat that has not chosen in it yet (`under_way`: the node where it
        began, its choose's span, the seats that have chosen)."""
        seat = pend.player
        if under_way is None or under_way[1] is not pend.span or seat in under_way[2]:
            return tree, (tree, pend.span, {seat})      # the first chooser: as ever
        start, _, chose = under_way
        chose.add(seat)
        if start.sealed is None:
            start.sealed = {}
        node = start.sealed.get(seat)
        if node is None:
            node = start.sealed[seat] = _Node()
        return node, under_way

    def _select_in(self, tree: _Node, pend: Decision, keys: list[str], items: list,
                   visits: float) -> tuple[int, list[_Edge], bool]:
        """Move groups (`partition`): UCT among `items` — options, and groups whose edges (in
        tree.groups) are credited with every visit of an option inside — then, where a group
        wins, among its items, down to an option. An item never tried is tried first (the pass
        before the values; a group's first visit tries one of its options); progressive
        widening applies among options (not groups), counting the visits of the group they are
        in (`visits`). The option, the group edges on the way, and whether the option was new
        (the tree is expanded there)."""
        edges, groups = tree.edges, tree.groups
        cand: Any = items
        if self.pw and all(type(x) is int for x in items):
            k = max(2, math.ceil(self.pw * math.sqrt(visits + 1)))
            if k < len(items):
                cand = self._admitted(tree, pend, keys, items, k)
        entries = []
        fresh = []
        for x in cand:
            if type(x) is int:
                e = edges.get(keys[x])
                if e is None:
                    e = edges[keys[x]] = _Edge()
            else:
                e = groups.get(x[0])
                if e is None:
                    e = groups[x[0]] = _Edge()
            e.avail += 1
            entries.append((x, e))
            if e.n == 0:
                fresh.append((x, e))
        if fresh:
            x, e = fresh[0] if self.pw else fresh[self.rng.randrange(len(fresh))]
        else:
            c = self.c
            x, e = entries[0]
            best_v = -1.0
            am = tree.amaf if self.rave else None
            for y, f in entries:
                q = f.w / f.n
                if am is not None and type(y) is int:
                    q = self._blend(am, pend, y, f.n, q)
                v = q + c * math.sqrt(math.log(f.avail) / f.n)
                if v > best_v:
                    x, e, best_v = y, f, v
        if type(x) is int:
            return x, [], e.n == 0
        i, gs, new = self._select_in(tree, pend, keys, x[1], e.n)
        return i, [e, *gs], new

    def _blend(self, am: dict, pend: Decision, i: int, n: float, q: float) -> float:
        """RAVE: an option's mean blended with its all-moves-as-first average at this node,
        weight sqrt(k / (3n + k)) (k = `rave`): the average leads while the option has few
        visits and fades as they grow."""
        st = am.get(move_key(pend, i))
        if st is None or st[1] <= 0:
            return q
        b = math.sqrt(self.rave / (3 * n + self.rave))
        return (1 - b) * q + b * st[0] / st[1]

    @staticmethod
    def _credit_amaf(path: list, moves: list, reward: list[float]) -> None:
        """RAVE: credit each node of the path with the moves its seat made from there on
        (its own, later in the tree, in the rollout), each move once, as if played first."""
        for j, (node, _, seat) in enumerate(path):
            am = node.amaf
            if am is None:
                am = node.amaf = {}
            r = reward[seat]
            seen = set()
            for who, key in moves[j:]:
                if who != seat or key is None or key in seen:
                    continue
                seen.add(key)
                st = am.get(key)
                if st is None:
                    am[key] = [r, 1.0]
                else:
                    st[0] += r
                    st[1] += 1.0

    def _admitted(self, tree: _Node, pend: Decision, keys: list[str], pool: Any,
                  k: int) -> list[int]:
        """Progressive widening: the options this node searches (of `pool`, indices into the
        menu), the k it admitted first (once admitted, an option stays; the next admitted is
        the best by `_ranked` of those not yet in). Options not on offer in this world are
        left out."""
        if tree.admitted is None:
            tree.admitted = {}
        adm = tree.admitted
        cand = [i for i in pool if keys[i] in adm]
        if len(cand) < k:
            order = self._ranked(pend, keys, pool)
            if tree.rank is not None:               # the root's prior first
                rank = tree.rank
                order.sort(key=lambda i: -rank.get(keys[i], 0.5))
            for i in order:
                if keys[i] not in adm:
                    adm[keys[i]] = None
                    cand.append(i)
                    if len(cand) >= k:
                        break
            cand.sort(key=lambda i: list(adm).index(keys[i]))
        return cand

    def _ranked(self, pend: Decision, keys: list[str], pool: Any) -> list[int]:
        """The options of `pool` (indices into the menu), best first by the seat's MAST
        averages (an untried move counts 0.5; ties in an order fixed by the agent's seed, not
        the menu's)."""
        mast, seat, salt = self.mast, pend.player, self.salt

        def prior(i: int) -> tuple[float, int]:
            st = mast.get((seat, move_key(pend, i)))
            q = st[0] / st[1] if st is not None and st[1] > 0 else 0.5
            return -q, zlib.crc32(f"{salt}:{keys[i]}".encode())
        return sorted(pool, key=prior)

    def _rewards(self, program: Any, result: Terminal, n: int,
                 won: Optional[tuple] = None) -> list[float]:
        """Each seat's reward for a finished (or cut-off) rollout (see `reward`); `won`, the
        game's winners where it finished (reward=blend counts them, not the estimate's)."""
        if self.reward == "win":
            return win_shares(result, n)
        sign = program.key_signs[0] if program.key_signs else 1
        if self.reward == "rank":
            return rank_rewards(result, n, sign)
        out = []
        if self.reward == "blend":
            # half the win (the game's at its end, the best estimate's at a cut-off), half the
            # margin, so that a seat also cares whether it ends first, not only by how much
            wins = win_shares(result if won is None else attrs.evolve(result, winners=won), n)
        for p, d in enumerate(score_margins(result, n, sign, AGAINST.get(self.reward, "best"))):
            st = self._margins[p]                     # Welford: count, mean, sum of squares
            st[0] += 1
            delta = d - st[1]
            st[1] += delta / st[0]
            st[2] += delta * (d - st[1])
            sd = math.sqrt(st[2] / st[0]) if st[0] > 1 else 0.0
            out.append(0.5 + 0.5 * math.tanh((d - st[1]) / sd) if sd > 1e-9 else 0.5)
        if self.reward == "blend":
            return [0.5 * (w + m) for w, m in zip(wins, out)]
        return out

    def _stepped_playout(self, program: Any, s: State,
                         moves: Optional[list[tuple[int, Any]]], drawn: int = 0) -> int:
        """Play s on through `apply` by MAST (softmax over each move's average reward; its moves
        are added to `moves`) or, with the random policy, uniformly — or by `self.policy` where
        one is given (its moves added too); no any-time action, no deal
        unless `deals`. It stops at the end of the game or at the depth: after `depth` decisions
        (chance steps are not counted, as in Program.playout), or with cut="step" at the first
        decision of the `depth`-th new step of the rulebook's top level (`top_step`; with
        cut="phase", of its `depth`-th new phase, `top_phase`), never after more than STEP_CAP
        decisions. The decisions made."""
        rng, limit = self.rng, self._depth
        by_mast = self._rollout in ("mast", "greedy") and moves is not None
        policy = self.policy if moves is not None else None
        prefer = self.prefer if moves is not None and program.prefer_fs else 0.0
        greedy = self._rollout == "greedy" and moves is not None
        draws = self.cut == "chance" and limit is not None
        steps = self.cut not in ("decision", "chance") and limit is not None
        step_limit = limit if limit is not None else 0
        where = top_step if self.cut == "step" else top_phase
        made = stepped = 0
        last = None
        before: Optional[dict[int, Any]] = None     # nst: each seat's last move so far
        if self.nst and by_mast:
            assert moves is not None
            before = {seat: key for seat, key in moves if key is not None}
        while True:
            pend = s.pending
            cls = pend.__class__
            if cls is Terminal:
                break
            if cls is Chance:
                w = pend.weights
                if draws and len(w) > 1:
                    drawn += 1
                    if drawn >= step_limit:
                        break
                program.apply(s, weighted_index(w, s.randbelow(sum(w))))
                continue
            if draws:
                if made >= STEP_CAP:
                    break
            elif steps:
                g = where(s)
                if g != last:
                    if last is not None:
                        stepped += 1
                        if stepped >= step_limit:
                            break
                    last = g
                if made >= STEP_CAP:
                    break
            elif made == limit:
                break
            i = -1 if self.deals else no_deal_index(pend)
            if i >= 0 and self.drafts:
                j = program.draft_step(s)
                if j >= 0:
                    i = j
                else:
                    i = self._judged_deal_step(program, s, pend, i)
            elif i >= 0 and self.judge:
                i = self._judged_deal_step(program, s, pend, i)
            seat = pend.player
            if i < 0:
                m = pend.count - len(pend.actions)
                if m == 1:
                    i = 0
                elif prefer and rng.random() < prefer \
                        and (i := program.preferred(s, m, rng)) >= 0:
                    assert moves is not None       # the rulebook's preference (`prefer`)
                    moves.append((seat, move_key(pend, i)))
                elif policy is not None and rng.random() >= self.policy_eps \
                        and 0 <= (i := policy(program, s)) < m:
                    assert moves is not None
                    moves.append((seat, move_key(pend, i)))
                elif greedy and m <= GREEDY_MENU and rng.random() >= GREEDY_EPS:
                    assert moves is not None
                    i = self._greedy_step(program, s, seat, m)
                    moves.append((seat, move_key(pend, i)))
                elif not by_mast:
                    i = rng.randrange(m)
                else:
                    assert moves is not None
                    i, key = self._mast_draw(
                        pend, seat, m, before.get(seat) if before is not None else None)
                    moves.append((seat, key))
                    if before is not None and key is not None:
                        before[seat] = key
            program.apply(s, i)
            made += 1
        return made

    def _mast_draw(self, pend: Decision, seat: int, m: int, before: Any = None
                   ) -> tuple[int, Any]:
        """A move drawn by MAST's policy among the first m options (`_mast_weights`: where a
        pass stands beside the values, the pass against the values as one, then a value): its
        index and move key."""
        rng = self.rng
        keys, ws, best = self._mast_weights(pend, seat, m, before)
        lo = 0
        if best is not None:
            if rng.random() * (ws[0] + best) < ws[0]:
                return 0, keys[0]           # the pass
            lo = 1                          # one of the values
        x = rng.random() * sum(ws[lo:])
        i = m - 1
        for j in range(lo, m):
            x -= ws[j]
            if x < 0:
                i = j
                break
        return i, keys[i]

    def _mast_weights(self, pend: Decision, seat: int, m: int, before: Any = None
                      ) -> tuple[list[Any], list[float], Optional[float]]:
        """MAST's policy at the first m options of a decision of `seat`: the options' move
        keys, their softmax weights by average reward (an untried move counts 1/2; with `nst`
        and the seat's move `before` this one in the simulation, a move's average is the mean
        of its own and that of the pair it makes with `before`, where the pair was played
        NST_MIN times; with `thrift`, a menu of amounts' weights falling by e every `thrift`
        steps of the menu above its smallest amount; with `model`, another seat's weights times
        how often it was seen to choose each move, `_modelled`), and where
        a pass stands beside two or more values, the weight of the values taken as one (by the
        values' mean average where the moves are grouped, else the best value's) — the pass
        is drawn against it before a value is drawn among the values (None: no such pass)."""
        mast, tau = self.mast, self.tau
        keys = [move_key(pend, j) for j in range(m)]
        qs = []
        for k in keys:
            st = mast.get((seat, k))
            qs.append(st[0] / st[1] if st is not None and st[1] > 0 else 0.5)
        if before is not None and self.mast2:
            pairs = self.mast2
            for j, k in enumerate(keys):
                st = pairs.get((seat, before, k))
                if st is not None and st[1] >= NST_MIN:
                    qs[j] = 0.5 * (qs[j] + st[0] / st[1])
        top = max(qs)
        ws = [math.exp((q - top) / tau) for q in qs]
        if self.thrift > 0:             # amounts: the smaller the likelier, as MAST allows
            amounts = amount_options(pend)
            if amounts is not None:
                scale = self.thrift
                for i, x in zip(*amounts):
                    if i < m:
                        ws[i] *= math.exp(-x / scale)
        site = self._seen_sites.get((seat, pend.span)) if self.model and seat != self._me \
            else None
        grouped = pend.allow_pass and m > 2 and self.group is not None \
            and (self.group != "amounts" or _amounts(pend))
        if site is not None and site[0] >= MODEL_MIN:
            values_odds = self._modelled(seat, site, keys, ws, grouped)
        else:
            values_odds = 1.0
        if not (pend.allow_pass and m > 2):
            return keys, ws, None
        if grouped:
            tn = tw = 0.0                   # the values' mean (by their counts)
            for k in keys[1:]:
                st = mast.get((seat, k))
                if st is not None and st[1] > 0:
                    tn += st[1]
                    tw += st[0]
            q = tw / tn if tn else 0.5
            if before is not None and self.mast2:     # nst: and as the pairs with `before` say
                pair_n = pair_w = 0.0
                for k in keys[1:]:
                    st = self.mast2.get((seat, before, k))
                    if st is not None:
                        pair_n += st[1]
                        pair_w += st[0]
                if pair_n >= NST_MIN:
                    q = 0.5 * (q + pair_w / pair_n)
            return keys, ws, math.exp((q - top) / tau) * values_odds
        return keys, ws, max(ws[1:])        # the best value's

    def _modelled(self, seat: int, site: list[float], keys: list[Any], ws: list[float],
                  grouped: bool) -> float:
        """The model of another seat (`model=K`): each of its options' weights `ws` times the
        share of the seat's choices at this site that were that move, smoothed (one more than
        seen, over the times seen and the options), raised to K — where the pass is drawn
        against the values as one (`grouped`), the pass by the share of passes and each value
        among the values by its share of them; the factor the values taken as one are weighed
        by against the pass (1.0 where not grouped)."""
        k, seen = self.model, self._seen_moves
        total, passes = site
        m = len(keys)
        if grouped:
            ws[0] *= ((passes + 1) / (total + 2)) ** k
            among = total - passes + m - 1
            for j in range(1, m):
                ws[j] *= ((seen.get((seat, keys[j]), 0.0) + 1) / among) ** k
            return ((total - passes + 1) / (total + 2)) ** k
        among = total + m
        for j in range(m):
            ws[j] *= ((seen.get((seat, keys[j]), 0.0) + 1) / among) ** k
        return 1.0

    def belief(self, pend: Decision) -> list[float]:
        """How likely another seat's hidden choice was each option, for the worlds a search
        draws (`hidden=mast`; engine/resample.py, Trace.belief): as MAST's rollouts would
        choose there — the pass against the values, then a value by the softmax; any-time
        actions as likely as the least likely regular option."""
        m = pend.count - len(pend.actions)
        if m == 0:                          # any-time actions alone: alike
            return [1.0] * pend.count
        _, ws, best = self._mast_weights(pend, pend.player, m)
        if best is not None:
            p_pass = ws[0] / (ws[0] + best)
            rest = sum(ws[1:])
            ws = [p_pass] + [(1 - p_pass) * w / rest for w in ws[1:]]
        return ws + [min(ws)] * len(pend.actions)

    def _greedy_step(self, program: Any, s: State, seat: int, m: int) -> int:
        """rollout=greedy at a small menu: the option after which the seat's estimate leads the
        best other seat's by most (each option applied to a copy, `Program.estimates`; in the
        score's direction), ties at random."""
        sign = program.key_signs[0] if program.key_signs else 1
        best: list[int] = []
        top = -math.inf
        for j in range(m):
            c = s.clone()
            program.apply(c, j)
            e = program.estimates(c)
            mine = sign * e[seat]
            d = mine - max((sign * v for q, v in enumerate(e) if q != seat), default=0)
            if d > top:
                top, best = d, [j]
            elif d == top:
                best.append(j)
        return best[0] if len(best) == 1 else best[self.rng.randrange(len(best))]

    @staticmethod
    def _judged_deal_step(program: Any, s: State, pend: Decision, i: int) -> int:
        """deals="judge", at a step of a deal window where a rollout would pass or cancel (i):
        a seat drafting an offer finishes it ('done', up to 'post') rather than cancel it; at
        a turn's start it accepts the standing offer that raises its estimate most
        (Program.estimates, the offer applied to a copy), if any does; else i."""
        vals = pend.values
        j = 1 if pend.allow_pass else 0
        if not pend.allow_pass:
            for k, v in enumerate(vals):
                if v[0] == "done":
                    return k
            return i
        best, best_v = i, None
        seat = pend.player
        for k, v in enumerate(vals):
            if v[0] != "accept":
                continue
            if best_v is None:
                best_v = program.estimates(s)[seat]
            c = s.clone()
            program.apply(c, k + j)
            e = program.estimates(c)[seat]
            if e > best_v:
                best, best_v = k + j, e
        return best


def top_phase(s: State) -> bytes:
    """Where the game stands in its rounds: the round and the main frame's position (which phase
    runs). It changes when a phase begins, not within one."""
    return marshal.dumps((s.round, s.stack[0][:3] if s.stack else None))


class ISMCTSAgent(MCTSAgent):
    """Information-set MCTS: each iteration searches a world drawn from what the deciding seat
    knows (engine/resample.py), never the true state. The game must keep the record of what
    each seat saw and its chance as steps (new_game(..., narrate=True, explicit_chance=True)).

    Drawing a world replays the game, so a decision draws at most `worlds` of them (from one
    trace of the game as the seat saw it) and the iterations take them in turn, each on a fork
    with its own chance generator. At the seat's next decision in the same game the trace is
    extended and those worlds carried through the steps since (see `prepare`)."""

    kind = "ismcts"
    sees_hidden = False

    def __init__(self, iterations: Optional[int] = DEFAULT_ITERATIONS,
                 seconds: Optional[float] = None, seed: Any = 0, c: float = UCT_C,
                 depth: Optional[int] = None, widen: float = WIDEN, worlds: int = WORLDS,
                 deals: Any = False, reward: str = "win", rollout: str = "random",
                 tau: float = TAU, pw: float = 0.0, evaluate: str = "estimate",
                 estimate_depth: Optional[int] = None, cut: str = "decision",
                 prior: float = 0.0, group: str = "none", reuse: bool = False,
                 rave: float = 0.0, anytime: str = "all", root: str = "uct",
                 pair: bool = False, clock: str = "wall", sealed: str = "tree",
                 hidden: str = "uniform", nst: bool = False, plan: int = 0,
                 kernel: float = 0.0, reply: float = 0.0, thrift: float = 0.0,
                 model: float = 0.0, prefer: float = 0.0, trust: float = 0.0,
                 sure: float = 0.0, value: Any = None):
        super().__init__(iterations, seconds, seed, c, depth, widen, deals, reward, rollout, tau,
                         pw, evaluate, estimate_depth, cut, prior, group, rave, anytime,
                         root, pair, clock, sealed, nst, kernel, reply, thrift, prefer, trust,
                         sure, value)
        if model < 0:
            raise ValueError(f"the model's weight cannot be negative, not {model}")
        self.model = model
        self._modelled_at: tuple[Optional[Trace], int] = (None, 0)   # the steps counted
        self._unshown: list = []        # other seats' sealed choices, to count once shown
        if hidden not in HIDDENS:
            raise ValueError(f"another seat's hidden choice is drawn by one of "
                             f"{', '.join(HIDDENS)}, not {hidden!r}")
        self.hidden = hidden            # mast: the worlds draw hidden choices by `belief`
        self.reuse = reuse              # (the trace says which steps since the seat saw)
        if plan < 0:
            raise ValueError(f"a plan's visits cannot be negative, not {plan}")
        self.plan = plan
        if worlds < 1:
            raise ValueError(f"a search needs at least 1 world, not {worlds}")
        self.worlds = self._worlds = worlds
        self._trace: Optional[Trace] = None
        self._drawn: list[State] = []
        self._turn = 0
        self.carried = 0                 # worlds of the last decision carried into this one

    def prepare(self, program: Any, state: State, seat: int) -> None:
        """The trace of the game as the seat saw it, and the worlds of the last decision that
        still fit: a later decision of the same seat in the same game extends the trace by
        the steps since (engine/resample.py: Trace.extend) and carries the worlds it searched
        through them (Trace.carry), drawing fresh ones only for those that no longer fit."""
        tr = self._trace
        kept = self._drawn
        if tr is None or tr.program is not program or tr.seat != seat \
                or not self._extend(tr, state):
            tr = self._trace = Trace(program, state, seat)
            kept = []
        tr.belief = self.belief if self.hidden == "mast" else None
        if self.model:
            self._observe(tr)
        self._drawn = []
        self._turn = 0
        self.worlds = self._worlds
        for w in kept[:self.worlds]:
            c = tr.carry(w, self.rng)
            if c is not None:
                self._drawn.append(c)
        self.carried = len(self._drawn)
        if not self._drawn:
            self._drawn.append(tr.sample(self.rng, TRIES))  # ResampleFailed: not one world

    def _observe(self, tr: Trace) -> None:
        """The model of the other seats (`model`): each other seat's choices that this seat saw
        (the trace's steps of kind SEEN: an open choice announced to it, or a sealed one once
        it was shown), counted per move and per choose site, from the steps not counted yet
        (all of them in a new trace). What the seat did not see — a sealed bid not yet shown,
        a choice whose value is secret — is not counted."""
        at_tr, at = self._modelled_at
        if at_tr is not tr:
            self._seen_moves = {}
            self._seen_sites = {}
            self._unshown = []
            at = 0
        moves, sites = self._seen_moves, self._seen_sites
        shown = [st for st in self._unshown if st.base == SEEN]
        if shown:
            self._unshown = [st for st in self._unshown if st.base != SEEN]
        for st in shown + tr.steps[at:]:
            if st.is_chance or st.player == tr.seat:
                continue
            mv = st.move
            if mv is None or st.base != SEEN:
                if st.sealed_move is not None and st.base != SEEN:
                    self._unshown.append(st)        # a sealed choice: counted once shown
                continue
            moves[(st.player, mv)] = moves.get((st.player, mv), 0.0) + 1
            site = sites.get((st.player, mv[0]))
            if site is None:
                site = sites[(st.player, mv[0])] = [0.0, 0.0]
            site[0] += 1
            if mv[1] is None:
                site[1] += 1
        self._modelled_at = (tr, len(tr.steps))

    def _mark(self) -> Any:
        tr = self._trace
        return None if tr is None else (tr, len(tr.steps))

    def _steps_since(self, where: Any) -> Optional[list[tuple[bool, int, Optional[str]]]]:
        tr, at = where
        cur = self._trace
        if cur is None or tr is not cur or at >= len(cur.steps):
            return None
        return [(st.is_chance, st.count, st.option if st.is_chance or st.kind != HIDDEN
                 else None) for st in cur.steps[at:]]

    def _only_own_since(self, where: Any, seat: int) -> bool:
        tr, at = where
        cur = self._trace
        if cur is None or tr is not cur:
            return False
        return all(st.count <= 1 or (not st.is_chance and st.player == seat)
                   for st in cur.steps[at:])

    @staticmethod
    def _extend(tr: Trace, state: State) -> bool:
        """Extend the trace to `state`; False where it does not go on from it (a new trace)."""
        try:
            return tr.extend(state)
        except ValueError:
            return False

    def world(self, program: Any, state: State, seat: int) -> State:
        assert self._trace is not None
        if len(self._drawn) < self.worlds:
            try:
                w = self._trace.sample(self.rng, TRIES)
            except ResampleFailed:
                self.worlds = len(self._drawn)        # this decision: the worlds found so far
                return self.world(program, state, seat)
            self._drawn.append(w)
        else:
            w = self._drawn[self._turn % self.worlds]
            self._turn += 1
        s = w.clone()                 # the worlds keep their record (to be carried later on)
        s.narrate = False
        s.rng = self.rng.getrandbits(64)
        return s
