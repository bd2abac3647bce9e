"""The designer's gaps of issue 15, as language features: a local that hides another is warned
about (W262), a rulebook declares its winning direction (`lowest wins`), and the built-ins a
designer reached for (docs/language.md §2.19, §9)."""
from __future__ import annotations

import pytest

from mercator.dsl.fmt import format_rulebook
from mercator.dsl.loader import load_text
from mercator.dsl.parser import parse
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.nodes import Terminal
from mercator.interpreter.engine.program import MercatorRuntimeError, Program

HEAD = 'game "T" players 2..4\n'


def _load(body: str) -> object:
    return load_text(HEAD + body, "t.rules")


def program(body: str) -> Program:
    res = load_text(HEAD + body, "t.rules")
    assert res.ok, "\n".join(str(d) for d in res.diagnostics)
    return compile_program(res.rulebook)


def codes(body: str) -> list[str]:
    return [d.code for d in load_text(HEAD + body, "t.rules").diagnostics]


# ------------------------------------------------------------ W262: a local hides another
SHADOW = """
player { gold: int = 0 }
proc reward(p: player) { BODY }
round r limit 1 { phase main { reward(first(players)) } }
score p: p.gold
"""


def shadow(body: str) -> str:
    return SHADOW.replace("BODY", body)


def test_a_loop_over_players_named_like_the_parameter_is_warned() -> None:
    res = load_text(HEAD + shadow("for p in players { p.gold += 1 }"), "t.rules")
    assert res.ok
    (w,) = [d for d in res.diagnostics if d.code == "W262"]
    assert w.message == "'p' hides the parameter or local 'p' declared before it"
    assert (w.span.line, w.span.col) == (4, 26)


def test_generators_simultaneous_and_nested_lets_that_hide_a_local_are_warned() -> None:
    assert codes(shadow("p.gold += sum(1 for p in players)")).count("W262") == 1
    assert codes(shadow("let q = 1  if true { let q = 2  p.gold += q }")) \
        .count("W262") == 1
    assert codes(shadow(
        "let bids = simultaneous p in players: choose p one of 0..2  p.gold += bids[p]")) \
        .count("W262") == 1


def test_distinct_names_and_sibling_loops_are_not_warned() -> None:
    body = "for q in players { q.gold += 1 }  for q in players { q.gold += 1 }  " \
           "p.gold += count(true for q in players)"
    assert "W262" not in codes(shadow(body))


# --------------------------------------------------------- the winning direction
LOWEST = """
player { pts: int = 0  cards: int = 0  chips: int = 0 }
setup {
  let ps = players
  ps[0].pts = 5  ps[0].cards = 2  ps[0].chips = 1
  ps[1].pts = 5  ps[1].cards = 2  ps[1].chips = 4
  ps[2].pts = 5  ps[2].cards = 3  ps[2].chips = 9
  ps[3].pts = 8
}
round r limit 1 { phase main { } }
score p: p.pts lowest wins
tiebreak p: p.cards lowest wins
tiebreak p: p.chips LAST
"""


def lowest(last: str) -> str:
    return LOWEST.replace("LAST", last)


def _end(prog: Program, n: int = 4) -> Terminal:
    s = prog.new_game(n, 0)
    assert isinstance(s.pending, Terminal)
    return s.pending


def test_lowest_score_wins_then_fewest_cards_then_most_chips() -> None:
    """No Thanks!-style: the lowest score wins; P1, P2 and P3 tie on 5 (P4's 8 is worst);
    fewest cards leaves P1 and P2 (2 each); the most chips (4 against 1) makes P2 the winner."""
    end = _end(program(lowest("highest wins")))
    assert end.scores == (5, 5, 5, 8)                      # the true values, not negated
    assert end.tiebreaks == ((2, 1), (2, 4), (3, 9), (0, 0))
    assert end.winners == (1,)
    assert end.ranking == (1, 0, 2, 3)


def test_highest_wins_is_the_default_and_each_key_has_its_own_direction() -> None:
    assert _end(program(lowest(""))).winners == (1,)
    low_chips = _end(program(lowest("lowest wins")))
    assert low_chips.winners == (0,) and low_chips.ranking == (0, 1, 2, 3)


def test_without_a_direction_the_highest_score_still_wins() -> None:
    text = lowest("").replace(" lowest wins", "")
    end = _end(program(text))
    # 8 first; of the 5s, the most cards (P3's 3), then of the two with 2, the most chips
    assert end.winners == (3,) and end.ranking == (3, 2, 1, 0)


def test_the_direction_round_trips_through_fmt() -> None:
    text = HEAD + lowest("highest wins")
    rb, diags = parse(text, "t.rules")
    assert rb is not None and not diags
    out = format_rulebook(rb)
    assert "score p: p.pts lowest wins\n" in out
    assert "tiebreak p: p.cards lowest wins\n" in out and "tiebreak p: p.chips highest wins\n" in out
    again, _ = parse(out, "t.rules")
    assert again == rb and format_rulebook(again) == out


def test_a_direction_on_eligible_is_a_syntax_error() -> None:
    res = _load(lowest("") + "eligible p: p.pts > 0 lowest wins\n")
    (d,) = res.diagnostics
    assert d.code == "E001" and "score" in (d.hint or "") and "tiebreak" in (d.hint or "")


# ------------------------------------------------------ sort_by, argmax, argmin, rank, first
RANKS = """
player { gold: int = 0  place: int = 0  low_place: int = 0 }
table { order: list<player>  rich: player? = none  poor: player? = none  big: int = 0
        tally: list<int> }
setup {
  let ps = players
  ps[0].gold = 7  ps[1].gold = 9  ps[2].gold = 7  ps[3].gold = 3
  order = sort_by(q.gold for q in players)
  rich = argmax(q.gold for q in players)
  poor = argmin(q.gold for q in players if q != ps[3])
  let places = rank(q.gold for q in players)
  let low = rank(-q.gold for q in players)
  for q in players { q.place = places[q]  q.low_place = low[q] }
  big = first(q.gold * 10 for q in players if q.gold > 7)
  tally = sort_by(-n for n in [2, 5, 1, 5])
}
round r limit 1 { phase main { log order, rich, poor, big, tally } }
score p: p.place + p.low_place + p.gold
"""


def test_sort_by_argmax_argmin_rank_and_first_of_a_generator() -> None:
    """Gold 7, 9, 7, 3 (P1..P4)."""
    prog = program(RANKS)
    s = prog.new_game(4, 0)
    order, rich, poor, big, tally = s.table
    assert order == [3, 0, 2, 1]          # P4 (3), P1 and P3 (7, in seat order), P2 (9)
    assert rich == 1                      # P2
    assert poor == 0                      # of P1..P3 the least is 7: the first of them, P1
    assert big == 90                      # P2's 9 is the only gold above 7
    assert tally == [5, 5, 2, 1]          # the items themselves, by negated keys
    assert [pl[1] for pl in s.players] == [2, 1, 2, 4]    # 9 first; the two 7s share place 2
    assert [pl[2] for pl in s.players] == [2, 4, 2, 1]    # by the fewest gold: 3 first


def test_first_of_a_generator_stops_at_the_first_value() -> None:
    """first(...) computes nothing after its value: a division by zero further on never runs."""
    prog = program("""
player { gold: int = 1 }
round r limit 1 { phase main { first(players).gold += 1 } }
score p: first(10 / (2 - n) for n in [1, 2, 3])
""")
    assert _end(prog, 2).scores == (10, 10)


def test_argmax_and_first_of_nothing_are_run_time_errors() -> None:
    head = "player { gold: int = 1 }\nround r limit 1 { phase main { first(players).gold += 1 } }\n"
    for score, msg in (("argmax(q.gold for q in players if q.gold > 5).gold",
                        r"argmax\(\) of an empty collection"),
                       ("first(q.gold for q in players if q.gold > 5)",
                        r"first\(\) of a generator that gives nothing")):
        prog = program(head + f"score p: {score}\n")
        with pytest.raises(MercatorRuntimeError, match=msg):
            prog.new_game(2, 0)


def test_the_key_built_ins_need_a_generator_of_int_keys() -> None:
    def errs(expr: str) -> list[str]:
        res = _load("player { gold: int = 1 }\nround r limit 1 { phase main { first(players)"
                    f".gold += 1 }} }}\nscore p: {expr}\n")
        return [f"{d.code} {d.message}" for d in res.diagnostics if d.is_error]
    assert errs("argmax(players).gold") == [
        "E104 argmax(): needs a generator of int keys, as in argmax(q.money for q in players)"]
    assert errs("len(sort_by(q for q in players))") == [
        "E104 sort_by(): the keys must be ints, not player"]
    assert errs("len(rank(1 for x in [[1]]))") == [
        "E104 rank(): ranks enum, int, bool or player items (map keys), not list<int>"]
    assert errs("abs(q.gold for q in players)")[0].startswith("E106 'abs' cannot take a generator")
    assert errs("rank(q.gold for q in players)[p] + argmin(q.gold for q in players).gold"
                " + first(q for q in players).gold") == []


def test_the_key_built_ins_round_trip_through_fmt() -> None:
    rb, diags = parse(HEAD + RANKS, "t.rules")
    assert rb is not None and not diags
    out = format_rulebook(rb)
    assert "order = sort_by(q.gold for q in players)" in out
    assert "big = first(q.gold * 10 for q in players if q.gold > 7)" in out
    again, _ = parse(out, "t.rules")
    assert again == rb


# ------------------------------------------------------------------- draw N from ...
DRAW = """
enum Card { a, b, c }
player { hand: bag<Card>  top: list<int> }
table { pile: bag<Card> = {a: 2, b: 1, c: 3}  deck: list<int> = [5, 6, 7, 8] }
round r limit 1 {
  phase main {
    let p = first(players)
    p.hand = draw 4 from pile
    let two = 1 + 1
    p.top = draw two from deck
  }
}
score p: len(p.hand) + sum(p.top)
"""


def test_draw_n_from_a_list_takes_its_first_n() -> None:
    s = program(DRAW).new_game(2, 0)
    assert s.table[1] == [7, 8] and s.players[0][1] == [5, 6]     # a list: no chance at all
    hand, pile = s.players[0][0], s.table[0]
    assert sum(hand.values()) == 4 and sum(pile.values()) == 2     # 4 of the 6 cards moved
    assert all(hand.get(k, 0) + pile.get(k, 0) == n for k, n in {0: 2, 1: 1, 2: 3}.items())


def test_draw_n_from_a_bag_is_one_chance_node_per_card_and_survives_a_save() -> None:
    """Explicit chance: each draw weighs the cards left (a: 2, b: 1, c: 3, then without the
    drawn one); a state saved between two draws resumes at the same node."""
    from mercator.interpreter.engine.nodes import Chance
    from mercator.interpreter.engine.state import State
    prog = program(DRAW)
    s = prog.new_game(2, 0, explicit_chance=True)
    seen = []
    for pick in ("c", "c", "a", "c"):
        node = s.pending
        assert isinstance(node, Chance) and node.what == "draw"
        seen.append(dict(zip([o.label for o in node.options], node.weights)))
        again = State.from_json(s.to_json())
        assert prog.resume(again).weights == node.weights
        prog.apply(s, pick)
    assert seen == [{"a": 2, "b": 1, "c": 3}, {"a": 2, "b": 1, "c": 2}, {"a": 2, "b": 1, "c": 1},
                    {"a": 1, "b": 1, "c": 1}]
    end = s.pending
    assert isinstance(end, Terminal)
    assert s.players[0][0] == {0: 1, 2: 3} and s.table[0] == {0: 1, 1: 1}
    assert end.scores == (4 + 11, 0)


def test_draw_n_errors() -> None:
    def errs(stmt: str) -> list[str]:
        res = _load("table { pile: bag<int> = {1: 2}  deck: list<int> = [1]  n: int }\n"
                    f"round r limit 1 {{ phase main {{ {stmt} }} }}\nscore p: n\n")
        return [f"{d.code} {d.message}" for d in res.diagnostics if d.is_error]
    assert errs("let x = draw true from pile  n = len(x)") == [
        "E104 number of items to draw: expected int, got bool"]
    assert errs("let x: int = draw 2 from deck  n = x") == [
        "E104 value of 'x': expected int, got list<int>"]
    prog = program("table { pile: bag<int> = {1: 2}  n: int }\n"
                   "round r limit 1 { phase main { let x = draw 3 from pile  n = len(x) } }\n"
                   "score p: n\n")
    with pytest.raises(MercatorRuntimeError, match="cannot draw 3 items: the bag ran out after 2"):
        prog.new_game(2, 0)


def test_draw_n_round_trips_through_fmt() -> None:
    rb, diags = parse(HEAD + DRAW, "t.rules")
    assert rb is not None and not diags
    out = format_rulebook(rb)
    assert "p.hand = draw 4 from pile\n" in out and "p.top = draw two from deck\n" in out
    assert parse(out, "t.rules")[0] == rb
    one, _ = parse(HEAD + "setup { let c = draw (1 + 1) * 2 from deck }", "t.rules")
    assert one is not None and "draw (1 + 1) * 2 from deck" in format_rulebook(one)
