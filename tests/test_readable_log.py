"""The log as a person reads it (engine/seen.py `readable_log`, issue 39's finding 7): a move the
rules narrate is told once, in their words; a hidden choice keeps its line unless the chooser's
next line tells it; unseen shuffles are
left out; a line repeated at once is written once with its count. `log_for`, what the bots'
information state is built from, is unchanged."""
from __future__ import annotations

from game_driver import program_text, random_steps
from shipped import shipped_program

from mercator.interpreter.engine.seen import log_for, readable_log

RULES = """game "Quiet" players 2..2
player { coins: int = 0  hand: list<int> owner }
setup { for p in players { add 4 to p.hand  add 5 to p.hand } }
round r limit 1 { phase a {
  for p in players {
    let k = choose p one of [1, 2, 3] prompt "take coins"
    p.coins += k
    log p, "takes", k, "coins"
    let h = choose p one of p.hand prompt "play a card"
    remove h from p.hand
    log p, "plays a card"
    let z = choose p one of [7, 8] prompt "say nothing"
    let w = choose p one of [1] with pass prompt "wave"
    if w == none { log p, "stays still" }
    log "a bell rings"
    log "a bell rings"
  }
} }
score p: p.coins
"""


def test_a_narrated_choice_is_told_once_a_hidden_one_by_the_choosers_line() -> None:
    prog = program_text(RULES)
    s = prog.new_game(2, 0, narrate=True)
    for i in (2, 0, 1, 0):      # P1 takes 3 coins, plays the 4 (hidden), says 8, passes
        prog.apply(s, i)
    mine, theirs = readable_log(s.record, 0), readable_log(s.record, 1)
    # "P1 chooses 3" is told by "P1 takes 3 coins"; the card played from the hidden hand is
    # not named by "P1 plays a card", so P1's own choice of it stays, and P2 is told that P1
    # chose — by "P1 plays a card", his next line (no "P1 has chosen (play a card)" beside
    # it); a choice nobody narrates stays; a pass is told by the rules' line of the passer;
    # the round (`round r`) begins with a heading
    assert mine == ["— r 1 —", "P1 takes 3 coins", "P1 chooses 4 (play a card)", "P1 plays a card",
                    "P1 chooses 8 (say nothing)", "P1 stays still", "a bell rings (×2)"]
    assert theirs == ["— r 1 —", "P1 takes 3 coins", "P1 plays a card",
                      "P1 chooses 8 (say nothing)", "P1 stays still", "a bell rings (×2)"]
    # what a seat has seen, entry by entry, is as before
    assert log_for(s.record, 0)[:2] == ["P1 chooses 3  (take coins)", "P1 takes 3 coins"]
    assert log_for(s.record, 1).count("a bell rings") == 2


def test_manila_s_log_tells_each_bid_and_placement_once() -> None:
    """In a random Manila game, a seat's readable log has no "P2 chooses 5 (bid ...)" beside
    "P2 bids 5": every bid and placement line the rules write stands alone, and nothing the
    seat saw in words is lost (each rules line of log_for is in it)."""
    prog = shipped_program("manila")
    s = random_steps(prog, 3, 11, 120, narrate=True)
    for viewer in (0, None):
        full, short = log_for(s.record, viewer), readable_log(s.record, viewer)
        assert len(short) < len(full)
        assert not any(line.startswith(("P1 chooses", "P2 chooses", "P3 chooses")) and
                       "(bid (or pass))" in line for line in short)
        said = [ln for ln in full if " chooses " not in ln and "has chosen" not in ln
                and not ln.startswith("chance (shuffle)")]
        unfolded = []
        for x in short:
            text, _, k = x.rpartition(" (×")
            unfolded += [text] * int(k[:-1]) if text and k.endswith(")") and k[:-1].isdigit() \
                else [x]
        rest = iter(unfolded)
        assert all(any(ln == x for x in rest) for ln in said)


NESTED = """game "Nested" players 2..2
player { coins: int = 1  stock: list<int> = [5, 6] owner }
round r limit 1 { phase a {
  for p in players {
    let g = choose p one of [10, 20] prompt "buy a boat"
    if p.coins < 2 {
      let x = choose p one of p.stock prompt "sell a share to raise the money"
      remove x from p.stock
      log p, "sells a share"
      p.coins += 5
    }
    log p, "buys the boat", g
  }
} }
score p: p.coins
"""


def test_a_choice_told_after_the_choosers_own_nested_step_is_told_once() -> None:
    """A purchase paid for by a forced sale: the rules tell the sale, then the purchase ("P1
    buys the boat 20" after "P1 sells a share"); the purchase's own "P1 chooses 20" line goes
    (the scan for its narration passes over the chooser's own nested step), and the other
    seat, who may not see which share was sold, reads the sale in the rules' words only."""
    prog = program_text(NESTED)
    s = prog.new_game(2, 0, narrate=True)
    prog.apply(s, 1)                 # P1 buys the 20 boat ...
    prog.apply(s, 0)                 # ... selling his first share (hidden from P2)
    assert readable_log(s.record, 0) == ["— r 1 —",
                                         "P1 chooses 5 (sell a share to raise the money)",
                                         "P1 sells a share", "P1 buys the boat 20"]
    assert readable_log(s.record, 1) == ["— r 1 —", "P1 sells a share", "P1 buys the boat 20"]
    assert log_for(s.record, 1)[:2] == ["P1 chooses 20  (buy a boat)",
                                        "P1 has chosen  (sell a share to raise the money)"]


def test_each_round_begins_with_a_heading_that_no_digest_sees() -> None:
    """Issue 39, "a log to read": round headings. Each round of a stage opens the readable log
    with its stage's name and the round's number ("— voyage 2 —" in Manila), for every seat;
    what a seat has seen entry by entry (log_for, its digest, the bots' information state)
    has no such line."""
    from shipped import shipped_program
    from game_driver import random_steps
    prog = shipped_program("manila")
    s = random_steps(prog, 3, 5, 200, narrate=True)
    for viewer in (0, 1, None):
        lines = readable_log(s.record, viewer)
        heads = [ln for ln in lines if ln.startswith("— ")]
        assert heads == [f"— voyage {k} —" for k in range(1, s.round + 1)]
        assert lines[0] == "— voyage 1 —"
        assert not [ln for ln in log_for(s.record, viewer) if ln.startswith("— ")]
    quiet = random_steps(prog, 3, 5, 200)            # no narration: no record, same game
    assert quiet.round == s.round and quiet.record == []


def test_the_page_sets_a_rounds_heading_apart() -> None:
    """In the browser the heading is a line of the log of its own kind (bold: class heading)."""
    import warnings

    import pytest
    pytest.importorskip("starlette")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from shipped import shipped_program
    from mercator.interpreter.tools.session import GameSession
    from mercator.interpreter.web.app import SeatLinks, make_app
    prog = shipped_program("manila")
    session = GameSession(prog, 3, 1, ["human", "random", "random"], "manila.rules", {})
    links = SeatLinks([0])
    page = TestClient(make_app(session, links)).get(links.path(0)).text
    # before P1's first decision nothing is "new" (since his last move): the heading alone
    assert '<li class="heading">— voyage 1 —</li>' in page
