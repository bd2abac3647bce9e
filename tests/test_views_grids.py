"""Grids and graphs in a view (docs/language.md, "Views"): a `grid` shows rows of cells (a board
with its buildings), a `graph` nodes and edges (roads between cities) and, with `with`, what
stands on each node; in the terminal (rich) and the browser (an HTML table, an SVG drawing).
"""
from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest

from game_driver import error_lines, program_text
from test_views import _hide_differently

from mercator.dsl.loader import load_text
from mercator.interpreter.engine.declared_view import declared_view, describe_view
from mercator.interpreter.engine.program import Program

ROOT = Path(__file__).resolve().parent.parent

TOWN = '''game "Town" players 2..3
enum Place { inn, mill, road, well, tower, gate }
enum Square { a1, a2, a3, b1, b2, b3 }
enum Spot { north, east, south, west }
record Road {
  a: Spot
  b: Spot
}
const side = 3
table board: list<Place> = [inn, mill, road, well, road, tower]
table roads: list<Road> = [{a: north, b: east}, {a: east, b: south}, {a: north, b: south}]
table paths: list<list<Spot>> = [[north, east, south], [south, east], [west, north]]
player {
  coins: int = 3
  hand: list<Spot> owner
}
table {
  occupant: map<Spot, player>
  hidden_at: map<Spot, int> secret
}
fn cell(r: int, c: int) -> Place = board[(r - 1) * side + c - 1]
setup {
  occupant[east] = players[1]
  for p in players { add west to p.hand }
}
round r limit 1 {
  phase main {
    for p in players {
      let s = choose p one of Spot prompt "go"
      occupant[s] = p
    }
  }
}
score p: p.coins
'''

VIEW = '''view {
  section "Town" {
    grid "the board" = [[cell(r, c) for c in 1..side] for r in 1..2]
    grid "named rows" = {r: [cell(r, c) for c in 1..side] for r in 1..2}
    graph "the roads" = roads with occupant
    graph "the paths" = paths
  }
}
'''


@pytest.fixture(scope="module")
def town() -> Program:
    return program_text(TOWN + VIEW)


def _rows(prog: Program, viewer: int | None = 0) -> dict[str, dict]:
    v = declared_view(prog, prog.new_game(2, 1), viewer)
    assert v is not None
    return {r["label"]: r for r in v["sections"][0]["rows"]}


def test_a_grid_shows_each_row_of_cells_by_name(town: Program) -> None:
    g = _rows(town)["the board"]
    assert g["kind"] == "grid" and g["keys"] == ["1", "2"] and g["columns"] == 3
    assert g["rows"] == [["inn", "mill", "road"], ["well", "road", "tower"]]
    named = _rows(town)["named rows"]
    assert named["keys"] == ["1", "2"] and named["rows"] == g["rows"]


def test_a_graph_has_each_edge_once_and_what_stands_on_its_nodes(town: Program) -> None:
    g = _rows(town)["the roads"]
    assert g["nodes"] == ["north", "east", "south"]
    assert g["edges"] == [["north", "east"], ["east", "south"], ["north", "south"]]
    assert g["on"] == {"east": "P2"}
    assert g["lines"][1] == "east [P2]: north, south"
    paths = _rows(town)["the paths"]         # a path is its consecutive pairs; south-east twice
    assert paths["edges"] == [["north", "east"], ["east", "south"], ["west", "north"]]
    assert paths["nodes"] == ["north", "east", "south", "west"]


def test_the_terminal_draws_the_grid_as_a_table_and_the_graph_as_its_nodes(town: Program) -> None:
    from mercator.interpreter.cli.terminal import console_for, view_renderable
    out = io.StringIO()
    console_for(out).print(view_renderable(town, town.new_game(2, 1), 0))
    text = out.getvalue()
    assert re.search(r"1\s*│\s*inn\s*│\s*mill\s*│\s*road", text), text
    assert re.search(r"2\s*│\s*well\s*│\s*road\s*│\s*tower", text), text
    assert "east [P2] — north, south" in text
    plain = describe_view(town, town.new_game(2, 1), 0)
    assert "1: inn | mill | road" in plain and "2: well | road | tower" in plain


def test_the_browser_draws_the_grid_and_the_graph_as_svg(town: Program) -> None:
    pytest.importorskip("starlette")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from mercator.interpreter.tools.session import GameSession
    from mercator.interpreter.web.app import SeatLinks, make_app
    session = GameSession(town, 2, 1, ["human", "random"], "t.rules", {"t.rules": TOWN + VIEW})
    links = SeatLinks([0])
    page = TestClient(make_app(session, links)).get(links.path(0)).text
    board = page[page.index('<svg class="board"'):]
    board = board[:board.index("</svg>")]
    # a square 80 units a side, after 18 for the names of the rows and columns: row 2's
    # well at x 18, y 98, its name centred on it: a line 14 high about its middle (y 138), the
    # baseline 12 below the line's top (tests/test_views_boards.py: the rest)
    assert ('<g class="square" data-key="well"><title>well</title><rect x="18" y="98" '
            'width="80" height="80" fill="#f7f4ea"/>') in board
    assert '<text class="name" x="58.0" y="143.0"><tspan x="58.0" dy="0">well</tspan>' in board
    assert board.count('<g class="square"') == 6 and '<table class="grid">' not in page
    assert "<li>2: well | road | tower</li>" in page          # and as a list, under it
    svg = page[page.index('<svg class="graph"'):]
    svg = svg[:svg.index("</svg>")]
    assert svg.count("<line") == 3 and svg.count("<circle") == 3
    assert '<text class="on"' in svg and ">P2</text>" in svg


def test_the_layout_is_the_same_every_time_and_inside_the_drawing() -> None:
    from mercator.interpreter.web.render import GRAPH_SIZE, layout
    nodes = [f"n{i}" for i in range(12)]
    edges = [[nodes[i], nodes[(i + 1) % 12]] for i in range(12)] + [["n0", "n6"]]
    a, b = layout(nodes, edges), layout(nodes, edges)
    assert a == b
    assert all(0 <= x <= GRAPH_SIZE and 0 <= y <= GRAPH_SIZE for x, y in a.values())
    assert len({(round(x), round(y)) for x, y in a.values()}) == 12     # no two on one spot


def _errors(view: str) -> list[str]:
    return error_lines(TOWN + view)


@pytest.mark.parametrize("line, says", [
    ('grid "g" = board', "not rows of cells"),
    ('graph "g" = board', "not edges"),
    ('row "r" = board with occupant', "only a graph or a grid"),
    ('grid "g" = [[cell(r, c) for c in 1..side] for r in 1..2] with occupant',
     "needs a map from its squares"),
    ('grid "g" = [[cell(r, c) for c in 1..side] for r in 1..2] with {x: hidden_at[north] '
     'for x in Place}', "secret 'hidden_at'"),
    ('graph "g" = roads with {p: 1 for p in players}', "needs a map from its nodes"),
    ('graph "g" = roads with hidden_at', "secret 'hidden_at'"),
    ('grid "g" = [players[0].hand]', "owner-only 'hand'"),
])
def test_a_bad_grid_or_graph_is_refused(line: str, says: str) -> None:
    errs = _errors('view { section "S" { ' + line + " } }")
    assert any(e.startswith("E160") and says in e for e in errs), errs


def test_no_seat_sees_in_a_graph_what_it_may_not_see(town: Program) -> None:
    s = town.new_game(2, 1)
    for viewer in (0, 1, None):
        assert declared_view(town, _hide_differently(town, s, viewer), viewer) == \
            declared_view(town, s, viewer)


def test_a_grid_shows_genoas_board_with_the_buildings_names() -> None:
    """Genoa's view shows its board as one grid (rules-data "Board": 8 by 8), each cell the
    space's name, never a coordinate."""
    from mercator.interpreter.compiler import compile_program
    res = load_text((ROOT / "rulebooks" / "genoa.rules").read_text(encoding="utf-8"),
                    str(ROOT / "rulebooks" / "genoa.rules"))
    assert res.ok and res.rulebook is not None, [str(d) for d in res.diagnostics if d.is_error]
    prog = compile_program(res.rulebook)
    v = declared_view(prog, prog.new_game(3, 1), 0)
    assert v is not None
    g = next(r for sec in v["sections"] for r in sec["rows"] if r["kind"] == "grid")
    assert len(g["rows"]) == 8 and all(len(r) == 8 for r in g["rows"])
    names = {c for r in g["rows"] for c in r}
    assert {"city hall", "cathedral", "harbour"} <= names
    assert not any(re.fullmatch(r"r\dc\d", c) for c in names)


def test_fmt_round_trips_grids_graphs_and_labels() -> None:
    from mercator.dsl.fmt import format_rulebook
    from mercator.dsl.parser import parse
    src = TOWN + VIEW.replace("}\n}\n", '}\n  label s: Spot for p = "goes to", s, p.coins\n}\n')
    rb, diags = parse(src)
    assert rb is not None, diags
    text = format_rulebook(rb)
    again, _ = parse(text)
    assert again == rb
    assert 'graph "the roads" = roads with occupant' in text
    assert 'label s: Spot for p = "goes to", s, p.coins' in text


def test_a_grid_shows_what_stands_on_its_squares() -> None:
    """`grid ... with MAP` (issue 39, finding 4: "Genoa a grid of names with no tower, discs or
    owners"): each square shows what stands on it, in the view's words; Genoa marks the trade
    tower, the discs it left and the buildings' owners (fn board_mark)."""
    prog = program_text(TOWN + VIEW.replace(
        'grid "the board" = [[cell(r, c) for c in 1..side] for r in 1..2]',
        'grid "the board" = [[cell(r, c) for c in 1..side] for r in 1..2] '
        'with {x: index_of(board, x) for x in Place if x == mill or x == well}'))
    s = prog.new_game(2, 1)
    g = _rows_of(prog, s)["the board"]
    assert g["rows"] == [["inn", "mill", "road"], ["well", "road", "tower"]]
    assert g["marks"] == [["", "1", ""], ["3", "", ""]]
    assert "1: inn | mill [1] | road" in g["text"] and "2: well [3] | road | tower" in g["text"]
    from shipped import shipped_program
    from genoa_driver import Game
    genoa = shipped_program("genoa")
    game = Game(genoa, 3)
    game.start("r2c4")
    v = declared_view(genoa, game.s, 1)
    assert v is not None
    board = next(r for sec in v["sections"] for r in sec["rows"] if r["kind"] == "grid")
    marked = {(c, m) for row, mk in zip(board["rows"], board["marks"])
              for c, m in zip(row, mk) if m}
    assert marked == {("street r2c4", "tower")}


def _rows_of(prog: Program, s) -> dict[str, dict]:
    v = declared_view(prog, s, 0)
    assert v is not None
    return {r["label"]: r for sec in v["sections"] for r in sec["rows"]}


def test_a_long_run_of_numbered_spaces_is_drawn_by_its_numbers() -> None:
    """Die Händler's map drew "road space 1" ... "road space 25" beside every dot, and the
    names ran over each other; a long run of names alike but for their number shows the
    number (the whole name is the dot's tooltip and in the list), a few of a kind keep theirs."""
    from mercator.interpreter.web.render import short_names
    nodes = [f"road space {k}" for k in range(1, 10)] + ["paris", "city 4", "city 5", "city 6"]
    short = short_names(nodes)
    assert short["road space 7"] == "7" and short["paris"] == "paris"
    assert short["city 5"] == "city 5"
