"""benchmarks/bench_agents.py as a module for the tests, loaded once per process under its own
name: its games go to worker processes by name, and a second copy's functions would not pickle
as bench_agents.*."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_agents.py"


def bench_agents() -> ModuleType:
    """The one bench_agents module of this process."""
    module = sys.modules.get("bench_agents")
    if module is None:
        spec = importlib.util.spec_from_file_location("bench_agents", PATH)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_agents"] = module
        spec.loader.exec_module(module)
    return module


def script(name: str) -> ModuleType:
    """A script of benchmarks/ that imports bench_agents by name (decisions_by_seat.py,
    anchor_answers.py), loaded after the one bench_agents module so that it shares it."""
    bench_agents()
    spec = importlib.util.spec_from_file_location(name, PATH.parent / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
