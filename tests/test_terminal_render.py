"""The terminal drawn with rich (interpreter/cli/terminal.py): colour only on a terminal and never
with NO_COLOR, plain text into a pipe, rulebook text never read as markup, the seat's view as
tables that hide what the rules hide, and progress bars on stderr only (stdout and --json the
same with and without them)."""
from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from mercator.dsl.loader import load
from mercator.interpreter.cli.main import main
from mercator.interpreter.cli.terminal import (Progress, RichScreen, console_for, options_renderable,
                                      rules_summary, view_renderable)
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.nodes import Decision
from mercator.interpreter.engine.program import Program

ROOT = Path(__file__).resolve().parent.parent
TINY = str(ROOT / "tests" / "fixtures" / "tiny.rules")
ESC = "\x1b["


class FakeTTY(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.fixture(scope="module")
def tiny() -> Program:
    res = load(TINY)
    assert res.ok, res.diagnostics
    return compile_program(res.rulebook)


def _turn(prog: Program, stream: io.StringIO) -> str:
    s = prog.new_game(2, 1, narrate=True)
    RichScreen(console_for(stream)).turn(prog, s, s.pending, ["P2 bids 3"], 0)
    RichScreen(console_for(stream)).say("'x' matches no option")
    return stream.getvalue()


def test_colour_on_a_terminal(tiny: Program, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    text = _turn(tiny, FakeTTY())
    assert ESC in text and "you are P1" in text


def test_no_colour_with_NO_COLOR_even_on_a_terminal(tiny: Program,
                                                    monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("FORCE_COLOR", "1")           # NO_COLOR wins over a forced colour
    text = _turn(tiny, FakeTTY())
    assert ESC not in text and "\x1b" not in text
    assert "you are P1" in text and "P2 bids 3" in text


def test_plain_text_into_a_pipe(tiny: Program, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")           # not a terminal: no colour all the same
    text = _turn(tiny, io.StringIO())
    assert "\x1b" not in text
    assert "since your last decision" in text and "P1, bid:" in text


def test_play_through_a_pipe_has_no_escape_codes():
    """The real command in a child process, stdout a pipe."""
    p = subprocess.run([sys.executable, "-m", "mercator.interpreter.cli.main", "play", TINY, "--players",
                        "2", "--seed", "1"], input="3\nhelp\nquit\n", capture_output=True,
                       text=True, timeout=120, cwd=ROOT, env={"PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout + p.stderr
    assert "you are P1" in p.stdout and "Commands:" in p.stdout


def test_rulebook_text_is_never_read_as_markup(tiny: Program):
    stream = io.StringIO()
    screen = RichScreen(console_for(stream))
    screen.lines("[bold]title[/bold]", ["[red]not red[/red]", "a\x1b[2Jb"])
    text = stream.getvalue()
    assert "[bold]title[/bold]" in text and "[red]not red[/red]" in text
    assert "\x1b" not in text and "a\\x1b[2Jb" in text


def _render(renderable: Any) -> str:
    stream = io.StringIO()
    console_for(stream).print(renderable)
    return stream.getvalue()


def test_the_view_tables_show_the_seat_its_own_and_hide_the_rest(tiny: Program):
    s = tiny.new_game(3, 4)
    text = _render(view_renderable(tiny, s, 1))
    assert "Tiny · round 1 · you are P2" in text
    assert re.search(r"player\s+P1\s+P2 \(you\)\s+P3", text)
    hand = next(line for line in text.splitlines() if "hand" in line)
    assert hand.count("(hidden, 1 item)") == 2       # P1's and P3's hands, not P2's own
    own = s.players[1][[f.name for f in tiny.rb.player_fields].index("hand")]
    assert own == {1: 1} and re.search(r"\bblue\b", hand)   # Color member 1: P2 holds a blue card
    deck = next(line for line in text.splitlines() if "deck" in line)
    assert "(hidden, 2 items)" in deck                # secret even to its viewer
    spectator = _render(view_renderable(tiny, s, None))
    hand = next(line for line in spectator.splitlines() if "hand" in line)
    assert hand.count("(hidden, 1 item)") == 3 and "spectator" in spectator


def test_the_options_show_numbers_runs_and_the_hint(tiny: Program):
    s = tiny.new_game(2, 1)
    text = _render(options_renderable(s.pending))
    assert "#1 pass" in text and "#2–#11 1 to 10" in text and "#12 cash_in(blue)" in text
    assert "a bare number is the value" in text


def test_the_rules_summary(tiny: Program):
    """Without `##` words a declaration is named in words, never shown as source."""
    lines = rules_summary(tiny, TINY)
    assert lines[0] == f"Tiny, for 2 to 4 players (rulebook: {TINY})"
    assert lines[1:5] == ["each turn:", "  1. bid", "  2. dice", "the end: after a turn, by the rules"]
    assert "at any of your decisions you may cash in" in lines
    assert not any("(" in ln or ">" in ln or "p." in ln for ln in lines[1:])


def test_the_rules_summary_tells_the_rulebooks_words_for_players(tmp_path: Path):
    """`##` lines above a declaration are its words for players (dsl/player_docs.py); plain
    comments between them and the declaration are passed over, a blank line ends a block."""
    text = Path(TINY).read_text(encoding="utf-8")
    text = text.replace("round turn", "## Each turn everyone bids, then rolls.\n"
                        "# (a designer's note, not shown)\nround turn", 1)
    assert "score p:" in text
    text = text.replace("score p:", "## (words cut off by a blank line)\n\nscore p:", 1)
    path = tmp_path / "t.rules"
    path.write_text(text, encoding="utf-8")
    res = load(str(path))
    assert res.ok, [str(d) for d in res.diagnostics]
    lines = rules_summary(compile_program(res.rulebook), str(path))
    assert "each turn: Each turn everyone bids, then rolls." in lines
    assert not any("designer" in ln or "cut off" in ln for ln in lines)


RAW_RULES = re.compile(r"\{|\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b|\b[a-z]+[0-9]+\b|==|\bp\.|\(p\)")


def test_the_rules_summary_of_every_game_is_in_words():
    """Issue 39, finding 7: `rules` printed rulebook source; now each shipped game tells its
    rounds, every phase, the end, the any-time actions, the score and the tie-break in words."""
    for path in sorted((ROOT / "rulebooks").glob("*.rules")):
        res = load(str(path))
        prog = compile_program(res.rulebook)
        lines = rules_summary(prog, str(path))
        body = [ln for ln in lines[1:] if not ln.startswith("the full rules")]
        assert not [ln for ln in body if RAW_RULES.search(ln)], (path.name, body)
        phases = [ln for ln in body if re.match(r"  \d+\. ", ln)]
        assert phases and all(" — " in ln for ln in phases), (path.name, phases)   # each has words
        assert any(ln.startswith("the end: ") and "by the rules" not in ln for ln in body)
        assert any(ln.startswith("score: ") for ln in body), path


# ------------------------------------------------------------------ progress
def _run(argv: list[str], tty: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    out, err = io.StringIO(), FakeTTY() if tty else io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    code = main(argv)
    monkeypatch.undo()
    return code, out.getvalue(), re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", err.getvalue())


def _strip_rate(text: str) -> str:
    return re.sub(r"\d+ games/s", "N games/s", text)


def _strip_times(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k not in ("seconds", "games_per_second")}


@pytest.mark.parametrize("argv", [
    ["simulate", TINY, "--players", "3", "--games", "30", "--seed", "2"],
    ["compare", TINY, TINY, "--players", "2", "--games", "10"]])
def test_progress_goes_to_stderr_and_stdout_is_unchanged(argv: list[str],
                                                         monkeypatch: pytest.MonkeyPatch):
    code, plain_out, plain_err = _run(argv, False, monkeypatch)
    assert code == 0 and plain_err == ""
    code, tty_out, tty_err = _run(argv, True, monkeypatch)
    assert code == 0
    assert _strip_rate(tty_out) == _strip_rate(plain_out)
    assert re.search(r"(simulating|comparing) .*━.* (30/30|20/20) games", tty_err)
    assert "━" not in tty_out


def test_json_is_the_same_with_a_progress_bar(monkeypatch: pytest.MonkeyPatch):
    argv = ["simulate", TINY, "--players", "2", "--games", "20", "--seed", "4", "--json"]
    _, plain, _ = _run(argv, False, monkeypatch)
    _, tty, err = _run(argv, True, monkeypatch)
    assert _strip_times(json.loads(tty)) == _strip_times(json.loads(plain))
    assert tty.count("\n") == 1 and "simulating" in err
    argv = ["compare", TINY, TINY, "--players", "2", "--games", "6", "--json"]
    _, plain, _ = _run(argv, False, monkeypatch)
    _, tty, err = _run(argv, True, monkeypatch)
    a, b = json.loads(plain), json.loads(tty)
    a.pop("seconds"), b.pop("seconds")
    assert a == b and "comparing" in err


def test_explore_shows_its_progress_on_stderr(monkeypatch: pytest.MonkeyPatch):
    code, out, err = _run(["check", TINY, "--explore", "5", "--players", "2"], True, monkeypatch)
    assert code == 0
    assert re.search(r"exploring .* 5/5 games", err) and "explored 5 games" in out
    assert "━" not in out


def test_no_bar_when_stderr_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    bar = Progress(10)
    bar.update(5)
    bar.close(10)
    bar.close(10)                                    # a second close is harmless
    assert not bar.live and sys.stderr.getvalue() == ""


def test_the_command_line_loads_rich_and_matplotlib_only_when_it_draws():
    """`mercator --version` and the table-only commands stay fast: rich is imported by the
    commands that draw, matplotlib only for --plot."""
    code = ("import sys; import mercator.interpreter.cli.main as m; "
            "print('rich' in sys.modules, 'matplotlib' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=ROOT)
    assert p.stdout.split() == ["False", "False"], p.stderr


def test_a_crash_while_drawing_saves_the_game_first(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture):
    """A bug in the screen (here: drawing the second decision fails) is Mercator's internal
    error, and the game played so far is saved before it is reported."""
    calls = []

    def turn(self: Any, program: Any, state: Any, node: Any, recent: list, earlier: int) -> None:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("drawing failed")

    monkeypatch.setattr(RichScreen, "turn", turn)
    monkeypatch.setattr("sys.stdin", io.StringIO("3\n"))
    target = tmp_path / "crash.json"
    assert main(["play", TINY, "--players", "2", "--seed", "1", "--save", str(target)]) == 1
    err = capsys.readouterr().err
    assert "internal error" in err and "Traceback" not in err
    assert f"game saved to {target}" in err and f"--resume {target}" in err
    from mercator.interpreter.tools.saves import load_save
    assert load_save(str(target)).labels[0] == "3"       # the bid made before the crash


def _cards(tmp_path: Path) -> Program:
    from tests.test_terminal_input import CARDS
    rules = tmp_path / "cards.rules"
    rules.write_text(CARDS)
    res = load(str(rules))
    assert res.ok, res.diagnostics
    return compile_program(res.rulebook)


def test_hot_seat_on_a_terminal_clears_the_screen_between_humans(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch):
    """Two humans at one terminal: before P2's first decision the screen and its scrollback
    are cleared (P1's view and 'you kept 7' are gone) and P2 is waited for; not between two
    decisions of the same seat."""
    from mercator.interpreter.agents.base import play_out
    from mercator.interpreter.agents.human import HumanAgent
    from mercator.interpreter.cli.terminal import CLEAR_SCROLLBACK
    monkeypatch.delenv("NO_COLOR", raising=False)
    prog = _cards(tmp_path)
    stream = FakeTTY()
    asked: list[str] = []
    answers = iter(["7", "2", "", "4", "3"])     # "" is P2's Enter at the handover

    def answer(prompt: str) -> str:
        asked.append(prompt)
        return next(answers)

    agent = HumanAgent(input_fn=answer, screen=RichScreen(console_for(stream)), handover=True)
    play_out(prog, prog.new_game(2, 0, narrate=True), [agent, agent])
    assert asked == ["P1> ", "P1> ", "P2, press Enter when only you can see the screen ",
                     "P2> ", "P2> "]
    text = stream.getvalue()
    assert text.count(CLEAR_SCROLLBACK) == 1
    after = text[text.index(CLEAR_SCROLLBACK):]
    assert "you kept 7" in text[:text.index(CLEAR_SCROLLBACK)] and "you kept 7" not in after
    assert "Pass the keyboard to P2." in after


def test_hot_seat_into_a_pipe_only_says_whose_turn_it_is(tmp_path: Path):
    from mercator.interpreter.agents.base import play_out
    from mercator.interpreter.agents.human import HumanAgent
    prog = _cards(tmp_path)
    stream = io.StringIO()
    answers = iter(["7", "2", "4", "3"])          # no line is used up by the handover
    agent = HumanAgent(input_fn=lambda _p: next(answers),
                       screen=RichScreen(console_for(stream)), handover=True)
    play_out(prog, prog.new_game(2, 0, narrate=True), [agent, agent])
    text = stream.getvalue()
    assert text.count("── P2's turn ──") == 1 and "\x1b" not in text


def test_a_searching_bot_shows_who_is_thinking_and_chooses_as_itself() -> None:
    """`play` with a person at the table wraps each mcts/ismcts seat in ThinkingBot: on a
    terminal a spinner names the seat while it searches, then goes; the choice is the bot's."""
    from mercator.interpreter.agents.spec import make_agent, parse_seats
    from mercator.interpreter.cli.terminal import ThinkingBot
    prog = compile_program(load(str(ROOT / "rulebooks" / "manila.rules")).rulebook)
    spec = parse_seats("ismcts:20", 3)[0]
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=80)
    shown = ThinkingBot(make_agent(spec, 7), console, "P2 (ismcts:20)")
    plain = make_agent(spec, 7)
    a, b = prog.new_game(3, 4, narrate=True, explicit_chance=True), \
        prog.new_game(3, 4, narrate=True, explicit_chance=True)
    while not isinstance(a.pending, Decision):
        prog.apply(a, 0)
        prog.apply(b, 0)
    assert shown.choose(prog, a) == plain.choose(prog, b)
    assert "P2 (ismcts:20) is thinking" in buf.getvalue()
    assert shown.iterations == plain.iterations        # the rest is the bot's own
