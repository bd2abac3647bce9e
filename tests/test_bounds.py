"""`bounds { ... }` (dsl/checker_bounds.py): what the checker makes of it, variants replacing
it, and `check --explore` holding games to it (interpreter/tools/explore.py). The form errors
(E170) are the fixtures tests/fixtures/broken/e170_*.rules."""
from __future__ import annotations

from pathlib import Path

import pytest

from mercator.dsl.loader import load, load_text
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.tools.explore import explore

ROOT = Path(__file__).resolve().parent.parent

GAME = '''game "B" players 2..3
bounds {{
  options {options}
  decisions {decisions}
  score {score}
}}
player {{ n: int = 0 }}
round r limit 2 {{ phase a {{ for p in players {{ let x = choose p one of 0..3  p.n += x }} }} }}
score p: p.n
'''


def _rules(options: str = "0..3", decisions: str = "30", score: str = "0..6") -> str:
    return GAME.format(options=options, decisions=decisions, score=score)


def test_the_checked_bounds() -> None:
    res = load_text(_rules(options="-2..3", decisions="12", score="-1..6"), "b.rules")
    assert res.ok and res.rulebook is not None
    b = res.rulebook.bounds
    assert b is not None
    assert (b.options, b.decisions, b.score, b.lists) == ((-2, 3), 12, (-1, 6), None)
    assert b.spans["decisions"].line == 4


def test_a_rulebook_without_bounds_has_none() -> None:
    res = load(str(ROOT / "tests" / "fixtures" / "tiny.rules"))
    assert res.rulebook is not None and res.rulebook.bounds is None


def test_a_variant_replaces_the_bounds(tmp_path: Path) -> None:
    (tmp_path / "base.rules").write_text(_rules(), encoding="utf-8")
    (tmp_path / "v.rules").write_text(
        'variant "Longer" of "base.rules"\nreplace bounds {\n  decisions 90\n}\n',
        encoding="utf-8")
    res = load(str(tmp_path / "v.rules"))
    assert res.ok and res.rulebook is not None and res.rulebook.bounds is not None
    assert (res.rulebook.bounds.decisions, res.rulebook.bounds.options) == (90, None)


def _explore(text: str):
    res = load_text(text, "b.rules")
    assert res.ok and res.rulebook is not None, [str(d) for d in res.diagnostics]
    return explore(compile_program(res.rulebook), 20, seed=0).finding


def test_games_within_the_bounds_find_nothing() -> None:
    # 2 rounds of one choice each: at most 6 decisions, scores 0..6
    assert _explore(_rules(decisions="6")) is None


def test_an_option_outside_the_integer_range_is_a_finding() -> None:
    f = _explore(_rules(options="0..2"))
    assert f is not None and f.kind == "out of bounds"
    assert f.message.startswith("the integer 3 is outside bounds { options 0..2 }")
    assert f.span is not None and (f.span.line, f.span.col) == (3, 3)
    assert f.decisions == []                     # offered at the first decision already


def test_one_decision_too_many_is_a_finding() -> None:
    f = _explore(_rules(decisions="5"))
    assert f is not None and f.kind == "out of bounds"
    assert f.message == "a game takes more than bounds { decisions 5 }"
    assert f.span is not None and f.span.line == 4
    assert len(f.decisions) == 5


def test_a_score_outside_the_range_is_a_finding() -> None:
    f = _explore(_rules(score="0..5"))
    assert f is not None and f.kind == "out of bounds"
    assert "ends with a score of 6, outside bounds { score 0..5 }" in f.message
    assert f.span is not None and f.span.line == 5
    # shrunk: both of one player's choices are 3 (and nothing else is needed)
    assert sorted(f.decisions)[-2:] == [3, 3]


@pytest.mark.parametrize("name", ["manila", "die_haendler", "felinia", "genoa"])
def test_random_games_of_the_shipped_rulebooks_stay_within_their_bounds(name: str) -> None:
    res = load(str(ROOT / "rulebooks" / f"{name}.rules"))
    assert res.rulebook is not None and res.rulebook.bounds is not None
    assert explore(compile_program(res.rulebook), 15, seed=3).finding is None


def test_moves_and_values_are_bounds_too() -> None:
    text = _rules().replace("  decisions 30\n", "  decisions 30\n  moves 12\n  values -1..9\n")
    res = load_text(text, "b.rules")
    assert res.ok and res.rulebook is not None and res.rulebook.bounds is not None
    b = res.rulebook.bounds
    assert (b.moves, b.values) == (12, (-1, 9))
    from mercator.interpreter.engine.encoding import ActionCodec
    spec = ActionCodec(compile_program(res.rulebook), 2).spec()
    # the longest game in moves is the declared one, not decisions * ids a decision may take
    assert (spec.max_decisions, spec.max_steps_per_decision, spec.max_game_length) == (30, 1, 12)
    bad = load_text(_rules().replace("  decisions 30\n", "  moves 0\n  values 3\n"), "b.rules")
    assert sorted(d.message for d in bad.diagnostics if d.code == "E170") == [
        "'moves 0' bounds nothing", "'values' takes a range lo..hi"]


def test_one_move_too_many_is_a_finding() -> None:
    # two rounds, each player one choice of one id a round: 4 moves with 2 players
    f = _explore(_rules().replace("  decisions 30\n", "  decisions 30\n  moves 3\n"))
    assert f is not None and f.kind == "out of bounds"
    assert f.message.startswith("a game takes more than bounds { moves 3 }")
    assert f.span is not None and f.span.line == 5
    assert len(f.decisions) == 3


@pytest.mark.parametrize("name", ["manila", "die_haendler", "felinia", "genoa"])
def test_random_play_by_ids_stays_within_the_longest_game(name: str) -> None:
    """The adapters' longest game (OpenSpiel's max_game_length: `moves`; the information-state
    tensor's rows: `decisions`) holds for games played as the adapters' random agents play
    them, a uniformly random legal id at a time, at the smallest and largest player count —
    and is within a few times the longest of them (the tensor is not mostly empty rows)."""
    import random
    from mercator.interpreter.engine.encoding import ActionCodec
    from mercator.interpreter.research.common import program_for
    prog = program_for(name)
    b = prog.rb.bounds
    g = prog.rb.game
    longest = [0, 0]
    for n in (g.min_players, g.max_players):
        codec = ActionCodec(prog, n)
        assert codec.spec().max_game_length == b.moves
        for seed in range(4):
            s = prog.new_game(n, seed)
            rng = random.Random(seed)
            decisions = moves = 0
            while not s.over:
                seqs = codec.sequences(s, s.pending)
                taken: tuple = ()
                while True:
                    taken, i = codec.take(seqs, taken, rng.choice(codec.legal_ids(seqs, taken)))
                    moves += 1
                    if i is not None:
                        break
                decisions += 1
                prog.apply(s, i)
            assert decisions <= b.decisions and moves <= b.moves, (n, seed)
            longest = [max(longest[0], decisions), max(longest[1], moves)]
    assert b.decisions <= 6 * longest[0] and b.moves <= 6 * longest[1], longest
