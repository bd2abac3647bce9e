"""Information-flow labels: who may see a value the engine shows (a log part, a choice, options).

The analysis that computes them is `dsl/flow_analysis.py`; docs/language.md, "What each seat
sees", gives the rules. This module is the interface the engine uses: a `Label` per shown
expression, held by the `FlowInfo` of a checked rulebook (`CheckedRulebook.flow`).
"""
from __future__ import annotations

from typing import Any, Sequence

import attrs

from mercator.dsl import ast as A
from mercator.dsl.types import Type


@attrs.frozen
class Label:
    """Who may see a value: every seat, unless `secret` (no seat may) or it depends on the owner-only
    data of the players held in the local slots `owners` (then only a seat equal to each of them)."""

    secret: bool = False
    owners: frozenset[int] = frozenset()   # local slot numbers of the body the expression runs in

    def join(self, other: "Label") -> "Label":
        """The label of a value computed from both: secret if either is, every owner of both."""
        if self.secret or other.secret:
            return SECRET
        return Label(owners=self.owners | other.owners)

    def visible_to(self, seat: Any, frame_locals: Sequence[Any]) -> bool:
        """Does `seat` (a player value) see the value, given the locals of the running frame?"""
        return not self.secret and all(frame_locals[s] == seat for s in self.owners)


PUBLIC = Label()
SECRET = Label(secret=True)


def conjuncts(e: Any) -> list[Any]:
    """The parts of an `a and b and ...` condition (an any-time action's `when`), each of which
    has its own label: whether it is false may be public while the rest is not."""
    if isinstance(e, A.And):
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]


def is_owner_map(t: Type, visibility: str = "owner") -> bool:
    """Is this an owner-only table field of type `map<player, T>`, whose entry `m[p]` only
    player p sees (the only form of `owner` a table field may have)?"""
    return visibility == "owner" and t.kind == "map" and len(t.args) == 2 and \
        t.args[0].kind == "player"


@attrs.frozen
class FlowInfo:
    """The labels of a checked rulebook's shown expressions, by node identity."""

    labels: dict[int, Label] = attrs.field(factory=dict)
    # action name -> labels of its parameters after the acting player (slot 0 is that player)
    action_params: dict[str, tuple[Label, ...]] = attrs.field(factory=dict)

    def label(self, node: Any) -> Label:
        """The label of an AST node (by id); SECRET for a node the analysis gave no label."""
        return self.labels.get(id(node), SECRET)
