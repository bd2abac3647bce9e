"""Chance, as docs/language.md §10.3 says: every random event (a roll, a random pick, a draw from
a bag, a shuffle) is a chance node in explicit-chance mode, its identical outcomes merged, each
with its weight and probability; a shuffle is one chance node per position.  Without explicit
chance the state's own generator draws, exactly as it always has (benchmarks/fingerprint.py
keeps those games byte-identical).

The issue these tests come from: "`explicit chance` does not cover `shuffle`: 20 Felinia games
with different sampled outcomes had the same ship deck."
"""
from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from fractions import Fraction
from math import factorial, prod
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shipped import shipped_program

from mercator.dsl import ast as A
from mercator.dsl.loader import load_text
from mercator.interpreter.agents.base import RandomAgent, agent_seed, play_out, resolve_chance
from mercator.interpreter.compiler.memo import blocks_of
from mercator.interpreter.engine.nodes import Chance, Decision
from mercator.interpreter.engine.program import Program
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.engine.state import State, rng_next
from mercator.interpreter.engine.values import bag_items

ROOT = Path(__file__).resolve().parent.parent
RULEBOOKS = sorted((ROOT / "rulebooks").glob("*.rules")) + \
    sorted((ROOT / "rulebooks" / "variants").glob("*.rules"))
HEAD = 'game "T" players 2..3\n'
PROPS = settings(max_examples=40, deadline=None)

# A decision first (so a test can set the table up), then the random event under test. It has
# two options: a decision with one would be made without asking (docs/language.md).
PAUSE = "let go = choose first(players) one of [0, 1]"
BAG = """
enum C { red, blue, green, black }
table { pool: bag<C> = {}  got: list<C> = [] }
round r limit 1 { phase a { %s  let c = draw from pool  add c to got } }
score p: 0
""" % PAUSE
DECK = """
table { deck: list<int> = []  done: int = 0 }
round r limit 1 { phase a { %s  shuffle deck  done += 1 } }
score p: 0
""" % PAUSE


def program(body: str) -> Program:
    res = load_text(HEAD + body, "t.rules")
    assert res.ok, "\n".join(str(d) for d in res.diagnostics)
    assert res.rulebook is not None
    return compile_program(res.rulebook)


@pytest.fixture(scope="module")
def bag_prog() -> Program:
    return program(BAG)


@pytest.fixture(scope="module")
def deck_prog() -> Program:
    return program(DECK)


def at_event(prog: Program, field: str, value: object, explicit: bool = True,
             seed: int = 0) -> State:
    """A game past its pause decision with table field `field` set to `value` first."""
    s = prog.new_game(2, seed, explicit_chance=explicit)
    assert isinstance(s.pending, Decision)
    prog.set(s, field, value)
    prog.apply(s, 0)
    return s


def labels(node: Chance) -> list[str]:
    return [o.label for o in node.options]


# ------------------------------------------------------------------ merged outcomes, weights

@PROPS
@given(st.dictionaries(st.integers(0, 3), st.integers(1, 6), min_size=2))
def test_a_bag_draw_lists_each_distinct_item_once_weighted_by_its_count(
        bag_prog: Program, bag: dict) -> None:
    """A draw from a bag: one outcome per distinct item (sorted), weight = the bag's count,
    probability count / total; the probabilities sum to 1; outcome i takes item i out."""
    s = at_event(bag_prog, "pool", dict(bag))
    node = s.pending
    assert isinstance(node, Chance) and node.what == "draw" and node.player == -1
    assert node.values == sorted(bag) and node.weights == [bag[k] for k in sorted(bag)]
    total = sum(bag.values())
    assert node.fractions == [Fraction(bag[k], total) for k in sorted(bag)]
    assert sum(node.fractions) == 1 and abs(sum(node.probabilities) - 1) < 1e-9
    assert node.probabilities == [bag[k] / total for k in sorted(bag)]
    assert node.count == len(bag) == len(node.options)
    members = ["red", "blue", "green", "black"]
    assert labels(node) == [members[k] for k in sorted(bag)]
    assert [node.option(i).label for i in range(node.count)] == labels(node)
    i = node.count - 1
    bag_prog.apply(s, i)
    left = dict(bag)
    left[node.values[i]] -= 1
    assert bag_prog.get(s, "got") == [node.values[i]]
    assert bag_prog.get(s, "pool") == {k: n for k, n in left.items() if n}


def test_a_bag_of_one_kind_is_drawn_without_a_chance_node(bag_prog: Program) -> None:
    """Four reds are one outcome: nothing for chance to decide."""
    s = at_event(bag_prog, "pool", {0: 4})
    assert s.over and bag_prog.get(s, "got") == [0] and bag_prog.get(s, "pool") == {0: 3}


@PROPS
@given(st.dictionaries(st.integers(0, 3), st.integers(1, 6), min_size=1), st.integers(0, 2**40))
def test_without_explicit_chance_a_bag_draw_uses_the_generator_as_before(
        bag_prog: Program, bag: dict, seed: int) -> None:
    """Seeded mode: the item is the bag's items-with-repeats at index (next generator output
    mod their number) — one generator step, none where the bag holds one kind only (as with
    explicit chance, where that is no chance node: found by the differential harness)."""
    s = at_event(bag_prog, "pool", dict(bag), explicit=False, seed=seed)
    items = bag_items(bag)
    rng = seed & (2**64 - 1)
    if len(set(items)) > 1:
        rng, z = rng_next(rng)
        want = items[z % len(items)]
    else:
        want = items[0]
    assert bag_prog.get(s, "got") == [want] and s.rng == rng


def test_random_one_of_a_list_with_repeats_merges_them() -> None:
    """`random one of [a, a, b]`: 2 outcomes, a with 2/3 and b with 1/3 (outcomes in the list's
    order, by first occurrence); `random one of` a list already distinct keeps its order."""
    prog = program("""
enum K { a, b, c }
table { got: list<K> = [] }
round r limit 1 { phase x {
  let k = random one of [a, a, b]  add k to got
  let j = random one of [c, b, a, b]  add j to got
} }
score p: 0
""")
    s = prog.new_game(2, 0, explicit_chance=True)
    node = s.pending
    assert isinstance(node, Chance) and node.what == "random pick"
    assert labels(node) == ["a", "b"] and node.weights == [2, 1]
    assert node.fractions == [Fraction(2, 3), Fraction(1, 3)]
    prog.apply(s, "b")
    node = s.pending
    assert isinstance(node, Chance) and labels(node) == ["c", "b", "a"]
    assert node.weights == [1, 2, 1]
    prog.apply(s, "a")
    assert s.over and prog.get(s, "got") == [prog.member("b"), prog.member("a")]


def test_a_pick_among_alike_items_is_no_draw_in_either_mode() -> None:
    """`random one of [a, a]` is one outcome: with explicit chance no node, and without it no
    step of the state's generator either, so that both modes go on with the same generator
    and play the same game (the differential harness found a draw from a bag of one kind that
    used a step in one mode and none in the other)."""
    prog = program("""
enum K { a, b }
table { got: list<K> = [] }
round r limit 1 { phase x {
  let k = random one of [a, a]  add k to got
  let d = roll 6  add (if d > 3 then a else b) to got
} }
score p: 0
""")
    for seed in range(6):
        seeded = prog.new_game(2, seed)
        explicit = prog.new_game(2, seed, explicit_chance=True)
        assert isinstance(explicit.pending, Chance) and explicit.pending.what == "roll"
        assert seeded.over and seeded.rng != seed & (2**64 - 1)
        face = 1 + explicit.randbelow(6)            # the same step of the same generator
        prog.apply(explicit, face - 1)
        assert prog.get(explicit, "got") == prog.get(seeded, "got")


def test_a_roll_is_uniform_over_its_faces() -> None:
    """`roll 4`: the faces 1..4 in order, each with weight 1."""
    prog = program("""
table { total: int }
round r limit 1 { phase x { let d = roll 4  total += d } }
score p: 0
""")
    s = prog.new_game(2, 0, explicit_chance=True)
    node = s.pending
    assert isinstance(node, Chance) and node.what == "roll"
    assert labels(node) == ["1", "2", "3", "4"] and node.weights == [1] * 4
    assert node.fractions == [Fraction(1, 4)] * 4
    prog.apply(s, 2)
    assert prog.get(s, "total") == 3


# ------------------------------------------------------------------ shuffles

@PROPS
@given(st.permutations(list(range(7))).flatmap(
    lambda p: st.integers(0, 7).map(lambda n: [x for x in p if x < n])),
    st.randoms(use_true_random=False))
def test_a_shuffle_of_n_distinct_items_asks_n_minus_1_nodes_and_gives_the_chosen_order(
        deck_prog: Program, deck: list, rnd: random.Random) -> None:
    """A uniform permutation drawn position by position: at step i the outcomes are the items
    not yet placed (weight 1 each; outcome 0 the one already there); the last position needs no
    node; the list comes out exactly in the order chosen."""
    want = list(deck)
    rnd.shuffle(want)
    s = at_event(deck_prog, "deck", list(deck))
    asked = 0
    for i in range(len(deck) - 1):
        node = s.pending
        assert isinstance(node, Chance) and node.what == "shuffle"
        here = deck_prog.get(s, "deck")
        assert here[:i] == want[:i]                             # the positions placed so far
        assert node.values == here[i:] and node.weights == [1] * (len(deck) - i)
        assert node.fractions == [Fraction(1, len(deck) - i)] * (len(deck) - i)
        deck_prog.apply(s, str(want[i]))
        asked += 1
    assert asked == max(len(deck) - 1, 0) and s.over
    assert deck_prog.get(s, "deck") == want and deck_prog.get(s, "done") == 1


@PROPS
@given(st.lists(st.integers(0, 2), max_size=7), st.randoms(use_true_random=False))
def test_a_shuffle_merges_identical_items_and_skips_steps_with_one_outcome(
        deck_prog: Program, deck: list, rnd: random.Random) -> None:
    """Identical items are one outcome, weighted by how many of them are left; a step whose
    items left are all alike is resolved without a node."""
    s = at_event(deck_prog, "deck", list(deck))
    chosen: list = []
    while isinstance(s.pending, Chance):
        node = s.pending
        here = deck_prog.get(s, "deck")
        i = len(chosen)
        left = Counter(here[i:])
        assert len(left) > 1 and node.what == "shuffle"
        assert node.values == list(dict.fromkeys(here[i:]))
        assert node.weights == [left[v] for v in node.values]
        k = rnd.randrange(node.count)
        chosen.append(node.values[k])
        deck_prog.apply(s, k)
    out = deck_prog.get(s, "deck")
    assert s.over and sorted(out) == sorted(deck) and out[:len(chosen)] == chosen
    assert len(set(out[len(chosen):])) <= 1            # what no node was asked for: all alike


def test_a_shuffle_gives_every_distinct_arrangement_the_same_probability(
        deck_prog: Program) -> None:
    """[1, 1, 2, 3] has 4!/2! = 12 arrangements: walking the whole chance tree, each is reached
    once, with probability exactly 1/12."""
    reached: dict[tuple, Fraction] = {}

    def walk(s: State, p: Fraction) -> None:
        node = s.pending
        if not isinstance(node, Chance):
            arrangement = tuple(deck_prog.get(s, "deck"))
            assert arrangement not in reached
            reached[arrangement] = p
            return
        for i, f in enumerate(node.fractions):
            t = s.clone()
            deck_prog.apply(t, i)
            walk(t, p * f)
    walk(at_event(deck_prog, "deck", [1, 1, 2, 3]), Fraction(1))
    assert set(reached) == set(itertools.permutations([1, 1, 2, 3]))
    assert len(reached) == factorial(4) // factorial(2)
    assert set(reached.values()) == {Fraction(1, 12)}


@PROPS
@given(st.lists(st.integers(0, 50), max_size=12), st.integers(0, 2**40))
def test_without_explicit_chance_a_shuffle_is_fisher_yates_with_the_generator(
        deck_prog: Program, deck: list, seed: int) -> None:
    """Seeded mode is unchanged: Fisher–Yates from the last position down, j <-> (next output
    mod j + 1)."""
    s = at_event(deck_prog, "deck", list(deck), explicit=False, seed=seed)
    want, rng = list(deck), seed & (2**64 - 1)
    for j in range(len(want) - 1, 0, -1):
        rng, z = rng_next(rng)
        k = z % (j + 1)
        want[j], want[k] = want[k], want[j]
    assert deck_prog.get(s, "deck") == want and s.rng == rng


@PROPS
@given(st.integers(0, 6), st.lists(st.integers(0, 99), min_size=2, max_size=9, unique=True),
       st.randoms(use_true_random=False))
def test_a_state_in_the_middle_of_a_shuffle_survives_a_json_round_trip(
        deck_prog: Program, cut: int, deck: list, rnd: random.Random) -> None:
    """The shuffle's progress is data in the frame: a state written to JSON after some of the
    steps and read back recomputes the same node and goes on to the same end."""
    s = at_event(deck_prog, "deck", list(deck))
    for _ in range(min(cut, len(deck) - 2)):
        deck_prog.apply(s, rnd.randrange(s.pending.count))
    r = State.from_json(json.loads(json.dumps(s.to_json())))
    node, again = s.pending, deck_prog.resume(r)
    assert isinstance(node, Chance) and isinstance(again, Chance) and r == s
    assert (again.what, labels(again), again.weights) == (node.what, labels(node), node.weights)
    while not s.over:
        k = rnd.randrange(s.pending.count)
        deck_prog.apply(s, k)
        deck_prog.apply(r, k)
        assert r == s and r.digest() == s.digest()
    assert r.over and deck_prog.get(r, "deck") == deck_prog.get(s, "deck")


SHUFFLES_IN_RUNS = """
table { deck: list<int> = [3, 1, 2]  decks: list<list<int>> = [[1, 2], [4, 5, 6]]  n: int  m: int }
round r limit 2 { phase x {
  n += 1
  if n > 0 { shuffle deck  m += 1 }
  for k in 0..1 { n += 10  shuffle decks[k]  m += 100 }
  n += 1000
} }
score p: m
"""


@pytest.mark.parametrize("one_by_one", [False, True])
def test_a_shuffle_inside_a_run_of_fused_statements_suspends_and_goes_on(
        one_by_one: bool) -> None:
    """interpreter/compiler/fuse.py fuses runs of statements that never suspend; an explicit shuffle
    suspends, inside an `if` or a `for` too: the statements around it run once each, whether
    the ops are fused or run one by one (coverage tracing)."""
    prog = program(SHUFFLES_IN_RUNS)
    prog.coverage = set() if one_by_one else None
    s = prog.new_game(2, 0, explicit_chance=True)
    kinds = []
    while isinstance(s.pending, Chance):
        kinds.append(s.pending.what)
        prog.apply(s, s.pending.count - 1)          # the last item left, each time
        r = State.from_json(s.to_json())
        assert type(prog.resume(r)) is type(s.pending) and r == s
    prog.coverage = None
    assert kinds == ["shuffle"] * (2 + 1 + 2) * 2
    assert prog.get(s, "n") == 2 * 1021 and prog.get(s, "m") == 2 * 201
    # the last item left to each position: [3, 1, 2] -> [2, 3, 1] -> [1, 2, 3]
    assert prog.get(s, "deck") == [1, 2, 3]
    assert prog.get(s, "decks") == [[1, 2], [5, 6, 4]]   # [4, 5, 6] -> [6, 4, 5] -> [5, 6, 4]


# ------------------------------------------------------------------ the issue, and every game

def weighted_choice(node: Chance, rng: random.Random) -> int:
    """An outcome of node drawn with its probability, by an outside generator."""
    return rng.choices(range(node.count), weights=node.weights)[0]


def test_felinia_games_with_different_chance_outcomes_get_different_ship_decks() -> None:
    """The issue's reproduction: 20 Felinia games from the same seed, explicit chance, outcomes
    picked at random with different seeds.  The ship deck is shuffled in setup (seed 004
    §起始設置 4: the 5 blue tiles shuffled, then the grey ones, stacked on the blue), so the 20
    decks differ; the blue tiles stay at the bottom of every one."""
    prog = shipped_program("felinia")
    blue = prog.member("blue")
    decks = []
    for k in range(20):
        s = prog.new_game(3, seed=0, explicit_chance=True)
        rng = random.Random(k)
        shuffles = 0
        while isinstance(s.pending, Chance):
            shuffles += s.pending.what == "shuffle"
            prog.apply(s, weighted_choice(s.pending, rng))
        assert isinstance(s.pending, Decision) and shuffles > 0
        in_port = [ship[0] for ship in prog.get(s, "ships")]
        deck = prog.get(s, "ship_deck")
        assert all(prog.consts["ship_tiles"][t][5] == blue for t in deck[-5:])
        decks.append(tuple(in_port + deck))
    assert len(set(decks)) == 20


@pytest.fixture(scope="module", params=RULEBOOKS, ids=lambda p: p.stem)
def any_prog(request: pytest.FixtureRequest) -> Program:
    return shipped_program(request.param.stem)


def test_every_rulebook_plays_to_the_end_with_explicit_chance(any_prog: Program) -> None:
    """Every rulebook and variant, at its fewest and most players: a game in explicit mode with
    chance answered by weighted random choice (interpreter/agents/base.py's resolve_chance) ends, and
    every chance node on the way has at least 2 distinct outcomes with positive weights."""
    for n in sorted({any_prog.min_players, any_prog.max_players}):
        s = any_prog.new_game(n, seed=n, explicit_chance=True)
        nodes: list[Chance] = []

        def seen(state: State, node: object, idx: int, label: str) -> None:
            if isinstance(node, Chance):
                nodes.append(node)
        agents = [RandomAgent(agent_seed(n, p)) for p in range(n)]
        play_out(any_prog, s, agents, on_step=seen, max_decisions=50_000)
        assert s.over and any_prog.check_invariants(s) == []
        for node in nodes:
            shown = labels(node)
            assert node.count >= 2 and len(node.weights) == node.count
            assert len(set(shown)) == len(shown) and all(w > 0 for w in node.weights)
            assert sum(node.fractions) == 1
        assert nodes, "every shipped game has chance in it"
        assert ("shuffle" in {node.what for node in nodes}) == shuffles(any_prog)


def shuffles(prog: Program) -> bool:
    """Does any body of the rulebook have a `shuffle` statement?"""
    rb = prog.rb
    bodies = [rb.setup, *rb.phases, *rb.procs.values(), *rb.triggers, *rb.actions]

    def walk(b: A.Block) -> bool:
        return any(isinstance(x, A.Shuffle) or any(walk(sub) for sub in blocks_of(x))
                   for x in b.stmts)
    return any(b is not None and b.block is not None and walk(b.block) for b in bodies)


def test_weighted_chance_is_sampled_with_its_probabilities() -> None:
    """resolve_chance draws outcome i with probability weight_i / total: over 6000 draws from a
    bag of 3 red, 1 blue and 2 green, a chi-square test at the 0.1% level (fixed seed)."""
    prog = program(BAG)
    s = at_event(prog, "pool", {0: 3, 1: 1, 2: 2}, seed=12345)
    node = s.pending
    assert isinstance(node, Chance) and node.weights == [3, 1, 2]
    draws = 6000
    seen = Counter(resolve_chance(s) for _ in range(draws))
    expected = [draws * f for f in node.fractions]
    chi2 = sum((seen[i] - e) ** 2 / e for i, e in enumerate(expected))
    assert chi2 < 13.82                                   # chi-square, 2 degrees of freedom
    assert prod(seen[i] for i in range(3)) > 0
