"""benchmarks/anchor_answers.py: a searcher with one kind of its decisions answered by the game's
anchor, a game a line (docs/agents.md, "Asking the searcher's decisions kind by kind")."""
from __future__ import annotations

import json
from pathlib import Path



def anchor_answers():
    from bench_module import script
    return script("anchor_answers")


def test_the_anchor_answers_the_named_decisions_and_the_searcher_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "g.jsonl"
    m = anchor_answers()
    assert m.main(["rulebooks/manila.rules", "--agent", "ismcts:10:cores=1", "--anchor-answers",
                   "place an accomplice", "--seeds", "1-2", "--out", str(out)]) == 0
    assert m.main(["rulebooks/manila.rules", "--agent", "ismcts:10:cores=1", "--anchor-answers",
                   "none", "--seeds", "1-2", "--out", str(out)]) == 0
    handed, alone = [json.loads(x) for x in out.read_text().splitlines()]
    assert handed["seat"] == alone["seat"] == 1
    assert handed["answered"][1] > 0 and alone["answered"][1] == 0
    for g in (handed, alone):
        others = [x for i, x in enumerate(g["scores"]) if i != g["seat"]]
        assert g["margin"] == g["scores"][g["seat"]] - max(others)
        assert not g["won"] or g["scores"][g["seat"]] >= max(others)   # (ties: the tie-break)


def test_a_text_with_a_caret_matches_the_start_of_a_prompt_only() -> None:
    asked = anchor_answers().asked
    assert asked("sealed bid (or pass)", ["bid (or pass)"])
    assert not asked("sealed bid (or pass)", ["^bid (or pass)"])
    assert asked("bid (or pass)", ["^bid (or pass)"])
    assert asked("bid (or pass)", ["x", "^bid"]) and not asked("bid (or pass)", [])


def test_rollouts_by_the_anchor_ask_an_anchor_for_each_seat_in_the_rollouts(tmp_path: Path,
                                                                            monkeypatch) -> None:
    """--rollouts anchor: the searcher's rollouts ask the anchor of the seat to move (every seat,
    each its own anchor) in the worlds the search draws; the game's line says so. A searcher
    on several cores cannot take a policy, and is refused."""
    m = anchor_answers()
    seats_asked: set[int] = set()

    class Counting(m.AnchorPolicy):
        def __call__(self, program, state) -> int:
            seats_asked.add(state.pending.player)
            i = super().__call__(program, state)
            assert 0 <= i < state.pending.count
            return i
    monkeypatch.setattr(m, "AnchorPolicy", Counting)
    out = tmp_path / "g.jsonl"
    # (trust=0: Manila's own bots trust its preferences fully and would not search)
    assert m.main(["rulebooks/manila.rules", "--agent", "ismcts:10:cores=1:trust=0", "--rollouts",
                   "anchor", "--seeds", "1-2", "--out", str(out)]) == 0
    g = json.loads(out.read_text())
    assert g["rollouts"] == "anchor" and g["seat"] == 1
    assert seats_asked == {0, 1, 2}
    try:
        m.main(["rulebooks/manila.rules", "--agent", "ismcts:10:cores=2", "--rollouts", "anchor",
                "--seeds", "1-2", "--out", str(out)])
    except SystemExit as e:
        assert e.code == 2
    else:
        raise AssertionError("a searcher on two cores was given a rollout policy")
