"""benchmarks/decision_values.py: a searcher's and the anchor's options at the anchors' positions,
valued by the anchors' endings with the same dice; the report's means, exact numbers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

MANILA = str(Path(__file__).resolve().parent.parent / "rulebooks" / "manila.rules")


def decision_values():
    from bench_module import script
    return script("decision_values")


def test_kinds_are_prompts_up_to_a_parenthesis_or_colon() -> None:
    dv = decision_values()
    assert dv.kind("bid (or pass)") == "bid"
    assert dv.kind("large pilot: move another boat (pass = none)") == "large pilot"
    assert dv.kind("board a ship") == "board a ship"


def test_the_report_means_each_kinds_differences(tmp_path: Path, capsys) -> None:
    """Three positions: two bids where the agent's option is worth -4 and +1 against the
    anchor's (mean -1.5, half-interval 1.96 * 3.5355 / sqrt 2 = 4.90), one placement where both
    chose alike (0); all three: mean -1.0."""
    f = tmp_path / "v.jsonl"
    rows = [
        {"prompt": "bid (or pass)", "chosen": {"anchor": "3", "A": "pass"},
         "against_anchor": {"A": [-4.0, 1.0]}},
        {"prompt": "bid (or pass)", "chosen": {"anchor": "pass", "A": "2"},
         "against_anchor": {"A": [1.0, 1.0]}},
        {"prompt": "place an accomplice (pass = no more)", "chosen": {"anchor": "x", "A": "x"},
         "against_anchor": {"A": [0.0, 0.0]}},
    ]
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert decision_values().main(["--report", str(f)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("A: ")
    bid = next(x for x in out if x.strip().startswith("bid"))
    assert bid.split()[1:] == ["2", "positions", "2", "otherwise", "-1.50", "±", "4.90"]
    every = next(x for x in out if x.strip().startswith("all"))
    assert every.split()[1:6] == ["3", "positions", "2", "otherwise", "-1.00"]


def test_positions_of_an_anchor_game_valued_with_the_same_dice(tmp_path: Path) -> None:
    """Manila, seed 0, every 12th decision of seat 2 (index 1): the anchor is asked as the
    searcher is; an option chosen by both is valued once and is worth 0 against the anchor's;
    a searcher's different option is valued by as many endings."""
    out = tmp_path / "m.jsonl"
    dv = decision_values()
    assert dv.main([MANILA, "--agent", "ismcts:30:cores=1", "--seeds", "0-1",
                    "--every", "12", "--rollouts", "3", "--out", str(out)]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) >= 3
    for d in lines:
        assert d["decision"] % 12 == 0 and d["rollouts"] == 3
        mine, theirs = d["chosen"]["ismcts:30:cores=1"], d["chosen"]["anchor"]
        assert set(d["values"]) == {mine, theirs}
        diff = d["against_anchor"]["ismcts:30:cores=1"]
        if mine == theirs:
            assert diff == [0.0, 0.0]
    # the same positions again: the same options and values (anchors, dice and agent seeded)
    again = tmp_path / "again.jsonl"
    dv.main([MANILA, "--agent", "ismcts:30:cores=1", "--seeds", "0-1",
             "--every", "12", "--rollouts", "3", "--out", str(again)])
    strip = [{k: v for k, v in d.items() if k != "seconds"} for d in lines]
    assert strip == [{k: v for k, v in json.loads(x).items() if k != "seconds"}
                     for x in again.read_text().splitlines()]


def test_a_missing_argument_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as e:
        decision_values().main([MANILA])
    assert e.value.code == 2


def test_the_report_counts_where_the_estimate_prefers_what_the_endings_prefer(
        tmp_path: Path, capsys) -> None:
    """Four positions: the endings prefer the anchor's option beyond their interval at two (the
    estimate agrees at one, prefers the agent's at the other), the agent's at one (the estimate
    calls the two alike: not agreeing), and at one they differ within their interval (not
    counted)."""
    f = tmp_path / "e.jsonl"

    def row(diff: float, half: float, est_a: int, est_b: int) -> dict:
        return {"prompt": "bid (or pass)", "chosen": {"anchor": "b", "A": "a"},
                "against_anchor": {"A": [diff, half]}, "estimate_depth": 3,
                "estimate_after": {"a": est_a, "b": est_b}}
    rows = [row(-2.0, 1.0, 5, 9), row(-2.0, 1.0, 9, 5), row(+3.0, 1.0, 7, 7), row(+0.5, 1.0, 9, 5)]
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert decision_values().main(["--report", str(f)]) == 0
    out = capsys.readouterr().out
    assert "the estimate 3 decisions on prefers the option the endings prefer at 1 of 3 " \
           "positions" in out


def test_the_estimate_after_each_valued_option(tmp_path: Path) -> None:
    """With --estimate-after, each valued option has the tested seat's estimate lead K steps on;
    with K = 0 it is the lead right after the option, computed here from the rulebook."""
    dv = decision_values()
    out = tmp_path / "k.jsonl"
    assert dv.main([MANILA, "--agent", "ismcts:20:cores=1", "--seeds", "0-1", "--every", "15",
                    "--rollouts", "2", "--estimate-after", "0", "--out", str(out)]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines and all(set(d["estimate_after"]) == set(d["values"]) for d in lines)
    assert all(d["estimate_depth"] == 0 for d in lines)
    # the first position again by hand: the anchors' game to the seat's 15th decision
    prog = dv._program(MANILA)
    anchor = dv.heuristic_for(prog)
    import random
    from mercator.interpreter.agents.base import agent_seed
    from mercator.interpreter.engine.chance import weighted_index
    from mercator.interpreter.engine.nodes import Chance
    seats = [anchor(agent_seed(0, p)) for p in range(3)]
    s = prog.new_game(3, 0, narrate=True, explicit_chance=True)
    rng = random.Random(0)
    asked = 0
    while True:
        p = s.pending
        if p.__class__ is Chance:
            prog.apply(s, weighted_index(p.weights, rng.randrange(sum(p.weights))))
            continue
        i = seats[p.player].choose(prog, s)
        if p.player == 1 and p.count - len(p.actions) > 1:
            asked += 1
            if asked == 15:
                break
        prog.apply(s, i)
    for label, lead in lines[0]["estimate_after"].items():
        j = [p.option(k).label for k in range(p.count)].index(label)
        c = s.clone()
        prog.apply(c, j)
        e = prog.estimates(c)
        assert lead == e[1] - max(e[0], e[2])


def test_a_negative_estimate_depth_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as e:
        decision_values().main([MANILA, "--agent", "ismcts:10", "--out", "x.jsonl",
                                "--estimate-after", "-1"])
    assert e.value.code == 2


def test_rejudging_a_file_with_its_own_rulebook_gives_its_estimates(tmp_path: Path,
                                                                   capsys) -> None:
    """--rejudge replays the anchors' games to the file's positions and asks the estimate alone:
    with the rulebook that wrote the file it says what the file's report says; with another
    prompt filter the positions are not the file's, and it says so (no traceback)."""
    dv = decision_values()
    out = tmp_path / "r.jsonl"
    assert dv.main([MANILA, "--agent", "ismcts:20:cores=1:prefer=0:trust=0", "--seeds", "0-1", "--every", "4",
                    "--prompt", "bid", "--rollouts", "4", "--estimate-after", "2",
                    "--out", str(out)]) == 0
    capsys.readouterr()
    assert dv.main(["--report", str(out)]) == 0
    said = [x.strip() for x in capsys.readouterr().out.splitlines() if "the estimate" in x]
    assert len(said) == 1 and " of 0 positions" not in said[0]
    assert dv.main([MANILA, "--rejudge", str(out), "--prompt", "bid",
                    "--estimate-after", "2"]) == 0
    again = capsys.readouterr().out
    assert said[0].replace("the estimate 2", f"the estimate of {MANILA} 2") in again
    with pytest.raises(SystemExit) as e:
        dv.main([MANILA, "--rejudge", str(out), "--prompt", "place", "--estimate-after", "2"])
    assert "the position is not the file's" in str(e.value.code) \
        or "no position" in str(e.value.code)


def test_pairs_of_options_judged_where_every_option_was_valued(tmp_path: Path, capsys) -> None:
    """Three options valued 5 ± 1, 2 ± 1 and 4.5 ± 1: the pairs (5, 2) and (4.5, 2) differ
    beyond the larger half-interval, (5, 4.5) does not; the estimate ranks 2 above 4.5 and 5
    above 2: one of two pairs as the endings."""
    f = tmp_path / "all.jsonl"
    row = {"prompt": "bid (or pass)", "chosen": {"anchor": "a", "A": "a"},
           "values": {"a": [5.0, 1.0], "b": [2.0, 1.0], "c": [4.5, 1.0]},
           "against_anchor": {"A": [0.0, 0.0]}, "all_options": True, "estimate_depth": 1,
           "estimate_after": {"a": 10, "b": 3, "c": 1}}
    f.write_text(json.dumps(row) + "\n")
    assert decision_values().main(["--report", str(f)]) == 0
    out = capsys.readouterr().out
    assert "the estimate prefers what the endings prefer in 1 of 2 pairs" in out
    # the estimate ranks a (worth 5) first, the best: nothing lost
    assert "the option it ranks first is worth 0.00 ± nan less than the best" in out


def test_the_option_the_estimate_ranks_first_against_the_best(tmp_path: Path, capsys) -> None:
    """Two positions: the estimate ranks first an option worth 2 where the best is worth 5 (3
    lost), then two options alike, worth 1 and 4, where the best is 4 (1.5 lost: their mean):
    2.25 ± 1.96 * 1.0607 / sqrt 2 = 1.47."""
    f = tmp_path / "regret.jsonl"

    def row(vals: dict, est: dict) -> dict:
        return {"prompt": "bid", "chosen": {"anchor": "a", "A": "a"},
                "values": {k: [v, 0.1] for k, v in vals.items()},
                "against_anchor": {"A": [0.0, 0.0]}, "all_options": True, "estimate_depth": 2,
                "estimate_after": est}
    rows = [row({"a": 5.0, "b": 2.0}, {"a": 1, "b": 9}),
            row({"a": 1.0, "b": 4.0}, {"a": 3, "b": 3})]
    f.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert decision_values().main(["--report", str(f)]) == 0
    out = capsys.readouterr().out
    assert "worth 2.25 ± 1.47 less than the best" in out
    # the agent A chose a both times: 0 and 3 lost, 1.5 ± 1.96 * 2.1213 / sqrt 2 = 2.94
    assert "its option is worth 1.50 ± 2.94 less than the best by the endings (2 positions" in out


def test_every_option_valued(tmp_path: Path, capsys) -> None:
    """Every regular option valued and judged; the file rejudged by the same rulebook ranks the
    same options first (position by position +0.00 ± 0.00 against the file's own)."""
    dv = decision_values()
    out = tmp_path / "every.jsonl"
    assert dv.main([MANILA, "--agent", "ismcts:10:cores=1", "--seeds", "0-1", "--every", "20",
                    "--rollouts", "2", "--all-options", "--estimate-after", "1",
                    "--out", str(out)]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert len(lines) >= 2
    for d in lines:
        assert d["all_options"] and len(d["values"]) == len(d["estimate_after"]) > 1
    capsys.readouterr()
    assert dv.main([MANILA, "--rejudge", str(out), "--estimate-after", "1"]) == 0
    said = capsys.readouterr().out
    assert f"every option valued ({len(lines)} positions)" in said
    assert "less the file's own estimate's (1 step on), position by position: +0.00 ± 0.00" \
        in said


def test_the_estimate_after_several_draws_of_dice(tmp_path: Path, capsys) -> None:
    """--estimate-rollouts N: the lead averaged over N draws of dice. Right after the option (0
    steps on: no dice thrown, no one moves) every draw sees the same position, so the mean is
    the single lead; further on the draws differ, and each option's mean is a multiple of 1/N
    (rounded to 0.01). N < 1 is a usage error."""
    dv = decision_values()
    one, three = tmp_path / "one.jsonl", tmp_path / "three.jsonl"
    args = [MANILA, "--agent", "ismcts:10:cores=1", "--seeds", "0-1", "--every", "20",
            "--rollouts", "2", "--all-options", "--estimate-after", "0"]
    assert dv.main(args + ["--out", str(one)]) == 0
    assert dv.main(args + ["--estimate-rollouts", "3", "--out", str(three)]) == 0
    a = [json.loads(x) for x in one.read_text().splitlines()]
    b = [json.loads(x) for x in three.read_text().splitlines()]
    assert a and [d["estimate_after"] for d in a] == [d["estimate_after"] for d in b]
    assert all(d["estimate_rollouts"] == 3 for d in b)
    capsys.readouterr()
    assert dv.main([MANILA, "--rejudge", str(one), "--estimate-after", "6",
                    "--estimate-rollouts", "3", "--out", str(three)]) == 0
    assert "6 steps (the mean of 3 draws of dice) on prefers" in capsys.readouterr().out
    for d in (json.loads(x) for x in three.read_text().splitlines()):
        for v in d["estimate_after"].values():
            assert abs(v * 3 - round(v * 3)) < 0.02
    with pytest.raises(SystemExit) as e:
        dv.main(args + ["--estimate-rollouts", "0", "--out", str(one)])
    assert e.value.code == 2


def test_reasking_a_file_values_each_answer_by_its_endings(tmp_path: Path, capsys) -> None:
    """--reask: the same searcher asked again at the file's positions answers as it did (the
    same seed), and its answers are valued by the file's endings (none played anew); a random
    player's answers, valued by endings played now where the file has none, and its option
    less the anchor's and less the searcher's, position by position, from those values."""
    dv = decision_values()
    f = tmp_path / "f.jsonl"
    assert dv.main([MANILA, "--agent", "ismcts:10:cores=1", "--seeds", "0-1", "--every", "6",
                    "--rollouts", "2", "--out", str(f)]) == 0
    lines = [json.loads(x) for x in f.read_text().splitlines()]
    capsys.readouterr()
    again = tmp_path / "again.jsonl"
    assert dv.main([MANILA, "--reask", str(f), "--agent", "ismcts:10:cores=1", "--name", "again",
                    "--out", str(again)]) == 0
    said = capsys.readouterr().out
    assert f"{len(lines)} positions of {f} asked again (0 options valued anew)" in said
    assert f"less ismcts:10:cores=1's option, position by position ({len(lines)}): " \
           "+0.00 ± 0.00" in said
    b = [json.loads(x) for x in again.read_text().splitlines()]
    assert [d["chosen"]["again"] for d in b] == [d["chosen"]["ismcts:10:cores=1"] for d in lines]
    assert dv.main([MANILA, "--reask", str(again), "--agent", "random", "--out", str(again)]) == 0
    said = capsys.readouterr().out
    c = [json.loads(x) for x in again.read_text().splitlines()]
    new = sum(d["chosen"]["random"] not in d0["values"] for d, d0 in zip(c, lines))
    assert f"asked again ({new} options valued anew)" in said
    diffs = [d["values"][d["chosen"]["random"]][0] - d["values"][d["chosen"]["anchor"]][0]
             for d in c]
    assert f"its option less the anchor's {sum(diffs) / len(diffs):+.2f}" in said
    for d in c:
        assert d["against_anchor"]["random"][0] == round(diffs[c.index(d)], 2)
    with pytest.raises(SystemExit) as e:
        dv.main([MANILA, "--reask", str(f), "--agent", "random", "--agent", "random",
                 "--name", "x"])
    assert e.value.code == 2


def test_varied_anchor_games_are_replayed_to_the_same_positions(tmp_path: Path, capsys) -> None:
    """--vary P: the anchors' way to the positions takes a random option now and then, so the
    game differs from the unvaried one; the file records P, and --reask replays the varied game
    to the same positions (the same searcher answers as in the file, no ending played anew). A
    chance outside 0..1 is a usage error."""
    dv = decision_values()
    prog = dv._program(MANILA)
    anchor = dv.heuristic_for(prog)

    def first(vary: float) -> list:
        for _, s, _ in dv.anchor_positions(prog, anchor, 0, [], vary):
            if len(s.history) > 30:
                return list(s.history)
        return []
    assert first(0.0) == first(0.0) and first(0.3) == first(0.3)
    assert first(0.0) != first(0.3)
    f = tmp_path / "v.jsonl"
    assert dv.main([MANILA, "--agent", "ismcts:10:cores=1", "--seeds", "0-1", "--every", "6",
                    "--rollouts", "2", "--vary", "0.3", "--out", str(f)]) == 0
    lines = [json.loads(x) for x in f.read_text().splitlines()]
    assert lines and all(d["vary"] == 0.3 for d in lines)
    capsys.readouterr()
    assert dv.main([MANILA, "--reask", str(f), "--agent", "ismcts:10:cores=1", "--name",
                    "again"]) == 0
    said = capsys.readouterr().out
    assert "(0 options valued anew)" in said and "+0.00 ± 0.00" in said
    with pytest.raises(SystemExit) as e:
        dv.main([MANILA, "--agent", "random", "--out", str(f), "--vary", "2"])
    assert e.value.code == 2


def test_reasked_searchers_rollouts_played_by_the_anchors(tmp_path: Path, capsys,
                                                           monkeypatch) -> None:
    """--rollouts-by anchor: the re-asked searcher's rollouts ask the game's anchor (the
    policy is called), and its answers are valued as any; a player that is not a searcher is a
    usage error, and a searcher on several cores is refused with a message."""
    dv = decision_values()
    f = tmp_path / "f.jsonl"
    assert dv.main([MANILA, "--agent", "ismcts:10:cores=1", "--seeds", "0-1", "--every", "8",
                    "--rollouts", "2", "--out", str(f)]) == 0
    import anchor_answers
    asked = []
    real = anchor_answers.AnchorPolicy.__call__

    def counted(self, program, state):
        asked.append(state.pending.player)
        return real(self, program, state)
    monkeypatch.setattr(anchor_answers.AnchorPolicy, "__call__", counted)
    capsys.readouterr()
    # (trust=0: Manila's own bots trust its preferences fully and would not search)
    assert dv.main([MANILA, "--reask", str(f), "--agent", "ismcts:10:cores=1:depth=end:trust=0",
                    "--rollouts-by", "anchor", "--name", "ar"]) == 0
    said = capsys.readouterr().out
    assert "ar: chose as the anchor at" in said and len(asked) > 10 and len(set(asked)) == 3
    with pytest.raises(SystemExit) as e:
        dv.main([MANILA, "--reask", str(f), "--agent", "random", "--rollouts-by", "anchor"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        dv.main([MANILA, "--reask", str(f), "--agent", "ismcts:10:cores=2",
                 "--rollouts-by", "anchor"])
    assert "needs a searcher on one core" in str(e.value.code)


def test_positions_played_by_the_rulebooks_prefer_player(tmp_path: Path, capsys) -> None:
    """`--by prefer`: the games to the positions and the endings are the rulebook's `prefer`
    player's at every seat. The file says so, the chosen option of the `prefer` agent at each
    position is the one it plays in the game (its `against_anchor` 0 with both played by the
    same player) but where options tie in its preferences (Manila's offices of one kind can:
    each player breaks a tie by its own chance), every option is valued, and a rejudge replays the file's positions (the
    same game: no position is missing) with the estimate of the same rulebook unchanged."""
    dv = decision_values()
    out = tmp_path / "p.jsonl"
    assert dv.main([MANILA, "--by", "prefer", "--agent", "prefer", "--seeds", "0-1",
                    "--prompt", "place", "--all-options", "--rollouts", "3",
                    "--estimate-after", "2", "--out", str(out)]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines and all(d["by"] == "prefer" for d in lines)
    # the same option, valued the same; a different one only where two options tie in the
    # preferences (each player draws among the tied by its own chance: rare)
    same = [d for d in lines if d["chosen"]["anchor"] == d["chosen"]["prefer"]]
    assert all(d["against_anchor"]["prefer"] == [0.0, 0.0] for d in same)
    assert len(same) >= 0.8 * len(lines)
    assert all(len(d["values"]) >= 2 for d in lines)
    capsys.readouterr()
    again = tmp_path / "q.jsonl"
    assert dv.main([MANILA, "--rejudge", str(out), "--prompt", "place", "--estimate-after", "2",
                    "--out", str(again)]) == 0
    assert [d["estimate_after"] for d in map(json.loads, again.read_text().splitlines())] == \
        [d["estimate_after"] for d in lines]
    assert "+0.00 ± 0.00" in capsys.readouterr().out
