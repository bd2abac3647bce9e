"""Labels kept by value (interpreter/engine/values.py, text_as)."""
from __future__ import annotations


def test_a_label_kept_by_its_value_is_the_values_text() -> None:
    """text_as keeps the text of a list, map or record by the value's marshal bytes: the same
    text as fmt, for a value changed in place too (its bytes change with it), and for more
    values than it keeps."""
    from mercator.dsl.types import Type
    from mercator.interpreter.engine import values as V
    t = Type("map", args=(Type("int"), Type("list", args=(Type("player"),))))
    text = V.text_as(t)
    v = {2: [0, 1], 1: []}
    assert text(v) == V.fmt(v, t) == "{1: [], 2: [P1, P2]}"
    v[1].append(2)
    assert text(v) == "{1: [P3], 2: [P1, P2]}"
    many = [{k: [k % 3]} for k in range(V.LABELS_KEPT + 10)]
    assert [text(x) for x in many] == [V.fmt(x, t) for x in many]
