"""`mercator sweep` (interpreter/tools/sweep.py, tools/overrides.py, cli/sweep.py): --set read
against the rulebook (lists, ranges, steps, elements of tables, every bad input a usage error
with its message), each setting's program built in memory, win rates known exactly in a game
written for it (tests/fixtures/sweep/handicap.rules: the first seat wins while handicap < 3,
shares every win at 3, loses above), grids, the recommendation, --json, --results (a rerun
plays nothing; a cut file is finished), --adaptive, workers and Ray alike, the report (PNG,
HTML, and the HTML in Chromium)."""
from __future__ import annotations

import json
import re
import math
from pathlib import Path
from typing import Any

import pytest

from mercator.interpreter.cli.main import main
from mercator.interpreter.tools import parallel
from mercator.interpreter.tools import sweep as S
from mercator.interpreter.tools.overrides import program_with

ROOT = Path(__file__).resolve().parent.parent
HANDICAP = str(ROOT / "tests" / "fixtures" / "sweep" / "handicap.rules")
UNITS = str(ROOT / "tests" / "fixtures" / "sweep" / "units.rules")
DIVIDE = str(ROOT / "tests" / "fixtures" / "sweep" / "divide.rules")
SEAT_CASH = str(ROOT / "rulebooks" / "variants" / "manila_seat_cash.rules")
FAST = ["--seats", "random", "--workers", "1"]


def sweep_json(capsys: pytest.CaptureFixture, *argv: str) -> dict[str, Any]:
    assert main(["sweep", *argv, "--json", *FAST]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def win_rates(doc: dict[str, Any], seat: int) -> list[float]:
    return [next(m["value"] for m in s["measures"] if m["measure"] == f"win rate P{seat}")
            for s in doc["settings"]]


# ------------------------------------------------------------------ VALUES
@pytest.mark.parametrize("text, values", [
    ("25,30,35", [25, 30, 35]), ("20..40", list(range(20, 41))), ("20..40:5", [20, 25, 30, 35, 40]),
    ("20..41:5", [20, 25, 30, 35, 40]), ("-2..2:2", [-2, 0, 2]), ("7..7", [7]),
    ("calm, wild", ["calm", "wild"]), ("true,false", ["true", "false"])])
def test_values_lists_and_ranges(text: str, values: list[Any]):
    assert S.parse_values(text, "x") == values


@pytest.mark.parametrize("text, message", [
    ("", "--set x=: no values"),
    ("40..20", "--set x=40..20: an empty range (20 is below 40)"),
    ("1..5:0", "--set x=1..5:0: the step must be at least 1, not 0"),
    ("1..x", "--set x=1..x: a range is two whole numbers, LOW..HIGH, with an optional :STEP"),
    ("1,,2", "--set x=1,,2: an empty value in the list"),
    ("1,2,1", "--set x=1,2,1: 1 is given twice")])
def test_bad_values_say_what_is_wrong(text: str, message: str):
    with pytest.raises(S.SweepError) as e:
        S.parse_values(text, "x")
    assert str(e.value) == message and e.value.hint


def test_set_with_a_key():
    assert S.parse_set("rounds_for[3]=8..12") == ("rounds_for", "3", "8..12")
    assert S.parse_set("start=1,2") == ("start", None, "1,2")
    with pytest.raises(S.SweepError):
        S.parse_set("no value")


# ------------------------------------------------------------------ the games
def test_win_rates_per_value_are_as_the_rules_say(capsys: pytest.CaptureFixture):
    doc = sweep_json(capsys, HANDICAP, "--set", "handicap=0..5", "--games", "6")
    assert [s["values"] for s in doc["settings"]] == [{"handicap": v} for v in range(6)]
    assert win_rates(doc, 1) == [1, 1, 1, 0.5, 0, 0]
    assert win_rates(doc, 2) == [0, 0, 0, 0.5, 1, 1]
    assert [s["fair"] for s in doc["settings"]] == [False] * 3 + [True] + [False] * 2
    assert [s["today"] for s in doc["settings"]] == [True] + [False] * 5
    assert doc["recommendation"] == {"values": {"handicap": 3}, "fair": True,
                                     "text": doc["recommendation"]["text"]}
    assert doc["axes"] == [{"name": "handicap", "key": None, "label": "handicap",
                            "values": [0, 1, 2, 3, 4, 5], "today": 0}]
    first = doc["settings"][0]
    assert first["games"] == 6 and first["failed"] == 0 and first["largest_advantage"] == 0.5
    names = [m["measure"] for m in first["measures"]]
    assert names[:9] == ["win rate P1", "win rate P2", "advantage P1", "advantage P2",
                         "score P1", "score P2", "decisions", "rounds", "stat handicaps per game"]
    assert "decisiveness" in names[9:]              # and the balance measures (below)
    stats = [s["measures"][8]["value"] for s in doc["settings"]]
    assert stats == [0, 2, 4, 6, 8, 10]                 # the handicap, once for each of 2 seats
    adv = first["measures"][2]
    assert adv["value"] == 0.5 and adv["ci95"][1] == pytest.approx(0.5)
    score = first["measures"][4]
    assert score["value"] == 3 and score["ci95"] == [3, 3]


def test_a_grid_plays_every_combination_and_elements_of_tables(capsys: pytest.CaptureFixture):
    doc = sweep_json(capsys, HANDICAP, "--set", "handicap=2,3", "--set", "bonus_for[2]=0,1",
                     "--games", "6")
    assert [tuple(s["values"].values()) for s in doc["settings"]] == [(2, 0), (2, 1), (3, 0),
                                                                      (3, 1)]
    assert win_rates(doc, 1) == [1, 1, 0.5, 1]
    assert doc["recommendation"]["values"] == {"handicap": 3, "bonus_for[2]": 0}
    # a list's element, indexed from 0: the second seat's extra beats the first seat's 3 at 4
    doc = sweep_json(capsys, HANDICAP, "--set", "extra[1]=2..4", "--games", "2")
    assert win_rates(doc, 2) == [0, 0.5, 1]
    assert doc["axes"][0]["label"] == "extra[1]" and doc["axes"][0]["today"] == 0


def test_the_setting_is_in_the_program_not_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Manila's cash by seat (a designer's variant): the third seat's extra 10 pesos are there
    at the start; nothing is written (the folder stays empty)."""
    from mercator.interpreter.engine.view import observe
    monkeypatch.chdir(tmp_path)
    prog = program_with(SEAT_CASH, (("seat_extra", 2, "int", 10),))
    assert prog.consts["seat_extra"] == [0, 0, 10, 0, 0]
    pesos = [p["pesos"] for p in observe(prog, prog.new_game(3, 0), 0)["players"]]
    assert pesos == [30, 30, 40]
    base = program_with(SEAT_CASH, ())
    assert [p["pesos"] for p in observe(base, base.new_game(3, 0), 0)["players"]] == [30] * 3
    assert list(tmp_path.iterdir()) == []


def test_the_recommendation_is_the_fair_setting_nearest_today():
    axis = S.Axis("x", None, "int", (10, 20, 30, 40, 50), 25)
    fair = [S.Measure("win rate P1", 0.5, 0.3, 0.7), S.Measure("win rate P2", 0.5, 0.3, 0.7),
            S.Measure("advantage P1", 0.0), S.Measure("advantage P2", 0.0)]
    unfair = [S.Measure("win rate P1", 0.9, 0.8, 0.95), S.Measure("win rate P2", 0.1, 0.05, 0.2),
              S.Measure("advantage P1", 0.4), S.Measure("advantage P2", -0.4)]
    settings = [(v,) for v in axis.values]
    rec = S.recommend([axis], settings, [fair, unfair, unfair, unfair, fair], 2)
    assert rec.setting == (10,) and rec.fair           # 15 away, nearer than 50 (25 away)
    rec = S.recommend([axis], settings, [unfair, unfair, unfair, fair, fair], 2)
    assert rec.setting == (40,)
    rec = S.recommend([axis], settings, [fair, unfair, unfair, fair, unfair], 2)
    assert rec.setting == (10,)                        # as near as 40: the earlier
    rec = S.recommend([axis], settings, [unfair] * 5, 2)
    assert not rec.fair and rec.setting == (20,) and "no setting is fair" in rec.text
    assert S.distance([axis], (25,)) == 0 and S.distance([axis], (50,)) == pytest.approx(25 / 40)


def test_the_table_and_the_recommendation_on_stdout(capsys: pytest.CaptureFixture):
    assert main(["sweep", HANDICAP, "--set", "handicap=2..4", "--games", "4", *FAST]) == 0
    text = capsys.readouterr().out
    assert "3 settings · 4 games each on seeds from 0" in text
    assert "handicap=3" in text and "recommended: handicap=3 — every seat's 95% interval" in text


# ------------------------------------------------------------------ results file, adaptive
def test_results_file_resumes(tmp_path: Path, capsys: pytest.CaptureFixture,
                              monkeypatch: pytest.MonkeyPatch):
    results = tmp_path / "sweep.jsonl"
    argv = [HANDICAP, "--set", "handicap=2..4", "--games", "5", "--results", str(results)]
    first = sweep_json(capsys, *argv)
    lines = results.read_text().splitlines()
    assert len(lines) == 15
    assert {json.loads(x)["run"]["setting"] for x in lines} == {"handicap=2", "handicap=3",
                                                                "handicap=4"}
    played = []
    real = parallel.play_one
    monkeypatch.setattr(parallel, "play_one", lambda *a, **k: played.append(a) or real(*a, **k))
    again = sweep_json(capsys, *argv)
    assert played == [] and results.read_text().splitlines() == lines
    results.write_text("\n".join(lines[:7]) + "\n")          # a run stopped part-way
    finished = sweep_json(capsys, *argv)
    assert len(played) == 8 and len(results.read_text().splitlines()) == 15
    for doc in (again, finished):
        doc.pop("seconds")
    first.pop("seconds")
    assert again == first and finished == first


def test_each_setting_has_the_balance_measures_of_its_games(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture):
    """Games are played with their detail (tools/game_detail.py), so a setting has the
    measures of tools/balance.py too: in handicap.rules the scores are fixed from the start, so
    the winner leads from the first point (decisiveness 0, no lead change), the one phase runs
    once a game, and a seat whose pick is left to chance has no dominant option; the detail
    is kept in the results file and read back on a rerun (the same measures)."""
    results = tmp_path / "d.jsonl"
    argv = [HANDICAP, "--players", "2", "--set", "handicap=0,5", "--games", "6",
            "--results", str(results)]
    doc = sweep_json(capsys, *argv)
    for s in doc["settings"]:
        m = {r["measure"]: r for r in s["measures"]}
        assert (m["decisiveness"]["value"], m["lead changes"]["value"],
                m["comebacks"]["value"]) == (0.0, 0.0, 0.0)
        assert m["rule phase pick per game"]["value"] == 1.0
        assert m["rule phase pick per game"]["unit"] == "runs per game"
        assert not any(r.startswith("dominant option") for r in m)
    assert all("trajectory" in json.loads(x)["detail"]
               for x in results.read_text().splitlines())
    again = sweep_json(capsys, *argv)
    for d in (doc, again):
        d.pop("seconds")
    assert again == doc


def test_adaptive_spends_the_budget_where_the_answer_is_open(capsys: pytest.CaptureFixture):
    doc = sweep_json(capsys, HANDICAP, "--set", "handicap=2..4", "--games", "6", "--adaptive",
                     "--budget", "30")
    games = [s["games"] for s in doc["settings"]]
    # handicap 2 and 4 are shown unfair by their first 6 games (100% [61, 100], 0% [0, 39]);
    # 3 (fair so far) gets every further batch
    assert games == [6, 18, 6] and doc["adaptive"]
    assert win_rates(doc, 1) == [1, 0.5, 0]
    doc = sweep_json(capsys, HANDICAP, "--set", "handicap=2..4", "--games", "3", "--adaptive",
                     "--budget", "16")
    assert sum(s["games"] for s in doc["settings"]) <= 16


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("argv, message", [
    (["--set", "handycap=1,2"], "--set handycap: the rulebook has no const or table 'handycap'"),
    (["--set", "handicap=a,b"], "--set handicap: 'a' is not a whole number, and handicap is an "
                                "int ("),
    (["--set", "handicap=5..1"], "an empty range (1 is below 5)"),
    (["--set", "bonus_for[4]=1"], "--set bonus_for[4]: bonus_for has no key 4"),
    (["--set", "extra[3]=1"], "extra has 3 elements, indexed 0 to 2, not 3"),
    (["--set", "mood=calm,stormy"], "'stormy' is not a member of Mood"),
    (["--set", "loud=maybe"], "'maybe' is not true or false"),
    (["--set", "extra=1"], "extra is a list<int>"),
    (["--set", "turns[0]=1"], "turns is a int, not a list or map"),
    (["--set", "handicap=1", "--set", "handicap=2"], "--set handicap: set twice"),
    ([], "sweep needs at least one --set NAME=VALUES"),
    (["--set", "handicap=1", "--games", "0"], "--games must be at least 1"),
    (["--set", "handicap=1", "--budget", "9"], "--budget goes with --adaptive"),
    (["--set", "handicap=1", "--report", "x.pdf"], "--report x.pdf: a report is written as PNG"),
    (["--set", "handicap=1", "--seats", "robot"], "--seats"),
])
def test_bad_input_is_a_usage_error_without_a_traceback(argv: list[str], message: str,
                                                       capsys: pytest.CaptureFixture):
    assert main(["sweep", HANDICAP, *argv]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and message in cap.err and "Traceback" not in cap.err
    assert "hint:" in cap.err


def test_a_setting_that_fails_the_checks_shows_the_diagnostic(capsys: pytest.CaptureFixture):
    assert main(["sweep", UNITS, "--set", "fee=1,0", *FAST]) == 2
    err = capsys.readouterr().err
    assert "units.rules:12:3: error[E150]: bundle part 'coins': the unit must be at least 1, " \
           "not 0" in err
    assert "--set: with fee=0 the rulebook does not check (see above)" in err


def test_a_setting_that_breaks_the_games_is_said_and_left_out(capsys: pytest.CaptureFixture):
    assert main(["sweep", DIVIDE, "--set", "divisor=1,0", "--games", "3", *FAST]) == 0
    cap = capsys.readouterr()
    assert "divide.rules:15:1: rule error: the score of P1 cannot be computed (division by " \
           "zero)" in cap.err
    assert "note: with divisor=0, 3 of 3 games failed (first, seed 0: " in cap.err
    assert re.search(r"divisor=0 +0 \(3 failed\) +— +— +— +— +—", cap.out)
    assert "recommended: divisor=1 (today's rulebook)" in cap.out
    doc = sweep_json(capsys, DIVIDE, "--set", "divisor=1,0", "--games", "3")
    broken = doc["settings"][1]
    assert broken["games"] == 3 and broken["failed"] == 3 and broken["measures"] == []
    assert broken["fair"] is None


def test_help_names_every_flag_with_an_example(capsys: pytest.CaptureFixture):
    assert main(["sweep", "--help"]) == 0
    text = capsys.readouterr().out
    assert "example:\n  mercator sweep" in text
    for flag in ("--set", "--games", "--players", "--seats", "--seed", "--workers", "--backend",
                 "--results", "--adaptive", "--budget", "--json", "--report"):
        assert flag in text
    assert "(default: ismcts)" in text
    assert main(["--help"]) == 0
    assert "sweep" in capsys.readouterr().out


# ------------------------------------------------------------------ workers, Ray
def test_workers_give_the_same_results(capsys: pytest.CaptureFixture):
    argv = ["sweep", SEAT_CASH, "--players", "3", "--set", "seat_extra[2]=0,20", "--games", "4",
            "--seats", "random", "--json"]
    assert main(argv + ["--workers", "1"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main(argv + ["--workers", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    one.pop("seconds"), two.pop("seconds")
    assert one == two


def test_ray_gives_the_same_results_as_workers(capsys: pytest.CaptureFixture):
    ray = pytest.importorskip("ray")
    argv = ["sweep", HANDICAP, "--set", "handicap=2..4", "--games", "3", "--seats", "random",
            "--json"]
    assert main(argv + ["--workers", "2"]) == 0
    local = json.loads(capsys.readouterr().out)
    try:
        ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False,
                 runtime_env={"env_vars": {"PYTHONPATH": parallel._project_root()}})
        assert main(argv + ["--backend", "ray"]) == 0
    finally:
        ray.shutdown()
    on_ray = json.loads(capsys.readouterr().out)
    local.pop("seconds"), on_ray.pop("seconds")
    assert on_ray == local


# ------------------------------------------------------------------ the report
def test_the_report_png_and_html(tmp_path: Path, capsys: pytest.CaptureFixture):
    pytest.importorskip("matplotlib")
    png, page = tmp_path / "s.png", tmp_path / "s.html"
    assert main(["sweep", HANDICAP, "--set", "handicap=2..4", "--games", "3", "--report",
                 str(png), *FAST]) == 0
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert main(["sweep", HANDICAP, "--set", "handicap=2,3", "--set", "bonus_for[2]=0,1",
                 "--games", "6", "--report", str(page), *FAST]) == 0
    text = page.read_text()
    assert text.count("data:image/png;base64,") == 2           # two heat maps
    assert "recommended: handicap=3, bonus_for[2]=0" in text and "http" not in text
    assert f"report written to {page}" in capsys.readouterr().err


def test_reports_of_words_and_of_three_constants(tmp_path: Path, capsys: pytest.CaptureFixture):
    pytest.importorskip("matplotlib")
    page = tmp_path / "words.html"
    assert main(["sweep", HANDICAP, "--set", "mood=calm,wild", "--set", "loud=true,false",
                 "--set", "label=plain,\"x\"", "--games", "2", "--report", str(page), *FAST]) == 0
    text = page.read_text()
    assert text.count("data:image/png;base64,") == 1           # the largest advantage, by setting
    assert "mood=wild, loud=true, label=&quot;x&quot;" in text      # (escaped)
    page = tmp_path / "enum.html"
    assert main(["sweep", HANDICAP, "--set", "mood=calm,wild", "--games", "2", "--report",
                 str(page), *FAST]) == 0
    assert page.read_text().count("data:image/png;base64,") == 9
    assert "recommended: mood=calm (today's rulebook)" in capsys.readouterr().out


def test_the_html_report_opens_in_chromium(tmp_path: Path, capsys: pytest.CaptureFixture):
    pytest.importorskip("matplotlib")
    from browser import why_no_browser
    reason = why_no_browser()
    if reason is not None:
        pytest.skip(f"no browser: {reason}")
    page = tmp_path / "sweep.html"
    assert main(["sweep", HANDICAP, "--set", "handicap=1..4", "--games", "6", "--report",
                 str(page), *FAST]) == 0
    from browser import Browser
    from selenium.webdriver.common.by import By
    b = Browser()
    try:
        b.driver.get(page.as_uri())
        imgs = b.driver.find_elements(By.TAG_NAME, "img")
        assert len(imgs) == 9    # win rate, advantage, score, decisions, rounds, the balance three, stat
        assert all(b.driver.execute_script("return arguments[0].naturalWidth", i) > 100
                   for i in imgs)          # every embedded picture decoded
        assert "recommended: handicap=3" in b.driver.find_element(By.ID, "recommendation").text
        rows = b.driver.find_elements(By.CSS_SELECTOR, "tbody tr")
        assert len(rows) == 4
    finally:
        b.close()


def test_measures_leave_out_failed_games():
    ok = parallel.Outcome(0, (0,), (3, 0), (), 2, 1)
    bad = parallel.Outcome(1, failure="rule", message="boom")
    rows = S.setting_measures([ok, bad], 2, [])
    assert S.by_name(rows)["win rate P1"].value == 1
    assert S.setting_measures([bad], 2, []) == []
    assert math.isnan(S.largest_advantage([], 2))


def test_dominant_options_are_told_once_a_decision_and_option():
    """The terminal names a dominant option (docs/balance.md) once for each decision and
    option, with the seats and the settings where it was found and the range of its shares."""
    from mercator.interpreter.cli.sweep import _dominant_lines
    from mercator.interpreter.tools.balance import Measure
    axes = [S.Axis("x", None, "int", (1, 2), 1)]

    def dom(seat: int, what: str, share: float) -> Measure:
        return Measure(f"dominant option seat {seat}: {what}", share)
    fee, pas = "name the fee -> 600", "move the courier -> pass"
    measures = [[dom(1, fee, 1.0), dom(2, fee, 1.0), dom(2, pas, 0.93)],
                [dom(1, fee, 0.95), dom(2, fee, 1.0)]]
    lines = _dominant_lines(axes, [(1,), (2,)], measures, 2)
    assert lines[0] == f"dominant option: {fee}: every seat, in every setting (95–100% of the " \
        "decisions there)"
    assert lines[1].startswith(f"dominant option: {pas}: seat 2, with x=1 (93%")
    assert len(lines) == 2
