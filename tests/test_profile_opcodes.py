"""benchmarks/profile_opcodes.py counts the bytecode a playout runs: the same count on every
run (it is a profile to compare commits by), its functions' shares within the whole, and an
error with a hint for a player count the rulebook does not allow."""
from __future__ import annotations

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "benchmarks", "profile_opcodes.py")


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONHASHSEED="0")
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, SCRIPT, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_count_is_exact_and_split_by_function() -> None:
    outs = [run("--games", "2", "--players", "3", "--top", "5", "rulebooks/manila.rules")
            for _ in range(2)]
    assert all(o.returncode == 0 for o in outs), outs[0].stderr
    assert outs[0].stdout == outs[1].stdout          # the same count each time
    text = outs[0].stdout
    m = re.search(r": (\d+) decisions, ([\d,]+) bytecode instructions, ([\d,.]+) a decision",
                  text)
    assert m is not None, text
    decisions, total = int(m.group(1)), int(m.group(2).replace(",", ""))
    assert decisions > 100 and total / decisions > 100      # two whole games, not a stub
    shares = [float(x) for x in re.findall(r"^\s*[\d.]+\s+([\d.]+)%", text, re.M)]
    assert len(shares) == 5 and shares == sorted(shares, reverse=True) and sum(shares) <= 100
    assert "<rollout proc placement_round>" in text


def test_a_player_count_outside_the_rulebook_is_refused_with_its_range() -> None:
    out = run("--games", "1", "--players", "9", "rulebooks/manila.rules")
    assert out.returncode == 2 and "3..5" in out.stderr and "Traceback" not in out.stderr
