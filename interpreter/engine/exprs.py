"""Run-time helpers shared by generated expression code and statement ops."""
from __future__ import annotations

from types import TracebackType
from typing import Any, Optional, Sequence

from mercator.dsl.ast import Span
from mercator.dsl.errors import MercatorError
from mercator.interpreter.engine.values import deep_copy


class RuleError(MercatorError):
    """A rule failed at run time (exported as mercator.RuleError). The runtime helpers and the
    generated code raise it with a message only; the engine then raises it located: `span` (the
    rulebook line being executed), `history` (the decision log that led there) and `seed`."""

    def __init__(self, message: str, span: Optional[Span] = None,
                 history: Sequence[int] = (), seed: Optional[int] = None):
        self.message = message
        self.span = span
        self.history = list(history)
        self.seed = seed
        super().__init__(message)

    @property
    def located(self) -> bool:
        """Has the engine said where the rule failed?"""
        return self.span is not None

    def __str__(self) -> str:
        if self.span is None:
            return self.message
        return (f"{self.span}: runtime error: {self.message}\n  decision log (option indices): "
                f"{self.history}")

    def __reduce__(self) -> Any:
        return (type(self), (self.message, self.span, self.history, self.seed))


# the Python errors a rule's own operations can raise (none.field, a missing key, ...): each is
# the rule's failure only when the generated code of the rulebook raised it (rule_failure)
PYTHON_FAILURES = (TypeError, KeyError, IndexError, ValueError, AttributeError,
                   ZeroDivisionError, OverflowError)
GENERATED = "<"      # the file name of code generated from the rulebook starts with this
NATIVE = "mrb_"      # ... or, compiled by Cython (compiler/native.py), this


def failure_message(exc: BaseException) -> str:
    """What a Python error raised by a rule's code means, said for the rulebook's author."""
    if isinstance(exc, RuleError):
        return exc.message
    what = "a value was none or of the wrong kind" if isinstance(exc, TypeError) else \
        "a missing item" if isinstance(exc, (KeyError, IndexError)) else \
        "fns calling each other too deeply" if isinstance(exc, RecursionError) else \
        "out of memory" if isinstance(exc, MemoryError) else "a failure"
    return f"{what} while running this rule ({exc})"


def rule_failure(exc: BaseException) -> bool:
    """Is exc a failure of the rulebook (to be reported located, as a RuleError) rather than
    a bug of Mercator's (to surface as itself)? A RuleError (a BuiltinError is one) always; a
    RecursionError or MemoryError (fns calling each other too deeply, a runaway collection)
    always; a Python error such as TypeError or KeyError only when the innermost frame it
    came from is code generated from the rulebook (so an engine or compiler bug, or a
    callback's, is never mistaken for the rulebook's mistake)."""
    if isinstance(exc, (RuleError, RecursionError, MemoryError)):
        return True
    if not isinstance(exc, PYTHON_FAILURES):
        return False
    tb: Optional[TracebackType] = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename.startswith((GENERATED, NATIVE))


def bag_add(a: dict, b: Any) -> dict:
    """Bag union with counts added (b may be a bag or a list)."""
    out = dict(a)
    items = b.items() if isinstance(b, dict) else ((x, 1) for x in b)
    for k, n in items:
        out[k] = out.get(k, 0) + n
    return out


def bag_sub(a: dict, b: Any) -> dict:
    """Bag difference (never below zero)."""
    out = dict(a)
    items = b.items() if isinstance(b, dict) else ((x, 1) for x in b)
    for k, n in items:
        left = out.get(k, 0) - n
        if left > 0:
            out[k] = left
        else:
            out.pop(k, None)
    return out


def to_bag(v: Any) -> dict:
    """A bag from a list of items or a map item -> count."""
    if isinstance(v, dict):
        return {k: n for k, n in v.items() if n > 0}
    out: dict = {}
    for x in v:
        out[x] = out.get(x, 0) + 1
    return out


def take_item(c: Any, x: Any) -> None:
    """Take one x out of a bag or a list (the first occurrence); an error if it is not there."""
    if isinstance(c, dict):
        n = c.get(x, 0)
        if n <= 0:
            raise RuleError("the item to take is not in the bag")
        if n == 1:
            del c[x]
        else:
            c[x] = n - 1
    else:
        try:
            c.remove(x)
        except ValueError:
            raise RuleError("the item to take is not in the list") from None


def put_item(c: Any, x: Any) -> None:
    """Put one x into a bag, or a copy of x at the end of a list."""
    if isinstance(c, dict):
        c[x] = c.get(x, 0) + 1
    else:
        c.append(deep_copy(x))
