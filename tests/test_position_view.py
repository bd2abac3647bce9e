"""The position view written for a rulebook's fields (engine/view.compile_position_view) gives
the very data of engine/view.position_view, which reads each field's visibility and type at
every call: it is what every seat's information state is made of, so a difference would be a
leak (more seen) or a resampled world that no longer fits (less seen). The bytes a narrated
step folds into every seat's digest (engine/view_bytes.compile_view_bytes, marshalled in
pieces, what the seats see alike once) are those of marshal.dumps(view, 2), seat by seat."""
from __future__ import annotations

import marshal
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mercator.dsl.loader import load_text
from mercator.interpreter.agents.base import resolve_chance
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.nodes import Chance
from mercator.interpreter.engine.view import compile_position_view, position_view
from mercator.interpreter.engine.view_bytes import compile_view_bytes
from mercator.interpreter.research.common import program_for

PROPS = settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))

# a field of each visibility and each kind a view treats apart: scalars, lists, bags, maps,
# optional collections (none, then filled), an owner-only player map
RULES = """game "Fields" players 2..3
enum Colour { red, blue }
player {
  cash: int = 3
  purse: int = 7 owner
  hand: list<int> owner
  chips: bag<Colour> owner
  notes: map<Colour, int> secret
  maybe: list<int>? = none owner
  seen_by_none: bool = false secret
}
table {
  pot: int
  deck: bag<Colour> secret
  pile: list<int> secret
  later: list<int>? = none secret
  cap: map<player, int> owner
}
setup {
  for p in players {
    add 1 to p.hand
    add red to p.chips
    add blue to p.chips
    p.notes[red] = 2
  }
  add red to deck
  add 4 to pile
}
round r limit 2 {
  phase play {
    for p in players {
      let k = choose p one of 0..2
      pot += k
      add k to p.hand
      add blue to deck
      if k == 1 { p.maybe = some([k]) }
      if k == 2 { later = some([k, k]) }
      cap[p] = k
      p.purse -= k
    }
  }
}
score p: p.cash + p.purse + pot + len(p.hand)
"""


def same(prog, s) -> None:
    fast, pieces = compile_position_view(prog), compile_view_bytes(prog)
    seats = list(range(len(s.players)))
    whole = pieces(s, seats)
    for v in seats:
        a, b = position_view(prog, s, v), fast(s, v)
        assert marshal.dumps(a, 2) == marshal.dumps(b, 2), (v, a, b)
        assert whole[v] == marshal.dumps(a, 2) and pieces(s, [v]) == [whole[v]], v


def test_every_kind_of_field_is_viewed_as_before() -> None:
    res = load_text(RULES, "fields.rules")
    assert res.ok and res.rulebook is not None, res.diagnostics
    prog = compile_program(res.rulebook)
    for seed in range(6):
        s, rng = prog.new_game(2 + seed % 2, seed), random.Random(seed)
        same(prog, s)
        while not s.over:
            prog.apply(s, rng.randrange(s.pending.count))
            same(prog, s)
    # what a seat sees of the others: sizes of their hidden collections, nothing of a scalar
    view = compile_position_view(prog)(s, 0)
    table, players = view[0], view[1]
    assert table[1] == 1 + 2 * len(players) and table[2] == 1       # the deck's and pile's sizes
    assert table[4][0] == {0: s.table[4][0]} and table[4][1] == len(players)
    assert players[1][1] is None and players[1][2] == 3 and players[1][3] == 2
    assert players[0][1] == s.players[0][1] and players[0][6] is None


def test_a_state_of_another_shape_is_viewed_by_the_general_code() -> None:
    prog = program_for("manila")
    s = prog.new_game(3, 1)
    s.table = s.table + [0]                      # a field the rulebook does not declare
    assert compile_position_view(prog)(s, 0) == position_view(prog, s, 0)
    assert compile_view_bytes(prog)(s, [2, 0]) == [marshal.dumps(position_view(prog, s, v), 2)
                                                   for v in (2, 0)]


@pytest.mark.parametrize("name", ["manila", "die_haendler", "felinia", "genoa"])
@PROPS
@given(seed=st.integers(0, 2**20), players=st.integers(2, 5), steps=st.integers(0, 400))
def test_every_shipped_rulebook_is_viewed_as_before(name: str, seed: int, players: int,
                                                    steps: int) -> None:
    prog = program_for(name)
    players = min(max(players, prog.min_players), prog.max_players)
    s, rng = prog.new_game(players, seed, explicit_chance=True), random.Random(seed)
    for _ in range(steps):
        if s.over:
            break
        node = s.pending
        prog.apply(s, resolve_chance(s) if isinstance(node, Chance) else rng.randrange(node.count))
        same(prog, s)
