"""The native path (issue 37's moonshot, interpreter/compiler/native.py): the generated code of
a rulebook compiled by Cython plays the same games as the pure-Python path, decision by
decision, through `apply` and `playout`; where Cython is missing the pure-Python path is used
with one warning line. Skipped where Cython or a C compiler is missing; a small example
rulebook, compiled without optimisation (-O0) into a fresh cache, keeps it to seconds."""
from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import sysconfig

import pytest

from mercator.dsl.loader import load
from mercator.interpreter.compiler import compile_program, native
from mercator.interpreter.tools.rulebooks import ROOT

try:
    import Cython  # noqa: F401
    HAVE_CYTHON = True
except ImportError:
    HAVE_CYTHON = False
HAVE_CC = shutil.which(os.environ.get("CC") or str(sysconfig.get_config_var("CC") or "cc")
                       .split()[0]) is not None or shutil.which("gcc") is not None

needs_native = pytest.mark.skipif(not (HAVE_CYTHON and HAVE_CC),
                                  reason="Cython or a C compiler is missing")
EXAMPLE = os.path.join(ROOT, "rulebooks", "examples", "parade.rules")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> str:
    where = tmp_path_factory.mktemp("native-cache")
    os.chmod(where, 0o700)
    return str(where)


@pytest.fixture
def native_env(cache: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("MERCATOR_CACHE_DIR", cache)
    monkeypatch.setenv("MERCATOR_NATIVE_CFLAGS", "-O0")
    return cache


def _games(prog, players: int, games: int) -> list:
    out = []
    for i in range(games):
        s = prog.new_game(players, i)
        rng = random.Random(i + 1_000_003)
        steps = []
        while not s.over:
            n = s.pending.count
            c = rng.randrange(n)
            steps.append((n, c))
            prog.apply(s, c)
        out.append((steps, list(s.history), s.result.scores if s.result is not None else None))
    return out


def _playouts(prog, players: int, games: int) -> list:
    out = []
    for i in range(games):
        s = prog.new_game(players, i)
        n = prog.playout(s, random.Random(i + 1_000_003))
        out.append((n, list(s.history)))
    return out


@needs_native
def test_the_native_path_plays_the_same_games_decision_by_decision(native_env: str) -> None:
    rb = load(EXAMPLE).rulebook
    plain = compile_program(rb, native=False)
    fast = compile_program(rb, native=True)
    link = getattr(fast, "native", None)
    assert link is not None, "the native path was not taken"
    assert link.hits > 0 and native.last["pieces"] > 0
    for players in (2, 3):
        assert _games(fast, players, 8) == _games(plain, players, 8)
        assert _playouts(fast, players, 8) == _playouts(plain, players, 8)
    # compiled once: the second program is loaded from the cache (its own copy of the module)
    again = compile_program(rb, native=True)
    assert native.last["compile_seconds"] == 0.0
    assert getattr(again, "native", None) is not None
    assert _games(again, 2, 3) == _games(plain, 2, 3)


@needs_native
def test_the_helpers_the_generated_code_calls_are_compiled_with_it(native_env: str) -> None:
    """native.adopt: the step charge, the die, the rollout's drain and act run compiled."""
    fast = compile_program(load(EXAMPLE).rulebook, native=True)
    _playouts(fast, 2, 1)                        # (the rollout, made on first use)
    ns = fast.ex.ns
    for name in ("_ch", "_cp", "_roll", "rng_below", "_drain", "_act"):
        assert type(ns[name]).__name__ == "cython_function_or_method", name


def test_a_helper_is_written_again_from_its_source_or_left_alone() -> None:
    """What the first (recording) build adopts, without Cython: a copy of limits.charged whose
    default read from a global (`_m=METER`) is bound in its body; a helper that would read a
    name the namespace binds otherwise stays the engine's own."""
    from mercator.interpreter.compiler.build import _build
    from mercator.interpreter.engine import limits
    from mercator.interpreter.engine.exprs import take_item
    from mercator.interpreter.engine.program import Program
    rb = load(EXAMPLE).rulebook
    prog = Program(rb, 1000)
    rec = native.NativeLink()
    _build(prog, rb, rec)
    ns = prog.ex.ns
    assert ns["_ch"] is not limits.charged and ns["_ADOPTED"][limits.charged] is ns["_ch"]
    assert any(text.startswith("def charged(xs):\n    _m = METER\n") for _, text in rec.recorded)
    limits.start(10)
    assert ns["_ch"]([1, 2, 3]) == [1, 2, 3] and limits.METER[0] == 7
    ns["RuleError"] = ValueError                 # (take_item raises the engine's RuleError)
    ns["_take2"] = take_item
    del ns["_ADOPTED"][take_item]
    ns.pop("take_item", None)
    native.adopt(prog.ex, (take_item,))
    assert ns["_take2"] is take_item and ns["_ADOPTED"][take_item] is None


@needs_native
def test_the_golden_fingerprints_hold_on_the_native_path(native_env: str) -> None:
    env = dict(os.environ, MERCATOR_NATIVE="1")
    r = subprocess.run([sys.executable, "-m", "mercator.interpreter.tools.fingerprint",
                        "--check", "parade"], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "as recorded" in r.stdout + r.stderr
    assert "not used" not in r.stderr


def test_without_cython_the_python_path_is_used_with_one_warning(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "Cython", None)     # import Cython fails
    monkeypatch.setattr(native, "_warned", set())
    rb = load(EXAMPLE).rulebook
    prog = compile_program(rb, native=True)
    assert getattr(prog, "native", None) is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Cython is not installed" in err and "Traceback" not in err
    assert _games(prog, 2, 2) == _games(compile_program(rb), 2, 2)


@needs_native
@pytest.mark.parametrize("body,line", [
    ("let k = 1\n  let z = 10 / (k - 1)", 5),
    ("let xs = [1]\n  for i in 0..2 {\n    xs[i] = 5\n  }", 6),
])
def test_an_error_in_a_compiled_fused_run_names_its_own_line(native_env: str, body: str,
                                                             line: int) -> None:
    """Cython's frames carry no locals: the frame the failing code ran is the one on top of
    the stack, its statement found by the traceback's line in the module (Fused.relocate,
    Rollout.relocate)."""
    from mercator.dsl.loader import load_text
    from mercator.interpreter.engine.program import MercatorRuntimeError
    rb = load_text('game "T" players 2..3\nplayer { x: int }\nround r limit 1 { phase a {\n  '
                   + body + "\n} }\nscore p: p.x\n", "t.rules").rulebook
    got = []
    for on in (False, True):
        prog = compile_program(rb, native=on)
        assert (getattr(prog, "native", None) is not None) == on
        for rollout in (False, True):     # a new game run by the VM, then by the rollout
            if rollout:
                prog._rollout = prog.make_rollout()  # type: ignore[attr-defined]
            with pytest.raises(MercatorRuntimeError) as err:
                prog.new_game(2, 0)
            got.append((err.value.span.line, err.value.span.col, err.value.message))
    assert len(set(got)) == 1 and got[0][0] == line


@needs_native
def test_the_first_build_says_it_compiles_and_the_cached_one_is_quiet(
        tmp_path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A build that compiles (minutes for a large game) says so on stderr before it starts,
    and how long it took; loaded from the cache, it says nothing."""
    where = tmp_path / "cache"
    where.mkdir(mode=0o700)
    monkeypatch.setenv("MERCATOR_CACHE_DIR", str(where))
    monkeypatch.setenv("MERCATOR_NATIVE_CFLAGS", "-O0")
    rb = load(EXAMPLE).rulebook
    assert getattr(compile_program(rb, native=True), "native", None) is not None
    err = capsys.readouterr().err
    assert "compiling the game's code with Cython" in err and "compiled in" in err
    assert getattr(compile_program(rb, native=True), "native", None) is not None
    assert capsys.readouterr().err == ""


@needs_native
def test_the_search_benchmark_compares_the_same_searches(native_env: str,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    """benchmarks/bench_native_search.py: the same searcher on the same positions, pure and
    native; it stops if the two choose differently, so its ratio compares the same work."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "bench_native_search", os.path.join(ROOT, "benchmarks", "bench_native_search.py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = mod.main([EXAMPLE, "--players", "3", "--games", "2", "--agent",
                    "ismcts:20:cores=1", "--max-decisions", "3"])
    out = capsys.readouterr().out
    assert got["compared"] > 0 and got["ratio"] > 0
    assert got["tally"]["pure"]["iterations"] == got["tally"]["native"]["iterations"] > 0
    assert "native / pure (iterations per CPU second)" in out


@needs_native
def test_pieces_cython_refused_are_remembered_beside_the_module(
        native_env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A refused piece is known only after Cython has run; its number is kept in the cache, so
    the next load finds the module without running Cython again."""
    monkeypatch.setenv("MERCATOR_NATIVE_CFLAGS", "-O0 -DMERCATOR_REFUSED_TEST")  # a fresh key
    real = native._compile_module
    calls = []

    def refusing(units: list, spans: list, where: str, name: str) -> tuple:
        calls.append(name)
        if len(calls) == 1:                 # as if Cython refused the first piece
            return None, {spans[0][2]}, "refused"
        return real(units, spans, where, name)

    monkeypatch.setattr(native, "_compile_module", refusing)
    rb = load(EXAMPLE).rulebook
    plain = compile_program(rb, native=False)
    first = compile_program(rb, native=True)
    assert getattr(first, "native", None) is not None and len(calls) == 2
    assert native.last["skipped"] == 1
    again = compile_program(rb, native=True)
    assert len(calls) == 2 and native.last["compile_seconds"] == 0.0
    assert native.last["skipped"] == 1 and again.native.misses > 0
    assert _games(again, 2, 3) == _games(plain, 2, 3)


def test_the_module_is_cut_into_units_of_whole_pieces() -> None:
    """module_source: no cut at 0; at a small size several units, each with the directives in
    its first line, each piece whole in one unit, its lines counted from its unit's start."""
    from mercator.interpreter.compiler.build import _build
    from mercator.interpreter.engine.program import Program
    rb = load(EXAMPLE).rulebook
    prog = Program(rb, 1000)
    rec = native.NativeLink()
    _build(prog, rb, rec)
    one, aliases, spans, _ = native.module_source(rec.recorded, set(), 0)
    cut, aliases2, spans2, starts = native.module_source(rec.recorded, set(), 4096)
    assert len(one) == 1 and len(cut) > 2 and aliases2 == aliases
    assert [k for _, _, k, _ in spans2] == [k for _, _, k, _ in spans]
    assert all(u.startswith(native._HEADER) and len(u) < 4096 + 2000 for u in cut[:-1])
    for a, b, k, u in spans2:
        lines = cut[u].split("\n")
        assert lines[a - 1].startswith((f"def _E{k}(", f"def _N{k}_")), (k, u)
        assert lines[b - 1] == "" and (b == len(lines) - 1 or lines[b].startswith("def _"))
    assert {n: spans2[[k for _, _, k, _ in spans2].index(int(n[2:].split("_")[0]))][0]
            for n in starts} == starts


@needs_native
def test_a_module_cut_into_units_plays_the_same_games(native_env: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Several translation units, each its own extension module (the C compiler's peak memory
    is one unit's): the functions of every unit read their globals from the one namespace,
    names bound in it after loading included (the rollout's, made on first use)."""
    monkeypatch.setenv("MERCATOR_NATIVE_UNIT_KB", "16")
    rb = load(EXAMPLE).rulebook
    plain = compile_program(rb, native=False)
    fast = compile_program(rb, native=True)
    assert getattr(fast, "native", None) is not None and fast.native.misses == 0
    units = native.last["units"]
    assert units > 2 and native.last["compile_seconds"] > 0
    for players in (2, 3):
        assert _games(fast, players, 6) == _games(plain, players, 6)
        assert _playouts(fast, players, 6) == _playouts(plain, players, 6)
    ns = fast.ex.ns
    compiled = [f for f in ns.values() if type(f).__name__ == "cython_function_or_method"]
    assert len({f.__module__ for f in compiled}) == units
    assert all(f.__globals__ is ns for f in compiled)
    # the cut is in the digest: a module of one unit is another module
    again = compile_program(rb, native=True)      # (loaded from the cache)
    assert native.last["compile_seconds"] == 0.0 and native.last["units"] == units
    assert _playouts(again, 2, 3) == _playouts(plain, 2, 3)
    name = native.last["module"]
    monkeypatch.setenv("MERCATOR_NATIVE_UNIT_KB", "0")
    monkeypatch.setattr(native, "_compile_module", lambda *a: (None, set(), "not built"))
    monkeypatch.setattr(native, "_warned", {"the build failed (['not built'])"})
    compile_program(rb, native=True)    # (not built here; maybe cached by another test)
    assert native.last["units"] == 1 and native.last["module"] != name
