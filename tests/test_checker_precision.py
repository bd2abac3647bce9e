"""Issue 35 §5, checker precision: what `mercator check` accepts runs as documented, and what it
refuses it refuses with a message that says what is wrong.

1. A list or a map stored where a bag is expected becomes a bag (docs/language.md §3.6), in
   every compile path: the VM's ops, the fused code and the rollout, narrated or not.
2. W293 judges a change to a record's field only when the conservation law reads that field,
   so the order of the statements of a rule does not matter.
3. A reserved word where a name is expected is said to be reserved; where an expression goes
   on, the message says what is wrong there ('elif' in an if-expression).
4. A deal may read the size of a hidden field (public, §10.10), never what it holds (E151).
5. Every reference to a section of docs/language.md names a heading it has.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from mercator.dsl.loader import load_text
from mercator.interpreter.agents.base import resolve_chance
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine import program as program_module
from mercator.interpreter.engine.nodes import Chance
from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.state import State


def program(text: str) -> Program:
    res = load_text(text, "t.rules")
    assert res.ok, "\n".join(str(d) for d in res.diagnostics)
    assert not res.diagnostics, "\n".join(str(d) for d in res.diagnostics)
    return compile_program(res.rulebook)


# ------------------------------------------------ 1. a list or a map stored as a bag (§3.6)
# Each player chooses x (1 or 2), then y (0: [x], 1: [x, x, 3]). Every way a value is stored
# where a bag is expected puts one digit into the score.
AS_BAG = """game "T" players 2..2
record Hand { cards: bag<int> }
event counted(c: bag<int>)
const base: list<int> = [3, 3, 3]
table { start: bag<int> = base }
player { x: int  b: bag<int>  m: bag<int>  nest: list<bag<int>>  h: Hand  got: bag<int>
         viaproc: bag<int>  arg: int  fnv: int  fr: bag<int>  ev: int  sorted: list<bag<int>>
         ret: bag<int> }
fn heavy(c: bag<int>) -> int = c[3]
fn as_bag(xs: list<int>) -> bag<int> = xs
proc three_of(n: int) -> list<int> { return [n, n, n] }
proc pair(n: int) -> bag<int> {
  let ys = [n, n]
  return ys
}
proc take(p: player, c: bag<int>) { p.arg = count(c) }
on counted(c) { first(players).ev += count(c) }
round r limit 1 {
  phase main {
    for p in players {
      let x = choose p one of [1, 2]
      p.x = x
      let xs = [x, 3, 3]
      p.b = xs
      let tally: map<int, int> = {x: 2, 5: 0}
      p.m = tally
      let xss = [xs, [x]]
      p.nest = xss
      p.h = {cards: xs}
      p.got = choose p one of [[x], [x, x, 3]]
      let lb: bag<int> = three_of(x)
      p.viaproc = lb
      take(p, xs)
      p.fnv = heavy(xs)
      p.fr = as_bag(xs)
      emit counted(xs)
      p.sorted = sort(xss)
      p.ret = pair(x)
      add 4 to start
      log p, "holds", p.b, "and", p.got
    }
  }
}
score p: p.b[3]
  + 10 * (if 5 in p.m then 9 else p.m[p.x])
  + 100 * sum(count(c) for c in p.nest)
  + 1000 * p.h.cards[3]
  + 10000 * (3 * p.got[3] + p.got[p.x])
  + 100000 * p.viaproc[p.x]
  + 1000000 * p.arg
  + 10000000 * p.fnv
  + 100000000 * p.fr[3]
  + 1000000000 * (if p == first(players) then p.ev / 2 else 0)
  + 10000000000 * start[3]
  + 100000000000 * sum(c[3] for c in p.sorted)
  + 1000000000000 * count(p.ret)
"""


def expected_score(seat: int, x: int, y: int) -> int:
    """The score AS_BAG gives a seat that chose x (1 or 2) and then y (0 or 1)."""
    got = {x: 1} if y == 0 else {x: 2, 3: 1}
    digits = [2, 2, 4, 2, 3 * got.get(3, 0) + got[x], 3, 3, 2, 2, 3 if seat == 0 else 0, 3, 2, 2]
    return sum(d * 10 ** i for i, d in enumerate(digits))


def expected(s: State) -> tuple[int, ...]:
    """The scores of a finished AS_BAG game, from the options its players chose."""
    h = s.history           # P1's x, P1's y, P2's x, P2's y (option indices)
    return tuple(expected_score(seat, h[2 * seat] + 1, h[2 * seat + 1]) for seat in range(2))


def play_by_apply(prog: Program, seed: int, narrate: bool) -> State:
    s = prog.new_game(2, seed, narrate=narrate)
    rng = random.Random(seed)
    while not s.over:
        node = s.pending
        prog.apply(s, resolve_chance(s) if isinstance(node, Chance) else rng.randrange(node.count))
    return s


@pytest.fixture(scope="module")
def as_bag() -> Program:
    return program(AS_BAG)


@pytest.mark.parametrize("narrate", [False, True], ids=["plain", "narrated"])
@pytest.mark.parametrize("one_by_one", [False, True], ids=["fused", "ops"])
def test_a_list_or_map_stored_as_a_bag_is_one_when_played_by_apply(
        as_bag: Program, narrate: bool, one_by_one: bool) -> None:
    as_bag.coverage = set() if one_by_one else None     # the VM's ops one by one, or fused
    try:
        seen = set()
        for seed in range(12):
            s = play_by_apply(as_bag, seed, narrate)
            assert s.result.scores == expected(s)
            seen.add(tuple(s.history))
        assert len(seen) > 4                            # several choices were tried
    finally:
        as_bag.coverage = None


def test_a_list_stored_as_a_bag_is_narrated_as_a_bag(as_bag: Program) -> None:
    s = as_bag.new_game(2, 0, narrate=True)
    for idx in (0, 1, 1, 0):                            # P1: 1 then [1, 1, 3]; P2: 2 then [2]
        as_bag.apply(s, idx)
    text = "\n".join(str(m) for m in s.messages)
    assert "P1 holds {1, 3×2} and {1×2, 3}" in text
    assert "P2 holds {2, 3×2} and {2}" in text
    assert s.result.scores == (expected_score(0, 1, 1), expected_score(1, 2, 0))


@pytest.mark.parametrize("compiled", [True, False], ids=["rollout", "vm"])
def test_a_list_or_map_stored_as_a_bag_is_one_in_a_playout(
        as_bag: Program, compiled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(program_module, "COMPILED_ROLLOUT", compiled)
    for seed in range(12):
        s = as_bag.new_game(2, seed)
        as_bag.playout(s, random.Random(seed))
        assert s.over
        assert s.result.scores == expected(s)


def test_a_wrong_stored_type_is_still_refused() -> None:
    res = load_text(AS_BAG.replace("p.b = xs", "p.b = [xs]"), "t.rules")
    assert [d.code for d in res.diagnostics if d.severity == "error"] == ["E104"]


# ------------------------------------------------ 2. W293 reads what the law counts, in any order
BEANS = """game "Beans" players 2..2
enum Bean { red, blue }
record Plot { b: Bean  n: int }
player { hand: bag<Bean> = {red: 2, blue: 2}  plots: list<Plot> = [{b: red, n: 0}, {b: red, n: 0}] }
invariant "every bean": sum(count(p.hand) + sum(f.n for f in p.plots) for p in players) == 8
proc plant(p: player, i: int, c: Bean) {
BODY
}
round r limit 2 { phase sow {
  for p in players where count(p.hand) > 0 {
    let c = choose p one of distinct(items(p.hand))
    let i = choose p one of [0, 1]
    plant(p, i, c)
  }
} }
score p: sum(f.n for f in p.plots) + count(p.hand)
"""
COUNT, KIND, TAKE = "p.plots[i].n += 1", "p.plots[i].b = c", "remove c from p.hand"
LONGER = ["let fresh = p.plots[i].n == 0 or p.plots[i].b != c",
          "if fresh { log p, \"starts a plot of\", c }", "log p, \"plants\", c"]


def w293(statements: list[str]) -> list[tuple[int, str]]:
    """The W293 warnings of BEANS with these statements as plant's body: (line, its text)."""
    text = BEANS.replace("BODY", "\n".join("  " + s for s in statements))
    res = load_text(text, "t.rules")
    assert res.ok, "\n".join(str(d) for d in res.diagnostics)
    lines = text.splitlines()
    return [(d.span.line, lines[d.span.line - 1].strip()) for d in res.diagnostics
            if d.code == "W293"]


@pytest.mark.parametrize("statements", [
    [COUNT, KIND], [KIND, COUNT],
    [LONGER[0], COUNT, LONGER[1], KIND, LONGER[2]],
    [LONGER[0], KIND, LONGER[1], COUNT, LONGER[2]],
    [KIND, LONGER[0], COUNT, LONGER[1], KIND, LONGER[2]],
], ids=["count-kind", "kind-count", "longer-count-kind", "longer-kind-count", "longer-kind-twice"])
def test_setting_a_field_the_law_does_not_count_neither_balances_nor_hides(
        statements: list[str]) -> None:
    """`.b = c` is not a change of what the law counts (it counts `.n`): the count that goes up
    alone is reported, at its own statement, in either order and in a longer procedure."""
    assert [text for _, text in w293(statements)] == [COUNT]


@pytest.mark.parametrize("statements", [
    [TAKE, COUNT, KIND], [KIND, COUNT, TAKE], [KIND, TAKE, LONGER[0], COUNT, LONGER[2]],
    ["p.plots[i] = {b: c, n: p.plots[i].n + 1}"],            # a whole plot set: a reset
    [COUNT, "p.plots[i] = {b: c, n: p.plots[i].n}"],
    [KIND],                                                  # nothing counted changes
])
def test_a_balanced_planting_or_a_reset_is_not_reported(statements: list[str]) -> None:
    assert w293(statements) == []


def test_a_law_that_counts_plots_not_beans_ignores_a_plots_count() -> None:
    text = BEANS.replace("sum(count(p.hand) + sum(f.n for f in p.plots) for p in players) == 8",
                         "sum(len(p.plots) for p in players) == 4")
    res = load_text(text.replace("BODY", "  " + COUNT), "t.rules")
    assert res.ok and "W293" not in [d.code for d in res.diagnostics]
    res = load_text(text.replace("BODY", "  add {b: c, n: 1} to p.plots"), "t.rules")
    assert [d.code for d in res.diagnostics if d.code == "W293"] == ["W293"]


# ------------------------------------------------ 3. a reserved word: as a name, in an expression
def only_error(text: str) -> tuple[str, int, int, str, str]:
    (d,) = load_text(text, "t.rules").diagnostics
    return d.code, d.span.line, d.span.col, d.message, d.hint or ""


BASIC = 'game "T" players 2..2\nplayer { x: int }\nround r limit 1 {\n  BODY\n}\nscore p: p.x\n'


@pytest.mark.parametrize("word", ["draw", "roll", "choose", "random", "simultaneous", "elif"])
def test_a_reserved_word_as_a_phase_name_is_said_to_be_reserved(word: str) -> None:
    text = BASIC.replace("BODY", f"phase {word} {{ for p in players {{ p.x += 1 }} }}")
    assert only_error(text) == ("E001", 4, 9, f"unexpected '{word}'",
                                f"'{word}' is a reserved word and cannot be used as a name")


def test_a_decision_inside_an_expression_is_still_e108() -> None:
    text = BASIC.replace("BODY", "phase main { for p in players { let d = [1, 2]\n"
                                 "  p.x = 1 + draw from d } }")
    code, line, col, message, _ = only_error(text)
    assert (code, line, col) == ("E108", 5, 13)
    assert message == "'draw' can only be the whole right-hand side of 'let' or an assignment"


ELIF = "phase main { for p in players { p.x = if p.x > 1 then 1 elif p.x > 0 then 2 else 3 } }"


def test_elif_in_an_if_expression_says_what_the_expression_allows() -> None:
    assert only_error(BASIC.replace("BODY", ELIF)) == (
        "E001", 4, 59, "unexpected 'elif': an 'if ... then ... else ...' expression has no 'elif'",
        "put the next test in its 'else': if A then X else if B then Y else Z "
        "(or use an 'if' statement)")
    fixed = BASIC.replace("BODY", ELIF.replace("elif", "else if"))     # what the hint says
    res = load_text(fixed, "t.rules")
    assert res.ok and not res.diagnostics


def test_a_reserved_word_after_a_value_is_not_called_a_name() -> None:
    code, _, _, message, hint = only_error(BASIC.replace("BODY", "phase main { let y = 2 draw }"))
    assert (code, message) == ("E001", "unexpected 'draw'")
    assert "reserved" not in hint and "expression" in hint
    code, _, _, message, hint = only_error(BASIC.replace("BODY", "phase main { let y = 1 + elif }"))
    assert hint == "expected a value here; 'elif' is a reserved word, not a name"


# ------------------------------------------------ 4. a field's size is public in a deal (§10.10)
SWAP = """game "Swap" players 2..3
enum Good { pepper, silk }
player { coins: int = 4  goods: bag<Good> = {pepper: 2, silk: 1}  hand: list<int> = [3, 5] owner }
bundle Lot {
  coins: amount of coins
  goods: items of goods
}
table { swaps: list<offer<Lot>>  supply: bag<Good> = {pepper: 4} secret }
round r limit 2 {
  phase swapping {
    swaps = []
    deal on swaps {
      among = players
      terms = [give, get]
      quiet = 1
      limit = 10
      valid(o) = len(o.give.goods) + len(o.get.goods) > 0
      binding(o) = BINDING
      accepted(o) { if len(o.maker.hand) > 0 { remove first(o.maker.hand) from o.maker.hand } }
    }
    if count(supply) > 0 { move pepper from supply to first(players).goods }
  }
}
score p: p.coins + count(p.goods) + sum(p.hand)
"""


def swap(binding: str) -> list[tuple[str, str]]:
    res = load_text(SWAP.replace("BINDING", binding), "t.rules")
    return [(d.code, d.message) for d in res.diagnostics]


@pytest.mark.parametrize("binding", [
    "len(o.maker.hand) > 0",                                  # the bazaar-like case
    "len(o.maker.hand) > 0 and count(o.taker.hand) < 5",
    "count(supply) > 0",                                      # a secret table field's size
    "sum(len(p.hand) for p in players) > 1",
])
def test_the_size_of_a_hidden_field_may_decide_a_deal(binding: str) -> None:
    assert swap(binding) == []
    prog = program(SWAP.replace("BINDING", binding))
    for seed in range(4):                                     # and the deal runs
        s = prog.new_game(3, seed)
        prog.playout(s, random.Random(seed))
        assert s.over


@pytest.mark.parametrize("binding", [
    "len(o.maker.hand) > 0 and first(o.maker.hand) > 3",
    "o.maker.hand[0] > 3",
    "len([c for c in o.maker.hand if c > 3]) > 0",
    "3 in o.maker.hand",
    "supply[pepper] > 0",
])
def test_what_a_hidden_field_holds_may_not(binding: str) -> None:
    hidden = "supply" if "supply" in binding else "hand"
    assert swap(binding) == [("E151", f"'binding(o)' of a deal reads '{hidden}', which not every "
                                      "seat may see")]


# ------------------------------------------------ 5. every "language.md §N.N" points at a heading
ROOT = Path(__file__).resolve().parent.parent
REF = r"§(\d+(?:\.\d+[a-z]?)?)"
# a run of references that follows a mention of the language reference: "docs/language.md §2.7a,
# §4.17", "`docs/language.md` §2.17", "(docs/language.md §2.7a `bundle`, §4.17 `deal`)"
LANG_RUN = re.compile(r"language\.md`?,?\s*" + REF + r"((?:(?:\s*`[^`\n]{1,30}`)?\s*(?:,|and)\s*"
                      + REF + r")*)")


def language_headings() -> set[str]:
    """The section numbers of docs/language.md: '4.17' for '### 4.17 `deal` ...', '8' for
    '## 8. Tokens ...'."""
    text = (ROOT / "docs" / "language.md").read_text("utf-8")
    return set(re.findall(r"^#{2,3} (\d+(?:\.\d+[a-z]?)?)\.? ", text, flags=re.M))


def language_references() -> list[tuple[str, str]]:
    """(file, section) for every reference to a section of docs/language.md: every § in
    language.md itself, and elsewhere each § of a run that follows 'language.md' (a § alone is
    another document's own section: checking.md's §3, the seed's §5)."""
    out = []
    text = (ROOT / "docs" / "language.md").read_text("utf-8")
    out += [("docs/language.md", n) for n in re.findall(REF, text)]
    files = sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "docs" / "games").glob("*.md")) \
        + sorted((ROOT / "rulebooks").glob("**/*.rules"))
    for path in files:
        if path.name == "language.md" and path.parent.name == "docs":
            continue
        flat = re.sub(r"\s+", " ", re.sub(r"\n\s*#\s?", " ", path.read_text("utf-8")))
        for m in LANG_RUN.finditer(flat):
            rel = str(path.relative_to(ROOT))
            out.append((rel, m.group(1)))
            out += [(rel, n) for n in re.findall(REF, m.group(2))]
    return out


def test_every_reference_to_a_section_of_the_language_reference_exists() -> None:
    heads = language_headings()
    assert {"2.7a", "4.17", "10.10", "8"} <= heads and len(heads) > 80
    refs = language_references()
    files = {f for f, _ in refs}
    outside = [r for r in refs if r[0] != "docs/language.md"]
    assert len(refs) > 90 and len(outside) > 40 and len(files) > 15, refs     # it found them
    assert ("rulebooks/examples/bazaar.rules", "4.17") in refs
    assert ("docs/games/bazaar.md", "4.17") in refs           # the second of a run
    assert ("docs/games/genoa.md", "4.17") in refs            # after a word in backticks
    broken = sorted({(f, n) for f, n in refs if n not in heads})
    assert not broken, f"references to sections docs/language.md does not have: {broken}"


def test_the_reference_reader_finds_a_broken_reference(tmp_path: Path) -> None:
    """(the check cannot pass by reading nothing: a wrong § is found where the real ones are)"""
    text = "# the deal construct (docs/language.md §12, docs/design/deals.md)\n" \
           "# (docs/language.md §2.7a `bundle`, §4.99 `deal`)\n"
    flat = re.sub(r"\s+", " ", re.sub(r"\n\s*#\s?", " ", text))
    found = []
    for m in LANG_RUN.finditer(flat):
        found += [m.group(1)] + re.findall(REF, m.group(2))
    assert found == ["12", "2.7a", "4.99"]
    assert [n for n in found if n not in language_headings()] == ["12", "4.99"]
