"""What the scenario drivers of the four games share: a program, a state, and the moves of a
test that plays the rules one decision at a time (each game's `Game` adds its own vocabulary)."""
from __future__ import annotations

import random

from typing import Any, Optional

from mercator.dsl.loader import load, load_text
from mercator.interpreter.engine.nodes import Chance, Decision
from mercator.interpreter.engine.program import Program
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.state import State


def program(path: Any) -> Program:
    """The compiled program of a rulebook file that must check cleanly."""
    res = load(str(path))
    assert res.ok and res.rulebook is not None, [str(d) for d in res.diagnostics]
    return compile_program(res.rulebook)


def random_steps(prog: Program, players: int, seed: int, steps: int,
                 narrate: bool = False) -> State:
    """A new game of `players` (seed `seed`) after `steps` uniformly random decisions drawn
    from random.Random(seed), or its end if sooner."""
    s = prog.new_game(players, seed, narrate=narrate)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.over:
            break
        prog.apply(s, rng.randrange(s.pending.count))
    return s


def error_lines(text: str) -> list[str]:
    """The errors of a rulebook given as text (named t.rules), each "CODE message"."""
    res = load_text(text, "t.rules")
    return [f"{d.code} {d.message}" for d in res.diagnostics if d.is_error]


def program_text(text: str) -> Program:
    """The compiled program of a rulebook given as text (named t.rules)."""
    res = load_text(text, "t.rules")
    assert res.ok and res.rulebook is not None, [str(d) for d in res.diagnostics]
    return compile_program(res.rulebook)


class ScenarioGame:
    """A game under test: `prog`, its state `s`, and `asked`, the decisions asked so far."""

    prog: Program
    s: State
    asked: list

    def m(self, name: str) -> int:
        """The run-time value of an enum member."""
        return self.prog.member(name)

    def get(self, name: str, player: Optional[int] = None) -> Any:
        """A table field, or a player's field."""
        return self.prog.get(self.s, name, player=player)

    def set(self, name: str, value: Any, player: Optional[int] = None) -> None:
        """Overwrite a table field, or a player's field, to set up a position. The pending
        decision keeps the options computed before: call `self.prog.resume(self.s)` to
        recompute them from the changed position."""
        self.prog.set(self.s, name, value, player=player)

    @property
    def pending(self) -> Any:
        """The pending decision, chance event or result."""
        return self.s.pending

    def labels(self) -> list[str]:
        """The pending decision's own options, without the any-time actions the engine appends."""
        node = self.s.pending
        assert isinstance(node, Decision), node
        return [o.label for o in node.options if o.action is None]

    def decide(self, player: int, label: Any, prompt: Optional[str] = None) -> None:
        """Player `player` (0-based) answers the pending decision (asked with `prompt`, if given)."""
        node = self.s.pending
        assert isinstance(node, Decision), f"expected a decision of P{player + 1}, got {node}"
        assert node.player == player, \
            f"P{node.player + 1} decides {node.prompt!r}, not P{player + 1}"
        if prompt is not None:
            assert node.prompt == prompt, node.prompt
        self.asked.append(self.asked_entry(node, label))
        self.mark = len(self.s.record)
        self.prog.apply(self.s, label)
        self.after_decision()

    def decided(self, player: int, label: str, prompt: str) -> None:
        """Player `player` answers the decision asked with `prompt`; or, when it had one legal
        option, the engine made it (`label`) without asking since the last decision answered."""
        node = self.s.pending
        if isinstance(node, Decision) and node.player == player and node.prompt == prompt:
            self.decide(player, label, prompt)
            return
        made = [m for m in self.made_without_asking(getattr(self, "mark", 0)) if m[1] == prompt]
        assert made and made[-1] == (player, prompt, label), (prompt, made, node)

    def made_without_asking(self, since: int = 0) -> list[tuple[int, str, str]]:
        """(player, prompt, label) of each decision with one legal option that the engine made
        without asking (docs/language.md) since record entry `since` (the game narrates)."""
        return [(e[1], " ".join(t for t, _ in e[2]), e[3]) for e in self.s.record[since:]
                if e[0] == "forced"]

    def asked_entry(self, node: Decision, label: Any) -> tuple:
        """What `asked` remembers of a decision."""
        return (node.player, node.prompt)

    def after_decision(self) -> None:
        """Run after every decision (a driver may check the invariants here)."""

    def chance(self, label: str) -> None:
        """The pending chance event comes out as `label`."""
        node = self.s.pending
        assert isinstance(node, Chance), f"expected chance, got {node}"
        self.prog.apply(self.s, label)

    def keep_order(self) -> None:
        """Every pending shuffle step leaves its list as it is (outcome 0 is the item already at
        that position), so the list keeps the order it had."""
        while isinstance(self.s.pending, Chance) and self.s.pending.what == "shuffle":
            self.prog.apply(self.s, 0)

    def shuffle(self, *order: str) -> None:
        """The pending shuffle puts its list in this order (the items' labels, first to last)."""
        for i, label in enumerate(order[:-1]):
            if len(set(order[i:])) == 1:        # the rest are alike: no chance node is asked
                break
            node = self.s.pending
            assert isinstance(node, Chance) and node.what == "shuffle", \
                f"expected a shuffle, got {node}"
            self.prog.apply(self.s, label)

    def check(self) -> None:
        """The rulebook's invariants hold."""
        assert self.prog.check_invariants(self.s) == []
