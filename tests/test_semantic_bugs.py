"""Seeded semantic bugs that `explore` must find, shrink and replay; real rulebooks explore clean.

Every file in tests/fixtures/semantic_bugs/ is a `variant` of a real rulebook that edits ONE rule so
that one of the base's declared invariants breaks, but only deep in a game (after a whole voyage,
a sale, a Cathedral action and a deal, ...). Its first line is `# expect: INVARIANT TEXT`.

For each bug: `explore(prog, games=N, seed=S)` (N and S below, measured) must report exactly that
invariant, shrunk to a game far shorter than a typical game of the base, which (saved and loaded
back like `mercator check --save-failure` / `mercator replay` do) breaks the invariant again on
its last decision and not before. The N, S and bounds were measured; see docs/checking.md.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from shipped import shipped_program

from mercator.dsl.loader import load
from mercator.interpreter.tools.explore import explore
from mercator.interpreter.compiler import compile_program
from mercator.interpreter.tools.saves import load_save, save
from tests.explored import explored

FIXTURES = Path(__file__).parent / "fixtures" / "semantic_bugs"

# Decisions in a game of the base with random choices (30 games each, measured): the shrunk game
# must be much shorter than the shortest of them.
TYPICAL = {  # rulebook: (shortest, median) decisions of a random game
    "manila": (110, 168),
    "felinia": (220, 340),
    "die_haendler": (112, 191),
    "genoa": (231, 637),
}

# file, games N, seed S, (fewest, most) decisions in the shrunk game.  The lower bound says the
# invariant cannot break early (the reason is in each file's second line); the upper bound is
# what shrinking must get below (measured length, with room for small rulebook changes).
BUGS = [
    # measured: found in game 3, shrunk to 49 decisions (4 players), ~5 s
    ("manila_insurer_without_mortgage.rules", 100, 9, (10, 60)),
    # measured: found in game 15, shrunk to 29 decisions (2 players), ~8 s (seed 8 had come to
    # take ~20 s; seed 3, 10 s in one sweep, took 30 s in the next)
    ("felinia_forced_sale_uncapped.rules", 100, 7, (12, 60)),
    # measured: shrunk to 30 decisions (2 players), ~5 s (re-measured when one-option decisions
    # stopped being asked: seed 4 then took ~40 s)
    ("die_haendler_sold_goods_vanish.rules", 20, 3, (20, 100)),
    # measured: found in game 25, shrunk to 44 decisions (2 players), ~14 s (seed 17 had come to
    # take ~26 s)
    ("die_haendler_upkeep_paid_to_nobody.rules", 50, 6, (20, 100)),
    # (Genoa since issue 16: its games are long, so its bugs break early enough to shrink fast)
    # measured: shrunk to 1 decision (2 players), ~3 s: since the dice read blue = column (G12)
    # the shrunk game's tower starts on the Fabric warehouse, and the tower player takes its
    # action himself ("close: fabric_warehouse"); no game breaks it without that decision
    ("genoa_warehouse_goods_from_nowhere.rules", 20, 3, (1, 60)),
    # measured: shrunk to 5 decisions (2 players), ~5 s
    ("genoa_tile_from_nowhere.rules", 20, 2, (2, 60)),
]


def expected_invariant(path: Path) -> str:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# expect: "), f"{path.name}: first line must be '# expect: INVARIANT'"
    return first[len("# expect: "):].strip()


def base_of(name: str) -> str:
    return next(b for b in TYPICAL if name.startswith(b + "_"))


def test_every_fixture_is_listed_and_names_a_real_invariant() -> None:
    files = sorted(p.name for p in FIXTURES.glob("*.rules"))
    assert files == sorted(b[0] for b in BUGS) and len(files) >= 5
    for name in files:
        path = FIXTURES / name
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[1].startswith("# changed: ") and "deep" in lines[1], name
        res = load(str(path))
        assert res.rulebook is not None, [str(d) for d in res.diagnostics]
        texts = [text for text, *_ in compile_program(res.rulebook).invariants]
        assert expected_invariant(path) in texts, (name, texts)


@pytest.mark.parametrize("name,games,seed,bounds", BUGS, ids=[b[0][:-6] for b in BUGS])
def test_explore_finds_shrinks_and_replays_the_seeded_bug(name: str, games: int, seed: int,
                                                          bounds: tuple[int, int],
                                                          tmp_path: Path) -> None:
    path = FIXTURES / name
    want = expected_invariant(path)
    res, prog, report = explored(f"tests/fixtures/semantic_bugs/{name}", games, seed)
    f = report.finding
    assert f is not None, f"{name}: not found in {games} games (seed {seed})"
    assert f.kind == "invariant" and f.message == f"invariant broken: {want}", f.message

    # shrunk: far shorter than any random game of the base, and not shorter than the rule allows
    lo, hi = bounds
    assert lo <= len(f.decisions) <= hi, len(f.decisions)
    assert len(f.decisions) < TYPICAL[base_of(name)][0]
    assert len(f.labels) == len(f.decisions)

    # saved as `mercator check --save-failure` saves it, loaded back as `mercator replay` loads it
    target = tmp_path / "failure.json"
    save(str(target), str(path), res.sources, f.players, f.seed, f.decisions, f.labels)
    data = load_save(str(target))
    assert (data.players, data.seed, data.decisions) == (f.players, f.seed, f.decisions)

    # replayed decision by decision: the invariant holds until the last decision breaks it
    s = prog.new_game(data.players, data.seed)
    for step, (i, label) in enumerate(zip(data.decisions, data.labels), start=1):
        assert not s.over
        assert prog.check_invariants(s) == [], f"broken before decision {step}"
        assert s.pending.option(i).label == label
        prog.apply(s, i)
    assert want in prog.check_invariants(s)


# The real rulebooks: a moderate exploration finds nothing (the full 200-game run,
# `mercator check rulebooks/*.rules --explore 200 --seed 1`, is in docs/checking.md).
BASES = [
    ("rulebooks/manila.rules", 60, 1),
    ("rulebooks/felinia.rules", 60, 1),
    ("rulebooks/die_haendler.rules", 40, 1),
    ("rulebooks/genoa.rules", 10, 1),
]


@pytest.mark.parametrize("path,games,seed", BASES, ids=[Path(b[0]).stem for b in BASES])
def test_real_rulebook_explores_clean(path: str, games: int, seed: int) -> None:
    prog = shipped_program(Path(path).stem)
    report = explore(prog, games=games, seed=seed)
    assert report.finding is None, (report.finding.kind, report.finding.message,
                                    report.finding.players, report.finding.seed,
                                    report.finding.decisions)
    assert report.games == games
    assert report.ops_run > 0.5 * report.ops_total, report.uncovered
