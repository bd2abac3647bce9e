"""An owner-only table field `map<player, T> owner`: entry m[p] is seen by player p only
(docs/language.md §2.8). The checker allows it, and the views show each seat its own entry."""
from __future__ import annotations

import json

from mercator.dsl.loader import load_text
from mercator.interpreter.engine.program import Program
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.view import describe, observe, position_view

RULES = """game "Caps" players 2..4
player { money: int = 5 owner  seat: int }
table {
  cap: map<player, int> owner
  pot: int
}
setup {
  let i = 0
  for p in players {
    i += 1
    p.seat = i
    p.money = i * 10
    if i < 3 { cap[p] = p.money + 1 }
  }
}
round r limit 2 {
  phase bid {
    for p in players {
      let b = choose p one of 0..min(2, if p in cap then some(cap[p]) else 0)
      pot += 1
    }
  }
}
score p: p.money + p.seat + pot + len(cap)
"""


def program() -> Program:
    res = load_text(RULES, "caps.rules")
    assert res.ok and res.rulebook is not None, res.diagnostics
    assert [d.code for d in res.diagnostics if d.code.startswith("W27")] == []
    return compile_program(res.rulebook)


def test_the_checker_allows_an_owner_player_map() -> None:
    program()


def test_a_seat_observes_only_its_own_entry() -> None:
    prog = program()
    s = prog.new_game(3, 1)
    assert s.table[0] == {0: 11, 1: 21}
    p1 = observe(prog, s, 0)
    json.dumps(p1)
    assert p1["table"]["cap"] == {"hidden": True, "size": 2, "seen": {"P1": 11}}
    assert observe(prog, s, 1)["table"]["cap"]["seen"] == {"P2": 21}
    assert observe(prog, s, 2)["table"]["cap"] == {"hidden": True, "size": 2, "seen": {}}
    assert p1["table"]["pot"] == 0
    assert p1["players"][0]["money"] == 10 and p1["players"][1]["money"] == "hidden"


def test_a_spectator_sees_no_entry() -> None:
    prog = program()
    s = prog.new_game(3, 1)
    assert observe(prog, s, None)["table"]["cap"] == {"hidden": True, "size": 2, "seen": {}}


def test_describe_shows_the_own_entry_and_hides_the_rest() -> None:
    prog = program()
    s = prog.new_game(3, 1)
    mine = describe(prog, s, 0)
    line = next(x for x in mine.splitlines() if x.strip().startswith("cap"))
    assert "11" in line and "21" not in line and "hidden, 1 item" in line
    other = next(x for x in describe(prog, s, 1).splitlines() if x.strip().startswith("cap"))
    assert "21" in other and "11" not in other
    spectator = next(x for x in describe(prog, s, None).splitlines()
                     if x.strip().startswith("cap"))
    assert "11" not in spectator and "21" not in spectator and "hidden, 2 items" in spectator
    third = next(x for x in describe(prog, s, 2).splitlines() if x.strip().startswith("cap"))
    assert "hidden, 2 items" in third


def test_the_position_view_of_a_seat_holds_only_its_entry() -> None:
    prog = program()
    s = prog.new_game(2, 1)
    assert position_view(prog, s, 0)[0][0] == [{0: 11}, 2]
    assert position_view(prog, s, 1)[0][0] == [{1: 21}, 2]
