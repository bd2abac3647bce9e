"""Views declared in the rulebook (docs/language.md, "Views"; docs/design/views.md): what each seat
sees of a declared view, the security rule (a seat never sees in it what its generic view hides),
the fallback to the generic view, and `replace view` in a variant.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest
from hypothesis import given, settings, strategies as st

from game_driver import program, program_text, random_steps
from shipped import shipped_program

from mercator.dsl.fmt import format_rulebook
from mercator.dsl.loader import load
from mercator.dsl.parser import parse
from mercator.interpreter.engine.declared_view import declared_view
from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.program import Program
from mercator.interpreter.engine.state import State
from mercator.interpreter.engine.view import revealed_now, shown_as, view_fields, visible

ROOT = Path(__file__).resolve().parent.parent

SMALL = '''game "Views" players 2..3
enum Good { salt, silk }
player {
  coins: int = 3
  hand: bag<Good> owner
  busy: bool
}
table {
  deck: bag<Good> secret
  price: map<Good, int> = {salt: 1, silk: 2}
  pool: bag<Good>
  note: int
}
fn worth(g: Good) -> int = price[g] * 5
setup {
  for p in players { add salt to p.hand  add silk to p.hand }
  add salt to deck
}
round r limit 1 { phase main { for p in players { p.coins += 1  p.busy = true } } }
score p: p.coins
view {
  bookkeeping busy
  section "Market" {
    track "prices" in pesos = {g: worth(g) for g in Good}
    row "deck" = deck
  }
  panel p {
    row "coins" in pesos = p.coins
    row "hand" = p.hand
    row "hand size" = count(p.hand)
    row "salt in hand" = p.hand[salt]
  }
}
'''


def rows(view: dict[str, Any], seat: int) -> dict[str, str]:
    """label -> text of one seat's column of the panel."""
    return {r["label"]: r["text"] for r in view["panel"]["seats"][seat]["rows"]}


@pytest.fixture(scope="module")
def small() -> Program:
    return program_text(SMALL)


def test_each_seat_sees_its_own_hand_and_the_others_hands_hidden(small: Program) -> None:
    """`hand` is owner-only: P1 sees {salt, silk}, P2's hand as hidden with its size; a row
    computed from p.hand (p.hand[salt]) is shown to p only; its size (count) to everyone."""
    s = small.new_game(2, 1)
    v = declared_view(small, s, 0)
    assert v is not None
    assert rows(v, 0) == {"coins": "4 pesos", "hand": "salt, silk", "hand size": "2",
                          "salt in hand": "1"}
    assert rows(v, 1) == {"coins": "4 pesos", "hand": "(hidden, 2 items)", "hand size": "2",
                          "salt in hand": "(hidden)"}
    assert [r["you"] for r in v["panel"]["seats"]] == [True, False]
    spectator = declared_view(small, s, None)
    assert spectator is not None
    assert rows(spectator, 0)["salt in hand"] == "(hidden)"
    assert rows(spectator, 0)["hand"] == "(hidden, 2 items)"


def test_a_track_shows_each_entry_in_its_unit_and_a_secret_field_hidden(small: Program) -> None:
    """price {salt: 1, silk: 2} times 5 (fn worth): the track's cells are 5 and 10 pesos; the
    secret deck (one salt) is hidden with its size."""
    s = small.new_game(3, 4)
    v = declared_view(small, s, 2)
    assert v is not None
    market = v["sections"][0]
    assert market["title"] == "Market"
    prices, deck = market["rows"]
    assert prices["cells"] == [["salt", "5 pesos"], ["silk", "10 pesos"]]
    assert prices["text"] == "salt: 5 pesos · silk: 10 pesos"
    assert deck == {"label": "deck", "kind": "row", "unit": None, "hidden": True,
                    "text": "(hidden, 1 item)"}


def test_bookkeeping_and_fields_the_rows_show_are_not_repeated(small: Program) -> None:
    """`busy` is bookkeeping; coins, hand, deck, price (read by worth) are shown by rows; what no
    row reads and no bookkeeping names (pool, note) is still shown after the view."""
    v = declared_view(small, small.new_game(2, 0), 0)
    assert v is not None
    assert [name for name, _ in v["other"]["table"]] == ["pool", "note"]
    assert v["other"]["names"] == []


def test_a_rulebook_without_a_view_has_no_declared_view() -> None:
    prog = shipped_program("parade")
    assert prog.view is None
    assert declared_view(prog, prog.new_game(3, 0), 0) is None


def test_fmt_round_trips_the_view() -> None:
    rb, diags = parse(SMALL)
    assert rb is not None, diags
    text = format_rulebook(rb)
    again, _ = parse(text)
    assert again == rb
    assert 'track "prices" in pesos = {g: worth(g) for g in Good}' in text
    assert "  bookkeeping busy\n" in text


def test_a_variant_inherits_the_view_or_replaces_it(tmp_path: Path) -> None:
    base = tmp_path / "base.rules"
    base.write_text(SMALL, encoding="utf-8")
    (tmp_path / "same.rules").write_text('variant "same" of "base.rules"\n', encoding="utf-8")
    (tmp_path / "other.rules").write_text(
        'variant "other" of "base.rules"\n'
        'replace view {\n  panel p {\n    row "purse" in coins = p.coins\n  }\n}\n',
        encoding="utf-8")
    same = load(str(tmp_path / "same.rules"))
    assert same.rulebook is not None and same.rulebook.view is not None
    assert [r.label for r in same.rulebook.view.panel] == ["coins", "hand", "hand size",
                                                            "salt in hand"]
    other = load(str(tmp_path / "other.rules"))
    assert other.rulebook is not None and other.rulebook.view is not None, other.diagnostics
    assert [r.label for r in other.rulebook.view.panel] == ["purse"]
    prog = program(tmp_path / "other.rules")
    v = declared_view(prog, prog.new_game(2, 0), 1)
    assert v is not None and rows(v, 1) == {"purse": "4 coins"}
    assert v["sections"] == []


# ---------------------------------------------------------------- the security property
def _changed(v: Any, t: Any) -> Any:
    """Another value of type t of the same size (what the seat may still see of it)."""
    if t.kind == "opt":
        return v if v is None else _changed(v, t.args[0])
    k = t.kind
    if k == "int":
        return v + 7
    if k == "bool":
        return not v
    if k in ("bag", "list") and t.args[0].kind == "enum" and len(t.args[0].members) > 1:
        m = len(t.args[0].members)
        if k == "list":
            return [(x + 1) % m for x in v]
        out: dict[int, int] = {}
        for x, n in v.items():
            out[(x + 1) % m] = out.get((x + 1) % m, 0) + n
        return out
    if k == "list":
        return list(reversed(v))
    return v


def _hide_differently(prog: Program, s: State, viewer: Optional[int]) -> State:
    """A copy of s with every value `viewer` may not see replaced by another of its size (what
    the view reveals at the end counts as seen once the game is over)."""
    t = s.clone()
    rb = prog.rb
    rv = revealed_now(prog, s)
    for i, f in enumerate(rb.table_fields):
        if shown_as(f, rv) == "secret":
            t.table[i] = _changed(t.table[i], f.type)
        elif shown_as(f, rv) == "owner" and t.table[i]:
            t.table[i] = {k: (x if k == viewer else _changed(x, f.type.args[1]))
                          for k, x in t.table[i].items()}
    for p, row in enumerate(t.players):
        for i, f in enumerate(rb.player_fields):
            if not visible(shown_as(f, rv), p, viewer):
                row[i] = _changed(row[i], f.type)
    return t


VIEWED = [ROOT / "rulebooks" / "manila.rules", ROOT / "rulebooks" / "die_haendler.rules",
          ROOT / "rulebooks" / "genoa.rules", ROOT / "rulebooks" / "felinia.rules"]


def _viewed() -> list[Path]:
    return [p for p in VIEWED if shipped_program(p.stem).view is not None]


@pytest.mark.parametrize("path", _viewed(), ids=lambda p: p.name)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 150), extra=st.integers(0, 2))
def test_no_seat_sees_in_its_declared_view_what_its_generic_view_hides(
        path: Path, seed: int, steps: int, extra: int) -> None:
    """Changing everything a seat may not see (other players' owner-only fields, secret
    fields) never changes that seat's declared view; and each row that shows a whole field is
    hidden exactly when the generic view (engine/view.py) hides that field, with its text."""
    prog = shipped_program(path.stem)
    players = min(prog.min_players + extra, prog.max_players)
    s = random_steps(prog, players, seed, steps)
    for viewer in [*range(players), None]:
        mine = declared_view(prog, s, viewer)
        assert mine is not None
        assert declared_view(prog, _hide_differently(prog, s, viewer), viewer) == mine
        table, names, seats = view_fields(prog, s, viewer)
        generic = dict(table)
        spec = prog.view
        assert spec is not None
        for (_, rows_), sec in zip(spec.sections, mine["sections"]):
            for r, shown in zip(rows_, sec["rows"]):
                if r.field is not None and r.kind == "row":
                    name = prog.rb.table_fields[r.field[1]].name
                    assert shown["hidden"] == generic[name].startswith("(hidden")
                    if shown["hidden"]:
                        assert shown["text"] == generic[name]
        for p, col in enumerate(mine["panel"]["seats"] if mine["panel"] else []):
            for r, shown in zip(spec.panel, col["rows"]):
                if r.field is not None and r.kind == "row":
                    text = seats[p][names.index(prog.rb.player_fields[r.field[1]].name)]
                    assert shown["hidden"] == text.startswith("(hidden")
                    if shown["hidden"]:
                        assert shown["text"] == text
                    elif not r.unit:
                        assert shown["text"] == text


def test_the_bookkeeping_fields_never_appear_in_a_declared_view() -> None:
    for path in _viewed():
        prog = shipped_program(path.stem)
        assert prog.rb.view is not None
        s = prog.new_game(prog.min_players, 3)
        v = declared_view(prog, s, 0)
        assert v is not None
        shown = {n for n, _ in v["other"]["table"]} | set(v["other"]["names"])
        assert not shown & prog.rb.view.bookkeeping, path.name


# ---------------------------------------------------------------- the two interfaces
def _played(prog: Program, players: int, seed: int, steps: int) -> State:
    return random_steps(prog, players, seed, steps, narrate=True)


def _authored(prog: Program) -> set[str]:
    """The section titles and row labels a view's author wrote."""
    v = prog.rb.view
    assert v is not None
    rows_ = [r for _, rs in v.sections for r in rs] + v.panel + v.scoring
    return {t for t, _ in v.sections} | {r.label for r in rows_}


def _words(name: str) -> list[str]:
    return [name, name.replace("_", " ")]


@pytest.mark.parametrize("path", _viewed(), ids=lambda p: p.name)
def test_the_terminal_shows_the_declared_view_and_no_bookkeeping(path: Path) -> None:
    """The rich screen into a pipe (plain text): every section title and row label is there,
    no bookkeeping field's name is, and neither is an escape code."""
    import io

    from mercator.interpreter.cli.terminal import console_for, view_renderable
    prog = shipped_program(path.stem)
    assert prog.rb.view is not None
    s = _played(prog, prog.min_players, 2, 30)
    out = io.StringIO()
    console_for(out).print(view_renderable(prog, s, 0))
    text = " ".join(out.getvalue().split())
    assert "\x1b" not in text
    for title, rows_ in prog.rb.view.sections:
        assert title in text
        for r in rows_:
            assert r.label.split()[0] in text
    # the rulebook's own words (titles, labels) may use a bookkeeping field's name ("the bank
    # sells at"); nothing else may
    for words in sorted(_authored(prog), key=len, reverse=True):
        text = text.replace(words, " ")
    for name in prog.rb.view.bookkeeping:
        assert not any(w in text for w in _words(name)), name


def test_the_manila_terminal_view_shows_prices_in_pesos() -> None:
    """rules-data "Black-market price track" [0, 5, 10, 20, 30]: at the start every good is at
    step 0, worth 0 pesos, and a share costs the minimum of 5 pesos (seed 003 §購買一份股份)."""
    from mercator.interpreter.engine.declared_view import describe_view
    prog = shipped_program("manila")
    text = describe_view(prog, prog.new_game(3, 0), 1)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    assert "share value nutmeg: 0 pesos · silk: 0 pesos · ginseng: 0 pesos · jade: 0 pesos" in lines
    assert "a share costs nutmeg: 5 pesos · silk: 5 pesos · ginseng: 5 pesos · jade: 5 pesos" \
        in lines
    assert "raising_cash" not in text and "bid_limit" not in text
    assert "▶ P2 (you): cash 30 pesos" in text


@pytest.mark.parametrize("path", _viewed(), ids=lambda p: p.name)
def test_the_browser_page_shows_the_declared_view_and_no_bookkeeping(path: Path) -> None:
    pytest.importorskip("starlette")
    pytest.importorskip("httpx")
    import html
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from mercator.interpreter.tools.session import GameSession
    from mercator.interpreter.web.app import SeatLinks, make_app
    prog = shipped_program(path.stem)
    assert prog.rb.view is not None
    seats = ["human"] + ["random"] * (prog.min_players - 1)
    session = GameSession(prog, len(seats), 3, seats, str(path), load(str(path)).sources)
    links = SeatLinks([0])
    client = TestClient(make_app(session, links))
    page = html.unescape(client.get(links.path(0)).text)
    for title, rows_ in prog.rb.view.sections:
        assert f"<h2>{title}</h2>" in page
        for r in rows_:         # a row's label heads it; a drawing's (a strip) stands above it
            assert f"<th>{r.label}</th>" in page or \
                f'<div class="drawing-label">{r.label}' in page, r.label
    for r in prog.rb.view.panel:
        assert page.count(f"<th>{r.label}</th>") >= len(seats)
    for name in prog.rb.view.bookkeeping:
        assert not any(f"<th>{w}</th>" in page for w in _words(name)), name


# ---------------------------------------------------------------- the checker's security rule
def _view_diags(view: str) -> list[str]:
    from mercator.dsl.loader import load_text
    res = load_text(SMALL.split("view {")[0] + view, "t.rules")
    return [f"{d.code} {d.span.line}:{d.span.col} {d.message}" for d in res.diagnostics
            if d.is_error]


def test_a_panel_row_from_another_players_hidden_field_is_refused() -> None:
    got = _view_diags('view {\n  panel p {\n    row "all salt" = sum(q.hand[salt] for q in players)\n'
                      '  }\n}\n')
    assert got == ["E160 23:5 row \"all salt\" of the panel p is computed from the owner-only "
                   "'hand' of players other than the panel's"]


def test_sizes_of_hidden_fields_and_the_panel_players_own_fields_are_allowed() -> None:
    assert _view_diags('view {\n  section "Sizes" {\n    row "deck" = len(deck)\n'
                       '    row "hands" = sum(count(q.hand) for q in players)\n  }\n'
                       '  panel p {\n    row "salt" = p.hand[salt] + p.coins\n  }\n}\n') == []
    prog = program_text(SMALL.split("view {")[0] + 'view {\n  panel p {\n'
                        '    row "salt" = p.hand[salt] + p.coins\n  }\n}\n')
    assert prog.view is not None and [r.shown for r in prog.view.panel] == ["owner"]


# ---------------------------------------------------------------- reveal at end
REVEAL = SMALL.replace("view {\n  bookkeeping busy", "tiebreak p: p.hand[salt]\nview {\n"
                       "  bookkeeping busy\n  reveal at end: hand").replace(
    "p.coins += 1", "let k = choose p one of [1, 2]  p.coins += k")


def test_what_the_view_reveals_at_the_end_is_hidden_until_then_and_shown_to_all_after() -> None:
    """`reveal at end: hand`: before the end P2's hand is hidden from P1 and the spectator (the
    field, the panel row computed from it, the observation, the tie-break); once the game is
    over every seat and the spectator see it, the computed row too."""
    from mercator.interpreter.engine.view import observe
    from mercator.interpreter.engine.view_summary import score_breakdown
    prog = program_text(REVEAL)
    s = prog.new_game(2, 0)
    assert not s.over

    def row(v: dict, seat: int, label: str) -> dict:
        i = v["panel"]["labels"].index(label)
        return v["panel"]["seats"][seat]["rows"][i]
    for viewer in (0, None):
        v = declared_view(prog, s, viewer)
        assert v is not None
        assert row(v, 1, "hand")["hidden"] and row(v, 1, "salt in hand")["hidden"]
        assert observe(prog, s, viewer)["players"][1]["hand"] == {"hidden": True, "size": 2}
    while not s.over:
        prog.apply(s, 0)
    for viewer in (0, 1, None):
        v = declared_view(prog, s, viewer)
        assert v is not None
        assert row(v, 1, "hand") == {**row(v, 1, "hand"), "hidden": False,
                                     "text": "salt, silk"}
        assert row(v, 1, "salt in hand")["text"] == "1" and not row(v, 0, "hand")["hidden"]
        assert observe(prog, s, viewer)["players"][1]["hand"] == {"salt": 1, "silk": 1}
        tb = [r["tiebreaks"][0] for r in score_breakdown(prog, s, viewer)]
        assert [t["text"] for t in tb] == ["1", "1"] and not any(t["hidden"] for t in tb)
    # without the reveal, the other seat's tie-break stays hidden at the end
    plain = program_text(REVEAL.replace("  reveal at end: hand\n", ""))
    t = plain.new_game(2, 0)
    while not t.over:
        plain.apply(t, 0)
    rows = {r["seat"]: r["tiebreaks"][0] for r in score_breakdown(plain, t, 0)}
    assert rows["P1"]["text"] == "1" and rows["P2"] == {**rows["P2"], "hidden": True,
                                                         "text": "(hidden)"}


def test_manila_s_final_count_shows_every_seat_s_shares() -> None:
    """Manila reveals the shares and the mortgages at the end (seed 003 §遊戲目標, a reading):
    in a random game's last position every seat, and the spectator, see P2's shares and the
    score's parts computed from them; a position before the end hides them from P1."""
    from mercator.interpreter.engine.view_summary import score_lines
    prog = shipped_program("manila")
    s = random_steps(prog, 3, 5, 10_000)
    assert s.over
    before = random_steps(prog, 3, 5, 30)
    assert not before.over
    v = declared_view(prog, before, 0)
    assert v is not None
    i = v["panel"]["labels"].index("shares")
    assert v["panel"]["seats"][1]["rows"][i]["hidden"]
    for viewer in (0, 2, None):
        v = declared_view(prog, s, viewer)
        assert v is not None
        assert not any(r["hidden"] for seat in v["panel"]["seats"] for r in seat["rows"])
        lines = score_lines(prog, s, viewer)
        assert len(lines) == 3 and "(hidden)" not in " ".join(lines)
        assert all("tie-break: p.pesos" in line for line in lines)


def test_the_final_lines_say_who_may_not_win_and_why() -> None:
    """A seat the rulebook's `eligible` bars is marked on the final screen with the condition
    it fails, as written; the others are not."""
    from mercator.interpreter.cli.main import print_result
    from mercator.interpreter.engine.view_summary import score_breakdown, score_lines
    prog = program_text(REVEAL + "eligible p: p.coins < 5\n")
    s = prog.new_game(2, 0)
    prog.apply(s, 1)           # P1 takes 2 coins: 5, barred
    prog.apply(s, 0)           # P2 takes 1: 4
    assert s.over
    rows = {r["seat"]: r for r in score_breakdown(prog, s, None)}
    assert rows["P1"]["why_not"] == "p.coins < 5" and not rows["P1"]["may_win"]
    assert rows["P2"]["why_not"] is None and rows["P2"]["may_win"]
    lines = score_lines(prog, s, 1)
    assert any(ln.startswith("P1") and "may not win (p.coins < 5 does not hold)" in ln
               for ln in lines)
    assert not any(ln.startswith("P2") and "may not win" in ln for ln in lines)
    print_result(prog, s.pending, s, 1)


def test_a_truth_value_reads_yes_or_no_and_an_empty_collection_none() -> None:
    """Issue 39, finding 6: 'has passed false', 'axle broken false', 'plundered []'. A view's
    rows and a track's cells say yes / no and none; the JSON value stays the value."""
    prog = program_text(SMALL.replace('    row "coins" in pesos = p.coins',
                                      '    row "coins" in pesos = p.coins\n'
                                      '    row "rich" = p.coins > 3\n'
                                      '    track "has each" = {g: p.hand[g] > 0 for g in Good}')
                        .replace('    row "deck" = deck', '    row "deck" = deck\n'
                                 '    row "pool" = pool'))
    s = prog.new_game(2, 0)
    v = declared_view(prog, s, 0)
    assert v is not None
    pool = next(r for r in v["sections"][0]["rows"] if r["label"] == "pool")
    assert pool["text"] == "none" and pool["value"] == {}
    labels = v["panel"]["labels"]
    mine = v["panel"]["seats"][0]["rows"]
    rich = mine[labels.index("rich")]
    assert rich["text"] in ("yes", "no") and rich["value"] in (True, False)
    assert rich["text"] == ("yes" if rich["value"] else "no")
    each = mine[labels.index("has each")]
    assert each["cells"] == [["salt", "yes"], ["silk", "yes"]]
    # an empty track says none as a row does
    prog2 = program_text(SMALL.replace('    row "deck" = deck', '    row "deck" = deck\n'
                                       '    track "in the pool" = {g: pool[g] for g in Good '
                                       'if g in pool}'))
    v2 = declared_view(prog2, prog2.new_game(2, 0), 0)
    assert v2 is not None
    track = next(r for r in v2["sections"][0]["rows"] if r["label"] == "in the pool")
    assert track["text"] == "none" and track["cells"] == []


def test_manila_says_which_pass_a_player_has_made() -> None:
    """Issue 39, finding 6: "has passed: no" right after P2 passed — in the auction, where a
    pass sets nothing. The row is about the placements (seed 003 §放置同夥: a player who passes
    places no more this voyage) and says so; it turns yes when he passes there."""
    from shipped import shipped_program
    prog = shipped_program("manila")
    s = prog.new_game(3, 1)
    row = "places no more accomplices this voyage"
    for _ in range(2000):
        d = s.pending
        if isinstance(d, Decision) and d.prompt.startswith("place an accomplice"):
            break
        prog.apply(s, 0)
    assert isinstance(s.pending, Decision)
    who = s.pending.player
    v = declared_view(prog, s, who)
    assert v is not None and row in v["panel"]["labels"] and "has passed" not in v["panel"]["labels"]
    k = v["panel"]["labels"].index(row)
    assert v["panel"]["seats"][who]["rows"][k]["text"] == "no"
    prog.apply(s, 0)                                  # pass: no more accomplices this voyage
    v = declared_view(prog, s, who)
    assert v is not None and v["panel"]["seats"][who]["rows"][k]["text"] == "yes"
