"""A rulebook's search settings, `bots { ... }` (docs/language.md §2.19d): the searcher takes
them where its seat's spec names none, a spec's own setting wins, every place that builds a
seat's bot (a match, a session, the results file's record) reads them, the formatter and a
variant keep them, and the language's table agrees with the spec's. The checker's refusals
(E163, W275) are the fixtures tests/fixtures/broken/e163_*.rules and w275_*.rules."""
from __future__ import annotations

from pathlib import Path

import pytest

from game_driver import program_text
from test_prefer import PICK as SIX

from mercator.dsl.checker_bots import BOT_CHOICES, BOT_WORDS
from mercator.dsl.fmt import format_rulebook
from mercator.dsl.loader import load
from mercator.dsl.parser import parse
from mercator.interpreter.agents.spec import (RULEBOOK_SETTINGS, SpecError, for_rulebook,
                                              make_agent, parse_spec, search_settings)
from mercator.interpreter.tools.parallel import play_one
from mercator.interpreter.tools.results import run_key

# tests/test_prefer.py's pick (1 scores nothing, 2..6 score 10 and a die) with a preference
# for 1 (a bad casual player)
PICK = SIX.replace('prefer x: int at "pick" = x', 'prefer x: int at "pick" = 0 - x')
assert PICK != SIX
TRUSTING = PICK + "bots {\n  trust 1\n}\n"


def _answers(prog, spec: str, seeds: int = 6) -> list[int]:
    out = []
    for seed in range(seeds):
        s = prog.new_game(2, seed, narrate=True, explicit_chance=True)
        bot = make_agent(for_rulebook(parse_spec(spec), prog.bot_settings), seed)
        out.append(s.pending.values[bot.choose(prog, s)])
    return out


def test_the_rulebook_settings_are_the_searchers_where_its_spec_names_none() -> None:
    """Without `bots` the search overturns the preference for the worthless 1 in every seed;
    with `bots { trust 1 }` the default searcher answers 1 in every seed (no option can beat
    the preferred one's mean reward by more than 1); a seat whose spec says trust=0.2 is
    itself again."""
    plain = program_text(PICK)
    assert plain.bot_settings == {}
    assert 1 not in _answers(plain, "ismcts:200")
    trusting = program_text(TRUSTING)
    assert trusting.bot_settings == {"trust": 1.0}
    assert _answers(trusting, "ismcts:200") == [1] * 6
    assert 1 not in _answers(trusting, "ismcts:200:trust=0.2")


def test_for_rulebook_fills_only_what_the_spec_leaves_unnamed() -> None:
    bots = {"trust": 1.0, "depth": 0, "sure": 2.0, "prefer": 1.0}
    spec = for_rulebook(parse_spec("ismcts:1s:sure=0"), bots)
    assert (spec.trust, spec.depth, spec.sure, spec.prefer) == (1.0, 0, 0.0, 1.0)
    got = search_settings(spec)
    assert got["trust"] == 1.0 and got["depth"] is None and got["estimate_depth"] is None
    assert "sure" not in got                            # the spec's own 0: off
    assert for_rulebook(parse_spec("random"), bots) == parse_spec("random")
    assert for_rulebook(parse_spec("prefer"), bots) == parse_spec("prefer")
    for level in ("medium", "hard"):
        spec = for_rulebook(parse_spec(f"bot:{level}"), {"trust": 1.0, "anytime": "none"})
        assert (spec.trust, spec.anytime, spec.level) == (1.0, "none", level)
    # the easy bot plays on its own judgment: not the trust, nor what goes with it
    easy = for_rulebook(parse_spec("bot:easy"), {"trust": 1.0, "anytime": "none", "sure": 2.0,
                                                 "deals": "prefer", "depth": 3})
    assert (easy.trust, easy.anytime, easy.sure, easy.deals, easy.depth) == \
        (None, None, None, "prefer", 3)
    assert for_rulebook(parse_spec("bot:easy:trust=1"), {"trust": 0.5}).trust == 1.0


def test_the_easy_bot_searches_where_the_rulebook_trusts_its_preferences() -> None:
    """TRUSTING's preferred 1 scores nothing: `bot:medium` (the rulebook's trust 1) answers it
    at once in every seed; `bot:easy`, searching on its own judgment, finds a scoring option in
    some and spends iterations doing so."""
    trusting = program_text(TRUSTING)
    assert _answers(trusting, "bot:medium:cores=1", seeds=3) == [1] * 3
    easy = _answers(trusting, "bot:easy", seeds=3)
    assert easy != [1] * 3


def test_a_match_and_its_results_record_read_the_rulebook_settings() -> None:
    """tools/parallel.play_one (simulate, compare, bench workers) builds each seat's bot with
    them, and the results file's run key records the settings the seat played with."""
    trusting = program_text(TRUSTING)
    specs = [parse_spec("ismcts:100:cores=1"), parse_spec("random")]
    key = run_key(trusting, 2, specs, None)
    assert key["settings"][0]["trust"] == 1.0 and key["settings"][1] is None
    assert key["seats"][0] == "ismcts:100:cores=1"     # the seat as written
    plain_key = run_key(program_text(PICK), 2, specs, None)
    assert plain_key["settings"][0]["trust"] == 0.1   # the default's
    for seed in range(3):
        # the searching seat picks the preferred 1: a die's points and no more (the search
        # alone would pick 2..6, worth 10 more)
        out = play_one(trusting, 2, seed, specs, None)
        assert out.failure is None and 1 <= out.scores[0] <= 6, out.scores
        assert play_one(program_text(PICK), 2, seed, specs, None).scores[0] >= 11


def test_the_language_table_agrees_with_the_spec() -> None:
    """Each word a rulebook may declare is a spec setting, with the same ends of its range."""
    assert (*BOT_WORDS, *BOT_CHOICES) == RULEBOOK_SETTINGS
    for word, (values, _what, _example) in BOT_CHOICES.items():
        for v in values:
            assert getattr(parse_spec(f"ismcts:10:{word}={v}"), word) == v
        with pytest.raises(SpecError):
            parse_spec(f"ismcts:10:{word}=sometimes")
    for word, (lo, hi, whole, end, _what, _example) in BOT_WORDS.items():
        for v in (lo, hi):
            text = str(int(v)) if whole or v == int(v) else str(v)
            parse_spec(f"ismcts:10:{word}={text}")
        with pytest.raises(SpecError):
            parse_spec(f"ismcts:10:{word}={int(hi) + 1}")
        if end:
            assert parse_spec(f"ismcts:10:{word}=end").depth == 0


def test_the_formatter_and_a_variant_keep_the_settings(tmp_path: Path) -> None:
    rb, diags = parse(TRUSTING.replace("trust 1", "trust 1   depth end"), "t.rules")
    assert rb is not None, diags
    text = format_rulebook(rb)
    assert "bots {\n  trust 1\n  depth end\n}" in text
    assert format_rulebook(parse(text, "t.rules")[0]) == text
    (tmp_path / "pick.rules").write_text(TRUSTING)
    (tmp_path / "v.rules").write_text('variant "Searched" of "pick.rules"\n'
                                      'replace bots {\n  trust 0\n}\n')
    res = load(str(tmp_path / "v.rules"))
    assert res.ok, [d.message for d in res.diagnostics]
    from mercator.interpreter.compiler import compile_program
    assert compile_program(res.rulebook).bot_settings == {"trust": 0.0}


def test_a_variant_cannot_replace_settings_its_base_lacks(tmp_path: Path) -> None:
    (tmp_path / "pick.rules").write_text(PICK)
    (tmp_path / "v.rules").write_text('variant "V" of "pick.rules"\nreplace bots { trust 1 }\n')
    res = load(str(tmp_path / "v.rules"))
    assert not res.ok
    (d,) = [d for d in res.diagnostics if d.code == "E130"]
    assert d.span.line == 2


def test_full_trust_answers_a_covered_decision_without_searching() -> None:
    """With trust 1 the preferred option cannot be overruled where no any-time action is
    offered (`search.preferred_outright`): the answer comes at once, no iteration spent, on one
    core and on two (agents/root_parallel.py), and with a time budget a person does not wait."""
    import time
    trusting = program_text(TRUSTING)
    for spec in ("ismcts:200:cores=1", "ismcts:200:cores=2", "ismcts:5s:cores=1"):
        s = trusting.new_game(2, 1, narrate=True, explicit_chance=True)
        bot = make_agent(for_rulebook(parse_spec(spec), trusting.bot_settings), 1)
        t0 = time.perf_counter()
        try:
            assert s.pending.values[bot.choose(trusting, s)] == 1
        finally:
            getattr(bot, "close", lambda: None)()
        assert bot.last_iterations == 0 and time.perf_counter() - t0 < 1.0


@pytest.mark.parametrize("game, settings", [
    ("genoa", {"trust": 1.0, "deals": "prefer"}),
    ("manila", {"trust": 1.0, "anytime": "none"}),
])
def test_the_bots_of_genoa_and_manila_answer_every_decision_by_the_preferences_at_once(
        game: str, settings: dict) -> None:
    """Genoa declares `bots { trust 1  deals prefer }`, Manila `bots { trust 1  anytime none }`
    (each rulebook's "The bots' search settings"): their preferences cover every decision —
    Genoa's windows of offers by the casual trader; Manila's mortgages, any-time actions, left
    unweighed — so the default searcher, on every seat of a whole 3-player game, answers each
    decision with a most preferred option (a draft's step by the trader's climb) and spends no
    iteration: a person playing it waits for nothing."""
    import time
    from game_driver import program
    from mercator.interpreter.agents.base import play_out
    prog = program(Path(__file__).resolve().parent.parent / "rulebooks" / f"{game}.rules")
    assert prog.bot_settings == settings

    class Watched:
        def __init__(self, seat: int) -> None:
            self.bot = make_agent(for_rulebook(parse_spec("ismcts:1s:cores=1"),
                                               prog.bot_settings), seat)
            self.asked = 0

        def choose(self, program, state) -> int:
            node = state.pending
            prefs = program.preferences(state, node.count - len(node.actions))
            assert prefs is not None, node.prompt
            t0 = time.process_time()
            i = self.bot.choose(program, state)
            assert time.process_time() - t0 < 0.5
            assert self.bot.last_iterations == 0, node.prompt
            assert prefs[i] == max(prefs), (node.prompt, i, prefs)
            self.asked += 1
            return i

    seats = [Watched(i) for i in range(3)]
    s = play_out(prog, prog.new_game(3, 5, narrate=True, explicit_chance=True), seats)
    assert s.over and all(w.asked > 20 for w in seats)


# Each picks a number over three turns; once a game he may `grab` 20 points at any of his
# decisions — worth far more than any pick. The casual player picks the highest number.
GRAB = """
game "Grab" players 2..2
player {
  points: int = 0
  grabbed: bool = false
}
anytime grab(p: player) when not p.grabbed {
  p.grabbed = true
  p.points += 20
}
round turn limit 3 {
  phase play {
    for p in players {
      let x = choose p one of 1..3 prompt "pick a number"
      p.points += x
    }
  }
}
score p: p.points
prefer x: int at "pick" = x
"""


def test_anytime_none_leaves_the_any_time_actions_unsearched() -> None:
    """`anytime=none` (`bots { anytime none }`): the searcher never weighs an any-time action,
    however good — at the root as below it, nor in its prior; with `root` it takes the grab, worth 20 points
    against a pick's 1 to 3, at its first decision. With trust 1 and `anytime none` a decision
    offering an action is answered by the preference at once; with trust 1 and `root` it is
    searched, and the grab (an any-time action, which trust does not hold back) taken."""
    prog = program_text(GRAB)
    for anytime, grabs in (("root", True), ("none", False), ("none:prior=2", False)):
        for seed in range(4):
            s = prog.new_game(2, seed, narrate=True, explicit_chance=True)
            pend = s.pending
            assert [o.label for o in pend.options][:3] == ["1", "2", "3"] and pend.actions
            bot = make_agent(parse_spec(f"ismcts:300:cores=1:anytime={anytime}"), seed)
            i = bot.choose(prog, s)
            assert (i >= pend.count - len(pend.actions)) == grabs, (anytime, seed, i)
            assert bot.last_iterations > 0
    declared = program_text(GRAB + "bots {\n  trust 1\n  anytime none\n}\n")
    assert declared.bot_settings == {"trust": 1.0, "anytime": "none"}
    for spec, searched in (("ismcts:300:cores=1", False), ("ismcts:300:cores=1:anytime=root", True)):
        s = declared.new_game(2, 3, narrate=True, explicit_chance=True)
        bot = make_agent(for_rulebook(parse_spec(spec), declared.bot_settings), 3)
        i = bot.choose(declared, s)
        assert (bot.last_iterations > 0) == searched
        if searched:                        # trust 1 gives way only to an any-time action
            assert i >= s.pending.count - len(s.pending.actions)
        else:
            assert s.pending.values[i] == 3
    # `none`, a reserved word elsewhere, is a value here (`deals none` too)
    assert program_text(PICK + "bots {\n  deals none\n}\n").bot_settings == {"deals": "none"}
