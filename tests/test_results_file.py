"""`--results FILE` (interpreter/tools/results.py): simulate and compare keep each finished game
in a file and, run again, play only the games it does not hold, so a long run of searching bots
can be stopped and taken up again with the same report as one uninterrupted run."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from mercator.interpreter.agents.spec import parse_seats
from mercator.interpreter.cli.main import main
from mercator.interpreter.tools.results import ResultsFile, run_key, run_resumable

from game_driver import program

ROOT = Path(__file__).resolve().parent.parent
MANILA = str(ROOT / "rulebooks" / "manila.rules")
PIRATES = str(ROOT / "rulebooks" / "variants" / "manila_pirates.rules")
TIMING = ("seconds", "games_per_second")


def simulate(capsys: Any, *flags: str) -> tuple[int, dict, str]:
    code = main(["simulate", MANILA, "--players", "3", "--json", "--workers", "1", *flags])
    cap = capsys.readouterr()
    report = json.loads(cap.out) if code == 0 else {}
    for k in TIMING:
        report.pop(k, None)
    return code, report, cap.err


def lines(p: Path) -> list[dict]:
    return [json.loads(x) for x in p.read_text().splitlines()]


def test_a_run_taken_up_again_reports_what_one_run_does(tmp_path: Path, capsys: Any) -> None:
    f = tmp_path / "r.jsonl"
    whole = simulate(capsys, "--games", "12", "--seed", "5")[1]
    assert simulate(capsys, "--games", "5", "--seed", "5", "--results", str(f))[0] == 0
    assert [x["seed"] for x in lines(f)] == [5, 6, 7, 8, 9]
    code, again, note = simulate(capsys, "--games", "12", "--seed", "5", "--results", str(f))
    assert code == 0 and again == whole
    assert "5 of the 12 games" in note and "playing the other 7" in note
    assert sorted(x["seed"] for x in lines(f)) == list(range(5, 17))
    code, third, note = simulate(capsys, "--games", "12", "--seed", "5", "--results", str(f))
    assert third == whole and "12 of the 12" in note and len(lines(f)) == 12  # nothing played


def test_searching_bots_and_two_workers_resume_to_the_same_games(tmp_path: Path) -> None:
    """ismcts on an iteration budget is seeded per game: the games a rerun takes from the file
    are the ones it would have played, on one worker or two."""
    prog = program(MANILA)
    specs = parse_seats("ismcts:2", 3)
    key = run_key(prog, 3, specs, 2000)
    whole = run_resumable(None, MANILA, prog, 3, range(3), specs, 2000, 1)
    rf = ResultsFile(str(tmp_path / "r.jsonl"), key)
    part = run_resumable(rf, MANILA, prog, 3, range(1), specs, 2000, 1)
    assert part == whole[:1]
    heard: list[int] = []
    rest = run_resumable(ResultsFile(rf.path, key), MANILA, prog, 3, range(3), specs, 2000, 2,
                         on_done=heard.append, on_known=heard.append)
    assert rest == whole and heard[0] == 1 and heard[-1] == 3


def test_a_searcher_whose_default_changed_starts_afresh(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The seats' text stays `ismcts:3` when a default of the searcher changes, but the games
    in the file were played by another searcher: they are not this run's."""
    from mercator.interpreter.agents import spec as S
    prog = program(MANILA)
    specs = parse_seats("ismcts:3,random,random", 3)
    path = str(tmp_path / "r.jsonl")
    run_resumable(ResultsFile(path, run_key(prog, 3, specs, 2000)), MANILA, prog, 3, range(2),
                  specs, 2000, 1)
    assert sorted(ResultsFile(path, run_key(prog, 3, specs, 2000)).done()) == [0, 1]
    assert lines(Path(path))[0]["run"]["settings"][0]["root"] == S.DEFAULT_SETTINGS["root"]
    assert lines(Path(path))[0]["run"]["settings"][1:] == [None, None]
    monkeypatch.setitem(S.DEFAULT_SETTINGS, "root",
                        "uct" if S.DEFAULT_SETTINGS["root"] == "halving" else "halving")
    assert ResultsFile(path, run_key(prog, 3, specs, 2000)).done() == {}
    # spelled out, the old meaning is the old one's settings again
    before = "halving" if S.DEFAULT_SETTINGS["root"] == "uct" else "uct"
    again = parse_seats(f"ismcts:3:root={before},random,random", 3)
    assert run_key(prog, 3, again, 2000)["settings"] == lines(Path(path))[0]["run"]["settings"]


def test_an_interrupted_run_keeps_the_games_it_finished(tmp_path: Path) -> None:
    prog = program(MANILA)
    specs = parse_seats("random", 3)
    rf = ResultsFile(str(tmp_path / "r.jsonl"), run_key(prog, 3, specs, None))

    def stop_after_three(k: int) -> None:
        if k == 3:
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        run_resumable(rf, MANILA, prog, 3, range(10), specs, None, 1, on_done=stop_after_three)
    assert sorted(rf.done()) == [0, 1, 2]
    assert run_resumable(rf, MANILA, prog, 3, range(10), specs, None, 1) == \
        run_resumable(None, MANILA, prog, 3, range(10), specs, None, 1)


def test_compare_keeps_both_rulebooks_in_one_file(tmp_path: Path, capsys: Any) -> None:
    f = tmp_path / "c.jsonl"
    args = ["compare", MANILA, PIRATES, "--players", "3", "--games", "6", "--json",
            "--workers", "1"]
    assert main(args) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(args + ["--results", str(f)]) == 0
    first = json.loads(capsys.readouterr().out)
    runs = {json.dumps(x["run"], sort_keys=True) for x in lines(f)}
    assert len(lines(f)) == 12 and len(runs) == 2         # 6 games of each rulebook
    assert main(args + ["--results", str(f)]) == 0
    cap = capsys.readouterr()
    again = json.loads(cap.out)
    assert cap.err.count("6 of the 6 games") == 2 and len(lines(f)) == 12
    for r in (plain, first, again):
        r.pop("seconds")
    assert plain == first == again


def test_another_rulebook_text_or_seats_is_another_run(tmp_path: Path, capsys: Any) -> None:
    f = tmp_path / "r.jsonl"
    rules = tmp_path / "m.rules"
    rules.write_text(Path(MANILA).read_text())
    shutil.copytree(ROOT / "rulebooks" / "lib", tmp_path / "lib")
    assert main(["simulate", str(rules), "--players", "3", "--games", "3", "--json",
                 "--results", str(f), "--workers", "1"]) == 0
    rules.write_text(Path(MANILA).read_text() + "\n# a comment changes the text\n")
    assert main(["simulate", str(rules), "--players", "3", "--games", "3", "--json",
                 "--results", str(f), "--workers", "1"]) == 0
    assert main(["simulate", str(rules), "--players", "4", "--games", "3", "--json",
                 "--results", str(f), "--workers", "1"]) == 0
    assert "are there already" not in capsys.readouterr().err
    assert len(lines(f)) == 9 and len({json.dumps(x["run"]) for x in lines(f)}) == 3


def test_a_last_line_cut_short_is_dropped_and_written_again(tmp_path: Path,
                                                            capsys: Any) -> None:
    f = tmp_path / "r.jsonl"
    whole = simulate(capsys, "--games", "4")[1]
    simulate(capsys, "--games", "3", "--results", str(f))
    text = f.read_text()
    f.write_text(text[:len(text) - 40])                   # killed while writing game 3
    code, again, _ = simulate(capsys, "--games", "4", "--results", str(f))
    assert code == 0 and again == whole
    assert [x["seed"] for x in lines(f)] == [0, 1, 2, 3]   # every line whole again


@pytest.mark.parametrize("content, where, why", [
    ('{"mercator_results": 1, "run": {}, "seed": 0, "winners": [], "scores": [], "stats": [], '
     '"decisions": 1, "rounds": 1}\nnot json\n{}\n', ":2:", "not a line of a results file"),
    ('{"mercator_results": 1, "seed": 0}\n\n', ":1:", "no 'run'"),
    ('{"some": "other file"}\n', ":1:", "mercator_results"),
])
def test_a_file_that_is_not_a_results_file_is_a_located_usage_error(
        tmp_path: Path, capsys: Any, content: str, where: str, why: str) -> None:
    f = tmp_path / "r.jsonl"
    f.write_text(content)
    code, _, err = simulate(capsys, "--games", "2", "--results", str(f))
    assert code == 2 and f"{f}{where}" in err and why in err
    assert "Traceback" not in err and f.read_text() == content       # left as it was


def test_a_folder_is_refused(tmp_path: Path, capsys: Any) -> None:
    code, _, err = simulate(capsys, "--games", "2", "--results", str(tmp_path))
    assert code == 2 and "is a folder" in err and "Traceback" not in err
