"""Resampling: a full state that one seat cannot tell from the real one.

`resample(program, state, seat, rng)` returns a world with the same information state for
`seat` (State.information_state: the digest of everything the seat has observed, its views
after every step included) and so the same legal options for it, in which what the seat has
not seen is drawn anew: the hidden outcomes of chance (draws from a face-down bag or deck,
shuffles, secret random picks) by their probabilities, the other seats' hidden choices
(sealed bids not yet revealed, the hidden arguments of an any-time action, a choice whose value
is secret) uniformly among their options (or by `Trace.belief`, a searcher's model of the
other seats), and the chance generator for the future. It is what
information-set MCTS searches (agents/search.py).

How: the game is replayed from its start, one step per step of the real game (each step of
the real game changed the seat's digest but another seat's private step — building an offer —
whose count the world keeps too: a world restricted so, never one the seat could tell apart).
At each step:
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
Manila follows the unseen cards (tests/test_resample.py, a chi-square test).
Shuffled lists: a shuffle is one chance step per position, but the seat sees a position only
later (the top card dealt to it, a tile turned face up), not at the step. So each position
dealt from the pile (a pile still in the game that only lost items from its top keeps its
other positions face down) is probed once per trace: swapped with a face-down position,
everything else as it was, does the replay still fit what the seat saw? If not (nor with up to
PARTNERS other positions, where the pile went elsewhere), the seat saw it: the position is
FORCED and reserved like a forced draw; the same probe of the positions after the last step
(a leftover the seat sees) reserves them for every step of the pile.
Hidden draws from a bag the seat sees only through what follows (a card drawn face down and
played later) are probed the same way: swapped with another hidden draw from the same source,
or, with none, made another outcome. A probe that fails for
another reason makes a position FORCED that was not seen: the item is then kept as it really
is — a small leak to the searching agent (never to a person), never a world that does not fit.

The other seats' choices are taken as given, not as evidence about what they hold (a world is
not weighted by how likely its holder was to choose as they did): the usual reading of
information-set MCTS, and the one that needs no model of the opponents.

From one decision to the next: `Trace.extend` brings a trace up to a later position of the
same game (only the new steps replayed; a probe settled before by a world is settled again by
carrying that world through the new steps, a probe no world answered stays so), and
`Trace.carry` carries a world drawn earlier through the new steps — a world kept only if its
continuation fits what the seat saw since, which is rejection sampling: the same distribution
as a fresh world, at the cost of the new steps.

The game must have been started with narrate=True (the record of what each seat saw) and
explicit_chance=True (chance as steps of the game, so that it can be replayed and redrawn).
The world keeps the record of `seat` only (`State.watch`; the others' digests are None).
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any, Callable, Optional

from mercator.dsl.errors import MercatorError
from mercator.interpreter.engine.nodes import Chance, Decision, move_key, option_keys
from mercator.interpreter.engine.seen import sees
from mercator.interpreter.engine.state import State

OWN, SEEN, FORCED, HIDDEN = "own", "seen", "forced", "hidden"
DEFAULT_TRIES = 200
BURST_RETRIES = 100  # a run of chance steps tried again from its start before a replay fails
BELIEF_SCALE = 10 ** 6  # a belief's weights, as whole numbers (the likeliest option's)
PARTNERS = 3         # face-down positions a dealt one is swapped with before it counts as seen


class ResampleFailed(MercatorError):
    """No world consistent with what the seat has seen was found within the replays allowed."""


class _Step:
    __slots__ = ("kind", "base", "is_chance", "player", "index", "label", "key", "reserved",
                 "tail", "alts", "count", "option", "move", "sealed_move")

    def __init__(self, kind: str, is_chance: bool, player: int, index: int, label: str,
                 key: Any):
        self.kind = kind
        self.base = kind                        # its kind before the probes of `_dealt`
        self.is_chance = is_chance
        self.player = player
        self.index = index
        self.label = label
        self.key = key
        self.reserved: Optional[Counter] = None
        self.tail: Optional[Counter] = None     # a shuffle's leftover the seat sees
        self.alts: list[str] = []               # a chance step's other outcomes (a few)
        self.count = 0                          # the options (outcomes) the step had
        self.option: Optional[str] = None       # a decision the seat made: the option's key
                                                # (nodes.option_keys); one it saw: the label
                                                # (what a search's tree reuse follows)
        self.move: Any = None                   # another seat's choice it saw: the move
                                                # (nodes.move_key; a searcher's model of them)
        self.sealed_move: Any = None            # a sealed choice's move, kept for its reveal


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
        self.stuck: tuple[int, str] = (0, "")
        self.players = len(state.players)
        self._real = self._start()           # the real game replayed, kept for `extend`
        self.history: list[int] = []
        self.digests: list[str] = [self._real.seen[seat]]
        self.steps: list[_Step] = []
        self._sealed: dict[int, _Step] = {}   # per seat, its hidden simultaneous choice
        self._piles: list[_Pile] = []
        self._verdicts: dict[tuple, Any] = {}  # a probe's change -> False, or (steps, a world)
        self._probe_rng = random.Random(0)
        self._fixed: dict[int, str] = {}
        # how likely another seat's hidden choice was each of its options (by index), for the
        # worlds drawn: None, uniformly (what the rules say of it: nothing); a searcher may set
        # its model of the other seats (agents/search.py, `hidden=mast`)
        self.belief: Optional[Callable[[Any], list[float]]] = None
        self._grow(state)

    def extend(self, state: State) -> bool:
        """Bring the trace up to `state`, a later position of the same game (its decision log
        goes on from this trace's): only the new steps are replayed, and a probe of an earlier
        step is settled by carrying the world that answered it before through the new steps
        (a probe that no world answered stays so: more to fit never makes it fit). False, and
        the trace unchanged, when `state` does not go on from this trace."""
        n = len(self.history)
        if len(state.players) != self.players or len(state.history) < n \
                or state.history[:n] != self.history or not state.narrate \
                or len(state.seen) != self.players:
            return False
        if len(state.history) == n:
            return state.seen[self.seat] == self.target
        self._grow(state)
        return True

    def _grow(self, state: State) -> None:
        """Replay the real steps of `state` after those already traced, then settle what the
        seat may have seen (the probes) for the whole trace."""
        s, seat = self._real, self.seat
        for idx in state.history[len(self.history):]:
            k = len(s.record)
            node = s.pending
            pile = self._pile(node, idx) if isinstance(node, Chance) else None
            step = self._step(s, idx)
            if pile is not None:
                step.key = ("shuffle", pile.number)
                pile.steps.append(len(self.steps))
                pile.ats.append(node.at)
            self.steps.append(step)
            self.history.append(idx)
            self.digests.append(s.seen[seat])
            self._revealed(s.record[k:])
        self.target = state.seen[seat]
        if self.digests[-1] != self.target:
            raise ValueError("the state's record does not follow from its decision log")
        for st in self.steps:             # what the probes decide is decided anew
            st.kind, st.reserved, st.tail = st.base, None, None
        self._dealt(s)
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
                step = _Step(OWN, False, seat, idx, label, None)
            else:
                shown = ann is not None and (
                    (ann[0] == "choice" and sees(ann[4], seat) and not ann[6])
                    or (ann[0] == "action" and sees(ann[4], seat)))
                step = _Step(SEEN if shown else HIDDEN, False, node.player, idx, label, None)
                if ann is not None and ann[0] == "choice" and ann[6] and not shown:
                    self._sealed[node.player] = step
                    step.sealed_move = move_key(node, idx)
            step.count = node.count
            if node.count > 1:          # the seat's own menu is its to see; of another's, the
                if step.kind == OWN:    # label announced, not how often it stands in the menu
                    step.option = option_keys(node)[idx]
                elif step.kind == SEEN:
                    step.option = label
                    step.move = move_key(node, idx)
            return step
        key = (node.what, node.span)
        if ann is not None and sees(ann[3], seat):
            step = _Step(SEEN, True, -1, idx, label, key)
            step.count = node.count
            return step
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
        step = _Step(kind, True, -1, idx, label, key)
        step.count = node.count
        step.alts = [node.option(j).label for j in range(node.count) if j != idx][:2]
        return step

    def _pile(self, node: Chance, idx: int) -> Optional["_Pile"]:
        """The shuffle a chance step belongs to (a new one when the pile changes or a position
        does not follow the last), with the pile's order kept up to date in a copy."""
        if node.what != "shuffle" or node.pile is None:
            return None
        last = self._piles[-1] if self._piles else None
        if last is None or last.pile is not node.pile or node.at <= last.ats[-1]:
            last = _Pile(len(self._piles), node.pile, node.labeller)
            self._piles.append(last)
        order, v, at = last.order, node.values[idx], node.at
        k = next(k for k in range(at, len(order)) if order[k] == v)
        order[at], order[k] = order[k], order[at]
        return last

    def _dealt(self, s: State) -> None:
        """Which shuffled positions the seat may have seen: a pile still in the game that has
        only lost items from its top keeps its other positions face down (drawn anew freely);
        each position dealt from it is probed: swapped with a face-down one, does a world
        still fit what the seat saw? If not, the seat saw it (a card dealt to it, one turned
        face up): it is made as it was (FORCED)."""
        probes = []
        for pile in self._piles:
            m, now = len(pile.order), pile.pile
            dealt = m
            if _holds(s, now) and len(now) <= m and now == pile.order[m - len(now):]:
                dealt = m - len(now)
            down = [t for t, at in zip(pile.steps, pile.ats) if at >= dealt]
            probes += [(t, pile, down) for t, at in zip(pile.steps, pile.ats)
                       if at < dealt and self.steps[t].kind == HIDDEN]
        fixed = {t: st.label for t, st in enumerate(self.steps)
                 if st.is_chance and st.kind == HIDDEN}
        if not fixed:
            return
        self._fixed = fixed
        for t, pile, down in probes:
            label = self.steps[t].label
            partners = [j for j in down if self.steps[j].label != label][-1:]
            if not partners:              # the pile went elsewhere (copied, joined): try the
                partners = [j for j in reversed(pile.steps)     # deepest positions first
                            if j != t and self.steps[j].label != label][:PARTNERS]
            if not partners:
                continue                  # every item alike: nothing to tell apart
            for j in partners:
                if self._fits({t: self.steps[j].label, j: label}):
                    break                 # a world fits with another item here: not seen
            else:
                self.steps[t].kind = FORCED
        for pile in self._piles:
            self._probe_tail(pile)
        self._probe_draws()

    def _fits(self, change: dict) -> bool:
        """Does a world fit what the seat saw with every hidden chance step as it really was
        but for `change` (step -> label), the hidden choices tried as they were first? A world
        found before is carried through the steps traced since (the probes of an incremental
        trace); a change that no world fitted never fits later."""
        key = tuple(sorted(change.items()))
        known = self._verdicts.get(key)
        if known is False:
            return False
        n = len(self.steps)
        trial = {**self._fixed, **change}
        world = None
        if known is not None:
            at, w = known
            if at == n:
                return True
            world = self._replay(self._probe_rng, trial, prefer_real=True,
                                 start=(at, w.clone()))
        if world is None:
            world = self._replay(self._probe_rng, trial, prefer_real=True)
        if world is None:
            self._verdicts[key] = False
            return False
        world.record = []             # (kept only to go on: the digest needs no old entries)
        self._verdicts[key] = (n, world)
        return True

    def _probe_draws(self) -> None:
        """A hidden draw the seat sees only through what follows (a card drawn face down and
        played later): swapped with another hidden draw from the same source — or, with none,
        made another outcome — does a world still fit? If never, the seat saw it: FORCED."""
        steps = self.steps
        draws = [t for t, st in enumerate(steps) if st.is_chance and st.kind == HIDDEN
                 and not (isinstance(st.key, tuple) and st.key[0] == "shuffle")]
        for t in draws:
            st = steps[t]
            trials = []
            for j in reversed(draws):
                if j != t and steps[j].key == st.key and steps[j].label != st.label:
                    trials.append({t: steps[j].label, j: st.label})
                if len(trials) == PARTNERS:
                    break
            if not trials:
                trials = [{t: alt} for alt in st.alts]
            if not trials:
                continue
            for change in trials:
                if self._fits(change):
                    break                 # a world fits with another outcome here: not seen
            else:
                st.kind = FORCED

    def _probe_tail(self, pile: "_Pile") -> None:
        """The positions after a pile's last step are what the steps left: if the seat sees
        them (a leftover turned face up), a face-down step taking a tail item instead of its
        own no longer fits, and every drawn step of the pile leaves the tail's items alone."""
        tail = pile.tail()
        if not tail:
            return
        free = [t for t in pile.steps if self.steps[t].kind == HIDDEN
                and self.steps[t].label not in tail]
        if not free:
            return
        if self._fits({free[-1]: tail[0]}):
            return
        keep = Counter(tail)
        for t in pile.steps:
            st = self.steps[t]
            if st.kind == HIDDEN:
                st.tail = keep

    def _revealed(self, entries: list) -> None:
        """A simultaneous choice revealed to the seat: each sealed choice it now sees must be
        made as it was (a sealed choice stays hidden only until the reveal)."""
        for e in entries:
            if e[0] != "revealed":
                continue
            for p, label, vis in e[1]:
                step = self._sealed.pop(p, None)
                if step is not None and sees(vis, self.seat):
                    step.kind = step.base = SEEN
                    step.label = label
                    step.move = step.sealed_move

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
        t, why = self.stuck
        raise ResampleFailed(f"no world consistent with what P{self.seat + 1} has seen was "
                             f"found in {tries} replays (the last stopped at step {t + 1} of "
                             f"{len(self.steps)}: {why})")

    def carry(self, world: State, rng: random.Random) -> Optional[State]:
        """A world drawn earlier in this game (by `sample` or `carry`, at fewer steps) carried
        through the steps traced since, drawing what the seat did not see of them; None if it
        no longer fits what the seat saw. Carrying worlds and drawing fresh ones for those that
        do not fit gives worlds of the same distribution as fresh ones (a world drawn from what
        the seat saw then, kept only if its continuation fits what it saw since, is drawn from
        what it has seen now), at the cost of the new steps only."""
        at = len(world.history)
        if world.watch != self.seat or at > len(self.steps) \
                or world.seen[self.seat] != self.digests[at]:
            return None
        s = self._replay(rng, start=(at, world.clone()))
        if s is not None:
            s.rng = rng.getrandbits(64)
        return s

    def _replay(self, rng: random.Random, fixed: Optional[dict] = None,
                prefer_real: bool = False,
                start: Optional[tuple[int, State]] = None) -> Optional[State]:
        """One replay drawing what the seat did not see, or None where it stops fitting.
        `fixed` (step -> label) makes those steps so; `prefer_real` tries a hidden choice as it
        was first (for the probes of `_dealt`, never for a world handed out).

        A run of chance steps (a deal, a shuffle and what is dealt from it) is tried again
        from its start, up to BURST_RETRIES times, when it stops fitting inside the run: the
        seat often sees what a run dealt only at its end (Manila's undealt shares join the
        open supply). Earlier hidden steps are kept, not weighed by how hard the run is to
        fit after them (exact when nothing hidden came before the run, as at a deal).
        `start` (step, world) goes on from a world that fits the steps before that one."""
        t, n = 0, len(self.steps)
        if start is None:
            s = self._start()
        else:
            t, s = start
        burst: Optional[tuple[int, State]] = None
        retries = 0
        while t < n:
            st = self.steps[t]
            if st.is_chance and st.kind == HIDDEN and burst is None:
                burst = (t, s.clone())
            elif not st.is_chance:
                burst, retries = None, 0
            nxt = self._one(s, t, st, rng, fixed, prefer_real)
            if nxt is None:
                if burst is None or retries >= BURST_RETRIES:
                    return None
                retries += 1
                t, s = burst[0], burst[1].clone()
                continue
            s = nxt
            t += 1
        return s

    def _one(self, s: State, t: int, st: _Step, rng: random.Random, fixed: Optional[dict],
             prefer_real: bool) -> Optional[State]:
        """Make step t of the replay s (changed in place, or a fork of it for a drawn step);
        None when it does not fit what the seat saw."""
        prog, seat = self.program, self.seat
        node = s.pending
        if st.is_chance != isinstance(node, Chance) or (
                not st.is_chance and node.player != st.player):
            return self._stuck(t, "the replay reached another kind of step")
        want = self.digests[t + 1]
        if fixed is not None and t in fixed:
            same = [i for i in range(node.count) if node.option(i).label == fixed[t]]
            if not same:
                return self._stuck(t, f"no option {fixed[t]!r}")
            prog.apply(s, same[0])
        elif st.kind == OWN:
            if node.count <= st.index or node.option(st.index).label != st.label:
                return self._stuck(t, f"the seat's option {st.label!r} is not there")
            prog.apply(s, st.index)
        elif st.kind in (SEEN, FORCED):
            same = _labelled(node, st.label)
            if not same:
                return self._stuck(t, f"no option {st.label!r}")
            prog.apply(s, same[rng.randrange(len(same))] if len(same) > 1 else same[0])
        else:
            nxt = self._hidden(s, node, st, want, rng, prefer_real)
            if nxt is None:
                return self._stuck(t, "nothing drawn here fits what the seat saw next")
            return nxt
        if s.seen[seat] != want:
            return self._stuck(t, "the seat would have seen something else")
        return s

    def _stuck(self, t: int, why: str) -> Optional[State]:
        """Note where a replay stopped fitting (for ResampleFailed's message), and give None."""
        self.stuck = (t, why)
        return None

    def _hidden(self, s: State, node: Any, st: _Step, want: str,
                rng: random.Random, prefer_real: bool = False) -> Optional[State]:
        """Draw the step the seat did not see: candidates in a random order (by probability for
        chance, less what later forced steps reserve), the first whose digest fits."""
        prog, seat = self.program, self.seat
        n = node.count
        if isinstance(node, Chance):
            weights = list(node.weights)
            keep = st.reserved
            if st.tail:
                keep = st.tail + (keep or Counter())
            if keep:
                adj = [max(0, w - keep.get(node.option(i).label, 0))
                       for i, w in enumerate(weights)]
                if sum(adj) > 0:
                    weights = adj
            order = _weighted_order(weights, rng)
        elif self.belief is not None:
            ws = self.belief(node)
            top = max(ws)
            order = _weighted_order([max(1, round(BELIEF_SCALE * w / top)) for w in ws], rng)
        else:
            order = list(range(n))
            rng.shuffle(order)
        if prefer_real and st.index < n:
            order = [st.index] + [i for i in order if i != st.index]
        elif not isinstance(node, Chance) and node.private is not None:
            # a step of another seat's draft of an offer (seen by him alone): made as it was
            # when the world allows it, since the posted offer shows what the draft built and a
            # draft of random steps would almost never post it; the world's holdings are drawn
            # already, and any step that keeps the draft going fits what the seat saw
            real = _labelled(node, st.label)[:1]
            order = real + [i for i in order if i not in real]
        for i in order:
            c = s.clone()
            prog.apply(c, i)
            if c.seen[seat] == want:
                return c
        return None


class _Pile:
    """One shuffle of one list: its steps, the positions they fill, its order as shuffled."""

    __slots__ = ("number", "pile", "order", "steps", "ats", "labeller")

    def __init__(self, number: int, pile: list, labeller: Any):
        self.number = number
        self.pile = pile                  # the list in the replay's state
        self.order = list(pile)           # its order, step by step
        self.steps: list[int] = []
        self.ats: list[int] = []
        self.labeller = labeller

    def tail(self) -> list[str]:
        """The labels of the positions after the last step (left as they came: all alike, or
        one item)."""
        return [self.labeller(v) for v in self.order[self.ats[-1] + 1:]]


def _holds(s: State, target: list) -> bool:
    """Is the list object `target` still part of the state?"""
    todo: list = [s.table, s.players]
    while todo:
        x = todo.pop()
        if x is target:
            return True
        if isinstance(x, list):
            todo.extend(y for y in x if isinstance(y, (list, dict)))
        elif isinstance(x, dict):
            todo.extend(y for y in x.values() if isinstance(y, (list, dict)))
    return False


def _labelled(node: Any, label: str) -> list[int]:
    """The indices i of the options of `node` with node.option(i).label == label, without
    making the options."""
    lab = node.labeller
    if isinstance(node, Chance):
        return [i for i, v in enumerate(node.values) if lab(v) == label]
    out = [0] if node.allow_pass and label == "pass" else []
    k = 1 if node.allow_pass else 0
    out.extend(i for i, v in enumerate(node.values, k) if lab(v) == label)
    k += len(node.values)
    out.extend(i for i, a in enumerate(node.actions, k) if a[0] == label)
    return out


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
