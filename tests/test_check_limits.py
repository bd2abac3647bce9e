"""`mercator check` on hostile rulebooks: it never fails internally, refuses what nests too deeply
with a located E140, and takes time in proportion to the size of the file (issue 12, "Hardening").

Every hostile text is generated here; every check runs under a time limit (signal.alarm).
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from time_limit import TookTooLong, time_limit  # noqa: F401

from mercator.dsl import ast as A
from mercator.dsl.diagnostics import Diagnostic, apply_allows, warning
from mercator.dsl.loader import LoadResult, load, load_text

MAX_EXPR_DEPTH = 190      # dsl.limits.MAX_EXPR_DEPTH (test_the_limits_are_these checks them)
MAX_BLOCK_DEPTH = 50
MAX_CALL_DEPTH = 100
MAX_INT = 10 ** 18

HEAD = 'game "Hostile" players 2..2\nplayer { gold: int }\n'
TAIL = "round r limit 1 {{ phase main {{ first(players).gold += {} }} }}\nscore p: p.gold\n"


def check(text: str, seconds: int = 30) -> LoadResult:
    """Load (parse and check) rulebook text in-process, within a time limit."""
    with time_limit(seconds):
        return load_text(text, "hostile.rules")


def errors(res: LoadResult) -> list[Diagnostic]:
    """The error diagnostics of a load."""
    return [d for d in res.diagnostics if d.is_error]


def only_e140(res: LoadResult, message: str) -> Diagnostic:
    """The load was refused with E140s only, located in the file, and this message among them."""
    errs = errors(res)
    assert errs and {d.code for d in errs} == {"E140"}, [(d.code, d.message) for d in errs]
    assert res.rulebook is None
    for d in errs:
        assert d.span.path == "hostile.rules" and d.span.line >= 1 and d.span.col >= 1, d
        assert d.hint
    found = [d for d in errs if message in d.message]
    assert found, [d.message for d in errs]
    return found[0]


def sum_of(terms: int) -> str:
    """const c = 1 + 1 + ... (left-associated: terms - 1 nested additions)."""
    return HEAD + "const c = " + " + ".join(["1"] * terms) + "\n" + TAIL.format("c")


def nested_ifs(n: int) -> str:
    """A phase whose statement sits inside n nested 'if' blocks."""
    body = "first(players).gold += 1"
    for _ in range(n):
        body = "if true { " + body + " }"
    return HEAD + "round r limit 1 { phase main { " + body + " } }\nscore p: p.gold\n"


def fn_chain(n: int, reverse: bool = False) -> str:
    """fn f1() -> int = f0() + 1, ..., up to f(n-1)."""
    lines = ["fn f0() -> int = 1"] + [f"fn f{i}() -> int = f{i - 1}() + 1" for i in range(1, n)]
    return HEAD + "\n".join(lines[::-1] if reverse else lines) + "\n" + TAIL.format(f"f{n - 1}()")


def proc_chain(n: int, reverse: bool = False) -> str:
    """proc p1() { p0() }, ..., the phase calls p(n-1)."""
    lines = ["proc p0() { first(players).gold += 1 }"] + \
        [f"proc p{i}() {{ p{i - 1}() }}" for i in range(1, n)]
    return (HEAD + "\n".join(lines[::-1] if reverse else lines)
            + f"\nround r limit 1 {{ phase main {{ p{n - 1}() }} }}\nscore p: p.gold\n")


# ------------------------------------------------------------------ deep nesting
def test_the_limits_are_these() -> None:
    from mercator.dsl import limits
    assert (limits.MAX_EXPR_DEPTH, limits.MAX_BLOCK_DEPTH, limits.MAX_CALL_DEPTH,
            limits.MAX_INT) == (MAX_EXPR_DEPTH, MAX_BLOCK_DEPTH, MAX_CALL_DEPTH, MAX_INT)


def test_a_sum_of_202_terms_is_refused_and_one_at_the_limit_runs() -> None:
    d = only_e140(check(sum_of(202)), "expression nested too deeply")
    assert str(MAX_EXPR_DEPTH) in d.message and d.span.line == 3
    res = check(sum_of(MAX_EXPR_DEPTH))          # 189 additions under the constant: fine
    assert res.ok, [d.message for d in errors(res)]
    from mercator.interpreter.compiler import compile_program
    assert res.rulebook is not None
    prog = compile_program(res.rulebook)
    assert prog.new_game(2, seed=1) is not None


def test_200_nested_list_literals_are_refused() -> None:
    text = HEAD + "const c = " + "[" * 200 + "1" + "]" * 200 + "\n" + TAIL.format("1")
    only_e140(check(text), "expression nested too deeply")


def test_500_chained_operators_and_unary_minus_are_refused() -> None:
    ops = HEAD + "const c = 1" + "".join(f" {'+-*'[i % 3]} 1" for i in range(500)) + "\n"
    only_e140(check(ops + TAIL.format("c")), "expression nested too deeply")
    neg = HEAD + "const c = " + "-" * 300 + "1\n" + TAIL.format("c")
    only_e140(check(neg), "expression nested too deeply")


def test_166_nested_ifs_are_refused_and_50_blocks_are_fine() -> None:
    d = only_e140(check(nested_ifs(166)), "blocks nested too deeply")
    assert str(MAX_BLOCK_DEPTH) in d.message
    res = check(nested_ifs(MAX_BLOCK_DEPTH - 1))   # plus the phase's own block: 50
    assert res.ok, [d.message for d in errors(res)]


def test_very_deep_texts_are_refused_quickly_not_by_python() -> None:
    """Far past Python's recursion limit: still E140, never E005 'maximum recursion depth'."""
    only_e140(check(sum_of(30_000), seconds=60), "expression nested too deeply")
    only_e140(check(nested_ifs(3_000)), "blocks nested too deeply")
    text = HEAD + "const c = " + "(" * 5_000 + "[1]" + ")" * 5_000 + "\n" + TAIL.format("1")
    res = check(text)
    assert not any("recursion" in d.message for d in res.diagnostics)


def test_500_chained_functions_are_refused() -> None:
    for reverse in (False, True):
        d = only_e140(check(fn_chain(500, reverse)), "chain of more than")
        assert str(MAX_CALL_DEPTH) in d.message


def test_a_chain_of_100_functions_runs() -> None:
    res = check(fn_chain(MAX_CALL_DEPTH, reverse=True))
    assert res.ok, [d.message for d in errors(res)]
    from mercator.interpreter.compiler import compile_program
    assert res.rulebook is not None
    prog = compile_program(res.rulebook)
    assert prog.new_game(2, seed=1) is not None
    only_e140(check(fn_chain(MAX_CALL_DEPTH + 1, reverse=True)), "chain of more than")


def test_1000_chained_procedures_check_without_warnings_of_recursion() -> None:
    for reverse in (False, True):
        res = check(proc_chain(1000, reverse))
        assert res.ok, [(d.code, d.message) for d in errors(res)]
        assert not any(d.code == "W261" for d in res.diagnostics)


def test_recursion_is_still_found_in_a_long_chain() -> None:
    text = proc_chain(1000).replace("proc p0() { first(players).gold += 1 }",
                                    "proc p0() { if first(players).gold < 3 { first(players).gold "
                                    "+= 1  p999() } }")
    res = check(text)
    w261 = {d.message.split("'")[1] for d in res.diagnostics if d.code == "W261"}
    assert len(w261) == 1000 and "p0" in w261 and "p999" in w261


def test_3000_constants_each_using_the_next_declared_last_first() -> None:
    lines = [f"const c{i} = c{i - 1} + 1" for i in range(2999, 0, -1)] + ["const c0 = 1"]
    res = check(HEAD + "\n".join(lines) + "\n" + TAIL.format("c2999"))
    assert res.ok, [(d.code, d.message) for d in errors(res)]


def test_a_long_cycle_of_constants_is_still_a_located_error() -> None:
    lines = [f"const c{i} = c{(i + 1) % 2000} + 1" for i in range(2000)]
    res = check(HEAD + "\n".join(lines) + "\n" + TAIL.format("c0"))
    assert {d.code for d in errors(res)} == {"E100"}
    assert "cycle: c0 -> c1 -> c2" in errors(res)[0].message and errors(res)[0].span.line == 3


def test_the_cli_refuses_a_deep_rulebook_with_a_located_error(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    from mercator.interpreter.cli.main import main
    path = tmp_path / "deep.rules"
    path.write_text(nested_ifs(1_000) + "\n" + sum_of(5_000).split("\n")[2] + "\n", "utf-8")
    with time_limit(60):
        code = main(["check", str(path)])
    cap = capsys.readouterr()
    assert code == 1
    assert re.search(re.escape(str(path)) + r":\d+:\d+: error\[E140\]", cap.err), cap.err
    assert "internal error" not in cap.err + cap.out and "Traceback" not in cap.err + cap.out


# ------------------------------------------------------------------ the formatter
def test_fmt_refuses_a_tree_too_deep_without_recursion_error() -> None:
    from mercator.dsl.fmt import TooDeep, format_rulebook
    e: A.Expr = A.IntLit(1)
    for _ in range(5_000):
        e = A.BinOp("+", e, A.IntLit(1))
    rb = A.Rulebook((A.ConstDecl("c", None, e),))
    with time_limit(30), pytest.raises(TooDeep):
        format_rulebook(rb)


# ------------------------------------------------------------------ linear time
def test_allows_are_applied_in_linear_time() -> None:
    """20,000 warnings in a 20,000-line file: the source is split into lines once."""
    n = 20_000
    source = "".join(f"proc p{i}() {{ }}   # some words to make the line longer\n"
                     for i in range(n))
    diags = [warning("W250", "never called", A.Span("big.rules", i + 1, 1, i + 1, 5))
             for i in range(n)]
    with time_limit(10):
        out = apply_allows(diags, {"big.rules": source}, "big.rules")
    assert len(out) == n


# ------------------------------------------------------------------ small ones
def test_a_byte_order_mark_is_accepted() -> None:
    res = check("\ufeff" + sum_of(3))
    assert res.ok, [(d.code, d.message) for d in errors(res)]


def test_integer_literals_are_limited_by_value_not_digits() -> None:
    res = check(HEAD + "const z = 000000000000000000000\nconst m = " + str(MAX_INT) + "\n"
                + TAIL.format("z + m"))
    assert res.ok, [(d.code, d.message) for d in errors(res)]
    assert res.rulebook is not None
    values = {c.name: c.value for c in res.rulebook.consts}
    assert values["z"] == A.IntLit(0) and values["m"] == A.IntLit(10 ** 18)
    res = check(HEAD + "\nconst big = 1000000000000000001\n" + TAIL.format("big"))
    assert [(d.code, d.span.line, d.span.col) for d in errors(res)] == [("E005", 4, 13)]
    assert "at most 10^18" in errors(res)[0].message


@pytest.mark.parametrize("decl", ["enum int { low, high }", "enum bool { yes, no }",
                                  "record map { a: int }", "record str { a: int }"])
def test_a_type_name_cannot_name_an_enum_or_record(decl: str) -> None:
    res = check(HEAD + decl + "\n" + TAIL.format("1"))
    errs = errors(res)
    assert errs and errs[0].code == "E102" and "built-in type" in errs[0].message
    assert (errs[0].span.line, errs[0].span.col) == (3, 1)


def test_a_string_option_labelled_pass_with_pass_is_refused() -> None:
    text = (HEAD + 'const words = ["go", "pass"]\nround r limit 1 { phase main {\n'
            "  let c = choose first(players) one of words with pass\n"
            "  if c == none { first(players).gold += 1 }\n} }\nscore p: p.gold\n")
    errs = errors(check(text))
    assert [(d.code, d.span.line) for d in errs] == [("E142", 3)]
    ok = text.replace(" with pass", "").replace("c == none", 'c == "go"')
    assert not errors(check(ok))


@pytest.mark.parametrize("body, message", [
    ("for i in 1..1000 * 1000 * 1000 { p.x += 1 }", "this range holds 1,000,000,000 items"),
    ("p.x = len(0..1000000)", "this range holds 1,000,001 items"),
    ("p.x = roll 1000000000000", "a die of 1,000,000,000,000 sides"),
    ("let s = choose p subset of 1..40 size 0..40\n  p.x = len(s)", "more than 100,000 subsets"),
])
def test_sizes_written_with_literals_beyond_the_limits_are_refused(body: str, message: str) -> None:
    """issue 12: `len(1..10^12)`, `roll 10^12`, `for i in 1..10^12`, `subset of 1..40` fail only
    at run time today; written with literal numbers the checker refuses them (E143, located)."""
    text = ('game "Big" players 2..2\nplayer { x: int }\nround r limit 1 { phase a {\n'
            f'  let p = first(players)\n  {body}\n}} }}\nscore p: p.x\n')
    res = load_text(text, "big.rules")
    errs = [d for d in res.diagnostics if d.is_error]
    assert [d.code for d in errs] == ["E143"] and message in errs[0].message
    assert errs[0].span.line == 5


def test_sizes_within_the_limits_are_accepted() -> None:
    text = ('game "Ok" players 2..2\nplayer { x: int }\nround r limit 1 { phase a {\n'
            '  let p = first(players)\n  p.x = len(1..1000000)\n  let d = roll 1000000\n'
            '  let s = choose p subset of 1..16 size 0..16\n} }\nscore p: p.x\n')
    assert load_text(text, "ok.rules").ok


def test_a_byte_order_mark_does_not_shift_the_caret(tmp_path: Any) -> None:
    """A file that starts with a UTF-8 BOM is read without it: an error on line 1 is at the
    column a reader counts, and the source line printed under it has no stray character."""
    path = tmp_path / "bom.rules"
    path.write_text("\ufeffgame \"B\" players 2..2 player { x: int  y: nosuch }\n", encoding="utf-8")
    res = load(str(path))
    err = [d for d in res.diagnostics if d.code == "E101"][0]
    assert (err.span.line, err.span.col) == (1, 43)
    assert not res.sources[str(path)].startswith("\ufeff")
