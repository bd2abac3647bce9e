"""Boards drawn as SVG from a declared view's rows (docs/language.md §2.20a): a `grid` as its
squares — a run of neighbouring squares of one value (a building on Genoa's board) drawn as
one piece with its name written once, what stands on it (`with`) drawn on it: a player in his
seat's colour, a flag (the tower, a disc) as a named token, anything else as words.

Nothing here knows a game: the drawing follows the row's data (engine/declared_view.py,
engine/view_boards.py), which follows the seat's visibility like any row. Everything written
is escaped (markupsafe): names come from a rulebook.
"""
from __future__ import annotations

from typing import Any, Optional

from markupsafe import Markup

# each seat's colour, P1 first, wherever the page shows a seat: its pieces on a board, and the
# swatch on its card (the classes .seat-N of templates/base.html, the same colours)
SEAT_COLOURS = ("#d1495b", "#2e86ab", "#e09f3e", "#3f8f4f", "#7b4fc9", "#8c5a3c", "#c2408f",
                "#4a5568")
FLAG_FILLS = ("#1d2430", "#b7791f", "#2c7a7b", "#6b46c1")   # the flags of a square, in order

SQUARE = 80          # a square of a grid, in SVG units
HEAD = 18            # the row names on the left, the column numbers on top
FONT = 12            # a square's name
CHAR = FONT * 0.56   # about the width of a character of it
TOKEN = 16           # the height of a token


def seat_colour(seat: str) -> str:
    """The colour of seat "P2" (the palette goes round for more seats than colours)."""
    try:
        n = int(seat[1:]) - 1
    except ValueError:
        return SEAT_COLOURS[-1]
    return SEAT_COLOURS[n % len(SEAT_COLOURS)]


def regions(rows: list[list[str]], tokens: list[list[list[dict]]]
            ) -> list[list[tuple[int, int]]]:
    """The pieces of a grid: each a run of squares joined side by side (not corner to corner)
    with the same name and the same things on them, in order of their first square (row by
    row); each piece's squares in that order."""
    seen: set[tuple[int, int]] = set()
    out = []
    for r0, row in enumerate(rows):
        for c0 in range(len(row)):
            if (r0, c0) in seen:
                continue
            piece, todo = [], [(r0, c0)]
            seen.add((r0, c0))
            while todo:
                r, c = todo.pop()
                piece.append((r, c))
                for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                    if 0 <= rr < len(rows) and 0 <= cc < len(rows[rr]) and \
                            (rr, cc) not in seen and rows[rr][cc] == row[c0] and \
                            tokens[rr][cc] == tokens[r0][c0]:
                        seen.add((rr, cc))
                        todo.append((rr, cc))
            out.append(sorted(piece))
    return out


def _edges(piece: list[tuple[int, int]]) -> str:
    """The outline of a piece as path data: each side of a square with no square of the piece
    beyond it."""
    cells = set(piece)
    d = []
    for r, c in piece:
        x, y = HEAD + c * SQUARE, HEAD + r * SQUARE
        if (r - 1, c) not in cells:
            d.append(f"M{x} {y}h{SQUARE}")
        if (r + 1, c) not in cells:
            d.append(f"M{x} {y + SQUARE}h{SQUARE}")
        if (r, c - 1) not in cells:
            d.append(f"M{x} {y}v{SQUARE}")
        if (r, c + 1) not in cells:
            d.append(f"M{x + SQUARE} {y}v{SQUARE}")
    return "".join(d)


def _covers(v: float) -> list[int]:
    """The squares (indexes) whose centre is at v, or the two it lies between (v half way)."""
    if abs(v * 2 - round(v * 2)) > 1e-9:
        return []
    return [int(v)] if abs(v - round(v)) < 1e-9 else [int(v - .5), int(v + .5)]


def _anchor(piece: list[tuple[int, int]]) -> tuple[float, float, float]:
    """Where a piece's name is written (x, y) and the width there to write in: the centre of
    its squares when that lies on the piece (a 2×1 or 2×2 building: across its squares), else
    the centre of its square nearest to it (an L); the width is the run of the piece's squares
    along the row there (the narrower of two rows the centre lies between), the name centred
    on that run."""
    cells = set(piece)
    cy = sum(r for r, _ in piece) / len(piece)
    cx = sum(c for _, c in piece) / len(piece)
    rows, cols = _covers(cy), _covers(cx)
    if not rows or not cols or not all((r, c) in cells for r in rows for c in cols):
        r, c = min(piece, key=lambda rc: ((rc[0] - cy) ** 2 + (rc[1] - cx) ** 2, rc))
        cy, cx, rows, cols = float(r), float(c), [r], [c]

    def run(r: int) -> tuple[int, int]:
        lo, hi = min(cols), max(cols)
        while (r, lo - 1) in cells:
            lo -= 1
        while (r, hi + 1) in cells:
            hi += 1
        return lo, hi
    lo, hi = min((run(r) for r in rows), key=lambda lh: (lh[1] - lh[0], lh))
    return HEAD + ((lo + hi) / 2 + .5) * SQUARE, HEAD + (cy + .5) * SQUARE, (hi - lo + 1) * SQUARE


def wrap(name: str, width: float) -> list[str]:
    """A name in lines that fit `width` (SVG units), broken between words; a word longer than
    a line stands alone."""
    most = max(int((width - 8) / CHAR), 4)
    lines: list[str] = []
    for word in name.split():
        if lines and len(lines[-1]) + 1 + len(word) <= most:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def _token_width(tok: dict) -> float:
    if "seat" in tok:
        return TOKEN + 10
    return len(tok.get("flag") or tok.get("text") or "") * 6.2 + 10


def _token(tok: dict, x: float, y: float, flags: list[str]) -> Markup:
    """A token drawn with its left edge at x, its middle at y."""
    w = _token_width(tok)
    if "seat" in tok:
        return Markup('<g class="seat"><circle cx="{:.1f}" cy="{:.1f}" r="{}" fill="{}"/>'
                      '<text x="{:.1f}" y="{:.1f}">{}</text></g>').format(
            x + w / 2, y, TOKEN / 2 + 3, seat_colour(tok["seat"]), x + w / 2, y + 4, tok["seat"])
    if "flag" in tok:
        fill = FLAG_FILLS[flags.index(tok["flag"]) % len(FLAG_FILLS)]
        return Markup('<g class="flag"><rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{}" '
                      'rx="8" fill="{}"/><text x="{:.1f}" y="{:.1f}">{}</text></g>').format(
            x, y - TOKEN / 2, w, TOKEN, fill, x + w / 2, y + 4, tok["flag"])
    return Markup('<text class="word" x="{:.1f}" y="{:.1f}">{}</text>').format(
        x + w / 2, y + 4, tok["text"])


def _tokens(toks: list[dict], cx: float, top: float, width: float,
            flags: list[str]) -> tuple[Markup, float]:
    """A piece's tokens in lines centred at cx from `top` down, within `width`; and where
    they end."""
    lines: list[list[dict]] = []
    for tok in toks:
        if lines and sum(_token_width(t) + 4 for t in lines[-1]) + _token_width(tok) <= width - 6:
            lines[-1].append(tok)
        else:
            lines.append([tok])
    out = []
    y = top
    for line in lines:
        x = cx - (sum(_token_width(t) for t in line) + 4 * (len(line) - 1)) / 2
        for tok in line:
            out.append(_token(tok, x, y + TOKEN / 2, flags))
            x += _token_width(tok) + 4
        y += TOKEN + 6
    return Markup("").join(out), y


def grid_svg(row: dict[str, Any], moved: Optional[list[str]] = None) -> Markup:
    """A declared grid as an SVG board: a square for each cell under its column's number and
    beside its row's name; each piece (`regions`) one shape, its name written once, what
    stands on it drawn on it (tokens), tinted in the colour of a player on it; a piece whose
    name is in `moved` (changed since the seat's last move) ringed; each piece's `data-key` its
    name (pointing at an option outlines what it acts on). Under it, the rows in words."""
    rows, keys = row["rows"], row["keys"]
    toks = row.get("tokens") or [[[] for _ in r] for r in rows]
    marks = row.get("marks") or [["" for _ in r] for r in rows]
    cols = row["columns"]
    width, height = HEAD + cols * SQUARE + 2, HEAD + len(rows) * SQUARE + 2
    flags: list[str] = list(row.get("flags") or [])
    flags += sorted({t["flag"] for r in toks for cell in r for t in cell
                     if "flag" in t and t["flag"] not in flags})
    head = [Markup('<text class="col" x="{}" y="{}">{}</text>').format(
        HEAD + (c + .5) * SQUARE, HEAD - 5, c + 1) for c in range(cols)]
    head += [Markup('<text class="row" x="{}" y="{}">{}</text>').format(
        HEAD / 2, HEAD + (r + .5) * SQUARE + 4, k) for r, k in enumerate(keys)]
    pieces = []
    outline = []
    for piece in regions(rows, toks):
        r0, c0 = piece[0]
        name, on, mark = rows[r0][c0], toks[r0][c0], marks[r0][c0]
        seats = [t["seat"] for t in on if "seat" in t]
        fill = seat_colour(seats[0]) if seats else "#f7f4ea"
        rects = Markup("").join(
            Markup('<rect x="{}" y="{}" width="{}" height="{}" fill="{}"{}/>').format(
                HEAD + c * SQUARE, HEAD + r * SQUARE, SQUARE, SQUARE, fill,
                Markup(' fill-opacity=".3"') if seats else Markup(""))
            for r, c in piece)
        edge = _edges(piece)
        outline.append(edge)
        cx, cy, room = _anchor(piece)
        lines = wrap(name, room)
        rows_of_tokens = 0 if not on else 1 + int(
            sum(_token_width(t) + 4 for t in on) > room - 6)
        top = cy - (len(lines) * (FONT + 2) + rows_of_tokens * (TOKEN + 6)) / 2
        text = Markup('<text class="name" x="{:.1f}" y="{:.1f}">{}</text>').format(
            cx, top + FONT, Markup("").join(
                Markup('<tspan x="{:.1f}" dy="{}">{}</tspan>').format(cx, 0 if i == 0 else FONT + 2,
                                                                     ln)
                for i, ln in enumerate(lines)))
        drawn, _ = _tokens(on, cx, top + len(lines) * (FONT + 2) + 4, room, flags)
        tip = f"{name} [{mark}]" if mark else name
        pieces.append(Markup('<g class="square{}" data-key="{}"><title>{}</title>{}'
                             '<path class="edge" d="{}"/>{}{}</g>').format(
            " moved" if name in (moved or ()) else "", name, tip, rects, edge, text, drawn))
    listing = Markup("").join(Markup("<li>{}: {}</li>").format(k, " | ".join(
        c + (f" [{m}]" if m else "") for c, m in zip(cells, mk)))
        for k, cells, mk in zip(keys, rows, marks))
    return Markup('<div class="board-frame"><svg class="board" viewBox="0 0 {0} {1}" role="img" '
                  'aria-label="{2}">{3}{4}<path class="lines" d="{5}"/></svg></div>'
                  '<details><summary>as a list</summary><ul class="graph-list">{6}</ul>'
                  '</details>').format(width, height, row["label"], Markup("").join(head),
                                       Markup("").join(pieces), "".join(outline), listing)
