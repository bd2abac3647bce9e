"""prog.playout(state, rng, max_decisions): the native random playout a search's rollouts use
(issue 13). It must play the same game, choice for choice, as the normal loop
`while not s.over: apply(s, rng.randrange(s.pending.count))` with explicit chance resolved by
its weights from the state's own generator — from any position, stopped and resumed anywhere.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Optional

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game_driver import program_text
from shipped import shipped_program

from mercator.interpreter.agents.base import resolve_chance
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal
from mercator.interpreter.engine import program as program_module
from mercator.interpreter.engine.program import MercatorRuntimeError, Program, StateUnusable
from mercator.interpreter.engine.state import State

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = sorted((ROOT / "rulebooks").glob("*.rules")) + \
    sorted((ROOT / "rulebooks" / "variants").glob("*.rules")) + \
    [ROOT / "rulebooks" / "examples" / "bazaar.rules",     # deals (docs/games/bazaar.md)
     ROOT / "rulebooks" / "examples" / "isles.rules"]      # trades of hidden hands (isles.md)
PROPS = settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module", params=RULEBOOKS, ids=lambda p: p.stem)
def prog(request: pytest.FixtureRequest) -> Program:
    return shipped_program(request.param.stem)


@pytest.fixture(params=[True, False], ids=["compiled", "vm"])
def compiled(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """playout() by the compiled rollout (compiler/rollout.py) or by the VM's own loop: both
    must play the normal loop's game."""
    monkeypatch.setattr(program_module, "COMPILED_ROLLOUT", request.param)
    return bool(request.param)


def by_apply(prog: Program, s: State, rng: random.Random, limit: Optional[int] = None) -> int:
    """The normal loop that playout must equal."""
    made = 0
    while not s.over and made != limit:
        node = s.pending
        idx = resolve_chance(s) if isinstance(node, Chance) else rng.randrange(node.count)
        prog.apply(s, idx)
        made += 1
    return made


def same(a: State, b: State, steps: bool = False) -> None:
    assert a.history == b.history
    assert a.digest() == b.digest()
    assert a.over == b.over
    if steps:     # ops run (not kept in JSON)
        assert a.steps == b.steps
    if a.over:
        assert a.result == b.result


@PROPS
@given(seed=st.integers(0, 2**32 - 1), explicit=st.booleans(), data=st.data())
def test_playout_plays_the_same_game_as_the_normal_loop(prog: Program, compiled: bool, seed: int,
                                                        explicit: bool,
                                                        data: st.DataObject) -> None:
    n = data.draw(st.integers(prog.min_players, min(prog.max_players, 4)), label="players")
    start = data.draw(st.integers(0, 40), label="decisions before the playout")
    a = prog.new_game(n, seed, explicit_chance=explicit)
    warm = random.Random(seed ^ 0x5EED)
    by_apply(prog, a, warm, start)          # a position in the middle of a game
    b = a.clone()
    made_a = prog.playout(a, random.Random(seed))
    made_b = by_apply(prog, b, random.Random(seed))
    assert made_a == made_b
    same(a, b, steps=not compiled)      # (the compiled rollout does not count ops run)
    assert isinstance(a.pending, Terminal) and a.pending == a.result


@PROPS
@given(seed=st.integers(0, 2**32 - 1), cuts=st.lists(st.integers(0, 30), min_size=1, max_size=5))
def test_a_playout_stopped_and_resumed_anywhere_is_the_same_game(prog: Program, compiled: bool,
                                                                 seed: int,
                                                                 cuts: list[int]) -> None:
    """max_decisions stops at a decision that apply, clone and JSON take up as usual."""
    n = prog.min_players
    a, b = prog.new_game(n, seed), prog.new_game(n, seed)
    rng_a, rng_b = random.Random(seed), random.Random(seed)
    for k in cuts:
        made = prog.playout(a, rng_a, max_decisions=k)
        assert made == by_apply(prog, b, rng_b, k)
        same(a, b)
        if a.over:
            break
        assert isinstance(a.pending, (Decision, Chance))
        a = State.from_json(a.to_json())      # the stopped state is a value like any other
        prog.resume(a)
    prog.playout(a, rng_a)
    by_apply(prog, b, rng_b)
    same(a, b)


def test_playout_with_narration_keeps_every_seats_record() -> None:
    prog = shipped_program("manila")
    a = prog.new_game(4, 11, narrate=True)
    b = prog.new_game(4, 11, narrate=True)
    prog.playout(a, random.Random(3))
    by_apply(prog, b, random.Random(3))
    same(a, b)
    assert a.record and a.record == b.record
    assert [a.information_state(p) for p in range(4)] == [b.information_state(p) for p in range(4)]


def test_playout_of_a_finished_game_makes_no_decision() -> None:
    prog = shipped_program("manila")
    s = prog.new_game(3, 5)
    prog.playout(s, random.Random(0))
    history = list(s.history)
    assert prog.playout(s, random.Random(1)) == 0
    assert s.history == history


FAILS_LATE = """
game "Fails late" players 2..2
player { gold: int = 0 }
table { picks: list<int> }
round r limit 3 {
  phase main {
    for p in players {
      let k = choose p one of [1, 2, 3]
      picks = picks + [k]
      # a rule error once six picks are made: index 9 of a list of six
      if len(picks) == 6 { p.gold = picks[9] }
    }
  }
}
score p: p.gold
"""


def test_a_rule_error_in_a_playout_is_located_and_leaves_the_state_unusable(compiled: bool) -> None:
    prog = program_text(FAILS_LATE)
    s = prog.new_game(2, 0)
    with pytest.raises(MercatorRuntimeError) as err:
        prog.playout(s, random.Random(0))
    assert err.value.span.line == 11
    assert len(err.value.history) == 6 and s.history == err.value.history[:5]
    with pytest.raises(StateUnusable):
        prog.playout(s, random.Random(0))
    with pytest.raises(StateUnusable):
        s.clone()
    # the normal loop fails at the same decision, with the same message
    t = prog.new_game(2, 0)
    with pytest.raises(MercatorRuntimeError) as err2:
        by_apply(prog, t, random.Random(0))
    assert err2.value.message == err.value.message and err2.value.history == err.value.history


@PROPS
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_random_bots_play_the_same_game_by_playout_as_by_the_loop(prog: Program, compiled: bool,
                                                                  seed: int,
                                                                  data: st.DataObject) -> None:
    """play_out with random bots only (simulate, compare) runs the rollout, each bot drawing
    from its own generator (seat_rngs): the same game as asking each bot in turn."""
    from mercator.interpreter.agents.base import RandomAgent, agent_seed, play_out
    n = data.draw(st.integers(prog.min_players, min(prog.max_players, 4)), label="players")
    a, b = prog.new_game(n, seed), prog.new_game(n, seed)
    play_out(prog, a, [RandomAgent(agent_seed(seed, p)) for p in range(n)])
    play_out(prog, b, [RandomAgent(agent_seed(seed, p)) for p in range(n)],
             on_step=lambda *_: None)           # a hook: the loop that asks each bot
    same(a, b)
    assert a.over and a.result == b.result


def test_a_game_too_long_stops_at_the_same_decision_both_ways() -> None:
    from mercator.interpreter.agents.base import GameTooLong, RandomAgent, agent_seed, play_out
    prog = shipped_program("manila")
    states = []
    for hook in (None, lambda *_: None):
        s = prog.new_game(3, 7)
        with pytest.raises(GameTooLong, match="within 40 decisions"):
            play_out(prog, s, [RandomAgent(agent_seed(7, p)) for p in range(3)],
                     on_step=hook, max_decisions=40)
        states.append(s)
    assert len(states[0].history) == 40
    same(states[0], states[1])


def test_seat_generators_with_narration_and_their_count() -> None:
    """With narration on, playout goes through apply, still drawing seat by seat; a list of
    generators that does not match the seats is refused before anything is played."""
    from mercator.interpreter.agents.base import RandomAgent, agent_seed, play_out
    prog = shipped_program("die_haendler")
    a, b = prog.new_game(3, 5, narrate=True), prog.new_game(3, 5, narrate=True)
    prog.playout(a, None, seat_rngs=[random.Random(agent_seed(5, p)) for p in range(3)])
    play_out(prog, b, [RandomAgent(agent_seed(5, p)) for p in range(3)], on_step=lambda *_: None)
    same(a, b)
    assert a.record == b.record
    c = prog.new_game(3, 5)
    with pytest.raises(ValueError, match="2 generators for 3 seats"):
        prog.playout(c, None, seat_rngs=[random.Random(1), random.Random(2)])
    assert c.history == []


def no_actions_by_apply(prog: Program, s: State, rng: random.Random) -> int:
    """The loop playout(anytime=False) must equal: any-time actions never drawn."""
    made = 0
    while not s.over:
        node = s.pending
        if isinstance(node, Chance):
            idx = resolve_chance(s)
        else:
            idx = rng.randrange(node.count - len(node.actions))
        prog.apply(s, idx)
        made += 1
    return made


@pytest.mark.parametrize("path", [ROOT / "rulebooks" / "manila.rules",
                                  ROOT / "rulebooks" / "die_haendler.rules"], ids=lambda p: p.stem)
@pytest.mark.parametrize("seed", [3, 11])
def test_a_playout_without_anytime_actions_takes_none(path: Path, compiled: bool,
                                                      seed: int) -> None:
    """The search agents' rollout policy: the same game as the loop that draws only among a
    decision's other options — and Manila's random bots, who mortgage and redeem shares at
    any decision, then never do."""
    prog = shipped_program(path.stem)
    n = prog.min_players + 1
    a = prog.new_game(n, seed, narrate=False)
    b = a.clone()
    made = prog.playout(a, random.Random(seed), anytime=False)
    assert made == no_actions_by_apply(prog, b, random.Random(seed))
    same(a, b)
    c = prog.new_game(n, seed, narrate=True)
    prog.playout(c, random.Random(seed), anytime=False)
    assert c.history == a.history
    assert not [e for e in c.record if e[0] == "action"]
    d = prog.new_game(n, seed, narrate=True)
    prog.playout(d, random.Random(seed))
    if path.stem == "manila":          # with them, a random Manila game has a few
        assert [e for e in d.record if e[0] == "action"]


def no_deals_by_apply(prog: Program, s: State, rng: random.Random) -> int:
    """The loop playout(anytime=False, deals=False) must equal, written from the options'
    labels: at a step of a deal window a seat passes where it may and cancels a draft where it
    has one; it draws (among the non-action options) only where neither is there."""
    made = 0
    while not s.over:
        node = s.pending
        if isinstance(node, Chance):
            idx = resolve_chance(s)
        else:
            labels = [o.label for o in node.options]
            in_deal = isinstance(node.vtype, tuple)
            if in_deal and node.allow_pass:
                idx = 0
            elif in_deal and "cancel" in labels:
                idx = labels.index("cancel")
            else:
                idx = rng.randrange(node.count - len(node.actions))
        prog.apply(s, idx)
        made += 1
    return made


@pytest.mark.parametrize("path", [ROOT / "rulebooks" / "genoa.rules",
                                  ROOT / "rulebooks" / "examples" / "bazaar.rules"],
                         ids=lambda p: p.stem)
@pytest.mark.parametrize("seed", [2, 9])
def test_a_playout_without_deals_makes_none(path: Path, compiled: bool, seed: int) -> None:
    """The search agents' rollout policy in a deal window (playout(deals=False)): the same game
    as the loop above, from the start and from the middle of an offer being drafted (where
    the seat cancels it), and no deal is made in it."""
    prog = shipped_program(path.stem)
    n = prog.min_players + (seed % 2)
    rng = random.Random(seed)
    # a random game up to a seat's drafting an offer (a step with 'cancel' and no pass)
    start = prog.new_game(n, seed, narrate=True)
    while True:
        node = start.pending
        assert not start.over, "no offer was drafted in this random game"
        if isinstance(node, Decision) and not node.allow_pass and \
                isinstance(node.vtype, tuple) and "cancel" in [o.label for o in node.options]:
            break
        prog.apply(start, resolve_chance(start) if isinstance(node, Chance)
                   else rng.randrange(node.count))
    deals_before = sum(1 for e in start.record if "accepts" in str(e))
    for s0 in (prog.new_game(n, seed, narrate=False), start):
        a, b = s0.clone(), s0.clone()
        made = prog.playout(a, random.Random(seed + 1), anytime=False, deals=False)
        assert made == no_deals_by_apply(prog, b, random.Random(seed + 1))
        same(a, b)
    c = start.clone()
    prog.playout(c, random.Random(seed + 1), anytime=False, deals=False)
    assert sum(1 for e in c.record if "accepts" in str(e)) == deals_before
    d = start.clone()                   # random negotiation does make deals
    for k in range(40):
        d = start.clone()
        prog.playout(d, random.Random(seed + 100 + k), anytime=False)
        if sum(1 for e in d.record if "accepts" in str(e)) > deals_before:
            break
    else:
        pytest.fail("40 random playouts made no deal")


def no_deals_apply_steps(prog: Program, s: State, k: int, rng: random.Random) -> None:
    """k decisions of no_deals_by_apply's loop (the rollout policy without deals)."""
    for _ in range(k):
        node = s.pending
        if isinstance(node, Chance):
            prog.apply(s, resolve_chance(s))
            continue
        labels = [o.label for o in node.options]
        deal = isinstance(node.vtype, tuple)
        prog.apply(s, 0 if deal and node.allow_pass else labels.index("cancel")
                   if deal and "cancel" in labels
                   else rng.randrange(node.count - len(node.actions)))


@pytest.mark.parametrize("path", [ROOT / "rulebooks" / "genoa.rules",
                                  ROOT / "rulebooks" / "examples" / "bazaar.rules"],
                         ids=lambda p: p.stem)
@PROPS
@given(seed=st.integers(0, 2**20), data=st.data())
def test_a_playout_without_deals_stops_where_told_with_the_decision_pending(
        path: Path, compiled: bool, seed: int, data: st.DataObject) -> None:
    """A rollout that makes no deals answers a window's turn it passes at without making its
    options (compiled: nodes.QuickPass); stopped at any number of decisions it leaves the
    very decision the loop of apply leaves pending, options and labels included, and the
    game goes on from it as from the other."""
    prog = shipped_program(path.stem)
    n = data.draw(st.integers(prog.min_players, min(prog.max_players, 5)), label="players")
    start = prog.new_game(n, seed)
    whole = start.clone()
    total = prog.playout(whole, random.Random(seed + 1), anytime=False, deals=False)
    assert not prog.quick_pass[0]
    stops = data.draw(st.lists(st.integers(1, max(1, total - 1)), min_size=1, max_size=4),
                      label="stops")
    for k in sorted(set(stops)):
        if k >= total:
            continue
        a, b = start.clone(), start.clone()
        assert prog.playout(a, random.Random(seed + 1), k, anytime=False, deals=False) == k
        assert prog.quick_pass[0] is False
        no_deals_apply_steps(prog, b, k, random.Random(seed + 1))
        same(a, b)
        pa, pb = a.pending, b.pending
        assert type(pa) is type(pb)
        if isinstance(pa, Decision):
            assert [o.label for o in pa.options] == [o.label for o in pb.options]
            assert (pa.player, pa.allow_pass, pa.prompt) == (pb.player, pb.allow_pass, pb.prompt)
            prog.apply(a, pa.count - 1)
            prog.apply(b, pb.count - 1)
            same(a, b)


def test_a_rollout_stopped_at_a_windows_turn_leaves_its_decision() -> None:
    """The case QuickPass makes the Decision for: a compiled no-deal playout of Genoa stopped
    at a turn of a deal window where the seat may pass leaves that decision pending (pass and
    'post an offer' among its options), as the loop of apply does."""
    prog = shipped_program("genoa")
    start = prog.new_game(3, 11)
    k, b = 0, start.clone()
    rng = random.Random(12)
    while True:                       # the first such turn along the no-deal game
        node = b.pending
        if isinstance(node, Decision) and isinstance(node.vtype, tuple) and node.allow_pass \
                and k > 0:
            break
        no_deals_apply_steps(prog, b, 1, rng)
        k += 1
    a = start.clone()
    assert prog.playout(a, random.Random(12), k, anytime=False, deals=False) == k
    same(a, b)
    labels = [o.label for o in a.pending.options]
    assert labels[0] == "pass" and "post an offer" in labels
    assert labels == [o.label for o in b.pending.options]


def test_new_game_by_the_rollout_is_new_game_by_the_vm(prog: Program) -> None:
    """Once a program's rollout is built, new_game runs the setup with it: the same position,
    the same first decision (its options and labels), and the same game after it, as a program
    whose rollout is not built (the VM's own loop), for every player count."""
    fresh = Program.__new__(Program)      # the same program, without its rollout
    fresh.__dict__.update(prog.__dict__)
    fresh._rollout = None
    if prog._rollout is None:
        prog.playout(prog.new_game(prog.min_players, 12345), random.Random(0))
    assert prog._rollout is not None
    for n in range(prog.min_players, prog.max_players + 1):
        for seed in range(3):
            a, b = fresh.new_game(n, seed), prog.new_game(n, seed)
            assert a.digest() == b.digest() and a.history == b.history == []
            assert isinstance(b.pending, type(a.pending))
            if isinstance(a.pending, Decision):
                assert isinstance(b.pending, Decision) and a.pending.player == b.pending.player
                assert [o.label for o in a.pending.options] == \
                    [o.label for o in b.pending.options]
            by_apply(fresh, a, random.Random(seed))
            prog.playout(b, random.Random(seed))
            same(a, b)


FAILS_IN_SETUP = """game "Fails in setup" players 2..3
player { gold: int = 0 }
table { n: int = 0 }
setup { n = player_count - 2  for p in players { p.gold = 6 / n } }
round r limit 2 { phase a { for p in players { let x = choose p one of [1, 2]  p.gold += x } } }
score p: p.gold
"""


def test_a_rule_error_in_setup_is_located_the_same_by_the_rollout() -> None:
    prog = program_text(FAILS_IN_SETUP)
    with pytest.raises(MercatorRuntimeError) as by_vm:
        prog.new_game(2, 0)
    prog.playout(prog.new_game(3, 0), random.Random(0))      # the rollout is built
    assert prog._rollout is not None
    with pytest.raises(MercatorRuntimeError) as by_rollout:
        prog.new_game(2, 0)
    assert by_rollout.value.message == by_vm.value.message and "zero" in by_vm.value.message
    assert by_rollout.value.span.line == by_vm.value.span.line == 4
