"""Resampling: a full state that one seat cannot tell from the real one.

`resample(program, state, seat, rng)` returns a world with the same information state for
`seat` (State.information_state: the digest of everything the seat has observed, its views
after every step included) and so the same legal options for it, in which what the seat has
not seen is drawn anew: the hidden outcomes of chance (draws from a face-down bag or deck,
shuffles, secret random picks) by their probabilities, the other seats' hidden choices
(sealed bids not yet revealed, the hidden arguments of an any-time action, a choice whose value
is secret) uniformly among their options, and the chance generator for the future. It is what
information-set MCTS searches (agents/search.py).

How: the game is replayed from its start, one step per step of the real game (each step of
the real game changed the seat's digest, so a world with the same information state took the
same number of steps). At each step:
  - the seat's own decision is made as it was (same option index);
  - a choice or chance outcome the seat saw is made the same (by label);
  - anything the seat did not see is drawn — and kept only if the seat's digest after the step
    is the real one (a draw that landed in the seat's own hand must be the card it holds; an
    any-time action whose name it saw must be the same action); otherwise the next candidate is
    tried (without putting back). No candidate fitting: the world so far cannot lead to what
    the seat saw, and the replay starts again.
Exactness for draws: a hidden chance step whose outcome the seat observes at once (its own card
from a face-down bag: a *forced* step) is made as it was; the hidden draws before it from the
same source (another seat's cards) are then drawn from the source less the items the later
forced steps take ("reserved"), which for draws without replacement from one bag is the exact
conditional distribution (exchangeability): the identity of another seat's dealt shares in
Manila follows the unseen cards (tests/test_resample.py, a chi-square test). Items the seat
observes only later (a shuffled list, its top card dealt steps after the shuffle) are not
reserved: such worlds are found by replaying again, which can take many replays.

The other seats' choices are taken as given, not as evidence about what they hold (a world is
not weighted by how likely its holder was to choose as they did): the usual reading of
information-set MCTS, and the one that needs no model of the opponents.

The game must have been started with narrate=True (the record of what each seat saw) and
explicit_chance=True (chance as steps of the game, so that it can be replayed and redrawn).
The world keeps the record of `seat` only (`State.watch`; the others' digests are None).
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any, Optional

from interpreter.engine.nodes import Chance, Decision
from interpreter.engine.seen import sees
from interpreter.engine.state import State

OWN, SEEN, FORCED, HIDDEN = "own", "seen", "forced", "hidden"
DEFAULT_TRIES = 200


class ResampleFailed(Exception):
    """No world consistent with what the seat has seen was found within the replays allowed."""


class _Step:
    __slots__ = ("kind", "is_chance", "player", "index", "label", "key", "reserved")

    def __init__(self, kind: str, is_chance: bool, player: int, index: int, label: str,
                 key: Any):
        self.kind = kind
        self.is_chance = is_chance
        self.player = player
        self.index = index
        self.label = label
        self.key = key
        self.reserved: Optional[Counter] = None


class Trace:
    """The real game as `seat` saw it: its digest after every step, and per step whether the
    seat made it, saw it, or must have it drawn. Computed once per position (`trace`) and
    used by every `Trace.sample`."""

    def __init__(self, program: Any, state: State, seat: int):
        if not state.narrate or len(state.seen) != len(state.players):
            raise ValueError("resampling needs the record of what each seat has seen: start the "
                             "game with new_game(..., narrate=True, explicit_chance=True)")
        if not state.explicit_chance:
            raise ValueError("resampling replays the game's chance steps: start the game with "
                             "new_game(..., narrate=True, explicit_chance=True)")
        if not 0 <= seat < len(state.players):
            raise ValueError(f"no seat {seat} in a game of {len(state.players)} players")
        self.program = program
        self.seat = seat
        self.players = len(state.players)
        self.target = state.seen[seat]
        s = self._start()
        self.digests: list[str] = [s.seen[seat]]
        self.steps: list[_Step] = []
        self._sealed: dict[int, _Step] = {}   # per seat, its hidden simultaneous choice
        for idx in state.history:
            k = len(s.record)
            self.steps.append(self._step(s, idx))
            self.digests.append(s.seen[seat])
            self._revealed(s.record[k:])
        if self.digests[-1] != self.target:
            raise ValueError("the state's record does not follow from its decision log")
        self._reserve()

    def _start(self) -> State:
        return self.program.new_game(self.players, 0, narrate=True, explicit_chance=True,
                                     watch=self.seat)

    def _step(self, s: State, idx: int) -> _Step:
        """Apply the real step idx to the replay s, and say what kind of step it was."""
        prog, seat = self.program, self.seat
        node = s.pending
        k = len(s.record)
        if isinstance(node, Decision):
            label = node.option(idx).label
            before = None
        else:
            assert isinstance(node, Chance)
            label = node.option(idx).label
            before = s.clone() if node.count > 1 else None
        prog.apply(s, idx)
        ann = s.record[k] if len(s.record) > k else None
        if isinstance(node, Decision):
            if node.player == seat:
                return _Step(OWN, False, seat, idx, label, None)
            shown = ann is not None and (
                (ann[0] == "choice" and sees(ann[4], seat) and not ann[6])
                or (ann[0] == "action" and sees(ann[4], seat)))
            step = _Step(SEEN if shown else HIDDEN, False, node.player, idx, label, None)
            if ann is not None and ann[0] == "choice" and ann[6] and not shown:
                self._sealed[node.player] = step
            return step
        key = (node.what, node.span)
        if ann is not None and sees(ann[3], seat):
            return _Step(SEEN, True, -1, idx, label, key)
        kind = HIDDEN
        if before is not None:
            others = [j for j in range(node.count) if j != idx][:2]
            forced = bool(others)
            for j in others:
                c = before.clone()
                prog.apply(c, j)
                if c.seen[seat] == s.seen[seat]:
                    forced = False
                    break
            if forced:
                kind = FORCED
        return _Step(kind, True, -1, idx, label, key)

    def _revealed(self, entries: list) -> None:
        """A simultaneous choice revealed to the seat: each sealed choice it now sees must be
        made as it was (a sealed choice stays hidden only until the reveal)."""
        for e in entries:
            if e[0] != "revealed":
                continue
            for p, label, vis in e[1]:
                step = self._sealed.pop(p, None)
                if step is not None and sees(vis, self.seat):
                    step.kind = SEEN
                    step.label = label

    def _reserve(self) -> None:
        """For each hidden chance step, the outcomes that later forced steps of the same source
        take (by label)."""
        later: dict[Any, Counter] = {}
        for st in reversed(self.steps):
            if not st.is_chance:
                continue
            if st.kind == FORCED:
                later.setdefault(st.key, Counter())[st.label] += 1
            elif st.kind == HIDDEN and later.get(st.key):
                st.reserved = Counter(later[st.key])

    # -- drawing worlds
    def sample(self, rng: random.Random, tries: int = DEFAULT_TRIES) -> State:
        """A world consistent with what the seat has seen (ResampleFailed after `tries`
        replays that could not be completed)."""
        for _ in range(tries):
            s = self._replay(rng)
            if s is not None:
                s.rng = rng.getrandbits(64)
                return s
        raise ResampleFailed(f"no world consistent with what P{self.seat + 1} has seen was "
                             f"found in {tries} replays")

    def _replay(self, rng: random.Random) -> Optional[State]:
        prog, seat = self.program, self.seat
        s = self._start()
        digests = self.digests
        for t, st in enumerate(self.steps):
            node = s.pending
            if st.is_chance != isinstance(node, Chance) or (
                    not st.is_chance and node.player != st.player):
                return None
            want = digests[t + 1]
            if st.kind == OWN:
                if node.count <= st.index or node.option(st.index).label != st.label:
                    return None
                prog.apply(s, st.index)
            elif st.kind in (SEEN, FORCED):
                same = [i for i in range(node.count) if node.option(i).label == st.label]
                if not same:
                    return None
                prog.apply(s, same[rng.randrange(len(same))] if len(same) > 1 else same[0])
            else:
                nxt = self._hidden(s, node, st, want, rng)
                if nxt is None:
                    return None
                s = nxt
                continue
            if s.seen[seat] != want:
                return None
        return s

    def _hidden(self, s: State, node: Any, st: _Step, want: str,
                rng: random.Random) -> Optional[State]:
        """Draw the step the seat did not see: candidates in a random order (by probability for
        chance, less what later forced steps reserve), the first whose digest fits."""
        prog, seat = self.program, self.seat
        n = node.count
        if isinstance(node, Chance):
            weights = list(node.weights)
            if st.reserved:
                adj = [max(0, w - st.reserved.get(node.option(i).label, 0))
                       for i, w in enumerate(weights)]
                if sum(adj) > 0:
                    weights = adj
            order = _weighted_order(weights, rng)
        else:
            order = list(range(n))
            rng.shuffle(order)
        for i in order:
            c = s.clone()
            prog.apply(c, i)
            if c.seen[seat] == want:
                return c
        return None


def _weighted_order(weights: list[int], rng: random.Random) -> list[int]:
    """Indices drawn one by one without putting back, each with probability by its weight
    (zero weights never drawn)."""
    left = [(i, w) for i, w in enumerate(weights) if w > 0]
    out = []
    while left:
        total = sum(w for _, w in left)
        r = rng.randrange(total)
        for k, (i, w) in enumerate(left):
            if r < w:
                out.append(i)
                del left[k]
                break
            r -= w
    return out


def resample(program: Any, state: State, seat: int, rng: random.Random,
             tries: int = DEFAULT_TRIES) -> State:
    """A world `seat` cannot tell from `state` (see the module docstring)."""
    return Trace(program, state, seat).sample(rng, tries)
