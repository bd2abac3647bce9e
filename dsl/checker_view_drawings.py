"""The checks of a view's drawings (docs/language.md, "Views"): a track drawn on a strip of
spaces (`track ... on SPACES`), a graph drawn on its nodes' positions (`graph ... on
POSITIONS`), a hand of cards and piles (`hand`, `pile`) — E160 where the value does not fit
the line that draws it."""
from __future__ import annotations

from typing import Optional

from mercator.dsl import ast as A
from mercator.dsl.checker_view_labels import LabelChecker
from mercator.dsl.types import Type, strip_opt


PLAIN = ("list", "map", "bag", "tuple")        # a card is a value, not a collection


def pile_of(t: Type) -> bool:
    """Is t one pile: a list (its first item on top, as `draw from` takes it), a bag, or a
    count of face-down items (int)?"""
    t = strip_opt(t)
    return t.kind in ("int", "any") or (t.kind in ("list", "bag") and
                                        strip_opt(t.args[0]).kind not in PLAIN)


class DrawingChecker(LabelChecker):
    """The view checker's part for drawings: what a track's spaces and a graph's positions
    must be, and what a hand and a pile hold."""

    def _cards(self, r: A.ViewRow, t: Type) -> None:
        """`hand`: a list or a bag of cards (plain values or records); `pile`: one pile
        (`pile_of`) or a map from a name to one (a pile a key)."""
        t = strip_opt(t)
        if t.kind == "any":
            return
        if r.kind == "hand" and not (t.kind in ("list", "bag") and
                                     strip_opt(t.args[0]).kind not in PLAIN):
            self.err("E160", f"hand \"{r.label}\" has type {t}, not a list or a bag of cards",
                     r.expr.span, "a hand is the cards one holds: hand \"cards\" = p.cards "
                     "(a list<Card> or a bag<Card>)")
        elif r.kind == "pile" and not (pile_of(t) or (t.kind == "map" and pile_of(t.args[1]))):
            self.err("E160", f"pile \"{r.label}\" has type {t}, not a pile: a list (its first "
                     "item on top), a bag, a count (int), or a map from a name to one of them",
                     r.expr.span, "pile \"deck\" = deck, or a pile a kind: pile \"discards\" "
                     "= discards (a map<Kind, list<Card>>)")

    def _positions(self, r: A.ViewRow, node: Optional[Type], ot: Type) -> None:
        """`graph ... on POSITIONS`: a map from the graph's nodes to [x, y] (list<int>), where
        the browser draws each node."""
        assert r.on is not None
        if node is None or node.kind == "any" or ot.kind == "any":
            return
        if not (ot.kind == "map" and strip_opt(ot.args[0]) == node and
                strip_opt(ot.args[1]).kind == "list" and
                strip_opt(strip_opt(ot.args[1]).args[0]).kind in ("int", "any")):
            self.err("E160", f"graph \"{r.label}\": 'on' needs a map from its nodes ({node}) to "
                     f"their positions [x, y] (list<int>), got {ot}", r.on.span,
                     f"give each node its [x, y]: table positions: map<{node}, list<int>> = "
                     f"{{...}}, then graph \"{r.label}\" = ... on positions")

    def _spaces(self, r: A.ViewRow, t: Type, xt: Type) -> None:
        """`track ... on SPACES`: the spaces are a list of plain values (numbers, names), and the
        track's entries (a map's values, a list's items) are values of that type, each drawn on
        the space equal to it."""
        assert r.on is not None
        if r.kind != "track":
            self.err("E160", f"'on' on a {r.kind}: only a track is drawn on a strip of spaces "
                     "(and a graph on its nodes' positions)",
                     r.on.span, "remove 'on ...', or make the line a track: "
                     "track \"boats\" = {g: position[g] for g in Good} on 0..13 (a graph: "
                     "graph \"roads\" = roads on positions, a map node -> [x, y])")
            return
        if xt.kind == "any":
            return
        space = strip_opt(xt.args[0]) if xt.kind == "list" and xt.args else None
        if space is None or space.kind in ("list", "map", "bag", "record", "tuple"):
            self.err("E160", f"track \"{r.label}\": its spaces have type {xt}, not a list of "
                     "plain values", r.on.span,
                     "name the spaces as a list of numbers or names: on 0..13, or on price_track")
            return
        entry = strip_opt(t.args[1]) if t.kind == "map" else \
            strip_opt(t.args[0]) if t.kind == "list" else None
        if entry is not None and entry.kind != "any" and entry != space:
            self.err("E160", f"track \"{r.label}\": its entries have type {entry} and its spaces "
                     f"{space}: an entry is drawn on the space equal to it", r.expr.span,
                     "make the entries the spaces' values (a position, a price): "
                     "{g: position[g] for g in Good} on 0..13")
