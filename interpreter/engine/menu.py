"""One node's options as action ids, made to be taken one id at a time (interpreter/engine/
encoding.py ActionCodec.menu): what the research adapters ask of a decision at every step.

Most options are one id (a bid, a place, a good, pass), so a menu keeps each option's id in a
tuple of ints (`ids`; -1 where an option is longer) and the longer options' sequences
beside (`long`, by option index). Its legal first ids are sorted once; an id that is a whole
option is found with `tuple.index`, with no sequence tuples built. A longer option is taken
among the longer options alone (the sequences are prefix-free: no one-id option starts one):
the option each of their sequences names, and the ids legal after each prefix asked for, are
remembered by the menu (a menu seen again, Manila's loadings of the boats, takes its ids
without scanning its options); a menu its codec does not keep (values marshal cannot write)
is taken by scanning its sequences, as the codec's own methods do. The sequences of every
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


class Menu:
    """The options of one decision or chance node as ids (read it, never change it)."""

    __slots__ = ("ids", "long", "first", "remembered", "_seqs", "_after", "_whole")

    def __init__(self, ids: Optional[list[int]], long: Mapping[int, tuple[int, ...]],
                 seqs: Optional[Seqs] = None):
        # option k's id when it is one id, else -1 (a tuple of ints: the garbage collector
        # skips it); None until needed for a menu made of its sequences (`of`)
        self.ids: Optional[tuple[int, ...]] = None
        self.long = long                  # option k's ids when it is more than one
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
        self._after: Optional[dict[tuple[int, ...], list[int]]] = None   # by prefix
        self._whole: Optional[dict[tuple[int, ...], int]] = None  # each sequence's option

    @classmethod
    def of(cls, seqs: Seqs) -> "Menu":
        """The menu of options written out as sequences (split into ids and longer options
        only if its codec keeps it and it is taken)."""
        return cls(None, NO_LONG, seqs)

    def _split(self) -> tuple[int, ...]:
        """`ids` and `long` of a menu made of its sequences."""
        seqs = self.seqs
        self.long = {k: q for k, q in enumerate(seqs) if len(q) != 1} or NO_LONG
        ids = self.ids = tuple(q[0] if len(q) == 1 else -1 for q in seqs)
        return ids

    @property
    def seqs(self) -> Seqs:
        """The ids of each option, in option order (made once, when first asked for)."""
        if self._seqs is None:
            long, ids = self.long, self.ids or ()
            self._seqs = [(a,) if a >= 0 else long[k] for k, a in enumerate(ids)] \
                if long else [(a,) for a in ids]
        return self._seqs

    def legal(self, taken: tuple[int, ...]) -> list[int]:
        """The distinct ids that may come after `taken`, in increasing order (the menu's own
        list when nothing is taken: read it, do not change it)."""
        if not taken:
            return self.first
        return self._next(taken) if self.remembered else legal_after(self.seqs, taken)

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
        whole = self._whole
        if whole is None:                      # the first longer option of each sequence
            whole = self._whole = {}
            for k, q in self.long.items():
                whole.setdefault(q, k)
        now = taken + (a,)
        while now not in whole:                # settled: while all the options agree
            nxt = self._next(now)
            if len(nxt) != 1:
                return now, None
            now = now + (nxt[0],)
        return now, whole[now]

    def _next(self, taken: tuple[int, ...]) -> list[int]:
        """legal_after of the sequences (of the longer options: `taken` is not empty),
        remembered by prefix."""
        after = self._after
        if after is None:
            if self.ids is None:
                self._split()
            after = self._after = {}
        nxt = after.get(taken)
        if nxt is None:
            nxt = after[taken] = legal_after(list(self.long.values()), taken)
        return nxt

    def outcomes(self, weights: list[int], taken: tuple[int, ...]) -> list[tuple[int, float]]:
        """(id, probability) of each id that may come after `taken` at a chance node."""
        ids = self.ids
        if ids is not None and not taken and not self.long and len(self.first) == len(ids):
            total = sum(weights)              # one distinct id an outcome
            return sorted((a, k / total) for a, k in zip(ids, weights))
        return outcomes_after(self.seqs, weights, taken)


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
