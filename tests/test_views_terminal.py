"""The terminal view of every game and variant (issue 18, "Done when"): no bookkeeping field,
and each ship, board and track in units a person reads — prices in pesos, a Felinia ship with
its time, destination and the goods it demands, Die Händler's and Felinia's maps as roads with
what stands on them, Genoa's board by its buildings' names.
"""
from __future__ import annotations

import io
import random
import re
from pathlib import Path

import pytest

from shipped import shipped_program
from test_views import _authored, _words

from rich.console import Console

from mercator.interpreter.cli.terminal import view_renderable
from mercator.interpreter.engine.program import Program

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = ["manila", "die_haendler", "genoa", "felinia", "variants/manila_pirates",
             "variants/manila_house_rule", "variants/die_haendler_fixed_pairs",
             "variants/genoa_two_players", "variants/felinia_advanced"]


def _screen(prog: Program, seed: int, steps: int, seat: int = 0, until: str = "") -> str:
    """Seat's screen after `steps` random decisions (or at the first decision whose prompt
    starts with `until`)."""
    s = prog.new_game(prog.min_players, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.over or (until and getattr(s.pending, "prompt", "").startswith(until)):
            break
        prog.apply(s, rng.randrange(s.pending.count))
    out = io.StringIO()
    Console(file=out, width=240, no_color=True, highlight=False, markup=False,
            emoji=False).print(view_renderable(prog, s, seat))
    return out.getvalue()


@pytest.mark.parametrize("name", RULEBOOKS)
@pytest.mark.parametrize("steps", [0, 60, 160])
def test_no_bookkeeping_field_and_no_raw_record_on_the_screen(name: str, steps: int) -> None:
    prog = shipped_program(name)
    assert prog.rb.view is not None, "every game and variant has a view"
    text = _screen(prog, 7, steps)
    for words in sorted(_authored(prog), key=len, reverse=True):
        text = text.replace(words, " ")
    for field in prog.rb.view.bookkeeping:
        assert not any(re.search(rf"\b{re.escape(w)}\b", text) for w in _words(field)), field
    # a record dumped field by field ('{tile: 5, seats: [none, none], departed: false}')
    assert "departed" not in text and "tile:" not in text


@pytest.mark.parametrize("name", ["manila", "variants/manila_pirates", "variants/manila_house_rule"])
def test_manila_shows_prices_and_seats_in_pesos(name: str) -> None:
    """rules-data "Black-market price track" (0, 5, 10, 20, 30 pesos) and "Punt seats"."""
    text = _screen(shipped_program(name), 7, 300, until="place")
    # the share values as a strip of the price track (a track on spaces), a dot a good
    assert re.search(r"share value[\s│]+pesos\s+0\s+5\s+10\s+20\s+30", text), text
    assert all(len(re.findall(g + r"(?:\s+[●·]){5}\s+│", text)) == 1
               for g in ("nutmeg", "silk", "ginseng", "jade")), text
    assert re.search(r"a share costs\s+nutmeg: (5|10|20|30) pesos", text)
    assert re.search(r"next boat seat costs\s+\w+: \d+ pesos", text), text


@pytest.mark.parametrize("name", ["felinia", "variants/felinia_advanced"])
def test_felinia_shows_each_ship_its_time_destination_and_demand_and_the_island(name: str) -> None:
    """seed 004 §遊戲準備: a ship tile's time, its destination (a colour), the goods it demands
    and the silver it costs; the island's regions with their roads."""
    text = _screen(shipped_program(name), 7, 20)
    assert re.search(r"the ship sails at time\s+1: \d+", text)
    assert re.search(r"it goes to\s+1: (red|yellow|green|brown|purple)", text)
    assert re.search(r"it demands\s+1: (books|wine|watches|cloth|glass)", text)
    assert re.search(r"it pays\s+1: \d+ silver", text)
    assert re.search(r"red 1 — red 2\b", text)          # rules-data: the island's roads


@pytest.mark.parametrize("name", ["die_haendler", "variants/die_haendler_fixed_pairs"])
def test_die_haendler_shows_the_roads_with_the_wagons_on_them(name: str) -> None:
    text = _screen(shipped_program(name), 7, 30)
    assert re.search(r"paris\b.* — road space 1, road space 22", text)
    assert len(re.findall(r"\[wagon [123]", text)) >= 1
    assert re.search(r"the bank sells at \(phase 1\)\s+cloth: \d+", text)


@pytest.mark.parametrize("name", ["genoa", "variants/genoa_two_players"])
def test_genoa_shows_the_board_by_its_buildings_names(name: str) -> None:
    """rules-data "Board": each square of the 8 by 8 board shows its building (or street), as
    eight tracks r1..r8 or as one grid (the form proposed for rulebooks/genoa.rules)."""
    from mercator.interpreter.engine.declared_view import declared_view
    prog = shipped_program(name)
    s = prog.new_game(prog.min_players, 7)
    v = declared_view(prog, s, 0)
    assert v is not None
    rows = [r for sec in v["sections"] for r in sec["rows"]]
    grid = [r for r in rows if r["kind"] == "grid"]
    if grid:
        cells = grid[0]["rows"]
    else:
        tracks = {r["label"]: r for r in rows if re.fullmatch(r"r[1-8]", r["label"])}
        cells = [[text for _, text in tracks[f"r{k}"]["cells"]] for k in range(1, 9)]
    assert len(cells) == 8 and all(len(row) == 8 for row in cells)
    names = {c for row in cells for c in row}
    assert {"city hall", "cathedral", "harbour"} <= names
    assert not any(re.fullmatch(r"r\dc\d", c) for c in names)
    text = _screen(prog, 7, 0)
    assert "city hall" in text and "cathedral" in text and "city_hall" not in text
