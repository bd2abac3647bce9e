"""benchmarks/bench_rulebooks.py --against CHECKOUT measures this checkout and another one in
fresh processes and prints, per line and path, both rates and their ratio (issue 37: "each of
the other three games at least 2x faster a decision than today", printed in one run); a path
that is not a checkout is a usage error, not a traceback."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "bench_rulebooks.py"
SMALL = "rulebooks/examples/parade.rules"       # 2 to 6 players, tens of decisions a game
LINE = re.compile(r"^(\S+)\s+(\d+)\s+(apply|playout|narrated)\s+([\d,]+)\s+([\d,]+)\s+"
                  r"([\d.]+)x (faster|\(slower\))")


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def _archive_head(into: Path) -> None:
    """The committed engine and rulebooks of this checkout (git archive HEAD) in `into`."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("needs a git checkout")
    into.mkdir()
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD", "dsl", "interpreter",
                          "mercator", "rulebooks"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=tar, check=True)


def test_against_a_copy_of_head_prints_both_rates_and_a_ratio_per_path(tmp_path: Path) -> None:
    old = tmp_path / "head"
    _archive_head(old)
    out = _run("--against", str(old), "--games", "2", "--repeat", "1", "--narrated", SMALL)
    assert out.returncode == 0, out.stderr
    lines = [m for m in map(LINE.match, out.stdout.splitlines()) if m]
    # parade at its smallest and largest player count, three paths each
    assert [(m[1], m[3]) for m in lines] == [("examples/parade.rules", p)
                                             for _ in range(2)
                                             for p in ("apply", "playout", "narrated")]
    assert len({m[2] for m in lines}) == 2
    for m in lines:
        old_rate, new_rate, ratio = (float(m[i].replace(",", "")) for i in (4, 5, 6))
        assert old_rate > 0 and new_rate > 0 and ratio > 0
        assert abs(ratio - round(new_rate / old_rate, 2)) < 0.011
    assert out.stdout.startswith("old: head @ ")


def test_against_a_path_that_is_not_a_checkout_is_a_usage_error(tmp_path: Path) -> None:
    for path in (tmp_path / "nowhere", tmp_path):
        out = _run("--against", str(path), "--games", "1", SMALL)
        assert out.returncode == 2
        assert "--against" in out.stderr and str(path) in out.stderr
        assert "Traceback" not in out.stderr
