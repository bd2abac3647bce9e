"""A product needs an overflow check (limits.mul: a rule error beyond ±2^256) unless one side
is known, when compiling, to be small (below codegen.SMALL_INT in size): then the product
grows only a few bits a step, and the step budget bounds the steps. Known small: literals and
constants, items of constant tables all of whose ints are small (by any key, nested too), an
`if` whose arms both are, sums, differences, products and quotients of such, and calls of a
fn whose body is (whatever its arguments). tests/fixtures/runaway/int_by_table_item.rules
holds that a product by an item of a table of large ints is still checked."""
from __future__ import annotations

import pytest

from mercator.dsl.loader import load_text
from mercator.interpreter.compiler import compile_program

RULES = """game "Bounds" players 2..2
player { x: int }
table small: map<int, list<int>> = {1: [3, 400], 2: [60000, 7]}
table large: list<int> = [2, 70000]
table tiny: list<int> = [2, 7]
fn pick(k: int) -> int = if k > 1 then small[2][0] else small[1][k] + 9
fn twice(k: int) -> int = 2 * k
fn selfish(k: int) -> int = if k > 9 then 1 else selfish(k + 1) * 2
fn by_item(p: player, k: int) -> int = p.x * small[k][1]
fn by_fn(p: player, k: int) -> int = p.x * pick(k)
fn by_sum(p: player, k: int) -> int = p.x * (tiny[0] - small[1][0] / 2)
fn by_large(p: player, k: int) -> int = p.x * large[k]
fn by_arg_fn(p: player, k: int) -> int = p.x * twice(k)
fn by_recursive(p: player, k: int) -> int = p.x * selfish(k)
fn by_sum_too_big(p: player, k: int) -> int = p.x * (small[2][0] + small[2][0])
round r limit 1 { phase a { let p = first(players)
  p.x = 5
  p.x = by_item(p, 1) + by_fn(p, 2) + by_sum(p, 0) + by_large(p, 1) + by_arg_fn(p, 3)
} }
score p: p.x
"""


@pytest.fixture(scope="module")
def prog():
    res = load_text(RULES, "bounds.rules")
    assert res.ok, [d.message for d in res.diagnostics]
    return compile_program(res.rulebook)


@pytest.mark.parametrize("fn, checked", [
    ("by_item", False), ("by_fn", False), ("by_sum", False),
    ("by_large", True), ("by_arg_fn", True), ("by_recursive", True), ("by_sum_too_big", True)])
def test_a_product_is_checked_unless_a_side_is_known_small(prog, fn: str, checked: bool) -> None:
    code = prog.ex.source(prog.rb.fns[fn].expr, {0: "v0", 1: "v1"})
    assert ("_mul(" in code) is checked, code


def test_the_products_are_the_same_numbers(prog) -> None:
    s = prog.new_game(2, 0)
    while not s.over:
        prog.apply(s, 0)
    # 5*400 + 5*60000 + 5*(2 - 1) + 5*70000 + 5*6 (by_item, by_fn, by_sum, by_large, by_arg_fn)
    assert s.result.scores[0] == 2000 + 300000 + 5 + 350000 + 30

