"""Tests for the canonical printer (dsl/fmt.py): round trips through the parser.

The contract: for every text that parses, ``parse(fmt(parse(x))) == parse(x)`` (spans aside)
and ``fmt`` is idempotent.  Checked on every rulebook in the repository and on random ASTs.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsl import ast as A
from dsl.fmt import escape_string, format_expr, format_rulebook
from dsl.parser import KEYWORDS, parse

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "tests" / "fixtures" / "tiny.rules"


def _rules_files() -> list[Path]:
    found = set(ROOT.glob("rulebooks/**/*.rules")) | set(ROOT.glob("tests/fixtures/**/*.rules"))
    return sorted(found)


def _parse_ok(text: str, path: str = "<fmt>") -> A.Rulebook:
    rb, diags = parse(text, path)
    assert rb is not None, "formatted text does not parse:\n" + text + "\n" + "\n".join(
        f"{d.span}: {d.message} ({d.hint})" for d in diags)
    return rb


def _assert_round_trip(rb: A.Rulebook) -> str:
    text = format_rulebook(rb)
    again = _parse_ok(text)
    assert again == rb, "formatted text parses to a different tree:\n" + text
    assert format_rulebook(again) == text, "fmt is not idempotent"
    return text


# ------------------------------------------------------------- repository files
@pytest.mark.parametrize("path", _rules_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_rulebook_file_round_trips(path: Path) -> None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        pytest.skip(f"unreadable: {exc}")
    rb, _ = parse(text, str(path))
    if rb is None:
        pytest.skip("does not parse (a fixture of syntax errors?)")
    _assert_round_trip(rb)


def test_tiny_fixture_is_covered() -> None:
    assert TINY in _rules_files()
    rb, diags = parse(TINY.read_text(encoding="utf-8"), str(TINY))
    assert rb is not None, diags
    text = _assert_round_trip(rb)
    assert text.startswith('game "Tiny" players 2..4\n\nenum Color { red, blue }\n')


# ---------------------------------------------------------------- fixed cases
def _expr_of(src: str) -> A.Expr:
    rb = _parse_ok(f"const x = {src}")
    decl = rb.items[0]
    assert isinstance(decl, A.ConstDecl)
    return decl.value


@pytest.mark.parametrize("src, canonical", [
    ("-3", "-3"),
    ("- - 3", "--3"),
    ("2 - -3", "2 - -3"),
    ("-(a + b)", "-(a + b)"),
    ("-a.b", "-a.b"),
    ("(-a).b", "(-a).b"),
    ("(a + b).c[1]", "(a + b).c[1]"),
    ("a - (b - c)", "a - (b - c)"),
    ("(a - b) - c", "a - b - c"),
    ("a * (b + c) % d", "a * (b + c) % d"),
    ("not not (a and b)", "not not (a and b)"),
    ("not a == b", "not a == b"),
    ("(not a) == b", "(not a) == b"),
    ("(a < b) < c", "(a < b) < c"),
    ("a < (b < c)", "a < (b < c)"),
    ("(a..b)..c", "(a..b)..c"),
    ("(a+1)..(b*2)", "a + 1..b * 2"),
    ("x not in (a in b)", "x not in (a in b)"),
    ("not x in y", "not x in y"),
    ("a or b and c", "a or b and c"),
    ("(a or b) and c", "(a or b) and c"),
    ("a or (b or c)", "a or (b or c)"),
    ("if a then if b then c else d else if e then f else g",
     "if a then if b then c else d else if e then f else g"),
    ("(if a then b else c) + 1", "(if a then b else c) + 1"),
    ("a or (if a then b else c)", "a or (if a then b else c)"),
    ("{ (if a then b else c): [x for x in players if x],}",
     "{if a then b else c: [x for x in players if x]}"),
    ("sum(x * 2 for x in xs if not x)", "sum(x * 2 for x in xs if not x)"),
    ("f()", "f()"),
    ("[f(1, (2)), [],]", "[f(1, 2), []]"),
    ('"a\\"b\\\\c\\nd"', '"a\\"b\\\\c\\nd"'),
])
def test_expression_canonical_text(src: str, canonical: str) -> None:
    e = _expr_of(src)
    assert format_expr(e) == canonical
    assert _expr_of(canonical) == e


def test_bare_return_before_name_or_if_gets_a_semicolon() -> None:
    src = "proc f() { return; x = 1 return; g() return; if a { } return log 1 return }"
    rb = _parse_ok(src)
    text = _assert_round_trip(rb)
    assert text == ("proc f() {\n  return;\n  x = 1\n  return;\n  g()\n  return;\n"
                    "  if a {}\n  return\n  log 1\n  return\n}\n")


def test_place_starting_with_a_call() -> None:
    rb = _parse_ok("setup { first(players).points += 1 let c = draw from decks(2)[0] f(1) }")
    assert _assert_round_trip(rb) == ("setup {\n  first(players).points += 1\n"
                                      "  let c = draw from decks(2)[0]\n  f(1)\n}\n")


def test_comments_and_empty_statements_are_dropped() -> None:
    rb = _parse_ok("# hello\nsetup { ; x = 1 ; # trailing\n }\n")
    assert format_rulebook(rb) == "setup {\n  x = 1\n}\n"


def test_table_keyword_is_kept_when_the_tree_says_so() -> None:
    decl = A.ConstDecl("t", None, A.IntLit(1), keyword="table")
    assert format_rulebook(A.Rulebook((decl,))) == "table t = 1\n"


def test_empty_rulebook() -> None:
    assert format_rulebook(A.Rulebook(())) == ""


def test_choose_subset_round_trips() -> None:
    rb = _parse_ok('setup { let x = choose p subset of xs size 1 + n..max(2, n) with pass }')
    assert "size 1 + n..max(2, n) with pass" in _assert_round_trip(rb)


# ------------------------------------------------------- random ASTs (Hypothesis)
_NAMES = ["a", "b", "x", "y", "p", "q", "n", "Good", "pesos", "_", "x1", "in_", "ifx", "players_",
          "notes", "order", "ends", "tables", "orr", "gameover", "roller", "draws"]
_FIRST = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
ident = st.one_of(
    st.sampled_from(_NAMES),
    st.builds(str.__add__, st.sampled_from(_FIRST),
              st.text(alphabet=_FIRST + "0123456789", max_size=5)),
).filter(lambda s: s not in KEYWORDS)

# Any string except a backslash followed by "n": the parser reads `\n` in the source as a
# newline whatever precedes it, so that value has no spelling (and no parse produces it).
text = st.text(alphabet=st.sampled_from('ab #"\\\n\tn\r{}é'), max_size=6).filter(
    lambda s: "\\n" not in s)
nat = st.integers(min_value=0, max_value=10**12)
small_nat = st.integers(min_value=0, max_value=1000)


def _tup(elem: st.SearchStrategy, lo: int = 0, hi: int = 3) -> st.SearchStrategy:
    return st.lists(elem, min_size=lo, max_size=hi).map(tuple)


def _opt(elem: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(st.none(), elem)


# types: T?? has no spelling, so an optional wraps a non-optional type
base_type = st.deferred(lambda: st.one_of(
    st.builds(A.SimpleType, st.one_of(ident, st.just("player"))),
    st.builds(A.GenericType, ident, _tup(type_expr, 1, 2)),
))
type_expr = st.deferred(lambda: st.one_of(base_type, st.builds(A.OptionalType, base_type)))

leaf_expr = st.one_of(
    st.builds(A.IntLit, nat),
    st.builds(A.StrLit, text),
    st.builds(A.BoolLit, st.booleans()),
    st.builds(A.NoneLit),
    st.builds(A.Name, st.one_of(ident, st.just("players"))),
)


def _extend(sub: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.builds(A.ListLit, _tup(sub)),
        st.builds(A.ListComp, sub, ident, sub, _opt(sub)),
        st.builds(A.MapLit, _tup(st.builds(A.Entry, sub, sub))),
        st.builds(A.IfExpr, sub, sub, sub),
        st.builds(A.Or, sub, sub),
        st.builds(A.And, sub, sub),
        st.builds(A.Not, sub),
        st.builds(A.Compare, st.sampled_from(["==", "!=", "<=", ">=", "<", ">"]), sub, sub),
        st.builds(A.In, sub, sub, st.booleans()),
        st.builds(A.Range, sub, sub),
        st.builds(A.BinOp, st.sampled_from(["+", "-", "*", "/", "%"]), sub, sub),
        st.builds(A.Neg, sub),
        st.builds(A.Field, sub, ident),
        st.builds(A.Index, sub, sub),
        st.builds(A.Call, ident, _tup(sub)),
        st.builds(A.GenCall, ident, sub, ident, sub, _opt(sub)),
    )


expr = st.recursive(leaf_expr, _extend, max_leaves=10)


def _extend_ops(sub: st.SearchStrategy) -> st.SearchStrategy:
    """Operators only: deep mixes of precedence levels, to exercise the parentheses."""
    return st.one_of(
        st.builds(A.IfExpr, sub, sub, sub),
        st.builds(A.Or, sub, sub),
        st.builds(A.And, sub, sub),
        st.builds(A.Not, sub),
        st.builds(A.Compare, st.sampled_from(["==", "<"]), sub, sub),
        st.builds(A.In, sub, sub, st.booleans()),
        st.builds(A.Range, sub, sub),
        st.builds(A.BinOp, st.sampled_from(["+", "-", "*", "%"]), sub, sub),
        st.builds(A.Neg, sub),
        st.builds(A.Field, sub, st.just("f")),
        st.builds(A.Index, sub, sub),
    )


operator_expr = st.recursive(
    st.one_of(st.builds(A.Name, st.sampled_from(["a", "b", "c"])), st.builds(A.IntLit, small_nat)),
    _extend_ops, max_leaves=12)
small_expr = st.recursive(leaf_expr, _extend, max_leaves=4)

lv_step = st.one_of(st.builds(A.LvField, ident), st.builds(A.LvIndex, small_expr))
lvalue = st.one_of(
    st.builds(A.LValue, ident, _tup(lv_step, 0, 2)),
    # a place that starts with a call: `first(players).points`, at least one step
    st.builds(lambda c, steps: A.LValue(c.name, steps, call=c),
              st.builds(A.Call, ident, _tup(small_expr, 0, 2)), _tup(lv_step, 1, 2)),
)
choice_kind = st.one_of(st.builds(A.ChoiceOne, small_expr),
                        st.builds(A.ChoiceSubset, small_expr, small_expr, small_expr))
choose = st.builds(A.Choose, small_expr, choice_kind, st.booleans(), _opt(text))
rhs = st.one_of(
    small_expr,
    choose,
    st.builds(A.Simultaneous, ident, small_expr, choose),
    st.builds(A.Roll, small_expr),
    st.builds(A.RandomPick, small_expr),
    st.builds(A.Draw, lvalue),
)

simple_stmt = st.one_of(
    st.builds(A.Let, ident, rhs),
    st.builds(A.Assign, lvalue, st.sampled_from(["=", "+=", "-="]), rhs),
    st.builds(A.Move, small_expr, lvalue, lvalue),
    st.builds(A.Add, small_expr, lvalue),
    st.builds(A.Remove, small_expr, lvalue),
    st.builds(A.Shuffle, lvalue),
    st.builds(A.Emit, ident, _tup(small_expr)),
    st.builds(A.CallStmt, ident, _tup(small_expr)),
    st.builds(A.Return, _opt(small_expr)),
    st.builds(A.Return, st.none()),
    st.builds(A.Break),
    st.builds(A.EndGame),
    st.builds(A.Log, _tup(small_expr, 1, 3)),
)


def _extend_stmt(sub: st.SearchStrategy) -> st.SearchStrategy:
    body = st.builds(A.Block, _tup(sub, 0, 3))
    return st.one_of(
        st.builds(A.If, small_expr, body, _tup(st.builds(A.Elif, small_expr, body), 0, 2),
                  _opt(body)),
        st.builds(A.For, ident, small_expr, _opt(small_expr), body),
        st.builds(A.Repeat, small_expr, body),
        st.builds(A.While, small_expr, _opt(small_nat), body),
    )


stmt = st.recursive(simple_stmt, _extend_stmt, max_leaves=5)
block = st.builds(A.Block, _tup(stmt, 0, 3))

params = _tup(st.builds(A.Param, ident, type_expr), 0, 3)
field_decl = st.builds(A.FieldDecl, ident, type_expr, _opt(small_expr),
                       st.sampled_from(["public", "owner", "secret"]))
decl = st.one_of(
    st.builds(A.GameDecl, text, small_nat, small_nat),
    st.builds(A.UseDecl, text),
    st.builds(A.EnumDecl, ident, _tup(ident, 1, 4)),
    st.builds(A.ConstDecl, ident, _opt(type_expr), expr),  # the parser always says "const"
    st.builds(A.RecordDecl, ident, _tup(field_decl)),
    st.builds(A.PlayerState, _tup(field_decl)),
    st.builds(A.TableState, _tup(field_decl)),
    st.builds(A.EventDecl, ident, params),
    st.builds(A.SetupDecl, block),
    st.builds(A.RoundDecl, ident, _opt(small_nat), _tup(st.builds(A.PhaseDecl, ident, block), 0, 2)),
    st.builds(A.ProcDecl, ident, params, _opt(type_expr), block),
    st.builds(A.FnDecl, ident, params, type_expr, expr),
    st.builds(A.TriggerDecl, ident, _tup(ident), _opt(ident), _opt(small_expr), block),
    st.builds(A.ActionDecl, ident, _tup(st.builds(A.Param, ident, type_expr), 1, 2),
              _opt(small_expr), block),
    st.builds(A.InvariantDecl, text, expr),
    st.builds(A.EndDecl, ident, expr),
    st.builds(A.ScoreDecl, ident, expr),
    st.builds(A.TiebreakDecl, ident, expr),
)
rulebook = st.builds(A.Rulebook, _tup(decl, 0, 4))

_SETTINGS = settings(max_examples=200, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@_SETTINGS
@given(expr)
def test_random_expression_round_trips(e: A.Expr) -> None:
    rb = A.Rulebook((A.ConstDecl("c", None, e),))
    _assert_round_trip(rb)


@_SETTINGS
@given(operator_expr)
def test_random_operator_mix_round_trips(e: A.Expr) -> None:
    rb = A.Rulebook((A.ConstDecl("c", None, e),))
    _assert_round_trip(rb)


@_SETTINGS
@given(block)
def test_random_statements_round_trip(body: A.Block) -> None:
    _assert_round_trip(A.Rulebook((A.SetupDecl(body),)))


@_SETTINGS
@given(rulebook)
def test_random_rulebook_round_trips(rb: A.Rulebook) -> None:
    _assert_round_trip(rb)


@settings(max_examples=300, deadline=None)
@given(text)
def test_string_escaping_round_trips(s: str) -> None:
    assert _expr_of(escape_string(s)) == A.StrLit(s)
