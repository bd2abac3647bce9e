"""What the whole test suite shares: the shipped rulebooks compiled once per test process (the
`shipped` fixture, see tests/shipped.py) and the Hypothesis profiles.

Hypothesis profiles (a test's own `settings(...)` overrides them): "ci", loaded when the
environment has CI set, and "dev" otherwise; HYPOTHESIS_PROFILE=NAME picks one by name. Both
keep Hypothesis's number of examples for a test that sets none and differ only in what cannot
change what is tested: no deadline (a loaded machine makes a slow example, not a wrong one), and
in CI no too_slow health check and no example database (a fresh checkout has none to replay)."""
from __future__ import annotations

import os
from typing import Callable

import pytest
from hypothesis import HealthCheck, settings

from shipped import shipped_program

from mercator.interpreter.engine.program import Program

settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, database=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                      or ("ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(scope="session")
def shipped() -> Callable[[str], Program]:
    """shipped("manila"): the compiled program of a shipped rulebook by its short name, made once
    per test process and shared: make states from it, never change it."""
    return shipped_program
