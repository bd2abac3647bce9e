"""The search's settings beyond its budget (interpreter/agents/search.py): the reward that ranks
positions (`reward=margin|rank`), the rollout policy (`rollout=mast`), and their specs, each on a
tiny rulebook where the best move is known."""
from __future__ import annotations

import math
from typing import Optional
from pathlib import Path

import pytest

from game_driver import program, program_text

from mercator.interpreter.agents.search import (ISMCTSAgent, MCTSAgent, Terminal, move_key,
                                                rank_rewards, score_margins)
from mercator.interpreter.agents.spec import BEFORE_36, SpecError, make_agent, parse_spec

ROOT = Path(__file__).resolve().parents[1]
BEHIND = ROOT / "tests" / "fixtures" / "agents" / "behind.rules"
NIM = ROOT / "tests" / "fixtures" / "agents" / "nim.rules"
AUCTION = ROOT / "tests" / "fixtures" / "agents" / "auction.rules"
BONDS = ROOT / "tests" / "fixtures" / "agents" / "bonds.rules"
LOAN = ROOT / "tests" / "fixtures" / "agents" / "loan.rules"


def first_move(path: Path, agent) -> str:
    prog = program(path)
    s = prog.new_game(2, 0, narrate=True, explicit_chance=True)
    return s.pending.option(agent.choose(prog, s)).label


def test_a_win_reward_cannot_tell_the_moves_of_a_lost_game_apart() -> None:
    """Every rollout is lost: all options get the same visits and reward, the first is taken."""
    assert [first_move(BEHIND, MCTSAgent(200, seed=k)) for k in range(3)] == ["1", "1", "1"]


@pytest.mark.parametrize("agent_cls", [MCTSAgent, ISMCTSAgent], ids=["mcts", "ismcts"])
def test_a_margin_reward_takes_the_most_points_in_a_lost_game(agent_cls) -> None:
    """Gaining 5 loses by least; the rollouts' noise (three more turns of 1..5) hides it now
    and then (a rollout's later turns vary by more than the choice), so at least 4 of 5 seeds."""
    found = [first_move(BEHIND, agent_cls(400, seed=k, reward="margin")) for k in range(5)]
    assert found.count("5") >= 4, found


def test_a_cut_off_is_judged_by_the_score_there() -> None:
    """depth=1: one more step, then the rulebook's score of the position (no later noise)."""
    found = [first_move(BEHIND, ISMCTSAgent(200, seed=k, reward="margin", depth=1))
             for k in range(5)]
    assert found == ["5"] * 5


@pytest.mark.parametrize("agent_cls", [MCTSAgent, ISMCTSAgent], ids=["mcts", "ismcts"])
def test_a_cut_off_is_judged_by_the_rulebooks_estimate(agent_cls) -> None:
    """A bond costs 3 now and pays 6 in the last year: judged by the score two decisions on,
    buying only loses (every seed passes); by the rulebook's estimate it gains 3 (every seed
    buys). Without a cut-off the rollouts reach the payment, and buying wins either way."""
    for reward in ("win", "margin"):
        by_score = [first_move(BONDS, agent_cls(200, seed=k, depth=2, reward=reward,
                                                evaluate="score")) for k in range(4)]
        by_estimate = [first_move(BONDS, agent_cls(200, seed=k, depth=2, reward=reward))
                       for k in range(4)]
        assert by_score == ["0"] * 4, (reward, by_score)
        assert by_estimate == ["1"] * 4, (reward, by_estimate)
    assert [first_move(BONDS, agent_cls(200, seed=k, reward="margin", evaluate="score"))
            for k in range(4)] == ["1"] * 4


def test_the_estimate_ranks_like_the_score_and_stands_in_for_it_when_absent() -> None:
    prog = program(BONDS)
    s = prog.new_game(2, 0)
    prog.apply(s, 1)                      # P1 buys a bond: 7 coins and a bond, P2 10 coins
    est = prog.estimated(s)
    assert est.scores == (13, 10) and est.winners == (0,) and est.ranking == (0, 1)
    assert prog.result(s).scores == (7, 10)
    plain = program(BEHIND)               # no estimate: a cut-off is judged by the score
    t = plain.new_game(2, 0)
    plain.apply(t, 4)
    assert plain.estimated(t) == plain.result(t)


def test_mast_learns_which_move_pays_and_plays_it() -> None:
    for k in range(4):
        agent = MCTSAgent(200, seed=k, reward="margin", rollout="mast")
        assert first_move(BEHIND, agent) == "5"
        mine = {key[1][1]: w / n for key, (w, n) in agent.mast.items() if key[0] == 0}
        assert sorted(mine) == [1, 2, 3, 4, 5]
        assert max(mine, key=mine.__getitem__) == 5, mine


def test_a_win_reward_overbids_in_an_auction_and_a_margin_reward_does_not() -> None:
    """Against a random second bidder, 9 wins most often (20 of 21) but the best bid by
    expected margin is 6 (4..8 within 0.2 of it; 9 gives 3.1 to 6's 3.7)."""
    assert [first_move(AUCTION, MCTSAgent(200, seed=k)) for k in range(5)] == ["9"] * 5
    margin = [int(first_move(AUCTION, MCTSAgent(200, seed=k, reward="margin")))
              for k in range(10)]
    assert sum(4 <= b <= 8 for b in margin) >= 9, margin
    mast = [int(first_move(AUCTION, MCTSAgent(200, seed=k, reward="margin", rollout="mast")))
            for k in range(10)]
    assert all(5 <= b <= 8 for b in mast), mast


def test_progressive_widening_searches_a_few_options_of_a_large_menu() -> None:
    """pw=1: after 60 iterations the root has admitted ceil(sqrt(60)) = 8 of its 21 bids."""
    for kw, tried in ((dict(), 21), (dict(pw=1.0), 8)):
        agent = MCTSAgent(60, seed=0, reward="margin", **kw)
        first_move(AUCTION, agent)
        assert agent.last_root is not None
        assert sum(1 for e in agent.last_root.edges.values() if e.n) == tried


@pytest.mark.parametrize("kw", [dict(reward="margin"), dict(reward="rank"),
                                dict(reward="margin", rollout="mast"),
                                dict(reward="margin", rollout="mast", pw=1.0),
                                dict(reward="margin", rollout="mast", pw=1.0, rave=100.0)],
                         ids=["margin", "rank", "mast", "mast-pw", "rave"])
def test_the_settings_still_solve_nim(kw) -> None:
    found = [first_move(NIM, MCTSAgent(400, seed=k, **kw)) for k in range(6)]
    assert found.count("2") >= 5, found


def test_margins_and_ranks_follow_the_winning_direction() -> None:
    t = Terminal((10, 4, 10), ((), (), ()), (0, 2), (0, 2, 1))
    assert score_margins(t, 3, 1) == [0.0, -6.0, 0.0]
    assert score_margins(t, 3, -1) == [-6.0, 6.0, -6.0]          # the lowest score wins
    assert rank_rewards(t, 3, 1) == [0.75, 0.0, 0.75]
    assert rank_rewards(t, 3, -1) == [0.25, 1.0, 0.25]


def test_a_margin_may_be_taken_against_the_others_mean_or_against_nothing() -> None:
    """reward=mean: a seat's score less the mean of the others'; reward=own: its score alone
    (the lowest wins: taken the other way round)."""
    t = Terminal((10, 4, 7), ((), (), ()), (0,), (0, 2, 1))
    assert score_margins(t, 3, 1, "mean") == [4.5, -4.5, 0.0]
    assert score_margins(t, 3, -1, "mean") == [-4.5, 4.5, 0.0]
    assert score_margins(t, 3, 1, "none") == [10.0, 4.0, 7.0]
    assert score_margins(t, 3, -1, "none") == [-10.0, -4.0, -7.0]
    barred = Terminal((10, 12, 4), ((), (), ()), (0,), (1, 0, 2), barred=(1,))
    assert score_margins(barred, 3, 1, "mean") == [6.0, -9.0, -6.0]   # the barred seat left out
    assert score_margins(barred, 3, 1, "none") == [10.0, -5.0, 4.0]   # below every other's


def test_a_seat_barred_from_winning_is_no_rival_and_has_the_worst_margin() -> None:
    """`eligible` bars seat 1 (the 12): seat 0 and seat 2 are measured against each other, and
    seat 1's margin is the lowest score less the highest, less one; by rank it is outscored."""
    t = Terminal((10, 12, 4), ((), (), ()), (0,), (1, 0, 2), barred=(1,))
    assert score_margins(t, 3, 1) == [6.0, -9.0, -6.0]
    assert rank_rewards(t, 3, 1) == [1.0, 0.0, 0.5]
    alone = Terminal((10, 12), ((), ()), (0,), (1, 0), barred=(1,))
    assert score_margins(alone, 2, 1) == [3.0, -3.0]          # no rival left: the spread and one


@pytest.mark.parametrize("reward", ["margin", "rank"])
@pytest.mark.parametrize("agent_cls", [MCTSAgent, ISMCTSAgent], ids=["mcts", "ismcts"])
def test_the_searcher_declines_a_gain_that_bars_it_from_winning(agent_cls, reward) -> None:
    """tests/fixtures/agents/loan.rules: 5 coins with a loan outscore 3 coins, but the loan's
    holder cannot win; by score margin or rank (the rulebook declares no estimate) the
    searcher takes the 3 coins."""
    found = [first_move(LOAN, agent_cls(300, seed=k, reward=reward)) for k in range(4)]
    assert found == ["three_coins"] * 4, found


def test_the_settings_are_spec_settings() -> None:
    spec = parse_spec("ismcts:300:reward=margin:rollout=mast:depth=20:pw=1.5")
    assert str(spec) == "ismcts:300:depth=20:reward=margin:rollout=mast:pw=1.5"
    agent = make_agent(spec, 1)
    assert (agent.reward, agent.rollout, agent.depth, agent.pw) == ("margin", "mast", 20, 1.5)
    plain = make_agent(parse_spec("mcts:50"), 1)            # a spec's defaults: the strong ones
    assert (plain.reward, plain.rollout, plain.pw, plain.depth, plain.estimate_depth,
            plain.group, plain.judge, plain.anytime_below, plain.root) == \
        ("margin", "auto", 1.0, None, 4, "bins", True, False, "halving")
    before = make_agent(parse_spec("ismcts:200:" + BEFORE_36), 1)   # the searcher before them
    assert (before.reward, before.rollout, before.pw, before.depth, before.estimate_depth,
            before.group, before.judge, before.deals, before.anytime_below, before.root) == \
        ("win", "random", 0.0, None, None, None, False, False, True, "uct")
    assert str(parse_spec("ismcts:200:" + BEFORE_36)) == "ismcts:200:" + BEFORE_36
    bare = MCTSAgent(50)                                      # the Python API's: the plain search
    assert (bare.reward, bare.rollout, bare.pw, bare.estimate_depth, bare.group) == \
        ("win", "random", 0.0, None, None)
    assert make_agent(parse_spec("ismcts:10:depth=3:eval=score"), 1).evaluate == "score"
    assert str(parse_spec("ismcts:10:eval=score:depth=3")) == "ismcts:10:depth=3:eval=score"
    assert plain.evaluate == "estimate"
    for bad in ("ismcts:reward=score", "mcts:rollout=smart", "random:reward=margin",
                "ismcts:pw=-1", "ismcts:pw=101", "ismcts:eval=win", "ismcts:eval=",
                "ismcts:depth=0", "ismcts:depth=start"):
        with pytest.raises(SpecError):
            parse_spec(bad)
    with pytest.raises(ValueError):
        MCTSAgent(10, reward="points")
    with pytest.raises(ValueError):
        MCTSAgent(10, evaluate="guess")


def test_levels_a_person_understands_are_time_budgets_of_the_searcher() -> None:
    from mercator.interpreter.agents.root_parallel import RootParallelAgent
    from mercator.interpreter.agents.spec import LEVELS
    assert str(parse_spec("bot")) == "bot:medium"
    for level, seconds in LEVELS.items():
        spec = parse_spec(f"Bot:{level.upper()}")
        assert (spec.kind, spec.seconds, spec.level, str(spec)) == \
            ("ismcts", seconds, level, f"bot:{level}")
        assert spec.needs_record and spec.honest
        assert parse_spec(str(spec)) == spec                      # printed as it is typed
    assert make_agent(parse_spec("bot:easy"), 1).seconds == 0.2
    assert isinstance(make_agent(parse_spec("bot:easy"), 1), ISMCTSAgent)      # one core
    assert make_agent(parse_spec("bot:hard:cores=1"), 1).seconds == 3.0
    wide = make_agent(parse_spec("bot:hard:cores=2:depth=5"), 1)
    assert isinstance(wide, RootParallelAgent) and wide.settings["depth"] == 5
    wide.close()
    assert str(parse_spec("bot:hard:depth=5")) == "bot:hard:depth=5"
    for bad, words in (("bot:500", "bot:easy, bot:medium, bot:hard"),
                       ("bot:expert", "a bot's level is one of"),
                       ("bot:easy:cores=0", "cores is the number of processes")):
        with pytest.raises(SpecError, match=words):
            parse_spec(bad)


def test_with_no_depth_given_a_rulebook_with_an_estimate_cuts_its_rollouts() -> None:
    """The spec's default: rollouts cut after 4 decisions where the rulebook declares an
    estimate (Bonds, 12 decisions a game: the first decision's rollouts stop short of the end),
    to the end where it does not (Behind)."""
    bot = make_agent(parse_spec("mcts:20"), 1)
    prog = program(BONDS)
    s = prog.new_game(2, 0)
    bot.choose(prog, s)
    assert 0 < bot.last_rollout_decisions <= 20 * 4
    assert (bot._depth, bot._rollout) == (4, "mast")          # cut off: MAST's rollouts
    assert bot.mast                                             # (which keep move averages)
    behind = program(BEHIND)
    t = behind.new_game(2, 0)
    bot.choose(behind, t)
    assert (bot._depth, bot._rollout) == (None, "random")       # to the end: the native playout
    assert make_agent(parse_spec("mcts:20:depth=end"), 1).estimate_depth is None


def test_with_a_margin_reward_a_finished_rollout_is_judged_by_the_estimate_too() -> None:
    """One scale for every rollout: a margin compares rollouts cut off (judged by the estimate)
    with rollouts that reached the end, so those are judged by the estimate as well (an estimate
    need not be in the score's units: Die Händler's counts Taler, its score levels). A win
    reward takes the game's own result at the end."""
    prog = program(BONDS)
    calls = []
    real = prog.estimated
    prog.estimated = lambda s: calls.append(s.over) or real(s)          # type: ignore[method-assign]
    try:
        s = prog.new_game(2, 0)
        MCTSAgent(30, seed=1, reward="margin").choose(prog, s)    # no cut-off: every rollout ends
        assert len(calls) == 30 and all(calls)
        calls.clear()
        MCTSAgent(30, seed=1, reward="win").choose(prog, s)
        assert calls == []
        MCTSAgent(30, seed=1, reward="margin", evaluate="score").choose(prog, s)
        assert calls == []
    finally:
        del prog.estimated


PLEDGES = ROOT / "tests" / "fixtures" / "agents" / "pledges.rules"


def test_a_step_of_the_top_level_is_a_phase_or_a_pass_of_its_loop_not_a_procedure() -> None:
    """Pledges: a year is one step (its phase calls the procedure in which the 3 players pledge
    3 times round), so the step changes at decisions 0, 9 and 18 only; Bonds' phase is itself
    the loop over the players, so each pledge there is a step of its own."""
    from mercator.interpreter.agents.search import top_step
    for path, players, changes in ((PLEDGES, 3, [0, 9, 18]), (BONDS, 2, list(range(12)))):
        assert where_it_changes(path, players, top_step) == changes, path.name


def where_it_changes(path: Path, players: int, where) -> list[int]:
    """The decisions (counted from 0) of a game at which where(state) differs from the last
    decision's; the game is played by taking option k mod the count at decision k."""
    prog = program(path)
    s = prog.new_game(players, 0)
    seen, last, k = [], None, 0
    while not s.over:
        g = where(s)
        if g != last:
            seen.append(k)
            last = g
        prog.apply(s, k % s.pending.count)
        k += 1
    return seen


@pytest.mark.parametrize("agent_cls", [MCTSAgent, ISMCTSAgent], ids=["mcts", "ismcts"])
def test_a_rollout_cut_between_steps_sees_what_the_step_settles(agent_cls) -> None:
    """Pledges: each pledge is paid once all nine are made. Rollouts cut one decision on stop
    before the payment: every pledge looks free (equal means at the root) and the first in the
    menu, 5, is taken; cut at the next step of the top level (the next year) they see the
    payment, and every seed pledges 0."""
    prog = program(PLEDGES)
    for cut, want in (("decision", "5"), ("step", "0")):
        for k in range(4):
            s = prog.new_game(3, k, narrate=True, explicit_chance=True)
            bot = agent_cls(300, seed=k, depth=1, cut=cut, reward="margin", rollout="mast")
            assert s.pending.option(bot.choose(prog, s)).label == want, (cut, k)
            means = {key: e.w / e.n for key, e in bot.last_root.edges.items()}
            if cut == "decision":
                assert set(means.values()) == {0.5}, means
            else:
                assert means["0"] > means["1"] > means["5"], means


def test_a_top_level_that_never_steps_still_ends_a_rollout(monkeypatch) -> None:
    """A rollout cut by steps plays at most STEP_CAP decisions, wherever the steps are."""
    import mercator.interpreter.agents.search as search
    monkeypatch.setattr(search, "STEP_CAP", 4)
    prog = program(PLEDGES)
    bot = MCTSAgent(30, seed=1, depth=50, cut="step", rollout="mast")
    bot.choose(prog, prog.new_game(3, 0))
    assert 0 < bot.last_rollout_decisions <= 30 * 4
    with pytest.raises(ValueError, match="depth counts one of step, phase, decision"):
        MCTSAgent(10, cut="turn")


def test_the_cut_is_a_spec_setting_and_steps_by_default() -> None:
    assert make_agent(parse_spec("ismcts:50"), 1).cut == "step"
    spec = parse_spec("ismcts:50:cut=decision:depth=3")
    assert str(spec) == "ismcts:50:depth=3:cut=decision"
    assert (make_agent(spec, 1).cut, make_agent(spec, 1).depth) == ("decision", 3)
    assert MCTSAgent(10).cut == "decision"                     # the Python API's plain search
    with pytest.raises(SpecError, match="cut says what a rollout's depth counts"):
        parse_spec("ismcts:50:cut=turn")


@pytest.mark.parametrize("agent_cls", [MCTSAgent, ISMCTSAgent], ids=["mcts", "ismcts"])
def test_a_prior_starts_each_root_option_with_visits_of_its_one_step_estimate(agent_cls) -> None:
    """Bonds: a bond costs 3 now and the estimate counts it at the 6 it pays, so one step on
    buying is worth 3 more than not. With prior=50 both options start with 50 visits, buying's
    of the higher reward; two iterations cannot overturn that, and every seed buys."""
    prog = program(BONDS)
    for k in range(4):
        s = prog.new_game(2, k, narrate=True, explicit_chance=True)
        bot = agent_cls(2, seed=k, prior=50, reward="margin", rollout="mast", depth=2)
        assert s.pending.option(bot.choose(prog, s)).label == "1", k
        edges = bot.last_root.edges
        assert edges["0"].n + edges["1"].n == 100 + 2
        assert edges["1"].w / edges["1"].n > 0.5 > edges["0"].w / edges["0"].n
    assert make_agent(parse_spec("ismcts:10:prior=30"), 1).prior == 30
    with pytest.raises(SpecError, match="prior is how many visits"):
        parse_spec("ismcts:10:prior=-1")
    with pytest.raises(ValueError, match="prior's weight cannot be negative"):
        MCTSAgent(10, prior=-1)


def test_a_mast_rollout_weighs_a_pass_against_the_values_as_one_alternative() -> None:
    """Manila's first bid: a pass and 56 bids. With no move averages known, a MAST rollout
    passes about one time in two (not one in 57); once the pass is known to pay less than the
    bids, it passes far less often."""
    prog = program(ROOT / "rulebooks" / "manila.rules")
    s = prog.new_game(3, 0)
    assert s.pending.allow_pass and s.pending.count > 50
    bot = MCTSAgent(10, seed=0, rollout="mast", depth=1, cut="decision")
    bot._depth, bot._rollout = 1, "mast"

    def passes(k: int) -> int:
        n = 0
        for _ in range(k):
            moves: list = []
            bot._stepped_playout(prog, s.clone(), moves)
            n += moves[0][1][1] is None
        return n
    assert 160 <= passes(400) <= 240
    site = move_key(s.pending, 0)[0]
    bot.mast[(0, (site, None))] = [0.0, 100.0]                # the pass: averages 0
    assert passes(400) < 40


def test_a_phase_cut_counts_phases_only() -> None:
    """cut=phase: Bonds' phase loops over the players, but a year is one phase, so the phase
    changes at decisions 0, 2, 4, ... only (where each step changes at every decision)."""
    from mercator.interpreter.agents.search import top_phase
    assert where_it_changes(BONDS, 2, top_phase) == [0, 2, 4, 6, 8, 10]
    assert str(parse_spec("ismcts:20:cut=phase")) == "ismcts:20:cut=phase"


TITHE = ROOT / "tests" / "fixtures" / "agents" / "tithe.rules"


@pytest.mark.parametrize("pw", [0.0, 1.0], ids=["all", "pw"])
def test_move_groups_weigh_a_pass_against_the_values_as_one(pw) -> None:
    """Tithe: passing beats every one of 40 gifts by 5 coins, under luck of 0 to 60 coins a
    seat. Searched as 41 options alike, a lucky gift looks best in most of 10 seeds; with
    group=pass the pass is weighed against the gifts as one and is taken in every seed, the
    gifts' shared visits (the node's group edge) summing their own."""
    prog = program(TITHE)

    def picks(group: str) -> list[str]:
        out = []
        for k in range(10):
            s = prog.new_game(2, k, narrate=True, explicit_chance=True)
            bot = MCTSAgent(1000, seed=k, reward="margin", rollout="mast", pw=pw, group=group)
            out.append(s.pending.option(bot.choose(prog, s)).label)
            if group == "pass":
                root = bot.last_root
                gifts = [e for key, e in root.edges.items() if key != "pass"]
                values = root.groups["values"]
                assert values.n == sum(e.n for e in gifts) == 1000 - root.edges["pass"].n
                assert root.edges["pass"].n > values.n
        return out
    assert picks("none").count("pass") <= 5
    assert picks("pass") == ["pass"] * 10


def tithe_root(visits: list[tuple[str, int]]):
    """Tithe's first decision and a made-up root: each option key with its visits, mean 0.5."""
    from mercator.interpreter.agents.search import _Edge, _Node
    s = program(TITHE).new_game(2, 0)
    root = _Node()
    for key, n in visits:
        e = root.edges[key] = _Edge()
        e.n, e.w = n, n * 0.5
    return s, root


def test_the_move_with_groups_is_the_most_visited_value_once_the_values_win() -> None:
    """most_visited with groups: the pass (40 visits) loses to the gifts' 60 together although
    no single gift has as many, and the move is then the most visited gift; without groups the
    pass is the move."""
    from mercator.interpreter.agents.search import most_visited
    s, root = tithe_root([("pass", 40), ("3", 25), ("7", 35)])
    labels = [o.label for o in s.pending.options]
    assert labels[most_visited(s.pending, root, "pass")] == "7"
    assert labels[most_visited(s.pending, root, None)] == "pass"
    root.edges["pass"].n = 61
    assert labels[most_visited(s.pending, root, "pass")] == "pass"


def test_the_group_is_a_spec_setting() -> None:
    assert make_agent(parse_spec("ismcts:10:group=pass"), 1).group == "pass"
    assert make_agent(parse_spec("ismcts:10:group=bins"), 1).group == "bins"
    assert make_agent(parse_spec("ismcts:10:group=none"), 1).group is None
    assert str(parse_spec("ismcts:10:group=pass")) == "ismcts:10:group=pass"
    with pytest.raises(SpecError, match="group says how the tree searches"):
        parse_spec("ismcts:10:group=values")
    with pytest.raises(ValueError, match="groups moves by one of"):
        MCTSAgent(10, group="all")


def test_with_groups_a_rollout_weighs_the_pass_against_the_values_mean() -> None:
    """Manila's first bid, the pass averaging 0.5, one bid 0.9 once, the 55 others 0.1 a
    hundred times each: weighed against the best value (group=none) the rollout bids nearly
    always; against the values' mean by their counts (group=pass, about 0.1) it nearly always
    passes."""
    prog = program(ROOT / "rulebooks" / "manila.rules")
    s = prog.new_game(3, 0)
    pend = s.pending
    m = pend.count - len(pend.actions)

    def passes(group: str) -> int:
        bot = MCTSAgent(10, seed=0, rollout="mast", depth=1, cut="decision", group=group)
        bot._depth, bot._rollout = 1, "mast"
        bot.mast[(0, move_key(pend, 0))] = [50.0, 100.0]
        bot.mast[(0, move_key(pend, 1))] = [0.9, 1.0]
        for j in range(2, m):
            bot.mast[(0, move_key(pend, j))] = [10.0, 100.0]
        n = 0
        for _ in range(400):
            moves: list = []
            bot._stepped_playout(prog, s.clone(), moves)
            n += moves[0][1][1] is None
        return n
    assert passes("none") < 40
    assert passes("pass") > 360


def test_a_move_is_settled_when_no_option_can_catch_up_in_the_iterations_left() -> None:
    """settled(): the most visited option must lead the next by more visits than there are
    iterations left — with groups, the pass against the values summed, then among the values."""
    from mercator.interpreter.agents.search import settled
    s, root = tithe_root([("pass", 100), ("3", 30), ("7", 25)])
    assert settled(s.pending, root, None, 69) and not settled(s.pending, root, None, 70)
    assert settled(s.pending, root, "pass", 44) and not settled(s.pending, root, "pass", 45)
    root.edges["pass"].n = 10                 # the values lead by 45; among them "3" by 5
    assert not settled(s.pending, root, "pass", 5) and settled(s.pending, root, "pass", 4)


def test_a_time_budget_stops_once_the_move_is_settled() -> None:
    """Tithe with 3 s a decision: the pass soon leads the gifts by more visits than the time
    left could give them, and the search stops early with the pass."""
    prog = program(TITHE)
    s = prog.new_game(2, 0, narrate=True, explicit_chance=True)
    bot = MCTSAgent(None, seconds=3.0, seed=0, reward="margin", rollout="mast", group="pass")
    assert s.pending.option(bot.choose(prog, s)).label == "pass"
    assert bot.last_settled
    bot = MCTSAgent(300, seed=0, reward="margin", rollout="mast", group="pass")
    bot.choose(prog, s)
    assert bot.last_iterations == 300 and not bot.last_settled    # iterations: all of them


HAGGLE = ROOT / "tests" / "fixtures" / "agents" / "haggle.rules"


def test_move_groups_in_bins_find_the_cheap_values_the_values_mean_hides() -> None:
    """Haggle: a bid of 1 gains 11 coins over the pass, but the 40 bids' mean loses 8.5. Weighed
    as the pass against all bids as one (group=pass), the search passes in most of 10 seeds;
    with the bids in bins by size (group=bins: 1; 2; 3-4; 5-8; ...) it bids 1 to 3 in every
    seed. Tithe's gifts, all alike, still lose to the pass in bins."""
    prog = program(HAGGLE)

    def picks(group: str, path=HAGGLE) -> list[str]:
        out = []
        p = program(path)
        for k in range(10):
            s = p.new_game(2, k, narrate=True, explicit_chance=True)
            bot = MCTSAgent(1000, seed=k, reward="margin", rollout="mast", pw=1.0, group=group)
            out.append(s.pending.option(bot.choose(p, s)).label)
        return out
    assert picks("pass").count("pass") >= 8
    assert all(x in ("1", "2", "3") for x in picks("bins"))
    assert picks("bins", TITHE) == ["pass"] * 10
    s = prog.new_game(2, 0)
    from mercator.interpreter.agents.search import partition
    part = partition(s.pending, "bins")
    assert part[0] == 0 and part[1][0] == "values"
    assert [x if type(x) is int else x[1] for x in part[1][1]] == \
        [1, 2, [3, 4], [5, 6, 7, 8], list(range(9, 17)), list(range(17, 33)),
         list(range(33, 41))]                            # option k bids k (option 0 passes)


def test_rave_credits_each_node_with_its_seats_later_moves_once() -> None:
    """RAVE's all-moves-as-first statistics: the node of seat 0's first move is credited with
    seat 0's moves from there on (each once), the node of seat 1's move with seat 1's."""
    from mercator.interpreter.agents.search import _Edge, _Node
    a, b = _Node(), _Node()
    path = [(a, _Edge(), 0), (b, _Edge(), 1)]
    moves = [(0, "x"), (1, "y"), (0, "z"), (1, "y"), (0, "x"), (0, None)]
    MCTSAgent._credit_amaf(path, moves, [1.0, 0.25])
    assert a.amaf == {"x": [1.0, 1.0], "z": [1.0, 1.0]}
    assert b.amaf == {"y": [0.25, 1.0]}
    MCTSAgent._credit_amaf(path, moves, [0.0, 0.75])
    assert a.amaf["x"] == [1.0, 2.0] and b.amaf["y"] == [1.0, 2.0]


def test_rave_weighs_the_average_by_the_options_visits() -> None:
    """sqrt(k / (3n + k)): with k = 100 and 100 visits the average weighs a half, with none
    all of it; a move with no average keeps its mean."""
    prog = program(NIM)
    s = prog.new_game(2, 0, narrate=True, explicit_chance=True)
    node = s.pending
    agent = MCTSAgent(10, rave=100.0)
    am = {move_key(node, 0): [3.0, 4.0]}                     # an average of 0.75
    assert agent._blend(am, node, 0, 100, 0.25) == pytest.approx(0.5)
    assert agent._blend(am, node, 0, 0, 0.25) == pytest.approx(0.75)
    assert agent._blend(am, node, 1, 100, 0.25) == 0.25
    with pytest.raises(ValueError, match="RAVE"):
        MCTSAgent(10, rave=-1.0)
    assert make_agent(parse_spec("ismcts:10:rave=250"), 0).rave == 250.0
    with pytest.raises(SpecError, match="rave is RAVE's equivalence parameter"):
        parse_spec("ismcts:10:rave=-3")


STALL = ROOT / "tests" / "fixtures" / "agents" / "stall.rules"


def test_any_time_actions_searched_below_the_root_look_better_than_they_are() -> None:
    """Stall: four picks in a row, a good one worth 3 coins, a poor one 1; at any decision the
    seat may also cash one of three tokens for a coin's loss, once. Searched at every node
    (anytime=all), the cashing looks best in every seed: below it no cashing is left to try,
    while below a pick every node spends visits on three losing cashings, so the pick's mean
    is diluted. Searched at the root only (anytime=root, the default) the good pick wins in
    every seed, and the cashing's mean is below it."""
    prog = program(STALL)

    def picks(anytime: str) -> list[str]:
        out = []
        for k in range(10):
            s = prog.new_game(2, k, narrate=True, explicit_chance=True)
            bot = MCTSAgent(1000, seed=k, reward="margin", rollout="mast", pw=1.0,
                            anytime=anytime)
            out.append(s.pending.option(bot.choose(prog, s)).label)
            if anytime == "root":
                root = bot.last_root
                below = root.edges["good"].below
                assert below is not None and not any(k.startswith("cash") for k in below.edges)
                good = root.edges["good"]
                assert all(e.w / e.n < good.w / good.n
                           for key, e in root.edges.items() if key.startswith("cash") and e.n)
        return out
    assert all(x.startswith("cash(") for x in picks("all"))
    assert picks("root") == ["good"] * 10


def test_where_any_time_actions_are_searched_is_a_spec_setting() -> None:
    assert make_agent(parse_spec("ismcts:10"), 1).anytime_below is False
    assert make_agent(parse_spec("ismcts:10:anytime=all"), 1).anytime_below is True
    assert str(parse_spec("mcts:10:anytime=root")) == "mcts:10:anytime=root"
    with pytest.raises(SpecError, match="anytime says where the tree searches"):
        parse_spec("ismcts:10:anytime=never")
    with pytest.raises(ValueError, match="any-time actions are searched at one of"):
        MCTSAgent(10, anytime="leaves")


def test_move_groups_by_amounts_group_only_a_pass_beside_whole_numbers() -> None:
    """group=amounts: a pass beside whole numbers (Haggle's bids) is grouped as with bins; a
    pass beside places (Manila's accomplices, an enum, whole numbers only as the engine runs
    them) is not grouped at all, where bins groups them as one, never in bins by index."""
    from mercator.interpreter.agents.search import partition
    s = program(HAGGLE).new_game(2, 0)
    assert partition(s.pending, "amounts") == partition(s.pending, "bins")
    assert partition(s.pending, "amounts")[1][0] == "values"
    prog = program(ROOT / "rulebooks" / "manila.rules")
    s = prog.new_game(3, 0)
    while "place an accomplice" not in getattr(s.pending, "prompt", ""):
        prog.apply(s, 0 if s.pending.__class__.__name__ != "Decision" or s.pending.count == 1
                   or not s.pending.allow_pass else 1)
    n = s.pending.count - len(s.pending.actions)
    assert partition(s.pending, "bins") == [0, ("values", list(range(1, n)))] and n > 9
    assert partition(s.pending, "amounts") is None
    assert make_agent(parse_spec("ismcts:10:group=amounts"), 1).group == "amounts"


def test_sequential_halving_shares_the_budget_in_rounds_and_drops_the_worse_half() -> None:
    """root=halving on Haggle's first bid (41 options: the pass and bids 1..40; a bid of 1 gains
    11 coins over the pass, dear bids lose): 6 rounds of about 166 iterations; every option
    gets the same visits in the first round, the survivors of each round twice as many per
    round as before, and the move is a cheap bid (1 to 4) in every seed; an iteration budget
    is spent exactly."""
    prog = program(HAGGLE)
    moves = []
    for k in range(6):
        s = prog.new_game(2, k, narrate=True, explicit_chance=True)
        bot = MCTSAgent(1000, seed=k, reward="margin", rollout="mast", pw=1.0, root="halving")
        move = s.pending.option(bot.choose(prog, s)).label
        moves.append(move)
        assert bot.last_iterations == 1000
        visits = sorted((e.n for e in bot.last_root.edges.values()), reverse=True)
        assert len(visits) == 41 and min(visits) == 166 // 41     # round 1: 4 each
        assert visits[0] == bot.last_root.edges[move].n         # the survivor: the most visits
        assert visits[0] >= 8 * visits[-1]
    assert all(m in ("1", "2", "3", "4") for m in moves)
    with pytest.raises(SpecError, match="root says how the options"):
        parse_spec("ismcts:10:root=best")
    assert make_agent(parse_spec("ismcts:10:root=halving"), 1).root == "halving"


ERRAND = ROOT / "tests" / "fixtures" / "agents" / "errand.rules"


def test_greedy_rollouts_answer_a_small_menu_by_the_estimate_one_step_on() -> None:
    """Errand: the safe road pays 10 coins; the market six picks of ten stalls, the paying one
    (8 coins, the others cost 1) named by a fresh die each time. Played by move averages the
    market is worth -0.6 (no stall is better on average), so MAST's rollouts send the seat down
    the safe road in every seed; rollouts that judge each stall by the estimate one step on
    pick the paying one, and the market wins in every seed."""
    prog = program(ERRAND)

    def road(rollout: str) -> list[str]:
        out = []
        for k in range(8):
            s = prog.new_game(2, k, narrate=True, explicit_chance=True)
            bot = MCTSAgent(300, seed=k, reward="margin", rollout=rollout, pw=1.0)
            out.append(s.pending.option(bot.choose(prog, s)).label)
        return out
    assert road("mast") == ["safe"] * 8
    assert road("greedy") == ["market"] * 8


def test_a_rollout_policy_given_through_the_api_plays_the_rollouts() -> None:
    """MCTSAgent.policy (benchmarks/anchor_answers.py's `--rollouts anchor`): on Errand a policy
    that picks the stall after which the seat has most coins makes the market worth taking in
    every seed; one whose answers are never a regular option leaves the rollouts to MAST, and
    the safe road is taken in every seed, as without a policy."""
    prog = program(ERRAND)
    asked = []

    def best_stall(program_, s) -> int:
        asked.append(s.pending.prompt)
        def coins(j: int) -> int:
            c = s.clone()
            program_.apply(c, j)
            return program_.estimates(c)[s.pending.player]
        return max(range(s.pending.count), key=coins)

    def road(policy) -> list[str]:
        out = []
        for k in range(8):
            s = prog.new_game(2, k, narrate=True, explicit_chance=True)
            bot = MCTSAgent(300, seed=k, reward="margin", rollout="mast", pw=1.0)
            bot.policy = policy
            out.append(s.pending.option(bot.choose(prog, s)).label)
        return out
    assert road(best_stall) == ["market"] * 8
    assert set(asked) == {"pick a stall"}
    assert road(lambda program_, s: -1) == ["safe"] * 8


def test_a_greedy_step_takes_the_option_that_raises_the_seats_lead_most() -> None:
    """At a stall of Errand the greedy step picks the die's stall (the only one that raises the
    lead), whatever the seed; the state it judges from is not changed."""
    prog = program(ERRAND)
    for k in range(5):
        s = prog.new_game(2, k, narrate=True, explicit_chance=True)
        prog.apply(s, 1)                                   # to market
        while s.pending.__class__.__name__ == "Chance":
            prog.apply(s, k % 10)                          # the die shows k % 10 + 1
        bot = MCTSAgent(10, seed=k, rollout="greedy")
        before = prog.estimates(s)
        i = bot._greedy_step(prog, s, 0, s.pending.count)
        assert s.pending.option(i).label == str(k % 10 + 1)
        assert prog.estimates(s) == before
    assert make_agent(parse_spec("ismcts:10:rollout=greedy"), 1).rollout == "greedy"


VENTURE = ROOT / "tests" / "fixtures" / "agents" / "venture.rules"


def test_a_search_cut_at_a_chance_draw_judges_a_venture_by_its_average() -> None:
    """Venture: 5 coins, or a die that pays 36 on a six (6 on average). Rolled out past the
    die, the venture's margins are 36 once in six and 0 otherwise, and squashed, their mean is
    below the steady 5's: cut after 4 steps the searcher takes the 5 coins in every seed. Cut
    at the die (cut=chance, depth 1), in the tree as in the rollouts, every iteration judges the
    venture by the estimate, which counts it at its average: the venture in every seed, by
    spec as by the Python API."""
    prog = program(VENTURE)

    def way(**kw: object) -> list[str]:
        out = []
        for k in range(8):
            s = prog.new_game(2, k, narrate=True, explicit_chance=True)
            bot = MCTSAgent(100, seed=k, reward="margin", rollout="auto", pw=1.0, **kw)
            out.append(s.pending.option(bot.choose(prog, s)).label)
        return out
    assert way(cut="step", estimate_depth=4) == ["steady"] * 8
    assert way(cut="chance", estimate_depth=1) == ["venture"] * 8
    for spec in ("ismcts:100:cut=chance:depth=1", "ismcts:100"):
        bot = make_agent(parse_spec(spec), 3)
        s = prog.new_game(2, 3, narrate=True, explicit_chance=True)
        label = s.pending.option(bot.choose(prog, s)).label
        assert label == ("venture" if "chance" in spec else "steady"), spec


def test_a_rollout_cut_at_a_chance_draw_stops_before_the_draw() -> None:
    """After the venture, the rollout of a cut=chance search stops at the die, not rolled: the
    position is judged with the venture under way (estimate 6); with depth 2 it rolls the die
    (the only one of the game) and plays to the end."""
    prog = program(VENTURE)
    for depth, chance_left in ((1, True), (2, False)):
        bot = MCTSAgent(10, seed=1, reward="margin", rollout="mast", cut="chance", depth=depth)
        s = prog.new_game(2, 1, narrate=True, explicit_chance=True)
        bot.choose(prog, s)                 # (sets the decision's depth and policy)
        prog.apply(s, 1)                    # venture
        bot._stepped_playout(prog, s, [])
        assert (s.pending.__class__.__name__ == "Chance") == chance_left
        if chance_left:
            assert prog.estimates(s)[0] == 6
        else:
            assert s.pending.__class__ is Terminal
            assert prog.result(s).scores[0] in (0, 36)


DICE = ROOT / "tests" / "fixtures" / "agents" / "dice.rules"


def test_halving_tries_the_options_of_a_sweep_on_the_same_dice() -> None:
    """Dice: a plain, a plus or a minus throw, then a die pays 10 coins a pip, the plus throw
    one more, the minus one less. A coin is lost in the die's spread (10 to 60) when each
    option is tried on dice of its own (the default: at 12 to 60 iterations the plus throw is
    picked in fewer than 15 of 20 seeds); with `pair` sequential halving tries the options of
    each sweep on one chance generator, so the plus throw leads in every sweep and is picked
    in every seed — by the Python API and by spec."""
    prog = program(DICE)
    for it in (12, 60):
        for pair in (False, True):
            picks = []
            for k in range(20):
                s = prog.new_game(2, k, narrate=True, explicit_chance=True)
                bot = ISMCTSAgent(it, seed=k, reward="margin", rollout="auto", pw=1.0,
                                  root="halving", pair=pair)
                picks.append(s.pending.option(bot.choose(prog, s)).label)
            if pair:
                assert picks == ["plus"] * 20, (it, picks)
            else:
                assert picks.count("plus") < 15, (it, picks)
    for spec, most in (("ismcts:30:pair=yes", 20), ("ismcts:30", 14)):
        plus = 0
        for k in range(20):
            s = prog.new_game(2, k, narrate=True, explicit_chance=True)
            bot = make_agent(parse_spec(spec), k)
            plus += s.pending.option(bot.choose(prog, s)).label == "plus"
        assert plus == 20 if most == 20 else plus <= most, (spec, plus)


def test_the_options_of_a_sweep_see_the_same_world_and_dice() -> None:
    """With `pair`, each iteration of a halving sweep starts from a copy of one world: 9
    iterations of 3 options are a first round of one sweep of 3 (4 iterations its share) and
    a second of the 2 best, three sweeps of 2; the states a sweep searches have one chance
    generator, the next sweep's another."""
    prog = program(DICE)
    s = prog.new_game(2, 5, narrate=True, explicit_chance=True)
    bot = ISMCTSAgent(9, seed=5, reward="margin", root="halving", pair=True)
    seen: list[int] = []
    searched = bot._iterate

    def spy(program_: object, state: object, root: object) -> None:
        seen.append(state.rng)                          # type: ignore[attr-defined]
        searched(program_, state, root)                 # type: ignore[arg-type]
    bot._iterate = spy                                  # type: ignore[method-assign]
    bot.choose(prog, s)
    assert len(seen) == 9
    assert seen[0] == seen[1] == seen[2]
    assert seen[3] == seen[4] and seen[5] == seen[6] and seen[7] == seen[8]
    assert len({seen[0], seen[3], seen[5], seen[7]}) == 4


LONGSHOT = ROOT / "tests" / "fixtures" / "agents" / "longshot.rules"


def test_a_blended_reward_takes_the_sure_win_over_a_long_shot() -> None:
    """Long shot: a sure 11 against the other seat's 10 (a win by 1), or a three-sided die that
    pays 100 on a one (a win by 90) and 9 otherwise (a loss by 1). By the margin alone the long
    shot is worth more on average, and the searcher takes it in most seeds; with half the reward
    the win (reward=blend) it takes the sure win in every seed, as with the win alone — by the
    Python API and by spec."""
    prog = program(LONGSHOT)

    def ways(reward: str, it: int) -> list[str]:
        out = []
        for k in range(10):
            s = prog.new_game(2, k, narrate=True, explicit_chance=True)
            bot = MCTSAgent(it, seed=k, reward=reward, rollout="auto", pw=1.0)
            out.append(s.pending.option(bot.choose(prog, s)).label)
        return out
    assert ways("margin", 100).count("long_shot") >= 6
    for it in (30, 100):
        assert ways("blend", it) == ["sure"] * 10
        assert ways("win", it) == ["sure"] * 10
    bot = make_agent(parse_spec("ismcts:60:reward=blend"), 2)
    s = prog.new_game(2, 2, narrate=True, explicit_chance=True)
    assert s.pending.option(bot.choose(prog, s)).label == "sure"
    assert bot.reward == "blend"


def test_a_cpu_clock_counts_the_search_and_not_the_time_it_waits(monkeypatch) -> None:
    """Each iteration waits 10 ms without the CPU (as a search on a loaded machine waits for
    its core): a 0.1 s budget of the wall clock runs about 10 iterations, a 0.1 s budget of CPU
    time runs until 0.1 s of searching is spent — many more, and longer than 0.1 s of wall."""
    import time
    prog = program(NIM)
    s = prog.new_game(2, 0, narrate=True, explicit_chance=True)
    real = MCTSAgent._iterate

    def waiting(self, *args):
        time.sleep(0.01)
        return real(self, *args)
    monkeypatch.setattr(MCTSAgent, "_iterate", waiting)
    runs = {}
    for clock in ("wall", "cpu"):
        bot = make_agent(parse_spec(f"ismcts:0.1s:cores=1:root=uct:clock={clock}"), 0)
        assert bot.clock == clock
        started = time.perf_counter()
        bot.choose(prog, s)
        runs[clock] = (bot.last_iterations, time.perf_counter() - started)
    assert runs["wall"][0] <= 11 and runs["wall"][1] < 0.5, runs
    assert runs["cpu"][0] >= 3 * runs["wall"][0] and runs["cpu"][1] > 0.3, runs
    assert str(parse_spec("ismcts:1s:clock=cpu")) == "ismcts:1s:clock=cpu"
    with pytest.raises(SpecError, match="clock says what a time budget counts"):
        parse_spec("ismcts:1s:clock=sundial")
    with pytest.raises(ValueError, match="a time budget is counted by one of wall, cpu"):
        MCTSAgent(10, clock="sundial")


GUESS = ROOT / "tests" / "fixtures" / "agents" / "guess.rules"


@pytest.mark.parametrize("spec", ["ismcts:400", "mcts:200"])
def test_a_later_sealed_chooser_does_not_answer_the_choices_it_cannot_see(spec) -> None:
    """Guess: the first seat plays safe (a point each) or hides a coin in one of three hands
    while the second guesses a hand, both at once; hiding is worth a point more on average.
    In the tree the guesser chooses after the hider: with its node below the hider's choice
    (`sealed=tree`) it learns to guess right every time, so every hiding place looks lost and
    the hider plays safe in every seed; with its statistics shared whatever the hider chose
    (`sealed=shared`) a guess is right one time in three and the hider hides in every seed."""
    prog = program(GUESS)
    for sealed, safe in (("tree", 20), ("shared", 0)):
        picks = []
        for k in range(20):
            s = prog.new_game(2, k, narrate=True, explicit_chance=True)
            bot = make_agent(parse_spec(f"{spec}:sealed={sealed}"), k)
            assert bot.sealed == (sealed == "shared")
            picks.append(s.pending.option(bot.choose(prog, s)).label)
        assert picks.count("safe") == safe, (sealed, picks)
    assert_setting("sealed", "shared", "open", "sealed says how the tree searches a simultaneous",
                   "a simultaneous decision is searched by one of tree")


def assert_setting(name: str, good: str, bad: str, spec_says: str, agent_says: str) -> None:
    """A search setting prints as it was written, and a value it does not take is refused by
    the spec (with what it means) and by the agent (with the values it takes)."""
    assert str(parse_spec(f"ismcts:1s:{name}={good}")) == f"ismcts:1s:{name}={good}"
    with pytest.raises(SpecError, match=spec_says):
        parse_spec(f"ismcts:1s:{name}={bad}")
    with pytest.raises(ValueError, match=agent_says):
        ISMCTSAgent(10, **{name: bad})


def test_a_drawn_world_makes_a_hidden_choice_as_the_search_models_the_other_seat() -> None:
    """Guess, from the guesser's seat: the hider's hand is hidden. With `hidden=uniform` (the
    default) the worlds draw it uniformly; with `hidden=mast` as the search's rollouts would
    choose it — here a model in which the hider likes the left hand (average reward 0.9
    against 0.1: e^8 times as likely), so nearly every world has it there. And the belief's
    own numbers: with nothing learnt, a pass beside three values is drawn one time in two and
    each value one time in six (the pass against the values as one, as the rollouts do)."""
    prog = program(GUESS)
    s = prog.new_game(2, 0, narrate=True, explicit_chance=True)
    hider = s.pending
    keys = [move_key(hider, i) for i in range(hider.count)]
    labels = [o.label for o in hider.options]
    prog.apply(s, labels.index("right"))          # the real hider chose the right hand
    found = {}
    for hidden in ("uniform", "mast"):
        bot = make_agent(parse_spec(f"ismcts:10:hidden={hidden}"), 3)
        for k, label in zip(keys, labels):
            bot.mast[(0, k)] = [0.9, 1.0] if label == "left" else [0.1, 1.0]
        bot.prepare(prog, s, 1)
        hands = [labels[bot.world(prog, s, 1).history[0]] for _ in range(bot.worlds)]
        found[hidden] = hands.count("left")
    assert found["mast"] >= 22 and 2 <= found["uniform"] <= 12, found
    offer = program_text(
        'game "Offer" players 2..2\nplayer { coins: int = 0 }\n'
        'round r limit 1 { phase p { for q in players {\n'
        '  let b = choose q one of [1, 2, 3] with pass prompt "bid"\n'
        '  q.coins += if b == none then 0 else some(b) } } }\n'
        'end after r when true\nscore p: p.coins\n')
    st = offer.new_game(2, 0)
    weights = ISMCTSAgent(10, group="bins").belief(st.pending)
    assert weights == pytest.approx([1 / 2, 1 / 6, 1 / 6, 1 / 6])
    assert_setting("hidden", "mast", "guessed", "hidden says how a world the search draws",
                   "another seat's hidden choice is drawn by one of uniform, mast")


PAIRS = ROOT / "tests" / "fixtures" / "agents" / "pairs.rules"


def test_pairs_of_moves_tell_the_rollouts_where_to_sell() -> None:
    """Pairs: the safe road wins 7 times in 10; trading wins every time for a seat that sells
    where the good the die offered sells, half the time at random. Move averages alone value
    the markets alike, so MAST's rollouts trade at 1/2 and the search takes the safe road in
    every seed; with the pairs of the seat's moves (nst) the rollouts learn where each good
    sells, trading is valued near 1, and the search trades in every seed."""
    prog = program(PAIRS)

    def roads(nst: bool) -> tuple[list[str], list[float]]:
        out, trade = [], []
        for k in range(8):
            s = prog.new_game(2, k, narrate=True, explicit_chance=True)
            bot = MCTSAgent(1000, seed=k, reward="win", rollout="mast", pw=0.0,
                            root="halving", nst=nst)
            out.append(s.pending.option(bot.choose(prog, s)).label)
            e = bot.last_root.edges["trade"]
            trade.append(e.w / e.n)
        return out, trade
    plain, means = roads(False)
    assert plain == ["safe"] * 8 and max(means) < 0.6
    paired, means = roads(True)
    assert paired == ["trade"] * 8 and min(means) > 0.85


def test_a_move_is_credited_to_the_pair_it_makes_with_the_seats_move_before() -> None:
    """NST's statistics: each move of a simulation with the same seat's move before it (another
    seat's moves between do not part them; an any-time action, key None, is no move), credited
    with that seat's reward."""
    bot = MCTSAgent(10, nst=True)
    moves = [(0, "a"), (1, "x"), (0, "b"), (0, None), (1, "y"), (0, "c"), (0, "b")]
    bot._credit_pairs(moves, [1.0, 0.25])
    assert bot.mast2 == {(0, "a", "b"): [1.0, 1.0], (0, "b", "c"): [1.0, 1.0],
                         (0, "c", "b"): [1.0, 1.0], (1, "x", "y"): [0.25, 1.0]}
    bot._credit_pairs(moves[:3], [0.0, 0.0])
    assert bot.mast2[(0, "a", "b")] == [1.0, 2.0]


def test_a_pair_weighs_in_once_played_often_enough() -> None:
    """MAST's weights with a seat's move before: a move's average is the mean of its own and
    its pair's once the pair was played NST_MIN times, its own alone before that."""
    from mercator.interpreter.agents.search import NST_MIN
    prog = program(PAIRS)
    s = prog.new_game(2, 0, narrate=True, explicit_chance=True)
    prog.apply(s, 2)                                  # trade
    for _ in range(4):
        prog.apply(s, 0)                              # the songs
    prog.apply(s, 0)                                  # the die
    prog.apply(s, 1)                                  # buy the good offered
    pend = s.pending
    assert pend.prompt == "sell in a market"
    bot = MCTSAgent(10, nst=True, tau=1.0)
    north, south = move_key(pend, 0), move_key(pend, 1)
    bot.mast[(0, north)] = [5.0, 10.0]
    bot.mast[(0, south)] = [5.0, 10.0]
    bot.mast2[(0, "cloth", north)] = [NST_MIN - 1.0, NST_MIN - 1.0]
    _, ws, _ = bot._mast_weights(pend, 0, 2, "cloth")
    assert ws == [1.0, 1.0]                           # too few: the markets alike
    bot.mast2[(0, "cloth", north)] = [float(NST_MIN), float(NST_MIN)]
    _, ws, _ = bot._mast_weights(pend, 0, 2, "cloth")
    assert ws[0] == 1.0 and abs(ws[1] - math.exp(-0.25)) < 1e-9     # north 0.75, south 0.5
    _, ws, _ = bot._mast_weights(pend, 0, 2, "salt")  # no pair with salt
    assert ws == [1.0, 1.0]
    plain = MCTSAgent(10, tau=1.0)
    plain.mast, plain.mast2 = bot.mast, bot.mast2     # nst off: `before` is never given
    assert plain._mast_weights(pend, 0, 2)[1] == [1.0, 1.0]


def test_nst_is_a_spec_setting() -> None:
    spec = parse_spec("ismcts:300:nst=yes")
    assert str(spec) == "ismcts:300:nst=yes" and make_agent(spec, 1).nst is True
    assert make_agent(parse_spec("ismcts:300"), 1).nst is False
    assert make_agent(parse_spec("ismcts:300:nst=no"), 1).nst is False
    with pytest.raises(SpecError, match="nst"):
        parse_spec("ismcts:300:nst=2")


LATER = ROOT / "tests" / "fixtures" / "agents" / "later.rules"


def test_thrift_weighs_a_menu_of_amounts_down_by_e_every_thrift_steps() -> None:
    """Manila's first bid (a pass, then bids 0, 1, 2, ...): with no move averages known every
    option weighs 1 in MAST's softmax; with thrift=4 a bid k steps above the smallest weighs
    e^(-k/4), the pass is untouched, and so is a menu that is not of whole numbers."""
    prog = program(ROOT / "rulebooks" / "manila.rules")
    s = prog.new_game(3, 0)
    node = s.pending
    m = node.count - len(node.actions)
    plain = MCTSAgent(10, seed=0, rollout="mast")
    lean = MCTSAgent(10, seed=0, rollout="mast", thrift=4.0)
    _, flat, _ = plain._mast_weights(node, node.player, m)
    _, ws, _ = lean._mast_weights(node, node.player, m)
    assert flat == [1.0] * m
    assert ws[0] == 1.0                                        # the pass
    steps = [v - node.values[0] for v in node.values[:m - 1]]
    assert steps[:3] == [0, 1, 2]
    assert ws[1:] == pytest.approx([math.exp(-k / 4) for k in steps])
    places = program(LATER).new_game(2, 0)                    # yes or no: no amounts
    yes_no = places.pending
    assert lean._mast_weights(yes_no, 0, yes_no.count)[1] == [1.0, 1.0]


def test_with_thrift_the_rollouts_name_small_amounts_so_waiting_looks_as_cheap_as_it_is() -> None:
    """later.rules: buy a token now for 6, or later for any amount of 1..20 named then (waiting
    costs 1). Rollouts that name the later amount as MAST does with little to go on pay about
    10 and buy now in some seeds; with thrift the rollouts pay a few coins and every seed
    waits."""
    def first(agent) -> str:
        prog = program(LATER)
        s = prog.new_game(2, 0, narrate=True, explicit_chance=True)
        return s.pending.option(agent.choose(prog, s)).label
    plain = [first(make_agent(parse_spec("ismcts:200:cores=1:thrift=0"), k)) for k in range(10)]
    lean = [first(make_agent(parse_spec("ismcts:200:cores=1:thrift=3"), k)) for k in range(10)]
    assert plain.count("true") >= 3, plain
    assert lean == ["false"] * 10, lean


def test_thrift_is_a_spec_setting() -> None:
    spec = parse_spec("ismcts:100:thrift=2.5")
    assert str(spec) == "ismcts:100:thrift=2.5" and make_agent(spec, 0).thrift == 2.5
    assert make_agent(parse_spec("ismcts:100:thrift=0"), 0).thrift == 0.0
    for bad in ("ismcts:thrift=-1", "ismcts:thrift=101", "ismcts:thrift=much"):
        with pytest.raises(SpecError, match="thrift is how many steps"):
            parse_spec(bad)
    with pytest.raises(ValueError):
        MCTSAgent(10, thrift=-1.0)


HABIT = ROOT / "tests" / "fixtures" / "agents" / "habit.rules"


def _habit_game(spec: str, seed: int, seen: Optional[list] = None
                ) -> tuple[list[str], ISMCTSAgent]:
    """habit.rules with the searcher calling and a picker that always picks red: the
    searcher's calls, round by round, and the searcher (and in `seen`, what its model had
    counted at each of its decisions)."""
    prog = program(HABIT)
    bot = make_agent(parse_spec(spec), seed)
    s = prog.new_game(2, seed, narrate=True, explicit_chance=True)
    calls = []
    while not isinstance(s.pending, Terminal):
        node = s.pending
        if node.player == 0:
            i = bot.choose(prog, s)
            calls.append(node.option(i).label)
            if seen is not None:
                seen.append({k[1].line: list(v) for k, v in bot._seen_sites.items()})
        else:
            i = [o.label for o in node.options].index("red")
        prog.apply(s, i)
    return calls, bot


def test_a_model_of_the_other_seat_calls_the_colour_it_was_seen_to_pick() -> None:
    """habit.rules: searched as a game of two best players, the picker misses every call and
    red and blue look alike to the caller (the 4th call red in some seeds, blue in others).
    With model=1, once the picker was seen to pick red twice, the tree and the rollouts draw its
    picks by what it did: the 3rd and 4th calls are red in every seed."""
    plain = [_habit_game("ismcts:200:cores=1", k)[0] for k in range(10)]
    modelled = [_habit_game("ismcts:200:cores=1:model=1", k)[0] for k in range(10)]
    assert 2 <= sum(c[3] == "red" for c in plain) <= 8, plain
    assert all(c[2:4] == ["red", "red"] for c in modelled), modelled
    rolled = [_habit_game("ismcts:200:cores=1:model=1:rollout=mast", k)[0] for k in range(10)]
    assert all(c[2:4] == ["red", "red"] for c in rolled), rolled


def test_the_model_counts_only_the_choices_the_seat_saw() -> None:
    """What the model had counted at each of the caller's six decisions: the picker's open picks
    of the rounds before (line 20 of habit.rules); at round 5 not the sealed pick the picker
    made first, not yet shown; at round 6 that pick, shown after round 5 (line 29); never the
    sealed pick of round 6, never shown; and the caller's own calls never (seat 1 alone)."""
    seen: list = []
    _, bot = _habit_game("ismcts:50:cores=1:model=1", 0, seen)
    assert seen == [{}, {20: [1.0, 0.0]}, {20: [2.0, 0.0]}, {20: [3.0, 0.0]},
                    {20: [4.0, 0.0]}, {20: [4.0, 0.0], 29: [1.0, 0.0]}]
    assert {seat for seat, _ in bot._seen_sites} == {1}
    assert sorted(n for (_, (site, v)), n in bot._seen_moves.items()) == [1.0, 4.0]
    assert all(v == 0 for (_, (site, v)) in bot._seen_moves)   # red, the first colour


def test_the_model_weighs_another_seats_moves_by_their_share_seen() -> None:
    """At the picker's decision, with red seen 4 times and blue never and no move averages:
    red weighs (4 + 1) / (4 + 2) and blue 1 / 6, to the power K; the seat searching is not
    modelled."""
    prog = program(HABIT)
    s = prog.new_game(2, 0)
    prog.apply(s, 0)                                          # the call
    node = s.pending
    assert node.player == 1
    for k, expect in ((1.0, [5 / 6, 1 / 6]), (2.0, [25 / 36, 1 / 36])):
        bot = ISMCTSAgent(10, seed=0, rollout="mast", model=k)
        bot._me = 0
        bot._seen_sites = {(1, node.span): [4.0, 0.0]}
        bot._seen_moves = {(1, move_key(node, 0)): 4.0}
        assert bot._mast_weights(node, 1, 2)[1] == pytest.approx(expect)
        bot._me = 1
        assert bot._mast_weights(node, 1, 2)[1] == [1.0, 1.0]


def test_model_is_a_spec_setting_of_ismcts() -> None:
    spec = parse_spec("ismcts:100:model=1.5")
    assert str(spec) == "ismcts:100:model=1.5" and make_agent(spec, 0).model == 1.5
    assert make_agent(parse_spec("ismcts:100"), 0).model == 0.0
    for bad in ("ismcts:model=-1", "ismcts:model=101", "ismcts:model=much"):
        with pytest.raises(SpecError, match="model is how strongly"):
            parse_spec(bad)
    with pytest.raises(SpecError, match="mcts has no setting 'model'"):
        make_agent(parse_spec("mcts:100:model=1"), 0)
    with pytest.raises(ValueError):
        ISMCTSAgent(10, model=-1.0)
