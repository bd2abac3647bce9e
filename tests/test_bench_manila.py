"""benchmarks/bench_manila.py --targets prints, after its measurements, one line per target of
issue 37 that it measures, with the ratio and met or not met; without the flag, no such lines."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "bench_manila.py"
TARGET = re.compile(r"^  target (.+?)\s{2,}(\S+ / \S+)\s+([\d.]+)x \(at most ([\d.]+)x\): "
                    r"(met|not met)$")


def _run(*args: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_targets_prints_the_three_targets_with_met_or_not_met() -> None:
    out = _run("--games", "2", "--players", "3", "--targets")
    found = [m for m in map(TARGET.match, out.splitlines()) if m]
    assert [(m[2], float(m[4])) for m in found] == [("plain / rulebook-playout", 1.5),
                                                   ("plain / rulebook", 3.0),
                                                   ("rulebook / rulebook-narrated", 2.0)]
    for m in found:
        ratio = float(m[3])
        assert ratio > 0
        assert m[5] == ("met" if ratio <= float(m[4]) else "not met")
    assert "rulebook-narrated games 2" in out        # --targets measures the narrated loop


def test_without_targets_no_target_lines() -> None:
    out = _run("--games", "1", "--players", "3")
    assert "target" not in out and "rulebook-narrated" not in out
