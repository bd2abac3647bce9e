"""Tracks drawn on spaces (docs/language.md, "Views"): `track "LABEL" = ENTRIES on SPACES` draws a
strip of the spaces with each entry a marker on the space equal to its value (Manila's boats on
spaces 0..13, its shares on the price track, Die Händler's status ladder); in the terminal a
table of dots, in the browser an SVG strip.
"""
from __future__ import annotations

import io
import re
import warnings

import pytest

from game_driver import error_lines, program_text
from test_views import _hide_differently

from mercator.interpreter.engine.declared_view import declared_view
from mercator.interpreter.engine.program import Program

RIVER = '''game "River" players 2..3
enum Good { jade, silk, tea }
table price_steps: list<int> = [1, 2, 4]
table {
  position: map<Good, int> = {jade: 0, silk: 2, tea: 7}
  price: map<Good, int> = {jade: 1, silk: 4, tea: 3}
  cargo: list<int> = [3, 1]
  hidden_at: list<int> secret
}
player {
  coins: int = 3
  hand: list<int> owner
}
round r limit 1 {
  phase main {
    for p in players {
      let g = choose p one of Good prompt "row"
      position[g] += 1
      p.coins -= 1
    }
  }
}
score p: p.coins
'''

VIEW = '''view {
  section "River" {
    track "boats" = {g: position[g] for g in Good} on 0..3
    track "prices" in coins = price on price_steps
    track "cargo" = cargo on 0..3
  }
}
'''


@pytest.fixture(scope="module")
def river() -> Program:
    return program_text(RIVER + VIEW)


def _rows(prog: Program, state=None, viewer: int | None = 0) -> dict[str, dict]:
    v = declared_view(prog, state if state is not None else prog.new_game(2, 1), viewer)
    assert v is not None
    return {r["label"]: r for r in v["sections"][0]["rows"]}


def test_each_entry_stands_on_the_space_equal_to_its_value(river: Program) -> None:
    boats = _rows(river)["boats"]
    assert boats["spaces"] == ["0", "1", "2", "3"]
    assert boats["at"] == [["jade"], [], ["silk"], []]
    assert boats["off"] == [["tea", "7"]]             # beyond the strip: its value beside it
    assert boats["lane_keys"] == ["jade", "silk", "tea"]
    assert boats["text"] == "jade: 0 · silk: 2 · tea: 7"    # the words a summary compares


def test_spaces_from_a_table_and_a_list_of_entries(river: Program) -> None:
    prices = _rows(river)["prices"]
    assert prices["spaces"] == ["1", "2", "4"] and prices["unit"] == "coins"
    assert prices["at"] == [["jade"], [], ["silk"]]
    assert prices["off"] == [["tea", "3 coins"]]
    cargo = _rows(river)["cargo"]                      # a list's entries are numbered from 1
    assert cargo["at"] == [[], ["2"], [], ["1"]] and cargo["off"] == []


def test_a_move_moves_the_marker(river: Program) -> None:
    s = river.new_game(2, 1)
    river.apply(s, 0)                                  # P1 rows jade (the first) from 0 to 1
    assert _rows(river, s)["boats"]["at"] == [[], ["jade"], ["silk"], []]


def test_the_terminal_draws_a_strip_of_dots(river: Program) -> None:
    from mercator.interpreter.cli.terminal import console_for, view_renderable
    out = io.StringIO()
    console_for(out).print(view_renderable(river, river.new_game(2, 1), 0))
    text = out.getvalue()
    assert re.search(r"0\s+1\s+2\s+3", text), text
    assert re.search(r"jade\s+●\s+·\s+·\s+·", text), text
    assert re.search(r"silk\s+·\s+·\s+●\s+·", text), text
    assert re.search(r"tea\s+·\s+·\s+·\s+·\s+7", text), text       # off the strip: its value
    assert re.search(r"coins\s+1\s+2\s+4", text), text              # the unit heads the strip


def test_the_browser_draws_an_svg_strip() -> None:
    pytest.importorskip("starlette")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from mercator.interpreter.tools.session import GameSession
    from mercator.interpreter.web.app import SeatLinks, make_app
    prog = program_text(RIVER + VIEW)
    session = GameSession(prog, 2, 1, ["human", "random"], "t.rules", {"t.rules": RIVER + VIEW})
    links = SeatLinks([0])
    page = TestClient(make_app(session, links)).get(links.path(0)).text
    svg = page[page.index('<svg class="lane"'):]
    svg = svg[:svg.index("</svg>")]
    assert 'aria-label="boats"' in svg
    assert svg.count('<text class="space"') == 4 and svg.count('<g class="lane" data-key=') == 3
    assert svg.count("<circle") == 2                   # jade and silk; tea is off the strip
    assert "<title>silk on 2</title>" in svg and '<text class="off"' in svg


def _errors(view: str) -> list[str]:
    return error_lines(RIVER + view)


@pytest.mark.parametrize("line, says", [
    ('row "r" = position on 0..3', "only a track is drawn on a strip"),
    ('grid "g" = [[1, 2]] on 0..3', "only a track is drawn on a strip"),
    ('track "t" = position on price', "not a list of plain values"),
    ('track "t" = position on [[1], [2]]', "not a list of plain values"),
    ('track "t" = {g: g for g in Good} on 0..3', "an entry is drawn on the space equal to it"),
    ('track "t" = position on hidden_at', "secret 'hidden_at'"),
    ('track "t" = position on players[0].hand', "owner-only 'hand'"),
])
def test_a_bad_track_on_spaces_is_refused(line: str, says: str) -> None:
    errs = _errors('view { section "S" { ' + line + " } }")
    assert any(e.startswith("E160") and says in e for e in errs), errs


def test_no_seat_sees_in_a_strip_what_it_may_not_see(river: Program) -> None:
    s = river.new_game(3, 1)
    for viewer in (0, 1, None):
        assert declared_view(river, _hide_differently(river, s, viewer), viewer) == \
            declared_view(river, s, viewer)


def test_fmt_round_trips_a_track_on_spaces() -> None:
    from mercator.dsl.fmt import format_rulebook
    from mercator.dsl.parser import parse
    rb, diags = parse(RIVER + VIEW)
    assert rb is not None, diags
    text = format_rulebook(rb)
    again, _ = parse(text)
    assert again == rb
    assert 'track "boats" = {g: position[g] for g in Good} on 0..3' in text


@pytest.mark.parametrize("path, label, spaces", [
    ("manila", "boat at space (Manila after 13)", 14),
    ("manila", "share value", 5),
    ("die_haendler", "status ladder (0: Krämer)", 8),
])
def test_the_shipped_games_draw_their_tracks_on_spaces(path: str, label: str, spaces: int) -> None:
    from shipped import shipped_program
    prog = shipped_program(path)
    s = prog.new_game(3, 1)
    row = next(r for sec in declared_view(prog, s, 0)["sections"] for r in sec["rows"]
               if r["label"] == label)
    assert len(row["spaces"]) == spaces


def test_the_page_marks_what_changed_since_the_seats_last_move() -> None:
    """The rows of a seat's view that changed since its last decision are marked (and
    highlighted on the page); a lane's markers that moved are ringed; rows that did not
    change are not marked."""
    pytest.importorskip("starlette")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from mercator.interpreter.tools.session import GameSession
    from mercator.interpreter.web.app import SeatLinks, make_app
    text = RIVER.replace("round r limit 1", "round r limit 2") + VIEW
    prog = program_text(text)
    session = GameSession(prog, 2, 1, ["human", "human"], "t.rules", {"t.rules": text})
    session.move(0, "jade")                       # P1: jade 0 -> 1
    session.move(1, "silk")                       # P2: silk 2 -> 3
    from mercator.interpreter.engine.view_summary import mark_key
    marks = session.view(0)["marks"]
    assert marks == {mark_key("River", "boats"): ["jade", "silk"]}   # prices, cargo: unchanged
    links = SeatLinks([0, 1])
    page = TestClient(make_app(session, links)).get(links.path(0)).text
    assert page.count('<tr class="drawing changed"') == 1   # the boats (the view has no panel)
    assert page.count('class="changed"') == 0                # nothing else changed
    svg = page[page.index('<svg class="lane"'):]
    svg = svg[:svg.index("</svg>")]
    assert svg.count('<circle class="moved"') == 2
    assert "<title>silk on 3 (moved since your last move)</title>" in svg


def test_each_option_names_what_it_acts_on_and_the_view_marks_it(river: Program) -> None:
    """An option's targets are the named things in its value (enum members, players, inside
    records and lists); the page's buttons carry them and the view's drawings carry the same
    words as keys, so pointing at an option can mark what it acts on (tests/test_browser_views.py
    does, in Chromium)."""
    from mercator.interpreter.engine.declared_view import option_targets
    from mercator.interpreter.engine.people import People
    from mercator.dsl.types import Type
    s = river.new_game(2, 1)
    assert option_targets(river, s, s.pending) == [["jade"], ["silk"], ["tea"]]
    good = Type("enum", name="Good", members=("jade", "silk", "tea"))
    pair = Type("record", name="Move", members=("boat", "steps"),
                field_types=(good, Type("int")))
    assert People().atoms((1, 3), pair) == {"silk"}                    # numbers name nothing
    assert People().atoms([0, 2], Type("list", args=(good,))) == {"jade", "tea"}
    assert People().atoms(1, Type("player")) == {"P2"}
    assert People().atoms(None, Type("opt", args=(good,))) == set()
    pytest.importorskip("starlette")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from mercator.interpreter.tools.session import GameSession
    from mercator.interpreter.web.app import SeatLinks, make_app
    session = GameSession(river, 2, 1, ["human", "random"], "t.rules", {"t.rules": RIVER + VIEW})
    links = SeatLinks([0])
    page = TestClient(make_app(session, links)).get(links.path(0)).text
    assert 'data-label="silk" data-targets="silk"' in page
    assert '<g class="lane" data-key="silk">' in page
