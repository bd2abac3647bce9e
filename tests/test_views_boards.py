"""A grid drawn as an SVG board (docs/language.md §2.20a; issue 39, finding 4: "Genoa a grid of
names with no tower, discs or owners, cut off at column 5 at 1280 px"): squares of one value
side by side are one piece with its name written once; what stands on a square (`with`) is
drawn on it — a player in his seat's colour, a record's true field as a named flag; changed
pieces ringed; a piece's data-key its name, for the options that act on it.
"""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from game_driver import program_text
from test_views import _hide_differently

from mercator.interpreter.engine.declared_view import declared_view
from mercator.interpreter.engine.program import Program

ROOT = Path(__file__).resolve().parent.parent

# a 2 x 3 board: a hall over two squares side by side, a yard over an L of three
TOWN = '''game "Town" players 2..3
enum Place { hall, yard, well, gate }
record Mark {
  gate_shut: bool
  lamp: bool
  held_by: player?
}
table board: list<Place> = [hall, hall, yard, well, yard, yard]
player {
  coins: int = 3
}
table {
  holder: map<Place, player>
  lamp_at: Place = well
}
fn cell(r: int, c: int) -> Place = board[(r - 1) * 3 + c - 1]
fn mark(x: Place) -> Mark = {gate_shut: false, lamp: lamp_at == x,
  held_by: if x in holder then holder[x] else none}
setup {
  holder[hall] = players[1]
}
round r limit 1 {
  phase main {
    for p in players {
      let s = choose p one of Place prompt "light"
      lamp_at = s
    }
  }
}
score p: p.coins
view {
  section "Town" {
    grid "the board" = [[cell(r, c) for c in 1..3] for r in 1..2]
      with {x: mark(x) for x in Place if x in holder or lamp_at == x}
  }
  text m: Mark = if m.lamp then "lamp" else "", m.held_by
}
'''


@pytest.fixture(scope="module")
def town() -> Program:
    return program_text(TOWN)


def _board(prog: Program, s=None, viewer: int | None = 0) -> dict:
    v = declared_view(prog, s if s is not None else prog.new_game(2, 1), viewer)
    assert v is not None
    return next(r for sec in v["sections"] for r in sec["rows"] if r["kind"] == "grid")


def test_what_stands_on_a_square_becomes_tokens(town: Program) -> None:
    """A player is a seat, a true field of the record a flag named by the field, in the order
    of the record's fields; a false field and none stand for nothing."""
    b = _board(town)
    assert b["tokens"] == [[[{"seat": "P2"}], [{"seat": "P2"}], []], [[{"flag": "lamp"}], [], []]]
    assert b["flags"] == ["gate shut", "lamp"]
    assert b["marks"] == [["P2", "P2", ""], ["lamp", "", ""]]


def test_squares_of_one_value_side_by_side_are_one_piece() -> None:
    from mercator.interpreter.web.boards import regions
    rows = [["hall", "hall", "yard"], ["well", "yard", "yard"]]
    none: list[list[list[dict]]] = [[[], [], []], [[], [], []]]
    assert regions(rows, none) == [[(0, 0), (0, 1)], [(0, 2), (1, 1), (1, 2)], [(1, 0)]]
    # the same name with something else on it is a piece of its own (corner to corner never)
    marked = [[[], [{"seat": "P1"}], []], [[], [], []]]
    assert regions(rows, marked) == [[(0, 0)], [(0, 1)], [(0, 2), (1, 1), (1, 2)], [(1, 0)]]
    assert regions([["a", "b"], ["b", "a"]], [[[], []], [[], []]]) == \
        [[(0, 0)], [(0, 1)], [(1, 0)], [(1, 1)]]


def _piece(svg: str, key: str) -> str:
    m = re.search(rf'<g class="square[^"]*" data-key="{key}">.*?</g>(?=<g class="square|<path '
                  r'class="lines")', svg)
    assert m is not None, key
    return m.group(0)


def test_the_board_is_drawn_square_by_square(town: Program) -> None:
    """Squares of 80 units after 18 for the row names and column numbers: the hall covers
    x 18..178 of row 1, its name centred across its two squares (x 98); the centre of the
    yard's L (row 1.67, column 2.67) is off the L: its name goes on its square nearest to it
    (row 2, column 3), centred across that row's run of the yard (columns 2 and 3: x 178)."""
    from mercator.interpreter.web.boards import SEAT_COLOURS, grid_svg
    svg = str(grid_svg(_board(town)))
    assert svg.startswith('<div class="board-frame">'
                          '<svg class="board" viewBox="0 0 260 180" role="img" '
                          'aria-label="the board">')
    hall = _piece(svg, "hall")
    # P2 owns the hall: its squares tinted in P2's colour, his token on it
    assert (f'<rect x="18" y="18" width="80" height="80" fill="{SEAT_COLOURS[1]}" '
            'fill-opacity=".3"/><rect x="98" y="18" width="80" height="80" '
            f'fill="{SEAT_COLOURS[1]}" fill-opacity=".3"/>') in hall
    assert '<path class="edge" d="M18 18h80M18 98h80M18 18v80M98 18h80M98 98h80M178 18v80"/>' \
        in hall
    # the name and a row of tokens (14 + 22 high) centred about the piece's middle, y 58:
    # from y 40, the name's baseline 12 lower, the token 4 under the name (its middle 8 lower)
    assert '<text class="name" x="98.0" y="52.0"><tspan x="98.0" dy="0">hall</tspan>' in hall
    assert f'<circle cx="98.0" cy="66.0" r="11.0" fill="{SEAT_COLOURS[1]}"/>' in hall
    assert ">P2</text>" in hall
    yard = _piece(svg, "yard")
    assert yard.count("<rect") == 3 and 'x="178.0"' in yard      # across row 2's two squares
    well = _piece(svg, "well")
    # the lamp: 4 letters (6.2 units each, and 10) centred on the well (x 58), under its name
    assert '<g class="flag"><rect x="40.6" y="138.0" width="34.8" height="16"' in well
    assert ">lamp</text>" in well
    assert '<title>well [lamp]</title>' in well
    assert svg.count('<g class="square') == 3
    assert "<li>1: hall [P2] | hall [P2] | yard</li>" in svg


def test_a_flag_keeps_its_colour_whatever_else_is_raised(town: Program) -> None:
    """The flags take the colours in the order of the record's fields, not of the squares:
    the lamp is the second colour on every board."""
    from mercator.interpreter.web.boards import FLAG_FILLS, grid_svg
    svg = str(grid_svg(_board(town)))
    assert f'fill="{FLAG_FILLS[1]}"/><text' in _piece(svg, "well")
    assert FLAG_FILLS[0] not in svg


def test_a_long_name_is_broken_between_words() -> None:
    from mercator.interpreter.web.boards import wrap
    assert wrap("fabric warehouse", 80) == ["fabric", "warehouse"]
    assert wrap("fabric warehouse", 160) == ["fabric warehouse"]
    assert wrap("spice", 80) == ["spice"]


def test_what_changed_on_the_board_is_ringed_and_said(town: Program) -> None:
    """Since a seat's last decision the lamp went from the well to the yard: both pieces are
    marked (rung on the drawing) and the summary says what stands on each now."""
    from mercator.interpreter.engine.view_summary import changed_marks, view_changes
    from mercator.interpreter.web.boards import grid_svg
    s = town.new_game(2, 1)
    before = declared_view(town, s, 0)
    town.apply(s, "yard")
    after = declared_view(town, s, 0)
    marks = changed_marks(before, after)
    assert marks == {"Town\x1fthe board": ["yard", "well"]}       # in the grid's order
    assert view_changes(before, after, 0) == ["the board yard: — → lamp",
                                              "the board well: lamp → —"]
    assert after is not None
    svg = str(grid_svg(after["sections"][0]["rows"][0], marks["Town\x1fthe board"]))
    assert '<g class="square moved" data-key="yard">' in svg
    assert '<g class="square" data-key="hall">' in svg


def test_the_terminal_writes_what_stands_on_each_square(town: Program) -> None:
    import io
    from mercator.interpreter.cli.terminal import console_for, view_renderable
    out = io.StringIO()
    console_for(out).print(view_renderable(town, town.new_game(2, 1), 0))
    assert re.search(r"1\s*│\s*hall \[P2\]\s*│\s*hall \[P2\]\s*│\s*yard\s*│", out.getvalue())
    assert re.search(r"2\s*│\s*well \[lamp\]\s*│\s*yard", out.getvalue())


def test_the_page_colours_each_seat_as_the_board_does() -> None:
    """The swatch on a player's card (.seat-N in templates/base.html) is his colour on the
    board (SEAT_COLOURS): one palette."""
    from mercator.interpreter.web.boards import SEAT_COLOURS
    css = (ROOT / "interpreter" / "web" / "templates" / "base.html").read_text()
    found = dict(re.findall(r"\.seat-(\d) \{ background: (#[0-9a-f]{6}); \}", css))
    assert [found[str(i + 1)] for i in range(len(SEAT_COLOURS))] == list(SEAT_COLOURS)


def _client(prog: Program, text: str, path: str, seats: list[str]):
    pytest.importorskip("starlette")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from mercator.interpreter.tools.session import GameSession
    from mercator.interpreter.web.app import SeatLinks, make_app
    session = GameSession(prog, len(seats), 2, seats, path, {path: text})
    links = SeatLinks([i for i, k in enumerate(seats) if k == "human"])
    return session, links, TestClient(make_app(session, links))


def test_genoa_board_in_the_browser_is_the_same_in_worlds_a_seat_cannot_tell_apart() -> None:
    """Genoa's board drawn for each seat and the spectator, with owners on the buildings and
    the tower on a street: the page (the SVG included) stays the same when everything the
    seat may not see (the others' ducats, cards, goods; the decks) is changed."""
    from shipped import shipped_program
    genoa = shipped_program("genoa")
    text = (ROOT / "rulebooks" / "genoa.rules").read_text()
    session, links, client = _client(genoa, text, "genoa.rules", ["human"] * 3)
    s = session.steps[-1].clone()
    i = [f.name for f in genoa.rb.table_fields].index("owners")
    space = genoa.rb.table_fields[i].type.args[0]
    s.table[i] = {space.members.index("city_hall"): 1, space.members.index("inn"): 2}
    session.steps[-1] = s
    for viewer in (0, 1, 2, None):
        path = links.path(viewer) if viewer is not None else "/"
        mine = client.get(path).text
        board = mine[mine.index('<svg class="board"'):mine.index("</svg>", mine.index(
            '<svg class="board"'))]
        city = _piece(board, "city hall")
        assert 'fill="#2e86ab" fill-opacity=".3"' in city and ">P2</text>" in city
        assert ">P3</text>" in _piece(board, "inn")
        # one piece a building (19 of them) and a street square (20: tests/genoa_driver.py)
        assert board.count('<g class="square') == 19 + 20
        session.steps[-1] = _hide_differently(genoa, s, viewer)
        assert client.get(path).text == mine
        session.steps[-1] = s


def test_pointing_at_a_move_of_the_tower_outlines_its_square() -> None:
    """Each square the tower may move to (the options' targets, in words) is a piece of the
    board with that data-key: the page outlines it while the option is pointed at."""
    from genoa_driver import MOVE, Game
    from shipped import shipped_program
    from mercator.interpreter.engine.declared_view import option_targets
    from mercator.interpreter.web.boards import grid_svg
    genoa = shipped_program("genoa")
    g = Game(genoa, 4)
    g.start("r2c4")
    g.passes(0, 1, 0, 2, 0, 3)
    g.until(MOVE)
    keys = set(re.findall(r'<g class="square[^"]*" data-key="([^"]+)"',
                          str(grid_svg(_board(genoa, g.s, 0)))))
    targets = [t for t in option_targets(genoa, g.s, g.s.pending) if t]
    assert targets and all(set(t) & keys for t in targets)
    assert {"street r2c3", "street r2c5", "tavern"} <= {k for t in targets for k in t} & keys


def test_genoa_terminal_board_takes_the_width_and_cuts_no_square() -> None:
    """In the terminal the board stands under its label, the whole width of the screen: at 110
    columns every square's name and what stands on it are written whole (beside the label,
    they were cut to "tave…", "[tow…")."""
    import io
    from genoa_driver import Game
    from shipped import shipped_program
    from mercator.interpreter.cli.terminal import console_for, view_renderable
    genoa = shipped_program("genoa")
    g = Game(genoa, 3)
    g.start("r2c4")
    out = io.StringIO()
    console = console_for(out)
    console.width = 110
    console.print(view_renderable(genoa, g.s, 0))
    text = out.getvalue()
    assert "…" not in text.split("owned buildings")[0]
    assert re.search(r"│2 │ fabric\s+│ villa\s+│ street\s+│ street\s+│", text), text
    assert re.search(r"│  │ warehouse\s+│ colini\s+│ r2c3\s+│ r2c4\s+│", text), text
    assert re.search(r"│  │\s+│\s+│\s+│ \[tower\]\s+│", text), text      # under r2c4
