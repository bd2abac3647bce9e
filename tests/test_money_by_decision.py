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
