"""Three search settings of issue 36 (interpreter/agents/search.py), each on a small rulebook
whose answer is known.

Plans (`plan=N`, `_planned`): a decision that follows the seat's own last decision with
nothing between but its own moves is answered from the tree that decision searched, where that
tree reached it with at least N visits — a run of decisions (an offer's goods, a purchase's
barrels) follows the one line of play the first search valued. On
tests/fixtures/agents/vault.rules (test_tree_reuse.py's `play`) the first seat tries the vault
and at once turns a dial (only dial 7 opens it); then come the other seat's signal, a die roll
and a card it does not see, each before one of its decisions.

Amounts pooled (`kernel=W`, `amount_options`, `kernel_means`) and replies judged by the
estimate (`reply=K`, `_seed_reply`; tests/fixtures/agents/toll.rules) below.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from game_driver import program
from test_tree_reuse import BUDGET, play

from mercator.interpreter.agents.search import ISMCTSAgent
from mercator.interpreter.agents.spec import DEFAULT_SETTINGS, SpecError, make_agent, parse_spec


@pytest.mark.parametrize("seed", range(3))
def test_the_seats_next_decision_is_answered_from_the_tree_of_its_last(seed) -> None:
    agent = ISMCTSAgent(BUDGET, seed=seed, reward="margin", plan=20)
    first, dial, answer, roll, card = play(agent, seed)
    assert first["iterations"] == BUDGET
    # right after its own move, nothing between: no search, the node below its move, whose
    # most visited dial is the one that opens the vault
    assert dial["iterations"] == 0 and dial["root"] is dial["expected"]
    assert dial["root"].visits >= 20
    assert (first["move"], dial["move"]) == ("1", "7")
    # another seat chose, a die was rolled, a card was hidden: each searched afresh (plan
    # without reuse starts a new tree)
    for d in (answer, roll, card):
        assert d["iterations"] == BUDGET and d["reused"] == 0
    assert agent.planned == 1


def test_a_tree_with_fewer_visits_there_than_the_plan_asks_is_searched_again() -> None:
    agent = ISMCTSAgent(BUDGET, seed=0, reward="margin", plan=BUDGET + 1)
    got = play(agent, 0)
    assert all(d["iterations"] == BUDGET for d in got)
    assert agent.planned == 0


def test_without_a_plan_every_decision_is_searched() -> None:
    agent = ISMCTSAgent(BUDGET, seed=0, reward="margin")
    assert all(d["iterations"] == BUDGET for d in play(agent, 0))
    assert agent.planned == 0


def test_plan_with_reuse_carries_the_tree_on_after_a_step_it_saw() -> None:
    """With reuse too, the decision after the other seat's signal starts from the node the
    tree reached (it is not the seat's own run, so it is searched, its visits counted)."""
    agent = ISMCTSAgent(BUDGET, seed=1, reward="margin", plan=20, reuse=True)
    first, dial, answer, roll, card = play(agent, 1)
    assert dial["iterations"] == 0
    assert answer["root"] is answer["expected"] and answer["reused"] > 0
    assert answer["iterations"] == BUDGET - answer["reused"]


def test_plan_is_a_spec_setting_of_the_information_set_search() -> None:
    assert make_agent(parse_spec("ismcts:50:plan=30"), 0).plan == 30
    assert make_agent(parse_spec("ismcts:50"), 0).plan == DEFAULT_SETTINGS["plan"] == 0
    assert str(parse_spec("ismcts:50:plan=30")) == "ismcts:50:plan=30"
    with pytest.raises(SpecError, match="mcts has no setting 'plan'"):
        parse_spec("mcts:50:plan=30")
    for bad in ("-1", "x", "1000001"):
        with pytest.raises(SpecError, match="plan is the visits .* a whole number from 0 to "
                                            "100000"):
            parse_spec(f"ismcts:50:plan={bad}")
    with pytest.raises(ValueError, match="negative"):
        ISMCTSAgent(10, plan=-1)


# -- kernel=W: sequential halving ranks a menu of amounts by means pooled with neighbours'

def test_amount_options_are_counted_in_steps_of_the_menu() -> None:
    from mercator.interpreter.agents.search import amount_options
    from mercator.interpreter.engine.nodes import Decision
    from mercator.dsl.types import INT

    def decision(values: list, allow_pass: bool = True) -> Decision:
        d = Decision(0, values, str, allow_pass, "bid", [], False, None, None)
        d.vtype = INT
        return d
    assert amount_options(decision([1000, 1100, 1300, 1200])) == ([1, 2, 3, 4],
                                                                  [0.0, 1.0, 3.0, 2.0])
    assert amount_options(decision([5, 7, 9], allow_pass=False)) == ([0, 1, 2], [0.0, 1.0, 2.0])
    assert amount_options(decision([1000, 1100])) is None


def test_kernel_means_pool_each_amount_with_its_neighbours() -> None:
    """Three amounts 0, 1, 2 steps apart; the first lost once (0), the second won once (1),
    the third untried: with width 1 a neighbour one step away weighs exp(-1/2), two steps
    exp(-2)."""
    import math
    from mercator.interpreter.agents.search import _Edge, kernel_means
    keys = ["a", "b", "c"]
    edges = {"a": _Edge(), "b": _Edge()}
    edges["a"].n, edges["a"].w = 1, 0.0
    edges["b"].n, edges["b"].w = 1, 1.0
    got = kernel_means(([0, 1, 2], [0.0, 1.0, 2.0]), keys, edges, 1.0)
    near, far = math.exp(-0.5), math.exp(-2.0)
    assert got[0] == pytest.approx(near / (1 + near))
    assert got[1] == pytest.approx(1 / (1 + near))
    assert got[2] == pytest.approx(near / (far + near))
    # a narrow kernel leaves each tried amount its own mean
    narrow = kernel_means(([0, 1, 2], [0.0, 1.0, 2.0]), keys, edges, 0.05)
    assert narrow[0] == pytest.approx(0.0) and narrow[1] == pytest.approx(1.0)
    assert kernel_means(([0, 1, 2], [0.0, 1.0, 2.0]), keys, {}, 1.0) == {}


def test_kernel_is_a_spec_setting() -> None:
    assert make_agent(parse_spec("ismcts:50:kernel=1.5"), 0).kernel == 1.5
    assert make_agent(parse_spec("mcts:50:kernel=2"), 0).kernel == 2.0
    assert make_agent(parse_spec("ismcts:50"), 0).kernel == DEFAULT_SETTINGS["kernel"] == 0.0
    for bad in ("-1", "x", "101"):
        with pytest.raises(SpecError, match="kernel is the width"):
            parse_spec(f"ismcts:50:kernel={bad}")


def test_halving_ranks_the_amounts_by_their_pooled_means(monkeypatch) -> None:
    """Wired through: with a kernel, the rounds of sequential halving drop and keep amounts by
    `kernel_means` (here replaced by one that ranks the highest bid first, which no rollout
    favours: tests/fixtures/agents/auction.rules, a prize worth 10 and bids 0..20)."""
    from test_search_settings import AUCTION, first_move
    from mercator.interpreter.agents import search
    from mercator.interpreter.agents.search import MCTSAgent

    def rigged(amounts, keys, edges, width):
        return {i: (1.0 if i == amounts[0][-1] else 0.0) for i in amounts[0]}
    plain = first_move(AUCTION, MCTSAgent(100, seed=0, reward="margin", root="halving"))
    monkeypatch.setattr(search, "kernel_means", rigged)
    assert first_move(AUCTION, MCTSAgent(100, seed=0, reward="margin", root="halving")) == plain
    assert plain != "20"
    assert first_move(AUCTION, MCTSAgent(100, seed=0, reward="margin", root="halving",
                                         kernel=1.0)) == "20"


# -- reply=K: small decisions below the root start with K visits of their one-step estimate

TOLL = Path(__file__).resolve().parent / "fixtures" / "agents" / "toll.rules"


def toll_named(agent) -> int:
    prog = program(TOLL)
    s = prog.new_game(3, 0, narrate=True, explicit_chance=True)
    return int(s.pending.option(agent.choose(prog, s)).label)


def test_a_reply_judged_by_the_estimate_keeps_a_toll_from_overreaching() -> None:
    """tests/fixtures/agents/toll.rules: the best toll is 4. At 100 iterations the replies,
    unsearched for their first visits, pay any toll half the time: the search names 7 or more
    in some of ten seeds; with each reply's options starting at 4 visits of what the score
    says one step on, 3 to 5 in every seed."""
    from mercator.interpreter.agents.search import MCTSAgent
    plain = [toll_named(MCTSAgent(100, seed=k, reward="margin")) for k in range(10)]
    assert sum(t >= 7 for t in plain) >= 3, plain
    replied = [toll_named(MCTSAgent(100, seed=k, reward="margin", reply=4.0)) for k in range(10)]
    assert all(3 <= t <= 5 for t in replied), replied


def test_the_reply_prior_is_on_the_rollouts_scale_and_leaves_the_root_alone() -> None:
    """The responder's node starts with 4 visits an option, paying a toll of 0 ranked above
    declining; the root's options (eleven tolls) get no prior."""
    from mercator.interpreter.agents.search import MCTSAgent
    agent = MCTSAgent(60, seed=0, reward="margin", reply=4.0)
    toll_named(agent)
    root = agent.last_root
    assert root is not None and all(e.n < 60 for e in root.edges.values())
    below = root.edges["0"].below
    assert below is not None
    pay, decline = below.edges["true"], below.edges["false"]
    assert pay.n >= 4 and decline.n >= 4
    # 4 prior visits each, the rest real: the prior's part is what the search started from
    assert pay.w / pay.n > decline.w / decline.n


def test_reply_is_a_spec_setting() -> None:
    assert make_agent(parse_spec("ismcts:50:reply=8"), 0).reply == 8.0
    assert make_agent(parse_spec("ismcts:50"), 0).reply == DEFAULT_SETTINGS["reply"] == 0.0
    for bad in ("-1", "x", "10001"):
        with pytest.raises(SpecError, match="reply is how many visits"):
            parse_spec(f"ismcts:50:reply={bad}")
