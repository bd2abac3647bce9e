"""benchmarks/followed_preferences.py: the tested seat's decisions a preference covers, and
those where it took another option than a most preferred one, counted from a results file's
games replayed."""
from __future__ import annotations

import json
from pathlib import Path

import pytest


def script():
    from bench_module import bench_agents, script as load
    bench_agents()                      # (the script imports it by name)
    return load("followed_preferences")


def _results(tmp_path: Path, agent: str, seeds: range) -> Path:
    from bench_module import bench_agents
    ba = bench_agents()
    key = json.dumps({"agent": agent, "kind": "match", "players": 3,
                      "rulebook": "rulebooks/manila.rules", "vs": "random"}, sort_keys=True)
    f = tmp_path / f"{agent}.jsonl"
    f.write_text("".join(json.dumps(ba.one_game((key, seed))) + "\n" for seed in seeds))
    return f


def test_the_prefer_seat_always_takes_a_most_preferred_option(tmp_path: Path, capsys) -> None:
    f = _results(tmp_path, "prefer", range(2))
    assert script().main([str(f)]) == 0
    out = capsys.readouterr().out
    total = [x for x in out.splitlines() if x.endswith("(all)")]
    assert total, out
    n, other = (int(x) for x in total[0].split()[:2])
    assert n > 20 and other == 0


def test_a_random_seat_departs_and_shows_where(tmp_path: Path, capsys) -> None:
    f = _results(tmp_path, "random", range(2))
    assert script().main([str(f), "--show", "place"]) == 0
    out = capsys.readouterr().out
    total = [x for x in out.splitlines() if x.endswith("(all)")]
    n, other = (int(x) for x in total[0].split()[:2])
    assert 0 < other < n
    shown = [x for x in out.splitlines() if x.startswith("seed ")]
    assert shown and all("preferred" in x and "| took" in x for x in shown)


def test_a_file_without_games_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "empty.jsonl"
    f.write_text("")
    assert script().main([str(f)]) == 2
