"""Stages: several `round` declarations run one after the other, each until its own `end after`
condition or its own `limit`; variants replace, remove and add them by name (docs/language.md,
"Stages"; docs/variants.md)."""
from __future__ import annotations

from pathlib import Path

from mercator.dsl.fmt import format_rulebook
from mercator.dsl.loader import load, load_text
from mercator.dsl.parser import comments, parse
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.nodes import Decision, Terminal
from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.state import State

# Buying: one round per card until the deck is empty (4 cards), each round the first player
# picks 1 or 2 coins; selling: exactly 3 rounds (its own limit, counted from its first round).
# `stages` records the order the phases ran in: 1 = buy, 2 = sell.
TWO = """game "Two stages" players 2..3

table {
  deck: int = 4
  stages: list<int> = []
  sold_in: list<int> = []
}

player {
  coins: int = 0
}

round buying {
  phase buy {
    let n = choose first(players) one of 1..2 prompt "coins"
    first(players).coins += n
    deck -= 1
    stages = stages + [1]
  }
}

end after buying when deck == 0

round selling limit 3 {
  phase sell {
    let n = choose first(players) one of 1..2 prompt "coins"
    first(players).coins += n
    stages = stages + [2]
    sold_in = sold_in + [round_number]
  }
}

score p: p.coins
"""


def program(text: str) -> Program:
    res = load_text(text, "two.rules")
    assert res.ok, "\n".join(str(d) for d in res.diagnostics)
    return compile_program(res.rulebook)


def play_out(prog: Program, s: State) -> State:
    while isinstance(s.pending, Decision):
        prog.apply(s, 0)
    assert isinstance(s.pending, Terminal)
    return s


def test_stages_run_in_order_each_to_its_own_end() -> None:
    prog = program(TWO)
    s = play_out(prog, prog.new_game(2, 0))
    assert prog.get(s, "stages") == [1, 1, 1, 1, 2, 2, 2]      # 4 buying rounds, then 3 selling
    assert s.round == 7                                         # round_number counts the game's
    assert prog.get(s, "sold_in") == [5, 6, 7]                  # rounds, across the stages
    assert s.ended_by == "limit"                                # the last stage's limit
    assert s.pending.scores == (7, 0)


def test_a_stage_limit_counts_its_own_rounds_after_a_save_and_resume() -> None:
    prog = program(TWO)
    s = prog.new_game(2, 0)
    for _ in range(5):                                          # 4 buying rounds, 1 selling
        prog.apply(s, 0)
    assert s.round == 6 and prog.get(s, "stages") == [1, 1, 1, 1, 2]
    r = State.from_json(s.to_json())
    prog.resume(r)
    r = play_out(prog, r)
    assert prog.get(r, "stages") == [1, 1, 1, 1, 2, 2, 2] and r.round == 7


def test_the_last_stages_end_condition_ends_the_game() -> None:
    text = TWO.replace("round selling limit 3 {", "round selling {") + \
        "end after selling when len(sold_in) == 2\n"
    prog = program(text)
    s = play_out(prog, prog.new_game(3, 1))
    assert prog.get(s, "stages") == [1, 1, 1, 1, 2, 2] and s.ended_by == "end"


def test_a_first_stage_limit_moves_on_and_end_game_ends_every_stage() -> None:
    text = TWO.replace("round buying {", "round buying limit 2 {") \
        .replace("stages = stages + [2]", "stages = stages + [2]\n    end game")
    prog = program(text)
    s = play_out(prog, prog.new_game(2, 0))
    assert prog.get(s, "stages") == [1, 1, 2] and s.round == 3 and s.ended_by == "end game"


def test_a_single_round_keeps_the_main_frame_as_it_was() -> None:
    """One round: the stage bookkeeping (main frame local 0) is never written, so the states of
    every existing rulebook are unchanged (benchmarks/fingerprint.py)."""
    one = program(TWO.split("round selling")[0] + "score p: p.coins\n")
    t = one.new_game(2, 0)
    while isinstance(t.pending, Decision):
        assert t.stack[0][2][0] is None
        one.apply(t, 0)
    assert one.get(t, "stages") == [1, 1, 1, 1] and t.ended_by == "end"


def _variant(tmp_path: Path, body: str) -> Program:
    (tmp_path / "two.rules").write_text(TWO, encoding="utf-8")
    (tmp_path / "v.rules").write_text('variant "V" of "two.rules"\n' + body, encoding="utf-8")
    res = load(str(tmp_path / "v.rules"))
    assert res.ok, "\n".join(str(d) for d in res.diagnostics)
    return compile_program(res.rulebook)


def test_a_variant_replaces_the_second_stage_by_name(tmp_path: Path) -> None:
    prog = _variant(tmp_path, """
replace round selling limit 1 {
  phase sell {
    stages = stages + [3]
    for p in players { p.coins += 10 }
  }
}
""")
    s = play_out(prog, prog.new_game(2, 0))
    assert prog.get(s, "stages") == [1, 1, 1, 1, 3] and s.round == 5
    assert s.pending.scores == (14, 10)


def test_a_variant_removes_a_stage_with_its_end_and_adds_one(tmp_path: Path) -> None:
    prog = _variant(tmp_path, """
remove round buying
round bonus limit 2 { phase extra { stages = stages + [4] } }
""")
    s = play_out(prog, prog.new_game(2, 0))
    assert prog.get(s, "stages") == [2, 2, 2, 4, 4] and prog.get(s, "deck") == 4


def test_a_variant_adds_a_phase_to_a_named_stage(tmp_path: Path) -> None:
    prog = _variant(tmp_path, "phase count after sell { stages = stages + [5] }\n")
    s = play_out(prog, prog.new_game(2, 0))
    assert prog.get(s, "stages") == [1, 1, 1, 1, 2, 5, 2, 5, 2, 5]


def test_a_variant_names_a_missing_stage(tmp_path: Path) -> None:
    (tmp_path / "two.rules").write_text(TWO, encoding="utf-8")
    (tmp_path / "v.rules").write_text('variant "V" of "two.rules"\nremove round seling\n',
                                      encoding="utf-8")
    res = load(str(tmp_path / "v.rules"))
    assert [(d.code, d.hint) for d in res.diagnostics] == [("E130", "did you mean 'selling'?")]


def test_an_end_after_an_unknown_round_lists_the_rounds() -> None:
    res = load_text(TWO.replace("end after buying", "end after bying"), "two.rules")
    errors = [d for d in res.diagnostics if d.is_error]
    assert [d.code for d in errors] == ["E114", "E115"]      # 'buying' has no end now
    assert errors[1].hint == "did you mean 'buying'?"
    res = load_text(TWO.replace("end after buying", "end after nothing"), "two.rules")
    assert [d.hint for d in res.diagnostics if d.code == "E115"] == \
        ["the rounds are 'buying', 'selling'"]


def test_stages_and_their_variant_operations_round_trip_through_fmt() -> None:
    variant = """variant "V" of "two.rules"

replace round selling limit 1 {
  phase sell {}
}

remove round buying
"""
    for text in (TWO, variant):
        rb, diags = parse(text, "t.rules")
        assert rb is not None and not diags
        out = format_rulebook(rb, comments(text))
        assert out == text
