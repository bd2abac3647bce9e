"""What a drawing needs beyond a row's words (docs/language.md §2.20a): the things standing on a
grid's square as tokens a picture can draw — a player (drawn in his seat's colour), a named
flag (a true field of a record: Genoa's `tower`, `disc`), a word — computed from the same value
the row's words are written from, so a drawing shows nothing its row does not.
"""
from __future__ import annotations

from typing import Any

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
