"""A state is a value: a fork never shares anything with the state it came from, and a failed
apply() leaves no half-changed state behind (design.md, "A state is a value").

The reproductions of issue 11 §1: a clone whose pending options were the original's own list
took a different option after the original moved on (Die Händler seed 0, decision 22); a
simultaneous choice among a player's own list, the chosen item then removed, crashed `play`
with an internal error and wrote no save; a second apply after a runtime error skipped the
failing statement.
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game_driver import program_text
from shipped import shipped_program

from mercator.interpreter.cli.main import main
from mercator.interpreter.engine.program import IllegalChoice, MercatorRuntimeError, Program, StateUnusable
from mercator.interpreter.engine.state import State

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = sorted((ROOT / "rulebooks").glob("*.rules")) + \
    sorted((ROOT / "rulebooks" / "variants").glob("*.rules"))
PROPS = settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module", params=RULEBOOKS, ids=lambda p: p.stem)
def prog(request: pytest.FixtureRequest) -> Program:
    return shipped_program(request.param.stem)


def labels(s: State) -> list[str]:
    """The pending options' labels, made afresh from its values (not the cached list)."""
    node = s.pending
    return [node.option(k).label for k in range(node.count)]


@PROPS
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_a_fork_takes_the_same_option_whatever_the_original_does(prog: Program, seed: int,
                                                                  data: st.DataObject) -> None:
    """At every decision of a random game: fork, move the original on with another option,
    apply the path's option to the fork, and compare it with an independent replay that was
    never forked (digest, options and history equal)."""
    n = data.draw(st.integers(prog.min_players, min(prog.max_players, 3)), label="players")
    rng = random.Random(seed)
    s = prog.new_game(n, seed)
    replay = prog.new_game(n, seed)
    for _ in range(250):
        if s.over:
            break
        count = s.pending.count
        i = rng.randrange(count)
        before = labels(s)
        fork = s.clone()
        other = (i + 1) % count
        prog.apply(s, other)                 # the original moves on with another choice
        assert labels(fork) == before        # ... and the fork still offers what it offered
        prog.apply(fork, i)
        prog.apply(replay, i)
        assert fork.digest() == replay.digest()
        assert fork.history == replay.history
        if not fork.over:
            assert labels(fork) == labels(replay)
        s = fork


def test_die_haendler_seed_0_fork_keeps_its_red_card_options() -> None:
    """The issue's case: Die Händler, 3 players, seed 0, random play; at every decision the
    fork's options stay as they were when it was made."""
    prog = shipped_program("die_haendler")
    rng = random.Random(0)
    s = prog.new_game(3, 0)
    changed = 0
    for _ in range(400):
        if s.over:
            break
        fork = s.clone()
        before = labels(fork)
        prog.apply(s, rng.randrange(s.pending.count))
        changed += labels(fork) != before
    assert changed == 0


HAND = """
game "Hands" players 2..3
player { hand: list<int> = [1, 2, 3] owner  played: int = 0 }
round r limit 2 {
  phase play {
    let picks = simultaneous p in players: choose p one of p.hand prompt "play a card"
    for p in players {
      remove picks[p] from p.hand
      p.played += picks[p]
    }
  }
}
score p: p.played
"""


def test_simultaneous_choice_from_own_list_then_removed() -> None:
    """Options that are the chooser's own list, the chosen card removed afterwards: the
    decision's options are a copy, so option(i) still works after apply."""
    prog = program_text(HAND)
    s = prog.new_game(2, 1)
    while not s.over:
        node = s.pending
        last = node.count - 1
        want = node.option(last)
        prog.apply(s, last)
        assert node.count == last + 1 and node.option(last) == want
    assert [prog.get(s, "played", p) for p in range(2)] == [5, 5]


def test_play_with_that_rulebook_ends_and_saves(tmp_path: Path) -> None:
    """`mercator play` on it: no internal error (it was an IndexError on every seed), a save."""
    rules = tmp_path / "hands.rules"
    rules.write_text(HAND)
    save = tmp_path / "game.json"
    for seed in range(3):
        code = main(["play", str(rules), "--players", "2", "--seats", "random,random",
                     "--seed", str(seed), "--save", str(save)])
        assert code == 0
        assert main(["replay", str(save)]) == 0


FAILS = """
game "Fails" players 2..2
table { pot: int = 0  tries: int = 0 }
round r limit 3 {
  phase go {
    let k = choose first(players) one of [0, 1, 2] prompt "divide by"
    tries += 1
    pot = 10 / k
  }
}
score p: pot
"""


def test_a_failed_apply_is_refused_afterwards() -> None:
    """After apply raises a runtime error the state is unusable: a second apply is refused
    with a clear error instead of skipping the failing statement; the decision log does not
    record the failing choice."""
    prog = program_text(FAILS)
    s = prog.new_game(2, 0)
    history = list(s.history)
    with pytest.raises(MercatorRuntimeError) as exc:
        prog.apply(s, 0)                        # 10 / 0
    assert exc.value.history == history + [0]   # the error names the choice that failed
    assert s.history == history
    for choice in (1, 0):
        with pytest.raises(StateUnusable, match="an earlier apply failed"):
            prog.apply(s, choice)
    with pytest.raises(StateUnusable):
        s.clone()
    with pytest.raises(StateUnusable):
        s.to_json()
    # a fork made before the failure is untouched and plays on
    t = prog.new_game(2, 0)
    u = t.clone()
    with pytest.raises(MercatorRuntimeError):
        prog.apply(t, 0)
    prog.apply(u, 1)
    assert prog.get(u, "pot") == 10 and prog.get(u, "tries") == 1


def test_illegal_choice_still_leaves_the_state_usable() -> None:
    prog = program_text(FAILS)
    s = prog.new_game(2, 0)
    d = s.digest()
    with pytest.raises(IllegalChoice):
        prog.apply(s, 7)
    assert s.digest() == d
    prog.apply(s, 2)
    assert prog.get(s, "pot") == 5


def test_an_internal_error_in_play_saves_the_game_first(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture) -> None:
    """Nothing is lost: a crash inside `play` (here a failure planted in its narration) writes
    the save before reporting the internal error, and the save resumes."""
    import mercator.interpreter.cli.main as cli
    rules = tmp_path / "hands.rules"
    rules.write_text(HAND)
    save = tmp_path / "game.json"
    calls = {"n": 0}
    real = cli.readable_log

    def failing(entries: list, viewer: object, words: object = None) -> object:
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("planted")
        return real(entries, viewer, words)
    monkeypatch.setattr(cli, "readable_log", failing)
    code = main(["play", str(rules), "--players", "2", "--seats", "random,random",
                 "--seed", "4", "--save", str(save)])
    err = capsys.readouterr().err
    assert code == 1 and "internal error" in err and "game saved to" in err
    monkeypatch.setattr(cli, "readable_log", real)
    assert main(["play", str(rules), "--seats", "random,random", "--resume", str(save)]) == 0


def test_a_label_naming_two_options_is_refused() -> None:
    """issue 12 (small ones): two options with one label — `apply(state, label)` took the first;
    it is ambiguous, so it is refused (the index still chooses) and the state is unchanged."""
    prog = program_text("""
game "Twins" players 2..2
table { got: int = 0 }
round r limit 1 { phase go { got = choose first(players) one of [1, 1, 2] prompt "take" } }
score p: got
""")
    s = prog.new_game(2, 0)
    d = s.digest()
    with pytest.raises(IllegalChoice, match="names 2 options"):
        prog.apply(s, "1")
    assert s.digest() == d
    prog.apply(s, "2")
    assert prog.get(s, "got") == 2


@pytest.mark.parametrize("name", ["bazaar", "manila"])
def test_every_seats_information_state_reads_the_same_after_a_json_round_trip(name: str) -> None:
    """design.md: (rulebook, players, seed, decisions) reproduces every state exactly, in any
    process — what each seat has seen too. A seat's information state folds in its views, maps
    and bags included; a state written to JSON and read back keeps each map's items in the
    order the game put them in (values.to_json(keep_order=True)), so its seats' information
    states go on as the unsaved game's do. (Found by the differential harness,
    tests/test_differential.py: with the keys sorted on the way back, every seat's information
    state differed from the first decision after a reload.)"""
    import json
    prog = shipped_program(name)
    a = prog.new_game(prog.min_players, 1, narrate=True, explicit_chance=True)
    rng = random.Random(1)
    for _ in range(10):
        prog.apply(a, rng.randrange(a.pending.count))
    b = State.from_json(json.loads(json.dumps(a.to_json())))
    prog.resume(b)
    while not a.over:
        i = rng.randrange(a.pending.count)
        prog.apply(a, i)
        prog.apply(b, i)
        assert b.digest() == a.digest()
        assert [b.information_state(p) for p in range(len(a.players))] == \
            [a.information_state(p) for p in range(len(a.players))]
