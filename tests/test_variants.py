"""Variants: merging by name (replace / add / remove / chains), their errors, diff and compare, and
the variants the seeds name, each with a scenario that shows the difference."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_manila_scenarios import BOARD, Game

from shipped import shipped_program

from mercator.dsl.loader import load
from mercator.interpreter.cli.main import main
from mercator.interpreter.tools.designer import rule_diff
from mercator.interpreter.engine.program import Program
from mercator.interpreter.compiler import compile_program

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "tests" / "fixtures" / "tiny.rules"


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def variant_of_tiny(tmp_path: Path, body: str, name: str = "v.rules") -> Path:
    return write(tmp_path, name, f'variant "V" of "{TINY}"\n{body}')


def test_replace_keeps_position_and_changes_the_value(tmp_path: Path) -> None:
    res = load(str(variant_of_tiny(tmp_path, "replace const start_money = 25\n")))
    assert res.ok, res.diagnostics
    prog = compile_program(res.rulebook)
    s = prog.new_game(2, 0)
    assert prog.get(s, "money", 0) == 25 and prog.name == "Tiny — V"
    base = load(str(TINY))
    names = [getattr(i, "name", None) for i in base.items]
    assert names[1:] == [getattr(i, "name", None) for i in res.items][1:]   # same order


def test_replaced_constant_keeps_the_base_type(tmp_path: Path) -> None:
    """tiny.rules declares `table bonus: map<Color, int>`; a list in its place is a type error
    reported in the variant's own coordinates."""
    p = variant_of_tiny(tmp_path, "replace table bonus = [1, 2]\n")
    res = load(str(p))
    assert not res.ok
    d = next(d for d in res.diagnostics if d.is_error)
    assert d.code == "E104" and d.span.path == str(p) and d.span.line == 2


def test_add_remove_and_insert_phases(tmp_path: Path) -> None:
    p = variant_of_tiny(tmp_path, """
remove anytime cash_in
phase tax before bid { for p in players { p.money -= 1 } }
phase gift after dice { first(players).money += 100 }
const extra = 1
""")
    res = load(str(p))
    assert res.ok, res.diagnostics
    assert [b.name for b in res.rulebook.phases] == ["tax", "bid", "dice", "gift"]
    assert [b.name for b in res.rulebook.actions] == []
    s = compile_program(res.rulebook).new_game(2, 0)
    assert all("cash_in" not in o.label for o in s.pending.options)


def test_a_variant_removes_the_bots_hints(tmp_path: Path) -> None:
    """`remove estimate`, `remove prefer` (every preference) and `remove bots` give the game
    without what its bots are told (docs/language.md §2.21): Manila keeps its rules, its
    searchers lose the estimate, the preferences and the rulebook's settings; the formatter
    writes the removals back as they are written; a base without preferences refuses
    `remove prefer` (E130)."""
    from mercator.dsl.fmt import format_rulebook
    from mercator.dsl.parser import parse
    base = shipped_program("manila")
    assert base.bot_settings and base.estimate_f is not None
    body = "remove estimate\nremove prefer\nremove bots\n"
    p = write(tmp_path, "bare.rules",
              f'variant "Bare" of "{ROOT / "rulebooks" / "manila.rules"}"\n{body}')
    res = load(str(p))
    assert res.ok, res.diagnostics
    bare = compile_program(res.rulebook)
    assert bare.bot_settings == {} and bare.estimate_f is None
    kept = load(str(ROOT / "rulebooks" / "manila.rules")).rulebook
    assert sum(type(i).__name__ == "PreferDecl" for i in kept.items) > 3
    assert not any(type(i).__name__ in ("PreferDecl", "EstimateDecl", "BotsDecl")
                   for i in res.rulebook.items)
    assert len(res.rulebook.items) == len(kept.items) - \
        sum(type(i).__name__ in ("PreferDecl", "EstimateDecl", "BotsDecl") for i in kept.items)
    assert format_rulebook(parse(p.read_text(), "bare.rules")[0]).replace("\n\n", "\n") \
        .endswith(body)
    s, t = bare.new_game(3, 4), base.new_game(3, 4)
    assert [o.label for o in s.pending.options] == [o.label for o in t.pending.options]
    res = load(str(variant_of_tiny(tmp_path, "remove prefer\n")))
    (d,) = [d for d in res.diagnostics if d.code == "E130"]
    assert "no preference to remove" in d.message and d.span.line == 2


def test_chained_variants_apply_in_order(tmp_path: Path) -> None:
    first = variant_of_tiny(tmp_path, "replace const start_money = 25\n", "a.rules")
    second = write(tmp_path, "b.rules", 'variant "B" of "a.rules"\nreplace const start_money = 40\n'
                   "remove trigger lucky\n")
    res = load(str(second))
    assert res.ok, res.diagnostics
    prog = compile_program(res.rulebook)
    assert prog.get(prog.new_game(2, 0), "money", 1) == 40
    assert prog.name == "Tiny — V — B" and res.rulebook.triggers == []
    assert load(str(first)).ok


@pytest.mark.parametrize("body, code, line", [
    ("replace const start_mony = 1\n", "E130", 2),
    ("remove phase nothing\n", "E130", 2),
    ("phase x after nowhere { }\n", "E130", 2),
    ("phase bid after dice { }\n", "E102", 2),
    ("replace proc pay(p: player) -> int { return 0 }\n", "E131", 2),
    ("replace fn worth(p: player) -> bool = true\n", "E131", 2),
    ("const start_money = 3\n", "E102", 2),
    ('variant "again" of "x.rules"\n', "E133", 2),
    ("remove anytime cash_in\nproc use_it() { let x = 1 }\n", None, None),
])
def test_every_variant_error_is_located_in_the_variant(tmp_path: Path, body: str, code, line) -> None:
    p = variant_of_tiny(tmp_path, body)
    res = load(str(p))
    if code is None:
        assert res.ok, res.diagnostics
        return
    errs = [d for d in res.diagnostics if d.is_error]
    assert errs and errs[0].code == code, errs
    assert errs[0].span.path == str(p) and errs[0].span.line == line


def test_variant_cycles_and_broken_bases_are_refused(tmp_path: Path) -> None:
    a = write(tmp_path, "a.rules", 'variant "A" of "b.rules"\n')
    write(tmp_path, "b.rules", 'variant "B" of "a.rules"\n')
    assert [d.code for d in load(str(a)).diagnostics if d.is_error][0] == "E132"
    write(tmp_path, "bad.rules", 'game "Bad" players 2..2\nround r { phase x { y = 1 } }\n')
    c = write(tmp_path, "c.rules", 'variant "C" of "bad.rules"\n')
    codes = [d.code for d in load(str(c)).diagnostics]
    assert codes[0] == "E132" and "E100" in codes          # the base's own errors follow


def test_diff_lists_changed_added_and_removed_rules(tmp_path: Path) -> None:
    p = variant_of_tiny(tmp_path, "replace const start_money = 25\nremove anytime cash_in\n"
                        "phase gift after dice { first(players).money += 1 }\n")
    changes = {(c.what, c.kind, c.name): c for c in rule_diff(load(str(TINY)).items,
                                                              load(str(p)).items)}
    assert changes[("changed", "constant", "start_money")].new == "const start_money = 25"
    assert changes[("changed", "constant", "start_money")].old == "const start_money = 10"
    assert ("removed", "any-time action", "cash_in") in changes
    assert ("added", "phase", "gift") in changes
    assert rule_diff(load(str(TINY)).items, load(str(TINY)).items) == []


def test_diff_and_compare_commands(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    p = variant_of_tiny(tmp_path, "replace const start_money = 25\n")
    assert main(["diff", str(TINY), str(p)]) == 0
    text = capsys.readouterr().out
    assert "changed constant start_money" in text and "  + const start_money = 25" in text
    assert main(["compare", str(TINY), str(TINY), "--players", "3", "--games", "60", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert rows and all(r["diff"] == 0 and r["p"] == 1.0 and not r["significant"] for r in rows)
    assert main(["compare", str(TINY), str(p), "--players", "3", "--games", "200"]) == 0
    table = capsys.readouterr().out
    assert "score seat 1" in table and " *" in table      # 25 instead of 10: scores rise


def test_compare_refuses_bad_arguments(capsys: pytest.CaptureFixture) -> None:
    assert main(["compare", str(TINY), str(TINY), "--players", "9", "--games", "10"]) == 2
    assert main(["compare", str(TINY), str(TINY), "--games", "1"]) == 2


def test_compare_shows_a_stat_declared_on_one_side_as_missing_on_the_other(tmp_path: Path,
                                                                           capsys) -> None:
    """issue 15: a stat only one rulebook declares is a row marked missing on the other side,
    not dropped; a stat both declare is compared."""
    base = write(tmp_path, "base.rules", TINY.read_text(encoding="utf-8")
                 + "\nstat rolls counts rolled\nstat sixes counts rolled(p, n) when n == 6\n")
    var = write(tmp_path, "var.rules", 'variant "V" of "base.rules"\nremove stat sixes\n'
                'stat high_rolls counts rolled(p, n) when n >= 5\n')
    args = ["compare", str(base), str(var), "--players", "2", "--games", "30"]
    assert main(args + ["--json"]) == 0
    rows = {r["measure"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    both, only_a, only_b = (rows["stat rolls per game"], rows["stat sixes per game"],
                            rows["stat high_rolls per game"])
    assert both["diff"] == 0 and both["p"] == 1.0 and both["missing"] is None
    assert only_a["missing"] == "B" and only_a["b"] is None and only_a["a"] > 0
    assert only_a["diff"] is None and only_a["p"] is None and not only_a["significant"]
    assert only_b["missing"] == "A" and only_b["a"] is None and only_b["b"] > only_a["a"]
    assert main(args) == 0
    table = capsys.readouterr().out
    assert re.search(r"^stat sixes per game +[\d.]+ +— +— +— +not in B$", table, re.M), table
    assert re.search(r"^stat high_rolls per game +— +[\d.]+ +— +— +not in A$", table, re.M)


def test_compare_counts_a_stat_as_zero_where_its_event_is_not_declared(tmp_path: Path,
                                                                       capsys) -> None:
    """A stat the variant declares on an event only the variant has (the pirate variant's
    evictions) cannot count anything in the base: compare sets it to 0 there and tests the
    difference; a stat on an event both declare stays missing on the side without the stat."""
    base = write(tmp_path, "base.rules", TINY.read_text(encoding="utf-8"))
    var = write(tmp_path, "var.rules", 'variant "V" of "base.rules"\n'
                'event six(p: player)\n'
                'on rolled(p, n) as sixes when n == 6 { emit six(p) }\n'
                'stat sixes counts six\n'
                'stat fives counts rolled(p, n) when n == 5\n')
    args = ["compare", str(base), str(var), "--players", "2", "--games", "60"]
    assert main(args + ["--json"]) == 0
    rows = {r["measure"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    sixes, fives = rows["stat sixes per game"], rows["stat fives per game"]
    assert sixes["zero_in"] == "A" and sixes["missing"] is None and sixes["a"] == 0
    assert sixes["b"] > 1 and sixes["diff"] == sixes["b"] and sixes["p"] < 0.001
    assert sixes["significant"]
    assert fives["missing"] == "A" and fives["zero_in"] is None and fives["p"] is None
    assert main(args) == 0
    table = capsys.readouterr().out
    assert re.search(r"^stat sixes per game +0\.00 +[\d.]+ +\+[\d.]+ .* \*$", table, re.M), table
    assert "1 stat counted as 0 in A: sixes (the event is not declared there" in table


# ---------------------------------------------------------------- the seeds' variants
@pytest.fixture(scope="module")
def base() -> Program:
    return shipped_program("manila")


@pytest.fixture(scope="module")
def pirates() -> Program:
    return shipped_program("manila_pirates")


def _full_ginseng_on_13(prog: Program) -> Game:
    """Two pirates; the ginseng boat full (P3, P4, P1) and alone on space 13 after roll 2."""
    game = Game(prog, 4)
    game.begin_voyage_1()
    game.place(0, "pirate")
    game.place(1, "pirate")
    game.place(2, "ginseng_boat")
    game.place(3, "ginseng_boat")
    game.roll(1, 4, 4)                                       # silk 1, ginseng 8, jade 9
    game.place(0, "ginseng_boat")                            # ginseng full
    game.place(1, "pass")
    game.place(2, "jade_boat")
    game.place(3, "pass")
    game.roll(1, 5, 3)                                       # ginseng 13 (full), jade 12
    return game


def test_base_pirates_cannot_board_a_full_boat(base: Program) -> None:
    """seed 003 §海盜登船: 如果平底船上沒有空格，海盜無法登船 (no free seat: no boarding)."""
    game = _full_ginseng_on_13(base)
    assert game.pending.prompt == BOARD and game.labels() == ["pass"]


def test_pirate_variant_evicts_and_spares_the_new_captain(pirates: Program) -> None:
    """seed 003 §變體規則: 海盜允許登船，即使船上沒有空格。上船的玩家將船上的其中一個同夥移出平底船，
    將它還給該玩家 ... 如果兩位海盜登上同一艘船，第二位海盜不能取代剛剛登船的海盜船長.  (A pirate may
    board a full boat by sending an accomplice home; the second pirate may not evict the captain
    who has just boarded.)"""
    game = _full_ginseng_on_13(pirates)
    assert game.pending.player == 0 and game.labels() == ["pass", "ginseng"]
    hand = game.get("accomplices", 2)
    game.decide(0, "ginseng", BOARD)
    assert game.labels() == ["0", "1", "2"]                  # any seat of the full boat
    game.decide(0, "0")                                      # evict P3 from the first seat
    assert game.get("crew")[game.g("ginseng")] == [0, 3, 0]
    assert game.get("accomplices", 2) == hand + 1            # back in P3's hand
    assert game.pending.player == 1 and game.labels() == ["pass", "ginseng"]
    game.decide(1, "ginseng", BOARD)
    assert game.labels() == ["1", "2"]                       # not the captain's seat 0
    game.decide(1, "2")
    assert game.get("crew")[game.g("ginseng")] == [0, 3, 1] and game.get("pirates") == []
    stats = dict(zip(pirates.stat_names, game.s.stats))
    assert stats["evictions"] == 2 and stats["boardings"] == 2     # what compare counts
    game.check()


def test_pirate_variant_fills_free_seats_first(pirates: Program) -> None:
    """seed 003 §變體規則: 如果在空格１３的其他船上還有空間，海盜必須先填滿這些空間 (room on another
    boat on 13 must be filled first)."""
    game = Game(pirates, 4)
    game.begin_voyage_1()
    game.place(0, "pirate")
    game.place(1, "pirate")
    game.place(2, "ginseng_boat")
    game.place(3, "ginseng_boat")
    game.roll(1, 4, 4)
    game.place(0, "ginseng_boat")
    game.place(1, "pass")
    game.place(2, "jade_boat")
    game.place(3, "pass")
    game.roll(1, 5, 4)                                       # ginseng 13 (full), jade 13 (room)
    assert game.labels() == ["pass", "jade"]
