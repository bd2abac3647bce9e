"""The `bounds` declaration: sizes the rules guarantee about every game (E170).

The checker only checks its form: known words, a range where a range is meant, lo <= hi, each
word once, one declaration. Whether games keep within the bounds is a property of play:
`mercator check --explore` verifies it (interpreter/tools/explore.py), and the research adapters
refuse a game that leaves them (interpreter/engine/encoding.py).
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl import ast as A
from mercator.dsl.checked import Bounds
from mercator.dsl.checker_base import CheckerBase
from mercator.dsl.diagnostics import did_you_mean

# word -> (takes a range?, what it bounds, an example)
BOUND_WORDS = {
    "options": (True, "every integer a decision offers or chance picks", "options 0..200"),
    "score": (True, "every final score", "score -40..130"),
    "decisions": (False, "the decisions of a game", "decisions 600"),
    "values": (True, "every number an observation tensor shows (an integer field, a size, a "
               "count, the round)", "values -50..5000"),
    "moves": (False, "the action ids the players take in a game, one at a time", "moves 700"),
    "lists": (False, "the items of every list, bag or map a decision offers", "lists 6"),
    "length": (False, "the items a state field holds", "length ships 8"),
}


class BoundsChecker(CheckerBase):
    """Checks the one `bounds { ... }` of a rulebook into a Bounds."""

    def check_bounds(self, items: tuple[Any, ...]) -> Optional[Bounds]:
        """The checked bounds, or None when the rulebook declares none (or they have errors)."""
        decl = self.one_block(items, A.BoundsDecl, "E170", "bounds")
        if decl is None:
            return None
        ok = True
        seen: dict[str, A.BoundItem] = {}
        lengths: dict[str, int] = {}
        for it in decl.items:
            if not self.known_word(it.word, list(BOUND_WORDS), "E170", "bound", it.span):
                ok = False
                continue
            is_range, what, example = BOUND_WORDS[it.word]
            if (it.word == "length") != (it.field is not None):
                self.err("E170", "'length' names a field: length FIELD N" if it.field is None
                         else f"'{it.word}' takes no field name", it.span, f"write: {example}")
                ok = False
                continue
            if it.field is not None:
                if not self._length_field(it):
                    ok = False
                    continue
                if it.field in lengths:
                    self.err("E170", f"the length of '{it.field}' is given twice", it.span,
                             "keep one line for each field")
                    ok = False
                lengths[it.field] = it.lo
                if it.hi is not None or it.lo < 0:
                    self.err("E170", "a length is one number, at least 0", it.span,
                             f"write: {example}")
                    ok = False
                continue
            if it.word in seen:
                self.err("E170", f"the bound '{it.word}' is given twice", it.span,
                         f"keep one line for {what}")
                ok = False
            seen[it.word] = it
            if is_range and it.hi is None:
                self.err("E170", f"'{it.word}' takes a range lo..hi", it.span, f"write: {example}")
                ok = False
            elif not is_range and it.hi is not None:
                self.err("E170", f"'{it.word}' takes one number, not a range", it.span,
                         f"write: {example}")
                ok = False
            elif is_range and it.hi is not None and it.lo > it.hi:
                self.err("E170", f"the range {it.lo}..{it.hi} is empty", it.span,
                         f"the low end comes first: {it.hi}..{it.lo}")
                ok = False
            elif not is_range and it.lo < (1 if it.word in ("decisions", "moves") else 0):
                self.err("E170", f"'{it.word} {it.lo}' bounds nothing", it.span,
                         f"{what}: at least {1 if it.word in ('decisions', 'moves') else 0}")
                ok = False
        if not ok:
            return None

        def rng(word: str) -> Optional[tuple[int, int]]:
            it = seen.get(word)
            return None if it is None or it.hi is None else (it.lo, it.hi)

        def one(word: str) -> Optional[int]:
            it = seen.get(word)
            return None if it is None else it.lo

        return Bounds(options=rng("options"), score=rng("score"), decisions=one("decisions"),
                      lists=one("lists"), decl=decl, moves=one("moves"),
                      values=rng("values"),
                      spans={w: it.span for w, it in seen.items()}, lengths=lengths)

    def _length_field(self, it: A.BoundItem) -> bool:
        """Is the field of `length FIELD N` a state field holding a list, bag or map? (E170)"""
        assert it.field is not None
        fields = {**self.player_fields, **self.table_fields}
        f = fields.get(it.field)
        if f is None:
            self.err("E170", f"no state field '{it.field}'", it.span,
                     did_you_mean(it.field, fields) or "name a player or table field")
            return False
        t = f.type.args[0] if f.type.kind == "opt" else f.type
        if t.kind not in ("list", "bag", "map"):
            self.err("E170", f"'{it.field}' is of type {f.type}, not a collection", it.span,
                     "a length bounds a list, bag or map field")
            return False
        return True
