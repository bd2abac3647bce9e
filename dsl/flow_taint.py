"""The labels the information-flow analysis works with: a `Taint` remembers *which* hidden fields a
value comes from (so a warning can name them), a `Formula` is a label still waiting for the labels
of some locals."""
from __future__ import annotations

from typing import Callable, Optional, Union

import attrs

from mercator.dsl.infoflow import PUBLIC, SECRET, Label

# A local of a body: its slot, or (slot, field) for one field of a record chosen field by field.
Key = Union[int, tuple[int, str]]

_EMPTY_INTS: frozenset[int] = frozenset()
_EMPTY_STRS: frozenset[str] = frozenset()


@attrs.frozen
class Taint:
    """Who may see a value, and why: the owner slots it depends on and the hidden fields behind it."""

    owners: frozenset[int] = _EMPTY_INTS     # local slots of players whose owner-only data it uses
    owned: frozenset[str] = _EMPTY_STRS      # the owner-only fields read (for messages)
    hidden: frozenset[str] = _EMPTY_STRS     # secret fields read: no seat may see them
    drawn: frozenset[str] = _EMPTY_STRS      # hidden fields drawn from: nobody has seen the item yet
    unnamed: bool = False                    # owner-only data of a player no stable local holds

    @property
    def secret(self) -> bool:
        """No seat may see the value."""
        return bool(self.hidden or self.drawn or self.unnamed)

    @property
    def leaky(self) -> bool:
        """Hidden for a reason other than a draw (what the warnings are about)."""
        return bool(self.owners or self.hidden or self.unnamed)

    def join(self, other: "Taint") -> "Taint":
        """The taint of a value computed from both."""
        if other is CLEAR or other is self:
            return self
        if self is CLEAR:
            return other
        return Taint(self.owners | other.owners, self.owned | other.owned, self.hidden | other.hidden,
                     self.drawn | other.drawn, self.unnamed or other.unnamed)

    def remap(self, where: Callable[[int], Optional[int]]) -> "Taint":
        """Owners renamed by `where` (a slot of another frame); an owner it maps to None makes the
        value secret (the player is no longer named by a local)."""
        if not self.owners:
            return self
        kept = set()
        lost = False
        for o in self.owners:
            n = where(o)
            if n is None:
                lost = True
            else:
                kept.add(n)
        return attrs.evolve(self, owners=frozenset(kept), unnamed=self.unnamed or lost)

    def label(self) -> Label:
        """The engine's label."""
        if self.secret:
            return SECRET
        return Label(owners=self.owners) if self.owners else PUBLIC


CLEAR = Taint()


@attrs.frozen
class Formula:
    """A label to be: `const` joined with the labels of the locals `deps`."""

    const: Taint = CLEAR
    deps: frozenset[Key] = frozenset()

    def join(self, other: "Formula") -> "Formula":
        """The formula of a value computed from both."""
        if other is NOTHING or other is self:
            return self
        if self is NOTHING:
            return other
        return Formula(self.const.join(other.const), self.deps | other.deps)

    def plus(self, t: Taint) -> "Formula":
        """This formula joined with a known taint."""
        return self if t is CLEAR else Formula(self.const.join(t), self.deps)


NOTHING = Formula()


def join_all(fs: list[Formula]) -> Formula:
    """The join of several formulas (NOTHING for none)."""
    out = NOTHING
    for f in fs:
        out = out.join(f)
    return out


def names(ns: frozenset[str]) -> str:
    """'a', 'a' and 'b', 'a', 'b' and 'c' (sorted) for a message."""
    q = [f"'{n}'" for n in sorted(ns)]
    if not q:
        return "hidden information"
    return q[0] if len(q) == 1 else ", ".join(q[:-1]) + " and " + q[-1]
