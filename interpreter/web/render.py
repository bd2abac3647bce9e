"""Values of a seat's view (the JSON of interpreter/engine/view.py's `observe`) as HTML.

Everything is escaped here (markupsafe): labels and names come from a rulebook, which is text
from anyone.
"""
from __future__ import annotations

from typing import Any

from markupsafe import Markup, escape

INLINE_ITEMS = 12        # a map of at most this many scalars is shown on one line


def is_hidden(v: Any) -> bool:
    """Is this the view's mark of a value the seat may not see?"""
    return v == "hidden" or (isinstance(v, dict) and v.get("hidden") is True)


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float, str))


def _text(v: Any) -> Markup:
    if v is None:
        return Markup('<span class="none">none</span>')
    if isinstance(v, bool):
        return Markup("yes") if v else Markup('<span class="none">no</span>')
    return escape(str(v))


def _hidden(v: Any) -> Markup:
    if not isinstance(v, dict):
        return Markup('<span class="hidden" title="you may not see this">hidden</span>')
    n = v.get("size")
    size = "" if n is None else f" · {int(n)} item{'s' if n != 1 else ''}"
    out = Markup('<span class="hidden" title="you may not see this">hidden{}</span>').format(size)
    if v.get("seen"):
        out = Markup("{} <span class='seen'>yours: {}</span>").format(out, show(v["seen"]))
    return out


def show(v: Any) -> Markup:
    """A value of a view as HTML: hidden marks, lists as chips, maps as small tables."""
    if is_hidden(v):
        return _hidden(v)
    if _scalar(v):
        return _text(v)
    if isinstance(v, list):
        if not v:
            return Markup('<span class="none">empty</span>')
        if _records(v):
            return _rows([(None, x) for x in v])
        if all(_scalar(x) for x in v):
            return Markup(" ").join(Markup('<span class="chip">{}</span>').format(_text(x))
                                    for x in v)
        return Markup('<ol class="items">{}</ol>').format(
            Markup("").join(Markup("<li>{}</li>").format(show(x)) for x in v))
    if isinstance(v, dict):
        if not v:
            return Markup('<span class="none">empty</span>')
        if _records(list(v.values())):
            return _rows(list(v.items()))
        if all(_scalar(x) for x in v.values()) and len(v) <= INLINE_ITEMS:
            return Markup(" ").join(
                Markup('<span class="kv"><span class="k">{}</span> {}</span>').format(
                    label(str(k)), _text(x)) for k, x in v.items())
        rows = Markup("").join(Markup("<tr><th>{}</th><td>{}</td></tr>").format(
            label(str(k)), show(x)) for k, x in v.items())
        return Markup('<table class="map">{}</table>').format(rows)
    return escape(repr(v))


def _records(items: list) -> bool:
    """Several records of one shape (a hand of cards, the ships): shown as a table's rows."""
    if not items or not all(isinstance(x, dict) and x and not is_hidden(x) for x in items):
        return False
    keys = list(items[0])
    return all(list(x) == keys for x in items)


def _rows(items: list) -> Markup:
    """Records as a table: a column per field, a row per record (headed by its key, if any)."""
    keys = list(items[0][1])
    keyed = items[0][0] is not None
    head = Markup("").join(Markup("<th>{}</th>").format(label(k)) for k in keys)
    body = Markup("").join(
        Markup("<tr>{}{}</tr>").format(
            Markup("<th>{}</th>").format(label(str(key))) if keyed else Markup(""),
            Markup("").join(Markup("<td>{}</td>").format(show(rec[k])) for k in keys))
        for key, rec in items)
    return Markup('<table class="rows"><tr>{}{}</tr>{}</table>').format(
        Markup("<th></th>") if keyed else Markup(""), head, body)


def label(name: str) -> str:
    """A field name for people: underscores as spaces."""
    return name.replace("_", " ")
