"""Tree reuse (`reuse=yes`, interpreter/agents/search.py): a decision starts from the node the
seat's last decision's tree reached by its move and the steps since that the seat saw. On
tests/fixtures/agents/vault.rules the first seat decides four times in a row, with nothing, a
choice it sees, a die roll and a choice it does not see between."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from game_driver import program

from mercator.interpreter.agents.base import RandomAgent
from mercator.interpreter.agents.search import ISMCTSAgent
from mercator.interpreter.agents.spec import DEFAULT_SETTINGS, SpecError, make_agent, parse_spec
from mercator.interpreter.engine.chance import weighted_index
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal, option_keys

VAULT = Path(__file__).resolve().parent / "fixtures" / "agents" / "vault.rules"
BUDGET = 300


def play(agent, seed: int) -> list[dict]:
    """One game of the Vault, the first seat played by `agent`, the second at random; per
    decision of the first seat: its prompt, the move, the visits its root started with, the
    iterations it ran, its root, and the node the last tree had reached by the steps since."""
    prog = program(VAULT)
    s = prog.new_game(2, seed, narrate=True, explicit_chance=True)
    rng, other = random.Random(seed), RandomAgent(seed)
    out: list[dict] = []
    path: list = []                    # the labels since the first seat's last move
    while not isinstance(s.pending, Terminal):
        p = s.pending
        if isinstance(p, Chance):
            prog.apply(s, weighted_index(p.weights, rng.randrange(sum(p.weights))))
            continue
        assert isinstance(p, Decision)
        if p.player == 1:
            i = other.choose(prog, s)
            path.append(p.option(i).label)
            prog.apply(s, i)
            continue
        expected = None
        if out:                        # the node the last tree reached by the steps since
            node = out[-1]["root"]
            for key in [out[-1]["key"], *path]:
                e = node.edges.get(key) if node is not None else None
                node = e.below if e is not None else None
            expected = node
        i = agent.choose(prog, s)
        out.append({"prompt": p.prompt, "move": p.option(i).label, "key": option_keys(p)[i],
                    "reused": agent.last_reused, "iterations": agent.last_iterations,
                    "root": agent.last_root, "expected": expected})
        path = []
        prog.apply(s, i)
    return out


@pytest.mark.parametrize("seed", range(3))
def test_a_decision_starts_from_the_last_tree_where_the_seat_saw_every_step_since(seed) -> None:
    got = play(ISMCTSAgent(BUDGET, seed=seed, reward="margin", reuse=True), seed)
    assert [d["prompt"] for d in got] == ["try the vault (1) or leave it (2)", "turn a dial",
                                          "answer", "after the roll", "after the card"]
    first, dial, answer, roll, card = got
    assert first["reused"] == 0 and first["iterations"] == BUDGET
    # right after its own move: the node below that move, its visits counted in the budget
    assert dial["root"] is dial["expected"] and dial["reused"] > 0
    assert dial["iterations"] == BUDGET - dial["reused"]
    # after the other seat's signal, which it saw: followed by the signal's label, counted
    assert answer["root"] is answer["expected"] and answer["reused"] > 0
    assert answer["iterations"] == BUDGET - answer["reused"]
    # after a die roll: the node is kept, but the tree does not tell the roll's outcomes apart,
    # so its visits are a prior and the whole budget is searched
    assert roll["root"] is roll["expected"] and roll["reused"] > 0
    assert roll["iterations"] == BUDGET
    # after a card the seat did not see: a fresh tree
    assert card["reused"] == 0 and card["iterations"] == BUDGET
    assert card["root"] is not card["expected"]


@pytest.mark.parametrize("seed", range(3))
def test_a_reused_tree_still_finds_the_dial_that_opens_the_vault(seed) -> None:
    """Only dial 7 opens the vault (10 coins; 1 to 6 from the die and up to 3 from the other
    choices can never make up for it): the plan found at the first decision is carried out."""
    got = play(ISMCTSAgent(BUDGET, seed=seed, reward="margin", reuse=True), seed)
    assert (got[0]["move"], got[1]["move"]) == ("1", "7")


def test_without_reuse_every_decision_searches_a_fresh_tree() -> None:
    got = play(ISMCTSAgent(BUDGET, seed=0, reward="margin"), 0)
    assert all(d["reused"] == 0 and d["iterations"] == BUDGET for d in got)
    assert got[1]["root"] is not got[1]["expected"]


def test_another_game_starts_afresh() -> None:
    agent = ISMCTSAgent(BUDGET, seed=0, reward="margin", reuse=True)
    play(agent, 0)
    again = play(agent, 1)
    assert again[0]["reused"] == 0 and again[0]["iterations"] == BUDGET


def test_reuse_is_a_spec_setting_of_the_information_set_search() -> None:
    assert make_agent(parse_spec("ismcts:50:reuse=yes"), 0).reuse is True
    assert make_agent(parse_spec("ismcts:50:reuse=no"), 0).reuse is False
    assert make_agent(parse_spec("ismcts:50"), 0).reuse is DEFAULT_SETTINGS["reuse"]
    with pytest.raises(SpecError, match="mcts has no setting 'reuse'"):
        parse_spec("mcts:50:reuse=yes")
    with pytest.raises(SpecError, match="reuse says whether .* yes or no"):
        parse_spec("ismcts:50:reuse=maybe")
