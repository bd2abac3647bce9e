"""What the heuristic anchors (benchmarks/heuristic_<game>.py) share: the mark of an any-time
action among a decision's option values, the first option that is not one, the best plain
option by a key, and a seat's index from its name in an observation. Not an anchor itself
(bench_agents seats heuristic_<game>.py files only)."""
from __future__ import annotations

from typing import Any, Callable, Optional

ACTION = object()       # an option that is an any-time action, in a list of option values


def first_plain(values: list) -> int:
    """The index of the first option that is not an any-time action (0 if all are)."""
    for i, x in enumerate(values):
        if x is not ACTION:
            return i
    return 0


def argmax(values: list, key: Callable[[Any], Any], plain_only: bool = True) -> int:
    """The index of the option with the highest key, the first among equals; never an any-time
    action, and with `plain_only` never a pass (a value of None)."""
    best, pick = None, first_plain(values)
    for i, x in enumerate(values):
        if x is ACTION or (x is None and plain_only):
            continue
        k = key(x)
        if best is None or k > best:
            best, pick = k, i
    return pick


def seat_index(text: Optional[str]) -> Optional[int]:
    """The index of a seat named as an observation names it ("P2" -> 1; None stays None)."""
    return None if text is None else int(text[1:]) - 1
