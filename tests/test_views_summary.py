"""What a seat is told before each decision and at the end (docs/language.md, "Views"): what
changed in its own view since its last decision, and the final score broken into the parts the
view's `scoring` declares. Both come from the seat's own views only.
"""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from game_driver import program_text
from shipped import shipped_program
from test_views import VIEWED, _hide_differently

from mercator.interpreter.agents.human import HumanAgent, PlainScreen
from mercator.interpreter.engine.declared_view import declared_view
from mercator.interpreter.engine.view_summary import score_breakdown, score_lines, view_changes
from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.program import Program

ROOT = Path(__file__).resolve().parent.parent

MARKET = '''game "Market" players 2..3
enum Good { salt, silk }
player {
  coins: int = 9
  hand: bag<Good> owner
}
table {
  price: map<Good, int> = {salt: 1, silk: 2}
  sold: int
}
fn worth(p: player) -> int = 3 * p.hand[silk] + p.hand[salt]
round r limit 2 {
  phase main {
    for p in players {
      let g = choose p one of Good with pass prompt "buy"
      if g != none {
        p.coins -= price[some(g)]
        add some(g) to p.hand
        sold += 1
      }
    }
  }
}
score p: p.coins + worth(p) + 1
view {
  section "Market" { row "sold" = sold }
  panel p { row "coins" = p.coins  row "hand" = p.hand }
  scoring p {
    row "coins" = p.coins
    row "goods are worth" = worth(p)
  }
}
'''


@pytest.fixture(scope="module")
def market() -> Program:
    return program_text(MARKET)


def test_the_changes_since_the_last_decision_are_the_seats_own_view(market: Program) -> None:
    s = market.new_game(2, 1)
    before = declared_view(market, s, 0)
    market.apply(s, "silk")        # P1 pays 2
    market.apply(s, "salt")        # P2 pays 1
    now = declared_view(market, s, 0)
    assert view_changes(before, now, 0) == [
        "you: coins: 9 → 7", "you: hand: none → silk", "you: goods are worth: 0 → 3",
        "you: score if the game ended now: 9 → 10",
        "P2: coins: 9 → 8", "P2: hand: (hidden, 0 items) → (hidden, 1 item)", "sold: 0 → 2"]
    # the others' goods and score are hidden before and after: nothing is said of them


def test_the_panel_shows_the_scoring_parts_and_their_sum_to_whom_may_see_them(
        market: Program) -> None:
    s = market.new_game(2, 1)
    market.apply(s, "silk")
    v = declared_view(market, s, 0)
    assert v is not None
    assert v["panel"]["labels"] == ["coins", "hand", "goods are worth",
                                    "score if the game ended now"]
    mine, theirs = (v["panel"]["seats"][p]["rows"] for p in (0, 1))
    assert [r["text"] for r in mine] == ["7", "silk", "3", "10"]
    assert [r["hidden"] for r in theirs] == [False, True, True, True]


def test_the_final_score_is_broken_into_its_parts_and_the_rest(market: Program) -> None:
    """score p: coins + worth(p) + 1: the parts leave out 1, shown as 'the rest'. P1 buys
    silk (2) and salt (1): 6 coins, goods worth 3 + 1, score 11; P2 buys nothing: 10."""
    s = market.new_game(2, 1)
    for choice in ("silk", "pass", "salt", "pass"):
        market.apply(s, choice)
    assert s.over
    rows = score_breakdown(market, s, 0)
    by_seat = {r["seat"]: r for r in rows}
    assert by_seat["P1"]["score"] == "11"
    assert [(p["label"], p["text"]) for p in by_seat["P1"]["parts"]] == [
        ("coins", "6"), ("goods are worth", "4")]
    assert by_seat["P1"]["rest"] == "1"
    assert by_seat["P2"]["parts"][1]["hidden"] and by_seat["P2"]["rest"] is None
    assert [r["seat"] for r in rows] == ["P1", "P2"]           # ranking order: 11 before 10
    assert score_lines(market, s, 0)[0] == "P1     11: coins 6 · goods are worth 4 · the rest 1"


@pytest.mark.parametrize("name", ["manila", "felinia"])
def test_the_declared_parts_add_up_to_the_score(name: str) -> None:
    """Manila's score (seed 003 §遊戲結束與勝利者) and Felinia's (seed 004 §遊戲結束 1–5) are
    sums: their parts, as each player sees his own, leave nothing over."""
    prog = shipped_program(name)
    for seed in (1, 2):
        s = prog.new_game(prog.min_players, seed)
        prog.playout(s, random.Random(seed))
        for seat in range(prog.min_players):
            mine = next(r for r in score_breakdown(prog, s, seat) if r["you"])
            assert mine["parts"] and not any(p["hidden"] for p in mine["parts"])
            assert mine["rest"] is None, (name, seed, seat, mine)


@pytest.mark.parametrize("path", VIEWED, ids=lambda p: p.name)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), first=st.integers(0, 80), more=st.integers(1, 80))
def test_the_changes_tell_a_seat_nothing_it_may_not_see(path: Path, seed: int, first: int,
                                                        more: int) -> None:
    """Changing what a seat may not see, before and now, never changes what it is told
    changed; nor does it change its score breakdown at the end."""
    prog = shipped_program(path.stem)
    s = prog.new_game(prog.min_players, seed)
    rng = random.Random(seed)
    for _ in range(first):
        if s.over:
            break
        prog.apply(s, rng.randrange(s.pending.count))
    then = s.clone()
    for _ in range(more):
        if s.over:
            break
        prog.apply(s, rng.randrange(s.pending.count))
    for seat in range(prog.min_players):
        told = view_changes(declared_view(prog, then, seat), declared_view(prog, s, seat), seat)
        other = view_changes(declared_view(prog, _hide_differently(prog, then, seat), seat),
                             declared_view(prog, _hide_differently(prog, s, seat), seat), seat)
        assert told == other
        if s.over:
            hidden = _hide_differently(prog, s, seat)
            hidden.result = s.result
            strip = [{k: v for k, v in r.items() if k not in ("score", "rest")}
                     for r in score_breakdown(prog, s, seat)]
            assert strip == [{k: v for k, v in r.items() if k not in ("score", "rest")}
                             for r in score_breakdown(prog, hidden, seat)]


def test_the_plain_screen_tells_what_changed_before_the_next_decision(market: Program) -> None:
    out: list[str] = []
    answers = iter(["silk", "salt", "pass", "pass"])
    human = HumanAgent(input_fn=lambda _: next(answers), screen=PlainScreen(out.append))
    s = market.new_game(2, 1, narrate=True)
    while not s.over:
        assert isinstance(s.pending, Decision)
        market.apply(s, human.choose(market, s))
    text = "\n".join(out)
    # P1, P2, then each again: told what changed only before the second decisions
    assert text.count("what changed:") == 2
    p1 = text.split("what changed:")[1].split("──")[0]
    assert "  you: coins: 9 → 7\n" in p1 and "  P2: coins: 9 → 8\n" in p1


def test_play_prints_the_score_in_its_parts_at_the_end() -> None:
    r = subprocess.run([sys.executable, "-m", "mercator.interpreter.cli", "play",
                        str(ROOT / "rulebooks" / "felinia.rules"), "--players", "2",
                        "--seats", "random", "--seed", "4"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    tail = r.stdout.split("game over")[1]
    assert "the score in its parts:" in tail
    assert "points: gold" in tail


def test_many_changes_are_told_a_line_a_player_and_a_section_never_cut(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 39, finding 7: a voyage's end was cut to '… and 17 more changes'. Over
    MAX_CHANGES, the changes are joined a line per player and per section: every change is
    there, in at most one line a seat and a section."""
    from mercator.interpreter.engine import view_summary
    from shipped import shipped_program
    import random
    prog = shipped_program("manila")
    s = prog.new_game(3, 2)
    rng = random.Random(2)
    last = None
    found = 0
    while not s.over and found < 3:
        if s.pending.player == 0:
            now = declared_view(prog, s, 0)
            if last is not None:
                told = view_changes(last, now, 0)
                monkeypatch.setattr(view_summary, "MAX_CHANGES", 10 ** 6)
                flat = view_changes(last, now, 0)
                monkeypatch.setattr(view_summary, "MAX_CHANGES", 14)
                if len(flat) > 14:
                    found += 1
                    assert len(told) <= 3 + len(now["sections"])
                    assert not any("more changes" in t for t in told)
                    for change in flat:
                        who, _, what = change.partition(": ")
                        assert any(what in t or change in t for t in told), change
                else:
                    assert told == flat
            last = now
        prog.apply(s, rng.randrange(s.pending.count))
    assert found
