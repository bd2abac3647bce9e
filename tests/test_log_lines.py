"""benchmarks/log_lines.py: log lines counted per seat over replayed games, exact numbers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

SALES = '''game "Sales" players 2..2
player { coins: int = 0 }
round r limit 1 {
  phase p {
    for q in players {
      let n = choose q one of [1, 2, 3] prompt "sell"
      q.coins += n
      log q, "sells", n, "for", 10 * n
    }
  }
}
end after r when true
score p: p.coins
'''
SOLD = r"sold=^P(?P<seat>\d) sells (\d+) for (?P<amount>\d+)$"


def log_lines():
    from bench_module import script
    return script("log_lines")


def test_lines_and_amounts_per_game_the_tested_seat_beside_an_other(tmp_path: Path,
                                                                     capsys) -> None:
    """Two games of Sales: in the first P1 (tested) sells 3 for 30 and P2 1 for 10; in the
    second P2 is tested and sells 2 for 20, P1 3 for 30. A game: the tested seat 1 line and
    (30 + 20) / 2 = 25; an other seat 1 line and (10 + 30) / 2 = 20. A pattern that matches
    nothing counts 0."""
    rb = tmp_path / "sales.rules"
    rb.write_text(SALES)
    res = tmp_path / "games.jsonl"
    res.write_text("".join(json.dumps(x) + "\n" for x in [
        {"seed": 0, "seat": 0, "history": [2, 0]},
        {"seed": 1, "seat": 1, "history": [2, 1]}]))
    assert log_lines().main([str(res), "--rulebook", str(rb), "--players", "2",
                             "--line", SOLD, "--line", r"none=^P(?P<seat>\d) buys"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("2 games")
    assert out[1].split() == ["sold", "1.0", "1.0", "amount", "25.0", "20.0"]
    assert out[2].split() == ["none", "0.0", "0.0"]


@pytest.mark.parametrize("bad, says", [
    ("sold", "give NAME=REGEX"),
    ("sold=P(\\d", "not a regular expression"),
    ("sold=P(\\d) sells", "a group named seat"),
])
def test_a_bad_pattern_is_refused_with_what_to_write(bad: str, says: str, capsys) -> None:
    with pytest.raises(SystemExit):
        log_lines().main(["x.jsonl", "--line", bad])
    assert says in capsys.readouterr().err
