"""Starting values: a field's default expression evaluated once, or its type's zero."""
from __future__ import annotations

from typing import Any, Optional

from mercator.dsl import ast as A
from mercator.dsl.types import Type
from mercator.interpreter.engine import limits
from mercator.interpreter.engine.exprs import RuleError, rule_failure
from mercator.interpreter.engine.program import RUN_FAILURES, Program
from mercator.interpreter.engine.values import deep_copy


def zero(prog: Program, t: Type) -> Any:
    """The default value of a type when a field gives none."""
    if t.kind == "record":
        decl = prog.rb.record_decls[t.name]
        return [default_value(prog, f.default, ft) for f, ft in zip(decl.fields, t.field_types)]
    return {"int": 0, "bool": False, "list": [], "map": {}, "bag": {}, "enum": 0, "player": 0,
            "str": ""}.get(t.kind)      # (a new list or dict each time)


def default_value(prog: Program, e: Optional[A.Expr], t: Type) -> Any:
    """A field's starting value: its default expression's value, or the type's zero."""
    if e is None:
        return zero(prog, t)
    return deep_copy(prog.ex.compile(e)(None, [None] * 64))  # type: ignore[attr-defined]


def start_values(prog: Program, fields: Any) -> list:
    """The starting values of fields, within the step budget; a located error if one fails."""
    out = []
    limits.start(prog.step_budget)
    for f in fields:
        try:
            out.append(limits.check_int(default_value(prog, f.default, f.type)))
        except RUN_FAILURES as exc:
            if not rule_failure(exc):
                raise
            raise RuleError(f"the starting value of '{f.name}' cannot be "
                                       f"computed ({exc})", f.span, []) from None
    return out
