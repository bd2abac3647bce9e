"""The casual trader: a rulebook's preference over the offers of a deal's table (docs/language.md
§2.19c, "Offers") values every step of the window (interpreter/engine/deals.py,
DealSpec.casual) — what the `prefer` player plays by, and what a searcher with `deals=prefer`
drafts with. tests/fixtures/agents/trader.rules: the first seat likes an offer of c coins for
the holder's prize 30 - c - 2 * max(0, 15 - c) (climbing to 15 coins), the holder likes it by
c - holder_least (10)."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings, strategies as st

from game_driver import program, program_text

from mercator.interpreter.agents.base import PreferAgent, play_out
from mercator.interpreter.agents.search import ISMCTSAgent
from mercator.interpreter.engine.deals import NEVER
from mercator.interpreter.engine.nodes import Terminal
from mercator.dsl.loader import load_text

TRADER = Path(__file__).resolve().parent / "fixtures" / "agents" / "trader.rules"
PROG = program(TRADER)
REFUSING = program_text(TRADER.read_text().replace("holder_least = 10", "holder_least = 100"))


def prefs(prog, s) -> dict[str, int]:
    """The preference of each option of the decision pending in s, by label."""
    pend = s.pending
    m = pend.count - len(pend.actions)
    return dict(zip([pend.option(i).label for i in range(m)], prog.preferences(s, m)))


def step(prog, s, label: str) -> None:
    prog.apply(s, [o.label for o in s.pending.options].index(label))


def offers(s) -> list[str]:
    return [line for line in s.messages if " offers #" in line or " accepts " in line
            or " replaces " in line or " withdraws " in line]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10 ** 6))
def test_the_bidder_climbs_to_his_price_and_the_holder_takes_it(seed: int) -> None:
    """Whatever the seed: 15 coins and no pebble (ties end the climb: 'done'), accepted; the
    scores 40 - 15 + 30 - 40 = 15 and 55 - 50 = 5."""
    s = play_out(PROG, PROG.new_game(2, seed, narrate=True), [PreferAgent(seed), PreferAgent(1)])
    assert offers(s) == ["P1 offers #1 P1 to P2: gives 15 coins",
                         "P2 accepts #1 P1 to P2: gives 15 coins"]
    assert isinstance(s.pending, Terminal) and s.pending.scores == (15, 5)


def test_each_step_is_valued_as_the_climb_goes() -> None:
    """At the turn's start posting is worth the liking of the offer the climb would post (15
    coins: 15), the pass 0; in the draft, the climb's step is 0 and every other step NEVER;
    the holder values accepting by the coins above 10."""
    s = PROG.new_game(2, 0, narrate=True)
    assert prefs(PROG, s) == {"pass": 0, "post an offer": 15}
    step(PROG, s, "post an offer")
    want = {"add 5 coins": 0, "add grey": NEVER, "add white": NEVER, "add black": NEVER,
            "cancel": NEVER}
    assert prefs(PROG, s) == want
    for _ in range(3):
        step(PROG, s, "add 5 coins")
    got = prefs(PROG, s)
    assert got["post"] == 0 and all(v == NEVER for k, v in got.items() if k != "post")
    step(PROG, s, "post")
    # (the holder may post counter-offers, but `valid` allows none of his: never)
    assert prefs(PROG, s) == {"pass": 0, "post an offer": NEVER,
                              "accept #1 P1 to P2: gives 15 coins": 5}


def test_a_standing_offer_is_raised_and_never_posted_twice() -> None:
    """The holder refuses (he wants 100 coins). The first seat's standing offer of 5 coins
    (liked 30 - 5 - 20 = 5) is replaced by the climb's 15 (liked 15: 10 more); a withdrawal is
    worth -5, a second offer to the same taker never. Once 15 stands, replacing it by the same
    offer is never worth it either: he passes, the window closes quietly, and nobody deals."""
    s = REFUSING.new_game(2, 0, narrate=True)
    step(REFUSING, s, "post an offer")
    step(REFUSING, s, "add 5 coins")
    step(REFUSING, s, "post")
    assert prefs(REFUSING, s) == {"pass": 0, "post an offer": NEVER,
                                  "accept #1 P1 to P2: gives 5 coins": -95}
    step(REFUSING, s, "pass")
    assert prefs(REFUSING, s) == {"pass": 0, "post an offer": NEVER, "replace #1": 10,
                                  "withdraw #1": -5}
    s = play_out(REFUSING, s, [PreferAgent(0), PreferAgent(1)])
    assert offers(s) == ["P1 offers #1 P1 to P2: gives 5 coins",
                         "P1 replaces #1 by #1 P1 to P2: gives 15 coins"]
    assert s.pending.scores == (0, 0)


def test_a_draft_liked_below_zero_is_never_posted() -> None:
    """A bidder who likes no offer above 0 (the prize worth 10 to him: 10 - c - 2 * max(0,
    15 - c) is at most -5) never posts: the pass is his best."""
    text = TRADER.read_text().replace("else 30 - o.give.coins", "else 10 - o.give.coins")
    prog = program_text(text)
    s = prog.new_game(2, 0, narrate=True)
    assert prefs(prog, s) == {"pass": 0, "post an offer": NEVER}
    s = play_out(prog, s, [PreferAgent(0), PreferAgent(1)])
    assert offers(s) == [] and s.pending.scores == (0, 0)


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 1000))
def test_a_searcher_drafts_as_the_casual_trader_with_deals_prefer(seed: int) -> None:
    """With deals=prefer the searcher decides at the turn's start (posting: +15 points against
    the pass's 0) and every step of its draft is the climb's, answered without a search (no
    iterations): it posts 15 coins, and the holder (the `prefer` player) takes it."""
    agent = ISMCTSAgent(60, seed=seed, deals="prefer", reward="margin", rollout="mast")
    s = PROG.new_game(2, seed, narrate=True, explicit_chance=True)
    drafted = []
    while not isinstance(s.pending, Terminal):
        pend = s.pending
        if pend.player == 0 and pend.count > 1:
            i = agent.choose(PROG, s)
            if "post an offer" not in [o.label for o in pend.options]:
                drafted.append((pend.option(i).label, agent.last_iterations))
        else:
            i = PreferAgent(seed).choose(PROG, s)
        PROG.apply(s, i)
    assert drafted == [("add 5 coins", 0)] * 3 + [("post", 0)]
    assert s.pending.scores == (15, 5)


def test_an_offer_preference_is_checked_like_any_other() -> None:
    """W274 where no deal's table holds offers of its type; E162 where it reads what the
    chooser may not see (another seat's owner-only field), not where it reads his own."""
    base = TRADER.read_text()
    unused = base.replace("prefer o: offer<Lot> for p =", "prefer o: offer<Lot, Pebble> for p =")
    res = load_text(unused, "t.rules")
    assert [(d.code, d.hint) for d in res.diagnostics] == [("W274", "did you mean 'offer<Lot>'?")]
    secret = base.replace("coins: int = 40", "coins: int = 40\n  purse: int = 3 owner").replace(
        "if p == o.taker then o.give.coins", "if p == o.taker then o.maker.purse")
    res = load_text(secret, "t.rules")
    assert [d.code for d in res.diagnostics if d.severity == "error"] == ["E162"], res.diagnostics
    own = secret.replace("then o.maker.purse", "then p.purse")      # the chooser's own: fine
    assert not [d for d in load_text(own, "t.rules").diagnostics if d.severity == "error"]


def test_the_searcher_does_not_search_a_post_that_changes_nothing() -> None:
    """With deals=prefer, at the bidder's turn with his 15 coins standing (the holder refusing),
    posting or replacing would post the very offer again (the trader values them NEVER): the
    root does not search them, only the pass and the withdrawal."""
    s = REFUSING.new_game(2, 0, narrate=True, explicit_chance=True)
    step(REFUSING, s, "post an offer")
    for _ in range(3):
        step(REFUSING, s, "add 5 coins")
    step(REFUSING, s, "post")
    step(REFUSING, s, "pass")
    labels = [o.label for o in s.pending.options]
    assert labels == ["pass", "post an offer", "replace #1", "withdraw #1"]
    from mercator.interpreter.agents.search import unchanged_offers
    assert unchanged_offers(REFUSING, s) == {1, 2}
    agent = ISMCTSAgent(50, seed=3, deals="prefer", reward="margin", rollout="mast")
    i = agent.choose(REFUSING, s)
    assert labels[i] in ("pass", "withdraw #1")
    assert set(agent.last_root.edges) == {"pass", "withdraw #1"}
    judging = ISMCTSAgent(50, seed=3, deals="judge", reward="margin", rollout="mast")
    judging.choose(REFUSING, s)                     # (without the trader: every option)
    assert set(judging.last_root.edges) == set(labels)


def test_ties_with_the_pass_go_to_the_pass_only_in_a_window_of_offers() -> None:
    """The casual trader passes where he likes nothing above the pass (the holder of the
    trader rulebook offered exactly 10 coins: liked 0); a plain decision's ties stay at random
    (a preference of 0 for every value beside the pass)."""
    text = TRADER.read_text().replace("2 * max(0, 15 - o.give.coins)",
                                      "2 * max(0, 10 - o.give.coins)")
    prog = program_text(text)
    s = prog.new_game(2, 0, narrate=True)
    step(prog, s, "post an offer")
    for _ in range(2):
        step(prog, s, "add 5 coins")
    step(prog, s, "post")
    assert prefs(prog, s) == {"pass": 0, "post an offer": NEVER,
                              "accept #1 P1 to P2: gives 10 coins": 0}
    import random
    assert {prog.preferred(s, 3, random.Random(k)) for k in range(20)} == {0}
    plain = program_text('game "T" players 2..2\nplayer { n: int = 0 }\n'
                         'round r limit 1 { phase a { for p in players {\n'
                         '  let x = choose p one of 1..3 with pass prompt "take"\n'
                         '  if x != none { p.n += some(x) } } } }\n'
                         'score p: p.n\nprefer x: int at "take" = 0\n')
    s = plain.new_game(2, 0)
    assert {plain.preferred(s, 4, random.Random(k)) for k in range(40)} == {0, 1, 2, 3}
