"""Runaway rules stop in seconds with a located rule error (issue 12, "Hardening").

Each fixture under tests/fixtures/runaway/ states in its first line the rulebook line the error
must name and a part of its message (`# expect: line N: text`). Each case runs in a subprocess
with a timeout: a runaway may sit inside one long C-level operation (a huge multiplication or
allocation) that no in-process alarm can interrupt.
"""
from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys
import time

import pytest
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "runaway", "*.rules")))
TIMEOUT = 30.0          # seconds before a case counts as a hang
QUICK = 10.0            # seconds within which a case must have stopped

# Loads rulebook text, builds a Program and plays option 0 at every decision; prints what
# ended it as JSON: a located rule error, an error of another kind, or the final scores.
DRIVER = r"""
import json, sys
from mercator.dsl.loader import load_text
from mercator.interpreter.engine.program import MercatorRuntimeError, Program
from mercator.interpreter.compiler import compile_program
text = sys.stdin.read()
res = load_text(text, "case.rules")
out = {}
try:
    if not res.ok:
        out = {"kind": "check", "messages": [d.message for d in res.diagnostics]}
    else:
        prog = compile_program(res.rulebook)
        s = prog.new_game(prog.min_players, 0)
        n = 0
        while not s.over and n < 1000:
            prog.apply(s, 0)
            n += 1
        out = {"kind": "ok", "scores": list(s.result.scores) if s.over else None}
except MercatorRuntimeError as exc:
    out = {"kind": "rule", "line": exc.span.line, "message": exc.message}
except BaseException as exc:
    out = {"kind": "internal", "message": f"{type(exc).__name__}: {exc}"[:300]}
print(json.dumps(out))
"""


def run_case(text: str) -> tuple[dict, float]:
    """What ending a game of the rulebook text came to, and how long it took (in a subprocess
    with a timeout; {'kind': 'hang'} if it did not end in time)."""
    code = os.environ.get("RUNAWAY_PYTHONPATH", ROOT)     # (another tree: to compare)
    env = dict(os.environ, PYTHONPATH=code)
    t0 = time.perf_counter()
    try:
        p = subprocess.run([sys.executable, "-c", DRIVER], input=text, capture_output=True,
                           text=True, timeout=TIMEOUT, env=env, cwd=code)
    except subprocess.TimeoutExpired:
        return {"kind": "hang"}, time.perf_counter() - t0
    dt = time.perf_counter() - t0
    lines = p.stdout.strip().splitlines()
    if not lines:
        return {"kind": "crash", "message": p.stderr[-500:]}, dt
    return json.loads(lines[-1]), dt


def expectation(text: str) -> tuple[int, str]:
    """(line, message part) from a fixture's first line `# expect: line N: text`."""
    m = re.match(r"# expect: line (\d+): (.*)", text.splitlines()[0])
    assert m, "a runaway fixture starts with '# expect: line N: text'"
    return int(m.group(1)), m.group(2).strip()


@pytest.mark.parametrize("path", FIXTURES, ids=[os.path.basename(f) for f in FIXTURES])
def test_runaway_stops_with_a_located_error(path: str) -> None:
    """The rule stops quickly, as a rule error naming the offending line."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    line, part = expectation(text)
    got, dt = run_case(text)
    assert got["kind"] == "rule", got
    assert got["line"] == line, got
    assert part in got["message"], got
    assert dt < QUICK, f"took {dt:.1f}s"


HEAD = 'game "Deep" players 2..2\nplayer { x: int }\n'


def test_split_fallback_computes_the_same() -> None:
    """The last resort for code Python refuses as nested too deeply (beyond the checker's limit,
    e.g. once fns are written inline): parts split off into functions of their own, which see
    the fn's parameters and the comprehension's variables, and compute the same value."""
    from mercator.dsl.loader import load_text
    from mercator.interpreter.engine.program import Program
    from mercator.interpreter.compiler import compile_program
    terms = " + ".join(["n"] * 60 + ["k"] * 30)
    text = HEAD + (f"fn g(n: int) -> int = sum({terms} for k in [1, 2])\n"
                   "round r limit 1 { phase a { first(players).x = g(3) } }\nscore p: p.x\n")
    res = load_text(text)
    assert res.ok and res.rulebook is not None
    prog = compile_program(res.rulebook)
    body = res.rulebook.fns["g"].expr
    prog.ex.vars = {0: "v0"}
    prog.ex._split = True
    try:
        src = prog.ex.gen(body)
    finally:
        prog.ex._split = False
        prog.ex.vars = {}
    assert re.search(r"X\d+\(s, L, v0", src)   # parts were split off, given the parameter
    f = eval(f"lambda s, L, v0: {src}", prog.ex.ns)
    assert f(None, [], 3) == 2 * (60 * 3) + 30 * 3
    assert prog.new_game(2, 0).result.scores == (2 * 60 * 3 + 30 * 3, 0)


def test_a_long_loop_within_the_budget_still_runs() -> None:
    """Charging loops to the budget does not stop a big but finite one (10^3 × 10^3)."""
    text = HEAD + ("round r limit 1 { phase a {\n  let p = first(players)\n"
                   "  for i in 1..1000 { for j in 1..1000 { p.x += 1 } }\n} }\nscore p: p.x\n")
    got, _ = run_case(text)
    assert got == {"kind": "ok", "scores": [1_000_000, 0]}


@pytest.mark.parametrize("command", [["check"], ["check", "--explore", "2"],
                                     ["simulate", "--games", "1"],
                                     ["play", "--seats", "random,random"]])
def test_a_runaway_constant_is_a_located_error_in_every_command(command: list) -> None:
    """issue 12: a constant that would take a minute stops in `check` (without --explore too),
    `play` and `simulate` with the located error, exit 1, no internal error."""
    path = os.path.join(ROOT, "tests", "fixtures", "runaway", "slow_constant.rules")
    cmd = [sys.executable, "-m", "mercator.interpreter.cli.main", command[0], path] + command[1:]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=ROOT,
                       env={**os.environ, "NO_COLOR": "1"})
    assert p.returncode == 1, p.stderr
    assert "slow_constant.rules:5:1: rule error" in p.stderr
    assert "cannot be computed" in p.stderr
    assert "internal error" not in p.stderr and "Traceback" not in p.stderr


LATE_RUNAWAY = """
game "Late" players 2..2
player { x: int }
round r limit 1 { phase a {
  let p = first(players)
  let k = choose p one of [1, 2] prompt "start"
  for i in 1..100000 {
    for j in 1..100000 { p.x += k }
  }
} }
score p: p.x
"""


def test_play_replay_and_explore_name_the_same_place_for_a_runaway(tmp_path: Any) -> None:
    """issue 12: a runaway after the first decision stops `play` with a save; `replay` of that
    save reproduces the error (no hang) at the same line and column as `play`, and `check
    --explore` names that place too (it used to give another column)."""
    rules = tmp_path / "late.rules"
    rules.write_text(LATE_RUNAWAY)
    save = tmp_path / "g.json"
    env = {**os.environ, "NO_COLOR": "1"}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "mercator.interpreter.cli.main", *args], capture_output=True,
                              text=True, timeout=60, cwd=ROOT, env=env)
    played = run("play", str(rules), "--seats", "random,random", "--seed", "1", "--save", str(save))
    assert played.returncode == 1 and save.exists(), played.stderr
    replayed = run("replay", str(save))
    explored = run("check", str(rules), "--explore", "2", "--save-failure", str(tmp_path / "x.json"))
    where = f"{rules}:8:5: rule error"     # the inner for
    for p in (played, replayed, explored):
        assert where in p.stderr, p.stderr
        assert "internal error" not in p.stderr and "Traceback" not in p.stderr
    assert replayed.returncode == 1 and explored.returncode == 1
