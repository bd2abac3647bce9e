"""The resumable measurement harness (benchmarks/bench_agents.py): one JSON line per finished
game, a rerun plays only the seeds not yet there, the report counts what the file holds."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_module import bench_agents

B = bench_agents()

NIM = "tests/fixtures/agents/nim.rules"
ROOT = Path(__file__).resolve().parent.parent


def test_the_wilson_interval() -> None:
    lo, hi = B.wilson(8, 10)
    assert (round(lo, 3), round(hi, 3)) == (0.490, 0.943)
    assert B.wilson(0, 0) == (0.0, 1.0)
    lo, hi = B.wilson(10, 10)
    assert round(hi, 9) == 1.0 and round(lo, 3) == 0.722


def test_a_game_a_rule_error_stops_is_kept_apart_and_the_run_goes_on(tmp_path: Path) -> None:
    """A broken rule (here: taking 3 when 3 are left divides by zero) stops that game only: it
    goes to the errors file, not the results, the other games are played, the report names
    it, and a rerun plays it again (the rule may have been fixed meanwhile)."""
    rules = tmp_path / "broken.rules"
    rules.write_text((ROOT / NIM).read_text().replace(
        "        sticks -= k\n", "        sticks -= k\n        sticks += 0 / (if sticks == 0 and k == 3 "
        "then 0 else 1)\n"))
    results = tmp_path / "agents.jsonl"
    config = B.seats(str(rules), 2, "random")
    B.run_games(config, 12, str(results), workers=1)
    done = {r["seed"] for r in B.read_results(str(results))}
    failed = [e["seed"] for e in B.read_results(B.errors_path(str(results)))]
    assert failed and done and done.isdisjoint(failed) and done | set(failed) == set(range(12))
    first = B.read_results(B.errors_path(str(results)))[0]
    assert first["error"].endswith("broken.rules:12:9: runtime error: division by zero")
    text = B.report(str(results))
    assert text.startswith(f"RULE ERRORS: {len(failed)} game(s)")
    B.run_games(config, 12, str(results), workers=1)       # played again, failing again
    assert len(B.read_results(B.errors_path(str(results)))) == 2 * len(failed)


def test_a_stat_added_later_is_counted_by_replaying_the_recorded_history(tmp_path: Path) -> None:
    """A seats game keeps its history: after a stat is added to the rulebook, `restat` replays
    the game (no search) and counts it; a record without history cannot be counted."""
    rules = tmp_path / "nim.rules"
    rules.write_text((ROOT / NIM).read_text())
    results = tmp_path / "agents.jsonl"
    B.run_games(B.seats(str(rules), 2, "ismcts:10"), 3, str(results), workers=1)
    rows = B.read_results(str(results))
    assert all(r["stats"] == [] and r["history"] for r in rows)
    rules.write_text((ROOT / NIM).read_text().replace(
        "score p:", "event took(p: player, k: int)\nstat threes counts took(p, k) when k == 3\n"
                    "stat taken counts took(p, k) as k\nscore p:").replace(
        "        sticks -= k\n", "        sticks -= k\n        emit took(p, k)\n"))
    B._PROG.clear()
    for r in rows:
        again = B.restat(r)
        assert again is not None and again["stats"][1] == 10       # every stick taken
        assert again["stats"][0] == sum(1 for i in r["history"] if i == 2)   # option 2: take 3
    assert B.restat({k: v for k, v in rows[0].items() if k != "history"}) is None


def test_a_rerun_plays_only_the_games_not_yet_recorded(tmp_path: Path) -> None:
    results = tmp_path / "agents.jsonl"
    config = B.match(NIM, 2, "ismcts:40")
    B.run_games(config, 4, str(results), workers=1)
    lines = results.read_text().splitlines()
    assert [json.loads(x)["seed"] for x in lines] == [0, 1, 2, 3]
    with open(results, "a") as f:
        f.write('{"config": {"kind": "ma')          # a run stopped while writing
    B.run_games(config, 6, str(results), workers=2)
    rows = B.read_results(str(results))
    assert sorted(r["seed"] for r in rows) == [0, 1, 2, 3, 4, 5]
    assert [r["tested"] for r in sorted(rows, key=lambda r: r["seed"])] == [0, 1, 0, 1, 0, 1]
    for r in rows:
        assert r["seats"][r["tested"]] == "ismcts:40" and r["seats"][1 - r["tested"]] == "random"
        assert r["agent"]["decisions"] >= 1 and r["agent"]["playouts"] >= 40
    B.run_games(config, 6, str(results), workers=1)      # nothing left to play
    assert len(B.read_results(str(results))) == 6


def test_a_default_changed_since_the_games_were_played_is_not_mixed_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each game stores what the tested seat's spec meant (every search setting); once a
    default changes, the same spec's text means another searcher: the run refuses to add its
    games to the old ones (naming the setting), and the report shows the two apart."""
    from mercator.interpreter.agents import spec as S
    results = tmp_path / "agents.jsonl"
    config = B.match(NIM, 2, "ismcts:30")
    B.run_games(config, 2, str(results), workers=1)
    rows = B.read_results(str(results))
    assert all(r["settings"][r["tested"]]["root"] == S.DEFAULT_SETTINGS["root"] for r in rows)
    assert all(r["settings"][1 - r["tested"]] is None for r in rows)        # random
    B.run_games(config, 2, str(results), workers=1)      # nothing to play: no complaint
    before = S.DEFAULT_SETTINGS["root"]
    other = "uct" if before == "halving" else "halving"
    monkeypatch.setitem(S.DEFAULT_SETTINGS, "root", other)
    with pytest.raises(SystemExit) as exc:
        B.run_games(config, 4, str(results), workers=1)
    assert f"root={before} then, {other} now" in str(exc.value) and "new results file" in str(exc.value)
    assert len(B.read_results(str(results))) == 2
    # a new file takes them; the report of both files' games splits the two meanings
    fresh = tmp_path / "fresh.jsonl"
    B.run_games(config, 2, str(fresh), workers=1)
    with open(results, "a") as f:
        f.write(fresh.read_text())
    table = B.report(str(results))
    assert "`ismcts:30` (settings 1) vs `random` | 2 |" in table
    assert "`ismcts:30` (settings 2) vs `random` | 2 |" in table
    assert sum(1 for ln in table.splitlines() if '"root": "' in ln and "(settings" in ln) == 2


def test_the_report_counts_the_recorded_games(tmp_path: Path) -> None:
    """Nim from 10 sticks: the first player wins by taking 2 (a searcher finds it, and from
    the second seat it wins whenever random play errs); the report shows each win counted."""
    results = tmp_path / "agents.jsonl"
    config = B.match(NIM, 2, "ismcts:60")
    B.run_games(config, 6, str(results), workers=1)
    rows = B.read_results(str(results))
    wins = sum(1 for r in rows if r["tested"] in r["winners"])
    lo, hi = B.wilson(wins, 6)
    table = B.report(str(results))
    line = next(ln for ln in table.splitlines() if "`ismcts:60` vs `random`" in ln)
    assert f"| 6 | {100 * wins / 6:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] | 50.0% |" in line
    assert wins >= 3


def test_the_report_gives_each_declared_stat_per_game(tmp_path: Path) -> None:
    """Manila declares seven stats: the report's stats table has their mean over the games
    recorded (here two, made up: 3 and 5 plunders give 4.0), and a rulebook without stats
    (Nim) gets no row."""
    results = tmp_path / "agents.jsonl"
    config = B.match("rulebooks/manila.rules", 3, "ismcts:10", "heuristic")
    names = B._program("rulebooks/manila.rules").stat_names
    with open(results, "w") as f:
        for seed, plunders in ((0, 3), (1, 5)):
            stats = [plunders if n == "plunders" else 1 for n in names]
            f.write(json.dumps({"config": config, "seed": seed, "seats": [], "tested": seed,
                                "scores": [1, 2, 3], "winners": [2], "stats": stats,
                                "agent": {"decisions": 1, "cpu": 0.1, "playouts": 10,
                                          "rollout": 10, "fallbacks": 0}}) + "\n")
    B.run_games(B.match(NIM, 2, "ismcts:10"), 2, str(results), workers=1)
    table = B.report(str(results))
    line = next(ln for ln in table.splitlines() if "mean per game" not in ln
                and "plunders" in ln)
    assert line.startswith("| manila, 3 | `ismcts:10` vs `heuristic` | 2 | ")
    assert "plunders 4.0" in line and "boardings 1.0" in line
    lines = table.splitlines()
    start = next(i for i, ln in enumerate(lines) if "mean per game" in ln)
    rows = []
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        rows.append(ln)
    assert len(rows) == 1 and rows[0] == line             # Nim's games: no stats, no row


@pytest.mark.parametrize("config", [c for c, _ in B.PLAN])
def test_every_planned_config_names_a_rulebook_and_valid_seats(config: dict) -> None:
    assert (ROOT / config["rulebook"]).exists()
    if config["kind"] == "match":
        B.parse_spec(config["agent"])
        B.parse_spec(config["vs"])
        # the tested seat sits at every position equally often
        assert all(g % config["players"] == 0 for c, g in B.PLAN if c == config)


def test_the_time_left_is_estimated_from_the_games_played(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """`--todo`: per planned row the games left and, from the mean seconds of those played,
    about how long they take on the workers; a row of the same config with a larger target
    counts once in the total."""
    assert B.estimate([], 10, 2) == ""
    assert B.estimate([100.0, 200.0], 0, 2) == ""
    assert B.estimate([100.0, 200.0], 10, 2).startswith("about 12 min on 2 workers")
    assert B.estimate([3600.0], 4, 2).startswith("about 2.0 h on 2 workers")
    assert "on 1 worker " in B.estimate([60.0], 1, 4)
    a = B.match("rulebooks/manila.rules", 3, "ismcts:20")
    b = B.seats("rulebooks/manila.rules", 3, "ismcts:5")
    monkeypatch.setattr(B, "PLAN", [(a, 6), (b, 4), (b, 10)])
    path = tmp_path / "r.jsonl"
    rows = [{"config": a, "seed": s, "seconds": 60.0} for s in range(3)] + \
           [{"config": b, "seed": s, "seconds": 30.0} for s in range(4)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    lines = B.plan_todo(str(path), 1)
    assert lines[0].startswith("manila.rules 3p ismcts:20 vs random: 3 of 6 games to play, "
                               "about 3 min on 1 worker")
    assert lines[1].startswith("manila.rules 3p ismcts:5 at every seat: 6 of 10 games")
    assert len(lines) == 3                        # (b, 4) is done; then the total
    assert lines[2].startswith("in all: about 0.1 h on 1 worker")   # 3 × 60 + 6 × 30 s
    path.write_text("".join(json.dumps({"config": c, "seed": s, "seconds": 1.0}) + "\n"
                            for c, n in ((a, 6), (b, 10)) for s in range(n)))
    assert B.plan_todo(str(path), 1) == []


def test_the_wait_benchmark_times_every_bot_move_of_a_game() -> None:
    """benchmarks/bench_wait.py: every move of the bot seats with more than one option is timed
    (Nim from 10: the person's stand-in at seat 1, a searcher at seat 2), none of the person's."""
    import subprocess
    import sys
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "bench_wait.py"),
         str(root / "tests" / "fixtures" / "agents" / "nim.rules"), "--players", "2",
         "--bots", "ismcts:5", "--person", "random", "--games", "2", "--seed", "3"],
        capture_output=True, text=True, timeout=120, check=True).stdout
    lines = out.splitlines()
    assert lines[0].startswith("  game 1 (seed 3):") and lines[1].startswith("  game 2 (seed 4):")
    moves = [int(x.split(": ")[1].split()[0]) for x in lines[:2]]
    row = lines[-1].split()
    assert int(row[0]) == sum(moves) > 0
    mean, median, p95, longest = map(float, row[1:5])
    assert 0 <= median <= p95 <= longest < 10 and mean <= longest
    assert row[5:] == ["0", "0"]
    capped = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "bench_wait.py"),
         str(root / "tests" / "fixtures" / "agents" / "nim.rules"), "--players", "2",
         "--bots", "ismcts:5", "--person", "random", "--games", "2", "--seed", "3",
         "--max-moves", "1"], capture_output=True, text=True, timeout=120, check=True).stdout
    assert "(at most 1 moves each)" in capped and capped.splitlines()[-1].split()[0] == "2"


def test_each_seat_s_part_of_a_stat_is_what_its_own_decisions_started(tmp_path: Path) -> None:
    """Nim with a stat of sticks taken: replayed, each seat's part is the sticks taken in the
    steps its own decisions started (a last forced take of one stick, which the engine makes
    without asking, falls in the step before it), the parts sum to the whole, and the report
    gives the tested seat's part beside another seat's."""
    rules = tmp_path / "nim.rules"
    rules.write_text((ROOT / NIM).read_text().replace(
        "score p:", "event took(p: player, k: int)\nstat taken counts took(p, k) as k\n"
                    "score p:").replace(
        "        sticks -= k\n", "        sticks -= k\n        emit took(p, k)\n"))
    results = tmp_path / "agents.jsonl"
    B.run_games(B.match(str(rules), 2, "random", "random"), 2, str(results), workers=1)
    for r in B.read_results(str(results)):
        parts = B.stats_by_seat(r)
        assert parts is not None and parts[0][0] + parts[1][0] == r["stats"][0] == 10
        prog = B._program(str(rules))
        s = prog.new_game(2, r["seed"])
        mine = [0, 0]
        for i in r["history"]:
            who, before = s.pending.player, s.table[0]       # table field 0: sticks
            prog.apply(s, i)
            mine[who] += before - s.table[0]
        assert parts == [[mine[0]], [mine[1]]]
    assert B.stats_by_seat({k: v for k, v in r.items() if k != "history"}) is None
    # a history the rulebook no longer accepts (it was edited since): no parts, no traceback
    assert B.stats_by_seat(dict(r, history=[99] + r["history"])) is None
    report = B.report(str(results))
    assert "taken 10.0 (the tested seat's decisions " in report
