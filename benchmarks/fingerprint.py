"""Behaviour fingerprint: seeded random games of every shipped rulebook, one line a game.

The command is interpreter/tools/fingerprint.py; its golden file, tests/golden/fingerprints.txt
(2 games a player count), is checked by the test suite (tests/test_golden.py). This script runs
it for a before/after diff with more games than the golden file holds:

  .venv/bin/python benchmarks/fingerprint.py --games 20 > before.txt    # before a change
  .venv/bin/python benchmarks/fingerprint.py --games 20 > after.txt && cmp before.txt after.txt
  .venv/bin/python benchmarks/fingerprint.py --games 20 manila genoa    # some rulebooks only

Its flags are the command's (--check and --write work on the golden file).
"""
from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from mercator.interpreter.tools.fingerprint import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
