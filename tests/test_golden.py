"""The golden fingerprints (issue 37, "a harness that cannot drift"): the seeded random games of
every shipped rulebook, as interpreter/tools/fingerprint.py plays them, must be the lines
committed in tests/golden/fingerprints.txt — decisions, scores, winners, log, what each seat
saw and the final state, game for game. A change of behaviour fails here naming the games;
if it is intended, the failure says the command that rewrites the file.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mercator.interpreter.tools import fingerprint as fp
from mercator.interpreter.tools.rulebooks import ROOT, games

NAMES = sorted(games())


@pytest.mark.parametrize("name", NAMES)
def test_the_shipped_games_play_as_recorded(name: str) -> None:
    golden = [line for line in fp.read_golden() if line.split()[0] == name]
    diff = fp.changes(golden, fp.fingerprints([name]))
    assert not diff, diff


def test_the_golden_file_holds_every_shipped_rulebook_at_every_player_count() -> None:
    from mercator.interpreter.tools.game import load_game
    expected = {f"{name} {n}p seed {seed}" for name in NAMES
                for n in load_game(name).spec.player_counts for seed in range(fp.GAMES)}
    assert {fp.game_of(line) for line in fp.read_golden()} == expected, \
        f"regenerate the fingerprints: {fp.COMMAND}"


def test_a_changed_game_is_named_with_the_command_that_regenerates_the_file() -> None:
    golden = fp.read_golden()[:3]
    now = list(golden)
    now[1] = now[1].replace(" decisions ", " decisions 1", 1)
    diff = fp.changes(golden, now)
    assert fp.game_of(golden[1]) in diff.splitlines()[0]
    assert f"-{golden[1]}" in diff and f"+{now[1]}" in diff
    assert diff.splitlines()[-1].endswith(fp.COMMAND)
    assert fp.changes(golden, golden) == ""


@pytest.mark.parametrize("hash_seed", ["0", "1"])
def test_the_fingerprints_do_not_depend_on_the_process(hash_seed: str) -> None:
    """Another process, with another hash seed, in another folder, plays the same lines
    (Bazaar: deals, hidden hands, bags)."""
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    done = subprocess.run([sys.executable, "-m", "mercator.interpreter.tools.fingerprint",
                           "--check", "bazaar"], cwd=ROOT / "tests", env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
