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
