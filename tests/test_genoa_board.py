"""Genoa's PLACEHOLDER board (table `board` in rulebooks/genoa.rules) against every constraint
rules-data (shared/rules-data/genoa.md, §PLACEHOLDER board layout and §Components) states.  The
board is invented (the printed one was not found) and kept as editable data: a designer who
changes the table runs this file to see which sourced constraint a new layout breaks.
"""
from __future__ import annotations

from collections import Counter

import pytest

from genoa_driver import genoa_program

from mercator.interpreter.engine.program import Program

SIDE = 8


@pytest.fixture(scope="module")
def prog() -> Program:
    return genoa_program()


class Board:
    """The board table as names, with squares (row, col) from 1 and spaces as the rules count
    them (a building of several squares is one space; so is the market)."""

    def __init__(self, prog: Program):
        space = next(t for _, (t, _) in prog.rb.member_of.items() if t.name == "Space")
        self.cells = [space.members[x] for x in prog.consts["board"]]
        self.buildings = {space.members[x] for x in prog.consts["buildings"]}
        self.streets = {space.members[x] for x in prog.consts["streets"]}

    def at(self, r: int, c: int) -> str:
        return self.cells[(r - 1) * SIDE + c - 1]

    def squares(self, x: str) -> list[tuple[int, int]]:
        return [(k // SIDE + 1, k % SIDE + 1) for k, v in enumerate(self.cells) if v == x]

    def neighbours(self, x: str) -> set[str]:
        out = set()
        for r, c in self.squares(x):
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                if 1 <= r + dr <= SIDE and 1 <= c + dc <= SIDE and self.at(r + dr, c + dc) != x:
                    out.add(self.at(r + dr, c + dc))
        return out

    def paths(self, start: str, length: int) -> set[str]:
        """The spaces a tower reaches in exactly `length` moves, never entering a space twice."""
        ends: set[str] = set()

        def walk(x: str, seen: list[str]) -> None:
            if len(seen) == length + 1:
                ends.add(x)
                return
            for y in self.neighbours(x):
                if y not in seen:
                    walk(y, seen + [y])
        walk(start, [start])
        return ends


@pytest.fixture(scope="module")
def board(prog: Program) -> Board:
    return Board(prog)


def test_components_an_8x8_grid_18_buildings_20_streets_a_2x2_market(board: Board) -> None:
    """rules-data §Components: "8×8 grid: 18 buildings, 20 street squares, a 4-square
    marketplace"; "market squares are coordinates 4-4, 4-5, 5-5, 5-4"; the four centre
    buildings flank the market, 2 squares each; the others have 2–3 squares."""
    assert len(board.cells) == SIDE * SIDE
    counts = Counter(board.cells)
    assert set(counts) == board.buildings | board.streets | {"market"}
    assert len(board.buildings) == 18 and len(board.streets) == 20
    assert all(counts[s] == 1 for s in board.streets)
    assert sorted(board.squares("market")) == [(4, 4), (4, 5), (5, 4), (5, 5)]
    for centre in ("city_hall", "guild_hall", "post_office", "cathedral"):
        assert counts[centre] == 2 and "market" in board.neighbours(centre)
    assert all(counts[b] in (2, 3) for b in board.buildings)


def test_every_building_is_one_connected_space(board: Board) -> None:
    """rules-data §Turn 2: "Every building and street space counts as a single space": the
    squares of each building touch."""
    for b in board.buildings | {"market"}:
        sq = board.squares(b)
        reached = {sq[0]}
        grow = True
        while grow:
            more = {s for s in sq if s not in reached and
                    any(abs(s[0] - t[0]) + abs(s[1] - t[1]) == 1 for t in reached)}
            reached |= more
            grow = bool(more)
        assert reached == set(sq), b


def test_a_a_street_next_to_both_the_guild_hall_and_the_coach_house(board: Board) -> None:
    """(a) "a street square is orthogonally adjacent to BOTH the Guild Hall and the Coach House
    (G12 acquisition example)"."""
    assert any({"guild_hall", "coach_house"} <= board.neighbours(s) for s in board.streets)


def test_b_a_street_next_to_both_the_spices_warehouse_and_the_coach_house(board: Board) -> None:
    """(b) "a street square is adjacent to both the Spices warehouse and the Coach House (G12
    example, 'Matt … becomes the owner of the Spices warehouse and the Coach House')"."""
    assert any({"spice_warehouse", "coach_house"} <= board.neighbours(s) for s in board.streets)


def test_c_the_spices_warehouse_is_next_to_a_villa_and_to_the_inn_or_tavern(board: Board) -> None:
    """(c) "the Spices warehouse is adjacent to a villa and to the 'Restaurant' (Inn/Tavern)
    (G10 photo caption)"."""
    n = board.neighbours("spice_warehouse")
    assert n & {"villa_colini", "villa_monetti", "villa_ricci", "villa_zasteri"}
    assert n & {"inn", "tavern"}


def test_d_blue_3_red_2_is_a_street(board: Board) -> None:
    """(d) "blue 3 / red 2 is a street square (G12 example)" — G12: "the blue die gives the
    horizontal coordinate … and the red die, the vertical coordinate": row 2 (red), column 3
    (blue), as the rulebook's place_tower rolls it (fn space_at(red, blue))."""
    assert board.at(2, 3) in board.streets


def test_e_from_a_street_by_the_guild_hall_colini_in_4_moves_and_metals_in_3(board: Board) -> None:
    """(e) "from a street square next to the Guild Hall, one shown path of 4 moves reaches Villa
    Colini and one of 3 moves reaches the Metals warehouse (G12 figure caption)"."""
    assert any("villa_colini" in board.paths(s, 4) and "metals_warehouse" in board.paths(s, 3)
               for s in board.streets if "guild_hall" in board.neighbours(s))


def test_f_the_grid_is_play_area_only(board: Board) -> None:
    """(f) "The outermost rows of buildings on left and right are just storage spaces and are
    not part of the play area" (G10): the storage is off the grid (the supplies are table
    fields), so every square of the 8 × 8 grid is a building, a street or the market — the
    buildings of columns 1 and 8 are play-area buildings."""
    assert all(x in board.buildings | board.streets | {"market"} for x in board.cells)


def test_five_buildings_with_contract_cards_can_touch(board: Board, prog: Program) -> None:
    """rules-data §Cards: "each adjacent building beyond the fourth +50" must be reachable: some
    group of buildings that contract cards name, each touching the next, has five or more (the
    board's Metals warehouse, Palace, Coach House, Inn and Spices warehouse; issue 38)."""
    space = next(t for _, (t, _) in prog.rb.member_of.items() if t.name == "Space")
    kind = next(t for _, (t, _) in prog.rb.member_of.items() if t.name == "CardKind")
    named = {space.members[prog.consts["card_place"][c]] for c in prog.consts["card_place"]
             if kind.members[prog.consts["card_kind"][c]] == "contract"}
    left, largest = set(named), 0
    while left:
        group = {left.pop()}
        grow = True
        while grow:
            more = {y for y in left if any(y in board.neighbours(x) for x in group)}
            group |= more
            left -= more
            grow = bool(more)
        largest = max(largest, len(group))
    assert largest >= 5
