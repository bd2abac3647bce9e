"""Action ids (interpreter/engine/encoding.py): the vocabulary derived from a rulebook's types,
options written out as id sequences, taking a decision one id at a time, chance outcomes with
their probabilities, and the static spec."""
from __future__ import annotations

import marshal
import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mercator.dsl.types import INT
from mercator.interpreter.engine.encoding import ActionCodec, EncodeError
from mercator.interpreter.engine.nodes import Chance, Decision, Terminal

from game_driver import program

ROOT = Path(__file__).resolve().parent.parent
CODES = ROOT / "tests" / "fixtures" / "encoding" / "codes.rules"
SHIPPED = ["rulebooks/manila.rules", "rulebooks/die_haendler.rules", "rulebooks/felinia.rules",
           "rulebooks/genoa.rules",
           "rulebooks/examples/bazaar.rules", "rulebooks/examples/isles.rules"]


@pytest.fixture(scope="module")
def codes():
    return program(CODES)


def test_the_vocabulary_follows_the_rulebooks_types(codes) -> None:
    c = ActionCodec(codes, 2)
    assert c.names == ("pass", "end", "none", "false", "true", "P1", "P2",
                       "Colour.red", "Colour.blue", "-1", "0", "1", "2", "3", "anytime bump")
    assert ActionCodec(codes, 3).names[5:8] == ("P1", "P2", "P3")


def test_the_spec_of_two_players(codes) -> None:
    spec = ActionCodec(codes, 2).spec()
    assert (spec.rulebook, spec.players, spec.num_distinct_actions, spec.max_chance_outcomes) == \
        ("Codes", 2, 15, 15)
    # the longest value is a map<Colour, int> of at most 2 keys: 2 * (1 + 1) + end
    assert (spec.max_decisions, spec.max_steps_per_decision, spec.max_game_length) == (40, 5, 200)
    assert spec.score_bounds == (-10, 10)
    assert len(spec.rulebook_sha256) == 64


def test_each_kind_of_value_is_written_out_by_its_type(codes) -> None:
    c = ActionCodec(codes, 2)
    s = codes.new_game(2, 0, explicit_chance=True)
    node = s.pending
    assert isinstance(node, Decision)
    # pass; Move {colour, steps} for red -1, 0, 1 then blue; bump(red), bump(blue)
    assert c.sequences(s, node) == [(0,), (7, 9), (7, 10), (7, 11), (8, 9), (8, 10), (8, 11),
                                    (14, 7), (14, 8)]
    node = codes.apply(s, 1)
    # a subset of [red, blue]: its items, then end
    assert c.sequences(s, node)[:4] == [(1,), (7, 1), (8, 1), (7, 8, 1)]
    node = codes.apply(s, 3)
    assert c.sequences(s, node)[:2] == [(5,), (6,)]          # a seat
    node = codes.apply(s, 0)
    assert c.sequences(s, node)[:2] == [(4,), (3,)]          # true, false
    node = codes.apply(s, 0)
    # maps: each key in order with its value, then end ({blue: 2, red: 3}: red first)
    assert c.sequences(s, node)[:2] == [(7, 11, 1), (7, 13, 8, 12, 1)]
    node = codes.apply(s, 1)
    assert isinstance(node, Chance)
    seqs = c.sequences(s, node)
    assert seqs == [(11,), (12,), (13,)]                     # roll 3: the integers 1..3
    assert c.chance_outcomes(seqs, node.weights, ()) == [(11, 1 / 3), (12, 1 / 3), (13, 1 / 3)]


def test_a_decision_is_taken_one_id_at_a_time(codes) -> None:
    c = ActionCodec(codes, 2)
    s = codes.new_game(2, 0)
    seqs = c.sequences(s, s.pending)
    assert c.legal_ids(seqs, ()) == [0, 7, 8, 14]             # pass, a red move, a blue move, bump
    assert c.legal_ids(seqs, (8,)) == [9, 10, 11]
    assert c.decode(seqs, (8,)) is None and c.decode(seqs, (8, 11)) == 6
    assert c.decode(seqs, (0,)) == 0


def test_ids_the_options_agree_on_are_taken_without_asking(codes) -> None:
    c = ActionCodec(codes, 2)
    seqs = [(7, 9), (7, 10), (8, 9)]
    assert c.settle(seqs, ()) == ()                            # 7 or 8: asked
    assert c.settle([(7, 9, 1), (7, 9, 2)], ()) == (7, 9)     # both start 7, 9
    assert c.settle([(7, 9, 1)], (7,)) == (7, 9, 1)           # complete: stops there


def test_an_integer_outside_the_bounds_has_no_id(codes) -> None:
    c = ActionCodec(codes, 2)
    out: list[int] = []
    c.write(3, INT, out)
    assert out == [13]
    with pytest.raises(EncodeError) as e:
        c.write(4, INT, out)
    assert e.value.message == "the integer 4 is outside bounds { options -1..3 }"
    assert e.value.span is not None and e.value.span.line == 6     # the 'options' line


def _walk_all(prog, path: str, players: int, seed: int, steps: int) -> int:
    """Play `steps` random decisions (explicit chance), checking at each node that the
    sequences are distinct, prefix-free, below the vocabulary's size, and that each option
    is reached by taking its ids one at a time. Returns the nodes checked."""
    c = ActionCodec(prog, players)
    s = prog.new_game(players, seed, explicit_chance=True)
    rng = random.Random(seed)
    node = s.pending
    checked = 0
    while not isinstance(node, Terminal) and checked < steps:
        seqs = c.sequences(s, node)
        assert len(seqs) == node.count
        assert len(set(seqs)) == len(seqs), f"{path}: two options with one sequence at {node.span}"
        for q in seqs:
            assert all(0 <= a < c.size for a in q)
            assert not any(r != q and r[:len(q)] == q for r in seqs), "a prefix of another"
        for i, q in enumerate(seqs):
            taken: tuple[int, ...] = ()
            while c.decode(seqs, taken) is None:
                legal = c.legal_ids(seqs, taken)
                assert q[len(taken)] in legal
                taken = c.settle(seqs, taken + (q[len(taken)],))
            assert c.decode(seqs, taken) == i
        if isinstance(node, Chance):
            # the conditional probabilities, id by id, multiply to the outcome's own
            for q, w in zip(seqs, node.weights):
                p = Fraction(1)
                for k in range(len(q)):
                    outs = dict(c.chance_outcomes(seqs, node.weights, q[:k]))
                    assert sum(outs.values()) == pytest.approx(1.0)
                    p *= Fraction(outs[q[k]]).limit_denominator(10 ** 6)
                assert float(p) == pytest.approx(w / node.total)
        checked += 1
        node = prog.apply(s, rng.randrange(node.count))
    return checked


@pytest.mark.parametrize("path", SHIPPED)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10 ** 6), extra=st.integers(0, 2))
def test_every_option_of_a_shipped_rulebook_has_one_id_sequence(path, seed, extra) -> None:
    prog = _programs(path)
    g = prog.rb.game
    players = min(g.min_players + extra, g.max_players)
    assert _walk_all(prog, path, players, seed, 150) > 0


_CACHE: dict = {}


def _programs(path: str):
    if path not in _CACHE:
        _CACHE[path] = program(ROOT / path)
    return _CACHE[path]


def test_the_same_id_means_the_same_value_in_every_state() -> None:
    """Manila: the id of a Space is the same wherever a Space is offered."""
    prog = _programs("rulebooks/manila.rules")
    c = ActionCodec(prog, 4)
    base = c.enum_base["Space"]
    seen: dict[int, str] = {}
    for seed in range(5):
        s = prog.new_game(4, seed)
        rng = random.Random(seed)
        while not s.over:
            node = s.pending
            if node.vtype is not None and getattr(node.vtype, "name", "") == "Space":
                for v, q in zip(node.values, c.sequences(s, node)[node.allow_pass:]):
                    assert q == (base + v,)
                    assert seen.setdefault(q[0], node.labeller(v)) == node.labeller(v)
            prog.apply(s, rng.randrange(node.count))
    assert len(seen) >= 10


def _written(c: ActionCodec, s, node) -> list[tuple[int, ...]]:
    """The ids of each option as `write` gives them, value by value (the reference the
    specialised writers of `sequences` must equal)."""
    out: list[tuple[int, ...]] = [(c.PASS,)] if isinstance(node, Decision) and node.allow_pass \
        else []
    for v in node.values:
        ids: list[int] = []
        c.write(v, node.vtype, ids, s)
        out.append(tuple(ids))
    if isinstance(node, Decision):
        for _, bid, args in node.actions:
            ids = [c.action_base[c.prog.body_names[bid].split(" ", 1)[1]]]
            for a, at in zip(args, c.action_params.get(bid, ())):
                c.write(a, at, ids, s)
            out.append(tuple(ids))
    return out


@pytest.mark.parametrize("path, players", [(p, n) for p in SHIPPED[:4] for n in (2, 3)])
def test_the_specialised_writers_give_the_ids_write_gives(path: str, players: int) -> None:
    """sequences() writes a one-id value, a record or a collection by a function made once
    per type (no label, no dispatch on the kind per value): the same ids as write()."""
    prog = _programs(path)
    g = prog.rb.game
    players = max(g.min_players, min(players, g.max_players))
    c = ActionCodec(prog, players)
    checked = 0
    for s, node in _random_nodes(prog, players, 2, 400):
        assert c.sequences(s, node) == _written(c, s, node)
        checked += 1
    assert checked > 100


def _random_nodes(prog, players: int, seeds: int, steps: int):
    """(state, node) at each step of random games (explicit chance) of seeds 0 .. seeds - 1,
    at most `steps` steps a game; the state moves on when the next pair is asked for."""
    for seed in range(seeds):
        s = prog.new_game(players, seed, explicit_chance=True)
        rng = random.Random(seed)
        for _ in range(steps):
            if s.over:
                break
            node = s.pending
            yield s, node
            prog.apply(s, rng.randrange(node.count))


def test_taking_one_id_is_settle_then_decode(codes) -> None:
    c = ActionCodec(codes, 2)
    s = codes.new_game(2, 0, explicit_chance=True)
    seqs = c.sequences(s, s.pending)
    for taken in [(), (7,), (14,)]:
        for a in c.legal_ids(seqs, taken):
            now = c.settle(seqs, taken + (a,))
            assert c.take(seqs, taken, a) == (now, c.decode(seqs, now))


def test_a_menu_seen_before_is_the_same_list_and_its_ids_are_sorted_once() -> None:
    """sequences() remembers a menu by its type and values: Manila's bids from 1 to the same
    cash, asked again in another game, are the very list written the first time, and
    legal_ids() of it is what sorting its first ids gives (a copy: the caller may change it)."""
    prog = _programs("rulebooks/manila.rules")
    c = ActionCodec(prog, 3)
    firsts: dict = {}
    again = 0
    for seed in range(3):
        s = prog.new_game(3, seed)
        rng = random.Random(seed)
        while not s.over:
            seqs = c.sequences(s, s.pending)
            assert seqs == _written(c, s, s.pending)
            legal = c.legal_ids(seqs, ())
            assert legal == sorted({q[0] for q in seqs})
            legal.append(-1)                          # the caller's own list
            assert c.legal_ids(seqs, ()) == sorted({q[0] for q in seqs})
            key = (id(s.pending.vtype), tuple(map(tuple, seqs)))
            if key in firsts:
                again += 1
                assert firsts[key] is seqs
            firsts[key] = seqs
            prog.apply(s, rng.randrange(s.pending.count))
    assert again > 100


@pytest.mark.parametrize("path", SHIPPED)
def test_a_menu_takes_ids_as_its_sequences_do(path: str) -> None:
    """menu() keeps one-id options as plain ints and takes them with tuple.index: every
    option, taken one id at a time through the menu, gives the legal ids, the settled ids and
    the option that take() and legal_ids() give on the sequences; chance outcomes the same
    probabilities; an id no option has names nothing."""
    prog = _programs(path)
    g = prog.rb.game
    players = g.min_players
    c = ActionCodec(prog, players)
    checked = 0
    for s, node in _random_nodes(prog, players, 2, 300):
        m = c.menu(s, node)
        seqs = _written(c, s, node)              # (the menu's own made only at the end)
        assert m.legal(()) == c.legal_ids(seqs, ())
        for q in seqs:
            taken: tuple[int, ...] = ()
            while True:
                assert m.legal(taken) == c.legal_ids(seqs, taken)
                if isinstance(node, Chance):
                    assert m.outcomes(node.weights, taken) == \
                        c.chance_outcomes(seqs, node.weights, taken)
                got = m.take(taken, q[len(taken)])
                assert got == c.take(seqs, taken, q[len(taken)])
                taken, i = got
                if i is not None:
                    break
        assert m.take((), c.size) == c.take(seqs, (), c.size) == ((c.size,), None)
        assert m.seqs == seqs
        checked += 1
    assert checked > 50


def _same_as_written(c: ActionCodec, s, node, m) -> None:
    """Menu m of node gives, option by option and id by id, what the sequences `write` gives
    do under the codec's own functions on sequences."""
    seqs = _written(c, s, node)
    assert m.legal(()) == c.legal_ids(seqs, ())
    for q in seqs:
        taken: tuple[int, ...] = ()
        while True:
            if taken:
                assert m.legal(taken) == c.legal_ids(seqs, taken)
            got = m.take(taken, q[len(taken)])
            assert got == c.take(seqs, taken, q[len(taken)])
            taken, i = got
            if i is not None:
                break
    assert m.take((), c.size) == ((c.size,), None)
    assert m.seqs == seqs
    assert dict(m.long) == {k: q for k, q in enumerate(seqs) if len(q) != 1}


@pytest.mark.parametrize("path", SHIPPED)
def test_menus_made_of_parts_are_the_menus_of_their_sequences(path: str) -> None:
    """A decision's menu is joined from its values' part and its any-time actions' part, each
    remembered on its own, with the values' ids made by arithmetic (a run of whole numbers by
    `range`) and the navigation of longer options shared by the menus of one part. At every
    decision of random games, at the rulebook's smallest and largest player count, the menu
    of a codec that has seen the game so far (parts and navigations shared) and of a new
    codec (every part new) takes every option id by id as the sequences `write` gives; and
    the fast paths were taken (runs, parts met again beside other actions, shared
    navigations: in Manila, whose mortgages are offered beside most menus), so that this
    compares them and not the general path with itself."""
    prog = _programs(path)
    g = prog.rb.game
    runs = again = shared = 0
    for players in sorted({g.min_players, g.max_players}):
        warm, cold = ActionCodec(prog, players), ActionCodec(prog, players)
        parts_seen: dict = {}
        for s, node in _random_nodes(prog, players, 2, 250):
            if not isinstance(node, Decision):
                continue
            for memory in (cold._menus, cold._parts, cold._tails, cold._actions):
                memory.clear()                # (as a new codec: every part new)
            for c in (cold, warm):
                m = c.menu(s, node)
                _same_as_written(c, s, node, m)
            values = node.values
            if values and all(type(v) is int for v in values) and \
                    values == list(range(values[0], values[0] + len(values))) and \
                    warm._kinds.get(id(node.vtype), (0, 0, None))[2] is not None:
                runs += 1
            if isinstance(node.vtype, tuple):
                continue
            try:
                pkey = (id(node.vtype), node.allow_pass, marshal.dumps(values, 2))
            except ValueError:                # (not remembered)
                continue
            assert pkey in warm._parts
            if parts_seen.setdefault(pkey, m) is not m:
                again += 1                    # the same values' part in another menu
                if m._navs is not None and parts_seen[pkey]._navs is not None and \
                        m._navs[1] is parts_seen[pkey]._navs[1] and m._navs[1].long:
                    shared += 1
    if path.endswith("manila.rules"):       # (its mortgages are offered beside most menus)
        assert runs > 20 and again > 20 and shared > 0


def test_values_with_an_id_by_arithmetic_are_written_as_write_writes_them() -> None:
    """_by_offset: a run of whole numbers, values out of order and repeated, None, and values
    outside the options' range (no id by arithmetic: None, and the general path's `write`
    says why), against the ids write gives one value at a time."""
    prog = _programs("rulebooks/manila.rules")
    c = ActionCodec(prog, 3)
    lo, hi = c.int_range
    base = c._offset(INT)
    for values in ([1, 2, 3, 4], [lo, lo + 1], [hi - 1, hi], [5], [3, 1, 2], [2, 2, 7, 1],
                   [0, 1, 3, 4], list(range(lo, hi + 1))):
        got = c._by_offset(values, base)
        assert got is not None
        mine, ones = got
        want = []
        for v in values:
            c.write(v, INT, want)
        assert mine == want and ones == sorted(set(want))
    for values in ([1, None, 3], [None], [hi, hi + 1], [lo - 1, lo], [hi + 1]):
        assert c._by_offset(values, base) is None


def test_collections_and_records_of_one_id_values_are_written_as_write_writes_them() -> None:
    """The writers made by `_by_offsets` (records, lists, bags and maps of values with an id
    by arithmetic) give write's ids, and hand what they cannot write (None, out of range, a
    record of another length, a list too long) to the composed writer, which writes it or
    refuses as write does."""
    from mercator.dsl.types import Type
    prog = _programs("rulebooks/manila.rules")
    c = ActionCodec(prog, 3)
    lo, hi = c.int_range
    good = prog.rb.enums["Good"]
    assert good.kind == "enum" and len(good.members) == 4
    rec = Type("record", name="R", members=("good", "n"), field_types=(good, INT))
    cases = [
        (Type("map", args=(good, INT)), [{0: 1, 2: 3}, {}, {1: hi}, {0: lo}, {3: 0, 0: 5},
                                        {0: hi + 1}, {0: None}]),
        (Type("list", args=(INT,)), [[1, 2, 3], [], [3, 1], [hi + 1], [None], [lo]]),
        (Type("bag", args=(good,)), [{0: 2, 1: 1}, [2, 0, 0], {}]),
        (rec, [[0, 1], [3, hi], (1, lo), [0, hi + 1], [None, 1], None]),
    ]
    for t, values in cases:
        w = c._writer(t)
        assert w is not None
        for v in values:
            want: list[int] = []
            try:
                c.write(v, t, want)
            except EncodeError:
                with pytest.raises(EncodeError):
                    w(v)
                continue
            assert w(v) == want, (t, v)
