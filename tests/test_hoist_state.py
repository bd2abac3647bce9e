"""codegen.hoist_state: a generated function that reads s.table (s.players) often reads it once
into a local, on its first line, so that line numbers (which locate rule errors) stay."""
from __future__ import annotations

import random

from mercator.interpreter.compiler.codegen import HOIST_AT, hoist_state
from tests.game_driver import program as program_file
import os
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_a_function_reading_the_table_often_reads_it_once_on_its_first_line() -> None:
    src = ("def F(s, v0):\n    x = s.table[1] + s.table[2]\n    return x + s.table[3]"
           " + s.players[v0][0]\n")
    out = hoist_state(src)
    assert out.count("\n") == src.count("\n")
    assert out.splitlines()[1] == "    _T = s.table; x = _T[1] + _T[2]"
    assert "s.table[" not in out and "s.players[v0][0]" in out    # one read: left as it is
    ns: dict = {}
    exec(out, ns)

    class S:
        table = [0, 10, 20, 30]
        players = [[5]]
    assert ns["F"](S(), 0) == 65


def test_what_reads_little_or_starts_with_a_compound_statement_is_left_alone() -> None:
    few = "def F(s):\n    return s.table[1]" + " + s.table[1]" * (HOIST_AT - 2) + "\n"
    compound = "def F(s):\n    if s.table[0]:\n        return s.table[1] + s.table[2]\n"
    one_line = "def F(s):\n    if s.table[0]: s.table[1] = 1\n    return s.table[2]\n"
    assert hoist_state(few) == few and hoist_state(compound) == compound
    assert hoist_state(one_line) == one_line     # (`_T = s.table; if ...` is no statement)
    assert hoist_state("lambda s, L: s.table[0]") == "lambda s, L: s.table[0]"


def test_games_and_error_lines_are_those_of_the_code_without_it() -> None:
    """The fingerprint covers the shipped games; here the rollout's and the VM's games of
    Manila agree with the hoisted code in both."""
    prog = program_file(ROOT + "/rulebooks/manila.rules")
    for seed in range(3):
        a, b = prog.new_game(3, seed), prog.new_game(3, seed)
        r = random.Random(seed)
        while not a.over:
            prog.apply(a, r.randrange(a.pending.count))
        prog.playout(b, random.Random(seed))
        assert a.digest() == b.digest() and a.history == b.history
