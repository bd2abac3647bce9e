"""The engine's semantics on small rulebooks written for the purpose: decisions, chance, triggers,
any-time actions, simultaneous choices, loops, runtime errors and the step budget."""
from __future__ import annotations

import json

import pytest

from mercator.dsl.loader import load_text
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal
from mercator.interpreter.engine.program import IllegalChoice, MercatorRuntimeError, Program
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.state import State

HEAD = 'game "T" players 2..3\n'


def program(body: str, head: str = HEAD) -> Program:
    res = load_text(head + body, "t.rules")
    assert res.ok, "\n".join(str(d) for d in res.diagnostics)
    return compile_program(res.rulebook)


def test_choose_one_of_with_pass_and_prompt() -> None:
    prog = program("""
player { pick: int }
round r limit 1 { phase a {
  for p in players { let x = choose p one of [3, 1, 2] with pass prompt "pick"
                     if x != none { p.pick = some(x) } }
} }
score p: p.pick
""")
    s = prog.new_game(2, 0)
    d = s.pending
    assert isinstance(d, Decision) and d.player == 0 and d.prompt == "pick"
    assert [o.label for o in d.options] == ["pass", "3", "1", "2"]   # pass first, then as given
    prog.apply(s, "2")
    prog.apply(s, "pass")
    assert isinstance(s.pending, Terminal)
    assert s.pending.scores == (2, 0) and s.pending.winners == (0,)


def test_subset_decision_sizes() -> None:
    prog = program("""
enum C { a, b, c }
player { got: list<C> }
round r limit 1 { phase x { let s = choose first(players) subset of C size 1..2
                            first(players).got = s } }
score p: len(p.got)
""")
    s = prog.new_game(2, 0)
    assert [o.label for o in s.pending.options] == ["a", "b", "c", "a+b", "a+c", "b+c"]
    prog.apply(s, "a+c")
    assert s.pending.scores == (2, 0)


def test_for_where_skips_players_who_passed_during_the_loop() -> None:
    """The 'where' filter is evaluated when each element's turn comes."""
    prog = program("""
player { out: bool  turns: int }
round r limit 1 { phase x {
  repeat 2 {
    for p in players where not p.out {
      p.turns += 1
      let q = choose p one of [true, false] prompt "drop the next player?"
      if q { next_player(p).out = true }
    }
  }
} }
score p: p.turns
""")
    s = prog.new_game(3, 0)
    prog.apply(s, "true")      # P1 knocks out P2 before P2's turn
    assert s.pending.player == 2
    prog.apply(s, "false")     # P3
    prog.apply(s, "false")     # P1 again (second repeat)
    prog.apply(s, "false")     # P3
    assert s.pending.scores == (2, 0, 2)


def test_triggers_run_in_declaration_order_with_their_condition() -> None:
    prog = program("""
table { trail: list<int> }
event hit(n: int)
on hit(n) as first when n > 1 { add 10 + n to trail }
on hit(n) as second { add 20 + n to trail }
round r limit 1 { phase x { emit hit(1) emit hit(2) add 99 to trail } }
score p: 0
""")
    s = prog.new_game(2, 0)
    assert prog.get(s, "trail") == [21, 12, 22, 99]


def test_anytime_action_is_offered_and_the_decision_asked_again() -> None:
    prog = program("""
player { coins: int = 1  gems: int = 2 }
anytime sell(p: player) when p.gems > 0 { p.gems -= 1  p.coins += 5 }
round r limit 1 { phase x { let b = choose first(players) one of 0..first(players).coins
                            first(players).coins -= b } }
score p: p.coins
""")
    s = prog.new_game(2, 0)
    assert [o.label for o in s.pending.options] == ["0", "1", "sell"]
    prog.apply(s, "sell")
    assert [o.label for o in s.pending.options] == ["0", "1", "2", "3", "4", "5", "6", "sell"]
    prog.apply(s, "sell")
    assert "sell" not in [o.label for o in s.pending.options]      # no gems left
    prog.apply(s, "11")
    assert s.pending.scores == (0, 1)


def test_simultaneous_choices_are_collected_then_revealed() -> None:
    prog = program("""
player { dial: int }
round r limit 1 { phase x {
  let m = simultaneous p in players: choose p one of 1..3 prompt "secret dial"
  for p in players { p.dial = m[p] }
} }
score p: p.dial
""")
    s = prog.new_game(3, 0)
    seen = []
    while isinstance(s.pending, Decision):
        assert s.pending.simultaneous
        seen.append(s.pending.player)
        prog.apply(s, str(3 - s.pending.player))
    assert seen == [0, 1, 2]
    assert s.pending.scores == (3, 2, 1)


def test_explicit_chance_nodes_and_seeded_chance() -> None:
    body = """
player { total: int }
round r limit 2 { phase x { for p in players { let d = roll 6  p.total += d } } }
score p: p.total
"""
    prog = program(body)
    s = prog.new_game(2, 5, explicit_chance=True)
    assert isinstance(s.pending, Chance) and [o.label for o in s.pending.options] == \
        ["1", "2", "3", "4", "5", "6"]
    for face in ["6", "1", "6", "2"]:
        prog.apply(s, face)
    assert s.pending.scores == (12, 3)
    a, b = prog.new_game(2, 99), prog.new_game(2, 99)
    assert a.pending.scores == b.pending.scores                     # same seed, same dice
    assert {prog.new_game(2, k).pending.scores for k in range(20)} != {a.pending.scores}


def test_draw_from_bag_and_list_and_shuffle_keep_items() -> None:
    prog = program("""
enum C { red, blue }
player { hand: bag<C> }
table { bag_of: bag<C> = {red: 2, blue: 1}  deck: list<int> = [1, 2, 3, 4, 5] }
setup { shuffle deck  for p in players { let c = draw from bag_of  add c to p.hand } }
round r limit 1 { phase x { let top = draw from deck  add top to deck } }
score p: count(p.hand)
""")
    for seed in range(10):
        s = prog.new_game(2, seed)
        hands = [prog.get(s, "hand", p) for p in range(2)]
        left = prog.get(s, "bag_of")
        total = {c: left.get(c, 0) + sum(h.get(c, 0) for h in hands) for c in (0, 1)}
        assert total == {0: 2, 1: 1}
        assert sorted(prog.get(s, "deck")) == [1, 2, 3, 4, 5]


def test_runtime_error_names_the_line_and_the_decision_log() -> None:
    prog = program("""
player { x: int }
round r limit 1 { phase a {
  let n = choose first(players) one of [0, 1]
  first(players).x = 10 / n
} }
score p: p.x
""")
    s = prog.new_game(2, 0)
    with pytest.raises(MercatorRuntimeError) as err:
        prog.apply(s, "0")
    assert err.value.span.line == 6 and err.value.history == [0]
    assert "division by zero" in str(err.value) and "t.rules:6:" in str(err.value)


def test_step_budget_stops_a_runaway_loop() -> None:
    res = load_text(HEAD + """
player { x: int }
round r limit 1 { phase a { while true { first(players).x += 1 } } }
score p: p.x
""", "t.rules")
    prog = compile_program(res.rulebook, step_budget=5000)
    with pytest.raises(MercatorRuntimeError) as err:
        prog.new_game(2, 0)
    assert "step budget" in str(err.value) and err.value.span.line == 4


def test_while_limit_is_enforced() -> None:
    prog = program("""
player { x: int }
round r limit 1 { phase a { while true limit 3 { first(players).x += 1 } } }
score p: p.x
""")
    with pytest.raises(MercatorRuntimeError, match="limit of 3"):
        prog.new_game(2, 0)


def test_end_game_statement_and_round_limit_and_tiebreaks() -> None:
    prog = program("""
player { a: int  b: int }
round r limit 5 { phase x {
  first(players).a += 1
  last(players).b += 1
  if round_number == 3 { end game }
} }
score p: 1
tiebreak p: p.a
""")
    s = prog.new_game(2, 0)
    assert s.round == 3 and s.pending.scores == (1, 1)
    assert s.pending.tiebreaks == ((3,), (0,)) and s.pending.winners == (0,)
    tied = program("""
player { a: int }
round r limit 2 { phase x { first(players).a += 1 } }
score p: 0
""")
    t = tied.new_game(3, 0)
    assert t.round == 2 and t.pending.winners == (0, 1, 2)           # a shared victory


def test_procedures_return_values_and_recursion_is_bounded_by_the_stack() -> None:
    prog = program("""
player { x: int }
proc fact(n: int) -> int { if n <= 1 { return 1 } let r = fact(n - 1) return n * r }
round r limit 1 { phase a { let v = fact(6) first(players).x = v } }
score p: p.x
""")
    assert prog.new_game(2, 0).pending.scores == (720, 0)


def test_state_json_round_trip_mid_simultaneous_decision() -> None:
    prog = program("""
player { dial: int }
round r limit 1 { phase x {
  let m = simultaneous p in players: choose p one of 1..3
  for p in players { p.dial = m[p] }
} }
score p: p.dial
""")
    s = prog.new_game(3, 0)
    prog.apply(s, "2")
    back = State.from_json(json.loads(json.dumps(s.to_json())))
    prog.resume(back)
    assert back == s and back.pending.player == 1
    for st in (s, back):
        prog.apply(st, "3")
        prog.apply(st, "1")
    assert back.pending == s.pending and s.pending.scores == (2, 3, 1)


def test_illegal_choice_on_terminal_and_wrong_player_count() -> None:
    prog = program("""
round r limit 1 { phase x { } }
score p: 0
""")
    s = prog.new_game(2, 0)
    with pytest.raises(IllegalChoice, match="over"):
        prog.apply(s, 0)
    with pytest.raises(ValueError, match="2–3 players"):
        prog.new_game(4, 0)


OFFER = """
enum Good { salt, silk, wine }
record Offer { square: int  money: int = 0  goods: bag<Good>  note: int? = none }
player { money: int = 20  goods: bag<Good> = {salt: 1, silk: 2} }
table { latest: Offer? = none }
round r limit 1 { phase deal {
  let o = choose last(players) record Offer {
    square: one of [1, 2],
    money: one of [5 * k for k in 0..last(players).money / 5],
    goods: subset of last(players).goods size (if money == 0 then 1 else 0)..1,
  } with pass prompt "your offer"
  latest = o
} }
score p: 0
"""


def test_compound_record_choice_asks_each_field_in_turn() -> None:
    """choose WHO record R {...}: one decision per field, later fields see earlier ones, a bag's
    subsets are distinct, unlisted fields take their defaults."""
    prog = program(OFFER)
    s = prog.new_game(2, 0)
    assert s.pending.player == 1 and s.pending.prompt == "your offer: square"
    assert [o.label for o in s.pending.options] == ["pass", "1", "2"]
    prog.apply(s, "2")
    assert s.pending.prompt == "your offer: money"
    assert [o.label for o in s.pending.options] == ["0", "5", "10", "15", "20"]
    prog.apply(s, "0")
    assert [o.label for o in s.pending.options] == ["salt", "silk"]      # money 0: a good needed
    prog.apply(s, "silk")
    silk = prog.member("silk")
    assert prog.get(s, "latest") == [2, 0, {silk: 1}, None] and s.over
    t = prog.new_game(2, 0)
    prog.apply(t, "1")
    prog.apply(t, "10")
    assert [o.label for o in t.pending.options] == ["nothing", "salt", "silk"]
    u = prog.new_game(2, 0)
    prog.apply(u, "pass")                        # the outer pass skips every field
    assert prog.get(u, "latest") is None and u.over


def test_prompt_shows_values() -> None:
    prog = program("""
player { coins: int = 3 }
round r limit 1 { phase a { for p in players {
  let x = choose p one of 0..p.coins prompt "spend, of your", p.coins, "coins; you are", p
  p.coins -= x
} } }
score p: p.coins
""")
    s = prog.new_game(2, 0)
    assert s.pending.prompt == "spend, of your 3 coins; you are P1"
    prog.apply(s, "2")
    assert s.pending.prompt == "spend, of your 3 coins; you are P2"


def test_typed_let_and_list_literals_where_bags_are_expected() -> None:
    prog = program("""
enum Good { a, b }
record Crate { goods: bag<Good> = [a, a] }
const start: bag<Good> = [a, b, b]
player { stock: bag<Good> = start  best: int }
fn crate() -> Crate = {goods: [b]}
round r limit 1 { phase x {
  let winner: player? = none
  let pile: bag<Good> = [g for g in Good]
  for p in players { if winner == none { winner = p } }
  some(winner).stock = some(winner).stock - {b: 1} + pile + crate().goods
  some(winner).best = count(some(winner).stock)
} }
score p: p.best
""")
    s = prog.new_game(2, 0)
    a, b = prog.member("a"), prog.member("b")
    assert prog.get(s, "stock", 0) == {a: 2, b: 3} and s.pending.scores == (5, 0)


def test_choose_from_a_bag_offers_each_kind_once_and_distinct_records() -> None:
    prog = program("""
enum Good { a, b }
record Lot { g: Good }
player { stock: bag<Good> = {a: 2, b: 1}  lots: list<Lot> = [{g: a}, {g: a}, {g: b}] }
round r limit 1 { phase x {
  let g = choose first(players) one of first(players).stock
  remove g from first(players).stock
  first(players).lots = distinct(first(players).lots)
} }
score p: count(p.stock) + len(p.lots)
""")
    s = prog.new_game(2, 0)
    assert [o.label for o in s.pending.options] == ["a", "b"]
    prog.apply(s, "a")
    assert s.pending.scores == (2 + 2, 3 + 3)


def test_distinct_keeps_first_appearances_in_order_for_scalars_and_records() -> None:
    prog = program("""
enum Good { a, b, c }
record Lot { g: Good  n: int }
player { order: list<Good>  nums: list<int>  lots: list<Lot> }
round r limit 1 { phase x {
  let p = first(players)
  p.order = distinct([c, a, c, b, a])
  p.nums = distinct([3, 1, 3, 2, 1, 0])
  p.lots = distinct([{g: b, n: 1}, {g: a, n: 1}, {g: b, n: 1}, {g: b, n: 2}])
} }
score p: len(p.order) + len(p.nums) + len(p.lots)
""")
    s = prog.new_game(2, 0)
    a, b, c = prog.member("a"), prog.member("b"), prog.member("c")
    assert prog.get(s, "order", 0) == [c, a, b]
    assert prog.get(s, "nums", 0) == [3, 1, 2, 0]
    assert prog.get(s, "lots", 0) == [[b, 1], [a, 1], [b, 2]]


def test_a_stat_counts_an_event_or_sums_its_amount() -> None:
    """`stat NAME counts EVENT(names) [as AMOUNT] [when COND]`: 1 per emit, or AMOUNT, where
    COND holds; the compiled rollout counts as the apply loop does (docs/language.md §2.20)."""
    import random as _random
    prog = program("""
table { rolls: list<int> }
event rolled(p: player, k: int)
stat times counts rolled
stat pips counts rolled(p, k) as k
stat big counts rolled(p, k) as k * 10 when k >= 5
round r limit 3 { phase x {
  for p in players {
    let k = roll 6
    emit rolled(p, k)
    add k to rolls
  }
} }
score p: len(rolls)
""")
    for seed in range(6):
        s = prog.new_game(2, seed)
        while not s.over:
            prog.apply(s, 0)
        rolls = prog.get(s, "rolls")
        stats = dict(zip(prog.stat_names, s.stats))
        assert stats == {"times": 6, "pips": sum(rolls),
                         "big": sum(10 * k for k in rolls if k >= 5)}
        t = prog.new_game(2, seed)
        prog.playout(t, _random.Random(0))
        assert t.stats == s.stats


def test_map_comprehension_flatten_and_eligible() -> None:
    prog = program("""
enum Good { a, b, c }
const price = {g: 10 * (index_of(Good, g) + 1) for g in Good if g != c}
player { cash: int  loans: int }
round r limit 1 { phase x {
  let pairs = flatten([[g for g in keys(price) if price[g] > k] for k in [0, 15]])
  first(players).cash = sum(price[g] for g in pairs)
  first(players).loans = 1
  last(players).cash = 5
} }
score p: p.cash
eligible p: p.loans == 0
""")
    s = prog.new_game(3, 0)
    assert prog.consts["price"] == {0: 10, 1: 20}
    assert s.pending.scores == (10 + 20 + 20, 0, 5)
    assert s.pending.winners == (2,)            # P1 scores most but holds a loan
    nobody = program("""
player { loans: int = 1 }
round r limit 1 { phase x { } }
score p: 0
eligible p: p.loans == 0
""")
    assert nobody.new_game(2, 0).pending.winners == ()


def test_record_literals_take_their_type_through_flatten_and_sort() -> None:
    """flatten(xss) expected as a list<R> expects a list<list<R>> of its argument, and sort /
    reverse pass a list<R> on: a record literal inside is then an R (docs/language.md §3.4).
    Before, `{tile: t, steps: k}` had no type there and 'tile' was an unknown name."""
    prog = program("""
record Move { tile: int  steps: int }
player { cash: int  last: int }
fn moves() -> list<Move> = flatten([[{tile: t, steps: k} for k in 1..t] for t in [1, 2]])
fn backwards() -> list<Move> = reverse([{tile: t, steps: 0} for t in [4, 5]])
round r limit 1 { phase x {
  first(players).cash = sum(m.tile * 10 + m.steps for m in moves())
  first(players).last = first(backwards()).tile
} }
score p: p.cash
""")
    s = prog.new_game(2, 0)
    assert s.pending.scores == (11 + 21 + 22, 0)
    assert s.players[0][1] == 5
    res = load_text(HEAD + "record M { a: int }\nfn f() -> list<M> = flatten([{a: 1}])\n"
                    "round r limit 1 { phase x { } }\nscore p: 0\n", "t.rules")
    errors = [d for d in res.diagnostics if d.severity == "error"]     # not a list of lists:
    assert [d.code for d in errors] == ["E104", "E100"]                # the item is located
    assert "list<M>" in errors[0].message and errors[0].span.col == 30


@pytest.mark.parametrize("build, change", [
    ("let ys = [first(players).hand]", "add 9 to ys[0]"),
    ("let ys = {1: first(players).hand}", "add 9 to ys[1]"),
    ("let ys = [q.hand for q in players]", "add 9 to ys[0]"),
    ("let h = first(players).hand", "add 9 to h"),
])
def test_values_built_from_state_do_not_share_it(build: str, change: str) -> None:
    """A state is a value: a list or map built from a player's hand holds a copy, so changing
    the local does not change the hand."""
    res = load_text('game "Alias" players 2..2\nplayer { hand: list<int> = [1] }\n'
                    'round r limit 1 {\n  phase main {\n'
                    f'    {build}\n    {change}\n' +
                    '  }\n}\nscore p: len(p.hand)\n', "alias.rules")
    assert res.ok, res.diagnostics
    prog = compile_program(res.rulebook)
    s = prog.new_game(2, 0)
    assert s.over
    assert prog.get(s, "hand", 0) == [1] and prog.get(s, "hand", 1) == [1]


def test_a_fn_called_as_a_statement_runs_for_its_errors_alone() -> None:
    """`f(x)` as a statement (a fn, not a proc): its value is dropped, the state unchanged, but
    a rule failing inside it stops the game at the statement, every way the game runs."""
    prog = program("""
player { coins: int = 3 }
fn share(p: player, k: int) -> int = p.coins / k
round r limit 2 { phase a {
  for p in players {
    share(p, 1)
    let k = choose p one of [0, 1, 2]
    share(p, k)
    p.coins += k
  }
} }
score p: p.coins
""")
    s = prog.new_game(2, 0)
    prog.apply(s, "2")                      # share(P1, 2): dropped, nothing changes
    assert [pl[0] for pl in s.players] == [5, 3]
    prog.apply(s, "1")
    prog.apply(s, "1")
    assert [pl[0] for pl in s.players] == [6, 4]
    with pytest.raises(MercatorRuntimeError) as err:
        prog.apply(s, "0")                  # share(P2, 0): a division by zero, at the statement
    assert "division by zero" in str(err.value) and ":9:" in str(err.value.span)
    class Zero:                             # draws the first option: 0
        def randrange(self, n: int) -> int:
            return 0
    for narrate in (False, True):           # the compiled rollout, and the VM with narration
        s = prog.new_game(2, 0, narrate=narrate)
        for c in ("2", "1", "1"):
            prog.apply(s, c)
        with pytest.raises(MercatorRuntimeError) as again:
            prog.playout(s, Zero())
        assert "division by zero" in str(again.value) and ":9:" in str(again.value.span)
