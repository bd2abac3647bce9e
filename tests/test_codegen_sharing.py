"""The expression compiler computes some things once instead of at every use (codegen.py,
`CodeGen._shared`; inline.py, `repeated`): a pure fn call or aggregate in a comprehension's
condition or element that does not vary with its items is computed at its first use and read
again after, and a small fn that walks a collection and is called twice with the same arguments
is remembered instead of written inline. The switch `codegen.SHARE` turns both off: options,
errors and whole games must be the same either way, with fewer steps spent."""
from __future__ import annotations

import glob
import os
import random
from typing import Any

import pytest

from mercator.dsl.loader import load, load_text
from mercator.interpreter.compiler import codegen, compile_program
from mercator.interpreter.compiler.inline import inlinable, repeated
from mercator.interpreter.engine import limits
from mercator.interpreter.engine.program import MercatorRuntimeError, Program

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RULES = """game "T" players 2..3
table { vals: list<int> = [3, 1, 4, 1, 5, 9, 2, 6]  others: list<int> = [1, 2, 3] }
player { x: int = 0 }
fn total() -> int = sum(v for v in vals)
fn top() -> int = max(vals)
fn big(k: int) -> bool = k * 8 > total()
fn menu() -> list<int> = [k for k in vals if not big(k) and k != total() and k < top()]
fn guarded() -> list<int> = [k for k in others if len(vals) > 0 and k < top()]
fn unguarded() -> list<int> = [k for k in others if k < top()]
fn nested() -> list<list<int>> = [[j for j in others if j + k < total()] for k in vals]
fn deep(n: int) -> int = if n <= 0 then len(vals) else deep(n - 1)
fn under() -> list<int> = [k for k in vals if k < deep(1) and k > deep(0) - 9]
fn evens() -> list<int> = [v for v in vals if v % 2 == 0]
fn twice() -> bool = len(evens()) > 0 and min(v for v in evens()) < 5
round r limit 3 { phase a {
  for p in players {
    let k = choose p one of menu()
    p.x += k + len(guarded()) + len(nested()[0])
  }
} }
score p: p.x
"""


def build(share: bool, text: str = RULES) -> Program:
    old = codegen.SHARE
    codegen.SHARE = share
    try:
        res = load_text(text, "t.rules")
        assert res.ok and res.rulebook is not None, [str(d) for d in res.diagnostics]
        return compile_program(res.rulebook)
    finally:
        codegen.SHARE = old


def call(prog: Program, fn: str, vals: Any = None, others: Any = None) -> tuple[Any, int]:
    """(value or the error's text, steps charged) of fn() on a new game's state, with the
    table's lists replaced if given."""
    s = prog.new_game(2, 0)
    if vals is not None:
        prog.set(s, "vals", vals)
    if others is not None:
        prog.set(s, "others", others)
    limits.start(10 ** 6)
    try:
        v = prog.ex.ns["F_" + fn](s)
    except Exception as exc:       # the error itself is what is compared
        v = f"{type(exc).__name__}: {exc}"
    return v, 10 ** 6 - limits.METER[0]


def cells(prog: Program, fn: str) -> list[str]:
    code = prog.ex.ns["F_" + fn].__code__
    return [n for n in code.co_varnames + code.co_cellvars if n.startswith("_wh")]


def test_the_loop_invariant_call_is_written_as_a_cell_only_when_on() -> None:
    assert cells(build(True), "menu") and not cells(build(False), "menu")


@pytest.mark.parametrize("fn", ["menu", "guarded", "unguarded", "nested", "twice", "under"])
@pytest.mark.parametrize("vals,others", [(None, None), ([], None), ([], []), ([7], []),
                                         ([2, 2, 2], [1, 5])])
def test_values_and_errors_are_the_same_with_sharing_on_and_off(fn: str, vals: Any,
                                                                 others: Any) -> None:
    """With `vals` empty, top() (max of nothing) fails: where a test short-circuits it away
    (guarded) or the comprehension's source is empty, it must not fail now either; where it was
    evaluated (unguarded with items), it fails with the same error. The steps charged are the
    same too: a value read from a cell is charged what computing it took."""
    on, off = build(True), build(False)
    assert call(on, fn, vals, others) == call(off, fn, vals, others)


def test_an_error_stays_where_it_was() -> None:
    on = build(True)
    assert call(on, "guarded", [], [1, 2])[0] == []
    assert call(on, "unguarded", [], [])[0] == []
    assert "max() of nothing" in call(on, "unguarded", [], [1, 2])[0]


def test_the_invariant_call_is_computed_once_per_loop() -> None:
    """under() asks deep(1) (recursive: a call in both modes) at each of its 8 items and
    deep(0) at those below 8: 8 + 8 + 7 calls written out, 2 + 1 with the cells (deep(1) calls
    deep(0) itself once); the steps charged are the same."""
    counts = []
    for share in (True, False):
        prog = build(share)
        real = prog.ex.ns["F_deep"]
        calls = [0]

        def counting(s: Any, n: int) -> Any:
            calls[0] += 1
            return real(s, n)
        prog.ex.ns["F_deep"] = counting
        value, steps = call(prog, "under")
        counts.append((value, steps, calls[0]))
    assert counts[0][:2] == counts[1][:2]
    assert counts[0][0] == [3, 1, 4, 1, 5, 2, 6]
    assert counts[1][2] == 8 * 2 + 7 and counts[0][2] == 3


def test_a_collection_walking_fn_called_twice_is_remembered_not_inline() -> None:
    res = load_text(RULES, "t.rules")
    assert res.rulebook is not None
    # twice's body asks evens() twice; menu's asks total() itself and through big(k), written
    # inline; big(k) and top() are not counted (one call each in a body, or no walk)
    assert repeated(res.rulebook, inlinable(res.rulebook)) == {"evens", "total"}
    on, off = build(True), build(False)
    assert {"evens", "total"} <= set(on.ex.memo) and not {"evens", "total"} & set(off.ex.memo)


SAME_ARGS = """game "T" players 2..3
table { vals: list<int> = [3, 1, 4] }
player { x: int = 0 }
fn above(n: int) -> list<int> = [v for v in vals if v > n]
fn pair(n: int) -> int = len(above(n)) + len(above(n + 1))
fn same(n: int) -> int = len(above(n)) + len(above(n))
round r limit 1 { phase a { for p in players { p.x = pair(1) + same(1) } } }
score p: p.x
"""


def test_calls_with_other_arguments_do_not_count() -> None:
    """above(n) and above(n + 1) would only fill the memory; above(n) twice is remembered."""
    res = load_text(SAME_ARGS, "t.rules")
    assert res.rulebook is not None
    assert repeated(res.rulebook, inlinable(res.rulebook)) == {"above"}
    res = load_text(SAME_ARGS.replace("fn same(n: int) -> int = len(above(n)) + len(above(n))",
                                      "fn same(n: int) -> int = n"), "t.rules")
    assert res.rulebook is not None
    assert repeated(res.rulebook, inlinable(res.rulebook)) == set()


def test_a_fn_the_rules_call_in_two_places_is_remembered() -> None:
    """The compiled rollout keeps the memory across statements, so a small fn that walks a
    collection and is called from two places (two fns, or a fn and a statement) is remembered
    rather than written inline; called from one place only, it is written inline."""
    two = SAME_ARGS.replace("fn same(n: int) -> int = len(above(n)) + len(above(n))",
                            "fn same(n: int) -> int = len(above(n))")
    res = load_text(two, "t.rules")
    assert res.rulebook is not None
    assert repeated(res.rulebook, inlinable(res.rulebook)) == {"above"}
    one = two.replace("fn same(n: int) -> int = len(above(n))", "fn same(n: int) -> int = n")
    res = load_text(one.replace("p.x = pair(1) + same(1)", "p.x = pair(1) + len(above(2))"),
                    "t.rules")
    assert res.rulebook is not None
    assert repeated(res.rulebook, inlinable(res.rulebook)) == {"above"}     # a fn and a statement
    res = load_text(one, "t.rules")
    assert res.rulebook is not None
    assert repeated(res.rulebook, inlinable(res.rulebook)) == set()


def games(prog: Program, players: int, seeds: range) -> list:
    out = []
    for seed in seeds:
        s = prog.new_game(players, seed, narrate=True)
        rng = random.Random(seed * 7919 + players)
        try:
            while not s.over:
                prog.apply(s, rng.randrange(s.pending.count))
            out.append((s.digest(), s.messages, s.result))
        except MercatorRuntimeError as exc:
            out.append(("error", str(exc)))
        t = prog.new_game(players, seed)
        prog.playout(t, random.Random(seed))
        out.append(t.digest())
    return out


def test_the_small_rulebook_plays_the_same_games() -> None:
    on, off = build(True), build(False)
    assert games(on, 2, range(6)) == games(off, 2, range(6))


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "rulebooks", "*.rules")))
                         + sorted(glob.glob(os.path.join(ROOT, "rulebooks", "variants",
                                                         "*.rules"))),
                         ids=os.path.basename)
def test_every_shipped_rulebook_plays_the_same_games_with_sharing_on_and_off(path: str) -> None:
    progs = []
    for share in (True, False):
        old = codegen.SHARE
        codegen.SHARE = share
        try:
            res = load(path)
            assert res.ok and res.rulebook is not None
            progs.append(compile_program(res.rulebook))
        finally:
            codegen.SHARE = old
    on, off = progs
    n = on.min_players
    assert games(on, n, range(3)) == games(off, n, range(3))


@pytest.mark.parametrize("name", ["felinia", "manila", "die_haendler", "genoa"])
def test_every_seat_s_estimate_is_the_same_with_the_fns_remembered_across_seats(
        name: str) -> None:
    """Program.estimates keeps the fns' memory on while it computes every seat's estimate (the
    state does not change in between): the values are those computed without it, at positions
    of random games, and the memory is off again afterwards (a rule run next starts clean)."""
    prog = compile_program(load(os.path.join(ROOT, "rulebooks", f"{name}.rules")).rulebook)
    assert prog.ex.memo
    rng = random.Random(7)
    compared = 0
    for seed in range(2):
        s = prog.new_game(3, seed)
        while not s.over and compared < 40 * (seed + 1):
            node = s.pending
            if rng.random() < 0.3:
                remembered = prog.estimates(s)
                assert prog.ex.memo_on[0] is None
                kept, prog.ex.memo = prog.ex.memo, []      # no memory: each fn computed anew
                try:
                    assert prog.estimates(s) == remembered
                finally:
                    prog.ex.memo = kept
                compared += 1
            prog.apply(s, rng.randrange(len(node.options)))
    assert compared >= 40
