"""What a drawing needs beyond a row's words (docs/language.md §2.20a): a hand's cards, piles
with their counts and top cards, and the things standing on a grid's square as tokens a
picture can draw — a player (drawn in his seat's colour), a named flag (a true field of a
record: Genoa's `tower`, `disc`), a word. Each is computed from the same value the row's
words are written from (a hidden hand: from the size its row says), so a drawing shows
nothing its row does not.
"""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl.types import Type
from mercator.interpreter.engine.people import People, name_words

Token = dict[str, str]


def tokens(v: Any, t: Type, w: People, name: str = "") -> list[Token]:
    """The things a value of type t stands for on a square, in order: {"seat": "P2"} for a
    player, {"flag": NAME} for a record's field that is true (named by the field, in words),
    {"text": WORDS} for any other value (a record's field with its name); none, false, an
    empty collection and zero stand for nothing."""
    if v is None:
        return []
    k = t.kind
    if k == "opt":
        return tokens(v, t.args[0], w, name)
    if k == "player":
        return [{"seat": f"P{v + 1}"}]
    if k == "bool":
        return [{"flag": name}] if v and name else []
    if k in ("list", "bag"):
        items = sorted(v.items()) if k == "bag" else [(x, 1) for x in v]
        return [tok for x, n in items for tok in tokens(x, t.args[0], w, name) for _ in range(n)]
    if k == "record":
        return [tok for f, x, ft in zip(t.members, v, t.field_types)
                for tok in tokens(x, ft, w, name_words(f))]
    if k == "int" and v == 0:
        return []
    text = w.text(v, t)
    return [{"text": f"{name} {text}" if name and k == "int" else text}]


def flag_names(t: Type, name: str = "") -> list[str]:
    """The flags a value of type t may raise, in the order of its record's fields (a drawing
    gives each its own colour, the same in every state)."""
    k = t.kind
    if k == "opt" or k in ("list", "bag"):
        return flag_names(t.args[0], name)
    if k == "bool":
        return [name] if name else []
    if k == "record":
        out: list[str] = []
        for f, ft in zip(t.members, t.field_types):
            out += [x for x in flag_names(ft, name_words(f)) if x not in out]
        return out
    return []


def grid_tokens(contents: Any, xt: Type, items: list[tuple[Any, Any]],
                w: People) -> list[list[list[Token]]]:
    """For each square of a grid's rows (`items`: (row key, row of cells)), the tokens of what
    stands on it (`with`: a map square -> what, of type xt), [] where nothing does."""
    mt = xt.args[1]
    per = {x: tokens(m, mt, w) for x, m in contents.items()}
    return [[per.get(x, []) for x in (row or [])] for _, row in items]


def _cards_of(v: Any, t: Type) -> tuple[list[Any], Type]:
    """The cards of a list (in order) or a bag (sorted, each as often as it is held)."""
    t = t.args[0] if t.kind == "opt" else t
    if v is None:
        return [], Type("any")
    if t.kind == "bag":
        return [x for x, n in sorted(v.items()) for _ in range(n)], t.args[0]
    return list(v), t.args[0]


def hand(v: Any, t: Type, w: People) -> dict[str, Any]:
    """A hand (`hand`: a list or a bag of cards) shown to a seat that may see it: each card in
    the view's words ("cards"), and its plain words ("keys": what an option's targets name)."""
    cards, ct = _cards_of(v, t)
    return {"cards": [w.text(c, ct) for c in cards], "keys": [People().text(c, ct) for c in cards]}


def _one_pile(v: Any, t: Type, w: People, key: Optional[str]) -> dict[str, Any]:
    t = t.args[0] if t.kind == "opt" else t
    if t.kind in ("list", "bag"):
        cards, ct = _cards_of(v, t)
        top = w.text(cards[0], ct) if cards and t.kind == "list" else None
        items = [w.text(c, ct) for c in cards] if t.kind == "list" else \
            [w.text(x, ct) + (f"×{n}" if n != 1 else "") for x, n in sorted((v or {}).items())]
        return {"key": key, "count": len(cards), "top": top, "items": items}
    return {"key": key, "count": int(v or 0), "top": None, "items": []}     # a count, face down


def piles(v: Any, t: Type, w: People) -> list[dict[str, Any]]:
    """The piles of a `pile` row shown to a seat that may see it: one, or one a key of a map
    (in key order); each {"key" (the map's key in words, or None), "count", "top" (a list's
    first card in words: what `draw from` takes; None for a bag, a count, an empty pile),
    "items" (its cards in words, a bag's by kind)}."""
    t = t.args[0] if t.kind == "opt" else t
    if t.kind == "map":
        return [_one_pile(x, t.args[1], w, w.text(k, t.args[0])) for k, x in sorted((v or {}).items())]
    return [_one_pile(v, t, w, None)]


def hidden_cards(v: Any, t: Type) -> Optional[int]:
    """How many cards a hand or a pile the seat may not see holds, as its row's "(hidden, N
    items)" says (the generic view's size); None where the row says no size (a map of piles:
    its size is how many piles, not cards)."""
    t = t.args[0] if t.kind == "opt" else t
    if v is None or t.kind not in ("list", "bag"):
        return None
    return sum(v.values()) if t.kind == "bag" else len(v)


def pile_words(p: dict[str, Any]) -> str:
    """A pile in words: "contract: 12 cards, top: message for inn" ("1 card", "empty"; a bag
    face up with its cards by kind: "3 cards (red×2, blue)")."""
    n = p["count"]
    size = "empty" if n == 0 else f"{n} card{'s' if n != 1 else ''}"
    top = f", top: {p['top']}" if p["top"] is not None else \
        f" ({', '.join(p['items'])})" if p["items"] else ""     # a bag face up: by kind
    return f"{p['key']}: {size}{top}" if p["key"] is not None else size + top
