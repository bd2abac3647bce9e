"""The AST's shared helpers (dsl/ast.py): `walk` visits every node once, in the order a stack of
their fields gives, and one `__repr__` written for every node class shows what attrs' own did:
`Name(field=value, ...)`, the fields in declaration order, none of those declared repr=False
(the spans)."""
from __future__ import annotations

from pathlib import Path

import attrs

from mercator.dsl import ast as A
from mercator.dsl.parser import parse_whole

ROOT = Path(__file__).resolve().parent.parent


def test_a_nodes_text_is_attrs_own() -> None:
    e = A.BinOp("+", A.IntLit(1), A.Name("x", span=A.Span("f", 1, 2, 1, 3)))
    assert repr(e) == "BinOp(op='+', left=IntLit(value=1), right=Name(name='x'))"
    d = A.EnumDecl("Good", ("jade", "silk"), member_spans=(A.Span("f", 1, 1, 1, 2),))
    assert repr(d) == "EnumDecl(name='Good', members=('jade', 'silk'))"
    assert repr(A.Span("f", 1, 2, 3, 4)) == \
        "Span(path='f', line=1, col=2, end_line=3, end_col=4)"


def test_walk_visits_each_node_of_a_rulebook_once() -> None:
    text = (ROOT / "rulebooks" / "manila.rules").read_text(encoding="utf-8")
    rb, _ = parse_whole(text, "manila.rules")
    assert rb is not None
    seen: list = []

    def by_hand(v: object) -> None:       # every attrs node below v, spans skipped
        if isinstance(v, (tuple, list)):
            for x in v:
                by_hand(x)
        elif attrs.has(type(v)) and not isinstance(v, A.Span):
            seen.append(v)
            for f in attrs.fields(type(v)):
                if f.name != "span":
                    by_hand(getattr(v, f.name))
    by_hand(rb)
    walked = list(A.walk(rb))
    assert len(walked) == len(seen) > 4000
    assert sorted(map(id, walked)) == sorted(map(id, seen))
    assert walked[0] is rb
