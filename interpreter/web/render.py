"""Values of a seat's view (the JSON of interpreter/engine/view.py's `observe`) as HTML.

Everything is escaped here (markupsafe): labels and names come from a rulebook, which is text
from anyone.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Optional

from markupsafe import Markup, escape

from mercator.interpreter.engine.people import People

INLINE_ITEMS = 12        # a map of at most this many scalars is shown on one line
_WORDS = People()        # a name of the rulebook in a value, in words (engine/people.py)


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
    return escape(_WORDS.label(str(v)) if isinstance(v, str) else str(v))


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
            return Markup('<span class="none">none</span>')
        if _records(v):
            return _rows([(None, x) for x in v])
        if all(_scalar(x) for x in v):
            return Markup(" ").join(Markup('<span class="chip">{}</span>').format(_text(x))
                                    for x in v)
        return Markup('<ol class="items">{}</ol>').format(
            Markup("").join(Markup("<li>{}</li>").format(show(x)) for x in v))
    if isinstance(v, dict):
        if not v:
            return Markup('<span class="none">none</span>')
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
    """A field name or a key for people, in words: underscores as spaces, a number glued to a
    name set apart."""
    return _WORDS.label(name)


GRAPH_SIZE = 520             # the drawing's width and height, in SVG units
_LAYOUT_ROUNDS = 300


def layout(nodes: list[str], edges: list[list[str]]) -> dict[str, tuple[float, float]]:
    """Where to draw each node: a force-directed layout (nodes repel, edges pull), started
    from a circle in the nodes' order, so the same graph is always drawn the same way (and
    computed once: a game's map does not change)."""
    return dict(_layout(tuple(nodes), tuple(tuple(e) for e in edges)))


@functools.lru_cache(maxsize=64)
def _layout(nodes_: tuple[str, ...],
            edges_: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, tuple[float, float]], ...]:
    import math
    nodes, edges = list(nodes_), [list(e) for e in edges_]
    n = len(nodes)
    if n == 0:
        return ()
    pos = {v: [math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n)]
           for i, v in enumerate(nodes)}
    k = 2.0 / math.sqrt(n)
    temp = 0.2
    for _ in range(_LAYOUT_ROUNDS):
        move = {v: [0.0, 0.0] for v in nodes}
        for i, a in enumerate(nodes):
            for b in nodes[i + 1:]:
                dx, dy = pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]
                d = max(math.hypot(dx, dy), 1e-3)
                f = k * k / d
                move[a][0] += dx / d * f
                move[a][1] += dy / d * f
                move[b][0] -= dx / d * f
                move[b][1] -= dy / d * f
        for a, b in edges:
            dx, dy = pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]
            d = max(math.hypot(dx, dy), 1e-3)
            f = d * d / k
            move[a][0] -= dx / d * f
            move[a][1] -= dy / d * f
            move[b][0] += dx / d * f
            move[b][1] += dy / d * f
        _nudge(pos, move, temp)
        temp = max(temp * 0.985, 0.002)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    pad = 40
    span_x = max(max(xs) - min(xs), 1e-6)
    span_y = max(max(ys) - min(ys), 1e-6)
    size = GRAPH_SIZE - 2 * pad
    return tuple((v, (pad + (p[0] - min(xs)) / span_x * size,
                      pad + (p[1] - min(ys)) / span_y * size)) for v, p in pos.items())


MAP_PAD = 30                 # a map on the rulebook's positions: the margin around it ...
MAP_NAMES = 60               # ... and more on the right, where the last nodes' names are written


def layout_on(nodes: list[str], edges: list[list[str]],
              at: dict[str, list[int]]) -> tuple[dict[str, tuple[float, float]], float]:
    """Where to draw each node of a graph drawn on the rulebook's positions (`on`, "at") and
    the drawing's height: the positions scaled, the aspect ratio kept, so that the map fills
    the drawing's GRAPH_SIZE less the margins (MAP_PAD, and MAP_NAMES on the right for the
    names) in its longer direction (y grows downward; a wide map makes a short drawing, a tall
    one is centred across). A node without a position is placed by the
    force-directed layout of `layout` among the placed ones, which stay where they are
    (`_free_nodes`). Without any position, `layout` and a square drawing."""
    key = tuple((n, (float(at[n][0]), float(at[n][1]))) for n in nodes if n in at)
    if not key:
        return layout(nodes, edges), float(GRAPH_SIZE)
    placed = _layout_on(tuple(nodes), tuple(tuple(e) for e in edges), key)
    return dict(placed[0]), placed[1]


@functools.lru_cache(maxsize=64)
def _layout_on(nodes_: tuple[str, ...], edges_: tuple[tuple[str, ...], ...],
               fixed_: tuple[tuple[str, tuple[float, float]], ...]
               ) -> tuple[tuple[tuple[str, tuple[float, float]], ...], float]:
    fixed = dict(fixed_)
    pos = _free_nodes(list(nodes_), [list(e) for e in edges_], fixed)
    wide = GRAPH_SIZE - 2 * MAP_PAD - MAP_NAMES
    high = GRAPH_SIZE - 2 * MAP_PAD
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    span_x, span_y = max(xs) - min(xs), max(ys) - min(ys)
    scale = min(wide / span_x if span_x > 0 else float("inf"),
                high / span_y if span_y > 0 else float("inf"))
    if scale == float("inf"):         # every node on one spot
        scale = 0.0
    left = MAP_PAD + (wide - span_x * scale) / 2
    height = 2 * MAP_PAD + span_y * scale
    return tuple((v, (left + (p[0] - min(xs)) * scale, MAP_PAD + (p[1] - min(ys)) * scale))
                 for v, p in pos.items()), height


def _nudge(pos: dict[str, list[float]], move: dict[str, list[float]], temp: float) -> None:
    """One round of a force layout: each node in `move` goes the way its forces push it, at
    most `temp` far."""
    import math
    for v, (dx, dy) in move.items():
        d = max(math.hypot(dx, dy), 1e-9)
        step = min(d, temp)
        pos[v][0] += dx / d * step
        pos[v][1] += dy / d * step


def _free_nodes(nodes: list[str], edges: list[list[str]],
                fixed: dict[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """Every node's position in the units of `fixed` (the nodes that have one keep it): a
    node without one starts near its positioned neighbours (in the nodes' order; one with
    none in a row under the map), then the free nodes alone move as in `layout` (edges of
    the placed nodes' usual length pull, every node repels), so the same graph is always
    drawn the same way. Only nodes within three edge lengths push."""
    import math
    near: dict[str, list[str]] = {v: [] for v in nodes}
    for a, b in edges:
        near[a].append(b)
        near[b].append(a)
    lengths = sorted(math.dist(fixed[a], fixed[b]) for a, b in edges
                     if a in fixed and b in fixed and fixed[a] != fixed[b])
    xs = [p[0] for p in fixed.values()]
    ys = [p[1] for p in fixed.values()]
    unit = lengths[len(lengths) // 2] if lengths else \
        max(max(xs) - min(xs), max(ys) - min(ys), 1.0) / max(math.sqrt(len(fixed)), 1.0)
    pos: dict[str, list[float]] = {v: list(fixed[v]) for v in nodes if v in fixed}
    free = [v for v in nodes if v not in fixed]
    for turn in range(len(free)):
        for i, v in enumerate(free):
            known = [pos[u] for u in near[v] if u in pos]
            if v in pos or not known:
                continue
            angle = 2 * math.pi * (i + 1) / (len(free) + 1)
            pos[v] = [sum(p[0] for p in known) / len(known) + unit / 2 * math.cos(angle),
                      sum(p[1] for p in known) / len(known) + unit / 2 * math.sin(angle)]
    for k, v in enumerate(w for w in free if w not in pos):   # no way to a placed node
        pos[v] = [min(xs) + k * unit, max(ys) + unit]
    temp = unit / 4
    for _ in range(_LAYOUT_ROUNDS if free else 0):
        move = {v: [0.0, 0.0] for v in free}
        for v in free:
            for u in nodes:
                if u == v:
                    continue
                dx, dy = pos[v][0] - pos[u][0], pos[v][1] - pos[u][1]
                d = max(math.hypot(dx, dy), 1e-3 * unit)
                if d > 3 * unit:          # only nodes nearby push: the map stays as it is
                    continue
                f = unit * unit / 4 / d       # half `layout`'s reach: a leaf stays close
                move[v][0] += dx / d * f
                move[v][1] += dy / d * f
            for u in near[v]:
                dx, dy = pos[v][0] - pos[u][0], pos[v][1] - pos[u][1]
                d = max(math.hypot(dx, dy), 1e-3 * unit)
                f = d * d / unit
                move[v][0] -= dx / d * f
                move[v][1] -= dy / d * f
        _nudge(pos, move, temp)
        temp = max(temp * 0.985, unit / 500)
    return {v: (pos[v][0], pos[v][1]) for v in nodes}


def short_names(nodes: list[str]) -> dict[str, str]:
    """Each node's name on the picture: a long run (eight or more) of nodes named alike but
    for a number at the end ("road space 1", "road space 2", ...) shows the number alone (the
    full name is its tooltip and in the list under the picture); any other name as it is
    ("city 4", "red 3": a few of a kind keep their names)."""
    runs: dict[str, int] = {}
    for n in nodes:
        m = re.fullmatch(r"(.*\D) (\d+)", n)
        if m:
            runs[m.group(1)] = runs.get(m.group(1), 0) + 1
    out = {}
    for n in nodes:
        m = re.fullmatch(r"(.*\D) (\d+)", n)
        out[n] = m.group(2) if m and runs[m.group(1)] >= 8 else n
    return out


# Where a node's name may go, in order of preference: the start (or, written leftward, the end)
# of the text from the dot, whether it is written leftward, and the directions (degrees, y
# downward) an edge of the node leaves in that would cross it.
_NAME_SIDES = (
    (6, -6, False, -75, -3),        # upper right
    (6, 14, False, 3, 70),          # lower right
    (-6, -6, True, -177, -105),     # upper left
    (-6, 14, True, 110, 177),       # lower left
)
_CHAR = 6                     # about the width of a character of a name, in SVG units


def name_side(at: tuple[float, float], neighbours: list[tuple[float, float]], chars: int,
              contents: bool) -> tuple[int, int, bool]:
    """Where the name (`chars` long) of the node drawn `at` is written, its edges going to
    `neighbours`: dx, dy from its dot, and whether the name ends there (written leftward).
    Upper right, unless an edge of the node runs through that place or the name would leave
    the drawing; then the first free of lower right (not for a node with something on it,
    `contents`, written under its name), upper left, lower left; upper right if none is."""
    import math
    angles = [math.degrees(math.atan2(y - at[1], x - at[0])) for x, y in neighbours]
    for dx, dy, end, lo, hi in _NAME_SIDES:
        if contents and dy > 0:
            continue
        if any(lo < a < hi for a in angles):
            continue
        if (end and at[0] - 6 - _CHAR * chars < 0) or \
                (not end and at[0] + 6 + _CHAR * chars > GRAPH_SIZE):
            continue
        return dx, dy, end
    return _NAME_SIDES[0][:3]


def graph_svg(row: dict[str, Any], moved: Optional[list[str]] = None) -> Markup:
    """A declared graph as an SVG drawing: the edges as lines, each node a dot with its name
    (where no edge of it crosses the name: `name_side`), what stands on it (`with`) under the
    name, highlighted; and, for a reader without the picture,
    the same as a list. With the rulebook's positions ("at", `on`) the nodes stand where they
    say (`layout_on`), else where the force-directed `layout` puts them."""
    if row.get("at"):
        at, height = layout_on(row["nodes"], row["edges"], row["at"])
    else:
        at, height = layout(row["nodes"], row["edges"]), float(GRAPH_SIZE)
    short = short_names(row["nodes"])
    lines = Markup("").join(
        Markup('<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"/>').format(
            *at[a], *at[b]) for a, b in row["edges"])
    near: dict[str, list[str]] = {v: [] for v in at}
    for a, b in row["edges"]:
        near[a].append(b)
        near[b].append(a)

    def dot(v: str, x: float, y: float) -> Markup:
        dx, dy, end = name_side((x, y), [at[u] for u in near[v]],
                                max(len(short[v]), len(row["on"].get(v, ""))), v in row["on"])
        anchor = Markup(' text-anchor="end"') if end else Markup("")
        on = Markup('<text class="on" x="{:.1f}" y="{:.1f}"{}>{}</text>').format(
            x + dx, y + dy + 18, anchor, row["on"][v]) if v in row["on"] else Markup("")
        return Markup('<g class="node{}{}" data-key="{}"><title>{}</title><circle cx="{:.1f}" '
                      'cy="{:.1f}" r="{}"/><text x="{:.1f}" y="{:.1f}"{}>{}</text>{}</g>').format(
            " on" if v in row["on"] else "", " moved" if v in (moved or ()) else "", v, v,
            x, y, 7 if v in row["on"] else 4, x + dx, y + dy, anchor, short[v], on)
    dots = Markup("").join(dot(v, x, y) for v, (x, y) in at.items())
    listing = Markup("").join(Markup("<li>{}</li>").format(line) for line in row["lines"])
    return Markup('<svg class="graph" viewBox="0 0 {0} {1}" role="img" aria-label="{2}">'
                  '<g class="edges">{3}</g>{4}</svg>'
                  '<details><summary>as a list</summary><ul class="graph-list">{5}</ul>'
                  '</details>').format(GRAPH_SIZE, f"{round(height, 1):g}", row["label"], lines, dots,
                                       listing)


LANE_KEY_WIDTH = 96          # a track on spaces: the column of the entries' names, in SVG units
LANE_SPACE = 30              # the width of a space
LANE_ROW = 22                # the height of an entry's line


def lane_svg(row: dict[str, Any], moved: Optional[list[str]] = None) -> Markup:
    """A track on spaces (`on`) as an SVG strip: the spaces' names on top, a line per entry
    with a dot on the space where it stands (an entry on no space: its value at the line's
    end; a dot that moved since the seat's last move, `moved`, ringed), and the same as a
    list for a reader without the picture."""
    spaces, keys = row["spaces"], row["lane_keys"]
    off = {k: x for k, x in row["off"]}
    width = LANE_KEY_WIDTH + LANE_SPACE * len(spaces) + (LANE_KEY_WIDTH if off else 0)
    height = LANE_ROW * (len(keys) + 1)
    head = Markup("").join(
        Markup('<text class="space" x="{:.1f}" y="{:.1f}">{}</text>').format(
            LANE_KEY_WIDTH + LANE_SPACE * (i + .5), LANE_ROW * .7, name)
        for i, name in enumerate(spaces))
    lines = []
    for j, key in enumerate(keys):
        y = LANE_ROW * (j + 1)
        cells = Markup("").join(
            Markup('<rect class="{}" x="{:.1f}" y="{:.1f}" width="{}" height="{}"/>').format(
                "on" if key in on else "", LANE_KEY_WIDTH + LANE_SPACE * i + 1, y + 2,
                LANE_SPACE - 2, LANE_ROW - 4)
            for i, on in enumerate(row["at"]))
        ringed = key in (moved or ())
        dots = Markup("").join(
            Markup('<circle{} cx="{:.1f}" cy="{:.1f}" r="6"><title>{} on {}{}</title></circle>').format(
                Markup(' class="moved"') if ringed else Markup(""),
                LANE_KEY_WIDTH + LANE_SPACE * (i + .5), y + LANE_ROW / 2, key, spaces[i],
                " (moved since your last move)" if ringed else "")
            for i, on in enumerate(row["at"]) if key in on)
        rest = Markup('<text class="off" x="{:.1f}" y="{:.1f}">{}</text>').format(
            LANE_KEY_WIDTH + LANE_SPACE * len(spaces) + 6, y + LANE_ROW * .7, off[key]) \
            if key in off else Markup("")
        lines.append(Markup('<g class="lane" data-key="{}"><text class="key" x="0" y="{:.1f}">{}'
                            '</text>{}{}{}</g>')
                     .format(key, y + LANE_ROW * .7, key, cells, dots, rest))
    listing = Markup("").join(
        Markup("<li>{}: {}</li>").format(k, x) for k, x in row["cells"])
    return Markup('<svg class="lane" width="{0}" height="{1}" viewBox="0 0 {0} {1}" role="img" '
                  'aria-label="{2}">{3}{4}</svg>'
                  '<details><summary>as a list</summary><ul class="graph-list">{5}</ul>'
                  '</details>').format(width, height, row["label"], head,
                                       Markup("").join(lines), listing)
