"""What each seat sees (docs/language.md §10.10): the information-flow labels of what the engine
shows, and the warnings W270 (a log part nobody will see), W271 (options that show the chooser
what he may not see) and W272 (a public value computed from hidden information).

Each test is a small rulebook; slots are the checker's: a body's parameters first, then its
locals in the order they are declared.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mercator.dsl import ast as A
from mercator.dsl.checked import CheckedRulebook
from mercator.dsl.fmt import format_rulebook
from mercator.dsl.infoflow import PUBLIC, SECRET, FlowInfo, Label
from mercator.dsl.loader import load, load_text
from mercator.dsl.parser import parse

ROOT = Path(__file__).resolve().parent.parent

HEAD = """game "T" players 2..4
enum Color { red, blue }
record Offer { money: int = 0  colour: Color = red }
player {
  money: int = 5 owner
  hand: bag<Color> = {red: 1} owner
  tip: int owner
  shown: int
}
table {
  deck: list<Color> = [red, blue, red] secret
  top: Color = red
  total: int
  board: map<player, int>
}
invariant "no debt": all(p.money >= 0 for p in players)
"""
TAIL = "\nscore p: p.money + p.tip + p.shown + total + len(board)\n"


def owned(*slots: int) -> Label:
    return Label(owners=frozenset(slots))


def check(body: str) -> tuple[CheckedRulebook, list[tuple[str, int, int, str]]]:
    """Load HEAD + body + TAIL; the checked rulebook and its flow warnings (code, line in body,
    column, message)."""
    res = load_text(HEAD + body + TAIL, "t.rules")
    assert res.ok and res.rulebook is not None, [d.message for d in res.diagnostics if d.is_error]
    off = HEAD.count("\n")
    found = [(d.code, d.span.line - off, d.span.col, d.message) for d in res.diagnostics
             if d.code in ("W270", "W271", "W272", "W221") and d.severity == "warning"]
    return res.rulebook, found


def codes(body: str) -> list[tuple[str, int]]:
    return [(c, line) for c, line, _, _ in check(body)[1]]


def phase(stmts: str) -> str:
    return "round r limit 2 {\n  phase main {\n" + stmts + "\n  }\n}\n"


def nodes(rb: CheckedRulebook, kind: type) -> list[Any]:
    """The nodes of a kind in the game's own text, in source order."""
    found = [n for n in A.walk(rb.items) if isinstance(n, kind) and n.span.path == "t.rules"]
    return sorted(found, key=lambda n: (n.span.line, n.span.col))


def log_labels(rb: CheckedRulebook) -> list[list[Label]]:
    """The labels of the parts of every log line, in source order."""
    return [[rb.flow.label(p) for p in lg.parts] for lg in nodes(rb, A.Log)]


# ------------------------------------------------------------------ the label API
def test_label_join_and_visibility() -> None:
    assert owned(1).join(owned(2)) == owned(1, 2)
    assert owned(1).join(SECRET) == SECRET
    assert PUBLIC.join(PUBLIC) == PUBLIC
    frame = ["P1", "P2", 7]
    assert owned(0).visible_to("P1", frame) and not owned(0).visible_to("P2", frame)
    assert not owned(0, 1).visible_to("P1", frame)
    assert PUBLIC.visible_to("P2", frame) and not SECRET.visible_to("P1", frame)
    assert FlowInfo().label(object()) == SECRET


# ------------------------------------------------------------------ fields and locals
def test_an_owner_field_of_a_local_player_is_owned_by_that_local() -> None:
    rb, warns = check(phase("for p in players { log p, p.money, p.shown }"))
    assert log_labels(rb) == [[PUBLIC, owned(0), PUBLIC]]
    assert warns == []


def test_through_a_let() -> None:
    rb, _ = check(phase("for p in players { let m = p.money + 1  let n = m * 2  log m, n }"))
    assert log_labels(rb) == [[owned(0), owned(0)]]


def test_an_owner_field_of_an_unnamed_player_is_secret_and_w270() -> None:
    rb, warns = check(phase("log first(players).money"))
    assert log_labels(rb) == [[SECRET]]
    assert [(c, line) for c, line, _, _ in warns] == [("W270", 3)]
    assert "owner-only field 'money'" in warns[0][3]


def test_some_of_a_local_is_that_local() -> None:
    rb, warns = check(phase("let w: player? = first(players)  log some(w).money"))
    assert log_labels(rb) == [[owned(0)]]
    assert warns == []


def test_a_total_over_a_loop_is_no_one_players() -> None:
    rb, _ = check(phase("let t = 0  for p in players { t += p.money  log t }  log t"))
    assert log_labels(rb) == [[SECRET], [SECRET]]


def test_a_reassigned_player_local_keeps_its_owner_only_where_it_is_read() -> None:
    rb, _ = check(phase("let q = first(players)  q = next_player(q)  let m = q.money  log q.money, m"))
    assert log_labels(rb) == [[owned(0), SECRET]]


def test_len_of_a_hidden_field_is_public() -> None:
    rb, warns = check(phase("for p in players { log len(p.hand), count(p.hand), len(deck), "
                            "p.hand[red] }"))
    assert log_labels(rb) == [[PUBLIC, PUBLIC, PUBLIC, owned(0)]]
    assert warns == []


def test_a_secret_field_read_is_secret_and_w270() -> None:
    rb, warns = check(phase("log \"top:\", first(deck)"))
    assert log_labels(rb) == [[PUBLIC, SECRET]]
    assert warns[0][:3] == ("W270", 3, 13)
    assert "secret field 'deck'" in warns[0][3]


# ------------------------------------------------------------------ comprehensions
def test_a_comprehension_over_a_players_own_hand() -> None:
    rb, _ = check(phase("for p in players { log [c for c in p.hand if c != blue] }"))
    assert log_labels(rb) == [[owned(0)]]


def test_a_sum_over_every_players_money_is_secret_and_w272_into_a_public_field() -> None:
    rb, warns = check(phase("total = sum(p.money for p in players)  log total"))
    assert log_labels(rb) == [[PUBLIC]]          # the field itself is public (as declared)
    assert warns[0][:3] == ("W272", 3, 9)
    assert warns[0][3] == "public field 'total' is computed from 'money', which only its owner may see"


def test_players_filtered_by_hidden_money_are_secret() -> None:
    rb, _ = check(phase("let rich = [p for p in players if p.money > 3]  log rich, len(rich)"))
    assert log_labels(rb) == [[SECRET, SECRET]]


# ------------------------------------------------------------------ functions and procedures
def test_through_a_fn_with_parameters_replaced() -> None:
    rb, warns = check("fn purse(q: player) -> int = q.money * 2\n"
                      "fn twice(q: player) -> int = purse(q) + purse(q)\n"
                      + phase("for p in players { log purse(p), twice(p), purse(first(players)) }"))
    assert log_labels(rb) == [[owned(0), owned(0), SECRET]]
    assert [c for c, *_ in warns] == ["W270"]


def test_a_recursive_fn() -> None:
    rb, _ = check("fn deep(n: int, q: player) -> int = if n <= 0 then q.money else deep(n - 1, q)\n"
                  + phase("for p in players { log deep(3, p) }"))
    assert log_labels(rb) == [[owned(0)]]


def test_a_procedure_parameter_joins_its_call_sites() -> None:
    rb, _ = check("proc tell(who: player, n: int) { log who, n }\n"
                  + phase("for p in players { tell(p, p.money)  tell(p, 2) }"))
    assert log_labels(rb) == [[PUBLIC, owned(0)]]
    rb, _ = check("proc tell(who: player, n: int) { log who, n }\n"
                  + phase("for p in players { tell(next_player(p), p.money) }"))
    assert log_labels(rb) == [[PUBLIC, SECRET]]      # the owner is not passed along


def test_a_procedure_result_comes_back_translated() -> None:
    rb, warns = check("proc worth(q: player) -> int { return q.money + 1 }\n"
                      + phase("for p in players { let w = worth(p)  log w  p.shown = w }"))
    assert log_labels(rb) == [[owned(0)]]
    assert [(c, line) for c, line, _, _ in warns] == [("W272", 4)]


def test_a_library_procedure_is_analysed_with_the_game(tmp_path: Path) -> None:
    (tmp_path / "lib.rules").write_text("proc announce(p: player, n: int) { log p, \"has\", n }\n")
    game = HEAD + 'use "lib.rules"\n' + phase("for p in players { announce(p, p.money) }") + TAIL
    (tmp_path / "g.rules").write_text(game)
    res = load(str(tmp_path / "g.rules"))
    assert res.rulebook is not None
    lg = [n for n in A.walk(res.rulebook.items) if isinstance(n, A.Log)]
    assert [res.rulebook.flow.label(p) for p in lg[0].parts] == [PUBLIC, PUBLIC, owned(0)]


def test_a_trigger_parameter_comes_from_every_emit() -> None:
    rb, _ = check("event paid(p: player, n: int)\non paid(p, n) { log p, n }\n"
                  + phase("for q in players { emit paid(q, q.money) }"))
    assert log_labels(rb) == [[PUBLIC, owned(0)]]


def test_an_action_parameter_is_labelled_by_its_when() -> None:
    rb, warns = check("anytime sell(p: player, c: Color) when c in p.hand and p.shown >= 0 {\n"
                      "  remove c from p.hand  log p, \"sells\", c  p.shown += 1\n}\n"
                      + phase("for p in players { p.money += 1 }"))
    assert rb.flow.action_params == {"sell": (owned(0),)}
    assert log_labels(rb) == [[PUBLIC, PUBLIC, owned(0)]]
    assert warns == []


# ------------------------------------------------------------------ decisions
def test_a_choice_has_the_label_of_its_options() -> None:
    rb, warns = check(phase("for p in players {\n"
                            "  let b = choose p one of 0..p.money prompt \"bid\", p.money\n"
                            "  log p, \"bids\", b\n}"))
    (c,) = nodes(rb, A.Choose)
    assert isinstance(c.kind, A.ChoiceOne)
    assert rb.flow.label(c) == owned(0)
    assert rb.flow.label(c.kind.options) == owned(0)
    assert rb.flow.label(c.prompt_args[0]) == owned(0)
    assert log_labels(rb) == [[PUBLIC, PUBLIC, owned(0)]]
    assert warns == []            # his own money in his own options: fine


def test_openly_makes_the_choice_public() -> None:
    rb, warns = check(phase("for p in players {\n"
                            "  let b = choose p one of 0..p.money openly prompt \"bid\"\n"
                            "  total = b  log p, \"bids\", b\n}"))
    (c,) = nodes(rb, A.Choose)
    assert isinstance(c.kind, A.ChoiceOne)
    assert rb.flow.label(c) == PUBLIC
    assert rb.flow.label(c.kind.options) == owned(0)
    assert log_labels(rb) == [[PUBLIC, PUBLIC, PUBLIC]]
    assert warns == []


def test_a_hidden_choice_stored_in_a_public_field_is_w272() -> None:
    _, warns = check(phase("for p in players { let b = choose p one of 0..p.money  total = b }"))
    assert [(c, line, col) for c, line, col, _ in warns] == [("W272", 3, 64)]


def test_a_subsets_size_bounds_count() -> None:
    rb, _ = check(phase("for p in players {\n"
                        "  let s = choose p subset of Color size 0..min(2, p.money)\n  log s\n}"))
    (c,) = nodes(rb, A.Choose)
    assert isinstance(c.kind, A.ChoiceSubset)
    assert rb.flow.label(c.kind.options) == PUBLIC
    assert rb.flow.label(c.kind) == rb.flow.label(c) == owned(0)
    assert log_labels(rb) == [[owned(0)]]


def test_a_record_choice_is_labelled_field_by_field() -> None:
    rb, _ = check(phase("for p in players {\n"
                        "  let o = choose p record Offer { money: one of 0..p.money, colour: one of Color }\n"
                        "  log o.colour, o.money, o\n}"))
    (c,) = nodes(rb, A.Choose)
    assert isinstance(c.kind, A.ChoiceRecord)
    assert [rb.flow.label(f.kind.options) for f in c.kind.fields] == [owned(0), PUBLIC]
    assert [rb.flow.label(f.kind) for f in c.kind.fields] == [owned(0), PUBLIC]
    assert rb.flow.label(c) == owned(0)
    assert log_labels(rb) == [[PUBLIC, owned(0), owned(0)]]


def test_simultaneous_choices() -> None:
    rb, _ = check(phase("let bids = simultaneous q in players: choose q one of 0..q.money\n"
                        "let open = simultaneous q in players: choose q one of 0..q.money openly\n"
                        "log bids, open"))
    sims = nodes(rb, A.Simultaneous)
    assert [rb.flow.label(s) for s in sims] == [SECRET, PUBLIC]
    # inside, each chooser's own decision is owned by the chooser variable (slot 0, then 2)
    assert [rb.flow.label(s.choose) for s in sims] == [owned(0), PUBLIC]
    assert [rb.flow.label(s.choose.kind.options) for s in sims] == [owned(0), owned(2)]
    assert log_labels(rb) == [[SECRET, PUBLIC]]


def test_the_choosers_identity_is_known_to_all() -> None:
    # who bids depends on hidden money, but every seat sees who is asked
    rb, warns = check(phase("let rich = [p for p in players if p.money > 3]\n"
                            "for p in rich { let b = choose p one of [1, 2]  log b }"))
    assert log_labels(rb) == [[PUBLIC]]
    assert warns == []


# ------------------------------------------------------------------ W271
def test_w271_options_from_another_players_money() -> None:
    _, warns = check("fn fees(payer: player) -> list<int> = [0, payer.money]\n"
                     + phase("for p in players { let q = next_player(p)\n"
                             "  let f = choose p one of fees(q)  q.money -= min(f, q.money) }"))
    assert [(c, line, col) for c, line, col, _ in warns] == [("W271", 5, 27)]
    assert warns[0][3] == ("these options show the owner-only field 'money' of another player to "
                           "the one who chooses")


def test_w271_a_prompt_and_a_secret_field() -> None:
    _, warns = check(phase("for p in players { let q = next_player(p)\n"
                           "  let f = choose p one of Color prompt \"he has\", q.money\n"
                           "  let g = choose p one of deck  top = g }"))
    assert [(c, line) for c, line, _, _ in warns] == [("W271", 4), ("W271", 5), ("W272", 5)]
    assert warns[0][3].startswith("this prompt shows the owner-only field 'money'")
    assert "secret field 'deck'" in warns[1][3]
    assert warns[2][3] == "public field 'top' is computed from 'deck', which no player may see"


def test_w271_a_chooser_named_by_no_local() -> None:
    _, warns = check(phase("let f = choose first(players) one of [first(players).money, 0]  total = f"))
    assert [c for c, *_ in warns] == ["W271", "W272"]


def test_a_drawn_card_is_secret_placing_it_is_no_leak_but_logging_it_shows_nothing() -> None:
    """Placing a drawn card (top = c) is the rule revealing it: no W272. A plain log part of it
    is cut from every seat's narration (nobody has seen the card): W270 (issue 35 §5)."""
    rb, warns = check(phase("let c = draw from deck  top = c  log c\n"
                            "for p in players { let d = choose p one of [c, blue]  top = d }"))
    assert log_labels(rb) == [[SECRET]]
    assert [(c, line) for c, line, _, _ in warns] == [("W270", 3)]
    assert "an item drawn from the secret field 'deck'" in warns[0][3]


def test_a_drawn_card_passed_to_a_procedure_and_logged_is_w270() -> None:
    """Issue 35 §5: "P2 wins for 55" lost its card in every seat's narration, unwarned."""
    rb, warns = check("proc win(p: player, c: Color) { log p, \"wins for\", c }\n"
                      + phase("for p in players { let c = draw from deck  win(p, c) }"))
    assert [c for c, *_ in warns] == ["W270"]
    assert "drawn from the secret field 'deck'" in warns[0][3]


def test_a_drawn_card_logged_public_or_to_its_drawer_is_not_warned() -> None:
    rb, warns = check("proc win(p: player, c: Color) { log public: p, \"wins for\", c"
                      "  log to p: \"you won\", c }\n"
                      + phase("for p in players { let c = draw from deck  win(p, c) }"))
    assert warns == []


def test_a_draw_from_an_owner_field_is_owned() -> None:
    rb, warns = check(phase("for p in players { let c = draw from p.hand  log c  top = c }"))
    assert log_labels(rb) == [[owned(0)]]
    assert [c for c, *_ in warns] == ["W272"]


# ------------------------------------------------------------------ log public / log to
def test_log_public_and_log_to_show_the_whole_line() -> None:
    rb, warns = check(phase("for p in players {\n"
                            "  log public: p, \"shows\", p.money, first(deck)\n"
                            "  log to p: \"you hold\", p.hand, first(players).money\n}"))
    assert log_labels(rb) == [[PUBLIC] * 4, [PUBLIC] * 3]
    assert warns == []


def test_log_to_needs_a_player() -> None:
    res = load_text(HEAD + phase("log to 3: \"x\"") + TAIL, "t.rules")
    assert [d.code for d in res.diagnostics if d.is_error] == ["E104"]


# ------------------------------------------------------------------ W272
def test_w272_owner_fields() -> None:
    _, warns = check(phase("for p in players {\n"
                           "  p.tip = p.money + len(p.hand)\n"          # his own: fine
                           "  let q = next_player(p)\n"
                           "  p.tip = q.money\n"                         # another's: W272
                           "  board[p] = q.shown\n"                      # public: fine
                           "  board[q] = p.tip\n}"))                      # hidden into public: W272
    assert [(c, line) for c, line, _, _ in warns] == [("W272", 6), ("W272", 8)]
    assert warns[0][3] == "owner-only field 'tip' of one player is computed from another player's 'money'"
    assert warns[1][3] == "public field 'board' is computed from 'tip', which only its owner may see"


def test_w272_keys_count_and_secret_targets_never_warn() -> None:
    _, warns = check("table { notes: map<Color, int> secret }\n"
                     + phase("for p in players { let c = choose p one of [c2 for c2 in p.hand]\n"
                             "  notes[c] = p.money\n"
                             "  board[p] = if c == red then 1 else 0 }"))
    assert [(c, line) for c, line, _, _ in warns] == [("W272", 6)]


def test_w272_can_be_allowed_and_a_stale_allow_is_w221() -> None:
    body = phase("for p in players {\n"
                 "  # allow W272: the printed game shows the purses at the end of a round\n"
                 "  p.shown = p.money\n"
                 "  # allow W272: nothing to allow here\n"
                 "  p.shown += 1\n}")
    _, warns = check(body)
    assert [(c, line) for c, line, _, _ in warns] == [("W221", 6)]


def test_moving_items_is_not_a_leak() -> None:
    _, warns = check("table { pile: bag<Color> }\n"
                     + phase("for p in players { let c = choose p one of [x for x in p.hand]\n"
                             "  move c from p.hand to pile }"))
    assert warns == []


# ------------------------------------------------------------------ owner-only player maps
CAPS = "table { cap: map<player, int> owner }\n"


def test_an_entry_of_an_owner_map_is_owned_by_its_key() -> None:
    rb, warns = check(CAPS + phase("for p in players { let q: player? = next_player(p)\n"
                                   "  log cap[p], cap[some(q)], len(cap), p in cap, cap[first(players)]"
                                   " }"))
    assert log_labels(rb) == [[owned(0), owned(1), PUBLIC, PUBLIC, SECRET]]
    assert [(c, line) for c, line, _, _ in warns] == [("W270", 5)]


def test_the_whole_owner_map_is_secret() -> None:
    rb, _ = check(CAPS + phase("log cap, sum(cap[p] for p in players)"))
    assert log_labels(rb) == [[SECRET, SECRET]]


def test_w272_an_owner_map_entry_from_its_own_player_or_another() -> None:
    _, warns = check(CAPS + phase("for p in players { let q = next_player(p)\n"
                                  "  cap[p] = p.money\n"            # his own: fine
                                  "  cap[p] += p.money + q.shown\n"  # his own and public: fine
                                  "  cap[p] = q.money\n"            # another's: W272
                                  "  cap[first(players)] = p.money\n"  # no one player's: W272
                                  "  cap[q] = 3\n}"))                # public: fine
    assert [(c, line) for c, line, _, _ in warns] == [("W272", 7), ("W272", 8)]
    assert warns[0][3] == ("the entry of one player in owner-only map 'cap' is computed from "
                           "another player's 'money'")


def test_w272_a_whole_owner_map_assignment() -> None:
    _, warns = check(CAPS + phase("cap = {}\n"
                                  "cap = {p: 1 for p in players}\n"
                                  "cap = {p: p.money for p in players}"))
    assert [(c, line) for c, line, _, _ in warns] == [("W272", 6)]
    assert warns[0][3].startswith("owner-only map 'cap' is computed from 'money'")


def test_w271_options_from_an_owner_map_entry() -> None:
    _, warns = check(CAPS + phase("for p in players { let q = next_player(p)\n"
                                  "  let a = choose p one of 0..max(0, cap[p])\n"
                                  "  let b = choose q one of 0..max(0, cap[p])\n"
                                  "  cap[p] = a + b }"))
    assert [(c, line, col) for c, line, col, _ in warns] == [("W271", 6, 27)]
    assert "owner-only field 'cap' of another player" in warns[0][3]


def test_an_owner_map_keyed_by_something_else_is_e121() -> None:
    res = load_text(HEAD + "table { notes: map<Color, int> owner }\n" + phase("") + TAIL, "t.rules")
    errs = [d for d in res.diagnostics if d.is_error]
    assert [d.code for d in errs] == ["E121"]
    assert errs[0].hint is not None and "map<player, T> owner" in errs[0].hint


# ------------------------------------------------------------------ syntax and fmt
@pytest.mark.parametrize("src", [
    'setup {\n  log public: 1, "two"\n}\n',
    'setup {\n  log to first(players): "you", 1\n}\n',
    'setup {\n  log to if a then p else q: x\n}\n',
    'setup {\n  let x = choose p one of xs with pass openly prompt "bid", 1\n}\n',
    'setup {\n  let x = choose p one of xs openly\n}\n',
    'setup {\n  let x = choose p record R { a: one of xs, b: subset of ys size 0..1 } openly\n}\n',
    'setup {\n  let x = simultaneous q in players: choose q one of [1, 2] openly prompt "dial"\n}\n',
])
def test_new_syntax_round_trips(src: str) -> None:
    rb, diags = parse(src)
    assert rb is not None, diags
    text = format_rulebook(rb)
    assert text == src
    again, _ = parse(text)
    assert again == rb and format_rulebook(again) == text


def test_the_ast_fields() -> None:
    rb, _ = parse('setup { log public: 1  log to p: 2  log 3  let x = choose p one of xs openly '
                  'let y = choose p one of xs }')
    assert rb is not None
    s = rb.items[0].body.stmts          # type: ignore[union-attr]
    assert [x.audience for x in s[:3]] == ["public", A.Name("p"), None]
    assert s[3].rhs.openly and not s[4].rhs.openly
    assert A.Log((A.IntLit(1),)) == A.Log((A.IntLit(1),), audience=None)
    assert A.Log((A.IntLit(1),)) != A.Log((A.IntLit(1),), audience="public")


def test_openly_is_a_reserved_word() -> None:
    rb, diags = parse("const openly = 3")
    assert rb is None and diags[0].code == "E001"


# ------------------------------------------------------------------ the shipped rulebooks
RULEBOOKS = sorted(p for p in (ROOT / "rulebooks").glob("**/*.rules") if "lib" not in p.parts)


@pytest.mark.parametrize("path", [pytest.param(p, id=p.stem) for p in RULEBOOKS])
def test_every_shown_node_of_a_rulebook_has_a_label(path: Path) -> None:
    res = load(str(path))
    assert res.rulebook is not None
    rb = res.rulebook
    labels = rb.flow.labels
    shown: list[Any] = []
    for n in A.walk(rb.items):
        if isinstance(n, A.Log):
            shown.extend(n.parts)
        elif isinstance(n, A.Choose):
            shown.append(n)
            shown.extend(n.prompt_args)
            kinds = [f.kind for f in n.kind.fields] if isinstance(n.kind, A.ChoiceRecord) else [n.kind]
            shown.extend(k.options for k in kinds)
            shown.extend(kinds)
        elif isinstance(n, A.Simultaneous):
            shown.append(n)
    assert shown and all(id(x) in labels for x in shown)
    assert set(rb.flow.action_params) == {a.name for a in rb.actions}
    for a in rb.actions:
        assert len(rb.flow.action_params[a.name]) == len(a.params) - 1


# ------------------------------------------------------------------ deals (issue 35 §1)
DEAL = """game "D" players 2..3
enum Good {{ salt, silk }}
player {{ coins: int = 6 owner  goods: bag<Good>  hand: bag<Good> owner }}
bundle Pledge {{ coins: amount of coins openly  goods: items of goods }}
table {{ bids: list<offer<Pledge>> }}
round r limit 1 {{
  phase trade {{
    for p in players {{ add salt to p.hand  add silk to p.goods }}
    deal on bids {{ among = players  terms = [give, promise]  quiet = 1
                   proceeds(o) = {proceeds} }}
  }}
}}
score p: p.coins + len(p.hand)
"""


def _deal_warnings(proceeds: str) -> list[tuple[str, str]]:
    res = load_text(DEAL.format(proceeds=proceeds), "d.rules")
    assert res.ok, [d.message for d in res.diagnostics if d.is_error]
    return [(d.code, d.message) for d in res.diagnostics if d.code.startswith("W27")]


def test_a_promise_computed_from_the_makers_hidden_hand_is_w272() -> None:
    """A posted offer is on the public table: a promise part not `openly`, computed by
    proceeds(o) from the maker's owner-only field, shows every seat some of his hand."""
    warns = _deal_warnings("{coins: 0, goods: o.maker.hand}")
    assert [c for c, _ in warns] == ["W272"]
    assert "the promise of an offer on the public table 'bids' (its 'goods')" in warns[0][1]
    assert "'hand'" in warns[0][1]


def test_an_openly_part_or_a_public_promise_is_not_warned() -> None:
    # the coins part is `openly`: a posted offer shows it by declaration
    assert _deal_warnings("{coins: o.maker.coins, goods: o.maker.goods}") == []
    assert _deal_warnings("{coins: 0, goods: {}}") == []


def test_a_promise_given_whole_names_every_part_not_openly() -> None:
    warns = _deal_warnings("if silk in o.maker.hand then {coins: 0, goods: o.maker.goods} "
                           "else {coins: 0, goods: {}}")
    assert [c for c, _ in warns] == ["W272"] and "(its 'goods')" in warns[0][1]
