"""Run-time limits: the sizes and amounts of work a rulebook may ask for, in one place.

A rule that goes beyond one of these stops with a located rule error (see docs/diagnostics.md,
"Run-time limits") instead of exhausting the memory, the stack or the user's patience.

Work done inside generated Python (fused statement runs, comprehensions, calls of recursive
fns, ranges, list concatenations) is charged to METER, the number of steps left in the current
`Program.run` (or constant evaluation); the VM's ops are counted against the same number.
"""
from __future__ import annotations

from typing import Any, Sized

from mercator.interpreter.engine.exprs import RuleError

from mercator.dsl.limits import (MAX_COLLECTION, MAX_DIE_SIDES, MAX_OPTIONS,  # noqa: F401  (shared with check)
                        MAX_PROC_DEPTH, subset_count)
MAX_INT_BITS = 256              # an integer result must lie within ±2^256
CONST_STEP_BUDGET = 2_000_000   # steps for evaluating all of a rulebook's constants
SHORT_LIST = 1024               # a list joined by '+' shorter than this is not charged
SMALL_ITER = 64                 # a comprehension over at most this many static items is free
DEAL_PASSES = 10                # a deal window without `limit` closes after this many full passes
BUDGET_MESSAGE = ("step budget of {} steps exhausted without a decision "
                  "(a loop that never ends, or one too big?)")

# the frames a state's stack may hold: the game's own, the phase's (or setup's), and
# MAX_PROC_DEPTH procedures, triggers and actions running one inside another
MAX_FRAMES = MAX_PROC_DEPTH + 2
DEPTH_MESSAGE = (f"procedures and triggers running one inside another more than "
                 f"{MAX_PROC_DEPTH:,} deep (a recursion that does not end, or a chain of calls "
                 "too long?)")

METER = [CONST_STEP_BUDGET]     # steps left; set by Program.run and constant evaluation
BUDGET = [CONST_STEP_BUDGET]    # what METER started at (for the message)


def start(budget: int) -> None:
    """Give the work about to run `budget` steps."""
    METER[0] = budget
    BUDGET[0] = budget


def exhausted() -> None:
    """Raise the located-later rule error of a spent step budget."""
    raise RuleError(BUDGET_MESSAGE.format(BUDGET[0]))


def too_deep() -> None:
    """Raise the located-later rule error of a call that would nest bodies beyond
    MAX_PROC_DEPTH (the caller checks `len(state.stack) >= MAX_FRAMES` before pushing)."""
    raise RuleError(DEPTH_MESSAGE)


def charge(n: int) -> None:
    """Spend n steps; a rule error when the budget is spent."""
    METER[0] -= n
    if METER[0] < 0:
        exhausted()


def charged(xs: Any, _m: list = METER, _len: Any = len) -> Any:
    """xs (a sized collection to be walked), after charging one step per item (the defaults
    bind the meter and len locally: this runs for every comprehension in generated code)."""
    left = _m[0] - _len(xs)
    _m[0] = left
    if left < 0:
        exhausted()
    return xs


def check_size(n: int, what: str) -> None:
    """A rule error if a collection of n items is beyond MAX_COLLECTION."""
    if n > MAX_COLLECTION:
        raise RuleError(f"{what} of {n} items is too large (the limit is {MAX_COLLECTION:,} "
                        "items)")


def int_range(lo: int, hi: int) -> list:
    """The list lo..hi (both ends included), charged and within the size limit."""
    return list(lazy_range(lo, hi))


def lazy_range(lo: int, hi: int) -> range:
    """lo..hi as a range object, charged and within the size limit (int_range lists it; a
    rollout's choice among lo..hi reads one item of it)."""
    n = hi - lo + 1
    if n > 0:
        if n > MAX_COLLECTION:
            check_size(n, f"the range {lo}..{hi}")
        METER[0] -= n
        if METER[0] < 0:
            exhausted()
    return range(lo, hi + 1)


def concat(a: Any, b: Any) -> Any:
    """a + b for lists (or strings), charged and within the size limit."""
    n = len(a) + len(b)
    check_size(n, "a list")
    METER[0] -= n
    if METER[0] < 0:
        exhausted()
    return a + b


def concat_long(xs: list) -> list:
    """xs, the result of joining lists with '+', charged and within the size limit."""
    check_size(len(xs), "a list")
    METER[0] -= len(xs)
    if METER[0] < 0:
        exhausted()
    return xs


def mul(a: Any, b: Any) -> Any:
    """a * b, a rule error if the integer result is beyond ±2^MAX_INT_BITS."""
    r = a * b
    if r.bit_length() > MAX_INT_BITS:
        raise RuleError(f"integer too large: a product beyond 2^{MAX_INT_BITS}")
    return r


def check_int(v: Any) -> Any:
    """v, a rule error if it is an integer beyond ±2^MAX_INT_BITS."""
    if type(v) is int and v.bit_length() > MAX_INT_BITS:
        raise RuleError(f"integer too large: a result beyond 2^{MAX_INT_BITS}")
    return v


def check_options(n: int, what: str = "a decision") -> None:
    """A rule error if a decision (or chance node) would have more than MAX_OPTIONS options."""
    if n > MAX_OPTIONS:
        raise RuleError(f"{what} has too many options (more than the limit of "
                        f"{MAX_OPTIONS:,})")


def check_sides(n: int) -> None:
    """A rule error if a die has no sides or more than MAX_DIE_SIDES."""
    if n < 1:
        raise RuleError(f"cannot roll a die with {n} sides")
    if n > MAX_DIE_SIDES:
        raise RuleError(f"cannot roll a die with {n} sides (the limit is {MAX_DIE_SIDES:,} sides)")


def bag_walk(b: dict) -> list:
    """A bag's items with repeats, in sorted order, within the size limit."""
    n = sum(b.values())
    if n > MAX_COLLECTION:
        check_size(n, "a bag")
    out: list = []
    for k in sorted(b):
        out.extend([k] * b[k])
    return out


def sized(xs: Sized, what: str) -> None:
    """A rule error if xs is beyond MAX_COLLECTION items."""
    check_size(len(xs), what)
