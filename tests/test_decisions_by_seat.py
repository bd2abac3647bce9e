"""benchmarks/decisions_by_seat.py: the tested seat's choices beside the other seats', by
replaying a results file's games."""
from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

from game_driver import program

ROOT = Path(__file__).resolve().parent.parent
NIM = "tests/fixtures/agents/nim.rules"


def decisions_by_seat():
    from bench_module import script
    return script("decisions_by_seat")


def random_games(n: int) -> tuple[list[dict], Counter, Counter]:
    """n games of Nim at random, as a match's records (seat g mod 2 tested), and what each
    side took, counted as they were played."""
    prog = program(ROOT / NIM)
    records, mine, others = [], Counter(), Counter()
    for g in range(n):
        rng = random.Random(g)
        s = prog.new_game(2, g, narrate=True, explicit_chance=True)
        history = []
        while s.pending.__class__.__name__ != "Terminal":
            p = s.pending
            i = rng.randrange(p.count)
            if p.count > 1:
                (mine if p.player == g % 2 else others)[("take", p.options[i].label)] += 1
            history.append(i)
            prog.apply(s, i)
        records.append({"config": {"kind": "match", "rulebook": NIM, "players": 2,
                                   "agent": "random", "vs": "random"},
                        "seed": g, "tested": g % 2, "history": history})
    return records, mine, others


def test_the_counts_are_those_of_the_games_played(tmp_path: Path, capsys) -> None:
    records, mine, others = random_games(6)
    ds = decisions_by_seat()
    games, got_mine, got_others = ds.tabulate(records, program=program(ROOT / NIM))
    assert games == 6 and got_mine == mine and got_others == others
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert ds.main([str(path), "--prompt", "take"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "6 games; the tested seat's decisions in all, each other seat's"
    assert len(out) == 1 + len(set(mine) | set(others))
    row = next(x for x in out[1:] if x.split()[1] == "1")
    assert row.split()[-2:] == [str(mine[("take", "1")]), f"{others[('take', '1')]:.1f}"]


def test_a_file_without_matches_is_told(tmp_path: Path, capsys) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text("")
    assert decisions_by_seat().main([str(path)]) == 1
    assert "no match games" in capsys.readouterr().err


def test_by_prompt_counts_every_option_of_a_prompt_together(tmp_path: Path, capsys) -> None:
    """--by-prompt: one row per prompt, the tested seat's decisions there in all and each other
    seat's (Nim has one prompt: every decision of more than one option)."""
    records, mine, others = random_games(5)
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert decisions_by_seat().main([str(path), "--by-prompt"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert out[1].split()[-2:] == [str(sum(mine.values())), f"{sum(others.values()):.1f}"]
