"""A results file: the finished games of `simulate` and `compare`, one JSON line each, so that a
long run (searching bots take minutes a game) can be stopped and taken up again.

With `--results FILE` a run first reads FILE: the games it holds of the same run (the same
rulebook text, player count, seats with what each searching seat's spec means, and
`--max-decisions`) are taken as they are, and only the
other seeds are played; each game is appended as soon as its batch finishes. Since every game's
randomness comes from its seed (tools/parallel.py), a run taken up again reports exactly what
one uninterrupted run would have (with bots on an iteration budget; a time budget such as
`ismcts:2s` depends on the machine anyway). One file may hold several runs — `compare` keeps
both rulebooks' games in it — and lines of other runs are left alone. A game that failed is
not kept, so a rerun meets its error again.

A line: {"mercator_results": 1, "run": {...}, "seed": S, "winners": [...], "scores": [...],
"stats": [...], "decisions": N, "rounds": R}. A last line cut short (the process was killed while
writing it) is dropped and overwritten; any other line that is not one of these is an error
naming the file and line.
"""
from __future__ import annotations

import json
import os
from typing import Any, Callable, Optional, Sequence

from mercator.interpreter.agents.spec import SEARCHERS, AgentSpec, for_rulebook, search_settings
from mercator.interpreter.engine.encoding import rulebook_sha256
from mercator.interpreter.engine.program import Program
from mercator.interpreter.tools.game_detail import detail_from_json, detail_to_json
from mercator.interpreter.tools.parallel import Outcome, ProgramKey, run_games
from mercator.dsl.errors import MercatorError

VERSION = 1
FIELDS = ("seed", "winners", "scores", "stats", "decisions", "rounds")


class ResultsError(MercatorError):
    """A results file that cannot be read or written: the message names it (and the line)."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.hint = hint


def run_key(prog: Program, players: int, specs: Sequence[AgentSpec],
            max_decisions: Optional[int]) -> dict[str, Any]:
    """What makes two games of a file the same run's: the rulebook (by the hash of its texts,
    so a changed rule starts afresh), the players, the seats — as written and, for a
    searching seat, every setting its spec means (so that a searcher whose defaults changed
    starts afresh too) — and the decision limit."""
    return {"game": prog.name, "rulebook_sha256": rulebook_sha256(prog.rb), "players": players,
            "seats": [str(sp) for sp in specs],
            "settings": [search_settings(for_rulebook(sp, prog.bot_settings))
                         if sp.kind in SEARCHERS else None for sp in specs],
            "max_decisions": max_decisions}


class ResultsFile:
    """The games of one run in a results file (see the module's docstring)."""

    def __init__(self, path: str, run: dict[str, Any]):
        self.path = path
        self.run = run
        self._cut: Optional[int] = None    # where a last line cut short starts
        self.added = 0                     # games this process has added

    def done(self) -> dict[int, Outcome]:
        """The games of this run already in the file, by seed (none if there is no file)."""
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return {}
        except IsADirectoryError:
            raise ResultsError(f"{self.path}: is a folder, not a results file",
                               "name a file, e.g. --results runs/pirates.jsonl") from None
        except OSError as exc:
            raise ResultsError(f"{self.path}: cannot be read ({exc.strerror})") from None
        found: dict[int, Outcome] = {}
        start = 0
        lines = data.split(b"\n")
        for k, raw in enumerate(lines):
            here, start = start, start + len(raw) + 1
            if not raw.strip():
                continue
            last = k == len(lines) - 1            # no newline after it: perhaps cut short
            try:
                obj = json.loads(raw.decode("utf-8"))
                outcome = self._outcome(obj)
            except (ValueError, KeyError, TypeError) as exc:
                if last:
                    self._cut = here
                    continue
                raise ResultsError(
                    f"{self.path}:{k + 1}: not a line of a results file ({_why(exc)})",
                    "a results file is written by --results; give a new file name, or delete "
                    "the line") from None
            if outcome is not None:
                found[outcome.seed] = outcome
        return found

    def _outcome(self, obj: Any) -> Optional[Outcome]:
        """The game on a parsed line if it is this run's (None for another run's)."""
        if not isinstance(obj, dict) or obj.get("mercator_results") != VERSION:
            raise ValueError("no \"mercator_results\": 1")
        if obj["run"] != self.run:
            return None
        seed, decisions, rounds = (obj[n] for n in ("seed", "decisions", "rounds"))
        lists = [tuple(obj[n]) for n in ("winners", "scores", "stats")]
        if not all(type(x) is int for x in (seed, decisions, rounds, *lists[0], *lists[1],
                                             *lists[2])):
            raise TypeError("a seed, score or count that is not a whole number")
        detail = obj.get("detail")
        return Outcome(seed, lists[0], lists[1], lists[2], decisions, rounds,
                       detail=None if detail is None else detail_from_json(detail))

    def add(self, outcomes: Sequence[Outcome]) -> None:
        """Append the finished games among outcomes (failed ones are not kept)."""
        lines = [json.dumps({"mercator_results": VERSION, "run": self.run,
                             **{n: _plain(getattr(o, n)) for n in FIELDS},
                             **({} if o.detail is None else
                                {"detail": detail_to_json(o.detail)})}) + "\n"
                 for o in outcomes if o.failure is None]
        if not lines:
            return
        try:
            if self._cut is not None:          # drop the line a killed run left half written
                with open(self.path, "r+b") as f:
                    f.truncate(self._cut)
                self._cut = None
            with open(self.path, "a", encoding="utf-8") as f:
                f.writelines(lines)
                f.flush()
            self.added += len(lines)
        except OSError as exc:
            raise ResultsError(f"{self.path}: cannot be written ({exc.strerror})") from None


def _plain(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


def _why(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r}"
    return str(exc).split(":")[0] if isinstance(exc, json.JSONDecodeError) else str(exc)


def run_resumable(results: Optional[ResultsFile], path: ProgramKey, prog: Program, players: int,
                  seeds: Sequence[int], specs: Sequence[AgentSpec],
                  max_decisions: Optional[int], workers: int,
                  on_done: Optional[Callable[[int], None]] = None,
                  on_known: Optional[Callable[[int], None]] = None,
                  **backend: Any) -> list[Outcome]:
    """run_games, taking from `results` the games it already holds and adding the others to it
    as they finish; `on_known(k)` hears how many were there before anything is played."""
    if results is None:
        return run_games(path, prog, players, seeds, specs, max_decisions, workers=workers,
                         on_done=on_done, **backend)
    known = results.done()
    have = {s: known[s] for s in seeds if s in known}
    todo = [s for s in seeds if s not in have]
    if on_known is not None:
        on_known(len(have))
    if on_done is not None and have:
        on_done(len(have))
    fresh = run_games(path, prog, players, todo, specs, max_decisions,
                      workers=max(1, min(workers, len(todo))),
                      on_done=None if on_done is None else lambda k: on_done(len(have) + k),
                      on_outcomes=results.add, **backend) if todo else []
    by_seed = {**have, **{o.seed: o for o in fresh}}
    return [by_seed[s] for s in seeds]
