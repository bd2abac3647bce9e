"""Offers in the search (interpreter/agents/search.py): rollouts that judge offers
(`deals="judge"`: a draft posted as it stands, a standing offer accepted where it raises the
taker's estimate) and a draft's 'done' weighed against the items it could add (move groups), on
tests/fixtures/agents/gift.rules: a prize worth 10 points to its holder and 30 to the first
seat, bought with coins, 5 at a time, and pebbles worth nothing. 15 coins is the least offer
the holder gains by."""
from __future__ import annotations

from pathlib import Path

import pytest

from game_driver import program

from mercator.interpreter.agents.search import ISMCTSAgent, MCTSAgent, partition
from mercator.interpreter.agents.spec import SpecError, make_agent, parse_spec
from mercator.interpreter.engine.nodes import Decision, Terminal

GIFT = Path(__file__).resolve().parent / "fixtures" / "agents" / "gift.rules"


def labels(node: Decision) -> list[str]:
    return [o.label for o in node.options]


def step(prog, s, label: str) -> None:
    prog.apply(s, labels(s.pending).index(label))


def drafting(prog):
    """The first seat at its first 'what you give', having added 5 coins."""
    s = prog.new_game(2, 0, narrate=True, explicit_chance=True)
    step(prog, s, "post an offer")
    step(prog, s, "add 5 coins")
    return s


def offered(prog, s, coins: int):
    """The holder's turn, an offer of `coins` coins from the first seat standing."""
    step(prog, s, "post an offer")
    for _ in range(coins // 5):
        step(prog, s, "add 5 coins")
    step(prog, s, "post")
    while s.pending.player != 1:
        step(prog, s, "pass")
    return s


def first_offer(agent, seed: int) -> list[str]:
    """The first seat's steps up to its first posted offer (the holder a searcher too)."""
    prog = program(GIFT)
    s = prog.new_game(2, seed, narrate=True, explicit_chance=True)
    holder = ISMCTSAgent(200, seed=seed + 100, reward="margin", rollout="mast", deals="judge",
                         group="pass")
    made: list[str] = []
    while not isinstance(s.pending, Terminal):
        p = s.pending
        i = 0 if p.count == 1 else (agent if p.player == 0 else holder).choose(prog, s)
        if p.player == 0 and p.count > 1:
            made.append(p.options[i].label)
            if made[-1] == "post":
                return made
        prog.apply(s, i)
    return made


def test_a_drafts_done_is_weighed_against_the_items_it_could_add() -> None:
    prog = program(GIFT)
    s = drafting(prog)
    node = s.pending
    assert labels(node) == ["add 5 coins", "add grey", "add white", "add black", "post",
                            "cancel"]
    assert partition(node, "pass") == [4, ("values", [0, 1, 2, 3]), 5]
    assert partition(node, "bins") == [4, ("values", [0, 1, 2, 3]), 5]   # no whole numbers
    assert partition(node, None) is None


def test_a_judging_rollout_posts_a_draft_as_it_stands() -> None:
    prog = program(GIFT)
    s = drafting(prog)
    assert MCTSAgent._judged_deal_step(prog, s, s.pending, 5) == 4     # post, not cancel


@pytest.mark.parametrize("coins, accepted", [(10, False), (15, True), (40, True)])
def test_a_judging_rollout_accepts_an_offer_that_raises_the_takers_estimate(coins,
                                                                             accepted) -> None:
    """The holder's prize is worth 10 to him: 10 coins leave him even, 15 gain him 5."""
    prog = program(GIFT)
    s = offered(prog, prog.new_game(2, 0, narrate=True, explicit_chance=True), coins)
    node = s.pending
    assert node.player == 1 and labels(node)[0] == "pass"
    i = MCTSAgent._judged_deal_step(prog, s, node, 0)
    assert (i != 0) == accepted
    if accepted:
        assert labels(node)[i].startswith("accept #1")


@pytest.mark.parametrize("seed", range(4))
def test_judged_rollouts_offer_the_least_the_holder_gains_by(seed) -> None:
    """With rollouts that judge offers the first seat offers 15 coins and no pebble; with
    rollouts that cancel every draft, what it adds costs it nothing there, and it offers less
    than 15 or adds pebbles."""
    judged = first_offer(ISMCTSAgent(400, seed=seed, reward="margin", rollout="mast",
                                     deals="judge", group="pass"), seed)
    assert judged == ["post an offer", "add 5 coins", "add 5 coins", "add 5 coins", "post"]
    cancelled = first_offer(ISMCTSAgent(400, seed=seed, reward="margin", rollout="mast",
                                        deals=False, group="pass"), seed)
    assert cancelled != judged


def test_judge_is_a_spec_setting() -> None:
    assert make_agent(parse_spec("ismcts:50:deals=judge"), 0).judge is True
    assert make_agent(parse_spec("ismcts:50:deals=random"), 0).deals is True
    agent = make_agent(parse_spec("ismcts:50:deals=none"), 0)
    assert (agent.deals, agent.judge) == (False, False)
    with pytest.raises(SpecError, match="judge"):
        parse_spec("ismcts:50:deals=fair")
    with pytest.raises(ValueError, match="judge"):
        ISMCTSAgent(50, deals="fair")
