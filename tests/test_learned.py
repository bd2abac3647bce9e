"""The learned evaluation as an engine feature (interpreter/agents/learned.py, the searcher's
`value=FILE`, `mercator learn`), on tests/fixtures/agents/hoard.rules: a public stash that turns
into the score only at the end, so that after the first round a seat's final margin is its stash
less the other's, and a search cut off after a step can see a larger stash only through a
model."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from game_driver import program

from mercator.interpreter.agents import learned as L
from mercator.interpreter.agents.base import RandomAgent, agent_seed
from mercator.interpreter.agents.spec import SpecError, check_values, make_agent, parse_spec
from mercator.interpreter.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
HOARD = ROOT / "tests" / "fixtures" / "agents" / "hoard.rules"
VENTURE = ROOT / "tests" / "fixtures" / "agents" / "venture.rules"


@pytest.fixture(scope="module")
def hoard():
    return program(HOARD)


@pytest.fixture(scope="module")
def fitted(hoard, tmp_path_factory):
    """200 games of random seats, their positions, a line fitted to them and its file."""
    fx = L.Features(hoard, 2)
    x, y, g = L.record(hoard, 2, range(200),
                       lambda s: [RandomAgent(agent_seed(s, p)) for p in range(2)], fx=fx,
                       narrate=False)
    arrays, report = L.fit_model(x, y, g, "linear", fx.estimate)
    path = tmp_path_factory.mktemp("model") / "hoard.npz"
    model = L.Model("linear", arrays, L.rulebook_sha256(hoard), hoard.name, 2, fx.names(),
                    str(path))
    model.save(str(path))
    return fx, x, y, g, report, model, path


def _position(prog, stashes, round_=3):
    """A game of Hoard whose dice gave the seats these stashes, nothing added, at the first
    call of the given round."""
    s = prog.new_game(2, 0, explicit_chance=True)
    dice = iter(stashes)
    while s.round < round_ or s.pending.__class__.__name__ != "Decision" \
            or s.pending.prompt != "call a number":
        node = s.pending
        assert node.__class__.__name__ != "Terminal"
        if node.__class__.__name__ == "Chance":
            want = str(next(dice))
            prog.apply(s, next(i for i in range(node.count) if node.option(i).label == want))
        else:
            prog.apply(s, 0)
    return s


def test_the_features_are_the_turned_observation_without_an_estimate(hoard, fitted) -> None:
    """Without an estimate the features are the observation alone, turned: the seat's own stash
    first, then the other's (and each row's margin is that seat's final margin)."""
    fx, x, y, g, *_ = fitted
    assert not fx.estimate and fx.size == len(fx.names())
    assert fx.names()[:4] == ["P1.stash", "P1.gold", "P2.stash", "P2.gold"]
    s = _position(hoard, (5, 2))
    rows = fx.rows(s)
    assert list(rows[0, :3]) == [5, 0, 2] and list(rows[1, :3]) == [2, 0, 5]
    assert len(x) == len(y) == len(g) and len(set(g)) == 200
    assert all(abs(y[k] + y[k + 1]) < 1e-9 for k in range(0, len(y), 2))   # two seats: ±


def test_the_fit_recovers_a_margin_the_seats_can_see(hoard, fitted) -> None:
    """The final margin is the stash less the other's from the first round on (only the two
    positions before the first round's additions are uncertain): held out, R² near 1, and at a
    known position (stashes 5 and 2 in round 3) each seat's margin within 0.3 of ±3."""
    fx, *_, report, model, _path = fitted
    assert report["r2_model"] > 0.93 and "r2_estimate" not in report
    m = model.predict(fx.rows(_position(hoard, (5, 2))))
    assert abs(m[0] - 3) < 0.3 and abs(m[1] + 3) < 0.3


def test_a_model_file_reads_back_the_same(hoard, fitted, tmp_path) -> None:
    """Saved and loaded: the same predictions (a line, and a network fitted for a few epochs),
    and what it was fitted to: the rulebook's hash, the player count, the features, the kind."""
    fx, x, y, g, _report, model, path = fitted
    back = L.load_model(str(path))
    assert (back.kind, back.players, back.game) == ("linear", 2, "Hoard")
    assert back.rulebook_sha256 == L.rulebook_sha256(hoard) and back.features == fx.names()
    assert np.array_equal(back.predict(x[:50]), model.predict(x[:50]))
    net = L.mlp_fit(x[g % 5 > 1], y[g % 5 > 1], x[g % 5 == 1], y[g % 5 == 1], epochs=3,
                    lead_col=None)
    m2 = L.Model("mlp", net, L.rulebook_sha256(hoard), hoard.name, 2, fx.names(), "")
    m2.save(str(tmp_path / "net.npz"))
    again = L.load_model(str(tmp_path / "net.npz"))
    assert again.kind == "mlp"
    assert np.array_equal(again.predict(x[:50]), m2.predict(x[:50]))


def _rolled(prog, k: int):
    """Game k of Hoard at its first decision, the stashes rolled (die faces k % 6 and k // 6 %
    6, from 1)."""
    s = prog.new_game(2, k, narrate=True, explicit_chance=True)
    prog.apply(s, k % 6)
    prog.apply(s, k // 6 % 6)
    assert s.pending.prompt == "add to the stash"
    return s


def _stash_choices(spec: str, prog) -> list[int]:
    """What a searcher of this spec adds to its stash, seat 1's first decision, in 6 games."""
    out = []
    for k in range(6):
        s = _rolled(prog, k)
        bot = make_agent(parse_spec(spec), agent_seed(k, 0))
        out.append(int(s.pending.option(bot.choose(prog, s)).label))
    return out


def test_a_search_cut_off_after_a_step_sees_the_stash_only_through_the_model(hoard,
                                                                              fitted) -> None:
    """Cut off one step on (depth=1), judged by the score, every position is worth 0 to both:
    the searcher cannot tell 2 coins from none and does not add 2 every time. Judged by the model
    it adds 2 in every game, ismcts and mcts alike; and without a depth in the spec, a rulebook
    without an estimate is cut off after 4 steps where a model is given (to the end without)."""
    path = fitted[-1]
    assert _stash_choices(f"ismcts:60:depth=1:value={path}", hoard) == [2] * 6
    assert _stash_choices(f"mcts:60:depth=1:value={path}", hoard) == [2] * 6
    assert _stash_choices("ismcts:60:depth=1", hoard) != [2] * 6
    for spec, depth in ((f"ismcts:20:value={path}", 4), ("ismcts:20", None)):
        bot = make_agent(parse_spec(spec), 1)
        s = _rolled(hoard, 1)
        bot.choose(hoard, s)
        assert bot._depth == depth, spec


def test_a_model_of_another_rulebook_or_player_count_or_no_model_is_refused(
        hoard, fitted, tmp_path) -> None:
    """The errors name the file and what is wrong, with a hint: another rulebook, another player
    count (when the game is known: check_values), a missing file, a file that is no model (at
    once, when the spec is read); and value= with eval=score or depth=end."""
    path = fitted[-1]
    spec = parse_spec(f"ismcts:50:value={path}")
    check_values([spec], hoard, 2)                       # (its own: accepted)
    with pytest.raises(SpecError, match=r"is a model of another rulebook \(Hoard\), not of "
                                        r"Venture as it is now") as e:
        check_values([spec], program(VENTURE), 2)
    assert str(path) in str(e.value) and "mercator learn" in e.value.hint
    with pytest.raises(SpecError, match=r"is a model of Hoard for 2 players, not 3"):
        check_values([spec], hoard, 3)
    with pytest.raises(SpecError, match=r"nothere\.npz: no such file") as e:
        parse_spec(f"ismcts:50:value={tmp_path}/nothere.npz")
    assert "mercator learn wrote" in e.value.hint
    junk = tmp_path / "junk.npz"
    junk.write_text("not an archive")
    with pytest.raises(SpecError, match=r"junk\.npz is not a model written by mercator learn"):
        parse_spec(f"mcts:50:value={junk}")
    other = tmp_path / "arrays.npz"
    np.savez(str(other), a=np.zeros(3))
    with pytest.raises(SpecError, match=r"is not a model written by mercator learn \(a NumPy "
                                        r"archive of other arrays\)"):
        parse_spec(f"ismcts:50:value={other}")
    for extra, what in ((":eval=score", "eval=score judges them by the score"),
                        (":depth=end", "depth=end cuts none")):
        with pytest.raises(SpecError, match=what):
            parse_spec(f"ismcts:50:value={path}{extra}")


def test_a_spec_with_a_model_prints_as_written(fitted, tmp_path) -> None:
    """The file's name keeps its case in the spec (the rest of a spec is lower case), and the
    spec prints so that it can be typed again; the searcher's settings carry the file."""
    from mercator.interpreter.agents.spec import search_settings
    path = tmp_path / "Hoard-2P.npz"
    path.write_bytes(Path(fitted[-1]).read_bytes())
    sp = parse_spec(f"ISMCTS:300:Depth=2:value={path}")
    assert str(sp) == f"ismcts:300:depth=2:value={path}" and sp.value == str(path)
    assert parse_spec(str(sp)) == sp
    assert search_settings(sp)["value"] == str(path)
    assert "value" not in search_settings(parse_spec("ismcts:300"))


def test_mercator_learn_writes_a_model_that_value_takes(tmp_path, capsys) -> None:
    """`mercator learn` end to end: 20 games of random seats, the held-out R² as JSON, a model
    file a searcher's value= accepts for this rulebook and player count; a simulate with it
    plays, and one of another rulebook is a usage error (exit 2) that names the file, without a
    traceback."""
    out = tmp_path / "h.npz"
    code = main(["learn", str(HOARD), "--players", "2", "--games", "20", "--seats", "random",
                 "--out", str(out), "--json"])
    assert code == 0
    r = json.loads(capsys.readouterr().out)
    assert r["game"] == "Hoard" and r["players"] == 2 and r["positions"] == 20 * 10 * 2 \
        and r["r2_estimate"] is None and r["r2_model"] > 0.8 and r["out"] == str(out)
    check_values([parse_spec(f"ismcts:20:value={out}")], program(HOARD), 2)
    code = main(["simulate", str(HOARD), "--players", "2", "--games", "1", "--workers", "1",
                 "--seats", f"ismcts:20:depth=1:value={out},random", "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["games"] == 1
    code = main(["simulate", str(VENTURE), "--games", "1", "--seats", f"ismcts:20:value={out}"])
    err = capsys.readouterr().err
    assert code == 2 and f"{out} is a model of another rulebook (Hoard)" in err
    assert "hint: train one for it: mercator learn" in err and "Traceback" not in err


def test_mercator_learn_refuses_bad_input_with_a_message(tmp_path, capsys) -> None:
    """Too few games to hold any out, a file name a seat spec cannot hold, a rulebook that does
    not exist: exit 2 with a message and a hint."""
    for argv, said in ((["--games", "4"], "--games must be at least 5"),
                       (["--out", str(tmp_path / "a:b.npz")], "':' and ',' separate"),
                       (["--seats", "human"], "a simulation has no human seats")):
        assert main(["learn", str(HOARD), "--players", "2", *argv]) == 2
        assert said in capsys.readouterr().err
    assert main(["learn", str(tmp_path / "none.rules")]) == 2
    assert "no such rulebook" in capsys.readouterr().err


def test_without_numpy_learn_and_value_say_how_to_install_it(fitted, monkeypatch,
                                                             capsys) -> None:
    """numpy is an extra (mercator[learn]): without it `mercator learn` is a usage error that
    says how to install it, and so is a spec with value= (checked when the spec is read)."""
    monkeypatch.setitem(__import__("sys").modules, "numpy", None)   # (import numpy fails)
    assert main(["learn", str(HOARD), "--players", "2", "--games", "5"]) == 2
    err = capsys.readouterr().err
    assert "needs numpy" in err and "pip install 'mercator[learn]'" in err
    L._LOADED.clear()
    try:
        with pytest.raises(SpecError, match="needs numpy") as e:
            parse_spec(f"ismcts:50:value={fitted[-1]}")
        assert "mercator[learn]" in e.value.hint
    finally:
        L._LOADED.clear()
