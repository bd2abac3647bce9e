"""Fns that read no state are remembered for the whole life of a Program, across decisions and
games (interpreter/compiler/memo.py, `state_free_fns` and `FnCache`): which fns qualify, that a
remembered value behaves as a value, that the memory it takes is bounded, and that games are
the same with and without it."""
from __future__ import annotations

import marshal
import os
import random

import pytest

from mercator.dsl.loader import load_text
from mercator.interpreter.compiler import codegen, compile_program
from mercator.interpreter.compiler.memo import FN_CACHE_BYTES, FN_CACHE_ENTRY, FnCache, state_free_fns
from mercator.interpreter.engine import limits
from mercator.interpreter.engine.program import MercatorRuntimeError, Program
from tests.game_driver import program as program_file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAD = 'game "T" players 2..3\n'

KINDS = """
enum C { red, blue, green }
record R { a: int  b: list<int> }
const base = [1, 2, 3]
table { t: int = 0 }
player { x: int }
fn reads_table(n: int) -> int = n + t
fn calls_reader(n: int) -> int = reads_table(n) * 2
fn reads_player(p: player) -> int = p.x
fn counts_players(n: int) -> int = n + player_count
fn reads_round(n: int) -> int = n + round_number
fn next_seat(p: player) -> player = next_player(p)
fn seat_only(p: player) -> player = p
fn scaled(n: int) -> list<int> = [k * n for k in base]
fn colours(n: int) -> list<C> = [c for c in C if index_of(C, c) < n]
fn record_of(n: int) -> R = {a: n, b: scaled(n)}
fn down(n: int) -> list<int> = if n <= 0 then [] else [n] + down(n - 1)
fn down_or_table(n: int) -> list<int> = if n <= 0 then [t] else [n] + down_or_table(n - 1)
fn joined(xss: list<list<int>>, i: int) -> list<int> =
  if i >= len(xss) then [] else xss[i] + joined(xss, i + 1)
fn uses_joined(n: int) -> list<int> = joined([down(k) for k in 0..n], 0)
round r limit 1 { phase a { t += reads_table(1) + calls_reader(1) + reads_round(0) } }
score p: p.x
"""


def program(body: str, step_budget: int = 0) -> Program:
    res = load_text(HEAD + body, "t.rules")
    assert res.ok, "\n".join(str(d) for d in res.diagnostics)
    if step_budget:
        return compile_program(res.rulebook, step_budget)
    return compile_program(res.rulebook)


def test_a_fn_is_state_free_only_when_nothing_it_reads_is_the_state() -> None:
    prog = program(KINDS)
    assert state_free_fns(prog.ex.rb) == {
        "seat_only", "scaled", "colours", "record_of", "down", "joined", "uses_joined"}


def test_state_free_fns_that_walk_or_recurse_with_keyable_parameters_are_cached() -> None:
    """down and uses_joined are recursive or call one; scaled, colours and record_of (through
    scaled) walk a collection, so they are remembered rather than written inline; joined has a
    list of lists as a parameter (no key); seat_only walks nothing (inline is cheaper);
    down_or_table reads the table (in the per-op memory instead)."""
    prog = program(KINDS)
    assert prog.ex.cached == ["colours", "down", "record_of", "scaled", "uses_joined"]
    assert "down_or_table" in prog.ex.memo and "down" not in prog.ex.memo
    assert "scaled" not in prog.ex._inlinable


LISTS = """
player { got: list<int> }
fn step() -> int = 1
fn bumped(xs: list<int>) -> list<int> = [x + step() for x in xs]
fn given(xs: list<int>, n: int) -> list<int> = if n > 0 then xs else [x for x in xs]
fn plain(xs: list<int>) -> int = count(x > 1 for x in xs)
round r limit 2 { phase a {
  for p in players {
    let xs = [1, 2]
    let a = bumped(xs)
    add 5 to xs
    let b = bumped(xs)
    add 9 to a
    p.got = a + b + bumped([1, 2]) + given(xs, 1) + [plain(xs)]
  }
} }
score p: sum(p.got)
"""


def test_a_fn_with_a_list_parameter_is_remembered_by_the_list_s_items() -> None:
    """bumped is keyed by the items of its list: the caller's list changed afterwards gives a
    new entry, and changing a value handed out changes neither the entry nor the next call's
    value. given may hand out its very parameter, so it is not remembered; plain walks
    nothing but its argument and calls no fn (its key would cost what computing it does), so
    it is not remembered either."""
    prog = program(LISTS)
    assert prog.ex.cached == ["bumped"]
    bumped = prog.ex.ns["F_bumped"]
    limits.start(10 ** 6)
    first = bumped(None, [1, 2])
    assert first == [2, 3] and bumped(None, [1, 2]) is first
    assert bumped(None, [1, 2, 5]) == [2, 3, 6] and bumped(None, [2, 1]) == [3, 2]
    limits.start(limits.CONST_STEP_BUDGET)
    for seed in range(2):
        s = prog.new_game(2, seed)
        while not s.over:
            prog.apply(s, 0)
        for player in (0, 1):
            assert prog.get(s, "got", player=player) == [2, 3, 9, 2, 3, 6, 2, 3, 1, 2, 5, 2]


def test_the_switch_turns_the_cache_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codegen, "FN_CACHE", False)
    prog = program(KINDS)
    assert prog.ex.cached == [] and "down" in prog.ex.memo


def test_a_remembered_value_is_handed_out_as_it_was_kept() -> None:
    """No copy on a hit (the rulebook's keepers copy, as for the per-op memory: the next test);
    a value computed once is the one handed out, and the same answer for other arguments."""
    prog = program(KINDS)
    down = prog.ex.ns["F_down"]
    uses = prog.ex.ns["F_uses_joined"]
    limits.start(10 ** 6)
    first = uses(None, 3)              # computed and kept
    assert first == [1, 2, 1, 3, 2, 1] and uses(None, 3) is first
    assert down(None, 4) == [4, 3, 2, 1] and down(None, 4) is down(None, 4)
    assert uses(None, 2) == [1, 2, 1] and uses(None, 2) is not first
    assert prog.ex.fn_cache.size() >= 2


MUTATED = """
player { got: list<int> }
fn down(n: int) -> list<int> = if n <= 0 then [] else [n] + down(n - 1)
round r limit 3 { phase a {
  for p in players {
    let xs = down(3)
    add 99 to xs
    xs[0] = 7
    let k = choose p one of down(4)
    p.got = p.got + xs + down(3) + [k]
  }
} }
score p: sum(p.got)
"""


def test_a_rulebook_changing_its_copy_of_a_cached_list_sees_the_fn_unchanged() -> None:
    """xs is a copy: adding to it and changing it leaves what down(3) gives next untouched, in
    this game and the next (the cache lives as long as the program)."""
    prog = program(MUTATED)
    assert prog.ex.cached == ["down"]
    for seed in range(3):
        s = prog.new_game(2, seed)
        rng = random.Random(seed)
        while not s.over:
            prog.apply(s, rng.randrange(s.pending.count))
        for player in (0, 1):
            got = prog.get(s, "got", player=player)
            assert len(got) == 3 * 8
            for i in range(0, 24, 8):
                assert got[i:i + 7] == [7, 2, 1, 99, 3, 2, 1] and got[i + 7] in (1, 2, 3, 4)


def test_the_cache_holds_at_most_its_limit() -> None:
    cache = FnCache(limit=10 * FN_CACHE_ENTRY)
    table, other = cache.table(), cache.table()
    for n in range(25):
        cache.keep(table if n % 2 else other, (n,), n, 1)
        assert cache.size() <= 10 and cache.left >= 0
    cache.keep(table, ("x",), b"y" * (10 * FN_CACHE_ENTRY), 1)     # alone beyond the limit
    assert ("x",) not in table


BIG = """
player { x: int }
fn big(n: int, d: int) -> list<int> = if d <= 0 then [k for k in 0..n] else big(n, d - 1)
round r limit 1 { phase a { for p in players { p.x = len(big(10, 1)) } } }
score p: p.x
"""


def test_big_values_of_a_rulebook_fn_do_not_pile_up_beyond_the_limit() -> None:
    """60 values of 200,001 ints each would take 60 MB marshalled; the program keeps at most
    FN_CACHE_BYTES of them, and every value handed out is still the right one."""
    prog = program(BIG)
    big = prog.ex.ns["F_big"]
    limits.start(10 ** 9)
    for i in range(60):
        assert len(big(None, 200_000 + i, 1)) == 200_001 + i
        held = sum(len(marshal.dumps(v)) for t in prog.ex.fn_cache.tables
                   for v, _ in t.values() if type(v) is list)
        assert held <= FN_CACHE_BYTES
    assert 0 < prog.ex.fn_cache.size() < 60
    assert big(None, 200_059, 1)[-1] == 200_059
    limits.start(limits.CONST_STEP_BUDGET)


BUDGET = """
player { x: int }
fn down(n: int) -> list<int> = if n <= 0 then [] else [n] + down(n - 1)
round r limit 20 { phase a {
  for p in players {
    let k = choose p one of [1, 2]
    p.x += len(down(60 * k)) + len(down(60 * k)) + len(down(60 * k))
  }
} }
score p: p.x
"""


def test_a_remembered_value_charges_the_steps_computing_it_took() -> None:
    """With a step budget of 300, enough for three calls of down(60) but not of down(120), the game fails at the same
    decision with the cache as without it (a hit is charged what the call cost)."""
    outcomes = []
    for cached in (True, False):
        old = codegen.FN_CACHE
        codegen.FN_CACHE = cached
        try:
            prog = program(BUDGET, step_budget=300)
        finally:
            codegen.FN_CACHE = old
        assert prog.ex.cached == (["down"] if cached else [])
        for seed in range(4):
            s = prog.new_game(2, seed)
            rng = random.Random(seed)
            n = 0
            try:
                while not s.over:
                    prog.apply(s, rng.randrange(2))
                    n += 1
                outcomes.append((seed, n, "over"))
            except MercatorRuntimeError as exc:
                outcomes.append((seed, n, exc.message))
    assert outcomes[:4] == outcomes[4:]
    assert any("budget" in o[2] for o in outcomes)


def play(prog: Program, players: int, seed: int) -> tuple:
    s = prog.new_game(players, seed, narrate=True)
    rng = random.Random(seed * 7919 + players)
    while not s.over:
        prog.apply(s, rng.randrange(s.pending.count))
    return s.digest(), s.messages, s.result


def test_die_haendler_plays_the_same_games_with_and_without_the_cache() -> None:
    path = os.path.join(ROOT, "rulebooks", "die_haendler.rules")
    old = codegen.FN_CACHE
    try:
        codegen.FN_CACHE = False
        plain = program_file(path)
        codegen.FN_CACHE = True
        cached = program_file(path)
    finally:
        codegen.FN_CACHE = old
    assert plain.ex.cached == [] and "routes" in cached.ex.cached
    for seed in range(6):
        players = 2 + seed % 3
        assert play(cached, players, seed) == play(plain, players, seed)
    assert cached.ex.fn_cache.size() > 0
