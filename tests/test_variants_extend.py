"""`extend enum` and `extend record` in a variant: more members or fields without restating the
base's declaration (docs/variants.md, "Adding members and fields")."""
from __future__ import annotations

from pathlib import Path

import pytest

from mercator.dsl.fmt import format_decl
from mercator.dsl.loader import load
from mercator.dsl.parser import parse
from mercator.interpreter.tools.designer import rule_diff
from mercator.interpreter.engine.program import MercatorRuntimeError
from mercator.interpreter.compiler import compile_program

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "tests" / "fixtures" / "tiny.rules"

GREEN = """extend enum Color { green }
replace table bonus: map<Color, int> = {red: 3, blue: 1, green: 5}
"""


def variant(tmp_path: Path, body: str, base: Path = TINY, name: str = "v.rules") -> Path:
    p = tmp_path / name
    p.write_text(f'variant "V" of "{base}"\n{body}', encoding="utf-8")
    return p


def test_extended_enum_has_the_new_member_last_and_everywhere(tmp_path: Path) -> None:
    res = load(str(variant(tmp_path, GREEN)))
    assert res.ok, res.diagnostics
    rb = res.rulebook
    assert rb is not None and rb.enums["Color"].members == ("red", "blue", "green")
    prog = compile_program(rb)
    assert prog.member("green") == 2
    s = prog.new_game(2, 0)
    # the simultaneous dial of the base (`choose q one of Color`) now offers green too
    offered: list[str] = []
    for _ in range(50):
        offered = [o.label for o in s.pending.options if o.action is None]
        if s.over or offered == ["red", "blue", "green"]:
            break
        prog.apply(s, 0)
    assert offered == ["red", "blue", "green"]


def test_an_extended_enum_without_its_data_fails_where_the_data_is_read(tmp_path: Path) -> None:
    """The base's table has no entry for the new member: the checker cannot know every map must
    be total, so the variant must replace it; a game that reads the entry stops with a located
    error."""
    res = load(str(variant(tmp_path, "extend enum Color { green }\n")))
    assert res.ok
    prog = compile_program(res.rulebook)
    s = prog.new_game(2, 0)
    prog.set(s, "hand", {prog.member("green"): 1}, player=0)
    prog.resume(s)                    # the options again, now that the hand holds green
    acts = [i for i, o in enumerate(s.pending.options) if o.action is not None]
    assert [s.pending.options[i].label for i in acts] == ["cash_in(green)"]
    with pytest.raises(MercatorRuntimeError) as err:
        prog.apply(s, acts[0])
    assert "tiny.rules" in str(err.value.span)
    assert err.value.span.line == TINY.read_text().splitlines().index(
        "  p.money += bonus[c]") + 1


def test_extended_record_gets_the_new_field_with_its_default(tmp_path: Path) -> None:
    res = load(str(variant(tmp_path, "extend record Token {\n  shiny: bool = true\n"
                                     "  weight: int = 3\n}\n")))
    assert res.ok, res.diagnostics
    rb = res.rulebook
    assert rb is not None and rb.records["Token"].members == ("color", "value", "shiny", "weight")
    prog = compile_program(rb)
    s = prog.new_game(2, 0)
    token = prog.get(s, "tokens")[0]
    # the base's literal {color: red, value: 2} fills the new fields with their defaults
    assert list(token)[2:] == [True, 3]


def test_extend_in_a_chain_of_variants(tmp_path: Path) -> None:
    first = variant(tmp_path, GREEN, name="green.rules")
    second = variant(tmp_path, "extend enum Color { gold }\n"
                     "replace table bonus: map<Color, int> = {red: 3, blue: 1, green: 5, gold: 9}\n",
                     base=first, name="gold.rules")
    res = load(str(second))
    assert res.ok, res.diagnostics
    assert res.rulebook is not None
    assert res.rulebook.enums["Color"].members == ("red", "blue", "green", "gold")


def test_diff_shows_the_extended_declarations(tmp_path: Path) -> None:
    res = load(str(variant(tmp_path, GREEN)))
    base = load(str(TINY))
    changes = {(c.what, c.kind, c.name): c for c in rule_diff(base.items, res.items)}
    enum = changes[("changed", "enum", "Color")]
    assert enum.old == "enum Color { red, blue }"
    assert enum.new == "enum Color { red, blue, green }"


def test_extend_round_trips_through_the_formatter() -> None:
    src = 'variant "V" of "base.rules"\nextend enum Color { green, gold }\n' \
          'extend record Token {\n  shiny: bool = true\n}\n'
    rb, diags = parse(src, "v.rules")
    assert rb is not None and not diags
    text = "\n".join(format_decl(d) for d in rb.items)
    assert "extend enum Color { green, gold }" in text and "extend record Token {" in text
    again, _ = parse(text + "\n", "v.rules")
    assert again == rb
