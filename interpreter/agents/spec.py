"""Agent specs: the text that names a seat's player on the command line.

A spec is `kind[:budget]`: `random`, `human`, `mcts`, `ismcts`, with a budget of iterations
(`ismcts:500`) or of time per decision (`ismcts:2s`, `mcts:300ms`). A list of seats is one
spec for every seat, or one per seat, comma-separated (`human,ismcts:500,random`).
"""
from __future__ import annotations

import re
from typing import Any, Optional

import attrs

from mercator.interpreter.agents.base import RandomAgent
from mercator.interpreter.agents.search import DEFAULT_ITERATIONS, ISMCTSAgent, MCTSAgent

KINDS = ("random", "human", "mcts", "ismcts")
SEARCHERS = ("mcts", "ismcts")
MAX_ITERATIONS = 10 ** 7
MAX_SECONDS = 3600.0
_BUDGET = re.compile(r"(?:(\d{1,9})|(\d{1,6}(?:\.\d{1,3})?)(s|ms))")


class SpecError(ValueError):
    """A seat spec that names no agent; the message says what is accepted."""


@attrs.frozen
class AgentSpec:
    """One seat's player: its kind and its search budget (iterations or seconds)."""

    kind: str
    iterations: Optional[int] = None
    seconds: Optional[float] = None

    def __str__(self) -> str:
        if self.iterations is not None:
            return f"{self.kind}:{self.iterations}"
        if self.seconds is not None:
            return f"{self.kind}:{self.seconds:g}s"
        return self.kind

    @property
    def honest(self) -> bool:
        """Does this player see only what its seat may see?"""
        return self.kind != "mcts"

    @property
    def needs_record(self) -> bool:
        """Must the game keep what each seat saw, with chance as steps (ismcts resamples)?"""
        return self.kind == "ismcts"


def parse_spec(text: str) -> AgentSpec:
    """One spec, e.g. 'random', 'ismcts:500', 'mcts:2s'; SpecError if it is none."""
    t = text.strip().lower()
    kind, _, budget = t.partition(":")
    if kind not in KINDS:
        raise SpecError(f"unknown player '{text.strip()}': a seat is one of "
                        f"{', '.join(KINDS)} (a searcher with a budget, e.g. ismcts:500 or "
                        "mcts:2s)")
    if not budget:
        if _ == ":":
            raise SpecError(f"'{text.strip()}' has an empty budget: write e.g. {kind}:200 "
                            f"(iterations) or {kind}:2s (time per decision)")
        return AgentSpec(kind, DEFAULT_ITERATIONS if kind in SEARCHERS else None)
    if kind not in SEARCHERS:
        raise SpecError(f"'{text.strip()}': only a searcher ({', '.join(SEARCHERS)}) takes a "
                        f"budget; write just '{kind}'")
    m = _BUDGET.fullmatch(budget)
    if m is None:
        raise SpecError(f"'{text.strip()}': the budget is a number of iterations (e.g. "
                        f"{kind}:500) or a time per decision (e.g. {kind}:2s, {kind}:250ms)")
    if m.group(1) is not None:
        n = int(m.group(1))
        if not 1 <= n <= MAX_ITERATIONS:
            raise SpecError(f"'{text.strip()}': iterations must be 1 to {MAX_ITERATIONS:,}")
        return AgentSpec(kind, iterations=n)
    secs = float(m.group(2)) / (1000.0 if m.group(3) == "ms" else 1.0)
    if not 0 < secs <= MAX_SECONDS:
        raise SpecError(f"'{text.strip()}': the time per decision must be above 0 and at "
                        f"most {MAX_SECONDS:g}s")
    return AgentSpec(kind, seconds=secs)


def parse_seats(text: str, players: int) -> list[AgentSpec]:
    """One spec for all `players` seats, or one per seat (comma-separated)."""
    parts = [p for p in text.split(",")]
    if any(not p.strip() for p in parts):
        raise SpecError(f"'{text}' has an empty seat: give one player per seat, "
                        "comma-separated (e.g. human,ismcts:500,random)")
    specs = [parse_spec(p) for p in parts]
    if len(specs) == 1:
        return specs * players
    if len(specs) != players:
        raise SpecError(f"{len(specs)} seats given for a game of {players} players: give one "
                        "player for all seats or one per seat")
    return specs


def make_agent(spec: AgentSpec, seed: int) -> Any:
    """The bot of a spec, seeded (a human is made by the interface, not here)."""
    if spec.kind == "random":
        return RandomAgent(seed)
    if spec.kind == "mcts":
        return MCTSAgent(spec.iterations, spec.seconds, seed=seed)
    if spec.kind == "ismcts":
        return ISMCTSAgent(spec.iterations, spec.seconds, seed=seed)
    raise SpecError(f"a '{spec.kind}' seat is not a bot")
