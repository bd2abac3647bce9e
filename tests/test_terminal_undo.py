"""Undo at the terminal (`mercator play`): a human takes back their own last decision and the
bots' and chance's after it, as in the browser (interpreter/tools/session.py, `undo_point`);
never another person's decision: once another human has decided after it, it stands.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mercator.interpreter.agents.human import COMMANDS, help_lines
from mercator.interpreter.tools.saves import load_save
from mercator.interpreter.tools.session import undo_point

ROOT = Path(__file__).resolve().parent.parent
MANILA = str(ROOT / "rulebooks" / "manila.rules")


def _play(lines: list[str], seats: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mercator.interpreter.cli", "play", MANILA,
                           "--players", "3", "--seats", seats, "--seed", "5", *extra],
                          input="".join(f"{x}\n" for x in lines), capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def test_undo_point_goes_back_to_the_seats_last_decision_past_bots_and_chance() -> None:
    human = {0, 1}.__contains__
    assert undo_point([0, 2, -1, 2], 0, human) == (0, None)
    assert undo_point([0, 2, 0, 2], 0, human) == (2, None)
    k, why = undo_point([0, 1, 2], 0, human)
    assert k is None and why == "P2 decided after P1's last move: it can no longer be taken back"
    k, why = undo_point([2, 2], 0, human)
    assert k is None and why == "P1 has made no decision to take back"


def test_help_lists_undo_and_it_is_a_command() -> None:
    assert "undo" in COMMANDS
    assert any(line.strip().startswith("undo") for line in help_lines([]))


def test_a_human_takes_back_a_bid_and_the_bots_replies(tmp_path: Path) -> None:
    """Manila's first decision is P1's bid for the harbour master (seed 003 §競標): #2 bids 1;
    after 'undo' P1 is asked again and #3 bids 2 instead: the save keeps only the second."""
    save = tmp_path / "g.json"
    r = _play(["#2", "undo", "#3", "quit"], "human,random,random", "--save", str(save))
    assert "P1 takes back" in r.stdout, r.stdout[-2000:]
    data = load_save(str(save))
    assert data.decisions[0] == 2 and data.labels[0] == "2"


def test_undo_before_any_decision_is_refused_with_the_reason() -> None:
    r = _play(["undo", "quit"], "human,random,random")
    assert "cannot undo: P1 has made no decision to take back" in r.stdout


def test_at_a_shared_keyboard_undo_never_takes_back_another_persons_move() -> None:
    """P1 bids, then P2 (another person) bids, the bot answers, and P1 is to bid again: P1's
    undo is refused, naming P2, and nothing is taken back."""
    r = _play(["#2", "#2", "undo", "quit"], "human,human,random")
    assert "P1>   cannot undo: P2 decided after P1's last move: it can no longer be taken back" \
        in r.stdout
    assert "takes back" not in r.stdout
