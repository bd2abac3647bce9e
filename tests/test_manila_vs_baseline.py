"""The Manila rulebook and the hand-written baseline play the same games, decision by decision.

For each (players, seed) the rulebook (explicit chance) and `benchmarks/baseline_manila.py` are
driven in lockstep: the same starting shares, the same dice, and at every decision the same
option index, picked by a seeded random agent (which also takes the "at any time" mortgage and
redeem options). At every decision both must ask the same player with the same options — the
rulebook's labels are compared with the baseline's actions translated to labels, so the order
matches too — and after every decision cash, shares, mortgages and prices must agree. Both must
end together with identical scores.

The baseline is used unmodified except for its two sources of chance, which are the rulebook's:
its own deal is replaced by the rulebook's (the baseline shuffles with Python's `random`), and
its dice are the ones chance rolled in the rulebook (one die per boat still at sea: choice 8 of
docs/games/manila.md; the baseline's extra dice for boats in Manila have no effect).
"""
from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import pytest

from shipped import shipped_program

from mercator.interpreter.engine.nodes import Chance, Decision, Terminal
from mercator.interpreter.engine.program import Program

_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "baseline_manila.py"
_spec = importlib.util.spec_from_file_location("baseline_manila", _PATH)
assert _spec is not None and _spec.loader is not None
baseline = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(baseline)

NAMES = baseline.GOOD_NAMES          # ("nutmeg", "silk", "ginseng", "jade")
SEEDS = range(30)
MAX_DECISIONS = 5000


@pytest.fixture(scope="module")
def prog() -> Program:
    return shipped_program("manila")


def label_of(action: tuple, game, forced: bool) -> str:
    """The rulebook's option label for a baseline action.  `forced`: the decision is a forced
    mortgage inside a payment (only mortgage options), where the rulebook labels a good by name."""
    kind = action[0]
    if kind in ("pass", "none", "stay"):
        return "pass"
    if kind == "bid":
        return str(action[1])
    if kind in ("buy", "leave_out", "board"):
        return NAMES[action[1]]
    if kind == "start":
        return "{" + ", ".join(f"{NAMES[g]}: {v}" for g, v in zip(game.loaded, action[1:])) + "}"
    if kind == "place":
        _, where, arg = action
        if where == "boat":
            return f"{NAMES[arg]}_boat"
        if where in ("harbour", "shipyard"):
            return f"{where}_{arg.lower()}"
        if where == "pilot":
            return f"{arg}_pilot"
        return where                                   # pirate, insurance
    if kind == "pilot":
        return f"{{boat: {NAMES[action[1]]}, steps: {action[2]}}}"
    if kind == "plunder_to":
        return action[2]
    if kind == "mortgage":
        return NAMES[action[1]] if forced else f"mortgage({NAMES[action[1]]})"
    if kind == "redeem":
        return f"redeem({NAMES[action[1]]})"
    raise AssertionError(f"unknown baseline action {action!r}")


def bags(prog: Program, s, name: str, n: int) -> list[list[int]]:
    return [[prog.get(s, name, player=p).get(g, 0) for g in range(4)] for p in range(n)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_rulebook_and_baseline_agree(prog: Program, players: int, seed: int) -> None:
    """Same player, same options (labels and order), same cash/shares/prices after every
    decision, same end and the same final scores."""
    rng = random.Random(seed)
    s = prog.new_game(players, seed=seed, explicit_chance=True)
    dice: list[int] = []

    def settle() -> None:
        """Let chance pick every pending outcome (deal and dice), recording the dice."""
        while isinstance(s.pending, Chance):
            node = s.pending
            i = rng.randrange(node.count)
            if node.what == "roll":
                dice.append(node.option(i).value)
            prog.apply(s, i)

    settle()
    assert not dice
    # the baseline, dealt the rulebook's starting shares and rolling the rulebook's dice
    game = baseline.ManilaGame(players, 0)
    shares, mortgaged = bags(prog, s, "shares", players), bags(prog, s, "mortgaged", players)
    game.held = [[a + b for a, b in zip(sh, mo)] for sh, mo in zip(shares, mortgaged)]
    game.mortgaged = mortgaged
    supply = prog.get(s, "supply")
    game.supply = [supply.get(g, 0) for g in range(4)]

    def roll_recorded_dice() -> None:
        for g in game.loaded:
            if game.where[g] is None:
                game._move(g, dice.pop(0))

    game._roll = roll_recorded_dice
    game.voyage, game.master = 0, None
    game._flow = game._play()
    game._pending = next(game._flow)

    for step in range(MAX_DECISIONS):
        node = s.pending
        if isinstance(node, Terminal):
            assert game.is_over(), "the rulebook ended, the baseline did not"
            assert list(node.scores) == game.scores()
            assert not dice
            return
        assert isinstance(node, Decision)
        assert not game.is_over(), "the baseline ended, the rulebook did not"
        actions = game.legal_actions()
        forced = all(a[0] == "mortgage" for a in actions)
        where = f"decision {step}: P{node.player + 1} {node.prompt!r}"
        assert node.player == game.current_player(), where
        assert node.count == len(actions), where
        assert [o.label for o in node.options] == [label_of(a, game, forced) for a in actions], where
        i = rng.randrange(node.count)
        prog.apply(s, i)
        settle()
        game.apply(actions[i])
        assert [prog.get(s, "pesos", player=p) for p in range(players)] == game.cash, where
        sh, mo = bags(prog, s, "shares", players), bags(prog, s, "mortgaged", players)
        assert [[a + b for a, b in zip(x, y)] for x, y in zip(sh, mo)] == game.held, where
        assert mo == game.mortgaged, where
        step_now = prog.get(s, "step")
        assert [step_now[g] for g in range(4)] == game.step, where
    raise AssertionError(f"no end within {MAX_DECISIONS} decisions")
