"""Information-state tensors (interpreter/engine/infostate.py, issue 17): a fixed shape per
(rulebook, player count); a function of the seat's information state (a resampled world, which
the seat cannot tell from the real one, gives the same cells); nothing of what the seat may not
see, neither in the view nor in the rows of the decisions; and the same tensors through the
OpenSpiel adapter."""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game_driver import program_text

from mercator.interpreter.agents.base import resolve_chance
from mercator.interpreter.engine.encoding import EncodeError
from mercator.interpreter.engine.infostate import InfoStateEncoder
from mercator.interpreter.engine.nodes import Chance, Decision
from mercator.interpreter.engine.resample import Trace
from mercator.interpreter.research.common import program_for

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["manila", "die_haendler", "felinia", "genoa"]
PROPS = settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))


def encoder(name: str, players: int) -> InfoStateEncoder:
    return InfoStateEncoder(program_for(name), players)


def play(enc: InfoStateEncoder, seed: int, steps: int, rng: random.Random):
    """A narrated game with explicit chance, `steps` random steps on; with its log."""
    s, log, n = enc.replay(seed, [])
    for _ in range(steps):
        if s.over:
            break
        node = s.pending
        i = resolve_chance(s) if isinstance(node, Chance) else rng.randrange(node.count)
        log, n = enc.apply(s, log, n, i)
    return s, log, n


def rows(enc: InfoStateEncoder, t: np.ndarray) -> np.ndarray:
    return t[enc.history_at:].reshape(enc.decisions, enc.row)


# (rulebook, players): observation cells + the most ids a decision takes + decisions × (seats +
# ids); the bounds are the rulebooks' own (manila.rules: decisions 700, 9 ids for a start
# option of three boats; genoa.rules: decisions 3200, 3 ids)
SIZES = [("manila", 3, 212 + 9 + 700 * (3 + 9)), ("manila", 5, 296 + 9 + 700 * (5 + 9)),
         ("die_haendler", 2, 1003 + 9 + 850 * (2 + 9)),
         ("felinia", 4, 6865 + 5 + 1000 * (4 + 5)), ("genoa", 2, 15343 + 3 + 3200 * (2 + 3))]


@pytest.mark.parametrize("name, players, total", SIZES)
def test_the_shape_is_fixed_by_the_rulebooks_bounds(name: str, players: int, total: int) -> None:
    enc = encoder(name, players)
    assert enc.shape == (total,)
    lay = enc.layout()
    assert [x[0] for x in lay[-2:]] == ["taken", "history"]
    assert lay[-1][2] == (enc.decisions, players + enc.steps)
    # the segments tile the tensor, in order
    ends = [off + int(np.prod(shape)) for _, off, shape in lay]
    assert [off for _, off, _ in lay[1:]] == ends[:-1] and ends[-1] == total
    s, log, n = play(enc, 2, 30, random.Random(2))
    assert enc.tensor(s, 0, log, n).shape == (total,)


def test_a_known_position_the_first_bids() -> None:
    """Manila opens with the harbour master's auction (seed 003 第一步驟: 競標海港負責人的
    辦事處), bids in the open: after two bids every seat sees both rows, the bidder one-hot
    and the bid's id."""
    enc = encoder("manila", 3)
    s, log, n = enc.replay(4, [])
    while isinstance(s.pending, Chance):
        log, n = enc.apply(s, log, n, resolve_chance(s))
    made = []
    for _ in range(2):
        node = s.pending
        assert isinstance(node, Decision)
        i = 1 if node.count > 1 else 0                 # the lowest bid after `pass`
        made.append((node.player, node.options[i].label))
        log, n = enc.apply(s, log, n, i)
    assert n == 2
    names = enc.codec.names
    for viewer in range(3):
        r = rows(enc, enc.tensor(s, viewer, log, n))
        for k, (seat, label) in enumerate(made):
            assert list(r[k, :3]) == [1.0 if p == seat else 0.0 for p in range(3)]
            assert names[int(r[k, 3]) - 1] == label and not r[k, 4:].any()
        assert not r[2:].any()                         # no more decisions yet


@pytest.mark.parametrize("name", GAMES)
@PROPS
@given(seed=st.integers(0, 2**20), steps=st.integers(0, 90), players=st.integers(2, 5))
def test_a_resampled_world_gives_the_seat_the_same_tensor(name: str, seed: int, steps: int,
                                                         players: int) -> None:
    """The tensor is a function of the information state: a world drawn by Program.resample
    (the same information state for the seat, what it has not seen drawn anew) gives the
    identical tensor for that seat, in every cell — while the worlds do differ in what the seat
    does not see (checked on the rows: some other seat's cells differ in some example)."""
    prog = program_for(name)
    n = max(prog.min_players, min(prog.max_players, players))
    enc = InfoStateEncoder(prog, n)
    rng = random.Random(seed)
    s, log, k = play(enc, seed, steps, rng)
    seat = s.pending.player if isinstance(s.pending, Decision) else rng.randrange(n)
    mine = enc.tensor(s, seat, log, k)
    trace = Trace(prog, s, seat)                   # what Program.resample draws from
    for _ in range(2):
        world = trace.sample(rng)
        w, wlog, wk = enc.replay(seed, world.history)
        assert w.information_state(seat) == s.information_state(seat)
        assert wk == k
        assert np.array_equal(enc.tensor(w, seat, wlog, wk), mine)


def test_worlds_differ_where_the_seat_cannot_see() -> None:
    """The property above is not empty: Manila worlds differ in other seats' shares, and so in
    another seat's tensor, while the resampled seat's stays the same."""
    prog = program_for("manila")
    enc = InfoStateEncoder(prog, 3)
    rng = random.Random(7)
    s, log, k = play(enc, 7, 40, rng)
    differs = 0
    for _ in range(6):
        world = prog.resample(s, 0, rng)
        w, wlog, wk = enc.replay(7, world.history)
        assert np.array_equal(enc.tensor(w, 0, wlog, wk), enc.tensor(s, 0, log, k))
        differs += not np.array_equal(enc.tensor(w, 1, wlog, wk), enc.tensor(s, 1, log, k))
    assert differs


def test_another_seats_hidden_data_do_not_change_the_tensor() -> None:
    """Manila's shares are owner-only (dealt face down, seed 003: 不要讓其他玩家知道): P1's
    tensor is the same whichever shares P2 holds (of the same number), P2's own is not.

    This fails when the tensor reads the raw state: e.g. in engine/observation.py
    `Observer.fill`, replace `table, players, rnd, _ = position_view(self.prog, s, viewer)` by
    `table, players, rnd = s.table, s.players, s.round` — P2's shares then appear in P1's cells
    and the first assertion fails."""
    prog = program_for("manila")
    enc = InfoStateEncoder(prog, 3)
    k = [f.name for f in prog.rb.player_fields].index("shares")
    rng = random.Random(4)
    s, log, n = play(enc, 4, 0, rng)
    while not sum(s.players[1][k].values()):          # until P2's shares are dealt
        node = s.pending
        i = resolve_chance(s) if isinstance(node, Chance) else rng.randrange(node.count)
        log, n = enc.apply(s, log, n, i)
    other = s.clone()
    held = dict(other.players[1][k])
    count = sum(held.values())
    goods = len(prog.rb.enums["Good"].members)
    fresh = [g for g in range(goods) if not held.get(g)] + list(range(goods))
    swapped: dict[int, int] = {}
    for g in fresh[:count]:
        swapped[g] = swapped.get(g, 0) + 1
    other.players[1][k] = swapped
    assert swapped != held
    assert np.array_equal(enc.tensor(s, 0, log, n), enc.tensor(other, 0, log, n))
    assert np.array_equal(enc.tensor(s, 2, log, n), enc.tensor(other, 2, log, n))
    assert not np.array_equal(enc.tensor(s, 1, log, n), enc.tensor(other, 1, log, n))


def test_a_hidden_choice_shows_only_its_decider_to_the_others() -> None:
    """Manila's mortgage names the good to its owner only ("P3 mortgages a share": the share
    goes face down, seed 003 §信用貸款 牌面向下置於一旁): two mortgages of different goods
    give the other seats the same cells — the row says who decided, not what — and the
    mortgaging seat two different rows.

    This fails when the rows ignore who saw a choice: e.g. in engine/infostate.py let `seen_by`
    return `[True] * players` — the good's id then reaches P1's row and the first assertion
    fails."""
    prog = program_for("manila")
    enc = InfoStateEncoder(prog, 3)
    rng = random.Random(1)
    s, log, n = enc.replay(1, [])
    for _ in range(400):
        node = s.pending
        if isinstance(node, Decision):
            names = [enc.codec.names[q[0]] for q in enc.codec.sequences(s, node)]
            pair = [i for i, x in enumerate(names) if x == "anytime mortgage"][:2]
            if len(pair) == 2:
                break
        i = resolve_chance(s) if isinstance(node, Chance) else rng.randrange(node.count)
        log, n = enc.apply(s, log, n, i)
    else:
        pytest.fail("no seat could mortgage one of two goods in 400 steps")
    who = node.player
    after = []
    for i in pair:
        t = s.clone()
        tlog, tn = enc.apply(t, log, n, i)
        after.append((t, tlog, tn))
    (a, alog, an), (b, blog, bn) = after
    for viewer in range(3):
        ta, tb = enc.tensor(a, viewer, alog, an), enc.tensor(b, viewer, blog, bn)
        ra = rows(enc, ta)[an - 1]
        assert ra[who] == 1.0                          # everyone sees who decided
        if viewer == who:
            assert not np.array_equal(ta, tb)
            assert enc.codec.names[int(ra[3]) - 1] == "anytime mortgage"
        else:
            assert a.information_state(viewer) == b.information_state(viewer)
            assert np.array_equal(ta, tb)
            assert not ra[3:].any()


def test_branches_sharing_a_log_keep_their_own_rows() -> None:
    """Clones share one log: a branch that appends after another has copied, so each keeps
    the rows of its own game."""
    enc = encoder("felinia", 2)
    s, log, n = play(enc, 3, 20, random.Random(3))
    while isinstance(s.pending, Chance):
        log, n = enc.apply(s, log, n, resolve_chance(s))
    node = s.pending
    assert isinstance(node, Decision) and node.count >= 2
    a, b = s.clone(), s.clone()
    alog, an = enc.apply(a, log, n, 0)
    blog, bn = enc.apply(b, log, n, 1)
    assert alog is log and blog is not log
    _, rlog, rn = enc.replay(3, a.history)
    assert np.array_equal(enc.tensor(a, 0, alog, an), enc.tensor(a, 0, rlog, rn))
    _, rlog, rn = enc.replay(3, b.history)
    assert np.array_equal(enc.tensor(b, 0, blog, bn), enc.tensor(b, 0, rlog, rn))
    assert np.array_equal(enc.tensor(s, 0, log, n), enc.tensor(s, 0, rlog, n))


SHORT = ('game "Short" players 2..2\n'
         'player { n: int = 0 }\n'
         '{BOUNDS}'
         'round r limit 3 { phase a { for p in players { let k = choose p one of [1, 2]  '
         'p.n += k } } }\n'
         'score p: p.n\n')


def test_a_rulebook_without_the_longest_game_has_no_tensor() -> None:
    prog = program_text(SHORT.replace("{BOUNDS}", "bounds { options 1..2 }\n"))
    with pytest.raises(EncodeError) as e:
        InfoStateEncoder(prog, 2)
    assert e.value.hint == "declare bounds { decisions N  lists N } in the rulebook"


def test_a_game_longer_than_its_bound_is_an_error_naming_it() -> None:
    """Six decisions (three rounds of two players) against bounds { decisions 4 }."""
    prog = program_text(SHORT.replace("{BOUNDS}", "bounds { options 1..2  decisions 4 }\n"))
    enc = InfoStateEncoder(prog, 2)
    assert enc.total == enc.observer.total + 1 + 4 * (2 + 1)
    with pytest.raises(EncodeError, match=r"more than bounds \{ decisions 4 \}"):
        enc.replay(0, [0] * 6)


# ------------------------------------------------------------------ through OpenSpiel
def test_the_openspiel_game_gives_the_engines_tensors() -> None:
    """`information_state_tensor` of the adapter is the engine's tensor (plus the ids taken of
    a compound option), for every seat, along a game, after deserialising, and in a resampled
    world."""
    pyspiel = pytest.importorskip("pyspiel")
    import mercator.interpreter.research.openspiel as adapter  # noqa: F401  (registers)
    game = pyspiel.load_game("mercator", {"rulebook": "manila", "players": 3})
    assert game.get_type().provides_information_state_tensor
    enc = game.su.infostate
    assert game.information_state_tensor_shape() == [enc.total]
    rng = random.Random(5)
    state = game.new_initial_state()
    compound = resampled = decisions = 0
    while decisions < 90 and not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            continue
        decisions += 1
        p = state.current_player()
        s, log, n = enc.replay(0, state._s.history)
        for q in range(3):
            taken = state._taken if q == p else ()
            compound += bool(taken)
            want = enc.tensor(s, q, log, n, taken)
            assert np.array_equal(np.asarray(state.information_state_tensor(q), np.float32),
                                  want)
        if decisions % 30 == 1:
            back = game.deserialize_state(state.serialize())
            assert back.information_state_tensor(p) == state.information_state_tensor(p)
            world = state.resample_from_infostate(p, lambda: rng.random())
            assert world.information_state_tensor(p) == state.information_state_tensor(p)
            resampled += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert resampled >= 2 and compound >= 1
