"""One node's options as action ids, made to be taken one id at a time (interpreter/engine/
encoding.py ActionCodec.menu): what the research adapters ask of a decision at every step.

Most options are one id (a bid, a place, a good, pass), so a menu keeps each option's id in a
tuple of ints (`ids`; -1 where an option is longer) and the longer options' sequences
beside (`long`, by option index). Its legal first ids are sorted once; an id that is a whole
option is found with `tuple.index`, with no sequence tuples built. A longer option is taken
among the longer options alone (the sequences are prefix-free: no one-id option starts one):
the option each of their sequences names, and the ids legal after each prefix asked for, are
remembered (a menu seen again, Manila's loadings of the boats, takes its ids without scanning
its options) by a `Nav`, which the menus made of the same part share (ActionCodec.menu joins
a decision's menu from its values' part and its any-time actions'); a menu its codec does not
keep (values marshal cannot write) is taken by scanning its sequences, as the codec's own
methods do. The sequences of every
option (`seqs`, what ActionCodec.sequences returns) are made only when asked for. The
functions below work on the sequences themselves and give what ActionCodec's methods of the
same names give.
"""
from __future__ import annotations

from typing import Mapping, Optional

Seqs = list[tuple[int, ...]]
# the longer options of a menu whose options are one id each: one empty dict shared by those
# menus, never written (a menu with a longer option makes its own); a plain dict, so that a
# menu pickles and copies (an OpenSpiel state holds its menu)
NO_LONG: dict[int, tuple[int, ...]] = {}


class Nav:
    """The longer options of one part of a menu (its values', or its any-time actions'), by
    option index, and what taking them one id at a time asks, remembered: the option each
    sequence names, the ids legal after each prefix, and the sequences that start with it.
    Menus made of the same part share it (ActionCodec.menu: the same loadings of the boats
    beside other actions): a prefix names options of one part only, since every value's id
    is below every action's."""

    __slots__ = ("long", "_whole", "_after", "_under")

    def __init__(self, long: Mapping[int, tuple[int, ...]]):
        self.long = long
        self._whole: Optional[dict[tuple[int, ...], int]] = None  # each sequence's option
        self._after: dict[tuple[int, ...], list[int]] = {}       # the ids after a prefix
        # the sequences that start with a prefix (the ids after a longer prefix are found
        # among those after a shorter one, not among all options)
        # (made when a prefix of two ids or more is first asked for)
        self._under: Optional[dict[tuple[int, ...], list[tuple[int, ...]]]] = None

    def named(self) -> dict[tuple[int, ...], int]:
        """The option each sequence names (the first of equal ones)."""
        whole = self._whole
        if whole is None:
            whole = self._whole = {}
            for k, q in self.long.items():
                whole.setdefault(q, k)
        return whole

    def next(self, taken: tuple[int, ...]) -> list[int]:
        """legal_after of the sequences (`taken` is not empty), remembered by prefix."""
        nxt = self._after.get(taken)
        if nxt is None:
            n = len(taken)
            if n == 1:                        # one pass over all (a deal's step, a mortgage)
                a = taken[0]
                nxt = sorted({q[1] for q in self.long.values() if len(q) > 1 and q[0] == a})
            else:
                nxt = sorted({q[n] for q in self._starting(taken) if len(q) > n})
            if self.long:                     # (the empty one is shared: never written)
                self._after[taken] = nxt
        return nxt

    def _starting(self, taken: tuple[int, ...]) -> list[tuple[int, ...]]:
        """The sequences that start with `taken` (not empty): found among those of the
        longest prefix of it known, one id at a time (a loading of Manila's boats is 7 ids
        among 25 options: the later ids are looked for among the few options left)."""
        under = self._under
        if under is None:
            under = {}
            if self.long:                     # (the empty one is shared: never written)
                self._under = under
        got = under.get(taken)
        if got is not None:
            return got
        k = len(taken) - 1
        while k > 0 and taken[:k] not in under:
            k -= 1
        cands = under[taken[:k]] if k else list(self.long.values())
        for j in range(k, len(taken)):
            a = taken[j]
            cands = [q for q in cands if len(q) > j and q[j] == a]
            if self.long:
                under[taken[:j + 1]] = cands
        return cands


NO_NAV = Nav(NO_LONG)       # of a part with no longer options (shared, never written)
NO_SPLIT = 1 << 62          # a menu in one part: every id is below it


class Menu:
    """The options of one decision or chance node as ids (read it, never change it)."""

    __slots__ = ("ids", "_long", "first", "remembered", "_seqs", "_navs", "_odds")

    def __init__(self, ids: Optional[list[int]], long: Mapping[int, tuple[int, ...]],
                 seqs: Optional[Seqs] = None):
        # option k's id when it is one id, else -1 (a tuple of ints: the garbage collector
        # skips it); None until needed for a menu made of its sequences (`of`)
        self.ids: Optional[tuple[int, ...]] = None
        self._long: Optional[Mapping[int, tuple[int, ...]]] = long
        if ids is None:
            assert seqs is not None
            self.first = sorted({q[0] for q in seqs})
        else:
            self.ids = tuple(ids)
            firsts = set(ids)
            if long:
                firsts.discard(-1)
                firsts.update(q[0] for q in long.values())
            self.first = sorted(firsts)   # the ids legal first, in increasing order
        self.remembered = False           # kept by its codec, to be found again
        self._seqs = seqs
        # how its longer options are taken: (split, the navigation of those whose first id
        # is below split, of the others); made when first needed for a menu in one part
        self._navs: Optional[tuple[int, Nav, Nav]] = None
        # a chance node's last weights and their outcomes with nothing taken (the same dice
        # are weighed alike at every roll)
        self._odds: Optional[tuple[list[int], list[tuple[int, float]]]] = None

    def __deepcopy__(self, memo: object) -> "Menu":
        # what it holds besides the options' ids are caches of them: a copy of a state (an
        # OpenSpiel state cloned) shares the menu of the node it waits at, as the states its
        # codec finds the same menu for do
        return self

    @classmethod
    def made(cls, ids: Optional[tuple[int, ...]], first: list[int],
             navs: tuple[int, Nav, Nav], seqs: Optional[Seqs] = None) -> "Menu":
        """A menu made of parts (ActionCodec.menu): its ids (-1 where an option is longer),
        its legal first ids (distinct, increasing: its maker has them in order, nothing to
        sort), and its parts' navigations, split at the first id of the second part."""
        m = cls.__new__(cls)
        m.ids, m.first, m._navs, m._seqs = ids, first, navs, seqs
        m._long = m._odds = None
        m.remembered = False
        return m

    @classmethod
    def of(cls, seqs: Seqs) -> "Menu":
        """The menu of options written out as sequences (split into ids and longer options
        only if its codec keeps it and it is taken)."""
        return cls(None, NO_LONG, seqs)

    @property
    def long(self) -> Mapping[int, tuple[int, ...]]:
        """Option k's ids when it is more than one id, by k."""
        if self._long is None:
            if self._navs is not None:
                _, low, high = self._navs
                self._long = {**low.long, **high.long} if high.long else low.long
            else:
                self._split()
        assert self._long is not None
        return self._long

    def _split(self) -> tuple[int, ...]:
        """`ids` and `long` of a menu made of its sequences."""
        seqs = self.seqs
        self._long = {k: q for k, q in enumerate(seqs) if len(q) != 1} or NO_LONG
        ids = self.ids = tuple([q[0] if len(q) == 1 else -1 for q in seqs])
        return ids

    @property
    def seqs(self) -> Seqs:
        """The ids of each option, in option order (made once, when first asked for)."""
        if self._seqs is None:
            long, ids = self.long, self.ids or ()
            self._seqs = [(a,) if a >= 0 else long[k] for k, a in enumerate(ids)] \
                if long else [(a,) for a in ids]
        return self._seqs

    def _one_part(self) -> tuple[int, Nav, Nav]:
        """The navigation of a menu not made of parts: all its longer options in one."""
        if self.ids is None:
            self._split()
        long = self._long
        if long:                              # (Nav(long), without a call of __init__)
            nav = Nav.__new__(Nav)
            nav.long, nav._whole, nav._after, nav._under = long, None, {}, None
        else:
            nav = NO_NAV
        navs = self._navs = (NO_SPLIT, nav, NO_NAV)
        return navs

    def legal(self, taken: tuple[int, ...]) -> list[int]:
        """The distinct ids that may come after `taken`, in increasing order (the menu's own
        list when nothing is taken: read it, do not change it)."""
        if not taken:
            return self.first
        if not self.remembered:
            return legal_after(self.seqs, taken)
        navs = self._navs or self._one_part()
        return (navs[1] if taken[0] < navs[0] else navs[2]).next(taken)

    def take(self, taken: tuple[int, ...], a: int) -> tuple[tuple[int, ...], Optional[int]]:
        """Id `a` taken after `taken`: the ids taken now (settled) and the option they name,
        or None while they name none yet (ActionCodec.take)."""
        if not self.remembered and self._seqs is not None:
            return take_in(self._seqs, taken, a)    # asked once: nothing worth remembering
        ids = self.ids if self.ids is not None else self._split()
        if not taken and a >= 0:
            try:
                return (a,), ids.index(a)     # a one-id option
            except ValueError:
                pass
        navs = self._navs or self._one_part()    # (the part whose ids start so)
        nav = navs[1] if (taken[0] if taken else a) < navs[0] else navs[2]
        whole = nav._whole or nav.named()
        now = taken + (a,)
        while now not in whole:                # settled: while all the options agree
            nxt = nav.next(now)
            if len(nxt) != 1:
                return now, None
            now = now + (nxt[0],)
        return now, whole[now]

    def outcomes(self, weights: list[int], taken: tuple[int, ...]) -> list[tuple[int, float]]:
        """(id, probability) of each id that may come after `taken` at a chance node."""
        if not taken:
            odds = self._odds
            if odds is not None and odds[0] == weights:
                return odds[1][:]
        ids = self.ids
        if ids is not None and not taken and not self.long and len(self.first) == len(ids):
            total = sum(weights)              # one distinct id an outcome
            got = sorted((a, k / total) for a, k in zip(ids, weights))
        else:
            got = outcomes_after(self.seqs, weights, taken)
        if not taken and self.remembered:
            self._odds = (list(weights), got[:])
        return got


def legal_after(seqs: Seqs, taken: tuple[int, ...]) -> list[int]:
    """The distinct ids that may come after `taken`, in increasing order (a new list)."""
    n = len(taken)
    if not n:
        return sorted({q[0] for q in seqs})
    return sorted({q[n] for q in seqs if len(q) > n and q[:n] == taken})


def settled(seqs: Seqs, taken: tuple[int, ...]) -> tuple[int, ...]:
    """`taken` extended by every id all the options that start with it agree on (stops at a
    complete option)."""
    while True:
        if taken in seqs:
            return taken
        nxt = legal_after(seqs, taken)
        if len(nxt) != 1:
            return taken
        taken = taken + (nxt[0],)


def named(seqs: Seqs, taken: tuple[int, ...]) -> Optional[int]:
    """The option whose sequence is `taken`, or None while it names none yet."""
    try:
        return seqs.index(taken)
    except ValueError:
        return None


def take_in(seqs: Seqs, taken: tuple[int, ...],
            a: int) -> tuple[tuple[int, ...], Optional[int]]:
    """Id `a` taken after `taken`: settled, then the option named (one pass when the ids taken
    are an option already)."""
    now = taken + (a,)
    try:
        return now, seqs.index(now)
    except ValueError:
        now = settled(seqs, now)
        return now, named(seqs, now)


def outcomes_after(seqs: Seqs, weights: list[int],
                   taken: tuple[int, ...]) -> list[tuple[int, float]]:
    """(id, probability) of each id that may come after `taken`, from the outcomes' weights."""
    n = len(taken)
    w: dict[int, int] = {}
    for q, k in zip(seqs, weights):
        if len(q) > n and q[:n] == taken:
            w[q[n]] = w.get(q[n], 0) + k
    total = sum(w.values())
    return [(a, w[a] / total) for a in sorted(w)]
