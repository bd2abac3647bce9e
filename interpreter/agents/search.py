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
say little about a position; `deals=True` (spec setting `deals=random`) restores them.

An iteration: descend by UCT (an unvisited option first, chosen at random), expand one node,
play on at random to the end (or `depth` decisions, then judge by the rulebook's own score and
tie-breaks as if the game ended there), and credit every seat on the path with its share of the
win (1 for a win, 1/k for a win shared by k, 0 otherwise).
"""
from __future__ import annotations

import math
import random
import time
from typing import Any, Optional

from mercator.dsl import ast as A
from mercator.interpreter.engine.chance import weighted_index
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal
from mercator.interpreter.engine.resample import ResampleFailed, Trace
from mercator.interpreter.engine.state import State

DEFAULT_ITERATIONS = 200
UCT_C = 0.7          # exploration constant for rewards in [0, 1]
WIDEN = 2.0          # visits per other option before a node's any-time actions are searched
WORLDS = 24          # worlds an information-set search draws per decision
TRIES = 50           # replays a world may take before the search makes do with fewer worlds


class _Edge:
    """One option at a tree node: visits, total reward, times available, the node below."""

    __slots__ = ("n", "w", "avail", "below")

    def __init__(self) -> None:
        self.n = 0
        self.w = 0.0
        self.avail = 0
        self.below: Optional[_Node] = None


class _Node:
    __slots__ = ("edges", "visits")

    def __init__(self) -> None:
        self.edges: dict[str, _Edge] = {}
        self.visits = 0


def option_keys(node: Decision) -> list[str]:
    """A key per option: its label, with '#k' added to the k-th repeat of a label."""
    seen: dict[str, int] = {}
    keys = []
    for o in node.options:
        k = seen.get(o.label, 0)
        seen[o.label] = k + 1
        keys.append(o.label if k == 0 else f"{o.label}#{k}")
    return keys


def win_shares(result: Terminal, n: int) -> list[float]:
    """Each seat's share of the win: 1/k for each of k winners, 0 for the others."""
    out = [0.0] * n
    if result.winners:
        share = 1.0 / len(result.winners)
        for p in result.winners:
            out[p] = share
    return out


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
                 depth: Optional[int] = None, widen: float = WIDEN, deals: bool = False):
        if iterations is None and seconds is None:
            iterations = DEFAULT_ITERATIONS
        if iterations is not None and iterations < 1:
            raise ValueError(f"a search needs at least 1 iteration, not {iterations}")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"a search needs a positive time, not {seconds}")
        if depth is not None and depth < 1:
            raise ValueError(f"the rollout depth must be at least 1, not {depth}")
        self.iterations = iterations
        self.seconds = seconds
        self.rng = random.Random(seed)
        self.c = c
        self.depth = depth
        self.widen = widen
        self.deals = deals              # do the rollouts negotiate in deal windows
        self.last_iterations = 0        # how many the last choice ran (for the benchmarks)
        self.fallbacks = 0              # decisions made at random: no world could be drawn
        self.last_root: Optional[_Node] = None
        self.last_rollout_decisions = 0

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
        root = _Node()
        seat = node.player
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        try:
            self.prepare(program, state, seat)
        except ResampleFailed:
            self.fallbacks += 1                       # no world found: an honest random move
            return self.rng.randrange(node.count - len(node.actions))
        done = 0
        self.last_rollout_decisions = 0
        while True:
            self._iterate(program, self.world(program, state, seat), root)
            done += 1
            if self.iterations is not None and done >= self.iterations:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.last_iterations = done
        self.last_root = root           # (for tests and benchmarks: the tree searched)
        keys = option_keys(node)
        best, best_key = 0, None
        for i, k in enumerate(keys):
            e = root.edges.get(k)
            if e is None:
                continue
            key = (e.n, e.w / e.n if e.n else 0.0)
            if best_key is None or key > best_key:
                best, best_key = i, key
        return best

    def _iterate(self, program: Any, s: State, root: _Node) -> None:
        rng = self.rng
        path: list[tuple[_Node, _Edge, int]] = []
        tree: Optional[_Node] = root
        n = len(s.players)
        while tree is not None:
            pend = s.pending
            if pend.__class__ is Terminal:
                break
            if pend.__class__ is Chance:
                assert isinstance(pend, Chance)
                w = pend.weights
                program.apply(s, weighted_index(w, s.randbelow(sum(w))))
                continue
            assert isinstance(pend, Decision)
            if pend.count == 1:
                program.apply(s, 0)
                continue
            keys = option_keys(pend)
            regular = pend.count - len(pend.actions)
            cand = range(pend.count) if tree.visits >= self.widen * regular else range(regular)
            edges = tree.edges
            fresh = []
            for i in cand:
                e = edges.get(keys[i])
                if e is None:
                    e = edges[keys[i]] = _Edge()
                e.avail += 1
                if e.n == 0:
                    fresh.append(i)
            if fresh:
                i = fresh[rng.randrange(len(fresh))]
                e = edges[keys[i]]
                path.append((tree, e, pend.player))
                program.apply(s, i)
                tree = None                  # expanded: the rollout takes over
                break
            c = self.c
            best_i, best_v = -1, -1.0
            for i in cand:
                e = edges[keys[i]]
                v = e.w / e.n + c * math.sqrt(math.log(e.avail) / e.n)
                if v > best_v:
                    best_i, best_v = i, v
            e = edges[keys[best_i]]
            path.append((tree, e, pend.player))
            program.apply(s, best_i)
            if e.below is None:
                e.below = _Node()
            tree = e.below
        if s.pending.__class__ is not Terminal:
            self.last_rollout_decisions += program.playout(s, rng, self.depth, anytime=False,
                                                         deals=self.deals)
        result = s.pending if s.pending.__class__ is Terminal else program.result(s)
        reward = win_shares(result, n)
        for node, e, seat in path:
            node.visits += 1
            e.n += 1
            e.w += reward[seat]


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
                 deals: bool = False):
        super().__init__(iterations, seconds, seed, c, depth, widen, deals)
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
