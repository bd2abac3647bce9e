"""The deal construct on parts Bazaar does not use (docs/language.md §2.7a, §4.17): items of a
list of records (cards), a unit named by a constant, a window that closes at its turn limit,
and offers that stand from one window to the next until the rules clear their table; and what
Genoa made it grow (issue 16): `openly` parts, `closer`/`close`/`closed(x)`, `must(o)`."""
from __future__ import annotations

from typing import Any

from mercator.interpreter.engine.program import Program
from tests.game_driver import program_text

CARDS = """
game "Cards" players 2..2
enum Suit { red, blue }
record Card { suit: Suit  value: int }
const step = 3
player { coins: int = 9  cards: list<Card> }
bundle Hand { cards: items of cards  coins: amount of coins in units of step }
table { market: list<offer<Hand>>  windows: int }
setup {
  first(players).cards = [{suit: red, value: 3}, {suit: blue, value: 5}, {suit: red, value: 3}]
  last(players).cards = [{suit: blue, value: 1}]
}
round r limit 2 {
  phase trade {
    windows += 1
    deal on market {
      among = players
      terms = [give, get]
      quiet = 2
      limit = 6
      valid(o) = len(o.give.cards) + len(o.get.cards) > 0
    }
  }
}
score p: p.coins + sum(c.value for c in p.cards)
"""


def card(prog: Program, suit: str, value: int) -> list[Any]:
    return [prog.member(suit), value]


def test_cards_of_a_list_are_offered_one_by_one_and_handed_over() -> None:
    """An items part of a list of records offers each distinct card the giver holds (a pair
    of equal cards once, then the second); coins go by the constant unit 3."""
    prog = program_text(CARDS)
    s = prog.new_game(players=2, seed=0)
    prog.apply(s, "post an offer")
    labels = [o.label for o in s.pending.options]
    assert labels == ["add {suit: red, value: 3}", "add {suit: blue, value: 5}", "add 3 coins",
                      "done", "cancel"]
    for label in ("add {suit: red, value: 3}", "add {suit: red, value: 3}"):
        prog.apply(s, label)
    assert [o.label for o in s.pending.options] == \
        ["add {suit: blue, value: 5}", "add 3 coins", "done", "cancel"]
    for label in ("done", "add 3 coins", "add 3 coins", "post"):
        prog.apply(s, label)
    prog.apply(s, "accept #1 P1 to P2: gives {suit: red, value: 3} + {suit: red, value: 3}; "
                  "gets 6 coins")
    assert prog.get(s, "cards", player=0) == [card(prog, "blue", 5)]
    assert prog.get(s, "cards", player=1) == [card(prog, "blue", 1), card(prog, "red", 3),
                                              card(prog, "red", 3)]
    assert (prog.get(s, "coins", player=0), prog.get(s, "coins", player=1)) == (15, 3)


def test_the_window_closes_at_its_turn_limit_and_offers_stand_into_the_next() -> None:
    """limit = 6 turns: P1 and P2 keep changing the table (so no pass is quiet), and the window
    closes after the sixth turn; the offers left stand when the next round's window opens."""
    prog = program_text(CARDS)
    s = prog.new_game(players=2, seed=0)
    for turn in range(3):
        prog.apply(s, "post an offer")                       # P1: a card for nothing
        prog.apply(s, "add {suit: blue, value: 5}")
        prog.apply(s, "done")
        prog.apply(s, "post")
        assert prog.get(s, "windows") == 1
        prog.apply(s, "pass")                                # P2
    assert prog.get(s, "windows") == 2                       # the sixth turn closed round 1
    assert [o[0] for o in prog.get(s, "market")] == [1, 2, 3]
    assert s.pending.player == 0                             # round 2's window: P1 first
    assert [o.label for o in s.pending.options] == ["pass", "post an offer", "replace #1",
                                                    "withdraw #1", "replace #2", "withdraw #2",
                                                    "replace #3", "withdraw #3"]


def test_an_offer_posted_in_the_limits_last_turn_gets_a_last_answer() -> None:
    """The safety bound never leaves an offer unanswerable (§4.17, issue 38): P2 posts in the
    sixth and last turn; before the window closes P1, to whom it stands and who has had no
    turn since, gets one last answer — he accepts, and the cards and coins change hands. A
    seat that has had its turn since the last change (P2 here) is not asked again."""
    prog = program_text(CARDS)
    s = prog.new_game(players=2, seed=0)
    for step in ("post an offer", "add {suit: blue, value: 5}", "done", "post"):
        prog.apply(s, step)                                  # P1, turn 1: a gift, #1
    prog.apply(s, "pass")                                    # P2
    prog.apply(s, "withdraw #1")                             # P1, turn 3
    prog.apply(s, "pass")                                    # P2
    prog.apply(s, "pass")                                    # P1, turn 5
    prog.apply(s, "post an offer")                           # P2, turn 6: his card for 3 coins
    for step in ("add {suit: blue, value: 1}", "done", "add 3 coins", "post"):
        prog.apply(s, step)
    assert prog.get(s, "windows") == 1 and s.pending.player == 0
    assert s.pending.prompt == ("market: the window is closing: accept an offer made to you, "
                                "or pass (the offers lapse)")
    assert labels(s) == ["pass", "accept #1 P2 to P1: gives {suit: blue, value: 1}; gets 3 coins"]
    prog.apply(s, labels(s)[1])
    assert (prog.get(s, "coins", player=0), prog.get(s, "coins", player=1)) == (6, 12)
    assert card(prog, "blue", 1) in prog.get(s, "cards", player=0)
    assert prog.get(s, "windows") == 2                       # the deal closed round 1's window


def test_a_window_without_limit_closes_at_the_engines_safety_bound() -> None:
    """No `limit`: the window closes after DEAL_PASSES full passes (interpreter/engine/
    limits.py, docs/diagnostics.md "Run-time limits") however the seats keep changing the
    table — P1 posts a gift and withdraws it in turn, so no pass is quiet; P2 has had his turn
    after the last change, so nobody is owed a last answer."""
    from mercator.interpreter.engine.limits import DEAL_PASSES
    prog = program_text(CARDS.replace("limit = 6\n", "").replace("round r limit 2",
                                                                  "round r limit 1"))
    s = prog.new_game(players=2, seed=0)
    turns = 0
    while not s.over:
        if "withdraw #1" in labels(s) and s.pending.player == 0:
            prog.apply(s, "withdraw #1")
        elif s.pending.player == 0:
            for step in ("post an offer", "add {suit: blue, value: 5}", "done", "post"):
                prog.apply(s, step)
        else:
            prog.apply(s, "pass")
        turns += 1
    assert turns == DEAL_PASSES * 2 == 20


# ------------------------------------------------------------------ grown for Genoa (issue 16)
MARKET = """
game "Market" players 3..3
enum Good { salt, silk }
enum Stop { here, left, right }
player { purse: int = 10 owner  goods: bag<Good> }
bundle Lot { purse: amount of purse openly  goods: items of goods }
table { bids: list<offer<Lot>>  boss: player  went: Stop? = none  rounds: int }
setup {
  boss = first(players)
  for p in players { add salt to p.goods }
}
round r limit 1 {
  phase trade {
    deal on bids {
      among = clockwise_from(boss)
      dealer = boss
      closer = boss
      close = [here, left]
      terms = [give, get]
      quiet = 1
      must(o) = o.give.purse >= 4
      accepted(o) { rounds += 1 }
      closed(x) { went = x }
    }
    rounds += 10
  }
}
score p: p.purse
"""


def market() -> tuple[Program, Any]:
    prog = program_text(MARKET)
    return prog, prog.new_game(players=3, seed=0)


def labels(s: Any) -> list[str]:
    return [o.label for o in s.pending.options]


def test_an_openly_part_is_offered_by_its_holder_and_never_asked_of_another() -> None:
    """`openly`: P2 may give of his hidden purse (the offer then shows it); the boss's counter
    asks P2 for goods only — the purse is not his to see."""
    prog, s = market()
    prog.apply(s, "pass")
    prog.apply(s, "post an offer")
    assert labels(s) == ["add 1 purse", "add salt", "done", "cancel"]
    for step in ("add 1 purse", "add 1 purse", "done"):
        prog.apply(s, step)
    assert labels(s) == ["add salt", "post", "cancel"]            # the boss's salt, no purse
    prog.apply(s, "post")
    assert prog.get(s, "bids")[0][3:5] == [[2, {}], [0, {}]]       # give, get


def test_closing_the_window_runs_closed_with_the_value_chosen() -> None:
    """`closer`, `close`, `closed(x)`: the boss closes the window saying `left`; the block runs
    with it and the rules go on after the deal."""
    prog, s = market()
    assert labels(s)[-2:] == ["close: here", "close: left"]
    prog.apply(s, "close: left")
    assert prog.get(s, "went") == prog.member("left")
    assert prog.get(s, "rounds") == 10


def test_must_holds_the_window_open_until_the_dealer_accepts() -> None:
    """`must(o)`: with a bid of 4 standing, the boss may not close the window, and when it would
    close (a quiet pass) he must accept it — no pass."""
    prog, s = market()
    prog.apply(s, "pass")
    prog.apply(s, "post an offer")
    for step in ("add 1 purse",) * 4 + ("done", "post"):
        prog.apply(s, step)
    prog.apply(s, "pass")                                        # P3
    assert not any(lb.startswith("close") for lb in labels(s))  # the boss's turn
    for who in ("pass", "pass", "pass"):                        # a quiet pass: boss, P2, P3
        prog.apply(s, who)
    assert s.pending.prompt == "bids: you must accept one of these offers"
    assert labels(s) == ["accept #1 P2 to P1: gives 4 purse; gets nothing"]
    prog.apply(s, labels(s)[0])
    assert prog.get(s, "rounds") == 11
    assert (prog.get(s, "purse", player=0), prog.get(s, "purse", player=1)) == (14, 6)


def test_quiet_and_limit_are_read_when_the_window_opens() -> None:
    """`limit = 4 + len(market)` is 4 as the window opens on an empty table: the window
    closes after its fourth turn although every turn posts an offer (read at every turn, the
    limit would grow with the table and the window never close by it)."""
    prog = program_text(CARDS.replace("limit = 6", "limit = 4 + len(market)")
                        .replace("round r limit 2", "round r limit 1"))
    s = prog.new_game(players=2, seed=0)
    for turn in range(4):
        assert not s.over and prog.get(s, "windows") == 1
        prog.apply(s, "post an offer")                       # coins for one of the other's cards
        prog.apply(s, "add 3 coins")
        prog.apply(s, "done")
        prog.apply(s, "add {suit: blue, value: 1}" if turn % 2 == 0 else
                   "add {suit: red, value: 3}")
        prog.apply(s, "post")
    assert len(prog.get(s, "market")) == 4
    assert s.pending.player == 0 and labels(s)[0] == "pass"  # P1's last answer to P2's #4
    prog.apply(s, "pass")
    assert s.over                                            # closed after the fourth turn


def test_the_dealer_is_read_when_the_window_opens() -> None:
    """`dealer = players[len(bids)]` is P1 as the window opens on an empty table, and stays P1
    when P2 has posted a bid: P3's offer goes to P1 with no step asking to whom (read at every
    turn, P3 would have become the dealer, offering to P1 or P2)."""
    prog = program_text(MARKET.replace("dealer = boss", "dealer = players[len(bids)]"))
    s = prog.new_game(players=3, seed=0)
    prog.apply(s, "pass")                                        # P1
    prog.apply(s, "post an offer")                               # P2, to the dealer
    for step in ("add 1 purse", "done", "post"):
        prog.apply(s, step)
    assert len(prog.get(s, "bids")) == 1 and s.pending.player == 2
    prog.apply(s, "post an offer")                               # P3
    assert labels(s) == ["add 1 purse", "add salt", "done", "cancel"]
    for step in ("add 1 purse", "done", "post"):
        prog.apply(s, step)
    assert [o[2] for o in prog.get(s, "bids")] == [0, 0]         # both to P1


# ------------------------------------------------------------------ asks(o) (issue 38)
ASKING = MARKET.replace("must(o) = o.give.purse >= 4",
                        "asks(o) = {purse: 12, goods: {}}")


def test_the_dealer_names_his_price_in_the_others_hidden_money() -> None:
    """`asks(o)`: the boss (dealer) asks P2 for 5 of his hidden purse for nothing but the deal
    itself — "I move to the Harbour for 20 ducats" — one unit at a time up to the public bound
    12; P2, who holds 10, accepts, and 5 changes hands."""
    prog = program_text(ASKING)
    s = prog.new_game(players=3, seed=0)
    prog.apply(s, "post an offer")
    prog.apply(s, "to P2")
    assert labels(s) == ["add 1 purse", "add salt", "done", "cancel"]   # what he gives
    prog.apply(s, "done")
    assert labels(s) == ["add 1 purse", "add salt", "post", "cancel"]   # what he asks
    for _ in range(5):
        prog.apply(s, "add 1 purse")
    prog.apply(s, "post")
    assert prog.get(s, "bids")[0][3:5] == [[0, {}], [5, {}]]
    assert labels(s) == ["pass", "post an offer",
                         "accept #1 P1 to P2: gives nothing; gets 5 purse"]
    prog.apply(s, labels(s)[2])
    assert (prog.get(s, "purse", player=0), prog.get(s, "purse", player=1)) == (15, 5)


def test_an_ask_beyond_the_takers_hidden_money_stands_but_he_cannot_accept_it() -> None:
    """The boss asks P2 for 12 (the bound of asks(o)) while P2 holds 10: the offer stays on
    the table — whether P2 can pay is his own secret — and P2 alone is not offered to accept
    it; the bound stops the boss's steps at 12."""
    prog = program_text(ASKING)
    s = prog.new_game(players=3, seed=0)
    for step in ("post an offer", "to P2", "done"):
        prog.apply(s, step)
    for _ in range(12):
        prog.apply(s, "add 1 purse")
    assert labels(s) == ["add salt", "post", "cancel"]             # 12: no more purse to ask
    prog.apply(s, "post")
    assert labels(s) == ["pass", "post an offer"]                  # P2: no acceptance
    prog.apply(s, "pass")
    prog.apply(s, "pass")                                          # P3
    assert [o[0] for o in prog.get(s, "bids")] == [1]              # it stands, not void


# ------------------------------------------------------------------ accepts = N (issue 38)
def test_a_window_that_accepts_two_offers_goes_on_after_the_first() -> None:
    """`accepts = 2`: after P2 accepts P1's first offer the window goes on (P1's turn, the
    acceptance a change of the table); after the second acceptance it closes, and round 2's
    window opens. Cards and coins: P1 gives both red 3s for 3 coins each time."""
    prog = program_text(CARDS.replace("limit = 6", "limit = 6\n      accepts = 2"))
    s = prog.new_game(players=2, seed=0)
    for k in (1, 2):
        assert prog.get(s, "windows") == 1 and s.pending.player == 0
        for step in ("post an offer", "add {suit: red, value: 3}", "done", "add 3 coins", "post"):
            prog.apply(s, step)
        prog.apply(s, f"accept #1 P1 to P2: gives {{suit: red, value: 3}}; gets 3 coins")
        assert (prog.get(s, "coins", player=0), prog.get(s, "coins", player=1)) == \
            (9 + 3 * k, 9 - 3 * k)
    assert prog.get(s, "windows") == 2                       # two deals closed round 1's
    assert prog.get(s, "cards", player=0) == [card(prog, "blue", 5)]


def test_one_accepted_offer_closes_a_window_by_default() -> None:
    """Without `accepts`, the first acceptance closes the window (round 2's opens)."""
    prog = program_text(CARDS)
    s = prog.new_game(players=2, seed=0)
    for step in ("post an offer", "add {suit: red, value: 3}", "done", "add 3 coins", "post"):
        prog.apply(s, step)
    prog.apply(s, "accept #1 P1 to P2: gives {suit: red, value: 3}; gets 3 coins")
    assert prog.get(s, "windows") == 2


# ------------------------------------------------------------------ `to F`, where items come from
SETS = """
game "Sets" players 2..2
enum Suit { red, blue }
player { hand: list<Suit> owner  board: list<Suit>  aside: list<Suit> owner }
bundle Swap { hand: items of hand to aside openly  shown: items of board }
table { market: list<offer<Swap>> }
setup {
  first(players).hand = [blue]
  first(players).board = [blue]
  last(players).hand = [red]
}
round r limit 1 {
  phase trade {
    deal on market {
      among = players
      terms = [give, get]
      quiet = 1
      asks(o) = {hand: [red, blue], shown: []}
      valid(o) = len(o.give.hand) + len(o.give.shown) > 0
    }
  }
}
score p: len(p.aside)
"""


def test_received_cards_land_in_the_field_the_bundle_names_and_offers_say_from_where() -> None:
    """`hand: items of hand to aside`: what a seat receives of the part lands in his `aside`,
    not his hand; an offer shows where each item comes from ("blue (hand → aside)"; "blue
    (board)" beside it, the two parts holding suits alike), on the option and in the view. P1
    gives a blue of his hand and the blue on his board for P2's red, asked of P2's hidden hand
    (asks): P2 holds it and accepts."""
    from mercator.interpreter.engine.view import observe
    prog = program_text(SETS)
    s = prog.new_game(players=2, seed=0, narrate=True)
    prog.apply(s, "post an offer")
    assert labels(s) == ["add blue (hand)", "add blue (shown)", "done", "cancel"]
    for step in ("add blue (hand)", "add blue (shown)", "done"):
        prog.apply(s, step)
    assert labels(s) == ["add red (hand)", "add blue (hand)", "post", "cancel"]
    prog.apply(s, "add red (hand)")
    prog.apply(s, "post")
    text = "#1 P1 to P2: gives blue (hand → aside) + blue (board); gets red (hand → aside)"
    assert labels(s) == ["pass", "post an offer", f"accept {text}"]
    assert text in str(observe(prog, s, 0))
    prog.apply(s, f"accept {text}")
    blue, red = prog.member("blue"), prog.member("red")
    assert (prog.get(s, "hand", player=0), prog.get(s, "board", player=0),
            prog.get(s, "aside", player=0)) == ([], [], [red])
    assert (prog.get(s, "hand", player=1), prog.get(s, "board", player=1),
            prog.get(s, "aside", player=1)) == ([], [blue], [blue])
