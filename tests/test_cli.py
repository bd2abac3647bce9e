"""The `mercator` command line, saves, views and agents, exercised on tests/fixtures/tiny.rules."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mercator.dsl.loader import load
from mercator.interpreter.agents.base import HumanAgent, QuitGame, RandomAgent, match_choice, play_game
from mercator.interpreter.cli.main import main
from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.program import Program
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.tools.saves import SAVE_FORMAT, SaveError, load_save, replay, save
from mercator.interpreter.engine.view import describe, observe

ROOT = Path(__file__).resolve().parent.parent
TINY = str(ROOT / "tests" / "fixtures" / "tiny.rules")


@pytest.fixture(scope="module")
def prog() -> Program:
    res = load(TINY)
    assert res.ok, res.diagnostics
    return compile_program(res.rulebook)


def _copy_tiny(tmp_path: Path) -> str:
    dst = tmp_path / "tiny.rules"
    shutil.copy(TINY, dst)
    return str(dst)


def _play_to_save(tmp_path: Path, rules: str, seed: int = 5) -> str:
    path = str(tmp_path / "game.json")
    code = main(["play", rules, "--players", "3", "--seats", "random,random,random",
                 "--seed", str(seed), "--save", path])
    assert code == 0
    return path


# ------------------------------------------------------------------ check
def test_check_ok(capsys):
    assert main(["check", TINY]) == 0
    assert capsys.readouterr().out.strip() == f"{TINY}: OK"


def test_check_broken_file_is_located(tmp_path, capsys):
    text = Path(TINY).read_text().replace("p.money -= paid", "p.monye -= paid")
    bad = tmp_path / "broken.rules"
    bad.write_text(text)
    assert main(["check", TINY, str(bad)]) == 1
    cap = capsys.readouterr()
    assert re.search(rf"{re.escape(str(bad))}:\d+:\d+: error\[E\d+\]: .*monye", cap.err)
    assert "did you mean 'money'?" in cap.err
    assert f"{TINY}: OK" in cap.out
    assert "1 file OK, 1 file with 1 error" in cap.out


@pytest.mark.parametrize("content", [b"\xff\xfe\x00garbage", b"game \"X\" players 2..2\n" +
                                     b"(" * 5000, b"}}}{{{" * 100, b"game \"X\" players 2..1\n"])
def test_check_never_shows_a_traceback(tmp_path, capsys, content):
    bad = tmp_path / "weird.rules"
    bad.write_bytes(content)
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(bad) in err


def test_a_library_checks_ok_but_cannot_be_played(capsys):
    lib = str(ROOT / "rulebooks" / "lib" / "auction.rules")
    assert main(["check", lib]) == 0
    assert capsys.readouterr().out.strip() == f"{lib}: OK (library)"
    assert main(["simulate", lib, "--games", "1"]) == 1
    assert "is a library" in capsys.readouterr().err


def test_check_missing_file_is_a_usage_error(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nope.rules")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_usage_errors_exit_2_with_hints(capsys):
    assert main(["play", TINY, "--players", "9"]) == 2
    err = capsys.readouterr().err
    assert "2 to 4 players, not 9" in err and "hint:" in err
    assert main(["play", TINY, "--players", "3", "--seats", "human,robot,random"]) == 2
    err = capsys.readouterr().err
    assert "unknown player 'robot'" in err and "random, human, mcts, ismcts" in err
    assert main(["play", TINY, "--players", "3", "--seats", "random,random"]) == 2
    assert "2 seats given for a game of 3 players" in capsys.readouterr().err
    assert main(["play", TINY, "--players", "3", "--seats", "ismcts:0,random,random"]) == 2
    assert "iterations must be 1 to" in capsys.readouterr().err
    assert main(["simulate", TINY, "--seats", "human"]) == 2
    assert "a simulation has no human seats" in capsys.readouterr().err
    assert main(["simulate", TINY, "--workers", "0"]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err
    assert main(["simulate", TINY, "--games", "many"]) == 2
    assert main(["frobnicate"]) == 2
    assert main([]) == 2


def test_help_has_an_example_on_every_command(capsys):
    for cmd in ("check", "play", "simulate", "replay", "fmt", "learn"):
        assert main([cmd, "--help"]) == 0
        assert f"example:\n  mercator {cmd}" in capsys.readouterr().out


def test_installed_script_version():
    exe = ROOT / ".venv" / "bin" / "mercator"
    if not exe.exists():
        pytest.skip("the console script is not installed in .venv")
    r = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and re.fullmatch(r"mercator \d+\.\d+\.\d+\s*", r.stdout)


def test_version_loads_neither_the_language_nor_the_engine():
    """`mercator --version` is answered by cli/entry.py alone (issue 13: under 0.3 s); every
    other command line still reaches the full command."""
    code = ("import sys; from mercator.interpreter.cli.entry import main; "
            "assert main(['--version']) == 0; "
            "heavy = [m for m in sys.modules if m.startswith(('mercator.dsl', "
            "'mercator.interpreter.engine', 'mercator.interpreter.compiler'))]; "
            "assert not heavy, heavy; "
            "assert main(['check', '--help']) == 0; "
            "assert 'mercator.dsl.loader' in sys.modules")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("mercator ") and "usage: mercator check" in r.stdout


# ------------------------------------------------------------------ simulate
def _simulate_json(capsys, seed: int) -> dict:
    assert main(["simulate", TINY, "--players", "3", "--games", "30", "--seed", str(seed),
                 "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_simulate_json_is_deterministic(capsys):
    a = _simulate_json(capsys, 11)
    for key in ("games", "players", "wins_by_seat", "mean_scores", "sd_scores", "mean_decisions",
                "seconds"):
        assert key in a
    assert a["games"] == 30 and a["players"] == 3
    assert sum(a["wins_by_seat"]) == pytest.approx(30)
    b = _simulate_json(capsys, 11)
    for key in ("wins_by_seat", "mean_scores", "sd_scores", "mean_decisions"):
        assert a[key] == b[key]
    c = _simulate_json(capsys, 12)
    assert (a["mean_scores"], a["mean_decisions"]) != (c["mean_scores"], c["mean_decisions"])


def test_simulate_table(capsys):
    assert main(["simulate", TINY, "--players", "2", "--games", "20", "--seed", "3"]) == 0
    cap = capsys.readouterr()
    lines = cap.out.splitlines()
    assert lines[1].split()[:3] == ["seat", "wins", "win%"] and "95% CI of win%" in lines[1]
    assert lines[2].startswith("1 ") and lines[3].startswith("2 ")
    assert re.match(r"1 +\d+(\.\d)? +[\d.]+% +\[[\d.]+, [\d.]+\] ", lines[2])
    assert re.match(r"games 20 · decisions/game [\d.]+ \(± [\d.]+\) · \S+ games/s", lines[4])
    assert cap.err == ""   # no progress bar when stderr is not a terminal


def test_simulate_broken_rulebook_prints_diagnostics(tmp_path, capsys):
    bad = tmp_path / "b.rules"
    bad.write_text(Path(TINY).read_text().replace("pot += paid", "pott += paid"))
    assert main(["simulate", str(bad), "--games", "2"]) == 1
    assert re.search(r"b\.rules:\d+:\d+: error", capsys.readouterr().err)


def test_simulate_runtime_error_is_located_with_seed_and_log(tmp_path, capsys):
    bad = tmp_path / "rt.rules"   # indexes past the end of 'tokens' once the pot is not empty
    bad.write_text(Path(TINY).read_text().replace("tokens[0].value", "tokens[pot].value"))
    assert main(["check", str(bad)]) == 0
    capsys.readouterr()
    assert main(["simulate", str(bad), "--players", "2", "--games", "5", "--seed", "3"]) == 1
    err = capsys.readouterr().err
    # a rule error, like a diagnostic: file:line:col, the line quoted, a caret under the rule
    m = re.search(r"rt\.rules:(\d+):(\d+): rule error: no item at \d+\n (\d+) \| (.*)\n.*\| +\^", err)
    assert m and m.group(1) == m.group(3) and "tokens[pot].value" in m.group(4), err
    assert "game seed 3" in err and "decision log (option indices): [" in err
    assert "--games 1 --seed 3" in err                      # how to reproduce it
    assert "Traceback" not in err and "internal error" not in err


# ------------------------------------------------------------------ play, saves, replay
def test_play_random_seats_save_and_replay(tmp_path, capsys):
    path = _play_to_save(tmp_path, TINY)
    played = capsys.readouterr().out
    assert "game over" in played and re.search(r"P\d chooses ", played)
    doc = json.loads(Path(path).read_text())
    assert doc["mercator_save"] == SAVE_FORMAT == 2 and doc["players"] == 3 and doc["seed"] == 5
    assert len(doc["decisions"]) == len(doc["labels"]) > 0
    assert main(["replay", path]) == 0
    replayed = capsys.readouterr().out
    # the replay tells the same story and reaches the same result
    assert played.split("game over")[1] == replayed.split("game over")[1]


def test_tampered_save_is_refused(tmp_path, capsys):
    path = _play_to_save(tmp_path, TINY)
    doc = json.loads(Path(path).read_text())
    doc["decisions"][0] = (doc["decisions"][0] + 1) % 3
    Path(path).write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["replay", path]) == 1
    assert "modified" in capsys.readouterr().err
    Path(path).write_text("{not json")
    assert main(["replay", path]) == 1
    assert "not JSON" in capsys.readouterr().err


def test_save_refused_after_rulebook_changes(tmp_path, capsys):
    rules = _copy_tiny(tmp_path)
    path = _play_to_save(tmp_path, rules)
    assert main(["replay", path]) == 0
    Path(rules).write_text(Path(rules).read_text().replace("start_money = 10", "start_money = 11"))
    capsys.readouterr()
    assert main(["replay", path]) == 1
    assert "has changed since this game was saved" in capsys.readouterr().err
    Path(rules).unlink()
    assert main(["replay", path]) == 1
    assert "cannot be read" in capsys.readouterr().err


def test_illegal_decision_in_save_names_the_step(tmp_path, prog):
    res = load(TINY)
    path = str(tmp_path / "s.json")
    save(path, TINY, res.sources, 2, 1, [0, 500], ["pass", "x"])
    with pytest.raises(SaveError, match=r"decision 2 \(round 1, P2 'bid'\): option 500 is not legal"):
        replay(prog, load_save(path))


def _answers_then_eof(*given: str):
    """An input() that gives these answers, then ends (EOFError)."""
    answers = iter(given)

    def eof_after(prompt: str = "") -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None
    return eof_after


def test_quit_mid_game_saves_and_resumes(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("builtins.input", _answers_then_eof("1"))   # one bid, then the end
    path = str(tmp_path / "mid.json")
    assert main(["play", TINY, "--players", "2", "--seed", "2", "--save", path]) == 1
    assert "input ended" in capsys.readouterr().err
    data = load_save(path)
    assert data.labels[0] == "1" and len(data.decisions) >= 1
    assert main(["play", TINY, "--resume", path, "--seats", "random,random"]) == 0
    assert "game over" in capsys.readouterr().out


# ------------------------------------------------------------------ agents and views
def _to_dice(prog: Program):
    """Play both bids as 'pass' with seed 1, so the next decision is P1's secret colour."""
    s = prog.new_game(2, 1)
    while not (isinstance(s.pending, Decision) and s.pending.simultaneous):
        prog.apply(s, "pass")
    return s


def test_human_reasks_on_bad_input(prog):
    s = _to_dice(prog)
    # the colour choice is not of numbers: a bare 1 is refused (#1 picks option 1)
    answers = iter(["x", "#99", "1", "#1"])
    said: list[str] = []
    agent = HumanAgent(input_fn=lambda _p: next(answers), output_fn=said.append)
    assert agent.choose(prog, s) == 0
    text = "\n".join(said)
    assert "'x' matches no option" in text and "there is no option 99" in text
    assert "1 is a number, and this choice is not of numbers" in text
    assert "you are P1" in text          # the human sees their own view first


def test_human_accepts_labels_and_prefixes(prog):
    s = _to_dice(prog)
    labels = [o.label for o in s.pending.options]
    assert HumanAgent(input_fn=lambda _p: "BLUE", output_fn=lambda _t: None).choose(prog, s) == \
        labels.index("blue")
    assert HumanAgent(input_fn=lambda _p: "re", output_fn=lambda _t: None).choose(prog, s) == \
        labels.index("red")


def test_human_end_of_input_is_a_clean_quit(prog):
    s = _to_dice(prog)

    def eof(_p: str) -> str:
        raise EOFError

    with pytest.raises(QuitGame):
        HumanAgent(input_fn=eof, output_fn=lambda _t: None).choose(prog, s)


def test_numeric_labels_win_over_option_numbers():
    from mercator.interpreter.engine.nodes import Option
    opts = [Option("pass", None), Option("1", 1), Option("2", 2)]
    assert match_choice("2", opts) == (2, "")      # the value 2, not the second option
    assert match_choice("#2", opts) == (1, "")
    assert match_choice("9", opts)[0] is None


def test_observe_hides_owner_and_secret_fields(prog):
    s = prog.new_game(3, 4)
    obs = observe(prog, s, 0)
    json.dumps(obs)                                   # JSON-able
    me, other = obs["players"][0], obs["players"][1]
    assert me["you"] and isinstance(me["hand"], dict) and sum(me["hand"].values()) == 1
    assert other["hand"] == {"hidden": True, "size": 1}
    assert other["money"] == 10                      # public
    assert obs["table"]["deck"] == {"hidden": True, "size": 2}   # secret even to the viewer
    assert obs["table"]["pot"] == 0
    spectator = observe(prog, s, None)
    assert all(p["hand"] == {"hidden": True, "size": 1} for p in spectator["players"])
    text = describe(prog, s, 1)
    assert "P2 (you)" in text and "hidden, 2 items" in text


def test_play_game_with_random_agents_is_deterministic(prog):
    a = play_game(prog, 3, 9, [RandomAgent(i) for i in range(3)])
    b = play_game(prog, 3, 9, [RandomAgent(i) for i in range(3)])
    assert a.over and a.history == b.history and a.pending == b.pending


def test_simulate_counts_warnings_not_notes(tmp_path, capsys):
    """Notes (I230, allowed warnings) are shown by `check --verbose`, not counted as warnings by
    the other commands; a real warning still is."""
    assert main(["simulate", str(ROOT / "rulebooks" / "manila.rules"), "--games", "1"]) == 0
    assert "warning" not in capsys.readouterr().err
    p = tmp_path / "w.rules"
    p.write_text(Path(TINY).read_text(encoding="utf-8") + "\nproc unused() { }\n", encoding="utf-8")
    assert main(["simulate", str(p), "--games", "1"]) == 0
    assert "1 warning (see: mercator check" in capsys.readouterr().err


# ------------------------------------------------------------------ simulate: intervals and stats
STATS = ("\nstat rolls counts rolled\n"                  # each dice phase: one roll per player
         "stat sixes counts rolled(p, n) when n == 6\n")


def _tiny_with_stats(tmp_path: Path) -> Path:
    p = tmp_path / "stats.rules"
    p.write_text(Path(TINY).read_text(encoding="utf-8") + STATS, encoding="utf-8")
    return p


def test_wilson_interval_known_values():
    """Wilson score 95% intervals (z = 1.96): 0/10 → [0, 27.8%], 5/10 → [23.7%, 76.3%],
    10/10 → [72.2%, 100%], 298/1000 → [27.0%, 32.7%]; a fractional count (2.5 of 10: shared wins)
    is the rate 0.25 of 10 games, and the interval always holds the observed rate."""
    from mercator.interpreter.tools.designer import wilson_interval
    for k, n, lo, hi in ((0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0),
                         (298, 1000, 0.2704, 0.3271)):
        got = wilson_interval(k, n)
        assert got == pytest.approx((lo, hi), abs=1e-4), (k, n)
    a, b = wilson_interval(2.5, 10)
    assert a < 0.25 < b and (a, b) == pytest.approx((0.0809, 0.5578), abs=1e-4)


def test_simulate_reports_win_intervals_and_declared_stats(tmp_path, capsys):
    """`simulate --json` has a 95% interval per seat around its win rate and every declared
    stat's mean per game, sd and interval; 'rolls' counts one roll per player per round
    (tiny.rules: `for p in players { let n = roll 6 ...}`), so its mean is players × rounds."""
    from mercator.interpreter.agents.spec import AgentSpec
    from mercator.interpreter.tools.parallel import run_games
    rules = _tiny_with_stats(tmp_path)
    assert main(["simulate", str(rules), "--players", "3", "--games", "40", "--seed", "2",
                 "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    for rate, (lo, hi) in zip(r["win_rate"], r["win_rate_ci95"]):
        assert 0 <= lo <= rate <= hi <= 1 and hi - lo > 0.1      # 40 games: wide intervals
    assert list(r["stats"]) == ["rolls", "sixes"]
    res = load(str(rules))
    recs = [o.record for o in run_games(str(rules), compile_program(res.rulebook), 3,
                                        range(2, 42), [AgentSpec("random")] * 3, 100_000)]
    rolls = [g.stats[0] for g in recs]
    assert all(g.stats[0] == 3 * g.rounds for g in recs)
    assert r["stats"]["rolls"]["mean"] == pytest.approx(sum(rolls) / 40, abs=1e-6)
    s = r["stats"]["sixes"]
    assert s["ci95"][0] <= s["mean"] <= s["ci95"][1] and s["sd"] > 0
    assert main(["simulate", str(rules), "--players", "3", "--games", "40", "--seed", "2"]) == 0
    table = capsys.readouterr().out
    assert re.search(r"^stat \(per game\) +mean +± sd +95% CI of the mean$", table, re.M)
    assert re.search(rf"^rolls +{r['stats']['rolls']['mean']:.2f} ", table, re.M)


# ------------------------------------------------------------------ rule errors and internal errors
def test_a_rule_error_reaching_main_is_a_rule_error_not_an_internal_one(tmp_path, capsys,
                                                                         monkeypatch):
    """issue 15: a rulebook's mistake is a 'rule error', located with its line; 'internal error'
    is kept for Mercator's own exceptions."""
    import mercator.interpreter.cli.main as cli
    from mercator.dsl.ast import Span
    from mercator.interpreter.engine.program import MercatorRuntimeError
    rules = tmp_path / "c.rules"
    rules.write_text("game \"C\" players 2..2\n\n\n\n\n    first(players).x = 1 / z\n")

    def rule_fails(args):
        raise MercatorRuntimeError("division by zero", Span(str(rules), 6, 5, 6, 29), [0, 1], 7)
    monkeypatch.setattr(cli, "cmd_simulate", rule_fails)
    assert main(["simulate", TINY]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{rules}:6:5: rule error: division by zero\n"
                          " 6 |     first(players).x = 1 / z\n"
                          "   |     ^^^^^^^^^^^^^^^^^^^^^^^^\n"), err
    assert "game seed 7; decision log (option indices): [0, 1]" in err
    assert "internal error" not in err

    def engine_fails(args):
        raise KeyError("frame")
    monkeypatch.setattr(cli, "cmd_simulate", engine_fails)
    assert main(["simulate", TINY]) == 1
    assert "mercator simulate: internal error: KeyError" in capsys.readouterr().err


# a game of one decision whose score divides by zero (rulebook line 5)
SCORE_FAILS = ('game "S" players 2..2\nplayer { x: int }\ntable { z: int = 0 }\n'
               'round r limit 1 { phase a { let b = choose first(players) one of 1..2 '
               'prompt "n" } }\nscore p: p.x / z\n')


def test_play_locates_a_rule_error_in_the_score(tmp_path, capsys):
    """A rule error in the score (evaluated when the game ends, outside any statement) is
    located at the score declaration and says 'rule error'; with bots only, the same command
    reproduces it."""
    rules = tmp_path / "s.rules"
    rules.write_text(SCORE_FAILS)
    assert main(["play", str(rules), "--seats", "random,random", "--seed", "1"]) == 1
    err = capsys.readouterr().err
    assert re.search(rf"^{re.escape(str(rules))}:5:1: rule error: the score of P1 cannot be "
                     r"computed \(division by zero\)$", err, re.M), err
    assert f"reproduce with: mercator play {rules} --players 2 --seed 1 --seats random,random" in err
    assert "internal error" not in err


def test_a_failed_game_is_saved_in_the_cache_without_save(tmp_path, capsys, monkeypatch):
    """Nothing is lost: a game stopped by a rule error without --save is saved in the per-user
    cache (failed-games/, the newest 20 kept) and replays to the same error. With a seat that
    searches by time the same command would not play the same game: no such hint then."""
    import os
    import mercator.interpreter.cli.main as climain
    cache = tmp_path / "cache"
    monkeypatch.setenv("MERCATOR_CACHE_DIR", str(cache))
    old = cache / "failed-games"
    old.mkdir(parents=True)
    for k in range(25):
        (old / f"x{k}.json").write_text("{}")
        os.utime(old / f"x{k}.json", (1000 + k, 1000 + k))
    rules = tmp_path / "s.rules"
    rules.write_text(SCORE_FAILS)
    assert main(["play", str(rules), "--seats", "ismcts:0.01s,random", "--seed", "1"]) == 1
    err = capsys.readouterr().err
    m = re.search(r"game saved to (\S+) after 1 decision$", err, re.M)
    assert m, err
    saved = m.group(1)
    assert os.path.dirname(saved) == str(old) and os.path.basename(saved).startswith("s-seed-1-")
    assert f"reproduce the error with: mercator replay {saved}" in err
    assert "reproduce with: mercator play" not in err
    left = sorted(os.listdir(old))
    assert len(left) == climain.FAILED_KEPT and "x24.json" in left and "x0.json" not in left
    assert main(["replay", saved]) == 1
    assert "the score of P1 cannot be computed (division by zero)" in capsys.readouterr().err


def test_resume_seats_the_players_the_game_was_saved_with(tmp_path, capsys, monkeypatch):
    """issue 39 (8): the save records each seat's player, and `play --resume` without --seats
    seats them again (it used to seat P2 as random whatever it was); --seats still overrides;
    a save whose seats are malformed is refused with the field named."""
    import json
    monkeypatch.setattr("builtins.input", _answers_then_eof("1"))
    path = str(tmp_path / "mid.json")
    assert main(["play", TINY, "--players", "2", "--seed", "2", "--seats", "human,ismcts:20",
                 "--save", path]) == 1
    err = capsys.readouterr().err
    assert f"resume with: mercator play {TINY} --resume {path}" in err
    data = load_save(path)
    assert data.seats == ["human", "ismcts:20"]
    monkeypatch.setattr("builtins.input", _answers_then_eof())
    assert main(["play", TINY, "--resume", path]) in (0, 1)
    out = capsys.readouterr().out
    assert "P1 human · P2 ismcts:20" in out
    assert main(["play", TINY, "--resume", path, "--seats", "random,random"]) == 0
    assert "P1 random · P2 random" in capsys.readouterr().out
    doc = json.loads(open(path).read())
    doc["seats"] = ["human"]
    from mercator.interpreter.tools.saves import _checksum
    doc["checksum"] = _checksum(doc)
    open(path, "w").write(json.dumps(doc))
    with pytest.raises(SaveError, match="field 'seats' is malformed"):
        load_save(path)
