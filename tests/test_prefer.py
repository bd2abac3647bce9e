"""The rulebook's preferences, `prefer v: T for p at "prompt" = EXPR` (docs/language.md,
"Preferences"): their values option by option (Program.preferences), the searcher's rollouts
that follow them (`prefer=X`, tests/fixtures/agents/grab.rules), the `prefer` player, the
spec, the formatter and a variant. The checker's refusals (E162) are the fixtures
tests/fixtures/broken/e162_*.rules."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from game_driver import program, program_text

from mercator.dsl.fmt import format_rulebook
from mercator.dsl.loader import load_text
from mercator.dsl.parser import parse
from mercator.interpreter.agents.base import PreferAgent, play_out
from mercator.interpreter.agents.spec import SpecError, make_agent, parse_spec, search_settings
from mercator.interpreter.engine.exprs import RuleError
from mercator.interpreter.engine.nodes import Decision

ROOT = Path(__file__).resolve().parents[1]
GRAB = ROOT / "tests" / "fixtures" / "agents" / "grab.rules"

MARKET = """
game "Market" players 2..3
enum Good { salt, silk, wine }
player {
  coins: int = 12
  goods: list<Good> = [] owner
}
table {
  price: map<Good, int> = {salt: 2, silk: 5, wine: 3}
  sold: int = 0
}
round days limit 2 {
  phase trade {
    for p in players {
      let g = choose p one of Good prompt "buy a good"
      p.coins -= price[g]
      add g to p.goods
      let b = choose p one of 1..4 with pass prompt "bid for the stall"
      if b != none {
        p.coins -= some(b)
      }
      let h = choose p one of p.goods with pass prompt "sell a good"
      if h != none {
        remove some(h) from p.goods
        p.coins += price[some(h)] + 1
        sold += 1
      }
    }
  }
}
score p: p.coins
prefer g: Good for p = price[g] * 10 - p.coins
prefer g: Good at "sell" = 0 - price[g] + sold
prefer b: int = 3 - b
"""


def labels(pend: Decision) -> list[str]:
    return [o.label for o in pend.options]


def test_each_option_is_valued_by_its_preference_and_the_pass_by_0() -> None:
    prog = program_text(MARKET)
    s = prog.new_game(2, 1)
    pend = s.pending
    assert pend.prompt.startswith("buy a good") and labels(pend) == ["salt", "silk", "wine"]
    # price * 10 - the chooser's 12 coins
    assert prog.preferences(s, pend.count) == [8, 38, 18]
    assert prog.preferred(s, pend.count, random.Random(0)) == 1          # silk
    prog.apply(s, 1)
    pend = s.pending
    assert pend.allow_pass and pend.values == [1, 2, 3, 4]
    assert prog.preferences(s, pend.count) == [0, 2, 1, 0, -1]           # the pass 0, 3 - b
    assert prog.preferred(s, pend.count, random.Random(0)) == 1          # bid 1
    # the first m options only (the rollouts' regular options)
    assert prog.preferences(s, 3) == [0, 2, 1]
    prog.apply(s, 2)                                                     # bid 2
    pend = s.pending
    assert pend.prompt.startswith("sell a good") and labels(pend) == ["pass", "silk"]
    # the preference `at "sell"` takes this decision, not the plain one for Good
    assert prog.preferences(s, pend.count) == [0, -5]
    assert prog.preferred(s, pend.count, random.Random(0)) == 0          # keep the silk


def test_ties_are_broken_at_random_among_the_most_preferred() -> None:
    prog = program_text(MARKET.replace("prefer b: int = 3 - b", "prefer b: int = b % 2"))
    s = prog.new_game(2, 1)
    prog.apply(s, 0)
    assert prog.preferences(s, s.pending.count) == [0, 1, 0, 1, 0]
    picks = {prog.preferred(s, s.pending.count, random.Random(seed)) for seed in range(40)}
    assert picks == {1, 3}


def test_a_decision_no_preference_covers_has_none() -> None:
    prog = program_text(MARKET.replace("prefer b: int = 3 - b\n", ""))
    s = prog.new_game(2, 1)
    prog.apply(s, 0)
    assert prog.preferences(s, s.pending.count) is None
    assert prog.preferred(s, s.pending.count, random.Random(0)) == -1


def test_a_preference_that_fails_is_a_rule_error_at_its_declaration() -> None:
    text = MARKET.replace("prefer b: int = 3 - b", "prefer b: int = 12 / (b - 2)")
    prog = program_text(text)
    s = prog.new_game(2, 1)
    prog.apply(s, 0)
    with pytest.raises(RuleError) as err:
        prog.preferences(s, s.pending.count)
    line = text.splitlines().index("prefer b: int = 12 / (b - 2)") + 1
    assert err.value.span.line == line and "preference of P1" in str(err.value)


def test_rollouts_that_follow_the_preference_stake_nothing() -> None:
    """grab.rules: random rollouts grab half the time, so a stake looks worth making; rollouts
    by the preference grab every stake, so the searcher stakes 0."""
    prog = program(GRAB)
    plain, preferring = [], []
    for seed in range(8):
        for spec, out in (("ismcts:200:prefer=0:trust=0", plain),
                          ("ismcts:200:prefer=0.9:trust=0", preferring)):
            s = prog.new_game(2, seed, narrate=True, explicit_chance=True)
            i = make_agent(parse_spec(spec), seed).choose(prog, s)
            out.append(s.pending.values[i])
    assert preferring == [0] * 8
    assert sum(1 for x in plain if x >= 4) >= 6, plain


def test_the_prefer_player_takes_the_most_preferred_option() -> None:
    prog = program(GRAB)
    s = prog.new_game(2, 3)
    agent = make_agent(parse_spec("prefer"), 3)
    assert isinstance(agent, PreferAgent)
    stakes = set()
    for seed in range(30):                  # no preference for the stake: at random
        stakes.add(PreferAgent(seed).choose(prog, s))
    assert len(stakes) >= 5
    prog.apply(s, 4)                        # stake 4
    while not s.pending.prompt.startswith("grab"):
        prog.apply(s, 0)
    assert s.pending.values == [True, False]
    assert all(PreferAgent(seed).choose(prog, s) == 0 for seed in range(10))    # grab
    fin = play_out(prog, prog.new_game(2, 5), [PreferAgent(1), PreferAgent(2)])
    res = prog.result(fin)
    assert sum(res.scores) == 20            # every stake grabbed: the coins only change hands


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10 ** 6), players=st.integers(2, 3))
def test_the_prefer_player_plays_an_argmax_at_every_preferred_decision(seed: int,
                                                                      players: int) -> None:
    prog = program_text(MARKET)
    s = prog.new_game(players, seed)
    agent = PreferAgent(seed)
    rng = random.Random(seed)
    while isinstance(s.pending, Decision):
        pend = s.pending
        prefs = prog.preferences(s, pend.count)
        assert prefs is not None            # every decision of MARKET has one
        i = agent.choose(prog, s)
        assert prefs[i] == max(prefs)
        prog.apply(s, i if rng.random() < 0.8 else rng.randrange(pend.count))
    assert prog.result(s).scores


def test_prefer_is_a_spec_setting_and_a_player() -> None:
    assert search_settings(parse_spec("ismcts:50:prefer=0.9"))["prefer"] == 0.9
    assert "prefer" not in search_settings(parse_spec("ismcts:50:prefer=0"))
    assert str(parse_spec("ismcts:50:prefer=0.9")) == "ismcts:50:prefer=0.9"
    assert str(parse_spec("prefer")) == "prefer"
    for bad in ("ismcts:50:prefer=1.5", "ismcts:50:prefer=x", "prefer:100"):
        with pytest.raises(SpecError):
            parse_spec(bad)
    with pytest.raises(ValueError):
        make_agent(parse_spec("ismcts:50"), 0).__class__(prefer=2.0)


def test_sure_is_a_spec_setting_off_by_default() -> None:
    assert search_settings(parse_spec("ismcts:50:sure=2"))["sure"] == 2.0
    assert "sure" not in search_settings(parse_spec("ismcts:50"))
    assert str(parse_spec("ismcts:50:sure=1.5")) == "ismcts:50:sure=1.5"
    for bad in ("ismcts:50:sure=11", "ismcts:50:sure=-1", "ismcts:50:sure=x"):
        with pytest.raises(SpecError, match="sure"):
            parse_spec(bad)
    with pytest.raises(ValueError):
        make_agent(parse_spec("ismcts:50"), 0).__class__(sure=20.0)


def test_the_formatter_keeps_a_preference() -> None:
    rb, diags = parse(MARKET, "t.rules")
    assert rb is not None, diags
    text = format_rulebook(rb)
    assert 'prefer g: Good for p = price[g] * 10 - p.coins' in text
    assert 'prefer g: Good at "sell" = 0 - price[g] + sold' in text
    again = load_text(text, "t.rules")
    assert again.ok


def test_a_variant_replaces_a_preference(tmp_path: Path) -> None:
    (tmp_path / "market.rules").write_text(MARKET)
    (tmp_path / "v.rules").write_text(
        'variant "Big bids" of "market.rules"\nreplace prefer b: int = b\n')
    from mercator.dsl.loader import load
    res = load(str(tmp_path / "v.rules"))
    assert res.ok, [str(d) for d in res.diagnostics]
    from mercator.interpreter.compiler import compile_program
    assert res.rulebook is not None
    prog = compile_program(res.rulebook)
    s = prog.new_game(2, 1)
    prog.apply(s, 0)
    assert prog.preferences(s, s.pending.count) == [0, 1, 2, 3, 4]


PICK = """
game "Pick" players 2..2
player {
  points: int = 0
}
round once limit 1 {
  phase play {
    for p in players {
      let x = choose p one of 1..6 prompt "pick a number"
      let d = roll 6
      p.points += (if x == 1 then 0 else 10) + d
    }
  }
}
score p: p.points
prefer x: int at "pick" = x
"""


def _answers(prog, spec: str) -> list[int]:
    out = []
    for seed in range(8):
        s = prog.new_game(2, seed, narrate=True, explicit_chance=True)
        out.append(s.pending.values[make_agent(parse_spec(spec), seed).choose(prog, s)])
    return out


def test_trust_keeps_the_preferred_option_where_the_search_finds_no_better() -> None:
    """2 to 6 are worth the same (10 and a die), 1 nothing: the search's answer among 2..6 is
    the noise of its rollouts; with trust=0.1 it is the preferred 6 in every seed (kept to
    the last round of the halving: searched as much as the best, within 0.1 of its mean)."""
    prog = program_text(PICK)
    plain = _answers(prog, "ismcts:200:trust=0")
    assert 1 not in plain and len(set(plain)) >= 2, plain
    assert _answers(prog, "ismcts:200:trust=0.1") == [6] * 8
    assert _answers(prog, "ismcts:200") == [6] * 8          # the default trusts it by 0.1


def test_trust_does_not_keep_a_preferred_option_the_search_finds_worse() -> None:
    """A preference for 1, which scores nothing (a mean reward about 0.45 below the others'):
    the search overturns it in every seed."""
    prog = program_text(PICK.replace('prefer x: int at "pick" = x',
                                     'prefer x: int at "pick" = 0 - x'))
    got = _answers(prog, "ismcts:200:trust=0.2")
    assert 1 not in got, got


def test_trust_holds_after_a_root_parallel_search_too() -> None:
    """Two workers' trees merged (agents/root_parallel.py): the merged answer is trusted to
    the preference as one searcher's is."""
    prog = program_text(PICK)
    got = []
    for seed in range(3):
        s = prog.new_game(2, seed, narrate=True, explicit_chance=True)
        agent = make_agent(parse_spec("ismcts:200:cores=2:trust=0.1"), seed)
        try:
            got.append(s.pending.values[agent.choose(prog, s)])
        finally:
            agent.close()
    assert got == [6, 6, 6]


def test_a_variant_replacing_no_preference_names_it_as_written(tmp_path: Path) -> None:
    (tmp_path / "market.rules").write_text(MARKET)
    (tmp_path / "v.rules").write_text(
        'variant "Odd" of "market.rules"\nreplace prefer b: int at "nothing" = b\n')
    from mercator.dsl.loader import load
    res = load(str(tmp_path / "v.rules"))
    assert not res.ok
    (d,) = [d for d in res.diagnostics if d.code == "E130"]
    assert "no preference 'b: int at \"nothing\"'" in d.message and d.span.line == 2
    assert "b: int" in (d.hint or "")


def test_sure_keeps_the_preference_a_small_trust_alone_gives_up_to_noise() -> None:
    """2 to 6 are worth the same: with a trust of 0.01 alone the search's answer among them
    is often another than the preferred 6 (one die's noise is more than 0.01 of mean reward);
    asked to beat it by two standard errors besides (`sure=2`), it is 6 in every seed."""
    prog = program_text(PICK)
    loose = _answers(prog, "ismcts:200:trust=0.01:sure=0")
    assert loose.count(6) < 8, loose
    assert _answers(prog, "ismcts:200:trust=0.01:sure=2") == [6] * 8


def test_sure_does_not_keep_a_preferred_option_the_search_finds_clearly_worse() -> None:
    """A preference for the worthless 1 is overturned with `sure=2` too: its mean is some 0.45
    below the others', many standard errors at 200 iterations."""
    prog = program_text(PICK.replace('prefer x: int at "pick" = x',
                                     'prefer x: int at "pick" = 0 - x'))
    got = _answers(prog, "ismcts:200:trust=0.1:sure=2")
    assert 1 not in got, got


def test_trust_weighs_the_last_round_of_the_halving() -> None:
    """The means halving compares at the end are those of its last round (`search.trusted`'s
    `final`): the survivors' means over every round are a best of many, too high. The last
    round's visits and rewards are a part of the whole search's."""
    prog = program_text(PICK)
    s = prog.new_game(2, 3, narrate=True, explicit_chance=True)
    agent = make_agent(parse_spec("ismcts:200:cores=1:trust=0.1"), 3)
    agent.choose(prog, s)
    final = agent._final
    assert final is not None and 2 <= len(final) <= 3
    for key, (w, n, w2) in final.items():
        e = agent.last_root.edges[key]
        assert 0 < n < e.n and 0 <= w <= e.w and w * w / n <= w2 + 1e-9 and w2 <= e.w2
