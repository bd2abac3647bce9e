"""Parse + check never fail with an internal exception: on text generated from the grammar, and on
mutated copies of the real rulebooks. Every error they return has a real position."""
from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

from mercator.dsl.diagnostics import render
from mercator.dsl.loader import load_text
from mercator.dsl.parser import _lark

ROOT = Path(__file__).resolve().parent.parent
REAL = sorted(p for p in (ROOT / "rulebooks").glob("*.rules"))
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


def check_never_crashes(text: str, path: str) -> None:
    res = load_text(text, path)            # any exception here fails the test
    for d in res.diagnostics:
        assert d.span.line >= 1 and d.span.col >= 1, d
        render(d, text)


@FUZZ
@given(text=from_lark(_lark(), start="start").map(lambda t: t.replace('""', '"x"')))
def test_text_from_the_grammar(text: str) -> None:
    check_never_crashes(text, "generated.rules")


def mutate(src: str, rng: random.Random) -> str:
    """Delete, duplicate or swap a line or a word, or change a number."""
    lines = src.split("\n")
    words = src.split(" ")
    kind = rng.randrange(5)
    if kind == 0:
        i = rng.randrange(len(lines))
        return "\n".join(lines[:i] + lines[i + 1:])
    if kind == 1:
        i = rng.randrange(len(lines))
        return "\n".join(lines[:i] + [lines[i]] + lines[i:])
    if kind == 2:
        i = rng.randrange(len(words))
        return " ".join(words[:i] + words[i + 1:])
    if kind == 3:
        i, j = rng.randrange(len(words)), rng.randrange(len(words))
        words[i], words[j] = words[j], words[i]
        return " ".join(words)
    digits = [k for k, ch in enumerate(src) if ch.isdigit()]
    if not digits:
        return src
    k = rng.choice(digits)
    return src[:k] + str(rng.randrange(10)) + src[k + 1:]


@FUZZ
@given(which=st.integers(0, len(REAL) - 1), seed=st.integers(0, 2**32 - 1),
       times=st.integers(1, 3))
def test_mutated_real_rulebooks(which: int, seed: int, times: int) -> None:
    path = REAL[which]
    text = path.read_text(encoding="utf-8")
    rng = random.Random(seed)
    for _ in range(times):
        text = mutate(text, rng)
    check_never_crashes(text, str(path))
