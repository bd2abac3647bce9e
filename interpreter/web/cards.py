"""Hands and piles drawn as SVG from a declared view's rows (docs/language.md §2.20a): a hand
as its cards side by side, each with its words; a hand the seat may not see as that many card
backs (the size its row says, nothing more); a pile as a stack with its count, its top card
face up where the seat may see it.

Nothing here knows a game; everything written is escaped (markupsafe): names come from a
rulebook.
"""
from __future__ import annotations

from typing import Any, Optional

from markupsafe import Markup

from mercator.interpreter.web.boards import wrap

CARD_W, CARD_H = 100, 136     # a card, in SVG units
GAP = 8                       # between two cards
PER_LINE = 6                  # cards on a line of a hand (more go on the next)
MAX_BACKS = 12                # a hidden hand draws at most this many backs (its count says all)
STACK = 3                     # a pile shows at most this many edges under its top
LINE = 13                     # a line of a card's words


def _face(text: str, x: float, y: float, key: Optional[str] = None) -> Markup:
    """A card face up at (x, y): its words broken into lines from the top."""
    lines = wrap(text, CARD_W)[:int((CARD_H - 12) / LINE)]
    words = Markup("").join(Markup('<tspan x="{:.1f}" dy="{}">{}</tspan>').format(
        x + CARD_W / 2, 0 if i == 0 else LINE, ln) for i, ln in enumerate(lines))
    return Markup('<g class="card"{}><title>{}</title><rect x="{:.1f}" y="{:.1f}" width="{}" '
                  'height="{}" rx="7"/><text x="{:.1f}" y="{:.1f}">{}</text></g>').format(
        Markup(' data-key="{}"').format(key) if key is not None else Markup(""), text, x, y,
        CARD_W, CARD_H, x + CARD_W / 2, y + 20, words)


def _back(x: float, y: float) -> Markup:
    """A card face down at (x, y)."""
    return Markup('<g class="back"><rect x="{:.1f}" y="{:.1f}" width="{}" height="{}" rx="7"/>'
                  '<rect class="inner" x="{:.1f}" y="{:.1f}" width="{}" height="{}" rx="4"/>'
                  '</g>').format(x, y, CARD_W, CARD_H, x + 8, y + 8, CARD_W - 16, CARD_H - 16)


def _svg(label: str, width: float, height: float, body: Markup) -> Markup:
    return Markup('<svg class="cards" viewBox="0 0 {0:g} {1:g}" width="{0:g}" role="img" '
                  'aria-label="{2}">{3}</svg>').format(width, height, label, body)


def hand_svg(row: dict[str, Any]) -> Markup:
    """A hand: its cards face up, PER_LINE a line (each card's data-key its plain words, for
    the options that name it); hidden from the seat, as many backs as its size (at most
    MAX_BACKS) and its words ("(hidden, 4 items)")."""
    if row["hidden"]:
        n = int(row.get("size") or 0)
        shown = min(n, MAX_BACKS)
        body = Markup("").join(_back(i * (CARD_W / 3), 0) for i in range(shown))
        width = (shown - 1) * (CARD_W / 3) + CARD_W if shown else 1
        pic = _svg(row["label"], width, CARD_H, body) if shown else Markup("")
        return Markup('{}<span class="hidden" title="you may not see this">{}</span>').format(
            pic, row["text"])
    cards = row["cards"]
    if not cards:
        return Markup('<span class="none">none</span>')
    per = min(len(cards), PER_LINE)
    lines = (len(cards) + per - 1) // per
    body = Markup("").join(
        _face(c, (i % per) * (CARD_W + GAP), (i // per) * (CARD_H + GAP), k)
        for i, (c, k) in enumerate(zip(cards, row["keys"])))
    return _svg(row["label"], per * (CARD_W + GAP) - GAP, lines * (CARD_H + GAP) - GAP, body)


def pile_svg(row: dict[str, Any]) -> Markup:
    """A row of piles: each a stack (an edge a card under the top, at most STACK) with its top
    card face up where there is one to see (a list's first; a bag's cards by kind), else a
    back (a count of cards); its count under it and, for a map's pile, its name over it.
    Under the picture, each pile's cards in words."""
    if row["hidden"]:
        n = row.get("size")
        pic = _svg(row["label"], CARD_W + STACK * 3, CARD_H + STACK * 3 + 20,
                   _stack(None, n, 0, 0)) if n else Markup("")
        # the stack says its count: the words beside it say only that it is hidden
        return Markup('{}<span class="hidden" title="you may not see this">{}</span>').format(
            pic, "(hidden)" if n else row["text"])
    ps = row["piles"]
    named = any(p["key"] is not None for p in ps)
    top = 18 if named else 0
    step = CARD_W + STACK * 3 + 2 * GAP
    body = []
    for i, p in enumerate(ps):
        x = i * step
        if named:
            body.append(Markup('<text class="pile-name" x="{:.1f}" y="13">{}</text>').format(
                x + CARD_W / 2, p["key"]))
        # a list's top card face up; a bag face up shows what it holds, by kind; a count of
        # cards (int) is face down
        face = p["top"] if p["top"] is not None else ", ".join(p["items"]) or None
        body.append(_stack(face, p["count"], x, top, p["key"]))
    listing = Markup("").join(
        Markup("<li>{}{} card{}{}</li>").format(
            f"{p['key']}: " if p["key"] is not None else "", p["count"],
            "" if p["count"] == 1 else "s",
            ": " + ", ".join(p["items"]) if p["items"] else "") for p in ps)
    return Markup('{}<details><summary>as a list</summary><ul class="graph-list">{}</ul>'
                  '</details>').format(
        _svg(row["label"], len(ps) * step - 2 * GAP, top + CARD_H + STACK * 3 + 20,
             Markup("").join(body)), listing)


def _stack(face: Optional[str], count: Optional[int], x: float, y: float,
           key: Optional[str] = None) -> Markup:
    """One pile at (x, y): edges for the cards under its top, the top (face up with `face`,
    else a back; an outline when empty) and its count."""
    n = int(count or 0)
    under = min(max(n - 1, 0), STACK)
    edges = Markup("").join(
        Markup('<rect class="edge" x="{:.1f}" y="{:.1f}" width="{}" height="{}" rx="7"/>').format(
            x + 3 * k, y + 3 * k, CARD_W, CARD_H) for k in range(under, 0, -1))
    if n == 0:
        top = Markup('<rect class="empty" x="{:.1f}" y="{:.1f}" width="{}" height="{}" '
                     'rx="7"/>').format(x, y, CARD_W, CARD_H)
    elif face is not None:
        top = _face(face, x, y)
    else:
        top = _back(x, y)
    words = "empty" if n == 0 else f"{n} card{'s' if n != 1 else ''}"
    return Markup('<g class="pile"{}>{}{}<text class="count" x="{:.1f}" y="{:.1f}">{}</text>'
                  '</g>').format(Markup(' data-key="{}"').format(key) if key is not None
                                 else Markup(""), edges, top, x + CARD_W / 2,
                                 y + CARD_H + STACK * 3 + 15, words)
