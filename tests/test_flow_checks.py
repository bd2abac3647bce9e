"""W292 (a decision whose options may be empty) and W293 (a conservation law broken on its face):
what each check accepts as proof, what it reports, and `# allow CODE: reason`.

The broken fixtures (tests/fixtures/broken/w292_*, w293_*) show the warnings; these tests show
that the ways rules usually say "there is an option" or "the total stays the same" are understood,
so real rulebooks check clean without noise.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from mercator.dsl.loader import load, load_text

ROOT = Path(__file__).resolve().parent.parent

HEAD = """game "T" players 2..3
enum Colour { red, blue }
player {
  hand: list<int> = [1, 2, 3]
  coins: int = 5
}
table {
  bank: int = 85
  pile: list<int> = []
  top: int = 2
}
"""
TAIL = "\nscore p: p.coins + len(p.hand) + len(pile) + top + bank\n"


def codes(body: str, code: str) -> list[tuple[int, int]]:
    res = load_text(HEAD + body + TAIL, "t.rules")
    assert res.ok, [d.message for d in res.diagnostics if d.is_error]
    return [(d.span.line - HEAD.count("\n"), d.span.col) for d in res.diagnostics
            if d.code == code and d.severity == "warning"]


def round_of(stmts: str) -> str:
    return "round r limit 2 {\n  phase main {\n" + stmts + "\n  }\n}\n"


# ------------------------------------------------------------------ W292: proofs it accepts
@pytest.mark.parametrize("stmts", [
    # a guard on the very collection
    "for p in players { if p.hand != [] { let c = choose p one of p.hand  remove c from p.hand } }",
    "for p in players { if len(p.hand) > 0 { let c = choose p one of p.hand  remove c from p.hand } }",
    "for p in players { if count(p.hand) >= 1 { let c = choose p one of p.hand  top = c } }",
    "for p in players { if 0 < len(p.hand) { let c = choose p one of p.hand  top = c } }",
    "for p in players { if not (p.hand == []) { let c = choose p one of p.hand  top = c } }",
    "for p in players { if 2 in p.hand { let c = choose p one of p.hand  top = c } }",
    # a 'where' filter, a while condition
    "for p in players where len(p.hand) > 0 { let c = choose p one of p.hand  top = c }",
    "for p in players { while len(p.hand) > top limit 5 { let c = choose p one of p.hand\n"
    "  remove c from p.hand } }",
    # the filtered list is guarded by any(...) or count(...) with the same condition
    "for p in players { if any(x > top for x in p.hand) {\n"
    "  let c = choose p one of [y for y in p.hand if y > top]  top = c } }",
    "for p in players { if count(x > top for x in p.hand) > 0 {\n"
    "  let c = choose p one of [y for y in p.hand if y > top]  top = c } }",
    # a local bound to the options, guarded by name
    "for p in players { let opts = [x for x in p.hand if x > top]\n"
    "  if len(opts) > 0 { let c = choose p one of opts  top = c } }",
    "for p in players { let opts = [x for x in p.hand if x > top]\n"
    "  if len(opts) > 0 { let c = choose p one of [x for x in p.hand if x > top]  top = c } }",
    # collections that are never empty
    "for p in players { let c = choose p one of Colour  log c }",
    "for p in players { let c = choose p one of [1, 2]  top = c }",
    "for p in players { let c = choose p one of 1..3  top = c }",
    "for p in players { let c = choose p one of p.hand + [0]  top = c }",
    "for p in players { let c = choose p one of (if top > 1 then [1] else [2, 3])  top = c }",
    "for p in players { let c = choose p one of clockwise_from(p)  log c }",
    "for p in players { let c = choose p one of [x * 2 for x in 1..3]  top = c }",
    # a decision that may pass, a subset that may be empty
    "for p in players { let c = choose p one of p.hand with pass  log c }",
    "for p in players { let c = choose p subset of p.hand size 0..2  log c }",
    # a subset of a size the collection is known to have
    "for p in players { if len(p.hand) >= 2 { let c = choose p subset of p.hand size 2..2\n"
    "  log c } }",
    "for p in players { let n = min(2, len(p.hand))\n"
    "  let c = choose p subset of p.hand size n..n  log c }",
    # the item was just put there
    "for p in players { let x = top  add x to pile  let c = choose p one of pile  top = c }",
    # an early exit
    "for p in players { if len(p.hand) == 0 { break }  let c = choose p one of p.hand  top = c }",
])
def test_w292_accepts_what_the_rules_say(stmts: str) -> None:
    assert codes(round_of(stmts), "W292") == []


@pytest.mark.parametrize("stmts", [
    "for p in players { let c = choose p one of p.hand  top = c }",
    # the guard is about another collection
    "for p in players { if len(pile) > 0 { let c = choose p one of p.hand  top = c } }",
    # the guard is in the other branch
    "for p in players { if len(p.hand) > 0 { top = 0 } else { let c = choose p one of p.hand\n"
    "  top = c } }",
    # a filter the guard does not match
    "for p in players { if any(x > 0 for x in p.hand) {\n"
    "  let c = choose p one of [y for y in p.hand if y > top]  top = c } }",
    # a disjunction proves nothing about either side
    "for p in players { if len(p.hand) > 0 or top > 0 { let c = choose p one of p.hand\n"
    "  top = c } }",
    # enough for one, not for two
    "for p in players { if len(p.hand) > 0 { let c = choose p subset of p.hand size 2..2\n"
    "  log c } }",
    # an empty literal, a range that may be empty
    "for p in players { let c = choose p one of 1..top  top = c }",
])
def test_w292_reports_what_the_rules_leave_open(stmts: str) -> None:
    assert len(codes(round_of(stmts), "W292")) == 1


def test_w292_follows_procedures_to_their_callers() -> None:
    proc = "proc give(p: player) {\n  let c = choose p one of p.hand\n  move c from p.hand to pile\n}\n"
    guarded = proc + round_of("for p in players where len(p.hand) > 0 { give(p) }")
    assert codes(guarded, "W292") == []
    early = proc + round_of("for p in players { if p.hand == [] { break }\n give(p) }")
    assert codes(early, "W292") == []
    one_unguarded = proc + round_of("for p in players where len(p.hand) > 0 { give(p) }\n"
                                    "for p in players { give(p) }")
    assert codes(one_unguarded, "W292") == [(2, 27)]


def test_w292_follows_functions_into_their_bodies() -> None:
    fns = ("fn safe(p: player) -> list<int> = [0] + p.hand\n"
           "fn risky(p: player) -> list<int> = [x for x in p.hand if x > 1]\n")
    assert codes(fns + round_of("for p in players { let c = choose p one of safe(p)  top = c }"),
                 "W292") == []
    assert len(codes(fns + round_of("for p in players { let c = choose p one of risky(p)\n"
                                    "  top = c }"), "W292")) == 1


def test_w292_in_a_compound_decision_and_a_simultaneous_one() -> None:
    rec = "record Bid {\n  amount: int\n  colour: Colour\n}\n"
    ok = rec + round_of("for p in players { let b = choose p record Bid { amount: one of 0..3,\n"
                        "  colour: one of Colour }  top = b.amount }")
    assert codes(ok, "W292") == []
    bad = rec + round_of("for p in players { let b = choose p record Bid { amount: one of p.hand,\n"
                         "  colour: one of Colour }  top = b.amount }")
    assert len(codes(bad, "W292")) == 1
    sim = round_of("let m = simultaneous p in players: choose p one of p.hand\n  log m")
    assert len(codes(sim, "W292")) == 1


# ------------------------------------------------------------------ W293
LAW = 'invariant "100 coins": bank + sum(p.coins for p in players) == 100\n'


@pytest.mark.parametrize("stmts", [
    "for p in players { p.coins -= 1  bank += 1 }",
    "for p in players { bank -= 2\n  p.coins += 2 }",
    "for p in players { p.coins = 0 }",                   # a reset: direction unknown, not judged
    "for p in players { top += 1 }",                      # a field the law does not count
])
def test_w293_accepts_balanced_changes(stmts: str) -> None:
    assert codes(LAW + round_of(stmts), "W293") == []


def test_w293_folds_in_procedures_and_triggers() -> None:
    pay = "proc pay(p: player, n: int) {\n  p.coins -= n\n  bank += n\n}\n"
    assert codes(LAW + pay + round_of("for p in players { pay(p, 1) }"), "W293") == []
    half = "proc take(p: player) {\n  p.coins -= 1\n}\n"
    # one-sided helper, balanced by its caller: fine
    assert codes(LAW + half + round_of("for p in players { take(p)  bank += 1 }"), "W293") == []
    # one-sided helper, not balanced: reported where the change is
    assert codes(LAW + half + round_of("for p in players { take(p) }"), "W293") == [(3, 3)]
    trig = "event won(p: player)\non won(p) { p.coins += 1 }\n"
    assert codes(LAW + trig + round_of("for p in players { emit won(p) }"), "W293") == [(3, 13)]
    assert codes(LAW + trig + round_of("for p in players { emit won(p)  bank -= 1 }"), "W293") == []


def test_w293_reads_signs_of_both_sides_and_items() -> None:
    paid = 'invariant "paid out": sum(p.coins for p in players) == 10 * player_count + bank\n'
    # the bank counts what it paid: a payment raises both sides
    assert codes(paid + round_of("for p in players { p.coins += 1  bank += 1 }"), "W293") == []
    assert len(codes(paid + round_of("for p in players { p.coins += 1  bank -= 1 }"), "W293")) == 1
    cards = 'invariant "cards": len(pile) + sum(len(p.hand) for p in players) == 3 * player_count\n'
    assert codes(cards + round_of("for p in players where p.hand != [] {\n"
                                  "  move first(p.hand) from p.hand to pile }"), "W293") == []
    assert codes(cards + round_of("for p in players where p.hand != [] {\n"
                                  "  let c = first(p.hand)  remove c from p.hand  add c to pile }"),
                 "W293") == []
    assert len(codes(cards + round_of("for p in players where p.hand != [] {\n"
                                      "  remove first(p.hand) from p.hand }"), "W293")) == 1


def test_w293_only_for_equations() -> None:
    bound = 'invariant "no debt": all(p.coins >= 0 for p in players)\n'
    assert codes(bound + round_of("for p in players { p.coins += 1 }"), "W293") == []


# ------------------------------------------------------------------ allow comments
def test_allow_comment_turns_the_warning_into_a_note() -> None:
    body = round_of("for p in players {\n"
                    "  # allow W292: every player keeps at least one card (the score needs it)\n"
                    "  let c = choose p one of p.hand  top = c }")
    res = load_text(HEAD + body + TAIL, "t.rules")
    notes = [d for d in res.diagnostics if d.code == "W292"]
    assert len(notes) == 1 and notes[0].severity == "info"
    assert "allowed: every player keeps at least one card" in notes[0].message


@pytest.mark.parametrize("comment", [
    "# allow W292",                    # no reason: it does not count
    "# allow W293: wrong code",
    "# allow W292: a reason, but a blank line away\n",
])
def test_allow_comment_needs_the_code_a_reason_and_to_touch_the_line(comment: str) -> None:
    body = round_of("for p in players {\n  " + comment + "\n  let c = choose p one of p.hand\n"
                    "  top = c }")
    res = load_text(HEAD + body + TAIL, "t.rules")
    assert [d.severity for d in res.diagnostics if d.code == "W292"] == ["warning"]


# ------------------------------------------------------------------ the real rulebooks
RULEBOOKS = sorted((ROOT / "rulebooks").glob("*.rules")) + \
    sorted((ROOT / "rulebooks" / "variants").glob("*.rules"))


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in RULEBOOKS])
def test_real_rulebooks_have_no_flow_warnings(path: Path) -> None:
    res = load(str(path))
    assert res.ok
    assert [str(d.span) for d in res.diagnostics if d.severity == "warning"] == []


# ------------------------------------------------------------------ W251
@pytest.mark.parametrize("stmts", [
    "for p in players { if top > 1 { break }  top += 1 }",          # a conditional leave
    "for p in players { if true { top += 1 } }",
    "if top > 1 { top = 0 } elif top == 0 { top = 1 } else { top = 2 }",
    "let c = red  if c == red { top = 1 }",                          # not a constant condition
])
def test_w251_leaves_reachable_rules_alone(stmts: str) -> None:
    assert codes(round_of(stmts), "W251") == []


@pytest.mark.parametrize("stmts, where", [
    # both arms leave: the statement after the if never runs
    ("for p in players { if top > 1 { break } else { break }  top += 1 }", (3, 57)),
    ("if red == blue { top = 1 }", (3, 16)),                          # the block after the test
    ("if red != blue { top = 1 } else { top = 2 }", (3, 33)),         # the else
    ("if top > 1 { top = 0 } elif true or top > 5 { top = 1 } else { top = 2 }", (3, 62)),
    ("while not true limit 3 { top += 1 }", (3, 24)),
])
def test_w251_reports_what_never_runs(stmts: str, where: tuple[int, int]) -> None:
    assert codes(round_of(stmts), "W251") == [where]


def test_a_used_allow_comment_is_not_w221_and_an_unused_one_is() -> None:
    used = round_of("for p in players {\n  # allow W292: every player keeps a card\n"
                    "  let c = choose p one of p.hand  top = c }")
    assert codes(used, "W221") == []
    unused = round_of("for p in players {\n  # allow W292: every player keeps a card\n"
                      "  let c = choose p one of [1, 2]  top = c }")
    assert codes(unused, "W221") == [(4, 3)]


# ------------------------------------------------------------------ the seeded semantic bugs
# Each of these edits a real rulebook so an invariant breaks deep in a game (check --explore finds
# them; tests/test_semantic_bugs.py). Five of them also break a rule on its face, and the static
# checks point at the edited line before any game is played.
SEEDED = ROOT / "tests" / "fixtures" / "semantic_bugs"


@pytest.mark.parametrize("name, code, line", [
    ("die_haendler_sold_goods_vanish", "W293", 21),
    ("die_haendler_upkeep_paid_to_nobody", "W293", 21),
    ("genoa_tile_from_nowhere", "W293", 8),
    ("genoa_warehouse_goods_from_nowhere", "W293", 19),
    ("manila_insurer_without_mortgage", "W291", 20),
])
def test_static_checks_point_at_the_seeded_bug(name: str, code: str, line: int) -> None:
    res = load(str(SEEDED / f"{name}.rules"))
    assert res.ok
    found = [(d.code, d.span.line) for d in res.diagnostics
             if d.severity == "warning" and d.span.path.endswith(f"{name}.rules")]
    assert found == [(code, line)]


# ------------------------------------------------------------------ W292: ranges
NO_DEBT = 'invariant "no debt": all(p.coins >= 0 for p in players)\n'


@pytest.mark.parametrize("head, stmts", [
    (NO_DEBT, "for p in players { let c = choose p one of 0..p.coins  top = c }"),
    (NO_DEBT, "for p in players { let c = choose p one of 0..min(3, p.coins)  top = c }"),
    ("", "for p in players { let c = choose p one of 0..len(p.hand)  top = c }"),
    ("", "for p in players { if p.coins >= 2 { let c = choose p one of 0..p.coins  top = c } }"),
    ("", "for p in players { if p.coins >= top { let c = choose p one of top..p.coins\n"
         "  top = c } }"),
])
def test_w292_ranges_the_rules_keep_non_empty(head: str, stmts: str) -> None:
    assert codes(head + round_of(stmts), "W292") == []


@pytest.mark.parametrize("head, stmts", [
    ("", "for p in players { let c = choose p one of 0..p.coins  top = c }"),     # no invariant
    (NO_DEBT, "for p in players { let c = choose p one of 1..p.coins  top = c }"),  # 0 coins
    (NO_DEBT, "for p in players { let c = choose p one of 0..p.coins - 5  top = c }"),
    ('invariant "no debt": all(p.coins >= 0 for p in players if p != first(players))\n',
     "for p in players { let c = choose p one of 0..p.coins  top = c }"),
])
def test_w292_ranges_that_may_be_empty(head: str, stmts: str) -> None:
    assert len(codes(head + round_of(stmts), "W292")) == 1
