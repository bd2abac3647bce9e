"""benchmarks/paired.py: two results files compared seed by seed, with exact numbers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest


def paired():
    from bench_module import script
    return script("paired")


def write(path: Path, lines: list[dict]) -> str:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return str(path)


def test_the_differences_seed_by_seed_of_the_common_seeds(tmp_path: Path, capsys) -> None:
    """Base margins -2, 0, -4 (seeds 0-2, seed 0 won); the other -1, 0, -1 and a seed 5 the
    base lacks (left out). Differences +1, 0, +3: mean 4/3, sd sqrt(7/3), so the interval's
    half 1.96 sqrt(7/3) / sqrt(3) = 1.73. A bench_agents match reads its margin from its
    scores and its win from its winners (seed 1: 9 less the best other 12 = -3, not won)."""
    base = write(tmp_path / "base.jsonl", [
        {"seed": 0, "seat": 0, "margin": -2, "won": True},
        {"seed": 1, "seat": 1, "margin": 0, "won": False},
        {"seed": 2, "seat": 2, "margin": -4, "won": False}])
    other = write(tmp_path / "other.jsonl", [
        {"seed": 0, "seat": 0, "margin": -1, "won": False},
        {"seed": 1, "seat": 1, "margin": 0, "won": True},
        {"seed": 2, "seat": 2, "margin": -1, "won": True},
        {"seed": 5, "seat": 2, "margin": 9, "won": True}])
    cfg = {"kind": "match", "rulebook": "x.rules", "players": 3, "agent": "a", "vs": "b"}
    bench = write(tmp_path / "bench.jsonl", [
        {"config": cfg, "seed": 1, "tested": 1, "scores": [12, 9, 3], "winners": [0]},
        {"config": cfg, "seed": 2, "tested": 2, "scores": [1, 2, 7], "winners": [2]},
        {"config": dict(cfg, kind="seats"), "seed": 0, "scores": [0, 0, 0]}])
    P = paired()
    c = P.compare(P.load(base), P.load(other))
    assert (c["n"], c["won"], c["only"]) == (3, (1, 2), (1, 2))
    assert c["margin"] == (-2.0, -2 / 3) and c["diff"] == pytest.approx(4 / 3)
    assert c["half"] == pytest.approx(1.96 * (7 / 3) ** 0.5 / 3 ** 0.5)
    assert P.load(bench) == {1: (-3.0, False), 2: (5.0, True)}
    assert P.main([base, other, bench]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == (f"{other}: 3 seeds; won 1 | 2 (only 1 | 2); margin -2.00 | -0.67; "
                      "difference +1.33 ± 1.73")
    assert out[2] == (f"{bench}: 2 seeds; won 0 | 1 (only 0 | 1); margin -2.00 | +1.00; "
                      "difference +3.00 ± 11.76")     # (-3 - 0, 5 + 4: sd 8.49)


def test_a_line_of_another_kind_is_named_with_its_place(tmp_path: Path, capsys) -> None:
    bad = write(tmp_path / "bad.jsonl", [{"seed": 0, "margin": 1, "won": False}, {"seed": 1}])
    with pytest.raises(SystemExit, match=r"bad.jsonl:2: not a game of anchor_answers.py"):
        paired().load(bad)
    one = write(tmp_path / "one.jsonl", [{"seed": 0, "margin": 1, "won": False}])
    assert paired().main([one, one]) == 1
    assert "fewer than 2 seeds in common" in capsys.readouterr().out
    assert paired().main([str(tmp_path / "missing.jsonl"), one]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_files_joined_by_a_comma_are_one_run(tmp_path: Path, capsys) -> None:
    a = write(tmp_path / "a.jsonl", [{"seed": 0, "margin": -2, "won": False}])
    b = write(tmp_path / "b.jsonl", [{"seed": 1, "margin": 4, "won": True}])
    c = write(tmp_path / "c.jsonl", [{"seed": 0, "margin": 0, "won": False},
                                     {"seed": 1, "margin": 4, "won": True}])
    assert paired().main([f"{a},{b}", c]) == 0
    assert capsys.readouterr().out.splitlines()[1] == (
        f"{c}: 2 seeds; won 1 | 1 (only 0 | 0); margin +1.00 | +2.00; difference +1.00 ± 1.96")
