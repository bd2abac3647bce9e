"""The front door in Python (issue 35 §3, docs/python.md): `mercator.load_game(name_or_path)`,
the Game and GameState it gives, and one base for every error Mercator raises on purpose."""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import random
import re
from pathlib import Path

import pytest

import mercator
from mercator.dsl.loader import load
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine import program as program_module
from mercator.interpreter.tools.rulebooks import find_rulebook

ROOT = Path(__file__).resolve().parent.parent
MANILA = ROOT / "rulebooks" / "manila.rules"
PIRATES = ROOT / "rulebooks" / "variants" / "manila_pirates.rules"

# exceptions that are control flow, never an error for a caller, so not MercatorErrors
INTERNAL = {
    "mercator.interpreter.agents.human.UndoRequest",    # a person's request, up to the game loop
    "mercator.interpreter.agents.human.QuitGame",
    "mercator.interpreter.tools.explore._Broken",       # ends a shrink replay, caught there
    "mercator.interpreter.tools.explore._ShrinkTimeUp",  # a KeyboardInterrupt, on purpose
    "mercator.interpreter.compiler.rollout.Stop",       # the compiled rollout's exits
    "mercator.interpreter.compiler.rollout.Over",
}


def test_a_game_loads_by_short_name_by_str_path_and_by_path():
    by_name = mercator.load_game("manila")
    by_str = mercator.load_game(str(MANILA))
    by_path = mercator.load_game(MANILA)
    for game in (by_name, by_str, by_path):
        assert isinstance(game, mercator.Game)
        assert game.name == "Manila"
        assert (game.min_players, game.max_players) == (3, 5)
        assert list(game.player_counts) == [3, 4, 5]
        assert game.spec == mercator.GameSpec("Manila", game.path, 3, 5, None)
    assert Path(by_path.path) == MANILA


def test_a_variant_file_loads_with_its_base_named_in_the_spec():
    game = mercator.load_game(PIRATES)
    assert game.name == "Manila — pirates may evict"
    assert game.spec.variant_of is not None and Path(game.spec.variant_of).name == "manila.rules"
    assert mercator.load_game("manila_pirates").name == game.name


def test_loading_twice_with_the_files_unchanged_gives_the_same_game(tmp_path):
    rules = tmp_path / "tiny.rules"
    rules.write_text((ROOT / "tests" / "fixtures" / "tiny.rules").read_text())
    first = mercator.load_game(rules)
    assert mercator.load_game(rules) is first
    rules.write_text(rules.read_text().replace('game "Tiny" players 2..4',
                                               'game "Tiny" players 2..3'))
    again = mercator.load_game(rules)
    assert again is not first and again.max_players == 3


def _random_game(new_game, options, apply, over, seed: int) -> list[int]:
    """Play a game choosing uniformly at random with random.Random(seed); the choices made."""
    rng = random.Random(seed)
    chosen = []
    while not over():
        i = rng.randrange(len(options()))
        chosen.append(i)
        apply(i)
    return chosen


def test_a_random_game_through_the_door_is_the_game_of_the_three_call_path():
    game = mercator.load_game("manila")
    st = game.new_game(players=4, seed=7)
    assert st.num_players == 4 and st.current_player in range(4) and not st.is_chance
    assert st.result is None
    fork = None
    chosen = []
    rng = random.Random(11)
    while not st.over:
        options = st.legal_options()
        assert options == st.pending.options and all(o.label for o in options)
        i = rng.randrange(len(options))
        chosen.append(i)
        st.apply(options[i].label if len(chosen) % 2 and
                 [o.label for o in options].count(options[i].label) == 1 else i)
        if len(chosen) == 20:
            fork = st.clone()
    assert st.legal_options() == [] and st.current_player == -1
    result = st.result
    assert isinstance(result, mercator.Terminal)
    assert st.history == chosen and len(chosen) > 40

    # the same seed and choices by the old path: three imports from three layers
    prog = compile_program(load(str(find_rulebook("manila"))).rulebook)
    old = prog.new_game(players=4, seed=7)
    for i in chosen:
        prog.apply(old, i)
    assert old.over and old.pending == result
    assert result.winners and set(result.winners) <= {0, 1, 2, 3}
    assert sorted(result.ranking) == [0, 1, 2, 3] and result.ranking[0] in result.winners

    # the fork made after 20 choices is untouched by the rest, and plays on the same way
    assert fork is not None and fork.history == chosen[:20] and not fork.over
    for i in chosen[20:]:
        fork.apply(i)
    assert fork == st and hash(fork) == hash(st) and fork.result == result


def test_the_door_and_the_engine_play_the_same_random_games():
    """Every seat by random.Random(seed): the same choices and result on either path."""
    game = mercator.load_game("manila")
    prog = compile_program(load(str(MANILA)).rulebook)
    for seed in (1, 2):
        st = game.new_game(players=3, seed=seed)
        a = _random_game(None, st.legal_options, st.apply, lambda: st.over, seed)
        old = prog.new_game(3, seed)
        b = _random_game(None, lambda: old.pending.options, lambda i: prog.apply(old, i),
                         lambda: old.over, seed)
        assert a == b and st.result == old.pending


def test_observing_as_a_seat_hides_what_the_seat_may_not_see():
    st = mercator.load_game("manila").new_game(players=3, seed=4, narrate=True)
    while not st.over and len(st.history) < 30:
        st.apply(0)
    mine, theirs = st.observe(0), st.observe(1)
    assert mine["viewer"] == "P1" and theirs["viewer"] == "P2"
    assert mine["players"][0]["you"] and not mine["players"][1]["you"]
    # shares are owner-only: P2 sees its own two shares, P1 only how many P2 holds
    assert mine["players"][1]["shares"] == {"hidden": True, "size": 2}
    assert sum(theirs["players"][1]["shares"].values()) == 2
    assert mine["players"][1]["pesos"] == theirs["players"][1]["pesos"]      # public
    assert "log" in mine and st.information_state(0) != st.information_state(1)
    assert "you are P1" in st.describe(0)


def test_a_saved_state_plays_on_after_load_state():
    game = mercator.load_game("manila")
    st = game.new_game(players=3, seed=5)
    for _ in range(10):
        st.apply(0)
    back = game.load_state(st.to_json())
    assert back == st and back.legal_options() == st.legal_options()


def test_an_illegal_choice_and_a_bad_player_count_are_mercator_errors():
    game = mercator.load_game("manila")
    with pytest.raises(mercator.PlayerCountError, match="Manila is for 3–5 players, not 7"):
        game.new_game(players=7)
    st = game.new_game(players=3, seed=1)
    with pytest.raises(mercator.IllegalChoice, match="out of range") as exc:
        st.apply(10_000)
    assert isinstance(exc.value, mercator.MercatorError)
    with pytest.raises(mercator.UnknownRulebook, match="no rulebook 'manilla'") as unknown:
        mercator.load_game("manilla")
    assert isinstance(unknown.value, (mercator.MercatorError, ValueError))


BROKEN = """game "Broken" players 2..2
player { pesos: int = 3 }
round turn limit 1 {
  phase go {
    for p in players { p.pesoss -= 1 }
  }
}
score p: p.pesos
"""


def test_a_rulebook_that_does_not_check_raises_rulebook_error_with_located_diagnostics(tmp_path):
    rules = tmp_path / "broken.rules"
    rules.write_text(BROKEN)
    with pytest.raises(mercator.RulebookError) as exc:
        mercator.load_game(rules)
    err = exc.value
    assert isinstance(err, mercator.MercatorError)
    [d] = err.errors
    assert (d.code, d.span.path, d.span.line, d.span.col) == ("E103", str(rules), 5, 26)
    assert d.message == "unknown field 'pesoss' of player"
    assert str(err).startswith(f"{rules}:5:26: error[E103]: unknown field 'pesoss' of player\n")
    assert "did you mean 'pesos'?" in str(err)


def test_an_unreadable_rulebook_and_a_library_are_rulebook_errors(tmp_path):
    with pytest.raises(mercator.UnknownRulebook, match="not a file, nor a shipped rulebook"):
        mercator.load_game(tmp_path / "nothing.rules")
    latin = tmp_path / "latin.rules"
    latin.write_bytes('game "Café" players 2..2\n'.encode("latin-1"))
    with pytest.raises(mercator.RulebookError, match=r"latin\.rules:1:1: error\[E000\]: cannot "
                       "read rulebook: the file is not UTF-8 text"):
        mercator.load_game(latin)
    library = tmp_path / "lib.rules"
    library.write_text("const seven = 7\n")
    with pytest.raises(mercator.RulebookError, match="this is a library") as exc:
        mercator.load_game(library)
    assert exc.value.errors == []


ZERO = """game "Zero" players 2..2
player { x: int  z: int }
round turn limit 1 {
  phase go {
    for p in players { p.x = choose p one of 1..2 prompt "pick" }
    first(players).x = 1 / first(players).z
  }
}
score p: p.x
"""


def test_a_rule_failing_at_run_time_raises_a_located_rule_error(tmp_path):
    rules = tmp_path / "zero.rules"
    rules.write_text(ZERO)
    st = mercator.load_game(rules).new_game(players=2, seed=3)
    st.apply("2")
    with pytest.raises(mercator.RuleError) as exc:
        st.apply(0)
    err = exc.value
    assert isinstance(err, mercator.MercatorError)
    assert (err.span.path, err.span.line, err.span.col) == (str(rules), 6, 5)
    assert err.message == "division by zero" and err.history == [1, 0]
    assert str(err).startswith(f"{rules}:6:5: runtime error: division by zero\n")
    with pytest.raises(mercator.StateUnusable):     # half-changed: refused from now on
        st.apply(0)


def _with_ops(raise_it):
    """Manila compiled afresh, every op of its VM replaced by one that calls raise_it."""
    prog = compile_program(load(str(MANILA)).rulebook)

    def op(s, fr):
        raise_it()
    prog.fast = [[op for _ in ops] for ops in prog.fast]
    return prog


def test_a_python_error_inside_the_engine_is_not_a_rule_error():
    """An engine bug (a TypeError or KeyError raised by Mercator's code while a rule's ops run)
    surfaces as itself, so the CLI says "internal error"; a rule's own failure raised the same
    way is a located RuleError."""
    def bug():
        raise TypeError("an engine bug")
    with pytest.raises(TypeError, match="an engine bug") as exc:
        _with_ops(bug).new_game(3, 1)
    assert not isinstance(exc.value, mercator.MercatorError)

    def missing():
        raise KeyError("frame")
    with pytest.raises(KeyError, match="frame"):
        _with_ops(missing).new_game(3, 1)

    from mercator.interpreter.engine.exprs import RuleError

    def rule():
        raise RuleError("a rule failed")
    with pytest.raises(mercator.RuleError, match="a rule failed") as located:
        _with_ops(rule).new_game(3, 1)
    assert located.value.located and located.value.span.path.endswith("manila.rules")


def test_a_python_error_while_applying_spoils_the_state_and_is_raised_as_itself(monkeypatch):
    game = mercator.load_game("manila")
    st = game.new_game(players=3, seed=2)
    calls = []

    def run(s):
        calls.append(1)
        raise KeyError("frame")
    monkeypatch.setattr(game.program, "run", run)
    with pytest.raises(KeyError):
        st.apply(0)
    monkeypatch.undo()
    assert calls and st.history == []
    assert st.state.failed.startswith("an earlier apply failed with an internal error")
    with pytest.raises(mercator.StateUnusable):
        st.apply(0)


def test_rule_failure_tells_the_rulebook_s_errors_from_mercator_s():
    from mercator.interpreter.engine import exprs
    assert exprs.rule_failure(exprs.RuleError("x"))
    try:
        {}[1]
    except KeyError as exc:
        assert not exprs.rule_failure(exc)       # raised here, not by the rulebook's code
    try:
        eval(compile("{}[1]", "<rulebook expression t.rules:1>", "eval"))
    except KeyError as exc:
        assert exprs.rule_failure(exc)           # raised by code generated from a rulebook


def _classes_of(package: str):
    pkg = importlib.import_module(package)
    for info in pkgutil.walk_packages(pkg.__path__, package + "."):
        if info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:         # an optional extra (pyspiel, pettingzoo, ray) not installed
            continue
        for name, cls in vars(module).items():
            if inspect.isclass(cls) and issubclass(cls, BaseException) and \
                    cls.__module__ == module.__name__:
                yield f"{module.__name__}.{name}", cls


def test_every_exception_class_derives_from_mercator_error_but_control_flow():
    seen = dict(_classes_of("mercator.dsl")) | dict(_classes_of("mercator.interpreter"))
    assert len(seen) >= 30
    outside = {name for name, cls in seen.items() if not issubclass(cls, mercator.MercatorError)}
    assert outside <= INTERNAL, outside - INTERNAL
    # those that were ValueErrors or RuntimeErrors still are (callers catching them work)
    from mercator.interpreter.tools.parallel import BackendUnavailable
    from mercator.interpreter.tools.rulebooks import UnknownRulebook
    assert issubclass(UnknownRulebook, ValueError) and issubclass(BackendUnavailable, RuntimeError)
    assert issubclass(mercator.RulebookError, mercator.MercatorError)
    assert issubclass(mercator.RuleError, mercator.MercatorError)
    assert program_module.MercatorRuntimeError is mercator.RuleError


def test_the_readme_python_example_runs():
    """The README's "Using the engine from Python" example, run as it is written."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Using the engine from Python", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "the README's Python section has no example"
    namespace: dict = {"print": lambda *a, **k: None}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)
    state = namespace["state"]
    assert state.over and isinstance(state.result, mercator.Terminal)


def test_a_path_that_is_not_a_regular_file_is_a_located_rulebook_error(tmp_path) -> None:
    """A folder (or a device, a pipe) is a path, not an unknown short name: the loader says what
    it is, located, as `mercator check` does."""
    folder = tmp_path / "dir.rules"
    folder.mkdir()
    for target in (folder, "/dev/null"):
        with pytest.raises(mercator.RulebookError) as info:
            mercator.load_game(target)
        (diag,) = info.value.errors
        assert diag.code == "E000"
        assert ("directory" in diag.message) == (target == folder), diag.message
