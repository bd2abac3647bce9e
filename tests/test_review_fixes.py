"""Issue 35 §4 (review findings outside the web server): each test failed before its fix.

R1  a chain of 500+ procedures passed `check`, then `simulate` failed with "internal error:
    RecursionError": now one call-depth limit (dsl/limits.py MAX_PROC_DEPTH) that `check`
    enforces on chains (E140) and the engine at run time (a located rule error), and every
    command runs any chain up to it;
R2  `game "X" players 7..4` passed `check`, then `simulate` failed with "internal error:
    ValueError": now E123 (an empty range, fewer than 1 or more than MAX_PLAYERS seats);
S1  a save with an unknown field (`"format": 99`) or from a newer engine replayed: now refused;
L   a game stopped by a `while ... limit` printed its whole decision log on one line (300 KB):
    now its first and last decisions and the count, and the command that reproduces it.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def cli(*args: str, timeout: float = 300) -> tuple[int, str, str]:
    """Run the mercator command in a child process: (exit code, stdout, stderr)."""
    p = subprocess.run([sys.executable, "-m", "mercator.interpreter.cli", *args],
                       capture_output=True, text=True, timeout=timeout, cwd=str(ROOT),
                       env={k: v for k, v in os.environ.items() if k != "MERCATOR_DEBUG"})
    return p.returncode, p.stdout, p.stderr


def no_crash(out: str, err: str) -> None:
    both = out + err
    assert "internal error" not in both and "Traceback" not in both, both[-3000:]
    assert "RecursionError" not in both, both[-3000:]


# ------------------------------------------------------------------ R1: chains of procedures
def chain(n: int, decide_at_bottom: bool = False) -> str:
    """proc p1 calls p2 ... calls pn; each player's turn calls p1 (a decision first, or one at
    the bottom of the chain: a game paused 1,000 calls deep)."""
    lines = ['game "Chain" players 2..2', "player { money: int }"]
    lines += [f"proc p{i}(p: player) {{ p.money += 1  p{i + 1}(p) }}" for i in range(1, n)]
    if decide_at_bottom:
        lines.append(f'proc p{n}(p: player) {{ let x = choose p one of 1..3 prompt "deep"  '
                     "p.money += x }")
        lines.append("round turn limit 2 { phase go { for p in players { p1(p) } } }")
    else:
        lines.append(f"proc p{n}(p: player) {{ p.money += 1 }}")
        lines.append("round turn limit 1 { phase go { for p in players { "
                     "let x = choose p one of 1..2  p1(p) } } }")
    lines.append("score p: p.money")
    return "\n".join(lines) + "\n"


def test_the_call_depth_limit_is_one_constant() -> None:
    from mercator.dsl import limits as dsl_limits
    from mercator.interpreter.engine import limits
    assert dsl_limits.MAX_PROC_DEPTH == 1000
    assert limits.MAX_FRAMES == dsl_limits.MAX_PROC_DEPTH + 2    # the game's and the phase's


@pytest.mark.parametrize("n", [500, 1000])
def test_chains_up_to_the_limit_run_in_every_command(tmp_path: Path, n: int) -> None:
    path = tmp_path / f"chain{n}.rules"
    path.write_text(chain(n))
    code, out, err = cli("check", str(path))
    no_crash(out, err)
    assert code == 0, err
    code, out, err = cli("simulate", str(path), "--games", "3", "--seed", "1")
    no_crash(out, err)
    assert code == 0, err
    assert "games 3" in out
    code, out, err = cli("play", str(path), "--seats", "random,random", "--seed", "1",
                         "--save", str(tmp_path / "g.json"))
    no_crash(out, err)
    assert code == 0, err
    assert f"{n + 2}" in out or "winner" in out
    code, out, err = cli("replay", str(tmp_path / "g.json"))
    no_crash(out, err)
    assert code == 0, err
    code, out, err = cli("check", "--explore", "20", str(path))
    no_crash(out, err)
    assert code == 0, err


def test_a_game_paused_1000_calls_deep_runs_in_the_session_and_the_searches(tmp_path: Path) -> None:
    """serve's session (views, logs, options, save) and a searching bot, 1,000 calls deep."""
    from mercator.dsl.loader import load
    from mercator.interpreter.compiler import compile_program
    from mercator.interpreter.tools.session import GameSession
    path = tmp_path / "deep.rules"
    path.write_text(chain(1000, decide_at_bottom=True))
    res = load(str(path))
    assert res.ok, res.diagnostics
    prog = compile_program(res.rulebook)
    s = GameSession(prog, 2, 5, ["human", "random"], str(path), res.sources)
    s.advance_bots()
    assert len(s.state.stack) == 1002
    while s.to_decide() is not None:
        seat = s.to_decide()
        s.view(seat)
        s.log(seat)
        s.move(seat, s.options(seat)[0]["index"])
        s.advance_bots()
    assert s.state.over
    s.save(str(tmp_path / "deep.json"))
    code, out, err = cli("replay", str(tmp_path / "deep.json"))
    no_crash(out, err)
    assert code == 0, err
    code, out, err = cli("simulate", str(path), "--games", "2", "--seats", "ismcts:20,random")
    no_crash(out, err)
    assert code == 0, err


def test_a_chain_past_the_limit_is_refused_by_check_in_every_command(tmp_path: Path) -> None:
    path = tmp_path / "chain5000.rules"
    path.write_text(chain(5000))
    for cmd in (["check"], ["simulate", "--games", "2"], ["play", "--seats", "random,random"]):
        code, out, err = cli(cmd[0], str(path), *cmd[1:])
        no_crash(out, err)
        assert code == 1, (cmd, err[-2000:])
        assert re.search(r"chain5000\.rules:3:1: error\[E140\]: procedure 'p1' starts a chain "
                         r"of 5,000 procedures, each calling the next: more than the 1,000",
                         err), err[-2000:]
    path.write_text(chain(1001))
    code, out, err = cli("check", str(path))
    assert code == 1 and "chain of 1,001 procedures" in err, err


def test_a_recursion_past_the_limit_is_a_located_rule_error(tmp_path: Path) -> None:
    text = ('game "Rec" players 2..2\nplayer { money: int }\n'
            "proc r(p: player, n: int) { p.money += 1  if n > 0 { r(p, n - 1) } }\n"
            "round turn limit 1 { phase go { for p in players { "
            "let x = choose p one of 1..2  r(p, N) } } }\nscore p: p.money\n")
    ok = tmp_path / "ok.rules"
    ok.write_text(text.replace("N)", "999)"))            # 1,000 calls of r: at the limit
    code, out, err = cli("simulate", str(ok), "--games", "2")
    no_crash(out, err)
    assert code == 0, err
    deep = tmp_path / "deep.rules"
    deep.write_text(text.replace("N)", "100000)"))
    code, out, err = cli("check", str(deep))
    assert code == 0 and "W261" in out + err
    for cmd in (["simulate", "--games", "2"], ["play", "--seats", "random,random", "--seed", "3"]):
        code, out, err = cli(cmd[0], str(deep), *cmd[1:])
        no_crash(out, err)
        assert code == 1, err
        assert re.search(r"deep\.rules:3:54: rule error: procedures and triggers running one "
                         r"inside another more than 1,000 deep", err), err[-2000:]
        assert "reproduce with: mercator" in err


# ------------------------------------------------------------------ R2: the player count
GAME = 'game "X" players {}\nplayer {{ gold: int }}\n' \
       "round r limit 1 {{ phase main {{ first(players).gold += 1 }} }}\nscore p: p.gold\n"


@pytest.mark.parametrize("count,message", [
    ("7..4", "the player count 7..4 is empty"),
    ("999999..6", "the player count 999999..6 is empty"),
    ("0..0", "a game needs at least 1 player"),
    ("0..3", "a game needs at least 1 player"),
    ("2..1000000", "more than the 1,000 seats a game may have"),
])
def test_a_player_count_no_game_can_have_is_refused_by_check(tmp_path: Path, count: str,
                                                             message: str) -> None:
    path = tmp_path / "x.rules"
    path.write_text(GAME.format(count))
    for cmd in (["check"], ["simulate", "--games", "1"], ["play", "--seats", "random"]):
        code, out, err = cli(cmd[0], str(path), *cmd[1:])
        no_crash(out, err)
        assert code == 1, (cmd, out, err)
        assert re.search(r"x\.rules:1:1: error\[E123\]: ", err) and message in err, err


def test_the_ends_of_the_player_count_are_allowed() -> None:
    from mercator.dsl.loader import load_text
    from mercator.dsl.limits import MAX_PLAYERS
    for count in ("1..1", "4..4", f"2..{MAX_PLAYERS}"):
        res = load_text(GAME.format(count), "x.rules")
        assert res.ok, (count, [d.message for d in res.diagnostics])


# ------------------------------------------------------------------ S1: saves from elsewhere
def _tiny_save(tmp_path: Path, **fields: object) -> str:
    """A finished game of tests/fixtures/tiny.rules saved by play, fields changed, checksum
    recomputed (as anyone editing a save can)."""
    import json
    from mercator.interpreter.tools.saves import _checksum
    target = tmp_path / "game.json"
    if not target.exists():
        code, out, err = cli("play", str(ROOT / "tests" / "fixtures" / "tiny.rules"),
                             "--players", "2", "--seats", "random,random", "--seed", "4",
                             "--save", str(target))
        assert code == 0, err
    doc = json.loads(target.read_text())
    doc.update(fields)
    doc["checksum"] = _checksum(doc)
    out_path = tmp_path / "changed.json"
    out_path.write_text(json.dumps(doc))
    return str(out_path)


@pytest.mark.parametrize("fields,message", [
    ({"format": 99}, "it has the field 'format', which save formats 1 to 2 (the ones this "
                     "Mercator, "),
    ({"mercator_save": 99}, "save format 99 is not supported (this Mercator reads formats 1 "
                            "to 2)"),
    ({"engine_version": "99.0"}, "this game was saved by Mercator 99.0, newer than this one"),
    ({"engine_version": "0.99.0"}, "this game was saved by Mercator 0.99.0, newer than this one"),
    ({"engine_version": "version nine"}, "field 'engine_version' is malformed"),
])
def test_a_save_this_mercator_cannot_replay_faithfully_is_refused(tmp_path: Path, fields: dict,
                                                                  message: str) -> None:
    target = _tiny_save(tmp_path, **fields)
    for cmd in (["replay", target],
                ["play", str(ROOT / "tests" / "fixtures" / "tiny.rules"), "--resume", target]):
        code, out, err = cli(*cmd)
        no_crash(out, err)
        assert code == 1, (cmd, out, err)
        assert message in err, err


def test_saves_of_this_version_and_its_patch_releases_replay(tmp_path: Path) -> None:
    from mercator.interpreter.tools.version import engine_version
    major, minor = engine_version().split(".")[:2]
    for version in (engine_version(), f"{major}.{minor}.999", ""):
        code, out, err = cli("replay", _tiny_save(tmp_path, engine_version=version))
        assert code == 0, (version, err)


# ------------------------------------------------------------------ L: a long decision log
LOOP = """game "Loop" players 2..2
player { money: int }
round turn limit 1 {
  phase go {
    let p = first(players)
    while true limit 30000 { let x = choose p one of 1..2  p.money += x }
  }
}
score p: p.money
"""


def _log_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if "decision log (option indices)" in ln]
    assert len(lines) == 1, err[-3000:]
    return lines[0]


def test_a_game_stopped_by_a_limit_prints_a_short_log_and_the_command_that_reproduces_it(
        tmp_path: Path) -> None:
    path = tmp_path / "loop.rules"
    path.write_text(LOOP)
    code, out, err = cli("simulate", str(path), "--games", "2", "--seed", "5")
    no_crash(out, err)
    assert code == 1
    assert "loop.rules:6:5: rule error: 'while' ran more than its limit of 30000 times" in err
    assert len(err) < 3000, len(err)          # (was 90 KB: every decision on one line)
    log = _log_line(err)
    assert re.search(r"game seed 5; decision log \(option indices\): \[(\d, ){10}… 29,980 "
                     r"more …(, \d){10}\] \(30,000 decisions; the first and last 10 shown\)$",
                     log), log
    m = re.search(r"reproduce with: mercator (simulate .*)$", err, flags=re.M)
    assert m, err
    code, out, again = cli(*m.group(1).split())
    assert code == 1 and _log_line(again) == log, again
    # play: the same, and the command it prints plays the same game again
    code, out, err = cli("play", str(path), "--seats", "random,random", "--seed", "3")
    assert code == 1
    log = _log_line(err)
    assert "(30,000 decisions; the first and last 10 shown)" in log and len(log) < 300
    m = re.search(r"reproduce with: mercator (play .*)$", err, flags=re.M)
    assert m, err
    code, out, again = cli(*m.group(1).split())
    assert code == 1 and _log_line(again) == log
    # with --save, the save reproduces it
    save = tmp_path / "g.json"
    code, out, err = cli("play", str(path), "--seats", "random,random", "--seed", "3",
                         "--save", str(save))
    assert code == 1 and _log_line(err) == log
    assert f"reproduce the error with: mercator replay {save}" in err
    code, out, again = cli("replay", str(save))
    assert code == 1 and "'while' ran more than its limit of 30000 times" in again
    assert _log_line(again) == log


def test_a_short_log_is_printed_whole() -> None:
    from mercator.interpreter.cli.common import decision_log_line
    assert decision_log_line(3, [0, 1, 2]) == \
        "  game seed 3; decision log (option indices): [0, 1, 2]"
    assert decision_log_line(None, list(range(30))).endswith(str(list(range(30))))
    assert decision_log_line(1, [1] * 5000, whole=True).endswith(str([1] * 5000))


def test_a_chain_of_triggers_past_the_limit_is_a_rule_error_at_the_emit(tmp_path: Path) -> None:
    """Triggers count toward the same limit: check cannot see this chain, the engine stops it."""
    def events(n: int) -> str:
        lines = ['game "Ev" players 2..2', "player { money: int }"]
        lines += [f"event e{i}(p: player)" for i in range(1, n + 1)]
        lines += [f"on e{i}(p) {{ p.money += 1  emit e{i + 1}(p) }}" for i in range(1, n)]
        lines.append(f"on e{n}(p) {{ let x = choose p one of 1..2  p.money += x }}")
        lines.append("round turn limit 1 { phase go { for p in players { emit e1(p) } } }")
        return "\n".join(lines + ["score p: p.money"]) + "\n"
    path = tmp_path / "ev.rules"
    path.write_text(events(1000))                    # 1,000 triggers one inside another: fine
    code, out, err = cli("simulate", str(path), "--games", "2")
    no_crash(out, err)
    assert code == 0, err
    path.write_text(events(1500))
    for cmd in (["simulate", "--games", "2"], ["play", "--seats", "random,random"]):
        code, out, err = cli(cmd[0], str(path), *cmd[1:])
        no_crash(out, err)
        assert code == 1, err
        assert re.search(r"ev\.rules:2502:29: rule error: procedures and triggers running one "
                         r"inside another more than 1,000 deep", err), err[-2000:]
