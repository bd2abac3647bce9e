"""The terminal's input rule (interpreter/agents/human.py): '#N' always picks option N, a bare
number is a value (refused where the choice is not of numbers), a label or a unique prefix picks
that option, and the commands (help, options, view, log, rules, quit; ':word' always a command).
Issue 18: "typing 1 at a bid prompt bids 1"."""
from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mercator.dsl.loader import load
from mercator.interpreter.agents.base import play_out
from mercator.interpreter.agents.human import (HumanAgent, PlainScreen, QuitGame, command_of, help_lines,
                                      match_choice)
from mercator.interpreter.cli.main import main
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.nodes import Decision, Option
from mercator.interpreter.engine.program import Program

ROOT = Path(__file__).resolve().parent.parent
TINY = str(ROOT / "tests" / "fixtures" / "tiny.rules")


@pytest.fixture(scope="module")
def tiny() -> Program:
    res = load(TINY)
    assert res.ok, res.diagnostics
    return compile_program(res.rulebook)


def _opts(*labels: str) -> list[Option]:
    return [Option(lb, lb) for lb in labels]


# ------------------------------------------------------------------ the rule
def test_a_bare_number_at_a_bid_prompt_is_the_bid_and_hash_n_is_the_option():
    opts = _opts("pass", "1", "2", "3")
    assert match_choice("1", opts) == (1, "")        # bids 1 (the option labelled 1)
    assert match_choice("#1", opts) == (0, "")       # option #1 is pass
    assert match_choice("#4", opts) == (3, "")
    idx, why = match_choice("7", opts)
    assert idx is None and "not one of the values offered" in why and "#N" in why


def test_a_bare_number_where_the_choice_is_not_of_numbers_is_refused_with_a_hint():
    opts = _opts("red", "blue", "cash_in(blue)")
    for typed in ("1", "2", "3", "0", "-1"):
        idx, why = match_choice(typed, opts)
        assert idx is None, typed
        assert "not of numbers" in why and "#N" in why and "#1–#3" in why
    assert match_choice("#2", opts) == (1, "")
    assert match_choice("#0", opts)[0] is None and match_choice("#4", opts)[0] is None


def test_labels_and_unique_prefixes():
    opts = _opts("nutmeg_boat", "silk_boat", "shipyard_a", "shipyard_b")
    assert match_choice("SILK_BOAT", opts) == (1, "")
    assert match_choice("nut", opts) == (0, "")
    idx, why = match_choice("ship", opts)
    assert idx is None and "shipyard_a, shipyard_b" in why
    assert match_choice("zebra", opts)[0] is None


@given(st.lists(st.integers(-50, 200), min_size=1, max_size=30, unique=True),
       st.booleans(), st.data())
def test_the_rule_on_any_menu_of_numbers(values: list[int], with_pass: bool, data: Any):
    """Over any menu of distinct numbers (with or without a 'pass' first): #k is the k-th
    option, the number v picks the option labelled v, and a number not offered is refused."""
    opts = ([Option("pass", None)] if with_pass else []) + [Option(str(v), v) for v in values]
    k = data.draw(st.integers(1, len(opts)))
    assert match_choice(f"#{k}", opts) == (k - 1, "")
    v = data.draw(st.sampled_from(values))
    assert match_choice(str(v), opts) == (opts.index(Option(str(v), v)), "")
    missing = data.draw(st.integers(-100, 300).filter(lambda x: x not in values))
    assert match_choice(str(missing), opts)[0] is None


@given(st.lists(st.text("abcdefghij_", min_size=1, max_size=8), min_size=1, max_size=12,
                unique=True), st.integers(-5, 40))
def test_no_bare_number_picks_an_option_of_words(labels: list[str], n: int):
    opts = _opts(*labels)
    idx, why = match_choice(str(n), opts)
    assert idx is None and f"#1–#{len(labels)}" in why


# ------------------------------------------------------------------ commands
def test_commands_and_labels_that_look_like_commands():
    plain = _opts("red", "blue")
    assert command_of("quit", plain) == "quit" and command_of(" EXIT ", plain) == "quit"
    assert command_of("?", plain) == "help" and command_of("rules", plain) == "rules"
    assert command_of("red", plain) is None
    named = _opts("log", "quit")                      # a game whose options are called so
    assert command_of("log", named) is None and match_choice("log", named) == (0, "")
    assert command_of(":log", named) == "log" and command_of(": quit", named) == "quit"


class Recorder(PlainScreen):
    """A PlainScreen that keeps what it drew, and the `recent` lines of each turn."""

    def __init__(self) -> None:
        super().__init__(self.keep)
        self.text: list[str] = []
        self.turns: list[tuple[int, list[str]]] = []

    def keep(self, line: str) -> None:
        self.text.append(line)

    def turn(self, program: Any, state: Any, node: Decision, recent: list[str],
             earlier: int) -> None:
        self.turns.append((node.player, list(recent)))
        super().turn(program, state, node, recent, earlier)


def _agent(answers: list[str], **kw: Any) -> tuple[HumanAgent, Recorder]:
    it = iter(answers)
    screen = Recorder()

    def answer(_prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None
    return HumanAgent(input_fn=answer, screen=screen, **kw), screen


def test_help_explains_the_commands_and_does_not_relist_the_options(tiny: Program):
    s = tiny.new_game(2, 1)
    agent, screen = _agent(["help", "#1"])
    assert agent.choose(tiny, s) == 0
    text = "\n".join(screen.text)
    block = text[text.index("Choosing:"):text.index("P1, bid:", text.index("Choosing:"))
                 if "P1, bid:" in text[text.index("Choosing:"):] else len(text)]
    for word in ("#N", "quit", "rules", "log", "options", "view", ":WORD"):
        assert word in block, word
    assert "cash_in" not in block and "1 to 10" not in block      # not the menu again
    assert "this prompt is a choice of numbers" in block          # tiny's first prompt is a bid
    assert "choice of numbers" not in "\n".join(help_lines(_opts("red", "blue")))[-200:]


def test_options_view_rules_and_log_commands(tiny: Program):
    s = tiny.new_game(2, 1, narrate=True)
    agent, screen = _agent(["options", "view", "rules", "log", "3"],
                           rules=["Tiny in brief: bid, roll, score"])
    assert agent.choose(tiny, s) == tiny.new_game(2, 1).pending.options.index(
        Option("3", 3))
    text = "\n".join(screen.text)
    assert text.count("P1, bid:") == 2                 # the turn, then 'options'
    assert text.count("you are P1") == 2               # the turn, then 'view'
    assert "Tiny in brief: bid, roll, score" in text
    assert "what P1 has seen" in text


def test_rules_without_a_summary_says_so(tiny: Program):
    agent, screen = _agent(["rules", "pass"])
    assert agent.choose(tiny, tiny.new_game(2, 1)) == 0
    assert "no summary of this rulebook is available" in "\n".join(screen.text)


def test_quit_and_end_of_input(tiny: Program):
    agent, _ = _agent(["quit"])
    with pytest.raises(QuitGame) as info:
        agent.choose(tiny, tiny.new_game(2, 1))
    assert info.value.requested
    agent, _ = _agent([])
    with pytest.raises(QuitGame) as info:
        agent.choose(tiny, tiny.new_game(2, 1))
    assert not info.value.requested


# ------------------------------------------------------------------ what happened since
CARDS = """
game "Cards" players 2..3
player { hand: list<int> = [4, 7] owner  shown: int = 0 }
table { pot: int = 0 }
round r limit 1 {
  phase play {
    for p in players {
      let c = choose p one of p.hand prompt "pick a card face down"
      remove c from p.hand
      log to p: "you kept", c
      log public: p, "has", len(p.hand), "cards left"
      let b = choose p one of 1..3 openly prompt "bid"
      pot += b
    }
  }
}
score p: p.shown
"""


def test_each_seat_sees_only_its_own_log_since_its_last_decision(tmp_path: Path):
    """Hot-seat, two humans on one agent: before each decision a seat is shown what happened
    since its own last one, as that seat may see it (P1's 'you kept 7' never reaches P2)."""
    rules = tmp_path / "cards.rules"
    rules.write_text(CARDS)
    res = load(str(rules))
    assert res.ok, res.diagnostics
    prog = compile_program(res.rulebook)
    s = prog.new_game(2, 0, narrate=True)
    agent, screen = _agent(["7", "2", "4", "3"])
    play_out(prog, s, [agent, agent])
    (p1a, r1a), (p1b, r1b), (p2a, r2a), (p2b, r2b) = screen.turns
    assert (p1a, p1b, p2a, p2b) == (0, 0, 1, 1)
    assert r1a == ["— r 1 —"]                   # the round's heading only
    # the rules tell P1 his own pick ("you kept 7"): the choice's line is not repeated
    assert r1b == ["you kept 7", "P1 has 1 cards left"]
    assert r2a == ["— r 1 —", "P1 has chosen (pick a card face down)", "P1 has 1 cards left",
                   "P1 chooses 2 (bid)"]
    assert not any("kept 7" in line or "chooses 7" in line for line in r2a + r2b)
    assert r2b == ["you kept 4", "P2 has 1 cards left"]


LOUD = """
game "Loud" players 2..2
player { x: int = 0 }
setup { for i in 1..20 { log "setup line", i } }
round r limit 1 {
  phase a { for p in players { let b = choose p one of 1..2 prompt "pick"  p.x = b } }
}
score p: p.x
"""


def test_only_the_last_lines_are_shown_with_a_count_of_the_earlier(tmp_path: Path):
    from mercator.interpreter.agents.human import RECENT_LINES
    rules = tmp_path / "loud.rules"
    rules.write_text(LOUD)
    res = load(str(rules))
    assert res.ok, res.diagnostics
    prog = compile_program(res.rulebook)
    s = prog.new_game(2, 0, narrate=True)
    agent, screen = _agent(["log", "1"])
    agent.choose(prog, s)
    recent = screen.turns[0][1]
    # the 20 lines of the setup, then the round's heading: 21 lines
    assert len(recent) == RECENT_LINES and recent[-2:] == ["setup line 20", "— r 1 —"]
    text = "\n".join(screen.text)
    assert f"({21 - RECENT_LINES} earlier: type 'log')" in text
    assert "setup line 1\n" in text                     # 'log' shows them all


# ------------------------------------------------------------------ through mercator play
def test_play_bids_the_number_typed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """At tiny's first prompt (a bid, 1..10 with pass) '3' bids 3 and '#3' would bid 2."""
    for typed, label in (("3", "3"), ("#3", "2"), ("#1", "pass")):
        monkeypatch.setattr("sys.stdin", io.StringIO(f"{typed}\nquit\n"))
        target = tmp_path / f"g{label}.json"
        assert main(["play", TINY, "--players", "2", "--seed", "1", "--save", str(target)]) == 0
        from mercator.interpreter.tools.saves import load_save
        assert load_save(str(target)).labels[0] == label
