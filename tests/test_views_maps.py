"""Maps drawn on the rulebook's coordinates (docs/language.md, "Views"; issue 39, finding 4):
`graph "LABEL" = EDGES [with CONTENTS] on POSITIONS` gives each node a position [x, y] (any
units, y downward), and the browser draws the node there, the positions scaled into the
drawing; a node without a position is placed among the others by the force layout.
"""
from __future__ import annotations

import math
import re
import warnings

import pytest

from game_driver import error_lines, program_text
from test_views import _hide_differently

from mercator.interpreter.engine.declared_view import declared_view
from mercator.interpreter.engine.program import Program

TOWN = '''game "Town" players 2..3
enum Spot { north, east, south, west }
record Road {
  a: Spot
  b: Spot
}
table roads: list<Road> = [{a: north, b: east}, {a: east, b: south}, {a: north, b: south}]
table paths: list<list<Spot>> = [[north, east, south], [south, east], [west, north]]
table spots: map<Spot, list<int>> = {north: [0, 0], east: [10, 0], south: [0, 5]}
player {
  coins: int = 3
  marks: list<int> owner
}
table {
  occupant: map<Spot, player>
  hidden_xy: map<Spot, list<int>> secret
  moving_xy: map<Spot, list<int>> = {north: [0, 0], east: [4, 2]}
}
setup {
  occupant[east] = players[1]
  for p in players { add 1 to p.marks }
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
    graph "the roads" = roads with occupant on spots
    graph "the paths" = paths on spots
    graph "as they move" = roads on moving_xy
  }
}
'''


@pytest.fixture(scope="module")
def town() -> Program:
    return program_text(TOWN + VIEW)


def _rows(prog: Program, state=None, viewer: int | None = 0) -> dict[str, dict]:
    v = declared_view(prog, state if state is not None else prog.new_game(2, 1), viewer)
    assert v is not None
    return {r["label"]: r for r in v["sections"][0]["rows"]}


def test_the_positions_reach_the_row(town: Program) -> None:
    g = _rows(town)["the roads"]
    assert g["at"] == {"north": [0, 0], "east": [10, 0], "south": [0, 5]}
    assert g["on"] == {"east": "P2"} and g["nodes"] == ["north", "east", "south"]
    paths = _rows(town)["the paths"]            # west has no position: it is not in "at"
    assert paths["nodes"] == ["north", "east", "south", "west"]
    assert paths["at"] == {"north": [0, 0], "east": [10, 0], "south": [0, 5]}
    moving = _rows(town)["as they move"]        # a state field: only the nodes it names
    assert moving["at"] == {"north": [0, 0], "east": [4, 2]}


def _svg(row: dict) -> str:
    from mercator.interpreter.web.render import graph_svg
    return str(graph_svg(row))


def _dots(svg: str) -> dict[str, tuple[float, float]]:
    return {k: (float(x), float(y)) for k, x, y in re.findall(
        r'data-key="([^"]+)"><title>[^<]*</title><circle cx="([\d.]+)" cy="([\d.]+)"', svg)}


def test_the_drawing_places_each_node_at_its_scaled_position(town: Program) -> None:
    """The map 10 wide and 5 high fills the 400 units across inside the margins (30 around,
    60 more on the right for the names): 40 units a unit of the map, so the drawing is
    5 * 40 + 2 * 30 = 260 high."""
    svg = _svg(_rows(town)["the roads"])
    assert 'viewBox="0 0 520 260"' in svg
    assert _dots(svg) == {"north": (30.0, 30.0), "east": (430.0, 30.0), "south": (30.0, 230.0)}
    assert '<line x1="30.0" y1="30.0" x2="430.0" y2="30.0"/>' in svg          # north - east
    assert '<g class="node on" data-key="east">' in svg and ">P2</text>" in svg
    assert svg.count("<li>") == 3 and "<li>east [P2]: north, south</li>" in svg


def test_a_tall_map_is_centred_across() -> None:
    from mercator.interpreter.web.render import layout_on
    at, height = layout_on(["a", "b"], [["a", "b"]], {"a": [0, 0], "b": [0, 10]})
    assert at == {"a": (230.0, 30.0), "b": (230.0, 490.0)} and height == 520


def test_a_node_without_a_position_is_still_drawn(town: Program) -> None:
    svg = _svg(_rows(town)["the paths"])
    dots = _dots(svg)
    assert set(dots) == {"north", "east", "south", "west"}
    assert svg.count("<circle") == 4 and svg.count("<line") == 3
    box = re.search(r'viewBox="0 0 520 ([\d.]+)"', svg)
    assert box is not None
    height = float(box.group(1))
    assert all(0 <= x <= 520 and 0 <= y <= height for x, y in dots.values())
    # west (joined to north only) stands apart from every placed node
    assert min(math.dist(dots["west"], dots[n]) for n in ("north", "east", "south")) > 20
    assert _svg(_rows(town)["the paths"]) == svg          # the same drawing every time


def test_without_positions_the_force_layout_draws_as_before(town: Program) -> None:
    from mercator.interpreter.web.render import layout
    row = dict(_rows(town)["the roads"])
    del row["at"]
    svg = _svg(row)
    assert 'viewBox="0 0 520 520"' in svg
    want = layout(row["nodes"], row["edges"])
    assert _dots(svg) == {k: (round(x, 1), round(y, 1)) for k, (x, y) in want.items()}


def test_a_name_is_written_where_no_edge_of_its_node_runs() -> None:
    """A node's name goes to its upper right, else where none of its edges crosses it: lower
    right (not under a node with something on it: its contents are written there), upper left,
    lower left; never out of the drawing."""
    from mercator.interpreter.web.render import name_side
    assert name_side((100, 100), [(140, 100), (100, 140)], 5, False) == (6, -6, False)
    assert name_side((100, 100), [(120, 80)], 5, False) == (6, 14, False)
    assert name_side((100, 100), [(120, 80)], 5, True) == (-6, -6, True)
    assert name_side((100, 100), [(120, 80), (120, 120), (80, 80)], 5, False) == (-6, 14, True)
    assert name_side((10, 100), [(30, 80), (30, 120)], 5, False) == (6, -6, False)   # no room
    svg = _svg({"label": "g", "nodes": ["a", "b"], "edges": [["a", "b"]], "on": {},
                "lines": [], "at": {"a": [0, 10], "b": [10, 0]}})
    assert '<text x="36.0" y="444.0">a</text>' in svg         # a's road runs up to the right


def test_a_moved_node_is_ringed_on_the_map(town: Program) -> None:
    from mercator.interpreter.web.render import graph_svg
    svg = str(graph_svg(_rows(town)["the roads"], ["east"]))
    assert '<g class="node on moved" data-key="east">' in svg


def test_a_field_read_only_for_positions_is_not_shown_again(town: Program) -> None:
    v = declared_view(town, town.new_game(2, 1), 0)
    assert v is not None and "moving_xy" in v["omit"]
    assert "moving_xy" not in [n for n, _ in v["other"]["table"]]


def test_a_position_that_is_not_x_and_y_says_so(town: Program) -> None:
    prog = program_text(TOWN.replace("east: [4, 2]}", "east: [4, 2, 1]}") + VIEW)
    g = _rows(prog)["as they move"]
    assert g["hidden"] and "the position of east is [4, 2, 1], not [x, y]" in g["text"]


def test_the_page_is_the_same_in_every_world_a_seat_cannot_tell_apart(town: Program) -> None:
    pytest.importorskip("starlette")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from mercator.interpreter.tools.session import GameSession
    from mercator.interpreter.web.app import SeatLinks, make_app
    for viewer in (0, 1, None):
        session = GameSession(town, 2, 1, ["human", "human"], "t.rules", {"t.rules": TOWN + VIEW})
        links = SeatLinks([0, 1])
        client = TestClient(make_app(session, links))
        path = links.path(viewer) if viewer is not None else "/"
        mine = client.get(path).text
        assert '<svg class="graph" viewBox="0 0 520 260"' in mine
        s = session.steps[-1]
        session.steps[-1] = _hide_differently(town, s, viewer)
        assert declared_view(town, session.steps[-1], viewer) == declared_view(town, s, viewer)
        assert client.get(path).text == mine


def _errors(view: str) -> list[str]:
    return error_lines(TOWN + view)


@pytest.mark.parametrize("line, says", [
    ('graph "g" = roads on {p: [1, 2] for p in players}', "'on' needs a map from its nodes"),
    ('graph "g" = roads on {s: s for s in Spot}', "to their positions [x, y] (list<int>)"),
    ('graph "g" = roads on roads', "'on' needs a map from its nodes"),
    ('graph "g" = roads with occupant on hidden_xy', "secret 'hidden_xy'"),
    ('graph "g" = roads on {s: players[0].marks for s in Spot}', "owner-only 'marks'"),
    ('row "r" = roads on spots', "only a track is drawn on a strip"),
    ('grid "g" = [[north, east]] on spots', "only a track is drawn on a strip"),
])
def test_a_bad_map_is_refused(line: str, says: str) -> None:
    errs = _errors('view { section "S" { ' + line + " } }")
    assert any(e.startswith("E160") and says in e for e in errs), errs


def test_a_panel_map_may_read_its_own_players_fields() -> None:
    errs = _errors('view { panel p { graph "g" = roads on {s: p.marks + p.marks for s in Spot} } }')
    assert errs == []


def test_fmt_round_trips_a_graph_with_contents_and_positions() -> None:
    from mercator.dsl.fmt import format_rulebook
    from mercator.dsl.parser import parse
    rb, diags = parse(TOWN + VIEW)
    assert rb is not None, diags
    text = format_rulebook(rb)
    again, _ = parse(text)
    assert again == rb
    assert 'graph "the roads" = roads with occupant on spots' in text
    assert 'graph "the paths" = paths on spots' in text
    long = VIEW.replace("roads with occupant on spots", "roads with {s: occupant[s] for s in Spot "
                        "if s in occupant and s != west and s != south} on spots")
    rb, diags = parse(TOWN + long)
    assert rb is not None, diags
    text = format_rulebook(rb)                  # too long for a line: 'with' and 'on' below it
    assert ('    graph "the roads" = roads\n'
            '      with {s: occupant[s] for s in Spot if s in occupant and s != west and s != south}\n'
            '      on spots\n') in text
    assert parse(text)[0] == rb


@pytest.mark.parametrize("game, label", [
    ("felinia", "the island's roads"),
    ("die_haendler", "the roads"),
])
def test_the_shipped_maps_place_every_node(game: str, label: str) -> None:
    """Felinia's island and Die Händler's roads are drawn on a layout of their own (an invented
    one, PLACEHOLDER: no printed board to copy): every node has a position, no two the same."""
    from shipped import shipped_program
    prog = shipped_program(game)
    row = _rows_of(prog, prog.new_game(3, 1))[label]
    assert set(row["at"]) == set(row["nodes"]) and row["nodes"]
    assert len({tuple(xy) for xy in row["at"].values()}) == len(row["nodes"])


def test_the_advanced_island_is_drawn_too() -> None:
    """Felinia's advanced variant replaces the island, and its layout (the narrow coast): its
    regions are drawn, each once."""
    from shipped import shipped_program
    prog = shipped_program("felinia_advanced")
    row = _rows_of(prog, prog.new_game(3, 1))["the island's roads"]
    assert set(row["at"]) == set(row["nodes"]) and len(row["nodes"]) == 50   # its own layout
    svg = _svg(row)
    assert svg.count("<circle") == 50 and len(set(_dots(svg).values())) == 50


def _rows_of(prog: Program, s) -> dict[str, dict]:
    v = declared_view(prog, s, 0)
    assert v is not None
    return {r["label"]: r for sec in v["sections"] for r in sec["rows"]}
