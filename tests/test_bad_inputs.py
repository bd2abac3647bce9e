"""Issue 12, hardening: every bad input gets a clear, located, user-level answer; no game lost.

Exit codes: 0 ok, 1 rule errors, 2 usage; never "internal error", never a traceback, never a hang.
Each test below names the failure it guards against; the battery at the end runs well over a
hundred bad inputs (rulebook files, flags, saves, typed moves) through `interpreter.cli.main`
in-process, each under a time limit.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from time_limit import TookTooLong, time_limit

from mercator.interpreter.agents.base import match_choice
from mercator.interpreter.cli.main import main
from mercator.interpreter.engine.nodes import Option
from mercator.interpreter.tools.saves import _checksum, load_save, save

ROOT = Path(__file__).resolve().parent.parent
TINY = str(ROOT / "tests" / "fixtures" / "tiny.rules")
BAD = ROOT / "tests" / "fixtures" / "bad_inputs"
SETUP_ERROR = str(BAD / "setup_error.rules")
HUGE_SCORE = str(BAD / "huge_score.rules")
ESCAPES = str(BAD / "escapes.rules")
PASS_TWICE = str(BAD / "pass_twice.rules")
CASE_SECONDS = 10


def run(argv: list[str], stdin: str = "", seconds: int = CASE_SECONDS) -> tuple[int, str, str]:
    """main(argv) in-process with stdin given and stdout/stderr captured: (code, out, err)."""
    o, e = io.StringIO(), io.StringIO()
    old_in = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with time_limit(seconds), contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
            code = main(argv)
    finally:
        sys.stdin = old_in
    return code, o.getvalue(), e.getvalue()


def clean(code: int, out: str, err: str, allowed: tuple[int, ...] = (1, 2)) -> None:
    """The answer of a bad input: an expected exit code, no internal error, no traceback."""
    both = out + err
    assert "internal error" not in both, both[-2000:]
    assert "Traceback" not in both, both[-2000:]
    assert code in allowed, (code, both[-2000:])


def write_save(path: Path, **fields: Any) -> str:
    """A save of TINY (3 players, seed 5, no decisions) with fields replaced, checksum fixed."""
    rel = os.path.relpath(TINY, path.parent)
    doc: dict[str, Any] = {"mercator_save": 1, "engine_version": "0.1.0", "rulebook": rel,
                           "rulebook_sha256": "", "uses_sha256": {}, "players": 3, "seed": 5,
                           "decisions": [], "labels": [], "explicit_chance": False}
    save(str(path), TINY, {}, 3, 5, [], [])
    doc.update({k: v for k, v in json.loads(path.read_text()).items() if k != "checksum"})
    doc.update(fields)
    doc["checksum"] = _checksum(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[str]:
    """A named pipe nobody writes to (opening it for reading would block forever)."""
    p = tmp_path / "pipe.rules"
    os.mkfifo(p)
    yield str(p)


# ------------------------------------------------------------------ 1. errors before the first decision
def test_play_reports_a_setup_error_as_a_located_rule_error():
    code, out, err = run(["play", SETUP_ERROR, "--seats", "random,random", "--seed", "1"])
    clean(code, out, err, (1,))
    assert "setup_error.rules:7:11: rule error: cannot draw from an empty list" in err
    assert "game seed 1" in err


def test_simulate_reports_a_setup_error_as_a_located_rule_error():
    code, out, err = run(["simulate", SETUP_ERROR, "--games", "3", "--seed", "4"])
    clean(code, out, err, (1,))
    assert "setup_error.rules:7:11: rule error" in err
    assert "--seed 4" in err


def test_resume_of_a_game_whose_setup_fails_is_a_rule_error(tmp_path):
    rules = tmp_path / "setup_error.rules"
    shutil.copy(SETUP_ERROR, rules)
    target = tmp_path / "game.json"
    save(str(target), str(rules), {}, 2, 1, [], [])
    code, out, err = run(["play", str(rules), "--resume", str(target), "--seats",
                          "random,random"])
    clean(code, out, err, (1,))
    assert "rule error: cannot draw from an empty list" in err


def test_compare_run_as_a_module_reports_a_setup_error():
    """`python -m interpreter.cli.main compare`: cli_design's Failed must be the one main() catches."""
    proc = subprocess.run([sys.executable, "-m", "mercator.interpreter.cli.main", "compare", SETUP_ERROR,
                           SETUP_ERROR, "--games", "2"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    clean(proc.returncode, proc.stdout, proc.stderr, (1,))
    assert "rule error: cannot draw from an empty list" in proc.stderr


# ------------------------------------------------------------------ 2. file access in the loader
def _game_using(tmp_path: Path, target: str, how: str = "use") -> str:
    p = tmp_path / "game.rules"
    if how == "use":
        p.write_text(f'use "{target}"\n' + Path(TINY).read_text(), encoding="utf-8")
    else:
        p.write_text(f'variant "V" of "{target}"\n', encoding="utf-8")
    return str(p)


def test_use_of_a_system_file_is_refused_without_echoing_it(tmp_path):
    code, out, err = run(["check", _game_using(tmp_path, "/etc/passwd")])
    clean(code, out, err, (1,))
    assert "game.rules:1:1: error[E113]: cannot use '/etc/passwd'" in err
    assert "root:" not in err


def test_variant_of_a_file_that_is_not_a_rulebook_is_refused(tmp_path):
    (tmp_path / "notes.txt").write_text("secret: 42\n")
    code, out, err = run(["check", _game_using(tmp_path, "notes.txt", how="variant")])
    clean(code, out, err, (1,))
    assert "error[E113]" in err and "secret" not in err


def test_use_of_a_fifo_does_not_hang(tmp_path, fifo):
    code, out, err = run(["check", _game_using(tmp_path, fifo)], seconds=5)
    clean(code, out, err, (1,))
    assert "error[E113]" in err and "not a regular file" in err


def test_main_path_that_is_a_fifo_does_not_hang(fifo):
    code, out, err = run(["check", fifo], seconds=5)
    clean(code, out, err, (1,))
    assert "error[E000]" in err


def test_main_path_that_is_not_a_rulebook_is_refused_without_echoing_it():
    code, out, err = run(["check", "/etc/passwd"])
    clean(code, out, err, (1,))
    assert "only files named *.rules" in err and "root:" not in err


def test_relative_use_and_variant_paths_still_work():
    for path in sorted((ROOT / "rulebooks" / "variants").glob("*.rules")):
        code, out, err = run(["check", str(path)], seconds=60)
        assert code == 0, err


# ------------------------------------------------------------------ 3. saves
def test_save_path_with_nul_is_refused():
    code, out, err = run(["replay", "game\0.json"])
    clean(code, out, err, (1,))
    assert "not a Mercator save" in err


def test_deeply_nested_save_is_refused(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text('{"mercator_save": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code, out, err = run(["replay", str(p)])
    clean(code, out, err, (1,))
    assert "not a Mercator save" in err


def test_save_with_a_huge_integer_is_refused(tmp_path):
    p = tmp_path / "big.json"
    p.write_text('{"mercator_save": 1, "seed": ' + "9" * 5000 + "}")
    code, out, err = run(["replay", str(p)])
    clean(code, out, err, (1,))
    assert "not a Mercator save" in err


def test_save_with_a_lone_surrogate_is_refused(tmp_path):
    p = tmp_path / "sur.json"
    p.write_text('{"mercator_save": 1, "labels": ["\\ud800"], "checksum": "x"}')
    code, out, err = run(["replay", str(p)])
    clean(code, out, err, (1,))
    assert "not a Mercator save" in err


def test_save_that_is_a_fifo_does_not_hang(tmp_path):
    p = tmp_path / "pipe.json"
    os.mkfifo(p)
    code, out, err = run(["replay", str(p)], seconds=5)
    clean(code, out, err, (1,))
    assert "not a Mercator save" in err


def test_save_whose_rulebook_is_a_fifo_does_not_hang(tmp_path, fifo):
    target = write_save(tmp_path / "game.json", rulebook=os.path.basename(fifo))
    code, out, err = run(["replay", target], seconds=5)
    clean(code, out, err, (1,))
    assert "cannot be read" in err


@pytest.mark.parametrize("players", [99, 0, -1, 10 ** 30])
def test_save_with_impossible_players_is_refused_by_resume(tmp_path, players):
    target = write_save(tmp_path / "game.json", players=players)
    code, out, err = run(["play", TINY, "--resume", target, "--seats", "random,random,random"])
    clean(code, out, err, (1,))
    assert "not a Mercator save" in err


def test_save_format_true_is_not_format_1(tmp_path):
    target = write_save(tmp_path / "game.json", mercator_save=True)
    code, out, err = run(["replay", target])
    clean(code, out, err, (1,))
    assert "format True is not supported" in err


@pytest.mark.parametrize("field,value", [("explicit_chance", "yes"), ("engine_version", 3),
                                         ("uses_sha256", {"x.rules": 1})])
def test_save_with_wrong_types_is_refused(tmp_path, field, value):
    target = write_save(tmp_path / "game.json", **{field: value})
    with pytest.raises(Exception) as info:
        load_save(target)
    assert "not a Mercator save" in str(info.value)


# ------------------------------------------------------------------ 4. typed moves
OPTIONS = [Option("pass", None), Option("1", 1), Option("2", 2)]


@pytest.mark.parametrize("typed", ["#²", "#" + "9" * 5000, "²", "9" * 5000, "#１"])
def test_odd_digits_are_refused_with_a_message(typed):
    idx, why = match_choice(typed, OPTIONS)
    assert idx is None and why and len(why) < 200


def test_play_survives_odd_digits_and_asks_again():
    code, out, err = run(["play", TINY, "--players", "2", "--seed", "1"],
                         stdin="#²\n#" + "9" * 5000 + "\nquit\n")
    clean(code, out, err, (0,))
    assert out.count("try again") == 2


def test_a_crash_inside_an_agent_saves_the_game_and_says_how_to_resume(tmp_path, monkeypatch):
    from mercator.interpreter.agents import base as agents
    def broken(self: Any, program: Any, state: Any) -> int:
        raise RuntimeError("agent bug")
    monkeypatch.setattr(agents.HumanAgent, "choose", broken)
    target = tmp_path / "game.json"
    code, out, err = run(["play", TINY, "--players", "2", "--seed", "1", "--save", str(target)])
    assert code == 1 and "Traceback" not in err
    assert target.exists()
    assert f"resume with: mercator play {TINY} --resume {target}" in err


# ------------------------------------------------------------------ 5. output paths
def test_play_save_to_a_folder_is_refused_before_the_game(tmp_path):
    code, out, err = run(["play", TINY, "--players", "2", "--seats", "random,random",
                          "--save", str(tmp_path)])
    clean(code, out, err, (2,))
    assert "it is a folder" in err and "game over" not in out


def test_play_save_in_an_unwritable_folder_is_refused_before_the_game(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        if os.access(ro, os.W_OK):
            pytest.skip("running as root: every folder is writable")
        code, out, err = run(["play", TINY, "--players", "2", "--seats", "random,random",
                              "--save", str(ro / "g.json")])
    finally:
        ro.chmod(0o700)
    clean(code, out, err, (2,))
    assert "permission denied" in err and "game over" not in out


def test_save_failure_in_a_missing_folder_is_refused_up_front():
    code, out, err = run(["check", SETUP_ERROR, "--explore", "2", "--save-failure",
                          "/nonexistent/x.json"])
    clean(code, out, err, (2,))
    assert "folder does not exist" in err


# ------------------------------------------------------------------ 6. huge scores
def test_play_reports_a_huge_score_without_crashing():
    """Scores of 5,000 digits: printed in scientific form, or (with the engine's integer bound)
    refused as a located rule error; never Python's int-to-str limit as an internal error."""
    code, out, err = run(["play", HUGE_SCORE, "--seats", "random,random", "--seed", "1"])
    clean(code, out, err, (0, 1))
    assert ("e+5000" in out) if code == 0 else ("huge_score.rules:" in err)


@pytest.mark.parametrize("argv", [["simulate", HUGE_SCORE, "--games", "2"],
                                  ["simulate", HUGE_SCORE, "--games", "2", "--json"],
                                  ["compare", HUGE_SCORE, HUGE_SCORE, "--games", "2"]])
def test_statistics_refuse_huge_scores_clearly(argv):
    code, out, err = run(argv)
    clean(code, out, err, (1,))
    assert "score too large to report" in err or "huge_score.rules:8:" in err


def test_scores_too_large_for_floats_are_shown_and_detected():
    from mercator.interpreter.cli.main import score_text, too_large
    assert score_text(12345) == "12345"
    assert score_text(10 ** 5000 * 3) == "3.000e+5000"
    assert score_text(-(10 ** 40) * 12345) == "-1.234e+44"
    assert too_large([1, 10 ** 200]) and not too_large([1, 10 ** 20])


# ------------------------------------------------------------------ 7. control characters
def test_log_lines_and_labels_are_escaped():
    code, out, err = run(["play", ESCAPES, "--seats", "random,random", "--seed", "1"])
    clean(code, out, err, (0,))
    assert "\x1b" not in out and "\x07" not in out
    assert "clear:\\x1b[2J bell:\\x07 done" in out


def test_prompts_and_menus_are_escaped():
    code, out, err = run(["play", ESCAPES, "--seats", "human,random", "--seed", "1"],
                         stdin="quit\n")
    clean(code, out, err, (0,))
    assert "\x1b" not in out and "a\\x1b[31mred" in out


def test_diagnostics_escape_paths_and_source_lines(tmp_path):
    bad = tmp_path / "bad\x1b[2J.rules"
    bad.write_text(Path(TINY).read_text().replace("p.money -= paid",
                                                  'p.monye -= paid log "\x1b[2J"'))
    code, out, err = run(["check", str(bad), str(tmp_path / "gone\x07.rules")])
    clean(code, out, err, (1, 2))
    assert "\x1b" not in err + out and "\x07" not in err + out
    assert "bad\\x1b[2J.rules" in err and "gone\\x07.rules" in err


# ------------------------------------------------------------------ 8. two options labelled 'pass'
def test_typed_label_naming_two_options_is_ambiguous():
    options = [Option("pass", None), Option("pass", "pass"), Option("play", "play")]
    idx, why = match_choice("pass", options)
    assert idx is None and "#1 or #2" in why
    assert match_choice("#2", options) == (1, "")


def test_play_asks_for_a_number_when_pass_is_ambiguous():
    code, out, err = run(["play", PASS_TWICE, "--seats", "human,random", "--seed", "1"],
                         stdin="pass\nquit\n")
    clean(code, out, err, (0, 1))
    # the checker may refuse such a rulebook outright (E142); if it runs, typing is unambiguous
    assert ("names 2 options" in out) if code == 0 else ("error[E142]" in err)


# ------------------------------------------------------------------ 9. the battery
def _battery_files(tmp: Path) -> list[tuple[str, str]]:
    """(name, path) of bad rulebook paths: missing, folder, devices, other files, bad text."""
    (tmp / "empty.rules").write_text("")
    (tmp / "binary.rules").write_bytes(bytes(range(256)) * 4)
    (tmp / "latin1.rules").write_bytes('game "Café" players 2..2\n'.encode("latin-1"))
    (tmp / "notes.txt").write_text(Path(TINY).read_text())
    (tmp / "esc.rules").write_text('game "\x1b[2J" players 2..2\x07\n')
    (tmp / "long.rules").write_text('game "L" players 2..2\nconst x = ' + "1+" * 20000 + "1\n")
    (tmp / "nested.rules").write_text('game "N" players 2..2\nconst x = ' + "(" * 3000 + "1"
                                      + ")" * 3000 + "\n")
    (tmp / "link.rules").symlink_to("/etc/passwd")
    os.mkfifo(tmp / "pipe.rules")
    (tmp / "dir.rules").mkdir()
    files = [("missing", str(tmp / "missing.rules")), ("folder", str(tmp)),
             ("folder.rules", str(tmp / "dir.rules")), ("dev-null", "/dev/null"),
             ("dev-zero", "/dev/zero"), ("fifo", str(tmp / "pipe.rules")),
             ("passwd", "/etc/passwd"), ("environ", "/proc/self/environ"),
             ("nul", "a\0b.rules"), ("surrogate", str(tmp / "x\udcff.rules")),
             ("empty", str(tmp / "empty.rules")), ("binary", str(tmp / "binary.rules")),
             ("latin1", str(tmp / "latin1.rules")), ("txt", str(tmp / "notes.txt")),
             ("esc", str(tmp / "esc.rules")), ("long", str(tmp / "long.rules")),
             ("nested", str(tmp / "nested.rules")), ("symlink", str(tmp / "link.rules"))]
    for name, target in list(files):
        if name in ("nul", "surrogate"):
            continue
        for how in ("use", "variant"):
            p = tmp / f"{how}_{name}.rules"
            line = f'use "{target}"\n' if how == "use" else f'variant "V" of "{target}"\n'
            p.write_text(line + (Path(TINY).read_text() if how == "use" else ""))
            files.append((f"{how}-{name}", str(p)))
    return files


def _battery_saves(tmp: Path) -> list[tuple[str, str]]:
    """(name, path) of bad save files."""
    raw = {"not-json": "{not json", "list": "[1, 2]", "string": '"save"', "null": "null",
           "deep": '{"a": ' + "[" * 50_000 + "]" * 50_000 + "}",
           "bigint": '{"mercator_save": ' + "1" * 5000 + "}",
           "surrogate": '{"mercator_save": 1, "x": "\\udc80"}',
           "format-3": '{"mercator_save": 3}', "format-str": '{"mercator_save": "1"}',
           "format-float": '{"mercator_save": 1.0}', "no-checksum": '{"mercator_save": 1}'}
    out = []
    for name, text in raw.items():
        p = tmp / f"{name}.json"
        p.write_text(text)
        out.append((name, str(p)))
    fields: dict[str, dict[str, Any]] = {
        "true-format": {"mercator_save": True}, "players-99": {"players": 99},
        "players-0": {"players": 0}, "players-neg": {"players": -1},
        "players-huge": {"players": 10 ** 30}, "players-bool": {"players": True},
        "players-str": {"players": "3"}, "seed-str": {"seed": "5"}, "seed-float": {"seed": 5.5},
        "decisions-str": {"decisions": "0"}, "decisions-bools": {"decisions": [True],
                                                                 "labels": ["x"]},
        "decision-big": {"decisions": [10 ** 20], "labels": ["x"]},
        "decision-neg": {"decisions": [-1], "labels": ["x"]},
        "labels-short": {"decisions": [0], "labels": []},
        "label-wrong": {"decisions": [0], "labels": ["nonsense"]},
        "rulebook-dev-zero": {"rulebook": "/dev/zero"}, "rulebook-passwd": {"rulebook": "/etc/passwd"},
        "rulebook-nul": {"rulebook": "a\0b.rules"}, "rulebook-dir": {"rulebook": "."},
        "rulebook-int": {"rulebook": 3}, "rulebook-empty": {"rulebook": ""},
        "uses-list": {"uses_sha256": []}, "uses-dev": {"uses_sha256": {"/dev/zero": "x"}},
        "chance-str": {"explicit_chance": "no"}, "version-list": {"engine_version": []},
        "sha-int": {"rulebook_sha256": 1},
        "many-decisions": {"decisions": [0] * 500, "labels": ["pass"] * 500},
    }
    for name, change in fields.items():
        out.append((name, write_save(tmp / f"{name}.json", **change)))
    pipe = tmp / "pipe.json"
    os.mkfifo(pipe)
    out += [("fifo", str(pipe)), ("dev-zero", "/dev/zero"), ("folder", str(tmp)),
            ("missing", str(tmp / "none.json")), ("nul", "x\0.json")]
    return out


FLAG_CASES: list[list[str]] = [
    [], ["nonsense"], ["check"], ["play"], ["--nope"], ["play", TINY, "--players", "0"],
    ["play", TINY, "--players", "-1"], ["play", TINY, "--players", str(10 ** 30)],
    ["play", TINY, "--players", "two"], ["play", TINY, "--players", "9" * 5000],
    ["play", TINY, "--seed", "x"], ["play", TINY, "--seats", "robot,human"],
    ["play", TINY, "--seats", "human"], ["play", TINY, "--as", "P9"],
    ["play", TINY, "--as", "all"], ["play", TINY, "--save", "/nonexistent/g.json"],
    ["play", TINY, "--save", "/"], ["play", TINY, "--save", "g\0.json"],
    ["play", TINY, "--save", "/dev/null"], ["play", TINY, "--resume", "/dev/zero"],
    ["simulate", TINY, "--games", "-1"], ["simulate", TINY, "--games", "0"],
    ["simulate", TINY, "--games", "x"], ["simulate", TINY, "--max-decisions", "1"],
    ["simulate", TINY, "--players", "5"], ["simulate", TINY, "--seed", "1e3"],
    ["compare", TINY, TINY, "--games", "1"], ["compare", TINY, TINY, "--players", "9"],
    ["compare", TINY, "/dev/zero"], ["diff", TINY, "/dev/zero"], ["diff", TINY, "/etc/passwd"],
    ["check", TINY, "--explore", "-1"], ["check", TINY, "--explore", "1", "--players", "9"],
    ["check", TINY, "--explore", "1", "--save-failure", "/"],
    ["check", TINY, "--shrink-time", "nan"], ["check", TINY, "--shrink-time", "-1"],
    ["replay", TINY], ["replay", "/etc/passwd"], ["fmt", "/dev/zero"], ["fmt", "/etc/passwd"],
    ["fmt", "x\0.rules"],
]

TYPED = ["", " ", "#", "#0", "#-1", "#99", "#²", "#١", "#" + "9" * 5000, "9" * 5000, "-" * 50,
         "²", "\x1b[2J", "\x00", "\udcff", "pass pass", "cash", "CASH_IN(BLUE)", "0", "11",
         "-5", "1.5", "1e3", "#1.0", "#+1", "  #  2 ", "?", "help", "x" * 10_000, "ＰＡＳＳ"]


def test_battery_of_bad_inputs(tmp_path, monkeypatch):
    cases: list[tuple[str, list[str], str, tuple[int, ...]]] = []
    commands = (("check", ["check"]), ("play", ["play"]), ("simulate", ["simulate"]),
                ("fmt", ["fmt"]), ("learn", ["learn"]))
    (tmp_path / "rules").mkdir()
    for name, path in _battery_files(tmp_path / "rules"):
        for cname, cmd in commands:
            extra = ["--seats", "random,random", "--seed", "1"] if cname == "play" else \
                ["--games", "2"] if cname == "simulate" else \
                ["--games", "5"] if cname == "learn" else []
            # an empty file is a library; a nested expression is fine; fmt reads one file only
            fine = name in ("empty", "use-empty", "nested") or \
                cname == "fmt" and name.startswith(("use-", "variant-"))
            ok: tuple[int, ...] = (0, 1, 2) if fine else (1, 2)
            cases.append((f"{cname} {name}", cmd + [path] + extra, "", ok))
    (tmp_path / "saves").mkdir()
    for name, path in _battery_saves(tmp_path / "saves"):
        cases.append((f"replay {name}", ["replay", path], "", (1, 2)))
        cases.append((f"resume {name}", ["play", TINY, "--resume", path, "--seats",
                                         "random,random,random"], "", (1, 2)))
    for argv in FLAG_CASES:
        cases.append((" ".join(a[:20] for a in argv), argv, "", (1, 2)))
    for typed in TYPED:
        cases.append((f"typed {typed[:20]!r}", ["play", TINY, "--players", "2", "--seed", "3"],
                      typed + "\n", (1,)))
    assert len(cases) >= 100
    monkeypatch.chdir(tmp_path)
    failures = []
    for name, argv, stdin, ok in cases:
        try:
            code, out, err = run(argv, stdin, seconds=CASE_SECONDS)
            clean(code, out, err, ok)
            if name.startswith(("check passwd", "check use-passwd", "check variant-passwd",
                                "check symlink", "check use-symlink", "check environ",
                                "replay rulebook-passwd")):
                assert "root:" not in out + err, "echoed a file that is not a rulebook"
        except (AssertionError, TookTooLong) as exc:
            failures.append(f"{name}: {str(exc)[:300]}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("argv", [
    ["simulate", "rulebooks/manila.rules", "--games", "2", "--max-decisions", "0"],
    ["compare", "rulebooks/manila.rules", "rulebooks/variants/manila_pirates.rules",
     "--max-decisions", "-1"],
    ["sweep", "rulebooks/manila.rules", "--set", "start_pesos=20,30", "--max-decisions", "0"]])
def test_a_max_decisions_below_one_is_a_flag_error_not_the_rulebooks(argv):
    """--max-decisions 0 stopped every game at once and blamed the rulebook ('the game did not
    end within 0 decisions (a rulebook that never ends?)'): it is the flag's error."""
    code, out, err = run(argv)
    clean(code, out, err, (2,))
    assert f"argument --max-decisions: must be at least 1, not {argv[-1]}" in err
    assert "never ends" not in err
