"""Tests for the canonical printer (dsl/fmt.py): round trips through the parser.

The contract: for every text that parses, ``parse(fmt(parse(x))) == parse(x)`` (spans aside)
and ``fmt`` is idempotent.  Checked on every rulebook in the repository and on random ASTs.
And ``fmt`` keeps every comment (dsl/fmt_comments.py): the citations of the shipped rulebooks
and their ``# allow CODE: reason`` lines, which must still allow their warnings afterwards.
"""
from __future__ import annotations

import re
import shutil
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mercator.dsl import ast as A
from mercator.dsl import fmt_comments
from mercator.dsl.fmt import escape_string, format_decl, format_expr, format_rulebook
from mercator.dsl.loader import load
from mercator.dsl.fmt_comments import WIDTH
from mercator.dsl.parser import KEYWORDS, comments, parse

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


def test_empty_statements_are_dropped_and_comments_only_when_not_given() -> None:
    src = "# hello\nsetup { ; x = 1 ; # trailing\n }\n"
    rb = _parse_ok(src)
    assert format_rulebook(rb) == "setup {\n  x = 1\n}\n"
    assert format_rulebook(rb, comments(src)) == "# hello\nsetup {\n  x = 1  # trailing\n}\n"


def test_table_keyword_is_kept_when_the_tree_says_so() -> None:
    decl = A.ConstDecl("t", None, A.IntLit(1), keyword="table")
    assert format_rulebook(A.Rulebook((decl,))) == "table t = 1\n"


def test_empty_rulebook() -> None:
    assert format_rulebook(A.Rulebook(())) == ""


def test_choose_subset_round_trips() -> None:
    rb = _parse_ok('setup { let x = choose p subset of xs size 1 + n..max(2, n) with pass }')
    assert "size 1 + n..max(2, n) with pass" in _assert_round_trip(rb)


# ------------------------------------------------------------------ comments
SHIPPED = sorted((ROOT / "rulebooks").glob("**/*.rules"))


def _fmt(text: str) -> str:
    """What `mercator fmt` prints for text."""
    return format_rulebook(_parse_ok(text), comments(text))


def _comment_texts(text: str) -> list[str]:
    return [c.text.strip() for c in comments(text)]


def test_every_shipped_rulebook_is_covered() -> None:
    names = {p.relative_to(ROOT / "rulebooks").as_posix() for p in SHIPPED}
    assert {"manila.rules", "genoa.rules", "lib/auction.rules",
            "variants/manila_pirates.rules"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_fmt_of_a_shipped_rulebook_keeps_every_comment(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    out = _fmt(text)
    assert _comment_texts(out) == _comment_texts(text)     # the same comments, in order
    assert len(_comment_texts(text)) > 0                   # every rulebook cites its sources
    assert _parse_ok(out) == _parse_ok(text)
    assert _fmt(out) == out, "fmt is not idempotent"


def test_allow_lines_still_allow_their_warnings_after_fmt(tmp_path: Path) -> None:
    """`# allow CODE: reason` must stay on, or right above, the line its warning points at."""
    copy = tmp_path / "rulebooks"
    shutil.copytree(ROOT / "rulebooks", copy)
    for p in copy.glob("**/*.rules"):
        p.write_text(_fmt(p.read_text(encoding="utf-8")), encoding="utf-8")
    allowed = 0
    for path in SHIPPED:
        before = load(str(path)).diagnostics
        after = load(str(copy / path.relative_to(ROOT / "rulebooks"))).diagnostics
        assert Counter((d.code, d.severity, d.message) for d in after) == \
            Counter((d.code, d.severity, d.message) for d in before), path
        allowed += sum(1 for d in before if "(allowed: " in d.message)
    assert allowed >= 5          # the shipped rulebooks do allow warnings: this checks something


@pytest.mark.parametrize("src, canonical", [
    # a comment between statements in a block, and one at the end of the block before '}'
    ("setup {\n  x = 1\n    # then y\n  y = 2\n  # the end\n}\n",
     "setup {\n  x = 1\n  # then y\n  y = 2\n  # the end\n}\n"),
    # a trailing comment after a statement, and after a block's head and its '}'
    ("setup { x = 1      # one\n for p in players {   # each\n  y = 2 }  # done\n}\n",
     "setup {\n  x = 1  # one\n  for p in players {  # each\n    y = 2\n  }  # done\n}\n"),
    # at the end of the file, after a blank line or not
    ("const a = 1\n# end\n", "const a = 1\n\n# end\n"),
    ("const a = 1\n\n\n# end\n\n# really\n", "const a = 1\n\n# end\n\n# really\n"),
    # a file of comments only
    ("# just\n#   notes\n", "# just\n#   notes\n"),
    # top level: a group keeps the blank line the source had before the declaration
    ("# header\n\n# about a\nconst a = 1\n# about b\nconst b = 2\n",
     "# header\n\n# about a\nconst a = 1\n\n# about b\nconst b = 2\n"),
    # an empty block with a comment inside stays open; a trailing one keeps it '{}'
    ("setup {\n  if a {\n    # nothing yet\n  }\n  if b {\n  }   # nor here\n}\n",
     "setup {\n  if a {\n    # nothing yet\n  }\n  if b {}  # nor here\n}\n"),
    # if / elif / else: comments at the end of each branch, and on the '} else {' line
    ("setup {\n if a {\n  x = 1\n  # a done\n } elif b { # b\n  x = 2\n }\n else {\n"
     "  # otherwise\n }\n}\n",
     "setup {\n  if a {\n    x = 1\n    # a done\n  } elif b {  # b\n    x = 2\n"
     "  } else {\n    # otherwise\n  }\n}\n"),
    # fields, and a comment before the '}' of a player block
    ("player {\n  gold: int = 3   # seed: 3 gold\n  # the hand\n  hand: list<int> owner\n"
     "  # nothing else\n}\n",
     "player {\n  gold: int = 3  # seed: 3 gold\n  # the hand\n  hand: list<int> owner\n"
     "  # nothing else\n}\n"),
    # inside a construct printed on one line: before it, except at the end of its last line
    ("setup {\n  let x = choose p one of [1, 2]  # the choice\n"
     "     prompt \"pick\"   # its prompt\n}\n",
     "setup {\n  # the choice\n  let x = choose p one of [1, 2] prompt \"pick\"  # its prompt\n}\n"),
    # a '#' inside a string is no comment; a comment holding quotes is one
    ('const s = "a # b"  # say "hi"\n', 'const s = "a # b"  # say "hi"\n'),
    # replace / extend keep the comments of the declaration they wrap
    ("# why\nreplace proc f() { # head\n  x = 1 # one\n}\n",
     "# why\nreplace proc f() {  # head\n  x = 1  # one\n}\n"),
    # a round: comments between phases and at its end
    ("round r {\n  # first\n  phase a { x = 1 }\n  phase b {}  # empty\n  # last\n}\n",
     "round r {\n  # first\n  phase a {\n    x = 1\n  }\n  phase b {}  # empty\n  # last\n}\n"),
])
def test_comment_placement(src: str, canonical: str) -> None:
    assert _fmt(src) == canonical
    assert _fmt(canonical) == canonical
    assert _comment_texts(canonical) == _comment_texts(src)


def test_a_table_with_comments_inside_keeps_its_rows() -> None:
    src = ("table board: list<int> = [   # PLACEHOLDER\n"
           "  1,  2,  3,   # row 1\n"
           "  # the middle row\n"
           "  4,  5,  6,   # row 2\n"
           "]\n"
           "table prices = {a: 1,\n  b: 2}   # a map without comments inside: one line\n")
    out = _fmt(src)
    assert out == ("table board: list<int> = [  # PLACEHOLDER\n"
                   "  1, 2, 3,  # row 1\n"
                   "  # the middle row\n"
                   "  4, 5, 6,  # row 2\n"
                   "]\n\n"
                   "table prices = {a: 1, b: 2}  # a map without comments inside: one line\n")
    assert _fmt(out) == out and _parse_ok(out) == _parse_ok(src)
    assert format_rulebook(_parse_ok(src)) == ("table board: list<int> = [1, 2, 3, 4, 5, 6]\n\n"
                                               "table prices = {a: 1, b: 2}\n")


def test_comments_do_not_change_the_tree() -> None:
    src = "# a\nconst x = 1  # b\nsetup {\n  # c\n  x = 2  # d\n}\n"
    bare = "const x = 1\nsetup {\n  x = 2\n}\n"
    assert _parse_ok(src) == _parse_ok(bare)


def test_comments_are_read_with_their_positions() -> None:
    src = '\ufeffconst a = "#no"   # yes \r\n  # own\r\n'
    assert [(c.line, c.col, c.text, c.own_line) for c in comments(src)] == \
        [(1, 19, "# yes", False), (2, 3, "# own", True)]


def test_format_decl_shows_the_comments_of_that_declaration_only() -> None:
    """`mercator diff` prints one declaration out of its file, with its own comments."""
    src = ("const a = 1  # of a\n"
           "\n"
           "# seed 1: about b\n"
           "# (a second line)\n"
           "proc b() {\n  x = 1  # one\n  # the end\n}\n"
           "# about c\n"
           "player {\n  gold: int  # gold\n  # the hand\n  hand: int\n}\n")
    rb = _parse_ok(src)
    cs = comments(src)
    a, b, c = rb.items
    assert format_decl(a, cs) == "const a = 1  # of a"
    assert format_decl(b, cs) == ("# seed 1: about b\n# (a second line)\nproc b() {\n  x = 1  # one\n"
                                  "  # the end\n}")
    assert format_decl(b) == "proc b() {\n  x = 1\n}"
    assert isinstance(c, A.PlayerState)
    hand = A.PlayerState((c.fields[1],), span=c.span)       # as diff shows one field of many
    assert format_decl(hand, cs) == "# about c\nplayer {\n  # the hand\n  hand: int\n}"


def test_mercator_fmt_and_diff_print_the_comments(capsys: pytest.CaptureFixture[str]) -> None:
    from mercator.interpreter.cli.main import main
    manila = ROOT / "rulebooks" / "manila.rules"
    assert main(["fmt", str(manila)]) == 0
    out = capsys.readouterr().out
    assert _comment_texts(out) == _comment_texts(manila.read_text(encoding="utf-8"))
    pirates = ROOT / "rulebooks" / "variants" / "manila_pirates.rules"
    assert main(["diff", str(manila), str(pirates)]) == 0
    out = capsys.readouterr().out
    # the replaced procedure keeps its citation and its `# allow`; the base's keeps its own
    assert "  +           # allow W292: the boat is full (no room)" in out
    assert "  +           # 第二位海盜不能取代剛剛登船的海盜船長" in out
    assert "  - # seed 003 §海盜登船" in out
    assert "  +   boarded_seat: int = -1  # and his seat on it" in out


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
    st.builds(A.Draw, lvalue, _opt(small_expr)),
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
    st.builds(A.ScoreDecl, ident, expr, st.sampled_from([None, "lowest", "highest"])),
    st.builds(A.TiebreakDecl, ident, expr, st.sampled_from([None, "lowest", "highest"])),
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


@_SETTINGS
@given(rulebook, st.lists(st.tuples(st.integers(0, 60), st.booleans()), max_size=8))
def test_random_comments_are_kept_in_order(rb: A.Rulebook, spots: list[tuple[int, bool]]) -> None:
    """Comments put anywhere a line starts or ends in a printed rulebook survive fmt, in order."""
    lines = format_rulebook(rb).split("\n")[:-1]      # (a string may hold a '\r')
    for n, (i, own) in enumerate(sorted(spots)):
        i = min(i, len(lines))
        if own or i == len(lines) or not lines[i].strip():
            lines.insert(i, f"# c{n}")
        else:
            lines[i] += f"  # c{n}"
    text = "\n".join(lines) + "\n"
    out = _fmt(text)
    assert _comment_texts(out) == _comment_texts(text)
    assert _parse_ok(out) == rb
    assert _fmt(out) == out, "fmt is not idempotent:\n" + text


# ------------------------------------------------------------------ line width
# fmt keeps its lines within WIDTH columns (dsl/fmt_comments.py), breaking a long line at its
# outermost operators, after the commas of argument lists and literals and before the `for` /
# `if` of a comprehension, continuation lines 2 deeper than the line they continue.  A line is
# longer only where a single token forces it (a long string or name, see below) or a comment
# does (comments are kept as written, a trailing one after the code it follows).
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z_0-9]*')


def _code_lines(out: str) -> list[tuple[int, str]]:
    """The numbered lines of ``out`` without their comments (comment-only lines left out)."""
    cut = {c.line: c.col for c in comments(out)}
    lines = []
    for n, line in enumerate(out.split("\n"), 1):
        code = line[:cut[n] - 1].rstrip() if n in cut else line
        if code.strip():
            lines.append((n, code))
    return lines


def _forced_by_a_token(code: str) -> bool:
    """A line no layout can fit: it holds a token as long as half the width."""
    return any(len(t) >= WIDTH // 2 for t in _TOKEN.findall(code))


def test_width_is_that_of_the_shipped_rulebooks() -> None:
    assert WIDTH == 100


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_fmt_of_a_shipped_rulebook_keeps_within_the_width(path: Path) -> None:
    out = _fmt(path.read_text(encoding="utf-8"))
    long = [(n, code) for n, code in _code_lines(out) if len(code) > WIDTH]
    assert all(_forced_by_a_token(code) for _, code in long), long
    assert _fmt(out) == out, "fmt is not idempotent"


def test_an_over_long_line_is_forced_by_one_token() -> None:
    name = "x" * 120
    out = _fmt(f"fn f() -> int = {name} + {name}\n")
    assert out == f"fn f() -> int =\n  {name}\n    + {name}\n"
    assert all(len(code) > WIDTH and _forced_by_a_token(code) for _, code in _code_lines(out)[1:])


def _wrapped(src: str, canonical: str) -> None:
    out = _fmt(src)
    assert out == canonical
    assert _fmt(out) == out and _parse_ok(out) == _parse_ok(src)
    assert all(len(line) <= WIDTH for line in out.split("\n"))
    assert format_rulebook(_parse_ok(src)).count("\n") == canonical.count("\n")


def test_a_long_and_chain_breaks_before_each_and() -> None:
    cond = " and ".join(f"p.stock_{i} >= limit_{i}" for i in range(6))
    _wrapped(f"fn ok(p: player) -> bool = {cond}\n",
             "fn ok(p: player) -> bool =\n  p.stock_0 >= limit_0\n"
             + "".join(f"    and p.stock_{i} >= limit_{i}\n" for i in range(1, 6)))


def test_a_long_condition_of_a_block_head_is_set_apart_from_the_body() -> None:
    cond = " or ".join(f"ready(p, something_long_{i})" for i in range(4))
    _wrapped(f"setup {{ for p in players {{ if {cond} {{ x = 1 }} }} }}\n",
             "setup {\n  for p in players {\n"
             "    if ready(p, something_long_0)\n"
             "        or ready(p, something_long_1)\n"
             "        or ready(p, something_long_2)\n"
             "        or ready(p, something_long_3) {\n"
             "      x = 1\n    }\n  }\n}\n")


def test_a_long_call_breaks_after_its_commas() -> None:
    args = ", ".join(f"argument_number_{i}" for i in range(7))
    _wrapped(f"setup {{ let total = combine({args}) }}\n",
             "setup {\n  let total = combine(argument_number_0, argument_number_1, argument_number_2,"
             " argument_number_3,\n    argument_number_4, argument_number_5, argument_number_6)\n}\n")


def test_a_long_comprehension_breaks_before_for_and_if() -> None:
    _wrapped("fn good_ones(p: player) -> list<Good> = [some_function_of(g, p.holdings) for g in "
             "all_the_goods_of_the_game if g in p.wanted and price_of(g) <= p.money]\n",
             "fn good_ones(p: player) -> list<Good> =\n"
             "  [some_function_of(g, p.holdings) for g in all_the_goods_of_the_game\n"
             "    if g in p.wanted and price_of(g) <= p.money]\n")


def test_a_long_list_literal_fills_its_lines() -> None:
    items = ", ".join(f"item_{i:02}" for i in range(20))
    _wrapped(f"table order: list<Thing> = [{items}]\n",
             "table order: list<Thing> = [item_00, item_01, item_02, item_03, item_04, item_05,"
             " item_06, item_07,\n"
             "  item_08, item_09, item_10, item_11, item_12, item_13, item_14, item_15, item_16,"
             " item_17, item_18,\n"
             "  item_19]\n")


def test_a_long_if_expression_lines_its_else_up_with_its_if() -> None:
    _wrapped("fn cost(s: Space) -> int = if s in boat_spaces then seat_costs[space_good[s]] "
             "else if s == pirate then pirate_cost_of_the_game else fixed_space_cost[s]\n",
             "fn cost(s: Space) -> int =\n"
             "  if s in boat_spaces then seat_costs[space_good[s]]\n"
             "  else if s == pirate then pirate_cost_of_the_game\n"
             "  else fixed_space_cost[s]\n")


def test_a_long_choose_puts_its_prompt_on_the_next_line() -> None:
    _wrapped('setup { let g = choose first(players) one of [h for h in Good if h in stock] with pass '
             'prompt "mortgage a share to raise the money" }\n',
             "setup {\n  let g = choose first(players) one of [h for h in Good if h in stock]"
             " with pass\n    prompt \"mortgage a share to raise the money\"\n}\n")


def test_comments_on_a_wrapped_construct() -> None:
    """One at the end of its last line stays there; one inside goes on a line above it."""
    src = ("invariant \"stock\":  # the stock\n"
           "  all(supply[g] + sum(p.shares[g] + p.mortgaged[g] for p in players) # inside\n"
           "      == shares_per_good_and_some_more_words for g in all_the_goods)  # the end\n")
    out = _fmt(src)
    assert out == ("# the stock\n"
                   "# inside\n"
                   "invariant \"stock\":\n"
                   "  all(supply[g] + sum(p.shares[g] + p.mortgaged[g] for p in players)\n"
                   "      == shares_per_good_and_some_more_words for g in all_the_goods)"
                   "  # the end\n")
    assert _fmt(out) == out and _comment_texts(out) == _comment_texts(src)


def test_a_wrapped_row_of_a_table_with_comments_stays_rows() -> None:
    row = ", ".join(f"name_{i:02}" for i in range(14))
    src = f"table t = [  # the rows\n  {row},  # first\n  a, b,\n]\n"
    out = _fmt(src)
    assert out == ("table t = [  # the rows\n"
                   "  name_00, name_01, name_02, name_03, name_04, name_05, name_06, name_07,"
                   " name_08, name_09, name_10,\n"
                   "  name_11, name_12, name_13,  # first\n"
                   "  a, b,\n]\n")
    assert _fmt(out) == out and _parse_ok(out) == _parse_ok(src)


def test_format_decl_breaks_lines_only_when_given_a_width() -> None:
    """`mercator diff` and the designer's changes quote a rule on one line, as before."""
    src = "fn f() -> int = " + " + ".join(f"value_number_{i}" for i in range(12)) + "\n"
    (d,) = _parse_ok(src).items
    assert format_decl(d) == src.rstrip("\n")
    assert format_decl(d, width=WIDTH) + "\n" == _fmt(src) != src


def test_format_expr_stays_on_one_line() -> None:
    e = _expr_of(" + ".join(f"value_number_{i}" for i in range(12)))
    text = format_expr(e)
    assert "\n" not in text and len(text) > WIDTH and _expr_of(text) == e
    assert text.isprintable()


def test_a_string_holding_the_layout_marks_is_kept() -> None:
    """fmt marks its break points with noncharacters in the text; a string may hold them."""
    marks = "".join(chr(c) for c in range(0xFDD0, 0xFDD6))
    src = f'const s = ["{marks}", {", ".join(["a_long_name_here"] * 8)}]\n'
    out = _fmt(src)
    assert marks in out and _parse_ok(out) == _parse_ok(src) and _fmt(out) == out
    assert "\n  a_long_name_here" in out


@contextmanager
def _width(n: int) -> Iterator[None]:
    saved = fmt_comments.WIDTH
    fmt_comments.WIDTH = n
    try:
        yield
    finally:
        fmt_comments.WIDTH = saved


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_narrow_widths_keep_the_rules_and_comments(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for n in (30, 60):
        with _width(n):
            out = _fmt(text)
            assert _parse_ok(out) == _parse_ok(text)
            assert _comment_texts(out) == _comment_texts(text)
            assert _fmt(out) == out, "fmt is not idempotent"


@_SETTINGS
@given(rulebook, st.integers(8, 40),
       st.lists(st.tuples(st.integers(0, 60), st.booleans()), max_size=6))
def test_random_rulebooks_wrapped_narrow_round_trip(rb: A.Rulebook, n: int,
                                                     spots: list[tuple[int, bool]]) -> None:
    """Every line broken as far as it goes, with comments put in anywhere: same tree, same
    comments, idempotent."""
    with _width(n):
        text = _assert_round_trip(rb)
        lines = text.split("\n")[:-1]
        for k, (i, own) in enumerate(sorted(spots)):
            i = min(i, len(lines))
            if own or i == len(lines) or not lines[i].strip():
                lines.insert(i, f"# c{k}")
            else:
                lines[i] += f"  # c{k}"
        src = "\n".join(lines) + "\n"
        out = _fmt(src)
        assert _comment_texts(out) == _comment_texts(src)
        assert _parse_ok(out) == rb
        assert _fmt(out) == out, "fmt is not idempotent:\n" + src
