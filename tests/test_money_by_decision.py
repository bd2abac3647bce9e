"""benchmarks/money_by_decision.py: where a money field went, decision by decision, by replaying
a results file's games."""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENTURE = str(ROOT / "tests" / "fixtures" / "agents" / "venture.rules")


def money_by_decision():
    from bench_module import script
    return script("money_by_decision")


def test_each_change_is_put_down_to_the_decision_or_the_draw(tmp_path: Path, capsys) -> None:
    """Venture (tests/fixtures/agents/venture.rules): the first seat takes 5 coins, or ventures
    and a die pays 36 on a six. Game 0 (tested seat 0): the 5 coins, at its own decision. Game 1
    (tested seat 1, the other seat ventures, the die shows six): 36 coins to the other seat at
    the draw. A game: the tested seat 2.5 coins at its decision and 2.5 at the end; an other seat
    (one a game, two in all) 36 / 2 = 18 at the draw and 18 at the end."""
    cfg = {"kind": "match", "rulebook": VENTURE, "players": 2, "agent": "x", "vs": "y"}
    records = [{"config": cfg, "seed": 0, "tested": 0, "history": [0]},
               {"config": cfg, "seed": 1, "tested": 1, "history": [1, 5]}]
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert money_by_decision().main([str(path), "--field", "coins"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "2 games; coins a game: the tested seat | an other seat"
    rows = {line[:49].strip(): line[49:].split() for line in out[1:]}
    assert rows == {"take a way": ["2.5", "0.0"], "chance and payouts": ["0.0", "18.0"],
                    "coins at the end": ["2.5", "18.0"]}


def test_lines_of_anchor_answers_need_the_rulebook(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"seed": 0, "seat": 0, "history": [0]}) + "\n")
    import pytest
    with pytest.raises(SystemExit, match="--rulebook"):
        money_by_decision().main([str(path), "--field", "coins"])
    assert money_by_decision().main([str(path), "--field", "coins", "--rulebook", VENTURE, "--players", "2"]) == 0


BONDS = str(ROOT / "tests" / "fixtures" / "agents" / "bonds.rules")


def test_rounds_count_only_the_changes_made_in_those_rounds(tmp_path: Path, capsys) -> None:
    """Bonds (tests/fixtures/agents/bonds.rules): the tested seat 0 buys a bond (3 coins) in
    each of the years 1 to 3, the other never; in year 6 its 3 bonds pay 18, while the other
    seat decides. Rounds 2-3: the two bonds of years 2 and 3 alone (-6), no end; rounds 1-6:
    -9 at its decisions and +18 at the other's; every round, also the coins at the end (19)."""
    history = [1, 0, 1, 0, 1, 0] + [0] * 6
    path = tmp_path / "answers.jsonl"
    path.write_text(json.dumps({"seed": 0, "seat": 0, "history": history}) + "\n")
    M = money_by_decision()
    ask = "bonds to buy"                  # (a prompt up to its first " (")

    def rows(*extra: str) -> dict:
        assert M.main([str(path), "--field", "coins", "--rulebook", BONDS, "--players", "2",
                       *extra]) == 0
        out = capsys.readouterr().out.splitlines()
        return out[0], {line[:49].strip(): line[49:].split() for line in out[1:]}
    head, got = rows("--rounds", "2-3")
    assert head == "1 games; coins a game, rounds 2 to 3: the tested seat | an other seat"
    assert got == {ask: ["-6.0", "0.0"]}
    assert rows("--rounds", "1-6")[1] == {ask: ["-9.0", "0.0"], f"others' {ask}": ["18.0", "0.0"]}
    assert rows()[1] == {ask: ["-9.0", "0.0"], f"others' {ask}": ["18.0", "0.0"],
                         "coins at the end": ["19.0", "10.0"]}
    import pytest
    with pytest.raises(SystemExit):
        M.main([str(path), "--field", "coins", "--rulebook", BONDS, "--rounds", "3-1"])
    assert "give two round numbers A-B" in capsys.readouterr().err
