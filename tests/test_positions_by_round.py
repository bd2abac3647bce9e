"""benchmarks/positions_by_round.py: each seat's player fields at the start of each round, the
tested seat's beside the others', by replaying a results file's games."""
from __future__ import annotations

import json
from pathlib import Path

from game_driver import program

ROOT = Path(__file__).resolve().parent.parent
LOAN = "tests/fixtures/agents/loan.rules"


def positions_by_round():
    from bench_module import script
    return script("positions_by_round")


def loan_games(n: int) -> list[dict]:
    """n games of Loan as bench_agents' records: in game g the tested seat g mod 2 takes 5
    coins with a loan (option 1), the other seat 3 coins (option 0)."""
    prog = program(ROOT / LOAN)
    records = []
    for g in range(n):
        s = prog.new_game(2, g, narrate=True, explicit_chance=True)
        history = []
        while s.pending.__class__.__name__ != "Terminal":
            i = 1 if s.pending.player == g % 2 else 0       # loan_and_five, three_coins
            history.append(i)
            prog.apply(s, i)
        records.append({"config": {"kind": "match", "rulebook": LOAN, "players": 2,
                                   "agent": "random", "vs": "random"},
                        "seed": g, "tested": g % 2, "history": history})
    return records


def test_the_fields_at_each_rounds_start_and_at_the_end_of_the_log(tmp_path: Path) -> None:
    """Loan (tests/fixtures/agents/loan.rules): the tested seat (seat g mod 2) takes 5 coins
    with a loan, the other 3 coins; one round, so each seat is read once, at its start
    (coins 0, loans 0) — what happens inside the round does not show, and nothing is read
    after the log's last step."""
    records = loan_games(4)
    P = positions_by_round()
    games, acc = P.tabulate(records, ["coins", "loans"])
    assert games == 4
    assert dict(acc) == {(1, True): [0.0, 0.0, 4.0], (1, False): [0.0, 0.0, 4.0]}
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert P.main([str(path), "--field", "coins"]) == 0
    assert P.amount({"a": 2, "b": 3}) == 5.0 and P.amount([1, 2]) == 2.0 and P.amount(True) == 1.0
    broken = dict(records[0], history=[7] + records[0]["history"])
    assert P.tabulate([broken], ["coins"])[0] == 0               # no longer replays: left out


def test_per_game_shows_the_tested_seats_fields_by_round_and_at_the_end(tmp_path: Path,
                                                                          capsys) -> None:
    """Loan, one round: the tested seat (seat g mod 2) takes 5 coins with a loan; its line
    reads 0 coins and no loan at the round's start and 5 coins and one loan at the end — the
    end is read after the log's last step, which the means by round never show."""
    records = loan_games(2)
    P = positions_by_round()
    lines = P.per_game(records, ["coins", "loans"])
    assert lines == ["seed 0     seat 0      coins: 0 | end 5",
                     "seed 0     seat 0      loans: 0 | end 1",
                     "seed 1     seat 1      coins: 0 | end 5",
                     "seed 1     seat 1      loans: 0 | end 1"]
    broken = dict(records[0], history=[7] + records[0]["history"])
    assert P.per_game([broken], ["coins"]) == ["seed 0: no longer replays (the rulebook changed)"]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert P.main([str(path), "--field", "coins", "--per-game"]) == 0
    assert "seed 1     seat 1      coins: 0 | end 5" in capsys.readouterr().out


def test_lines_of_anchor_answers_are_read_with_their_rulebook(tmp_path: Path, capsys) -> None:
    """benchmarks/anchor_answers.py's lines (seed, seat, history; no config) replay with
    --rulebook and --players; without --rulebook the script says so."""
    import pytest
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"seed": 0, "seat": 0, "history": [1, 0]}) + "\n")
    P = positions_by_round()
    assert P.main([str(path), "--field", "coins", "--rulebook", LOAN, "--players", "2",
                   "--per-game"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "seed 0     seat 0      coins: 0 | end 5"
    with pytest.raises(SystemExit, match="--rulebook"):
        P.main([str(path), "--field", "coins"])
