"""Chance outcomes: merging identical ones with their weights, and shuffles as chance steps.

In explicit-chance mode a random event is a Chance node whose outcomes are distinct, each with
an integer weight (how many of the equally likely raw outcomes it stands for). A shuffle is a
uniform permutation, drawn position by position: at step i the outcome is which of the items not
yet placed goes to position i (identical items merged, in the order they stand in, so outcome 0
keeps the list as it is); it is swapped there. The step number lives in a local slot of the
frame, so the state stays a value and re-running the op after a reload recomputes the same node.
Without explicit chance a shuffle is the Fisher–Yates shuffle with the state's generator.
"""
from __future__ import annotations

from typing import Any, Callable

from mercator.dsl import ast as A
from mercator.interpreter.engine.nodes import Chance

Op = Callable[[Any, list], Any]


def merge_outcomes(values: list) -> tuple[list, list[int]]:
    """The distinct values in order of first occurrence, and how many times each occurs."""
    try:
        counts: dict = {}
        for v in values:
            counts[v] = counts.get(v, 0) + 1
        return list(counts), list(counts.values())
    except TypeError:                    # unhashable values (lists, records): compare by ==
        return _merge_slow(values)


def _merge_slow(values: list) -> tuple[list, list[int]]:
    out: list = []
    weights: list[int] = []
    for v in values:
        for i, u in enumerate(out):
            if u == v:
                weights[i] += 1
                break
        else:
            out.append(v)
            weights.append(1)
    return out, weights


def weighted_index(weights: list[int], r: int) -> int:
    """The outcome that raw outcome r (0 <= r < sum(weights)) belongs to."""
    for i, w in enumerate(weights):
        if r < w:
            return i
        r -= w
    raise ValueError("r is not below the total weight")


def shuffle_op(target: Callable, labeller: Callable[[Any], str], step: int, span: A.Span,
               vtype: Any = None) -> Op:
    """The op of `shuffle`: Fisher–Yates with the state's generator, or (explicit chance) one
    chance node per position, the position's number kept in local slot `step`."""

    def commit(st: Any, v: Any) -> None:
        L = st.stack[-1][2]
        xs = target(st, L)
        i = L[step]
        k = next(k for k in range(i, len(xs)) if xs[k] == v)
        xs[i], xs[k] = xs[k], xs[i]
        L[step] = i + 1

    def shuffle(st: Any, fr: list) -> Any:
        L = fr[2]
        xs = target(st, L)
        if not st.explicit_chance:
            for j in range(len(xs) - 1, 0, -1):
                k = st.randbelow(j + 1)
                xs[j], xs[k] = xs[k], xs[j]
            fr[1] += 1
            return None
        i = L[step] or 0
        if i < len(xs) - 1:              # the last position has no choice left
            vals, weights = merge_outcomes(xs[i:])
            if len(vals) > 1:            # (if the rest are all alike, nothing is left to draw)
                L[step] = i
                node = Chance(vals, labeller, "shuffle", commit, span, weights)
                node.pile, node.at = xs, i
                node.vtype = vtype
                return node
        L[step] = None
        fr[1] += 1
        return None
    return shuffle
