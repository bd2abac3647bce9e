"""Golden fingerprints: seeded random games of every shipped rulebook, one line a game, kept in
tests/golden/fingerprints.txt and checked by the test suite (tests/test_golden.py).

  python -m mercator.interpreter.tools.fingerprint --check     # the games against the file
  python -m mercator.interpreter.tools.fingerprint --write     # after an intended change
  python -m mercator.interpreter.tools.fingerprint manila --games 20   # print, for a diff

Each game: a shipped rulebook (game, variant or example) at one of its player counts, a seed,
random decisions drawn from a generator seeded by the game, chance resolved by its weights
from the state's own generator; narration on, explicit chance on for odd seeds; the game goes
on from a clone at decision 11 and from a JSON round trip (as text) at decision 37. Its line:
the decisions made, the scores, the winners, how it ended, a hash of its log lines, a hash of
the record of what each seat saw (every prompt, chosen label and announcement) with each seat's
information state, and the final state's digest — or the rule error it stopped at. Nothing in
a line depends on the process: hashes are sha256 of canonical JSON, no set or dict order, no
float, no path but the rulebook's short name.
"""
from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Optional

from mercator.dsl.errors import MercatorError
from mercator.interpreter.engine.chance import weighted_index
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.nodes import Chance
from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.state import State
from mercator.interpreter.tools.game import load_game
from mercator.interpreter.tools.rulebooks import ROOT, games

GOLDEN = ROOT / "tests" / "golden" / "fingerprints.txt"
GAMES = 2            # seeds per rulebook and player count in the golden file
CLONE_AT = 11        # the decision at which the game goes on from a clone
RELOAD_AT = 37       # ... and from a JSON round trip of its state
COMMAND = "python -m mercator.interpreter.tools.fingerprint --write"


def _hash(data: object) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":"))
                          .encode()).hexdigest()[:16]


def play(prog: Program, players: int, seed: int) -> str:
    """One seeded game's fingerprint (the line without the rulebook's name and players)."""
    explicit = seed % 2 == 1
    s = prog.new_game(players, seed, narrate=True, explicit_chance=explicit)
    rng = random.Random(seed * 7919 + players)
    n = 0
    head = f"seed {seed} chance {'explicit' if explicit else 'drawn'}"
    try:
        while not s.over:
            if n == CLONE_AT:
                s = s.clone()
            if n == RELOAD_AT:
                r = State.from_json(json.loads(json.dumps(s.to_json())))
                r.messages = s.messages
                prog.resume(r)
                s = r
            node = s.pending
            if isinstance(node, Chance):
                prog.apply(s, weighted_index(node.weights, s.randbelow(sum(node.weights))))
            else:
                prog.apply(s, rng.randrange(node.count))
            n += 1
    except RuleError as exc:
        sp = exc.span
        where = f"{Path(sp.path).name}:{sp.line}:{sp.col}" if sp is not None else "?"
        return f"{head} decisions {n} error at {where}: {exc.message}"
    res = s.result
    return (f"{head} decisions {n} scores {list(res.scores)} winners {list(res.winners)} "
            f"ended {s.ended_by} log {_hash(s.messages)} seen {_hash([s.record, s.seen])} "
            f"state {s.digest()[:16]}")


def fingerprints(names: Optional[list[str]] = None, seeds: int = GAMES) -> list[str]:
    """The lines of the named shipped rulebooks (default: every game, variant and example), at
    every player count, seeds 0..seeds-1."""
    out = []
    for name in names or sorted(games()):
        prog = load_game(name).program
        for n in range(prog.min_players, prog.max_players + 1):
            for seed in range(seeds):
                out.append(f"{name} {n}p {play(prog, n, seed)}")
    return out


def read_golden(path: Path = GOLDEN) -> list[str]:
    """The committed lines (comments and blank lines left out)."""
    return [line for line in path.read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]


def changes(expected: list[str], got: list[str]) -> str:
    """'' if the lines are the same; else which games changed, as a unified diff, and how to
    regenerate the file if the change is intended."""
    if expected == got:
        return ""
    diff = difflib.unified_diff(expected, got, "golden", "now", lineterm="", n=0)
    changed = sorted({game_of(line) for line in set(expected) ^ set(got)})
    return ("these games changed (rulebook, players, seed): " + ", ".join(changed) + "\n"
            + "\n".join(diff)
            + f"\nIf the change is intended, regenerate the fingerprints: {COMMAND}")


def game_of(line: str) -> str:
    """The game a line is of: "manila 4p seed 1"."""
    return " ".join(line.split()[:4])


_HEADER = f"""# Golden fingerprints: {GAMES} seeded random games of every shipped rulebook at every
# player count (interpreter/tools/fingerprint.py says what a line holds), checked by
# tests/test_golden.py.
# Do not edit: after an intended change of behaviour, regenerate with
#   {COMMAND}
"""


def main(argv: Optional[list[str]] = None) -> int:
    """The command (see the module): print, --check or --write the fingerprints."""
    ap = argparse.ArgumentParser(prog="python -m mercator.interpreter.tools.fingerprint",
                                 description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="shipped rulebooks by short name (default: all)")
    ap.add_argument("--games", type=int, default=GAMES, help="seeds per player count")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="compare with the golden file")
    mode.add_argument("--write", action="store_true", help="rewrite the golden file")
    ap.add_argument("--file", type=Path, default=GOLDEN, help="the golden file")
    a = ap.parse_args(argv)
    if (a.check or a.write) and a.games != GAMES:
        ap.error(f"the golden file holds {GAMES} games a player count")
    if a.write and a.names:
        ap.error("--write rewrites the whole file: give no rulebook")
    if a.check and not a.file.is_file():
        ap.error(f"no golden file {a.file} (a checkout's tests/golden/fingerprints.txt); "
                 "give its path with --file")
    try:
        lines = fingerprints(a.names or None, a.games)
    except MercatorError as exc:           # an unknown name, a rulebook that does not check
        ap.error(str(exc))
    if a.write:
        a.file.parent.mkdir(parents=True, exist_ok=True)
        a.file.write_text(_HEADER + "\n".join(lines) + "\n", encoding="utf-8")
        print(f"{a.file}: {len(lines)} games written", file=sys.stderr)
        return 0
    if a.check:
        golden = read_golden(a.file)
        if a.names:
            golden = [line for line in golden if line.split()[0] in a.names]
        diff = changes(golden, lines)
        if diff:
            print(diff)
            return 1
        print(f"{a.file}: {len(lines)} games as recorded", file=sys.stderr)
        return 0
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
